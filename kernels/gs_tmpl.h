/* kernels/gs_tmpl.h -- Gauss-Seidel sweeps for one element type (included by gs.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/* Rows rows[beg + k] of one color (no two of them neighbours):
 * x_i += omega (D^-1 (b_i - sum_{j != i} a_ij x_j) - x_i). */
KKK_FOR(KN(gs_color), struct kkk_gs_args, k) {
  const int64_t i = KK_DATA(args->rows, int32_t)[args->beg + k];
  const int64_t *rp = KK_DATA(args->rp, int64_t);
  const int32_t *ci = KK_DATA(args->ci, int32_t);
  const SC *av = KK_DATA(args->av, SC);
  SC s = KK_AT(args->b, SC, i);
  for (int64_t p = rp[i]; p < rp[i + 1]; p++)
    if (ci[p] != i)
      s = S(sub)(s, S(mul)(av[p], KK_AT(args->x, SC, ci[p])));
  const SC xi = KK_AT(args->x, SC, i);
  const SC d = S(sub)(S(mul)(KK_AT(args->dinv, SC, i), s), xi);
  KK_AT(args->x, SC, i) = S(fma)(S(from)(args->omega), d, xi);
}

/* z2_i = D^-1 (r_i - sum_{j < i} a_ij z_j) (j > i with `upper`). */
KKK_FOR(KN(gs_inner), struct kkk_gs_args, i) {
  const int64_t *rp = KK_DATA(args->rp, int64_t);
  const int32_t *ci = KK_DATA(args->ci, int32_t);
  const SC *av = KK_DATA(args->av, SC);
  const SC *z = KK_DATA(args->z, SC);
  SC s = KK_DATA(args->r, SC)[i];
  for (int64_t p = rp[i]; p < rp[i + 1]; p++)
    if (args->upper ? ci[p] > i : ci[p] < i)
      s = S(sub)(s, S(mul)(av[p], z[ci[p]]));
  KK_DATA(args->z2, SC)[i] = S(mul)(KK_AT(args->dinv, SC, i), s);
}
