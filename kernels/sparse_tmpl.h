/* kernels/sparse_tmpl.h -- CRS SpMV (plain and transposed) and the Jacobi diagonal for one element type (included by sparse.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

#define RP(i) KK_AT(args->row_ptr, int64_t, i)
#define CI(p) KK_AT(args->col_idx, int32_t, p)
#define AV(p) KK_AT(args->vals, SC, p)

#if CPLX
KKK_REDUCER_INIT(KN(ssum), SC, v) { *v = S(zero)(); }
KKK_REDUCER_JOIN(KN(ssum), SC, d, s) { *d = S(add)(*d, *s); }
#endif

#define KKK_SPMV_STORE(i, v, s)                                              \
  do {                                                                       \
    SC r_ = S(mul)(a, (s));                                                  \
    if (!(args->flags & KKK_B_ZERO))                                         \
      r_ = S(fma)(b, KK_AT(args->y, SC, i, v), r_);                          \
    KK_AT(args->y, SC, i, v) = r_;                                           \
  } while (0)

/* y = a A x + b y, rows_per_team rows per league rank.  GPUs: a row per team
 * thread, its entries over the thread's vector lanes.  Host: a row after
 * the other, two partial sums per row so that its additions overlap. */
KKK_TEAM_FOR(KN(spmv), struct kkk_spmv_args, team) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  const int64_t r0 = KK_LEAGUE_RANK(team) * args->rows_per_team;
  const int64_t r1 = r0 + args->rows_per_team < args->rows ? r0 + args->rows_per_team : args->rows;
  const int64_t nv = args->nvec;
#if KKK_HOST
  /* plain pointers, as a hand-written CSR loop has them (the CRS arrays
   * have unit stride); x's row stride a constant 1 in the usual case */
  const int64_t *const rp = KK_DATA(args->row_ptr, int64_t);
  const int32_t *const ci = KK_DATA(args->col_idx, int32_t);
  const SC *const av = KK_DATA(args->vals, SC);
  const int64_t xs = KK_STRIDE(args->x, 0);
#define KKK_HOST_CSR(XS)                                                                  \
  KK_TEAM_THREAD_FOR(team, i, r0, r1) {                                                   \
    for (int64_t v = 0; v < nv; v++) {                                                    \
      const SC *const xv = KK_DATA(args->x, SC) + v * KK_STRIDE(args->x, 1);              \
      SC s0 = S(zero)(), s1 = S(zero)();                                                  \
      int64_t p = rp[i];                                                                  \
      const int64_t p1 = rp[i + 1];                                                       \
      for (; p + 1 < p1; p += 2) {                                                        \
        s0 = S(fma)(av[p], xv[ci[p] * (XS)], s0);                                         \
        s1 = S(fma)(av[p + 1], xv[ci[p + 1] * (XS)], s1);                                 \
      }                                                                                   \
      if (p < p1)                                                                         \
        s0 = S(fma)(av[p], xv[ci[p] * (XS)], s0);                                         \
      KKK_SPMV_STORE(i, v, S(add)(s0, s1));                                               \
    }                                                                                     \
  }
  if (xs == 1) {
    KKK_HOST_CSR(1)
  } else {
    KKK_HOST_CSR(xs)
  }
#undef KKK_HOST_CSR
#else
  KK_TEAM_THREAD_FOR(team, i, r0, r1) {
    const int64_t p0 = RP(i), p1 = RP(i + 1);
    for (int64_t v = 0; v < nv; v++) {
      SC s;
#if CPLX
      KKK_THREAD_VECTOR_REDUCE_CUSTOM(team, p, p0, p1, KN(ssum), s) { s = S(fma)(AV(p), KK_AT(args->x, SC, CI(p), v), s); }
#else
      KKK_THREAD_VECTOR_REDUCE(team, p, p0, p1, RT, KK_SUM, s) { s += AV(p) * KK_AT(args->x, SC, CI(p), v); }
#endif
      KK_SINGLE_THREAD(team) { KKK_SPMV_STORE(i, v, s); }
    }
  }
#endif
}

