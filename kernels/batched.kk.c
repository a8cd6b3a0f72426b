/* kernels/batched.kk.c -- kk-kernels' batched gemm, gemv, trsm and LU kernels for the four element types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "scalar.h"

#define KKK_TMPL "batched_tmpl.h"
#include "each_type.h"
#undef KKK_TMPL
