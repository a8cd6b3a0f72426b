/* bench/kk-bench-hier.c -- the Kokkos 3 paper's benchmarks (Tables 1-5) against hand-written OpenMP, in kk-bench. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_common.h"
#include "bench_hier.h"
#include "kk-bench-hier.h"
#ifdef KK_BENCH_CUDA
#include "native_cuda.h"
#endif

static kk_view_t *view(const char *label, kk_type_t t, int rank, const int64_t *ext) {
  kk_view_t *v;
  CHECK(kk_view_alloc(&v, label, t, rank, ext));
  return v;
}

/* A view in LayoutRight whatever the backend's default (a GPU backend defaults to LayoutLeft): the batched kernel
 * puts a team on each matrix and its lanes along a row, which wants rows contiguous; its hand-written versions
 * index the same row-major data. */
static kk_view_t *view_right(const char *label, kk_type_t t, int rank, const int64_t *ext) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = t;
  s.rank = rank;
  for (int d = 0; d < rank; d++)
    s.extents[d] = ext[d];
  s.layout = KK_LAYOUT_RIGHT;
  kk_view_t *v;
  CHECK(kk_view_create(&s, &v));
  return v;
}

/* Best of `reps` timed runs of `expr`. */
#define BEST(reps, expr)                    \
  ({                                        \
    double best_ = 1e30;                    \
    for (int r_ = 0; r_ < (reps); r_++) {   \
      double t0_ = bench_now();             \
      expr;                                 \
      double t_ = bench_now() - t0_;        \
      if (t_ < best_)                       \
        best_ = t_;                         \
    }                                       \
    best_;                                  \
  })

/* On a GPU backend the native side is hand-written CUDA (bench/native_cuda.cu), which times itself: `native_time`
 * is an expression giving seconds.  kk's launches end with a fence. */
#define DUEL_GPU(reps, tk, tn, kk_expr, native_time)  \
  do {                                                \
    tk = tn = 1e30;                                   \
    for (int round_ = 0; round_ < 2; round_++) {      \
      double t1_ = BEST(reps, kk_expr; CHECK(kk_fence())); \
      tk = t1_ < tk ? t1_ : tk;                       \
      double t2_ = (native_time);                     \
      tn = t2_ > 0 && t2_ < tn ? t2_ : tn;            \
    }                                                 \
  } while (0)

#ifndef KK_BENCH_CUDA
#define ncu_tensor(...) -1.0
#define ncu_atomics(...) -1.0
#define ncu_min_sum(...) -1.0
#define ncu_batched(...) -1.0
#define ncu_cg(...) -1.0
#endif

static double *dalloc(size_t n) {
  double *p = aligned_alloc(64, (n * sizeof(double) + 63) & ~(size_t)63);
  if (!p) {
    fprintf(stderr, "kk-bench: out of memory\n");
    exit(1);
  }
  return p;
}

/* ---- Table 4: tensor add -------------------------------------------------------------- */

static void native_outer(double *na, const double *nb, int64_t n, int nt) {
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      for (int64_t k = 0; k < n; k++)
        na[(i * n + j) * n + k] += nb[(i * n + j) * n + k];
}

static void native_flat(double *na, const double *nb, int64_t n, int nt) {
  const int64_t n3 = n * n * n;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t ii = 0; ii < n3; ii++) {
    const int64_t i = ii / (n * n), j = (ii / n) % n, k = ii % n;
    na[(i * n + j) * n + k] += nb[(i * n + j) * n + k];
  }
}

/* the OpenMP counterpart of an MDRange: collapse the outer two loops */
static void native_md(double *na, const double *nb, int64_t n, int nt) {
#pragma omp parallel for collapse(2) num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      for (int64_t k = 0; k < n; k++)
        na[(i * n + j) * n + k] += nb[(i * n + j) * n + k];
}

