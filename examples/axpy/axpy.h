/* examples/axpy/axpy.h -- the argument struct shared by axpy.c and axpy.kk.c. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk.h>

struct axpy_args {
  double a;
  kk_view x, y;
};

KK_DECLARE_KERNEL(axpy);
