/* algorithms/sort_pass_tmpl.h -- the GPU radix sort's kernels for one key width and value type (included by sort.kk.c once per pair). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/*
 * Defined by the includer:
 *   KEY_T, ORD     the key's bits (uint8_t .. uint64_t) and its kka_ord_<ORD>
 *   VAL_T          the value's bits, or VAL_NONE defined for keys alone
 *   IT             keys per thread in a tile (KKA_GPU_IT_<ksize>)
 *   PASS, HIST     the names of the pass kernel and (once per key width, when
 *                  HIST is defined) of the histogram kernel
 *   KKA_V2         defined: the second kernels (args.h): 32-bit look-back
 *                  words; the histogram in KKA_HIST2_PARTS(sizeof(KEY_T))
 *                  copies, lane l counting into copy l % parts
 *   KKA_TEAMS      defined: the teams resident a multiprocessor the pass
 *                  is compiled for (undefined: KKA_GPU_TEAMS_KEYS for keys
 *                  alone, KKA_GPU_TEAMS_PAIRS for pairs)
 *   KKA_V5         defined (with KKA_V2): the fifth pass kernels: on SIMT
 *                  GPUs a tile's digits are counted (each warp's, by
 *                  shared atomics) and published before its keys are
 *                  ranked, and a key's rank is its place in the sorted
 *                  tile (as CUB's early-counts ranking)
 *   KKA_LB_STEP    defined: on SIMT GPUs a thread's look-back loads this
 *                  many tiles' words at once (undefined: one at a time)
 *   KKA_V5_VAFTER  defined (with KKA_V5, for values): on SIMT GPUs the
 *                  values are loaded once the keys are out, and sorted
 *                  through the keys' buffer (no buffer of their own: a
 *                  smaller team scratch); elsewhere the kernel is KKA_V5's
 *
 * A pass (the one-sweep of Adinets and Merrill, 2022): each team takes the
 * next tile of KKA_GPU_TS * IT keys (tile numbers come from an atomic
 * counter, so every tile a team waits for belongs to a team that runs),
 * ranks its keys by digit, stably, in the tile; publishes its count of each
 * digit and looks back over the tiles before it for the count of that digit
 * there (decoupled look-back, one digit per thread); then writes the keys,
 * sorted by digit in shared memory first, to their place: the digit's start
 * (the histogram kernel's exclusive scan) + the digit's count in the tiles
 * before + the key's rank in the tile.  Ranking: on SIMT GPUs each warp
 * ranks its keys item by item, the lanes with the same digit found by eight
 * ballots (as CUB's MatchAny), a counter per warp and digit; on other
 * targets (SPIR-V) one work-item walks the tile.
 */

#if KKA_SIMT && !defined(KKA_TILE_SCAN)
/* In a pass team on SIMT GPUs thread t owns digit t: its counts in the
 * warps' counters (wc[w * KKA_RADIX + t]) become each warp's start within
 * the digit's run, TC gets the tile's count of the digit, PUBLISH runs,
 * then one block scan (a warp scan, the warps' totals in misc[2 + w], a
 * team barrier) leaves the digit's exclusive start in the tile in START.
 * It names the pass's own locals (wc, misc, t, w, lane, ws, team). */
#define KKA_TILE_SCAN(TC, PUBLISH, START)                                                                     \
  do {                                                                                                        \
    uint32_t run_ = 0;                                                                                        \
    _Pragma("unroll") for (int ww_ = 0; ww_ < KKA_GPU_TS / KKA_WS; ww_++) {                                   \
      const uint32_t c_ = wc[ww_ * KKA_RADIX + t];                                                            \
      wc[ww_ * KKA_RADIX + t] = run_;                                                                         \
      run_ += c_;                                                                                             \
    }                                                                                                         \
    TC = run_;                                                                                                \
    PUBLISH;                                                                                                  \
    uint32_t excl_;                                                                                           \
    const uint32_t incl_ = kk__warp_scan<uint32_t, kk__bjoin<KK_SUM, uint32_t> >(run_, (unsigned)lane, &excl_); \
    if (lane == ws - 1)                                                                                       \
      misc[2 + w] = incl_;                                                                                    \
    KK_TEAM_BARRIER(team);                                                                                    \
    uint32_t before_ = 0;                                                                                     \
    _Pragma("unroll") for (int ww_ = 0; ww_ < KKA_GPU_TS / KKA_WS; ww_++) before_ +=                          \
        ww_ < w ? misc[2 + ww_] : 0u;                                                                         \
    START = before_ + excl_;                                                                                  \
  } while (0)
