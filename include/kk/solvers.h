/* kk/solvers.h -- kk-kernels: sparse triangular solves, incomplete LU (ILU(k)) and preconditioned Krylov solvers (GMRES, CG) on CRS matrices. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_SOLVERS_H
#define KK_SOLVERS_H

/*
 * Part of libkk-kernels; included by <kk/linalg.h>, whose conventions
 * (views, instances, ordering, errors, thread safety) hold here too.
 *
 * The routines split a symbolic phase, which reads only a matrix's
 * structure and keeps what it found in a handle, from a numeric phase that
 * can run many times while the structure stays the same (new values
 * written into kk_crs_values(A), a new right-hand side):
 *
 *   kk_sptrsv_t   level sets of a triangular solve (which rows can be
 *                 solved at once); solves x = T^-1 b
 *   kk_spiluk_t   the fill pattern of ILU(k) and the factors' values;
 *                 applies z = (L U)^-1 r with two triangular solves
 *   kk_precond_t  a preconditioner as the Krylov solvers see it: a struct
 *                 with an apply callback (Jacobi, ILU(k), Gauss-Seidel, or
 *                 the caller's)
 *
 * A handle records the matrix it was made for and borrows it: the matrix
 * must outlive the handle.  Handles are not thread-safe: calls with one
 * handle must not overlap (different handles may be used at once).  Like
 * kk_crs_t, a handle from before kk_finalize is refused with
 * KK_ERROR_NOT_INITIALIZED; destroying it then only frees its record.
 *
 * Element types: the four of kk-kernels for SpTRSV and ILU(k); GMRES takes
 * real matrices (KK_FLOAT, KK_DOUBLE).  Vectors are rank-1 views.
 */

/* kk_crs_t, kk_cg_options_t and the conventions come from here (which
 * includes this header at its end) */
#include <kk/linalg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===========================================================================
 * Sparse triangular solves (SpTRSV)
 *
 * x = T^-1 b where T is the lower (KK_LOWER) or upper (KK_UPPER) triangle
 * of a square CRS matrix A, its diagonal included (KK_DIAG_NONUNIT: the sum
 * of a row's diagonal entries) or taken as ones (KK_DIAG_UNIT: diagonal
 * entries are not read).  The other triangle is not read, so one matrix can
 * hold both factors of an LU factorization.  The symbolic phase sorts the
 * rows into level sets (rows whose unknowns depend only on rows of earlier
 * levels); the solve runs them one launch per level (KK_SPTRSV_LEVELS) or
 * in one sync-free launch (KK_SPTRSV_SYNCFREE: each row waits on a flag per
 * row it depends on, the rows taken in level order), see
 * kk_sptrsv_set_algorithm.  On cuda, where cuSPARSE is loaded
 * (KK_KERNELS_CUSPARSE), the solve goes to cusparseSpSV instead.
 * ======================================================================== */

/* A triangular-solve handle: the level sets of one triangle of a matrix.  Opaque. */
typedef struct kk_sptrsv kk_sptrsv_t;

/* The symbolic phase: reads A's structure (and, for KK_DIAG_NONUNIT, its
 * diagonal) and computes the level sets, kept in the handle in A's space.
 * Refused with KK_ERROR_INVALID_ARGUMENT: A not square, bad uplo/diag, and
 * for KK_DIAG_NONUNIT a row whose diagonal is absent or sums to zero (the
 * message names the first such row: the solve would divide by zero).
 * Synchronous.  Thread-safe. */
kk_status_t kk_sptrsv_symbolic(const kk_crs_t *A, kk_uplo_t uplo, kk_diag_t diag, kk_sptrsv_t **out);

/* The numeric phase: x = T^-1 b with T from the handle's matrix as it is
 * now (its values may have changed since the symbolic phase; a diagonal
 * set to zero since then gives infinities or NaN, as BLAS trsv does).  b
 * and x are vectors of A's type and rows, readable by the instance; x may
 * be b itself (solved in place).  instance NULL: the default instance of
 * the backend owning A's space.  Asynchronous. */
kk_status_t kk_sptrsv_solve(kk_instance_t *instance, kk_sptrsv_t *h, kk_view_t *b, kk_view_t *x);

/* Number of level sets (launches per solve with KK_SPTRSV_LEVELS); 0 for NULL. */
int64_t kk_sptrsv_levels(const kk_sptrsv_t *h);

/* How kk's own kernel solves (when no vendor library takes the solve). */
typedef enum kk_sptrsv_algo {
  KK_SPTRSV_AUTO = 0,     /* the default: KK_SPTRSV_SYNCFREE on device backends, KK_SPTRSV_LEVELS on host ones */
  KK_SPTRSV_LEVELS = 1,   /* a launch per level set, the level's rows in parallel */
  KK_SPTRSV_SYNCFREE = 2  /* one launch; each row waits until the rows it reads are solved (spins on a flag
                           * per row; teams take rows in level order, so a wait is only ever on a team that
                           * already runs).  Best where there are many levels: the launches cost more than
                           * the levels' work.  On host backends it keeps every thread of the launch busy
                           * waiting while it runs. */
} kk_sptrsv_algo_t;

