/* algorithms/std.c -- the standard algorithms on views: checks, the built-in and kernel-language predicates and transforms, compactions through temporaries. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* the kernels of std_tmpl.h for every type, as tables in kka_tidx order */
#define KKA_SFX(X, op) X(op, i8) X(op, u8) X(op, i16) X(op, u16) X(op, i32) X(op, u32) X(op, i64) X(op, u64) X(op, f32) X(op, f64)
#define KKA_DECL1(op, s) KK_DECLARE_KERNEL(kka_##op##_##s);
#define KKA_REF1(op, s) KK_KERNEL(kka_##op##_##s),
#define KKA_TABLE(op)         \
  KKA_SFX(KKA_DECL1, op)      \
  static const kk_kernel_t *const op##_k[10] = {KKA_SFX(KKA_REF1, op)};
KKA_TABLE(minel)
KKA_TABLE(maxel)
KKA_TABLE(minmaxel)
KKA_TABLE(count)
KKA_TABLE(find)
KKA_TABLE(compact)
KKA_TABLE(compact32)
KKA_TABLE(unique)
KKA_TABLE(sum)
KKA_TABLE(prod)
KKA_TABLE(min)
KKA_TABLE(max)
KKA_TABLE(unsorted)
KKA_TABLE(scan)
KKA_TABLE(adjdiff)
KKA_TABLE(iota)
#define KKA_INTS(X, op) X(op, i8) X(op, u8) X(op, i16) X(op, u16) X(op, i32) X(op, u32) X(op, i64) X(op, u64)
KKA_INTS(KKA_DECL1, band)
KKA_INTS(KKA_DECL1, bor)
static const kk_kernel_t *const band_k[10] = {KKA_INTS(KKA_REF1, band) NULL, NULL};
static const kk_kernel_t *const bor_k[10] = {KKA_INTS(KKA_REF1, bor) NULL, NULL};
KK_DECLARE_KERNEL(kka_rev_1);
KK_DECLARE_KERNEL(kka_rev_2);
KK_DECLARE_KERNEL(kka_rev_4);
KK_DECLARE_KERNEL(kka_rev_8);
KK_DECLARE_KERNEL(kka_rev_16);
KK_DECLARE_KERNEL(kka_rev_bytes);

/* Starts a call on rank-1 views[0..n) (names[i]); the first `arith` of them
 * must have an arithmetic element type. */
static kk_status_t begin_views(kka_call_t *c, const char *op, kk_instance_t *inst, int n, kk_view_t *const *views,
                               const char *const *names, int arith) {
  kk_status_t st = kka_begin(c, op, inst, n, views, names);
  for (int i = 0; i < n && st == KK_OK; i++)
    st = kka_check_rank(c, views[i], names[i], 1);
  for (int i = 0; i < arith && st == KK_OK; i++)
    st = kka_check_arith(c, views[i], names[i]);
  return st;
}

/* The header of every argument struct: the views (NULL: none) and n. */
static kk__alg_args header(kk_view_t *in, kk_view_t *in2, kk_view_t *out, int64_t n) {
  kk__alg_args h;
  memset(&h, 0, sizeof h);
  int unit = 1;
  if (in) {
    h.in = kka_desc(in);
    unit &= kka_unit(&h.in);
  }
  if (in2) {
    h.in2 = kka_desc(in2);
    unit &= kka_unit(&h.in2);
  }
  if (out) {
    h.out = kka_desc(out);
    unit &= kka_unit(&h.out);
    h.cap = kk_view_extent(out, 0);
  }
  h.n = n;
  h.flags = unit ? KK__ALG_UNIT : 0;
  return h;
}

static int64_t len(kk_view_t *v) { return kk_view_extent(v, 0); }

/* ---- min / max / minmax element -------------------------------------------------------------- */

