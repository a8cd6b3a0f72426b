/* kk/target/host.h -- how the host target spells the kernel language: native chunk functions with the bodies inlined. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TARGET_HOST_H
#define KK_TARGET_HOST_H

/*
 * Each kernel becomes
 *   - an inline body function kk__body_<name>(args, index..., kk__th),
 *   - a chunk function that copies the argument struct into a local (so the
 *     compiler keeps its fields in registers and can vectorize) and runs the
 *     body over a chunk -- the function pointer a host backend calls,
 *   - the descriptor kk_kernel__<name> (kk_kernel_t) that kkcc registers.
 * With KK_TARGET_NONE (kkcc --targets without host) the descriptor carries no
 * host entry points, so host backends refuse the kernel with a clear error.
 *
 * Host teams: a team is team_size threads of the backend; thread-range loops
 * split the range in contiguous blocks over the team's threads; vector loops
 * run sequentially in each thread (the compiler may vectorize them).
 */

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <kk/target/kernel_common.h>

#define KK__DEFAULT_LAYOUT KK_LAYOUT_RIGHT
#define KK__DEFAULT_ITERATE 1 /* KK_ITERATE_RIGHT */
#define KK__FN static inline

#if defined(__GNUC__)
#define KK__UNUSED __attribute__((unused))
#define KK__NOINLINE __attribute__((noinline))
#define KK__PAUSE() __builtin_ia32_pause()
#else
#define KK__UNUSED
#define KK__NOINLINE
#define KK__PAUSE() ((void)0)
#endif
#if !defined(__x86_64__) && !defined(__i386__)
#undef KK__PAUSE
#define KK__PAUSE() ((void)0)
#endif

#ifdef KK_TARGET_NONE
#define KK__HOSTFN(f) NULL
#else
#define KK__HOSTFN(f) f
#endif

typedef const kk_host_thread_t *kk__thread_t;

/* A chunk function's copy of its thread context: a local that no store in
 * the body can alias, so the compiler keeps what the body reads of it (the
 * thread id of a ScatterView access) in registers. */
#define KK__LOCAL_THREAD                        \
  const kk_host_thread_t kk__tl = *kk__thp;     \
  kk__thread_t kk__th = &kk__tl

/* ---- bounds checking (kkcc --bounds-check) ----------------------------------------
 * Each chunk function asks libkk for the launch's failure flag
 * (KK__BC_ENTER) and its loops stop once it is set (KK__BC_GO; team loops
 * decide together, KK__BC_TEAM_STOP, so that no team-mate is left at a
 * barrier).  A failed access records what it was and uses a zeroed element
 * of libkk's instead of the view's.  Without KK_BOUNDS_CHECK these expand to
 * nothing and the code is what it always was. */
#if defined(KK_BOUNDS_CHECK) && !defined(KK_TARGET_NONE)
#define KK__KERNEL_FLAGS KK_KERNEL_FLAG_BOUNDS_CHECK
#define KK__BC_ENTER(th) const int32_t *const kk__bc = kk_bounds_enter(th)
#define KK__BC_GO &&!__atomic_load_n(kk__bc, __ATOMIC_RELAXED)
#define KK__BC_TEAM_STOP(th)        \
  if (kk__bc_team_stop(kk__bc, th)) \
  break
/* every thread of the team gets rank 0's reading of the flag */
static inline int kk__bc_team_stop(const int32_t *bc, kk__thread_t th) {
  int32_t stop = __atomic_load_n(bc, __ATOMIC_RELAXED) != 0;
  if (th->team_size > 1)
    th->ops->broadcast(th, &stop, (uint32_t)sizeof stop, 0);
  return stop;
}
#else
#define KK__KERNEL_FLAGS 0
#define KK__BC_ENTER(th) (void)0
#define KK__BC_GO
#define KK__BC_TEAM_STOP(th) (void)0
#endif

#ifdef KK_BOUNDS_CHECK
/* kk__bc_bad (kernel_common.h) */
KK__BC_BAD(static inline)

/* The checked KK_AT: the element's address, or on a failed access the sink
 * kk_bounds_fail gives. */
static inline void *kk__bounds_at(const kk_view_desc_t *d, int layout, uint32_t esize, int n, const int64_t *ix,
                                  const char *file, int line) {
  if (__builtin_expect(kk__bc_bad(d, esize, n, ix), 0))
    return kk_bounds_fail(d, esize, n, ix, file, line);
  int64_t off;
  KK__BC_OFFSET(off, d, layout, n, ix, );
  return (char *)d->data + off * (int64_t)esize;
}

/* A ScatterView contribution's check: 0 (after recording) when it fails. */
static inline int kk__bounds_ok(const kk_view_desc_t *d, uint32_t esize, int n, const int64_t *ix, const char *file,
                                int line) {
  if (__builtin_expect(kk__bc_bad(d, esize, n, ix), 0)) {
    (void)kk_bounds_fail(d, esize, n, ix, file, line);
    return 0;
  }
  return 1;
}

#define KK__I64(unused, x) (int64_t)(x),
#define KK__BOUNDS_AT(v, T, N, ...)                                                                             \
  kk__bounds_at(KK__DESC_PTR(v), KK__LAYOUT_OF(v), (uint32_t)sizeof(T), N,                                               \
                (const int64_t[]){KK__FOREACH(KK__I64, ~, __VA_ARGS__)}, __FILE__, __LINE__)
#define KK__BOUNDS_SCATTER(sv, T, ...)                                                                          \
  if (!kk__bounds_ok(&(sv).d, (uint32_t)sizeof(T), KK__NARG(__VA_ARGS__),                                       \
                     (const int64_t[]){KK__FOREACH(KK__I64, ~, __VA_ARGS__)}, __FILE__, __LINE__))              \
  break
#else
#define KK__BOUNDS_SCATTER(sv, T, ...) (void)0
#endif /* KK_BOUNDS_CHECK */

/* The descriptor every kernel macro emits. */
#define KK__DESCRIPTOR(NAME, KIND, ARGS_T, RINFO, RANK, FOR, RED, SCAN, MD, TEAM)             \
  kk_kernel_t kk_kernel__##NAME = {                                                            \
      .struct_size = sizeof(kk_kernel_t),                                                       \
      .abi_version = KK_KERNEL_ABI_VERSION,                                                     \
      .name = #NAME,                                                                            \
      .kind = KIND,                                                                             \
      .args_size = (uint32_t)sizeof(ARGS_T),                                                    \
      .args_align = (uint32_t)_Alignof(ARGS_T),                                                 \
      .flags = KK__KERNEL_FLAGS,                                                                \
      .reducer = RINFO,                                                                         \
      .host_for = FOR,                                                                          \
      .host_reduce = RED,                                                                       \
      .host_scan = SCAN,                                                                        \
      .host_md = MD,                                                                            \
      .host_team = TEAM,                                                                        \
      .rank = RANK,                                                                             \
      .reserved = 0,                                                                            \
      .module = NULL,                                                                           \
      .runtime = {NULL, NULL, NULL, NULL},                                                      \
  }

/* The reducer table of a kernel whose value is VT, from its init/join. */
#define KK__RINFO(NAME, VT, NPARTS, PARTS)                                                      \
  static const kk_reducer_info_t kk__rinfo_##NAME = {                                           \
      .count = NPARTS,                                                                          \
      .value_size = (uint32_t)sizeof(VT),                                                       \
      .value_align = (uint32_t)_Alignof(VT),                                                    \
      .reserved = 0,                                                                            \
      .part = {KK__UNPACK PARTS},                                                               \
      .init = kk__vinit_##NAME,                                                                 \
      .join = kk__vjoin_##NAME,                                                                 \
  }

