/* examples/tutorial/reduction.c -- tutorial 2: a sum and a maximum, results to the host. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>

#include "tutorial.h"

#define CHECK(call)                                            \
  do {                                                         \
    if ((call) != KK_OK) {                                     \
      fprintf(stderr, "reduction: %s\n", kk_last_error());     \
      return 1;                                                \
    }                                                          \
  } while (0)

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  const int64_t n = argc > 1 ? atoll(argv[1]) : 1000000;
  kk_view_t *x;
  CHECK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n));
  struct vec_args args = {kk_view_bind(x)};
  CHECK(kk_parallel_for("init", KK_RANGE(0, n), KK_KERNEL(init_vec), KK_ARGS(args)));

  double sum = 0, max = 0;
  CHECK(kk_parallel_reduce("sum", KK_RANGE(0, n), KK_KERNEL(sum_vec), KK_ARGS(args), KK_RESULT(sum)));
  CHECK(kk_parallel_reduce("max", KK_RANGE(0, n), KK_KERNEL(max_vec), KK_ARGS(args), KK_RESULT(max)));

  const int ok = sum == (double)n * (double)(n - 1) / 2 && max == (double)(n - 1);
  printf("%s: sum of 0..%lld = %.0f, max = %.0f: %s\n", kk_backend_default(), (long long)(n - 1), sum, max,
         ok ? "correct" : "WRONG");
  kk_view_release(x);
  kk_finalize();
  return !ok;
}
