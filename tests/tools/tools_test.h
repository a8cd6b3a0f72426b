/* tests/tools/tools_test.h -- argument types shared by the tools tests' kernels and programs. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TOOLS_TEST_H
#define KK_TOOLS_TEST_H

#include <kk/kernel_abi.h>

struct tt_axpy { double a; kk_view x, y; };
struct tt_one { kk_view v; };
struct tt_two { kk_view x, y; };
/* MDRange: seq(i, j) gets the number of points visited before (i, j); counter is one int64 */
struct tt_md { kk_view seq, counter; };
/* teams: shape(r, 0), shape(r, 1) get the team size and vector length league rank r saw */
struct tt_team { kk_view shape; };

#endif
