/* examples/tutorial/tutorial.kk.c -- the kernels of the tutorial (docs/tutorial/): written once, compiled by kkcc for every target. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "tutorial.h"

/* 01: each index i is one row; every element gets row * cols + column */
KK_FOR(fill_rows, struct fill_args, i) {
  for (int64_t j = 0; j < args->cols; j++)
    KK_AT(args->a, double, i, j) = (double)(i * args->cols + j);
}

/* 02: x_i = i, then two reductions */
KK_FOR(init_vec, struct vec_args, i) { KK_AT(args->x, double, i) = (double)i; }

KK_REDUCE(sum_vec, struct vec_args, double, KK_SUM, i, acc) { *acc += KK_AT(args->x, double, i); }

KK_REDUCE(max_vec, struct vec_args, double, KK_MAX, i, acc) {
  const double v = KK_AT(args->x, double, i);
  if (v > *acc)
    *acc = v;
}

/* 03: a team kernel; x goes to scratch once per team, rows go to the team's
 * threads, each row's dot product to a thread's vector lanes */
KK_TEAM_FOR(matvec, struct matvec_args, team) {
  const int64_t n = args->n;
  double *xs = KK_TEAM_SCRATCH(team, 0, double, n);
  KK_TEAM_VECTOR_FOR(team, j, 0, n) { xs[j] = KK_AT(args->x, double, j); }
  KK_TEAM_BARRIER(team);
  const int64_t first = KK_LEAGUE_RANK(team) * args->rows_per_team;
  const int64_t last = first + args->rows_per_team < args->rows ? first + args->rows_per_team : args->rows;
  KK_TEAM_THREAD_FOR(team, r, first, last) {
    double s;
    KK_THREAD_VECTOR_REDUCE(team, c, 0, n, double, KK_SUM, s) { s += KK_AT(args->a, double, r, c) * xs[c]; }
    KK_SINGLE_THREAD(team) { KK_AT(args->y, double, r) = s; }
  }
}

/* 04, 05: x = a x + 1; the sum of x */
KK_FOR(axpb, struct axpb_args, i) { KK_AT(args->x, double, i) = args->a * KK_AT(args->x, double, i) + 1.0; }

KK_REDUCE(sum_vec2, struct axpb_args, double, KK_SUM, i, acc) { *acc += KK_AT(args->x, double, i); }
