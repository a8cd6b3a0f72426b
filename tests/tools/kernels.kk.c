/* tests/tools/kernels.kk.c -- one kernel of each kind for the profiling tests. */
#include <kk/kernel.h>

#include "tools_test.h"

KK_FOR(tt_axpy, struct tt_axpy, i) { KK_AT(args->y, double, i) += args->a * KK_AT(args->x, double, i); }

KK_REDUCE(tt_sum, struct tt_one, double, KK_SUM, i, acc) { *acc += KK_AT(args->v, double, i); }

/* exclusive prefix sum of x into y */
KK_SCAN(tt_scan, struct tt_two, double, i, part, final) {
  const double v = KK_AT(args->x, double, i);
  if (final)
    KK_AT(args->y, double, i) = *part;
  *part += v;
}
