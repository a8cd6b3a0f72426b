/* examples/unique-token/scratch.c -- per-thread scratch rows with a UniqueToken: memory for the threads that run at once, not for every iteration. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kk/containers.h>

#include "scratch.h"

/*
 * One million iterations each need 32 doubles of scratch.  A view of a
 * million rows would take 256 MB; a UniqueToken of the backend's
 * concurrency gives each thread that runs a row of its own, so the scratch
 * view has only that many rows (on a host backend: its threads).  The
 * result is checked against the same computation in plain C.
 */

#define CHECK(call)                                                                 \
  do {                                                                              \
    if ((call) != KK_OK) {                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, kk_last_error()); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

static double expected(int64_t i) {
  double row[SCRATCH_ROW], s = 0;
  row[0] = (double)(i % 1000) / 1000.0;
  for (int k = 1; k < SCRATCH_ROW; k++)
    row[k] = 0.5 * row[k - 1] + 0.25;
  for (int k = 0; k < SCRATCH_ROW; k++)
    s += row[k] * row[SCRATCH_ROW - 1 - k];
  return s;
}

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  const int64_t n = 1000000;
  kk_unique_token_t *tok = NULL;
  CHECK(kk_unique_token_create(NULL, KK_UNIQUE_TOKEN_INSTANCE, 0, &tok)); /* size: the backend's concurrency */
  const int32_t rows = kk_unique_token_size(tok);
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = "scratch";
  s.rank = 2;
  s.extents[0] = rows;
  s.extents[1] = SCRATCH_ROW;
  s.layout = KK_LAYOUT_RIGHT; /* a row is contiguous on every backend */
  s.flags = KK_VIEW_NO_INIT;
  kk_view_t *scratch = NULL, *y = NULL;
  CHECK(kk_view_create(&s, &scratch));
  CHECK(kk_view_alloc(&y, "y", KK_DOUBLE, 1, (const int64_t[]){n}));
  struct scratch_args a = {kk_unique_token_bind(tok), kk_view_bind_right(scratch), kk_view_bind(y)};
  CHECK(kk_parallel_for("with scratch rows", KK_RANGE(0, n), KK_KERNEL(with_scratch_rows), KK_ARGS(a)));
  kk_view_t *hy = NULL;
  CHECK(kk_view_create_mirror_view(y, &hy));
  CHECK(kk_fence());
  CHECK(kk_deep_copy(hy, y));
  const double *v = kk_view_data(hy);
  int bad = 0;
  for (int64_t i = 0; i < n && !bad; i++)
    if (fabs(v[i] - expected(i)) > 1e-12 * fabs(expected(i))) {
      fprintf(stderr, "y[%lld] = %.17g, expected %.17g\n", (long long)i, v[i], expected(i));
      bad = 1;
    }
  printf("%lld iterations with %d scratch rows of %d doubles (%.1f KB instead of %.1f MB): %s\n", (long long)n, rows,
         SCRATCH_ROW, rows * SCRATCH_ROW * 8 / 1024.0, n * SCRATCH_ROW * 8 / 1048576.0, bad ? "WRONG" : "ok");
  kk_view_release(hy);
  kk_view_release(y);
  kk_view_release(scratch);
  kk_unique_token_destroy(tok);
  kk_finalize();
  return bad;
}
