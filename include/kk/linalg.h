/* kk/linalg.h -- kk-kernels: BLAS 1/2/3, batched dense and sparse linear algebra on every kk backend, vendor libraries chosen at run time. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_LINALG_H
#define KK_LINALG_H

/*
 * libkk-kernels is the Kokkos Kernels role for kk: the linear algebra that
 * applications call instead of writing BLAS and sparse kernels themselves.
 * Its own kernels are kernel files compiled by kkcc for every target (host,
 * CUDA, HIP, SPIR-V), so every routine runs on every backend, third-party
 * plugins included.  Where a vendor library is present and serves the case
 * (a CBLAS such as OpenBLAS on host backends, cuBLAS and cuSPARSE on cuda),
 * the call goes there instead; which one, and why not, is decided at run
 * time (see "Vendor libraries" below and docs/kernels.md).
 *
 * Link with `pkg-config --libs kk-kernels` (-lkk-kernels -lkk), or CMake's
 * kk::kernels (find_package(kk COMPONENTS kernels)).  kk must be
 * initialized (kk_initialize) before any call below except
 * kk_kernels_version(), kk_kernels_set_tpl() and the vendor-library queries.
 *
 * Conventions shared by every routine:
 *
 * - Views.  Vectors are rank-1 views, multivectors rank-2 views whose
 *   columns are the vectors (extent 0 = rows, extent 1 = columns), matrices
 *   rank-2 views, batches rank-3 views whose extent 0 counts the matrices.
 *   Any layout is accepted: right, left and strided views (subviews, a row
 *   or a column of a matrix) alike.  Element types: KK_FLOAT, KK_DOUBLE,
 *   KK_COMPLEX_FLOAT, KK_COMPLEX_DOUBLE; every view of one call has the same
 *   type (results of norms are real, of iamax int64).  Output views must not
 *   overlap inputs unless a routine says so.
 * - Scalars are kk_scalar_t values (two doubles), KK_REAL(2.0) or
 *   KK_COMPLEX(1.0, -1.0); on real views the imaginary part must be 0.  Float
 *   routines round them to float.  As in BLAS, a zero beta means "do not read
 *   the output's old values" (NaN in y does not propagate), and a zero alpha
 *   in scal gives zeros.
 * - Where a call runs.  `instance` NULL: on the backend that owns the
 *   views' memory space (its default instance: kk_instance_default() for the
 *   default backend, kk_instance_host() for the host backend).  Given: on that
 *   instance, which must be able to read every view (views of its own
 *   backend's spaces; host-accessible views on a host backend).
 * - Ordering.  Routines without a host result are asynchronous like
 *   kk_parallel_for: they return when the work is queued on the instance.
 *   Routines that return a value to the host (dot, norms, iamax, the CG
 *   solve) are synchronous.  Calls on one instance run in order.
 * - Errors.  Every routine checks ranks, extents, element types, scalars and
 *   spaces before anything runs, and refuses a bad call with
 *   KK_ERROR_INVALID_ARGUMENT (wrong rank, extents, type or scalar) or
 *   KK_ERROR_UNSUPPORTED (a view on a space the instance's backend cannot
 *   read); kk_last_error() names the routine, the views' labels and what is
 *   wrong.  Nothing is modified by a refused call.
 * - Thread safety: every routine may be called from several threads at
 *   once; calls on one instance from several threads are ordered as they
 *   reach it.
 */

#include <kk.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===========================================================================
 * Scalars and operation codes
 * ======================================================================== */

/* A scalar argument: re (and im, for complex views).  Results of dot come
 * back in this form too. */
typedef struct kk_scalar {
  double re, im;
} kk_scalar_t;

