/* kernels/spgemm_tmpl.h -- the numeric phase of SpGEMM / Jacobi SpGEMM / SpAdd for one element type (included by spgemm.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/* Sorts C's entries [o0, o1) by column (a Shell sort: rows are short, and
 * it needs no memory of its own). */
KK__FN void KN(sg_sort)(int32_t *cci, SC *cv, int64_t o0, int64_t o1) {
  const int64_t len = o1 - o0;
  int64_t gap = 1;
  while (gap < len / 3)
    gap = 3 * gap + 1;
  for (; gap > 0; gap /= 3)
    for (int64_t u = o0 + gap; u < o1; u++) {
      const int32_t kc = cci[u];
      const SC kv = cv[u];
      int64_t w = u;
      for (; w - gap >= o0 && cci[w - gap] > kc; w -= gap) {
        cci[w] = cci[w - gap];
        cv[w] = cv[w - gap];
      }
      cci[w] = kc;
      cv[w] = kv;
    }
}

/* Row i's terms, each given to PUT(column, value): fa A(i,:) and fb B(i,:)
 * for a sum, f A(i,k) B(k,:) for a product (f = fa, times D^-1(i) in the
 * Jacobi form). */
#define KKK_SG_TERMS(PUT)                                                    \
  do {                                                                       \
    if (args->flags & KKK_SG_AROW)                                           \
      for (int64_t p_ = arp[i]; p_ < arp[i + 1]; p_++)                       \
        PUT(aci[p_], S(mul)(fa, av[p_]));                                    \
    if (args->flags & KKK_SG_BROW)                                           \
      for (int64_t q_ = brp[i]; q_ < brp[i + 1]; q_++)                       \
        PUT(bci[q_], S(mul)(fb, bv[q_]));                                    \
    if (args->flags & KKK_SG_AB) {                                           \
      SC f_ = fa;                                                            \
      if (args->flags & KKK_SG_DINV)                                         \
        f_ = S(mul)(fa, KK_AT(args->dinv, SC, i));                           \
      for (int64_t p_ = arp[i]; p_ < arp[i + 1]; p_++) {                     \
        const int32_t k_ = aci[p_];                                          \
        const SC t_ = S(mul)(f_, av[p_]);                                    \
        for (int64_t q_ = brp[k_]; q_ < brp[k_ + 1]; q_++)                   \
          PUT(bci[q_], S(mul)(t_, bv[q_]));                                  \
      }                                                                      \
    }                                                                        \
  } while (0)

/* Adds v to column c's value in the table (keys, vals). */
#define KKK_SG_PUT(c, v)                                                     \
  do {                                                                       \
    int fresh_;                                                              \
    const int64_t s_ = kkk_hslot(keys, mask, (c), &fresh_);                  \
    if (s_ >= 0)                                                             \
      vals[s_] = fresh_ ? (v) : S(add)(vals[s_], (v));                       \
  } while (0)

/* The numeric phase: row i of C accumulated in its table, then its
 * columns and values stored from crp(i) on (at most crp(i+1) - crp(i) of
 * them), sorted by column with KKK_SG_SORT (a Shell sort: rows are short,
 * and it needs no memory of its own).  A row per team thread: every row on
 * host backends, bin 0 on GPUs. */
