/* examples/tutorial/team_scratch.c -- tutorial 3: y = A x with a team kernel, x staged in team scratch. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>

#include "tutorial.h"

#define CHECK(call)                                               \
  do {                                                            \
    if ((call) != KK_OK) {                                        \
      fprintf(stderr, "team_scratch: %s\n", kk_last_error());     \
      return 1;                                                   \
    }                                                             \
  } while (0)

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  const int64_t rows = 1000, n = 200, per_team = 8;
  const int64_t ea[2] = {rows, n};
  kk_view_t *a, *x, *y, *ha, *hx, *hy;
  CHECK(kk_view_alloc(&a, "A", KK_DOUBLE, 2, ea));
  CHECK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n));
  CHECK(kk_view_alloc(&y, "y", KK_DOUBLE, 1, &rows));

  /* A(r, c) = 1 and x(c) = c on the host, then to the backend */
  CHECK(kk_view_create_mirror_view(a, &ha));
  CHECK(kk_view_create_mirror_view(x, &hx));
  double *pa = kk_view_data(ha), *px = kk_view_data(hx);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < n; c++)
      pa[r * kk_view_stride(ha, 0) + c * kk_view_stride(ha, 1)] = 1.0;
  for (int64_t c = 0; c < n; c++)
    px[c] = (double)c;
  CHECK(kk_deep_copy(a, ha));
  CHECK(kk_deep_copy(x, hx));

  /* a league of teams, 8 rows each; team size and vector length: the backend's choice */
  struct matvec_args args = {kk_view_bind(a), kk_view_bind(x), kk_view_bind(y), rows, n, per_team};
  kk_team_policy_t p = {sizeof p, (rows + per_team - 1) / per_team, KK_AUTO, KK_AUTO, {0, 0}, {0, 0}, 0,
                        KK_SCHEDULE_STATIC, NULL};
  p.scratch_team[0] = kk_scratch_size(sizeof(double), n); /* what KK_TEAM_SCRATCH takes in the kernel */
  CHECK(kk_parallel_for_team("matvec", &p, KK_KERNEL(matvec), KK_ARGS(args)));

  CHECK(kk_view_create_mirror_view(y, &hy));
  CHECK(kk_deep_copy(hy, y));
  const double *py = kk_view_data(hy);
  int ok = 1;
  for (int64_t r = 0; r < rows; r++)
    ok &= py[r] == (double)(n * (n - 1) / 2);
  printf("%s: y(0) = %.0f, every row %s\n", kk_backend_default(), py[0], ok ? "correct" : "WRONG");
  kk_view_release(hy), kk_view_release(hx), kk_view_release(ha);
  kk_view_release(y), kk_view_release(x), kk_view_release(a);
  kk_finalize();
  return !ok;
}
