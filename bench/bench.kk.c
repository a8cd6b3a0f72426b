/* bench/bench.kk.c -- the kernels kk-bench times against hand-written native code. */
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
