/* bench/bench_common.c -- what the parts of kk-bench share: the result table and its output, settling, case selection, and CG's matrix and hand-written iterations. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

/* ---- results ---------------------------------------------------------------------- */

typedef struct result {
  char kcase[48];
  char backend[32];
  char size[16];
  double kk, native;
  const char *unit;
  int lower_is_better;
} result_t;

static result_t g_res[256];
static int g_nres;

void bench_record(const char *kcase, const char *backend, const char *size, double kk, double native,
                  const char *unit, int lower) {
  if (g_nres >= 256)
    return;
  result_t *r = &g_res[g_nres++];
  snprintf(r->kcase, sizeof r->kcase, "%s", kcase);
  snprintf(r->backend, sizeof r->backend, "%s", backend);
  snprintf(r->size, sizeof r->size, "%s", size);
  r->kk = kk;
  r->native = native;
  r->unit = unit;
  r->lower_is_better = lower;
}

/* At least 20 ms, then until every other thread sleeps (at most 500 ms in
 * all): libgomp's idle threads spin 300 000 pause instructions after a
 * region, 5-20 ms depending on the CPU, and a kk run that starts while they
 * spin shares the cores with them (and a native run that starts while they
 * spin skips their wake-up).  Both sides start with their threads asleep. */
void bench_settle(void) {
  static int warned;
  if (bench_rest(20, 500) && !warned++)
    fprintf(stderr, "kk-bench: some thread of this process still runs after 500 ms of rest "
                    "(OMP_WAIT_POLICY=active?); runs may overlap it\n");
}

int bench_wants(const char *cases, const char *name) {
  if (strcmp(cases, "all") == 0)
    return 1;
  size_t n = strlen(name);
  for (const char *p = cases; (p = strstr(p, name)); p += n)
    if ((p == cases || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
      return 1;
  return 0;
}

int bench_result_count(void) { return g_nres; }

void bench_print_table(FILE *out) {
  fprintf(out, "%-20s %-8s %-6s %12s %12s %-5s %10s\n", "case", "backend", "size", "kk", "native", "unit",
          "kk/native");
  for (int i = 0; i < g_nres; i++) {
    result_t *r = &g_res[i];
    fprintf(out, "%-20s %-8s %-6s %12.3f %12.3f %-5s %10.3f%s\n", r->kcase, r->backend, r->size, r->kk, r->native,
            r->unit, r->native > 0 ? r->kk / r->native : 0.0, r->lower_is_better ? "  (lower is better)" : "");
  }
}

void bench_print_json(FILE *out) {
  fprintf(out, "[\n");
  for (int i = 0; i < g_nres; i++) {
    result_t *r = &g_res[i];
    fprintf(out,
            "  {\"case\": \"%s\", \"backend\": \"%s\", \"size\": \"%s\", \"kk\": %.6g, \"native\": %.6g, "
            "\"unit\": \"%s\", \"ratio\": %.4f, \"lower_is_better\": %s}%s\n",
            r->kcase, r->backend, r->size, r->kk, r->native, r->unit, r->native > 0 ? r->kk / r->native : 0.0,
            r->lower_is_better ? "true" : "false", i + 1 < g_nres ? "," : "");
  }
  fprintf(out, "]\n");
}

/* ---- CG: the 27-point matrix and the hand-written OpenMP iterations ------------------------------- */

void bench_cg_matrix(int64_t n, int64_t **row_ptr, int32_t **cols, double **vals, int64_t *nnz) {
  const int64_t N = n * n * n;
  *row_ptr = malloc(sizeof(int64_t) * (size_t)(N + 1));
  *cols = malloc(sizeof(int32_t) * (size_t)(27 * N));
  *vals = malloc(sizeof(double) * (size_t)(27 * N));
  int64_t p = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      for (int64_t k = 0; k < n; k++) {
        (*row_ptr)[(i * n + j) * n + k] = p;
        for (int di = -1; di <= 1; di++)
          for (int dj = -1; dj <= 1; dj++)
            for (int dk = -1; dk <= 1; dk++) {
              int64_t a = i + di, b = j + dj, c = k + dk;
              if (a < 0 || a >= n || b < 0 || b >= n || c < 0 || c >= n)
                continue;
              (*cols)[p] = (int32_t)((a * n + b) * n + c);
              (*vals)[p] = (di || dj || dk) ? -1.0 : 26.0;
              p++;
            }
      }
  (*row_ptr)[N] = p;
  *nnz = p;
}

kk_view_t *bench_view_of(const char *label, kk_type_t t, int64_t n, void *data) {
  kk_view_t *v, *h;
  CHECK(kk_view_alloc(&v, label, t, 1, &n));
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = t;
  s.rank = 1;
  s.extents[0] = n;
  CHECK(kk_view_wrap(&s, data, &h));
  CHECK(kk_deep_copy(v, h));
  kk_view_release(h);
  return v;
}

/* `iters` CG iterations as a hand-written OpenMP program writes them, from
 * x = 0 and r = p = b = 1, on the work arrays x, r, p, ap of n doubles; the
 * final r.r in *rr.  Seconds for the iterations. */
double bench_native_cg(const int64_t *rp, const int32_t *ci, const double *va, int64_t N, int iters, int nt,
                       double *nxv, double *nr, double *np, double *nap, double *rr_out) {
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < N; i++)
    nxv[i] = 0.0, nr[i] = 1.0, np[i] = 1.0, nap[i] = 0.0;
  double rr = 0;
#pragma omp parallel for num_threads(nt) reduction(+ : rr)
  for (int64_t i = 0; i < N; i++)
    rr += nr[i] * nr[i];
  double t0 = bench_now();
  for (int it = 0; it < iters; it++) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t row = 0; row < N; row++) {
      double s = 0;
      for (int64_t q = rp[row]; q < rp[row + 1]; q++)
        s += va[q] * np[ci[q]];
      nap[row] = s;
    }
    double pAp = 0;
#pragma omp parallel for num_threads(nt) reduction(+ : pAp)
    for (int64_t i = 0; i < N; i++)
      pAp += np[i] * nap[i];
    double alpha = rr / pAp;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t i = 0; i < N; i++)
      nxv[i] = nxv[i] + alpha * np[i];
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t i = 0; i < N; i++)
      nr[i] = nr[i] - alpha * nap[i];
    double rr_new = 0;
#pragma omp parallel for num_threads(nt) reduction(+ : rr_new)
    for (int64_t i = 0; i < N; i++)
      rr_new += nr[i] * nr[i];
    double beta = rr_new / rr;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t i = 0; i < N; i++)
      np[i] = nr[i] + beta * np[i];
    rr = rr_new;
  }
  double t = bench_now() - t0;
  *rr_out = rr;
  return t;
}
