/* kk/target/host.h -- how the host target spells the kernel language: a native chunk function per kernel, the body inlined. */
#ifndef KK_TARGET_HOST_H
#define KK_TARGET_HOST_H

/*
 * Each kernel becomes
 *   - an inline body function kk__body_<name>(args, i, ...),
 *   - a chunk function that copies the argument struct into a local (so the
 *     compiler keeps its fields in registers and can vectorize) and runs the
 *     body over [begin, end) — the function pointer a host backend calls once
 *     per chunk,
 *   - the descriptor kk_kernel__<name> (kk_kernel_t) that kkcc registers.
 * With KK_TARGET_NONE (kkcc --targets without host) the descriptor carries no
 * host entry points, so host backends refuse the kernel with a clear error.
 */

#include <stddef.h>
#include <stdint.h>

#define KK__DEFAULT_LAYOUT KK_LAYOUT_RIGHT
#define KK__FN static inline

#if defined(__GNUC__)
#define KK__UNUSED __attribute__((unused))
#else
#define KK__UNUSED
#endif

#ifdef KK_TARGET_NONE
#define KK__HOSTFN(f) NULL
#else
#define KK__HOSTFN(f) f
#endif

/* The descriptor every kernel macro emits. */
#define KK__DESCRIPTOR(NAME, KIND, ARGS_T, RINFO, FOR, RED, SCAN)                        \
  kk_kernel_t kk_kernel__##NAME = {                                                       \
      .struct_size = sizeof(kk_kernel_t),                                                  \
      .abi_version = KK_KERNEL_ABI_VERSION,                                                \
      .name = #NAME,                                                                       \
      .kind = KIND,                                                                        \
      .args_size = (uint32_t)sizeof(ARGS_T),                                               \
      .args_align = (uint32_t)_Alignof(ARGS_T),                                            \
      .flags = 0,                                                                          \
      .reducer = RINFO,                                                                    \
      .host_for = FOR,                                                                     \
      .host_reduce = RED,                                                                  \
      .host_scan = SCAN,                                                                   \
      .module = NULL,                                                                      \
      .runtime = {NULL, NULL, NULL, NULL},                                                 \
  }

/* KK_FOR(name, args type, index) { body } */
#define KK_FOR(NAME, ARGS_T, I)                                                                       \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED); \
  KK__UNUSED static void kk__host_##NAME(const void *kk__ap, int64_t kk__b, int64_t kk__e) {          \
    const ARGS_T kk__a = *(const ARGS_T *)kk__ap;                                                      \
    for (int64_t kk__i = kk__b; kk__i < kk__e; ++kk__i)                                                \
      kk__body_##NAME(&kk__a, kk__i);                                                                  \
  }                                                                                                    \
  KK__DESCRIPTOR(NAME, KK_KIND_FOR, ARGS_T, NULL, KK__HOSTFN(kk__host_##NAME), NULL, NULL);           \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED)

/* The reduce chunk function and descriptor, given init/join of value type VT. */
#define KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC, NPARTS, PARTS)                                      \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,   \
                                     VT *const ACC KK__UNUSED);                                          \
  KK__UNUSED static void kk__host_##NAME(const void *kk__ap, int64_t kk__b, int64_t kk__e, void *kk__vp) { \
    const ARGS_T kk__a = *(const ARGS_T *)kk__ap;                                                        \
    VT kk__acc = *(VT *)kk__vp;                                                                          \
    for (int64_t kk__i = kk__b; kk__i < kk__e; ++kk__i)                                                  \
      kk__body_##NAME(&kk__a, kk__i, &kk__acc);                                                          \
    *(VT *)kk__vp = kk__acc;                                                                             \
  }                                                                                                      \
  static const kk_reducer_info_t kk__rinfo_##NAME = {                                                    \
      .count = NPARTS,                                                                                   \
      .value_size = (uint32_t)sizeof(VT),                                                                \
      .value_align = (uint32_t)_Alignof(VT),                                                             \
      .reserved = 0,                                                                                     \
      .part = {KK__UNPACK PARTS},                                                                                   \
      .init = kk__vinit_##NAME,                                                                          \
      .join = kk__vjoin_##NAME,                                                                          \
  };                                                                                                     \
  KK__DESCRIPTOR(NAME, KK_KIND_REDUCE, ARGS_T, &kk__rinfo_##NAME, NULL, KK__HOSTFN(kk__host_##NAME), NULL); \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,   \
                                     VT *const ACC KK__UNUSED)

/* KK_REDUCE(name, args type, scalar type T, reducer R, index, acc) { body }
 * acc points to a value of type T (KK_SUM .. KK_BOR), kk_valloc_T (KK_MINLOC,
 * KK_MAXLOC), kk_minmax_T (KK_MINMAX) or kk_minmaxloc_T (KK_MINMAXLOC). */
