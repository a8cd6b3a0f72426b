/* bench/bench_klang.h -- argument structs of the memory-trait and SIMD benchmarks (bench_klang.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk.h>

/* out[i] = table[idx[i]]: with the random-access trait on table and idx, and without */
struct gather_ra_args { kk_view_random_access table, idx; kk_view out; };
struct gather_args { kk_view table, idx; kk_view out; };
/* n bodies at (x, y, z) of mass m: the accelerations (ax, ay, az), softened by eps2 */
struct nbody_args { kk_view x, y, z, m, ax, ay, az; int64_t n; double eps2; };

KK_DECLARE_KERNEL(gather_ra);
KK_DECLARE_KERNEL(gather_plain);
KK_DECLARE_KERNEL(nbody_simd_double);
KK_DECLARE_KERNEL(nbody_scalar_double);
KK_DECLARE_KERNEL(nbody_simd_float);
KK_DECLARE_KERNEL(nbody_scalar_float);
/* out[0], out[1]: KK_SIMD_WIDTH(double), KK_SIMD_WIDTH(float) of the target that runs it */
struct simd_width_args { kk_view out; };
KK_DECLARE_KERNEL(simd_widths);
