/* kk/sparse_ops.h -- kk-kernels: sparse matrix products and sums (SpGEMM, SpAdd), graph coloring and MIS-2 on a CRS pattern, Gauss-Seidel. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_SPARSE_OPS_H
#define KK_SPARSE_OPS_H

/*
 * Part of libkk-kernels; included by <kk/linalg.h> (include that).  The
 * conventions of <kk/linalg.h> hold: kk must be initialized, `instance`
 * NULL runs on the backend that owns the matrices' space, every argument is
 * checked before anything runs and a refused call changes nothing
 * (KK_ERROR_INVALID_ARGUMENT for shapes, types and values, with
 * kk_last_error() naming the routine, the matrices and what is wrong).
 * Matrices are kk_crs_t; results are made in the first input's space.
 *
 * Phases.  As in Kokkos Kernels, SpGEMM and SpAdd are split into a
 * symbolic phase (the structure of the result: synchronous, it returns the
 * number of entries) and a numeric phase (the values: asynchronous), with a
 * handle that keeps the symbolic result.  While the inputs' structures stay
 * the same, numeric may be called again and again with new values (e.g.
 * after changing kk_crs_values() in place), into the same result matrix.
 * A handle is used by one thread at a time.
 */

#ifdef __cplusplus
extern "C" {
#endif

/* ===========================================================================
 * SpGEMM and SpAdd
 * ======================================================================== */

/* The symbolic result of an SpGEMM or SpAdd (the result's row offsets, the
 * accumulator's table sizes).  Opaque. */
typedef struct kk_spgemm_handle kk_spgemm_handle_t;

/* Flags of the symbolic phases. */
enum {
  KK_SPARSE_SORTED = 1,   /* the result's columns in increasing order within each row (else in an
                             order that depends on the accumulator, the same from call to call) */
  KK_SPGEMM_JACOBI = 2    /* kk_sparse_spgemm_symbolic: the structure of (I - w D^-1 A) B, for
                             kk_sparse_spgemm_jacobi_numeric (A square) */
};

/* The symbolic phase of C = A B: A is m x k, B k x n, both of one element
 * type and in spaces the instance can read.  Computes C's row offsets (its
 * structure: the union of the columns of B's rows k over A's row i's
 * entries) and returns them in a new handle; nnz (may be NULL) gets C's
 * entry count.  Duplicate entries of A or B are fine (they are summed);
 * empty rows and 0 x 0 matrices too.  Each row of C is accumulated in a
 * hash table in the thread's scratch memory (level 0) when the row's upper
 * bound of terms fits, else in global memory (the two-level accumulator of
 * Kokkos Kernels; docs/kernels.md).  flags: KK_SPARSE_SORTED,
 * KK_SPGEMM_JACOBI.  Synchronous.  Free the handle with
 * kk_sparse_spgemm_destroy. */
kk_status_t kk_sparse_spgemm_symbolic(kk_instance_t *instance, const kk_crs_t *A, const kk_crs_t *B, int flags,
                                      kk_spgemm_handle_t **handle, int64_t *nnz);

/* The numeric phase of C = A B with the handle of the symbolic phase for A
 * and B of the same structures (their shapes and entry counts are checked;
 * other changes to their structure are not detected and give a wrong C,
 * never an access out of bounds).  *C NULL: a new matrix is made (label
 * "C", in A's space) and returned in *C; else *C must be the matrix an
 * earlier numeric phase of this handle made (its values and columns are
 * overwritten).  Every C of one handle has as its row offsets the view the
 * symbolic phase made (shared, kept alive by each C and the handle): it is
 * read-only, as writing into it would change them all.  Asynchronous. */
kk_status_t kk_sparse_spgemm_numeric(kk_instance_t *instance, kk_spgemm_handle_t *handle, const kk_crs_t *A,
                                     const kk_crs_t *B, kk_crs_t **C);

/* The Jacobi-fused product C = (I - omega D^-1 A) B of smoothed
 * aggregation multigrid, D^-1 the inverse of A's diagonal given as a
 * vector dinv of A's rows and type (e.g. from the caller; a zero entry
 * leaves a row of B as is).  The handle must come from
 * kk_sparse_spgemm_symbolic with KK_SPGEMM_JACOBI; A must be square.
 * Otherwise as kk_sparse_spgemm_numeric.  Asynchronous. */
kk_status_t kk_sparse_spgemm_jacobi_numeric(kk_instance_t *instance, kk_spgemm_handle_t *handle, kk_scalar_t omega,
                                            kk_view_t *dinv, const kk_crs_t *A, const kk_crs_t *B, kk_crs_t **C);

/* Both phases at once: *C = A B, a new matrix (flags as for the symbolic
 * phase, without KK_SPGEMM_JACOBI).  Synchronous up to the numeric phase.
 * On GPUs, where A B has few enough terms (at most 8 times the entries of
 * A and B), in one pass with no symbolic count, and synchronous; the
 * setting KK_SPGEMM_ONE_PASS (auto, yes, no) overrides the choice
 * (docs/kernels.md).  A call reuses the extra queues and the one pass's
 * work memory of an earlier call on the same backend (kept from call to
 * call, released by a finalize hook at kk_finalize; each concurrent caller
 * gets its own), and on cuda and hip the one pass returns with the last
 * copy into C queued on the instance, as the numeric phase does
 * (asynchronous); the setting KK_SPGEMM_CACHE=no makes and ends them in
 * each call, with a fence at its end. */
kk_status_t kk_sparse_spgemm(kk_instance_t *instance, const kk_crs_t *A, const kk_crs_t *B, int flags, kk_crs_t **C);

/* The symbolic phase of C = a A + b B, A and B of the same shape and type:
 * C's structure is the union of theirs.  Inputs sorted or not, duplicate
 * entries summed into one.  When every row of A and of B has its columns
 * in non-decreasing order (checked here, on the device), each row of C is
 * a merge of the two rows (a thread per row, no hash table) and C's rows
 * come sorted with or without KK_SPARSE_SORTED; otherwise SpGEMM's hash
 * accumulator sums them.  flags: KK_SPARSE_SORTED.  The handle is of the
 * same kind as SpGEMM's (free it with kk_sparse_spgemm_destroy).
 * Synchronous. */
kk_status_t kk_sparse_spadd_symbolic(kk_instance_t *instance, const kk_crs_t *A, const kk_crs_t *B, int flags,
                                     kk_spgemm_handle_t **handle, int64_t *nnz);

/* The numeric phase of C = a A + b B (*C as for kk_sparse_spgemm_numeric).
 * Asynchronous. */
kk_status_t kk_sparse_spadd_numeric(kk_instance_t *instance, kk_spgemm_handle_t *handle, kk_scalar_t a,
                                    const kk_crs_t *A, kk_scalar_t b, const kk_crs_t *B, kk_crs_t **C);

/* Frees a handle (NULL is ignored).  Matrices made with it stay. */
void kk_sparse_spgemm_destroy(kk_spgemm_handle_t *handle);

/* ===========================================================================
 * Graph kernels on a CRS pattern
 *
 * The graph is the matrix's structure: vertex i is adjacent to the columns
 * of row i and to the rows that have i as a column (A square; its values
 * are not read; diagonal entries are ignored).  A structure that is not
 * symmetric is made so first (the structure of A + A^T, built once per
 * call on the host; a check on the device finds whether it is needed).
 * Results are int32 views in A's space, made by the call.  Synchronous
 * (each round of these algorithms asks the device how many vertices are
 * left).
 * ======================================================================== */

/* The coloring algorithms of kk_sparse_color. */
typedef enum kk_color_algorithm {
  KK_COLOR_VB = 0,     /* distance 1, vertex-based: a thread per vertex, speculative, in place (Deveci et al.,
                          IPDPS 2016): close to the serial greedy coloring's colors */
  KK_COLOR_EB = 1,     /* distance 1, edge-based: the work of each round over entries (graphs whose degrees
                          differ much); Jones-Plassmann rounds, the colors of greedy in a random order */
  KK_COLOR_D2 = 2,     /* distance 2: no two vertices with a common neighbour share a color (as VB) */
  KK__COLOR_PIN = 0x7fffffff
} kk_color_algorithm_t;

/* Colors the graph of A: *colors (a new KK_INT32 view of A's rows) gets
 * each vertex's color, 1 .. *ncolors (may be NULL).  VB and D2: in rounds,
 * each uncolored vertex takes the smallest color that its neighbours
 * (within distance 2 for KK_COLOR_D2) have not, reading the colors other
 * threads are writing; of two neighbours that took the same color in a
 * round, the one of lower random priority tries again.  The result is
 * always a valid coloring; on parallel backends which one may vary from
 * run to run (as in Kokkos Kernels); on one thread it is the greedy
 * coloring in row order.  EB depends only on the structure. */
kk_status_t kk_sparse_color(kk_instance_t *instance, const kk_crs_t *A, kk_color_algorithm_t algorithm,
                            kk_view_t **colors, int32_t *ncolors);

/* A distance-2 maximal independent set of the graph of A (no two of its
 * vertices adjacent or with a common neighbour, and every other vertex
 * within distance 2 of one): *set gets its vertices in increasing order (a
 * new KK_INT32 view), *count (may be NULL) their number. */
kk_status_t kk_sparse_mis2(kk_instance_t *instance, const kk_crs_t *A, kk_view_t **set, int64_t *count);

/* MIS-2 aggregation (coarsening for algebraic multigrid): the MIS-2
 * vertices are the roots; each root's neighbours join its aggregate, then
 * every vertex still without one joins a neighbour's.  *labels (a new
 * KK_INT32 view of A's rows) gets each vertex's aggregate, 0 ..
 * *naggregates - 1 (every vertex has one for a symmetric structure). */
kk_status_t kk_sparse_mis2_aggregate(kk_instance_t *instance, const kk_crs_t *A, kk_view_t **labels,
                                     int64_t *naggregates);

/* ===========================================================================
 * Gauss-Seidel (smoother and preconditioner)
 * ======================================================================== */

/* The state of a Gauss-Seidel smoother for one matrix (its coloring or
 * work vectors, its inverse diagonal).  Opaque. */
typedef struct kk_gs_handle kk_gs_handle_t;

/* The Gauss-Seidel algorithms (kk_gs_options_t.algorithm). */
typedef enum kk_gs_algorithm {
  KK_GS_MULTICOLOR = 0,  /* point multicolor: the rows of one color (kk_sparse_color, KK_COLOR_VB) at once */
  KK_GS_TWO_STAGE = 1,   /* two-stage (Anzt et al.): x += (D + L)^-1 (b - A x) with the triangular
                            solve replaced by inner Jacobi sweeps */
  KK__GS_ALGORITHM_PIN = 0x7fffffff
} kk_gs_algorithm_t;

/* The direction of a Gauss-Seidel sweep (kk_sparse_gs_apply). */
typedef enum kk_gs_direction {
  KK_GS_FORWARD = 0,     /* rows (colors) in increasing order; two-stage: the lower triangle */
  KK_GS_BACKWARD = 1,    /* decreasing; two-stage: the upper triangle */
  KK_GS_SYMMETRIC = 2,   /* a forward then a backward sweep (symmetric GS: an SPD preconditioner for SPD A) */
  KK__GS_DIRECTION_PIN = 0x7fffffff
} kk_gs_direction_t;

/* Options of kk_sparse_gs_create.  Start from KK_GS_OPTIONS_INIT. */
typedef struct kk_gs_options {
  size_t struct_size;         /* sizeof(kk_gs_options_t) */
  kk_gs_algorithm_t algorithm; /* default KK_GS_MULTICOLOR */
  double omega;               /* damping (SOR): 1 is plain Gauss-Seidel, in (0, 2) */
  int inner_sweeps;           /* two-stage: Jacobi sweeps for each triangular solve, >= 1 (default 1) */
} kk_gs_options_t;

/* The initializer of a kk_gs_options_t: multicolor, omega 1, one inner sweep. */
#define KK_GS_OPTIONS_INIT {sizeof(kk_gs_options_t), KK_GS_MULTICOLOR, 1.0, 1}

/* The symbolic phase: a handle for A (square; for KK_GS_MULTICOLOR the
 * rows are colored, on the structure of A + A^T, so that rows of one color
 * can be relaxed at once) that also holds A's inverse diagonal (the numeric phase,
 * done here too).  A must have a nonzero diagonal (the sum of a row's
 * diagonal entries); else KK_ERROR_INVALID_ARGUMENT.  options NULL: the
 * defaults.  Synchronous. */
kk_status_t kk_sparse_gs_create(kk_instance_t *instance, const kk_crs_t *A, const kk_gs_options_t *options,
                                kk_gs_handle_t **handle);

/* The numeric phase again after A's values changed, or for another matrix
 * A of the same structure (shape and entries; it becomes the handle's
 * matrix). */
kk_status_t kk_sparse_gs_numeric(kk_instance_t *instance, kk_gs_handle_t *handle, const kk_crs_t *A);

/* `sweeps` Gauss-Seidel sweeps (each in direction dir) on A x = b, A the
 * handle's matrix (the one given to kk_sparse_gs_create or, later, to
 * kk_sparse_gs_numeric: the handle borrows it, so it must live while the
 * handle is applied), x holding the initial guess on entry and the result
 * on return; x and b vectors of A's rows and type.  As a preconditioner
 * z = M^-1 r (the Krylov solvers' use): set z to zero, then apply with
 * b = r, one sweep (KK_GS_SYMMETRIC makes M symmetric for a symmetric A).
 * Allocates nothing.  Asynchronous. */
kk_status_t kk_sparse_gs_apply(kk_instance_t *instance, kk_gs_handle_t *handle, kk_view_t *x, kk_view_t *b,
                               int sweeps, kk_gs_direction_t dir);

/* The number of colors of a multicolor handle (0 for two-stage, NULL). */
int32_t kk_sparse_gs_colors(const kk_gs_handle_t *handle);

/* Frees a handle (NULL is ignored). */
void kk_sparse_gs_destroy(kk_gs_handle_t *handle);

#ifdef __cplusplus
}
#endif

#endif /* KK_SPARSE_OPS_H */
