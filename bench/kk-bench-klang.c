/* bench/kk-bench-klang.c -- kk-bench's memory-trait gather and SIMD n-body cases. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "bench_common.h"
#include "bench_klang.h"
#include "kk-bench-klang.h"

static kk_view_t *view1(const char *label, kk_type_t t, int64_t n) {
  kk_view_t *v = NULL;
  CHECK(kk_view_alloc(&v, label, t, 1, &n));
  return v;
}

/* The host copy of v (itself when the host reaches it). */
static kk_view_t *host_of(kk_view_t *v) {
  kk_view_t *m = NULL;
  CHECK(kk_view_create_mirror_view(v, &m));
  return m;
}

static void to_device(kk_view_t *dev, kk_view_t *host) {
  if (dev != host)
    CHECK(kk_deep_copy(dev, host));
}

/* ---- gather: random reads of a 2^26 table, the random-access trait on against off ---------- */

static void bench_gather(const char *backend, int reps, int quick) {
  const int64_t nt = quick ? (int64_t)1 << 22 : (int64_t)1 << 26, n = quick ? (int64_t)1 << 22 : (int64_t)1 << 25;
  kk_view_t *table = view1("table", KK_DOUBLE, nt), *idx = view1("idx", KK_INT32, n), *out = view1("out", KK_DOUBLE, n);
  kk_view_t *ht = host_of(table), *hi = host_of(idx);
  double *t = kk_view_data(ht);
  int32_t *ix = kk_view_data(hi);
  uint64_t s = 88172645463325252ull;
  for (int64_t k = 0; k < nt; k++)
    t[k] = (double)(k % 1000);
  for (int64_t k = 0; k < n; k++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17; /* xorshift64 */
    ix[k] = (int32_t)(s % (uint64_t)nt);
  }
  to_device(table, ht), to_device(idx, hi);
  struct gather_ra_args ra = {KK_TRAIT_RANDOM_ACCESS(kk_view_bind(table)), KK_TRAIT_RANDOM_ACCESS(kk_view_bind(idx)),
                              kk_view_bind(out)};
  struct gather_args pl = {kk_view_bind(table), kk_view_bind(idx), kk_view_bind(out)};
  double tr, tp;
  DUEL(reps, tr, tp,
       CHECK(kk_parallel_for("gather_ra", KK_RANGE(0, n), KK_KERNEL(gather_ra), KK_ARGS(ra))); CHECK(kk_fence()),
       CHECK(kk_parallel_for("gather_plain", KK_RANGE(0, n), KK_KERNEL(gather_plain), KK_ARGS(pl))); CHECK(kk_fence()));
  char size[32];
  snprintf(size, sizeof size, "2^%d", quick ? 22 : 26);
  /* the "native" column is the same kernel without the trait; bytes: index, element, result */
  const double bytes = (double)n * (4 + 8 + 8);
  bench_record("gather random-access on/off", backend, size, bytes / tr * 1e-9, bytes / tp * 1e-9, "GB/s", 0);
  kk_view_release(ht), kk_view_release(hi); /* host_of retains the view itself where the host reaches it */
  kk_view_release(table), kk_view_release(idx), kk_view_release(out);
}

/* ---- n-body forces: kk SIMD against intrinsics and against kk's scalar loop ------------------- */

/* The hand-written loop: the same arithmetic as bench_klang.kk.c's
 * nbody_simd_<S>, with the widest vectors the compiler's target has. */
