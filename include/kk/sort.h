/* kk/sort.h -- sorting inside kernels (a team's or a thread's array in scratch) and comparators that kk_sort_ex takes, for kernel files. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_SORT_H
#define KK_SORT_H

/*
 * Nested sorts, as Kokkos' sort_team / sort_thread: every thread (and lane)
 * of the team, or every lane of one thread, sorts an array together --
 * typically a row staged in scratch.  In a team kernel:
 *
 *   double *row = KK_TEAM_SCRATCH(team, 0, double, n);
 *   KK_TEAM_VECTOR_FOR(team, j, 0, n) { row[j] = KK_AT(args->a, double, KK_LEAGUE_RANK(team), j); }
 *   KK_TEAM_BARRIER(team);
 *   KK_TEAM_SORT(team, double, row, n);            // every thread of the team, collectively
 *   ...                                             // row is sorted for the whole team
 *
 *   KK_TEAM_THREAD_FOR(team, r, 0, rows) {          // one row per thread, its lanes together
 *     int32_t *cols = ...;
 *     KK_THREAD_SORT_BY_KEY(team, int32_t, cols, double, vals, len);
 *   }
 *
 * KK_TEAM_SORT(team, T, data, n)                     ascending by <
 * KK_TEAM_SORT_BY(team, T, data, n, cmp)             by cmp(a, b) ("a before b"), e.g. a KK_COMPARATOR's
 *                                                    KK_COMPARATOR_FN(name)
 * KK_TEAM_SORT_BY_KEY(team, K, keys, V, values, n)   values follow their keys
 * KK_THREAD_SORT(team, ...), KK_THREAD_SORT_BY(...), KK_THREAD_SORT_BY_KEY(...)   the same on one
 *                                                    thread's vector lanes
 * data is any memory the team (thread) may write: scratch, or a view's data.
 * The team forms are collectives (docs/kernel-language.md): every thread and
 * lane of the team must reach them, outside thread loops and singles; they
 * end with the array sorted and visible to the whole team.  The thread forms
 * belong where a thread's lanes are together (inside KK_TEAM_THREAD_FOR, not
 * in KK_SINGLE_*).  A bitonic network (n need not be a power of two):
 * O(n log^2 n) compare-exchanges, log^2 n steps each followed by a barrier;
 * not stable.
 *
 * Comparators for kk_sort_ex (kk/algorithms.h), any element type:
 *
 *   KK_COMPARATOR(by_distance, struct point, a, b) { return a.r2 < b.r2; }   // kernel file
 *   KK_DECLARE_COMPARATOR(by_distance);                                       // shared header
 *   opt.comparator = KK_COMPARATOR_REF(by_distance);                          // host code
 *
 * The function says whether a goes strictly before b (a strict weak order,
 * as std::sort's); kk_sort_ex then runs a stable merge sort with it.
 */

#include <kk/kernel_abi.h>

/* What a comparator's kernels receive (kk-algorithms fills it). */
typedef struct kk__msort_args {
  kk_view_strided keys;  /* the keys being sorted (first pass) */
  void *ksrc, *kdst;     /* contiguous key buffers */
  int64_t *isrc, *idst;  /* the original index of each key */
  int64_t n;             /* keys */
  int64_t width;         /* length of the sorted runs merged by this pass */
  int64_t chunk;         /* outputs one iteration of a merge pass writes */
} kk__msort_args;
/* keys per block of the first pass (sorted by insertion, in registers) */
#define KK__MSORT_BLOCK 16
/* outputs per iteration of a merge pass, at most */
#define KK__MSORT_CHUNK 256

#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || defined(KK_TARGET_SPIRV) || defined(__CUDACC_RTC__) || \
    defined(__HIPCC_RTC__) || defined(__OPENCL_VERSION__) || defined(__OPENCL_CPP_VERSION__)
/* a device compile sees the kernels only */
#define KK_DECLARE_COMPARATOR(name) typedef int kk__declared_cmp_##name
#else
/* A comparator of a kernel file, as KK_COMPARATOR_REF(name) names it: the
 * kernels that sort with it.  KK_DECLARE_COMPARATOR(name) declares one in
 * host code. */
