/* kk/simd.h -- explicit SIMD types for kernel files: a vector of double, float, int32 or int64 of the target's width. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_SIMD_H
#define KK_SIMD_H

/*
 * Include it in a kernel file after <kk/kernel.h>.  docs/kernel-language.md
 * ("SIMD types") is the reference; in short, for S one of double, float,
 * int32, int64 (element type T: double, float, int32_t, int64_t):
 *
 *   kk_simd_S                 KK_SIMD_WIDTH(S) lanes of T; + - * / (and on
 *                             integers % & | ^ ~ << >>) work lane-wise on
 *                             every target, also with a scalar operand
 *   kk_simd_mask_S            one lane per lane of kk_simd_S, each 0 (false)
 *                             or -1 (true), an integer of T's size; & | ^ ~
 *                             combine masks
 *   kk_simd_S_index           the index vector of a gather (kk_simd_int64 for
 *                             double and int64, kk_simd_int32 for float and int32)
 *
 * The width is fixed per target at compile time: on the host target the
 * vectors of the compiler's target architecture (64 bytes with AVX-512F,
 * 32 with AVX, else 16: SSE2 on x86-64), made with GCC/Clang vector
 * extensions; on the GPU targets (cuda, hip, spirv) 1, a thread being the
 * lane, as Kokkos' native ABI does.
 *
 * Functions, all kk_simd_S_<name>:
 *   set1(x) zero() iota()         broadcast, 0, lanes 0 1 2 ...
 *   get(v, k)                     lane k
 *   load(p) store(p, v)           p aligned to the vector's size
 *   loadu(p) storeu(p, v)         any alignment of T
 *   load_masked(p, m)             lanes of m read (others 0), no other memory touched
 *   store_masked(p, v, m)         lanes of m written, no other memory touched
 *   gather(base, idx)             lane k = base[idx[k]]
 *   add sub mul div min max       lane-wise (the operators do the same)
 *   abs(a) neg(a)
 *   lt le gt ge eq ne (a, b)      comparisons: a mask
 *   where(m, a, b)                lane k = m[k] ? a[k] : b[k]
 *   hsum hmin hmax (a)            horizontal: T (sum in lane order)
 *   mask_first(n)                 lanes k < n true
 *   any all (m), count(m)         of a mask
 * and on double and float:
 *   fma(a, b, c)                  a * b + c, rounded once where the target has FMA
 *   sqrt exp log sin cos (a), pow(a, b)
 * KK_SIMD_LOOP(S, i, m, b, e) { ... } runs [b, e) in steps of the width: i
 * is the first index of the step, m the mask of the lanes inside the range
 * (all true but in the last, partial step); KK_SIMD_LOAD_AT(S, v, i) and
 * KK_SIMD_STORE_AT(S, v, i, x), with _MASKED variants, load and store the
 * lanes of a rank-1 view with unit stride from index i.
 */

#include <kk/kernel.h>

#define KK__SIMD_ET_double double
#define KK__SIMD_ET_float float
#define KK__SIMD_ET_int32 int32_t
#define KK__SIMD_ET_int64 int64_t

#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || defined(KK_TARGET_SPIRV)
/* ==== GPU targets: one lane ===================================================================== */
/* The lanes of kk_simd_S: a compile-time constant. */
#define KK_SIMD_WIDTH(S) 1
/* One double (a thread is the lane). */
typedef double kk_simd_double;
/* One float. */
typedef float kk_simd_float;
/* One int32_t. */
typedef int32_t kk_simd_int32;
/* One int64_t. */
typedef int64_t kk_simd_int64;
#if defined(KK_TARGET_SPIRV)
#define KK__SIMD_MATH(f, ff, x) f(x)
#define KK__SIMD_POW(f, ff, x, y) f(x, y)
#else
#define KK__SIMD_MATH(f, ff, x) KK__SIMD_MATHSEL(f, ff)(x)
#define KK__SIMD_POW(f, ff, x, y) KK__SIMD_MATHSEL(f, ff)(x, y)
#endif