/* y(i) = a s + b y(i), y's element i at y[i * ys] (GPU kernels below) */
#define KKK_SPMV_PUT(i, s)                                                   \
  do {                                                                       \
    SC r_ = S(mul)(a, (s));                                                  \
    if (!(args->flags & KKK_B_ZERO))                                         \
      r_ = S(fma)(b, y[(i) * ys], r_);                                       \
    y[(i) * ys] = r_;                                                        \
  } while (0)

/* OUT = the sum of TERM (an SC, of J) over J in [B, E), the whole team's */
#if CPLX
/* no custom team-vector reduction: the two parts apart */
#define KKK_TEAM_SUM(J, B, E, TERM, OUT)                                     \
  do {                                                                       \
    RT sr_, si_;                                                             \
    KKK_TEAM_VECTOR_REDUCE(team, J, (B), (E), RT, KK_SUM, sr_) { sr_ += (TERM).re; } \
    KKK_TEAM_VECTOR_REDUCE(team, J, (B), (E), RT, KK_SUM, si_) { si_ += (TERM).im; } \
    OUT = S(zero)();                                                         \
    OUT.re = sr_;                                                            \
    OUT.im = si_;                                                            \
  } while (0)
#else
#define KKK_TEAM_SUM(J, B, E, TERM, OUT)                                     \
  KKK_TEAM_VECTOR_REDUCE(team, J, (B), (E), RT, KK_SUM, OUT) { OUT += (TERM); }
#endif

/* y = a A x + b y for one vector, on GPUs (Kokkos Kernels' CRS SpMV with
 * the team SpMV of bench/kk-bench-hier's CG): rows_per_team rows per league
 * rank dealt to the team's threads, a row's entries over the thread's
 * vector lanes (the launch picks the vector length from the average
 * entries per row).  A row with more than long_row entries would keep one
 * thread busy while the others wait: the thread notes it in team scratch
 * and the whole team reduces it afterwards.  The CRS arrays have unit
 * stride (kk_crs_t makes them so); x and y are read through their
 * strides. */
