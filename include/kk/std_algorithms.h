/* kk/std_algorithms.h -- predicates and transforms written in kernel files for kk-algorithms' standard algorithms (count_if, copy_if, transform_reduce, ...). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_STD_ALGORITHMS_H
#define KK_STD_ALGORITHMS_H

/*
 * A predicate or a transform is a small function in a kernel file; the macro
 * around it also instantiates the kernels that kk-algorithms runs with it
 * and a descriptor that host code passes to the algorithm:
 *
 *   struct band { double lo, hi; };                                // shared header
 *   KK_DECLARE_PREDICATE(in_band);
 *   KK_DECLARE_TRANSFORM(square);
 *
 *   #include <kk/kernel.h>                                         // kernel file
 *   #include <kk/std_algorithms.h>
 *   KK_PREDICATE(in_band, double, struct band, x, p) { return x >= p->lo && x < p->hi; }
 *   KK_TRANSFORM(square, double, double, kk_no_params, x, p) { return x * x; }
 *
 *   struct band b = {0.25, 0.75};                                  // host code
 *   kk_count_if(NULL, v, kk_pred_custom(KK_PREDICATE_REF(in_band), &b, sizeof b), &count);
 *   kk_transform_reduce(NULL, v, NULL, KK_TRANSFORM_REF(square), NULL, 0, KK_SUM, &sum_of_squares);
 *
 * KK_PREDICATE(name, T, P, x, p) { ... }  a predicate on elements x of type T (any type: the view's
 *                                         element type) with parameters *p of type P (kk_no_params for
 *                                         none); returns nonzero for "yes"
 * KK_TRANSFORM(name, T, R, P, x, p) { ... }          f(x) of type R
 * KK_TRANSFORM2(name, T, U, R, P, x, y, p) { ... }   f(x, y) of type R
 * R is spelled as one of int8_t uint8_t int16_t uint16_t int32_t uint32_t
 * int64_t uint64_t float double (it is reduced with the built-in reducers).
 * The function may call KK__FN helpers; it runs on every target, so it must
 * use only what kernel code may (docs/kernel-language.md).
 */

#include <kk/kernel_abi.h>

/* What every predicate and transform kernel receives before the user's
 * parameters: the views (rank-1 strided descriptors), the length, the
 * output's capacity and flags. */
typedef struct kk__alg_args {
  kk_view_strided in, in2, out;
  int64_t n, cap;
  uint32_t flags, pad;
} kk__alg_args;
#define KK__ALG_UNIT 1u    /* every view has unit stride: index the data directly */
#define KK__ALG_NEGATE 2u  /* the predicate's negation (remove_if, none_of) */

/* Parameters of a predicate or transform that takes none. */
typedef struct kk_no_params {
  char unused;
} kk_no_params;

/* The descriptors (host code): filled by the macros below in the kernel
 * object, passed to the algorithms by KK_PREDICATE_REF / KK_TRANSFORM_REF. */
#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || defined(KK_TARGET_SPIRV) || defined(__CUDACC_RTC__) || \
    defined(__HIPCC_RTC__) || defined(__OPENCL_VERSION__) || defined(__OPENCL_CPP_VERSION__)
/* a device compile sees the kernels only */
#define KK_DECLARE_PREDICATE(name) typedef int kk__declared_pred_##name
#define KK_DECLARE_TRANSFORM(name) typedef int kk__declared_xf_##name
#else
typedef struct kk_predicate {
  uint32_t struct_size;
  uint32_t elem_size;      /* sizeof the element type */
  uint32_t params_size;    /* sizeof P */
  uint32_t params_offset;  /* of P in the kernels' argument struct */
  uint32_t args_size;      /* of that struct */
  uint32_t reserved;
  const char *name;
  const kk_kernel_t *count, *find, *compact;
} kk_predicate_t;

/* A transform of a kernel file (the kernels of transform and
 * transform_reduce for it), as KK_TRANSFORM_REF(name) names it. */
