/* kernels/blas2_tmpl.h -- gemv and gemm kernels for one element type (included by blas2.kk.c once per type; see scalar.h). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

#define MA(i, j) S(cj)(KK_AT(args->A, SC, i, j), conj_a)
#define XV(j) KK_AT(args->x, SC, j)
#define YV(i) KK_AT(args->y, SC, i)

#if CPLX
/* the sum of complex values, for nested reductions */
KKK_REDUCER_INIT(KN(csum), SC, v) { *v = S(zero)(); }
KKK_REDUCER_JOIN(KN(csum), SC, d, s) { *d = S(add)(*d, *s); }
#endif

/* y(i) = a s + b y(i), y not read when b == 0 */
#define KKK_GEMV_STORE(i, s)                                                   \
  do {                                                                         \
    SC r_ = S(mul)(a, (s));                                                    \
    if (!(args->flags & KKK_B_ZERO))                                           \
      r_ = S(fma)(b, YV(i), r_);                                               \
    YV(i) = r_;                                                                \
  } while (0)

/* y = a M x + b y, M's rows contiguous (or neither dimension): rows_per_team
 * rows per league rank.  GPUs: a row per team thread, its columns over the
 * thread's vector lanes (a warp reads a row's consecutive elements); when
 * there are too few rows to fill the device, the columns are split into
 * col_blocks blocks too (league rank = column block x row_blocks + row
 * block) and the blocks' sums added into y atomically.  Host: four rows at
 * a time, each x(j) loaded once for the four (one column block). */
KKK_TEAM_FOR(KN(gemv_rows), struct kkk_gemv_args, team) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  const int conj_a = (args->flags & KKK_CONJ_A) != 0;
  const int64_t lr = KK_LEAGUE_RANK(team), q = lr / args->row_blocks;
  const int64_t r0 = (lr - q * args->row_blocks) * args->rows_per_team;
  const int64_t r1 = r0 + args->rows_per_team < args->m ? r0 + args->rows_per_team : args->m;
#if KKK_HOST
  const int64_t n = args->n;
  KK_TEAM_THREAD_FOR(team, g, 0, (r1 - r0 + 3) / 4) {
    const int64_t i = r0 + 4 * g;
    const int nr = r1 - i < 4 ? (int)(r1 - i) : 4;
    if (nr == 4) {
      SC s0 = S(zero)(), s1 = S(zero)(), s2 = S(zero)(), s3 = S(zero)();
      for (int64_t j = 0; j < n; j++) {
        const SC xj = XV(j);
        s0 = S(fma)(MA(i, j), xj, s0);
        s1 = S(fma)(MA(i + 1, j), xj, s1);
        s2 = S(fma)(MA(i + 2, j), xj, s2);
        s3 = S(fma)(MA(i + 3, j), xj, s3);
      }
      KKK_GEMV_STORE(i, s0);
      KKK_GEMV_STORE(i + 1, s1);
      KKK_GEMV_STORE(i + 2, s2);
      KKK_GEMV_STORE(i + 3, s3);
    } else {
      for (int r = 0; r < nr; r++) {
        SC s = S(zero)();
        for (int64_t j = 0; j < n; j++)
          s = S(fma)(MA(i + r, j), XV(j), s);
        KKK_GEMV_STORE(i + r, s);
      }
    }
  }
#else
  const int64_t j0 = q * args->col_chunk, j1 = j0 + args->col_chunk < args->n ? j0 + args->col_chunk : args->n;
  KK_TEAM_THREAD_FOR(team, i, r0, r1) {
    SC s;
#if CPLX
    KKK_THREAD_VECTOR_REDUCE_CUSTOM(team, j, j0, j1, KN(csum), s) { s = S(fma)(MA(i, j), XV(j), s); }
#else
    KKK_THREAD_VECTOR_REDUCE(team, j, j0, j1, RT, KK_SUM, s) { s += MA(i, j) * XV(j); }
#endif
    KK_SINGLE_THREAD(team) {
      if (args->flags & KKK_SPLIT)
        kk_atomic_add(&YV(i), S(mul)(a, s));
      else
        KKK_GEMV_STORE(i, s);
    }
  }
#endif
}

