/* kk/target/kernel_common.h -- what every target (host.h, and the device targets through gpu_common.h) spells alike: the list of built-in reducers, the MDRange entry names, scratch view extents, ScatterView offsets, the atomics without a result. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TARGET_KERNEL_COMMON_H
#define KK_TARGET_KERNEL_COMMON_H

/*
 * The including target defines KK__UNUSED, KK__MD_FOR(NAME, ARGS_T, RANK, ...)
 * and KK__MD_REDUCE(NAME, ARGS_T, T, R, RANK, ACC, ...), and kk_atomic_fetch_<op>;
 * KK__T(d, k, i) is kk/kernel.h's offset of index i along dimension k.
 */

/* ==== D(R, T) for each built-in reducer R of each scalar type T it applies to ================= */
#define KK__REDUCERS_ALL(D, T) D(KK_SUM, T) D(KK_PROD, T) D(KK_MIN, T) D(KK_MAX, T) D(KK_LAND, T) D(KK_LOR, T)
#define KK__REDUCERS_LOC(D, T) D(KK_MINLOC, T) D(KK_MAXLOC, T) D(KK_MINMAX, T) D(KK_MINMAXLOC, T)
#define KK__REDUCERS_INT(D, T) KK__REDUCERS_ALL(D, T) KK__REDUCERS_LOC(D, T) D(KK_BAND, T) D(KK_BOR, T)
#define KK__BUILTIN_REDUCERS(D)                                                                                  \
  KK__REDUCERS_INT(D, int8_t) KK__REDUCERS_INT(D, uint8_t) KK__REDUCERS_INT(D, int16_t)                         \
  KK__REDUCERS_INT(D, uint16_t) KK__REDUCERS_INT(D, int32_t) KK__REDUCERS_INT(D, uint32_t)                      \
  KK__REDUCERS_INT(D, int64_t) KK__REDUCERS_INT(D, uint64_t) KK__REDUCERS_ALL(D, float)                         \
  KK__REDUCERS_LOC(D, float) KK__REDUCERS_ALL(D, double) KK__REDUCERS_LOC(D, double)

/* ==== tuning hint: the launch bounds of team kernels ========================================= */
/* KK_TEAM_BOUNDS, as defined where a team kernel (KK_TEAM_FOR,
 * KK_TEAM_REDUCE) is written, default empty; a kernel file may set it to
 * KK_LAUNCH_BOUNDS(threads, teams): a promise that the kernel's teams have at
 * most `threads` threads, and a wish for `teams` of them resident per
 * multiprocessor.  CUDA: __launch_bounds__(threads, teams), which caps the
 * registers per thread; HIP: __launch_bounds__(threads); host and SPIR-V:
 * nothing.  A tuning hint like KK_VECTOR_UNROLL (docs/kernel-language.md). */
#ifndef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS
#endif
#if defined(KK_TARGET_CUDA)
#define KK_LAUNCH_BOUNDS(THREADS, TEAMS) __launch_bounds__(THREADS, TEAMS)
#elif defined(KK_TARGET_HIP)
#define KK_LAUNCH_BOUNDS(THREADS, TEAMS) __launch_bounds__(THREADS)
#else
#define KK_LAUNCH_BOUNDS(THREADS, TEAMS)
#endif

/* ==== MDRange: an index parameter per name; the ranks' entry macros ========================== */
#define KK__MD_PARAMS(...) KK__FOREACH(KK__MD_PARAM, ~, __VA_ARGS__)
#define KK__MD_PARAM(unused, i) const int64_t i KK__UNUSED,
#define KK_MD_FOR2(NAME, ARGS_T, I0, I1) KK__MD_FOR(NAME, ARGS_T, 2, I0, I1)
#define KK_MD_FOR3(NAME, ARGS_T, I0, I1, I2) KK__MD_FOR(NAME, ARGS_T, 3, I0, I1, I2)
#define KK_MD_FOR4(NAME, ARGS_T, I0, I1, I2, I3) KK__MD_FOR(NAME, ARGS_T, 4, I0, I1, I2, I3)
#define KK_MD_FOR5(NAME, ARGS_T, I0, I1, I2, I3, I4) KK__MD_FOR(NAME, ARGS_T, 5, I0, I1, I2, I3, I4)
#define KK_MD_FOR6(NAME, ARGS_T, I0, I1, I2, I3, I4, I5) KK__MD_FOR(NAME, ARGS_T, 6, I0, I1, I2, I3, I4, I5)
#define KK_MD_REDUCE2(NAME, ARGS_T, T, R, I0, I1, ACC) KK__MD_REDUCE(NAME, ARGS_T, T, R, 2, ACC, I0, I1)
#define KK_MD_REDUCE3(NAME, ARGS_T, T, R, I0, I1, I2, ACC) KK__MD_REDUCE(NAME, ARGS_T, T, R, 3, ACC, I0, I1, I2)
#define KK_MD_REDUCE4(NAME, ARGS_T, T, R, I0, I1, I2, I3, ACC) KK__MD_REDUCE(NAME, ARGS_T, T, R, 4, ACC, I0, I1, I2, I3)
#define KK_MD_REDUCE5(NAME, ARGS_T, T, R, I0, I1, I2, I3, I4, ACC) \
  KK__MD_REDUCE(NAME, ARGS_T, T, R, 5, ACC, I0, I1, I2, I3, I4)