KKK_TEAM_FOR(KN(spmv_vec), struct kkk_spmv_args, team) {
  const SC a = S(from)(args->a), b = S(from)(args->b);
  const int64_t r0 = KK_LEAGUE_RANK(team) * args->rows_per_team;
  const int64_t r1 = r0 + args->rows_per_team < args->rows ? r0 + args->rows_per_team : args->rows;
  const int64_t *restrict rp = KK_DATA(args->row_ptr, int64_t);
  const int32_t *restrict ci = KK_DATA(args->col_idx, int32_t);
  const SC *restrict av = KK_DATA(args->vals, SC);
  const SC *restrict x = KK_DATA(args->x, SC);
  SC *restrict y = KK_DATA(args->y, SC);
  const int64_t xs = KK_STRIDE(args->x, 0), ys = KK_STRIDE(args->y, 0), long_row = args->long_row;
  const int64_t vl = KK_VECTOR_LENGTH(team);
  (void)vl; /* complex types: one entry per step */
  int32_t *nlong = KK_TEAM_SCRATCH(team, 0, int32_t, 1);
  int32_t *longs = KK_TEAM_SCRATCH(team, 0, int32_t, args->rows_per_team);
  KK_SINGLE_TEAM(team) { *nlong = 0; }
  KK_TEAM_BARRIER(team);
  KK_TEAM_THREAD_FOR(team, i, r0, r1) {
    const int64_t p0 = rp[i], p1 = rp[i + 1];
    if (p1 - p0 > long_row) {
      KK_SINGLE_THREAD(team) { longs[kk_atomic_fetch_add(nlong, (int32_t)1)] = (int32_t)(i - r0); }
      continue;
    }
    SC s;
#if CPLX
    KKK_THREAD_VECTOR_REDUCE_CUSTOM(team, p, p0, p1, KN(ssum), s) { s = S(fma)(av[p], x[ci[p] * xs], s); }
#else
    /* lane q takes entries p0 + q + vl u, four at a time: their column
     * indices, then their x, are loaded together (one entry per step
     * waited for the column index, then for x, entry after entry; with
     * the vector length of kkk_spmv_shape the H100 went from 0.88 to 0.98
     * of cuSPARSE on the 27-point matrix).  Offsets within the row are
     * int: a row here has at most long_row entries. */
#define KKK_SPMV_LANE(XS)                                                                            \
  KKK_THREAD_VECTOR_REDUCE(team, q, 0, vl, RT, KK_SUM, s) {                                          \
    const RT *av_ = av + p0;                                                                         \
    const int32_t *ci_ = ci + p0;                                                                    \
    const int n_ = (int)(p1 - p0), v_ = (int)vl;                                                     \
    for (int p = (int)q; p < n_; p += 4 * v_) {                                                      \
      const int pb = p + v_, pc = p + 2 * v_, pd = p + 3 * v_;                                       \
      const RT t0 = av_[p] * x[ci_[p] * (XS)];                                                       \
      const RT t1 = pb < n_ ? av_[pb] * x[ci_[pb] * (XS)] : (RT)0;                                   \
      const RT t2 = pc < n_ ? av_[pc] * x[ci_[pc] * (XS)] : (RT)0;                                   \
      const RT t3 = pd < n_ ? av_[pd] * x[ci_[pd] * (XS)] : (RT)0;                                   \
      s += (t0 + t1) + (t2 + t3);                                                                    \
    }                                                                                                \
  }
    if (xs == 1) { /* the usual case, without a 64-bit multiply per entry */
      KKK_SPMV_LANE(1)
    } else {
      KKK_SPMV_LANE(xs)
    }
#undef KKK_SPMV_LANE
#endif
    KK_SINGLE_THREAD(team) { KKK_SPMV_PUT(i, s); }
  }
  KK_TEAM_BARRIER(team); /* the list is complete */
  const int32_t nl = *nlong;
  for (int32_t k = 0; k < nl; k++) {
    const int64_t i = r0 + longs[k];
    SC s;
    KKK_TEAM_SUM(p, rp[i], rp[i + 1], S(mul)(av[p], x[ci[p] * xs]), s);
    KK_SINGLE_TEAM(team) { KKK_SPMV_PUT(i, s); }
  }
}

/* The merge-path SpMV's steps, shared by spmv_merge and spmv_mpipe below;
 * each is used inside one of those kernels, whose variables it names: the
 * tile's first row r0, its nr rows, its first entry p0 and its np64
 * entries; the team's tm threads, the tile's tn items; the scratch arrays
 * s_end (row ends, from p0), s_prod (the tile's products), s_crow and
 * s_cval (each thread's last row and its part of it), s_frow and s_fval
 * (the first row it ends, or -1, and its part of that). */

/* this thread's products of entries p0 + Q + u tm (u < KKK_MERGE_K)
 * below N, each given to BODY as (k, v): every load issued before a
 * product is used */
#define KKK_MERGE_PRODUCTS(Q, N, BODY)                                                         \
  do {                                                                                         \
    int32_t c_[KKK_MERGE_K];                                                                   \
    SC v_[KKK_MERGE_K], x_[KKK_MERGE_K];                                                       \
    for (int u = 0; u < KKK_MERGE_K; u++) {                                                    \
      const int64_t k_ = (Q) + (int64_t)u * tm;                                                \
      c_[u] = k_ < (N) ? ci[p0 + k_] : 0;                                                      \
      v_[u] = k_ < (N) ? av[p0 + k_] : S(zero)();                                              \
    }                                                                                          \
    for (int u = 0; u < KKK_MERGE_K; u++)                                                      \
      x_[u] = (Q) + (int64_t)u * tm < (N) ? x[c_[u] * xs] : S(zero)();                         \
    for (int u = 0; u < KKK_MERGE_K; u++) {                                                    \
      const int64_t k = (Q) + (int64_t)u * tm;                                                 \
      const SC v = S(mul)(v_[u], x_[u]);                                                       \
      if (k < (N))                                                                             \
        BODY;                                                                                  \
    }                                                                                          \
  } while (0)

