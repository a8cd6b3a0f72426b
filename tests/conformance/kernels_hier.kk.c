/* tests/conformance/kernels_hier.kk.c -- MDRange, team, atomic and ScatterView kernels of the conformance suite. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "conformance.h"

/* ---- MDRange: every point counted once ------------------------------------------------- */
KK_MD_FOR2(md_count2, struct md_args, i, j) { KK_AT(args->hits, int32_t, (i - args->b[0]) * (args->e[1] - args->b[1]) + (j - args->b[1])) += 1; }
KK_MD_FOR3(md_count3, struct md_args, i, j, k) {
  int64_t e1 = args->e[1] - args->b[1], e2 = args->e[2] - args->b[2];
  KK_AT(args->hits, int32_t, ((i - args->b[0]) * e1 + (j - args->b[1])) * e2 + (k - args->b[2])) += 1;
}
KK_MD_FOR4(md_count4, struct md_args, i, j, k, l) {
  int64_t e1 = args->e[1] - args->b[1], e2 = args->e[2] - args->b[2], e3 = args->e[3] - args->b[3];
  KK_AT(args->hits, int32_t, (((i - args->b[0]) * e1 + (j - args->b[1])) * e2 + (k - args->b[2])) * e3 + (l - args->b[3])) += 1;
}
KK_MD_FOR5(md_count5, struct md_args, i, j, k, l, m) {
  int64_t e1 = args->e[1] - args->b[1], e2 = args->e[2] - args->b[2], e3 = args->e[3] - args->b[3], e4 = args->e[4] - args->b[4];
  KK_AT(args->hits, int32_t, ((((i - args->b[0]) * e1 + (j - args->b[1])) * e2 + (k - args->b[2])) * e3 + (l - args->b[3])) * e4 + (m - args->b[4])) += 1;
}
/* rank 6 writes through a strided rank-6 view */
KK_MD_FOR6(md_count6, struct md_args, i, j, k, l, m, n) {
  KK_AT(args->hits6, int32_t, i - args->b[0], j - args->b[1], k - args->b[2], l - args->b[3], m - args->b[4], n - args->b[5]) += 1;
}
KK_MD_REDUCE3(md_sum3, struct md_args, int64_t, KK_SUM, i, j, k, acc) { *acc += i * 10000 + j * 100 + k; }
KK_MD_REDUCE2(md_max2, struct md_args, int64_t, KK_MAX, i, j, acc) {
  int64_t v = (i * 7 + j * 13) % 101;
  if (v > *acc)
    *acc = v;
}

/* ---- teams ------------------------------------------------------------------------------- */

/* y = A x with x staged in team scratch, plus checks of everything a team
 * offers, recorded per league rank in out:
 *   out(r, 0) = league rank seen, (r, 1) = team size, (r, 2) = vector length,
 *   (r, 3) = thread-range reduce of 1 over cols (== cols), (r, 4) = vector
 *   reduce, (r, 5) = team-vector max, (r, 6) = broadcast value, (r, 7) = scan total,
 *   (r, 8) = barrier check (1 when every thread saw every write) */
