/* bench/kk-bench-algorithms.c -- kk-algorithms against the native side in the same run: hand-written OpenMP, std::sort and __gnu_parallel::sort on host backends; cuRAND and CUB on cuda. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <kk/algorithms.h>

#include "algorithms_native.h"
#include "bench_algorithms.h"
#include "bench_base.h"

/*
 * Each case runs kk and the native side in turn, the best of --reps runs
 * each (after an untimed one), and prints kk / native.  The native side:
 *   fill      a per-thread xorshift64* loop in OpenMP (host; the layout
 *             kk_fill_random uses there), cuRAND's XORWOW and Philox host API
 *             into device memory (cuda)
 *   sort_*    std::sort on one core and __gnu_parallel::sort on kk's thread
 *             count (host; two rows), CUB's DeviceRadixSort (cuda); keys
 *             (uint32, int64) and key-value pairs (uint32/uint32,
 *             int64/int64); kk with a workspace (kk_sort_workspace_bytes),
 *             as CUB with its temporary storage
 *   copy_if   half of uniform doubles kept: a two-pass OpenMP compaction
 *             (host), CUB's DeviceSelect::If (cuda)
 *   binsort   points of [0, 1)^3 into cells: kk_binsort_update + apply
 *             against a hand-written counting sort (per-thread counts in
 *             OpenMP on the host; atomics, CUB's scan, a scatter on cuda)
 *   reduce, count_if, min_element, inclusive_scan: the algorithm against
 *             the same reduction or scan written as a kk kernel (native =
 *             "kk own")
 * The inputs are copied in again before each timed sort (untimed).  Results
 * are compared with the native ones and a mismatch is reported on stderr.
 * Sizes: --full (= --scale=0) takes the sizes of the performance targets
 * (fill 2^28, sorts and copy_if 2^26, binsort 10^7 points into 64^3
 * cells); --scale=S divides them by 2^S (binsort: the cells by 2^(S/3)
 * along each axis, so that a cell keeps about as many points); the default
 * is --scale=4, a smoke run.  --rows (or --cases) picks the rows.  Each row
 * is printed (and flushed) as soon as it is measured, with the seconds the
 * backend has run so far.  Rows only: no timing decides anything.
 */

const char bench_program[] = "kk-bench-algorithms";

static int g_reps = 5, g_scale = 4, g_nrows;
static double g_t0; /* when the backend's cases began */

/* one row, printed and flushed at once (a run cut short by a time limit keeps its rows) */
static void add_row(const char *kcase, const char *side, const char *backend, const char *size, double kk,
                    double native, const char *unit) {
  if (g_nrows++ == 0)
    printf("%-14s %-20s %-8s %-16s %12s %12s %-9s %9s %7s\n", "case", "side", "backend", "size", "kk", "native",
           "unit", "kk/native", "at_s");
  printf("%-14s %-20s %-8s %-16s %12.3f %12.3f %-9s %9.3f %7.1f\n", kcase, side, backend, size, kk, native, unit,
         native > 0 ? kk / native : 0.0, bench_now() - g_t0);
  fflush(stdout);
}

/* the other side's spinning threads go to sleep (libgomp spins for some ms after a region): 20 ms on host backends */
static void settle(int gpu) {
  if (!gpu)
    bench_rest(20, 20);
}

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd64(void) { return bench_xorshift64(&g_rng); }

/* a rank-1 view of n elements of `type` in the default space with a copy of host data (NULL: zeros) */
static kk_view_t *view_of(const char *label, kk_type_t type, int64_t n, const void *data) {
  kk_view_t *v, *m;
  CHECK(kk_view_alloc(&v, label, type, 1, &n));
  if (data) {
    CHECK(kk_view_create_mirror(v, &m));
    memcpy(kk_view_data(m), data, kk_view_size(v) * kk_view_elem_size(v));
    CHECK(kk_deep_copy(v, m));
    kk_view_release(m);
  }
  return v;
}
static void view_get(kk_view_t *v, void *out) {
  kk_view_t *m;
  CHECK(kk_fence());
  CHECK(kk_view_create_mirror(v, &m));
  CHECK(kk_deep_copy(m, v));
  memcpy(out, kk_view_data(m), kk_view_size(v) * kk_view_elem_size(v));
  kk_view_release(m);
}

