/* bench/bench.kk.c -- the kernels kk-bench times against hand-written native code. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "bench.h"

KK_FOR(bench_init, struct triad_args, i) {
  KK_AT(args->a, double, i) = 0.0;
  KK_AT(args->b, double, i) = 1.0 + (double)(i % 7);
  KK_AT(args->c, double, i) = 0.5 * (double)(i % 3);
}

KK_FOR(bench_triad, struct triad_args, i) {
  KK_AT(args->a, double, i) = KK_AT(args->b, double, i) + args->s * KK_AT(args->c, double, i);
}

KK_REDUCE(bench_dot, struct pair_args, double, KK_SUM, i, acc) {
  *acc += KK_AT(args->x, double, i) * KK_AT(args->y, double, i);
}

/* exclusive prefix sum of x into y */
KK_SCAN(bench_scan, struct pair_args, double, i, part, final) {
  const double v = KK_AT(args->x, double, i);
  if (final)
    KK_AT(args->y, double, i) = *part;
  *part += v;
}

KK_FOR(bench_empty_for, struct none_args, i) {}

KK_REDUCE(bench_empty_reduce, struct none_args, double, KK_SUM, i, acc) { *acc += 1.0; }

KK_FOR(bench_iota5, struct pair_args, i) { KK_AT(args->x, int64_t, i) = i % 5; }

/* exclusive prefix sum of int64 x into y (the CUB comparison on GPUs) */
KK_SCAN(bench_scan_i64, struct pair_args, int64_t, i, part, final) {
  const int64_t v = KK_AT(args->x, int64_t, i);
  if (final)
    KK_AT(args->y, int64_t, i) = *part;
  *part += v;
}