/* thread T's items [d, e) of the merge of the tile's np row ends and
 * entries (in scratch): where its path starts (rows li ended, entries lj
 * taken, li + lj = d), by bisection; then its walk, a row it ends stored
 * at once, save its first, which may have begun in the threads before it:
 * that one and its last row's part are left in scratch */
#define KKK_MERGE_WALK(T, NP)                                                                  \
  do {                                                                                         \
    const int np_ = (NP), items = nr + np_;                                                    \
    const int d = (int)(T) * KKK_MERGE_K < items ? (int)(T) * KKK_MERGE_K : items;             \
    const int e = d + KKK_MERGE_K < items ? d + KKK_MERGE_K : items;                           \
    int lo = d > np_ ? d - np_ : 0, hi = d < nr ? d : nr;                                      \
    while (lo < hi) {                                                                          \
      const int mid = (lo + hi) / 2;                                                           \
      if (s_end[mid] <= d - mid - 1)                                                           \
        lo = mid + 1;                                                                          \
      else                                                                                     \
        hi = mid;                                                                              \
    }                                                                                          \
    int li = lo, lj = d - lo, frow = -1;                                                       \
    int end = li < nr ? s_end[li] : np_; /* row li's end */                                    \
    SC sum = S(zero)(), fval = S(zero)();                                                      \
    for (int q = d; q < e; q++) {                                                              \
      if (lj < end) { /* an entry of row li */                                                 \
        sum = S(add)(sum, s_prod[KKK_MERGE_PAD(lj)]);                                          \
        lj++;                                                                                  \
      } else { /* row li ends */                                                               \
        if (frow < 0) {                                                                        \
          frow = li;                                                                           \
          fval = sum;                                                                          \
        } else {                                                                               \
          KKK_SPMV_PUT(r0 + li, sum);                                                          \
        }                                                                                      \
        sum = S(zero)();                                                                       \
        li++;                                                                                  \
        end = li < nr ? s_end[li] : np_;                                                       \
      }                                                                                        \
    }                                                                                          \
    s_crow[T] = li;                                                                            \
    s_cval[T] = sum;                                                                           \
    s_frow[T] = frow;                                                                          \
    s_fval[T] = fval;                                                                          \
  } while (0)

/* the first row thread T ends, with the parts the threads before it took:
 * threads [u0, T), whose last row it is (their last rows do not decrease:
 * u0 by bisection), their parts loaded four at a time */
#define KKK_MERGE_FIX(T)                                                                       \
  do {                                                                                         \
    const int frow = s_frow[T];                                                                \
    if (frow >= 0) {                                                                           \
      SC v = s_fval[T];                                                                        \
      int u0 = 0, u1 = (int)(T);                                                               \
      for (int hi = u1; u0 < hi;) {                                                            \
        const int mid = (u0 + hi) / 2;                                                         \
        if (s_crow[mid] < frow)                                                                \
          u0 = mid + 1;                                                                        \
        else                                                                                   \
          hi = mid;                                                                            \
      }                                                                                        \
      for (; u0 + 4 <= u1; u0 += 4)                                                            \
        v = S(add)(v, S(add)(S(add)(s_cval[u0], s_cval[u0 + 1]), S(add)(s_cval[u0 + 2], s_cval[u0 + 3]))); \
      for (; u0 < u1; u0++)                                                                    \
        v = S(add)(v, s_cval[u0]);                                                             \
      KKK_SPMV_PUT(r0 + frow, v);                                                              \
    }                                                                                          \
  } while (0)

/* the declarations both merge kernels begin with: the scalars and the
 * arrays (KKK_MERGE_ARRAYS), the team's scratch (KKK_MERGE_SCRATCH) */
