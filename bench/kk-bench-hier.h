/* bench/kk-bench-hier.h -- the entry point of kk-bench's hier cases (kk-bench-hier.c), kept out of the kernel files' headers. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_HIER_CASES_H
#define KK_BENCH_HIER_CASES_H

/* The MDRange, atomics, ScatterView, reduction, team and CG cases (kk-bench-hier.c). */
void bench_hier(const char *backend, int nt, int reps, const char *cases, int quick, int smoke);

#endif
