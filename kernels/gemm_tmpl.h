/* kernels/gemm_tmpl.h -- the register-blocked gemm of real types (included by blas2_tmpl.h once per real type). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/*
 * C = a op(A) op(B) + b C, C = m x n, k inner, written once for every
 * target; the GPU and host forms differ in how they block (args.h has the
 * sizes, docs/kernels.md the reasons).
 *
 * GPUs (gemm_rb launched with KKK_GEMM_GPU_THREADS threads, vector length
 * 1): a team per KKK_GEMM_GPU_T x KKK_GEMM_GPU_T tile of C; each thread
 * keeps 8 x 8 elements of C in registers (rows 4 tx .. 4 tx + 3 and 64 + 4
 * tx .., columns likewise from ty, tx = rank % 16, ty = rank / 16) over
 * the whole k loop.  op(A)'s T x 8 and op(B)'s 8 x T slices of each k step
 * go through team scratch, double buffered: a thread loads its part of the
 * next step into registers before it computes this one, and stores it into
 * the other buffer after, so one barrier per step suffices.  A thread reads
 * its 8 + 8 operands of a k from scratch as 16-byte vectors (KK_ALIGNED);
 * the scratch rows are padded by 16 bytes so that the stores of a
 * transposed stage fall in distinct banks.
 *
 * double on CUDA devices of compute capability 8.0 and up (the sm_80 and
 * newer images: __CUDA_ARCH__ >= 800) takes the FP64 tensor cores
 * instead, which do twice the FP64 pipes' arithmetic: the same team per
 * 128 x 128 tile of C, each of its 8 warps a 64 x 32 block of it as 8 x 4
 * accumulators of 8 x 8 (two elements of each per lane), op(A) and op(B)
 * staged KKK_GEMM_TC_K values of k at a time in double-buffered scratch,
 * copied there by cp.async (no registers in between; zero fill past the
 * edges), the next stage's copy issued before this one is computed; a
 * lane reads the one element of A and of B each 8 x 8 x 4 step takes
 * from scratch (rows padded by KKK_GEMM_TC_PAD: no bank conflicts).
 * sm_80 .. sm_89 compute with mma m8n8k4; sm_90 with m16n8k16, which
 * takes the same elements per lane for two row blocks and four steps of
 * k in one instruction (its accumulators read and written once a
 * stage).  Images older than sm_80, the NVRTC source (preprocessed
 * without __CUDA_ARCH__) and every other target keep the portable form.
 *
 * Host targets (league rank = an args->mr x args->nc block of C, team
 * size 1): for each KKK_GEMM_H_KC slice of k, op(B)'s slice is packed
 * into team scratch (level 1) as panels of NR columns; then op(A)'s rows
 * are packed MR at a time (one zero-padded panel in scratch, packed just
 * before use while the next panel's rows are prefetched), and for each
 * panel of op(B) a micro-kernel computes MR x NR of C in registers from
 * the two panels: loops of constant length that the compiler unrolls and
 * vectorizes (NR is two vector registers of the target's widest vectors,
 * MR = 6 rows: 12 accumulators, the most that leave room for the operands
 * in 16 registers).  The A panel (MR x KC, 12 KiB for double) stays in L1
 * while op(B)'s panels stream from L2.
 */

#if KKK_HOST
#if defined(__AVX512F__)
#define GH_VB 64
#elif defined(__AVX__)
#define GH_VB 32
#else
#define GH_VB 16
#endif
#define GH_MR KKK_GEMM_H_MR
#define GH_NR (2 * GH_VB / (int)sizeof(SC))

/* d[0 .. NR) = s[0 .. NR) */
KK__FN void KN(gemm_copy)(SC *restrict d, const SC *restrict s) {
#if defined(__GNUC__)
  __builtin_memcpy(d, s, sizeof(SC) * GH_NR);
#else
  for (int q = 0; q < GH_NR; q++)
    d[q] = s[q];
#endif
}

/* c = the MR x NR product of a packed A panel (a[k MR + r]) and B panel
 * (b[k NR + q]).  GCC's own vectorizer, given these loops over scalars,
 * vectorized across the rows with permutes in the k loop (gcc 12); the
 * GNU vector types say which way: each row of c is two vectors, each
 * a(r, k) is broadcast against b's two. */
