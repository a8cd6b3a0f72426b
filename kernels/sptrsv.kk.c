/* kernels/sptrsv.kk.c -- kk-kernels' sparse triangular solve kernel (one level set per launch) for the four element types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "solvers_args.h"
#include "scalar.h"

#define KKK_TMPL "sptrsv_tmpl.h"
#include "each_type.h"
#undef KKK_TMPL