#define KKK_MERGE_ARRAYS()                                                                     \
  const int tn = (int)args->merge_tile, tm = (int)KK_TEAM_SIZE(team);                          \
  const SC a = S(from)(args->a), b = S(from)(args->b);                                         \
  const uint16_t *restrict te = KK_DATA(args->ends, uint16_t); /* row ends in their tiles */   \
  const int32_t *restrict ci = KK_DATA(args->col_idx, int32_t);                                \
  const SC *restrict av = KK_DATA(args->vals, SC);                                             \
  const SC *restrict x = KK_DATA(args->x, SC);                                                 \
  SC *restrict y = KK_DATA(args->y, SC);                                                       \
  const int64_t xs = KK_STRIDE(args->x, 0), ys = KK_STRIDE(args->y, 0)
#define KKK_MERGE_SCRATCH()                                                                    \
  int32_t *s_end = KK_TEAM_SCRATCH(team, 0, int32_t, tn);                                      \
  SC *s_prod = KK_TEAM_SCRATCH(team, 0, SC, KKK_MERGE_PAD(tn));                                \
  int32_t *s_crow = KK_TEAM_SCRATCH(team, 0, int32_t, tm);                                     \
  SC *s_cval = KK_TEAM_SCRATCH(team, 0, SC, tm);                                               \
  int32_t *s_frow = KK_TEAM_SCRATCH(team, 0, int32_t, tm);                                     \
  SC *s_fval = KK_TEAM_SCRATCH(team, 0, SC, tm)

/* y = a A x + b y for one vector, on GPUs, for rows of irregular length:
 * the merge-path SpMV (Merrill and Garland, SC'16; CUB's and Kokkos
 * Kernels' merge SpMV).  The matrix's rows come cut into tiles of whole
 * rows (kkk_crs_tiles), a tile per team, at most KKK_MERGE_TILE items of
 * rows' entries and ends.  The team loads the tile's products a_ij x_j
 * into scratch (every thread's loads in flight together, adjacent threads
 * on adjacent entries), then each thread walks KKK_MERGE_K items of the
 * merge of row ends and entries: equal work per thread whatever the
 * rows' lengths.  A row a thread ends is stored at once, save its first,
 * which may have begun in the threads before it: that one waits for the
 * partial sums the threads before left (one barrier).  A row longer than
 * a tile is a tile of its own, reduced by the whole team. */
KKK_TEAM_FOR(KN(spmv_merge), struct kkk_spmv_args, team) {
  /* the tile's items and the team's threads come from the launch
   * (KKK_MERGE_TILE, KKK_MERGE_TEAM): with them constants here, nvcc 13
   * kept fewer of a thread's loads in flight (42 registers against 70)
   * and the H100 ran the irregular matrix 1.5 times slower */
  KKK_MERGE_ARRAYS();
  const int64_t *restrict tile = KK_DATA(args->tiles, int64_t) + 4 * KK_LEAGUE_RANK(team);
  const int64_t r0 = tile[0], p0 = tile[2], np64 = tile[3] - p0;
  const int nr = (int)(tile[1] - r0);
  KKK_MERGE_SCRATCH();
  if (np64 + nr > tn) {
    /* one long row: each thread's part, KKK_MERGE_K entries at a time, then the team's sum */
    KK_TEAM_THREAD_FOR(team, t, 0, tm) {
      SC s = S(zero)();
      for (int64_t q = t; q < np64; q += tn)
        KKK_MERGE_PRODUCTS(q, np64, s = S(add)(s, v));
      s_cval[t] = s;
    }
    KK_TEAM_BARRIER(team);
    SC s;
    KKK_TEAM_SUM(t, 0, tm, s_cval[t], s);
    KK_SINGLE_TEAM(team) { KKK_SPMV_PUT(r0, s); }
  } else {
    const int np = (int)np64;
    KK_TEAM_THREAD_FOR(team, t, 0, tm) {
      /* the thread's first KKK_MERGE_ENDS row ends (rows t + u tm) loaded
       * into registers first and stored after its products: stored at
       * once, each store would wait for its load before the products'
       * loads were issued (the compiler cannot move a load above a store
       * that might alias it), one memory latency more per tile.  Held
       * in registers, 2 row ends took the kernel from 70 to 80 registers
       * a thread and 8 to 91 (sm_90, nvcc 13.0): fewer teams per
       * multiprocessor; 1 keeps 70 (72 with the KKK_ENDS_EARLY branch
       * below, still 896 threads per multiprocessor by registers).
       * KKK_ENDS_EARLY (the default): all stored at once, before the
       * products, leaving none for after them */
      int ke = (int)t;
      if (args->flags & KKK_ENDS_EARLY)
        for (; ke < nr; ke += tm)
          s_end[ke] = te[r0 + ke];
      int32_t re_[KKK_MERGE_ENDS];
      for (int u = 0; u < KKK_MERGE_ENDS; u++) {
        const int k = ke + u * tm;
        re_[u] = k < nr ? te[r0 + k] : 0;
      }
      KKK_MERGE_PRODUCTS(t, np, s_prod[KKK_MERGE_PAD(k)] = v);
      for (int u = 0; u < KKK_MERGE_ENDS; u++)
        if (ke + u * tm < nr)
          s_end[ke + u * tm] = re_[u];
      for (int k = ke + KKK_MERGE_ENDS * tm; k < nr; k += tm) /* tiles of more, shorter rows */
        s_end[k] = te[r0 + k];
    }
    KK_TEAM_BARRIER(team);
    KK_TEAM_THREAD_FOR(team, t, 0, tm) { KKK_MERGE_WALK(t, np); }
    KK_TEAM_BARRIER(team);
    KK_TEAM_THREAD_FOR(team, t, 0, tm) { KKK_MERGE_FIX(t); }
  }
}

