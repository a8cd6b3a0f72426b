/* bench/bench_algorithms.kk.c -- kk-bench-algorithms' own reduce and scan kernels: what the standard algorithms are timed against. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "bench_algorithms.h"

KK_REDUCE(kab_sum, struct kab_args, double, KK_SUM, i, acc) { *acc += KK_AT(args->x, double, i); }
KK_REDUCE(kab_count, struct kab_args, int64_t, KK_SUM, i, acc) { *acc += KK_AT(args->x, double, i) < args->threshold; }
KK_REDUCE(kab_minloc, struct kab_args, double, KK_MINLOC, i, acc) { KK_MINLOC_UPDATE(acc, KK_AT(args->x, double, i), i); }
KK_SCAN(kab_scan, struct kab_args, double, i, part, fin) {
  *part += KK_AT(args->x, double, i);
  if (fin)
    KK_AT(args->y, double, i) = *part;
}