/* which: 0 min, 1 max, 2 minmax */
static kk_status_t extreme(const char *op, kk_instance_t *inst, kk_view_t *view, int which, int64_t *lo, int64_t *hi) {
  kka_call_t c;
  const char *names[1] = {"view"};
  kk_status_t st = begin_views(&c, op, inst, 1, &view, names, 1);
  if (st != KK_OK)
    return st;
  if ((st = kka_check_ptr(&c, lo, "the index")) != KK_OK || (which == 2 && (st = kka_check_ptr(&c, hi, "max_index")) != KK_OK))
    return st;
  const int t = kka_tidx(kk_view_type(view));
  const kk_kernel_t *k = which == 0 ? minel_k[t] : which == 1 ? maxel_k[t] : minmaxel_k[t];
  struct kka_red_args a = {header(view, NULL, NULL, len(view))};
  unsigned char r[64];
  memset(r, 0, sizeof r);
  if ((st = kka_reduce(&c, k, &a, sizeof a, a.h.n, r, k->reducer->value_size)) != KK_OK)
    return st;
  const int64_t n = a.h.n, none = n > 0 ? 0 : -1; /* only NaNs: the first element */
  int64_t l, h;
  if (which < 2) {
    memcpy(&l, r + 8, 8);
    *lo = l >= 0 ? l : none;
  } else {
    const size_t at = kka_tsize(kk_view_type(view)) == 8 ? 16 : 8;
    memcpy(&l, r + at, 8);
    memcpy(&h, r + at + 8, 8);
    *lo = l >= 0 ? l : none;
    *hi = h >= 0 ? h : none;
  }
  return KK_OK;
}

kk_status_t kk_min_element(kk_instance_t *instance, kk_view_t *view, int64_t *index) {
  return extreme("kk_min_element", instance, view, 0, index, NULL);
}
kk_status_t kk_max_element(kk_instance_t *instance, kk_view_t *view, int64_t *index) {
  return extreme("kk_max_element", instance, view, 1, index, NULL);
}
kk_status_t kk_minmax_element(kk_instance_t *instance, kk_view_t *view, int64_t *min_index, int64_t *max_index) {
  return extreme("kk_minmax_element", instance, view, 2, min_index, max_index);
}

/* ---- predicates ---------------------------------------------------------------------------------- */

/* The argument struct of a predicate's kernels, in buf: the header, then a
 * built-in comparison's value or a custom predicate's parameters. */
typedef struct pred_launch {
  _Alignas(16) unsigned char buf[2048];
  size_t size;
  const kk_kernel_t *count, *find, *compact;
} pred_launch_t;

static kk_status_t pred_prepare(const kka_call_t *c, kk_view_t *view, kk_pred_t p, kk__alg_args h, int negate,
                                pred_launch_t *L) {
  if (negate)
    h.flags |= KK__ALG_NEGATE;
  memset(L->buf, 0, sizeof L->buf);
  if (!p.custom) {
    if (KKA_UNLIKELY(kka_tidx(kk_view_type(view)) < 0))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s has element type %s; a comparison predicate takes the "
                     "arithmetic types (or write a KK_PREDICATE)", c->op, kka_label(view), kk_type_name(kk_view_type(view)));
    if (KKA_UNLIKELY((unsigned)p.cmp > (unsigned)KK_CMP_NE))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: comparison %d is not one of KK_CMP_LT .. KK_CMP_NE", c->op, (int)p.cmp);
    if (KKA_UNLIKELY(!p.value))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: the predicate's value is NULL", c->op);
    struct kka_cmp_args a;
    memset(&a, 0, sizeof a);
    a.h = h;
    memcpy(&a.vbits, p.value, kk_view_elem_size(view));
    a.lt = p.cmp == KK_CMP_LT || p.cmp == KK_CMP_LE;
    a.eq = p.cmp == KK_CMP_LE || p.cmp == KK_CMP_GE || p.cmp == KK_CMP_EQ || p.cmp == KK_CMP_NE;
    a.gt = p.cmp == KK_CMP_GT || p.cmp == KK_CMP_GE;
    a.inv = (p.cmp == KK_CMP_NE) ^ (negate != 0);
    memcpy(L->buf, &a, sizeof a);
    L->size = sizeof a;
    const int t = kka_tidx(kk_view_type(view));
    L->count = count_k[t];
    L->find = find_k[t];
    L->compact = compact_k[t];
    return KK_OK;
  }
  const kk_predicate_t *d = p.custom;
  if (KKA_UNLIKELY(d->struct_size < sizeof *d || d->args_size > sizeof L->buf || d->params_offset < sizeof h))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: predicate descriptor '%s' is not one KK_PREDICATE made", c->op,
                   d->name ? d->name : "?");
  if (KKA_UNLIKELY(d->elem_size != kk_view_elem_size(view)))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: predicate '%s' takes elements of %u bytes, view %s has %zu", c->op,
                   d->name, d->elem_size, kka_label(view), kk_view_elem_size(view));
  if (KKA_UNLIKELY(p.params ? p.params_size != d->params_size : d->params_size > 1))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: predicate '%s' takes parameters of %u bytes, %zu given", c->op,
                   d->name, d->params_size, p.params ? p.params_size : 0);
  memcpy(L->buf, &h, sizeof h);
  if (p.params)
    memcpy(L->buf + d->params_offset, p.params, d->params_size);
  L->size = d->args_size;
  L->count = d->count;
  L->find = d->find;
  L->compact = d->compact;
  return KK_OK;
}

