/* kernels/args.h -- the argument structs kk-kernels' kernel files share with its host code (every target compiles this). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKK_ARGS_H
#define KKK_ARGS_H

#include <kk.h>

/*
 * Views reach the kernels as strided descriptors that the host code builds
 * (a column of a multivector, op(A) as a transposed descriptor of A), so one
 * kernel serves every layout.  Scalars travel as two doubles and each kernel
 * converts them to its own type once.
 *
 * Host and device kernels block their loops differently (a host thread
 * takes KKK_HOST_VB consecutive elements per iteration of a reduction, so
 * that independent partial sums keep the floating-point adder busy; a GPU
 * thread takes one, so that a warp's loads coalesce).  The launching code
 * knows which kind of backend runs the call and sizes the range to match.
 */

/* Elements per iteration of a host reduction, rows per block of a host
 * gemv whose columns are contiguous, and rows per host SpMV block (taken
 * dynamically by the threads: 256 rows ran 1.4x faster than 64 on the
 * 27-point matrix on 2 cores, longer runs of the CRS arrays per thread). */
#define KKK_HOST_VB 8
#define KKK_HOST_GEMV_RB 32
#define KKK_HOST_SPMV_ROWS 256
/* entries per team the GPU SpMV on one vector aims for */
#define KKK_GPU_SPMV_TEAM_NNZ 2048
/* the merge-path SpMV (spmv_merge): a team of KKK_MERGE_TEAM threads takes
 * a tile of whole rows with at most KKK_MERGE_TILE items (a row's entries
 * and its end), KKK_MERGE_TILE / KKK_MERGE_TEAM items per thread; a row
 * with more items is a tile of its own.  kk_crs_t cuts its rows into such
 * tiles when it is made (kkk_crs_tiles).  512 items for teams of 64: on
 * an H200, 12 such teams per multiprocessor (768 threads, as 6 teams of
 * 128 with tiles of 1024) ran the pipelined kernel on 10^6 irregular rows
 * in 146-147 us against 149, their barriers each waiting for two warps
 * instead of four; tiles of 2048 for teams of 256 were slower. */
#define KKK_MERGE_TILE 512
#define KKK_MERGE_TEAM 64
#define KKK_MERGE_K (KKK_MERGE_TILE / KKK_MERGE_TEAM)
/* the tile's products in scratch: product i at KKK_MERGE_PAD(i), a free
 * slot after every 16, so that the threads of a warp walking 8 items each
 * (product indices about 8 apart: for double, all in two banks without
 * it) read distinct shared-memory banks, while 16 adjacent products,
 * stored by a half-warp, stay in distinct banks */
#define KKK_MERGE_PAD(i) ((i) + ((i) >> 4))
#define KKK_MERGE_PADDED (KKK_MERGE_TILE + KKK_MERGE_TILE / 16)
/* spmv_merge: a thread's row ends of the tile loaded with its products
 * (the rest after them): 1 covers tiles of up to KKK_MERGE_TEAM rows */
#define KKK_MERGE_ENDS 1
/* gemm tiles: KKK_GEMM_TILE x KKK_GEMM_TILE elements of C per team (complex
 * double: KKK_GEMM_TILE_Z), with A's and B's tiles staged in scratch */
#define KKK_GEMM_TILE 32
#define KKK_GEMM_TILE_Z 16
/* gemm_rb, the register-blocked gemm of real types (kernels/gemm_tmpl.h).
 * GPUs: a team of KKK_GEMM_GPU_THREADS threads (vector length 1) per
 * KKK_GEMM_GPU_T x KKK_GEMM_GPU_T tile of C, each thread 8 x 8 elements of
 * it, op(A) and op(B) staged KKK_GEMM_GPU_K values of k at a time (16 x 16
 * threads x 8 x 8 = 128 x 128: the sizes are tied).  Host targets: a
 * league rank per mr x nc block of C (mr a multiple of KKK_GEMM_H_MC rows,
 * at most KKK_GEMM_H_MR_RANK; nc at most KKK_GEMM_H_NC columns), op(B)
 * packed once per slice of KKK_GEMM_H_KC values of k for all the rank's
 * rows, op(A) a panel of KKK_GEMM_H_MR rows at a time (MC is a multiple
 * of it); op(B)'s panels are NR columns (two vector registers: at most 32
 * floats with AVX-512). */
#define KKK_GEMM_GPU_THREADS 256
#define KKK_GEMM_GPU_T 128
#define KKK_GEMM_GPU_K 8
#define KKK_GEMM_H_MR 6 /* the micro-kernel is written for 6 rows */
#define KKK_GEMM_H_MC 96
#define KKK_GEMM_H_MR_RANK (8 * KKK_GEMM_H_MC)
#define KKK_GEMM_H_KC 256
#define KKK_GEMM_H_NC 256
#define KKK_GEMM_H_NR_MAX 32
/* gemm_rb of double on CUDA devices of compute capability 8.0 and up: the
 * FP64 tensor cores (mma m8n8k4), the same 128 x 128 tile of C and 256
 * threads, each warp a 64 x 32 block of it; op(A) and op(B) staged
 * KKK_GEMM_TC_K values of k at a time, double buffered, rows of the stage
 * padded by KKK_GEMM_TC_PAD elements (with 4, the eight rows by four k a
 * warp reads for one mma fall in distinct banks).  The team scratch it
 * takes, per operand: KKK_GEMM_TC_STAGE elements a buffer, two buffers. */
