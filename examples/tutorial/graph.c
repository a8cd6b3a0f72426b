/* examples/tutorial/graph.c -- tutorial 4: record a fill and two kernels as a graph once, submit it many times. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>

#include "tutorial.h"

#define CHECK(call)                                        \
  do {                                                     \
    if ((call) != KK_OK) {                                 \
      fprintf(stderr, "graph: %s\n", kk_last_error());     \
      return 1;                                            \
    }                                                      \
  } while (0)

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  const int64_t n = 100000;
  kk_view_t *x;
  CHECK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n));
  struct axpb_args args = {kk_view_bind(x), 2.0};

  /* x = 0, then x = 2x + 1 twice: 3 in every element.  Each node waits for
   * the one before it. */
  kk_graph_t *g;
  kk_graph_node_t *fill, *step1, *step2;
  const double zero = 0.0;
  CHECK(kk_graph_create(NULL, &g)); /* NULL: the default instance */
  CHECK(kk_graph_add_fill(g, x, &zero, NULL, 0, &fill));
  CHECK(kk_graph_add_for(g, "axpb", KK_RANGE(0, n), KK_KERNEL(axpb), KK_ARGS(args), &fill, 1, &step1));
  CHECK(kk_graph_add_for(g, "axpb", KK_RANGE(0, n), KK_KERNEL(axpb), KK_ARGS(args), &step1, 1, &step2));
  CHECK(kk_graph_instantiate(g));

  int ok = 1;
  for (int rep = 0; rep < 10; rep++) { /* one submission runs all three nodes */
    double sum = 0;
    CHECK(kk_graph_submit(g, NULL));
    CHECK(kk_parallel_reduce("sum", KK_RANGE(0, n), KK_KERNEL(sum_vec2), KK_ARGS(args), KK_RESULT(sum)));
    ok &= sum == 3.0 * (double)n;
  }
  printf("%s: 10 submissions of a 3-node graph, sum(x) = %.0f each time: %s\n", kk_backend_default(), 3.0 * (double)n,
         ok ? "correct" : "WRONG");
  CHECK(kk_graph_destroy(g));
  kk_view_release(x);
  kk_finalize();
  return !ok;
}
