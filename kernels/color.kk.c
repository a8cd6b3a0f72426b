/* kernels/color.kk.c -- graph kernels on a CRS pattern: distance-1 coloring (vertex- and edge-based), distance-2 coloring, MIS-2 and MIS-2 aggregation. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "sparse_ops_args.h"

#define RP(i) KK_DATA(args->rp, int64_t)[i]
#define CI(p) KK_DATA(args->ci, int32_t)[p]

/* A vertex's random priority (a hash of its number and the round's seed);
 * ties go to the higher number. */
KK__FN uint32_t kkk_vhash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
KK__FN int kkk_beats(int64_t j, int64_t i, uint32_t seed) {
  const uint32_t hj = kkk_vhash((uint32_t)j ^ seed), hi = kkk_vhash((uint32_t)i ^ seed);
  return hj > hi || (hj == hi && j > i);
}
/* The lowest clear bit of f (f not all ones). */
KK__FN int32_t kkk_first_clear(uint64_t f) {
  int32_t b = 0;
  while (f & 1u) {
    f >>= 1;
    b++;
  }
  return b;
}

/* Marks color c in the 64-color window from base. */
#define KKK_MARK(c)                                                          \
  do {                                                                       \
    const int32_t c_ = (c);                                                  \
    if (c_ >= base && c_ < base + 64)                                        \
      used |= (uint64_t)1 << (c_ - base);                                    \
  } while (0)

/* Each uncolored vertex takes the smallest color that no vertex within
 * distance `dist` (1 or 2) has, 64 colors at a time, reading and writing
 * the colors in place (atomic loads and stores: the picks of this round
 * that other threads made already are seen, as in Kokkos Kernels' VB
 * algorithm; on one thread this is the greedy coloring), and marks itself
 * as picked in round `tag` (tent). */
KK_FOR(kkk_col_pick, struct kkk_color_args, i) {
  int32_t *color = KK_DATA(args->color, int32_t);
  if (color[i] == 0) {
    for (int32_t base = 1;; base += 64) {
      uint64_t used = 0;
      for (int64_t p = RP(i); p < RP(i + 1); p++) {
        const int64_t j = CI(p);
        if (j != i)
          KKK_MARK(kk_atomic_load(&color[j]));
        if (args->dist == 2)
          for (int64_t q = RP(j); q < RP(j + 1); q++)
            if (CI(q) != i)
              KKK_MARK(kk_atomic_load(&color[CI(q)]));
      }
      if (used != ~(uint64_t)0) {
        kk_atomic_store(&color[i], base + kkk_first_clear(used));
        break;
      }
    }
    KK_DATA(args->tent, int32_t)[i] = args->tag;
  }
}

/* A vertex picked in this round loses its color when a vertex within
 * distance `dist` picked the same one in this round and has the higher
 * priority (color_out: 1 for the losers, 0 else); counts the losers. */
KK_REDUCE(kkk_col_resolve, struct kkk_color_args, int64_t, KK_SUM, i, acc) {
  const int32_t *color = KK_DATA(args->color, int32_t), *tent = KK_DATA(args->tent, int32_t);
  const int32_t tag = args->tag;
  int lose = 0;
  if (tent[i] == tag) {
    const int32_t t = color[i];
    for (int64_t p = RP(i); p < RP(i + 1) && !lose; p++) {
      const int64_t j = CI(p);
      if (j != i && tent[j] == tag && color[j] == t && kkk_beats(j, i, args->seed))
        lose = 1;
      if (args->dist == 2)
        for (int64_t q = RP(j); q < RP(j + 1) && !lose; q++) {
          const int64_t k = CI(q);
          if (k != i && tent[k] == tag && color[k] == t && kkk_beats(k, i, args->seed))
            lose = 1;
        }
    }
  }
  KK_DATA(args->color_out, int32_t)[i] = lose;
  *acc += lose;
}

/* The losers are uncolored again. */
KK_FOR(kkk_col_reset, struct kkk_color_args, i) {
  if (KK_DATA(args->color_out, int32_t)[i])
    KK_DATA(args->color, int32_t)[i] = 0;
}

/* Counts the entries (i, j), j != i, whose mirror (j, i) is missing: the
 * structure is symmetric when there are none. */
KK_REDUCE(kkk_col_symcheck, struct kkk_color_args, int64_t, KK_SUM, i, acc) {
  for (int64_t p = RP(i); p < RP(i + 1); p++) {
    const int64_t j = CI(p);
    int found = j == i;
    for (int64_t q = RP(j); q < RP(j + 1) && !found; q++)
      found = CI(q) == i;
    *acc += !found;
  }
}

