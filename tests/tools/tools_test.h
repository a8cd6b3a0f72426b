/* tests/tools/tools_test.h -- argument types shared by the tools tests' kernels and programs. */
#ifndef KK_TOOLS_TEST_H
#define KK_TOOLS_TEST_H

#include <kk/kernel_abi.h>

struct tt_axpy { double a; kk_view x, y; };
struct tt_one { kk_view v; };
struct tt_two { kk_view x, y; };

#endif
