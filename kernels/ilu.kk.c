/* kernels/ilu.kk.c -- kk-kernels' ILU(k) numeric kernels (load A's values, factor one level set of rows) for the four element types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "solvers_args.h"
#include "scalar.h"

#define SFX s
#define SC float
#define RT float
#define CPLX 0
#include "ilu_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX

#define SFX d
#define SC double
#define RT double
#define CPLX 0
#include "ilu_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX

#define SFX c
#define SC kk_complex_float
#define RT float
#define CPLX 1
#include "ilu_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX

#define SFX z
#define SC kk_complex_double
#define RT double
#define CPLX 1
#include "ilu_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX
