/* examples/cg-mpi/cg_mpi.kk.c -- the MPI CG example's own kernels: a slab's matrix assembly and the error (SpMV, axpby and dot are examples/cg's). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "cg_mpi.h"

/* Whether the neighbour (di, dj, dk) of this slab's row r lies in the grid;
 * *col gets its index in the extended vector. */
KK__FN int cgm_neighbour(const struct slab_args *a, int64_t r, int di, int dj, int dk, int64_t *col) {
  const int64_t nyz = a->ny * a->nz;
  const int64_t li = r / nyz, j = (r / a->nz) % a->ny, k = r % a->nz, i = a->i0 + li;
  if (i + di < 0 || i + di >= a->nx || j + dj < 0 || j + dj >= a->ny || k + dk < 0 || k + dk >= a->nz)
    return 0;
  *col = ((li + 1 + di) * a->ny + (j + dj)) * a->nz + (k + dk);
  return 1;
}

KK_FOR(cgm_count_nonzeros, struct slab_args, r) {
  const int64_t rows = args->planes * args->ny * args->nz;
  int64_t c = 0, col;
  if (r < rows)
    for (int di = -1; di <= 1; di++)
      for (int dj = -1; dj <= 1; dj++)
        for (int dk = -1; dk <= 1; dk++)
          c += cgm_neighbour(args, r, di, dj, dk, &col);
  KK_AT(args->counts, int64_t, r) = c;
}

/* 26 on the diagonal, -1 for every neighbour, as examples/cg. */
KK_FOR(cgm_fill_rows, struct slab_args, r) {
  int64_t p = KK_AT(args->row_ptr, int64_t, r), col;
  for (int di = -1; di <= 1; di++)
    for (int dj = -1; dj <= 1; dj++)
      for (int dk = -1; dk <= 1; dk++)
        if (cgm_neighbour(args, r, di, dj, dk, &col)) {
          KK_AT(args->cols, int32_t, p) = (int32_t)col;
          KK_AT(args->vals, double, p) = (di == 0 && dj == 0 && dk == 0) ? 26.0 : -1.0;
          p++;
        }
}

KK_REDUCE(cgm_max_error, struct err_args, double, KK_MAX, i, acc) {
  const double e = KK_AT(args->x, double, i) - 1.0;
  const double a = e < 0 ? -e : e;
  if (a > *acc)
    *acc = a;
}
