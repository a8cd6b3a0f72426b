/* bench/kk-bench-launch.c -- the C side of bench/python-launch.py: the cost of launching a module's kernel on a 1-element range from C. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * kk-bench-launch MODULE.so [LAUNCHES] [--kokkos-device=...]
 *
 * Loads the kernel module python/tests/saxpy.kk.c builds (kkcc -shared),
 * launches its `saxpy` kernel on [0, 1) LAUNCHES times (default 20000) in
 * five rounds after a warm-up, and prints the best round's time per launch,
 * fence included once per round: "launch1 <backend> <microseconds>".  Python
 * does the same through kk.Launch in bench/python-launch.py.
 */
#include <stdio.h>
#include <stdlib.h>

#include <kk.h>
#include <kk/kernel_abi.h>

#include "bench_base.h"

/* the struct of python/tests/saxpy.kk.c */
typedef struct { double a; kk_view x, y; int32_t n; } saxpy_args;

const char bench_program[] = "kk-bench-launch";

int main(int argc, char **argv) {
  if (kk_initialize(&argc, &argv) != KK_OK) {
    fprintf(stderr, "kk-bench-launch: %s\n", kk_last_error());
    return 1;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: kk-bench-launch MODULE.so [LAUNCHES] [--kokkos-device=...]\n");
    kk_finalize();
    return 2;
  }
  int launches = argc > 2 ? atoi(argv[2]) : 20000;
  if (launches < 1)
    launches = 1;
  kk_module_t *m = NULL;
  kk_view_t *x = NULL, *y = NULL;
  int64_t one = 1;
  int rc = 1;
  if (kk_module_load(argv[1], &m) != KK_OK || kk_view_alloc(&x, "x", KK_DOUBLE, 1, &one) != KK_OK ||
      kk_view_alloc(&y, "y", KK_DOUBLE, 1, &one) != KK_OK) {
    fprintf(stderr, "kk-bench-launch: %s\n", kk_last_error());
    goto fail_release;
  }
  const kk_kernel_t *k = kk_module_kernel(m, "saxpy");
  if (!k) {
    fprintf(stderr, "kk-bench-launch: %s has no kernel saxpy\n", argv[1]);
    goto fail_release;
  }
  saxpy_args a = {2.0, kk_view_bind(x), kk_view_bind(y), 1};
  const kk_range_policy_t *p = KK_RANGE(0, 1);
  double best = 1e30;
  for (int round = -1; round < 5; round++) {
    double t0 = bench_now();
    for (int i = 0; i < launches; i++)
      if (kk_parallel_for("saxpy", p, k, &a, sizeof a) != KK_OK) {
        fprintf(stderr, "kk-bench-launch: %s\n", kk_last_error());
        goto fail_release;
      }
    kk_fence();
    double t = (bench_now() - t0) / launches;
    if (round >= 0 && t < best)
      best = t;
  }
  printf("launch1 %s %.3f\n", kk_backend_default(), best * 1e6);
  rc = 0;
fail_release:
  kk_view_release(x);
  kk_view_release(y);
  if (m)
    kk_module_unload(m);
  kk_finalize();
  return rc;
}
