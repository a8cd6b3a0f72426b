/* kernels/ilu.kk.c -- kk-kernels' ILU(k) numeric kernels (load A's values, factor one level set of rows) for the four element types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "solvers_args.h"
#include "scalar.h"

#define KKK_TMPL "ilu_tmpl.h"
#include "each_type.h"
#undef KKK_TMPL
