/* examples/cell-list/cell_list.kk.c -- the cell-list example's kernels: neighbour pairs through the cells and, to check them, through every pair. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "cell_list.h"

KK__FN int64_t cell_of(double x, double cell, int64_t nc) {
  const int64_t c = (int64_t)(x / cell);
  return c < 0 ? 0 : c >= nc ? nc - 1 : c;
}

KK__FN double dist2(const struct pairs_args *a, int64_t i, int64_t j) {
  const double dx = KK_AT(a->pos, double, i, 0) - KK_AT(a->pos, double, j, 0);
  const double dy = KK_AT(a->pos, double, i, 1) - KK_AT(a->pos, double, j, 1);
  const double dz = KK_AT(a->pos, double, i, 2) - KK_AT(a->pos, double, j, 2);
  return dx * dx + dy * dy + dz * dz;
}

/* particle i's neighbours j > i in its cell and the 26 around it (cell index x fastest, as BinSort's) */
KK_REDUCE(pairs_by_cells, struct pairs_args, int64_t, KK_SUM, i, acc) {
  const int64_t nc = args->nc;
  const int64_t cx = cell_of(KK_AT(args->pos, double, i, 0), args->cell, nc);
  const int64_t cy = cell_of(KK_AT(args->pos, double, i, 1), args->cell, nc);
  const int64_t cz = cell_of(KK_AT(args->pos, double, i, 2), args->cell, nc);
  for (int64_t z = cz > 0 ? cz - 1 : 0; z <= cz + 1 && z < nc; z++)
    for (int64_t y = cy > 0 ? cy - 1 : 0; y <= cy + 1 && y < nc; y++)
      for (int64_t x = cx > 0 ? cx - 1 : 0; x <= cx + 1 && x < nc; x++) {
        const int64_t c = x + nc * (y + nc * z);
        for (int64_t j = KK_AT(args->offsets, int64_t, c); j < KK_AT(args->offsets, int64_t, c + 1); j++)
          *acc += j > i && dist2(args, i, j) < args->rc2;
      }
}

KK_REDUCE(pairs_all, struct pairs_args, int64_t, KK_SUM, i, acc) {
  for (int64_t j = i + 1; j < args->n; j++)
    *acc += dist2(args, i, j) < args->rc2;
}