static void bench_tensor(const char *backend, int nt, int reps) {
  const int64_t n = 200, n3 = n * n * n;
  const int64_t ext[3] = {n, n, n};
  const double bytes = 3.0 * 8.0 * (double)n3;
  /* On the host the sides take turns at allocating first as well (see
   * bench_stream in kk-bench.c), each keeping its best over both rounds. */
  const int rounds = ON_GPU(backend) ? 1 : 2, per_round = ON_GPU(backend) ? reps : (reps + 1) / 2;
  double best[3][2] = {{1e30, 1e30}, {1e30, 1e30}, {1e30, 1e30}}; /* [outer, flat, MDRange][kk, native] */
  for (int round = 0; round < rounds; round++) {
    kk_view_t *a = NULL, *b = NULL;
    double *na = NULL, *nb = NULL;
    for (int side = 0; side < 2; side++) {
      if (side == round) {
        a = view("A", KK_DOUBLE, 3, ext), b = view("B", KK_DOUBLE, 3, ext);
      } else {
        na = dalloc((size_t)n3), nb = dalloc((size_t)n3);
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t i = 0; i < n; i++)
          for (int64_t jk = 0; jk < n * n; jk++)
            na[i * n * n + jk] = 0.0, nb[i * n * n + jk] = 1.0;
      }
    }
    /* the backend's default layout (LayoutLeft on GPUs): the native side indexes the same way */
    const int left = kk_view_layout(a) == KK_LAYOUT_LEFT;
    (void)left;
    double one = 1.0;
    CHECK(kk_deep_copy_fill(b, &one));
    struct tensor_args ta = {kk_view_bind(a), kk_view_bind(b), n};
    double tk, tn;
    /* one way of adding, against ncu_tensor(way, ...) on a GPU and native_call on the host */
#define TENSOR_WAY(way, launch, native_call)                                            \
  do {                                                                                  \
    if (ON_GPU(backend))                                                                \
      DUEL_GPU(per_round, tk, tn, CHECK(launch), ncu_tensor(way, n, per_round, left));   \
    else                                                                                \
      DUEL(per_round, tk, tn, CHECK(launch), native_call);                              \
    best[way][0] = fmin(best[way][0], tk), best[way][1] = fmin(best[way][1], tn);       \
  } while (0)
    TENSOR_WAY(0, kk_parallel_for("outer", KK_RANGE(0, n), KK_KERNEL(tensor_outer), KK_ARGS(ta)),
               native_outer(na, nb, n, nt));
    TENSOR_WAY(1, kk_parallel_for("flat", KK_RANGE(0, n3), KK_KERNEL(tensor_flat), KK_ARGS(ta)),
               native_flat(na, nb, n, nt));
    TENSOR_WAY(2, kk_parallel_for_md("md", KK_MD3(n, n, n), KK_KERNEL(tensor_md), KK_ARGS(ta)),
               native_md(na, nb, n, nt));
#undef TENSOR_WAY
    free(na), free(nb);
    kk_view_release(a), kk_view_release(b);
  }
  const char *names[3] = {"tensor add outer", "tensor add flat", "tensor add MDRange"};
  for (int c = 0; c < 3; c++)
    bench_record(names[c], backend, "200^3", bytes / best[c][0] * 1e-9, bytes / best[c][1] * 1e-9, "GB/s", 0);
}

/* ---- Tables 2 and 3: scatter-add, atomics and ScatterView --------------------------------- */

typedef struct { float re, im; } cf_t;
typedef struct { double re, im; } cd_t;

