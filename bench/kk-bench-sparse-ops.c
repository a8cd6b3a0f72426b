/* bench/kk-bench-sparse-ops.c -- SpGEMM, SpAdd, coloring and MIS-2 of kk-kernels against hand-written native versions (OpenMP, serial greedy coloring; cuSPARSE on cuda) and SuiteSparse:GraphBLAS (host) in the same run. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <kk/linalg.h>

#include "bench_base.h"
#include "sparse_ops_graphblas.h"
#ifdef KK_BENCH_CUDA
#include "sparse_ops_native_cuda.h"
#endif

/*
 * Usage: kk-bench-sparse-ops [--full] [--reps=N] [--case=spgemm|spgemm-irregular|spadd|graph]
 *                            [--kokkos-device=B ...]
 *
 * --case runs that case alone (graph: color and mis2; spgemm-irregular:
 * SpGEMM on the irregular matrix only, e.g. under a profiler); all of them
 * by default.
 *
 * Cases (double):
 *   spgemm    C = A A: the 27-point matrix of g^3 (g 30, --full 100) and an
 *             irregular matrix (row lengths heavy-tailed, 1 to 300 entries;
 *             2 10^4 rows, --full 2 10^5).  kk: symbolic + numeric (and
 *             the symbolic phase's part of it), the numeric phase alone
 *             (the handle reused), and the one call kk_sparse_spgemm (the
 *             handle not kept: what a single product costs).  native: an
 *             OpenMP Gustavson SpGEMM with a dense accumulator per thread
 *             (host backends), cusparseSpGEMM (cuda: work estimation,
 *             compute and copy, the whole product).
 *   spadd     C = A + B of two irregular matrices of one shape (rows
 *             sorted, as kk's merge takes them): kk against an OpenMP
 *             dense-accumulator sum (host backends); on cuda against
 *             cusparseDcsrgeam2 (buffer size, cusparseXcsrgeam2Nnz, C's
 *             allocation and values for the whole sum; the values alone
 *             into the same C for the numeric row), C checked entry by
 *             entry against kk's.
 *   On host backends both products are also timed with SuiteSparse:
 *   GraphBLAS (GrB_mxm on the plus-times semiring, GrB_Matrix_eWiseAdd with
 *   plus; a new C each time, finished with GrB_Matrix_wait) on kk's thread
 *   count, where a libgraphblas is found at run time (dlopen; the row says
 *   why not otherwise).
 *   color     distance-1 coloring of the 27-point matrix (VB, EB) and
 *             distance-2 (D2): colors and time against a serial greedy
 *             coloring in natural order (host).
 *   mis2      MIS-2 of the 27-point matrix: size and time.
 * Times are the best of --reps runs (default 5); the table prints kk /
 * native as a speed ratio (above 1: kk faster).  Results are checked: the
 * entry counts of C must agree with the native side's.
 */

const char bench_program[] = "kk-bench-sparse-ops";

static uint64_t g_rng = 88172645463325252ull;
static double rnd(void) { return bench_uniform(&g_rng); }

typedef struct csr {
  int64_t rows, cols, nnz;
  int64_t *rp;
  int32_t *ci;
  double *v;
} csr_t;

static void csr_free(csr_t *m) {
  free(m->rp);
  free(m->ci);
  free(m->v);
}

static csr_t matrix_27pt(int64_t g) {
  const int64_t N = g * g * g;
  csr_t m = {N, N, 0, malloc(sizeof(int64_t) * (size_t)(N + 1)), malloc(sizeof(int32_t) * (size_t)(27 * N)),
             malloc(sizeof(double) * (size_t)(27 * N))};
  for (int64_t r = 0; r < N; r++) {
    m.rp[r] = m.nnz;
    const int64_t i = r / (g * g), j = (r / g) % g, k = r % g;
    for (int di = -1; di <= 1; di++)
      for (int dj = -1; dj <= 1; dj++)
        for (int dk = -1; dk <= 1; dk++)
          if (i + di >= 0 && i + di < g && j + dj >= 0 && j + dj < g && k + dk >= 0 && k + dk < g) {
            m.ci[m.nnz] = (int32_t)(((i + di) * g + (j + dj)) * g + (k + dk));
            m.v[m.nnz++] = (di == 0 && dj == 0 && dk == 0) ? 26.0 : -1.0;
          }
  }
  m.rp[N] = m.nnz;
  return m;
}