#if defined(__GNUC__)
typedef SC KN(gemm_vh) __attribute__((vector_size(GH_VB)));
/* the accumulators are twelve named variables, not an array: gcc 12,
 * inlining an array form into the kernel, interchanged the loops and kept
 * the accumulators in memory */
KK__FN void KN(gemm_micro)(int kb, const SC *restrict a, const SC *restrict b, SC *restrict c) {
  const KN(gemm_vh) z = {0};
  KN(gemm_vh) c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z, c40 = z, c41 = z, c50 = z,
              c51 = z;
  for (int kk = 0; kk < kb; kk++, a += GH_MR, b += GH_NR) {
    KN(gemm_vh) b0, b1;
    __builtin_memcpy(&b0, b, GH_VB);
    __builtin_memcpy(&b1, b + GH_NR / 2, GH_VB);
    c00 += a[0] * b0;
    c01 += a[0] * b1;
    c10 += a[1] * b0;
    c11 += a[1] * b1;
    c20 += a[2] * b0;
    c21 += a[2] * b1;
    c30 += a[3] * b0;
    c31 += a[3] * b1;
    c40 += a[4] * b0;
    c41 += a[4] * b1;
    c50 += a[5] * b0;
    c51 += a[5] * b1;
  }
  const KN(gemm_vh) all[12] = {c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51};
  __builtin_memcpy(c, all, sizeof all);
}
#else
KK__FN void KN(gemm_micro)(int kb, const SC *restrict a, const SC *restrict b, SC *restrict c) {
  SC acc[GH_MR][GH_NR];
  for (int r = 0; r < GH_MR; r++)
    for (int q = 0; q < GH_NR; q++)
      acc[r][q] = (SC)0;
  for (int kk = 0; kk < kb; kk++)
    for (int r = 0; r < GH_MR; r++)
      for (int q = 0; q < GH_NR; q++)
        acc[r][q] += a[kk * GH_MR + r] * b[kk * GH_NR + q];
  for (int r = 0; r < GH_MR; r++)
    for (int q = 0; q < GH_NR; q++)
      c[r * GH_NR + q] = acc[r][q];
}
#endif
#else
typedef struct KK_ALIGNED(16) {
  SC v[16 / sizeof(SC)];
} KN(gemm_v16);
#define GV (16 / (int)sizeof(SC))              /* elements per 16-byte vector */
#define GG KKK_GEMM_GPU_T                      /* C tile edge */
#define GKS KKK_GEMM_GPU_K                     /* k per stage */
#define GP (KKK_GEMM_GPU_T + GV)               /* a stage's padded row */
#define GL (GG * GKS / KKK_GEMM_GPU_THREADS)   /* elements of A (and of B) a thread loads per stage */
/* the k steps of a stage unrolled: all 8 on CUDA (232 registers for
 * double on sm_90, no spills); 2 on HIP, where unrolling all 8 hoisted
 * their scratch reads into 256 VGPRs + 256 AGPRs and spilled 26 (gfx90a),
 * and 2 took 250 VGPRs, no spills, 2 waves per SIMD */
#if defined(KK_TARGET_HIP)
#define GKU _Pragma("unroll 2")
#else
#define GKU _Pragma("unroll")
#endif
#if defined(GEMM_F64) && defined(KK_TARGET_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GTC 1
#define GTP (KKK_GEMM_GPU_T + KKK_GEMM_TC_PAD) /* a tensor-core stage's padded row */
/* d += a b for one 8 x 8 x 4 block, a warp together (PTX ISA, mma
 * m8n8k4 .f64): lane l holds a(g, q) and b(q, g), and d(g, 2 q) and
 * d(g, 2 q + 1), g = l / 4, q = l % 4 */
KK__FN void KN(gemm_mma)(SC *d, SC a, SC b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
      : "+d"(d[0]), "+d"(d[1])
      : "d"(a), "d"(b));
}
#if __CUDA_ARCH__ >= 900
#if KKK_GEMM_TC_K != 16
#error "gemm_tmpl.h: the sm_90 form takes a stage of 16 values of k in one mma m16n8k16"
#endif
/* sm_90: the same for a 16 x 8 x 16 block in one instruction (mma
 * m16n8k16 .f64, PTX ISA 7.8), which reads and writes the accumulators
 * once for four steps of k: lane l holds a(g + 8 h, 4 s + q) as a[2 s + h],
 * b(4 s + q, g) as b[s], d(g, 2 q + v) as d0[v] and d(g + 8, 2 q + v) as
 * d1[v]: the elements of the m8n8k4 form's two row blocks and four steps */