static void native_atomic_cf(cf_t *p, cf_t v) {
  union { cf_t c; uint64_t u; } o, n;
  o.u = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED);
  do {
    n.c.re = o.c.re + v.re;
    n.c.im = o.c.im + v.im;
  } while (!__atomic_compare_exchange_n((uint64_t *)p, &o.u, n.u, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static void native_atomic_cd(cd_t *p, cd_t v) {
#if defined(__GCC_HAVE_SYNC_COMPARE_AND_SWAP_16) && defined(__SIZEOF_INT128__)
  union { cd_t c; unsigned __int128 u; } o, n;
  o.c = *(volatile cd_t *)p;
  for (;;) {
    n.c.re = o.c.re + v.re;
    n.c.im = o.c.im + v.im;
    unsigned __int128 seen = __sync_val_compare_and_swap((unsigned __int128 *)p, o.u, n.u);
    if (seen == o.u)
      return;
    o.u = seen;
  }
#else
#pragma omp critical(kk_bench_cd)
  {
    p->re += v.re;
    p->im += v.im;
  }
#endif
}

static void native_atomics(int t, void *ng, const int32_t *pi, int64_t updates, int nt) {
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t u = 0; u < updates; u++) {
    const int32_t c = pi[u];
    if (t == 0) {
#pragma omp atomic
      ((int32_t *)ng)[c] += 1;
    } else if (t == 1) {
#pragma omp atomic
      ((double *)ng)[c] += 1.0;
    } else if (t == 2)
      native_atomic_cf(&((cf_t *)ng)[c], (cf_t){1.0f, 0.5f});
    else
      native_atomic_cd(&((cd_t *)ng)[c], (cd_t){1.0, 0.5});
  }
}

/* ScatterView by hand: a private copy per thread, summed at the end */
static void native_duplicated(int t, void *ng, void *dup, const int32_t *pi, int64_t updates, int64_t cells,
                              size_t esz, int nt) {
#pragma omp parallel num_threads(nt)
  {
#ifdef _OPENMP
    const int me = omp_get_thread_num(), T = omp_get_num_threads();
#else
    const int me = 0, T = 1;
#endif
    char *mine = (char *)dup + (size_t)me * (size_t)cells * esz;
    memset(mine, 0, (size_t)cells * esz);
    int64_t q = updates / T, r = updates % T, b = me * q + (me < r ? me : r), e = b + q + (me < r ? 1 : 0);
    for (int64_t u = b; u < e; u++) {
      const int32_t c = pi[u];
      if (t == 0)
        ((int32_t *)mine)[c] += 1;
      else if (t == 1)
        ((double *)mine)[c] += 1.0;
      else if (t == 2)
        ((cf_t *)mine)[c].re += 1.0f, ((cf_t *)mine)[c].im += 0.5f;
      else
        ((cd_t *)mine)[c].re += 1.0, ((cd_t *)mine)[c].im += 0.5;
    }
  }
  for (int d = 0; d < nt; d++)
    for (int64_t c = 0; c < cells; c++) {
      char *s = (char *)dup + ((size_t)d * (size_t)cells + (size_t)c) * esz;
      if (t == 0)
        ((int32_t *)ng)[c] += *(int32_t *)s;
      else if (t == 1)
        ((double *)ng)[c] += *(double *)s;
      else if (t == 2)
        ((cf_t *)ng)[c].re += ((cf_t *)s)->re, ((cf_t *)ng)[c].im += ((cf_t *)s)->im;
      else
        ((cd_t *)ng)[c].re += ((cd_t *)s)->re, ((cd_t *)ng)[c].im += ((cd_t *)s)->im;
    }
}

static void bench_scatter(const char *backend, int nt, int reps, int64_t updates) {
  const int64_t cells = 20 * 20 * 20;
  kk_view_t *idx = view("idx", KK_INT32, 1, &updates), *hidx;
  CHECK(kk_view_create_mirror_view(idx, &hidx));
  int32_t *pi = kk_view_data(hidx);
  uint64_t x = 0x2545F4914F6CDD1Dull;
  for (int64_t u = 0; u < updates; u++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    pi[u] = (int32_t)(x % (uint64_t)cells);
  }
  CHECK(kk_deep_copy(idx, hidx));
  const char *names[4] = {"int", "double", "complex<float>", "complex<double>"};
  const kk_type_t types[4] = {KK_INT32, KK_DOUBLE, KK_COMPLEX_FLOAT, KK_COMPLEX_DOUBLE};
  const kk_kernel_t *atomic_k[4] = {KK_KERNEL(atomic_add_int), KK_KERNEL(atomic_add_double),
                                    KK_KERNEL(atomic_add_cfloat), KK_KERNEL(atomic_add_cdouble)};
  const kk_kernel_t *sv_k[4] = {KK_KERNEL(sv_add_int), KK_KERNEL(sv_add_double), KK_KERNEL(sv_add_cfloat),
                                KK_KERNEL(sv_add_cdouble)};
  const size_t sizes[4] = {4, 8, 8, 16};
  for (int t = 0; t < 4; t++) {
    kk_view_t *grid = view("grid", types[t], 1, &cells);
    kk_scatter_view_t *sv;
    CHECK(kk_scatter_view_create(grid, KK_SCATTER_SUM, KK_SCATTER_AUTO, &sv));
    struct scatter_bench_args a = {kk_view_bind(grid), kk_view_bind(idx), kk_scatter_bind(sv)};
    void *ng = aligned_alloc(64, (size_t)cells * 16);
    memset(ng, 0, (size_t)cells * 16);
    /* per-thread copies for the native ScatterView equivalent */
    void *dup = aligned_alloc(64, (size_t)cells * 16 * (size_t)nt);
    double tk, tn;
    if (ON_GPU(backend))
      DUEL_GPU(reps, tk, tn, CHECK(kk_parallel_for("atomic", KK_RANGE(0, updates), atomic_k[t], KK_ARGS(a))),
               ncu_atomics(t, pi, updates, cells, reps, kk_view_data(grid)));
    else
      DUEL(reps, tk, tn, CHECK(kk_parallel_for("atomic", KK_RANGE(0, updates), atomic_k[t], KK_ARGS(a))),
           native_atomics(t, ng, pi, updates, nt));
    char label[64];
    snprintf(label, sizeof label, "atomic add %s", names[t]);
    bench_record(label, backend, "10^7", (double)updates / tk * 1e-9, (double)updates / tn * 1e-9, "Gupd/s", 0);
    double t_atomic = tk;
    if (ON_GPU(backend)) /* a GPU ScatterView is atomics: the native side is the same atomic kernel */
      DUEL_GPU(reps, tk, tn, ({
                 CHECK(kk_parallel_for("scatter", KK_RANGE(0, updates), sv_k[t], KK_ARGS(a)));
                 CHECK(kk_scatter_view_contribute(sv));
               }),
               ncu_atomics(t, pi, updates, cells, reps, kk_view_data(grid)));
    else
      DUEL(reps, tk, tn, ({
             CHECK(kk_parallel_for("scatter", KK_RANGE(0, updates), sv_k[t], KK_ARGS(a)));
             CHECK(kk_scatter_view_contribute(sv));
           }),
           native_duplicated(t, ng, dup, pi, updates, cells, sizes[t], nt));
    snprintf(label, sizeof label, "ScatterView %s", names[t]);
    bench_record(label, backend, "10^7", (double)updates / tk * 1e-9, (double)updates / tn * 1e-9, "Gupd/s", 0);
    snprintf(label, sizeof label, "ScatterView/atomic %s", names[t]);
    bench_record(label, backend, "10^7", t_atomic / tk, 1.0, "x", 0);
    free(ng), free(dup);
    kk_scatter_view_release(sv);
    kk_view_release(grid);
  }
  kk_view_release(hidx), kk_view_release(idx);
}

/* ---- Table 1: min and sum ------------------------------------------------------------------ */

static double native_min(const double *x, int64_t n, int nt) {
  double m = 1e300;
#pragma omp parallel for num_threads(nt) reduction(min : m)
  for (int64_t i = 0; i < n; i++)
    m = x[i] < m ? x[i] : m;
  return m;
}

static double native_sum(const double *x, int64_t n, int nt) {
  double s = 0;
#pragma omp parallel for num_threads(nt) reduction(+ : s)
  for (int64_t i = 0; i < n; i++)
    s += x[i];
  return s;
}

static void native_min_sum(const double *x, int64_t n, int nt, double *mn, double *sn) {
  double m = 1e300, s = 0;
#pragma omp parallel for num_threads(nt) reduction(min : m) reduction(+ : s)
  for (int64_t i = 0; i < n; i++) {
    m = x[i] < m ? x[i] : m;
    s += x[i];
  }
  *mn = m, *sn = s;
}

/* Calls per timed run of the min/sum rows on host backends (see DUEL_BURST). */
#define MINSUM_BURST 20

static void bench_minsum(const char *backend, int nt, int reps, int64_t n) {
  const char *size = n == 1000000 ? "10^6" : "10^5";
  kk_view_t *x = view("x", KK_DOUBLE, 1, &n), *hx;
  CHECK(kk_view_create_mirror_view(x, &hx));
  double *px = kk_view_data(hx), *nx = dalloc((size_t)n);
  for (int64_t i = 0; i < n; i++)
    px[i] = nx[i] = (double)((i * 7919) % 10007) - 5000.0;
  CHECK(kk_deep_copy(x, hx));
  struct minsum_args a = {kk_view_bind(x)};
  double mk = 0, sk = 0, mn = 0, sn = 0;
  struct minsum_val both;
  double tk, tn;
  const int hreps = reps * 2; /* host: each run is 1 + MINSUM_BURST calls */
  reps *= 5;
  if (!ON_GPU(backend)) { /* apart and in two launches: against OpenMP only */
    DUEL_BURST(hreps, MINSUM_BURST, tk, tn,
               CHECK(kk_parallel_reduce("min", KK_RANGE(0, n), KK_KERNEL(red_min), KK_ARGS(a), KK_RESULT(mk))),
               mn = native_min(nx, n, nt));
    bench_record("min", backend, size, tk * 1e6, tn * 1e6, "us", 1);
    DUEL_BURST(hreps, MINSUM_BURST, tk, tn,
               CHECK(kk_parallel_reduce("sum", KK_RANGE(0, n), KK_KERNEL(red_sum), KK_ARGS(a), KK_RESULT(sk))),
               sn = native_sum(nx, n, nt));
    bench_record("sum", backend, size, tk * 1e6, tn * 1e6, "us", 1);
    DUEL_BURST(hreps, MINSUM_BURST, tk, tn, ({
                 CHECK(kk_parallel_reduce("min", KK_RANGE(0, n), KK_KERNEL(red_min), KK_ARGS(a), KK_RESULT(mk)));
                 CHECK(kk_parallel_reduce("sum", KK_RANGE(0, n), KK_KERNEL(red_sum), KK_ARGS(a), KK_RESULT(sk)));
               }),
               ({
                 mn = native_min(nx, n, nt);
                 sn = native_sum(nx, n, nt);
               }));
    bench_record("min+sum (2 launches)", backend, size, tk * 1e6, tn * 1e6, "us", 1);
  }
  if (ON_GPU(backend))
    DUEL_GPU(reps, tk, tn,
             CHECK(kk_parallel_reduce("min/sum", KK_RANGE(0, n), KK_KERNEL(red_min_sum), KK_ARGS(a), KK_RESULT(both))),
             ncu_min_sum(nx, n, reps, &mn, &sn));
  else
    DUEL_BURST(
        hreps, MINSUM_BURST, tk, tn,
        CHECK(kk_parallel_reduce("min/sum", KK_RANGE(0, n), KK_KERNEL(red_min_sum), KK_ARGS(a), KK_RESULT(both))),
        native_min_sum(nx, n, nt, &mn, &sn));
  bench_record("min/sum (1 launch)", backend, size, tk * 1e6, tn * 1e6, "us", 1);
  if (both.mn != mn || fabs(both.sum - sn) > 1e-6 * fabs(sn) + 1e-6 || (!ON_GPU(backend) && mk != mn))
    fprintf(stderr, "kk-bench: min/sum results differ: kk (%g, %g) native (%g, %g)\n", both.mn, both.sum, mn, sn);
  free(nx);
  kk_view_release(hx), kk_view_release(x);
}

/* ---- batched matrix-vector products with the vector in scratch ------------------------------ */

static void native_batched(const double *na, const double *nx, double *ny, int64_t nb, int64_t m, int nt) {
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t b = 0; b < nb; b++) {
    double xs[64];
    for (int64_t j = 0; j < m; j++)
      xs[j] = nx[b * m + j];
    for (int64_t r = 0; r < m; r++) {
      double s = 0;
      for (int64_t c = 0; c < m; c++)
        s += na[(b * m + r) * m + c] * xs[c];
      ny[b * m + r] = s;
    }
  }
}

