/* kernels/sparse.kk.c -- kk-kernels' sparse kernels (CRS SpMV, transposed SpMV, Jacobi diagonal) for the four element types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "scalar.h"

#define KKK_TMPL "sparse_tmpl.h"
#include "each_type.h"
#undef KKK_TMPL
