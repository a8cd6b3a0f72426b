/* examples/tutorial/hello_views.c -- tutorial 1: a 2-D view on the default backend, filled by a kernel, read through a host mirror. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>

#include "tutorial.h"

#define CHECK(call)                                              \
  do {                                                           \
    if ((call) != KK_OK) {                                       \
      fprintf(stderr, "hello_views: %s\n", kk_last_error());     \
      return 1;                                                  \
    }                                                            \
  } while (0)

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv); /* takes --kokkos-device=... and the other --kokkos-* flags */
  printf("running on %s\n", kk_backend_default());

  const int64_t ext[2] = {4, 5};       /* 4 rows, 5 columns */
  kk_view_t *a, *h;
  CHECK(kk_view_alloc(&a, "a", KK_DOUBLE, 2, ext)); /* in the backend's memory, zeroed */

  struct fill_args args = {kk_view_bind(a), ext[1]};
  CHECK(kk_parallel_for("fill", KK_RANGE(0, ext[0]), KK_KERNEL(fill_rows), KK_ARGS(args)));

  CHECK(kk_view_create_mirror_view(a, &h)); /* a itself where the host can read it, else a host copy */
  CHECK(kk_deep_copy(h, a));
  const double *p = kk_view_data(h);
  int ok = 1;
  for (int64_t i = 0; i < ext[0]; i++)
    for (int64_t j = 0; j < ext[1]; j++) {
      const double v = p[i * kk_view_stride(h, 0) + j * kk_view_stride(h, 1)];
      ok &= v == (double)(i * ext[1] + j);
    }
  printf("a(3, 4) = %g: %s\n", p[3 * kk_view_stride(h, 0) + 4 * kk_view_stride(h, 1)], ok ? "correct" : "WRONG");
  kk_view_release(h);
  kk_view_release(a);
  kk_finalize();
  return !ok;
}