/* count of elements where the predicate holds (or, negated, fails) */
static kk_status_t pred_count(const char *op, kk_instance_t *inst, kk_view_t *view, kk_pred_t p, int negate,
                              int64_t *count) {
  kka_call_t c;
  const char *names[1] = {"view"};
  kk_status_t st = begin_views(&c, op, inst, 1, &view, names, 0);
  if (st != KK_OK)
    return st;
  pred_launch_t L;
  if ((st = pred_prepare(&c, view, p, header(view, NULL, NULL, len(view)), negate, &L)) != KK_OK)
    return st;
  *count = 0;
  /* host backends count a built-in comparison KKA_HOST_CB elements per iteration */
  const int64_t n = len(view), iters = !p.custom && c.host ? (n + KKA_HOST_CB - 1) / KKA_HOST_CB : n;
  return kka_reduce(&c, L.count, L.buf, L.size, iters, count, sizeof *count);
}

kk_status_t kk_count_if(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int64_t *count) {
  if (KKA_UNLIKELY(!count))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_count_if: count is NULL");
  return pred_count("kk_count_if", instance, view, pred, 0, count);
}
kk_status_t kk_all_of(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int *result) {
  int64_t fails = 0;
  if (KKA_UNLIKELY(!result))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_all_of: result is NULL");
  kk_status_t st = pred_count("kk_all_of", instance, view, pred, 1, &fails);
  if (st == KK_OK)
    *result = fails == 0;
  return st;
}
kk_status_t kk_any_of(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int *result) {
  int64_t yes = 0;
  if (KKA_UNLIKELY(!result))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_any_of: result is NULL");
  kk_status_t st = pred_count("kk_any_of", instance, view, pred, 0, &yes);
  if (st == KK_OK)
    *result = yes > 0;
  return st;
}
kk_status_t kk_none_of(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int *result) {
  int64_t yes = 0;
  if (KKA_UNLIKELY(!result))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_none_of: result is NULL");
  kk_status_t st = pred_count("kk_none_of", instance, view, pred, 0, &yes);
  if (st == KK_OK)
    *result = yes == 0;
  return st;
}

kk_status_t kk_find_if(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int64_t *index) {
  kka_call_t c;
  const char *names[1] = {"view"};
  kk_status_t st = begin_views(&c, "kk_find_if", instance, 1, &view, names, 0);
  if (st != KK_OK)
    return st;
  if ((st = kka_check_ptr(&c, index, "index")) != KK_OK)
    return st;
  pred_launch_t L;
  if ((st = pred_prepare(&c, view, pred, header(view, NULL, NULL, len(view)), 0, &L)) != KK_OK)
    return st;
  int64_t first = INT64_MAX;
  if ((st = kka_reduce(&c, L.find, L.buf, L.size, len(view), &first, sizeof first)) != KK_OK)
    return st;
  *index = first < len(view) ? first : len(view);
  return KK_OK;
}

/* ---- the band of a built-in comparison (struct kka_band_args) ----------------------------------- */

/* Integers of `bits` bits, signed or not: [lo, hi] as bits, 0 when the band is empty. */
static int band_int(kk_cmp_t cmp, uint64_t vb, int bits, int sgn, uint64_t *lo, uint64_t *hi) {
  if (sgn) {
    const int64_t mx = bits == 64 ? INT64_MAX : (int64_t)(((uint64_t)1 << (bits - 1)) - 1), mn = -mx - 1;
    const uint64_t sbit = (uint64_t)1 << (bits - 1);
    /* the value, sign-extended from its bits */
    const int64_t v = bits == 64 ? (int64_t)vb : (vb & sbit) ? (int64_t)(vb | ~(sbit * 2 - 1)) : (int64_t)vb;
    int64_t l = mn, h = mx;
    switch (cmp) {
    case KK_CMP_LT: if (v == mn) return 0; h = v - 1; break;
    case KK_CMP_LE: h = v; break;
    case KK_CMP_GT: if (v == mx) return 0; l = v + 1; break;
    case KK_CMP_GE: l = v; break;
    default: l = h = v; break; /* EQ, NE (inverted) */
    }
    *lo = (uint64_t)l, *hi = (uint64_t)h;
    return 1;
  }
  const uint64_t mx = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1, v = vb & mx;
  uint64_t l = 0, h = mx;
  switch (cmp) {
  case KK_CMP_LT: if (v == 0) return 0; h = v - 1; break;
  case KK_CMP_LE: h = v; break;
  case KK_CMP_GT: if (v == mx) return 0; l = v + 1; break;
  case KK_CMP_GE: l = v; break;
  default: l = h = v; break;
  }
  *lo = l, *hi = h;
  return 1;
}

