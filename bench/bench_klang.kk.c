/* bench/bench_klang.kk.c -- kk-bench's memory-trait gather and the SIMD n-body force loop. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>
#include <kk/simd.h>

#include "bench_klang.h"

KK_FOR(gather_ra, struct gather_ra_args, i) {
  KK_AT(args->out, double, i) = KK_AT(args->table, double, KK_AT(args->idx, int32_t, i));
}
KK_FOR(gather_plain, struct gather_args, i) {
  KK_AT(args->out, double, i) = KK_AT(args->table, double, KK_AT(args->idx, int32_t, i));
}

/* The force on a body from every body (itself included: softened, dx = 0).
 * SIMD: one index per KK_SIMD_WIDTH(S) bodies, the lanes being the bodies i
 * (the outer loop vectorized), the loop over j scalar and broadcast. */
#define NBODY(S, T, SQRT)                                                                                  \
  KK_FOR(nbody_simd_##S, struct nbody_args, blk) {                                                          \
    const int64_t i = blk * KK_SIMD_WIDTH(S), n = args->n;                                                  \
    const T *x = KK_DATA(args->x, T), *y = KK_DATA(args->y, T), *z = KK_DATA(args->z, T),                   \
            *m = KK_DATA(args->m, T);                                                                       \
    const kk_simd_##S xi = kk_simd_##S##_loadu(x + i), yi = kk_simd_##S##_loadu(y + i),                     \
                      zi = kk_simd_##S##_loadu(z + i), eps2 = kk_simd_##S##_set1((T)args->eps2),            \
                      one = kk_simd_##S##_set1((T)1);                                                       \
    kk_simd_##S ax = kk_simd_##S##_zero(), ay = ax, az = ax;                                                \
    for (int64_t j = 0; j < n; j++) {                                                                       \
      const kk_simd_##S dx = kk_simd_##S##_set1(x[j]) - xi, dy = kk_simd_##S##_set1(y[j]) - yi,             \
                        dz = kk_simd_##S##_set1(z[j]) - zi;                                                 \
      const kk_simd_##S r2 = kk_simd_##S##_fma(dx, dx, kk_simd_##S##_fma(dy, dy, kk_simd_##S##_fma(dz, dz, eps2))); \
      const kk_simd_##S inv = one / kk_simd_##S##_sqrt(r2);                                                 \
      const kk_simd_##S s = kk_simd_##S##_set1(m[j]) * inv * inv * inv;                                     \
      ax = kk_simd_##S##_fma(dx, s, ax), ay = kk_simd_##S##_fma(dy, s, ay), az = kk_simd_##S##_fma(dz, s, az); \
    }                                                                                                       \
    kk_simd_##S##_storeu(KK_DATA(args->ax, T) + i, ax);                                                     \
    kk_simd_##S##_storeu(KK_DATA(args->ay, T) + i, ay);                                                     \
    kk_simd_##S##_storeu(KK_DATA(args->az, T) + i, az);                                                     \
  }                                                                                                         \
  KK_FOR(nbody_scalar_##S, struct nbody_args, i) {                                                          \
    const int64_t n = args->n;                                                                              \
    const T xi = KK_AT(args->x, T, i), yi = KK_AT(args->y, T, i), zi = KK_AT(args->z, T, i),                \
            eps2 = (T)args->eps2;                                                                           \
    T ax = 0, ay = 0, az = 0;                                                                               \
    for (int64_t j = 0; j < n; j++) {                                                                       \
      const T dx = KK_AT(args->x, T, j) - xi, dy = KK_AT(args->y, T, j) - yi, dz = KK_AT(args->z, T, j) - zi; \
      const T r2 = dx * dx + dy * dy + dz * dz + eps2;                                                      \
      const T inv = (T)1 / SQRT(r2);                                                                        \
      const T s = KK_AT(args->m, T, j) * inv * inv * inv;                                                   \
      ax += dx * s, ay += dy * s, az += dz * s;                                                             \
    }                                                                                                       \
    KK_AT(args->ax, T, i) = ax, KK_AT(args->ay, T, i) = ay, KK_AT(args->az, T, i) = az;                     \
  }
#if defined(KK_TARGET_SPIRV)
#define NB_SQRT_D(x) sqrt(x)
#define NB_SQRT_F(x) sqrt(x)
#else
#define NB_SQRT_D(x) sqrt(x)
#define NB_SQRT_F(x) sqrtf(x)
#endif
NBODY(double, double, NB_SQRT_D)
NBODY(float, float, NB_SQRT_F)

KK_FOR(simd_widths, struct simd_width_args, i) {
  KK_AT(args->out, int32_t, 0) = KK_SIMD_WIDTH(double);
  KK_AT(args->out, int32_t, 1) = KK_SIMD_WIDTH(float);
}