#define KK_REDUCE(NAME, ARGS_T, T, R, I, ACC) KK__REDUCE1(NAME, ARGS_T, T, R, KK__VT_##R(T), I, ACC)
#define KK__REDUCE1(NAME, ARGS_T, T, R, VT, I, ACC)                                   \
  static void kk__vinit_##NAME(void *kk__p) { KK__INIT_##R(T, (VT *)kk__p); }           \
  static void kk__vjoin_##NAME(void *kk__d, const void *kk__s) {                       \
    KK__JOIN_##R(T, (VT *)kk__d, (const VT *)kk__s);                                   \
  }                                                                                    \
  KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC, 1, ({R, KK__TYPE_##T, 0, (uint32_t)sizeof(VT)}))

/* Custom reducers: KK_REDUCER_INIT(r, T, v) { ... *v = identity ... }
 *                  KK_REDUCER_JOIN(r, T, dst, src) { ... *dst = *dst (+) *src ... } */
#define KK_REDUCER_INIT(R, T, V) static inline void kk__rinit_##R(T *const V)
#define KK_REDUCER_JOIN(R, T, DST, SRC) static inline void kk__rjoin_##R(T *const DST, const T *const SRC)

/* KK_REDUCE_CUSTOM(name, args type, value type T, custom reducer r, index, acc) { body } */
#define KK_REDUCE_CUSTOM(NAME, ARGS_T, T, R, I, ACC)                                   \
  static void kk__vinit_##NAME(void *kk__p) { kk__rinit_##R((T *)kk__p); }              \
  static void kk__vjoin_##NAME(void *kk__d, const void *kk__s) { kk__rjoin_##R((T *)kk__d, (const T *)kk__s); } \
  KK__REDUCE_COMMON(NAME, ARGS_T, T, I, ACC, 1, ({KK_CUSTOM, KK_TYPE_CUSTOM, 0, (uint32_t)sizeof(T)}))

/* KK_REDUCE_N(name, args type, value struct VT, index, acc, (R, T, member)...) { body }
 * Several reducers in one launch: each (R, T, member) reduces acc->member of
 * type KK__VT_R(T) with reducer R; (KK_CUSTOM, r, member) uses custom reducer r. */
#define KK_REDUCE_N(NAME, ARGS_T, VT, I, ACC, ...)                                            \
  static void kk__vinit_##NAME(void *kk__p) {                                                 \
    VT *kk__v = (VT *)kk__p;                                                                  \
    KK__FOREACH(KK__RN_INIT, kk__v, __VA_ARGS__)                                              \
  }                                                                                           \
  static void kk__vjoin_##NAME(void *kk__dp, const void *kk__sp) {                           \
    VT *kk__d = (VT *)kk__dp;                                                                 \
    const VT *kk__s = (const VT *)kk__sp;                                                     \
    KK__FOREACH(KK__RN_JOIN, (kk__d, kk__s), __VA_ARGS__)                                     \
  }                                                                                           \
  KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC, KK__NARG(__VA_ARGS__), (KK__FOREACH(KK__RN_PART, VT, __VA_ARGS__)))

/* The scan chunk function: one loop per pass so that `final` is a constant. */
#define KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN, PART)                                          \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED, \
                                     T *const UPD KK__UNUSED, const int FIN KK__UNUSED);              \
  KK__UNUSED static void kk__host_##NAME(const void *kk__ap, int64_t kk__b, int64_t kk__e, void *kk__vp, \
                                          int kk__final) {                                             \
    const ARGS_T kk__a = *(const ARGS_T *)kk__ap;                                                      \
    T kk__acc = *(T *)kk__vp;                                                                          \
    if (kk__final)                                                                                     \
      for (int64_t kk__i = kk__b; kk__i < kk__e; ++kk__i)                                              \
        kk__body_##NAME(&kk__a, kk__i, &kk__acc, 1);                                                   \
    else                                                                                               \
      for (int64_t kk__i = kk__b; kk__i < kk__e; ++kk__i)                                              \
        kk__body_##NAME(&kk__a, kk__i, &kk__acc, 0);                                                   \
    *(T *)kk__vp = kk__acc;                                                                            \
  }                                                                                                    \
  static const kk_reducer_info_t kk__rinfo_##NAME = {                                                  \
      .count = 1,                                                                                      \
      .value_size = (uint32_t)sizeof(T),                                                               \
      .value_align = (uint32_t)_Alignof(T),                                                            \
      .reserved = 0,                                                                                   \
      .part = {KK__UNPACK PART},                                                                                  \
      .init = kk__vinit_##NAME,                                                                        \
      .join = kk__vjoin_##NAME,                                                                        \
  };                                                                                                   \
  KK__DESCRIPTOR(NAME, KK_KIND_SCAN, ARGS_T, &kk__rinfo_##NAME, NULL, NULL, KK__HOSTFN(kk__host_##NAME)); \
  static inline void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED, \
                                     T *const UPD KK__UNUSED, const int FIN KK__UNUSED)

/* KK_SCAN(name, args type, scalar type T, index, partial, final) { body }
 * A prefix sum: `*partial` is the running sum; the body adds element i to it
 * and, when `final` is true, may store it (after the add: inclusive scan;
 * before: exclusive).  The body may first run over a chunk with final 0 (to
 * learn its total) before running over it with final 1. */
#define KK_SCAN(NAME, ARGS_T, T, I, UPD, FIN)                                              \
  static void kk__vinit_##NAME(void *kk__p) { *(T *)kk__p = (T)0; }                          \
  static void kk__vjoin_##NAME(void *kk__d, const void *kk__s) { *(T *)kk__d += *(const T *)kk__s; } \
  KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN, ({KK_SUM, KK__TYPE_##T, 0, (uint32_t)sizeof(T)}))

/* KK_SCAN_CUSTOM(name, args type, value type T, custom reducer r, index, partial, final) { body } */
#define KK_SCAN_CUSTOM(NAME, ARGS_T, T, R, I, UPD, FIN)                                    \
  static void kk__vinit_##NAME(void *kk__p) { kk__rinit_##R((T *)kk__p); }                   \
  static void kk__vjoin_##NAME(void *kk__d, const void *kk__s) { kk__rjoin_##R((T *)kk__d, (const T *)kk__s); } \
  KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN, ({KK_CUSTOM, KK_TYPE_CUSTOM, 0, (uint32_t)sizeof(T)}))

#endif /* KK_TARGET_HOST_H */
