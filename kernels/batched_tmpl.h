/* kernels/batched_tmpl.h -- batched gemm, gemv, trsm and LU kernels for one element type (included by batched.kk.c once per type). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

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

/* Element e of matrix bi of the rank-3 descriptor D (R x C), in the order
 * the GPU staging takes them (the unit-stride index fastest: rows if IF);
 * read at P + e, P the matrix's start, when DN says the matrix is stored
 * densely in that order (KKK_DENSE), without dividing e. */
#define KKK_EL(D, P, DN, bi, e, R, C, IF) \
  ((DN) ? (P)[e] : KK_AT(D, SC, (bi), (IF) ? (e) % (R) : (e) / (C), (IF) ? (e) / (R) : (e) % (C)))
#define KKK_DENSE(D, R, C, IF) ((IF) ? KK_STRIDE(D, 2) == (R) : KK_STRIDE(D, 2) == 1 && KK_STRIDE(D, 1) == (C))

/* GPU targets: matrix bi of A (m x k) and of B (k x n) into scratch,
 * As[i * k + l] and Bs[l * n + j].  Each lane loads KKK_STAGE_U elements of
 * each into registers before it stores any: a load followed by its store
 * to scratch waits for the load (the compiler cannot move the next load
 * above a store that might alias it), so an element at a time put one
 * memory latency after the other (H100, 2026-11-28: 4096 x 32^3 dgemm
 * 1.55x faster).  The unit-stride index runs fastest over the lanes, as in
 * KKK_STAGE; a matrix stored densely is read at its start + e, without
 * dividing e. */
