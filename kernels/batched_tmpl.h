/* kernels/batched_tmpl.h -- batched gemm, gemv, trsm and LU kernels for one element type (included by batched.kk.c once per type). */

/* Copies matrix bi of the rank-3 descriptor D (rows x cols) into scratch
 * DST[i * cols + j], conjugated if CJ, times F; the unit-stride index of D
 * runs fastest over the team's lanes. */
#define KKK_STAGE(DST, D, bi, rows, cols, CJ, F)                                                         \
  do {                                                                                                    \
    const int r_ = (rows), c_ = (cols);                                                                   \
    KKK_FOR_2D(i_, r_, j_, c_, KK_STRIDE(D, 1) == 1) {                                                    \
      (DST)[i_ * c_ + j_] = S(mul)((F), S(cj)(KK_AT(D, SC, (bi), i_, j_), (CJ)));                         \
    }                                                                                                     \
  } while (0)

#if CPLX
/* the sum of complex values, for nested reductions */
KKK_REDUCER_INIT(KN(bsum), SC, v) { *v = S(zero)(); }
KKK_REDUCER_JOIN(KN(bsum), SC, d, s) { *d = S(add)(*d, *s); }
#endif

/* C[bi] = a A[bi] B[bi] + b C[bi] (A, B already op(A), op(B)).  Host
 * targets: no scratch, A and B read in place; the team's thread (one on
 * host backends) takes blocks of 4 x 8 elements of C, kept in registers
 * over the whole k loop (each A(i, kk) feeds 8 multiply-adds, each B(kk, j)
 * 4; B's row read through a pointer when it has unit stride, so that the
 * compiler vectorizes it).  GPU targets: A and B in team scratch, each lane
 * one element of C, or from 32 x 32 up four rows of one column. */
KKK_TEAM_FOR(KN(bgemm), struct kkk_batched_args, team) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  const int64_t bi = KK_LEAGUE_RANK(team);
  const int m = (int)args->m, n = (int)args->n, k = (int)args->k;
  const int azero = (args->flags & KKK_A_ZERO) != 0 || k == 0;
#if KKK_HOST
  const int cja = (args->flags & KKK_CONJ_A) != 0, cjb = (args->flags & KKK_CONJ_B) != 0;
  const int b_unit = KK_STRIDE(args->B, 2) == 1;
  KK_TEAM_THREAD_FOR(team, ib, 0, (m + 3) / 4) {
    const int i0 = 4 * (int)ib, nr = m - i0 < 4 ? m - i0 : 4;
    for (int j0 = 0; j0 < n; j0 += 8) {
      const int nc = n - j0 < 8 ? n - j0 : 8;
      SC c[4][8];
      for (int r = 0; r < 4; r++)
        for (int q = 0; q < 8; q++)
          c[r][q] = S(zero)();
      if (!azero && nr == 4 && nc == 8) {
        for (int kk = 0; kk < k; kk++) {
          SC ar[4], bq[8];
          for (int r = 0; r < 4; r++)
            ar[r] = S(cj)(KK_AT(args->A, SC, bi, i0 + r, kk), cja);
          if (b_unit) {
            const SC *restrict brow = &KK_AT(args->B, SC, bi, kk, j0);
            for (int q = 0; q < 8; q++)
              bq[q] = S(cj)(brow[q], cjb);
          } else {
            for (int q = 0; q < 8; q++)
              bq[q] = S(cj)(KK_AT(args->B, SC, bi, kk, j0 + q), cjb);
          }
          for (int r = 0; r < 4; r++)
            for (int q = 0; q < 8; q++)
              c[r][q] = S(fma)(ar[r], bq[q], c[r][q]);
        }
      } else if (!azero) {
        for (int kk = 0; kk < k; kk++)
          for (int r = 0; r < nr; r++) {
            const SC air = S(cj)(KK_AT(args->A, SC, bi, i0 + r, kk), cja);
            for (int q = 0; q < nc; q++)
              c[r][q] = S(fma)(air, S(cj)(KK_AT(args->B, SC, bi, kk, j0 + q), cjb), c[r][q]);
          }
      }
      for (int r = 0; r < nr; r++)
        for (int q = 0; q < nc; q++) {
          SC v = S(mul)(a, c[r][q]);
          if (!(args->flags & KKK_B_ZERO))
            v = S(fma)(b, KK_AT(args->C, SC, bi, i0 + r, j0 + q), v);
          KK_AT(args->C, SC, bi, i0 + r, j0 + q) = v;
        }
    }
  }