#define KK__SIMD_COMMON(S, T, M, I)                                                                          \
  typedef M kk_simd_mask_##S;                                                                               \
  typedef I kk_simd_##S##_index;                                                                            \
  KK__FN kk_simd_##S kk_simd_##S##_set1(T x) { return x; }                                                  \
  KK__FN kk_simd_##S kk_simd_##S##_zero(void) { return (T)0; }                                              \
  KK__FN kk_simd_##S kk_simd_##S##_iota(void) { return (T)0; }                                              \
  KK__FN T kk_simd_##S##_get(kk_simd_##S v, int k) { return (void)k, v; }                                   \
  KK__FN kk_simd_##S kk_simd_##S##_load(const T *p) { return *p; }                                          \
  KK__FN kk_simd_##S kk_simd_##S##_loadu(const T *p) { return *p; }                                         \
  KK__FN void kk_simd_##S##_store(T *p, kk_simd_##S v) { *p = v; }                                          \
  KK__FN void kk_simd_##S##_storeu(T *p, kk_simd_##S v) { *p = v; }                                         \
  KK__FN kk_simd_##S kk_simd_##S##_load_masked(const T *p, M m) { return m ? *p : (T)0; }                   \
  KK__FN void kk_simd_##S##_store_masked(T *p, kk_simd_##S v, M m) {                                        \
    if (m)                                                                                                  \
      *p = v;                                                                                               \
  }                                                                                                         \
  KK__FN kk_simd_##S kk_simd_##S##_gather(const T *base, I idx) { return base[idx]; }                       \
  KK__FN kk_simd_##S kk_simd_##S##_add(kk_simd_##S a, kk_simd_##S b) { return a + b; }                      \
  KK__FN kk_simd_##S kk_simd_##S##_sub(kk_simd_##S a, kk_simd_##S b) { return a - b; }                      \
  KK__FN kk_simd_##S kk_simd_##S##_mul(kk_simd_##S a, kk_simd_##S b) { return a * b; }                      \
  KK__FN kk_simd_##S kk_simd_##S##_div(kk_simd_##S a, kk_simd_##S b) { return a / b; }                      \
  KK__FN kk_simd_##S kk_simd_##S##_min(kk_simd_##S a, kk_simd_##S b) { return b < a ? b : a; }              \
  KK__FN kk_simd_##S kk_simd_##S##_max(kk_simd_##S a, kk_simd_##S b) { return a < b ? b : a; }              \
  KK__FN kk_simd_##S kk_simd_##S##_neg(kk_simd_##S a) { return -a; }                                       \
  KK__FN kk_simd_##S kk_simd_##S##_abs(kk_simd_##S a) { return a < (T)0 ? -a : a; }                        \
  KK__FN M kk_simd_##S##_lt(kk_simd_##S a, kk_simd_##S b) { return -(M)(a < b); }                           \
  KK__FN M kk_simd_##S##_le(kk_simd_##S a, kk_simd_##S b) { return -(M)(a <= b); }                          \
  KK__FN M kk_simd_##S##_gt(kk_simd_##S a, kk_simd_##S b) { return -(M)(a > b); }                           \
  KK__FN M kk_simd_##S##_ge(kk_simd_##S a, kk_simd_##S b) { return -(M)(a >= b); }                          \
  KK__FN M kk_simd_##S##_eq(kk_simd_##S a, kk_simd_##S b) { return -(M)(a == b); }                          \
  KK__FN M kk_simd_##S##_ne(kk_simd_##S a, kk_simd_##S b) { return -(M)(a != b); }                          \
  KK__FN kk_simd_##S kk_simd_##S##_where(M m, kk_simd_##S a, kk_simd_##S b) { return m ? a : b; }           \
  KK__FN T kk_simd_##S##_hsum(kk_simd_##S a) { return a; }                                                  \
  KK__FN T kk_simd_##S##_hmin(kk_simd_##S a) { return a; }                                                  \
  KK__FN T kk_simd_##S##_hmax(kk_simd_##S a) { return a; }                                                  \
  KK__FN M kk_simd_##S##_mask_first(int64_t n) { return -(M)(n > 0); }                                      \
  KK__FN int kk_simd_##S##_any(M m) { return m != 0; }                                                      \
  KK__FN int kk_simd_##S##_all(M m) { return m != 0; }                                                      \
  KK__FN int kk_simd_##S##_count(M m) { return m != 0; }

