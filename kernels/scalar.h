/* kernels/scalar.h -- arithmetic on the four element types for kk-kernels' kernel files, and the template machinery they use. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKK_SCALAR_H
#define KKK_SCALAR_H

/*
 * Each kernel file includes its template (*_tmpl.h) once per element type
 * with SFX (s, d, c, z), SC (the element type), RT (its real type) and
 * CPLX (0 or 1) defined; the template names its kernels KN(op) = kkk_op_SFX
 * and does arithmetic with S(op)(...) = kks_op_SFX(...), defined below for
 * each type.  On real types the helpers are the plain operators.
 */

#if defined(KK_TARGET_HOST) || defined(KK_TARGET_NONE)
#include <math.h>
#define KKK_HOST 1
#else
#define KKK_HOST 0
#endif

#define KKK_CAT_(a, b) a##b
#define KKK_CAT(a, b) KKK_CAT_(a, b)
#define KN(op) KKK_CAT(KKK_CAT(kkk_, op), KKK_CAT(_, SFX))
#define S(op) KKK_CAT(KKK_CAT(kks_, op), KKK_CAT(_, SFX))
#define SR(op) KKK_CAT(KKK_CAT(kks_, op), KKK_CAT(_, RSFX))

/* The kernel macros paste their name argument; these expand KN(...) first. */
#define KKK_FOR(N, A, I) KK_FOR(N, A, I)
#define KKK_MD_FOR2(N, A, I, J) KK_MD_FOR2(N, A, I, J)
#define KKK_REDUCE(N, A, T, R, I, ACC) KK_REDUCE(N, A, T, R, I, ACC)
#define KKK_REDUCE_N(N, A, V, I, ACC, ...) KK_REDUCE_N(N, A, V, I, ACC, __VA_ARGS__)
#define KKK_TEAM_FOR(N, A, T) KK_TEAM_FOR(N, A, T)
#define KKK_TEAM_FOR_BOUNDS(N, A, T, M) KK_TEAM_FOR_BOUNDS(N, A, T, M)
#define KKK_REDUCER_INIT(N, T, V) KK_REDUCER_INIT(N, T, V)
#define KKK_REDUCER_JOIN(N, T, D, S) KK_REDUCER_JOIN(N, T, D, S)
#define KKK_THREAD_VECTOR_REDUCE_CUSTOM(t, K, B, E, R, V) KK_THREAD_VECTOR_REDUCE_CUSTOM(t, K, B, E, R, V)
#define KKK_TEAM_VECTOR_REDUCE(t, J, B, E, T, R, V) KK_TEAM_VECTOR_REDUCE(t, J, B, E, T, R, V)
#define KKK_THREAD_VECTOR_REDUCE(t, J, B, E, T, R, V) KK_THREAD_VECTOR_REDUCE(t, J, B, E, T, R, V)

/* A loop over an NI x NJ box in a team body (whose team is `team`), the
 * body seeing int indices I and J.  Host targets: rows over the team's
 * threads, columns in a plain inner loop (no division per element).  GPU
 * targets: the flattened box over every lane of the team, the index
 * IFAST (I when nonzero, else J) fastest, so that lanes next to each other
 * touch memory next to each other. */
