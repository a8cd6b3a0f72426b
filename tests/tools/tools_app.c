/* tests/tools/tools_app.c -- a small program with regions, kernels of each kind, allocations and copies, for the bundled profilers' tests. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>

#include <kk.h>

#include "tools_test.h"

KK_DECLARE_KERNEL(tt_axpy);
KK_DECLARE_KERNEL(tt_sum);
KK_DECLARE_KERNEL(tt_scan);

#define CHECK(call)                                                   \
  do {                                                                \
    if ((call) != KK_OK) {                                            \
      fprintf(stderr, "tools_app: %s: %s\n", #call, kk_last_error()); \
      return 1;                                                       \
    }                                                                 \
  } while (0)

/* What the profilers must report: a and b (1000 doubles each) at top level, c
 * (500 doubles) in region "solve", so Host peaks at 20000 bytes; 5 launches of
 * "axpy step", 3 of "norm", 2 of the unlabeled scan "tt_scan". */
int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  kk_view_t *a = NULL, *b = NULL, *c = NULL;
  int64_t n = 1000, m = 500;
  CHECK(kk_view_alloc(&a, "a", KK_DOUBLE, 1, &n));
  CHECK(kk_view_alloc(&b, "b", KK_DOUBLE, 1, &n));
  CHECK(kk_profiling_push_region("setup"));
  double one = 1.0;
  CHECK(kk_deep_copy_fill(a, &one));
  CHECK(kk_profiling_pop_region());

  CHECK(kk_profiling_push_region("solve"));
  CHECK(kk_view_alloc(&c, "c", KK_DOUBLE, 1, &m));
  struct tt_axpy ax = {0.5, kk_view_bind(a), kk_view_bind(b)};
  for (int i = 0; i < 5; i++)
    CHECK(kk_parallel_for("axpy step", KK_RANGE(0, n), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  struct tt_one s1 = {kk_view_bind(b)};
  double sum = 0;
  for (int i = 0; i < 3; i++)
    CHECK(kk_parallel_reduce("norm", KK_RANGE(0, n), KK_KERNEL(tt_sum), KK_ARGS(s1), KK_RESULT(sum)));
  struct tt_two sc = {kk_view_bind(a), kk_view_bind(b)};
  double total = 0;
  for (int i = 0; i < 2; i++)
    CHECK(kk_parallel_scan(NULL, KK_RANGE(0, n), KK_KERNEL(tt_scan), KK_ARGS(sc), KK_RESULT(total)));
  kk_view_release(c);
  CHECK(kk_profiling_pop_region());

  CHECK(kk_deep_copy(b, a));
  uint32_t sec;
  CHECK(kk_profiling_create_section("a section", &sec));
  CHECK(kk_profiling_start_section(sec));
  CHECK(kk_profiling_stop_section(sec));
  CHECK(kk_profiling_destroy_section(sec));
  CHECK(kk_profiling_mark_event("done"));
  kk_view_release(a);
  kk_view_release(b);
  CHECK(kk_finalize());
  if (sum != 2500.0 || total != 1000.0) {
    fprintf(stderr, "tools_app: wrong results: sum %g (want 2500), scan total %g (want 1000)\n", sum, total);
    return 1;
  }
  return 0;
}
