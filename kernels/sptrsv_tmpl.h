/* kernels/sptrsv_tmpl.h -- the level-set sparse triangular solve for one element type (included by sptrsv.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/* Row i = order[k] of one level: its unknowns come from rows of earlier
 * levels (earlier launches), so a level's rows run in any order.  x may be
 * b: b(i) is read before x(i) is written, and no other row of the level
 * reads x(i).  The row's entries are read whole; those of the other
 * triangle are skipped, so the CRS matrix may hold both factors. */
KKK_FOR(KN(sptrsv), struct kkk_sptrsv_args, k) {
  const int64_t *restrict rp = KK_DATA(args->row_ptr, int64_t);
  const int32_t *restrict ci = KK_DATA(args->col_idx, int32_t);
  const SC *restrict av = KK_DATA(args->vals, SC);
  const int64_t i = KK_AT(args->order, int32_t, k);
  const int lower = args->lower;
  SC s = KK_AT(args->b, SC, i), d = S(zero)();
  for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
    const int64_t j = ci[p];
    if (lower ? j < i : j > i)
      s = S(sub)(s, S(mul)(av[p], KK_AT(args->x, SC, j)));
    else if (j == i)
      d = S(add)(d, av[p]);
  }
  if (!args->unit) /* (no ?: on structs: the SPIR-V target's address spaces differ) */
    s = S(div)(s, d);
  KK_AT(args->x, SC, i) = s;
}
