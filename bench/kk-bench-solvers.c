/* bench/kk-bench-solvers.c -- kk-kernels' triangular solves (against cuSPARSE's SpSV on cuda, a plain C loop on the host) and ILU(0)-preconditioned GMRES and CG, on the 27-point Laplacian and a generated irregular matrix. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/linalg.h>

#include "bench_base.h"

/*
 * Usage: kk-bench-solvers [--size=N] [--rows=R] [--reps=K] [--tol=T]
 *   (kk's flags too: --kokkos-device=cuda ...).
 * Matrices: the 27-point Laplacian of an N^3 grid (default 24; 100 for the
 * figures in docs) and R generated irregular rows (default 20000; 10^6 for
 * the figures): rows of 4 to 2000 entries, about 16 on average, drawn as
 * kk-bench-kernels draws its irregular SpMV matrix, columns uniform,
 * off-diagonal values negative and the diagonal dominant (an M-matrix:
 * ILU(0) exists).  For each matrix:
 *   - ILU(0): symbolic and numeric time (numeric: best of K);
 *   - SpTRSV with the ILU(0) factors, lower (unit) and upper: kk's own
 *     kernel (vendor libraries off; the backend's default algorithm, then
 *     the other one of KK_SPTRSV_LEVELS / KK_SPTRSV_SYNCFREE, each x
 *     compared with a serial solve's: a difference over 1e-8 of the
 *     largest |x| stops the bench with an error) and the vendor path (on cuda,
 *     cusparseSpSV through kk-kernels; where none serves, the row says so),
 *     best of K each, and on host backends a serial C loop over the same
 *     arrays; the ratio column is kk's speed over the other's (time other /
 *     time kk);
 *   - GMRES(30) with ILU(0) and with Jacobi, and (Laplacian) CG with ILU(0)
 *     and Jacobi, to tolerance T (default 1e-8): iterations, the true
 *     residual and the time.
 * One table; no timing is checked.
 */

const char bench_program[] = "kk-bench-solvers";

static uint64_t g_rng = 0x2545f4914f6cdd1dull;
static double urand(void) { return bench_uniform(&g_rng); } /* [0, 1) */

typedef struct host_csr {
  int64_t n, nnz;
  int64_t *rp;
  int32_t *ci;
  double *v;
} host_csr_t;

static int cmp_i32(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

static host_csr_t lap27(int64_t N) {
  const int64_t n = N * N * N;
  host_csr_t h = {n, 0, malloc(sizeof(int64_t) * (size_t)(n + 1)), malloc(sizeof(int32_t) * (size_t)(27 * n)),
                  malloc(sizeof(double) * (size_t)(27 * n))};
  for (int64_t z = 0; z < N; z++)
    for (int64_t y = 0; y < N; y++)
      for (int64_t x = 0; x < N; x++) {
        const int64_t i = (z * N + y) * N + x;
        h.rp[i] = h.nnz;
        for (int dz = -1; dz <= 1; dz++)
          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
              const int64_t xx = x + dx, yy = y + dy, zz = z + dz;
              if (xx < 0 || xx >= N || yy < 0 || yy >= N || zz < 0 || zz >= N)
                continue;
              h.ci[h.nnz] = (int32_t)((zz * N + yy) * N + xx);
              h.v[h.nnz++] = dx == 0 && dy == 0 && dz == 0 ? 26.0 : -1.0;
            }
      }
  h.rp[n] = h.nnz;
  return h;
}

