/* kernels/blas1_tmpl.h -- BLAS 1 kernels for one element type (included by blas1.kk.c once per type; see scalar.h). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/* element i of a vector: through the data pointer when every vector has
 * unit stride (a branch the host compiler hoists out of the loop and then
 * vectorizes the loop), else through the strides */
#define KKK_UNIT_ON (args->flags & KKK_UNIT)
#define X1(i) (*(KKK_UNIT_ON ? &KK_DATA(args->x, SC)[i] : &KK_AT(args->x, SC, i)))
#define Y1(i) (*(KKK_UNIT_ON ? &KK_DATA(args->y, SC)[i] : &KK_AT(args->y, SC, i)))
#define Z1(i) (*(KKK_UNIT_ON ? &KK_DATA(args->z, SC)[i] : &KK_AT(args->z, SC, i)))

/* y = a x + b y */
KKK_FOR(KN(axpby), struct kkk_v_args, i) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  SC r = (args->flags & KKK_A_ZERO) ? S(zero)() : S(mul)(a, X1(i));
  if (!(args->flags & KKK_B_ZERO))
    r = S(fma)(b, Y1(i), r);
  Y1(i) = r;
}

KKK_MD_FOR2(KN(axpby2), struct kkk_v_args, i, j) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  SC r = (args->flags & KKK_A_ZERO) ? S(zero)() : S(mul)(a, KK_AT(args->x, SC, i, j));
  if (!(args->flags & KKK_B_ZERO))
    r = S(fma)(b, KK_AT(args->y, SC, i, j), r);
  KK_AT(args->y, SC, i, j) = r;
}

/* z = a x (here y holds r, x the input) */
KKK_FOR(KN(scal), struct kkk_v_args, i) {
  const SC a = S(from)(args->a);
  Y1(i) = (args->flags & KKK_A_ZERO) ? S(zero)() : S(mul)(a, X1(i));
}

KKK_MD_FOR2(KN(scal2), struct kkk_v_args, i, j) {
  const SC a = S(from)(args->a);
  KK_AT(args->y, SC, i, j) = (args->flags & KKK_A_ZERO) ? S(zero)() : S(mul)(a, KK_AT(args->x, SC, i, j));
}

/* z = a x + b y + g z */
KKK_FOR(KN(update), struct kkk_v_args, i) {
  const SC a = S(from)(args->a), b = S(from)(args->b), g = S(from)(args->g);
  SC r = (args->flags & KKK_A_ZERO) ? S(zero)() : S(mul)(a, X1(i));
  if (!(args->flags & KKK_B_ZERO))
    r = S(fma)(b, Y1(i), r);
  if (!(args->flags & KKK_G_ZERO))
    r = S(fma)(g, Z1(i), r);
  Z1(i) = r;
}

KKK_MD_FOR2(KN(update2), struct kkk_v_args, i, j) {
  const SC a = S(from)(args->a), b = S(from)(args->b), g = S(from)(args->g);
  SC r = (args->flags & KKK_A_ZERO) ? S(zero)() : S(mul)(a, KK_AT(args->x, SC, i, j));
  if (!(args->flags & KKK_B_ZERO))
    r = S(fma)(b, KK_AT(args->y, SC, i, j), r);
  if (!(args->flags & KKK_G_ZERO))
    r = S(fma)(g, KK_AT(args->z, SC, i, j), r);
  KK_AT(args->z, SC, i, j) = r;
}

/* z = x .* y */
KKK_FOR(KN(emul), struct kkk_emul_args, i) { Z1(i) = S(mul)(X1(i), Y1(i)); }

/* ---- reductions ----------------------------------------------------------------------
 * On host targets iteration i covers elements [VB i, VB i + VB): the VB terms
 * are summed as a tree before they meet the accumulator, so that the
 * additions of a block do not wait for each other (a host compiler keeps
 * the order of floating-point additions it is given).  GPU targets take one
 * element per iteration. */
#if KKK_HOST
#define KKK_VB KKK_HOST_VB
#else
#define KKK_VB 1
#endif

/* TERM(e) is element e's term; ACCUM combines two of them.  A full host
 * block is summed as a tree of eight. */
