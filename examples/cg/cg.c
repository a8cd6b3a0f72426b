/* examples/cg/cg.c -- conjugate gradients on the 27-point 3D heat-conduction matrix (CRS), on the default backend. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cg.h"

#define CHECK(call)                                       \
  do {                                                    \
    if ((call) != KK_OK) {                                \
      fprintf(stderr, "cg: %s\n", kk_last_error());       \
      exit(1);                                            \
    }                                                     \
  } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static kk_view_t *vec(const char *label, kk_type_t type, int64_t n) {
  kk_view_t *v;
  CHECK(kk_view_alloc(&v, label, type, 1, &n));
  return v;
}

static double dot(kk_view_t *x, kk_view_t *y, int64_t n) {
  struct dot_args a = {kk_view_bind(x), kk_view_bind(y)};
  struct dd d;
  CHECK(kk_parallel_reduce("cg_dot", KK_RANGE(0, n), KK_KERNEL(cg_dot), KK_ARGS(a), KK_RESULT(d)));
  return d.hi + d.lo;
}

static void axpby(kk_view_t *z, double a, kk_view_t *x, double b, kk_view_t *y, int64_t n) {
  struct axpby_args arg = {a, b, kk_view_bind(x), kk_view_bind(y), kk_view_bind(z)};
  CHECK(kk_parallel_for("axpby", KK_RANGE(0, n), KK_KERNEL(axpby), KK_ARGS(arg)));
}

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  int64_t n = 100;
  int maxiter = 0; /* 0: follows the size (below) */
  double tol = 1e-10;
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--size=", 7) == 0)
      n = atoll(argv[i] + 7);
    else if (strncmp(argv[i], "--maxiter=", 10) == 0)
      maxiter = atoi(argv[i] + 10);
    else if (strncmp(argv[i], "--tol=", 6) == 0)
      tol = atof(argv[i] + 6);
    else {
      fprintf(stderr, "usage: cg [--size=N] [--maxiter=M] [--tol=T] [--kokkos-*...]\n"
                      "  N^3 grid points (default 100); at most M iterations (default or 0: 4N+100);\n"
                      "  stops at a relative residual of T (default 1e-10)\n");
      return 2;
    }
  }
  if (n < 2 || maxiter < 0 || !(tol > 0)) {
    fprintf(stderr, "cg: --size must be at least 2, --maxiter not negative, --tol above 0\n");
    return 2;
  }
  /* The iterations CG needs grow with the grid's edge (about 1.6 N here for
   * 1e-10): a fixed default would stop large grids short of convergence. */
  if (maxiter == 0)
    maxiter = (int)(4 * n + 100);
  const int64_t N = n * n * n;

  /* assemble: count the nonzeros of each row, scan them into row offsets, fill */
  double t0 = now();
  kk_view_t *counts = vec("counts", KK_INT64, N + 1), *row_ptr = vec("row_ptr", KK_INT64, N + 1);
  struct build_args b = {.n = n, .counts = kk_view_bind(counts), .row_ptr = kk_view_bind(row_ptr)};
  CHECK(kk_parallel_for("count_nonzeros", KK_RANGE(0, N + 1), KK_KERNEL(count_nonzeros), KK_ARGS(b)));
  int64_t nnz = 0;
  CHECK(kk_parallel_scan("row_offsets", KK_RANGE(0, N + 1), KK_KERNEL(row_offsets), KK_ARGS(b), KK_RESULT(nnz)));
  kk_view_t *cols = vec("cols", KK_INT32, nnz), *vals = vec("vals", KK_DOUBLE, nnz);
  b.cols = kk_view_bind(cols);
  b.vals = kk_view_bind(vals);
  CHECK(kk_parallel_for("fill_rows", KK_RANGE(0, N), KK_KERNEL(fill_rows), KK_ARGS(b)));
  kk_view_release(counts);

  /* b = A * ones, so the solution is all ones */
  kk_view_t *x = vec("x", KK_DOUBLE, N), *r = vec("r", KK_DOUBLE, N), *p = vec("p", KK_DOUBLE, N),
            *Ap = vec("Ap", KK_DOUBLE, N), *rhs = vec("b", KK_DOUBLE, N);
  double one = 1.0;
  CHECK(kk_deep_copy_fill(p, &one));
  struct spmv_args s = {kk_view_bind(row_ptr), kk_view_bind(cols), kk_view_bind(vals), kk_view_bind(p),
                        kk_view_bind(rhs)};
  CHECK(kk_parallel_for("spmv", KK_RANGE(0, N), KK_KERNEL(spmv), KK_ARGS(s)));
  CHECK(kk_fence());
  double t_setup = now() - t0;

  /* CG from x = 0: r = p = b */
  CHECK(kk_deep_copy(r, rhs));
  CHECK(kk_deep_copy(p, rhs));
  s.x = kk_view_bind(p);
  s.y = kk_view_bind(Ap);
  double rr = dot(r, r, N), rr0 = rr;
  int it = 0;
  t0 = now();
  while (it < maxiter && sqrt(rr / rr0) > tol) {
    CHECK(kk_parallel_for("spmv", KK_RANGE(0, N), KK_KERNEL(spmv), KK_ARGS(s)));
    double alpha = rr / dot(p, Ap, N);
    axpby(x, 1.0, x, alpha, p, N);
    axpby(r, 1.0, r, -alpha, Ap, N);
    double rr_new = dot(r, r, N);
    axpby(p, 1.0, r, rr_new / rr, p, N);
    rr = rr_new;
    it++;
  }
  CHECK(kk_fence());
  double t = now() - t0;

  /* check against the known solution */
  kk_view_t *hx;
  CHECK(kk_view_create_mirror_view(x, &hx));
  CHECK(kk_deep_copy(hx, x));
  double err = 0;
  const double *px = kk_view_data(hx);
  for (int64_t i = 0; i < N; i++)
    err = fmax(err, fabs(px[i] - 1.0));

  /* bytes per iteration: SpMV (values, columns, row offsets, x, y), 2 dots, 3 axpbys */
  double bytes = (double)nnz * 12.0 + (double)N * (8.0 * 3) + (double)N * 8.0 * (2 + 1 + 3 * 3);
  printf("cg: %lld^3 grid, %lld rows, %lld nonzeros\n", (long long)n, (long long)N, (long long)nnz);
  printf("cg: backend %s (host backend %s, %d threads)\n", kk_backend_default(), kk_backend_host(), kk_num_threads());
  printf("cg: why %s: %s\n", kk_backend_default(), kk_backend_default_reason());
  printf("cg: setup %.3f s\n", t_setup);
  printf("cg: %d iterations, relative residual %.3e, max error %.3e\n", it, sqrt(rr / rr0), err);
  printf("cg: final relative residual %.17e\n", sqrt(rr / rr0)); /* all digits, for examples/cg-mpi's test */
  printf("cg: %.3f s, %.2f ms/iteration, %.2f GB/s\n", t, 1e3 * t / (it ? it : 1), it ? bytes * it / t * 1e-9 : 0.0);
  const bool converged = sqrt(rr / rr0) <= tol;
  int ok = converged && err < 1e-6;
  kk_view_release(hx);
  kk_view_release(x), kk_view_release(r), kk_view_release(p), kk_view_release(Ap), kk_view_release(rhs);
  kk_view_release(row_ptr), kk_view_release(cols), kk_view_release(vals);
  kk_finalize();
  if (!converged)
    fprintf(stderr,
            "cg: no convergence in %d iterations (relative residual %.3e > %.1e): raise --maxiter (it was %d)\n", it,
            sqrt(rr / rr0), tol, maxiter);
  else if (!ok)
    fprintf(stderr, "cg: the solution is wrong (max error %.3e)\n", err);
  return ok ? 0 : 1;
}
