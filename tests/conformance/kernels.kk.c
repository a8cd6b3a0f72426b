/* tests/conformance/kernels.kk.c -- every kernel of the conformance suite, written once for every target. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "conformance.h"

/* ---- for ------------------------------------------------------------------------ */
KK_FOR(axpy, struct axpy_args, i) { KK_AT(args->y, double, i) += args->a * KK_AT(args->x, double, i); }

/* hits[i - base] += 1: every index exactly once, whatever the schedule */
KK_FOR(count_hits, struct count_args, i) { KK_AT(args->hits, int32_t, i - args->base) += 1; }

KK_FOR(empty_for, struct nothing, i) {}

/* ---- reducers on every type ----------------------------------------------------- */
#define REDUCERS_ALL(T)                                                                             \
  KK_REDUCE(sum_##T, struct one_view, T, KK_SUM, i, acc) { *acc += KK_AT(args->v, T, i); }           \
  KK_REDUCE(prod_##T, struct one_view, T, KK_PROD, i, acc) { *acc *= KK_AT(args->v, T, i); }         \
  KK_REDUCE(min_##T, struct one_view, T, KK_MIN, i, acc) {                                          \
    T x = KK_AT(args->v, T, i);                                                                     \
    if (x < *acc)                                                                                   \
      *acc = x;                                                                                     \
  }                                                                                                 \
  KK_REDUCE(max_##T, struct one_view, T, KK_MAX, i, acc) {                                          \
    T x = KK_AT(args->v, T, i);                                                                     \
    if (x > *acc)                                                                                   \
      *acc = x;                                                                                     \
  }                                                                                                 \
  KK_REDUCE(minmax_##T, struct one_view, T, KK_MINMAX, i, acc) { KK_MINMAX_UPDATE(acc, KK_AT(args->v, T, i)); } \
  KK_REDUCE(minloc_##T, struct one_view, T, KK_MINLOC, i, acc) { KK_MINLOC_UPDATE(acc, KK_AT(args->v, T, i), i); } \
  KK_REDUCE(maxloc_##T, struct one_view, T, KK_MAXLOC, i, acc) { KK_MAXLOC_UPDATE(acc, KK_AT(args->v, T, i), i); } \
  KK_REDUCE(minmaxloc_##T, struct one_view, T, KK_MINMAXLOC, i, acc) {                             \
    KK_MINMAXLOC_UPDATE(acc, KK_AT(args->v, T, i), i);                                              \
  }                                                                                                 \
  KK_REDUCE(land_##T, struct one_view, T, KK_LAND, i, acc) { *acc = *acc && KK_AT(args->v, T, i); }  \
  KK_REDUCE(lor_##T, struct one_view, T, KK_LOR, i, acc) { *acc = *acc || KK_AT(args->v, T, i); }
#define REDUCERS_BITS(T)                                                                     \
  KK_REDUCE(band_##T, struct one_view, T, KK_BAND, i, acc) { *acc &= KK_AT(args->v, T, i); }  \
  KK_REDUCE(bor_##T, struct one_view, T, KK_BOR, i, acc) { *acc |= KK_AT(args->v, T, i); }
CONF_TYPES(REDUCERS_ALL)
CONF_INT_TYPES(REDUCERS_BITS)

/* ---- several reducers, custom reducers, dot ---------------------------------------- */
KK_REDUCE_N(min_sum_minloc, struct one_view, struct min_sum_loc, i, acc, (KK_MIN, double, mn), (KK_SUM, double, sum),
            (KK_MINLOC, double, loc)) {
  double x = KK_AT(args->v, double, i);
  if (x < acc->mn)
    acc->mn = x;
  acc->sum += x;
  KK_MINLOC_UPDATE(&acc->loc, x, i);
}

KK_REDUCE(dot, struct two_views, double, KK_SUM, i, acc) {
  *acc += KK_AT(args->x, double, i) * KK_AT(args->y, double, i);
}

/* count of iterations: ranges beyond 2^31 */
KK_REDUCE(count, struct nothing, int64_t, KK_SUM, i, acc) { *acc += 1; }
/* a scan that checks its own prefix: hits[i - base] += 1 when the prefix is the
 * count of indices before i (ranges at the ends of int64_t) */
KK_SCAN(scan_count, struct count_args, int64_t, i, part, final) {
  if (final)
    KK_AT(args->hits, int32_t, i - args->base) += *part == i - args->base;
  *part += 1;
}
/* sum of the indices themselves */
KK_REDUCE(index_sum, struct nothing, int64_t, KK_SUM, i, acc) { *acc += i; }

KK_REDUCER_INIT(cstats, struct cplx_stats, v) {
  v->sum.re = 0;
  v->sum.im = 0;
  v->max_abs2 = -1;
  v->argmax = -1;
}
KK_REDUCER_JOIN(cstats, struct cplx_stats, d, s) {
  d->sum.re += s->sum.re;
  d->sum.im += s->sum.im;
  if (s->max_abs2 > d->max_abs2 || (s->max_abs2 == d->max_abs2 && s->argmax >= 0 && s->argmax < d->argmax)) {
    d->max_abs2 = s->max_abs2;
    d->argmax = s->argmax;
  }
}
/* v holds complex doubles as pairs of doubles */
KK_REDUCE_CUSTOM(complex_stats, struct one_view, struct cplx_stats, cstats, i, acc) {
  double re = KK_AT(args->v, double, i, 0), im = KK_AT(args->v, double, i, 1);
  acc->sum.re += re;
  acc->sum.im += im;
  double a2 = re * re + im * im;
  if (a2 > acc->max_abs2 || (a2 == acc->max_abs2 && i < acc->argmax)) {
    acc->max_abs2 = a2;
    acc->argmax = i;
  }
}
/* custom reducer also usable inside KK_REDUCE_N */
KK_REDUCE_N(count_and_stats, struct one_view, struct sum_and_stats, i, acc, (KK_SUM, int64_t, n),
            (KK_CUSTOM, cstats, st)) {
  acc->n += 1;
  double re = KK_AT(args->v, double, i, 0), im = KK_AT(args->v, double, i, 1);
  acc->st.sum.re += re;
  acc->st.sum.im += im;
  double a2 = re * re + im * im;
  if (a2 > acc->st.max_abs2 || (a2 == acc->st.max_abs2 && i < acc->st.argmax)) {
    acc->st.max_abs2 = a2;
    acc->st.argmax = i;
  }
}

/* ---- scans ----------------------------------------------------------------------- */
KK_SCAN(scan_incl_i64, struct two_views, int64_t, i, part, final) {
  *part += KK_AT(args->x, int64_t, i);
  if (final)
    KK_AT(args->y, int64_t, i) = *part;
}
KK_SCAN(scan_excl_i64, struct two_views, int64_t, i, part, final) {
  if (final)
    KK_AT(args->y, int64_t, i) = *part;
  *part += KK_AT(args->x, int64_t, i);
}
KK_SCAN(scan_excl_double, struct two_views, double, i, part, final) {
  if (final)
    KK_AT(args->y, double, i) = *part;
  *part += KK_AT(args->x, double, i);
}
/* scan with a custom reducer: running maximum (prefix max) */
KK_REDUCER_INIT(maxof, double, v) { *v = -1e300; }
KK_REDUCER_JOIN(maxof, double, d, s) {
  if (*s > *d)
    *d = *s;
}
KK_SCAN_CUSTOM(prefix_max, struct two_views, double, maxof, i, part, final) {
  double x = KK_AT(args->x, double, i);
  if (x > *part)
    *part = x;
  if (final)
    KK_AT(args->y, double, i) = *part;
}

/* ---- layouts and ranks ------------------------------------------------------------ */
/* out(i, j) = 1000 r(i, j) + 100 l(i, j) + s(i, j): reads a right, a left and a strided view */
KK_FOR(mix_layouts, struct layout_args, i) {
  for (int64_t j = 0; j < args->n1; j++)
    KK_AT(args->out, double, i, j) =
        1000.0 * KK_AT(args->r, double, i, j) + 100.0 * KK_AT(args->l, double, i, j) + KK_AT(args->s, double, i, j);
}

/* writes a value made of the indices into a view of rank 1..8 (default layout):
 * element (i0, i1, ...) = sum_k (k + 1) * 10^k * i_k, for extents <= 3 past
 * the first dimension */
#define E(k) KK_EXTENT(args->v, k)
KK_FOR(fill_rank, struct rank_args, i) {
  const kk_view v = args->v;
  switch (args->rank) {
  case 1:
    KK_AT(v, double, i) = (double)i;
    break;
  case 2:
    for (int64_t a = 0; a < E(1); a++)
      KK_AT(v, double, i, a) = (double)i + 20.0 * a;
    break;
  case 3:
    for (int64_t a = 0; a < E(1); a++)
      for (int64_t b = 0; b < E(2); b++)
        KK_AT(v, double, i, a, b) = (double)i + 20.0 * a + 300.0 * b;
    break;
  case 4:
    for (int64_t a = 0; a < E(1); a++)
      for (int64_t b = 0; b < E(2); b++)
        for (int64_t c = 0; c < E(3); c++)
          KK_AT(v, double, i, a, b, c) = (double)i + 20.0 * a + 300.0 * b + 4000.0 * c;
    break;
  case 5:
    for (int64_t a = 0; a < E(1); a++)
      for (int64_t b = 0; b < E(2); b++)
        for (int64_t c = 0; c < E(3); c++)
          for (int64_t d = 0; d < E(4); d++)
            KK_AT(v, double, i, a, b, c, d) = (double)i + 20.0 * a + 300.0 * b + 4000.0 * c + 50000.0 * d;
    break;
  case 6:
    for (int64_t a = 0; a < E(1); a++)
      for (int64_t b = 0; b < E(2); b++)
        for (int64_t c = 0; c < E(3); c++)
          for (int64_t d = 0; d < E(4); d++)
            for (int64_t e = 0; e < E(5); e++)
              KK_AT(v, double, i, a, b, c, d, e) =
                  (double)i + 20.0 * a + 300.0 * b + 4000.0 * c + 50000.0 * d + 600000.0 * e;
    break;
  case 7:
    for (int64_t a = 0; a < E(1); a++)
      for (int64_t b = 0; b < E(2); b++)
        for (int64_t c = 0; c < E(3); c++)
          for (int64_t d = 0; d < E(4); d++)
            for (int64_t e = 0; e < E(5); e++)
              for (int64_t f = 0; f < E(6); f++)
                KK_AT(v, double, i, a, b, c, d, e, f) =
                    (double)i + 20.0 * a + 300.0 * b + 4000.0 * c + 50000.0 * d + 600000.0 * e + 7000000.0 * f;
    break;
  case 8:
    for (int64_t a = 0; a < E(1); a++)
      for (int64_t b = 0; b < E(2); b++)
        for (int64_t c = 0; c < E(3); c++)
          for (int64_t d = 0; d < E(4); d++)
            for (int64_t e = 0; e < E(5); e++)
              for (int64_t f = 0; f < E(6); f++)
                for (int64_t g = 0; g < E(7); g++)
                  KK_AT(v, double, i, a, b, c, d, e, f, g) = (double)i + 20.0 * a + 300.0 * b + 4000.0 * c +
                                                             50000.0 * d + 600000.0 * e + 7000000.0 * f +
                                                             80000000.0 * g;
    break;
  }
}
#undef E

/* rank 0: the single element */
KK_FOR(set_scalar, struct one_view, i) { KK_AT0(args->v, double) = 42.0 + (double)i; }

/* ---- subviews inside kernels ---------------------------------------------------------------- */

#define SUB_BAD(vi, c, cond) (bad |= (int64_t)((cond) != 0) << ((vi) * 10 + (c)))
#define SUB_CHECK_ONE(V, vi)                                                                                  \
  do {                                                                                                        \
    SUB_BAD(vi, 0, KK_EXTENT(KK_PLANE(V, i), 0) != n1 || KK_EXTENT(KK_PLANE(V, i), 1) != n2);                 \
    SUB_BAD(vi, 1, KK_EXTENT(KK_COL(V, 0), 0) != args->n0 || KK_EXTENT(KK_COL(V, 0), 1) != n1);               \
    SUB_BAD(vi, 2, KK_EXTENT(KK_ROWS(V, i, args->n0), 0) != args->n0 - i);                                    \
    for (int64_t j = 0; j < n1; j++)                                                                          \
      for (int64_t k = 0; k < n2; k++) {                                                                      \
        double want = KK_AT(V, double, i, j, k);                                                              \
        SUB_BAD(vi, 3, want != (double)(1 + (i * n1 + j) * n2 + k));                                          \
        SUB_BAD(vi, 4, KK_AT(KK_PLANE(V, i), double, j, k) != want);                                          \
        SUB_BAD(vi, 5, KK_AT(KK_ROW(KK_PLANE(V, i), j), double, k) != want);                                  \
        SUB_BAD(vi, 6, KK_AT(KK_COL(KK_PLANE(V, i), k), double, j) != want);                                  \
        SUB_BAD(vi, 7, KK_AT(KK_COL(V, k), double, i, j) != want);                                            \
        SUB_BAD(vi, 8, KK_AT(KK_ROWS(V, i, args->n0), double, 0, j, k) != want);                              \
        SUB_BAD(vi, 9, KK_AT(KK_ROW(KK_ROWS(V, i, i + 1), 0), double, j, k) != want);                         \
        SUB_BAD_OF(vi, 0, KK_AT(KK_PLANE_OF(V, double, i), double, j, k) != want);                            \
        SUB_BAD_OF(vi, 1, KK_AT(KK_ROW_OF(KK_PLANE_OF(V, double, i), double, j), double, k) != want);         \
        SUB_BAD_OF(vi, 2, KK_AT(KK_COL_OF(KK_PLANE_OF(V, double, i), double, k), double, j) != want);         \
        SUB_BAD_OF(vi, 3, KK_AT(KK_COL_OF(V, double, k), double, i, j) != want);                              \
        SUB_BAD_OF(vi, 4, KK_AT(KK_ROWS_OF(V, double, i, args->n0), double, 0, j, k) != want);                \
      }                                                                                                       \
  } while (0)
/* the typed slices (KK_ROW_OF, ...): bits 40 + 5 * view + check */
#define SUB_BAD_OF(vi, c, cond) (bad |= (int64_t)((cond) != 0) << (40 + (vi) * 5 + (c)))

/* every element reached through a slice agrees with the parent's, for each
 * descriptor type: bit 10 * view + check set for each check that failed */
KK_FOR(sub_check, struct sub_args, i) {
  const int64_t n1 = args->n1, n2 = args->n2;
  int64_t bad = 0;
  SUB_CHECK_ONE(args->a3, 0);
  SUB_CHECK_ONE(args->r3, 1);
  SUB_CHECK_ONE(args->l3, 2);
  SUB_CHECK_ONE(args->s3, 3);
  KK_AT(args->bad, int64_t, i) = bad;
}

/* writes through a row of a default-layout view and a column of a left one */
KK_FOR(sub_write, struct sub_args, i) {
  KK_ROW_T(kk_view) r = KK_ROW(args->w, i);
  for (int64_t j = 0; j < KK_EXTENT(r, 0); j++)
    KK_AT(r, double, j) = (double)(i * 1000 + j);
  if (i < args->n1) {
    KK_COL_T(kk_view_left) c = KK_COL(args->wl, i);
    for (int64_t j = 0; j < KK_EXTENT(c, 0); j++)
      KK_AT(c, double, j) = (double)(j * 1000 + i);
  }
  /* typed slices of 4-byte elements: the pointer moves by sizeof(T) */
  KK_ROW_T(kk_view) r32 = KK_ROW_OF(args->w32, int32_t, i);
  for (int64_t j = 0; j < KK_EXTENT(r32, 0); j++)
    KK_AT(r32, int32_t, j) = (int32_t)(i * 1000 + j);
  if (i < args->n1) {
    KK_COL_T(kk_view_left) c32 = KK_COL_OF(args->w32l, float, i);
    for (int64_t j = 0; j < KK_EXTENT(c32, 0); j++)
      KK_AT(c32, float, j) = (float)(j * 1000 + i);
  }
}

/* ---- memory traits ------------------------------------------------------------------------ */
/* every index updates a few shared elements: only exact under the atomic trait */
KK_FOR(trait_atomic, struct trait_args, i) {
  KK_AT(args->ci64, int64_t, i % 3) += 1;
  KK_AT(args->cf64, double, 0, 0) += (double)(i & 7);
  KK_AT(args->cf64, double, 0, 1) -= 1.0;
  KK_AT(args->cu32, uint32_t, 0)++;
  KK_AT(args->cu32, uint32_t, 1) |= (uint32_t)1 << (i & 31);
}

/* a gather through random-access views into a restrict one */
KK_FOR(trait_gather, struct trait_args, i) {
  KK_AT(args->dst, double, i) = KK_AT(args->src, double, KK_AT(args->idx, int64_t, i));
}

/* ---- SIMD types --------------------------------------------------------------------------- */
#include <kk/simd.h>

/* one segment per index, in width steps with a masked tail: conformance.c's
 * simd_* functions compute the same per element */
KK_FOR(simd_segments, struct simd_args, s) {
  const int64_t b = KK_AT(args->off, int64_t, s), e = b + s;
  if (s == 0) {
    KK_AT(args->width, int32_t, 0) = KK_SIMD_WIDTH(double);
    KK_AT(args->width, int32_t, 1) = KK_SIMD_WIDTH(float);
    KK_AT(args->width, int32_t, 2) = KK_SIMD_WIDTH(int32);
    KK_AT(args->width, int32_t, 3) = KK_SIMD_WIDTH(int64);
  }
  double sum = 0, mn = 1e300, mx = -1e300, lanes = 0;
  float fsum = 0;
  int64_t lsum = 0;
  KK_SIMD_LOOP(double, i, m, b, e) {
    kk_simd_double x = KK_SIMD_LOAD_AT_MASKED(double, args->xd, i, m);
    kk_simd_int64 gi = KK_SIMD_LOAD_AT_MASKED(int64, args->gidx, i, m);
    kk_simd_double g = kk_simd_double_gather(KK_DATA(args->xd, double), gi);
    kk_simd_mask_double p = kk_simd_double_gt(x, kk_simd_double_zero());
    kk_simd_double y = kk_simd_double_where(p, kk_simd_double_sqrt(x), kk_simd_double_neg(x));
    y = kk_simd_double_fma(y, kk_simd_double_set1(2.0), x * 0.5 + 1.0);
    y = kk_simd_double_max(y, kk_simd_double_abs(x)) + kk_simd_double_min(g, kk_simd_double_set1(3.0));
    y = y / kk_simd_double_set1(4.0) - g * 0.25;
    y = y + kk_simd_double_exp(x * 0.125) + kk_simd_double_log(kk_simd_double_abs(x) + 1.0) +
        kk_simd_double_sin(x) * kk_simd_double_cos(x) + kk_simd_double_pow(kk_simd_double_abs(x) + 1.0, x * 0.25);
    KK_SIMD_STORE_AT_MASKED(double, args->yd, i, y, m);
    sum += kk_simd_double_hsum(kk_simd_double_where(m, y, kk_simd_double_zero()));
    const double smn = kk_simd_double_hmin(kk_simd_double_where(m, y, kk_simd_double_set1(mn)));
    const double smx = kk_simd_double_hmax(kk_simd_double_where(m, y, kk_simd_double_set1(mx)));
    mn = smn < mn ? smn : mn;
    mx = smx > mx ? smx : mx;
    lanes += kk_simd_double_count(m) + (kk_simd_double_any(m) ? 0 : 1000) + (kk_simd_double_all(m) ? 0 : 0.5);
  }
  KK_SIMD_LOOP(float, i, m, b, e) {
    kk_simd_float x = KK_SIMD_LOAD_AT_MASKED(float, args->xf, i, m);
    kk_simd_int32 gi = KK_SIMD_LOAD_AT_MASKED(int32, args->gidx32, i, m);
    kk_simd_float g = kk_simd_float_gather(KK_DATA(args->xf, float), gi);
    kk_simd_float y = kk_simd_float_where(kk_simd_float_le(x, kk_simd_float_zero()), -x, kk_simd_float_sqrt(x));
    y = kk_simd_float_fma(y, x, g) + kk_simd_float_exp(x * 0.125f) + kk_simd_float_log(kk_simd_float_abs(x) + 1.0f) +
        kk_simd_float_sin(x) - kk_simd_float_cos(x) + kk_simd_float_pow(kk_simd_float_abs(x) + 1.0f, kk_simd_float_set1(0.5f));
    KK_SIMD_STORE_AT_MASKED(float, args->yf, i, y, m);
    fsum += kk_simd_float_hsum(kk_simd_float_where(m, y, kk_simd_float_zero()));
  }
  KK_SIMD_LOOP(int32, i, m, b, e) {
    kk_simd_int32 x = KK_SIMD_LOAD_AT_MASKED(int32, args->xi, i, m);
    kk_simd_int32 gi = KK_SIMD_LOAD_AT_MASKED(int32, args->gidx32, i, m);
    kk_simd_int32 g = kk_simd_int32_gather(KK_DATA(args->xi, int32_t), gi);
    kk_simd_mask_int32 small = kk_simd_int32_lt(x, kk_simd_int32_set1(5)) & kk_simd_int32_ne(x, kk_simd_int32_set1(-3));
    kk_simd_int32 y = kk_simd_int32_where(small, x * 3 + 7, x - 2) + kk_simd_int32_abs(x) * 100;
    y = y + kk_simd_int32_max(g, x) * 10000 - kk_simd_int32_min(g, x) + (kk_simd_int32_eq(x, g) & 1000000);
    y = y + (kk_simd_int32_ge(x, kk_simd_int32_zero()) & 7) + (kk_simd_int32_iota() & 0);
    KK_SIMD_STORE_AT_MASKED(int32, args->yi, i, y, m);
  }
  KK_SIMD_LOOP(int64, i, m, b, e) {
    kk_simd_int64 x = KK_SIMD_LOAD_AT_MASKED(int64, args->xl, i, m);
    kk_simd_int64 gi = KK_SIMD_LOAD_AT_MASKED(int64, args->gidx, i, m);
    kk_simd_int64 g = kk_simd_int64_gather(KK_DATA(args->xl, int64_t), gi);
    kk_simd_int64 y = x * (int64_t)1000003 + g - kk_simd_int64_max(x, g) / 3;
    KK_SIMD_STORE_AT_MASKED(int64, args->yl, i, y, m);
    lsum += kk_simd_int64_hsum(kk_simd_int64_where(m, y, kk_simd_int64_zero()));
  }
  KK_AT(args->red, double, s, 0) = sum;
  KK_AT(args->red, double, s, 1) = mn;
  KK_AT(args->red, double, s, 2) = mx;
  KK_AT(args->red, double, s, 3) = lanes;
  KK_AT(args->red, double, s, 4) = (double)fsum;
  KK_AT(args->red, double, s, 5) = (double)lsum;
}