#define KKK_GEMM_TC_K 16
#define KKK_GEMM_TC_PAD 4
#define KKK_GEMM_TC_GROUP 8 /* rows of tiles the league ranks go through column by column */
#define KKK_GEMM_TC_STAGE (KKK_GEMM_TC_K * (KKK_GEMM_GPU_T + KKK_GEMM_TC_PAD))

/* batched gemm on GPUs: rows of C each lane keeps in registers when C has
 * a warp's worth of columns */
#define KKK_BGEMM_RB 4
/* batched staging on GPUs: elements of A and of B a lane loads before it stores them */
#define KKK_STAGE_U 4
/* batched gemm on GPUs, the pipelined forms (bgemm_p, bgemm_p4): matrices per team */
#define KKK_BGEMM_GROUP 4

/* flags */
#define KKK_A_ZERO 1u   /* alpha == 0: x is not read */
#define KKK_B_ZERO 2u   /* beta == 0: the output's old values are not read */
#define KKK_G_ZERO 4u   /* gamma == 0 (update) */
#define KKK_CONJ_A 8u   /* conjugate the elements of A (op C) */
#define KKK_CONJ_B 16u  /* conjugate the elements of B */
#define KKK_UNIT 32u    /* every vector of a BLAS 1 call has unit stride: the kernel indexes
                           the data pointers directly, which host compilers vectorize */
#define KKK_SPLIT 64u   /* gemv: partial sums added into y atomically (y already scaled by b) */
#define KKK_ENDS_EARLY 128u /* spmv_merge: the tile's row ends stored as loaded, before the
                               products (the default; KK_KERNELS_SPMV_MERGE=late clears it) */

/* BLAS 1 on vectors (rank-1 descriptors) or multivectors (rank 2). */
struct kkk_v_args {
  kk_view_strided x, y, z;
  kk_complex_double a, b, g;
  int64_t n;        /* elements (rows) */
  uint32_t flags;
  uint32_t pad;
};

/* sqrt in place over a rank-1 result (nrm2 into a view). */
struct kkk_sqrt_args {
  kk_view_strided r;
};

/* iamax into a view: one team per column of x (rank 2), result r (rank 1). */
struct kkk_iamax_args {
  kk_view_strided x, r;
};

/* y = a M x + b y with M = op(A) already as an m x n descriptor.  GPU
 * kernels split M's columns into col_blocks blocks of col_chunk columns
 * (col_blocks 1: no split); with KKK_SPLIT set, each block's partial sums
 * are added into y atomically, y having been scaled by b before. */
struct kkk_gemv_args {
  kk_view_strided A, x, y;
  kk_complex_double a, b;
  int64_t m, n;
  int64_t rows_per_team;
  int64_t row_blocks;  /* league ranks per column block (team kernel) */
  int64_t col_blocks, col_chunk;
  uint32_t flags;
  uint32_t pad;
};

/* GPU gemv: work items (lanes of the team kernel gemv_rows, threads of
 * gemv_split) to aim for, enough to keep an H100's memory system busy
 * (132 SMs x 2048 resident threads; gemv_split's threads each have
 * KKK_GPU_GEMV_STEP loads in flight, and 2^18 of them ran 1-2% slower than
 * 2^17), and the fewest columns a block takes, so that a thread's loop
 * amortizes its atomic. */
#define KKK_GPU_GEMV_ITEMS ((int64_t)1 << 18)
#define KKK_GPU_GEMV_SPLIT_ITEMS ((int64_t)1 << 17)
#define KKK_GPU_GEMV_MIN_CHUNK 256
/* gemv_split: columns whose elements a thread loads before adding any */
#define KKK_GPU_GEMV_STEP 16
/* gemv_cblk: rows of a slice (a thread's vector lanes: a warp), the
 * slices of a team (KK_KERNELS_GEMV_SLICES overrides it: 1, 2, 4 or 8),
 * and the most threads of a team (slices x column blocks; CUDA's most per
 * block is 1024 = 32 x 32 lanes): more blocks go to gemv_split */
#define KKK_GPU_GEMV_TEAM_ROWS 32
#define KKK_GPU_GEMV_TEAM_SLICES 1
#define KKK_GPU_GEMV_TEAM_THREADS 32

/* C = a MA MB + b C with MA = op(A) (m x k) and MB = op(B) (k x n) as
 * descriptors; C is tiled in tiles of `tile` x `tile`. */
