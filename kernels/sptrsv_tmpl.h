/* kernels/sptrsv_tmpl.h -- the level-set sparse triangular solve for one element type (included by sptrsv.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/* Row i = order[k] of one level: its unknowns come from rows of earlier
 * levels (earlier launches), so a level's rows run in any order.  x may be
 * b: b(i) is read before x(i) is written, and no other row of the level
 * reads x(i).  The row's entries are read whole; those of the other
 * triangle are skipped, so the CRS matrix may hold both factors. */
KKK_FOR(KN(sptrsv), struct kkk_sptrsv_args, k) {
  const int64_t *restrict rp = KK_DATA(args->row_ptr, int64_t);
  const int32_t *restrict ci = KK_DATA(args->col_idx, int32_t);
  const SC *restrict av = KK_DATA(args->vals, SC);
  const int64_t i = KK_AT(args->order, int32_t, k);
  const int lower = args->lower;
  SC s = KK_AT(args->b, SC, i), d = S(zero)();
  for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
    const int64_t j = ci[p];
    if (lower ? j < i : j > i)
      s = S(sub)(s, S(mul)(av[p], KK_AT(args->x, SC, j)));
    else if (j == i)
      d = S(add)(d, av[p]);
  }
  if (!args->unit) /* (no ?: on structs: the SPIR-V target's address spaces differ) */
    s = S(div)(s, d);
  KK_AT(args->x, SC, i) = s;
}

#if CPLX
KKK_REDUCER_INIT(KN(svsum), SC, v) { *v = S(zero)(); }
KKK_REDUCER_JOIN(KN(svsum), SC, d, s) { *d = S(add)(*d, *s); }
#endif

/* The same on GPUs: a level's rows [begin, end) of order dealt to teams,
 * rows_per_team each, a row per team thread and its entries over the
 * thread's vector lanes (adjacent lanes read adjacent entries), as the GPU
 * SpMV does; the diagonal is a second reduction over the row (its lines
 * are in cache by then). */
KKK_TEAM_FOR(KN(sptrsv_team), struct kkk_sptrsv_args, team) {
  const int64_t *restrict rp = KK_DATA(args->row_ptr, int64_t);
  const int32_t *restrict ci = KK_DATA(args->col_idx, int32_t);
  const SC *restrict av = KK_DATA(args->vals, SC);
  const int32_t *restrict order = KK_DATA(args->order, int32_t);
  const int64_t k0 = args->begin + KK_LEAGUE_RANK(team) * args->rows_per_team;
  const int64_t k1 = k0 + args->rows_per_team < args->end ? k0 + args->rows_per_team : args->end;
  const int lower = args->lower, unit = args->unit;
  KK_TEAM_THREAD_FOR(team, k, k0, k1) {
    const int64_t i = order[k], p0 = rp[i], p1 = rp[i + 1];
    SC s, d;
#if CPLX
    KKK_THREAD_VECTOR_REDUCE_CUSTOM(team, p, p0, p1, KN(svsum), s) {
      const int64_t j = ci[p];
      if (lower ? j < i : j > i)
        s = S(fma)(av[p], KK_AT(args->x, SC, j), s);
    }
    d = S(zero)();
    if (!unit) {
      KKK_THREAD_VECTOR_REDUCE_CUSTOM(team, p, p0, p1, KN(svsum), d) {
        if (ci[p] == i)
          d = S(add)(d, av[p]);
      }
    }
#else
    KKK_THREAD_VECTOR_REDUCE(team, p, p0, p1, RT, KK_SUM, s) {
      const int64_t j = ci[p];
      if (lower ? j < i : j > i)
        s += av[p] * KK_AT(args->x, SC, j);
    }
    d = (RT)1;
    if (!unit) {
      KKK_THREAD_VECTOR_REDUCE(team, p, p0, p1, RT, KK_SUM, d) {
        if (ci[p] == i)
          d += av[p];
      }
    }
#endif
    KK_SINGLE_THREAD(team) {
      SC r = S(sub)(KK_AT(args->b, SC, i), s);
      if (!unit)
        r = S(div)(r, d);
      KK_AT(args->x, SC, i) = r;
    }
  }
}

