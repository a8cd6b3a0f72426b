/* examples/dot/dot.kk.c -- a dot product (a sum reduction) and the kernel that fills its inputs. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "dot.h"

KK_FOR(init_xy, struct dot_args, i) {
  KK_AT(args->x, double, i) = 1.0 / (double)(i + 1);
  KK_AT(args->y, double, i) = (double)(i + 1);
}

KK_REDUCE(dot, struct dot_args, double, KK_SUM, i, acc) {
  *acc += KK_AT(args->x, double, i) * KK_AT(args->y, double, i);
}
