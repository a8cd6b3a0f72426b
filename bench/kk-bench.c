/* bench/kk-bench.c -- kk against hand-written C/OpenMP in the same run: triad, dot, scan, empty-launch latency. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"
#include "kk-bench-graph.h"
#include "kk-bench-hier.h"
#include "kk-bench-klang.h"
#include "bench_common.h"
#ifdef KK_BENCH_CUDA
#include "native_cuda.h"
#endif

const char bench_program[] = "kk-bench";

#define now bench_now
#define settle bench_settle
#define record bench_record

/* ---- the hand-written versions ------------------------------------------------------ */

static double *native_alloc(int64_t n, int nt) {
  double *p = aligned_alloc(64, (size_t)n * sizeof(double) + 64);
  if (!p) {
    fprintf(stderr, "kk-bench: out of memory\n");
    exit(1);
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; i++)
    p[i] = 0.0;
  return p;
}

static void native_init(double *a, double *b, double *c, int64_t n, int nt) {
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    a[i] = 0.0;
    b[i] = 1.0 + (double)(i % 7);
    c[i] = 0.5 * (double)(i % 3);
  }
}

static void native_triad(double *restrict a, const double *restrict b, const double *restrict c, double s, int64_t n,
                         int nt) {
  if (nt == 1) {
    for (int64_t i = 0; i < n; i++)
      a[i] = b[i] + s * c[i];
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; i++)
    a[i] = b[i] + s * c[i];
}

static double native_dot(const double *x, const double *y, int64_t n, int nt) {
  double s = 0;
  if (nt == 1) {
    for (int64_t i = 0; i < n; i++)
      s += x[i] * y[i];
    return s;
  }
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : s)
  for (int64_t i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

/* exclusive scan: each thread sums its block, one prefix over the thread sums, a second pass writes */
static double native_scan(const double *x, double *y, int64_t n, int nt) {
  if (nt == 1) {
    double run = 0;
    for (int64_t i = 0; i < n; i++) {
      const double v = x[i];
      y[i] = run;
      run += v;
    }
    return run;
  }
  double part[512];
  double total = 0;
#pragma omp parallel num_threads(nt)
  {
#ifdef _OPENMP
    int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
    int t = 0, T = 1;
#endif
    int64_t q = n / T, r = n % T;
    int64_t b = t * q + (t < r ? t : r), e = b + q + (t < r ? 1 : 0);
    double s = 0;
    for (int64_t i = b; i < e; i++)
      s += x[i];
    part[t] = s;
#pragma omp barrier
    double run = 0;
    for (int k = 0; k < t; k++)
      run += part[k];
    for (int64_t i = b; i < e; i++) {
      const double v = x[i];
      y[i] = run;
      run += v;
    }
    if (t == T - 1)
      total = run;
  }
  return total;
}

static volatile double g_sink;

static void native_empty_for(int64_t n, int nt) {
  if (nt == 1) {
    for (int64_t i = 0; i < n; i++)
      ;
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; i++)
    ;
}

static double native_empty_reduce(int64_t n, int nt) {
  double s = 0;
  if (nt == 1) {
    for (int64_t i = 0; i < n; i++)
      s += 1.0;
    return s;
  }
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : s)
  for (int64_t i = 0; i < n; i++)
    s += 1.0;
  return s;
}

/* ---- the cases -------------------------------------------------------------------------- */

static int g_reps = 0;

/* Best time of `reps` runs of f, kk and native alternating in two rounds. */
#define BEST(reps, expr)                    \
  ({                                        \
    double best_ = 1e30;                    \
    for (int r_ = 0; r_ < (reps); r_++) {   \
      double t0_ = now();                   \
      expr;                                 \
      double t_ = now() - t0_;              \
      if (t_ < best_)                       \
        best_ = t_;                         \
    }                                       \
    best_;                                  \
  })

/* kk's side of the latency cases: `launches` empty launches of n elements
 * each followed by a fence, then as many reductions of n elements to the
 * host; the best seconds per launch so far are kept in *tfor and *tred. */
static void kk_latency_turn(int64_t n, int launches, double *tfor, double *tred) {
  struct none_args z = {0};
  double t0 = now();
  for (int k = 0; k < launches; k++) {
    CHECK(kk_parallel_for("empty", KK_RANGE(0, n), KK_KERNEL(bench_empty_for), KK_ARGS(z)));
    CHECK(kk_fence());
  }
  double t = (now() - t0) / launches;
  *tfor = t < *tfor ? t : *tfor;
  double r = 0;
  t0 = now();
  for (int k = 0; k < launches; k++)
    CHECK(kk_parallel_reduce("empty", KK_RANGE(0, n), KK_KERNEL(bench_empty_reduce), KK_ARGS(z), KK_RESULT(r)));
  t = (now() - t0) / launches;
  *tred = t < *tred ? t : *tred;
  g_sink = r;
}