KKK_TEAM_FOR(KN(sg_fill), struct kkk_sg_args, team) {
  int32_t *skeys = args->cap > 0 ? KK_THREAD_SCRATCH(team, 0, int32_t, args->cap) : (int32_t *)0;
  SC *svals = args->cap > 0 ? KK_THREAD_SCRATCH(team, 0, SC, args->cap) : (SC *)0;
  const int64_t r0 = KK_LEAGUE_RANK(team) * args->rows_per_team;
  const int64_t r1 = r0 + args->rows_per_team < args->rows ? r0 + args->rows_per_team : args->rows;
  const int64_t *arp = KK_DATA(args->arp, int64_t), *brp = KK_DATA(args->brp, int64_t);
  const int32_t *aci = KK_DATA(args->aci, int32_t), *bci = KK_DATA(args->bci, int32_t);
  const SC *av = KK_DATA(args->av, SC), *bv = KK_DATA(args->bv, SC);
  const SC fa = S(from)(args->fa), fb = S(from)(args->fb);
  int32_t *cci = KK_DATA(args->cci, int32_t);
  SC *cv = KK_DATA(args->cv, SC);
  KK_TEAM_THREAD_FOR(team, r, r0, r1) {
    const int64_t i = kkk_sg_row(args, r);
    const int64_t ts = KK_DATA(args->tsz, int64_t)[i], go = KK_DATA(args->gofs, int64_t)[i], mask = ts - 1;
    int32_t *keys = go >= 0 ? KK_DATA(args->gkeys, int32_t) + go : skeys;
    SC *vals = go >= 0 ? KK_DATA(args->gvals, SC) + go : svals;
    for (int64_t s = 0; s < ts; s++)
      keys[s] = -1;
    KKK_SG_TERMS(KKK_SG_PUT);
    const int64_t o0 = KK_DATA(args->crp, int64_t)[i], o1 = KK_DATA(args->crp, int64_t)[i + 1];
    int64_t o = o0;
    for (int64_t s = 0; s < ts && o < o1; s++)
      if (keys[s] >= 0) {
        cci[o] = keys[s];
        cv[o] = vals[s];
        o++;
      }
    if (args->flags & KKK_SG_SORT)
      KN(sg_sort)(cci, cv, o0, o);
    if (args->flags & KKK_SG_ONEPASS)
      KK_DATA(args->cnt, int64_t)[i] = o - o0;
  }
}
#undef KKK_SG_PUT

/* The numeric phase on GPUs, bins 1 and up: a team per row (as
 * sg_count_team: A's entries over the threads, B's row over each thread's
 * lanes), values added atomically, then the row's entries stored in slot
 * order (a team scan gives each its place) and, with KKK_SG_SORT, sorted
 * by one thread. */