typedef struct kk_comparator {
  uint32_t struct_size;
  uint32_t elem_size;  /* sizeof the key type */
  const char *name;
  const kk_kernel_t *block_sort, *merge;
} kk_comparator_t;
/* In host code: declare a comparator that a kernel file defines, and name it
 * (the pointer kk_sort_options_t.comparator takes). */
#define KK_DECLARE_COMPARATOR(name) extern const kk_comparator_t kk_comparator__##name
#define KK_COMPARATOR_REF(name) (&kk_comparator__##name)
#endif

#ifdef KK_KERNEL_H /* ==== kernel files ================================================================= */

/* ---- comparators -------------------------------------------------------------------------------------- */

#define KK__MS_FOR(N, A, I) KK_FOR(N, A, I)
#if defined(KK_TARGET_HOST) || defined(KK_TARGET_NONE)
#define KK__CMP_DESC(name, T)                                                                                   \
  const kk_comparator_t kk_comparator__##name = {sizeof(kk_comparator_t), (uint32_t)sizeof(T), #name,           \
                                                 &KK__CAT(kk_kernel__, name##__kk_blk),                          \
                                                 &KK__CAT(kk_kernel__, name##__kk_merge)};
#else
#define KK__CMP_DESC(name, T)
#endif

/* The comparator's function, for KK_TEAM_SORT_BY and friends. */
#define KK_COMPARATOR_FN(name) kk__cmp_##name

/* KK_COMPARATOR(name, T, a, b) { return <a before b>; } -- the function, the
 * two kernels of the merge sort (blocks sorted by insertion, then merge
 * passes that split their output by merge path) and the descriptor. */
#define KK_COMPARATOR(name, T, A, B)                                                                            \
  KK__FN int kk__cmp_##name(const T A, const T B);                                                              \
  KK__MS_FOR(name##__kk_blk, kk__msort_args, b) {                                                               \
    const int64_t lo_ = b * KK__MSORT_BLOCK;                                                                    \
    const int m_ = args->n - lo_ < KK__MSORT_BLOCK ? (int)(args->n - lo_) : KK__MSORT_BLOCK;                    \
    T k_[KK__MSORT_BLOCK];                                                                                      \
    int64_t i_[KK__MSORT_BLOCK];                                                                                \
    for (int e_ = 0; e_ < m_; e_++) {                                                                           \
      const T x_ = KK_AT(args->keys, T, lo_ + e_);                                                              \
      int p_ = e_;                                                                                              \
      while (p_ > 0 && kk__cmp_##name(x_, k_[p_ - 1])) {                                                        \
        k_[p_] = k_[p_ - 1];                                                                                    \
        i_[p_] = i_[p_ - 1];                                                                                    \
        p_--;                                                                                                   \
      }                                                                                                         \
      k_[p_] = x_;                                                                                              \
      i_[p_] = lo_ + e_;                                                                                        \
    }                                                                                                           \
    for (int e_ = 0; e_ < m_; e_++) {                                                                           \
      ((T *)args->kdst)[lo_ + e_] = k_[e_];                                                                     \
      args->idst[lo_ + e_] = i_[e_];                                                                            \
    }                                                                                                           \
  }                                                                                                             \
  KK__MS_FOR(name##__kk_merge, kk__msort_args, c) {                                                             \
    const T *ks_ = (const T *)args->ksrc;                                                                       \
    T *kd_ = (T *)args->kdst;                                                                                   \
    const int64_t w_ = args->width, out0_ = c * args->chunk;                                                    \
    const int64_t m0_ = out0_ / (2 * w_) * (2 * w_); /* the merged run this chunk lies in */                    \
    const int64_t a0_ = m0_, la_ = args->n - a0_ < w_ ? args->n - a0_ : w_;                                     \
    const int64_t b0_ = a0_ + la_, lb_ = args->n - b0_ < w_ ? (args->n - b0_ > 0 ? args->n - b0_ : 0) : w_;     \
    const int64_t d_ = out0_ - m0_;                                                                             \
    const int64_t de_ = d_ + args->chunk < la_ + lb_ ? d_ + args->chunk : la_ + lb_;                            \
    int64_t lo_ = d_ > lb_ ? d_ - lb_ : 0, hi_ = d_ < la_ ? d_ : la_;                                           \
    while (lo_ < hi_) { /* merge path: elements of A among the first d_ outputs (A first on ties) */            \
      const int64_t mid_ = (lo_ + hi_) / 2;                                                                     \
      if (!kk__cmp_##name(ks_[b0_ + d_ - 1 - mid_], ks_[a0_ + mid_]))                                           \
        lo_ = mid_ + 1;                                                                                         \
      else                                                                                                      \
        hi_ = mid_;                                                                                             \
    }                                                                                                           \
    int64_t ia_ = lo_, ib_ = d_ - lo_;                                                                          \
    for (int64_t o_ = d_; o_ < de_; o_++) {                                                                     \
      const int take_a_ = ib_ >= lb_ || (ia_ < la_ && !kk__cmp_##name(ks_[b0_ + ib_], ks_[a0_ + ia_]));       \
      const int64_t src_ = take_a_ ? a0_ + ia_++ : b0_ + ib_++;                                                 \
      kd_[m0_ + o_] = ks_[src_];                                                                                \
      args->idst[m0_ + o_] = args->isrc[src_];                                                                  \
    }                                                                                                           \
  }                                                                                                             \
  KK__CMP_DESC(name, T)                                                                                         \
  KK__FN int kk__cmp_##name(const T A KK__UNUSED, const T B KK__UNUSED)

/* ---- nested sorts --------------------------------------------------------------------------------------- */

/* Orders the lanes of one thread around a step of a thread sort: on CUDA a
 * warp sync of this thread's lanes (the other team threads of the warp may
 * be elsewhere), on HIP the wave's (its lanes run together); host and
 * SPIR-V run a thread's lanes as a loop, in order. */
#if defined(KK_TARGET_CUDA)
#define KK__LANE_SYNC(t) __syncwarp(kk__shfl_mask((int)(t)->vlen))
#elif defined(KK_TARGET_HIP)
#define KK__LANE_SYNC(t) kk__warp_sync()
#else
#define KK__LANE_SYNC(t) ((void)(t))
#endif

#define KK__SORT_LT(a, b) ((a) < (b))
/* compare-exchange of elements lo < hi: the one that goes first to lo */
#define KK__SORT_CX(T, d, lo, hi, BEFORE, V, vals)                                                              \
  do {                                                                                                          \
    const T a_ = (d)[lo], b_ = (d)[hi];                                                                         \
    if (BEFORE(b_, a_)) {                                                                                       \
      (d)[lo] = b_;                                                                                             \
      (d)[hi] = a_;                                                                                             \
      KK__SORT_VSWAP(V, vals, lo, hi);                                                                          \
    }                                                                                                           \
  } while (0)
/* values follow their keys (none when vals is the null kk__novalue pointer:
 * a constant, the swap compiles away) */
#define KK__SORT_VSWAP(V, vals, lo, hi) \
  do {                                  \
    if ((vals) != 0) {                  \
      const V t_ = (vals)[lo];          \
      (vals)[lo] = (vals)[hi];          \
      (vals)[hi] = t_;                  \
    }                                   \
  } while (0)
typedef char kk__novalue;

/* The bitonic network over n (rounded up to a power of two; elements past n
 * act as +infinity and are never compared: every step puts the smaller
 * element at the lower index).  LOOP(j, count) runs its body for j in
 * [0, count) across the participants, SYNC waits for them. */
#define KK__BITONIC(T, d, n_, BEFORE, V, vals, LOOP, SYNC)                                                      \
  do {                                                                                                          \
    const int64_t bn_ = (n_);                                                                                   \
    int64_t bp_ = 1;                                                                                            \
    while (bp_ < bn_)                                                                                           \
      bp_ *= 2;                                                                                                 \
    for (int64_t bk_ = 2; bk_ <= bp_; bk_ *= 2) {                                                               \
      LOOP(bj_, bp_ / 2) { /* first step of a merge: mirror pairs */                                            \
        const int64_t h_ = bk_ / 2, lo_ = bj_ / h_ * bk_ + bj_ % h_, hi_ = bj_ / h_ * bk_ + bk_ - 1 - bj_ % h_; \
        if (hi_ < bn_)                                                                                          \
          KK__SORT_CX(T, d, lo_, hi_, BEFORE, V, vals);                                                         \
      }                                                                                                         \
      SYNC;                                                                                                     \
      for (int64_t bs_ = bk_ / 4; bs_ >= 1; bs_ /= 2) {                                                         \
        LOOP(bj_, bp_ / 2) {                                                                                    \
          const int64_t lo_ = bj_ / bs_ * 2 * bs_ + bj_ % bs_, hi_ = lo_ + bs_;                                 \
          if (hi_ < bn_)                                                                                        \
            KK__SORT_CX(T, d, lo_, hi_, BEFORE, V, vals);                                                       \
        }                                                                                                       \
        SYNC;                                                                                                   \
      }                                                                                                         \
    }                                                                                                           \
  } while (0)

#define KK__TEAM_LOOP(j, count) KK_TEAM_VECTOR_FOR(kk__st_, j, 0, count)
#define KK__THREAD_LOOP(j, count) KK_THREAD_VECTOR_FOR(kk__st_, j, 0, count)

/* The team forms start with a barrier (the data was just written) and end
 * with one after the last step. */
#define KK__TEAM_SORT(team, T, data, n, BEFORE, V, vals)                                                        \
  do {                                                                                                          \
    kk_team *const kk__st_ = (team);                                                                            \
    KK_TEAM_BARRIER(kk__st_);                                                                                   \
    KK__BITONIC(T, data, n, BEFORE, V, vals, KK__TEAM_LOOP, KK_TEAM_BARRIER(kk__st_));                          \
  } while (0)
#define KK__THREAD_SORT(team, T, data, n, BEFORE, V, vals)                                                      \
  do {                                                                                                          \
    kk_team *const kk__st_ = (team);                                                                            \
    KK__LANE_SYNC(kk__st_);                                                                                     \
    KK__BITONIC(T, data, n, BEFORE, V, vals, KK__THREAD_LOOP, KK__LANE_SYNC(kk__st_));                          \
  } while (0)

#define KK_TEAM_SORT(team, T, data, n) KK__TEAM_SORT(team, T, data, n, KK__SORT_LT, kk__novalue, (kk__novalue *)0)
#define KK_TEAM_SORT_BY(team, T, data, n, cmp) KK__TEAM_SORT(team, T, data, n, cmp, kk__novalue, (kk__novalue *)0)
#define KK_TEAM_SORT_BY_KEY(team, K, keys, V, values, n) KK__TEAM_SORT(team, K, keys, n, KK__SORT_LT, V, values)
#define KK_TEAM_SORT_BY_KEY_BY(team, K, keys, V, values, n, cmp) KK__TEAM_SORT(team, K, keys, n, cmp, V, values)
#define KK_THREAD_SORT(team, T, data, n) \
  KK__THREAD_SORT(team, T, data, n, KK__SORT_LT, kk__novalue, (kk__novalue *)0)
#define KK_THREAD_SORT_BY(team, T, data, n, cmp) \
  KK__THREAD_SORT(team, T, data, n, cmp, kk__novalue, (kk__novalue *)0)
#define KK_THREAD_SORT_BY_KEY(team, K, keys, V, values, n) KK__THREAD_SORT(team, K, keys, n, KK__SORT_LT, V, values)
#define KK_THREAD_SORT_BY_KEY_BY(team, K, keys, V, values, n, cmp) \
  KK__THREAD_SORT(team, K, keys, n, cmp, V, values)

#endif /* KK_KERNEL_H */
#endif /* KK_SORT_H */