typedef struct kk_transform {
  uint32_t struct_size;
  uint32_t in_size, in2_size;  /* sizeof T and U (0: unary) */
  uint32_t out_type;           /* kk_type_t of R */
  uint32_t out_size;
  uint32_t params_size, params_offset, args_size;
  const char *name;
  const kk_kernel_t *map;        /* out[i] = f(in[i] (, in2[i])) */
  const kk_kernel_t *reduce[4];  /* KK_SUM, KK_PROD, KK_MIN, KK_MAX of f */
} kk_transform_t;

/* In host code: declare a predicate or transform that a kernel file defines,
 * and name it (the pointer the algorithms take). */
#define KK_DECLARE_PREDICATE(name) extern const kk_predicate_t kk_predicate__##name
#define KK_PREDICATE_REF(name) (&kk_predicate__##name)
#define KK_DECLARE_TRANSFORM(name) extern const kk_transform_t kk_transform__##name
#define KK_TRANSFORM_REF(name) (&kk_transform__##name)
#endif

#ifdef KK_KERNEL_H /* ==== kernel files ================================================================= */

/* element i of a rank-1 descriptor: through the data pointer when the launch
 * said every view has unit stride (a branch the host compiler hoists) */
#define KK__ALG_EL(v, T, i) (*((args->h.flags & KK__ALG_UNIT) ? &KK_DATA(v, T)[i] : &KK_AT(v, T, i)))

/* kernel macros that paste their name argument: the name is built first */
#define KK__ALG_FOR(N, A, I) KK_FOR(N, A, I)
#define KK__ALG_REDUCE(N, A, T, R, I, ACC) KK_REDUCE(N, A, T, R, I, ACC)
#define KK__ALG_SCAN(N, A, T, I, P, F) KK_SCAN(N, A, T, I, P, F)