/* S_OUT = the sum of M(r, j) x(j) over j in [J0, J1), M's columns
 * contiguous (element (r, j) at AR[j * CS], AR row r's start, x(j) at
 * XP[j * XS]): KKK_GPU_GEMV_STEP columns' elements (and x's) loaded before
 * any is added, so that they are in flight together (four at a time, each
 * added as it came, kept the H100 at 0.90-0.94 of cuBLAS; sixteen reached
 * 0.97-0.98, 2026-11-28). */
#define KKK_GEMV_COLSUM(AR, CS, XP, XS, J0, J1, S_OUT)                                                        \
  do {                                                                                                        \
    SC s0_ = S(zero)(), s1_ = S(zero)(), s2_ = S(zero)(), s3_ = S(zero)();                                    \
    int64_t j_ = (J0);                                                                                        \
    for (; j_ + KKK_GPU_GEMV_STEP <= (J1); j_ += KKK_GPU_GEMV_STEP) {                                         \
      SC va_[KKK_GPU_GEMV_STEP], vx_[KKK_GPU_GEMV_STEP];                                                      \
      for (int u_ = 0; u_ < KKK_GPU_GEMV_STEP; u_++) {                                                        \
        va_[u_] = (AR)[(j_ + u_) * (CS)];                                                                     \
        vx_[u_] = (XP)[(j_ + u_) * (XS)];                                                                     \
      }                                                                                                       \
      for (int u_ = 0; u_ < KKK_GPU_GEMV_STEP; u_ += 4) {                                                     \
        s0_ = S(fma)(S(cj)(va_[u_], conj_a), vx_[u_], s0_);                                                   \
        s1_ = S(fma)(S(cj)(va_[u_ + 1], conj_a), vx_[u_ + 1], s1_);                                           \
        s2_ = S(fma)(S(cj)(va_[u_ + 2], conj_a), vx_[u_ + 2], s2_);                                           \
        s3_ = S(fma)(S(cj)(va_[u_ + 3], conj_a), vx_[u_ + 3], s3_);                                           \
      }                                                                                                       \
    }                                                                                                         \
    for (; j_ < (J1); j_++)                                                                                   \
      s0_ = S(fma)(S(cj)((AR)[j_ * (CS)], conj_a), (XP)[j_ * (XS)], s0_);                                     \
    S_OUT = S(add)(S(add)(s0_, s1_), S(add)(s2_, s3_));                                                       \
  } while (0)

/* y = a M x + b y, M's columns contiguous, on GPUs (left-layout op N,
 * right-layout op T): index e is row r = e % m of column block q = e / m,
 * so that consecutive threads read consecutive elements of a column
 * (coalesced) and m x col_blocks threads share the matrix, not m.  One
 * column block stores y = a s + b y; several add a s into y atomically (y
 * scaled by b before the launch).  The launch takes gemv_cblk instead
 * when the column blocks fit in one team. */
KKK_FOR(KN(gemv_split), struct kkk_gemv_args, e) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  const int conj_a = (args->flags & KKK_CONJ_A) != 0;
  const int64_t q = e / args->m, r = e - q * args->m;
  const int64_t j0 = q * args->col_chunk, j1 = j0 + args->col_chunk < args->n ? j0 + args->col_chunk : args->n;
  const SC *const ar = KK_DATA(args->A, SC) + r * KK_STRIDE(args->A, 0), *const xp = KK_DATA(args->x, SC);
  SC s;
  KKK_GEMV_COLSUM(ar, KK_STRIDE(args->A, 1), xp, KK_STRIDE(args->x, 0), j0, j1, s);
  if (args->flags & KKK_SPLIT)
    kk_atomic_add(&YV(r), S(mul)(a, s));
  else
    KKK_GEMV_STORE(r, s);
}

/* y = a M x + b y, M's columns contiguous, the columns split into
 * col_blocks blocks within one team: a league rank takes rows_per_team
 * consecutive rows, in slices of KKK_GPU_GEMV_TEAM_ROWS (a slice over a
 * thread's vector lanes, so that a warp reads consecutive elements of a
 * column); team thread t takes slice t % slices of column block t /
 * slices.  The threads' sums meet in team scratch and the team's first
 * lanes store y = a s + b y.  One launch and no atomics, where gemv_split
 * with several blocks needs y = b y launched before it and an atomic
 * addition per row and block.  Written for every target (host backends
 * run it only when KK_KERNELS_GEMV=cblk asks, so that the host tests
 * cover it). */