/* The sync-free solve (Liu et al.'s, with the rows in level order): one
 * launch for all levels.  A team takes a ticket (the launch's counter,
 * fetch-and-add: tickets go out in the order teams start, so a team waits
 * only on teams that have started and hold their multiprocessor or host
 * thread) and with it rows [t R, t R + R) of order, R = rows_per_team;
 * team thread q takes rows q, q + T, ... of them, one after the other, its
 * lanes over the row's entries.  Each entry of the triangle waits until
 * its row's flag reads `gen` (acquire), the row's x is stored, then its own
 * flag (release).  Rows of one team thread run in order and each thread
 * waits only on earlier rows, so nothing waits on itself; team threads of
 * one team may wait on each other only where each is its own warp (the
 * host code gives a team more than one thread only on CUDA and HIP).  The
 * team that draws the last ticket takes the tickets back (subtracts the
 * league size), so the counter reads 0 for the next solve. */
KKK_TEAM_FOR(KN(sptrsv_sf), struct kkk_sptrsv_args, team) {
  const int64_t *restrict rp = KK_DATA(args->row_ptr, int64_t);
  const int32_t *restrict ci = KK_DATA(args->col_idx, int32_t);
  const SC *restrict av = KK_DATA(args->vals, SC);
  const int32_t *restrict order = KK_DATA(args->order, int32_t);
  int32_t *ready = KK_DATA(args->ready, int32_t);
  const int32_t gen = args->gen;
  const int lower = args->lower, unit = args->unit;
  KKK_SF_TICKET(team, k0, k1);
  for (int64_t k = k0 + KK_TEAM_RANK(team); k < k1; k += KK_TEAM_SIZE(team)) {
    const int64_t i = order[k], p0 = rp[i], p1 = rp[i + 1];
    SC s, d;
#if CPLX
    KKK_THREAD_VECTOR_REDUCE_CUSTOM(team, p, p0, p1, KN(svsum), s) {
      const int64_t j = ci[p];
      if (lower ? j < i : j > i) {
        while (kk_atomic_load(&ready[j]) != gen)
          ;
        s = S(fma)(av[p], KK_AT(args->x, SC, j), s);
      }
    }
    d = S(zero)();
    if (!unit) {
      KKK_THREAD_VECTOR_REDUCE_CUSTOM(team, p, p0, p1, KN(svsum), d) {
        if (ci[p] == i)
          d = S(add)(d, av[p]);
      }
    }
#else
    KKK_THREAD_VECTOR_REDUCE(team, p, p0, p1, RT, KK_SUM, s) {
      const int64_t j = ci[p];
      if (lower ? j < i : j > i) {
        while (kk_atomic_load(&ready[j]) != gen)
          ;
        s += av[p] * KK_AT(args->x, SC, j);
      }
    }
    d = (RT)1;
    if (!unit) {
      KKK_THREAD_VECTOR_REDUCE(team, p, p0, p1, RT, KK_SUM, d) {
        if (ci[p] == i)
          d += av[p];
      }
    }
#endif
    KK_SINGLE_THREAD(team) {
      SC r = S(sub)(KK_AT(args->b, SC, i), s);
      if (!unit)
        r = S(div)(r, d);
      KK_AT(args->x, SC, i) = r;
      kk_atomic_store(&ready[i], gen);
    }
  }
}

/* The sum of a row's triangle (s) and of its diagonal (d) in one pass. */
struct KN(sv2) {
  SC s, d;
};
KKK_REDUCER_INIT(KN(sv2sum), struct KN(sv2), v) {
  v->s = S(zero)();
  v->d = S(zero)();
}
KKK_REDUCER_JOIN(KN(sv2sum), struct KN(sv2), d, s) {
  d->s = S(add)(d->s, s->s);
  d->d = S(add)(d->d, s->d);
}