/* IEEE floats of `bits` bits (32, 64), through their bits: the next value
 * below or above v is one unit in the last place away (from either zero,
 * the smallest subnormal of the other sign); NaN is in no band. */
static int band_float(kk_cmp_t cmp, uint64_t vb, int bits, uint64_t *lo, uint64_t *hi) {
  const uint64_t sgn = (uint64_t)1 << (bits - 1), inf = bits == 64 ? 0x7ff0000000000000ull : 0x7f800000ull;
  const uint64_t v = bits == 64 ? vb : vb & 0xffffffffull, mag = v & ~sgn, ninf = sgn | inf;
  if (mag > inf) /* NaN: every comparison fails */
    return 0;
  const uint64_t below = mag == 0 ? sgn | 1 : (v & sgn) ? v + 1 : v - 1;
  const uint64_t above = mag == 0 ? 1 : (v & sgn) ? v - 1 : v + 1;
  uint64_t l = ninf, h = inf;
  switch (cmp) {
  case KK_CMP_LT: if (v == ninf) return 0; h = below; break;
  case KK_CMP_LE: h = v; break;
  case KK_CMP_GT: if (v == inf) return 0; l = above; break;
  case KK_CMP_GE: l = v; break;
  default: l = h = v; break;
  }
  *lo = l, *hi = h;
  return 1;
}

/* The band arguments of built-in comparison p on a view of type index t
 * (p checked by pred_prepare). */
static void band_args(int t, kk_pred_t p, int negate, size_t es, struct kka_band_args *b) {
  uint64_t vb = 0;
  memcpy(&vb, p.value, es);
  const int bits = (int)es * 8;
  const int full = t >= 8 ? band_float(p.cmp, vb, bits, &b->lo, &b->hi)
                          : band_int(p.cmp, vb, bits, t % 2 == 0, &b->lo, &b->hi);
  if (!full) { /* empty: lo the largest value, hi the smallest */
    if (t >= 8)
      b->lo = bits == 64 ? 0x7ff0000000000000ull : 0x7f800000ull, b->hi = b->lo | ((uint64_t)1 << (bits - 1));
    else if (t % 2 == 0)
      b->lo = bits == 64 ? (uint64_t)INT64_MAX : ((uint64_t)1 << (bits - 1)) - 1, b->hi = (uint64_t)(-(int64_t)b->lo - 1);
    else
      b->lo = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1, b->hi = 0;
  }
  b->inv = (p.cmp == KK_CMP_NE) ^ (negate != 0);
}

/* Compaction of src into dst (capacity its extent) with the predicate (or
 * its negation); *count the number kept.  A built-in comparison on
 * unit-stride views of fewer than 2^31 elements runs the compact32 kernel
 * (an int32_t count, direct indexing, the comparison as a band); the rest
 * the general one. */
static kk_status_t compact(const kka_call_t *c, kk_view_t *src, kk_view_t *dst, kk_pred_t p, int negate, int64_t *count) {
  pred_launch_t L;
  const kk__alg_args h = header(src, NULL, dst, len(src));
  kk_status_t st = pred_prepare(c, src, p, h, negate, &L);
  if (st != KK_OK)
    return st;
  *count = 0;
  if (!p.custom && (h.flags & KK__ALG_UNIT) && h.n <= INT32_MAX) {
    struct kka_band_args b;
    memset(&b, 0, sizeof b);
    b.h = h;
    b.h.cap = h.cap < h.n ? h.cap : h.n; /* what can be written: fits the count's type */
    const int t = kka_tidx(kk_view_type(src));
    band_args(t, p, negate, kk_view_elem_size(src), &b);
    int32_t kept = 0;
    if ((st = kka_scan(c, compact32_k[t], &b, sizeof b, h.n, &kept, sizeof kept)) == KK_OK)
      *count = kept;
    return st;
  }
  return kka_scan(c, L.compact, L.buf, L.size, len(src), count, sizeof *count);
}