#if defined(__AVX512F__)
#define NB_W_D 8
#define NB_W_F 16
#define NB_VD __m512d
#define NB_VF __m512
#define NB_OP(op, t) _mm512_##op##_##t
#elif defined(__AVX__)
#define NB_W_D 4
#define NB_W_F 8
#define NB_VD __m256d
#define NB_VF __m256
#define NB_OP(op, t) _mm256_##op##_##t
#elif defined(__SSE2__)
#define NB_W_D 2
#define NB_W_F 4
#define NB_VD __m128d
#define NB_VF __m128
#define NB_OP(op, t) _mm_##op##_##t
#endif
#ifdef NB_OP
#if defined(__FMA__) || defined(__AVX512F__)
#define NB_FMA(a, b, c, t) NB_OP(fmadd, t)(a, b, c)
#else
#define NB_FMA(a, b, c, t) NB_OP(add, t)(NB_OP(mul, t)(a, b), c)
#endif
#define NB_NATIVE(S, T, V, W, t)                                                                               \
  static void native_nbody_##S(const T *x, const T *y, const T *z, const T *m, T *ax, T *ay, T *az, int64_t n,   \
                               T eps, int nthreads) {                                                          \
    _Pragma("omp parallel for num_threads(nthreads) schedule(static)") for (int64_t i = 0; i < n; i += W) {     \
      const V xi = NB_OP(loadu, t)(x + i), yi = NB_OP(loadu, t)(y + i), zi = NB_OP(loadu, t)(z + i);           \
      const V e2 = NB_OP(set1, t)(eps), one = NB_OP(set1, t)((T)1);                                            \
      V fx = NB_OP(setzero, t)(), fy = fx, fz = fx;                                                            \
      for (int64_t j = 0; j < n; j++) {                                                                        \
        const V dx = NB_OP(sub, t)(NB_OP(set1, t)(x[j]), xi), dy = NB_OP(sub, t)(NB_OP(set1, t)(y[j]), yi),    \
                dz = NB_OP(sub, t)(NB_OP(set1, t)(z[j]), zi);                                                  \
        const V r2 = NB_FMA(dx, dx, NB_FMA(dy, dy, NB_FMA(dz, dz, e2, t), t), t);                              \
        const V inv = NB_OP(div, t)(one, NB_OP(sqrt, t)(r2));                                                  \
        const V s = NB_OP(mul, t)(NB_OP(mul, t)(NB_OP(mul, t)(NB_OP(set1, t)(m[j]), inv), inv), inv);          \
        fx = NB_FMA(dx, s, fx, t), fy = NB_FMA(dy, s, fy, t), fz = NB_FMA(dz, s, fz, t);                       \
      }                                                                                                        \
      NB_OP(storeu, t)(ax + i, fx), NB_OP(storeu, t)(ay + i, fy), NB_OP(storeu, t)(az + i, fz);                \
    }                                                                                                          \
  }
NB_NATIVE(double, double, NB_VD, NB_W_D, pd)
NB_NATIVE(float, float, NB_VF, NB_W_F, ps)
#endif

/* KK_SIMD_WIDTH of the kernels as the backend runs them */
static int64_t simd_width(kk_type_t t) {
  kk_view_t *out = view1("widths", KK_INT32, 2);
  struct simd_width_args a = {kk_view_bind(out)};
  CHECK(kk_parallel_for("simd_widths", KK_RANGE(0, 1), KK_KERNEL(simd_widths), KK_ARGS(a)));
  int32_t w[2];
  kk_view_t *h = host_of(out);
  if (h != out)
    CHECK(kk_deep_copy(h, out));
  CHECK(kk_fence());
  memcpy(w, kk_view_data(h), sizeof w);
  kk_view_release(h), kk_view_release(out);
  return t == KK_FLOAT ? w[1] : w[0];
}