#if KKK_HOST
#define KKK_BLOCK_SUM(T, TERM, ACCUM)                                                                     \
  do {                                                                                                    \
    const int64_t b_ = i * KKK_VB;                                                                        \
    if (b_ + KKK_VB <= args->n) {                                                                         \
      const T t0_ = ACCUM(TERM(b_), TERM(b_ + 1)), t1_ = ACCUM(TERM(b_ + 2), TERM(b_ + 3));              \
      const T t2_ = ACCUM(TERM(b_ + 4), TERM(b_ + 5)), t3_ = ACCUM(TERM(b_ + 6), TERM(b_ + 7));          \
      *acc = ACCUM(*acc, ACCUM(ACCUM(t0_, t1_), ACCUM(t2_, t3_)));                                        \
    } else {                                                                                              \
      for (int64_t e_ = b_; e_ < args->n; e_++)                                                           \
        *acc = ACCUM(*acc, TERM(e_));                                                                     \
    }                                                                                                     \
  } while (0)
#if KKK_HOST_VB != 8
#error "the host block sum is written for blocks of 8"
#endif
#else
#define KKK_BLOCK_SUM(T, TERM, ACCUM) (*acc = ACCUM(*acc, TERM(i)))
#endif

#define KKK_RADD(a, b) ((a) + (b))
#define KKK_RMAX(a, b) ((b) > (a) ? (b) : (a))

#if CPLX
#define KKK_DOT_TERM(e) S(mul)(S(conj)(X1(e)), Y1(e))
KKK_REDUCE_N(KN(dot), struct kkk_v_args, SC, i, acc, (KK_SUM, RT, re), (KK_SUM, RT, im)) {
  KKK_BLOCK_SUM(SC, KKK_DOT_TERM, S(add));
}
#else
#define KKK_DOT_TERM(e) (X1(e) * Y1(e))
KKK_REDUCE(KN(dot), struct kkk_v_args, RT, KK_SUM, i, acc) { KKK_BLOCK_SUM(RT, KKK_DOT_TERM, KKK_RADD); }
#endif
#undef KKK_DOT_TERM

#define KKK_NRM2_TERM(e) S(abs2)(X1(e))
KKK_REDUCE(KN(nrm2), struct kkk_v_args, RT, KK_SUM, i, acc) { KKK_BLOCK_SUM(RT, KKK_NRM2_TERM, KKK_RADD); }
#undef KKK_NRM2_TERM

#define KKK_NRM1_TERM(e) S(abs1)(X1(e))
KKK_REDUCE(KN(nrm1), struct kkk_v_args, RT, KK_SUM, i, acc) { KKK_BLOCK_SUM(RT, KKK_NRM1_TERM, KKK_RADD); }
#undef KKK_NRM1_TERM

#define KKK_NRMINF_TERM(e) S(absv)(X1(e))
KKK_REDUCE(KN(nrminf), struct kkk_v_args, RT, KK_MAX, i, acc) { KKK_BLOCK_SUM(RT, KKK_NRMINF_TERM, KKK_RMAX); }
#undef KKK_NRMINF_TERM

/* the first index of the largest |re| + |im| (one element per iteration on every target) */
KKK_REDUCE(KN(iamax), struct kkk_v_args, RT, KK_MAXLOC, i, acc) { KK_MAXLOC_UPDATE(acc, S(abs1)(X1(i)), i); }

/* the same into a view: one team per column of x */
KKK_TEAM_FOR(KN(iamaxt), struct kkk_iamax_args, team) {
  const int64_t j = KK_LEAGUE_RANK(team), n = KK_EXTENT(args->x, 0);
  KKK_CAT(kk_valloc_, RT) v;
  KKK_TEAM_VECTOR_REDUCE(team, i, 0, n, RT, KK_MAXLOC, v) { KK_MAXLOC_UPDATE(&v, S(abs1)(KK_AT(args->x, SC, i, j)), i); }
  KK_SINGLE_TEAM(team) { KK_AT(args->r, int64_t, j) = n > 0 ? v.loc : (int64_t)-1; }
}

#undef KKK_VB
#undef KKK_BLOCK_SUM
#undef KKK_RADD
#undef KKK_RMAX
#undef KKK_UNIT_ON
#undef X1
#undef Y1
#undef Z1