#ifdef KK_BENCH_CUDA
/* The cuda backend against hand-written CUDA (bench/native_cuda.cu): triad and dot, both also against the
 * device-to-device copy bandwidth of the same run, and an int64 exclusive scan against CUB. */
static void bench_stream_cuda(const char *backend, int logn) {
  const int64_t n = (int64_t)1 << logn;
  char size[16];
  snprintf(size, sizeof size, "2^%d", logn);
  int reps = g_reps ? g_reps : 20;
  kk_view_t *a, *b, *c;
  CHECK(kk_view_alloc(&a, "a", KK_DOUBLE, 1, &n));
  CHECK(kk_view_alloc(&b, "b", KK_DOUBLE, 1, &n));
  CHECK(kk_view_alloc(&c, "c", KK_DOUBLE, 1, &n));
  struct triad_args ta = {3.0, kk_view_bind(a), kk_view_bind(b), kk_view_bind(c)};
  CHECK(kk_parallel_for("init", KK_RANGE(0, n), KK_KERNEL(bench_init), KK_ARGS(ta)));
  CHECK(kk_fence());

  double tk = 1e30, tn = 1e30, tc = 1e30;
  for (int round = 0; round < 2; round++) {
    double t = BEST(reps, CHECK(kk_parallel_for("triad", KK_RANGE(0, n), KK_KERNEL(bench_triad), KK_ARGS(ta)));
                    CHECK(kk_fence()));
    tk = t < tk ? t : tk;
    t = ncu_triad(n, reps);
    tn = t > 0 && t < tn ? t : tn;
    t = ncu_copy(n, reps);
    tc = t > 0 && t < tc ? t : tc;
  }
  const double copy_bw = 16.0 * (double)n / tc * 1e-9;
  record("triad", backend, size, 24.0 * (double)n / tk * 1e-9, 24.0 * (double)n / tn * 1e-9, "GB/s", 0);
  record("triad vs D2D copy", backend, size, 24.0 * (double)n / tk * 1e-9, copy_bw, "GB/s", 0);

  struct pair_args pa = {kk_view_bind(b), kk_view_bind(c)};
  double dk = 0, dn = 0;
  tk = tn = 1e30;
  for (int round = 0; round < 2; round++) {
    double t = BEST(reps, CHECK(kk_parallel_reduce("dot", KK_RANGE(0, n), KK_KERNEL(bench_dot), KK_ARGS(pa),
                                                   KK_RESULT(dk))));
    tk = t < tk ? t : tk;
    t = ncu_dot(n, reps, &dn);
    tn = t > 0 && t < tn ? t : tn;
  }
  if (fabs(dk - dn) > 1e-9 * fabs(dn))
    fprintf(stderr, "kk-bench: dot differs: kk %.17g native %.17g\n", dk, dn);
  record("dot", backend, size, 16.0 * (double)n / tk * 1e-9, 16.0 * (double)n / tn * 1e-9, "GB/s", 0);
  record("dot vs D2D copy", backend, size, 16.0 * (double)n / tk * 1e-9, copy_bw, "GB/s", 0);
  kk_view_release(a), kk_view_release(b), kk_view_release(c);

  kk_view_t *x, *y;
  CHECK(kk_view_alloc(&x, "x", KK_INT64, 1, &n));
  CHECK(kk_view_alloc(&y, "y", KK_INT64, 1, &n));
  struct pair_args sa = {kk_view_bind(x), kk_view_bind(y)};
  CHECK(kk_parallel_for("iota5", KK_RANGE(0, n), KK_KERNEL(bench_iota5), KK_ARGS(sa)));
  int64_t sk = 0, sn = 0;
  tk = tn = 1e30;
  for (int round = 0; round < 2; round++) {
    double t = BEST(reps, CHECK(kk_parallel_scan("scan", KK_RANGE(0, n), KK_KERNEL(bench_scan_i64), KK_ARGS(sa),
                                                 KK_RESULT(sk))));
    tk = t < tk ? t : tk;
    t = ncu_scan_i64(n, reps, &sn);
    tn = t > 0 && t < tn ? t : tn;
  }
  if (sk != sn)
    fprintf(stderr, "kk-bench: scan totals differ: kk %lld native (CUB) %lld\n", (long long)sk, (long long)sn);
  record("exclusive scan i64", backend, size, 16.0 * (double)n / tk * 1e-9, 16.0 * (double)n / tn * 1e-9, "GB/s", 0);
  kk_view_release(x), kk_view_release(y);
}

/* An empty launch with a fence, and a reduce of one element to the host, against one bare driver-API launch plus a
 * stream synchronize. */