KK_TEAM_FOR(team_matvec, struct team_args, team) {
  const int64_t r = KK_LEAGUE_RANK(team);
  const int64_t n = args->cols;
  double *xs = KK_TEAM_SCRATCH(team, args->level, double, n);
  int64_t *seen = KK_TEAM_SCRATCH(team, args->level, int64_t, KK_TEAM_SIZE(team));
  int64_t *mine = KK_THREAD_SCRATCH(team, args->level, int64_t, 4);
  mine[0] = KK_TEAM_RANK(team);
  KK_TEAM_THREAD_FOR(team, j, 0, n) { xs[j] = KK_AT(args->x, double, j); }
  seen[KK_TEAM_RANK(team)] = 1000 + KK_TEAM_RANK(team);
  KK_TEAM_BARRIER(team);
  int64_t all = 1;
  for (int64_t t = 0; t < KK_TEAM_SIZE(team); t++)
    all &= seen[t] == 1000 + t;
  all &= mine[0] == KK_TEAM_RANK(team);
  double s;
  KK_TEAM_THREAD_REDUCE(team, j, 0, n, double, KK_SUM, s) {
    double p;
    KK_THREAD_VECTOR_REDUCE(team, k, 0, 1, double, KK_SUM, p) { p = KK_AT(args->a, double, r, j) * xs[j] + 0.0 * (double)k; }
    s += p;
  }
  int64_t ones;
  KK_TEAM_THREAD_REDUCE(team, j, 0, n, int64_t, KK_SUM, ones) { ones += 1; }
  int64_t vec;
  KK_THREAD_VECTOR_REDUCE(team, k, 0, 17, int64_t, KK_SUM, vec) { vec += k; }
  int64_t mx;
  KK_TEAM_VECTOR_REDUCE(team, j, 0, n, int64_t, KK_MAX, mx) {
    if ((j * 37) % 61 > mx)
      mx = (j * 37) % 61;
  }
  int64_t bc = -1;
  KK_SINGLE_TEAM_BROADCAST(team, bc) { bc = 7 * r + 3; }
  int64_t part;
  KK_TEAM_THREAD_SCAN(team, j, 0, n, int64_t, part, final) {
    if (final)
      KK_AT(args->scan_out, int64_t, r, j) = part;
    part += j + r;
  }
  /* every thread must agree on the results of the collectives */
  int64_t agree = s == s && ones == n && bc == 7 * r + 3;
  int64_t all_agree;
  KK_TEAM_THREAD_REDUCE(team, j, 0, KK_TEAM_SIZE(team), int64_t, KK_LAND, all_agree) { all_agree = all_agree && agree && all; }
  KK_SINGLE_TEAM(team) {
    KK_AT(args->y, double, r) = s;
    KK_AT(args->out, int64_t, r, 0) = r;
    KK_AT(args->out, int64_t, r, 1) = KK_TEAM_SIZE(team);
    KK_AT(args->out, int64_t, r, 2) = KK_VECTOR_LENGTH(team);
    KK_AT(args->out, int64_t, r, 3) = ones;
    KK_AT(args->out, int64_t, r, 4) = vec;
    KK_AT(args->out, int64_t, r, 5) = mx;
    KK_AT(args->out, int64_t, r, 6) = bc;
    KK_AT(args->out, int64_t, r, 7) = part;
    KK_AT(args->out, int64_t, r, 8) = all_agree;
  }
}

/* scratch views and level 1 */
KK_TEAM_FOR(team_scratch_views, struct team_args, team) {
  const int64_t r = KK_LEAGUE_RANK(team);
  kk_view tile = KK_TEAM_SCRATCH_VIEW(team, 1, double, 4, 3);
  kk_view priv = KK_THREAD_SCRATCH_VIEW(team, 0, int64_t, 5);
  KK_TEAM_THREAD_FOR(team, i, 0, 12) { KK_AT(tile, double, i / 3, i % 3) = (double)(r * 100 + i); }
  for (int64_t k = 0; k < 5; k++)
    KK_AT(priv, int64_t, k) = k * KK_TEAM_RANK(team);
  KK_TEAM_BARRIER(team);
  double s = 0;
  for (int64_t i = 0; i < 4; i++)
    for (int64_t j = 0; j < 3; j++)
      s += KK_AT(tile, double, i, j);
  int64_t p = 0;
  for (int64_t k = 0; k < 5; k++)
    p += KK_AT(priv, int64_t, k);
  KK_SINGLE_TEAM(team) {
    KK_AT(args->y, double, r) = s;
    KK_AT(args->out, int64_t, r, 0) = p;
  }
}

/* asks for cols doubles of team scratch at args->level: more than requested fails */
KK_TEAM_FOR(team_overrun, struct team_args, team) {
  double *p = KK_TEAM_SCRATCH(team, args->level, double, args->cols);
  KK_TEAM_THREAD_FOR(team, j, 0, args->cols) { p[j] = 1.0; }
  KK_SINGLE_TEAM(team) { KK_AT(args->y, double, KK_LEAGUE_RANK(team)) = 1.0; }
}