#define NB_CASE(S, T, KT)                                                                                        \
  static void bench_nbody_##S(const char *backend, int nthreads, int reps, int quick) {                        \
    const int64_t n = quick ? (int64_t)1 << 12 : (int64_t)1 << 16;                                             \
    kk_view_t *v[7];                                                                                           \
    for (int k = 0; k < 7; k++)                                                                                \
      v[k] = view1("nbody", KT, n);                                                                            \
    kk_view_t *h[4];                                                                                           \
    for (int k = 0; k < 4; k++)                                                                                \
      h[k] = host_of(v[k]);                                                                                    \
    for (int64_t i = 0; i < n; i++) {                                                                          \
      ((T *)kk_view_data(h[0]))[i] = (T)((i * 37) % 1001) * (T)0.01;                                           \
      ((T *)kk_view_data(h[1]))[i] = (T)((i * 91) % 997) * (T)0.01;                                            \
      ((T *)kk_view_data(h[2]))[i] = (T)((i * 53) % 1009) * (T)0.01;                                           \
      ((T *)kk_view_data(h[3]))[i] = (T)1 + (T)(i % 3);                                                        \
    }                                                                                                          \
    for (int k = 0; k < 4; k++)                                                                                \
      to_device(v[k], h[k]);                                                                                   \
    struct nbody_args a = {kk_view_bind(v[0]), kk_view_bind(v[1]), kk_view_bind(v[2]), kk_view_bind(v[3]),     \
                           kk_view_bind(v[4]), kk_view_bind(v[5]), kk_view_bind(v[6]), n, 1e-3};              \
    const int64_t w = simd_width(KT); /* n is a multiple of every width */                                     \
    double ts, tc, tn = 0;                                                                                     \
    DUEL(reps, ts, tc,                                                                                         \
         CHECK(kk_parallel_for("nbody_simd", KK_RANGE(0, n / w),                   \
                               KK_KERNEL(nbody_simd_##S), KK_ARGS(a)));                                        \
         CHECK(kk_fence()),                                                                                    \
         CHECK(kk_parallel_for("nbody_scalar", KK_RANGE(0, n), KK_KERNEL(nbody_scalar_##S), KK_ARGS(a)));      \
         CHECK(kk_fence()));                                                                                   \
    const double inter = (double)n * (double)n * 1e-9;                                                         \
    char size[16];                                                                                             \
    snprintf(size, sizeof size, "2^%d", quick ? 12 : 16);                                                      \
    bench_record("nbody " #S " simd/scalar", backend, size, inter / ts, inter / tc, "Ginter/s", 0);            \
    if (strcmp(kk_backend_host(), backend) == 0 && NB_HAVE_NATIVE) {                                           \
      if (w != NB_WIDTH_##S) /* the same vectors on both sides, or the row compares two widths */             \
        fprintf(stderr, "kk-bench: nbody " #S ": kk SIMD width %d, intrinsics width %d\n", (int)w,           \
                NB_WIDTH_##S);                                                                                 \
      double ts2;                                                                                              \
      T *ax = malloc(sizeof(T) * (size_t)n * 3);                                                               \
      DUEL(reps, ts2, tn,                                                                                      \
           CHECK(kk_parallel_for("nbody_simd", KK_RANGE(0, n / w),                 \
                                 KK_KERNEL(nbody_simd_##S), KK_ARGS(a)));                                      \
           CHECK(kk_fence()),                                                                                  \
           NB_CALL_NATIVE(S, (T *)kk_view_data(h[0]), (T *)kk_view_data(h[1]), (T *)kk_view_data(h[2]),       \
                          (T *)kk_view_data(h[3]), ax, ax + n, ax + 2 * n, n, (T)1e-3, nthreads));             \
      bench_record("nbody " #S " simd/intrinsics", backend, size, inter / ts2, inter / tn, "Ginter/s", 0);     \
      free(ax);                                                                                                \
    }                                                                                                          \
    for (int k = 0; k < 4; k++)                                                                                \
      kk_view_release(h[k]);                                                                                   \
    for (int k = 0; k < 7; k++)                                                                                \
      kk_view_release(v[k]);                                                                                   \
  }
#ifdef NB_OP
#define NB_WIDTH_double NB_W_D
#define NB_WIDTH_float NB_W_F
#define NB_HAVE_NATIVE 1
#define NB_CALL_NATIVE(S, ...) native_nbody_##S(__VA_ARGS__)
#else
#define NB_WIDTH_double 0
#define NB_WIDTH_float 0
#define NB_HAVE_NATIVE 0
#define NB_CALL_NATIVE(S, ...) (void)0
#endif
NB_CASE(double, double, KK_DOUBLE)
NB_CASE(float, float, KK_FLOAT)

/* ---- deep copy between layouts against a hand-written tiled transpose ------------------------- */

#ifdef KK_BENCH_CUDA
#include "native_cuda.h"
#else
#define ncu_transpose(...) -1.0
#endif

/* An n x n view of doubles of `layout` in the default space. */
static kk_view_t *square(const char *label, int64_t n, kk_layout_t layout) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = KK_DOUBLE;
  s.rank = 2;
  s.extents[0] = s.extents[1] = n;
  s.layout = layout;
  kk_view_t *v = NULL;
  CHECK(kk_view_create(&s, &v));
  return v;
}

/* dst(i, j) at i + j n (LayoutLeft) from src(i, j) at i n + j (LayoutRight): 32 x 32 tiles, so that
 * both sides' cache lines are used whole while the tile is in L1 */
static void native_transpose(double *dst, const double *src, int64_t n, int nthreads) {
  enum { TB = 32 };
#pragma omp parallel for num_threads(nthreads) schedule(static) collapse(2)
  for (int64_t jb = 0; jb < n; jb += TB)
    for (int64_t ib = 0; ib < n; ib += TB)
      for (int64_t j = jb; j < jb + TB && j < n; j++)
        for (int64_t i = ib; i < ib + TB && i < n; i++)
          dst[i + j * n] = src[i * n + j];
}

/* kk_deep_copy from a LayoutRight into a LayoutLeft view of the same n x n
 * doubles (a transpose in memory) against the hand-written transpose: on the
 * host backends OpenMP over the same threads, on cuda shared-memory tiles.
 * GB/s counting one read and one write of every element. */
static void bench_transpose(const char *backend, int nt, int reps, int quick) {
  const int64_t n = quick ? (int64_t)1 << 11 : (int64_t)1 << 13;
  kk_view_t *src = square("src_right", n, KK_LAYOUT_RIGHT), *dst = square("dst_left", n, KK_LAYOUT_LEFT);
  kk_view_t *hs = host_of(src);
  double *p = kk_view_data(hs);
  for (int64_t k = 0; k < n * n; k++)
    p[k] = (double)k;
  to_device(src, hs);
  double tk, tn = 1e30;
  if (ON_GPU(backend)) {
    tk = 1e30;
    for (int r = 0; r < reps; r++) {
      const double t0 = bench_now();
      CHECK(kk_deep_copy(dst, src));
      CHECK(kk_fence());
      const double t = bench_now() - t0;
      tk = t < tk ? t : tk;
    }
    tn = ncu_transpose(n, reps);
  } else {
    double *nd = malloc(sizeof(double) * (size_t)(n * n));
    if (!nd) {
      fprintf(stderr, "kk-bench: out of memory\n");
      exit(1);
    }
    DUEL(reps, tk, tn, CHECK(kk_deep_copy(dst, src)); CHECK(kk_fence()), native_transpose(nd, p, n, nt));
    for (int64_t k = 0; k < n * n; k += n + 1) /* the diagonal and its neighbours */
      if (nd[k] != p[k] || (k + 1 < n * n && nd[k + 1] != p[(k + 1) % n * n + (k + 1) / n])) {
        fprintf(stderr, "kk-bench: the hand-written transpose is wrong at %lld\n", (long long)k);
        exit(1);
      }
    free(nd);
  }
  /* kk's result, checked: dst(i, j) = i n + j */
  kk_view_t *hd = host_of(dst);
  if (hd != dst)
    CHECK(kk_deep_copy(hd, dst));
  CHECK(kk_fence());
  const double *q = kk_view_data(hd);
  for (int64_t e = 0; e < n * n; e += 7919)
    if (q[e] != (double)((e % n) * n + e / n)) {
      fprintf(stderr, "kk-bench: kk_deep_copy between layouts is wrong at %lld\n", (long long)e);
      exit(1);
    }
  char size[32];
  snprintf(size, sizeof size, "2^%d x 2^%d", quick ? 11 : 13, quick ? 11 : 13);
  const double bytes = 2.0 * 8 * (double)n * (double)n;
  bench_record("deep_copy right->left / transpose", backend, size, bytes / tk * 1e-9,
               tn > 0 ? bytes / tn * 1e-9 : 0, "GB/s", 0);
  kk_view_release(hd), kk_view_release(hs), kk_view_release(src), kk_view_release(dst);
}

void bench_klang(const char *backend, int nt, int reps, const char *cases, int quick) {
  /* reps 0: kk-bench's defaults (--reps not given), 10 gathers */
  if (bench_wants(cases, "gather"))
    bench_gather(backend, reps > 0 ? reps : 10, quick);
  if (bench_wants(cases, "transpose"))
    bench_transpose(backend, nt, reps > 0 ? reps : 5, quick);
  if (bench_wants(cases, "nbody")) {
    /* O(n^2): a few repetitions are enough */
    const int r = reps > 0 && reps < 2 ? reps : 2;
    bench_nbody_double(backend, nt, r, quick);
    bench_nbody_float(backend, nt, r, quick);
  }
}
