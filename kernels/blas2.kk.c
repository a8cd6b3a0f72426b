/* kernels/blas2.kk.c -- kk-kernels' gemv and gemm kernels for the four element types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "scalar.h"

#define SFX s
#define SC float
#define RT float
#define CPLX 0
#define GT KKK_GEMM_TILE
#include "blas2_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX
#undef GT

#define SFX d
#define SC double
#define RT double
#define CPLX 0
#define GT KKK_GEMM_TILE
#define GEMM_F64 1 /* gemm_tmpl.h: the FP64 tensor-core path where the target has one */
#include "blas2_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX
#undef GT
#undef GEMM_F64

#define SFX c
#define SC kk_complex_float
#define RT float
#define CPLX 1
#define GT KKK_GEMM_TILE
#include "blas2_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX
#undef GT

#define SFX z
#define SC kk_complex_double
#define RT double
#define CPLX 1
#define GT KKK_GEMM_TILE_Z
#include "blas2_tmpl.h"
#undef SFX
#undef SC
#undef RT
#undef CPLX
#undef GT