/* team reduce: every thread of a team contributes; single adds the row sum once */
KK_TEAM_REDUCE(team_total, struct team_args, double, KK_SUM, team, acc) {
  const int64_t r = KK_LEAGUE_RANK(team);
  double row;
  KK_TEAM_THREAD_REDUCE(team, j, 0, args->cols, double, KK_SUM, row) { row += KK_AT(args->a, double, r, j); }
  KK_SINGLE_TEAM(team) { *acc += row; }
  *acc += 1.0; /* and one per thread */
}
KK_TEAM_REDUCE(team_minloc, struct team_args, double, KK_MINLOC, team, acc) {
  const int64_t r = KK_LEAGUE_RANK(team);
  KK_TEAM_THREAD_FOR(team, j, 0, args->cols) { KK_MINLOC_UPDATE(acc, KK_AT(args->a, double, r, j), r * args->cols + j); }
}

/* ---- atomics under contention ---------------------------------------------------------------- */
#define ATOMIC_INT_BODY(V, T)                                                       \
  {                                                                                 \
    T *c = KK_DATA(args->V, T);                                                     \
    kk_atomic_add(&c[0], (T)3);                                                     \
    kk_atomic_sub(&c[1], (T)2);                                                     \
    kk_atomic_min(&c[2], (T)(i % 1000 + 5));                                        \
    kk_atomic_max(&c[3], (T)(i % 1000 + 5));                                        \
    kk_atomic_and(&c[4], (T) ~((T)1 << (i % 16)));                                  \
    kk_atomic_or(&c[5], (T)((T)1 << (i % 16)));                                     \
    kk_atomic_xor(&c[6], (T)((T)1 << (i % 8)));                                     \
    kk_atomic_inc(&c[7]);                                                           \
    kk_atomic_dec(&c[8]);                                                           \
    T old = kk_atomic_fetch_add(&c[9], (T)1);                                       \
    KK_AT(args->tickets, int64_t, (int64_t)old) += 1;                               \
    kk_atomic_exchange(&c[10], (T)(i % 7));                                         \
    T cur = kk_atomic_load(&c[11]);                                                 \
    for (;;) {                                                                      \
      T prev = kk_atomic_compare_exchange(&c[11], cur, (T)(cur + 2));               \
      if (prev == cur)                                                              \
        break;                                                                      \
      cur = prev;                                                                   \
    }                                                                               \
    (void)kk_atomic_fetch_sub(&c[12], (T)1);                                        \
    (void)kk_atomic_fetch_min(&c[13], (T)(i % 50 + 1));                             \
    (void)kk_atomic_fetch_max(&c[14], (T)(i % 50 + 1));                             \
    (void)kk_atomic_fetch_or(&c[15], (T)1);                                         \
  }
KK_FOR(atomics_i32, struct atomic_args, i) ATOMIC_INT_BODY(i32, int32_t)
KK_FOR(atomics_u32, struct atomic_args, i) ATOMIC_INT_BODY(u32, uint32_t)
KK_FOR(atomics_i64, struct atomic_args, i) ATOMIC_INT_BODY(i64, int64_t)
KK_FOR(atomics_u64, struct atomic_args, i) ATOMIC_INT_BODY(u64, uint64_t)

#define ATOMIC_FP_BODY(V, T)                                                        \
  {                                                                                 \
    T *c = KK_DATA(args->V, T);                                                     \
    kk_atomic_add(&c[0], (T)3);                                                     \
    kk_atomic_sub(&c[1], (T)2);                                                     \
    kk_atomic_min(&c[2], (T)(i % 1000 + 5));                                        \
    kk_atomic_max(&c[3], (T)(i % 1000 + 5));                                        \
    kk_atomic_inc(&c[7]);                                                           \
    kk_atomic_dec(&c[8]);                                                           \
    T old = kk_atomic_fetch_add(&c[9], (T)1);                                       \
    KK_AT(args->tickets, int64_t, (int64_t)old) += 1;                               \
    kk_atomic_exchange(&c[10], (T)(i % 7));                                         \
    T cur = kk_atomic_load(&c[11]);                                                 \
    for (;;) {                                                                      \
      T prev = kk_atomic_compare_exchange(&c[11], cur, (T)(cur + 2));               \
      if (prev == cur)                                                              \
        break;                                                                      \
      cur = prev;                                                                   \
    }                                                                               \
  }
KK_FOR(atomics_f32, struct atomic_args, i) ATOMIC_FP_BODY(f32, float)
KK_FOR(atomics_f64, struct atomic_args, i) ATOMIC_FP_BODY(f64, double)