KKK_TEAM_FOR(KN(gemv_cblk), struct kkk_gemv_args, team) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  const int conj_a = (args->flags & KKK_CONJ_A) != 0;
  const int64_t nb = args->col_blocks, rt = args->rows_per_team, sl = rt / KKK_GPU_GEMV_TEAM_ROWS;
  const int64_t r0 = KK_LEAGUE_RANK(team) * rt;
  const int64_t cs = KK_STRIDE(args->A, 1), xs = KK_STRIDE(args->x, 0), rs = KK_STRIDE(args->A, 0);
  const SC *const xp = KK_DATA(args->x, SC);
  SC *part = KK_TEAM_SCRATCH(team, 0, SC, nb * rt);
  KK_TEAM_THREAD_FOR(team, t, 0, nb * sl) {
    const int64_t q = t / sl, i0 = (t - q * sl) * KKK_GPU_GEMV_TEAM_ROWS;
    const int64_t j0 = q * args->col_chunk, j1 = j0 + args->col_chunk < args->n ? j0 + args->col_chunk : args->n;
    KK_THREAD_VECTOR_FOR(team, l, i0, i0 + KKK_GPU_GEMV_TEAM_ROWS) {
      SC s = S(zero)();
      if (r0 + l < args->m)
        KKK_GEMV_COLSUM(KK_DATA(args->A, SC) + (r0 + l) * rs, cs, xp, xs, j0, j1, s);
      part[q * rt + l] = s;
    }
  }
  KK_TEAM_BARRIER(team);
  KK_TEAM_VECTOR_FOR(team, l, 0, rt) {
    if (r0 + l < args->m) {
      SC s = part[l];
      for (int64_t q = 1; q < nb; q++)
        s = S(add)(s, part[q * rt + l]);
      KKK_GEMV_STORE(r0 + l, s);
    }
  }
}
#undef KKK_GEMV_COLSUM

/* y = a M x + b y, M's columns contiguous, on host backends (GPUs launch
 * gemv_split or gemv_cblk): index ib is a block of KKK_HOST_GEMV_RB rows, accumulated
 * column after column (contiguous, vectorizable).  The device form (a row
 * per index) is what gemv_split does with one column block. */
KKK_FOR(KN(gemv_cols), struct kkk_gemv_args, ib) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  const int conj_a = (args->flags & KKK_CONJ_A) != 0;
  const int64_t n = args->n;
#if KKK_HOST
  const int64_t i0 = ib * KKK_HOST_GEMV_RB;
  const int nr = args->m - i0 < KKK_HOST_GEMV_RB ? (int)(args->m - i0) : KKK_HOST_GEMV_RB;
  SC acc[KKK_HOST_GEMV_RB];
  for (int r = 0; r < KKK_HOST_GEMV_RB; r++)
    acc[r] = S(zero)();
  if (nr == KKK_HOST_GEMV_RB) {
    for (int64_t j = 0; j < n; j++) {
      const SC xj = XV(j);
      for (int r = 0; r < KKK_HOST_GEMV_RB; r++)
        acc[r] = S(fma)(MA(i0 + r, j), xj, acc[r]);
    }
  } else {
    for (int64_t j = 0; j < n; j++) {
      const SC xj = XV(j);
      for (int r = 0; r < nr; r++)
        acc[r] = S(fma)(MA(i0 + r, j), xj, acc[r]);
    }
  }
  for (int r = 0; r < nr; r++)
    KKK_GEMV_STORE(i0 + r, acc[r]);
#else
  SC s = S(zero)();
  for (int64_t j = 0; j < n; j++)
    s = S(fma)(MA(ib, j), XV(j), s);
  KKK_GEMV_STORE(ib, s);
#endif
}
#undef KKK_GEMV_STORE
#undef MA
#undef XV
#undef YV

/* C = a MA MB + b C, one GT x GT tile of C per league rank, A's and B's
 * tiles staged in team scratch, the tile's sums kept in scratch across the
 * k blocks. */