/* ---- edge-based distance-1 coloring ------------------------------------------------ */

/* The row of every entry. */
KK_FOR(kkk_col_rowof, struct kkk_color_args, i) {
  for (int64_t p = RP(i); p < RP(i + 1); p++)
    KK_DATA(args->row_of, int32_t)[p] = (int32_t)i;
}

/* Entry (i, j) of an uncolored i: j's color is forbidden for i (within
 * i's window), and an uncolored j of higher priority makes i wait (lose):
 * the Jones-Plassmann rule, so that neighbours never pick in the same
 * round and no conflict can arise. */
KK_FOR(kkk_col_eforbid, struct kkk_color_args, p) {
  const int64_t i = KK_DATA(args->row_of, int32_t)[p], j = CI(p);
  const int32_t *color = KK_DATA(args->color, int32_t);
  if (i != j && color[i] == 0) {
    const int32_t c = color[j], base = KK_DATA(args->base, int32_t)[i];
    if (c == 0) {
      if (kkk_beats(j, i, args->seed))
        kk_atomic_or(&KK_DATA(args->lose, int32_t)[i], 1);
    } else if (c >= base && c < base + 64) {
      kk_atomic_or(&KK_DATA(args->forbid, uint64_t)[i], (uint64_t)1 << (c - base));
    }
  }
}

/* An uncolored vertex that no uncolored neighbour outranks takes the first
 * free color of its window, or moves the window on when all 64 are taken;
 * counts the vertices left uncolored. */
KK_REDUCE(kkk_col_epick, struct kkk_color_args, int64_t, KK_SUM, i, acc) {
  int32_t *color = KK_DATA(args->color, int32_t);
  if (color[i] == 0) {
    uint64_t *forbid = KK_DATA(args->forbid, uint64_t);
    int32_t *base = KK_DATA(args->base, int32_t), *lose = KK_DATA(args->lose, int32_t);
    const uint64_t f = forbid[i];
    if (lose[i]) {
      *acc += 1;
    } else if (f == ~(uint64_t)0) {
      base[i] += 64;
      *acc += 1;
    } else {
      color[i] = base[i] + kkk_first_clear(f);
    }
    forbid[i] = 0;
    lose[i] = 0;
  }
}

/* The same coloring on host backends, a thread per vertex instead of per
 * entry, in place.  In the rounds above a vertex picks only when every
 * neighbour that outranks it has its color, and no neighbour it outranks
 * has one yet, so its color is the smallest one its higher neighbours do
 * not have: the greedy coloring in the order of the priorities.  Here an
 * uncolored vertex waits while a neighbour that outranks it is uncolored
 * (read with atomic loads: 0 or the final color), else takes that color
 * (every window of 64 at once) and stores it, so that vertices after it in
 * the same sweep may go on: the same colors as the per-entry kernels, in
 * fewer rounds, no atomic read-modify-write, and a vertex reads its own
 * row only.  The neighbour that made a vertex wait is kept (tent: its
 * number + 1; it outranks the vertex for good) and looked at first in the
 * next round: while it is uncolored, one load of its color decides,
 * without reading the row; once it is colored, the search goes on from its
 * place in the row (lose: the entries before it neither outrank the vertex
 * nor lose their colors), so a row is searched once over all rounds.
 * Counts the vertices left uncolored. */
KK_REDUCE(kkk_col_ejp, struct kkk_color_args, int64_t, KK_SUM, i, acc) {
  int32_t *color = KK_DATA(args->color, int32_t);
  if (kk_atomic_load(&color[i]) == 0) {
    int32_t *blocker = KK_DATA(args->tent, int32_t), *resume = KK_DATA(args->lose, int32_t);
    const int32_t jb = blocker[i] - 1;
    int wait = jb >= 0 && kk_atomic_load(&color[jb]) == 0;
    const int64_t r0 = RP(i), r1 = wait ? r0 : RP(i + 1);
    for (int64_t p = r0 + resume[i]; p < r1 && !wait; p++) {
      const int64_t j = CI(p);
      if (j != i && kkk_beats(j, i, args->seed) && kk_atomic_load(&color[j]) == 0) {
        wait = 1;
        blocker[i] = (int32_t)j + 1;
        resume[i] = (int32_t)(p - r0);
      }
    }
    if (wait) {
      *acc += 1;
    } else {
      for (int32_t base = 1;; base += 64) {
        uint64_t used = 0;
        for (int64_t p = r0; p < r1; p++)
          if (CI(p) != i)
            KKK_MARK(kk_atomic_load(&color[CI(p)]));
        if (used != ~(uint64_t)0) {
          kk_atomic_store(&color[i], base + kkk_first_clear(used));
          break;
        }
      }
    }
  }
}