kk_status_t kk_copy_if(kk_instance_t *instance, kk_view_t *src, kk_view_t *dst, kk_pred_t pred, int64_t *count) {
  kka_call_t c;
  kk_view_t *views[2] = {src, dst};
  const char *names[2] = {"src", "dst"};
  kk_status_t st = begin_views(&c, "kk_copy_if", instance, 2, views, names, 0);
  if (st != KK_OK)
    return st;
  if ((st = kka_check_same_type(&c, src, "src", dst, "dst")) != KK_OK || (st = kka_check_ptr(&c, count, "count")) != KK_OK)
    return st;
  if ((st = compact(&c, src, dst, pred, 0, count)) != KK_OK)
    return st;
  if (KKA_UNLIKELY(*count > len(dst)))
    return kka_err(KK_ERROR_INVALID_ARGUMENT,
                   "kk_copy_if: %lld elements of %s satisfy the predicate, but dst %s holds %lld (those were written)",
                   (long long)*count, kka_label(src), kka_label(dst), (long long)len(dst));
  return KK_OK;
}

/* Compacts `view` in place through a temporary: the kept elements first. */
static kk_status_t compact_in_place(const char *op, kk_instance_t *instance, kk_view_t *view, kk_pred_t *pred,
                                    int64_t *new_size) {
  kka_call_t c;
  const char *names[1] = {"view"};
  kk_status_t st = begin_views(&c, op, instance, 1, &view, names, pred ? 0 : 1);
  if (st != KK_OK)
    return st;
  if ((st = kka_check_ptr(&c, new_size, "new_size")) != KK_OK)
    return st;
  const int64_t n = len(view);
  const uint32_t es = (uint32_t)kk_view_elem_size(view);
  void *tmp = kka_tmp(&c, "kept elements", (size_t)n * es);
  if (!tmp)
    return kk_last_status();
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = "kk-algorithms kept elements";
  s.type = kk_view_type(view);
  s.elem_size = s.type == KK_TYPE_CUSTOM ? es : 0;
  s.rank = 1;
  s.extents[0] = n;
  s.space = c.space;
  kk_view_t *tv = NULL;
  st = kk_view_wrap(&s, tmp, &tv);
  int64_t kept = 0;
  if (st == KK_OK) {
    if (pred) {
      st = compact(&c, view, tv, *pred, 1, &kept);
    } else {
      struct kka_red_args a = {header(view, NULL, tv, n)};
      st = kka_scan(&c, unique_k[kka_tidx(s.type)], &a, sizeof a, n, &kept, sizeof kept);
    }
  }
  if (st == KK_OK)
    st = kka_copy(&c, kka_desc_range(view, 0, kept), kka_desc_raw(tmp, kept, es, s.type), kept, es);
  kk_view_release(tv);
  kka_tmp_free(&c, tmp);
  if (st == KK_OK)
    *new_size = kept;
  return st;
}

kk_status_t kk_remove_if(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int64_t *new_size) {
  return compact_in_place("kk_remove_if", instance, view, &pred, new_size);
}
kk_status_t kk_unique(kk_instance_t *instance, kk_view_t *view, int64_t *new_size) {
  return compact_in_place("kk_unique", instance, view, NULL, new_size);
}

/* ---- reductions and transforms ------------------------------------------------------------------- */

static void put_flag(kk_type_t t, void *result, int yes) {
  const int8_t b1 = (int8_t)yes;
  const int16_t b2 = (int16_t)yes;
  const int32_t b4 = yes;
  const int64_t b8 = yes;
  const float f = (float)yes;
  const double d = yes;
  const void *src = t == KK_FLOAT ? (const void *)&f : t == KK_DOUBLE ? (const void *)&d : kka_tsize(t) == 1 ? (const void *)&b1
                  : kka_tsize(t) == 2 ? (const void *)&b2 : kka_tsize(t) == 4 ? (const void *)&b4 : (const void *)&b8;
  memcpy(result, src, kka_tsize(t));
}

