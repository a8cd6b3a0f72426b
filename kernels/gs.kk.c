/* kernels/gs.kk.c -- Gauss-Seidel sweeps (multicolor and two-stage) for the four element types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "scalar.h"
#include "sparse_ops_args.h"

#define KKK_TMPL "gs_tmpl.h"
#include "each_type.h"
#undef KKK_TMPL
