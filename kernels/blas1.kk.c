/* kernels/blas1.kk.c -- kk-kernels' BLAS 1 kernels (axpby, scal, update, dot, norms, iamax) for the four element types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "scalar.h"

#define KKK_TMPL "blas1_tmpl.h"
#include "each_type.h"
#undef KKK_TMPL

/* nrm2 into a view: the sum of squares, then its square root in place */
KK_FOR(kkk_sqrt_s, struct kkk_sqrt_args, i) { KK_AT(args->r, float, i) = kks_sqrt_s(KK_AT(args->r, float, i)); }
KK_FOR(kkk_sqrt_d, struct kkk_sqrt_args, i) { KK_AT(args->r, double, i) = kks_sqrt_d(KK_AT(args->r, double, i)); }