#ifdef __cplusplus
#define KK_REAL(x) (kk_scalar_t{(double)(x), 0.0})
#define KK_COMPLEX(r, i) (kk_scalar_t{(double)(r), (double)(i)})
#else
/* A kk_scalar_t of the real x, or of the complex r + i i. */
#define KK_REAL(x) ((kk_scalar_t){(double)(x), 0.0})
#define KK_COMPLEX(r, i) ((kk_scalar_t){(double)(r), (double)(i)})
#endif

/* How a matrix enters an operation: as is, transposed, or conjugated and
 * transposed (the same as transposed on real views). */
typedef enum kk_op {
  KK_OP_N = 0,
  KK_OP_T = 1,
  KK_OP_C = 2,
  KK__OP_PIN = 0x7fffffff
} kk_op_t;

/* Triangular solves: on which side the triangular matrix stands, which
 * triangle of it is read, and whether its diagonal is taken as ones. */
typedef enum kk_side { KK_SIDE_LEFT = 0, KK_SIDE_RIGHT = 1, KK__SIDE_PIN = 0x7fffffff } kk_side_t;
typedef enum kk_uplo { KK_LOWER = 0, KK_UPPER = 1, KK__UPLO_PIN = 0x7fffffff } kk_uplo_t;
typedef enum kk_diag { KK_DIAG_NONUNIT = 0, KK_DIAG_UNIT = 1, KK__DIAG_PIN = 0x7fffffff } kk_diag_t;

/* The library version ("0.1.0"), the same as libkk's of the same release.
 * Any time, thread-safe. */
const char *kk_kernels_version(void);

/* ===========================================================================
 * BLAS 1: vectors and multivectors
 *
 * Every routine takes rank-1 views (vectors) or rank-2 views
 * (multivectors, applied column by column); all views of one call have the
 * same rank and extents.  Empty views are fine (nothing runs, reductions
 * give their empty value).
 * ======================================================================== */

/* y = a x + b y.  Asynchronous. */
kk_status_t kk_blas_axpby(kk_instance_t *instance, kk_scalar_t a, kk_view_t *x, kk_scalar_t b, kk_view_t *y);

/* r = a x (r may be x itself).  Asynchronous. */
kk_status_t kk_blas_scal(kk_instance_t *instance, kk_view_t *r, kk_scalar_t a, kk_view_t *x);

/* z = a x + b y + g z.  Asynchronous. */
kk_status_t kk_blas_update(kk_instance_t *instance, kk_scalar_t a, kk_view_t *x, kk_scalar_t b, kk_view_t *y,
                           kk_scalar_t g, kk_view_t *z);

/* Dot product sum_i conj(x_i) y_i (conj is a no-op on real views), into
 * result[0] for vectors, into result[0 .. columns-1] for multivectors (one
 * per column).  Float results are rounded as float sums are; the sum is taken
 * in the views' precision, in an order that depends on the backend.
 * Synchronous: the values are in result on return. */
kk_status_t kk_blas_dot(kk_instance_t *instance, kk_view_t *x, kk_view_t *y, kk_scalar_t *result);

/* Euclidean norm sqrt(sum_i |x_i|^2) (no scaling against overflow, as in
 * Kokkos Kernels).  result: one double per column.  Synchronous. */
kk_status_t kk_blas_nrm2(kk_instance_t *instance, kk_view_t *x, double *result);

/* BLAS asum: sum_i |x_i| on real views, sum_i |re x_i| + |im x_i| on
 * complex ones (as BLAS and C++26 std::linalg::vector_abs_sum define it).
 * Synchronous. */
kk_status_t kk_blas_nrm1(kk_instance_t *instance, kk_view_t *x, double *result);

/* Infinity norm max_i |x_i| (the modulus on complex views); 0 when empty.
 * Synchronous. */
kk_status_t kk_blas_nrminf(kk_instance_t *instance, kk_view_t *x, double *result);

/* Index (from 0) of the first element of largest |x_i| (|re| + |im| on
 * complex views, as BLAS i?amax); -1 when empty.  Synchronous. */
kk_status_t kk_blas_iamax(kk_instance_t *instance, kk_view_t *x, int64_t *result);