KK_FOR(atomics_complex, struct atomic_args, i) {
  kk_complex_float *cf = KK_DATA(args->cf, kk_complex_float);
  kk_complex_double *cd = KK_DATA(args->cd, kk_complex_double);
  kk_complex_float one_f = {1.0f, -2.0f};
  kk_complex_double one_d = {1.0, -2.0};
  kk_atomic_add(&cf[0], one_f);
  kk_atomic_sub(&cf[1], one_f);
  kk_atomic_add(&cd[0], one_d);
  kk_atomic_sub(&cd[1], one_d);
  kk_complex_double old = kk_atomic_fetch_add(&cd[2], kk_cdouble(1.0, 0.0));
  KK_AT(args->tickets, int64_t, (int64_t)old.re) += 1;
  kk_complex_float oldf = kk_atomic_fetch_add(&cf[2], kk_cfloat(1.0f, 0.0f));
  KK_AT(args->tickets, int64_t, args->n + (int64_t)oldf.re) += 1;
  kk_atomic_exchange(&cd[3], kk_cdouble((double)(i % 5), 1.0));
  /* a CAS loop on complex double: im counts successful swaps */
  kk_complex_double cur = cd[4];
  for (;;) {
    kk_complex_double want = {cur.re + 1.0, cur.im + 2.0};
    kk_complex_double prev = kk_atomic_compare_exchange(&cd[4], cur, want);
    if (prev.re == cur.re && prev.im == cur.im)
      break;
    cur = prev;
  }
  /* the lock table on complex double itself */
  KK_ATOMIC_LOCK(&cd[5]) {
    cd[5].re += 1.0;
    cd[5].im -= 0.5;
  }
  /* any type: a 24-byte record under the lock table */
  struct rec16 *rec = KK_DATA(args->rec, struct rec16);
  KK_ATOMIC_LOCK(&rec[i % 3]) {
    rec[i % 3].count += 1;
    rec[i % 3].sum += 0.5;
    rec[i % 3].tag ^= (int32_t)(i & 1);
  }
}

/* ---- a nested team reduction with a custom reducer: the largest value and its index ---------- */
typedef struct { int64_t v, at; } kk_conf_maxat;
KK_REDUCER_INIT(conf_maxat, kk_conf_maxat, p) { p->v = -1, p->at = -1; }
KK_REDUCER_JOIN(conf_maxat, kk_conf_maxat, d, s) {
  if (s->v > d->v || (s->v == d->v && s->at < d->at))
    *d = *s;
}
KK_TEAM_FOR(team_custom_reduce, struct team_args, team) {
  const int64_t l = KK_LEAGUE_RANK(team);
  kk_conf_maxat m;
  KK_TEAM_THREAD_REDUCE_CUSTOM(team, j, 0, args->cols, conf_maxat, m) {
    const int64_t v = (j * 37 + l * 11) % 61;
    if (v > m.v || (v == m.v && j < m.at))
      m.v = v, m.at = j;
  }
  KK_SINGLE_TEAM(team) {
    KK_SINGLE_THREAD(team) { KK_AT(args->out, int64_t, l, 0) = m.v * 1000 + m.at; }
  }
}

/* ---- vector loops unrolled (KK_VECTOR_UNROLL, a GPU tuning hint): the same sums ---------------- */
#undef KK_VECTOR_UNROLL
#define KK_VECTOR_UNROLL 3
KK_TEAM_FOR(team_vector_unrolled, struct team_args, team) {
  /* row sums of a (rows x cols) with trip counts from 0 to cols: a vector
   * reduce and a vector for, each element exactly once */
  KK_TEAM_THREAD_FOR(team, r, 0, args->rows) {
    const int64_t len = (KK_LEAGUE_RANK(team) + r) % (args->cols + 1);
    double s;
    KK_THREAD_VECTOR_REDUCE(team, k, 0, len, double, KK_SUM, s) { s += KK_AT(args->a, double, r, k); }
    KK_THREAD_VECTOR_FOR(team, k, 0, len) { kk_atomic_add(&KK_AT(args->y, double, r), 1.0); }
    KK_SINGLE_THREAD(team) { kk_atomic_add(&KK_AT(args->y, double, r), 1000.0 * s); }
  }
}
#undef KK_VECTOR_UNROLL
#define KK_VECTOR_UNROLL 1