kk_status_t kk_reduce(kk_instance_t *instance, kk_view_t *view, kk_reducer_op_t op, void *result) {
  kka_call_t c;
  const char *names[1] = {"view"};
  kk_status_t st = begin_views(&c, "kk_reduce", instance, 1, &view, names, 1);
  if (st != KK_OK)
    return st;
  if ((st = kka_check_ptr(&c, result, "result")) != KK_OK)
    return st;
  const kk_type_t t = kk_view_type(view);
  const int ti = kka_tidx(t);
  const int64_t n = len(view);
  if (op == KK_LAND || op == KK_LOR) { /* the count of nonzero elements */
    const uint64_t zero = 0;
    int64_t nz = 0;
    if ((st = pred_count("kk_reduce", instance, view, kk_pred_cmp(KK_CMP_NE, &zero), 0, &nz)) != KK_OK)
      return st;
    put_flag(t, result, op == KK_LAND ? nz == n : nz > 0);
    return KK_OK;
  }
  const kk_kernel_t *k = op == KK_SUM ? sum_k[ti] : op == KK_PROD ? prod_k[ti] : op == KK_MIN ? min_k[ti]
                       : op == KK_MAX ? max_k[ti] : op == KK_BAND ? band_k[ti] : op == KK_BOR ? bor_k[ti] : NULL;
  if (KKA_UNLIKELY(!k))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_reduce: reducer %d is not one of KK_SUM, KK_PROD, KK_MIN, KK_MAX, "
                   "KK_LAND, KK_LOR, KK_BAND, KK_BOR on %s (bit operations: integers only)", (int)op, kk_type_name(t));
  struct kka_red_args a = {header(view, NULL, NULL, n)};
  return kka_reduce(&c, k, &a, sizeof a, n, result, kka_tsize(t));
}

/* The argument struct of a transform's kernels. */
static kk_status_t xf_args(const kka_call_t *c, const kk_transform_t *x, kk_view_t *in, kk_view_t *in2, kk_view_t *out,
                           const void *params, size_t params_size, unsigned char *buf, size_t bufsize) {
  if (KKA_UNLIKELY(!x || x->struct_size < sizeof *x || x->args_size > bufsize || x->params_offset < sizeof(kk__alg_args)))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: the transform is NULL or not one KK_TRANSFORM made", c->op);
  if (KKA_UNLIKELY(x->in_size != kk_view_elem_size(in)))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: transform '%s' takes elements of %u bytes, view %s has %zu", c->op,
                   x->name, x->in_size, kka_label(in), kk_view_elem_size(in));
  if (KKA_UNLIKELY((x->in2_size != 0) != (in2 != NULL)))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: transform '%s' takes %s view%s, %s given", c->op, x->name,
                   x->in2_size ? "two" : "one", x->in2_size ? "s" : "", in2 ? "two" : "one");
  if (in2 && KKA_UNLIKELY(x->in2_size != kk_view_elem_size(in2) || len(in2) != len(in)))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: the second view %s has %zu-byte elements and extent %lld; transform "
                   "'%s' takes %u-byte elements, and the extent must be the first's (%lld)", c->op, kka_label(in2),
                   kk_view_elem_size(in2), (long long)len(in2), x->name, x->in2_size, (long long)len(in));
  if (out && KKA_UNLIKELY(kk_view_type(out) != (kk_type_t)x->out_type || len(out) != len(in)))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: dst %s has type %s and extent %lld; transform '%s' gives %s, and the "
                   "extent must be the source's (%lld)", c->op, kka_label(out), kk_type_name(kk_view_type(out)),
                   (long long)len(out), x->name, kk_type_name((kk_type_t)x->out_type), (long long)len(in));
  if (KKA_UNLIKELY(params ? params_size != x->params_size : x->params_size > 1))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: transform '%s' takes parameters of %u bytes, %zu given", c->op,
                   x->name, x->params_size, params ? params_size : 0);
  memset(buf, 0, x->args_size);
  kk__alg_args h = header(in, in2, out, len(in));
  memcpy(buf, &h, sizeof h);
  if (params)
    memcpy(buf + x->params_offset, params, x->params_size);
  return KK_OK;
}

kk_status_t kk_transform_reduce(kk_instance_t *instance, kk_view_t *view, kk_view_t *view2,
                                const kk_transform_t *transform, const void *params, size_t params_size,
                                kk_reducer_op_t op, void *result) {
  kka_call_t c;
  kk_view_t *views[2] = {view, view2};
  const char *names[2] = {"view", "view2"};
  kk_status_t st = begin_views(&c, "kk_transform_reduce", instance, view2 ? 2 : 1, views, names, 0);
  if (st != KK_OK)
    return st;
  if ((st = kka_check_ptr(&c, result, "result")) != KK_OK)
    return st;
  _Alignas(16) unsigned char buf[2048];
  if ((st = xf_args(&c, transform, view, view2, NULL, params, params_size, buf, sizeof buf)) != KK_OK)
    return st;
  const int r = op == KK_SUM ? 0 : op == KK_PROD ? 1 : op == KK_MIN ? 2 : op == KK_MAX ? 3 : -1;
  if (KKA_UNLIKELY(r < 0))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_transform_reduce: reducer %d is not KK_SUM, KK_PROD, KK_MIN or KK_MAX",
                   (int)op);
  return kka_reduce(&c, transform->reduce[r], buf, transform->args_size, len(view), result, transform->out_size);
}