static void compare(const char *what, const char *backend, double kk, double native, double tol) {
  if (!(fabs(kk - native) <= tol * (fabs(native) + 1.0)))
    fprintf(stderr, "kk-bench-algorithms: %s on %s: kk %.15g, native %.15g\n", what, backend, kk, native);
}

/* ---- the host's native sides ---------------------------------------------------------------------- */

static uint64_t xs64(uint64_t *x) {
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1Dull;
}
/* n doubles in [0, 1), thread t a contiguous block from its own state (kk_fill_random's host layout) */
static void native_fill(double *a, int64_t n, int nt, const uint64_t *seeds) {
#pragma omp parallel num_threads(nt)
  {
#ifdef _OPENMP
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
    const int t = 0, T = 1;
#endif
    const int64_t per = (n + T - 1) / T, b = t * per, e = b + per < n ? b + per : n;
    uint64_t x = seeds[t];
    for (int64_t i = b; i < e; i++)
      a[i] = (double)(xs64(&x) >> 11) * 0x1.0p-53;
  }
}
/* the doubles below t: per-thread counts, their prefix, the copies */
static int64_t native_copy_if(const double *x, double *y, int64_t n, double t, int nt, int64_t *offs) {
  int64_t total = 0;
#pragma omp parallel num_threads(nt)
  {
#ifdef _OPENMP
    const int id = omp_get_thread_num(), T = omp_get_num_threads();
#else
    const int id = 0, T = 1;
#endif
    const int64_t per = (n + T - 1) / T, b = id * per, e = b + per < n ? b + per : n;
    int64_t c = 0;
    for (int64_t i = b; i < e; i++)
      c += x[i] < t;
    offs[id + 1] = c;
#pragma omp barrier
#pragma omp single
    {
      offs[0] = 0;
      for (int k = 0; k < T; k++)
        offs[k + 1] += offs[k];
      total = offs[T];
    }
    int64_t at = offs[id];
    for (int64_t i = b; i < e; i++)
      if (x[i] < t)
        y[at++] = x[i];
  }
  return total;
}
/* points (n x 3, row-major) sorted into nc^3 cells: per-thread counts, offsets per cell and thread, the
 * scatter into q, the copy back */
