/* kernels/blas1.kk.c -- kk-kernels' BLAS 1 kernels (axpby, scal, update, dot, norms, iamax) for the four element types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "scalar.h"

#define SFX s
#define SC float
#define RT float
#define CPLX 0
#include "blas1_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX

#define SFX d
#define SC double
#define RT double
#define CPLX 0
#include "blas1_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX

#define SFX c
#define SC kk_complex_float
#define RT float
#define CPLX 1
#include "blas1_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX

#define SFX z
#define SC kk_complex_double
#define RT double
#define CPLX 1
#include "blas1_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX

/* nrm2 into a view: the sum of squares, then its square root in place */
KK_FOR(kkk_sqrt_s, struct kkk_sqrt_args, i) { KK_AT(args->r, float, i) = kks_sqrt_s(KK_AT(args->r, float, i)); }
KK_FOR(kkk_sqrt_d, struct kkk_sqrt_args, i) { KK_AT(args->r, double, i) = kks_sqrt_d(KK_AT(args->r, double, i)); }
