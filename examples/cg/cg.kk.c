/* examples/cg/cg.kk.c -- the kernels of the CG example: matrix assembly (for, scan, for), SpMV, axpby and dot. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "cg.h"

/* Number of the 27 neighbours (itself included) of row r that lie in the grid. */
KK_FOR(count_nonzeros, struct build_args, r) {
  const int64_t n = args->n, N = n * n * n;
  if (r == N) {
    KK_AT(args->counts, int64_t, r) = 0;
    return;
  }
  const int64_t i = r / (n * n), j = (r / n) % n, k = r % n;
  int64_t c = 0;
  for (int di = -1; di <= 1; di++)
    for (int dj = -1; dj <= 1; dj++)
      for (int dk = -1; dk <= 1; dk++)
        c += (i + di >= 0 && i + di < n && j + dj >= 0 && j + dj < n && k + dk >= 0 && k + dk < n);
  KK_AT(args->counts, int64_t, r) = c;
}

/* row_ptr = exclusive prefix sum of counts (over N + 1 rows: the last is nnz). */
KK_SCAN(row_offsets, struct build_args, int64_t, r, part, final) {
  if (final)
    KK_AT(args->row_ptr, int64_t, r) = *part;
  *part += KK_AT(args->counts, int64_t, r);
}

/* 26 on the diagonal, -1 for every neighbour: symmetric positive definite. */
KK_FOR(fill_rows, struct build_args, r) {
  const int64_t n = args->n;
  const int64_t i = r / (n * n), j = (r / n) % n, k = r % n;
  int64_t p = KK_AT(args->row_ptr, int64_t, r);
  for (int di = -1; di <= 1; di++)
    for (int dj = -1; dj <= 1; dj++)
      for (int dk = -1; dk <= 1; dk++)
        if (i + di >= 0 && i + di < n && j + dj >= 0 && j + dj < n && k + dk >= 0 && k + dk < n) {
          KK_AT(args->cols, int32_t, p) = (int32_t)(((i + di) * n + (j + dj)) * n + (k + dk));
          KK_AT(args->vals, double, p) = (di == 0 && dj == 0 && dk == 0) ? 26.0 : -1.0;
          p++;
        }
}

KK_FOR(spmv, struct spmv_args, r) {
  const int64_t b = KK_AT(args->row_ptr, int64_t, r), e = KK_AT(args->row_ptr, int64_t, r + 1);
  double s = 0;
  for (int64_t p = b; p < e; p++)
    s += KK_AT(args->vals, double, p) * KK_AT(args->x, double, KK_AT(args->cols, int32_t, p));
  KK_AT(args->y, double, r) = s;
}

KK_FOR(axpby, struct axpby_args, i) {
  KK_AT(args->z, double, i) = args->a * KK_AT(args->x, double, i) + args->b * KK_AT(args->y, double, i);
}

/* hi + b with its rounding error kept in lo (Knuth's TwoSum). */
KK__FN void dd_add(struct dd *a, double b) {
  const double s = a->hi + b, bb = s - a->hi;
  a->lo += (a->hi - (s - bb)) + (b - bb);
  a->hi = s;
}

KK_REDUCER_INIT(dd_sum, struct dd, v) { v->hi = 0, v->lo = 0; }
KK_REDUCER_JOIN(dd_sum, struct dd, dst, src) {
  dd_add(dst, src->hi); /* dst->lo takes the rounding error of the two his */
  dst->lo += src->lo;
}

/* The dot product as a compensated sum of the (rounded) products: the
 * result is the correctly rounded sum of the same products in any order. */
KK_REDUCE_CUSTOM(cg_dot, struct dot_args, struct dd, dd_sum, i, acc) {
  dd_add(acc, KK_AT(args->x, double, i) * KK_AT(args->y, double, i));
}
