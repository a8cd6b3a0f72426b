/* bench/bench_graph.kk.c -- CG's scalar steps and vector updates with the scalars in views, so that an iteration needs no value on the host and fits in a graph. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "bench_graph.h"

/* One division on one thread, not one per element: the vector kernels
 * below only load the scalar (a division per element cost 3 to 15 times
 * the update itself on the host). */
KK_FOR(graph_ratio, struct ratio_args, i) {
  KK_AT0(args->out, double) = KK_AT0(args->num, double) / KK_AT0(args->den, double);
}
KK_FOR(graph_axpy_v, struct svec_args, i) {
  KK_AT(args->y, double, i) = KK_AT(args->y, double, i) + args->sign * KK_AT0(args->a, double) * KK_AT(args->x, double, i);
}
KK_FOR(graph_xpay_v, struct svec_args, i) {
  KK_AT(args->y, double, i) = KK_AT(args->x, double, i) + KK_AT0(args->a, double) * KK_AT(args->y, double, i);
}

/* The same updates with the ratio taken by every thread, as hand-written
 * CUDA CG does: on a GPU a division per thread costs less than a launch of
 * its own (two per iteration), on a CPU the other way round. */
KK_FOR(graph_axpy_ratio, struct rvec_args, i) {
  const double a = KK_AT0(args->num, double) / KK_AT0(args->den, double);
  KK_AT(args->y, double, i) = KK_AT(args->y, double, i) + args->sign * a * KK_AT(args->x, double, i);
}
KK_FOR(graph_xpay_ratio, struct rvec_args, i) {
  const double a = KK_AT0(args->num, double) / KK_AT0(args->den, double);
  KK_AT(args->y, double, i) = KK_AT(args->x, double, i) + a * KK_AT(args->y, double, i);
}