KK__FN void KN(gemm_mma16)(SC *d0, SC *d1, const SC *a, const SC *b) {
  asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
      "{%12, %13, %14, %15}, {%0, %1, %2, %3};"
      : "+d"(d0[0]), "+d"(d0[1]), "+d"(d1[0]), "+d"(d1[1])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
        "d"(b[2]), "d"(b[3]));
}
#endif
/* s = *g (8 bytes) when ok, else s = 0, copied by the memory system while
 * the thread goes on (cp.async, sm_80): g is not read when !ok */
KK__FN void KN(gemm_cp8)(SC *s, const SC *g, bool ok) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"((unsigned)__cvta_generic_to_shared(s)), "l"(g),
               "r"(ok ? 8 : 0)
               : "memory");
}
#else
#define GTC 0
#endif
#endif

/* launched with KKK_GEMM_GPU_THREADS threads a team, one team per multiprocessor (232 registers) */
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS KK_LAUNCH_BOUNDS(KKK_GEMM_GPU_THREADS, 1)
KKK_TEAM_FOR(KN(gemm_rb), struct kkk_gemm_args, team) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  const int bzero = (args->flags & KKK_B_ZERO) != 0;
  const int64_t m = args->m, n = args->n, kend = (args->flags & KKK_A_ZERO) ? 0 : args->k;
  const int64_t t = KK_LEAGUE_RANK(team);
  const int64_t as0 = KK_STRIDE(args->A, 0), as1 = KK_STRIDE(args->A, 1);
  const int64_t bs0 = KK_STRIDE(args->B, 0), bs1 = KK_STRIDE(args->B, 1);
  const SC *const Ad = KK_DATA(args->A, SC), *const Bd = KK_DATA(args->B, SC);