/* ---- reducer plumbing: init/join of value type VT ------------------------------- */

/* Built-in reducer R over scalar T. */
#define KK__VFUNCS(NAME, T, R, VT)                                                     \
  static void kk__vinit_##NAME(void *kk__p) { KK__INIT_##R(T, (VT *)kk__p); }           \
  static void kk__vjoin_##NAME(void *kk__d, const void *kk__s) {                       \
    KK__JOIN_##R(T, (VT *)kk__d, (const VT *)kk__s);                                   \
  }
/* Custom reducer R over T. */
#define KK__VFUNCS_CUSTOM(NAME, T, R)                                                  \
  static void kk__vinit_##NAME(void *kk__p) { kk__rinit_##R((T *)kk__p); }              \
  static void kk__vjoin_##NAME(void *kk__d, const void *kk__s) { kk__rjoin_##R((T *)kk__d, (const T *)kk__s); }
/* Several reducers (R, T, member) over struct VT. */
#define KK__VFUNCS_N(NAME, VT, ...)                                                           \
  static void kk__vinit_##NAME(void *kk__p) {                                                 \
    VT *kk__v = (VT *)kk__p;                                                                  \
    KK__FOREACH(KK__RN_INIT, kk__v, __VA_ARGS__)                                              \
  }                                                                                           \
  static void kk__vjoin_##NAME(void *kk__dp, const void *kk__sp) {                           \
    VT *kk__d = (VT *)kk__dp;                                                                 \
    const VT *kk__s = (const VT *)kk__sp;                                                     \
    KK__FOREACH(KK__RN_JOIN, (kk__d, kk__s), __VA_ARGS__)                                     \
  }
#define KK__PART1(R, T, VT) ({R, KK__TYPE_##T, 0, (uint32_t)sizeof(VT)})
#define KK__PART_CUSTOM(T) ({KK_CUSTOM, KK_TYPE_CUSTOM, 0, (uint32_t)sizeof(T)})
#define KK__PARTS_N(VT, ...) (KK__FOREACH(KK__RN_PART, VT, __VA_ARGS__))

/* Custom reducers: KK_REDUCER_INIT(r, T, v) { ... *v = identity ... }
 *                  KK_REDUCER_JOIN(r, T, dst, src) { ... *dst = *dst (+) *src ... }
 * (each also defines the untyped wrapper nested team reductions use) */
#define KK_REDUCER_INIT(R, T, V)                                                   \
  static inline void kk__rinit_##R(T *const V);                                    \
  KK__UNUSED static void kk__rinitv_##R(void *kk__p) { kk__rinit_##R((T *)kk__p); } \
  static inline void kk__rinit_##R(T *const V)
#define KK_REDUCER_JOIN(R, T, DST, SRC)                                                               \
  static inline void kk__rjoin_##R(T *const DST, const T *const SRC);                                 \
  KK__UNUSED static void kk__rjoinv_##R(void *kk__d, const void *kk__s) { kk__rjoin_##R((T *)kk__d, (const T *)kk__s); } \
  static inline void kk__rjoin_##R(T *const DST, const T *const SRC)

/* ==== range kernels ============================================================== */

/* KK_FOR(name, args type, index) { body } */
#define KK_FOR(NAME, ARGS_T, I)                                                                          \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,    \
                                     kk__thread_t kk__th KK__UNUSED);                                    \
  KK__UNUSED static void kk__host_##NAME(const void *kk__ap, int64_t kk__b, int64_t kk__e, kk__thread_t kk__thp) { \
    const ARGS_T kk__a = *(const ARGS_T *)kk__ap;                                                         \
    KK__LOCAL_THREAD;                                                                                     \
    KK__BC_ENTER(kk__thp);                                                                                \
    for (int64_t kk__i = kk__b; kk__i < kk__e KK__BC_GO; ++kk__i)                                         \
      kk__body_##NAME(&kk__a, kk__i, kk__th);                                                             \
  }                                                                                                       \
  KK__DESCRIPTOR(NAME, KK_KIND_FOR, ARGS_T, NULL, 0, KK__HOSTFN(kk__host_##NAME), NULL, NULL, NULL, NULL); \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,    \
                                     kk__thread_t kk__th KK__UNUSED)

#define KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC, NPARTS, PARTS)                                          \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,       \
                                     VT *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED);             \
  KK__UNUSED static void kk__host_##NAME(const void *kk__ap, int64_t kk__b, int64_t kk__e, void *kk__vp,    \
                                         kk__thread_t kk__thp) {                                            \
    const ARGS_T kk__a = *(const ARGS_T *)kk__ap;                                                            \
    KK__LOCAL_THREAD;                                                                                        \
    KK__BC_ENTER(kk__thp);                                                                                   \
    VT kk__acc = *(VT *)kk__vp;                                                                              \
    for (int64_t kk__i = kk__b; kk__i < kk__e KK__BC_GO; ++kk__i)                                            \
      kk__body_##NAME(&kk__a, kk__i, &kk__acc, kk__th);                                                      \
    *(VT *)kk__vp = kk__acc;                                                                                 \
  }                                                                                                          \
  KK__RINFO(NAME, VT, NPARTS, PARTS);                                                                        \
  KK__DESCRIPTOR(NAME, KK_KIND_REDUCE, ARGS_T, &kk__rinfo_##NAME, 0, NULL, KK__HOSTFN(kk__host_##NAME), NULL, \
                 NULL, NULL);                                                                                \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,       \
                                     VT *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED)

/* KK_REDUCE(name, args type, scalar type T, reducer R, index, acc) { body }
 * acc points to a value of type T (KK_SUM .. KK_BOR), kk_valloc_T (KK_MINLOC,
 * KK_MAXLOC), kk_minmax_T (KK_MINMAX) or kk_minmaxloc_T (KK_MINMAXLOC). */
#define KK_REDUCE(NAME, ARGS_T, T, R, I, ACC) KK__REDUCE1(NAME, ARGS_T, T, R, KK__VT_##R(T), I, ACC)
#define KK__REDUCE1(NAME, ARGS_T, T, R, VT, I, ACC) \
  KK__VFUNCS(NAME, T, R, VT)                        \
  KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC, 1, KK__PART1(R, T, VT))

/* KK_REDUCE_CUSTOM(name, args type, value type T, custom reducer r, index, acc) { body } */
#define KK_REDUCE_CUSTOM(NAME, ARGS_T, T, R, I, ACC) \
  KK__VFUNCS_CUSTOM(NAME, T, R)                      \
  KK__REDUCE_COMMON(NAME, ARGS_T, T, I, ACC, 1, KK__PART_CUSTOM(T))

/* KK_REDUCE_N(name, args type, value struct VT, index, acc, (R, T, member)...) { body }
 * Several reducers in one launch: each (R, T, member) reduces acc->member of
 * type KK__VT_R(T) with reducer R; (KK_CUSTOM, r, member) uses custom reducer r. */