#if KKK_HOST
#define KKK_FOR_2D(I, NI, J, NJ, IFAST)                                                                   \
  for (int I##_u = ((void)(IFAST), 0); !I##_u; I##_u = 1)                                                  \
  KK_TEAM_THREAD_FOR(team, I##_l, 0, (NI)) for (int J = 0, I = (int)I##_l; J < (int)(NJ); J++)
#else
#define KKK_FOR_2D(I, NI, J, NJ, IFAST)                                                                  \
  KK_TEAM_VECTOR_FOR(team, I##_e, 0, (int64_t)(NI) * (NJ))                                               \
  for (int I = (IFAST) ? (int)I##_e % (int)(NI) : (int)I##_e / (int)(NJ),                                 \
           J = (IFAST) ? (int)I##_e / (int)(NI) : (int)I##_e % (int)(NJ), I##_once = 1;                  \
       I##_once; I##_once = 0)
#endif

/* ---- real types ---------------------------------------------------------------- */
#define KKS_REAL(SFX_, T)                                                                                   \
  KK__FN T kks_zero_##SFX_(void) { return (T)0; }                                                           \
  KK__FN T kks_from_##SFX_(kk_complex_double a) { return (T)a.re; }                                          \
  KK__FN T kks_add_##SFX_(T a, T b) { return a + b; }                                                       \
  KK__FN T kks_sub_##SFX_(T a, T b) { return a - b; }                                                       \
  KK__FN T kks_mul_##SFX_(T a, T b) { return a * b; }                                                       \
  KK__FN T kks_fma_##SFX_(T a, T b, T c) { return a * b + c; } /* a b + c */                                \
  KK__FN T kks_div_##SFX_(T a, T b) { return a / b; }                                                       \
  KK__FN T kks_conj_##SFX_(T a) { return a; }                                                               \
  KK__FN T kks_cj_##SFX_(T a, int c) { (void)c; return a; } /* conj(a) if c */                              \
  KK__FN T kks_abs2_##SFX_(T a) { return a * a; }                                                           \
  KK__FN T kks_abs1_##SFX_(T a) { return a < (T)0 ? -a : a; }                                               \
  KK__FN T kks_absv_##SFX_(T a) { return a < (T)0 ? -a : a; }                                               \
  KK__FN int kks_iszero_##SFX_(T a) { return a == (T)0; }                                                    \
  KK__FN T kks_scale_##SFX_(T a, T r) { return a * r; } /* by a real */

KKS_REAL(s, float)
KKS_REAL(d, double)

#if defined(KK_TARGET_SPIRV)
KK__FN float kks_sqrt_s(float a) { return sqrt(a); }
#else
KK__FN float kks_sqrt_s(float a) { return sqrtf(a); }
#endif
KK__FN double kks_sqrt_d(double a) { return sqrt(a); }

/* ---- complex types ----------------------------------------------------------------- */
#define KKS_CPLX(SFX_, T, R, MK, RSFX_)                                                                      \
  KK__FN T kks_zero_##SFX_(void) { return MK((R)0, (R)0); }                                                  \
  KK__FN T kks_from_##SFX_(kk_complex_double a) { return MK((R)a.re, (R)a.im); }                             \
  KK__FN T kks_add_##SFX_(T a, T b) { return MK(a.re + b.re, a.im + b.im); }                                 \
  KK__FN T kks_sub_##SFX_(T a, T b) { return MK(a.re - b.re, a.im - b.im); }                                 \
  KK__FN T kks_mul_##SFX_(T a, T b) { return MK(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }     \
  KK__FN T kks_fma_##SFX_(T a, T b, T c) {                                                                   \
    return MK(a.re * b.re - a.im * b.im + c.re, a.re * b.im + a.im * b.re + c.im);                           \
  }                                                                                                          \
  KK__FN T kks_div_##SFX_(T a, T b) {                                                                        \
    /* Smith's algorithm: no overflow for large |b| */                                                     \
    if ((b.re < 0 ? -b.re : b.re) >= (b.im < 0 ? -b.im : b.im)) {                                            \
      const R r = b.im / b.re, d = b.re + b.im * r;                                                          \
      return MK((a.re + a.im * r) / d, (a.im - a.re * r) / d);                                               \
    }                                                                                                        \
    const R r = b.re / b.im, d = b.im + b.re * r;                                                            \
    return MK((a.re * r + a.im) / d, (a.im * r - a.re) / d);                                                 \
  }                                                                                                          \
  KK__FN T kks_conj_##SFX_(T a) { return MK(a.re, -a.im); }                                                  \
  KK__FN T kks_cj_##SFX_(T a, int c) {                                                                       \
    if (c)                                                                                                   \
      a.im = -a.im;                                                                                          \
    return a;                                                                                                \
  }                                                                                                          \
  KK__FN R kks_abs2_##SFX_(T a) { return a.re * a.re + a.im * a.im; }                                        \
  KK__FN R kks_abs1_##SFX_(T a) { return (a.re < 0 ? -a.re : a.re) + (a.im < 0 ? -a.im : a.im); }            \
  KK__FN R kks_absv_##SFX_(T a) {                                                                            \
    const R x = a.re < 0 ? -a.re : a.re, y = a.im < 0 ? -a.im : a.im;                                        \
    const R big = x > y ? x : y, small = x > y ? y : x;                                                      \
    if (big == (R)0)                                                                                         \
      return (R)0;                                                                                           \
    const R q = small / big;                                                                                 \
    return big * kks_sqrt_##RSFX_((R)1 + q * q);                                                             \
  }                                                                                                          \
  KK__FN int kks_iszero_##SFX_(T a) { return a.re == (R)0 && a.im == (R)0; }                                 \
  KK__FN T kks_scale_##SFX_(T a, R r) { return MK(a.re * r, a.im * r); }

KKS_CPLX(c, kk_complex_float, float, kk_cfloat, s)
KKS_CPLX(z, kk_complex_double, double, kk_cdouble, d)

#endif