#endif
#define KKA_TILE (KKA_GPU_TS * IT)
#ifdef VAL_NONE
#define KKA_VSZ 0
#else
#define KKA_VSZ ((int)sizeof(VAL_T))
#endif
#define KKA_ORDF KKA_CAT(kka_ord_, ORD)
/* a pass team's scratch: KKA_V5_VAFTER sorts the values through the keys'
 * buffer after the keys are out */
#if defined(KKA_V5_VAFTER) && KKA_SIMT
#define KKA_SCR_BYTES KKA_GS_BYTES(KKA_TILE, (int)(sizeof(KEY_T) > sizeof(VAL_T) ? sizeof(KEY_T) : sizeof(VAL_T)), 0)
#else
#define KKA_SCR_BYTES KKA_GS_BYTES(KKA_TILE, (int)sizeof(KEY_T), KKA_VSZ)
#endif
/* the look-back word, its flags, epoch and count */
#ifdef KKA_V2
#define KKA_SWT uint32_t
#define KKA_SWA KKA_SW_AGG
#define KKA_SWI KKA_SW_INCL
#define KKA_SWE(e) KKA_SW_PARITY(e)
#define KKA_SWE_OF(x) KKA_SW_PARITY_OF(x)
#define KKA_SWV KKA_SW_VALUE
#define KKA_WLOAD kka_word_load32
#define KKA_WSTORE kka_word_store32
#else
#define KKA_SWT uint64_t
#define KKA_SWA KKA_ST_AGG
#define KKA_SWI KKA_ST_INCL
#define KKA_SWE(e) KKA_ST_EPOCH(e)
#define KKA_SWE_OF(x) KKA_ST_EPOCH_OF(x)
#define KKA_SWV KKA_ST_VALUE
#define KKA_WLOAD kka_word_load
#define KKA_WSTORE kka_word_store
#endif
#define KKA_ORDMF KKA_CAT(kka_ordm_, ORD)

#ifdef HIST
#ifdef KKA_V2
#define KKA_HP KKA_HIST2_PARTS((int)sizeof(KEY_T))
#else
#define KKA_HP 1
#endif
/* Counts every digit of every pass in one read of the keys: each team its
 * contiguous share, in team scratch, then into the global counts.  A
 * thread loads KKA_HIST_UNROLL keys before it counts any (that many loads
 * in flight, where one at a time left the loop waiting on each).  The
 * counters of a digit are KKA_HP copies side by side, thread t counting
 * into copy t % KKA_HP: the lanes of a warp that count one digit at once
 * hit as many addresses (in as many banks), so fewer of their atomics
 * wait for each other. */
