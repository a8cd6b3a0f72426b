/* bench/kk-bench-klang.h -- the entry point of kk-bench's memory-trait and SIMD cases (kk-bench-klang.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_KLANG_CASES_H
#define KK_BENCH_KLANG_CASES_H

/* The cases "gather" (random-access trait on against off) and "nbody" (kk
 * SIMD against intrinsics and against kk's scalar loop). */
void bench_klang(const char *backend, int nt, int reps, const char *cases, int quick);

#endif
