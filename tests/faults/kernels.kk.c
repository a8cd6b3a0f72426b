/* tests/faults/kernels.kk.c -- plain kernels of the faults tests (faults.c): dispatch checks and launches from many threads. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "faults.h"

/* v[i] = base + i */
KK_FOR(ft_fill, struct fill_args, i) { KK_AT(args->v, int64_t, i) = args->base + i; }

/* sum of v[i] */
KK_REDUCE(ft_sum, struct fill_args, int64_t, KK_SUM, i, acc) { *acc += KK_AT(args->v, int64_t, i); }

/* inclusive prefix sum of v into v */
KK_SCAN(ft_scan, struct fill_args, int64_t, i, partial, final) {
  const int64_t x = KK_AT(args->v, int64_t, i);
  *partial += x;
  if (final)
    KK_AT(args->v, int64_t, i) = *partial;
}

/* each team sums its row of v (rank 2) with its threads; every thread adds the row once */
KK_TEAM_REDUCE(ft_rows, struct team_args, int64_t, KK_SUM, team, acc) {
  const int64_t r = KK_LEAGUE_RANK(team);
  int64_t row;
  KK_TEAM_THREAD_REDUCE(team, j, 0, args->cols, int64_t, KK_SUM, row) { row += KK_AT(args->v, int64_t, r, j); }
  KK_SINGLE_TEAM(team) { *acc += row; }
}

/* a team kernel that uses the scratch it asks for */
KK_TEAM_FOR(ft_scratch, struct team_args, team) {
  int64_t *p = KK_THREAD_SCRATCH(team, 0, int64_t, 1);
  p[0] = KK_LEAGUE_RANK(team);
  KK_SINGLE_TEAM(team) { KK_AT(args->v, int64_t, KK_LEAGUE_RANK(team), 0) = p[0]; }
}

/* writes i through addr: a device fault when addr is no device address (tests/faults/device-fault.sh) */
KK_FOR(ft_bad_write, struct bad_args, i) { ((volatile int64_t *)args->addr)[i] = i; }
