/* tests/faults/bounds.kk.c -- kernels built with kkcc --bounds-check: each kind of kernel and access, in bounds when shift is 0. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "faults.h"

/* counts the iterations that ran, so that a test sees the launch stop */
#define COUNT() kk_atomic_inc(&KK_AT(args->count, int64_t, 0))

KK_FOR(bc_for1, struct bc_args, i) {
  COUNT();
  KK_AT(args->v1, double, i + args->shift) = (double)i;
}

KK_REDUCE(bc_reduce2, struct bc_args, double, KK_SUM, i, acc) { *acc += KK_AT(args->v2, double, i, args->extra); }

/* one index for a rank-2 view */
KK_REDUCE(bc_rank, struct bc_args, double, KK_SUM, i, acc) { *acc += KK_AT(args->v2, double, i); }

/* an int32_t view written as double */
KK_FOR(bc_type, struct bc_args, i) { KK_AT(args->vi, double, i) = 1.0; }

KK_SCAN(bc_scan, struct bc_args, double, i, partial, final) {
  *partial += KK_AT(args->v1, double, i + args->shift);
  if (final)
    KK_AT(args->v1, double, i) = *partial;
}

KK_MD_FOR3(bc_md3, struct bc_args, i, j, k) {
  COUNT();
  KK_AT(args->v3, double, i, j, k + args->shift) = (double)(i + j + k);
}

/* team-mates meet at a barrier in every league rank: a failed access must not
 * leave one of them waiting there */
KK_TEAM_REDUCE(bc_team, struct bc_args, double, KK_SUM, team, acc) {
  const int64_t r = KK_LEAGUE_RANK(team);
  double row;
  KK_TEAM_THREAD_REDUCE(team, j, 0, KK_EXTENT(args->v2, 1), double, KK_SUM, row) {
    row += KK_AT(args->v2, double, r, j + args->shift);
  }
  KK_TEAM_BARRIER(team);
  KK_SINGLE_TEAM(team) { *acc += row; }
}

KK_FOR(bc_scatter, struct bc_args, i) { KK_SCATTER_ADD(args->s, double, 1.0, i + args->shift); }

/* an access in a helper function, outside any kernel body */
KK__FN double bc_get(kk_view v, int64_t i) { return KK_AT(v, double, i); }
KK_REDUCE(bc_helper, struct bc_args, double, KK_SUM, i, acc) { *acc += bc_get(args->v1, i + args->shift); }

/* an access through a row taken in the kernel (KK_ROW): a row index outside
 * the parent gives an empty row, whose first access fails */
KK_REDUCE(bc_row, struct bc_args, double, KK_SUM, i, acc) {
  *acc += KK_AT(KK_ROW(args->v2, i + args->shift), double, args->extra);
}
/* the same through a typed row (KK_ROW_OF), and through one typed with an
 * element of the wrong size (float on a view of doubles): an empty row */
KK_REDUCE(bc_row_of, struct bc_args, double, KK_SUM, i, acc) {
  *acc += KK_AT(KK_ROW_OF(args->v2, double, i + args->shift), double, args->extra);
}
KK_REDUCE(bc_row_of_wrong, struct bc_args, double, KK_SUM, i, acc) {
  *acc += KK_AT(KK_ROW_OF(args->v2, float, i + args->shift), double, args->extra);
}
