/* tests/tools/kernels.kk.c -- one kernel of each kind for the profiling tests. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "tools_test.h"

KK_FOR(tt_axpy, struct tt_axpy, i) { KK_AT(args->y, double, i) += args->a * KK_AT(args->x, double, i); }

KK_REDUCE(tt_sum, struct tt_one, double, KK_SUM, i, acc) { *acc += KK_AT(args->v, double, i); }

/* exclusive prefix sum of x into y */
KK_SCAN(tt_scan, struct tt_two, double, i, part, final) {
  const double v = KK_AT(args->x, double, i);
  if (final)
    KK_AT(args->y, double, i) = *part;
  *part += v;
}

/* MDRange: the order the points are visited in, which shows the tiles */
KK_MD_FOR2(tt_md_order, struct tt_md, i, j) {
  KK_AT(args->seq, int64_t, i, j) = kk_atomic_fetch_add(&KK_AT(args->counter, int64_t, 0), (int64_t)1);
}

KK_MD_REDUCE2(tt_md_sum, struct tt_md, int64_t, KK_SUM, i, j, acc) { *acc += i * 100 + j; }

/* teams: what each team saw of its shape */
KK_TEAM_FOR(tt_team_shape, struct tt_team, team) {
  KK_SINGLE_TEAM(team) {
    KK_AT(args->shape, int64_t, KK_LEAGUE_RANK(team), 0) = KK_TEAM_SIZE(team);
    KK_AT(args->shape, int64_t, KK_LEAGUE_RANK(team), 1) = KK_VECTOR_LENGTH(team);
  }
}

/* one per thread of every team: league size x team size */
KK_TEAM_REDUCE(tt_team_threads, struct tt_team, int64_t, KK_SUM, team, acc) {
  (void)args;
  *acc += 1;
}