/* The row loop of the sync-free solves with a row per team thread
 * (sptrsv_sfg, sptrsv_sfv; sptrsv.c's sync-free setup): slot k of the
 * padded level order holds row order[k] (-1 for a
 * slot that pads a level to a whole number of teams) and, in span[2k] and
 * span[2k + 1], the entries of the row's triangle (its diagonal included;
 * the whole row where its columns are not sorted).  A team draws a ticket
 * t as sptrsv_sf does and takes slots [t R, t R + R), R = rows_per_team;
 * team thread q the slots q, q + T, ... of them (T the team size; one slot
 * each on GPUs, where R = T), its vector lanes over the row's entries, so
 * that the rows of a warp wait at the same time.  One pass over the row:
 * a lane reads an entry's column and value, waits for the column's row
 * (DEP), and adds the product; one lane stores x and publishes the row
 * (PUB).  Where the spans are strict triangles (args->strict: columns
 * sorted) every entry is a dependency and a non-unit row's diagonal is
 * the entry beside its span, loaded before the pass by every lane; else
 * the entries are told apart by column, and a non-unit row sums its
 * diagonal in the same pass and reduction (sv2).
 * No team thread waits on its own team on GPUs (the slots of a ticket
 * there are of one level), and a ticket's
 * earlier slots are of levels no later than its later ones, so the rows a
 * team thread waits on belong to earlier tickets or, on the host (a team
 * of one thread), to its own earlier slots. */
#if CPLX
#define KKK_SF_SUM1(p, p0, p1, s) KKK_THREAD_VECTOR_REDUCE_CUSTOM(team, p, p0, p1, KN(svsum), s)
#else
#define KKK_SF_SUM1(p, p0, p1, s) KKK_THREAD_VECTOR_REDUCE(team, p, p0, p1, RT, KK_SUM, s)
#endif
#ifndef KKK_SF_ROWS
#define KKK_SF_ROWS(DEP, PUB)                                                        \
  for (int64_t k = k0 + KK_TEAM_RANK(team); k < k1; k += KK_TEAM_SIZE(team)) {       \
    const int64_t i = slot[k], p0 = span[2 * k], p1 = span[2 * k + 1];                \
    if (i < 0)                                                                        \
      continue;                                                                       \
    SC r = KK_AT(args->b, SC, i);                                                     \
    if (strict) {                                                                     \
      SC d = S(zero)(), s;                                                            \
      if (!unit)                                                                      \
        d = av[lower ? p1 : p0 - 1];                                                  \
      KKK_SF_SUM1(p, p0, p1, s) {                                                     \
        const int64_t j = ci[p];                                                      \
        const SC a = av[p];                                                           \
        DEP(j, xj)                                                                    \
        s = S(fma)(a, xj, s);                                                         \
      }                                                                               \
      r = S(sub)(r, s);                                                               \
      if (!unit)                                                                      \
        r = S(div)(r, d);                                                             \
    } else if (unit) {                                                                \
      SC s;                                                                           \
      KKK_SF_SUM1(p, p0, p1, s) {                                                     \
        const int64_t j = ci[p];                                                      \
        const SC a = av[p];                                                           \
        if (lower ? j < i : j > i) {                                                  \
          DEP(j, xj)                                                                  \
          s = S(fma)(a, xj, s);                                                       \
        }                                                                             \
      }                                                                               \
      r = S(sub)(r, s);                                                               \
    } else {                                                                          \
      struct KN(sv2) sd;                                                              \
      KKK_THREAD_VECTOR_REDUCE_CUSTOM(team, p, p0, p1, KN(sv2sum), sd) {              \
        const int64_t j = ci[p];                                                      \
        const SC a = av[p];                                                           \
        if (lower ? j < i : j > i) {                                                  \
          DEP(j, xj)                                                                  \
          sd.s = S(fma)(a, xj, sd.s);                                                 \
        } else if (j == i) {                                                          \
          sd.d = S(add)(sd.d, a);                                                     \
        }                                                                             \
      }                                                                               \
      r = S(div)(S(sub)(r, sd.s), sd.d);                                              \
    }                                                                                 \
    KK_SINGLE_THREAD(team) {                                                          \
      KK_AT(args->x, SC, i) = r;                                                      \
      PUB(i, r)                                                                       \
    }                                                                                 \
  }
