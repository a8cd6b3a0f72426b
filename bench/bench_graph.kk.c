/* bench/bench_graph.kk.c -- the vector updates of CG with its scalars in views, so that an iteration needs no value on the host and fits in a graph. */
#include <kk/kernel.h>

#include "bench_graph.h"

KK_FOR(graph_axpy_ratio, struct ratio_args, i) {
  const double a = args->sign * KK_AT0(args->num, double) / KK_AT0(args->den, double);
  KK_AT(args->y, double, i) = KK_AT(args->y, double, i) + a * KK_AT(args->x, double, i);
}
KK_FOR(graph_xpay_ratio, struct ratio_args, i) {
  const double a = KK_AT0(args->num, double) / KK_AT0(args->den, double);
  KK_AT(args->y, double, i) = KK_AT(args->x, double, i) + a * KK_AT(args->y, double, i);
}
