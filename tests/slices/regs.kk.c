/* tests/slices/regs.kk.c -- pairs of team kernels, one taking a slice per team, one indexing the parent, for tests/cuda-slice-regs.sh. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

struct slice_regs_args {
  kk_view_left a;   /* n x m */
  kk_view b;        /* p x n x m, the target's default layout (left on GPUs) */
  kk_view_right y;  /* p x n */
  int64_t n, m;
};

/* column j of a per team, scaled */
KK_TEAM_FOR(col_sub, struct slice_regs_args, team) {
  const int64_t j = KK_LEAGUE_RANK(team);
  const kk_view_left c = KK_COL_OF(args->a, double, j);
  KK_TEAM_VECTOR_FOR(team, i, 0, args->n) { KK_AT(c, double, i) *= 2.0; }
}
KK_TEAM_FOR(col_parent, struct slice_regs_args, team) {
  const int64_t j = KK_LEAGUE_RANK(team);
  KK_TEAM_VECTOR_FOR(team, i, 0, args->n) { KK_AT(args->a, double, i, j) *= 2.0; }
}

/* plane q of b (a strided plane of a left view) per team: its row sums */
KK_TEAM_FOR(plane_sub, struct slice_regs_args, team) {
  const int64_t q = KK_LEAGUE_RANK(team);
  const KK_ROW_T(kk_view) p = KK_PLANE_OF(args->b, double, q);
  const kk_view_right y = KK_ROW_OF(args->y, double, q);
  KK_TEAM_THREAD_FOR(team, i, 0, args->n) {
    double s;
    KK_THREAD_VECTOR_REDUCE(team, k, 0, args->m, double, KK_SUM, s) { s += KK_AT(p, double, i, k); }
    KK_AT(y, double, i) = s;
  }
}
KK_TEAM_FOR(plane_parent, struct slice_regs_args, team) {
  const int64_t q = KK_LEAGUE_RANK(team);
  KK_TEAM_THREAD_FOR(team, i, 0, args->n) {
    double s;
    KK_THREAD_VECTOR_REDUCE(team, k, 0, args->m, double, KK_SUM, s) { s += KK_AT(args->b, double, q, i, k); }
    KK_AT(args->y, double, q, i) = s;
  }
}

/* rows [4q, 4q + 4) of y per team, scaled */
KK_TEAM_FOR(rows_sub, struct slice_regs_args, team) {
  const int64_t b = KK_LEAGUE_RANK(team) * 4;
  const kk_view_right s = KK_ROWS_OF(args->y, double, b, b + 4);
  KK_TEAM_THREAD_FOR(team, i, 0, 4) KK_THREAD_VECTOR_FOR(team, k, 0, args->n) { KK_AT(s, double, i, k) *= 2.0; }
}
KK_TEAM_FOR(rows_parent, struct slice_regs_args, team) {
  const int64_t b = KK_LEAGUE_RANK(team) * 4;
  KK_TEAM_THREAD_FOR(team, i, 0, 4) KK_THREAD_VECTOR_FOR(team, k, 0, args->n) { KK_AT(args->y, double, b + i, k) *= 2.0; }
}
