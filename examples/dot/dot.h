/* examples/dot/dot.h -- the argument struct shared by dot.c and dot.kk.c. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk.h>

struct dot_args {
  kk_view x, y;
};

KK_DECLARE_KERNEL(dot);
KK_DECLARE_KERNEL(init_xy);
