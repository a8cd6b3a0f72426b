/* algorithms/tests/user.h -- what the test suite's kernel file shares with it: a comparator, predicates, transforms, kernels that draw from pools and sort in teams. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKA_TEST_USER_H
#define KKA_TEST_USER_H

#include <kk/algorithms.h>

/* a key type of 12 bytes, sorted by `key` only (its `tag` keeps the original position) */
struct rec {
  float key;
  int32_t tag;
  int32_t other;
};
KK_DECLARE_COMPARATOR(by_abs);    /* doubles by absolute value */
KK_DECLARE_COMPARATOR(rec_key);   /* struct rec by key */

struct band {
  double lo, hi;
};
KK_DECLARE_PREDICATE(in_band);    /* double in [lo, hi) */
KK_DECLARE_PREDICATE(odd);        /* int32 that is odd */
KK_DECLARE_TRANSFORM(square);     /* double -> double */
KK_DECLARE_TRANSFORM(int_to_dbl); /* int32 -> double, times a factor */
KK_DECLARE_TRANSFORM(prod2);      /* (double, double) -> double */
struct scale {
  double f;
};

/* draws from a pool in a kernel: each iteration its own generator, `draws`
 * doubles summed into out[i] and uint32 draws below `below` checked */
struct draw_args {
  kk_random_xorshift64_pool p64;
  kk_random_xorshift1024_pool p1024;
  kk_random_philox_pool pph;
  kk_view out;      /* double, one per iteration */
  kk_view bad;      /* int64 rank 0: draws outside their range */
  int64_t draws;
  int32_t kind;
  int32_t pad;
};
KK_DECLARE_KERNEL(draw_uniform);
/* Philox streams per element: out[i] = double number `pos` of stream i */
struct philox_args {
  kk_view out;
  uint64_t seed, pos;
};
KK_DECLARE_KERNEL(philox_at);

/* team and thread sorts: rows of a rank-2 view (row r = league rank r),
 * sorted in scratch by the team (mode 0), by each thread (mode 1, a row per
 * thread), by key with the row's original columns as values (mode 2) */
struct tsort_args {
  kk_view_right a;      /* rows x n doubles */
  kk_view_right cols;   /* rows x n int32: mode 2's values */
  int64_t rows, n;
  int32_t mode, pad;
};
KK_DECLARE_KERNEL(team_sort_rows);

#endif
