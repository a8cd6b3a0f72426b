/* algorithms/tests/user.kk.c -- the test suite's kernel file: what a user writes with <kk/random.h>, <kk/sort.h> and <kk/std_algorithms.h>. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>
#include <kk/random.h>
#include <kk/sort.h>
#include <kk/std_algorithms.h>

#include "user.h"

KK__FN double kkt_abs(double x) { return x < 0 ? -x : x; }
KK_COMPARATOR(by_abs, double, a, b) { return kkt_abs(a) < kkt_abs(b); }
KK_COMPARATOR(rec_key, struct rec, a, b) { return a.key < b.key; }

KK_PREDICATE(in_band, double, struct band, x, p) { return x >= p->lo && x < p->hi; }
KK_PREDICATE(odd, int32_t, kk_no_params, x, p) { return (x & 1) != 0; }
KK_TRANSFORM(square, double, double, kk_no_params, x, p) { return x * x; }
KK_TRANSFORM(int_to_dbl, int32_t, double, struct scale, x, p) { return (double)x * p->f; }
KK_TRANSFORM2(prod2, double, double, double, kk_no_params, x, y, p) { return x * y; }

KK_FOR(draw_uniform, struct draw_args, i) {
  double s = 0.0;
  int64_t bad = 0;
  if (args->kind == KK_RANDOM_XORSHIFT64) {
    kk_random_xorshift64 g = kk_random_acquire(args->p64);
    for (int64_t k = 0; k < args->draws; k++) {
      const double u = kk_random_double(&g);
      bad += !(u >= 0.0 && u < 1.0) + (kk_random_below(&g, 10) >= 10) + (kk_random_range(&g, -2.0, 3.0) >= 3.0);
      s += u;
    }
    kk_random_release(args->p64, &g);
  } else if (args->kind == KK_RANDOM_XORSHIFT1024) {
    kk_random_xorshift1024 g = kk_random_acquire(args->p1024);
    for (int64_t k = 0; k < args->draws; k++) {
      const float f = kk_random_float(&g);
      const float h = kk_random_range_float(&g, -1.5f, 2.5f);
      bad += !(f >= 0.0f && f < 1.0f) + (kk_random_u32(&g) > 0xFFFFFFFFu) + (kk_random_below(&g, 3) > 2) +
             !(h >= -1.5f && h < 2.5f);
      s += (double)f;
    }
    kk_random_release(args->p1024, &g);
  } else {
    kk_random_philox g = kk_random_acquire(args->pph);
    for (int64_t k = 0; k < args->draws; k++) {
      const double u = kk_random_double(&g);
      const double z = kk_random_normal(&g, 0.0, 1.0);
      bad += !(u >= 0.0 && u < 1.0) + !(z == z);
      s += u;
    }
    kk_random_release(args->pph, &g);
  }
  KK_AT(args->out, double, i) = s;
  if (bad)
    kk_atomic_add(&KK_AT0(args->bad, int64_t), bad);
}

KK_FOR(philox_at, struct philox_args, i) {
  kk_random_philox g = kk_random_philox_at(args->seed, (uint64_t)i, args->pos);
  KK_AT(args->out, double, i) = kk_random_double(&g);
}

KK_TEAM_FOR(team_sort_rows, struct tsort_args, team) {
  const int64_t n = args->n;
  if (args->mode == 1) { /* (a league of one) a row per thread, its lanes together, in place in the view */
    KK_TEAM_THREAD_FOR(team, r, 0, args->rows) {
      double *row = &KK_AT(args->a, double, r, 0);
      KK_THREAD_SORT(team, double, row, n);
    }
    return;
  }
  const int64_t r = KK_LEAGUE_RANK(team);
  double *row = KK_TEAM_SCRATCH(team, 0, double, n);
  int32_t *col = KK_TEAM_SCRATCH(team, 0, int32_t, n);
  KK_TEAM_VECTOR_FOR(team, j, 0, n) {
    row[j] = KK_AT(args->a, double, r, j);
    col[j] = (int32_t)j;
  }
  if (args->mode == 0)
    KK_TEAM_SORT(team, double, row, n);
  else
    KK_TEAM_SORT_BY_KEY(team, double, row, int32_t, col, n);
  KK_TEAM_VECTOR_FOR(team, j, 0, n) {
    KK_AT(args->a, double, r, j) = row[j];
    KK_AT(args->cols, int32_t, r, j) = col[j];
  }
}