kk_status_t kk_transform(kk_instance_t *instance, kk_view_t *src, kk_view_t *src2, kk_view_t *dst,
                         const kk_transform_t *transform, const void *params, size_t params_size) {
  kka_call_t c;
  kk_view_t *views[3] = {src, dst, src2};
  const char *names[3] = {"src", "dst", "src2"};
  kk_status_t st = begin_views(&c, "kk_transform", instance, src2 ? 3 : 2, views, names, 0);
  if (st != KK_OK)
    return st;
  _Alignas(16) unsigned char buf[2048];
  if ((st = xf_args(&c, transform, src, src2, dst, params, params_size, buf, sizeof buf)) != KK_OK)
    return st;
  return kka_for(&c, transform->map, buf, transform->args_size, len(src));
}

/* ---- scans and differences ------------------------------------------------------------------------ */

static kk_status_t scan(const char *op, kk_instance_t *instance, kk_view_t *src, kk_view_t *dst, int exclusive,
                        const void *init) {
  kka_call_t c;
  kk_view_t *views[2] = {src, dst};
  const char *names[2] = {"src", "dst"};
  kk_status_t st = begin_views(&c, op, instance, 2, views, names, 2);
  if (st == KK_OK)
    st = kka_check_same_type(&c, src, "src", dst, "dst");
  if (st == KK_OK)
    st = kka_check_len(&c, dst, "dst", len(src), 0, "the extent of src");
  if (st != KK_OK)
    return st;
  struct kka_scan_args a;
  memset(&a, 0, sizeof a);
  a.h = header(src, NULL, dst, len(src));
  a.exclusive = exclusive;
  if (init)
    memcpy(&a.init, init, kk_view_elem_size(src));
  return kka_scan(&c, scan_k[kka_tidx(kk_view_type(src))], &a, sizeof a, a.h.n, NULL, 0);
}

kk_status_t kk_inclusive_scan(kk_instance_t *instance, kk_view_t *src, kk_view_t *dst) {
  return scan("kk_inclusive_scan", instance, src, dst, 0, NULL);
}
kk_status_t kk_exclusive_scan(kk_instance_t *instance, kk_view_t *src, kk_view_t *dst, const void *init) {
  return scan("kk_exclusive_scan", instance, src, dst, 1, init);
}

kk_status_t kk_adjacent_difference(kk_instance_t *instance, kk_view_t *src, kk_view_t *dst) {
  kka_call_t c;
  kk_view_t *views[2] = {src, dst};
  const char *names[2] = {"src", "dst"};
  kk_status_t st = begin_views(&c, "kk_adjacent_difference", instance, 2, views, names, 2);
  if (st == KK_OK)
    st = kka_check_same_type(&c, src, "src", dst, "dst");
  if (st == KK_OK)
    st = kka_check_len(&c, dst, "dst", len(src), 0, "the extent of src");
  if (st != KK_OK)
    return st;
  const int64_t n = len(src);
  const uint32_t es = (uint32_t)kk_view_elem_size(src);
  struct kka_red_args a = {header(src, NULL, dst, n)};
  const int k = kka_tidx(kk_view_type(src));
  if (kk_view_data(src) != kk_view_data(dst) || n == 0)
    return kka_for(&c, adjdiff_k[k], &a, sizeof a, n);
  /* in place: the differences into a temporary first */
  void *tmp = kka_tmp(&c, "differences", (size_t)n * es);
  if (!tmp)
    return kk_last_status();
  a.h.out = kka_desc_raw(tmp, n, es, kk_view_type(src));
  a.h.flags = kka_unit(&a.h.in) ? KK__ALG_UNIT : 0;
  st = kka_for(&c, adjdiff_k[k], &a, sizeof a, n);
  if (st == KK_OK)
    st = kka_copy(&c, kka_desc(dst), a.h.out, n, es);
  kka_tmp_free(&c, tmp);
  return st;
}