#if KKK_HOST
  const int64_t cs0 = KK_STRIDE(args->C, 0), cs1 = KK_STRIDE(args->C, 1);
  const int64_t nc = args->nc, mr = args->mr;
  const int64_t i0 = (t / args->tiles_n) * mr, j0 = (t % args->tiles_n) * nc;
  const int64_t mrank = m - i0 < mr ? m - i0 : mr;
  const int nb = n - j0 < nc ? (int)(n - j0) : (int)nc;
  SC *const Ap = KK_TEAM_SCRATCH(team, 1, SC, KKK_GEMM_H_MR * KKK_GEMM_H_KC);
  SC *const Bp = KK_TEAM_SCRATCH(team, 1, SC, KKK_GEMM_H_KC * KKK_GEMM_H_NC);
  if (kend == 0) { /* C = b C */
    for (int64_t i = 0; i < mrank; i++)
      for (int j = 0; j < nb; j++) {
        SC *cp = &KK_AT(args->C, SC, i0 + i, j0 + j);
        *cp = bzero ? (SC)0 : b * *cp;
      }
    return;
  }
  const int np = (nb + GH_NR - 1) / GH_NR;
  for (int64_t k0 = 0; k0 < kend; k0 += KKK_GEMM_H_KC) {
    const int kb = kend - k0 < KKK_GEMM_H_KC ? (int)(kend - k0) : KKK_GEMM_H_KC;
    const int first = k0 == 0;
    /* op(B)'s slice as np panels of NR columns, each k's NR values
     * together: packed once per slice for all the rank's rows */
    for (int jp = 0; jp < np; jp++) {
      SC *const pb = Bp + (int64_t)jp * kb * GH_NR;
      const int jn = nb - jp * GH_NR < GH_NR ? nb - jp * GH_NR : GH_NR;
      for (int kk = 0; kk < kb; kk++) {
        const SC *src = Bd + (k0 + kk) * bs0 + (j0 + jp * GH_NR) * bs1;
        SC *dst = pb + kk * GH_NR;
        if (jn == GH_NR && bs1 == 1) {
          KN(gemm_copy)(dst, src);
        } else {
          for (int q = 0; q < GH_NR; q++)
            dst[q] = q < jn ? src[q * bs1] : (SC)0;
        }
      }
    }
    /* op(A)'s rows in panels of MR, each packed (k's MR values together)
     * just before the micro-kernels that use it, and kept in L1 while op(B)'s
     * panels stream from L2; while a panel is used, the next one's rows
     * are prefetched a part per micro-kernel, so that its packing, which
     * reads rows of A far apart in memory, does not wait on them */
    const int64_t mpan = (mrank + GH_MR - 1) / GH_MR;
    for (int64_t ip = 0; ip < mpan; ip++) {
      const int64_t ir = i0 + ip * GH_MR;
      const int in = i0 + mrank - ir < GH_MR ? (int)(i0 + mrank - ir) : GH_MR;
      SC *const pa = Ap;
      const SC *src = Ad + ir * as0 + k0 * as1;
      if (as0 == 1 && in == GH_MR) { /* the panel's rows are contiguous */
        for (int kk = 0; kk < kb; kk++)
          for (int r = 0; r < GH_MR; r++)
            pa[kk * GH_MR + r] = src[kk * as1 + r];
      } else if (as1 == 1 && in == GH_MR) { /* the rows read side by side, the panel written in order */
        for (int kk = 0; kk < kb; kk++)
          for (int r = 0; r < GH_MR; r++)
            pa[kk * GH_MR + r] = src[r * as0 + kk];
      } else {
        for (int r = 0; r < GH_MR; r++)
          if (r < in) {
            for (int kk = 0; kk < kb; kk++)
              pa[kk * GH_MR + r] = src[r * as0 + kk * as1];
          } else {
            for (int kk = 0; kk < kb; kk++)
              pa[kk * GH_MR + r] = (SC)0;
          }
      }
#if defined(__GNUC__)
      /* the next panel's rows (unit stride along k): lines of 64 bytes, a
       * share of them per panel of op(B) */
      const int nin = ip + 1 < mpan ? (i0 + mrank - ir - GH_MR < GH_MR ? (int)(i0 + mrank - ir - GH_MR) : GH_MR) : 0;
      const int lines = as1 == 1 ? (int)((kb * sizeof(SC) + 63) / 64) + 1 : 0;
#endif
      for (int jp = 0; jp < np; jp++) {
        const int jn = nb - jp * GH_NR < GH_NR ? nb - jp * GH_NR : GH_NR;
#if defined(__GNUC__)
        if (lines)
          for (int r = 0; r < nin; r++) {
            const char *row = (const char *)(src + (GH_MR + r) * as0);
            for (int l = jp * lines / np; l < (jp + 1) * lines / np; l++)
              __builtin_prefetch(row + 64 * l, 0, 2);
          }
#endif
        SC c[GH_MR * GH_NR];
        SC *const c0 = &KK_AT(args->C, SC, ir, j0 + jp * GH_NR);
#if defined(__GNUC__)
        /* C's tile is read after the micro-kernel: its lines on their way meanwhile */
        if (cs1 == 1 && !(first && bzero))
          for (int r = 0; r < in; r++) {
            __builtin_prefetch(c0 + r * cs0, 1);
            __builtin_prefetch(c0 + r * cs0 + jn - 1, 1);
          }
#endif
        KN(gemm_micro)(kb, pa, Bp + (int64_t)jp * kb * GH_NR, c);
        if (cs1 == 1 && jn == GH_NR) { /* rows of C contiguous: vector loops */
          for (int r = 0; r < in; r++) {
            SC *restrict cr = c0 + r * cs0;
            const SC *restrict vr = c + r * GH_NR;
            if (!first)
              for (int q = 0; q < GH_NR; q++)
                cr[q] += a * vr[q];
            else if (bzero)
              for (int q = 0; q < GH_NR; q++)
                cr[q] = a * vr[q];
            else
              for (int q = 0; q < GH_NR; q++)
                cr[q] = a * vr[q] + b * cr[q];
          }
        } else {
          for (int r = 0; r < in; r++)
            for (int q = 0; q < jn; q++) {
              SC *cp = c0 + r * cs0 + q * cs1;
              const SC v = a * c[r * GH_NR + q];
              *cp = first ? (bzero ? v : v + b * *cp) : v + *cp;
            }
        }
      }
    }
  }
