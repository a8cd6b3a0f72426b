/* python/tests/saxpy.kk.c -- kernels the Python tests load as a module. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

typedef struct { double a; kk_view x, y; int32_t n; } saxpy_args;
struct dot_args { kk_view x, y; };
struct minloc_args { kk_view x; };

KK_FOR(saxpy, saxpy_args, i) { KK_AT1(args->y, double, i) += args->a * KK_AT1(args->x, double, i); }
KK_REDUCE(dot, struct dot_args, double, KK_SUM, i, acc) {
  *acc += KK_AT1(args->x, double, i) * KK_AT1(args->y, double, i);
}
KK_REDUCE(imin, struct minloc_args, double, KK_MINLOC, i, acc) {
  double v = KK_AT1(args->x, double, i);
  if (v < acc->val) {
    acc->val = v;
    acc->loc = i;
  }
}
struct ints_args { kk_view v; };
KK_REDUCE(mm, struct ints_args, int32_t, KK_MINMAX, i, acc) { KK_MINMAX_UPDATE(acc, KK_AT1(args->v, int32_t, i)); }
KK_REDUCE(mmloc, struct ints_args, float, KK_MINMAXLOC, i, acc) {
  KK_MINMAXLOC_UPDATE(acc, (float)KK_AT1(args->v, int32_t, i), i);
}
KK_REDUCE(anyneg, struct ints_args, int32_t, KK_LOR, i, acc) { *acc = *acc || KK_AT1(args->v, int32_t, i) < 0; }
