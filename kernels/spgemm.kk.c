/* kernels/spgemm.kk.c -- SpGEMM, its Jacobi-fused form and SpAdd: table sizes, symbolic counts, row offsets, and the numeric fill for the four element types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "scalar.h"
#include "sparse_ops_args.h"

#define ARP(i) KK_DATA(args->arp, int64_t)[i]
#define BRP(i) KK_DATA(args->brp, int64_t)[i]

/* The slot of column c in a table of mask + 1 slots (keys -1 when empty):
 * claimed for c if c is not there yet (*fresh 1); -1 when the table is
 * full (a pattern other than the one the table was sized for). */
KK__FN int64_t kkk_hslot(int32_t *keys, int64_t mask, int32_t c, int *fresh) {
  int64_t h = (int64_t)(((uint32_t)c * 2654435761u) & (uint32_t)mask);
  for (int64_t n = 0; n <= mask; n++) {
    const int32_t k = keys[h];
    if (k == c) {
      *fresh = 0;
      return h;
    }
    if (k < 0) {
      keys[h] = c;
      *fresh = 1;
      return h;
    }
    h = (h + 1) & mask;
  }
  *fresh = 0;
  return -1;
}

/* Row i's upper bound of entries: its terms (with KKK_SG_FROMCNT the
 * symbolic phase's count of its columns). */
KK__FN int64_t kkk_sg_ub(const struct kkk_sg_args *args, int64_t i) {
  int64_t ub = 0;
  if (args->flags & KKK_SG_FROMCNT)
    return KK_DATA(args->cnt, int64_t)[i];
  if (args->flags & KKK_SG_AROW)
    ub += ARP(i + 1) - ARP(i);
  if (args->flags & KKK_SG_BROW)
    ub += BRP(i + 1) - BRP(i);
  if (args->flags & KKK_SG_AB) {
    const int32_t *aci = KK_DATA(args->aci, int32_t);
    for (int64_t p = ARP(i); p < ARP(i + 1); p++)
      ub += BRP(aci[p] + 1) - BRP(aci[p]);
  }
  return ub;
}

/* Per row: the upper bound of its entries (its terms; with KKK_SG_FROMCNT
 * the symbolic phase's count of them), its table's size (a power of two
 * at least twice that, at least 8), and where the table lives:
 * scratch (gofs -1) when it fits in cap slots, else at an offset in the
 * global tables (the scan's total is their size).  With KKK_SG_UBOUT the
 * bound also goes into cnt (the one-pass product's scratch rows). */
KK_SCAN(kkk_sg_size, struct kkk_sg_args, int64_t, i, part, final) {
  const int64_t ub = kkk_sg_ub(args, i);
  int64_t ts = 8;
  while (ts < 2 * ub)
    ts *= 2;
  const int spill = ts > args->cap; /* ("global" is an OpenCL C keyword) */
  if (final) {
    KK_DATA(args->tsz, int64_t)[i] = ts;
    KK_DATA(args->gofs, int64_t)[i] = spill ? *part : -1;
    if (args->flags & KKK_SG_UBOUT)
      KK_DATA(args->cnt, int64_t)[i] = ub;
  }
  if (spill)
    *part += ts;
}

/* The bin of a row whose table has ts slots (see sparse_ops_args.h). */
KK__FN int kkk_sg_binof(int64_t ts, int64_t cap) {
  if (ts <= KKK_SG_THREAD_SLOTS)
    return 0;
  if (ts > cap)
    return KKK_SG_NBIN - 1;
  int b = 0;
  while (((int64_t)KKK_SG_THREAD_SLOTS << b) < ts && b < KKK_SG_NBIN - 2)
    b++;
  return b;
}

/* The bins' counts (bcnt += each bin's rows), and then the rows placed in
 * list by bin (bcnt counted back down to zero): rows_per_team rows a team,
 * counted in team scratch first, so that global memory sees one atomic
 * per bin and team. */