KKA_TEAM_FOR(HIST, struct kka_ghist_args, team) {
  const int64_t t = KK_TEAM_RANK(team), ts = KK_TEAM_SIZE(team);
  const int np = (int)sizeof(KEY_T);
  uint32_t *cnt = KK_TEAM_SCRATCH(team, 0, uint32_t, KKA_RADIX * sizeof(KEY_T) * KKA_HP);
  for (int64_t e = t; e < KKA_RADIX * np * KKA_HP; e += ts)
    cnt[e] = 0u;
  uint32_t *const mine = cnt + t % KKA_HP;
  KK_TEAM_BARRIER(team);
  const KEY_T *keys = (const KEY_T *)args->kin;
  const int64_t lo = KK_LEAGUE_RANK(team) * args->per;
  const int64_t hi = lo + args->per < args->n ? lo + args->per : args->n;
  const KEY_T xm = KKA_ORD_XM(KEY_T, args->kind, args->desc), fm = KKA_ORD_FM(KEY_T, args->kind);
  int64_t i = lo + t;
  for (; i + (KKA_HIST_UNROLL - 1) * ts < hi; i += KKA_HIST_UNROLL * ts) {
    KEY_T k[KKA_HIST_UNROLL]; /* constant trip counts: unrolled */
    for (int u = 0; u < KKA_HIST_UNROLL; u++)
      k[u] = keys[i + u * ts];
    for (int u = 0; u < KKA_HIST_UNROLL; u++) {
      const KEY_T o = KKA_ORDMF(k[u], xm, fm);
      for (int p = 0; p < np; p++)
        kk_atomic_add(&mine[(p * KKA_RADIX + KKA_DIGIT(ORD, o, p * KKA_RADIX_BITS)) * KKA_HP], 1u);
    }
  }
  for (; i < hi; i += ts) {
    const KEY_T o = KKA_ORDMF(keys[i], xm, fm);
    for (int p = 0; p < np; p++)
      kk_atomic_add(&mine[(p * KKA_RADIX + KKA_DIGIT(ORD, o, p * KKA_RADIX_BITS)) * KKA_HP], 1u);
  }
  KK_TEAM_BARRIER(team);
  for (int64_t e = t; e < KKA_RADIX * np; e += ts) {
    uint32_t c = 0;
    for (int q = 0; q < KKA_HP; q++)
      c += cnt[e * KKA_HP + q];
    if (c)
      kk_atomic_add(&args->hist[e], (uint64_t)c);
  }
}
#undef KKA_HP
#endif

/* teams resident per multiprocessor the pass is compiled for (registers
 * per thread: 64 for 4 of 256 threads) */