/* The same reductions with the result left in a view on the device, for
 * loops that must not wait for the host: x rank 1 gives a rank-0 result
 * view, x rank 2 a rank-1 result view with one element per column.  The
 * result's type: the views' type for dot, the real type of the same
 * precision (KK_FLOAT or KK_DOUBLE) for the norms, KK_INT64 for iamax.  It
 * must be writable by the instance's backend.  Asynchronous. */
kk_status_t kk_blas_dot_into(kk_instance_t *instance, kk_view_t *result, kk_view_t *x, kk_view_t *y);
kk_status_t kk_blas_nrm2_into(kk_instance_t *instance, kk_view_t *result, kk_view_t *x);
kk_status_t kk_blas_nrm1_into(kk_instance_t *instance, kk_view_t *result, kk_view_t *x);
kk_status_t kk_blas_nrminf_into(kk_instance_t *instance, kk_view_t *result, kk_view_t *x);
kk_status_t kk_blas_iamax_into(kk_instance_t *instance, kk_view_t *result, kk_view_t *x);

/* ===========================================================================
 * BLAS 2 and 3
 *
 * Matrices are rank-2 views of any layout; each may have its own.
 * ======================================================================== */

/* y = a op(A) x + b y: A is m x n, x has op(A)'s columns, y its rows.
 * Asynchronous. */
kk_status_t kk_blas_gemv(kk_instance_t *instance, kk_op_t op, kk_scalar_t a, kk_view_t *A, kk_view_t *x,
                         kk_scalar_t b, kk_view_t *y);

/* C = a op(A) op(B) + b C: op(A) is m x k, op(B) k x n, C m x n.  k = 0
 * gives C = b C.  Asynchronous. */
kk_status_t kk_blas_gemm(kk_instance_t *instance, kk_op_t op_a, kk_op_t op_b, kk_scalar_t a, kk_view_t *A,
                         kk_view_t *B, kk_scalar_t b, kk_view_t *C);

/* ===========================================================================
 * Batched dense linear algebra
 *
 * Many small matrices at once, in rank-3 views (batch, rows, columns) of
 * any layout: each matrix is handled by one team of the backend, staged in
 * team scratch (the "team" algorithms of Kokkos Kernels' batched BLAS).  All
 * views of one call have the same batch extent.  What a team stages must
 * fit in the backend's level-0 scratch (kk_device_info_t.scratch_max[0]:
 * 48 KiB or more on GPUs, 1 MiB on host backends), else the call is
 * refused with KK_ERROR_LIMIT before anything runs.  Exception: batched
 * gemm on host backends reads A and B in place (a thread per matrix, no
 * scratch), so it has no such limit there.
 * ======================================================================== */

/* C[i] = a op(A[i]) op(B[i]) + b C[i] for every i.  Asynchronous. */
kk_status_t kk_batched_gemm(kk_instance_t *instance, kk_op_t op_a, kk_op_t op_b, kk_scalar_t a, kk_view_t *A,
                            kk_view_t *B, kk_scalar_t b, kk_view_t *C);

/* y[i] = a op(A[i]) x[i] + b y[i]: A rank 3, x and y rank 2 (batch,
 * length).  Asynchronous. */
kk_status_t kk_batched_gemv(kk_instance_t *instance, kk_op_t op, kk_scalar_t a, kk_view_t *A, kk_view_t *x,
                            kk_scalar_t b, kk_view_t *y);

/* Triangular solves with many right-hand sides: B[i] = a op(A[i])^-1 B[i]
 * (side left) or a B[i] op(A[i])^-1 (side right), A[i] square, triangular
 * as `uplo` says (the other triangle is not read), with a unit diagonal
 * (not read) for KK_DIAG_UNIT.  No check for singular A: a zero on the
 * diagonal gives infinities or NaN, as in BLAS trsm.  Asynchronous. */