#define KKK_STAGE_AB(AS, A, BS, B, bi, m, k, n, CJA, CJB)                                                     \
  do {                                                                                                      \
    const int nl_ = (int)(KK_TEAM_SIZE(team) * KK_VECTOR_LENGTH(team)), mk_ = (m) * (k), kn_ = (k) * (n);     \
    const int aif_ = KK_STRIDE(A, 1) == 1, bif_ = KK_STRIDE(B, 1) == 1;                                      \
    const int ad_ = KKK_DENSE(A, m, k, aif_), bd_ = KKK_DENSE(B, k, n, bif_);                                  \
    const SC *const ap_ = KK_DATA(A, SC) + (bi) * KK_STRIDE(A, 0);                                          \
    const SC *const bp_ = KK_DATA(B, SC) + (bi) * KK_STRIDE(B, 0);                                          \
    KK_TEAM_VECTOR_FOR(team, me_, 0, nl_) {                                                                 \
      for (int e0_ = (int)me_; e0_ < mk_ || e0_ < kn_; e0_ += KKK_STAGE_U * nl_) {                           \
        SC va_[KKK_STAGE_U], vb_[KKK_STAGE_U];                                                              \
        for (int u_ = 0; u_ < KKK_STAGE_U; u_++) {                                                          \
          const int e_ = e0_ + u_ * nl_;                                                                    \
          va_[u_] = e_ >= mk_ ? S(zero)() : KKK_EL(A, ap_, ad_, bi, e_, m, k, aif_);                          \
          vb_[u_] = e_ >= kn_ ? S(zero)() : KKK_EL(B, bp_, bd_, bi, e_, k, n, bif_);                          \
        }                                                                                                   \
        for (int u_ = 0; u_ < KKK_STAGE_U; u_++) {                                                          \
          const int e_ = e0_ + u_ * nl_;                                                                    \
          if (e_ < mk_)                                                                                     \
            (AS)[aif_ ? (e_ % (m)) * (k) + e_ / (m) : e_] = S(cj)(va_[u_], (CJA));                          \
          if (e_ < kn_)                                                                                     \
            (BS)[bif_ ? (e_ % (k)) * (n) + e_ / (k) : e_] = S(cj)(vb_[u_], (CJB));                          \
        }                                                                                                   \
      }                                                                                                     \
    }                                                                                                       \
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
  SC *As = KK_TEAM_SCRATCH(team, 0, SC, (int64_t)m * k);
  SC *Bs = KK_TEAM_SCRATCH(team, 0, SC, (int64_t)k * n);
  if (!azero)
    KKK_STAGE_AB(As, args->A, Bs, args->B, bi, m, k, n, (args->flags & KKK_CONJ_A) != 0, (args->flags & KKK_CONJ_B) != 0);
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

/* C[bi] = a A[bi] B[bi] + b C[bi] on GPUs, the form the launch picks when
 * it fits (kk_batched_gemm): a team takes args->group matrices one after
 * the other and each of its threads (vector length 1) one 4 x NC block of
 * C, rows 4 ib .. 4 ib + 3 and columns l + ncl c (c < NC, ncl = (n + NC -
 * 1) / NC), consecutive threads on consecutive columns, so that the team
 * covers C once.  A and B are staged in scratch, A's rows padded to k + 1
 * elements (a warp's threads read rows four apart: unpadded, the same
 * bank); each thread loads its at most PU = 4 NC elements of the next
 * matrix's A and B into registers while the team computes the current
 * one, so that a team waits for memory once, not once per matrix (H100,
 * 2026-11-28: 4096 x 32^3 dgemm at 1.01 of cuBLAS with 4 matrices per
 * team, 0.93 with one, and 0.88-0.91 in the general form above).  bgemm_p
 * takes 4 x 2 blocks (NC 2), bgemm_p4 4 x 4 (NC 4: each B(kk, j) and
 * A(i, kk) read from scratch feeds four multiply-adds, where 4 x 2 reads
 * six values for eight; half the threads, twice the registers).  MM, KB,
 * NB and LDA are constants for 32^3 and 16^3.  No scratch or barrier sits
 * inside a vector loop: SPIR-V targets run a thread's lanes as a loop of
 * one work-item. */
#define KKK_BP_LOAD(bb, MM, KB, NB, PU)                                                                     \
  do {                                                                                                      \
    const SC *const ap_ = KK_DATA(args->A, SC) + (bb) * KK_STRIDE(args->A, 0);                              \
    const SC *const bp_ = KK_DATA(args->B, SC) + (bb) * KK_STRIDE(args->B, 0);                              \
    for (int u_ = 0; u_ < (PU); u_++) {                                                                     \
      const int e_ = me + u_ * nl;                                                                          \
      va[u_] = e_ >= mk ? S(zero)() : KKK_EL(args->A, ap_, ad, bb, e_, MM, KB, aif);                          \
      vb[u_] = e_ >= kn ? S(zero)() : KKK_EL(args->B, bp_, bd, bb, e_, KB, NB, bif);                          \
    }                                                                                                       \
  } while (0)
/* the columns of C of a thread's block: l, l + ncl, ... (bgemm_p,
 * bgemm_p4) */
#define KKK_BP_COL(c) (l + ncl * (c))
/* the k loop of bgemm_p and bgemm_p4: a step of k reads A's 4 elements
 * and B's NC from scratch, one at a time */
#define KKK_BP_KLOOP(KB, NB, NC)                                                                            \
  do {                                                                                                      \
    int jc[NC]; /* the thread's columns, those past n read as column n - 1 and not stored */                \
    for (int c = 0; c < (NC); c++)                                                                          \
      jc[c] = KKK_BP_COL(c) < (NB) ? KKK_BP_COL(c) : (NB) - 1;                                              \
    for (int kk = 0; kk < (KB); kk++) {                                                                     \
      const SC x[4] = {a0[kk], a1[kk], a2[kk], a3[kk]};                                                     \
      for (int c = 0; c < (NC); c++) {                                                                      \
        const SC bv = Bs[kk * (NB) + jc[c]];                                                                \
        for (int r = 0; r < 4; r++)                                                                         \
          cc[r][c] = S(fma)(x[r], bv, cc[r][c]);                                                            \
      }                                                                                                     \
    }                                                                                                       \
  } while (0)
/* The pipelined form: MM x KB times KB x NB, A's rows LDA apart in
 * scratch, blocks of 4 x NC, the thread's columns COL(c), the k loop
 * KLOOP(KB, NB, NC) (accumulating into cc from a0 .. a3 and Bs). */
#define KKK_BP_ALL(MM, KB, NB, LDA, NC, COL, KLOOP)                                                         \
  do {                                                                                                      \
    const int mk = (MM) * (KB), kn = (KB) * (NB), ncl = ((NB) + (NC) - 1) / (NC);                           \
    const int aif = KK_STRIDE(args->A, 1) == 1, bif = KK_STRIDE(args->B, 1) == 1;                           \
    const int ad = KKK_DENSE(args->A, MM, KB, aif), bd = KKK_DENSE(args->B, KB, NB, bif);                     \
    KK_TEAM_THREAD_FOR(team, me64, 0, nl) {                                                                 \
      const int me = (int)me64, ib = me / ncl, l = me - ib * ncl;                                           \
      const int i0 = ib * 4, nr = (MM) - i0 < 4 ? (MM) - i0 : 4;                                            \
      const SC *a0 = As + i0 * (LDA), *a1 = a0 + (nr > 1 ? (LDA) : 0), *a2 = a0 + (nr > 2 ? 2 * (LDA) : 0),  \
               *a3 = a0 + (nr > 3 ? 3 * (LDA) : 0); /* rows past m read row i0 again, and are not stored */ \
      SC va[4 * (NC)], vb[4 * (NC)];                                                                        \
      KKK_BP_LOAD(g0, MM, KB, NB, 4 * (NC));                                                                \
      for (int64_t bi = g0; bi < g1; bi++) {                                                                \
        KK_TEAM_BARRIER(team); /* the previous matrix is no longer read */                                  \
        for (int u_ = 0; u_ < 4 * (NC); u_++) {                                                             \
          const int e_ = me + u_ * nl;                                                                      \
          if (e_ < mk)                                                                                      \
            As[aif ? (e_ % (MM)) * (LDA) + e_ / (MM) : (e_ / (KB)) * (LDA) + e_ % (KB)] = S(cj)(va[u_], cja); \
          if (e_ < kn)                                                                                      \
            Bs[bif ? (e_ % (KB)) * (NB) + e_ / (KB) : e_] = S(cj)(vb[u_], cjb);                             \
        }                                                                                                   \
        KK_TEAM_BARRIER(team);                                                                              \
        if (bi + 1 < g1)                                                                                    \
          KKK_BP_LOAD(bi + 1, MM, KB, NB, 4 * (NC));                                                        \
        SC cc[4][NC];                                                                                       \
        for (int r = 0; r < 4; r++)                                                                         \
          for (int c = 0; c < (NC); c++)                                                                    \
            cc[r][c] = S(zero)();                                                                           \
        KLOOP(KB, NB, NC);                                                                                  \
        for (int r = 0; r < 4; r++)                                                                         \
          for (int c = 0; c < (NC); c++)                                                                    \
            if (r < nr && COL(c) < (NB)) {                                                                  \
              SC v = S(mul)(a, cc[r][c]);                                                                   \
              if (!(args->flags & KKK_B_ZERO))                                                              \
                v = S(fma)(bsc, KK_AT(args->C, SC, bi, i0 + r, COL(c)), v);                                 \
              KK_AT(args->C, SC, bi, i0 + r, COL(c)) = v;                                                   \
            }                                                                                               \
      }                                                                                                     \
    }                                                                                                       \
  } while (0)
/* what the pipelined kernels share before their blocks (A's rows padded
 * by PAD elements) */
#define KKK_BP_BEGIN(PAD)                                                                                   \
  const SC a = S(from)(args->a), bsc = S(from)(args->b);                                                    \
  const int m = (int)args->m, n = (int)args->n, k = (int)args->k;                                           \
  const int cja = (args->flags & KKK_CONJ_A) != 0, cjb = (args->flags & KKK_CONJ_B) != 0;                   \
  const int nl = (int)KK_TEAM_SIZE(team);                                                                   \
  const int64_t g0 = KK_LEAGUE_RANK(team) * args->group;                                                    \
  const int64_t g1 = g0 + args->group < args->nbatch ? g0 + args->group : args->nbatch;                     \
  SC *As = KK_TEAM_SCRATCH(team, 0, SC, (int64_t)m * (k + (PAD)));                                          \
  SC *Bs = KK_TEAM_SCRATCH(team, 0, SC, (int64_t)k * n)
KKK_TEAM_FOR(KN(bgemm_p), struct kkk_batched_args, team) {
#if !KKK_HOST
  KKK_BP_BEGIN(1);
  if (m == 32 && k == 32 && n == 32)
    KKK_BP_ALL(32, 32, 32, 33, 2, KKK_BP_COL, KKK_BP_KLOOP);
  else if (m == 16 && k == 16 && n == 16)
    KKK_BP_ALL(16, 16, 16, 17, 2, KKK_BP_COL, KKK_BP_KLOOP);
  else
    KKK_BP_ALL(m, k, n, k + 1, 2, KKK_BP_COL, KKK_BP_KLOOP);
#endif
}
KKK_TEAM_FOR(KN(bgemm_p4), struct kkk_batched_args, team) {
#if !KKK_HOST && !CPLX /* launched for real types only */
  KKK_BP_BEGIN(1);
  if (m == 32 && k == 32 && n == 32)
    KKK_BP_ALL(32, 32, 32, 33, 4, KKK_BP_COL, KKK_BP_KLOOP);
  else
    KKK_BP_ALL(m, k, n, k + 1, 4, KKK_BP_COL, KKK_BP_KLOOP);
#endif
}

/* The pipelined form's variants (KK_KERNELS_BGEMM, kk_batched_gemm), real
 * types only, launched from 32 rows and columns up with at most 128
 * threads a team (smaller sizes keep bgemm_p and its constant 16^3 form:
 * with it, both variants spilled 300-400 bytes at 128 registers).  bgemm_pb:
 * bgemm_p compiled with launch bounds of 128 threads and 4 teams wished
 * per multiprocessor, so that ptxas keeps it in 128 registers a thread
 * (without: 167 for double on sm_90, which leaves room for 3 teams of 128
 * per multiprocessor; held to 96 it spills; nvcc 13.0).  bgemm_pv: the
 * same pipeline and bounds, scratch read as pairs of elements (16 bytes
 * for double): A's rows padded to k + 2 elements, so that every row
 * starts on a pair and rows four apart fall in other banks, and a
 * thread's two columns of C adjacent (2 l and 2 l + 1, ncl = n / 2
 * threads a row of blocks), so that one read of a row of B serves both;
 * per two steps of k a thread reads 4 pairs of A and 2 of B (six reads
 * where bgemm_p makes twelve) for 16 multiply-adds, in the same order of
 * k.  n and k even.  Held to 128 registers, ptxas spills 36 bytes of it
 * for double (174 registers without bounds). */
#if !CPLX
typedef struct KK_ALIGNED(2 * sizeof(SC)) {
  SC v[2];
} KN(bpair);
#define KKK_BV_PAIR(p) (*(const KN(bpair) *)(const void *)(p))
/* bgemm_pv's columns of C: 2 l, 2 l + 1 */
#define KKK_BV_COL(c) (2 * l + (c))
/* bgemm_pv's k loop: two steps of k read A's 4 rows and B's two rows as
 * pairs (NC 2) */
#define KKK_BV_KLOOP(KB, NB, NC)                                                                            \
  do {                                                                                                      \
    const SC *const bc = Bs + 2 * l;                                                                        \
    for (int kk = 0; kk < (KB); kk += 2) {                                                                  \
      const KN(bpair) x[4] = {KKK_BV_PAIR(a0 + kk), KKK_BV_PAIR(a1 + kk), KKK_BV_PAIR(a2 + kk),             \
                              KKK_BV_PAIR(a3 + kk)};                                                        \
      const KN(bpair) b0 = KKK_BV_PAIR(bc + kk * (NB)), b1 = KKK_BV_PAIR(bc + (kk + 1) * (NB));              \
      for (int r = 0; r < 4; r++)                                                                           \
        for (int c = 0; c < (NC); c++)                                                                      \
          cc[r][c] = S(fma)(x[r].v[1], b1.v[c], S(fma)(x[r].v[0], b0.v[c], cc[r][c]));                       \
    }                                                                                                       \
  } while (0)
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS KK_LAUNCH_BOUNDS(128, 4)
KKK_TEAM_FOR(KN(bgemm_pb), struct kkk_batched_args, team) {
#if !KKK_HOST
  KKK_BP_BEGIN(1);
  if (m == 32 && k == 32 && n == 32)
    KKK_BP_ALL(32, 32, 32, 33, 2, KKK_BP_COL, KKK_BP_KLOOP);
  else
    KKK_BP_ALL(m, k, n, k + 1, 2, KKK_BP_COL, KKK_BP_KLOOP);
#endif
}
KKK_TEAM_FOR(KN(bgemm_pv), struct kkk_batched_args, team) {
#if !KKK_HOST
  KKK_BP_BEGIN(2);
  if (m == 32 && k == 32 && n == 32)
    KKK_BP_ALL(32, 32, 32, 34, 2, KKK_BV_COL, KKK_BV_KLOOP);
  else
    KKK_BP_ALL(m, k, n, k + 2, 2, KKK_BV_COL, KKK_BV_KLOOP);
#endif
}
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS
#undef KKK_BV_KLOOP
#undef KKK_BV_COL
#undef KKK_BV_PAIR
#endif

#undef KKK_BP_BEGIN
#undef KKK_BP_ALL
#undef KKK_BP_KLOOP
#undef KKK_BP_COL
#undef KKK_BP_LOAD
#undef KKK_BT_ALL

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
#undef KKK_STAGE_AB
#undef KKK_EL
#undef KKK_DENSE