static void bench_batched(const char *backend, int nt, int reps) {
  const int64_t nb = 4096, m = 64;
  const int64_t e3[3] = {nb, m, m}, e2[2] = {nb, m};
  const double bytes = 8.0 * (double)(nb * m * m + 2 * nb * m);
  /* On the host the sides take turns at allocating first (see bench_stream
   * in kk-bench.c), each keeping its best over both rounds. */
  const int rounds = ON_GPU(backend) ? 1 : 2, per_round = ON_GPU(backend) ? reps : (reps + 1) / 2;
  double bk = 1e30, bn = 1e30, bsub = 1e30, bpar = 1e30, bsubb = 1e30, bparb = 1e30;
  for (int round = 0; round < rounds; round++) {
    kk_view_t *A = NULL, *x = NULL, *y = NULL;
    double *na = NULL, *nx = NULL, *ny = NULL;
    for (int side = 0; side < 2; side++) {
      if (side == round) {
        A = view_right("A", KK_DOUBLE, 3, e3), x = view_right("x", KK_DOUBLE, 2, e2),
        y = view_right("y", KK_DOUBLE, 2, e2);
      } else {
        na = dalloc((size_t)(nb * m * m)), nx = dalloc((size_t)(nb * m)), ny = dalloc((size_t)(nb * m));
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t b = 0; b < nb; b++) {
          for (int64_t k = 0; k < m * m; k++)
            na[b * m * m + k] = 0.5;
          for (int64_t k = 0; k < m; k++)
            nx[b * m + k] = 1.0, ny[b * m + k] = 0.0;
        }
      }
    }
    double one = 1.0, half = 0.5;
    CHECK(kk_deep_copy_fill(A, &half));
    CHECK(kk_deep_copy_fill(x, &one));
    struct batched_args a = {kk_view_bind_right(A), kk_view_bind_right(x), kk_view_bind_right(y), m};
    kk_team_policy_t p = {sizeof p, nb, KK_AUTO, KK_AUTO, {kk_scratch_size(sizeof(double), m), 0}, {0, 0}, 0,
                          KK_SCHEDULE_STATIC, NULL};
    double tk, tn;
    if (ON_GPU(backend))
      DUEL_GPU(per_round, tk, tn, CHECK(kk_parallel_for_team("batched", &p, KK_KERNEL(batched_matvec), KK_ARGS(a))),
               ncu_batched(nb, m, per_round));
    else
      DUEL(per_round, tk, tn, CHECK(kk_parallel_for_team("batched", &p, KK_KERNEL(batched_matvec), KK_ARGS(a))),
           native_batched(na, nx, ny, nb, m, nt));
    bk = fmin(bk, tk), bn = fmin(bn, tn);
    if (round == 0) {
      /* a plane per team through KK_PLANE_OF / KK_ROW_OF against indexing
       * the parents.  On a GPU a launch takes tens of microseconds, as long
       * as its launch and fence: each timed run is then `burst` launches back
       * to back and one fence, so that the kernels are timed, not the fence */
      const int burst = ON_GPU(backend) ? 20 : 1;
      double ts, tp;
      DUEL(per_round, ts, tp,
           for (int q_ = 0; q_ < burst; q_++)
               CHECK(kk_parallel_for_team("batched_sub", &p, KK_KERNEL(batched_matvec_sub), KK_ARGS(a)));
           CHECK(kk_fence()),
           for (int q_ = 0; q_ < burst; q_++)
               CHECK(kk_parallel_for_team("batched", &p, KK_KERNEL(batched_matvec), KK_ARGS(a)));
           CHECK(kk_fence()));
      bsub = fmin(bsub, ts / burst), bpar = fmin(bpar, tp / burst);
      /* and both with the register cap of KK_LAUNCH_BOUNDS(256, 8) (bench_hier.kk.c): what the slices cost
       * with the occupancy of the parent's kernel */
      if (ON_GPU(backend)) {
        DUEL(per_round, ts, tp,
             for (int q_ = 0; q_ < burst; q_++)
                 CHECK(kk_parallel_for_team("batched_sub_b", &p, KK_KERNEL(batched_matvec_sub_b), KK_ARGS(a)));
             CHECK(kk_fence()),
             for (int q_ = 0; q_ < burst; q_++)
                 CHECK(kk_parallel_for_team("batched_b", &p, KK_KERNEL(batched_matvec_b), KK_ARGS(a)));
             CHECK(kk_fence()));
        bsubb = fmin(bsubb, ts / burst), bparb = fmin(bparb, tp / burst);
      }
    }
    free(na), free(nx), free(ny);
    kk_view_release(A), kk_view_release(x), kk_view_release(y);
  }
  bench_record("batched 64x64 matvec", backend, "4096", bytes / bk * 1e-9, bytes / bn * 1e-9, "GB/s", 0);
  /* the "native" column here is kk indexing the parent views */
  bench_record("matvec sub/parent", backend, "4096", bytes / bsub * 1e-9, bytes / bpar * 1e-9, "GB/s", 0);
  if (ON_GPU(backend))
    bench_record("matvec sub/parent capped", backend, "4096", bytes / bsubb * 1e-9, bytes / bparb * 1e-9, "GB/s", 0);
}