static int cmp_i32(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Heavy-tailed row lengths (1 to maxlen, about 8 on average), random
 * columns, each row sorted with its repeated columns dropped (as the
 * matrices of applications and collections come, and as cuSPARSE's
 * csrgeam2 requires). */
static csr_t matrix_irregular(int64_t rows, int64_t maxlen) {
  csr_t m = {rows, rows, 0, malloc(sizeof(int64_t) * (size_t)(rows + 1)), NULL, NULL};
  int64_t cap = 0;
  int64_t *len = malloc(sizeof(int64_t) * (size_t)(rows > 0 ? rows : 1));
  for (int64_t r = 0; r < rows; r++) {
    const int64_t l = (int64_t)(3.0 / pow(rnd() + 1e-9, 0.7));
    len[r] = l > maxlen ? maxlen : l < 1 ? 1 : l;
    cap += len[r];
  }
  m.ci = malloc(sizeof(int32_t) * (size_t)cap);
  m.v = malloc(sizeof(double) * (size_t)cap);
  for (int64_t r = 0; r < rows; r++) {
    m.rp[r] = m.nnz;
    int32_t *c = m.ci + m.nnz;
    for (int64_t p = 0; p < len[r]; p++)
      c[p] = (int32_t)(rnd() * (double)rows) % (int32_t)rows;
    qsort(c, (size_t)len[r], sizeof *c, cmp_i32);
    int64_t u = 0;
    for (int64_t p = 0; p < len[r]; p++)
      if (u == 0 || c[p] != c[u - 1])
        c[u++] = c[p];
    for (int64_t p = 0; p < u; p++)
      m.v[m.nnz + p] = rnd() - 0.5;
    m.nnz += u;
  }
  m.rp[rows] = m.nnz;
  free(len);
  return m;
}

/* ---- native host versions ---------------------------------------------------------------- */

/* Gustavson with a dense accumulator per thread: two passes (count, fill). Returns C's entries. */
static int64_t native_spgemm(const csr_t *A, const csr_t *B, int add) {
  int64_t *cnt = calloc((size_t)A->rows + 1, sizeof(int64_t));
  int64_t total = 0;
#pragma omp parallel
  {
    int32_t *mark = malloc(sizeof(int32_t) * (size_t)B->cols);
    double *acc = malloc(sizeof(double) * (size_t)B->cols);
    int32_t *list = malloc(sizeof(int32_t) * (size_t)B->cols);
    for (int64_t j = 0; j < B->cols; j++)
      mark[j] = -1;
#pragma omp for schedule(dynamic, 64)
    for (int64_t i = 0; i < A->rows; i++) {
      int64_t n = 0;
      if (add) {
        for (int w = 0; w < 2; w++) {
          const csr_t *M = w ? B : A;
          for (int64_t p = M->rp[i]; p < M->rp[i + 1]; p++) {
            const int32_t j = M->ci[p];
            if (mark[j] != (int32_t)i) {
              mark[j] = (int32_t)i;
              acc[j] = 0;
              list[n++] = j;
            }
            acc[j] += M->v[p];
          }
        }
      } else {
        for (int64_t p = A->rp[i]; p < A->rp[i + 1]; p++) {
          const int32_t k = A->ci[p];
          const double a = A->v[p];
          for (int64_t q = B->rp[k]; q < B->rp[k + 1]; q++) {
            const int32_t j = B->ci[q];
            if (mark[j] != (int32_t)i) {
              mark[j] = (int32_t)i;
              acc[j] = 0;
              list[n++] = j;
            }
            acc[j] += a * B->v[q];
          }
        }
      }
      cnt[i] = n;
      volatile double sink = n > 0 ? acc[list[0]] : 0; /* the values are computed (stored by a real code) */
      (void)sink;
    }
    free(mark);
    free(acc);
    free(list);
  }
  for (int64_t i = 0; i < A->rows; i++)
    total += cnt[i];
  free(cnt);
  return total;
}

/* Serial greedy distance-1 coloring in natural order: the number of colors. */
static int32_t greedy_color(const csr_t *A) {
  int32_t *color = calloc((size_t)A->rows, sizeof(int32_t)), most = 0;
  int32_t *seen = calloc((size_t)A->rows + 2, sizeof(int32_t));
  for (int64_t i = 0; i < A->rows; i++) {
    for (int64_t p = A->rp[i]; p < A->rp[i + 1]; p++)
      if (A->ci[p] != i)
        seen[color[A->ci[p]]] = (int32_t)i + 1;
    int32_t c = 1;
    while (seen[c] == (int32_t)i + 1)
      c++;
    color[i] = c;
    most = c > most ? c : most;
  }
  free(color);
  free(seen);
  return most;
}

/* ---- the table ----------------------------------------------------------------------------- */

static void row(const char *kcase, const char *size, const char *what, double kk, double native, const char *note) {
  if (native > 0)
    printf("%-10s %-18s %-22s %12.3f %12.3f %8.2f  %s\n", kcase, size, what, kk * 1e3, native * 1e3, native / kk, note);
  else
    printf("%-10s %-18s %-22s %12.3f %12s %8s  %s\n", kcase, size, what, kk * 1e3, "-", "-", note);
}

static int g_reps = 5;

static kk_crs_t *upload(const csr_t *m, const char *label) {
  kk_crs_t *A = NULL;
  CHECK(kk_crs_create_csr(NULL, label, KK_DOUBLE, m->rows, m->cols, KK_INT64, m->rp, KK_INT32, m->ci, m->v, &A));
  return A;
}

#ifdef KK_BENCH_CUDA
/* C from kk (on its device) against the reference's (host arrays): the same
 * entries in each row (in any order), values within a relative 1e-12.
 * Prints what differs; returns 1 when they agree. */
static int same_sum(const kk_crs_t *C, const int64_t *rrp, const int32_t *rci, const double *rv) {
  const int64_t m = kk_crs_rows(C), n = kk_crs_cols(C), nnz = kk_crs_nnz(C);
  int64_t *rp = malloc(sizeof(int64_t) * (size_t)(m + 1)), *mark = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int32_t *ci = malloc(sizeof(int32_t) * (size_t)(nnz + 1));
  double *v = malloc(sizeof(double) * (size_t)(nnz + 1)), *dense = malloc(sizeof(double) * (size_t)(n + 1));
  kk_space_t *sp = kk_crs_space(C);
  CHECK(kk_fence());
  CHECK(kk_space_copy(NULL, rp, sp, kk_view_data(kk_crs_row_ptr(C)), sizeof(int64_t) * (size_t)(m + 1), NULL));
  CHECK(kk_space_copy(NULL, ci, sp, kk_view_data(kk_crs_col_idx(C)), sizeof(int32_t) * (size_t)nnz, NULL));
  CHECK(kk_space_copy(NULL, v, sp, kk_view_data(kk_crs_values(C)), sizeof(double) * (size_t)nnz, NULL));
  for (int64_t j = 0; j < n; j++)
    mark[j] = -1;
  int ok = rrp[m] == nnz;
  for (int64_t i = 0; ok && i < m; i++) {
    ok = rp[i + 1] - rp[i] == rrp[i + 1] - rrp[i];
    for (int64_t p = rp[i]; ok && p < rp[i + 1]; p++) {
      mark[ci[p]] = i;
      dense[ci[p]] = v[p];
    }
    for (int64_t p = rrp[i]; ok && p < rrp[i + 1]; p++)
      ok = mark[rci[p]] == i && fabs(dense[rci[p]] - rv[p]) <= 1e-12 * (fabs(rv[p]) + 1.0);
    if (!ok)
      fprintf(stderr, "kk-bench-sparse-ops: spadd: kk's C differs from cuSPARSE's in row %lld\n", (long long)i);
  }
  free(rp);
  free(mark);
  free(ci);
  free(v);
  free(dense);
  return ok;
}
#endif

static void bench_product(const char *kcase, const char *size, const csr_t *A, const csr_t *B, int add) {
  kk_crs_t *dA = upload(A, "A"), *dB = upload(B, "B"), *C = NULL;
  double best_all = 1e30, best_sym = 1e30, best_num = 1e30, best_one = 1e30, best_native = 0, best_native_num = 0;
  int64_t nnz = 0;
  for (int r = 0; r < g_reps; r++) {
    kk_spgemm_handle_t *h = NULL;
    kk_crs_destroy(C);
    C = NULL;
    CHECK(kk_fence());
    double t0 = bench_now();
    if (add) {
      CHECK(kk_sparse_spadd_symbolic(NULL, dA, dB, 0, &h, &nnz));
      CHECK(kk_sparse_spadd_numeric(NULL, h, KK_REAL(1), dA, KK_REAL(1), dB, &C));
    } else {
      CHECK(kk_sparse_spgemm_symbolic(NULL, dA, dB, 0, &h, &nnz));
      const double ts = bench_now() - t0; /* the symbolic phase is synchronous */
      best_sym = ts < best_sym ? ts : best_sym;
      CHECK(kk_sparse_spgemm_numeric(NULL, h, dA, dB, &C));
    }
    CHECK(kk_fence());
    double t1 = bench_now();
    if (add)
      CHECK(kk_sparse_spadd_numeric(NULL, h, KK_REAL(1), dA, KK_REAL(1), dB, &C));
    else
      CHECK(kk_sparse_spgemm_numeric(NULL, h, dA, dB, &C));
    CHECK(kk_fence());
    double t2 = bench_now();
    best_all = t1 - t0 < best_all ? t1 - t0 : best_all;
    best_num = t2 - t1 < best_num ? t2 - t1 : best_num;
    kk_sparse_spgemm_destroy(h);
    if (!add) { /* the one call: both phases, the handle not kept (one pass where kk takes it) */
      kk_crs_t *C1 = NULL;
      CHECK(kk_fence());
      const double t3 = bench_now();
      CHECK(kk_sparse_spgemm(NULL, dA, dB, 0, &C1));
      CHECK(kk_fence());
      const double t = bench_now() - t3;
      best_one = t < best_one ? t : best_one;
      if (kk_crs_nnz(C1) != nnz)
        fprintf(stderr, "kk-bench-sparse-ops: %s %s: kk_sparse_spgemm's C has %lld entries, the two phases' %lld\n",
                kcase, size, (long long)kk_crs_nnz(C1), (long long)nnz);
      kk_crs_destroy(C1);
    }
  }
  const int host = strcmp(kk_backend_default(), kk_backend_host()) == 0;
  int64_t native_nnz = -1;
  const char *native_name = "";
  if (host) {
    best_native = 1e30;
    for (int r = 0; r < g_reps; r++) {
      double t0 = bench_now();
      native_nnz = native_spgemm(A, B, add);
      double t = bench_now() - t0;
      best_native = t < best_native ? t : best_native;
    }
    native_name = add ? "vs OpenMP dense-acc sum" : "vs OpenMP Gustavson";
  }
#ifdef KK_BENCH_CUDA
  else if (strcmp(kk_backend_default(), "cuda") == 0 && !add) {
    best_native = kkb_cusparse_spgemm(A->rows, A->cols, A->nnz, A->rp, A->ci, A->v, B->cols, B->nnz, B->rp, B->ci,
                                      B->v, g_reps, &native_nnz);
    native_name = "vs cusparseSpGEMM";
  } else if (strcmp(kk_backend_default(), "cuda") == 0) {
    int64_t *crp = malloc(sizeof(int64_t) * (size_t)(A->rows + 1));
    int32_t *cci = NULL;
    double *cv = NULL;
    best_native = kkb_cusparse_spadd(A->rows, A->cols, A->nnz, A->rp, A->ci, A->v, B->nnz, B->rp, B->ci, B->v, 1.0,
                                     1.0, g_reps, &best_native_num, crp, &cci, &cv, &native_nnz);
    if (best_native > 0 && !same_sum(C, crp, cci, cv)) {
      fprintf(stderr, "kk-bench-sparse-ops: %s %s: kk's C is not cuSPARSE's\n", kcase, size);
      best_native = best_native_num = 0;
      native_nnz = -1;
    }
    native_name = best_native > 0 ? "vs cusparseDcsrgeam2 (C checked)" : "cusparseDcsrgeam2 failed";
    free(crp);
    free(cci);
    free(cv);
  }
#endif
  if (best_native_num <= 0)
    best_native_num = best_native;
  if (native_nnz >= 0 && native_nnz != nnz)
    fprintf(stderr, "kk-bench-sparse-ops: %s %s: kk's C has %lld entries, the native one %lld\n", kcase, size,
            (long long)nnz, (long long)native_nnz);
  char note[128];
  snprintf(note, sizeof note, "nnz(C) %lld %s", (long long)nnz, native_name);
  row(kcase, size, "symbolic+numeric ms", best_all, best_native, note);
  row(kcase, size, "symbolic ms", best_sym, 0, "the symbolic phase of the row above");
  row(kcase, size, "numeric (reused) ms", best_num, best_native_num, "");
  if (!add)
    row(kcase, size, "one call ms", best_one, best_native, "kk_sparse_spgemm (handle not kept)");
  if (host) {
    char why[256] = "";
    int64_t grb_nnz = -1;
    const double t = kkb_graphblas_product(A->rows, A->cols, B->cols, A->rp, A->ci, A->v, B->rp, B->ci, B->v, add,
                                           kk_num_threads(), g_reps, &grb_nnz, why, (int)sizeof why);
    if (t > 0 && grb_nnz != nnz)
      fprintf(stderr, "kk-bench-sparse-ops: %s %s: kk's C has %lld entries, GraphBLAS's %lld\n", kcase, size,
              (long long)nnz, (long long)grb_nnz);
    char gnote[sizeof why + 16];
    snprintf(gnote, sizeof gnote, t > 0 ? "vs GraphBLAS %s" : "%s", t > 0 ? (add ? "GrB_eWiseAdd" : "GrB_mxm") : why);
    row(kcase, size, "symbolic+numeric ms", best_all, t > 0 ? t : 0, gnote);
    row(kcase, size, "numeric (reused) ms", best_num, t > 0 ? t : 0, "");
  }
  kk_crs_destroy(C);
  kk_crs_destroy(dA);
  kk_crs_destroy(dB);
}

static void bench_graph(const char *size, const csr_t *A) {
  kk_crs_t *dA = upload(A, "G");
  static const struct {
    kk_color_algorithm_t alg;
    const char *name;
  } algs[] = {{KK_COLOR_VB, "color VB"}, {KK_COLOR_EB, "color EB"}, {KK_COLOR_D2, "color D2"}};
  double t0 = bench_now();
  const int32_t greedy = greedy_color(A);
  const double tg = bench_now() - t0;
  for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++) {
    double best = 1e30;
    int32_t nc = 0;
    for (int r = 0; r < g_reps; r++) {
      kk_view_t *colors = NULL;
      CHECK(kk_fence());
      double s = bench_now();
      CHECK(kk_sparse_color(NULL, dA, algs[a].alg, &colors, &nc));
      double t = bench_now() - s;
      best = t < best ? t : best;
      kk_view_release(colors);
    }
    char note[96];
    snprintf(note, sizeof note, "%d colors (serial greedy distance-1: %d)", nc, greedy);
    row(algs[a].name, size, "ms", best, algs[a].alg == KK_COLOR_D2 ? 0 : tg, note);
  }
  double best = 1e30;
  int64_t k = 0;
  for (int r = 0; r < g_reps; r++) {
    kk_view_t *set = NULL;
    double s = bench_now();
    CHECK(kk_sparse_mis2(NULL, dA, &set, &k));
    double t = bench_now() - s;
    best = t < best ? t : best;
    kk_view_release(set);
  }
  char note[64];
  snprintf(note, sizeof note, "%lld vertices in the set", (long long)k);
  row("mis2", size, "ms", best, 0, note);
  kk_crs_destroy(dA);
}