#define KK_REDUCE_N(NAME, ARGS_T, VT, I, ACC, ...) \
  KK__VFUNCS_N(NAME, VT, __VA_ARGS__)              \
  KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC, KK__NARG(__VA_ARGS__), KK__PARTS_N(VT, __VA_ARGS__))

/* The scan chunk function: one loop per pass so that `final` is a constant. */
#define KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN, PART)                                            \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,   \
                                     T *const UPD KK__UNUSED, const int FIN KK__UNUSED,                 \
                                     kk__thread_t kk__th KK__UNUSED);                                   \
  KK__UNUSED static void kk__host_##NAME(const void *kk__ap, int64_t kk__b, int64_t kk__e, void *kk__vp,   \
                                         int kk__final, kk__thread_t kk__thp) {                            \
    const ARGS_T kk__a = *(const ARGS_T *)kk__ap;                                                        \
    KK__LOCAL_THREAD;                                                                                    \
    KK__BC_ENTER(kk__thp);                                                                               \
    T kk__acc = *(T *)kk__vp;                                                                            \
    if (kk__final)                                                                                       \
      for (int64_t kk__i = kk__b; kk__i < kk__e KK__BC_GO; ++kk__i)                                      \
        kk__body_##NAME(&kk__a, kk__i, &kk__acc, 1, kk__th);                                             \
    else                                                                                                 \
      for (int64_t kk__i = kk__b; kk__i < kk__e KK__BC_GO; ++kk__i)                                      \
        kk__body_##NAME(&kk__a, kk__i, &kk__acc, 0, kk__th);                                             \
    *(T *)kk__vp = kk__acc;                                                                              \
  }                                                                                                      \
  KK__RINFO(NAME, T, 1, PART);                                                                           \
  KK__DESCRIPTOR(NAME, KK_KIND_SCAN, ARGS_T, &kk__rinfo_##NAME, 0, NULL, NULL, KK__HOSTFN(kk__host_##NAME), \
                 NULL, NULL);                                                                            \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,   \
                                     T *const UPD KK__UNUSED, const int FIN KK__UNUSED,                 \
                                     kk__thread_t kk__th KK__UNUSED)

/* KK_SCAN(name, args type, scalar type T, index, partial, final) { body }
 * A prefix sum: `*partial` is the running sum; the body adds element i to it
 * and, when `final` is true, may store it (after the add: inclusive scan;
 * before: exclusive).  The body may first run over a chunk with final 0 (to
 * learn its total) before running over it with final 1. */
#define KK_SCAN(NAME, ARGS_T, T, I, UPD, FIN) \
  KK__VFUNCS(NAME, T, KK_SUM, T)              \
  KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN, KK__PART1(KK_SUM, T, T))

/* KK_SCAN_CUSTOM(name, args type, value type T, custom reducer r, index, partial, final) { body } */
#define KK_SCAN_CUSTOM(NAME, ARGS_T, T, R, I, UPD, FIN) \
  KK__VFUNCS_CUSTOM(NAME, T, R)                         \
  KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN, KK__PART_CUSTOM(T))

/* ==== MDRange kernels ================================================================ */

/* Nested loops over the box [lo, hi): L(i) opens the loop of index i. */
#define KK__L(i, k) for (int64_t i = kk__lo[k]; i < kk__hi[k] KK__BC_GO; ++i)
#define KK__MDLOOPS2(CALL, a, b) \
  if (kk__left) KK__L(b, 1) KK__L(a, 0) CALL; else KK__L(a, 0) KK__L(b, 1) CALL;
#define KK__MDLOOPS3(CALL, a, b, c) \
  if (kk__left) KK__L(c, 2) KK__L(b, 1) KK__L(a, 0) CALL; else KK__L(a, 0) KK__L(b, 1) KK__L(c, 2) CALL;
#define KK__MDLOOPS4(CALL, a, b, c, d)                                       \
  if (kk__left) KK__L(d, 3) KK__L(c, 2) KK__L(b, 1) KK__L(a, 0) CALL;      \
  else KK__L(a, 0) KK__L(b, 1) KK__L(c, 2) KK__L(d, 3) CALL;
#define KK__MDLOOPS5(CALL, a, b, c, d, e)                                                \
  if (kk__left) KK__L(e, 4) KK__L(d, 3) KK__L(c, 2) KK__L(b, 1) KK__L(a, 0) CALL;      \
  else KK__L(a, 0) KK__L(b, 1) KK__L(c, 2) KK__L(d, 3) KK__L(e, 4) CALL;
#define KK__MDLOOPS6(CALL, a, b, c, d, e, f)                                                          \
  if (kk__left) KK__L(f, 5) KK__L(e, 4) KK__L(d, 3) KK__L(c, 2) KK__L(b, 1) KK__L(a, 0) CALL;       \
  else KK__L(a, 0) KK__L(b, 1) KK__L(c, 2) KK__L(d, 3) KK__L(e, 4) KK__L(f, 5) CALL;

