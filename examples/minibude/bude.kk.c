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
 * math functions of its own (docs/apps.md).  On CUDA the kernels use the
 * hardware's approximations, as the CUDA version built with nvcc
 * -use_fast_math does, each as one instruction: sqrt.approx.ftz (about
 * 1 ulp), rcp.approx.ftz (1 ulp) and sin.approx / cos.approx (absolute
 * error below 2^-21 for angles in [-pi, pi], the range of the deck's poses;
 * it grows with the angle beyond that).  The reciprocals are of per-pair
 * constants and the sines of the pose angles, so their cost is small; the
 * square root is in every interaction.  Without .ftz each of these would
 * carry extra instructions for subnormal inputs, which the deck never has
 * (a squared distance that small is an overlap either way).  The other
 * targets keep the C library's correctly rounded functions. */
#if defined(KK_TARGET_SPIRV)
#define bude_sin(x) sin(x)
#define bude_cos(x) cos(x)
#define bude_sqrt(x) sqrt(x)
#define bude_rcp(x) (1.0f / (x))
#define BUDE_UNROLL
#elif defined(KK_TARGET_CUDA)
#define bude_sin(x) __sinf(x)
#define bude_cos(x) __cosf(x)
KK__FN float bude_sqrt(float x) {
  float r;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
KK__FN float bude_rcp(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
#define BUDE_UNROLL _Pragma("unroll")
#elif defined(KK_TARGET_HIP)
#define bude_sin(x) sinf(x)
#define bude_cos(x) cosf(x)
#define bude_sqrt(x) sqrtf(x)
#define bude_rcp(x) (1.0f / (x))
#define BUDE_UNROLL _Pragma("unroll")
#else
#include <math.h>
#define bude_sin(x) sinf(x)
#define bude_cos(x) cosf(x)
#define bude_sqrt(x) sqrtf(x)
#define bude_rcp(x) (1.0f / (x))
#define BUDE_UNROLL
#endif

#define BUDE_CAT_(a, b) a##b
#define BUDE_CAT(a, b) BUDE_CAT_(a, b)
#define BUDE_NAME(n) BUDE_CAT(BUDE_FAMILY, n)
#define BUDE_KERNEL(name) KK_TEAM_FOR(name, struct bude_args, team)

/* Each loop form (bude.h) for every number of poses per work-item. */
#define BUDE_FAMILY bude_fasten_
#define BUDE_PREFETCH 0
#include "bude_family.h"
#undef BUDE_PREFETCH
#undef BUDE_FAMILY
#define BUDE_FAMILY bude_prefetch_
#define BUDE_PREFETCH 1
#include "bude_family.h"
#undef BUDE_PREFETCH
#undef BUDE_FAMILY