/* --case=: one of the cases into *(const char **)to, else 0. */
static int take_case(const char *arg, const char *value, void *to) {
  (void)arg;
  if (strcmp(value, "spgemm") != 0 && strcmp(value, "spgemm-irregular") != 0 && strcmp(value, "spadd") != 0 &&
      strcmp(value, "graph") != 0)
    return 0;
  *(const char **)to = value;
  return 1;
}

int main(int argc, char **argv) {
  CHECK(kk_initialize(&argc, &argv));
  int full = 0;
  const char *only = NULL;
  const bench_option_t options[] = {
      BENCH_OPT_FLAG("--full", &full, 1),
      BENCH_OPT_PARSE("--case=", &only, take_case),
      BENCH_OPT_INT("--reps=", &g_reps, BENCH_AT_LEAST, 1, 0),
      {0},
  };
  if (!bench_options(argc, argv, options, 0)) { /* kk_initialize took the --kokkos-* out of argv */
    fprintf(stderr, "usage: kk-bench-sparse-ops [--full] [--reps=N] [--case=spgemm|spgemm-irregular|spadd|graph] "
                    "[--kokkos-device=BACKEND]\n");
    kk_finalize();
    return 2;
  }
  printf("# kk-bench-sparse-ops on %s (%d host threads), double, best of %d\n", kk_backend_default(),
         kk_num_threads(), g_reps);
  printf("%-10s %-18s %-22s %12s %12s %8s  %s\n", "case", "size", "what", "kk ms", "native ms", "speed", "note");
  const int64_t g = full ? 100 : 30, rows = full ? 200000 : 20000;
  const int irr_only = only && strcmp(only, "spgemm-irregular") == 0;
  const int spgemm = !only || strcmp(only, "spgemm") == 0 || irr_only, spadd = !only || strcmp(only, "spadd") == 0,
            graph = !only || strcmp(only, "graph") == 0;
  char size[32];
  /* the matrices are made in the same order whatever runs: the same inputs */
  csr_t L = matrix_27pt(g);
  csr_t R = matrix_irregular(rows, 300), R2 = matrix_irregular(rows, 300);
  snprintf(size, sizeof size, "27pt %lld^3", (long long)g);
  if (spgemm && !irr_only)
    bench_product("spgemm", size, &L, &L, 0);
  snprintf(size, sizeof size, "irregular %lld", (long long)rows);
  if (spgemm)
    bench_product("spgemm", size, &R, &R, 0);
  if (spadd)
    bench_product("spadd", size, &R, &R2, 1);
  snprintf(size, sizeof size, "27pt %lld^3", (long long)g);
  if (graph)
    bench_graph(size, &L);
  csr_free(&L);
  csr_free(&R);
  csr_free(&R2);
  kk_finalize();
  return 0;
}