/* MDRange for: KK_MD_FOR2(name, args type, i, j) { body } ... KK_MD_FOR6 */
#define KK__MD_FOR(NAME, ARGS_T, RANK, ...)                                                                 \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, KK__MD_PARAMS(__VA_ARGS__)         \
                                         kk__thread_t kk__th KK__UNUSED);                                   \
  KK__UNUSED static void kk__host_##NAME(const void *kk__ap, const int64_t *kk__lo, const int64_t *kk__hi,   \
                                         int kk__left, void *kk__vp, kk__thread_t kk__thp) {                 \
    const ARGS_T kk__a = *(const ARGS_T *)kk__ap;                                                            \
    KK__LOCAL_THREAD;                                                                                        \
    KK__BC_ENTER(kk__thp);                                                                                   \
    (void)kk__vp;                                                                                            \
    KK__CAT(KK__MDLOOPS, RANK)(kk__body_##NAME(&kk__a, __VA_ARGS__, kk__th), __VA_ARGS__)                    \
  }                                                                                                          \
  KK__DESCRIPTOR(NAME, KK_KIND_MD_FOR, ARGS_T, NULL, RANK, NULL, NULL, NULL, KK__HOSTFN(kk__host_##NAME), NULL); \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, KK__MD_PARAMS(__VA_ARGS__)         \
                                         kk__thread_t kk__th KK__UNUSED)

/* MDRange reduce: KK_MD_REDUCE3(name, args type, T, R, i, j, k, acc) { body } */
#define KK__MD_REDUCE(NAME, ARGS_T, T, R, RANK, ACC, ...)                                                    \
  KK__VFUNCS(NAME, T, R, KK__VT_##R(T))                                                                      \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, KK__MD_PARAMS(__VA_ARGS__)         \
                                         KK__VT_##R(T) *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED); \
  KK__UNUSED static void kk__host_##NAME(const void *kk__ap, const int64_t *kk__lo, const int64_t *kk__hi,   \
                                         int kk__left, void *kk__vp, kk__thread_t kk__thp) {                 \
    const ARGS_T kk__a = *(const ARGS_T *)kk__ap;                                                            \
    KK__LOCAL_THREAD;                                                                                        \
    KK__BC_ENTER(kk__thp);                                                                                   \
    KK__VT_##R(T) kk__acc = *(KK__VT_##R(T) *)kk__vp;                                                        \
    KK__CAT(KK__MDLOOPS, RANK)(kk__body_##NAME(&kk__a, __VA_ARGS__, &kk__acc, kk__th), __VA_ARGS__)          \
    *(KK__VT_##R(T) *)kk__vp = kk__acc;                                                                      \
  }                                                                                                          \
  KK__RINFO(NAME, KK__VT_##R(T), 1, KK__PART1(R, T, KK__VT_##R(T)));                                          \
  KK__DESCRIPTOR(NAME, KK_KIND_MD_REDUCE, ARGS_T, &kk__rinfo_##NAME, RANK, NULL, NULL, NULL,                 \
                 KK__HOSTFN(kk__host_##NAME), NULL);                                                         \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, KK__MD_PARAMS(__VA_ARGS__)         \
                                         KK__VT_##R(T) *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED)

/* ==== team kernels =================================================================== */

/* What a team body sees as `team`: its thread, league rank and the scratch
 * handed out so far in this league iteration. */
typedef struct kk_team {
  kk__thread_t th;
  int64_t league_rank;
  uint64_t team_used[2], thread_used[2];
  jmp_buf *abandon;
} kk_team;

#define KK_LEAGUE_RANK(t) ((t)->league_rank)
#define KK_LEAGUE_SIZE(t) ((t)->th->league_size)
#define KK_TEAM_RANK(t) ((int64_t)(t)->th->team_rank)
#define KK_TEAM_SIZE(t) ((int64_t)(t)->th->team_size)
#define KK_VECTOR_LENGTH(t) ((int64_t)(t)->th->vector_length)
#define KK_TEAM_BARRIER(t) ((t)->th->team_size > 1 ? (t)->th->ops->barrier((t)->th) : (void)0)

/* Level-0 scratch on the calling thread's stack: a thread's own scratch
 * always, the team's when the team is this one thread, if the launch's
 * level-0 requests fit in KK_HOST_STACK_SCRATCH bytes together.  Memory only
 * this thread uses then sits in its own stack pages (hot in its cache, on its
 * NUMA node, no page or line shared with another thread); the sizes, and so
 * the overrun checks, stay those of the launch. */
#ifndef KK_HOST_STACK_SCRATCH
#define KK_HOST_STACK_SCRATCH 16384
#endif
static inline kk__thread_t kk__stack_scratch(kk__thread_t th, kk_host_thread_t *own, unsigned char *buf) {
  const uint64_t team = th->team_size == 1 ? (th->team_scratch_size[0] + 63) & ~(uint64_t)63 : 0;
  const uint64_t thr = th->thread_scratch_size[0];
  if (team + thr == 0 || team + thr > KK_HOST_STACK_SCRATCH)
    return th;
  *own = *th;
  if (team)
    own->team_scratch[0] = buf;
  if (thr)
    own->thread_scratch[0] = buf + team;
  return own;
}

/* Runs the league ranks [b, e) of the calling thread's team, abandoning them
 * when a scratch request overruns (kept apart from the loop so that no local
 * of the loop is live across setjmp). */
#define KK__TEAM_HOST(NAME, ARGS_T, CALL_BODY, ACC_DECL, ACC_STORE)                                       \
  static KK__NOINLINE void kk__hloop_##NAME(const void *kk__ap, int64_t kk__b, int64_t kk__e, void *kk__vp, \
                                            kk_team *kk__t) {                                              \
    const ARGS_T kk__a = *(const ARGS_T *)kk__ap;                                                           \
    kk__thread_t kk__th = kk__t->th;                                                                        \
    KK__BC_ENTER(kk__th);                                                                                   \
    ACC_DECL;                                                                                               \
    for (int64_t kk__l = kk__b; kk__l < kk__e; ++kk__l) {                                                   \
      KK__BC_TEAM_STOP(kk__th);                                                                             \
      kk__t->league_rank = kk__l;                                                                           \
      kk__t->team_used[0] = kk__t->team_used[1] = kk__t->thread_used[0] = kk__t->thread_used[1] = 0;        \
      CALL_BODY;                                                                                            \
      if (kk__th->team_size > 1)                                                                            \
        kk__th->ops->barrier(kk__th);                                                                       \
    }                                                                                                       \
    ACC_STORE;                                                                                              \
    (void)kk__vp;                                                                                           \
  }                                                                                                         \
  KK__UNUSED static int kk__host_##NAME(const void *kk__ap, int64_t kk__b, int64_t kk__e, void *kk__vp,     \
                                        kk__thread_t kk__th) {                                              \
    jmp_buf kk__jb;                                                                                         \
    kk_team kk__t;                                                                                          \
    kk_host_thread_t kk__own;                                                                               \
    _Alignas(64) unsigned char kk__l0[KK_HOST_STACK_SCRATCH > 0 ? KK_HOST_STACK_SCRATCH : 1];               \
    memset(&kk__t, 0, sizeof kk__t);                                                                        \
    kk__t.th = kk__stack_scratch(kk__th, &kk__own, kk__l0);                                                 \
    kk__t.abandon = &kk__jb;                                                                                \
    if (setjmp(kk__jb))                                                                                     \
      return 1;                                                                                             \
    kk__hloop_##NAME(kk__ap, kk__b, kk__e, kk__vp, &kk__t);                                                 \
    return 0;                                                                                               \
  }

/* KK_TEAM_FOR(name, args type, team) { body } */
#define KK_TEAM_FOR(NAME, ARGS_T, TEAM)                                                                     \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, kk_team *const TEAM KK__UNUSED,   \
                                     kk__thread_t kk__th KK__UNUSED);                                       \
  KK__TEAM_HOST(NAME, ARGS_T, kk__body_##NAME(&kk__a, kk__t, kk__th), (void)0, (void)0)                     \
  KK__DESCRIPTOR(NAME, KK_KIND_TEAM_FOR, ARGS_T, NULL, 0, NULL, NULL, NULL, NULL, KK__HOSTFN(kk__host_##NAME)); \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, kk_team *const TEAM KK__UNUSED,   \
                                     kk__thread_t kk__th KK__UNUSED)

/* KK_TEAM_FOR_BOUNDS(name, args type, team, max threads) { body }: the
 * bound matters to GPU compilers only */
#define KK_TEAM_FOR_BOUNDS(NAME, ARGS_T, TEAM, MAXT) KK_TEAM_FOR(NAME, ARGS_T, TEAM)

/* KK_TEAM_REDUCE(name, args type, T, R, team, acc) { body }: every thread of
 * every team has its own *acc; all are combined with R. */
#define KK_TEAM_REDUCE(NAME, ARGS_T, T, R, TEAM, ACC)                                                       \
  KK__VFUNCS(NAME, T, R, KK__VT_##R(T))                                                                     \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, kk_team *const TEAM KK__UNUSED,   \
                                     KK__VT_##R(T) *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED);  \
  KK__TEAM_HOST(NAME, ARGS_T, kk__body_##NAME(&kk__a, kk__t, &kk__acc, kk__th),                             \
                KK__VT_##R(T) kk__acc = *(KK__VT_##R(T) *)kk__vp, *(KK__VT_##R(T) *)kk__vp = kk__acc)       \
  KK__RINFO(NAME, KK__VT_##R(T), 1, KK__PART1(R, T, KK__VT_##R(T)));                                         \
  KK__DESCRIPTOR(NAME, KK_KIND_TEAM_REDUCE, ARGS_T, &kk__rinfo_##NAME, 0, NULL, NULL, NULL, NULL,           \
                 KK__HOSTFN(kk__host_##NAME));                                                              \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, kk_team *const TEAM KK__UNUSED,   \
                                     KK__VT_##R(T) *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED)

/* ---- scratch ------------------------------------------------------------------------- */

static inline void *kk__scratch(kk_team *t, int level, int per_thread, uint64_t bytes) {
  const uint64_t need = (bytes + (KK_SCRATCH_ALIGN - 1)) & ~(uint64_t)(KK_SCRATCH_ALIGN - 1);
  uint64_t *used = per_thread ? &t->thread_used[level] : &t->team_used[level];
  const uint64_t have = per_thread ? t->th->thread_scratch_size[level] : t->th->team_scratch_size[level];
  if (*used + need > have) {
    t->th->ops->scratch_overrun(t->th, level, per_thread, *used + need, have);
    longjmp(*t->abandon, 1);
  }
  unsigned char *base = per_thread ? t->th->thread_scratch[level] : t->th->team_scratch[level];
  void *p = base + *used;
  *used += need;
  return p;
}

/* n elements of T from the team's (shared by its threads) or the calling
 * thread's scratch at level 0 or 1.  Every thread of the team must make the
 * same team allocations in the same order.  Asking for more than the launch
 * requested stops the kernel with KK_ERROR_KERNEL_FAILED. */
#define KK_TEAM_SCRATCH(t, level, T, n) ((T *)kk__scratch((t), (level), 0, (uint64_t)(n) * sizeof(T)))
#define KK_THREAD_SCRATCH(t, level, T, n) ((T *)kk__scratch((t), (level), 1, (uint64_t)(n) * sizeof(T)))

/* A default-layout view descriptor over scratch: KK_TEAM_SCRATCH_VIEW(t, level, T, n0[, n1[, n2]]). */
static inline kk_view kk__scratch_view(kk_team *t, int level, int per_thread, uint32_t elem, int rank, int64_t n0,
                                       int64_t n1, int64_t n2) {
  kk_view v;
  memset(&v, 0, sizeof v);
  const int64_t ext[3] = {n0, n1, n2};
  uint64_t count = 1;
  for (int d = 0; d < KK_MAX_RANK; d++)
    v.d.extent[d] = d < rank ? ext[d] : 1;
  for (int d = rank - 1, s = 1; d >= 0; d--) { /* right layout on host targets */
    v.d.stride[d] = s;
    s *= (int)ext[d];
  }
  for (int d = 0; d < rank; d++)
    count *= (uint64_t)ext[d];
  v.d.data = kk__scratch(t, level, per_thread, count * elem);
  v.d.rank = rank;
  v.d.layout = KK_LAYOUT_RIGHT;
  v.d.elem_size = elem;
  return v;
}
#define KK_TEAM_SCRATCH_VIEW(t, level, T, ...) \
  kk__scratch_view((t), (level), 0, (uint32_t)sizeof(T), KK__SV_DIMS(__VA_ARGS__))
#define KK_THREAD_SCRATCH_VIEW(t, level, T, ...) \
  kk__scratch_view((t), (level), 1, (uint32_t)sizeof(T), KK__SV_DIMS(__VA_ARGS__))

/* ---- nested loops ------------------------------------------------------------------------ */

/* The calling thread's contiguous block of [b, e) among the team's threads.
 * A team of one thread (the host backends' usual team) takes the whole range
 * without the two 64-bit divisions, which cost about 3% of a 64 x 64 batched
 * matrix-vector product. */
static inline int64_t kk__tt_lo(const kk_team *t, int64_t b, int64_t e) {
  const int64_t n = e - b, ts = t->th->team_size, r = t->th->team_rank;
  if (n <= 0 || ts == 1)
    return b;
  return b + r * (n / ts) + (r < n % ts ? r : n % ts);
}
static inline int64_t kk__tt_hi(const kk_team *t, int64_t b, int64_t e) {
  const int64_t n = e - b, ts = t->th->team_size, r = t->th->team_rank;
  if (n <= 0)
    return b;
  if (ts == 1)
    return e;
  return kk__tt_lo(t, b, e) + n / ts + (r < n % ts ? 1 : 0);
}

/* for-loops over the team's threads, over one thread's vector lanes, or both */
#define KK_TEAM_THREAD_FOR(t, J, B, E) \
  for (int64_t J = kk__tt_lo((t), (B), (E)), KK__CAT(kk__e_, J) = kk__tt_hi((t), (B), (E)); J < KK__CAT(kk__e_, J); ++J)
#define KK_THREAD_VECTOR_FOR(t, K, B, E) for (int64_t K = (B), KK__CAT(kk__e_, K) = (E); K < KK__CAT(kk__e_, K); ++K)
#define KK_TEAM_VECTOR_FOR(t, J, B, E) KK_TEAM_THREAD_FOR(t, J, B, E)

/* Joins for nested reductions: one per built-in reducer and scalar type. */
#define KK__HJOIN(R, T) kk__hjoin_##R##_##T
#define KK__DEF_HJOIN(R, T)                                                     \
  KK__UNUSED static void kk__hjoin_##R##_##T(void *kk__d, const void *kk__s) {   \
    KK__JOIN_##R(T, (KK__VT_##R(T) *)kk__d, (const KK__VT_##R(T) *)kk__s);       \
  }
KK__BUILTIN_REDUCERS(KK__DEF_HJOIN)

/* sizeof(VAR) for the team collectives, refused at compile time (a negative
 * bit-field width naming the limit) beyond KK_HOST_TEAM_VALUE_MAX */
#define KK__TEAM_VALUE_SIZE(VAR)                                                                         \
  ((uint32_t)sizeof(VAR) +                                                                              \
   0 * sizeof(struct { int kk_nested_team_values_carry_at_most_256_bytes : sizeof(VAR) <= KK_HOST_TEAM_VALUE_MAX ? 1 : -1; }))

static inline void kk__team_allreduce(const kk_team *t, void *v, uint32_t size, void (*join)(void *, const void *)) {
  if (t->th->team_size > 1)
    t->th->ops->allreduce(t->th, v, size, join);
}

/* Nested reductions: VAR (declared by the caller) is set to the identity, the
 * body adds to it, and after the loop every thread of the team holds the
 * reduction over the whole range.
 *   double s;
 *   KK_TEAM_THREAD_REDUCE(team, j, 0, m, double, KK_SUM, s) { s += a[j]; }   */
#define KK_TEAM_THREAD_REDUCE(t, J, B, E, T, R, VAR)                                                   \
  for (int KK__CAT(kk__once_, J) = (KK__INIT_##R(T, &(VAR)), 1); KK__CAT(kk__once_, J);                 \
       KK__CAT(kk__once_, J) = 0, kk__team_allreduce((t), &(VAR), KK__TEAM_VALUE_SIZE(VAR), KK__HJOIN(R, T))) \
  KK_TEAM_THREAD_FOR(t, J, B, E)
#define KK_TEAM_THREAD_REDUCE_CUSTOM(t, J, B, E, RNAME, VAR)                                          \
  for (int KK__CAT(kk__once_, J) = (kk__rinit_##RNAME(&(VAR)), 1); KK__CAT(kk__once_, J);               \
       KK__CAT(kk__once_, J) = 0, kk__team_allreduce((t), &(VAR), KK__TEAM_VALUE_SIZE(VAR), kk__rjoinv_##RNAME)) \
  KK_TEAM_THREAD_FOR(t, J, B, E)
#define KK_THREAD_VECTOR_REDUCE(t, K, B, E, T, R, VAR)                                               \
  for (int KK__CAT(kk__once_, K) = (KK__INIT_##R(T, &(VAR)), 1); KK__CAT(kk__once_, K);               \
       KK__CAT(kk__once_, K) = 0)                                                                   \
  KK_THREAD_VECTOR_FOR(t, K, B, E)
#define KK_THREAD_VECTOR_REDUCE_CUSTOM(t, K, B, E, RNAME, VAR)                                      \
  for (int KK__CAT(kk__once_, K) = (kk__rinit_##RNAME(&(VAR)), 1); KK__CAT(kk__once_, K);             \
       KK__CAT(kk__once_, K) = 0)                                                                   \
  KK_THREAD_VECTOR_FOR(t, K, B, E)
#define KK_TEAM_VECTOR_REDUCE(t, J, B, E, T, R, VAR) KK_TEAM_THREAD_REDUCE(t, J, B, E, T, R, VAR)

/* Nested scans (sums): VAR (declared by the caller, arithmetic type T) is the
 * running value; the body adds element j and, when FIN is true, may store it;
 * afterwards every thread holds the total.
 *   int64_t part;
 *   KK_TEAM_THREAD_SCAN(team, j, 0, n, int64_t, part, final) { if (final) out[j] = part; part += in[j]; } */
static inline int kk__team_scan_step(const kk_team *t, int pass, void *v, uint32_t size,
                                     void (*join)(void *, const void *), void (*init)(void *)) {
  if (t->th->team_size == 1)
    return 2; /* one thread ran the final pass alone; v holds the total */
  if (pass == 0) {
    t->th->ops->exclusive_scan(t->th, v, NULL, size, join, init);
    return 1;
  }
  t->th->ops->broadcast(t->th, v, size, t->th->team_size - 1); /* the last thread's value is the total */
  return 2;
}
#define KK__SCAN_INIT(T) kk__sinit_##T
#define KK__DEF_SINIT(T) KK__UNUSED static void kk__sinit_##T(void *kk__p) { *(T *)kk__p = (T)0; }
KK__DEF_SINIT(int8_t)
KK__DEF_SINIT(uint8_t)
KK__DEF_SINIT(int16_t)
KK__DEF_SINIT(uint16_t)
KK__DEF_SINIT(int32_t)
KK__DEF_SINIT(uint32_t)
KK__DEF_SINIT(int64_t)
KK__DEF_SINIT(uint64_t)
KK__DEF_SINIT(float)
KK__DEF_SINIT(double)
#define KK_TEAM_THREAD_SCAN(t, J, B, E, T, VAR, FIN)                                                    \
  for (int FIN = ((VAR) = (T)0, (t)->th->team_size == 1 ? 1 : 0); FIN < 2;                            \
       FIN = kk__team_scan_step((t), FIN, &(VAR), KK__TEAM_VALUE_SIZE(T), KK__HJOIN(KK_SUM, T), KK__SCAN_INIT(T))) \
  KK_TEAM_THREAD_FOR(t, J, B, E)
#define KK_THREAD_VECTOR_SCAN(t, K, B, E, T, VAR, FIN) \
  for (int FIN = ((VAR) = (T)0, 1); FIN < 2; FIN = 2) KK_THREAD_VECTOR_FOR(t, K, B, E)
#define KK_TEAM_VECTOR_SCAN(t, J, B, E, T, VAR, FIN) KK_TEAM_THREAD_SCAN(t, J, B, E, T, VAR, FIN)

/* single: once per team (team rank 0) or once per thread (vector lane 0);
 * the _BROADCAST form then gives VAR's value to every thread of the team. */
#define KK_SINGLE_TEAM(t) if (KK_TEAM_RANK(t) == 0)
#define KK_SINGLE_THREAD(t) if (1)
#define KK_SINGLE_TEAM_BROADCAST(t, VAR)                                                                 \
  for (int kk__once_b = 1; kk__once_b;                                                                   \
       kk__once_b = 0, ((t)->th->team_size > 1 ? (t)->th->ops->broadcast((t)->th, &(VAR), KK__TEAM_VALUE_SIZE(VAR), 0) \
                                               : (void)0))                                              \
    if (KK_TEAM_RANK(t) == 0)

/* ==== atomics ============================================================================= */

/*
 * kk_atomic_<op>(p, v) (no result) and kk_atomic_fetch_<op>(p, v) (the old
 * value) for op in add, sub, min, max, and, or, xor (integers only), plus
 * kk_atomic_[fetch_]inc/dec(p), kk_atomic_exchange(p, v) and
 * kk_atomic_compare_exchange(p, expected, desired) (the old value).  Types:
 * int32_t, uint32_t, int64_t, uint64_t, float, double (native instructions or
 * compare-and-swap loops) and kk_complex_float (a 64-bit CAS loop),
 * kk_complex_double (a 128-bit CAS where the CPU has one, else the lock
 * table) for add, sub, exchange and compare_exchange.  Read-modify-write operations are relaxed;
 * kk_atomic_load is acquire, kk_atomic_store release.  Any other update, on
 * any type, runs under the lock table: KK_ATOMIC_LOCK(p) { ... }.
 */
#define KK__AT_INT(N, T)                                                                                          \
  static inline T kk__afetch_add_##N(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }            \
  static inline T kk__afetch_sub_##N(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }            \
  static inline T kk__afetch_and_##N(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }            \
  static inline T kk__afetch_or_##N(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }              \
  static inline T kk__afetch_xor_##N(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }            \
  static inline T kk__afetch_min_##N(T *p, T v) {                                                                 \
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                                                 \
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))             \
      ;                                                                                                           \
    return old;                                                                                                   \
  }                                                                                                               \
  static inline T kk__afetch_max_##N(T *p, T v) {                                                                 \
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                                                 \
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))             \
      ;                                                                                                           \
    return old;                                                                                                   \
  }                                                                                                               \
  static inline T kk__aexchange_##N(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }            \
  static inline T kk__acas_##N(T *p, T expected, T desired) {                                                     \
    __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);                    \
    return expected;                                                                                              \
  }                                                                                                               \
  static inline T kk__aload_##N(T *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }                            \
  static inline void kk__astore_##N(T *p, T v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
KK__AT_INT(i32, int)
KK__AT_INT(u32, unsigned int)
KK__AT_INT(l, long)
KK__AT_INT(ul, unsigned long)
KK__AT_INT(ll, long long)
KK__AT_INT(ull, unsigned long long)

/* float and double: compare-and-swap on the bit pattern */
#define KK__AT_FP(N, T, U)                                                                                      \
  static inline T kk__afp_##N(T *p, T v, int op) { /* op 0 add, 1 sub, 2 min, 3 max */                          \
    /* the expected bits in a scalar, not a union, so that they stay in a                                       \
     * register between the load and the CAS (a union went through the stack) */                               \
    U ou = __atomic_load_n((U *)p, __ATOMIC_RELAXED), nu;                                                       \
    for (;;) {                                                                                                  \
      T of, nf;                                                                                                 \
      __builtin_memcpy(&of, &ou, sizeof of);                                                                    \
      nf = op == 0 ? of + v : op == 1 ? of - v : op == 2 ? (v < of ? v : of) : (v > of ? v : of);               \
      __builtin_memcpy(&nu, &nf, sizeof nu);                                                                    \
      if ((op >= 2 && nu == ou) || __atomic_compare_exchange_n((U *)p, &ou, nu, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) \
        return of;                                                                                              \
    }                                                                                                           \
  }                                                                                                             \
  static inline T kk__afetch_add_##N(T *p, T v) { return kk__afp_##N(p, v, 0); }                                \
  static inline T kk__afetch_sub_##N(T *p, T v) { return kk__afp_##N(p, v, 1); }                                \
  static inline T kk__afetch_min_##N(T *p, T v) { return kk__afp_##N(p, v, 2); }                                \
  static inline T kk__afetch_max_##N(T *p, T v) { return kk__afp_##N(p, v, 3); }                                \
  static inline T kk__aexchange_##N(T *p, T v) {                                                                \
    union { T f; U u; } o, n;                                                                                   \
    n.f = v;                                                                                                    \
    o.u = __atomic_exchange_n((U *)p, n.u, __ATOMIC_RELAXED);                                                   \
    return o.f;                                                                                                 \
  }                                                                                                             \
  static inline T kk__acas_##N(T *p, T expected, T desired) {                                                   \
    union { T f; U u; } e, d;                                                                                   \
    e.f = expected;                                                                                             \
    d.f = desired;                                                                                              \
    __atomic_compare_exchange_n((U *)p, &e.u, d.u, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);                       \
    return e.f;                                                                                                 \
  }                                                                                                             \
  static inline T kk__aload_##N(T *p) {                                                                         \
    union { T f; U u; } o;                                                                                      \
    o.u = __atomic_load_n((U *)p, __ATOMIC_ACQUIRE);                                                            \
    return o.f;                                                                                                 \
  }                                                                                                             \
  static inline void kk__astore_##N(T *p, T v) {                                                                \
    union { T f; U u; } n;                                                                                      \
    n.f = v;                                                                                                    \
    __atomic_store_n((U *)p, n.u, __ATOMIC_RELEASE);                                                            \
  }
KK__AT_FP(f32, float, uint32_t)
KK__AT_FP(f64, double, uint64_t)

/* the lock table: one lock per hashed address, no nesting */
static inline uint32_t *kk__lock_acquire(const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p >> 3;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  uint32_t *lock = &kk_host_locks[(h >> 40) & (KK_HOST_LOCK_COUNT - 1)];
  while (__atomic_exchange_n(lock, 1u, __ATOMIC_ACQUIRE))
    while (__atomic_load_n(lock, __ATOMIC_RELAXED))
      KK__PAUSE();
  return lock;
}
static inline void kk__lock_release(uint32_t *lock) { __atomic_store_n(lock, 0u, __ATOMIC_RELEASE); }
/* KK_ATOMIC_LOCK(p) { update *p }: the block runs with p's lock held. */
#define KK_ATOMIC_LOCK(p) \
  for (uint32_t *kk__lk = kk__lock_acquire((const void *)(p)); kk__lk; kk__lock_release(kk__lk), kk__lk = NULL)

/* complex float: one 64-bit CAS loop */
static inline kk_complex_float kk__acf(kk_complex_float *p, kk_complex_float v, int op) {
  uint64_t ou = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED), nu; /* a scalar: stays in a register (see KK__AT_FP) */
  for (;;) {
    kk_complex_float o, n;
    __builtin_memcpy(&o, &ou, sizeof o);
    n.re = op == 0 ? o.re + v.re : op == 1 ? o.re - v.re : v.re;
    n.im = op == 0 ? o.im + v.im : op == 1 ? o.im - v.im : v.im;
    __builtin_memcpy(&nu, &n, sizeof nu);
    if (__atomic_compare_exchange_n((uint64_t *)p, &ou, nu, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return o;
  }
}
static inline kk_complex_float kk__afetch_add_cf(kk_complex_float *p, kk_complex_float v) { return kk__acf(p, v, 0); }
static inline kk_complex_float kk__afetch_sub_cf(kk_complex_float *p, kk_complex_float v) { return kk__acf(p, v, 1); }
static inline kk_complex_float kk__aexchange_cf(kk_complex_float *p, kk_complex_float v) { return kk__acf(p, v, 2); }
static inline kk_complex_float kk__acas_cf(kk_complex_float *p, kk_complex_float e, kk_complex_float d) {
  union { kk_complex_float c; uint64_t u; } ue, ud;
  ue.c = e;
  ud.c = d;
  __atomic_compare_exchange_n((uint64_t *)p, &ue.u, ud.u, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return ue.c;
}
/* complex double: 16 bytes -- one 128-bit compare-and-swap where the CPU has
 * it (x86-64 with -mcx16, which kkcc's host recipe passes), else the lock
 * table */
#if defined(__GCC_HAVE_SYNC_COMPARE_AND_SWAP_16) && defined(__SIZEOF_INT128__)
#define KK__CD_CAS 1
static inline kk_complex_double kk__acd(kk_complex_double *p, kk_complex_double v, int op) {
  union { kk_complex_double c; unsigned __int128 u; } o, n;
  o.c = *(volatile kk_complex_double *)p; /* a guess; the CAS validates it */
  for (;;) {
    n.c.re = op == 0 ? o.c.re + v.re : op == 1 ? o.c.re - v.re : v.re;
    n.c.im = op == 0 ? o.c.im + v.im : op == 1 ? o.c.im - v.im : v.im;
    unsigned __int128 seen = __sync_val_compare_and_swap((unsigned __int128 *)p, o.u, n.u);
    if (seen == o.u)
      return o.c;
    o.u = seen;
  }
}
static inline kk_complex_double kk__acas_cd(kk_complex_double *p, kk_complex_double e, kk_complex_double d) {
  union { kk_complex_double c; unsigned __int128 u; } ue, ud, seen;
  ue.c = e;
  ud.c = d;
  seen.u = __sync_val_compare_and_swap((unsigned __int128 *)p, ue.u, ud.u);
  return seen.c;
}
#else
#define KK__CD_CAS 0
static inline kk_complex_double kk__acd(kk_complex_double *p, kk_complex_double v, int op) {
  kk_complex_double old;
  KK_ATOMIC_LOCK(p) {
    old = *(volatile kk_complex_double *)p;
    kk_complex_double n = op == 0 ? (kk_complex_double){old.re + v.re, old.im + v.im}
                          : op == 1 ? (kk_complex_double){old.re - v.re, old.im - v.im}
                                    : v;
    *(volatile kk_complex_double *)p = n;
  }
  return old;
}
static inline kk_complex_double kk__acas_cd(kk_complex_double *p, kk_complex_double e, kk_complex_double d) {
  kk_complex_double old;
  KK_ATOMIC_LOCK(p) {
    old = *(volatile kk_complex_double *)p;
    if (old.re == e.re && old.im == e.im)
      *(volatile kk_complex_double *)p = d;
  }
  return old;
}
#endif
static inline kk_complex_double kk__afetch_add_cd(kk_complex_double *p, kk_complex_double v) { return kk__acd(p, v, 0); }
static inline kk_complex_double kk__afetch_sub_cd(kk_complex_double *p, kk_complex_double v) { return kk__acd(p, v, 1); }
static inline kk_complex_double kk__aexchange_cd(kk_complex_double *p, kk_complex_double v) { return kk__acd(p, v, 2); }

#define KK__ATOMIC_ARITH(op, p)                                                                           \
  _Generic(*(p), int: kk__a##op##_i32, unsigned int: kk__a##op##_u32, long: kk__a##op##_l,                  \
           unsigned long: kk__a##op##_ul, long long: kk__a##op##_ll, unsigned long long: kk__a##op##_ull,  \
           float: kk__a##op##_f32, double: kk__a##op##_f64)
#define KK__ATOMIC_BITS(op, p)                                                                            \
  _Generic(*(p), int: kk__a##op##_i32, unsigned int: kk__a##op##_u32, long: kk__a##op##_l,                  \
           unsigned long: kk__a##op##_ul, long long: kk__a##op##_ll, unsigned long long: kk__a##op##_ull)
#define KK__ATOMIC_ANY(op, p)                                                                             \
  _Generic(*(p), int: kk__a##op##_i32, unsigned int: kk__a##op##_u32, long: kk__a##op##_l,                  \
           unsigned long: kk__a##op##_ul, long long: kk__a##op##_ll, unsigned long long: kk__a##op##_ull,  \
           float: kk__a##op##_f32, double: kk__a##op##_f64, kk_complex_float: kk__a##op##_cf,               \
           kk_complex_double: kk__a##op##_cd)

#define kk_atomic_fetch_add(p, v) KK__ATOMIC_ANY(fetch_add, p)((p), (v))
#define kk_atomic_fetch_sub(p, v) KK__ATOMIC_ANY(fetch_sub, p)((p), (v))
#define kk_atomic_fetch_min(p, v) KK__ATOMIC_ARITH(fetch_min, p)((p), (v))
#define kk_atomic_fetch_max(p, v) KK__ATOMIC_ARITH(fetch_max, p)((p), (v))
#define kk_atomic_fetch_and(p, v) KK__ATOMIC_BITS(fetch_and, p)((p), (v))
#define kk_atomic_fetch_or(p, v) KK__ATOMIC_BITS(fetch_or, p)((p), (v))
#define kk_atomic_fetch_xor(p, v) KK__ATOMIC_BITS(fetch_xor, p)((p), (v))
#define kk_atomic_fetch_inc(p) KK__ATOMIC_ARITH(fetch_add, p)((p), 1)
#define kk_atomic_fetch_dec(p) KK__ATOMIC_ARITH(fetch_sub, p)((p), 1)
#define kk_atomic_exchange(p, v) KK__ATOMIC_ANY(exchange, p)((p), (v))
#define kk_atomic_compare_exchange(p, e, d) KK__ATOMIC_ANY(cas, p)((p), (e), (d))
#define kk_atomic_load(p) KK__ATOMIC_ARITH(load, p)(p)
#define kk_atomic_store(p, v) KK__ATOMIC_ARITH(store, p)((p), (v))
#define kk_atomic_add(p, v) ((void)kk_atomic_fetch_add(p, v))
#define kk_atomic_sub(p, v) ((void)kk_atomic_fetch_sub(p, v))

/* ==== ScatterView access ================================================================== */

static inline void kk__apadd_i32(int *p, int v) { *p += v; }
static inline void kk__apadd_u32(unsigned int *p, unsigned int v) { *p += v; }
static inline void kk__apadd_l(long *p, long v) { *p += v; }
static inline void kk__apadd_ul(unsigned long *p, unsigned long v) { *p += v; }
static inline void kk__apadd_ll(long long *p, long long v) { *p += v; }
static inline void kk__apadd_ull(unsigned long long *p, unsigned long long v) { *p += v; }
static inline void kk__apadd_f32(float *p, float v) { *p += v; }
static inline void kk__apadd_f64(double *p, double v) { *p += v; }
static inline void kk__apadd_cf(kk_complex_float *p, kk_complex_float v) { p->re += v.re, p->im += v.im; }
static inline void kk__apadd_cd(kk_complex_double *p, kk_complex_double v) { p->re += v.re, p->im += v.im; }
#define kk__plain_add(p, v) KK__ATOMIC_ANY(padd, p)((p), (v))

/* Whether the calling thread contributes to its duplicate (ndup is 0 in
 * atomic mode, so this is one loop-invariant comparison, which branch
 * prediction makes nearly free; at -O3 GCC also splits the loop into a
 * duplicate and an atomic version when the atomic is one instruction), and
 * the element of that duplicate. A duplicate is a dense right-layout copy of
 * the target's extents, so a rank-1 contribution needs no stride
 * multiplication. */
#define KK__SUSE_DUP(sv) (kk__th->thread_id < (sv).ndup)
#define KK__SDOFF(sv, ...) KK__CAT(KK__SDOFF, KK__NARG(__VA_ARGS__))((sv).d.extent, __VA_ARGS__)
#define KK__SDOFF1(e, a) ((int64_t)(a))
#define KK__SDOFF2(e, a, b) ((int64_t)(a) * (e)[1] + (int64_t)(b))
#define KK__SDOFF3(e, a, b, c) (((int64_t)(a) * (e)[1] + (int64_t)(b)) * (e)[2] + (int64_t)(c))
#define KK__SDOFF4(e, a, b, c, f) ((((int64_t)(a) * (e)[1] + (int64_t)(b)) * (e)[2] + (int64_t)(c)) * (e)[3] + (int64_t)(f))
/* The start of the calling thread's duplicate, passed through an empty asm
 * so that the compiler keeps it as one loop-invariant pointer: otherwise GCC
 * folds the thread's offset into every contribution's address (one add per
 * update more than a hand-written per-thread copy loop). */
static inline void *kk__sdbase(void *p) {
  __asm__("" : "+r"(p));
  return p;
}
#define KK__SDUP(sv, T, ...)                                                                            \
  ((T *)kk__sdbase((T *)(sv).dups + (int64_t)kk__th->thread_id * (sv).dup_stride) + KK__SDOFF(sv, __VA_ARGS__))

/* Contributions to element (i, ...) of the scatter view argument sv. */
#define KK_SCATTER_ADD(sv, T, v, ...)                                                                   \
  do {                                                                                                  \
    KK__BOUNDS_SCATTER(sv, T, __VA_ARGS__);                                                             \
    if (KK__SUSE_DUP(sv))                                                                               \
      kk__plain_add(KK__SDUP(sv, T, __VA_ARGS__), (v));                                                 \
    else                                                                                                \
      kk_atomic_add((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (v));                                 \
  } while (0)
#define KK__SCATTER_BOUND(sv, T, v, BEATS, ATOMIC, ...)                                                 \
  do {                                                                                                  \
    KK__BOUNDS_SCATTER(sv, T, __VA_ARGS__);                                                             \
    const T kk__sv = (v);                                                                               \
    if (KK__SUSE_DUP(sv)) {                                                                             \
      T *kk__sd = KK__SDUP(sv, T, __VA_ARGS__);                                                         \
      if (kk__sv BEATS *kk__sd)                                                                         \
        *kk__sd = kk__sv;                                                                               \
    } else                                                                                              \
      ATOMIC((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), kk__sv);                                     \
  } while (0)
#define KK_SCATTER_MIN(sv, T, v, ...) KK__SCATTER_BOUND(sv, T, v, <, kk_atomic_min, __VA_ARGS__)
#define KK_SCATTER_MAX(sv, T, v, ...) KK__SCATTER_BOUND(sv, T, v, >, kk_atomic_max, __VA_ARGS__)

#endif /* KK_TARGET_HOST_H */