static host_csr_t irregular(int64_t n) {
  /* row lengths as kk-bench-kernels' irregular matrix draws them (heavy
   * tailed, 4 to 2000 entries, about 16 on average), columns uniform */
  host_csr_t h = {n, 0, malloc(sizeof(int64_t) * (size_t)(n + 1)), NULL, NULL};
  int64_t cap = 0;
  int *len = malloc(sizeof(int) * (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    const double u = urand() + 1e-9;
    int64_t l = (int64_t)(4.0 / pow(u, 0.8));
    l = l > 2000 ? 2000 : l;
    len[i] = (int)(l < n ? l : n);
    cap += len[i] + 1;
  }
  h.ci = malloc(sizeof(int32_t) * (size_t)cap);
  h.v = malloc(sizeof(double) * (size_t)cap);
  for (int64_t i = 0; i < n; i++) {
    h.rp[i] = h.nnz;
    int32_t *row = h.ci + h.nnz;
    int k = 0;
    row[k++] = (int32_t)i;
    for (int q = 1; q < len[i]; q++)
      row[k++] = (int32_t)(urand() * (double)n);
    qsort(row, (size_t)k, sizeof *row, cmp_i32);
    int m = 0; /* unique columns */
    for (int q = 0; q < k; q++)
      if (m == 0 || row[q] != row[m - 1])
        row[m++] = row[q];
    double off = 0;
    for (int q = 0; q < m; q++)
      if (row[q] != i) {
        h.v[h.nnz + q] = -urand();
        off -= h.v[h.nnz + q];
      }
    for (int q = 0; q < m; q++)
      if (row[q] == i)
        h.v[h.nnz + q] = off + 1.0;
    h.nnz += m;
  }
  h.rp[n] = h.nnz;
  free(len);
  return h;
}

static void free_csr(host_csr_t *h) { free(h->rp), free(h->ci), free(h->v); }

static int g_reps = 5;
static const char *g_backend;

static void row(const char *matrix, const char *what, const char *value) {
  printf("%-10s %-8s %-34s %s\n", matrix, g_backend, what, value);
}

/* The cusparse library's served calls so far (0 where there is none). */
static uint64_t vendor_calls(void) {
  for (int i = 0; i < kk_kernels_tpl_count(); i++) {
    kk_tpl_info_t info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (kk_kernels_tpl_get_info(i, 0, &info) == KK_OK && strcmp(info.name, "cusparse") == 0)
      return info.calls;
  }
  return 0;
}

/* Best time of g_reps solves x = T^-1 b (after one untimed solve, which
 * also runs a vendor library's analysis). */
static double time_solve(kk_sptrsv_t *S, kk_view_t *b, kk_view_t *x) {
  CHECK(kk_sptrsv_solve(NULL, S, b, x));
  CHECK(kk_fence());
  double best = 1e30;
  for (int r = 0; r < g_reps; r++) {
    const double t0 = bench_now();
    CHECK(kk_sptrsv_solve(NULL, S, b, x));
    CHECK(kk_fence());
    const double t = bench_now() - t0;
    best = t < best ? t : best;
  }
  return best;
}

/* The serial C triangular solve over host arrays: the host's native side. */
static double time_native(const int64_t *rp, const int32_t *ci, const double *v, int64_t n, int lower,
                          const double *b, double *x) {
  double best = 1e30;
  for (int r = 0; r < g_reps; r++) {
    const double t0 = bench_now();
    for (int64_t s = 0; s < n; s++) {
      const int64_t i = lower ? s : n - 1 - s;
      double acc = b[i], d = 1;
      for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
        const int64_t j = ci[p];
        if (lower ? j < i : j > i)
          acc -= v[p] * x[j];
        else if (j == i)
          d = v[p];
      }
      x[i] = lower ? acc : acc / d;
    }
    const double t = bench_now() - t0;
    best = t < best ? t : best;
  }
  return best;
}

/* The largest difference between kk's x and a serial C solve's, relative
 * to the largest |x|. */
static double max_diff(const int64_t *rp, const int32_t *ci, const double *v, int64_t n, int lower, const double *b,
                       double *hx, kk_view_t *x) {
  double *kx = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1)), d = 0, big = 1e-300;
  CHECK(kk_fence());
  CHECK(kk_space_copy(NULL, kx, kk_view_space(x), kk_view_data(x), sizeof(double) * (size_t)n, NULL));
  const int reps = g_reps;
  g_reps = 1;
  time_native(rp, ci, v, n, lower, b, hx);
  g_reps = reps;
  for (int64_t i = 0; i < n; i++) {
    d = fmax(d, fabs(kx[i] - hx[i]));
    big = fmax(big, fabs(hx[i]));
  }
  free(kx);
  return d / big;
}

