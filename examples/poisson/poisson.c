/* examples/poisson/poisson.c -- the 1D Poisson equation solved with libkk-kernels (<kk/linalg.h>): a CRS matrix from host arrays, SpMV, conjugate gradients and a norm, and no kernel file of its own. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>

#include <kk/linalg.h>

#define CHECK(call)                                                \
  do {                                                             \
    if ((call) != KK_OK) {                                         \
      fprintf(stderr, "poisson: %s\n", kk_last_error());           \
      exit(1);                                                     \
    }                                                              \
  } while (0)

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv); /* takes --kokkos-device=..., --kokkos-num-threads=... */
  const int64_t n = argc > 1 ? atoll(argv[1]) : 1000;
  if (argc > 2 || n < 2 || n > 1000000) {
    fprintf(stderr, "usage: poisson [N]   (2 <= N <= 1000000 unknowns; default 1000)\n");
    kk_finalize();
    return 2;
  }

  /* A = tridiag(-1, 2, -1), n x n, as CSR arrays on the host (the library copies them) */
  const int64_t nnz = 3 * n - 2;
  int64_t *row_ptr = malloc((size_t)(n + 1) * sizeof *row_ptr);
  int32_t *col = malloc((size_t)nnz * sizeof *col);
  double *val = malloc((size_t)nnz * sizeof *val);
  if (!row_ptr || !col || !val) {
    fprintf(stderr, "poisson: out of host memory\n");
    kk_finalize();
    return 1;
  }
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    row_ptr[i] = k;
    for (int64_t j = i - 1; j <= i + 1; j++)
      if (j >= 0 && j < n) {
        col[k] = (int32_t)j;
        val[k++] = j == i ? 2.0 : -1.0;
      }
  }
  row_ptr[n] = k;
  kk_crs_t *A;
  CHECK(kk_crs_create_csr(NULL, "A", KK_DOUBLE, n, n, KK_INT64, row_ptr, KK_INT32, col, val, &A));
  free(row_ptr), free(col), free(val);

  /* a known solution u, its right-hand side b = A u, and x = 0 to start from */
  kk_view_t *u, *b, *x, *hu;
  CHECK(kk_view_alloc(&u, "u", KK_DOUBLE, 1, &n));
  CHECK(kk_view_alloc(&b, "b", KK_DOUBLE, 1, &n));
  CHECK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n)); /* zeroed */
  CHECK(kk_view_create_mirror_view(u, &hu));        /* u itself on host backends */
  double *pu = kk_view_data(hu);
  for (int64_t i = 0; i < n; i++)
    pu[i] = (double)(i % 7) - 3.0;
  CHECK(kk_deep_copy(u, hu));
  CHECK(kk_sparse_spmv(NULL, KK_OP_N, KK_REAL(1.0), A, u, KK_REAL(0.0), b));

  kk_cg_options_t opt = KK_CG_OPTIONS_INIT;
  opt.max_iterations = (int)(2 * n);
  kk_cg_result_t res = {sizeof res, 0, 0.0, 0};
  CHECK(kk_sparse_cg(NULL, A, b, x, &opt, &res));

  /* the true residual b - A x (the solver reports its recurrence's), relative to b */
  kk_view_t *r;
  double norm_b, norm_r;
  CHECK(kk_view_alloc(&r, "r", KK_DOUBLE, 1, &n));
  CHECK(kk_deep_copy(r, b));
  CHECK(kk_sparse_spmv(NULL, KK_OP_N, KK_REAL(-1.0), A, x, KK_REAL(1.0), r));
  CHECK(kk_blas_nrm2(NULL, b, &norm_b));
  CHECK(kk_blas_nrm2(NULL, r, &norm_r));
  const int ok = res.converged && norm_r <= 1e-8 * norm_b;
  printf("poisson on %s: n = %lld, %d CG iterations, relative residual %.1e, %s\n", kk_backend_default(),
         (long long)n, res.iterations, norm_r / norm_b, ok ? "correct" : "WRONG");
  kk_view_release(r);
  kk_view_release(hu), kk_view_release(u), kk_view_release(b), kk_view_release(x);
  kk_crs_destroy(A);
  kk_finalize();
  return !ok;
}