#if defined(KK_TARGET_HOST) || defined(KK_TARGET_NONE)
#define KK__ALG_KREF(N) (&KK__CAT(kk_kernel__, N))
#define KK__PRED_DESC(name, T, P)                                                                               \
  const kk_predicate_t kk_predicate__##name = {                                                                 \
      sizeof(kk_predicate_t), (uint32_t)sizeof(T), (uint32_t)sizeof(P),                                         \
      (uint32_t)offsetof(struct kk__pa_##name, p), (uint32_t)sizeof(struct kk__pa_##name), 0, #name,           \
      KK__ALG_KREF(name##__kk_count), KK__ALG_KREF(name##__kk_find), KK__ALG_KREF(name##__kk_compact)};
#define KK__XF_DESC(name, T, U_SIZE, R, P)                                                                      \
  const kk_transform_t kk_transform__##name = {                                                                 \
      sizeof(kk_transform_t), (uint32_t)sizeof(T), (uint32_t)(U_SIZE), (uint32_t)KK__TYPE_##R,                  \
      (uint32_t)sizeof(R), (uint32_t)sizeof(P), (uint32_t)offsetof(struct kk__xa_##name, p),                   \
      (uint32_t)sizeof(struct kk__xa_##name), #name, KK__ALG_KREF(name##__kk_map),                              \
      {KK__ALG_KREF(name##__kk_sum), KK__ALG_KREF(name##__kk_prod), KK__ALG_KREF(name##__kk_min),               \
       KK__ALG_KREF(name##__kk_max)}};
#else
#define KK__PRED_DESC(name, T, P)
#define KK__XF_DESC(name, T, U_SIZE, R, P)
#endif

/* KK_PREDICATE(name, T, P, x, p) { return ...; } */
#define KK_PREDICATE(name, T, P, X, PP)                                                                         \
  struct kk__pa_##name {                                                                                        \
    kk__alg_args h;                                                                                             \
    P p;                                                                                                        \
  };                                                                                                            \
  KK__FN int kk__pred_##name(const T X, const P *const PP);                                                     \
  KK__ALG_REDUCE(name##__kk_count, struct kk__pa_##name, int64_t, KK_SUM, i, acc) {                             \
    const int yes = kk__pred_##name(KK__ALG_EL(args->h.in, T, i), &args->p) != 0;                               \
    *acc += yes ^ (int)(args->h.flags & KK__ALG_NEGATE ? 1 : 0);                                                \
  }                                                                                                             \
  KK__ALG_REDUCE(name##__kk_find, struct kk__pa_##name, int64_t, KK_MIN, i, acc) {                              \
    if (i < *acc && kk__pred_##name(KK__ALG_EL(args->h.in, T, i), &args->p) != 0)                               \
      *acc = i;                                                                                                 \
  }                                                                                                             \
  KK__ALG_SCAN(name##__kk_compact, struct kk__pa_##name, int64_t, i, part, fin) {                               \
    const T x_ = KK__ALG_EL(args->h.in, T, i);                                                                  \
    const int yes = kk__pred_##name(x_, &args->p) != 0;                                                         \
    if (yes ^ (int)(args->h.flags & KK__ALG_NEGATE ? 1 : 0)) {                                                  \
      if (fin && *part < args->h.cap)                                                                           \
        KK__ALG_EL(args->h.out, T, *part) = x_;                                                                 \
      *part += 1;                                                                                               \
    }                                                                                                           \
  }                                                                                                             \
  KK__PRED_DESC(name, T, P)                                                                                     \
  KK__FN int kk__pred_##name(const T X KK__UNUSED, const P *const PP KK__UNUSED)

/* the map and the four reductions of a transform whose value at i is VAL */
#define KK__XF_KERNELS(name, R, VAL)                                                                            \
  KK__ALG_FOR(name##__kk_map, struct kk__xa_##name, i) { KK__ALG_EL(args->h.out, R, i) = VAL; }                 \
  KK__ALG_REDUCE(name##__kk_sum, struct kk__xa_##name, R, KK_SUM, i, acc) { *acc += VAL; }                      \
  KK__ALG_REDUCE(name##__kk_prod, struct kk__xa_##name, R, KK_PROD, i, acc) { *acc *= VAL; }                    \
  KK__ALG_REDUCE(name##__kk_min, struct kk__xa_##name, R, KK_MIN, i, acc) {                                     \
    const R v_ = VAL;                                                                                           \
    if (v_ < *acc)                                                                                              \
      *acc = v_;                                                                                                \
  }                                                                                                             \
  KK__ALG_REDUCE(name##__kk_max, struct kk__xa_##name, R, KK_MAX, i, acc) {                                     \
    const R v_ = VAL;                                                                                           \
    if (v_ > *acc)                                                                                              \
      *acc = v_;                                                                                                \
  }

/* KK_TRANSFORM(name, T, R, P, x, p) { return ...; } */
#define KK_TRANSFORM(name, T, R, P, X, PP)                                                                      \
  struct kk__xa_##name {                                                                                        \
    kk__alg_args h;                                                                                             \
    P p;                                                                                                        \
  };                                                                                                            \
  KK__FN R kk__xf_##name(const T X, const P *const PP);                                                         \
  KK__XF_KERNELS(name, R, kk__xf_##name(KK__ALG_EL(args->h.in, T, i), &args->p))                               \
  KK__XF_DESC(name, T, 0, R, P)                                                                                 \
  KK__FN R kk__xf_##name(const T X KK__UNUSED, const P *const PP KK__UNUSED)

/* KK_TRANSFORM2(name, T, U, R, P, x, y, p) { return ...; } */
#define KK_TRANSFORM2(name, T, U, R, P, X, Y, PP)                                                               \
  struct kk__xa_##name {                                                                                        \
    kk__alg_args h;                                                                                             \
    P p;                                                                                                        \
  };                                                                                                            \
  KK__FN R kk__xf_##name(const T X, const U Y, const P *const PP);                                              \
  KK__XF_KERNELS(name, R,                                                                                       \
                 kk__xf_##name(KK__ALG_EL(args->h.in, T, i), KK__ALG_EL(args->h.in2, U, i), &args->p))         \
  KK__XF_DESC(name, T, sizeof(U), R, P)                                                                         \
  KK__FN R kk__xf_##name(const T X KK__UNUSED, const U Y KK__UNUSED, const P *const PP KK__UNUSED)

#endif /* KK_KERNEL_H */
#endif /* KK_STD_ALGORITHMS_H */