KK_TEAM_FOR(kkk_sg_hist, struct kkk_sg_args, team) {
  int32_t *loc = KK_TEAM_SCRATCH(team, 0, int32_t, KKK_SG_NBIN);
  const int64_t r0 = KK_LEAGUE_RANK(team) * args->rows_per_team;
  const int64_t r1 = r0 + args->rows_per_team < args->rows ? r0 + args->rows_per_team : args->rows;
  KK_TEAM_VECTOR_FOR(team, b, 0, KKK_SG_NBIN) { loc[b] = 0; }
  KK_TEAM_BARRIER(team);
  KK_TEAM_VECTOR_FOR(team, i, r0, r1) {
    kk_atomic_inc(&loc[kkk_sg_binof(KK_DATA(args->tsz, int64_t)[i], args->cap)]);
  }
  KK_TEAM_BARRIER(team);
  KK_TEAM_VECTOR_FOR(team, b, 0, KKK_SG_NBIN) {
    if (loc[b] > 0)
      kk_atomic_add(&KK_DATA(args->bcnt, int64_t)[b], (int64_t)loc[b]);
  }
}

KK_TEAM_FOR(kkk_sg_place, struct kkk_sg_args, team) {
  int32_t *loc = KK_TEAM_SCRATCH(team, 0, int32_t, KKK_SG_NBIN);
  int64_t *base = KK_TEAM_SCRATCH(team, 0, int64_t, KKK_SG_NBIN);
  const int64_t r0 = KK_LEAGUE_RANK(team) * args->rows_per_team;
  const int64_t r1 = r0 + args->rows_per_team < args->rows ? r0 + args->rows_per_team : args->rows;
  KK_TEAM_VECTOR_FOR(team, b, 0, KKK_SG_NBIN) { loc[b] = 0; }
  KK_TEAM_BARRIER(team);
  KK_TEAM_VECTOR_FOR(team, i, r0, r1) {
    kk_atomic_inc(&loc[kkk_sg_binof(KK_DATA(args->tsz, int64_t)[i], args->cap)]);
  }
  KK_TEAM_BARRIER(team);
  KK_TEAM_VECTOR_FOR(team, b, 0, KKK_SG_NBIN) {
    /* this team's part of bin b: the loc[b] places below what is left */
    if (loc[b] > 0)
      base[b] = args->boff[b] + kk_atomic_fetch_sub(&KK_DATA(args->bcnt, int64_t)[b], (int64_t)loc[b]) - loc[b];
  }
  KK_TEAM_BARRIER(team);
  int32_t *list = KK_DATA(args->list, int32_t);
  KK_TEAM_VECTOR_FOR(team, i, r0, r1) {
    const int b = kkk_sg_binof(KK_DATA(args->tsz, int64_t)[i], args->cap);
    list[base[b] + kk_atomic_fetch_sub(&loc[b], (int32_t)1) - 1] = (int32_t)i;
  }
}

/* The row of C that position r of a launch takes. */
KK__FN int64_t kkk_sg_row(const struct kkk_sg_args *args, int64_t r) {
  return (args->flags & KKK_SG_LIST) ? (int64_t)KK_DATA(args->list, int32_t)[args->list_off + r] : r;
}

/* The symbolic phase: distinct columns of each row of C, a row per team
 * thread (host backends: every row; GPUs: bin 0). */
KK_TEAM_FOR(kkk_sg_count, struct kkk_sg_args, team) {
  int32_t *skeys = args->cap > 0 ? KK_THREAD_SCRATCH(team, 0, int32_t, args->cap) : (int32_t *)0;
  const int64_t r0 = KK_LEAGUE_RANK(team) * args->rows_per_team;
  const int64_t r1 = r0 + args->rows_per_team < args->rows ? r0 + args->rows_per_team : args->rows;
  const int32_t *aci = KK_DATA(args->aci, int32_t), *bci = KK_DATA(args->bci, int32_t);
  KK_TEAM_THREAD_FOR(team, r, r0, r1) {
    const int64_t i = kkk_sg_row(args, r);
    const int64_t ts = KK_DATA(args->tsz, int64_t)[i], go = KK_DATA(args->gofs, int64_t)[i], mask = ts - 1;
    int32_t *keys = go >= 0 ? KK_DATA(args->gkeys, int32_t) + go : skeys;
    for (int64_t s = 0; s < ts; s++)
      keys[s] = -1;
    int64_t n = 0;
    int fresh = 0;
    if (args->flags & KKK_SG_AROW)
      for (int64_t p = ARP(i); p < ARP(i + 1); p++) {
        kkk_hslot(keys, mask, aci[p], &fresh);
        n += fresh;
      }
    if (args->flags & KKK_SG_BROW)
      for (int64_t q = BRP(i); q < BRP(i + 1); q++) {
        kkk_hslot(keys, mask, bci[q], &fresh);
        n += fresh;
      }
    if (args->flags & KKK_SG_AB)
      for (int64_t p = ARP(i); p < ARP(i + 1); p++) {
        const int32_t k = aci[p];
        for (int64_t q = BRP(k); q < BRP(k + 1); q++) {
          kkk_hslot(keys, mask, bci[q], &fresh);
          n += fresh;
        }
      }
    KK_DATA(args->cnt, int64_t)[i] = n;
  }
}