KKK_TEAM_FOR(KN(sg_fill_team), struct kkk_sg_args, team) {
  int32_t *skeys = args->cap > 0 ? KK_TEAM_SCRATCH(team, 0, int32_t, args->cap) : (int32_t *)0;
  SC *svals = args->cap > 0 ? KK_TEAM_SCRATCH(team, 0, SC, args->cap) : (SC *)0;
  const int64_t i = kkk_sg_row(args, KK_LEAGUE_RANK(team));
  const int64_t *arp = KK_DATA(args->arp, int64_t), *brp = KK_DATA(args->brp, int64_t);
  const int32_t *aci = KK_DATA(args->aci, int32_t), *bci = KK_DATA(args->bci, int32_t);
  const SC *av = KK_DATA(args->av, SC), *bv = KK_DATA(args->bv, SC);
  const SC fa = S(from)(args->fa), fb = S(from)(args->fb);
  int32_t *cci = KK_DATA(args->cci, int32_t);
  SC *cv = KK_DATA(args->cv, SC);
  const int64_t ts = KK_DATA(args->tsz, int64_t)[i], go = KK_DATA(args->gofs, int64_t)[i], mask = ts - 1;
  int32_t *keys = go >= 0 ? KK_DATA(args->gkeys, int32_t) + go : skeys;
  SC *vals = go >= 0 ? KK_DATA(args->gvals, SC) + go : svals;
  KK_TEAM_VECTOR_FOR(team, s, 0, ts) {
    keys[s] = -1;
    vals[s] = S(zero)();
  }
  KK_TEAM_BARRIER(team);
  int fresh = 0;
  if (args->flags & KKK_SG_AROW)
    KK_TEAM_VECTOR_FOR(team, p, arp[i], arp[i + 1]) {
      const int64_t slot = kkk_hslot_atomic(keys, mask, aci[p], &fresh);
      if (slot >= 0)
        kk_atomic_add(&vals[slot], S(mul)(fa, av[p]));
    }
  if (args->flags & KKK_SG_BROW)
    KK_TEAM_VECTOR_FOR(team, q, brp[i], brp[i + 1]) {
      const int64_t slot = kkk_hslot_atomic(keys, mask, bci[q], &fresh);
      if (slot >= 0)
        kk_atomic_add(&vals[slot], S(mul)(fb, bv[q]));
    }
  if (args->flags & KKK_SG_AB) {
    SC f = fa;
    if (args->flags & KKK_SG_DINV)
      f = S(mul)(fa, KK_AT(args->dinv, SC, i));
    KK_TEAM_THREAD_FOR(team, p, arp[i], arp[i + 1]) {
      const int32_t k = aci[p];
      const SC t = S(mul)(f, av[p]);
      KK_THREAD_VECTOR_FOR(team, q, brp[k], brp[k + 1]) {
        const int64_t slot = kkk_hslot_atomic(keys, mask, bci[q], &fresh);
        if (slot >= 0)
          kk_atomic_add(&vals[slot], S(mul)(t, bv[q]));
      }
    }
  }
  KK_TEAM_BARRIER(team);
  const int64_t o0 = KK_DATA(args->crp, int64_t)[i], o1 = KK_DATA(args->crp, int64_t)[i + 1];
  int64_t part;
  KK_TEAM_THREAD_SCAN(team, s, 0, ts, int64_t, part, final) {
    const int in = keys[s] >= 0;
    if (final && in && o0 + part < o1) {
      cci[o0 + part] = keys[s];
      cv[o0 + part] = vals[s];
    }
    part += in;
  }
  if (args->flags & (KKK_SG_SORT | KKK_SG_ONEPASS)) {
    /* the entries stored: the row's keys, at most the row's room */
    int64_t n;
    KK_TEAM_VECTOR_REDUCE(team, s, 0, ts, int64_t, KK_SUM, n) { n += keys[s] >= 0; }
    const int64_t o = o0 + n < o1 ? o0 + n : o1;
    KK_TEAM_BARRIER(team);
    KK_SINGLE_TEAM(team) {
      if (args->flags & KKK_SG_SORT)
        KN(sg_sort)(cci, cv, o0, o);
      if (args->flags & KKK_SG_ONEPASS)
        KK_DATA(args->cnt, int64_t)[i] = o - o0;
    }
  }
}

/* The one-pass product's last step: each row of C copied from the
 * scratch rows (sci, sv at srp(i)) to its place (cci, cv at crp(i)),
 * crp(i+1) - crp(i) entries; rows_per_team rows a team, a row per team
 * thread, its entries over the thread's lanes. */
KKK_TEAM_FOR(KN(sg_compact), struct kkk_sg_args, team) {
  const int64_t r0 = KK_LEAGUE_RANK(team) * args->rows_per_team;
  const int64_t r1 = r0 + args->rows_per_team < args->rows ? r0 + args->rows_per_team : args->rows;
  const int64_t *srp = KK_DATA(args->srp, int64_t), *crp = KK_DATA(args->crp, int64_t);
  const int32_t *sci = KK_DATA(args->sci, int32_t);
  const SC *sv = KK_DATA(args->sv, SC);
  int32_t *cci = KK_DATA(args->cci, int32_t);
  SC *cv = KK_DATA(args->cv, SC);
  KK_TEAM_THREAD_FOR(team, i, r0, r1) {
    const int64_t s0 = srp[i], o0 = crp[i];
    KK_THREAD_VECTOR_FOR(team, u, 0, crp[i + 1] - o0) {
      cci[o0 + u] = sci[s0 + u];
      cv[o0 + u] = sv[s0 + u];
    }
  }
}

/* The numeric phase of a sorted SpAdd (a thread per row): A's and B's
 * rows i merged into C's, sorted, repeated columns added into one entry,
 * at most crp(i+1) - crp(i) of them (a changed pattern cannot write past
 * the row). */
