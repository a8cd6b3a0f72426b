/* examples/cell-list/cell_list.c -- particles in a box sorted into cells with kk-algorithms' BinSort, then their close pairs counted cell by cell. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/algorithms.h>

#include "cell_list.h"

/*
 * Usage: cell_list [--kokkos-*] [N [CELLS]] [--check]
 * N particles (default 100000) uniform in the unit box; CELLS cells along
 * each axis (default 32), rc = 1 / CELLS.  The positions are sorted by cell
 * with a 3-D BinSort (its permutation applied to the n x 3 view), then each
 * particle looks for partners closer than rc in its cell and the 26 around
 * it.  --check counts the pairs again by looking at every pair (N^2) and
 * exits with status 1 when the counts differ.
 */

#define CHECK(call)                                             \
  do {                                                          \
    if ((call) != KK_OK) {                                      \
      fprintf(stderr, "cell_list: %s\n", kk_last_error());      \
      exit(1);                                                  \
    }                                                           \
  } while (0)

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  int64_t n = 100000, nc = 32;
  int check = 0, pos_args = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--check") == 0) {
      check = 1;
    } else if (argv[i][0] != '-' && pos_args < 2) {
      const long long v = atoll(argv[i]);
      if (v < (pos_args == 0 ? 0 : 1)) {
        fprintf(stderr, "cell_list: %s is not a count of particles (>= 0) or cells (>= 1)\n", argv[i]);
        kk_finalize();
        return 2;
      }
      *(pos_args++ == 0 ? &n : &nc) = v;
    } else {
      fprintf(stderr, "usage: cell_list [--kokkos-*] [N [CELLS]] [--check]\n");
      kk_finalize();
      return 2;
    }
  }
  /* the particles: uniform in [0, 1)^3 */
  kk_view_t *pos;
  const int64_t ext[2] = {n, 3};
  CHECK(kk_view_alloc(&pos, "positions", KK_DOUBLE, 2, ext));
  kk_random_pool_t *pool;
  CHECK(kk_random_pool_create(NULL, KK_RANDOM_PHILOX, 2024, 0, &pool));
  CHECK(kk_fill_random(NULL, pos, pool, 0.0, 1.0));

  /* the cells: a 3-D BinSort over the unit box, applied to the positions */
  const int64_t nbins[3] = {nc, nc, nc};
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  kk_binsort_t *bs;
  CHECK(kk_binsort_create_3d(NULL, pos, nbins, lo, hi, 0, &bs));
  CHECK(kk_binsort_apply(bs, pos, 0));

  struct pairs_args a = {kk_view_bind(pos), kk_view_bind(kk_binsort_offsets(bs)), n, nc, 1.0 / (double)nc,
                         1.0 / ((double)nc * (double)nc)};
  int64_t pairs = 0;
  CHECK(kk_parallel_reduce("pairs by cells", KK_RANGE(0, n), KK_KERNEL(pairs_by_cells), KK_ARGS(a), KK_RESULT(pairs)));
  printf("%lld particles, %lld^3 cells (%lld bins), rc %g: %lld pairs closer than rc\n", (long long)n, (long long)nc,
         (long long)kk_binsort_bins(bs), 1.0 / (double)nc, (long long)pairs);
  int status = 0;
  if (check) {
    int64_t all = 0;
    CHECK(kk_parallel_reduce("every pair", KK_RANGE(0, n), KK_KERNEL(pairs_all), KK_ARGS(a), KK_RESULT(all)));
    printf("every pair: %lld; %s\n", (long long)all, all == pairs ? "the same" : "DIFFERENT");
    status = all != pairs;
  }
  kk_binsort_destroy(bs);
  kk_random_pool_destroy(pool);
  kk_view_release(pos);
  kk_finalize();
  return status;
}