#elif GTC
  const int tid = (int)KK_TEAM_RANK(team), lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, q = lane & 3;
  const int wm = (warp & 1) * 64, wn = (warp >> 1) * 32; /* the warp's block of the tile */
  /* league ranks in groups of KKK_GEMM_TC_GROUP rows of tiles, column by
   * column within a group: the teams that run at once share op(A)'s
   * panels of a few rows of tiles and op(B)'s of a few columns, which L2
   * keeps, where rank order along whole rows of tiles would stream all of
   * op(B) from memory for every row */
  const int64_t tiles_m = (m + GG - 1) / GG, per_group = (int64_t)KKK_GEMM_TC_GROUP * args->tiles_n;
  const int64_t first = t / per_group * KKK_GEMM_TC_GROUP, in = t % per_group;
  const int64_t rows = tiles_m - first < KKK_GEMM_TC_GROUP ? tiles_m - first : KKK_GEMM_TC_GROUP;
  const int64_t i0 = (first + in % rows) * GG, j0 = (in / rows) * GG;
  SC *const As = KK_TEAM_SCRATCH(team, 0, SC, 2 * KKK_GEMM_TC_STAGE);
  SC *const Bs = KK_TEAM_SCRATCH(team, 0, SC, 2 * KKK_GEMM_TC_STAGE);
  /* A stage of an operand is its 128 rows (A's rows, B's columns) by 16
   * values of k, stored k-major (s[k GTP + row]).  A thread moves 8
   * elements of each: element u is (row r + u dr, k kq + u dk).  Where
   * the rows are the unit-stride dimension, consecutive threads take
   * consecutive rows (dk 2); where k is, a warp takes 8 rows by 4 k (32
   * bytes of each row, one sector; dr 16), so that its stores into the
   * stage, like the mma's reads, fall in distinct banks. */
  const int a_kfast = as1 == 1 && as0 != 1, b_kfast = bs0 == 1;
  const int ar = a_kfast ? g + 8 * (warp >> 2) : tid & 127, akq = a_kfast ? q + 4 * (warp & 3) : tid >> 7;
  const int adr = a_kfast ? 16 : 0, adk = a_kfast ? 0 : 2;
  const int br = b_kfast ? g + 8 * (warp >> 2) : tid & 127, bkq = b_kfast ? q + 4 * (warp & 3) : tid >> 7;
  const int bdr = b_kfast ? 16 : 0, bdk = b_kfast ? 0 : 2;
  const int64_t ag = (i0 + ar) * as0 + akq * as1;
  int64_t agu = adr * as0 + adk * as1;
  const int64_t bg = bkq * bs0 + (j0 + br) * bs1;
  int64_t bgu = bdk * bs0 + bdr * bs1;
  const int aso = akq * GTP + ar, bso = bkq * GTP + br;
  int asu = adk * GTP + adr, bsu = bdk * GTP + bdr;
  unsigned aok = 0, bok = 0; /* bit u: element u's row (column) is inside C */
  _Pragma("unroll") for (int u = 0; u < 8; u++) {
    aok |= (i0 + ar + u * adr < m ? 1u : 0u) << u;
    bok |= (j0 + br + u * bdr < n ? 1u : 0u) << u;
  }
  SC acc[8][4][2];
  _Pragma("unroll") for (int r = 0; r < 8; r++)
    _Pragma("unroll") for (int c = 0; c < 4; c++)
      acc[r][c][0] = acc[r][c][1] = (SC)0;
  /* a stage goes from global memory to scratch by cp.async, without
   * passing through registers: issued for the next stage before this one
   * is computed, waited for (cp.async.wait_group) before the barrier that
   * makes it every warp's; a second barrier after the computation keeps
   * the next copy off a buffer that is still being read */
