/* kernels/ilu_tmpl.h -- the ILU(k) numeric phase for one element type (included by ilu.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/* Row i of the factors: zeros, then A's row i added in (duplicates of A
 * add up; the fill entries stay zero). */
KKK_FOR(KN(ilu_load), struct kkk_ilu_args, i) {
  const int64_t *restrict rp = KK_DATA(args->row_ptr, int64_t);
  const int64_t *restrict arp = KK_DATA(args->a_row_ptr, int64_t);
  const int64_t *restrict amap = KK_DATA(args->amap, int64_t);
  const SC *restrict a = KK_DATA(args->a_vals, SC);
  SC *restrict lu = KK_DATA(args->vals, SC);
  for (int64_t p = rp[i]; p < rp[i + 1]; p++)
    lu[p] = S(zero)();
  for (int64_t p = arp[i]; p < arp[i + 1]; p++)
    lu[amap[p]] = S(add)(lu[amap[p]], a[p]);
}

/* Row i = order[k] of one level, the IKJ form of Gaussian elimination
 * restricted to the pattern: for each k < i in the row, in increasing
 * order, l_ik = a_ik / u_kk, then a_ij -= l_ik u_kj for the j > k that row
 * k's U part and row i share (both rows sorted: one merge).  Rows k come
 * from earlier levels, already final.  A zero u_ii is noted (the smallest
 * such row, by an atomic min). */
KKK_FOR(KN(ilu_row), struct kkk_ilu_args, q) {
  const int64_t *restrict rp = KK_DATA(args->row_ptr, int64_t);
  const int32_t *restrict ci = KK_DATA(args->col_idx, int32_t);
  const int64_t *restrict dg = KK_DATA(args->diag, int64_t);
  SC *restrict lu = KK_DATA(args->vals, SC);
  const int64_t i = KK_AT(args->order, int32_t, q);
  const int64_t e = rp[i + 1], di = dg[i];
  for (int64_t p = rp[i]; p < di; p++) {
    const int64_t k = ci[p];
    const SC l = S(div)(lu[p], lu[dg[k]]);
    lu[p] = l;
    int64_t t = p + 1;
    for (int64_t r = dg[k] + 1; r < rp[k + 1] && t < e; r++) {
      const int32_t j = ci[r];
      while (t < e && ci[t] < j)
        t++;
      if (t < e && ci[t] == j)
        lu[t] = S(sub)(lu[t], S(mul)(l, lu[r]));
    }
  }
  if (S(iszero)(lu[di]))
    kk_atomic_min(&KK_AT(args->pivot, int64_t, 0), i);
}
