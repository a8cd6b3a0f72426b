/* bench/bench_algorithms.h -- what kk-bench-algorithms shares with its kernel file: kk's own reduce and scan kernels, the yardstick of the standard algorithms that are reductions and scans. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_ALGORITHMS_H
#define KK_BENCH_ALGORITHMS_H

#include <kk.h>

struct kab_args {
  kk_view x, y;
  double threshold;
};
KK_DECLARE_KERNEL(kab_sum);      /* sum of x */
KK_DECLARE_KERNEL(kab_count);    /* elements of x below threshold */
KK_DECLARE_KERNEL(kab_minloc);   /* the first smallest element of x */
KK_DECLARE_KERNEL(kab_scan);     /* y = inclusive prefix sums of x */

#endif