static void bench_latency_cuda(const char *backend) {
  const int launches = g_reps ? 100 * g_reps : 20000;
  double tk_for = 1e30, tk_red = 1e30;
  for (int trial = 0; trial < 5; trial++)
    kk_latency_turn(1, launches, &tk_for, &tk_red);
  double tn = ncu_launch_latency(launches, 5);
  record("empty for + fence", backend, "1", tk_for * 1e6, tn * 1e6, "us", 1);
  record("reduce of 1", backend, "1", tk_red * 1e6, tn * 1e6, "us", 1);
}
#endif

static void bench_stream(const char *backend, int logn, int nt) {
  const int64_t n = (int64_t)1 << logn;
  char size[16];
  snprintf(size, sizeof size, "2^%d", logn);
  int reps = g_reps ? g_reps : (logn >= 26 ? 10 : 20);

  /* On this workplace's VM, arrays allocated later ran up to 15% faster than
   * the same loop on arrays allocated just before them, whichever side owned
   * them: so the sides also take turns at allocating first (round 0: kk,
   * round 1: native), and each keeps its best over both rounds. */
  const int per_round = (reps + 1) / 2;
  double best[3][2] = {{1e30, 1e30}, {1e30, 1e30}, {1e30, 1e30}}; /* [case][kk, native] */
  double dk = 0, dn = 0, sk = 0, sn = 0;
  for (int round = 0; round < 2; round++) {
    kk_view_t *a = NULL, *b = NULL, *c = NULL;
    double *na = NULL, *nb = NULL, *nc = NULL;
    for (int side = 0; side < 2; side++) {
      if (side == round) {
        CHECK(kk_view_alloc(&a, "a", KK_DOUBLE, 1, &n));
        CHECK(kk_view_alloc(&b, "b", KK_DOUBLE, 1, &n));
        CHECK(kk_view_alloc(&c, "c", KK_DOUBLE, 1, &n));
      } else {
        na = native_alloc(n, nt), nb = native_alloc(n, nt), nc = native_alloc(n, nt);
      }
    }
    struct triad_args ta = {3.0, kk_view_bind(a), kk_view_bind(b), kk_view_bind(c)};
    CHECK(kk_parallel_for("init", KK_RANGE(0, n), KK_KERNEL(bench_init), KK_ARGS(ta)));
    native_init(na, nb, nc, n, nt);

    double tk, tn;
    DUEL(per_round, tk, tn, CHECK(kk_parallel_for("triad", KK_RANGE(0, n), KK_KERNEL(bench_triad), KK_ARGS(ta)));
         CHECK(kk_fence()), native_triad(na, nb, nc, 3.0, n, nt));
    best[0][0] = fmin(best[0][0], tk), best[0][1] = fmin(best[0][1], tn);

    struct pair_args pa = {kk_view_bind(b), kk_view_bind(c)};
    DUEL(per_round, tk, tn,
         CHECK(kk_parallel_reduce("dot", KK_RANGE(0, n), KK_KERNEL(bench_dot), KK_ARGS(pa), KK_RESULT(dk))),
         dn = native_dot(nb, nc, n, nt));
    best[1][0] = fmin(best[1][0], tk), best[1][1] = fmin(best[1][1], tn);

    struct pair_args sa = {kk_view_bind(b), kk_view_bind(a)};
    DUEL(per_round, tk, tn,
         CHECK(kk_parallel_scan("scan", KK_RANGE(0, n), KK_KERNEL(bench_scan), KK_ARGS(sa), KK_RESULT(sk))),
         sn = native_scan(nb, na, n, nt));
    best[2][0] = fmin(best[2][0], tk), best[2][1] = fmin(best[2][1], tn);

    free(na), free(nb), free(nc);
    kk_view_release(a), kk_view_release(b), kk_view_release(c);
  }
  if (fabs(dk - dn) > 1e-6 * fabs(dn))
    fprintf(stderr, "kk-bench: dot differs: kk %.17g native %.17g\n", dk, dn);
  if (sk != sn)
    fprintf(stderr, "kk-bench: scan totals differ: kk %.17g native %.17g\n", sk, sn);
  const double gb = (double)n * 1e-9;
  record("triad", backend, size, 24.0 * gb / best[0][0], 24.0 * gb / best[0][1], "GB/s", 0);
  record("dot", backend, size, 16.0 * gb / best[1][0], 16.0 * gb / best[1][1], "GB/s", 0);
  /* bytes an exclusive two-pass scan moves: read x twice, write y once */
  record("exclusive scan", backend, size, 24.0 * gb / best[2][0], 24.0 * gb / best[2][1], "GB/s", 0);
}

