/* algorithms/std_tmpl.h -- the standard algorithms' kernels for one arithmetic type (included by std.kk.c once per type). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/*
 * Defined by the includer: T (the type, spelled as a reducer type: int8_t ..
 * double), SFX (the kernels' suffix), ISF (1 for floating point), ISI (1 for
 * integers).  The views are rank-1 strided descriptors in kk__alg_args (in,
 * in2, out), indexed directly when the launch says they have unit stride.
 */

#define KN(op) KKA_CAT(KKA_CAT(kka_, op), KKA_CAT(_, SFX))
/* not a NaN (integers never are; no self-comparison for compilers to flag) */
#if ISF
#define KKA_NUM(x) ((x) == (x))
#else
#define KKA_NUM(x) 1
#endif
#define X(i) KK__ALG_EL(args->h.in, T, i)
#define Y(i) KK__ALG_EL(args->h.out, T, i)

/* the value of a built-in predicate's comparison, from its bits */
KK__FN T KN(val)(uint64_t bits) {
  T v;
  memcpy(&v, &bits, sizeof v);
  return v;
}
KK__FN int KN(cmp)(T x, const struct kka_cmp_args *a) {
  const T v = KN(val)(a->vbits);
  return (((x < v) & a->lt) | ((x == v) & a->eq) | ((x > v) & a->gt)) ^ a->inv;
}

/* ---- min / max / minmax element: NaNs never count; ties: the first (the
 * last for minmax's maximum); loc -1 when nothing counted ------------------------- */
typedef struct KN(vl) {
  T val;
  int64_t loc;
} KN(vl);
typedef struct KN(mm) {
  T mn, mx;
  int64_t mnloc, mxloc;
} KN(mm);
#define KKA_BEATS_MIN(v, l, acc) ((acc)->loc < 0 || (v) < (acc)->val || ((v) == (acc)->val && (l) < (acc)->loc))
#define KKA_BEATS_MAX(v, l, acc) ((acc)->loc < 0 || (v) > (acc)->val || ((v) == (acc)->val && (l) < (acc)->loc))
KKA_REDUCER_INIT(KN(rmin), KN(vl), v) {
  v->val = (T)0;
  v->loc = -1;
}
KKA_REDUCER_JOIN(KN(rmin), KN(vl), d, s) {
  if (s->loc >= 0 && KKA_BEATS_MIN(s->val, s->loc, d))
    *d = *s;
}
KKA_REDUCER_INIT(KN(rmax), KN(vl), v) {
  v->val = (T)0;
  v->loc = -1;
}
KKA_REDUCER_JOIN(KN(rmax), KN(vl), d, s) {
  if (s->loc >= 0 && KKA_BEATS_MAX(s->val, s->loc, d))
    *d = *s;
}
KKA_REDUCER_INIT(KN(rmm), KN(mm), v) {
  v->mn = v->mx = (T)0;
  v->mnloc = v->mxloc = -1;
}
KKA_REDUCER_JOIN(KN(rmm), KN(mm), d, s) {
  if (s->mnloc >= 0 && (d->mnloc < 0 || s->mn < d->mn || (s->mn == d->mn && s->mnloc < d->mnloc))) {
    d->mn = s->mn;
    d->mnloc = s->mnloc;
  }
  if (s->mxloc >= 0 && (d->mxloc < 0 || s->mx > d->mx || (s->mx == d->mx && s->mxloc > d->mxloc))) {
    d->mx = s->mx;
    d->mxloc = s->mxloc;
  }
}
KKA_REDUCE_CUSTOM(KN(minel), struct kka_red_args, KN(vl), KN(rmin), i, acc) {
  const T x = X(i);
  if (KKA_NUM(x) && KKA_BEATS_MIN(x, i, acc)) {
    acc->val = x;
    acc->loc = i;
  }
}
KKA_REDUCE_CUSTOM(KN(maxel), struct kka_red_args, KN(vl), KN(rmax), i, acc) {
  const T x = X(i);
  if (KKA_NUM(x) && KKA_BEATS_MAX(x, i, acc)) {
    acc->val = x;
    acc->loc = i;
  }
}
KKA_REDUCE_CUSTOM(KN(minmaxel), struct kka_red_args, KN(mm), KN(rmm), i, acc) {
  const T x = X(i);
  if (KKA_NUM(x)) {
    if (acc->mnloc < 0 || x < acc->mn || (x == acc->mn && i < acc->mnloc)) {
      acc->mn = x;
      acc->mnloc = i;
    }
    if (acc->mxloc < 0 || x > acc->mx || (x == acc->mx && i > acc->mxloc)) { /* the last of equal maxima */
      acc->mx = x;
      acc->mxloc = i;
    }
  }
}
#undef KKA_BEATS_MIN
#undef KKA_BEATS_MAX

/* ---- built-in predicates: count, first index, compaction --------------------------- */
#if defined(KK_TARGET_HOST) || defined(KK_TARGET_NONE)
/* iteration b: elements [b * KKA_HOST_CB, ...), one loop per comparison */
#define KKA_CNT(OP)                                                                                             \
  for (int64_t e = lo; e < hi; e++)                                                                             \
    c += p[e] OP v;