#define KKK_GEMM_STAGE_COPY(k0_, buf_)                                                           \
  _Pragma("unroll") for (int u = 0; u < 8; u++) {                                                \
    const bool oka = (aok >> u & 1u) && (k0_) + akq + u * adk < kend;                            \
    const bool okb = (bok >> u & 1u) && (k0_) + bkq + u * bdk < kend;                            \
    KN(gemm_cp8)(As + (buf_) * KKK_GEMM_TC_STAGE + aso + u * asu, oka ? Ad + ag + u * agu + (k0_) * as1 : Ad, oka); \
    KN(gemm_cp8)(Bs + (buf_) * KKK_GEMM_TC_STAGE + bso + u * bsu, okb ? Bd + bg + u * bgu + (k0_) * bs0 : Bd, okb); \
  }                                                                                              \
  asm volatile("cp.async.commit_group;" ::: "memory");
  if (kend > 0) {
    KKK_GEMM_STAGE_COPY(0, 0)
  }
  int cur = 0;
  for (int64_t k0 = 0; k0 < kend; k0 += KKK_GEMM_TC_K) {
    /* the steps between a thread's elements, made opaque to the compiler each stage: it recomputes their
     * 32 addresses with one multiply-add each instead of keeping them in registers across the loop */
    asm volatile("" : "+l"(agu), "+l"(bgu), "+r"(asu), "+r"(bsu));
    if (k0 + KKK_GEMM_TC_K < kend) {
      KKK_GEMM_STAGE_COPY(k0 + KKK_GEMM_TC_K, cur ^ 1)
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    KK_TEAM_BARRIER(team);
    /* lane (g, q) takes row wm + 8 r + g of A and column wn + 8 c + g of
     * B at k = 4 s + q */
    const SC *const as = As + cur * KKK_GEMM_TC_STAGE + q * GTP + wm + g;
    const SC *const bs = Bs + cur * KKK_GEMM_TC_STAGE + q * GTP + wn + g;
#if __CUDA_ARCH__ >= 900
    /* the stage's B operands once, then each pair of row blocks' A */
    SC bf[4][4];
    _Pragma("unroll") for (int c = 0; c < 4; c++)
      _Pragma("unroll") for (int s = 0; s < 4; s++) bf[c][s] = bs[s * 4 * GTP + 8 * c];
    _Pragma("unroll") for (int r = 0; r < 8; r += 2) {
      SC af[8];
      _Pragma("unroll") for (int s = 0; s < 4; s++)
        _Pragma("unroll") for (int h = 0; h < 2; h++) af[2 * s + h] = as[s * 4 * GTP + 8 * (r + h)];
      _Pragma("unroll") for (int c = 0; c < 4; c++)
        KN(gemm_mma16)(acc[r][c], acc[r + 1][c], af, bf[c]);
    }
#else
    _Pragma("unroll") for (int s = 0; s < KKK_GEMM_TC_K / 4; s++) {
      SC af[8], bf[4];
      _Pragma("unroll") for (int r = 0; r < 8; r++) af[r] = as[s * 4 * GTP + 8 * r];
      _Pragma("unroll") for (int c = 0; c < 4; c++) bf[c] = bs[s * 4 * GTP + 8 * c];
      _Pragma("unroll") for (int r = 0; r < 8; r++)
        _Pragma("unroll") for (int c = 0; c < 4; c++)
          KN(gemm_mma)(acc[r][c], af[r], bf[c]);
    }
#endif
    KK_TEAM_BARRIER(team);
    cur ^= 1;
  }
#undef KKK_GEMM_STAGE_COPY
  _Pragma("unroll") for (int r = 0; r < 8; r++) {
    const int64_t i = i0 + wm + 8 * r + g;
    if (i >= m)
      continue;
    _Pragma("unroll") for (int c = 0; c < 4; c++)
      _Pragma("unroll") for (int h = 0; h < 2; h++) {
        const int64_t j = j0 + wn + 8 * c + 2 * q + h;
        if (j < n) {
          SC *cp = &KK_AT(args->C, SC, i, j);
          const SC v = a * acc[r][c][h];
          *cp = bzero ? v : v + b * *cp;
        }
      }
  }
#else
  const int tid = (int)KK_TEAM_RANK(team), tx = tid & 15, ty = tid >> 4;
  const int64_t i0 = (t / args->tiles_n) * GG, j0 = (t % args->tiles_n) * GG;
  SC *const As = KK_TEAM_SCRATCH(team, 0, SC, 2 * GKS * GP);
  SC *const Bs = KK_TEAM_SCRATCH(team, 0, SC, 2 * GKS * GP);
  /* which element of each stage this thread loads: consecutive threads
   * along the operand's unit-stride dimension */
  const int a_ifast = as0 == 1, b_kfast = bs0 == 1;
  int aoff[GL], boff[GL];     /* scratch offsets within a buffer */
  int ak[GL], bk[GL];         /* k within a stage */
  int64_t ag[GL], bg[GL];     /* global offsets at k = 0 (row or column 0 where it is past the end) */
  unsigned aok = 0, bok = 0;  /* bit u: the row (column) of element u is inside C */
  _Pragma("unroll") for (int u = 0; u < GL; u++) {
    const int e = tid + u * KKK_GEMM_GPU_THREADS;
    const int ii = a_ifast ? e % GG : e / GKS, ka = a_ifast ? e / GG : e % GKS;
    const int jj = b_kfast ? e / GKS : e % GG, kb = b_kfast ? e % GKS : e / GG;
    aoff[u] = ka * GP + ii;
    boff[u] = kb * GP + jj;
    ak[u] = ka;
    bk[u] = kb;
    aok |= (i0 + ii < m ? 1u : 0u) << u;
    bok |= (j0 + jj < n ? 1u : 0u) << u;
    ag[u] = (i0 + ii < m ? i0 + ii : 0) * as0 + ka * as1;
    bg[u] = kb * bs0 + (j0 + jj < n ? j0 + jj : 0) * bs1;
  }
  SC acc[8][8];
  for (int r = 0; r < 8; r++)
    for (int q = 0; q < 8; q++)
      acc[r][q] = (SC)0;
  SC ra[GL], rb[GL];
#define KKK_GEMM_STAGE_LOAD(k0_)                                                                  \
  _Pragma("unroll") for (int u = 0; u < GL; u++) {                                                \
    ra[u] = (aok >> u & 1u) && (k0_) + ak[u] < kend ? Ad[ag[u] + (k0_) * as1] : (SC)0;            \
    rb[u] = (bok >> u & 1u) && (k0_) + bk[u] < kend ? Bd[bg[u] + (k0_) * bs0] : (SC)0;            \
  }
#define KKK_GEMM_STAGE_STORE(buf_)                                                                \
  _Pragma("unroll") for (int u = 0; u < GL; u++) {                                                                  \
    As[(buf_) * GKS * GP + aoff[u]] = ra[u];                                                      \
    Bs[(buf_) * GKS * GP + boff[u]] = rb[u];                                                      \
  }
  if (kend > 0) {
    KKK_GEMM_STAGE_LOAD(0)
    KKK_GEMM_STAGE_STORE(0)
  }
  KK_TEAM_BARRIER(team);
  int cur = 0;
  for (int64_t k0 = 0; k0 < kend; k0 += GKS) {
    const int more = k0 + GKS < kend;
    if (more) {
      KKK_GEMM_STAGE_LOAD(k0 + GKS)
    }
    const SC *const as = As + cur * GKS * GP, *const bs = Bs + cur * GKS * GP;
    GKU for (int kk = 0; kk < GKS; kk++) {
      SC af[8], bf[8];
#pragma unroll
      for (int h = 0; h < 2; h++)
#pragma unroll
        for (int u = 0; u < 4; u += GV) {
          const KN(gemm_v16) va = *(const KN(gemm_v16) *)(as + kk * GP + h * (GG / 2) + tx * 4 + u);
          const KN(gemm_v16) vb = *(const KN(gemm_v16) *)(bs + kk * GP + h * (GG / 2) + ty * 4 + u);
#pragma unroll
          for (int w = 0; w < GV; w++) {
            af[h * 4 + u + w] = va.v[w];
            bf[h * 4 + u + w] = vb.v[w];
          }
        }
#pragma unroll
      for (int r = 0; r < 8; r++)
#pragma unroll
        for (int q = 0; q < 8; q++)
          acc[r][q] += af[r] * bf[q];
    }
    if (more) {
      KKK_GEMM_STAGE_STORE(cur ^ 1)
    }
    KK_TEAM_BARRIER(team);
    cur ^= 1;
  }
#undef KKK_GEMM_STAGE_LOAD
#undef KKK_GEMM_STAGE_STORE
  for (int r = 0; r < 8; r++) {
    const int64_t i = i0 + (r >> 2) * (GG / 2) + tx * 4 + (r & 3);
    if (i >= m)
      continue;
    for (int q = 0; q < 8; q++) {
      const int64_t j = j0 + (q >> 2) * (GG / 2) + ty * 4 + (q & 3);
      if (j < n) {
        SC *cp = &KK_AT(args->C, SC, i, j);
        const SC v = a * acc[r][q];
        *cp = bzero ? v : v + b * *cp;
      }
    }
  }
#endif
}
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS

#if KKK_HOST
#undef GH_VB
#undef GH_MR
#undef GH_NR
#else
#undef GV
#undef GG
#undef GKS
#undef GP
#undef GL
#undef GKU
#if GTC
#undef GTP
#endif
#undef GTC
#endif