kk_status_t kk_batched_trsm(kk_instance_t *instance, kk_side_t side, kk_uplo_t uplo, kk_op_t op, kk_diag_t diag,
                            kk_scalar_t a, kk_view_t *A, kk_view_t *B);

/* LU factorization without pivoting, in place: A[i] = L U with L unit
 * lower triangular (below the diagonal) and U upper triangular (on and above
 * it).  A[i] may be rectangular (min(rows, cols) steps).  Without pivoting
 * the factorization is stable only for matrices such as diagonally dominant
 * ones; a zero pivot gives infinities or NaN (not checked, as in Kokkos
 * Kernels' batched LU).  Asynchronous. */
kk_status_t kk_batched_lu(kk_instance_t *instance, kk_view_t *A);

/* ===========================================================================
 * Sparse matrices (compressed row storage) and SpMV
 * ======================================================================== */

/* A sparse matrix in compressed row storage in one memory space: row
 * offsets (int64, rows + 1), column indices (int32) and values.  Opaque;
 * created from host arrays or copied from another CRS matrix. */
typedef struct kk_crs kk_crs_t;

/* Creates a CRS matrix in `space` (NULL: kk_space_default()) from host CSR
 * arrays: row_ptr (rows + 1 offsets of `offset_type`, row_ptr[0] = 0,
 * non-decreasing) and col_idx (row_ptr[rows] column indices of
 * `index_type`), each type KK_INT32 or KK_INT64, and values of `type` (the
 * four element types).  Column indices within a row may come in any order;
 * repeated ones are kept (they add up in SpMV).  The arrays are copied; the
 * caller keeps them.  cols must be below 2^31.  Malformed arrays (an offset
 * out of order, a column out of range) are refused with
 * KK_ERROR_INVALID_ARGUMENT naming the first bad entry.  `label` names the
 * matrix's views ("<label>.row_ptr", ...).  Thread-safe. */
kk_status_t kk_crs_create_csr(kk_space_t *space, const char *label, kk_type_t type, int64_t rows, int64_t cols,
                              kk_type_t offset_type, const void *row_ptr, kk_type_t index_type, const void *col_idx,
                              const void *values, kk_crs_t **out);

/* The same from coordinate (COO) triplets: nnz entries (row_idx[k],
 * col_idx[k], values[k]) in any order, both index arrays of `index_type`
 * (KK_INT32 or KK_INT64); duplicate (row, column) pairs are summed into one
 * entry; within a row, columns end up in increasing order. */
kk_status_t kk_crs_create_coo(kk_space_t *space, const char *label, kk_type_t type, int64_t rows, int64_t cols,
                              int64_t nnz, kk_type_t index_type, const void *row_idx, const void *col_idx,
                              const void *values, kk_crs_t **out);

/* A deep copy of `src` in `space` (NULL: kk_space_default()): the same
 * structure and values, e.g. a host-built matrix moved to a GPU. */
kk_status_t kk_crs_copy(kk_space_t *space, const kk_crs_t *src, kk_crs_t **out);

/* Frees the matrix and its views (views obtained below stay valid while the
 * caller holds them with kk_view_retain).  NULL is ignored.  A matrix kept
 * past kk_finalize (its memory freed then) is refused by every routine with
 * KK_ERROR_NOT_INITIALIZED, also after a new kk_initialize; destroying it
 * afterwards frees its record. */
void kk_crs_destroy(kk_crs_t *A);

/* Queries (any time while A lives; thread-safe).  For NULL and for a matrix
 * from before kk_finalize: 0, KK_TYPE_NONE, NULL. */
int64_t kk_crs_rows(const kk_crs_t *A);
int64_t kk_crs_cols(const kk_crs_t *A);
int64_t kk_crs_nnz(const kk_crs_t *A);
kk_type_t kk_crs_type(const kk_crs_t *A);
kk_space_t *kk_crs_space(const kk_crs_t *A);
/* The matrix's own views (borrowed: valid while A lives): row offsets
 * (KK_INT64, rows + 1), column indices (KK_INT32, nnz) and values (nnz).
 * The values may be changed in place (same structure, new numbers). */
