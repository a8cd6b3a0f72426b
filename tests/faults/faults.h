/* tests/faults/faults.h -- argument types shared by the faults test kernels (kernels.kk.c, bounds.kk.c) and faults.c. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TEST_FAULTS_H
#define KK_TEST_FAULTS_H

#include <kk/kernel_abi.h>

/* kernels.kk.c: plain kernels for dispatch checks and concurrent launches */
struct fill_args { kk_view v; int64_t base; };
struct team_args { kk_view v; int64_t cols; };
/* a kernel that writes through the address it is given (device-fault.sh: a bad one) */
struct bad_args { uint64_t addr; };

/* bounds.kk.c: kernels built with kkcc --bounds-check; `shift` moves every
 * access (0: in bounds) */
struct bc_args {
  kk_view v1;             /* rank 1, double */
  kk_view v2;             /* rank 2, double */
  kk_view v3;             /* rank 3, double */
  kk_view vi;             /* rank 1, int32_t */
  kk_view count;          /* rank 1, int64_t: iterations that ran, in [0] */
  kk_scatter s;           /* a ScatterView of doubles over v1 */
  int64_t shift;
  int64_t extra;          /* a second index where a kernel wants one */
};

#endif
