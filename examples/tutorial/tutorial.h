/* examples/tutorial/tutorial.h -- the argument structs the tutorial's programs share with their kernel file. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TUTORIAL_H
#define KK_TUTORIAL_H
#include <kk.h>

/* 01: fill a 2-D view */
struct fill_args {
  kk_view a;            /* rows x cols doubles */
  int64_t cols;
};
KK_DECLARE_KERNEL(fill_rows);

/* 02: a sum and a maximum */
struct vec_args {
  kk_view x;
};
KK_DECLARE_KERNEL(init_vec);
KK_DECLARE_KERNEL(sum_vec);
KK_DECLARE_KERNEL(max_vec);

/* 03: y = A x, one team per block of rows, x staged in team scratch */
struct matvec_args {
  kk_view a, x, y;
  int64_t rows, n, rows_per_team;
};
KK_DECLARE_KERNEL(matvec);

/* 04 and 05: x = a x + 1 and a dot product */
struct axpb_args {
  kk_view x;
  double a;
};
KK_DECLARE_KERNEL(axpb);
KK_DECLARE_KERNEL(sum_vec2);

#endif