kk_view_t *kk_crs_row_ptr(const kk_crs_t *A);
kk_view_t *kk_crs_col_idx(const kk_crs_t *A);
kk_view_t *kk_crs_values(const kk_crs_t *A);

/* y = a op(A) x + b y with op KK_OP_N, KK_OP_T or KK_OP_C; x and y are
 * vectors or multivectors (rank 2, same column count).  The transposed
 * products scatter with atomic additions, so their sums come in an order
 * that may vary from run to run.  Asynchronous. */
kk_status_t kk_sparse_spmv(kk_instance_t *instance, kk_op_t op, kk_scalar_t a, const kk_crs_t *A, kk_view_t *x,
                           kk_scalar_t b, kk_view_t *y);

/* ===========================================================================
 * Conjugate gradients
 * ======================================================================== */

enum { KK_CG_NONE = 0, KK_CG_JACOBI = 1 };

/* Options of kk_sparse_cg.  Start from KK_CG_OPTIONS_INIT. */
typedef struct kk_cg_options {
  size_t struct_size;    /* sizeof(kk_cg_options_t) */
  int max_iterations;    /* default 1000 */
  double tolerance;      /* stop when ||r|| <= tolerance * ||b||; default 1e-10 */
  int preconditioner;    /* KK_CG_JACOBI (default: z = D^-1 r with D = diag(A)) or KK_CG_NONE */
} kk_cg_options_t;

/* The initializer of a kk_cg_options_t: 1000 iterations, tolerance 1e-10, Jacobi. */
#define KK_CG_OPTIONS_INIT {sizeof(kk_cg_options_t), 1000, 1e-10, KK_CG_JACOBI}

/* What the solve did. */
typedef struct kk_cg_result {
  size_t struct_size;    /* set by the caller to sizeof(kk_cg_result_t) */
  int iterations;        /* iterations taken */
  double residual;       /* ||b - A x|| / ||b|| at the end (the recurrence's residual) */
  int converged;         /* 1 when residual <= tolerance */
} kk_cg_result_t;

/* Solves A x = b by conjugate gradients, A Hermitian positive definite
 * (symmetric positive definite on real views), x holding the initial guess
 * on entry and the solution on return.  b and x are vectors of A's type in
 * spaces the instance can read.  Returns KK_OK whether or not the tolerance
 * was reached: check result->converged.  A Jacobi preconditioner needs a
 * nonzero diagonal (refused with KK_ERROR_INVALID_ARGUMENT otherwise).
 * Allocates its work vectors (five of b's length) for the call.  options
 * NULL: the defaults; result may be NULL.  Synchronous. */
kk_status_t kk_sparse_cg(kk_instance_t *instance, const kk_crs_t *A, kk_view_t *b, kk_view_t *x,
                         const kk_cg_options_t *options, kk_cg_result_t *result);

