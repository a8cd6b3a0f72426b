/* examples/dot/dot.c -- x . y with one reduction; x_i y_i = 1, so the answer is n. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>

#include "dot.h"

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  int64_t n = argc > 1 ? atoll(argv[1]) : 10000000;
  kk_view_t *x, *y;
  if (kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n) != KK_OK || kk_view_alloc(&y, "y", KK_DOUBLE, 1, &n) != KK_OK) {
    fprintf(stderr, "dot: %s\n", kk_last_error());
    return 1;
  }
  struct dot_args args = {kk_view_bind(x), kk_view_bind(y)};
  double d = 0;
  if (kk_parallel_for("init", KK_RANGE(0, n), KK_KERNEL(init_xy), KK_ARGS(args)) != KK_OK ||
      kk_parallel_reduce("dot", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(args), KK_RESULT(d)) != KK_OK) {
    fprintf(stderr, "dot: %s\n", kk_last_error());
    return 1;
  }
  int ok = d > (double)n * (1 - 1e-12) && d < (double)n * (1 + 1e-12);
  printf("dot on %s: n = %lld, x.y = %.17g, %s\n", kk_backend_default(), (long long)n, d, ok ? "correct" : "WRONG");
  kk_view_release(x), kk_view_release(y);
  kk_finalize();
  return !ok;
}
