/* examples/solvers/solvers.c -- the 3-D Poisson problem and a nonsymmetric 3-D convection-diffusion problem solved with libkk-kernels' preconditioned CG and GMRES (Jacobi, symmetric Gauss-Seidel, ILU(k)), printing iterations, residual and time. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kk/linalg.h> /* includes <kk/solvers.h> */

#define CHECK(call)                                                \
  do {                                                             \
    if ((call) != KK_OK) {                                         \
      fprintf(stderr, "solvers: %s\n", kk_last_error());           \
      exit(1);                                                     \
    }                                                              \
  } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The 7-point operator on an N^3 grid with Dirichlet boundaries, h = 1:
 * -lap u + w . grad u, the convection term by first-order upwind differences
 * with cell Peclet number `pe` along each axis (pe = 0: the Laplacian,
 * symmetric positive definite; pe > 0: nonsymmetric).  Host CSR arrays. */
static kk_crs_t *operator3d(int64_t N, double pe, const char *label) {
  const int64_t n = N * N * N;
  int64_t *rp = malloc(sizeof *rp * (size_t)(n + 1));
  int32_t *ci = malloc(sizeof *ci * (size_t)(7 * n));
  double *v = malloc(sizeof *v * (size_t)(7 * n));
  if (!rp || !ci || !v) {
    fprintf(stderr, "solvers: out of host memory\n");
    exit(1);
  }
  int64_t k = 0;
  for (int64_t z = 0; z < N; z++)
    for (int64_t y = 0; y < N; y++)
      for (int64_t x = 0; x < N; x++) {
        const int64_t i = (z * N + y) * N + x;
        rp[i] = k;
        /* neighbours in increasing column order: -z, -y, -x, self, +x, +y, +z */
        const int64_t d[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        for (int q = 0; q < 7; q++) {
          const int64_t xx = x + d[q][0], yy = y + d[q][1], zz = z + d[q][2];
          if (xx < 0 || xx >= N || yy < 0 || yy >= N || zz < 0 || zz >= N)
            continue;
          ci[k] = (int32_t)((zz * N + yy) * N + xx);
          v[k++] = q == 3 ? 6.0 + 3.0 * pe : q < 3 ? -1.0 - pe : -1.0; /* upwind: the flow goes +x, +y, +z */
        }
      }
  rp[n] = k;
  kk_crs_t *A;
  CHECK(kk_crs_create_csr(NULL, label, KK_DOUBLE, n, n, KK_INT64, rp, KK_INT32, ci, v, &A));
  free(rp), free(ci), free(v);
  return A;
}

/* ||b - A x|| / ||b||, computed afresh */
static double residual(const kk_crs_t *A, kk_view_t *b, kk_view_t *x) {
  const int64_t n = kk_crs_rows(A);
  kk_view_t *r;
  double nb, nr;
  CHECK(kk_view_alloc(&r, "r", KK_DOUBLE, 1, &n));
  CHECK(kk_deep_copy(r, b));
  CHECK(kk_sparse_spmv(NULL, KK_OP_N, KK_REAL(-1.0), A, x, KK_REAL(1.0), r));
  CHECK(kk_blas_nrm2(NULL, b, &nb));
  CHECK(kk_blas_nrm2(NULL, r, &nr));
  kk_view_release(r);
  return nr / nb;
}

enum { PRE_NONE, PRE_JACOBI, PRE_GS, PRE_ILU0, PRE_ILU1 };
static const char *const pre_names[] = {"none", "jacobi", "gs", "ilu(0)", "ilu(1)"};

/* Solves A x = 1 with `solver` ("cg" or "gmres") and preconditioner `pre`;
 * prints a line; returns 0 when it converged to tol. */
static int solve(const char *problem, const kk_crs_t *A, const char *solver, int pre, double tol, int max_it) {
  const int64_t n = kk_crs_rows(A);
  kk_view_t *b, *x;
  CHECK(kk_view_alloc(&b, "b", KK_DOUBLE, 1, &n));
  CHECK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n)); /* zeroed: the initial guess */
  const double one = 1.0;
  CHECK(kk_deep_copy_fill(b, &one));
  kk_precond_t M = KK_PRECOND_INIT;
  kk_spiluk_t *F = NULL;
  double t0 = now();
  if (pre == PRE_JACOBI)
    CHECK(kk_precond_jacobi(NULL, A, &M));
  if (pre == PRE_GS) /* multicolor Gauss-Seidel, one symmetric sweep (forward then backward) per apply */
    CHECK(kk_precond_gs(NULL, A, NULL, 1, &M));
  if (pre == PRE_ILU0 || pre == PRE_ILU1) {
    CHECK(kk_spiluk_symbolic(A, pre == PRE_ILU0 ? 0 : 1, &F));
    CHECK(kk_spiluk_numeric(NULL, F, A));
    CHECK(kk_precond_iluk(F, &M));
  }
  const double t_setup = now() - t0;
  kk_cg_result_t res = {sizeof res, 0, 0.0, 0};
  t0 = now();
  if (strcmp(solver, "cg") == 0) {
    kk_cg_options_t opt = KK_CG_OPTIONS_INIT;
    opt.tolerance = tol;
    opt.max_iterations = max_it;
    CHECK(kk_sparse_pcg(NULL, A, b, x, &opt, &M, &res));
  } else {
    kk_gmres_options_t opt = KK_GMRES_OPTIONS_INIT;
    opt.tolerance = tol;
    opt.max_iterations = max_it;
    CHECK(kk_sparse_gmres(NULL, A, b, x, &opt, &M, &res));
  }
  const double t_solve = now() - t0, r = residual(A, b, x);
  const int ok = res.converged && r <= 10 * tol;
  printf("%-9s %-6s %-7s %6d it  residual %.2e  setup %8.4f s  solve %8.4f s  %s\n", problem, solver,
         pre_names[pre], res.iterations, r, t_setup, t_solve, ok ? "ok" : "NOT CONVERGED");
  kk_precond_release(&M);
  kk_spiluk_destroy(F);
  kk_view_release(b), kk_view_release(x);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv); /* takes --kokkos-device=..., --kokkos-num-threads=... */
  const int64_t N = argc > 1 ? atoll(argv[1]) : 20;
  const double tol = argc > 2 ? atof(argv[2]) : 1e-8;
  if (argc > 3 || N < 2 || N > 400 || !(tol > 0)) {
    fprintf(stderr, "usage: solvers [N [TOL]]   (an N^3 grid, 2 <= N <= 400, default 20; tolerance default 1e-8)\n");
    kk_finalize();
    return 2;
  }
  printf("solvers on %s: %lld^3 = %lld unknowns, tolerance %.0e\n", kk_backend_default(), (long long)N,
         (long long)(N * N * N), tol);
  int fails = 0;
  kk_crs_t *P = operator3d(N, 0.0, "poisson3d"), *C = operator3d(N, 1.0, "convdiff3d");
  const int max_it = 5000;
  for (int pre = PRE_NONE; pre <= PRE_ILU0; pre++)
    fails += solve("poisson", P, "cg", pre, tol, max_it);
  for (int pre = PRE_NONE; pre <= PRE_ILU1; pre++)
    fails += solve("poisson", P, "gmres", pre, tol, max_it);
  for (int pre = PRE_NONE; pre <= PRE_ILU1; pre++)
    fails += solve("convdiff", C, "gmres", pre, tol, max_it);
  kk_crs_destroy(P);
  kk_crs_destroy(C);
  kk_finalize();
  return fails ? 1 : 0;
}