/* C's row offsets from the counts (crp has rows + 1 elements).  Index i
 * touches cnt[i] and crp[i + 1] only (and crp[0]), each call reads before
 * it writes, and only the final call writes: cnt may be crp + 1, the
 * counts scanned in place (the sorted SpAdd's symbolic phase). */
KK_SCAN(kkk_sg_offsets, struct kkk_sg_args, int64_t, i, part, final) {
  *part += KK_DATA(args->cnt, int64_t)[i];
  if (final) {
    KK_DATA(args->crp, int64_t)[i + 1] = *part;
    if (i == 0)
      KK_DATA(args->crp, int64_t)[0] = 0;
  }
}

/* kkk_hslot for a table that the team's threads fill at once: claims a
 * slot by compare-exchange.  Returns the slot (-1: the table is full),
 * *fresh 1 when this call claimed it. */
KK__FN int64_t kkk_hslot_atomic(int32_t *keys, int64_t mask, int32_t c, int *fresh) {
  int64_t h = (int64_t)(((uint32_t)c * 2654435761u) & (uint32_t)mask);
  *fresh = 0;
  for (int64_t n = 0; n <= mask; n++) {
    const int32_t k = kk_atomic_load(&keys[h]);
    if (k == c)
      return h;
    if (k < 0) {
      const int32_t old = kk_atomic_compare_exchange(&keys[h], (int32_t)-1, c);
      if (old == -1) {
        *fresh = 1;
        return h;
      }
      if (old == c)
        return h;
    }
    h = (h + 1) & mask;
  }
  return -1;
}

/* The symbolic phase on GPUs for rows of bins 1 and up: a team per row,
 * the row's table in team scratch (cap slots) or in the global table,
 * filled by all the team's threads (A's entries dealt among them, the
 * entries of B's row over each thread's lanes), then its keys counted. */
KK_TEAM_FOR(kkk_sg_count_team, struct kkk_sg_args, team) {
  int32_t *skeys = args->cap > 0 ? KK_TEAM_SCRATCH(team, 0, int32_t, args->cap) : (int32_t *)0;
  const int64_t i = kkk_sg_row(args, KK_LEAGUE_RANK(team));
  const int32_t *aci = KK_DATA(args->aci, int32_t), *bci = KK_DATA(args->bci, int32_t);
  const int64_t ts = KK_DATA(args->tsz, int64_t)[i], go = KK_DATA(args->gofs, int64_t)[i], mask = ts - 1;
  int32_t *keys = go >= 0 ? KK_DATA(args->gkeys, int32_t) + go : skeys;
  KK_TEAM_VECTOR_FOR(team, s, 0, ts) { keys[s] = -1; }
  KK_TEAM_BARRIER(team);
  int fresh = 0;
  if (args->flags & KKK_SG_AROW)
    KK_TEAM_VECTOR_FOR(team, p, ARP(i), ARP(i + 1)) { kkk_hslot_atomic(keys, mask, aci[p], &fresh); }
  if (args->flags & KKK_SG_BROW)
    KK_TEAM_VECTOR_FOR(team, q, BRP(i), BRP(i + 1)) { kkk_hslot_atomic(keys, mask, bci[q], &fresh); }
  if (args->flags & KKK_SG_AB)
    KK_TEAM_THREAD_FOR(team, p, ARP(i), ARP(i + 1)) {
      const int32_t k = aci[p];
      KK_THREAD_VECTOR_FOR(team, q, BRP(k), BRP(k + 1)) { kkk_hslot_atomic(keys, mask, bci[q], &fresh); }
    }
  KK_TEAM_BARRIER(team);
  int64_t n;
  KK_TEAM_VECTOR_REDUCE(team, s, 0, ts, int64_t, KK_SUM, n) { n += keys[s] >= 0; }
  KK_SINGLE_TEAM(team) { KK_DATA(args->cnt, int64_t)[i] = n; }
}

/* ---- SpAdd of sorted rows: a merge, no table ------------------------------------------- */

