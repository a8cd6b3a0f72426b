/* examples/axpy/axpy.c -- y = a x + y on the default backend; checks the result on the host. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>

#include "axpy.h"

#define CHECK(call)                                               \
  do {                                                            \
    if ((call) != KK_OK) {                                        \
      fprintf(stderr, "axpy: %s\n", kk_last_error());             \
      return 1;                                                   \
    }                                                             \
  } while (0)

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv); /* takes --kokkos-device=..., --kokkos-num-threads=... */
  int64_t n = argc > 1 ? atoll(argv[1]) : 1000000;

  kk_view_t *x, *y, *hx, *hy;
  CHECK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n));
  CHECK(kk_view_alloc(&y, "y", KK_DOUBLE, 1, &n));
  CHECK(kk_view_create_mirror_view(x, &hx)); /* x itself on host backends */
  CHECK(kk_view_create_mirror_view(y, &hy));
  double *px = kk_view_data(hx), *py = kk_view_data(hy);
  for (int64_t i = 0; i < n; i++) {
    px[i] = (double)i;
    py[i] = 1.0;
  }
  CHECK(kk_deep_copy(x, hx));
  CHECK(kk_deep_copy(y, hy));

  struct axpy_args args = {.a = 2.0, .x = kk_view_bind(x), .y = kk_view_bind(y)};
  CHECK(kk_parallel_for("axpy", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(args)));
  CHECK(kk_fence());
  CHECK(kk_deep_copy(hy, y));

  int64_t wrong = 0;
  for (int64_t i = 0; i < n; i++)
    wrong += py[i] != 1.0 + 2.0 * (double)i;
  printf("axpy on %s: n = %lld, %s\n", kk_backend_default(), (long long)n, wrong ? "WRONG" : "correct");
  kk_view_release(hx), kk_view_release(hy), kk_view_release(x), kk_view_release(y);
  kk_finalize();
  return wrong != 0;
}