#define KK__SIMD_FLOATING(S, T, f_suffix)                                                                    \
  KK__FN kk_simd_##S kk_simd_##S##_fma(kk_simd_##S a, kk_simd_##S b, kk_simd_##S c) {                       \
    return KK__SIMD_MATH2(fma, f_suffix, a, b, c);                                                          \
  }                                                                                                         \
  KK__FN kk_simd_##S kk_simd_##S##_sqrt(kk_simd_##S a) { return KK__SIMD_MATH(sqrt, sqrt##f_suffix, a); }   \
  KK__FN kk_simd_##S kk_simd_##S##_exp(kk_simd_##S a) { return KK__SIMD_MATH(exp, exp##f_suffix, a); }      \
  KK__FN kk_simd_##S kk_simd_##S##_log(kk_simd_##S a) { return KK__SIMD_MATH(log, log##f_suffix, a); }      \
  KK__FN kk_simd_##S kk_simd_##S##_sin(kk_simd_##S a) { return KK__SIMD_MATH(sin, sin##f_suffix, a); }      \
  KK__FN kk_simd_##S kk_simd_##S##_cos(kk_simd_##S a) { return KK__SIMD_MATH(cos, cos##f_suffix, a); }      \
  KK__FN kk_simd_##S kk_simd_##S##_pow(kk_simd_##S a, kk_simd_##S b) { return KK__SIMD_POW(pow, pow##f_suffix, a, b); }
/* the double function (f) or the float one (ff): the suffix decides */
#define KK__SIMD_MATHSEL(f, ff) ff
#define KK__SIMD_MATH2(f, suf, a, b, c) f##suf(a, b, c)
#if defined(KK_TARGET_SPIRV)
#undef KK__SIMD_MATH2
#define KK__SIMD_MATH2(f, suf, a, b, c) f(a, b, c)
#endif

KK__SIMD_COMMON(double, double, int64_t, int64_t)
KK__SIMD_COMMON(float, float, int32_t, int32_t)
KK__SIMD_COMMON(int32, int32_t, int32_t, int32_t)
KK__SIMD_COMMON(int64, int64_t, int64_t, int64_t)
KK__SIMD_FLOATING(double, double, )
KK__SIMD_FLOATING(float, float, f)

#else
/* ==== the host target: GCC/Clang vector extensions ============================================== */
#include <math.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

/* Bytes per vector: the widest the compiler's target architecture has. */
#if defined(__AVX512F__)
#define KK_SIMD_BYTES 64
#elif defined(__AVX__)
#define KK_SIMD_BYTES 32
#else
#define KK_SIMD_BYTES 16
#endif
/* The lanes of kk_simd_S: a compile-time constant. */
#define KK_SIMD_WIDTH(S) ((int)(KK_SIMD_BYTES / sizeof(KK__SIMD_ET_##S)))
/* Initializers of every lane (a broadcast the compiler sees as one), per
 * element size: 8-byte lanes (double, int64) and 4-byte lanes (float, int32). */
#define KK__REP2(x) x, x
#define KK__REP4(x) KK__REP2(x), KK__REP2(x)
#define KK__REP8(x) KK__REP4(x), KK__REP4(x)
#define KK__REP16(x) KK__REP8(x), KK__REP8(x)
#if KK_SIMD_BYTES == 64
#define KK__REP_8B(x) KK__REP8(x)
#define KK__REP_4B(x) KK__REP16(x)
#define KK__IOTA_8B 0, 1, 2, 3, 4, 5, 6, 7
#define KK__IOTA_4B 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
#elif KK_SIMD_BYTES == 32
#define KK__REP_8B(x) KK__REP4(x)
#define KK__REP_4B(x) KK__REP8(x)
#define KK__IOTA_8B 0, 1, 2, 3
#define KK__IOTA_4B 0, 1, 2, 3, 4, 5, 6, 7
#else
#define KK__REP_8B(x) KK__REP2(x)
#define KK__REP_4B(x) KK__REP4(x)
#define KK__IOTA_8B 0, 1
#define KK__IOTA_4B 0, 1, 2, 3
#endif
/* all / any of a mask (lanes 0 or -1): the sign bits at once where x86 has them */
#if defined(__AVX512F__)
#define KK__MASK_BITS(m) ((int)_mm512_test_epi32_mask((__m512i)(m), (__m512i)(m)))
#define KK__MASK_ALL 0xFFFF
#elif defined(__AVX__)
#define KK__MASK_BITS(m) _mm256_movemask_ps((__m256)(m))
#define KK__MASK_ALL 0xFF
#elif defined(__SSE2__)
#define KK__MASK_BITS(m) _mm_movemask_epi8((__m128i)(m))
#define KK__MASK_ALL 0xFFFF
#endif

