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
  const T x = KK_DATA(args->h.in, T)[i];
  if (((x >= KN(val)(args->lo)) & (x <= KN(val)(args->hi))) ^ args->inv) {
    if (fin && *part < (int32_t)args->h.cap)
      KK_DATA(args->h.out, T)[*part] = x;
    *part += 1;
  }
}
/* The band's compaction in one pass, for GPUs (KK_COPY_IF_KERNEL=onepass;
 * args.h's struct kka_sel_args): each team takes the next tile, reads it
 * once into registers, compares each element once, counts the tile's kept
 * elements, publishes the count and looks back for the tiles before it
 * (kka_sel_lookback), then writes its kept elements from the registers;
 * the team of the last tile contributes the total.  SIMT targets: warp w
 * holds elements [w * WARP * IT, (w + 1) * WARP * IT) of the tile,
 * warp-striped (lane l: l, l + WARP, ...), so that each load instruction
 * reads consecutive addresses and a full tile's (every one but the last)
 * are one base and constant offsets, without a test per element; a ballot
 * per item gives a kept element its place among the warp's, so that each
 * store instruction writes consecutive places.  Other targets (SPIR-V):
 * thread t holds a run of IT consecutive elements, the runs' counts are
 * scanned by one work-item. */
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS KK_LAUNCH_BOUNDS(KKA_SEL_TS, KKA_SEL_TEAMS)
KKA_TEAM_REDUCE(KN(select), struct kka_sel_args, int32_t, KK_SUM, team, acc) {
  const int t = (int)KK_TEAM_RANK(team);
  uint32_t *const sm = KK_TEAM_SCRATCH(team, 0, uint32_t, KKA_SEL_WORDS);
  if (t == 0)
    sm[0] = kk_atomic_fetch_add(args->counter, 1u);
  KK_TEAM_BARRIER(team);
  const int32_t tile = (int32_t)sm[0], n = (int32_t)args->b.h.n, cap = (int32_t)args->b.h.cap;
  const int32_t first = tile * KKA_SEL_TILE, here = n - first < KKA_SEL_TILE ? n - first : KKA_SEL_TILE;
  const T lo = KN(val)(args->b.lo), hi = KN(val)(args->b.hi);
  const int inv = args->b.inv;
  const T *const in = KK_DATA(args->b.h.in, T) + first;
  T *const out = KK_DATA(args->b.h.out, T);
  T x[KKA_SEL_IT];
  uint32_t fl = 0; /* bit k: item k is kept */
#if KKA_SEL_SIMT
  const int lane = t % KK__WARP, w = t / KK__WARP;
  const int wb = w * (KK__WARP * KKA_SEL_IT) + lane;
  if (here == KKA_SEL_TILE) {
#pragma unroll
    for (int k = 0; k < KKA_SEL_IT; k++)
      x[k] = in[wb + k * KK__WARP];
#pragma unroll
    for (int k = 0; k < KKA_SEL_IT; k++)
      fl |= (uint32_t)(((x[k] >= lo) & (x[k] <= hi)) ^ inv) << k;
  } else {
#pragma unroll
    for (int k = 0; k < KKA_SEL_IT; k++) {
      const int s = wb + k * KK__WARP;
      x[k] = s < here ? in[s] : lo;
      fl |= (uint32_t)((((x[k] >= lo) & (x[k] <= hi)) ^ inv) & (s < here)) << k;
    }
  }
  int32_t wn = 0;
#pragma unroll
  for (int k = 0; k < KKA_SEL_IT; k++)
    wn += kka_sel_popc(kk__ballot((fl >> k) & 1u));
  if (lane == 0)
    sm[2 + w] = (uint32_t)wn;
  KK_TEAM_BARRIER(team);
  int32_t pos = 0, agg = 0; /* the kept elements of the warps before this one, of the tile */
#pragma unroll
  for (int u = 0; u < KKA_SEL_TS / KK__WARP; u++) {
    const int32_t c = (int32_t)sm[2 + u];
    pos += u < w ? c : 0;
    agg += c;
  }
  if (w == 0) {
    const int32_t prefix = kka_sel_lookback(args->status, tile, agg, lane);
    if (lane == 0) {
      sm[1] = (uint32_t)prefix;
      if (first + here == n)
        *acc += prefix + agg;
    }
  }
  KK_TEAM_BARRIER(team);
  pos += (int32_t)sm[1];
  const kk__lanes_t below = ((kk__lanes_t)1 << lane) - 1;
#pragma unroll
  for (int k = 0; k < KKA_SEL_IT; k++) {
    const uint32_t f = (fl >> k) & 1u;
    const kk__lanes_t m = kk__ballot(f);
    const int32_t at = pos + kka_sel_popc(m & below);
    if (f && at < cap)
      out[at] = x[k];
    pos += kka_sel_popc(m);
  }
#else
  int32_t cnt = 0;
  for (int k = 0; k < KKA_SEL_IT; k++) {
    const int s = t * KKA_SEL_IT + k;
    x[k] = s < here ? in[s] : lo;
    const uint32_t f = (uint32_t)((((x[k] >= lo) & (x[k] <= hi)) ^ inv) & (s < here));
    fl |= f << k;
    cnt += (int32_t)f;
  }
  sm[2 + t] = (uint32_t)cnt;
  KK_TEAM_BARRIER(team);
  if (t == 0) { /* the runs' counts into their exclusive prefixes, then the tiles before */
    int32_t run = 0;
    for (int u = 0; u < KKA_SEL_TS; u++) {
      const int32_t c = (int32_t)sm[2 + u];
      sm[2 + u] = (uint32_t)run;
      run += c;
    }
    const int32_t prefix = kka_sel_lookback(args->status, tile, run);
    sm[1] = (uint32_t)prefix;
    if (first + here == n)
      *acc += prefix + run;
  }
  KK_TEAM_BARRIER(team);
  int32_t pos = (int32_t)(sm[1] + sm[2 + t]);
  for (int k = 0; k < KKA_SEL_IT; k++)
    if ((fl >> k) & 1u) {
      if (pos < cap)
        out[pos] = x[k];
      pos++;
    }
#endif
}
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS
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
