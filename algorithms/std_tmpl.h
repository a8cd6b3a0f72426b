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
/* GPUs: the compaction in one pass (copy_if, remove_if with a built-in
 * predicate).  Each team takes the next tile (numbers from an atomic
 * counter, so every tile a team waits for belongs to a team that runs),
 * counts the tile's kept elements, publishes the count and looks back over
 * the tiles before it for theirs (decoupled look-back, one thread: a
 * 64-bit word per tile, flag and count), then writes its kept elements in
 * order from there; the last tile stores the total.  The elements are read
 * once, into registers, and each is compared once.  SIMT targets: warp w
 * holds its part of the tile warp-striped (coalesced loads), and a ballot
 * per item gives a kept element its place among the warp's (each store
 * instruction writes consecutive places); other targets (SPIR-V): thread t
 * a run of KKA_SEL_IT consecutive elements, the runs' counts scanned by
 * one work-item. */
#if KKA_SIMT
#define KKA_SEL_LOAD(p) kka_word_load(p)
#define KKA_SEL_STORE(p, v) kka_word_store(p, v)
#else
#define KKA_SEL_LOAD(p) kk_atomic_load(p)
#define KKA_SEL_STORE(p, v) kk_atomic_store(p, v)
#endif
KKA_TEAM_FOR(KN(select), struct kka_cmp_args, team) {
  const int t = (int)KK_TEAM_RANK(team);
  int64_t *const sm = KK_TEAM_SCRATCH(team, 0, int64_t, KKA_SEL_WORDS);
  if (t == 0)
    sm[0] = (int64_t)kk_atomic_fetch_add(args->counter, 1u);
  KK_TEAM_BARRIER(team);
  const int64_t tile = sm[0];
  const int64_t first = tile * (KKA_SEL_TS * KKA_SEL_IT), left = args->h.n - first;
  const int nvalid = left < KKA_SEL_TS * KKA_SEL_IT ? (int)left : KKA_SEL_TS * KKA_SEL_IT;
  T x[KKA_SEL_IT];
  uint32_t fl = 0; /* bit k: item k is kept */
#if KKA_SIMT
  const int ws = KKA_WS, lane = t % ws, w = t / ws;
  const int wbase = w * ws * KKA_SEL_IT + lane; /* warp w: [w * ws * IT, (w + 1) * ws * IT) of the tile */
  int64_t kept = 0;
#pragma unroll
  for (int k = 0; k < KKA_SEL_IT; k++) {
    const int s = wbase + k * ws;
    if (s < nvalid) {
      x[k] = X(first + s);
      fl |= (uint32_t)(KN(cmp)(x[k], args) != 0) << k;
    }
  }
#pragma unroll
  for (int k = 0; k < KKA_SEL_IT; k++)
    kept += kka_popc(kk__ballot(((fl >> k) & 1u) != 0));
  if (lane == 0)
    sm[2 + w] = kept;
  KK_TEAM_BARRIER(team);
  int64_t before = 0, agg = 0; /* the kept elements of the warps before this one's, of the tile */
#pragma unroll
  for (int u = 0; u < KKA_SEL_TS / KKA_WS; u++) {
    const int64_t c = sm[2 + u];
    before += u < w ? c : 0;
    agg += c;
  }
#else
  int64_t kept = 0;
  for (int k = 0; k < KKA_SEL_IT; k++) {
    const int s = t * KKA_SEL_IT + k;
    if (s < nvalid) {
      x[k] = X(first + s);
      if (KN(cmp)(x[k], args)) {
        fl |= 1u << k;
        kept++;
      }
    }
  }
  sm[2 + t] = kept;
  KK_TEAM_BARRIER(team);
  if (t == 0) { /* the runs' counts into their exclusive prefixes, the tile's count in sm[1] */
    int64_t run = 0;
    for (int u = 0; u < KKA_SEL_TS; u++) {
      const int64_t c = sm[2 + u];
      sm[2 + u] = run;
      run += c;
    }
    sm[1] = run;
  }
  KK_TEAM_BARRIER(team);
  const int64_t before = sm[2 + t], agg = sm[1];
  KK_TEAM_BARRIER(team); /* sm[1] is the tile's prefix next */
#endif
  if (t == 0) {
    uint64_t *const st = args->status + tile;
    int64_t prefix = 0;
    if (tile == 0) {
      KKA_SEL_STORE(st, KKA_ST_INCL | (uint64_t)agg);
    } else {
      KKA_SEL_STORE(st, KKA_ST_AGG | (uint64_t)agg);
      for (int64_t j = tile - 1; j >= 0; j--) {
        uint64_t v;
        do
          v = KKA_SEL_LOAD(args->status + j);
        while (!(v & (KKA_ST_AGG | KKA_ST_INCL)));
        prefix += (int64_t)(v & KKA_ST_VALUE);
        if (v & KKA_ST_INCL)
          break;
      }
      KKA_SEL_STORE(st, KKA_ST_INCL | (uint64_t)(prefix + agg));
    }
    sm[1] = prefix;
    if (first + nvalid == args->h.n)
      *args->total = prefix + agg;
  }
  KK_TEAM_BARRIER(team);
  int64_t pos = sm[1] + before;
#if KKA_SIMT
#pragma unroll
  for (int k = 0; k < KKA_SEL_IT; k++) {
    const int f = (int)((fl >> k) & 1u);
    const kk__lanes_t m = kk__ballot(f != 0);
    if (f) {
      const int64_t at = pos + kka_popc(m & kka_lanes_below(lane));
      if (at < args->h.cap)
        Y(at) = x[k];
    }
    pos += kka_popc(m);
  }
#else
  for (int k = 0; k < KKA_SEL_IT; k++) {
    if ((fl >> k) & 1u) {
      if (pos < args->h.cap)
        Y(pos) = x[k];
      pos++;
    }
  }
#endif
}
#undef KKA_SEL_LOAD
#undef KKA_SEL_STORE
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