struct kkk_gemm_args {
  kk_view_strided A, B, C;
  kk_complex_double a, b;
  int64_t m, n, k;
  int64_t tiles_n;  /* tiles along n */
  int64_t mr, nc;   /* gemm_rb on host targets: rows (a multiple of KKK_GEMM_H_MC) and columns (a multiple
                       of KKK_GEMM_H_NR_MAX, at most KKK_GEMM_H_NC) of C per league rank */
  uint32_t flags;
  uint32_t pad;
};

/* Batched: rank-3 descriptors (batch, rows, cols); A and B already as
 * op(A), op(B) where the routine takes ops (their last two dimensions
 * swapped for a transpose). */
struct kkk_batched_args {
  kk_view_strided A, B, C;   /* gemm: A, B, C; gemv: A, x (B, rank 2), y (C, rank 2); trsm: A, B; lu: A */
  kk_complex_double a, b;
  int64_t m, n, k;           /* gemm: C is m x n, k inner; gemv: A is m x n; trsm: B is m x n; lu: m x n */
  uint32_t flags;
  int32_t side, lower, unit;  /* trsm: side (0 left), the triangle of op(A) that is read, unit diagonal */
  int32_t swap;               /* trsm: op(A) is A transposed (read A(l, i) for op(A)(i, l)) */
  int32_t rblock;             /* gemm on GPUs: rows of C per lane, 1 or KKK_BGEMM_RB (register blocking) */
  int32_t group;              /* gemm_p: matrices per team */
  int64_t nbatch;             /* gemm_p: matrices in all */
};

/* SpMV: y = a op(A) x + b y over a CRS matrix (row offsets int64, columns
 * int32), x and y rank 2 (vectors are one column). */
struct kkk_spmv_args {
  kk_view_strided row_ptr, col_idx, vals, x, y;
  kk_view_strided tiles;    /* spmv_merge: the tiles (kkk_crs_tiles) */
  kk_view_strided ends;     /* spmv_merge: each row's end within its tile, uint16 (kkk_crs_tiles) */
  int64_t merge_tile;       /* spmv_merge: at most this many items per tile (KKK_MERGE_TILE) */
  int64_t ntiles;           /* spmv_mpipe: the tiles, taken in turn by the league's teams */
  kk_complex_double a, b;
  int64_t rows;
  int64_t nvec;             /* columns of x and y */
  int64_t rows_per_team;
  int64_t long_row;         /* spmv_vec: rows with more entries are done by the whole team */
  uint32_t flags;
  uint32_t pad;
};

/* Jacobi: d[i] = 1 / A(i, i) (the sum of a row's diagonal entries); the
 * reduction counts rows whose diagonal is zero or absent. */
struct kkk_diag_args {
  kk_view_strided row_ptr, col_idx, vals, d;
  int64_t rows;
};

/* Elementwise z = x .* y (the Jacobi step). */
struct kkk_emul_args {
  kk_view_strided x, y, z;
  int64_t n;
  uint32_t flags;  /* KKK_UNIT */
  uint32_t pad;
};

#define KKK_DECL4(op)                \
  KK_DECLARE_KERNEL(kkk_##op##_s);   \
  KK_DECLARE_KERNEL(kkk_##op##_d);   \
  KK_DECLARE_KERNEL(kkk_##op##_c);   \
  KK_DECLARE_KERNEL(kkk_##op##_z)

/* blas1.kk.c */
KKK_DECL4(axpby);
KKK_DECL4(axpby2);
KKK_DECL4(scal);
KKK_DECL4(scal2);
KKK_DECL4(update);
KKK_DECL4(update2);
KKK_DECL4(dot);
KKK_DECL4(nrm2);
KKK_DECL4(nrm1);
KKK_DECL4(nrminf);
KKK_DECL4(iamax);
KKK_DECL4(iamaxt);
KKK_DECL4(emul);
KK_DECLARE_KERNEL(kkk_sqrt_s);
KK_DECLARE_KERNEL(kkk_sqrt_d);
/* blas2.kk.c */
KKK_DECL4(gemv_rows);
KKK_DECL4(gemv_cols);
KKK_DECL4(gemv_split);
KKK_DECL4(gemv_cblk);
KKK_DECL4(gemm);
KK_DECLARE_KERNEL(kkk_gemm_rb_s);
KK_DECLARE_KERNEL(kkk_gemm_rb_d);
/* batched.kk.c */
KKK_DECL4(bgemm);
KKK_DECL4(bgemm_p);
KKK_DECL4(bgemm_p4);
KKK_DECL4(bgemv);
KKK_DECL4(btrsm);
KKK_DECL4(blu);
/* sparse.kk.c */
KKK_DECL4(spmv);
KKK_DECL4(spmvt);
KKK_DECL4(spmv_vec);
KKK_DECL4(spmv_merge);
KKK_DECL4(spmv_mpipe);
KKK_DECL4(spmv_mpipe6);
KKK_DECL4(jacobi);

#endif