KKK_TEAM_FOR(KN(gemm), struct kkk_gemm_args, team) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  const int conj_a = (args->flags & KKK_CONJ_A) != 0, conj_b = (args->flags & KKK_CONJ_B) != 0;
  const int64_t t = KK_LEAGUE_RANK(team);
  const int64_t i0 = (t / args->tiles_n) * GT, j0 = (t % args->tiles_n) * GT;
  const int mb = args->m - i0 < GT ? (int)(args->m - i0) : GT;
  const int nb = args->n - j0 < GT ? (int)(args->n - j0) : GT;
  const int mb4 = (mb + 3) & ~3, nb4 = (nb + 3) & ~3;
  SC *As = KK_TEAM_SCRATCH(team, 0, SC, GT * GT);
  SC *Bs = KK_TEAM_SCRATCH(team, 0, SC, GT * GT);
  SC *Cs = KK_TEAM_SCRATCH(team, 0, SC, GT * GT);
  const int a_ifast = KK_STRIDE(args->A, 0) == 1, b_kfast = KK_STRIDE(args->B, 0) == 1;
  const int c_ifast = KK_STRIDE(args->C, 0) == 1;
  KK_TEAM_VECTOR_FOR(team, e, 0, GT * GT) { Cs[e] = S(zero)(); }
  const int64_t kend = (args->flags & KKK_A_ZERO) ? 0 : args->k;
  for (int64_t k0 = 0; k0 < kend; k0 += GT) {
    const int kb = kend - k0 < GT ? (int)(kend - k0) : GT;
    KK_TEAM_BARRIER(team); /* the previous block's tiles are no longer read */
    /* A's rows and B's columns padded with zeros to multiples of 4: the host
     * computes 4 x 4 blocks of C */
    KKK_FOR_2D(ii, mb4, kk, kb, a_ifast) {
      As[ii * GT + kk] = ii < mb ? S(cj)(KK_AT(args->A, SC, i0 + ii, k0 + kk), conj_a) : S(zero)();
    }
    KKK_FOR_2D(kk, kb, jj, nb4, b_kfast) {
      Bs[kk * GT + jj] = jj < nb ? S(cj)(KK_AT(args->B, SC, k0 + kk, j0 + jj), conj_b) : S(zero)();
    }
    KK_TEAM_BARRIER(team);
#if KKK_HOST
    /* 4 x 4 blocks of C in registers over the k block: each A(i, k) and
     * B(k, j) loaded once per block */
    KK_TEAM_THREAD_FOR(team, ib, 0, mb4 / 4) {
      for (int jb = 0; jb < nb4; jb += 4) {
        SC c[4][4];
        for (int r = 0; r < 4; r++)
          for (int q = 0; q < 4; q++)
            c[r][q] = Cs[(4 * ib + r) * GT + jb + q];
        for (int kk = 0; kk < kb; kk++) {
          const SC *restrict brow = Bs + kk * GT + jb;
          for (int r = 0; r < 4; r++) {
            const SC air = As[(4 * ib + r) * GT + kk];
            for (int q = 0; q < 4; q++)
              c[r][q] = S(fma)(air, brow[q], c[r][q]);
          }
        }
        for (int r = 0; r < 4; r++)
          for (int q = 0; q < 4; q++)
            Cs[(4 * ib + r) * GT + jb + q] = c[r][q];
      }
    }
#else
    KK_TEAM_THREAD_FOR(team, ii, 0, mb) {
      KK_THREAD_VECTOR_FOR(team, jj, 0, nb) {
        SC s = Cs[ii * GT + jj];
        for (int kk = 0; kk < kb; kk++)
          s = S(fma)(As[ii * GT + kk], Bs[kk * GT + jj], s);
        Cs[ii * GT + jj] = s;
      }
    }
#endif
  }
  KK_TEAM_BARRIER(team);
  KKK_FOR_2D(ii, mb, jj, nb, c_ifast) {
    SC r = S(mul)(a, Cs[ii * GT + jj]);
    if (!(args->flags & KKK_B_ZERO))
      r = S(fma)(b, KK_AT(args->C, SC, i0 + ii, j0 + jj), r);
    KK_AT(args->C, SC, i0 + ii, j0 + jj) = r;
  }
}

#if !CPLX
#include "gemm_tmpl.h"
#endif