/* ---- Table 5: CG with the team SpMV --------------------------------------------------------- */

static void bench_cg(const char *backend, int nt, int64_t n, int iters, int rounds) {
  const int64_t N = n * n * n;
  int64_t *rp, nnz;
  int32_t *ci;
  double *va;
  bench_cg_matrix(n, &rp, &ci, &va, &nnz);
  kk_view_t *row_ptr = bench_view_of("row_ptr", KK_INT64, N + 1, rp), *cols = bench_view_of("cols", KK_INT32, nnz, ci),
            *vals = bench_view_of("vals", KK_DOUBLE, nnz, va);
  kk_view_t *x = view("x", KK_DOUBLE, 1, &N), *r = view("r", KK_DOUBLE, 1, &N), *p = view("p", KK_DOUBLE, 1, &N),
            *Ap = view("Ap", KK_DOUBLE, 1, &N);
  double one = 1.0;
  CHECK(kk_deep_copy_fill(r, &one));
  CHECK(kk_deep_copy_fill(p, &one));
  const int64_t rows_per_team = 64;
  struct tspmv_args sa = {kk_view_bind(row_ptr), kk_view_bind(cols), kk_view_bind(vals), kk_view_bind(p),
                          kk_view_bind(Ap), N, rows_per_team};
  kk_team_policy_t tp = {sizeof tp, (N + rows_per_team - 1) / rows_per_team, KK_AUTO, KK_AUTO, {0, 0}, {0, 0}, 0,
                         KK_SCHEDULE_STATIC, NULL};
  /* the same loop bodies both ways: spmv, 2 dots, 2 axpys and an xpay per iteration */
  double rr_k = 0, rr_n = 0;
  double tk = 1e30, tn = 1e30;
  double *nxv = dalloc((size_t)N), *nr = dalloc((size_t)N), *np = dalloc((size_t)N), *nap = dalloc((size_t)N);
  /* the best of `rounds` solves per side, the side going first alternating, as in DUEL */
  for (int round = 0; round < rounds; round++) {
    for (int side = 0; side < 2; side++) {
      if (((round ^ side) & 1) == 0) {
        bench_settle();
        CHECK(kk_deep_copy_fill(r, &one));
        CHECK(kk_deep_copy_fill(p, &one));
        double zero = 0.0;
        CHECK(kk_deep_copy_fill(x, &zero));
        struct vec_args d = {0, kk_view_bind(r), kk_view_bind(r)};
        CHECK(kk_parallel_reduce("dot", KK_RANGE(0, N), KK_KERNEL(cg_dot2), KK_ARGS(d), KK_RESULT(rr_k)));
        double t0 = bench_now();
        for (int it = 0; it < iters; it++) {
          CHECK(kk_parallel_for_team("spmv", &tp, KK_KERNEL(team_spmv), KK_ARGS(sa)));
          struct vec_args pap = {0, kk_view_bind(p), kk_view_bind(Ap)};
          double pAp;
          CHECK(kk_parallel_reduce("dot", KK_RANGE(0, N), KK_KERNEL(cg_dot2), KK_ARGS(pap), KK_RESULT(pAp)));
          double alpha = rr_k / pAp;
          struct vec_args ux = {alpha, kk_view_bind(p), kk_view_bind(x)};
          CHECK(kk_parallel_for("axpy", KK_RANGE(0, N), KK_KERNEL(cg_axpy), KK_ARGS(ux)));
          struct vec_args ur = {-alpha, kk_view_bind(Ap), kk_view_bind(r)};
          CHECK(kk_parallel_for("axpy", KK_RANGE(0, N), KK_KERNEL(cg_axpy), KK_ARGS(ur)));
          double rr_new;
          struct vec_args rrv = {0, kk_view_bind(r), kk_view_bind(r)};
          CHECK(kk_parallel_reduce("dot", KK_RANGE(0, N), KK_KERNEL(cg_dot2), KK_ARGS(rrv), KK_RESULT(rr_new)));
          struct vec_args up = {rr_new / rr_k, kk_view_bind(r), kk_view_bind(p)};
          CHECK(kk_parallel_for("xpay", KK_RANGE(0, N), KK_KERNEL(cg_xpay), KK_ARGS(up)));
          rr_k = rr_new;
        }
        CHECK(kk_fence());
        double t = bench_now() - t0;
        tk = t < tk ? t : tk;
        continue;
      }
      if (ON_GPU(backend)) {
        double t = ncu_cg(rp, ci, va, N, iters, &rr_n);
        tn = t > 0 && t < tn ? t : tn;
        continue;
      }
      bench_settle();
      double t = bench_native_cg(rp, ci, va, N, iters, nt, nxv, nr, np, nap, &rr_n);
      tn = t < tn ? t : tn;
    }
  }
  if (fabs(rr_k - rr_n) > 1e-6 * fabs(rr_n))
    fprintf(stderr, "kk-bench: CG residuals differ: kk %.17g native %.17g\n", rr_k, rr_n);
  const double bytes = (double)nnz * 12.0 + (double)N * 8.0 * 3 + (double)N * 8.0 * (2 + 1 + 3 * 3);
  char size[32];
  snprintf(size, sizeof size, "%" PRId64 "^3", n);
  bench_record("CG (team SpMV)", backend, size, bytes * iters / tk * 1e-9, bytes * iters / tn * 1e-9, "GB/s", 0);
  free(rp), free(ci), free(va), free(nxv), free(nr), free(np), free(nap);
  kk_view_release(row_ptr), kk_view_release(cols), kk_view_release(vals);
  kk_view_release(x), kk_view_release(r), kk_view_release(p), kk_view_release(Ap);
}

void bench_hier(const char *backend, int nt, int reps, const char *cases, int quick, int smoke) {
  int r = reps ? reps : 10;
  /* The short cases get more runs: a batched run takes about 5 ms on the
   * host, and its best of 20 still moved by 0.1-0.2 between processes. */
  if (bench_wants(cases, "tensor"))
    bench_tensor(backend, nt, reps ? reps : 2 * r);
  if (bench_wants(cases, "atomics"))
    bench_scatter(backend, nt, r, quick || smoke ? 100000 : 10000000);
  if (bench_wants(cases, "minsum"))
    bench_minsum(backend, nt, r, smoke ? 100000 : 1000000);
  if (bench_wants(cases, "batched"))
    bench_batched(backend, nt, reps ? reps : 4 * r);
  if (bench_wants(cases, "cg") && !quick)
    bench_cg(backend, nt, smoke ? 20 : 100, smoke ? 10 : 50, reps ? 2 * ((reps + 1) / 2) : 8);
}