/* ===========================================================================
 * Vendor libraries
 *
 * Each routine uses a vendor library where one is loaded, enabled and
 * serves the case (the backend, layout and type), else kk's own kernel.
 * Libraries are opened with dlopen at the first call that could use them;
 * none is linked.  This release knows:
 *
 *   cblas     a CBLAS (OpenBLAS, Debian's libblas.so.3, ...) for views on
 *             host backends: gemm always; axpby, scal (in place), dot,
 *             nrm2, nrm1, iamax and gemv only while kk's host backend runs
 *             one thread (kk_num_threads() == 1; with more, kk's own
 *             kernels on kk's threads were faster)
 *   cublas    cuBLAS for views on cuda: scal, dot, nrm2, nrm1, iamax, gemv,
 *             gemm, queued on the instance's CUDA stream (axpby stays with
 *             kk's kernel: cuBLAS has no one-pass form as fast)
 *   cusparse  cuSPARSE for views on cuda: SpMV on vectors
 * The cuda libraries need a cuda plugin with native queues (plugin ABI
 * 1.4, kk_instance_native_queue); without one kk's own kernels run.
 *
 * Settings (each read once, at the first use; kk_kernels_set_tpl overrides):
 *   KK_KERNELS_TPL=auto|none   none: kk's own kernels everywhere
 *   KK_KERNELS_CBLAS=auto|off|FILE
 *                              auto: the first of libopenblas.so.0,
 *                              libblas.so.3, libcblas.so.3 that has the
 *                              CBLAS symbols; off: never; FILE: that library
 *   KK_KERNELS_CUBLAS=auto|off|FILE, KK_KERNELS_CUSPARSE=auto|off|FILE
 *                              auto: libcublas.so.13 / libcusparse.so.12 (or
 *                              the other major) on the loader's path, then
 *                              in the CUDA toolkit configure found
 * docs/kernels.md says which cases each library serves.
 * ======================================================================== */

/* The state of a vendor library (kk_tpl_info_t.state). */
typedef enum kk_tpl_state {
  KK_TPL_NOT_LOADED = 0,   /* not tried yet (libraries open at their first use) */
  KK_TPL_LOADED = 1,       /* open and in use */
  KK_TPL_DISABLED = 2,     /* switched off by KK_KERNELS_TPL, its own variable or kk_kernels_set_tpl */
  KK_TPL_NOT_FOUND = 3,    /* could not be opened or lacks symbols; reason says why */
  KK__TPL_STATE_PIN = 0x7fffffff
} kk_tpl_state_t;

/* One vendor library as kk_kernels_tpl_info() reports it. */
typedef struct kk_tpl_info {
  size_t struct_size;      /* set by the caller to sizeof(kk_tpl_info_t) */
  const char *name;        /* "cblas", "cublas", "cusparse" */
  const char *serves;      /* what it is used for, in words */
  kk_tpl_state_t state;
  const char *path;        /* the file opened ("" unless loaded) */
  const char *reason;      /* why not loaded, or a note about the loaded one */
  uint64_t calls;          /* calls it has served in this process */
} kk_tpl_info_t;

/* Number of vendor libraries this build knows. */
int kk_kernels_tpl_count(void);

/* Fills `info` for library i, first trying to open it if `load` is nonzero
 * and it was not tried yet (so that a report can say why it is missing).
 * Strings stay valid until the next kk_kernels_set_tpl.
 * KK_ERROR_INVALID_ARGUMENT for a bad index or struct.  Thread-safe. */
kk_status_t kk_kernels_tpl_get_info(int i, int load, kk_tpl_info_t *info);

/* Switches vendor libraries: `library` NULL sets the global choice
 * ("auto" or "none", as KK_KERNELS_TPL); a library name sets that
 * library's (as KK_KERNELS_<NAME>: "auto", "off" or a file to open).  A
 * library already open stays open (a new FILE applies after "off"/"auto"
 * cycles only: it is read before the first load).  Takes precedence over
 * the variables.  Call it while no other thread runs a kk-kernels routine.
 * KK_ERROR_INVALID_ARGUMENT for an unknown library or setting. */
kk_status_t kk_kernels_set_tpl(const char *library, const char *setting);

/* Prints what kk-kernels has: its version and each vendor library with its
 * state, file and reason (trying to open those not yet tried).  json
 * nonzero: one JSON object {"version": ..., "tpls": [...]} instead of text.
 * This is what kk-info prints under "kk-kernels".  Thread-safe. */
kk_status_t kk_kernels_print_report(FILE *out, int json);

#ifdef __cplusplus
}
#endif

#include <kk/sparse_ops.h>
#include <kk/solvers.h> /* sparse triangular solves, ILU(k), preconditioned GMRES and CG */

#endif /* KK_LINALG_H */