#undef KK_TEAM_BOUNDS
#ifdef KKA_TEAMS
#define KK_TEAM_BOUNDS KK_LAUNCH_BOUNDS(KKA_GPU_TS, KKA_TEAMS)
#elif defined(VAL_NONE)
#define KK_TEAM_BOUNDS KK_LAUNCH_BOUNDS(KKA_GPU_TS, KKA_GPU_TEAMS_KEYS)
#else
#define KK_TEAM_BOUNDS KK_LAUNCH_BOUNDS(KKA_GPU_TS, KKA_GPU_TEAMS_PAIRS)
#endif
KKA_TEAM_FOR(PASS, struct kka_gsort_args, team) {
  const int t = (int)KK_TEAM_RANK(team);
  /* scratch (one block at constant offsets: one base register): per-warp
   * digit counters, the tile's digit starts (and its length at [256]), the
   * digits' global starts, team words, the digits of the sorted tile, the
   * tile's keys, its values */
  unsigned char *sm = KK_TEAM_SCRATCH(team, 0, unsigned char, KKA_SCR_BYTES);
  uint32_t *const wc = (uint32_t *)(sm + KKA_GS_WC);
  uint32_t *const tds = (uint32_t *)(sm + KKA_GS_TDS);
  int64_t *const gs = (int64_t *)(sm + KKA_GS_GS);
  uint32_t *const misc = (uint32_t *)(sm + KKA_GS_MISC);
  uint8_t *const dig = sm + KKA_GS_DIG;
  KEY_T *const kbuf = (KEY_T *)(sm + KKA_GS_KBUF(KKA_TILE));
#if defined(KKA_V5_VAFTER) && KKA_SIMT
  VAL_T *const vbuf = (VAL_T *)kbuf; /* once the keys are out */
#elif !defined(VAL_NONE)
  VAL_T *const vbuf = (VAL_T *)(sm + KKA_GS_VBUF(KKA_TILE, (int)sizeof(KEY_T)));
#endif
  KKA_SWT *const stw = (KKA_SWT *)args->status;

  /* the tile: the next number of the counter */
  if (t == 0)
    misc[0] = kk_atomic_fetch_add(args->counter, 1u);
#if KKA_SIMT
  for (int e = t; e < KKA_GPU_NWMAX * KKA_RADIX; e += KKA_GPU_TS)
    wc[e] = 0u;
#endif
  KK_TEAM_BARRIER(team);
  const int64_t tile = (int64_t)misc[0];
  const int64_t first = tile * KKA_TILE;
  const int nvalid = args->n - first < KKA_TILE ? (int)(args->n - first) : KKA_TILE;
  const int sh = args->shift;
  const KEY_T xm = KKA_ORD_XM(KEY_T, args->kind, args->desc), fm = KKA_ORD_FM(KEY_T, args->kind);
  const KEY_T *kin = (const KEY_T *)args->kin + first;
  KEY_T *kout = (KEY_T *)args->kout;
#ifndef VAL_NONE
  const VAL_T *vin = (const VAL_T *)args->vin + first;
  VAL_T *vout = (VAL_T *)args->vout;
#endif
  KEY_T K[IT];
  /* a key's digit (bits 16 and up) and its rank (below): first in its
   * warp, then in the tile */
  uint32_t R[IT];

#if KKA_SIMT
  /* warp-striped: warp w owns [w * WS * IT, (w + 1) * WS * IT) of the tile,
   * its lane l the items l, l + WS, ... of that: loads coalesce, and the
   * warp's item k comes before its item k + 1 */
  const int ws = KKA_WS, lane = t % ws, w = t / ws;
  const int wbase = w * ws * IT + lane;
  if (nvalid == KKA_TILE) { /* every tile but the last: no test per key */
#pragma unroll
    for (int k = 0; k < IT; k++) {
      K[k] = kin[wbase + k * ws];
    }
  } else {
#pragma unroll
    for (int k = 0; k < IT; k++) {
      const int s = wbase + k * ws;
      if (s < nvalid)
        K[k] = kin[s];
    }
  }
#pragma unroll
  for (int k = 0; k < IT; k++)
    R[k] = wbase + k * ws < nvalid ? (uint32_t)KKA_DIGIT(ORD, KKA_ORDMF(K[k], xm, fm), sh) : 0u;
#ifdef KKA_V5
  /* the fifth form: the tile's counts first (each warp's count of each
   * digit, a shared atomic a key), published before any key is ranked, so
   * that the tiles after this one find them early; then each warp's start
   * of each digit in the tile, so that ranking a key gives its place in
   * the sorted tile at once: the lanes with the key's digit by ballots,
   * the highest of them adding their number to the warp's counter of the
   * digit, the counter's old value shuffled to the others */
  uint32_t *const mywc = wc + w * KKA_RADIX;
  if (nvalid == KKA_TILE) {
#pragma unroll
    for (int k = 0; k < IT; k++)
      kk_atomic_add(&mywc[R[k]], 1u);
  } else {
#pragma unroll
    for (int k = 0; k < IT; k++)
      if (wbase + k * ws < nvalid)
        kk_atomic_add(&mywc[R[k]], 1u);
  }
  KK_TEAM_BARRIER(team);
  const int ep = args->epoch;
  KKA_SWT *const st = stw + tile * KKA_RADIX + t;
  /* the tile's count of digit t published, then each warp's start of it
   * in the tile */
  uint32_t tcount, start;
  KKA_TILE_SCAN(tcount, KKA_WSTORE(st, (tile == 0 ? KKA_SWI : KKA_SWA) | KKA_SWE(ep) | (KKA_SWT)tcount), start);
  tds[t] = start;
#pragma unroll
  for (int ww = 0; ww < KKA_GPU_TS / KKA_WS; ww++)
    wc[ww * KKA_RADIX + t] += start;
  KK_TEAM_BARRIER(team);
  /* rank and place each key (and its digit) in scratch: the warp's item k
   * before its item k + 1, lanes in order within an item (stable) */
  {
    const kk__lanes_t below = kka_lanes_below(lane), self = (kk__lanes_t)1 << lane;
    if (nvalid == KKA_TILE) {
#pragma unroll
      for (int k = 0; k < IT; k++) {
        const unsigned d = R[k];
        const kk__lanes_t peers = kka_match_fast(d);
        const int leader = kk__top_lane(peers);
        uint32_t base = 0;
        if (lane == leader)
          base = kk_atomic_fetch_add(&mywc[d], kka_popc(peers));
        R[k] = kka_shfl(base, leader) + kka_popc(peers & below);
        kbuf[R[k]] = K[k];
        dig[R[k]] = (uint8_t)d;
      }
    } else {
#pragma unroll
      for (int k = 0; k < IT; k++) {
        const int valid = wbase + k * ws < nvalid;
        const unsigned d = R[k];
        const kk__lanes_t peers = kka_match_fast(d) & kk__ballot(valid != 0);
        const int leader = kk__top_lane(peers | self); /* a lane without a key: itself */
        uint32_t base = 0;
        if (valid && lane == leader)
          base = kk_atomic_fetch_add(&mywc[d], kka_popc(peers));
        R[k] = kka_shfl(base, leader) + kka_popc(peers & below);
        if (valid) {
          kbuf[R[k]] = K[k];
          dig[R[k]] = (uint8_t)d;
        }
      }
    }
  }
#else
  /* each warp ranks its keys item by item: peers by ballots, a counter per
   * digit (a warp's own counters: no barrier before) */
  uint32_t *mywc = wc + w * KKA_RADIX;
#pragma unroll
  for (int k = 0; k < IT; k++) {
    const int valid = wbase + k * ws < nvalid;
    const int d = (int)R[k];
    const kk__lanes_t peers = kka_match(valid, (unsigned)d);
    const uint32_t below = kka_popc(peers & kka_lanes_below(lane)), count = kka_popc(peers);
    const uint32_t base = valid ? mywc[d] : 0u;
    kk__warp_sync();
    if (valid && below == count - 1u)
      mywc[d] = base + count; /* the last of the peers */
    kk__warp_sync();
    R[k] = ((uint32_t)d << 16) | (base + below);
  }
  KK_TEAM_BARRIER(team);
  uint32_t tcount, start;
  KKA_TILE_SCAN(tcount, (void)0, start);
  tds[t] = start;
  /* this tile's count of digit t, for the tiles after it, as early as it is known */
  const int ep = args->epoch;
  KKA_SWT *const st = stw + tile * KKA_RADIX + t;
  KKA_WSTORE(st, (tile == 0 ? KKA_SWI : KKA_SWA) | KKA_SWE(ep) | (KKA_SWT)tcount);
  KK_TEAM_BARRIER(team);
  /* the keys sorted by digit into scratch (and their digits), while the
   * tiles before publish; the values (loaded only now, when the ranking's
   * registers are free: from the same places as the keys) into the same
   * places of their own buffer, so that one loop writes both out */
#pragma unroll
  for (int k = 0; k < IT; k++) {
    if (nvalid == KKA_TILE || wbase + k * ws < nvalid) {
      const int d = (int)(R[k] >> 16);
      R[k] = (R[k] & 0xFFFFu) + tds[d] + wc[w * KKA_RADIX + d];
      kbuf[R[k]] = K[k];
      dig[R[k]] = (uint8_t)d;
    }
  }
#endif /* KKA_V5 */
#if !defined(VAL_NONE) && !defined(KKA_V5_VAFTER)
#pragma unroll
  for (int k = 0; k < IT; k++)
    if (nvalid == KKA_TILE || wbase + k * ws < nvalid)
      vbuf[R[k]] = vin[wbase + k * ws];
#endif
  /* look back for digit t's count in the tiles before (one word of flag,
   * epoch and count each: loads past L1, no fence) */
  {
    const int d = t;
    uint64_t prefix = 0;
    if (tile > 0) {
#ifdef KKA_LB_STEP
      /* KKA_LB_STEP tiles' words a step, their loads in flight together
       * (one round trip to L2 where one a tile waited for each), folded
       * nearest first until an inclusive count; a word not yet written
       * ends the step, and is waited for alone (one load a try, so that
       * waiting adds no traffic), and the next step starts past it.  Tile
       * 0's word is inclusive, so the tiles past it (clamped to it) are
       * never folded. */
      for (int64_t j = tile - 1;;) {
        KKA_SWT x[KKA_LB_STEP];
#pragma unroll
        for (int u = 0; u < KKA_LB_STEP; u++)
          x[u] = KKA_WLOAD(stw + (j >= u ? j - u : 0) * KKA_RADIX + d);
        int u = 0, done = 0;
#pragma unroll
        for (int q = 0; q < KKA_LB_STEP; q++) {
          if (done || u < q || KKA_SWE_OF(x[q]) != ep)
            continue;
          prefix += x[q] & KKA_SWV;
          u = q + 1;
          done = (x[q] & KKA_SWI) != 0;
        }
        if (done)
          break;
        j -= u;
        if (u < KKA_LB_STEP) { /* tile j has not published yet */
          KKA_SWT y;
          do
            y = KKA_WLOAD(stw + j * KKA_RADIX + d);
          while (KKA_SWE_OF(y) != ep);
          prefix += y & KKA_SWV;
          if (y & KKA_SWI)
            break;
          j--;
        }
      }
#else
      for (int64_t j = tile - 1; j >= 0; j--) {
        KKA_SWT x;
        do
          x = KKA_WLOAD(stw + j * KKA_RADIX + d);
        while (KKA_SWE_OF(x) != ep);
        prefix += x & KKA_SWV;
        if (x & KKA_SWI)
          break;
      }
#endif
      KKA_WSTORE(st, KKA_SWI | KKA_SWE(ep) | (KKA_SWT)(prefix + tcount));
    }
    gs[d] = args->offsets[d] + (int64_t)prefix - (int64_t)tds[d];
  }
  KK_TEAM_BARRIER(team);
  /* to their places: runs of one digit are consecutive addresses (a
   * value goes where its key goes) */
#if !defined(VAL_NONE) && !defined(KKA_V5_VAFTER)
#define KKA_VOUT(at, s) vout[at] = vbuf[s]
#else
#define KKA_VOUT(at, s) (void)0
#endif
  if (nvalid == KKA_TILE) {
#pragma unroll 4
    for (int k = 0; k < IT; k++) {
      const int s = k * KKA_GPU_TS + t;
      const int64_t at = gs[dig[s]] + s;
      kout[at] = kbuf[s];
      KKA_VOUT(at, s);
    }
  } else {
    for (int s = t; s < nvalid; s += KKA_GPU_TS) {
      const int64_t at = gs[dig[s]] + s;
      kout[at] = kbuf[s];
      KKA_VOUT(at, s);
    }
  }
#undef KKA_VOUT
#ifdef KKA_V5_VAFTER
  /* the values: loaded now, sorted through the keys' buffer.  A full
   * tile's loads take no test each, so that they are issued together (one
   * loop with a test a value left each load waited for before the next) */
  KK_TEAM_BARRIER(team);
  if (nvalid == KKA_TILE) {
#pragma unroll
    for (int k = 0; k < IT; k++)
      vbuf[R[k]] = vin[wbase + k * ws];
  } else {
#pragma unroll
    for (int k = 0; k < IT; k++)
      if (wbase + k * ws < nvalid)
        vbuf[R[k]] = vin[wbase + k * ws];
  }
  KK_TEAM_BARRIER(team);
  if (nvalid == KKA_TILE) {
#pragma unroll 4
    for (int k = 0; k < IT; k++) {
      const int s = k * KKA_GPU_TS + t;
      vout[gs[dig[s]] + s] = vbuf[s];
    }
  } else {
    for (int s = t; s < nvalid; s += KKA_GPU_TS)
      vout[gs[dig[s]] + s] = vbuf[s];
  }
#endif
#else
  /* one work-item ranks the tile: blocked items, the keys in order in kbuf */
  uint16_t *rank = (uint16_t *)wc; /* KKA_TILE <= 2 * KKA_GPU_NWMAX * KKA_RADIX */
#ifndef VAL_NONE
  VAL_T V[IT];
#endif
  for (int k = 0; k < IT; k++) {
    const int s = t * IT + k;
    if (s < nvalid) {
      K[k] = kin[s];
#ifndef VAL_NONE
      V[k] = vin[s];
#endif
      kbuf[s] = K[k];
    }
  }
  KK_TEAM_BARRIER(team);
  if (t == 0) {
    uint32_t *cnt = (uint32_t *)gs; /* 256 counters until the look-back */
    for (int d = 0; d < KKA_RADIX; d++)
      cnt[d] = 0u;
    for (int s = 0; s < nvalid; s++)
      cnt[KKA_DIGIT(ORD, KKA_ORDMF(kbuf[s], xm, fm), sh)]++;
    uint32_t run = 0;
    for (int d = 0; d < KKA_RADIX; d++) {
      tds[d] = run;
      run += cnt[d];
      cnt[d] = tds[d];
    }
    tds[KKA_RADIX] = (uint32_t)nvalid;
    for (int s = 0; s < nvalid; s++)
      rank[s] = cnt[KKA_DIGIT(ORD, KKA_ORDMF(kbuf[s], xm, fm), sh)]++;
  }
  KK_TEAM_BARRIER(team);
  for (int k = 0; k < IT; k++)
    R[k] = t * IT + k < nvalid ? rank[t * IT + k] : 0u;
  KK_TEAM_BARRIER(team);
#define KKA_POS(k) (t * IT + (k))

  /* publish this tile's count of each digit, look back for the tiles before */
  for (int d = t; d < KKA_RADIX; d += (int)KK_TEAM_SIZE(team)) {
    const KKA_SWT count = (KKA_SWT)(tds[d + 1] - tds[d]);
    KKA_SWT *st = stw + tile * KKA_RADIX + d;
    uint64_t prefix = 0;
    const KKA_SWT ep = KKA_SWE(args->epoch);
    if (tile == 0) {
      kk_atomic_store(st, KKA_SWI | ep | count);
    } else {
      kk_atomic_store(st, KKA_SWA | ep | count);
      for (int64_t j = tile - 1; j >= 0; j--) {
        KKA_SWT x;
        do
          x = kk_atomic_load(stw + j * KKA_RADIX + d);
        while (KKA_SWE_OF(x) != args->epoch);
        prefix += x & KKA_SWV;
        if (x & KKA_SWI)
          break;
      }
      kk_atomic_store(st, KKA_SWI | ep | (KKA_SWT)(prefix + count));
    }
    gs[d] = args->offsets[d] + (int64_t)prefix - (int64_t)tds[d];
  }
  KK_TEAM_BARRIER(team);

  /* keys (and values) sorted by digit in scratch, then to their places
   * (runs of one digit are consecutive addresses) */
  for (int k = 0; k < IT; k++)
    if (KKA_POS(k) < nvalid) {
      kbuf[R[k]] = K[k];
#ifndef VAL_NONE
      vbuf[R[k]] = V[k];
#endif
    }
  KK_TEAM_BARRIER(team);
  for (int s = t; s < nvalid; s += (int)KK_TEAM_SIZE(team)) {
    const KEY_T x = kbuf[s];
    const int64_t at = gs[KKA_DIGIT(ORD, KKA_ORDMF(x, xm, fm), sh)] + s;
    kout[at] = x;
#ifndef VAL_NONE
    vout[at] = vbuf[s];
#endif
  }
  (void)dig;
#undef KKA_POS
#endif
}

#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS
#undef KKA_TILE
#undef KKA_SCR_BYTES
#undef KKA_VSZ
#undef KKA_ORDF
#undef KKA_ORDMF
#undef KKA_SWT
#undef KKA_SWA
#undef KKA_SWI
#undef KKA_SWE
#undef KKA_SWE_OF
#undef KKA_SWV
#undef KKA_WLOAD
#undef KKA_WSTORE