/* Chooses the algorithm of the handle's later solves.  The sync-free
 * solve's flags (4 bytes a row) and its padded level order (20 bytes a
 * slot: the rows level after level, each level padded to whole teams), in
 * A's space, are made by its first solve and kept in the handle; that
 * solve copies A's structure to the host (synchronously) and reads the
 * environment variable KK_SPTRSV_SYNCFREE (auto, warp, or the lanes a row
 * takes on CUDA and HIP: 2, 4, 8, 16, 32) and KK_SPTRSV_SYNCFREE_NAP (a
 * pause between polls on CUDA, ns); another value fails that solve with
 * KK_ERROR_INVALID_ARGUMENT; docs/kernels.md.
 * KK_ERROR_INVALID_ARGUMENT: h NULL or algo none of the above.  Not
 * thread-safe (as every call with the handle). */
kk_status_t kk_sptrsv_set_algorithm(kk_sptrsv_t *h, kk_sptrsv_algo_t algo);

/* The handle's algorithm as set (KK_SPTRSV_AUTO for NULL). */
kk_sptrsv_algo_t kk_sptrsv_algorithm(const kk_sptrsv_t *h);

/* Frees the handle (not the matrix).  NULL is ignored. */
void kk_sptrsv_destroy(kk_sptrsv_t *h);

/* ===========================================================================
 * Incomplete LU factorization, ILU(k)
 *
 * A ~ L U with L unit lower triangular and U upper triangular, their
 * entries restricted to the level-k fill pattern of A (level 0: A's own
 * pattern, plus the diagonal; level k: fill entries whose level, 1 + the
 * sum of the levels of the two entries that create them, is at most k).  No
 * pivoting.  The factors live in one CRS matrix (kk_spiluk_factors): L's
 * strict lower part below the diagonal (its unit diagonal is not stored),
 * U on and above it, columns sorted in each row.
 * ======================================================================== */

/* An ILU(k) handle: the fill pattern, the factors and their solves.  Opaque. */
typedef struct kk_spiluk kk_spiluk_t;

/* The symbolic phase: the fill pattern of level `level` (>= 0) of square A,
 * computed on the host, and the factors' matrix allocated in A's space.
 * Duplicate entries of A are summed by the numeric phase.  Synchronous.
 * Thread-safe. */
kk_status_t kk_spiluk_symbolic(const kk_crs_t *A, int level, kk_spiluk_t **out);

/* The numeric phase: factors A, which must have the structure the handle
 * was made from (same rows, entries and pattern; its values may differ),
 * rows in level sets in parallel on the instance (NULL: the default
 * instance of A's backend).  A zero pivot (U(i, i) = 0) is refused with
 * KK_ERROR_INVALID_ARGUMENT naming the first such row; the factors are then
 * not usable until a numeric phase succeeds.  Synchronous. */
kk_status_t kk_spiluk_numeric(kk_instance_t *instance, kk_spiluk_t *h, const kk_crs_t *A);

/* z = U^-1 L^-1 r (a lower then an upper triangular solve) with the
 * factors of the last successful numeric phase; z may be r.  Refused with
 * KK_ERROR_INVALID_ARGUMENT before a numeric phase succeeded.  Asynchronous. */
kk_status_t kk_spiluk_apply(kk_instance_t *instance, kk_spiluk_t *h, kk_view_t *r, kk_view_t *z);

/* The factors (owned by the handle; NULL for NULL), the fill level, and
 * the entries of the factors' pattern. */
const kk_crs_t *kk_spiluk_factors(const kk_spiluk_t *h);
int kk_spiluk_level(const kk_spiluk_t *h);
int64_t kk_spiluk_nnz(const kk_spiluk_t *h);

/* Frees the handle and its factors (not A).  NULL is ignored. */
void kk_spiluk_destroy(kk_spiluk_t *h);

/* ===========================================================================
 * Preconditioners
 *
 * What the Krylov solvers below call: z = M^-1 r.  kk makes Jacobi,
 * ILU(k) and Gauss-Seidel ones; any other (a multigrid cycle) is a
 * kk_precond_t the caller fills: `apply` gets `data`, the solver's
 * instance, r and z (vectors of the matrix's type and rows, in the space
 * of the solver's b; z never r) and must return KK_OK or an error status.
 * It may run asynchronously on the instance.
 * ======================================================================== */

/* A preconditioner: z = M^-1 r by apply(data, instance, r, z). */
typedef struct kk_precond {
  size_t struct_size;   /* sizeof(kk_precond_t) */
  kk_status_t (*apply)(void *data, kk_instance_t *instance, kk_view_t *r, kk_view_t *z);
  void *data;           /* passed to apply and destroy */
  void (*destroy)(void *data);  /* called by kk_precond_release; may be NULL */
  const char *name;     /* for messages ("jacobi", "iluk"); may be NULL */
} kk_precond_t;