static double true_residual(const kk_crs_t *A, kk_view_t *b, kk_view_t *x) {
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

static void bench_matrix(const char *name, host_csr_t *h, double tol, int spd) {
  char buf[256];
  const int64_t n = h->n;
  kk_crs_t *A;
  CHECK(kk_crs_create_csr(NULL, name, KK_DOUBLE, n, n, KK_INT64, h->rp, KK_INT32, h->ci, h->v, &A));
  snprintf(buf, sizeof buf, "%lld rows, %lld entries", (long long)n, (long long)h->nnz);
  row(name, "matrix", buf);
  /* ILU(0) */
  kk_spiluk_t *F;
  double t0 = bench_now();
  CHECK(kk_spiluk_symbolic(A, 0, &F));
  const double t_sym = bench_now() - t0;
  double t_num = 1e30;
  for (int r = 0; r < g_reps; r++) {
    t0 = bench_now();
    CHECK(kk_spiluk_numeric(NULL, F, A));
    const double t = bench_now() - t0;
    t_num = t < t_num ? t : t_num;
  }
  snprintf(buf, sizeof buf, "symbolic %.4f s, numeric %.4f s", t_sym, t_num);
  row(name, "ilu(0)", buf);
  const kk_crs_t *LU = kk_spiluk_factors(F);
  /* SpTRSV on the factors */
  kk_view_t *b, *x;
  CHECK(kk_view_alloc(&b, "b", KK_DOUBLE, 1, &n));
  CHECK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n));
  const double one = 1.0;
  CHECK(kk_deep_copy_fill(b, &one));
  const int64_t lnnz = kk_crs_nnz(LU);
  int64_t *rp = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int32_t *ci = malloc(sizeof(int32_t) * (size_t)lnnz);
  double *v = malloc(sizeof(double) * (size_t)lnnz), *hb = malloc(sizeof(double) * (size_t)n),
         *hx = malloc(sizeof(double) * (size_t)n);
  CHECK(kk_space_copy(NULL, rp, kk_crs_space(LU), kk_view_data(kk_crs_row_ptr(LU)), sizeof(int64_t) * (size_t)(n + 1), NULL));
  CHECK(kk_space_copy(NULL, ci, kk_crs_space(LU), kk_view_data(kk_crs_col_idx(LU)), sizeof(int32_t) * (size_t)lnnz, NULL));
  CHECK(kk_space_copy(NULL, v, kk_crs_space(LU), kk_view_data(kk_crs_values(LU)), sizeof(double) * (size_t)lnnz, NULL));
  for (int64_t i = 0; i < n; i++)
    hb[i] = 1.0;
  const int host = strcmp(kk_backend_default(), kk_backend_host()) == 0;
  for (int lower = 1; lower >= 0; lower--) {
    const char *tri = lower ? "sptrsv L (unit)" : "sptrsv U";
    kk_sptrsv_t *S;
    CHECK(kk_sptrsv_symbolic(LU, lower ? KK_LOWER : KK_UPPER, lower ? KK_DIAG_UNIT : KK_DIAG_NONUNIT, &S));
    CHECK(kk_kernels_set_tpl(NULL, "none"));
    const double t_kk = time_solve(S, b, x);
    const double err = max_diff(rp, ci, v, n, lower, hb, hx, x);
    /* the other algorithm of kk's own kernel, for comparison */
    const int sf = !host; /* KK_SPTRSV_AUTO: sync-free on device backends, levels on host ones */
    CHECK(kk_sptrsv_set_algorithm(S, sf ? KK_SPTRSV_LEVELS : KK_SPTRSV_SYNCFREE));
    const double t_other = time_solve(S, b, x);
    const double err2 = max_diff(rp, ci, v, n, lower, hb, hx, x);
    snprintf(buf, sizeof buf, "kk %.3f ms (%s; %s %.3f ms; %lld levels; x off by %.1e, %.1e)", 1e3 * t_kk,
             sf ? "sync-free" : "levels", sf ? "levels" : "sync-free", 1e3 * t_other,
             (long long)kk_sptrsv_levels(S), err, err2);
    if (!(err < 1e-8 && err2 < 1e-8)) {
      fprintf(stderr, "kk-bench-solvers: %s %s: kk's x differs from a serial solve's by %g / %g\n", name, tri, err,
              err2);
      exit(1);
    }
    row(name, tri, buf);
    kk_sptrsv_destroy(S);
    CHECK(kk_sptrsv_symbolic(LU, lower ? KK_LOWER : KK_UPPER, lower ? KK_DIAG_UNIT : KK_DIAG_NONUNIT, &S));
    CHECK(kk_kernels_set_tpl(NULL, "auto"));
    const uint64_t c0 = vendor_calls();
    const double t_v = time_solve(S, b, x);
    char what[64];
    snprintf(what, sizeof what, "%s vendor", tri);
    if (vendor_calls() > c0)
      snprintf(buf, sizeof buf, "cuSPARSE SpSV %.3f ms, kk/vendor %.2f", 1e3 * t_v, t_v / t_kk);
    else
      snprintf(buf, sizeof buf, "none serves this backend");
    row(name, what, buf);
    kk_sptrsv_destroy(S);
    if (host) {
      const double t_n = time_native(rp, ci, v, n, lower, hb, hx);
      snprintf(what, sizeof what, "%s serial C", tri);
      snprintf(buf, sizeof buf, "%.3f ms, kk/serial C %.2f", 1e3 * t_n, t_n / t_kk);
      row(name, what, buf);
    }
  }
  free(rp), free(ci), free(v), free(hb), free(hx);
  /* Krylov */
  kk_precond_t Mi = KK_PRECOND_INIT, Mj = KK_PRECOND_INIT;
  CHECK(kk_precond_iluk(F, &Mi));
  CHECK(kk_precond_jacobi(NULL, A, &Mj));
  for (int solver = 0; solver < 2; solver++) {
    if (solver == 1 && !spd)
      break;
    for (int pre = 0; pre < 2; pre++) {
      const double zero = 0.0;
      CHECK(kk_deep_copy_fill(x, &zero));
      kk_cg_result_t res = {sizeof res, 0, 0.0, 0};
      t0 = bench_now();
      if (solver == 0) {
        kk_gmres_options_t opt = KK_GMRES_OPTIONS_INIT;
        opt.tolerance = tol;
        opt.max_iterations = 20000;
        CHECK(kk_sparse_gmres(NULL, A, b, x, &opt, pre ? &Mj : &Mi, &res));
      } else {
        kk_cg_options_t opt = KK_CG_OPTIONS_INIT;
        opt.tolerance = tol;
        opt.max_iterations = 20000;
        CHECK(kk_sparse_pcg(NULL, A, b, x, &opt, pre ? &Mj : &Mi, &res));
      }
      const double t = bench_now() - t0;
      char what[64];
      snprintf(what, sizeof what, "%s + %s to %.0e", solver ? "cg" : "gmres(30)", pre ? "jacobi" : "ilu(0)", tol);
      snprintf(buf, sizeof buf, "%d it, residual %.1e, %.4f s%s", res.iterations, true_residual(A, b, x), t,
               res.converged ? "" : " (NOT CONVERGED)");
      row(name, what, buf);
    }
  }
  kk_precond_release(&Mi);
  kk_precond_release(&Mj);
  kk_view_release(b), kk_view_release(x);
  kk_spiluk_destroy(F);
  kk_crs_destroy(A);
}

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  int64_t N = 24, R = 20000;
  double tol = 1e-8;
  const bench_option_t options[] = {
      BENCH_OPT_INT64("--size=", &N, BENCH_ANY, 0, 0),
      BENCH_OPT_INT64("--rows=", &R, BENCH_ANY, 0, 0),
      BENCH_OPT_INT("--reps=", &g_reps, BENCH_ANY, 0, 0),
      BENCH_OPT_DOUBLE("--tol=", &tol, BENCH_ANY, 0, 0),
      {0},
  };
  if (!bench_options(argc, argv, options, 0)) { /* kk_initialize took the --kokkos-* out of argv */
    fprintf(stderr, "usage: kk-bench-solvers [--size=N] [--rows=R] [--reps=K] [--tol=T] [--kokkos-device=...]\n");
    kk_finalize();
    return 2;
  }
  if (N < 2 || N > 400 || R < 2 || R > 100000000 || g_reps < 1 || !(tol > 0)) {
    fprintf(stderr, "kk-bench-solvers: --size in [2, 400], --rows in [2, 10^8], --reps >= 1, --tol > 0\n");
    kk_finalize();
    return 2;
  }
  g_backend = kk_backend_default();
  printf("%-10s %-8s %-34s %s\n", "matrix", "backend", "case", "result");
  host_csr_t h = lap27(N);
  char name[32];
  snprintf(name, sizeof name, "lap27-%lld", (long long)N);
  bench_matrix(name, &h, tol, 1);
  free_csr(&h);
  h = irregular(R);
  bench_matrix("irregular", &h, tol, 0);
  free_csr(&h);
  kk_finalize();
  return 0;
}
