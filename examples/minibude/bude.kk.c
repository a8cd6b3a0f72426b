/* examples/minibude/bude.kk.c -- the miniBUDE example's kernels: the fasten energy of docking poses, one kernel per number of poses per work-item. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include <float.h>

#include "bude.h"

/* The deck's constants: hydrogen-bond types, steric hardness, desolvation
 * ranges (non-polar/non-polar, non-polar/polar) and the charge scale. */
#define BUDE_HBTYPE_F 70
#define BUDE_HBTYPE_E 69
#define BUDE_HARDNESS 38.0f
#define BUDE_NPNPDIST 5.5f
#define BUDE_NPPDIST 1.0f
#define BUDE_CNSTNT 45.0f

/* Single-precision math, spelled per target: the kernel language has no
 * math functions of its own (docs/apps.md).  On CUDA the square root is the
 * hardware's approximate one, which is what the CUDA version built with
 * nvcc -use_fast_math runs (sqrt.approx, about 1 ulp). */
#if defined(KK_TARGET_SPIRV)
#define bude_sin(x) sin(x)
#define bude_cos(x) cos(x)
#define bude_fabs(x) fabs(x)
#define bude_sqrt(x) sqrt(x)
#define BUDE_UNROLL
#elif defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP)
#define bude_sin(x) sinf(x)
#define bude_cos(x) cosf(x)
#define bude_fabs(x) fabsf(x)
#if defined(KK_TARGET_CUDA)
KK__FN float bude_sqrt(float x) {
  float r;
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
#else
#define bude_sqrt(x) sqrtf(x)
#endif
#define BUDE_UNROLL _Pragma("unroll")
#else
#include <math.h>
#define bude_sin(x) sinf(x)
#define bude_cos(x) cosf(x)
#define bude_fabs(x) fabsf(x)
#define bude_sqrt(x) sqrtf(x)
#define BUDE_UNROLL
#endif

#define BUDE_CAT_(a, b) a##b
#define BUDE_NAME(n) BUDE_CAT_(bude_fasten_, n)
#define BUDE_KERNEL(name) KK_TEAM_FOR(name, struct bude_args, team)

#define BUDE_PPWI 1
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 2
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 4
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 8
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 16
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 32
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 64
#include "bude_fasten.h"
#undef BUDE_PPWI
#define BUDE_PPWI 128
#include "bude_fasten.h"
#undef BUDE_PPWI