/* spmv_mpipe (sparse_mpipe.h), and spmv_mpipe6, the same kernel bound to
 * 768 threads per multiprocessor, 12 teams of KKK_MERGE_TEAM (the name
 * is from teams of 128, 6 of them; KK_KERNELS_SPMV=pipe6: nvcc 13 then
 * gives double 80 registers a thread, no spills, against 96 and 640
 * threads; held to 64 registers, 1024 threads, it ran no faster) */
#define KKK_MPIPE spmv_mpipe
#include "sparse_mpipe.h"
#undef KKK_MPIPE
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS KK_LAUNCH_BOUNDS(KKK_MERGE_TEAM, 12)
#define KKK_MPIPE spmv_mpipe6
#include "sparse_mpipe.h"
#undef KKK_MPIPE
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS
#undef KKK_MERGE_SCRATCH
#undef KKK_MERGE_ARRAYS
#undef KKK_MERGE_FIX
#undef KKK_MERGE_WALK
#undef KKK_MERGE_PRODUCTS
#undef KKK_TEAM_SUM
#undef KKK_SPMV_PUT
#undef KKK_SPMV_STORE

/* y += a op(A) x for op T (or C: conjugated entries), row i of A scattered
 * into y with atomic additions (y was scaled by b before). */
KKK_FOR(KN(spmvt), struct kkk_spmv_args, i) {
  const SC a = S(from)(args->a);
  const int cj = (args->flags & KKK_CONJ_A) != 0;
  const int64_t p0 = RP(i), p1 = RP(i + 1);
  for (int64_t v = 0; v < args->nvec; v++) {
    const SC xa = S(mul)(a, KK_AT(args->x, SC, i, v));
    for (int64_t p = p0; p < p1; p++)
      kk_atomic_add(&KK_AT(args->y, SC, CI(p), v), S(mul)(S(cj)(AV(p), cj), xa));
  }
}

/* d(i) = 1 / A(i, i) (the sum of the row's entries in column i); counts the
 * rows where that is zero (d(i) is then 0). */
KKK_REDUCE(KN(jacobi), struct kkk_diag_args, int64_t, KK_SUM, i, acc) {
  SC s = S(zero)();
  for (int64_t p = RP(i); p < RP(i + 1); p++)
    if (CI(p) == i)
      s = S(add)(s, AV(p));
  if (S(iszero)(s)) {
    KK_AT(args->d, SC, i) = S(zero)();
    *acc += 1;
  } else {
    KK_AT(args->d, SC, i) = S(div)(S(from)(kk_cdouble(1.0, 0.0)), s);
  }
}

#undef RP
#undef CI
#undef AV