#define KK_MD_REDUCE6(NAME, ARGS_T, T, R, I0, I1, I2, I3, I4, I5, ACC) \
  KK__MD_REDUCE(NAME, ARGS_T, T, R, 6, ACC, I0, I1, I2, I3, I4, I5)

/* ==== scratch views: rank and three extents (1 past the rank) of an extent list ============= */
#define KK__SV_DIMS(...) KK__NARG(__VA_ARGS__), KK__SV_PAD(__VA_ARGS__, 1, 1)
#define KK__SV_PAD(a, b, c, ...) (a), (b), (c)

/* ==== atomics whose result nobody reads ======================================================= */
#define kk_atomic_min(p, v) ((void)kk_atomic_fetch_min(p, v))
#define kk_atomic_max(p, v) ((void)kk_atomic_fetch_max(p, v))
#define kk_atomic_and(p, v) ((void)kk_atomic_fetch_and(p, v))
#define kk_atomic_or(p, v) ((void)kk_atomic_fetch_or(p, v))
#define kk_atomic_xor(p, v) ((void)kk_atomic_fetch_xor(p, v))
#define kk_atomic_inc(p) ((void)kk_atomic_fetch_inc(p))
#define kk_atomic_dec(p) ((void)kk_atomic_fetch_dec(p))

/* ==== ScatterView: the offset of an element of the target through its strides (any layout) === */
#define KK__SOFF(sv, ...) KK__CAT(KK__SOFF, KK__NARG(__VA_ARGS__))((sv).d, __VA_ARGS__)
#define KK__SOFF1(d, a) KK__T(d, 0, a)
#define KK__SOFF2(d, a, b) (KK__T(d, 0, a) + KK__T(d, 1, b))
#define KK__SOFF3(d, a, b, c) (KK__T(d, 0, a) + KK__T(d, 1, b) + KK__T(d, 2, c))
#define KK__SOFF4(d, a, b, c, e) (KK__T(d, 0, a) + KK__T(d, 1, b) + KK__T(d, 2, c) + KK__T(d, 3, e))

/* ==== bounds checking (kkcc --bounds-check): what every target's checked KK_AT does alike ==========
 * KK__BC_BAD(FN) defines, with the target's function qualifier FN (a target
 * expands it where its checked KK_AT begins, under KK_BOUNDS_CHECK),
 *   kk__bc_bad(d, esize, n, ix)   is the access (n indices ix, an element of esize bytes)
 *                                 outside view d?
 * KK__BC_OFFSET(off, d, layout, n, ix, UNROLL) sets off to the element offset the
 * unchecked KK_AT gives the access, per layout; UNROLL is the target's unroll hint
 * for the loop over the middle indices (empty where it has none).  A statement, not
 * a function, so that the loops unroll in the checked KK_AT as they did. */
#define KK__BC_BAD(FN)                                                                          \
  FN int kk__bc_bad(const kk_view_desc_t *d, unsigned esize, int n, const int64_t *ix) {        \
    int bad = n < d->rank || esize != d->elem_size;                                             \
    for (int k = 0; k < n; k++)                                                                 \
      bad |= (uint64_t)ix[k] >= (uint64_t)d->extent[k];                                         \
    return bad;                                                                                 \
  }
#define KK__BC_OFFSET(off, d, layout, n, ix, UNROLL)                                            \
  do {                                                                                          \
    if ((n) == 1) {                                                                             \
      (off) = (layout) == KK_LAYOUT_STRIDE ? (ix)[0] * (d)->stride[0] : (ix)[0];                \
    } else {                                                                                    \
      (off) = (layout) == KK_LAYOUT_LEFT ? (ix)[0] : (ix)[0] * (d)->stride[0];                  \
      UNROLL for (int k_ = 1; k_ < (n) - 1; k_++)                                               \
        (off) += (ix)[k_] * (d)->stride[k_];                                                    \
      (off) += (layout) == KK_LAYOUT_RIGHT ? (ix)[(n) - 1] : (ix)[(n) - 1] * (d)->stride[(n) - 1]; \
    }                                                                                           \
  } while (0)

#endif /* KK_TARGET_KERNEL_COMMON_H */