KKK_FOR(KN(sa_fill), struct kkk_sg_args, i) {
  const int64_t *arp = KK_DATA(args->arp, int64_t), *brp = KK_DATA(args->brp, int64_t);
  const int32_t *aci = KK_DATA(args->aci, int32_t), *bci = KK_DATA(args->bci, int32_t);
  const SC *av = KK_DATA(args->av, SC), *bv = KK_DATA(args->bv, SC);
  const SC fa = S(from)(args->fa), fb = S(from)(args->fb);
  int32_t *cci = KK_DATA(args->cci, int32_t);
  SC *cv = KK_DATA(args->cv, SC);
  int64_t p = arp[i], q = brp[i], o = KK_DATA(args->crp, int64_t)[i] - 1;
  const int64_t pe = arp[i + 1], qe = brp[i + 1], oe = KK_DATA(args->crp, int64_t)[i + 1];
  int32_t last = -1;
  while (p < pe || q < qe) {
    int32_t c;
    SC t;
    if (q >= qe || (p < pe && aci[p] <= bci[q])) {
      c = aci[p];
      t = S(mul)(fa, av[p++]);
    } else {
      c = bci[q];
      t = S(mul)(fb, bv[q++]);
    }
    if (c != last) {
      if (o + 1 >= oe)
        break;
      o++;
      cci[o] = c;
      cv[o] = t;
      last = c;
    } else {
      cv[o] = S(add)(cv[o], t);
    }
  }
}

/* The numeric phase with a dense accumulator (host backends): a chunk of
 * rows of equal work per team (of one thread).  place[c] is column c's
 * place in the current row of C (-1: not in it yet): a new column is
 * appended to C's row (at most crp(i+1) - crp(i) of them, so a changed
 * pattern cannot write past the row), a known one adds its term into C's
 * value there; after the row its columns' places go back to -1. */
KKK_TEAM_FOR(KN(sg_fill_dense), struct kkk_sg_args, team) {
  int32_t *place = KK_THREAD_SCRATCH(team, 1, int32_t, args->ncols);
  const int64_t nch = KK_LEAGUE_SIZE(team), t = KK_LEAGUE_RANK(team);
  const int64_t r0 = kkk_sg_chunk(args, t, nch), r1 = kkk_sg_chunk(args, t + 1, nch);
  if (r0 >= r1)
    return;
  const int64_t *arp = KK_DATA(args->arp, int64_t), *brp = KK_DATA(args->brp, int64_t);
  const int64_t *crp = KK_DATA(args->crp, int64_t);
  const int32_t *aci = KK_DATA(args->aci, int32_t), *bci = KK_DATA(args->bci, int32_t);
  const SC *av = KK_DATA(args->av, SC), *bv = KK_DATA(args->bv, SC);
  const SC fa = S(from)(args->fa), fb = S(from)(args->fb);
  int32_t *cci = KK_DATA(args->cci, int32_t);
  SC *cv = KK_DATA(args->cv, SC);
  for (int64_t c = 0; c < args->ncols; c++)
    place[c] = -1;
  for (int64_t i = r0; i < r1; i++) {
    const int64_t o0 = crp[i], room = crp[i + 1] - o0;
    int32_t *ci = cci + o0;
    SC *vi = cv + o0;
    int32_t len = 0;
#define KKK_SG_ADD(c_, v_)                                                   \
  do {                                                                       \
    const int32_t col_ = (c_);                                               \
    const int32_t at_ = place[col_];                                         \
    if (at_ >= 0) {                                                          \
      vi[at_] = S(add)(vi[at_], (v_));                                       \
    } else if (len < room) {                                                 \
      place[col_] = len;                                                     \
      ci[len] = col_;                                                        \
      vi[len++] = (v_);                                                      \
    }                                                                        \
  } while (0)
    KKK_SG_TERMS(KKK_SG_ADD);
#undef KKK_SG_ADD
    for (int32_t u = 0; u < len; u++)
      place[ci[u]] = -1;
    if (args->flags & KKK_SG_SORT)
      KN(sg_sort)(cci, cv, o0, o0 + len);
  }
}
#undef KKK_SG_TERMS