#else
  const SC one = S(from)(kk_cdouble(1.0, 0.0));
  SC *As = KK_TEAM_SCRATCH(team, 0, SC, (int64_t)m * k);
  SC *Bs = KK_TEAM_SCRATCH(team, 0, SC, (int64_t)k * n);
  if (!azero) {
    KKK_STAGE(As, args->A, bi, m, k, (args->flags & KKK_CONJ_A) != 0, one);
    KKK_STAGE(Bs, args->B, bi, k, n, (args->flags & KKK_CONJ_B) != 0, one);
  }
  KK_TEAM_BARRIER(team);
  if (args->rblock == KKK_BGEMM_RB) {
    /* register blocking: a lane keeps KKK_BGEMM_RB (4) rows of one column of
     * C, so that each B(kk, j) read from scratch feeds four multiply-adds
     * (A's four elements are the same for all the thread's lanes: one
     * broadcast read each); 2.5 times fewer scratch reads per multiply-add
     * than an element per lane */
    KK_TEAM_THREAD_FOR(team, ib, 0, (m + KKK_BGEMM_RB - 1) / KKK_BGEMM_RB) {
      const int i0 = (int)ib * KKK_BGEMM_RB, nr = m - i0 < KKK_BGEMM_RB ? m - i0 : KKK_BGEMM_RB;
      const SC *a0 = As + i0 * k, *a1 = a0 + (nr > 1 ? k : 0), *a2 = a0 + (nr > 2 ? 2 * k : 0),
               *a3 = a0 + (nr > 3 ? 3 * k : 0); /* rows past m read row i0 again, and are not stored */
      KK_THREAD_VECTOR_FOR(team, j, 0, n) {
        SC c[KKK_BGEMM_RB];
        c[0] = c[1] = c[2] = c[3] = S(zero)();
        if (!azero)
          for (int kk = 0; kk < k; kk++) {
            const SC bkj = Bs[kk * n + j];
            c[0] = S(fma)(a0[kk], bkj, c[0]);
            c[1] = S(fma)(a1[kk], bkj, c[1]);
            c[2] = S(fma)(a2[kk], bkj, c[2]);
            c[3] = S(fma)(a3[kk], bkj, c[3]);
          }
        for (int r = 0; r < KKK_BGEMM_RB; r++)
          if (r < nr) {
            SC v = S(mul)(a, c[r]);
            if (!(args->flags & KKK_B_ZERO))
              v = S(fma)(b, KK_AT(args->C, SC, bi, i0 + r, j), v);
            KK_AT(args->C, SC, bi, i0 + r, j) = v;
          }
      }
    }
  } else {
    KK_TEAM_THREAD_FOR(team, i, 0, m) {
      KK_THREAD_VECTOR_FOR(team, j, 0, n) {
        SC s = S(zero)();
        if (!azero)
          for (int kk = 0; kk < k; kk++)
            s = S(fma)(As[i * k + kk], Bs[kk * n + j], s);
        SC r = S(mul)(a, s);
        if (!(args->flags & KKK_B_ZERO))
          r = S(fma)(b, KK_AT(args->C, SC, bi, i, j), r);
        KK_AT(args->C, SC, bi, i, j) = r;
      }
    }
  }
#endif
}

/* y[bi] = a A[bi] x[bi] + b y[bi] (A already op(A), m x n; x in B, y in C):
 * x staged in scratch, a row per team thread, its columns over the lanes. */
KKK_TEAM_FOR(KN(bgemv), struct kkk_batched_args, team) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  const int64_t bi = KK_LEAGUE_RANK(team);
  const int m = (int)args->m, n = (int)args->n;
  const int azero = (args->flags & KKK_A_ZERO) != 0;
#if CPLX
  const int conj_a = (args->flags & KKK_CONJ_A) != 0;
#endif
  SC *xs = KK_TEAM_SCRATCH(team, 0, SC, n);
  KK_TEAM_VECTOR_FOR(team, j, 0, azero ? 0 : n) { xs[j] = KK_AT(args->B, SC, bi, j); }
  KK_TEAM_BARRIER(team);
  KK_TEAM_THREAD_FOR(team, i, 0, m) {
    SC s;
#if CPLX
    KKK_THREAD_VECTOR_REDUCE_CUSTOM(team, j, 0, azero ? 0 : n, KN(bsum), s) {
      s = S(fma)(S(cj)(KK_AT(args->A, SC, bi, i, j), conj_a), xs[j], s);
    }
#else
    KKK_THREAD_VECTOR_REDUCE(team, j, 0, azero ? 0 : n, RT, KK_SUM, s) { s += KK_AT(args->A, SC, bi, i, j) * xs[j]; }
#endif
    KK_SINGLE_THREAD(team) {
      SC r = S(mul)(a, s);
      if (!(args->flags & KKK_B_ZERO))
        r = S(fma)(b, KK_AT(args->C, SC, bi, i), r);
      KK_AT(args->C, SC, bi, i) = r;
    }
  }
}