/* sptrsv_sfg's wait: the flag reads gen (KKK_SF_WAIT), then an acquire
 * (KKK_SF_ACQUIRE: the loads before it stay before it, only x's is
 * after); its publication: a release of the row's flag */
#define KKK_SF_DEP_FLAG(j, xj)        \
  KKK_SF_WAIT(&ready[j], gen, nap)    \
  KKK_SF_ACQUIRE();                   \
  const SC xj = KK_AT(args->x, SC, j);
#define KKK_SF_PUB_FLAG(i, r) KKK_SF_PUBLISH(&ready[i], gen);
/* sptrsv_sfv's: the row's word holds a value (KKK_SFV_WAIT, in sptrsv.kk.c);
 * its word this solve, and NONE into its word of the next */
#define KKK_SF_DEP_VAL(j, xj)                 \
  KKK_CAT(kkk_sfv_w_, SFX) xj##_w;            \
  KKK_SFV_WAIT(SFX, xj##_w, &vcur[j], nap)    \
  const SC xj = KKK_CAT(kkk_sfv_val_, SFX)(xj##_w);
#define KKK_SF_PUB_VAL(i, r)                                  \
  KKK_SFV_PUT(SFX, &vcur[i], KKK_CAT(kkk_sfv_bits_, SFX)(r)); \
  vnext[i] = KKK_SFV_NONE(SFX);
#endif

/* Both solves start alike: the matrix, the slots, their spans, and a
 * ticket (KKK_SF_TICKET) giving the slots [k0, k1). */
#define KKK_SF_START                                                   \
  const int32_t *restrict ci = KK_DATA(args->col_idx, int32_t);        \
  const SC *restrict av = KK_DATA(args->vals, SC);                     \
  const int32_t *restrict slot = KK_DATA(args->order, int32_t);        \
  const int64_t *restrict span = KK_DATA(args->span, int64_t);         \
  const int32_t nap = args->nap_ns;                                    \
  const int lower = args->lower, unit = args->unit;                    \
  const int strict = args->strict;                                     \
  KKK_SF_TICKET(team, k0, k1);                                         \
  (void)nap /* (read by the waits on CUDA only) */

/* sptrsv_sfg: a flag per row (ready, int32) that reads gen once the row's
 * x is stored. */
KKK_TEAM_FOR(KN(sptrsv_sfg), struct kkk_sptrsv_args, team) {
  KKK_SF_START;
  int32_t *ready = KK_DATA(args->ready, int32_t);
  const int32_t gen = args->gen;
  KKK_SF_ROWS(KKK_SF_DEP_FLAG, KKK_SF_PUB_FLAG)
}

#if KKK_CAT(KKK_SFV_HAS_, SFX)
/* sptrsv_sfv (float, double, complex float): the rows' x published in
 * words of their own, val (int32 or int64), that read KKK_SFV_NONE until the row is
 * solved: this solve's are val[vcur, vcur + rows), the next solve's
 * val[vnext, vnext + rows), set to NONE as the rows are solved (nothing
 * reads them in this launch), so that no launch but the first resets
 * them. */
KKK_TEAM_FOR(KN(sptrsv_sfv), struct kkk_sptrsv_args, team) {
  KKK_SF_START;
  KKK_CAT(kkk_sfv_w_, SFX) *vcur = KK_DATA(args->val, KKK_CAT(kkk_sfv_w_, SFX)) + args->vcur;
  KKK_CAT(kkk_sfv_w_, SFX) *vnext = KK_DATA(args->val, KKK_CAT(kkk_sfv_w_, SFX)) + args->vnext;
  KKK_SF_ROWS(KKK_SF_DEP_VAL, KKK_SF_PUB_VAL)
}
#endif
#undef KKK_SF_SUM1