/* An empty preconditioner (apply NULL: the solvers then use none). */
#define KK_PRECOND_INIT {sizeof(kk_precond_t), NULL, NULL, NULL, NULL}

/* Jacobi: z = D^-1 r with D = diag(A), computed now (a zero or absent
 * diagonal entry is refused with KK_ERROR_INVALID_ARGUMENT naming how many
 * rows lack one).  The inverse diagonal is a view in A's space owned by
 * *out; release it with kk_precond_release.  Synchronous. */
kk_status_t kk_precond_jacobi(kk_instance_t *instance, const kk_crs_t *A, kk_precond_t *out);

/* ILU(k): z = (L U)^-1 r with the factors of h (borrowed: h must outlive
 * the preconditioner, and a new kk_spiluk_numeric on h changes it). */
kk_status_t kk_precond_iluk(kk_spiluk_t *h, kk_precond_t *out);

/* Gauss-Seidel: z = M^-1 r by setting z to zero and then `sweeps` (>= 1)
 * symmetric sweeps (kk_sparse_gs_apply with b = r, KK_GS_SYMMETRIC: a
 * forward then a backward sweep, so that M is symmetric for a symmetric A
 * and PCG may use it; with omega, symmetric SOR).  options as for
 * kk_sparse_gs_create (NULL: the defaults): the algorithm (KK_GS_MULTICOLOR
 * or KK_GS_TWO_STAGE), the damping omega and the two-stage inner sweeps.
 * The Gauss-Seidel handle (the coloring, the inverse diagonal) is made now
 * and owned by *out: release it with kk_precond_release.  It borrows A: A
 * must outlive the preconditioner, and after A's values change make the
 * preconditioner again (the inverse diagonal is A's at this call).  A
 * matrix that is not square or lacks a nonzero diagonal, bad options and
 * sweeps < 1 are refused with KK_ERROR_INVALID_ARGUMENT.  Synchronous (the apply is
 * asynchronous on the solver's instance). */
kk_status_t kk_precond_gs(kk_instance_t *instance, const kk_crs_t *A, const kk_gs_options_t *options, int sweeps,
                          kk_precond_t *out);

/* Calls M->destroy(M->data) when set and empties *M.  NULL is ignored. */
void kk_precond_release(kk_precond_t *M);

/* ===========================================================================
 * Krylov solvers
 *
 * Both solve A x = b for square A, x holding the initial guess on entry and
 * the solution on return, stop when the residual ||b - A x|| <= tolerance
 * ||b|| (b = 0 gives x = 0), and return KK_OK whether or not they converged:
 * check result->converged.  M NULL or M->apply NULL: no preconditioner.
 * They allocate their work vectors in x's space for the call.  Synchronous.
 * ======================================================================== */

/* Preconditioned conjugate gradients for Hermitian positive definite A,
 * with M (which should be Hermitian positive definite too: Jacobi,
 * symmetric Gauss-Seidel (kk_precond_gs), or ILU(k) of a matrix for which L U stays close to symmetric).  options as
 * for kk_sparse_cg (options->preconditioner is not read: M decides);
 * kk_sparse_cg is this routine with M Jacobi or none. */
kk_status_t kk_sparse_pcg(kk_instance_t *instance, const kk_crs_t *A, kk_view_t *b, kk_view_t *x,
                          const kk_cg_options_t *options, const kk_precond_t *M, kk_cg_result_t *result);

/* Options of kk_sparse_gmres.  Start from KK_GMRES_OPTIONS_INIT. */
typedef struct kk_gmres_options {
  size_t struct_size;   /* sizeof(kk_gmres_options_t) */
  int max_iterations;   /* matrix-vector products in all, restarts included; default 1000 */
  int restart;          /* m of GMRES(m): the Krylov basis is rebuilt after m steps; default 30, 1..1000 */
  double tolerance;     /* stop when ||b - A x|| <= tolerance ||b||; default 1e-10 */
} kk_gmres_options_t;

/* The initializer of a kk_gmres_options_t: 1000 iterations, restart 30, tolerance 1e-10. */
#define KK_GMRES_OPTIONS_INIT {sizeof(kk_gmres_options_t), 1000, 30, 1e-10}

/* Restarted GMRES(m) with right preconditioning (A M^-1 u = b, x = M^-1 u:
 * the residual it tracks is the true one, not the preconditioned one),
 * modified Gram-Schmidt and Givens rotations, for any square real A.  The
 * residual in result is the recurrence's estimate at the end; at each
 * restart the true residual is computed.  Work vectors: restart + 3 of b's
 * length.  Synchronous. */
kk_status_t kk_sparse_gmres(kk_instance_t *instance, const kk_crs_t *A, kk_view_t *b, kk_view_t *x,
                            const kk_gmres_options_t *options, const kk_precond_t *M, kk_cg_result_t *result);

#ifdef __cplusplus
}
#endif

#endif /* KK_SOLVERS_H */