/* B[bi] = a op(A[bi])^-1 B[bi] (side left) or a B[bi] op(A[bi])^-1 (right):
 * A and a B in scratch, each right-hand side (a column of B on the left, a
 * row on the right) solved by one lane by substitution. */
KKK_TEAM_FOR(KN(btrsm), struct kkk_batched_args, team) {
  const SC a = S(from)(args->a), one = S(from)(kk_cdouble(1.0, 0.0));
  const int64_t bi = KK_LEAGUE_RANK(team);
  const int m = (int)args->m, n = (int)args->n, left = args->side == 0;
  const int d = left ? m : n;
  SC *As = KK_TEAM_SCRATCH(team, 0, SC, (int64_t)d * d);
  SC *Bs = KK_TEAM_SCRATCH(team, 0, SC, (int64_t)m * n);
  KKK_STAGE(As, args->A, bi, d, d, (args->flags & KKK_CONJ_A) != 0, one);
  KKK_STAGE(Bs, args->B, bi, m, n, 0, a);
  KK_TEAM_BARRIER(team);
  /* T(i, l): op(A) on the left, op(A) transposed on the right; tlow: T is lower */
  const int swap = left ? args->swap : !args->swap;
  const int tlow = left ? args->lower : !args->lower;
  const int unit = args->unit;
  KK_TEAM_VECTOR_FOR(team, v, 0, left ? n : m) {
    /* element e of right-hand side v */
    const int64_t base = left ? v : v * n, step = left ? n : 1;
    if (tlow) {
      for (int i = 0; i < d; i++) {
        SC s = Bs[base + i * step];
        for (int l = 0; l < i; l++)
          s = S(sub)(s, S(mul)(swap ? As[l * d + i] : As[i * d + l], Bs[base + l * step]));
        if (!unit)
          s = S(div)(s, As[i * d + i]);
        Bs[base + i * step] = s;
      }
    } else {
      for (int i = d - 1; i >= 0; i--) {
        SC s = Bs[base + i * step];
        for (int l = i + 1; l < d; l++)
          s = S(sub)(s, S(mul)(swap ? As[l * d + i] : As[i * d + l], Bs[base + l * step]));
        if (!unit)
          s = S(div)(s, As[i * d + i]);
        Bs[base + i * step] = s;
      }
    }
  }
  KK_TEAM_BARRIER(team);
  KKK_FOR_2D(i, m, j, n, KK_STRIDE(args->B, 1) == 1) { KK_AT(args->B, SC, bi, i, j) = Bs[i * n + j]; }
}

/* A[bi] = L U in place, no pivoting: right-looking, one column of L and one
 * rank-1 update of the trailing block per step, in scratch. */
KKK_TEAM_FOR(KN(blu), struct kkk_batched_args, team) {
  const SC one = S(from)(kk_cdouble(1.0, 0.0));
  const int64_t bi = KK_LEAGUE_RANK(team);
  const int m = (int)args->m, n = (int)args->n, mn = m < n ? m : n;
  SC *As = KK_TEAM_SCRATCH(team, 0, SC, (int64_t)m * n);
  KKK_STAGE(As, args->A, bi, m, n, 0, one);
  for (int kk = 0; kk < mn; kk++) {
    KK_TEAM_BARRIER(team);
    const SC piv = As[kk * n + kk];
    KK_TEAM_VECTOR_FOR(team, i, kk + 1, m) { As[i * n + kk] = S(div)(As[i * n + kk], piv); }
    KK_TEAM_BARRIER(team);
    const int w = n - kk - 1;
    KKK_FOR_2D(i1, m - kk - 1, j1, w, 0) {
      const int i = kk + 1 + i1, j = kk + 1 + j1;
      As[i * n + j] = S(sub)(As[i * n + j], S(mul)(As[i * n + kk], As[kk * n + j]));
    }
  }
  KK_TEAM_BARRIER(team);
  KKK_FOR_2D(i, m, j, n, KK_STRIDE(args->A, 1) == 1) { KK_AT(args->A, SC, bi, i, j) = As[i * n + j]; }
}

#undef KKK_STAGE
