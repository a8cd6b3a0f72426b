/* kernels/sparse_mpipe.h -- the pipelined merge-path SpMV kernel for one element type, named KKK_MPIPE (included by sparse_tmpl.h, once per form: KK_TEAM_BOUNDS as the form sets it). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/* spmv_merge as a pipeline (KK_KERNELS_SPMV=pipe; GPUs): a team takes the
 * tiles rank, rank + league size, ... in turn (args->ntiles in all), and
 * while it walks one tile, the column indices and values of its next
 * (and that tile's first row end) are already loading into the thread's
 * registers: in spmv_merge a team's tile waits for them, then for x,
 * before any walking, and the memory idles for that team while it walks.
 * Here the wait at a tile's start is x alone, read from the cache levels
 * (the next-but-one tile's numbers are loaded a tile ahead too).  One
 * team thread per rank (the launch's team of KKK_MERGE_TEAM; the
 * registers carry over from one tile to the next).  A tile of one long
 * row: each thread's part of it, and the first thread adds the parts. */
KKK_TEAM_FOR(KN(KKK_MPIPE), struct kkk_spmv_args, team) {
  KKK_MERGE_ARRAYS();
  KKK_MERGE_SCRATCH();
  const int64_t *restrict tiles = KK_DATA(args->tiles, int64_t);
  const int64_t nt = args->ntiles, step = KK_LEAGUE_SIZE(team);
  const int th = (int)KK_TEAM_RANK(team);
  /* tile J's first row, rows, first entry, entries; zeros past the last */
#define KKK_PIPE_TILE(J, R0, NR, P0, NP)                                                       \
  do {                                                                                         \
    const int64_t j_ = (J) < nt ? (J) : 0;                                                     \
    R0 = tiles[4 * j_];                                                                        \
    NR = (J) < nt ? (int)(tiles[4 * j_ + 1] - R0) : 0;                                         \
    P0 = tiles[4 * j_ + 2];                                                                    \
    NP = (J) < nt ? tiles[4 * j_ + 3] - P0 : 0;                                                \
  } while (0)
  /* the thread's entries th + u tm of a tile into c_ and v_, its first
   * row end into re_ */
#define KKK_PIPE_LOAD(R0, NR, P0, NP)                                                          \
  do {                                                                                         \
    for (int u = 0; u < KKK_MERGE_K; u++) {                                                    \
      const int64_t k_ = th + (int64_t)u * tm;                                                 \
      c_[u] = k_ < (NP) ? ci[(P0) + k_] : 0;                                                   \
      v_[u] = k_ < (NP) ? av[(P0) + k_] : S(zero)();                                           \
    }                                                                                          \
    re_ = th < (NR) ? te[(R0) + th] : 0;                                                       \
  } while (0)
  int64_t j = KK_LEAGUE_RANK(team), r0, p0, np64, r0n, p0n, npn;
  int nr, nrn;
  KKK_PIPE_TILE(j, r0, nr, p0, np64);
  KKK_PIPE_TILE(j + step, r0n, nrn, p0n, npn);
  int32_t c_[KKK_MERGE_K], re_ = 0;
  SC v_[KKK_MERGE_K];
  int ready = 0; /* c_, v_ and re_ hold tile j's */
  /* the same barriers for a tile of one long row as for the others, none
   * under a branch (the team sum of spmv_merge has its own) */
  while (j < nt) {
    const int lng = np64 + nr > tn;
    SC part = S(zero)(); /* a long row: this thread's part */
    if (lng) {
      for (int64_t q = th; q < np64; q += tn)
        KKK_MERGE_PRODUCTS(q, np64, part = S(add)(part, v));
    } else {
      const int np = (int)np64;
      if (!ready)
        KKK_PIPE_LOAD(r0, nr, p0, np64);
      SC x_[KKK_MERGE_K];
      for (int u = 0; u < KKK_MERGE_K; u++)
        x_[u] = th + u * tm < np ? x[c_[u] * xs] : S(zero)();
      for (int u = 0; u < KKK_MERGE_K; u++)
        if (th + u * tm < np)
          s_prod[KKK_MERGE_PAD(th + u * tm)] = S(mul)(v_[u], x_[u]);
      if (th < nr)
        s_end[th] = re_;
      for (int k = th + tm; k < nr; k += tm) /* tiles of more rows than threads */
        s_end[k] = te[r0 + k];
    }
    KK_TEAM_BARRIER(team);
    /* the next tile's loads, in flight during this one's walk */
    ready = j + step < nt && npn + nrn <= tn;
    if (ready)
      KKK_PIPE_LOAD(r0n, nrn, p0n, npn);
    if (lng)
      s_cval[th] = part;
    else
      KKK_MERGE_WALK(th, (int)np64);
    KK_TEAM_BARRIER(team);
    if (!lng) {
      KKK_MERGE_FIX(th);
    } else if (th == 0) { /* the long row's parts, four at a time */
      SC s0 = S(zero)(), s1 = S(zero)(), s2 = S(zero)(), s3 = S(zero)();
      int u = 0;
      for (; u + 4 <= tm; u += 4) {
        s0 = S(add)(s0, s_cval[u]);
        s1 = S(add)(s1, s_cval[u + 1]);
        s2 = S(add)(s2, s_cval[u + 2]);
        s3 = S(add)(s3, s_cval[u + 3]);
      }
      for (; u < tm; u++)
        s0 = S(add)(s0, s_cval[u]);
      KKK_SPMV_PUT(r0, S(add)(S(add)(s0, s1), S(add)(s2, s3)));
    }
    j += step;
    r0 = r0n;
    nr = nrn;
    p0 = p0n;
    np64 = npn;
    KKK_PIPE_TILE(j + step, r0n, nrn, p0n, npn);
  }
#undef KKK_PIPE_LOAD
#undef KKK_PIPE_TILE
}