static void native_counting_sort(double *p, double *q, int64_t n, int64_t nc, int nt, uint32_t *cell, int64_t *cnt) {
  const int64_t cells = nc * nc * nc;
#pragma omp parallel num_threads(nt)
  {
#ifdef _OPENMP
    const int id = omp_get_thread_num(), T = omp_get_num_threads();
#else
    const int id = 0, T = 1;
#endif
    const int64_t per = (n + T - 1) / T, b = id * per, e = b + per < n ? b + per : n;
    int64_t *mine = cnt + (int64_t)id * cells;
    memset(mine, 0, (size_t)cells * 8);
    for (int64_t i = b; i < e; i++) {
      int64_t c[3];
      for (int d = 0; d < 3; d++) {
        const int64_t k = (int64_t)(p[3 * i + d] * (double)nc);
        c[d] = k < 0 ? 0 : k >= nc ? nc - 1 : k;
      }
      cell[i] = (uint32_t)(c[0] + nc * (c[1] + nc * c[2]));
      mine[cell[i]]++;
    }
#pragma omp barrier
    /* each thread a range of cells: the offsets of every thread's share of them, after a prefix of the
     * ranges' totals */
    const int64_t cper = (cells + T - 1) / T, cb = id * cper, ce = cb + cper < cells ? cb + cper : cells;
    int64_t run = 0;
    for (int64_t k = cb; k < ce; k++)
      for (int u = 0; u < T; u++)
        run += cnt[(int64_t)u * cells + k];
    cnt[(int64_t)T * cells + id] = run; /* the range's total, past the counts */
#pragma omp barrier
    int64_t base = 0;
    for (int u = 0; u < id; u++)
      base += cnt[(int64_t)T * cells + u];
    for (int64_t k = cb; k < ce; k++)
      for (int u = 0; u < T; u++) {
        const int64_t c = cnt[(int64_t)u * cells + k];
        cnt[(int64_t)u * cells + k] = base;
        base += c;
      }
#pragma omp barrier
    for (int64_t i = b; i < e; i++) {
      const int64_t at = mine[cell[i]]++;
      q[3 * at] = p[3 * i];
      q[3 * at + 1] = p[3 * i + 1];
      q[3 * at + 2] = p[3 * i + 2];
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (int64_t i = 0; i < 3 * n; i++)
      p[i] = q[i];
  }
}

/* ---- timing --------------------------------------------------------------------------------------- */

/* best seconds of reps runs of kk's side after an untimed one; prep (untimed) before each */
typedef void (*fn_t)(void *ctx);
static double time_kk(fn_t prep, fn_t run, void *ctx, int gpu) {
  double best = 1e30;
  for (int r = -1; r < g_reps; r++) {
    if (prep)
      prep(ctx);
    CHECK(kk_fence());
    settle(gpu);
    const double t0 = bench_now();
    run(ctx);
    CHECK(kk_fence());
    const double dt = bench_now() - t0;
    if (r >= 0 && dt < best)
      best = dt;
  }
  return best;
}

typedef struct ctx {
  kk_view_t *a, *b, *c, *ws, *orig_k, *orig_v;
  kk_random_pool_t *pool;
  kk_binsort_t *bs;
  double *h, *h2;
  int64_t n, result;
  int kind;
  double dres;
} ctx_t;

static void run_fill(void *p) {
  ctx_t *c = p;
  CHECK(kk_fill_random(NULL, c->a, c->pool, 0.0, 1.0));
}
static void sort_prep(void *p) {
  ctx_t *c = p;
  CHECK(kk_deep_copy(c->a, c->orig_k));
  if (c->orig_v)
    CHECK(kk_deep_copy(c->b, c->orig_v));
}
static void kk_sort_run(void *p) {
  ctx_t *c = p;
  kk_sort_options_t o = KK_SORT_OPTIONS_INIT;
  o.workspace = c->ws;
  CHECK(kk_sort_ex(NULL, c->a, c->orig_v ? c->b : NULL, &o));
}
static void kk_copy_if_run(void *p) {
  ctx_t *c = p;
  const double half = 0.5;
  CHECK(kk_copy_if(NULL, c->a, c->b, kk_pred_cmp(KK_CMP_LT, &half), &c->result));
}
static void kk_binsort_run(void *p) {
  ctx_t *c = p;
  CHECK(kk_binsort_update(c->bs));
  CHECK(kk_binsort_apply(c->bs, c->a, 0));
}
static void binsort_prep(void *p) {
  ctx_t *c = p;
  CHECK(kk_deep_copy(c->a, c->orig_k));
}

/* ---- cases ------------------------------------------------------------------------------------------ */

static void bench_backend(const char *backend, const char *cases) {
  const int cuda = strcmp(backend, "cuda") == 0, host = strcmp(kk_backend_default(), kk_backend_host()) == 0;
  const int nt = kk_num_threads();
  char size[32];
  ctx_t c;
#define WANT(name) (strcmp(cases, "all") == 0 || strstr(cases, name))

  if (WANT("fill") && (host || cuda)) {
    const int lg = 28 - g_scale;
    const int64_t n = (int64_t)1 << lg;
    snprintf(size, sizeof size, "2^%d doubles", lg);
    memset(&c, 0, sizeof c);
    c.a = view_of("r", KK_DOUBLE, n, NULL);
    double tn = 0; /* host: the loop's time, measured once (the philox row is against it too) */
    for (int kind = 0; kind < 2; kind++) { /* xorshift64, philox */
      CHECK(kk_random_pool_create(NULL, kind ? KK_RANDOM_PHILOX : KK_RANDOM_XORSHIFT64, 2024, 0, &c.pool));
      const double tk = time_kk(NULL, run_fill, &c, !host);
      double sum = 0;
      double *h = malloc((size_t)n * 8);
      view_get(c.a, h);
      for (int64_t i = 0; i < n; i++)
        sum += h[i];
      if (fabs(sum / (double)n - 0.5) > 0.01)
        fprintf(stderr, "kk-bench-algorithms: fill on %s: mean %g\n", backend, sum / (double)n);
      double chk = 0;
      const char *side = kind ? "philox vs xs loop" : "xorshift64 vs loop";
      if (host && !kind) {
        uint64_t *seeds = malloc((size_t)nt * 8);
        for (int t = 0; t < nt; t++)
          seeds[t] = 0x9E3779B97F4A7C15ull * (uint64_t)(t + 1);
        tn = 1e30;
        for (int r = -1; r < g_reps; r++) {
          settle(0);
          const double t0 = bench_now();
          native_fill(h, n, nt, seeds);
          const double dt = bench_now() - t0;
          if (r >= 0 && dt < tn)
            tn = dt;
        }
        free(seeds);
      }
#ifdef KK_BENCH_CUDA
      if (cuda) {
        tn = kab_cu_curand(kind, n, g_reps, &chk);
        compare(kind ? "fill mean (philox / cuRAND)" : "fill mean (xorshift / XORWOW)", backend, 0.5, chk, 0.01);
        side = kind ? "philox vs cuRAND" : "xorshift vs XORWOW";
      }
#endif
      (void)chk;
      free(h);
      add_row("fill", side, backend, size, 8e-9 * (double)n / tk, tn > 0 ? 8e-9 * (double)n / tn : 0, "GB/s");
      kk_random_pool_destroy(c.pool);
    }
    kk_view_release(c.a);
  }

  static const char *const sort_names[4] = {"sort_u32", "sort_i64", "pairs_u32", "pairs_i64"};
  for (int kind = 0; kind < 4; kind++) {
    if (!WANT(sort_names[kind]) && !WANT("sort"))
      continue;
    const int lg = 26 - g_scale;
    const int64_t n = (int64_t)1 << lg;
    const int wide = kind & 1, pairs = kind >= 2;
    const kk_type_t kt = wide ? KK_INT64 : KK_UINT32;
    const size_t ks = wide ? 8 : 4;
    snprintf(size, sizeof size, "2^%d", lg);
    void *hk = malloc((size_t)n * ks), *hv = pairs ? malloc((size_t)n * ks) : NULL;
    for (int64_t i = 0; i < n; i++) {
      const uint64_t r = rnd64();
      if (wide)
        ((int64_t *)hk)[i] = (int64_t)r;
      else
        ((uint32_t *)hk)[i] = (uint32_t)(r >> 32);
      if (pairs) {
        if (wide)
          ((int64_t *)hv)[i] = i;
        else
          ((uint32_t *)hv)[i] = (uint32_t)i;
      }
    }
    memset(&c, 0, sizeof c);
    c.orig_k = view_of("keys (input)", kt, n, hk);
    c.a = view_of("keys", kt, n, NULL);
    if (pairs) {
      c.orig_v = view_of("values (input)", kt, n, hv);
      c.b = view_of("values", kt, n, NULL);
    }
    int64_t wb = (int64_t)kk_sort_workspace_bytes(NULL, n, ks, pairs ? ks : 0);
    CHECK(kk_view_alloc(&c.ws, "sort workspace", KK_UINT8, 1, &wb));
    const double tk = time_kk(sort_prep, kk_sort_run, &c, !host);
    /* kk's result, checked: the sum of key[i] * (i % 7) */
    void *out = malloc((size_t)n * ks);
    view_get(c.a, out);
    double chk = 0;
    for (int64_t i = 0; i < n; i++)
      chk += (wide ? (double)((int64_t *)out)[i] : (double)((uint32_t *)out)[i]) * (double)(i % 7);
    const double mk = 1e-6 * (double)n;
    if (host) {
      /* the native sorts run on an array of {key, value} structs for pairs */
      const size_t es = pairs ? 2 * ks : ks;
      char *arr = malloc((size_t)n * es);
      double t1 = 1e30, tp = 1e30;
      for (int side = 0; side < 2; side++) {
        const int reps = side == 0 ? 1 : g_reps; /* std::sort on one core: one run (minutes at 2^26 otherwise) */
        for (int r = 0; r < reps; r++) {
#pragma omp parallel for num_threads(nt) schedule(static)
          for (int64_t i = 0; i < n; i++) {
            memcpy(arr + (size_t)i * es, (char *)hk + (size_t)i * ks, ks);
            if (pairs)
              memcpy(arr + (size_t)i * es + ks, (char *)hv + (size_t)i * ks, ks);
          }
          settle(0);
          const double t = side == 0 ? kab_std_sort(kind, arr, n) : kab_gnu_parallel_sort(kind, arr, n, nt);
          if (side == 0 && t < t1)
            t1 = t;
          if (side == 1 && t < tp)
            tp = t;
        }
      }
      double nchk = 0;
      for (int64_t i = 0; i < n; i++) {
        const char *e = arr + (size_t)i * es;
        nchk += (wide ? (double)*(const int64_t *)e : (double)*(const uint32_t *)e) * (double)(i % 7);
      }
      compare(sort_names[kind], backend, chk, nchk, 1e-9);
      free(arr);
      add_row(sort_names[kind], "vs std::sort 1 core", backend, size, mk / tk, mk / t1, "Mkeys/s");
      add_row(sort_names[kind], "vs gnu parallel", backend, size, mk / tk, mk / tp, "Mkeys/s");
    }
#ifdef KK_BENCH_CUDA
    if (cuda) {
      double nchk = 0;
      const double tn = kab_cu_radix_sort(kind, hk, n, g_reps, &nchk);
      compare(sort_names[kind], backend, chk, nchk, 1e-9);
      add_row(sort_names[kind], "vs CUB radix", backend, size, mk / tk, tn > 0 ? mk / tn : 0, "Mkeys/s");
    }
#endif
    if (!host && !cuda)
      add_row(sort_names[kind], "kk only", backend, size, mk / tk, 0, "Mkeys/s");
    free(out);
    free(hk);
    free(hv);
    kk_view_release(c.orig_k);
    kk_view_release(c.orig_v);
    kk_view_release(c.a);
    kk_view_release(c.b);
    kk_view_release(c.ws);
  }

  if (WANT("copy_if")) {
    const int lg = 26 - g_scale;
    const int64_t n = (int64_t)1 << lg;
    snprintf(size, sizeof size, "2^%d doubles", lg);
    double *hx = malloc((size_t)n * 8), *hy = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++)
      hx[i] = (double)(rnd64() >> 11) * 0x1.0p-53;
    memset(&c, 0, sizeof c);
    c.a = view_of("x", KK_DOUBLE, n, hx);
    c.b = view_of("y", KK_DOUBLE, n, NULL);
    const double tk = time_kk(NULL, kk_copy_if_run, &c, !host);
    /* bytes: every element read, the kept ones written */
    const double gb = 1e-9 * 8.0 * (double)(n + c.result);
    double tn = 0, nchk = -1;
    if (host) {
      int64_t *offs = malloc(((size_t)nt + 2) * 8);
      tn = 1e30;
      for (int r = -1; r < g_reps; r++) {
        settle(0);
        const double t0 = bench_now();
        nchk = (double)native_copy_if(hx, hy, n, 0.5, nt, offs);
        const double dt = bench_now() - t0;
        if (r >= 0 && dt < tn)
          tn = dt;
      }
      free(offs);
    }
#ifdef KK_BENCH_CUDA
    if (cuda)
      tn = kab_cu_select(hx, n, 0.5, g_reps, &nchk);
#endif
    if (nchk >= 0)
      compare("copy_if", backend, (double)c.result, nchk, 1e-9);
    add_row("copy_if", host ? "vs OpenMP" : cuda ? "vs CUB select" : "kk only", backend, size, gb / tk,
            tn > 0 ? gb / tn : 0, "GB/s");
    kk_view_release(c.a);
    kk_view_release(c.b);
    free(hx);
    free(hy);
  }

  if (WANT("binsort")) {
    /* 10^7 points into 64^3 cells at --full; a cell keeps about 38 points at every scale */
    const int64_t n = 10000000 >> g_scale, nc = (int64_t)(64.0 / pow(2.0, g_scale / 3.0) + 0.5);
    snprintf(size, sizeof size, "%lldk in %lld^3", (long long)(n / 1000), (long long)nc);
    double *hp = malloc((size_t)n * 24);
    for (int64_t i = 0; i < 3 * n; i++)
      hp[i] = (double)(rnd64() >> 11) * 0x1.0p-53;
    /* an n x 3 view laid out like the native side's array (row-major) */
    kk_view_spec_t sp = KK_VIEW_SPEC_INIT;
    sp.label = "points";
    sp.rank = 2;
    sp.extents[0] = n;
    sp.extents[1] = 3;
    sp.layout = KK_LAYOUT_RIGHT;
    memset(&c, 0, sizeof c);
    CHECK(kk_view_create(&sp, &c.a));
    sp.label = "points (input)";
    CHECK(kk_view_create(&sp, &c.orig_k));
    kk_view_t *m;
    CHECK(kk_view_create_mirror(c.orig_k, &m));
    memcpy(kk_view_data(m), hp, (size_t)n * 24);
    CHECK(kk_deep_copy(c.orig_k, m));
    CHECK(kk_deep_copy(c.a, c.orig_k));
    const int64_t nb[3] = {nc, nc, nc};
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    CHECK(kk_binsort_create_3d(NULL, c.a, nb, lo, hi, 0, &c.bs));
    const double tk = time_kk(binsort_prep, kk_binsort_run, &c, !host);
    CHECK(kk_deep_copy(m, c.a));
    double chk = 0, nchk = 0, tn = 0;
    const double *kp = kk_view_data(m);
    for (int64_t i = 0; i < n; i++)
      chk += kp[3 * i] * (double)(i % 7);
    if (host) {
      double *hq = malloc((size_t)n * 24), *hw = malloc((size_t)n * 24);
      uint32_t *cell = malloc((size_t)n * 4);
      int64_t *cnt = malloc(((size_t)nt * (size_t)(nc * nc * nc) + (size_t)nt + 1) * 8);
      tn = 1e30;
      for (int r = -1; r < g_reps; r++) {
        memcpy(hw, hp, (size_t)n * 24);
        settle(0);
        const double t0 = bench_now();
        native_counting_sort(hw, hq, n, nc, nt, cell, cnt);
        const double dt = bench_now() - t0;
        if (r >= 0 && dt < tn)
          tn = dt;
      }
      for (int64_t i = 0; i < n; i++)
        nchk += hw[3 * i] * (double)(i % 7);
      free(hq);
      free(hw);
      free(cell);
      free(cnt);
    }
#ifdef KK_BENCH_CUDA
    if (cuda)
      tn = kab_cu_counting_sort(hp, n, nc, g_reps, &nchk);
#endif
    /* the order within a cell differs with atomics: the check is exact on host backends only */
    if (host)
      compare("binsort", backend, chk, nchk, 1e-9);
    const double mp = 1e-6 * (double)n;
    add_row("binsort", host ? "vs OpenMP counting" : cuda ? "vs CUDA counting" : "kk only", backend, size, mp / tk,
            tn > 0 ? mp / tn : 0, "Mpoints/s");
    kk_view_release(m);
    kk_binsort_destroy(c.bs);
    kk_view_release(c.a);
    kk_view_release(c.orig_k);
    free(hp);
  }

  /* the algorithms that are reductions and scans, against the same written as a kk kernel */
  if (WANT("reduce") || WANT("count_if") || WANT("min_element") || WANT("inclusive_scan")) {
    const int lg = 26 - g_scale;
    const int64_t n = (int64_t)1 << lg;
    snprintf(size, sizeof size, "2^%d doubles", lg);
    double *hx = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++)
      hx[i] = (double)(rnd64() >> 11) * 0x1.0p-53;
    kk_view_t *x = view_of("x", KK_DOUBLE, n, hx), *y = view_of("y", KK_DOUBLE, n, NULL);
    struct kab_args a = {kk_view_bind(x), kk_view_bind(y), 0.5};
    const double gb = 8e-9 * (double)n;
    for (int which = 0; which < 4; which++) {
      static const char *const names[4] = {"reduce", "count_if", "min_element", "inclusive_scan"};
      if (!WANT(names[which]))
        continue;
      double best[2] = {1e30, 1e30}, res[2] = {0, 0};
      for (int r = -1; r < g_reps; r++)
        for (int side = 0; side < 2; side++) {
          settle(!host);
          const double t0 = bench_now();
          const double half = 0.5;
          double s = 0;
          int64_t k = 0;
          kk_valloc_double ml;
          if (which == 0) {
            if (side == 0)
              CHECK(kk_reduce(NULL, x, KK_SUM, &s));
            else
              CHECK(kk_parallel_reduce("sum", KK_RANGE(0, n), KK_KERNEL(kab_sum), KK_ARGS(a), KK_RESULT(s)));
            res[side] = s;
          } else if (which == 1) {
            if (side == 0)
              CHECK(kk_count_if(NULL, x, kk_pred_cmp(KK_CMP_LT, &half), &k));
            else
              CHECK(kk_parallel_reduce("count", KK_RANGE(0, n), KK_KERNEL(kab_count), KK_ARGS(a), KK_RESULT(k)));
            res[side] = (double)k;
          } else if (which == 2) {
            if (side == 0)
              CHECK(kk_min_element(NULL, x, &k));
            else {
              CHECK(kk_parallel_reduce("minloc", KK_RANGE(0, n), KK_KERNEL(kab_minloc), KK_ARGS(a), KK_RESULT(ml)));
              k = ml.loc;
            }
            res[side] = (double)k;
          } else {
            if (side == 0)
              CHECK(kk_inclusive_scan(NULL, x, y));
            else
              CHECK(kk_parallel_scan("scan", KK_RANGE(0, n), KK_KERNEL(kab_scan), KK_ARGS(a), NULL, 0));
            CHECK(kk_fence());
          }
          const double dt = bench_now() - t0;
          if (r >= 0 && dt < best[side])
            best[side] = dt;
        }
      if (which < 3 && fabs(res[0] - res[1]) > 1e-9 * (fabs(res[1]) + 1))
        fprintf(stderr, "kk-bench-algorithms: %s on %s: %.15g, kk own %.15g\n", names[which], backend, res[0], res[1]);
      const double bytes = which == 3 ? 2 * gb : gb;
      add_row(names[which], "vs kk own kernel", backend, size, bytes / best[0], bytes / best[1], "GB/s");
    }
    kk_view_release(x);
    kk_view_release(y);
    free(hx);
  }