/* ---- launch bounds (KK_TEAM_BOUNDS, a GPU tuning hint): team_total's sum at most 64 threads a team ---- */
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS KK_LAUNCH_BOUNDS(64, 2)
KK_TEAM_REDUCE(team_total_bounded, struct team_args, double, KK_SUM, team, acc) {
  const int64_t r = KK_LEAGUE_RANK(team);
  double row;
  KK_TEAM_THREAD_REDUCE(team, j, 0, args->cols, double, KK_SUM, row) { row += KK_AT(args->a, double, r, j); }
  KK_SINGLE_TEAM(team) { *acc += row; }
  *acc += 1.0; /* and one per thread */
}
KK_TEAM_FOR(team_rows_bounded, struct team_args, team) {
  const int64_t r = KK_LEAGUE_RANK(team);
  double row;
  KK_TEAM_THREAD_REDUCE(team, j, 0, args->cols, double, KK_SUM, row) { row += KK_AT(args->a, double, r, j); }
  KK_SINGLE_TEAM(team) { KK_AT(args->y, double, r) = row; }
}
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS

/* ---- ScatterView --------------------------------------------------------------------------------- */
KK_FOR(scatter_sum_i32, struct scatter_args, i) { KK_SCATTER_ADD(args->s, int32_t, (int32_t)(1 + i % 3), KK_AT(args->idx, int32_t, i)); }
KK_FOR(scatter_sum_f64, struct scatter_args, i) { KK_SCATTER_ADD(args->s, double, 0.25 * (double)(1 + i % 3), KK_AT(args->idx, int32_t, i)); }
KK_FOR(scatter_sum_cf, struct scatter_args, i) {
  KK_SCATTER_ADD(args->s, kk_complex_float, kk_cfloat(1.0f, (float)(i % 2)), KK_AT(args->idx, int32_t, i));
}
KK_FOR(scatter_sum_cd, struct scatter_args, i) {
  KK_SCATTER_ADD(args->s, kk_complex_double, kk_cdouble(1.0, (double)(i % 2)), KK_AT(args->idx, int32_t, i));
}
KK_FOR(scatter_min_f64, struct scatter_args, i) { KK_SCATTER_MIN(args->s, double, (double)((i * 31) % 1009), KK_AT(args->idx, int32_t, i)); }
KK_FOR(scatter_max_i64, struct scatter_args, i) { KK_SCATTER_MAX(args->s, int64_t, (int64_t)((i * 31) % 1009), KK_AT(args->idx, int32_t, i)); }
/* a rank-2 target: (idx % 5, idx / 5) */
KK_FOR(scatter_sum_2d, struct scatter_args, i) {
  int32_t k = KK_AT(args->idx, int32_t, i);
  KK_SCATTER_ADD(args->s, double, 1.0, k % 5, k / 5);
}

/* a rank-3 target of 7 x 33 x 41: (idx % 7, idx / 7 % 33, idx / 231); args->cplx picks sum, min or max */
KK_FOR(scatter_3d, struct scatter_args, i) {
  const int32_t k = KK_AT(args->idx, int32_t, i);
  const double v = args->cplx == 0 ? 0.5 * (double)(1 + i % 3) : (double)((i * 31) % 1009);
  if (args->cplx == 0)
    KK_SCATTER_ADD(args->s, double, v, k % 7, k / 7 % 33, k / 231);
  else if (args->cplx == 1)
    KK_SCATTER_MIN(args->s, double, v, k % 7, k / 7 % 33, k / 231);
  else
    KK_SCATTER_MAX(args->s, double, v, k % 7, k / 7 % 33, k / 231);
}

/* ---- concurrency of instances: each kernel waits for the other to start ---------------------------- */
KK_FOR(wait_for_peer, struct flag_args, i) {
  int32_t *flags = KK_DATA(args->flags, int32_t);
  kk_atomic_store(&flags[args->me], 1);
  int64_t s = 0;
  while (kk_atomic_load(&flags[1 - args->me]) == 0 && s < args->spins)
    s++;
  KK_AT(args->ok, int32_t, args->me) = kk_atomic_load(&flags[1 - args->me]) != 0;
  (void)i;
}
