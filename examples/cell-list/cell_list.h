/* examples/cell-list/cell_list.h -- what the cell-list example's host code shares with its kernel file. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef CELL_LIST_H
#define CELL_LIST_H

#include <kk.h>

/* Pairs of particles closer than rc: through the cells (positions sorted
 * by cell, offsets[c] .. offsets[c + 1] the particles of cell c), or by
 * looking at every pair. */
struct pairs_args {
  kk_view pos;        /* n x 3 doubles, sorted by cell */
  kk_view offsets;    /* int64, ncell^3 + 1 */
  int64_t n, nc;      /* particles; cells along each axis */
  double cell, rc2;   /* a cell's edge; rc squared */
};
KK_DECLARE_KERNEL(pairs_by_cells);
KK_DECLARE_KERNEL(pairs_all);

#endif