KKA_REDUCE(KN(count), struct kka_cmp_args, int64_t, KK_SUM, b, acc) {
  const int64_t lo = b * KKA_HOST_CB, hi = lo + KKA_HOST_CB < args->h.n ? lo + KKA_HOST_CB : args->h.n;
  int64_t c = 0;
  if (args->h.flags & KK__ALG_UNIT) {
    const T *p = KK_DATA(args->h.in, T), v = KN(val)(args->vbits);
    const int which = args->lt * 4 + args->eq * 2 + args->gt;
    if (which == 4) /* <, or >= negated */
      KKA_CNT(<)
    else if (which == 6) /* <= */
      KKA_CNT(<=)
    else if (which == 1)
      KKA_CNT(>)
    else if (which == 3)
      KKA_CNT(>=)
    else
      KKA_CNT(==)
    if (args->inv)
      c = (hi - lo) - c;
  } else {
    for (int64_t e = lo; e < hi; e++)
      c += KN(cmp)(X(e), args);
  }
  *acc += c;
}
#undef KKA_CNT
#else
KKA_REDUCE(KN(count), struct kka_cmp_args, int64_t, KK_SUM, i, acc) { *acc += KN(cmp)(X(i), args); }
#endif
KKA_REDUCE(KN(find), struct kka_cmp_args, int64_t, KK_MIN, i, acc) {
  if (i < *acc && KN(cmp)(X(i), args))
    *acc = i;
}
KKA_SCAN(KN(compact), struct kka_cmp_args, int64_t, i, part, fin) {
  const T x = X(i);
  if (KN(cmp)(x, args)) {
    if (fin && *part < args->h.cap)
      Y(*part) = x;
    *part += 1;
  }
}
/* The same with an int32_t count, for unit-stride views of fewer than 2^31
 * elements (std.c picks it at launch): the views indexed directly, 32-bit
 * contributions through the scan, the comparison as a band (two compares),
 * and a capacity that the host clamped to n, so that it fits too. */
KKA_SCAN(KN(compact32), struct kka_band_args, int32_t, i, part, fin) {
  const T x = KKA_RO_LOAD(KK_DATA(args->h.in, T) + i);
  if (((x >= KN(val)(args->lo)) & (x <= KN(val)(args->hi))) ^ args->inv) {
    if (fin && *part < (int32_t)args->h.cap)
      KK_DATA(args->h.out, T)[*part] = x;
    *part += 1;
  }
}
/* unique: the first of each run of equal elements */
KKA_SCAN(KN(unique), struct kka_red_args, int64_t, i, part, fin) {
  const T x = X(i);
  if (i == 0 || !(x == X(i - 1))) {
    if (fin)
      Y(*part) = x;
    *part += 1;
  }
}

/* ---- reductions ------------------------------------------------------------------------ */
KKA_REDUCE(KN(sum), struct kka_red_args, T, KK_SUM, i, acc) { *acc += X(i); }
KKA_REDUCE(KN(prod), struct kka_red_args, T, KK_PROD, i, acc) { *acc *= X(i); }
KKA_REDUCE(KN(min), struct kka_red_args, T, KK_MIN, i, acc) {
  const T x = X(i);
  if (x < *acc)
    *acc = x;
}
KKA_REDUCE(KN(max), struct kka_red_args, T, KK_MAX, i, acc) {
  const T x = X(i);
  if (x > *acc)
    *acc = x;
}
#if ISI
KKA_REDUCE(KN(band), struct kka_red_args, T, KK_BAND, i, acc) { *acc &= X(i); }
KKA_REDUCE(KN(bor), struct kka_red_args, T, KK_BOR, i, acc) { *acc |= X(i); }
#endif
/* elements smaller than the one before them (is_sorted when none) */
KKA_REDUCE(KN(unsorted), struct kka_red_args, int64_t, KK_SUM, i, acc) { *acc += X(i + 1) < X(i); }

/* ---- scans and differences ------------------------------------------------------------ */
KKA_SCAN(KN(scan), struct kka_scan_args, T, i, part, fin) {
  const T x = X(i); /* read before the write: dst may be src */
  if (args->exclusive) {
    if (fin)
      Y(i) = (T)(KN(val)(args->init) + *part);
    *part += x;
  } else {
    *part += x;
    if (fin)
      Y(i) = *part;
  }
}
KKA_FOR(KN(adjdiff), struct kka_red_args, i) { Y(i) = i == 0 ? X(0) : (T)(X(i) - X(i - 1)); }

/* ---- iota (any rank, index order) ----------------------------------------------------- */
KKA_FOR(KN(iota), struct kka_iota_args, i) {
  *(T *)kka_elem(&args->v.d, i, args->contig) = (T)(KN(val)(args->start) + (T)i);
}

#undef KN
#undef KKA_NUM
#undef X
#undef Y