/* ---- MIS-2 ---------------------------------------------------------------------------- */

#define KKK_MIS_UNDECIDED 0
#define KKK_MIS_IN 1
#define KKK_MIS_OUT 2

/* A vertex's value in a round: out 0, in INT64_MAX, undecided its random
 * priority with the vertex number below it (unique, in [1, INT64_MAX)). */
KK__FN int64_t kkk_mis_val(const int32_t *state, int64_t v, uint32_t round) {
  const int32_t s = state[v];
  if (s == KKK_MIS_IN)
    return INT64_MAX;
  if (s == KKK_MIS_OUT)
    return 0;
  const uint64_t h = kkk_vhash((uint32_t)v ^ (round * 0x9e3779b9u)) & 0x3fffffffu;
  return (int64_t)((h << 32) | (uint64_t)(uint32_t)v) + 1;
}

KK_FOR(kkk_mis_init, struct kkk_mis_args, i) { KK_DATA(args->state, int32_t)[i] = KKK_MIS_UNDECIDED; }

/* m1(i): the largest value over i and its neighbours. */
KK_FOR(kkk_mis_max1, struct kkk_mis_args, i) {
  const int32_t *state = KK_DATA(args->state, int32_t);
  int64_t m = kkk_mis_val(state, i, args->round);
  for (int64_t p = RP(i); p < RP(i + 1); p++) {
    const int64_t w = kkk_mis_val(state, CI(p), args->round);
    m = w > m ? w : m;
  }
  KK_DATA(args->m1, int64_t)[i] = m;
}

/* The distance-2 maximum decides an undecided vertex: its own value: in;
 * an in vertex's: out.  Counts those still undecided.  (Writes only the
 * vertex's own state, which no other vertex reads in this kernel.) */
KK_REDUCE(kkk_mis_max2, struct kkk_mis_args, int64_t, KK_SUM, i, acc) {
  int32_t *state = KK_DATA(args->state, int32_t);
  if (state[i] == KKK_MIS_UNDECIDED) {
    const int64_t *m1 = KK_DATA(args->m1, int64_t);
    int64_t m = m1[i];
    for (int64_t p = RP(i); p < RP(i + 1); p++)
      m = m1[CI(p)] > m ? m1[CI(p)] : m;
    if (m == kkk_mis_val(state, i, args->round))
      state[i] = KKK_MIS_IN;
    else if (m == INT64_MAX)
      state[i] = KKK_MIS_OUT;
    else
      *acc += 1;
  }
}

/* The vertices in the set, in increasing order, into list (when it has
 * room); label(i) = the vertex's place in the list, or -1. */
KK_SCAN(kkk_mis_list, struct kkk_mis_args, int64_t, i, part, final) {
  const int in = KK_DATA(args->state, int32_t)[i] == KKK_MIS_IN;
  if (final) {
    if (in && KK_EXTENT(args->list, 0) > *part)
      KK_DATA(args->list, int32_t)[*part] = (int32_t)i;
    if (KK_EXTENT(args->label, 0) > i)
      KK_DATA(args->label, int32_t)[i] = in ? (int32_t)*part : -1;
  }
  *part += in;
}

/* Aggregation, first step: a root's neighbours join its aggregate (a
 * vertex has at most one root among its neighbours: roots are distance-2
 * independent). */
KK_FOR(kkk_agg1, struct kkk_mis_args, i) {
  const int32_t *label = KK_DATA(args->label, int32_t);
  int32_t l = label[i];
  for (int64_t p = RP(i); p < RP(i + 1) && l < 0; p++)
    l = label[CI(p)];
  KK_DATA(args->label2, int32_t)[i] = l;
}

/* Second step: a vertex still without an aggregate joins a neighbour's. */
KK_FOR(kkk_agg2, struct kkk_mis_args, i) {
  const int32_t *label2 = KK_DATA(args->label2, int32_t);
  int32_t l = label2[i];
  for (int64_t p = RP(i); p < RP(i + 1) && l < 0; p++)
    l = label2[CI(p)];
  KK_DATA(args->label, int32_t)[i] = l;
}

#undef KKK_MARK
#undef RP
#undef CI