kk_status_t kk_is_sorted(kk_instance_t *instance, kk_view_t *view, int *result) {
  kka_call_t c;
  const char *names[1] = {"view"};
  kk_status_t st = begin_views(&c, "kk_is_sorted", instance, 1, &view, names, 1);
  if (st != KK_OK)
    return st;
  if ((st = kka_check_ptr(&c, result, "result")) != KK_OK)
    return st;
  struct kka_red_args a = {header(view, NULL, NULL, len(view))};
  int64_t bad = 0;
  if ((st = kka_reduce(&c, unsorted_k[kka_tidx(kk_view_type(view))], &a, sizeof a, len(view) - 1, &bad, sizeof bad)) !=
      KK_OK)
    return st;
  *result = bad == 0;
  return KK_OK;
}

/* ---- fill, iota, reverse, rotate -------------------------------------------------------------------- */

kk_status_t kk_fill(kk_instance_t *instance, kk_view_t *view, const void *value) {
  kka_call_t c;
  const char *names[1] = {"view"};
  kk_status_t st = kka_begin(&c, "kk_fill", instance, 1, &view, names);
  if (st == KK_OK)
    st = kka_check_ptr(&c, value, "value");
  return st != KK_OK ? st : kk_deep_copy_fill_async(c.inst, view, value);
}

kk_status_t kk_iota(kk_instance_t *instance, kk_view_t *view, const void *start) {
  kka_call_t c;
  const char *names[1] = {"view"};
  kk_status_t st = kka_begin(&c, "kk_iota", instance, 1, &view, names);
  if (st == KK_OK)
    st = kka_check_arith(&c, view, "view");
  if (st == KK_OK)
    st = kka_check_ptr(&c, start, "start");
  if (st != KK_OK)
    return st;
  struct kka_iota_args a;
  memset(&a, 0, sizeof a);
  a.v = kka_desc(view);
  a.n = (int64_t)kk_view_size(view);
  memcpy(&a.start, start, kk_view_elem_size(view));
  a.contig = kk_view_span_is_contiguous(view) && (kk_view_rank(view) <= 1 || kk_view_layout(view) == KK_LAYOUT_RIGHT);
  return kka_for(&c, iota_k[kka_tidx(kk_view_type(view))], &a, sizeof a, a.n);
}

static kk_status_t reverse_range(const kka_call_t *c, kk_view_t *view, int64_t b, int64_t n) {
  if (n < 2)
    return KK_OK;
  struct kka_rev_args a;
  memset(&a, 0, sizeof a);
  a.v = kka_desc_range(view, b, n);
  a.n = n;
  a.esize = (uint32_t)kk_view_elem_size(view);
  const kk_kernel_t *k = a.esize == 1 ? KK_KERNEL(kka_rev_1) : a.esize == 2 ? KK_KERNEL(kka_rev_2)
                       : a.esize == 4 ? KK_KERNEL(kka_rev_4) : a.esize == 8 ? KK_KERNEL(kka_rev_8)
                       : a.esize == 16 && !((uintptr_t)a.v.d.data & 15u) ? KK_KERNEL(kka_rev_16) : KK_KERNEL(kka_rev_bytes);
  return kka_for(c, k, &a, sizeof a, n / 2);
}

kk_status_t kk_reverse(kk_instance_t *instance, kk_view_t *view) {
  kka_call_t c;
  const char *names[1] = {"view"};
  kk_status_t st = begin_views(&c, "kk_reverse", instance, 1, &view, names, 0);
  return st != KK_OK ? st : reverse_range(&c, view, 0, len(view));
}

kk_status_t kk_rotate(kk_instance_t *instance, kk_view_t *view, int64_t middle) {
  kka_call_t c;
  const char *names[1] = {"view"};
  kk_status_t st = begin_views(&c, "kk_rotate", instance, 1, &view, names, 0);
  if (st != KK_OK)
    return st;
  const int64_t n = len(view);
  if (KKA_UNLIKELY(middle < 0 || middle > n))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_rotate: middle %lld is outside [0, %lld] (view %s)", (long long)middle,
                   (long long)n, kka_label(view));
  /* three reversals, in place: [0, m), [m, n), then the whole */
  if ((st = reverse_range(&c, view, 0, middle)) == KK_OK && (st = reverse_range(&c, view, middle, n - middle)) == KK_OK)
    st = reverse_range(&c, view, 0, n);
  return st;
}