static void bench_latency(const char *backend, int nt) {
  const int launches = g_reps ? 100 * g_reps : 20000;
  const int64_t counts[2] = {1, nt};
  for (int w = 0; w < 2; w++) {
    int64_t n = counts[w];
    if (w == 1 && nt == 1)
      break;
    char size[16];
    snprintf(size, sizeof size, "%lld", (long long)n);
    double tk_for = 1e30, tn_for = 1e30, tk_red = 1e30, tn_red = 1e30;
    /* kk and native take turns, the side going first alternating */
    for (int turn = 0; turn < 20; turn++) {
      settle();
      if ((turn & 1) == (turn / 2 & 1)) {
        kk_latency_turn(n, launches, &tk_for, &tk_red);
      } else {
        double t0 = now();
        for (int k = 0; k < launches; k++)
          native_empty_for(n, nt);
        double t = (now() - t0) / launches;
        tn_for = t < tn_for ? t : tn_for;
        t0 = now();
        for (int k = 0; k < launches; k++)
          g_sink = native_empty_reduce(n, nt);
        t = (now() - t0) / launches;
        tn_red = t < tn_red ? t : tn_red;
      }
    }
    record("empty for + fence", backend, size, tk_for * 1e6, tn_for * 1e6, "us", 1);
    record("reduce", backend, size, tk_red * 1e6, tn_red * 1e6, "us", 1);
  }
}

static void usage(void) {
  fprintf(stderr, "usage: kk-bench [--backends=serial,threads,openmp,cuda] [--cases=all|stream,latency,tensor,atomics,"
                  "minsum,batched,cg,graph,cggraph,gather,nbody,transpose] [--sizes=24,26] [--reps=N] [--quick] [--json] [--kokkos-*...]\n");
}

int main(int argc, char **argv) {
  const char *backends = "serial,threads,openmp";
  const char *sizes = "24,26";
  const char *cases = "all";
  int json = 0, quick = 0;
  const bench_option_t options[] = {
      BENCH_OPT_STRING("--backends=", &backends),
      BENCH_OPT_STRING("--sizes=", &sizes),
      BENCH_OPT_INT("--reps=", &g_reps, BENCH_ANY, 0, 0),
      BENCH_OPT_FLAG("--json", &json, 1),
      BENCH_OPT_STRING("--cases=", &cases),
      BENCH_OPT_FLAG("--quick", &quick, 1),
      {0},
  };
  if (!bench_options(argc, argv, options, 1)) { /* --kokkos-* are read by kk_initialize_ex below */
    usage();
    return 2;
  }
  /* A smoke run (every stream size asked for under 2^20, as --sizes=12 in make check) runs every case
   * but at sizes that only check it: the kernel-language rows (a 2^26 table, an O(n^2) n-body) take their
   * quick sizes, the atomics 10^5 updates, min/sum 10^5 elements, CG 20^3 for 10 iterations and CG as a
   * graph 20^3 only (not 100^3): under AddressSanitizer CG at 100^3 alone took minutes per backend. */
  int small = 1;
  for (const char *z = sizes; *z; z = strchr(z, ',') ? strchr(z, ',') + 1 : z + strlen(z))
    if (atoi(z) >= 20)
      small = 0;
  char *blist = strdup(backends);
  for (char *save = NULL, *b = strtok_r(blist, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
    if (!bench_init_backend(b, argc, argv))
      continue;
    int nt = kk_num_threads();
    if (!json)
      fprintf(stderr, "kk-bench: backend %s, %d thread%s\n", b, nt, nt == 1 ? "" : "s");
#ifdef KK_BENCH_CUDA
    if (strcmp(b, "cuda") == 0) {
      if (bench_wants(cases, "stream")) {
        char *slist = strdup(sizes);
        for (char *save2 = NULL, *z = strtok_r(slist, ",", &save2); z; z = strtok_r(NULL, ",", &save2))
          bench_stream_cuda(b, atoi(z));
        free(slist);
      }
      if (bench_wants(cases, "latency"))
        bench_latency_cuda(b);
      bench_hier(b, nt, g_reps, cases, quick, small);
      bench_graph(b, nt, g_reps, cases, quick, small);
      bench_klang(b, nt, g_reps, cases, quick || small);
      kk_finalize();
      continue;
    }
#endif
    if (bench_wants(cases, "stream")) {
      char *slist = strdup(sizes);
      for (char *save2 = NULL, *z = strtok_r(slist, ",", &save2); z; z = strtok_r(NULL, ",", &save2))
        bench_stream(b, atoi(z), nt);
      free(slist);
    }
    if (bench_wants(cases, "latency"))
      bench_latency(b, nt);
    bench_hier(b, nt, g_reps, cases, quick, small);
    bench_graph(b, nt, g_reps, cases, quick, small);
    bench_klang(b, nt, g_reps, cases, quick || small);
    kk_finalize();
  }
  free(blist);
  if (json)
    bench_print_json(stdout);
  else
    bench_print_table(stdout);
  return bench_result_count() ? 0 : 1;
}