/* KK_SIMD_WIDTH(double) doubles. */
typedef double kk_simd_double __attribute__((vector_size(KK_SIMD_BYTES)));
/* KK_SIMD_WIDTH(float) floats. */
typedef float kk_simd_float __attribute__((vector_size(KK_SIMD_BYTES)));
/* KK_SIMD_WIDTH(int32) int32_t. */
typedef int32_t kk_simd_int32 __attribute__((vector_size(KK_SIMD_BYTES)));
/* KK_SIMD_WIDTH(int64) int64_t. */
typedef int64_t kk_simd_int64 __attribute__((vector_size(KK_SIMD_BYTES)));
/* unaligned flavours, for loads and stores through a T-aligned pointer */
typedef double kk__simd_double_u __attribute__((vector_size(KK_SIMD_BYTES), aligned(sizeof(double))));
typedef float kk__simd_float_u __attribute__((vector_size(KK_SIMD_BYTES), aligned(sizeof(float))));
typedef int32_t kk__simd_int32_u __attribute__((vector_size(KK_SIMD_BYTES), aligned(sizeof(int32_t))));
typedef int64_t kk__simd_int64_u __attribute__((vector_size(KK_SIMD_BYTES), aligned(sizeof(int64_t))));

/* S: suffix, T: element, M: mask (integer lanes of T's size), I: gather index */
#define KK__SIMD_COMMON(S, T, M, I, REP, IOTA)                                                               \
  typedef M kk_simd_mask_##S;                                                                               \
  typedef I kk_simd_##S##_index;                                                                            \
  enum { kk__simd_w_##S = (int)(KK_SIMD_BYTES / sizeof(T)) };                                               \
  KK__FN kk_simd_##S kk_simd_##S##_set1(T x) {                                                              \
    const kk_simd_##S r = {REP(x)};                                                                         \
    return r;                                                                                               \
  }                                                                                                         \
  KK__FN kk_simd_##S kk_simd_##S##_zero(void) { return kk_simd_##S##_set1((T)0); }                          \
  KK__FN kk_simd_##S kk_simd_##S##_iota(void) {                                                             \
    const kk_simd_##S r = {IOTA};                                                                           \
    return r;                                                                                               \
  }                                                                                                         \
  KK__FN T kk_simd_##S##_get(kk_simd_##S v, int k) { return v[k]; }                                         \
  KK__FN kk_simd_##S kk_simd_##S##_load(const T *p) { return *(const kk_simd_##S *)p; }                     \
  KK__FN kk_simd_##S kk_simd_##S##_loadu(const T *p) { return *(const kk__simd_##S##_u *)p; }               \
  KK__FN void kk_simd_##S##_store(T *p, kk_simd_##S v) { *(kk_simd_##S *)p = v; }                           \
  KK__FN void kk_simd_##S##_storeu(T *p, kk_simd_##S v) { *(kk__simd_##S##_u *)p = v; }                     \
  KK__FN int kk_simd_##S##_all(M m) { return KK__MASK_ALLOF(m, kk__simd_w_##S); }                        \
  KK__FN int kk_simd_##S##_any(M m) { return KK__MASK_ANYOF(m, kk__simd_w_##S); }                        \
  KK__FN int kk_simd_##S##_count(M m) {                                                                     \
    int r = 0;                                                                                              \
    for (int k = 0; k < kk__simd_w_##S; k++)                                                                \
      r += m[k] != 0;                                                                                       \
    return r;                                                                                               \
  }                                                                                                         \
  /* a full mask takes the plain load: the common case in KK_SIMD_LOOP */                                   \
  KK__FN kk_simd_##S kk_simd_##S##_load_masked(const T *p, M m) {                                           \
    if (__builtin_expect(kk_simd_##S##_all(m), 1))                                                          \
      return kk_simd_##S##_loadu(p);                                                                        \
    kk_simd_##S r = kk_simd_##S##_zero();                                                                   \
    for (int k = 0; k < kk__simd_w_##S; k++)                                                                \
      if (m[k])                                                                                             \
        r[k] = p[k];                                                                                        \
    return r;                                                                                               \
  }                                                                                                         \
  KK__FN void kk_simd_##S##_store_masked(T *p, kk_simd_##S v, M m) {                                        \
    if (__builtin_expect(kk_simd_##S##_all(m), 1)) {                                                        \
      kk_simd_##S##_storeu(p, v);                                                                           \
      return;                                                                                               \
    }                                                                                                       \
    for (int k = 0; k < kk__simd_w_##S; k++)                                                                \
      if (m[k])                                                                                             \
        p[k] = v[k];                                                                                        \
  }                                                                                                         \
  KK__FN kk_simd_##S kk_simd_##S##_gather(const T *base, I idx) {                                           \
    kk_simd_##S r = {0};                                                                                    \
    for (int k = 0; k < kk__simd_w_##S; k++)                                                                \
      r[k] = base[idx[k]];                                                                                  \
    return r;                                                                                               \
  }                                                                                                         \
  KK__FN kk_simd_##S kk_simd_##S##_add(kk_simd_##S a, kk_simd_##S b) { return a + b; }                      \
  KK__FN kk_simd_##S kk_simd_##S##_sub(kk_simd_##S a, kk_simd_##S b) { return a - b; }                      \
  KK__FN kk_simd_##S kk_simd_##S##_mul(kk_simd_##S a, kk_simd_##S b) { return a * b; }                      \
  KK__FN kk_simd_##S kk_simd_##S##_div(kk_simd_##S a, kk_simd_##S b) { return a / b; }                      \
  KK__FN kk_simd_##S kk_simd_##S##_neg(kk_simd_##S a) { return -a; }                                       \
  KK__FN M kk_simd_##S##_lt(kk_simd_##S a, kk_simd_##S b) { return (M)(a < b); }                            \
  KK__FN M kk_simd_##S##_le(kk_simd_##S a, kk_simd_##S b) { return (M)(a <= b); }                           \
  KK__FN M kk_simd_##S##_gt(kk_simd_##S a, kk_simd_##S b) { return (M)(a > b); }                            \
  KK__FN M kk_simd_##S##_ge(kk_simd_##S a, kk_simd_##S b) { return (M)(a >= b); }                           \
  KK__FN M kk_simd_##S##_eq(kk_simd_##S a, kk_simd_##S b) { return (M)(a == b); }                           \
  KK__FN M kk_simd_##S##_ne(kk_simd_##S a, kk_simd_##S b) { return (M)(a != b); }                           \
  /* a bit select: lanes of a where m, of b elsewhere */                                                    \
  KK__FN kk_simd_##S kk_simd_##S##_where(M m, kk_simd_##S a, kk_simd_##S b) {                               \
    return (kk_simd_##S)((m & (M)a) | (~m & (M)b));                                                         \
  }                                                                                                         \
  KK__FN kk_simd_##S kk_simd_##S##_min(kk_simd_##S a, kk_simd_##S b) {                                      \
    return kk_simd_##S##_where(kk_simd_##S##_lt(b, a), b, a);                                               \
  }                                                                                                         \
  KK__FN kk_simd_##S kk_simd_##S##_max(kk_simd_##S a, kk_simd_##S b) {                                      \
    return kk_simd_##S##_where(kk_simd_##S##_lt(a, b), b, a);                                               \
  }                                                                                                         \
  KK__FN kk_simd_##S kk_simd_##S##_abs(kk_simd_##S a) {                                                     \
    return kk_simd_##S##_where(kk_simd_##S##_lt(a, kk_simd_##S##_zero()), -a, a);                           \
  }                                                                                                         \
  KK__FN T kk_simd_##S##_hsum(kk_simd_##S a) {                                                              \
    T r = a[0];                                                                                             \
    for (int k = 1; k < kk__simd_w_##S; k++)                                                                \
      r += a[k];                                                                                            \
    return r;                                                                                               \
  }                                                                                                         \
  KK__FN T kk_simd_##S##_hmin(kk_simd_##S a) {                                                              \
    T r = a[0];                                                                                             \
    for (int k = 1; k < kk__simd_w_##S; k++)                                                                \
      r = a[k] < r ? a[k] : r;                                                                              \
    return r;                                                                                               \
  }                                                                                                         \
  KK__FN T kk_simd_##S##_hmax(kk_simd_##S a) {                                                              \
    T r = a[0];                                                                                             \
    for (int k = 1; k < kk__simd_w_##S; k++)                                                                \
      r = r < a[k] ? a[k] : r;                                                                              \
    return r;                                                                                               \
  }                                                                                                         \
  KK__FN M kk_simd_##S##_mask_first(int64_t n) {                                                            \
    const M io = {IOTA};                                                                                    \
    return (M)(io < (int)(n < 0 ? 0 : n < kk__simd_w_##S ? n : kk__simd_w_##S));                            \
  }

/* lane by lane through the C library: the same accuracy as the scalar function */
#define KK__SIMD_LANES1(S, f)                                                                                \
  KK__FN kk_simd_##S kk_simd_##S##_##f(kk_simd_##S a) {                                                     \
    kk_simd_##S r = {0};                                                                                    \
    for (int k = 0; k < kk__simd_w_##S; k++)                                                                \
      r[k] = KK__SIMD_LIBM_##S(f)(a[k]);                                                                    \
    return r;                                                                                               \
  }
#define KK__SIMD_LIBM_double(fn) fn
#define KK__SIMD_LIBM_float(fn) fn##f
#define KK__SIMD_FLOATING(S)                                                                                 \
  KK__SIMD_LANES1(S, exp)                                                                                   \
  KK__SIMD_LANES1(S, log)                                                                                   \
  KK__SIMD_LANES1(S, sin)                                                                                   \
  KK__SIMD_LANES1(S, cos)                                                                                   \
  KK__FN kk_simd_##S kk_simd_##S##_pow(kk_simd_##S a, kk_simd_##S b) {                                      \
    kk_simd_##S r = {0};                                                                                    \
    for (int k = 0; k < kk__simd_w_##S; k++)                                                                \
      r[k] = KK__SIMD_LIBM_##S(pow)(a[k], b[k]);                                                            \
    return r;                                                                                               \
  }

#ifdef KK__MASK_BITS
#define KK__MASK_ALLOF(m, w) (KK__MASK_BITS(m) == KK__MASK_ALL)
#define KK__MASK_ANYOF(m, w) (KK__MASK_BITS(m) != 0)
#else
#define KK__MASK_ALLOF(m, w) kk__mask_all((const int64_t *)&(m), (int)sizeof(m) / 8)
#define KK__MASK_ANYOF(m, w) (!kk__mask_none((const int64_t *)&(m), (int)sizeof(m) / 8))
static inline int kk__mask_all(const int64_t *w, int n) {
  int r = 1;
  for (int k = 0; k < n; k++)
    r &= w[k] == -1;
  return r;
}
static inline int kk__mask_none(const int64_t *w, int n) {
  int r = 1;
  for (int k = 0; k < n; k++)
    r &= w[k] == 0;
  return r;
}
#endif
KK__SIMD_COMMON(double, double, kk_simd_int64, kk_simd_int64, KK__REP_8B, KK__IOTA_8B)
KK__SIMD_COMMON(float, float, kk_simd_int32, kk_simd_int32, KK__REP_4B, KK__IOTA_4B)
KK__SIMD_COMMON(int32, int32_t, kk_simd_int32, kk_simd_int32, KK__REP_4B, KK__IOTA_4B)
KK__SIMD_COMMON(int64, int64_t, kk_simd_int64, kk_simd_int64, KK__REP_8B, KK__IOTA_8B)
KK__SIMD_FLOATING(double)
KK__SIMD_FLOATING(float)

/* sqrt and fma in the instruction set where x86 has them, else lane by lane */
#if defined(__AVX512F__)
#define KK__SIMD_VD __m512d
#define KK__SIMD_VF __m512
#define KK__SIMD_OP(name, t) _mm512_##name##_##t
#elif defined(__AVX__)
#define KK__SIMD_VD __m256d
#define KK__SIMD_VF __m256
#define KK__SIMD_OP(name, t) _mm256_##name##_##t
#elif defined(__SSE2__)
#define KK__SIMD_VD __m128d
#define KK__SIMD_VF __m128
#define KK__SIMD_OP(name, t) _mm_##name##_##t
#endif

#ifdef KK__SIMD_OP
/* The square root of every lane (the instruction: correctly rounded). */
KK__FN kk_simd_double kk_simd_double_sqrt(kk_simd_double a) {
  return (kk_simd_double)KK__SIMD_OP(sqrt, pd)((KK__SIMD_VD)a);
}
/* The square root of every lane. */
KK__FN kk_simd_float kk_simd_float_sqrt(kk_simd_float a) { return (kk_simd_float)KK__SIMD_OP(sqrt, ps)((KK__SIMD_VF)a); }
#else
KK__SIMD_LANES1(double, sqrt)
KK__SIMD_LANES1(float, sqrt)
#endif
#if defined(KK__SIMD_OP) && (defined(__FMA__) || defined(__AVX512F__))
/* a * b + c, rounded once (the FMA instruction). */
KK__FN kk_simd_double kk_simd_double_fma(kk_simd_double a, kk_simd_double b, kk_simd_double c) {
  return (kk_simd_double)KK__SIMD_OP(fmadd, pd)((KK__SIMD_VD)a, (KK__SIMD_VD)b, (KK__SIMD_VD)c);
}
/* a * b + c, rounded once (the FMA instruction). */
KK__FN kk_simd_float kk_simd_float_fma(kk_simd_float a, kk_simd_float b, kk_simd_float c) {
  return (kk_simd_float)KK__SIMD_OP(fmadd, ps)((KK__SIMD_VF)a, (KK__SIMD_VF)b, (KK__SIMD_VF)c);
}
#else
/* no FMA instruction: multiply, then add (two roundings); a lane-wise fma()
 * would call the C library's software fma, many times slower */
KK__FN kk_simd_double kk_simd_double_fma(kk_simd_double a, kk_simd_double b, kk_simd_double c) { return a * b + c; }
/* a * b + c: a multiply, then an add (no FMA instruction). */
KK__FN kk_simd_float kk_simd_float_fma(kk_simd_float a, kk_simd_float b, kk_simd_float c) { return a * b + c; }
#endif
#endif /* host */

/* ---- loops and views ------------------------------------------------------------------------- */

/* Runs the block for i = b, b + W, ... < e (W = KK_SIMD_WIDTH(S)) with m the
 * mask of the lanes i + k < e: all true but in a last, partial step.  i is
 * an int64_t and m a kk_simd_mask_S, both local to the loop.  The block must
 * not `break` (it leaves the step, not the loop); `continue` goes to the
 * next step. */
#define KK_SIMD_LOOP(S, i, m, b, e)                                                                          \
  for (int64_t i = (b), kk__se_##i = (e); i < kk__se_##i; i += KK_SIMD_WIDTH(S))                            \
    for (kk_simd_mask_##S m = kk_simd_##S##_mask_first(kk__se_##i - i), *kk__s1_##i = &m; kk__s1_##i;         \
         kk__s1_##i = 0)

/* The lanes of rank-1 view v (kk_view, kk_view_right or kk_view_left, unit
 * stride) from index i: a kk_simd_S from an unaligned load, or a store of x.
 * Under kkcc --bounds-check the first and the last lane's index are
 * checked (the masked forms: the first; with m false everywhere nothing is
 * touched, so a tail may start at the extent). */
#define KK_SIMD_LOAD_AT(S, v, i) kk_simd_##S##_loadu(KK__SIMD_PTR(S, v, i, KK_SIMD_WIDTH(S)))
#define KK_SIMD_STORE_AT(S, v, i, x) kk_simd_##S##_storeu(KK__SIMD_PTR(S, v, i, KK_SIMD_WIDTH(S)), (x))
#define KK_SIMD_LOAD_AT_MASKED(S, v, i, m) kk_simd_##S##_load_masked(KK__SIMD_PTR(S, v, i, kk_simd_##S##_count(m)), (m))
#define KK_SIMD_STORE_AT_MASKED(S, v, i, x, m) \
  kk_simd_##S##_store_masked(KK__SIMD_PTR(S, v, i, kk_simd_##S##_count(m)), (x), (m))
#ifdef KK_BOUNDS_CHECK
/* checks index i + n - 1 (n lanes used; none: nothing) and i, then points at i */
#define KK__SIMD_PTR(S, v, i, n)                                                                             \
  ((n) > 0 ? ((void)&KK_AT(v, KK__SIMD_ET_##S, (int64_t)(i) + (n) - 1), &KK_AT(v, KK__SIMD_ET_##S, i))     \
           : (KK__SIMD_ET_##S *)(v).d.data)
#else
#define KK__SIMD_PTR(S, v, i, n) ((KK__SIMD_ET_##S *)(v).d.data + (int64_t)(i))
#endif

#endif /* KK_SIMD_H */