/* The symbolic phase of a sorted SpAdd: row i's distinct columns, counted
 * by merging A's and B's rows (a thread per row).  The reduction counts
 * the rows of A or B whose columns decrease somewhere: when there is one,
 * the counts are wrong and SpAdd takes the hash accumulator instead (the
 * order is checked in the same pass; repeated columns next to each other
 * are fine). */
KK_REDUCE(kkk_sa_count, struct kkk_sg_args, int64_t, KK_SUM, i, acc) {
  const int32_t *aci = KK_DATA(args->aci, int32_t), *bci = KK_DATA(args->bci, int32_t);
  const int64_t p0 = ARP(i), pe = ARP(i + 1), q0 = BRP(i), qe = BRP(i + 1);
  int64_t p = p0, q = q0, n = 0;
  int32_t last = -1;
  int bad = 0;
  while (p < pe || q < qe) {
    int32_t c;
    if (q >= qe || (p < pe && aci[p] <= bci[q])) {
      c = aci[p];
      bad |= p > p0 && c < aci[p - 1];
      p++;
    } else {
      c = bci[q];
      bad |= q > q0 && c < bci[q - 1];
      q++;
    }
    n += c != last;
    last = c;
  }
  KK_DATA(args->cnt, int64_t)[i] = n;
  *acc += bad;
}

/* ---- host backends: a dense accumulator per thread --------------------------------------- */

/* work(i): the work of rows 0..i-1 (each row's terms plus one, so that
 * empty rows count too); the scan's total is args->wtotal. */
KK_SCAN(kkk_sg_work, struct kkk_sg_args, int64_t, i, part, final) {
  if (final)
    KK_DATA(args->work, int64_t)[i] = *part;
  *part += kkk_sg_ub(args, i) + 1;
}

/* The first row of chunk t of nchunks: the first row whose work before it
 * is at least t / nchunks of the total (args->rows when none is). */
KK__FN int64_t kkk_sg_chunk(const struct kkk_sg_args *args, int64_t t, int64_t nchunks) {
  const int64_t w = args->wtotal;
  const int64_t goal = t * (w / nchunks) + (t * (w % nchunks)) / nchunks;
  const int64_t *work = KK_DATA(args->work, int64_t);
  int64_t lo = 0, hi = args->rows;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (work[mid] >= goal)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* The symbolic phase with a dense marker array: a chunk of rows of equal
 * work per team (of one thread); mark[c] is the last row (within this
 * chunk) that had column c. */
KK_TEAM_FOR(kkk_sg_count_dense, struct kkk_sg_args, team) {
  int32_t *mark = KK_THREAD_SCRATCH(team, 1, int32_t, args->ncols);
  const int64_t nch = KK_LEAGUE_SIZE(team), t = KK_LEAGUE_RANK(team);
  const int64_t r0 = kkk_sg_chunk(args, t, nch), r1 = kkk_sg_chunk(args, t + 1, nch);
  if (r0 >= r1)
    return;
  const int32_t *aci = KK_DATA(args->aci, int32_t), *bci = KK_DATA(args->bci, int32_t);
  int64_t *cnt = KK_DATA(args->cnt, int64_t);
  for (int64_t c = 0; c < args->ncols; c++)
    mark[c] = -1;
  for (int64_t i = r0; i < r1; i++) {
    const int32_t me = (int32_t)i;
    int64_t n = 0;
    if (args->flags & KKK_SG_AROW)
      for (int64_t p = ARP(i); p < ARP(i + 1); p++) {
        const int32_t c = aci[p];
        n += mark[c] != me;
        mark[c] = me;
      }
    if (args->flags & KKK_SG_BROW)
      for (int64_t q = BRP(i); q < BRP(i + 1); q++) {
        const int32_t c = bci[q];
        n += mark[c] != me;
        mark[c] = me;
      }
    if (args->flags & KKK_SG_AB)
      for (int64_t p = ARP(i); p < ARP(i + 1); p++) {
        const int32_t k = aci[p];
        for (int64_t q = BRP(k); q < BRP(k + 1); q++) {
          const int32_t c = bci[q];
          n += mark[c] != me;
          mark[c] = me;
        }
      }
    cnt[i] = n;
  }
}

#undef ARP
#undef BRP

#define KKK_TMPL "spgemm_tmpl.h"
#include "each_type.h"
#undef KKK_TMPL