#undef WANT
}

static void usage(void) {
  fprintf(stderr, "usage: kk-bench-algorithms [--backends=serial,threads,openmp,cuda] [--rows=all|fill,sort,sort_u32,"
                  "sort_i64,pairs_u32,pairs_i64,copy_if,binsort,reduce,count_if,min_element,inclusive_scan] "
                  "[--full | --scale=S] [--reps=N] [--kokkos-*...]\n"
                  "  --full: the sizes of the targets (fill 2^28, sorts and copy_if 2^26, binsort 10^7 in 64^3);\n"
                  "  --scale=S: those divided by 2^S (default 4); --rows is --cases\n");
}

int main(int argc, char **argv) {
  const char *backends = "serial,threads,openmp", *cases = "all";
  const bench_option_t options[] = {
      BENCH_OPT_STRING("--backends=", &backends),
      BENCH_OPT_STRING("--cases=", &cases),
      BENCH_OPT_STRING("--rows=", &cases),
      BENCH_OPT_FLAG("--full", &g_scale, 0),
      BENCH_OPT_INT("--scale=", &g_scale, BENCH_RANGE, 0, 12),
      BENCH_OPT_INT("--reps=", &g_reps, BENCH_AT_LEAST, 1, 0),
      {0},
  };
  if (!bench_options(argc, argv, options, 1)) { /* --kokkos-* are read by kk_initialize_ex below */
    usage();
    return 2;
  }
  char *blist = strdup(backends);
  for (char *save = NULL, *b = strtok_r(blist, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
    if (!bench_init_backend(b, argc, argv))
      continue;
    fprintf(stderr, "kk-bench-algorithms: backend %s, %d host thread%s\n", b, kk_num_threads(),
            kk_num_threads() == 1 ? "" : "s");
    g_t0 = bench_now();
    bench_backend(b, cases);
    fprintf(stderr, "kk-bench-algorithms: backend %s: %.1f s\n", b, bench_now() - g_t0);
    kk_finalize();
  }
  free(blist);
  return g_nrows ? 0 : 1;
}
