/* kk/kernel.h -- the kernel language: include it in a kernel file (*.kk.c) and compile with kkcc. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_KERNEL_H
#define KK_KERNEL_H

/*
 * A kernel file is portable C99 plus these macros.  kkcc compiles it once per
 * target with KK_TARGET_<T> defined, and kk/target/<t>.h spells each macro for
 * that target: a host loop, a CUDA/HIP __global__ function or a SPIR-V kernel.
 * docs/kernel-language.md is the reference; in short:
 *
 *   #include <kk/kernel.h>
 *   #include "axpy.h"    // struct axpy_args { double a; kk_view x, y; };
 *
 *   KK_FOR(axpy, struct axpy_args, i) {
 *     KK_AT(args->y, double, i) += args->a * KK_AT(args->x, double, i);
 *   }
 *   KK_REDUCE(dot, struct axpy_args, double, KK_SUM, i, acc) {
 *     *acc += KK_AT(args->x, double, i) * KK_AT(args->y, double, i);
 *   }
 *   KK_SCAN(cumsum, struct axpy_args, double, i, partial, final) {
 *     *partial += KK_AT(args->x, double, i);          // inclusive:
 *     if (final) KK_AT(args->y, double, i) = *partial; //  write after adding
 *   }
 *
 * Inside a body, `args` points to the (read-only) argument struct and the
 * index is an int64_t.  Reductions: the 12 reducers KK_SUM, KK_PROD, KK_MIN,
 * KK_MAX, KK_MINMAX, KK_MINLOC, KK_MAXLOC, KK_MINMAXLOC, KK_LAND, KK_LOR,
 * KK_BAND, KK_BOR on the scalar types listed below; custom reducers
 * (KK_REDUCER_INIT / KK_REDUCER_JOIN with KK_REDUCE_CUSTOM); several reducers
 * in one launch (KK_REDUCE_N).
 */

#include <kk/kernel_abi.h>

/* ---- helpers for variadic macros ------------------------------------------ */
#define KK__CAT_(a, b) a##b
#define KK__CAT(a, b) KK__CAT_(a, b)
#define KK__NARG(...) KK__NARG_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define KK__NARG_(_1, _2, _3, _4, _5, _6, _7, _8, N, ...) N
#define KK__UNPACK(...) __VA_ARGS__
#define KK__CALL(m, ...) m(__VA_ARGS__)
/* KK__FOREACH(M, D, a, b, c) -> M(D, a) M(D, b) M(D, c), up to 8 items. */
#define KK__FE_1(M, D, x) M(D, x)
#define KK__FE_2(M, D, x, ...) M(D, x) KK__FE_1(M, D, __VA_ARGS__)
#define KK__FE_3(M, D, x, ...) M(D, x) KK__FE_2(M, D, __VA_ARGS__)
#define KK__FE_4(M, D, x, ...) M(D, x) KK__FE_3(M, D, __VA_ARGS__)
#define KK__FE_5(M, D, x, ...) M(D, x) KK__FE_4(M, D, __VA_ARGS__)
#define KK__FE_6(M, D, x, ...) M(D, x) KK__FE_5(M, D, __VA_ARGS__)
#define KK__FE_7(M, D, x, ...) M(D, x) KK__FE_6(M, D, __VA_ARGS__)
#define KK__FE_8(M, D, x, ...) M(D, x) KK__FE_7(M, D, __VA_ARGS__)
#define KK__FOREACH(M, D, ...) KK__CAT(KK__FE_, KK__NARG(__VA_ARGS__))(M, D, __VA_ARGS__)

/* ---- views ---------------------------------------------------------------- */

/* The layout a descriptor type stands for (a compile-time constant). */
/* (the tag's size is 1..4 for the plain types, plus 4 per memory trait) */
#define KK__LAYOUT_OF(v) \
  ((int)(sizeof((v).kk__tag) - 1) % 4 == 0 ? KK__DEFAULT_LAYOUT : (int)(sizeof((v).kk__tag) - 1) % 4)
#define KK__T(d, k, i) ((int64_t)(i) * (d).stride[k])
/* offset = first + middle + last; which of first/last has stride 1 depends on the layout */
#define KK__OFFX(v, d, a, mid, lk, z)                                                   \
  (KK__LAYOUT_OF(v) == KK_LAYOUT_RIGHT  ? KK__T(d, 0, a) + (mid) + (int64_t)(z)         \
   : KK__LAYOUT_OF(v) == KK_LAYOUT_LEFT ? (int64_t)(a) + (mid) + KK__T(d, lk, z)         \
                                        : KK__T(d, 0, a) + (mid) + KK__T(d, lk, z))
#define KK__OFF1(v, d, a) (KK__LAYOUT_OF(v) == KK_LAYOUT_STRIDE ? KK__T(d, 0, a) : (int64_t)(a))
#define KK__OFF2(v, d, a, b) KK__OFFX(v, d, a, 0, 1, b)
#define KK__OFF3(v, d, a, b, c) KK__OFFX(v, d, a, KK__T(d, 1, b), 2, c)
#define KK__OFF4(v, d, a, b, c, e) KK__OFFX(v, d, a, KK__T(d, 1, b) + KK__T(d, 2, c), 3, e)
#define KK__OFF5(v, d, a, b, c, e, f) KK__OFFX(v, d, a, KK__T(d, 1, b) + KK__T(d, 2, c) + KK__T(d, 3, e), 4, f)
#define KK__OFF6(v, d, a, b, c, e, f, g) \
  KK__OFFX(v, d, a, KK__T(d, 1, b) + KK__T(d, 2, c) + KK__T(d, 3, e) + KK__T(d, 4, f), 5, g)
#define KK__OFF7(v, d, a, b, c, e, f, g, h) \
  KK__OFFX(v, d, a, KK__T(d, 1, b) + KK__T(d, 2, c) + KK__T(d, 3, e) + KK__T(d, 4, f) + KK__T(d, 5, g), 6, h)
#define KK__OFF8(v, d, a, b, c, e, f, g, h, j)                                                            \
  KK__OFFX(v, d, a,                                                                                        \
           KK__T(d, 1, b) + KK__T(d, 2, c) + KK__T(d, 3, e) + KK__T(d, 4, f) + KK__T(d, 5, g) + KK__T(d, 6, h), \
           7, j)

/* Kernel code is C++ on the GPU targets (also where their source is
 * preprocessed as C for a runtime compiler: NVRTC, hipRTC), C on the host. */
#if defined(__cplusplus) || defined(__OPENCL_CPP_VERSION__) || defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || \
    defined(KK_TARGET_SPIRV)
#define KK__CXX 1
#endif
/* The address of v's descriptor for the checked access, also when v is a
 * value (a subview made in the kernel, KK_ROW and friends). */
#ifdef KK__CXX
#define KK__DESC_PTR(v) kk__desc_ptr((v).d)
#else
#define KK__DESC_PTR(v) ((const kk_view_desc_t *)(kk_view_desc_t[1]){(v).d})
#endif
/* The element of view descriptor `v` (any of kk_view, kk_view_left,
 * kk_view_right, kk_view_strided) at the given 1 to 8 indices, as an lvalue of
 * type T.  T must be the view's element type.  No bounds check, unless the
 * kernel file is built with kkcc --bounds-check (KK_BOUNDS_CHECK): then every
 * access checks that it has an index for each dimension of the view, each
 * index inside its extent and T of the view's element size, and a failed
 * access stops the launch with an error naming it (docs/bounds-check.md);
 * the target spells the check (KK__BOUNDS_AT). */
#ifdef KK_BOUNDS_CHECK
#define KK_AT(v, T, ...) KK__TACC(v, T, (T *)KK__BOUNDS_AT(v, T, KK__NARG(__VA_ARGS__), __VA_ARGS__))
#else
#define KK_AT(v, T, ...) \
  KK__TACC(v, T, (T *)(v).d.data + KK__CAT(KK__OFF, KK__NARG(__VA_ARGS__))(v, (v).d, __VA_ARGS__))
#endif
/* The element of a rank-0 view. */
#define KK_AT0(v, T) KK__TACC(v, T, (T *)(v).d.data)
#define KK_AT1(v, T, i0) KK_AT(v, T, i0)
#define KK_AT2(v, T, i0, i1) KK_AT(v, T, i0, i1)
#define KK_AT3(v, T, i0, i1, i2) KK_AT(v, T, i0, i1, i2)
#define KK_AT4(v, T, i0, i1, i2, i3) KK_AT(v, T, i0, i1, i2, i3)
/* The access to the element at T *p of view v, as v's memory trait
 * (kernel_abi.h) spells it: for a view without a trait simply *p.  C (the
 * host target) picks the pointer's qualifiers with _Generic on the trait;
 * the C++ targets pick a kk__tacc specialization (after the target header,
 * below), which returns a reference, an atomic reference or a value. */
#ifdef KK__CXX
#define KK__TACC(v, T, p) kk__tacc<KK__TRAIT_OF(v)>::at((p))
#else
#define KK__TACC(v, T, p)                                                                                  \
  (*_Generic((char(*)[KK__TRAIT_OF(v) + 1])0, char(*)[1]: (T *)(p), char(*)[2]: (_Atomic T *)(p),           \
             char(*)[3]: (const T *restrict)(p), char(*)[4]: (T *restrict)(p)))
#endif
/* Extent and stride (in elements) of dimension k; the data pointer. */
#define KK_EXTENT(v, k) ((v).d.extent[k])
#define KK_STRIDE(v, k) ((v).d.stride[k])
#define KK_DATA(v, T) ((T *)(v).d.data)

/* KK_ALIGNED(n): a type (or variable) aligned to n bytes, n a power of two
 * up to 16 -- a struct of 16 bytes so aligned is one 16-byte load or store
 * on every target (vector loads of scratch, docs/kernel-language.md):
 *   typedef struct KK_ALIGNED(16) { double v[2]; } my_double2; */
#define KK_ALIGNED(n) __attribute__((aligned(n)))

/* ---- reducers ---------------------------------------------------------------- */

/* Scalar types a reducer accepts, with their type code and limits. */
#define KK__TYPE_int8_t KK_INT8
#define KK__TYPE_uint8_t KK_UINT8
#define KK__TYPE_int16_t KK_INT16
#define KK__TYPE_uint16_t KK_UINT16
#define KK__TYPE_int32_t KK_INT32
#define KK__TYPE_uint32_t KK_UINT32
#define KK__TYPE_int64_t KK_INT64
#define KK__TYPE_uint64_t KK_UINT64
#define KK__TYPE_float KK_FLOAT
#define KK__TYPE_double KK_DOUBLE
#define KK__TYPE_int KK_INT32
#define KK__TYPE_unsigned KK_UINT32
#define KK__TYPE_long KK_INT64
#define KK__TYPE_size_t KK_UINT64
#define KK__MAXOF_int8_t ((int8_t)127)
#define KK__MINOF_int8_t ((int8_t)(-127 - 1))
#define KK__MAXOF_uint8_t ((uint8_t)255u)
#define KK__MINOF_uint8_t ((uint8_t)0)
#define KK__MAXOF_int16_t ((int16_t)32767)
#define KK__MINOF_int16_t ((int16_t)(-32767 - 1))
#define KK__MAXOF_uint16_t ((uint16_t)65535u)
#define KK__MINOF_uint16_t ((uint16_t)0)
#define KK__MAXOF_int32_t ((int32_t)2147483647)
#define KK__MINOF_int32_t ((int32_t)(-2147483647 - 1))
#define KK__MAXOF_uint32_t ((uint32_t)4294967295u)
#define KK__MINOF_uint32_t ((uint32_t)0)
#define KK__MAXOF_int64_t ((int64_t)9223372036854775807LL)
#define KK__MINOF_int64_t ((int64_t)(-9223372036854775807LL - 1))
#define KK__MAXOF_uint64_t ((uint64_t)18446744073709551615ULL)
#define KK__MINOF_uint64_t ((uint64_t)0)
#define KK__MAXOF_float 3.40282346638528859812e+38f
#define KK__MINOF_float (-3.40282346638528859812e+38f)
#define KK__MAXOF_double 1.79769313486231570815e+308
#define KK__MINOF_double (-1.79769313486231570815e+308)
#define KK__MAXOF_int KK__MAXOF_int32_t
#define KK__MINOF_int KK__MINOF_int32_t
#define KK__MAXOF_unsigned KK__MAXOF_uint32_t
#define KK__MINOF_unsigned KK__MINOF_uint32_t
#define KK__MAXOF_long KK__MAXOF_int64_t
#define KK__MINOF_long KK__MINOF_int64_t
#define KK__MAXOF_size_t KK__MAXOF_uint64_t
#define KK__MINOF_size_t KK__MINOF_uint64_t
#define KK__LOC_NONE ((int64_t)9223372036854775807LL)

/* Value type of each reducer over scalar T. */
#define KK__VT_KK_SUM(T) T
#define KK__VT_KK_PROD(T) T
#define KK__VT_KK_MIN(T) T
#define KK__VT_KK_MAX(T) T
#define KK__VT_KK_LAND(T) T
#define KK__VT_KK_LOR(T) T
#define KK__VT_KK_BAND(T) T
#define KK__VT_KK_BOR(T) T
#define KK__VT_KK_MINLOC(T) kk_valloc_##T
#define KK__VT_KK_MAXLOC(T) kk_valloc_##T
#define KK__VT_KK_MINMAX(T) kk_minmax_##T
#define KK__VT_KK_MINMAXLOC(T) kk_minmaxloc_##T

/* Identity (init) and combination (join) of each reducer; p, d, s point to
 * values of KK__VT_R(T).  Ties of the *LOC reducers go to the smaller index,
 * so results do not depend on the backend. */
#define KK__INIT_KK_SUM(T, p) (*(p) = (T)0)
#define KK__JOIN_KK_SUM(T, d, s) (*(d) += *(s))
#define KK__INIT_KK_PROD(T, p) (*(p) = (T)1)
#define KK__JOIN_KK_PROD(T, d, s) (*(d) *= *(s))
#define KK__INIT_KK_MIN(T, p) (*(p) = KK__MAXOF_##T)
#define KK__JOIN_KK_MIN(T, d, s) (*(s) < *(d) ? (void)(*(d) = *(s)) : (void)0)
#define KK__INIT_KK_MAX(T, p) (*(p) = KK__MINOF_##T)
#define KK__JOIN_KK_MAX(T, d, s) (*(s) > *(d) ? (void)(*(d) = *(s)) : (void)0)
#define KK__INIT_KK_LAND(T, p) (*(p) = (T)1)
#define KK__JOIN_KK_LAND(T, d, s) (*(d) = (T)(*(d) && *(s)))
#define KK__INIT_KK_LOR(T, p) (*(p) = (T)0)
#define KK__JOIN_KK_LOR(T, d, s) (*(d) = (T)(*(d) || *(s)))
#define KK__INIT_KK_BAND(T, p) (*(p) = (T) ~(T)0)
#define KK__JOIN_KK_BAND(T, d, s) (*(d) &= *(s))
#define KK__INIT_KK_BOR(T, p) (*(p) = (T)0)
#define KK__JOIN_KK_BOR(T, d, s) (*(d) |= *(s))
#define KK__INIT_KK_MINLOC(T, p) ((p)->val = KK__MAXOF_##T, (p)->loc = KK__LOC_NONE)
#define KK__JOIN_KK_MINLOC(T, d, s) KK_MINLOC_UPDATE(d, (s)->val, (s)->loc)
#define KK__INIT_KK_MAXLOC(T, p) ((p)->val = KK__MINOF_##T, (p)->loc = KK__LOC_NONE)
#define KK__JOIN_KK_MAXLOC(T, d, s) KK_MAXLOC_UPDATE(d, (s)->val, (s)->loc)
#define KK__INIT_KK_MINMAX(T, p) ((p)->min_val = KK__MAXOF_##T, (p)->max_val = KK__MINOF_##T)
#define KK__JOIN_KK_MINMAX(T, d, s)                                          \
  ((s)->min_val < (d)->min_val ? (void)((d)->min_val = (s)->min_val) : (void)0, \
   (s)->max_val > (d)->max_val ? (void)((d)->max_val = (s)->max_val) : (void)0)
#define KK__INIT_KK_MINMAXLOC(T, p)                                                             \
  ((p)->min_val = KK__MAXOF_##T, (p)->max_val = KK__MINOF_##T, (p)->min_loc = KK__LOC_NONE, \
   (p)->max_loc = KK__LOC_NONE)
#define KK__JOIN_KK_MINMAXLOC(T, d, s)                                                                   \
  ((s)->min_val < (d)->min_val || ((s)->min_val == (d)->min_val && (s)->min_loc < (d)->min_loc)          \
       ? (void)((d)->min_val = (s)->min_val, (d)->min_loc = (s)->min_loc)                                \
       : (void)0,                                                                                        \
   (s)->max_val > (d)->max_val || ((s)->max_val == (d)->max_val && (s)->max_loc < (d)->max_loc)          \
       ? (void)((d)->max_val = (s)->max_val, (d)->max_loc = (s)->max_loc)                                \
       : (void)0)
/* A custom reducer R (KK_REDUCER_INIT / KK_REDUCER_JOIN) in KK_REDUCE_N takes
 * the form (KK_CUSTOM, R, member). */
#define KK__INIT_KK_CUSTOM(R, p) kk__rinit_##R(p)
#define KK__JOIN_KK_CUSTOM(R, d, s) kk__rjoin_##R(d, s)

/* Updates for the *LOC and MINMAX accumulators inside a kernel body. */
#define KK_MINLOC_UPDATE(acc, v, i)                                               \
  (((v) < (acc)->val || ((v) == (acc)->val && (int64_t)(i) < (acc)->loc))          \
       ? (void)((acc)->val = (v), (acc)->loc = (int64_t)(i))                       \
       : (void)0)
#define KK_MAXLOC_UPDATE(acc, v, i)                                               \
  (((v) > (acc)->val || ((v) == (acc)->val && (int64_t)(i) < (acc)->loc))          \
       ? (void)((acc)->val = (v), (acc)->loc = (int64_t)(i))                       \
       : (void)0)
#define KK_MINMAX_UPDATE(acc, v)                                           \
  ((v) < (acc)->min_val ? (void)((acc)->min_val = (v)) : (void)0,           \
   (v) > (acc)->max_val ? (void)((acc)->max_val = (v)) : (void)0)
#define KK_MINMAXLOC_UPDATE(acc, v, i)                                                                  \
  (((v) < (acc)->min_val || ((v) == (acc)->min_val && (int64_t)(i) < (acc)->min_loc))                  \
       ? (void)((acc)->min_val = (v), (acc)->min_loc = (int64_t)(i))                                     \
       : (void)0,                                                                                        \
   ((v) > (acc)->max_val || ((v) == (acc)->max_val && (int64_t)(i) < (acc)->max_loc))                  \
       ? (void)((acc)->max_val = (v), (acc)->max_loc = (int64_t)(i))                                     \
       : (void)0)

/* Per-reducer pieces of KK_REDUCE_N: t is (R, T, member) */
#define KK__RN_INIT(p, t) KK__CALL(KK__RN_INIT_, p, KK__UNPACK t)
#define KK__RN_INIT_(p, R, T, m) KK__INIT_##R(T, &(p)->m);
#define KK__RN_JOIN(ds, t) KK__CALL(KK__RN_JOIN_, KK__UNPACK ds, KK__UNPACK t)
#define KK__RN_JOIN_(d, s, R, T, m) KK__JOIN_##R(T, &(d)->m, &(s)->m);
#define KK__RN_PART(VT, t) KK__CALL(KK__RN_PART_, VT, KK__UNPACK t)
#define KK__RN_PART_(VT, R, T, m) {R, KK__PTYPE_##R(T), (uint32_t)offsetof(VT, m), (uint32_t)sizeof(((VT *)0)->m)},
#define KK__PTYPE_KK_SUM(T) KK__TYPE_##T
#define KK__PTYPE_KK_PROD(T) KK__TYPE_##T
#define KK__PTYPE_KK_MIN(T) KK__TYPE_##T
#define KK__PTYPE_KK_MAX(T) KK__TYPE_##T
#define KK__PTYPE_KK_LAND(T) KK__TYPE_##T
#define KK__PTYPE_KK_LOR(T) KK__TYPE_##T
#define KK__PTYPE_KK_BAND(T) KK__TYPE_##T
#define KK__PTYPE_KK_BOR(T) KK__TYPE_##T
#define KK__PTYPE_KK_MINLOC(T) KK__TYPE_##T
#define KK__PTYPE_KK_MAXLOC(T) KK__TYPE_##T
#define KK__PTYPE_KK_MINMAX(T) KK__TYPE_##T
#define KK__PTYPE_KK_MINMAXLOC(T) KK__TYPE_##T
#define KK__PTYPE_KK_CUSTOM(R) KK_TYPE_CUSTOM

/* ---- the target: how it spells every macro above ------------------------------ */
#if defined(KK_TARGET_CUDA)
#include <kk/target/cuda.h>
#elif defined(KK_TARGET_HIP)
#include <kk/target/hip.h>
#elif defined(KK_TARGET_SPIRV)
#include <kk/target/spirv.h>
#else /* KK_TARGET_HOST, or KK_TARGET_NONE for descriptors without host code */
#include <kk/target/host.h>
#endif

#ifndef KK__FN
#error "the target header must define KK__FN, the qualifiers of a helper callable from kernels"
#endif

/* ---- memory traits on the C++ targets (KK__TACC) ------------------------------------ */

#ifdef KK__CXX
#ifdef KK_TARGET_SPIRV
#define KK__ATNULL (kk__thread_t)0, /* scalar atomics do not use the launch record */
#define KK__MFN __attribute__((always_inline))
#else
#define KK__ATNULL
#define KK__MFN __device__ __forceinline__
#endif
/* T without its address space: on SPIR-V a pointer's pointee type is
 * __generic T, which a parameter or a return value may not be. */
template <class T> struct kk__noas { typedef T type; };
#ifdef KK_TARGET_SPIRV
template <class T> struct kk__noas<__generic T> { typedef T type; };
template <class T> struct kk__noas<__global T> { typedef T type; };
template <class T> struct kk__noas<__local T> { typedef T type; };
template <class T> struct kk__noas<__private T> { typedef T type; };
#endif
template <int N> struct kk__uint_of;
template <> struct kk__uint_of<4> { typedef uint32_t type; };
template <> struct kk__uint_of<8> { typedef uint64_t type; };

/* An element of an atomic view (KK_AT on a *_atomic descriptor): reading it
 * is a relaxed atomic load, `=` an atomic exchange, the compound assignments
 * one atomic update each (they return the new value, ++/-- after the fact
 * the old one). */
template <class T> struct kk__atomic_ref {
  typedef typename kk__noas<T>::type V;
  typedef typename kk__uint_of<sizeof(V)>::type U; /* 32- and 64-bit elements only */
  T *p;
  KK__MFN operator V() const { return *(volatile T *)p; }
  KK__MFN V operator=(V v) const {
    (void)kk__aexchange(KK__ATNULL (U *)p, kk__bits<V, U>(v));
    return v;
  }
  KK__MFN V operator=(const kk__atomic_ref &o) const { return *this = (V)o; }
  KK__MFN V operator+=(V v) const { return kk__afetch_add(KK__ATNULL p, v) + v; }
  KK__MFN V operator-=(V v) const { return kk__afetch_sub(KK__ATNULL p, v) - v; }
  KK__MFN V operator&=(V v) const { return kk__afetch_and(KK__ATNULL p, v) & v; }
  KK__MFN V operator|=(V v) const { return kk__afetch_or(KK__ATNULL p, v) | v; }
  KK__MFN V operator^=(V v) const { return kk__afetch_xor(KK__ATNULL p, v) ^ v; }
  KK__MFN V operator++() const { return kk__afetch_add(KK__ATNULL p, (V)1) + (V)1; }
  KK__MFN V operator--() const { return kk__afetch_sub(KK__ATNULL p, (V)1) - (V)1; }
  KK__MFN V operator++(int) const { return kk__afetch_add(KK__ATNULL p, (V)1); }
  KK__MFN V operator--(int) const { return kk__afetch_sub(KK__ATNULL p, (V)1); }
};

/* A read through the read-only data path: __ldg on CUDA (the non-coherent
 * texture path), a load through a const restrict pointer elsewhere.  On
 * CUDA an element of any other type (a record of a KK_TYPE_CUSTOM view, a
 * complex number) is read with __ldg too, in pieces as wide as its
 * alignment, at most 16 bytes: a 16-byte record declared KK_ALIGNED(16) is
 * one 128-bit load (ld.global.nc.v4), one of alignment 4 is four 32-bit
 * loads.  The pieces never assume more alignment than the type has. */
#if defined(KK_TARGET_CUDA)
template <int A> struct kk__ldg_piece { typedef unsigned char type; };
template <> struct kk__ldg_piece<2> { typedef unsigned short type; };
template <> struct kk__ldg_piece<4> { typedef unsigned int type; };
template <> struct kk__ldg_piece<8> { typedef uint2 type; };
template <> struct kk__ldg_piece<16> { typedef uint4 type; };
template <class T> KK__FN T kk__ldg(const T *restrict p) {
  typedef typename kk__ldg_piece<(alignof(T) < 16 ? alignof(T) : 16)>::type U;
  U u[sizeof(T) / sizeof(U)];
#pragma unroll
  for (unsigned i = 0; i < sizeof(T) / sizeof(U); i++) u[i] = __ldg((const U *)p + i);
  T v;
  memcpy(&v, u, sizeof v);
  return v;
}
#else
template <class T> KK__FN typename kk__noas<T>::type kk__ldg(const T *restrict p) { return *p; }
#endif
#if defined(KK_TARGET_CUDA)
#define KK__LDG(T) \
  KK__FN T kk__ldg(const T *restrict p) { return __ldg(p); }
KK__LDG(float)
KK__LDG(double)
KK__LDG(int)
KK__LDG(unsigned int)
KK__LDG(long)
KK__LDG(unsigned long)
KK__LDG(long long)
KK__LDG(unsigned long long)
KK__LDG(short)
KK__LDG(unsigned short)
KK__LDG(signed char)
KK__LDG(unsigned char)
#undef KK__LDG
#endif

/* KK__TACC per trait (kernel_abi.h's KK__TRAIT_OF). */
template <int TR> struct kk__tacc;
template <> struct kk__tacc<0> {
  template <class T> static KK__MFN T &at(T *p) { return *p; }
};
template <> struct kk__tacc<1> {
  template <class T> static KK__MFN kk__atomic_ref<T> at(T *p) {
    kk__atomic_ref<T> r;
    r.p = p;
    return r;
  }
};
template <> struct kk__tacc<2> {
  template <class T> static KK__MFN typename kk__noas<T>::type at(T *p) { return kk__ldg((const T *)p); }
};
template <> struct kk__tacc<3> {
  template <class T> static KK__MFN T &at(T *restrict p) { return *p; }
};
#endif

/* ---- subviews inside a kernel ------------------------------------------------ */

#ifdef KK__CXX
KK__FN const kk_view_desc_t *kk__desc_ptr(const kk_view_desc_t &d) { return &d; }
#endif

/*
 * A slice of a bound view, made inside a kernel body, as kk_view_subview
 * makes it on the host (same extents, strides and layout rule), at no cost
 * beyond the arithmetic of its data pointer: the result is a descriptor
 * value whose type fixes its layout at compile time, so KK_AT on it indexes
 * exactly as on the parent.
 *
 *   KK_ROW(v, i)      index i of the first dimension fixed: a row of a matrix,
 *                     a plane of a rank-3 view (KK_PLANE is the same);
 *                     rank - 1 dimensions
 *   KK_COL(v, j)      index j of the last dimension fixed: a column;
 *                     rank - 1 dimensions
 *   KK_ROWS(v, b, e)  rows [b, e) of the first dimension; same rank and type
 *
 * and the typed forms KK_ROW_OF(v, T, i), KK_PLANE_OF(v, T, i),
 * KK_COL_OF(v, T, j), KK_ROWS_OF(v, T, b, e), T the element type of v (the T
 * KK_AT takes): the same slices, whose data pointer moves by a compile-time
 * multiple of sizeof(T), where the untyped forms multiply by the element size
 * the descriptor carries, read at run time and applied to a byte offset
 * (on a GPU, a parameter load and a 64-bit multiply per slice, and on CUDA
 * registers: 34 where the kernel indexing the parent needs 30, in
 * kk-bench's matvec; use the typed forms in hot kernels).  Under
 * kkcc --bounds-check a T of another size than the view's element gives a
 * slice of extent 0, as an index outside does.
 *
 * v is a kk_view, kk_view_right, kk_view_left or kk_view_strided of rank >= 1
 * (rank >= 2 for KK_ROW / KK_COL to leave a dimension).  The type of the
 * result is KK_ROW_T(type of v), KK_COL_T(...) and the type of v for
 * KK_ROWS:
 *
 *   parent            KK_ROW_T              KK_COL_T
 *   kk_view_right     kk_view_right         kk_view_strided
 *   kk_view_left      kk_view_strided       kk_view_left
 *   kk_view_strided   kk_view_strided       kk_view_strided
 *   kk_view           host: kk_view         host: kk_view_strided
 *                     GPU:  kk_view_strided GPU:  kk_view
 *
 * (a row of a right view keeps its unit stride, a column of a left view
 * too; the rest are strided).  Example, a row per team:
 *
 *   KK_ROW_T(kk_view) r = KK_ROW(args->a, KK_LEAGUE_RANK(team));
 *   ... KK_AT(r, double, j) ...
 *
 * The slice index is not checked against the parent's extent, except under
 * kkcc --bounds-check: then an index outside it gives a subview of extent 0
 * in its first dimension (at the parent's first element), so that its first
 * access fails and is reported, naming the parent view.
 */
#define KK_ROW_T(P) KK__CAT(kk__row_t_, P)
#define KK_COL_T(P) KK__CAT(kk__col_t_, P)
typedef kk_view_right kk__row_t_kk_view_right;
typedef kk_view_strided kk__row_t_kk_view_left;
typedef kk_view_strided kk__row_t_kk_view_strided;
typedef kk_view_strided kk__col_t_kk_view_right;
typedef kk_view_left kk__col_t_kk_view_left;
typedef kk_view_strided kk__col_t_kk_view_strided;
#if !defined(KK_TARGET_CUDA) && !defined(KK_TARGET_HIP) && !defined(KK_TARGET_SPIRV) /* default right */
typedef kk_view kk__row_t_kk_view;
typedef kk_view_strided kk__col_t_kk_view;
#define KK__ROW_LAYOUT_DEFAULT KK_LAYOUT_RIGHT
#define KK__COL_LAYOUT_DEFAULT KK_LAYOUT_STRIDE
#else
typedef kk_view_strided kk__row_t_kk_view;
typedef kk_view kk__col_t_kk_view;
#define KK__ROW_LAYOUT_DEFAULT KK_LAYOUT_STRIDE
#define KK__COL_LAYOUT_DEFAULT KK_LAYOUT_LEFT
#endif

#ifdef KK_BOUNDS_CHECK
#define KK__SLICE_GUARD(d, k, i) ((i) < 0 || (i) >= KK__EXTENT_AT(d, k))
/* a typed slice whose T is not the view's element type: a bad slice too (the
 * pointer is then the parent's) */
#define KK__SLICE_ESIZE(d, es) ((es) != 0 && (es) != (int64_t)(d).elem_size)
#define KK__SLICE_SCALE(d, es) ((int64_t)(d).elem_size)
#else
#define KK__SLICE_GUARD(d, k, i) 0
#define KK__SLICE_ESIZE(d, es) 0
/* es: sizeof(T) of a typed slice on the host target, a compile-time constant
 * that folds into the pointer arithmetic; 0: the descriptor's element size,
 * read at run time */
#define KK__SLICE_SCALE(d, es) ((es) != 0 ? (es) : (int64_t)(d).elem_size)
#endif

/*
 * The shape of a slice (all of it but the data pointer), written out: no
 * loop over the dimensions and no dimension picked by a run-time index, so
 * that the compiler keeps the descriptor in registers from the start, drops
 * the fields that KK_AT does not read, and folds the slice's pointer into
 * the indexing after it as it does a parent's.  (A loop there is unrolled
 * only after the passes that do that folding: on CUDA, a team kernel taking
 * a row per team needed a register more for it; a column's dimension picked
 * at run time put the descriptor on the stack.)  bad: a slice outside its
 * parent (kkcc --bounds-check).
 */
#if KK_MAX_RANK != 8
#error "kk/kernel.h spells the shapes of slices out for KK_MAX_RANK 8"
#endif
/* extent and stride of dimension k, k known only at run time */
#define KK__EXTENT_AT(d, k)                                                                                     \
  ((k) == 0 ? (d).extent[0] : (k) == 1 ? (d).extent[1] : (k) == 2 ? (d).extent[2] : (k) == 3 ? (d).extent[3]  \
   : (k) == 4 ? (d).extent[4] : (k) == 5 ? (d).extent[5] : (k) == 6 ? (d).extent[6] : (d).extent[7])
#define KK__STRIDE_AT(d, k)                                                                                     \
  ((k) == 0 ? (d).stride[0] : (k) == 1 ? (d).stride[1] : (k) == 2 ? (d).stride[2] : (k) == 3 ? (d).stride[3]  \
   : (k) == 4 ? (d).stride[4] : (k) == 5 ? (d).stride[5] : (k) == 6 ? (d).stride[6] : (d).stride[7])
/* The stride of the dimension a slice fixes, for a parent of layout pl (a
 * compile-time constant: the layout its type fixes): 1 where that layout
 * makes it so (dimension 0 of a left view, the last of a right view), as
 * KK_AT on the parent takes it, else read from the descriptor. */
#define KK__STRIDE0(d, pl) ((pl) == KK_LAYOUT_LEFT ? (int64_t)1 : (d).stride[0])
#define KK__STRIDE_LAST(d, pl, last) ((pl) == KK_LAYOUT_RIGHT ? (int64_t)1 : KK__STRIDE_AT(d, last))
/* dimension k of the result is dimension k + 1 of the parent */
#define KK__SHIFT(d, k) ((d).extent[k] = (d).extent[(k) + 1], (d).stride[k] = (d).stride[(k) + 1])
/* dimension k is dropped if it is the last, `last` */
#define KK__DROP(d, k, last) \
  ((d).extent[k] = (k) == (last) ? 1 : (d).extent[k], (d).stride[k] = (k) == (last) ? 0 : (d).stride[k])

/* *d, a copy of the parent's descriptor, made the shape of a row of it:
 * dimension 0 dropped, the others shifted down by one. */
KK__FN void kk__shape_row(kk_view_desc_t *d, int bad, int32_t layout) {
  KK__SHIFT(*d, 0), KK__SHIFT(*d, 1), KK__SHIFT(*d, 2), KK__SHIFT(*d, 3);
  KK__SHIFT(*d, 4), KK__SHIFT(*d, 5), KK__SHIFT(*d, 6);
  d->extent[7] = 1, d->stride[7] = 0;
  d->rank -= 1;
  d->layout = layout;
  if (bad) /* then the parent's data: the failure names the view */
    d->extent[0] = 0;
}
/* The shape of a column: the last dimension dropped. */
KK__FN void kk__shape_col(kk_view_desc_t *d, int bad, int32_t layout) {
  const int last = d->rank - 1;
  KK__DROP(*d, 0, last), KK__DROP(*d, 1, last), KK__DROP(*d, 2, last), KK__DROP(*d, 3, last);
  KK__DROP(*d, 4, last), KK__DROP(*d, 5, last), KK__DROP(*d, 6, last), KK__DROP(*d, 7, last);
  d->rank -= 1;
  d->layout = layout;
  if (bad)
    d->extent[0] = 0;
}

/* The slices with the pointer moved by the element size es (see
 * KK__SLICE_SCALE): the host target's, and the untyped forms everywhere.
 * pl: the parent's layout, lr: the result's. */
/* Dimension 0 fixed at index i. */
KK__FN kk_view_desc_t kk__desc_row(kk_view_desc_t d, int64_t i, int32_t pl, int32_t lr, int64_t es) {
  const int bad = KK__SLICE_GUARD(d, 0, i) || KK__SLICE_ESIZE(d, es);
  d.data = (void *)((char *)d.data + (bad ? 0 : i) * KK__STRIDE0(d, pl) * KK__SLICE_SCALE(d, es));
  kk__shape_row(&d, bad, lr);
  return d;
}
/* The last dimension fixed at index j. */
KK__FN kk_view_desc_t kk__desc_col(kk_view_desc_t d, int64_t j, int32_t pl, int32_t lr, int64_t es) {
  const int last = d.rank - 1;
  const int bad = KK__SLICE_GUARD(d, last, j) || KK__SLICE_ESIZE(d, es);
  d.data = (void *)((char *)d.data + (bad ? 0 : j) * KK__STRIDE_LAST(d, pl, last) * KK__SLICE_SCALE(d, es));
  kk__shape_col(&d, bad, lr);
  return d;
}
#ifdef KK_BOUNDS_CHECK
#define KK__ROWS_BAD(d, b, e, es) ((b) < 0 || (e) < (b) || (e) > (d).extent[0] || KK__SLICE_ESIZE(d, es))
#else
#define KK__ROWS_BAD(d, b, e, es) 0
#endif
/* Rows [b, e) of dimension 0. */
KK__FN kk_view_desc_t kk__desc_rows(kk_view_desc_t d, int64_t b, int64_t e, int32_t pl, int64_t es) {
  const int bad = KK__ROWS_BAD(d, b, e, es);
  d.data = (void *)((char *)d.data + (bad ? 0 : b) * KK__STRIDE0(d, pl) * KK__SLICE_SCALE(d, es));
  d.extent[0] = bad ? 0 : e - b;
  return d;
}

#define KK__SUB_FNS(P, PL, LROW, LCOL)                                                \
  KK__FN KK_ROW_T(P) kk__row_##P(P v, int64_t i, int64_t es) {                      \
    KK_ROW_T(P) r;                                                                  \
    r.d = kk__desc_row(v.d, i, PL, LROW, es);                                       \
    return r;                                                                       \
  }                                                                                 \
  KK__FN KK_COL_T(P) kk__col_##P(P v, int64_t j, int64_t es) {                      \
    KK_COL_T(P) r;                                                                  \
    r.d = kk__desc_col(v.d, j, PL, LCOL, es);                                       \
    return r;                                                                       \
  }                                                                                 \
  KK__FN P kk__rows_##P(P v, int64_t b, int64_t e, int64_t es) {                    \
    v.d = kk__desc_rows(v.d, b, e, PL, es);                                         \
    return v;                                                                       \
  }
KK__SUB_FNS(kk_view, KK__DEFAULT_LAYOUT, KK__ROW_LAYOUT_DEFAULT, KK__COL_LAYOUT_DEFAULT)
KK__SUB_FNS(kk_view_right, KK_LAYOUT_RIGHT, KK_LAYOUT_RIGHT, KK_LAYOUT_STRIDE)
KK__SUB_FNS(kk_view_left, KK_LAYOUT_LEFT, KK_LAYOUT_STRIDE, KK_LAYOUT_LEFT)
KK__SUB_FNS(kk_view_strided, KK_LAYOUT_STRIDE, KK_LAYOUT_STRIDE, KK_LAYOUT_STRIDE)

#ifdef KK__CXX
/* C++ targets (CUDA, HIP, SPIR-V): overloads pick the parent's type.  The
 * typed forms move the pointer as a T *, by an index in elements, so that
 * the compiler folds that index into the index of each KK_AT on the slice
 * (KK_AT indexes a T * too) and computes one address per access, as for the
 * parent; moved by a byte count, the two offsets stay apart (on CUDA, 4
 * registers more in a team kernel taking a row per team).  They read the
 * parent through a reference and build the result in place: from a copy
 * taken by value, the compiler reloaded loop-invariant arguments in the
 * loops after the slice, through a register holding their address. */
#define KK__SUB_OVL(P, PL, LROW, LCOL)                                                                           \
  KK__FN KK_ROW_T(P) kk__row(P v, int64_t i, int64_t es) { return kk__row_##P(v, i, es); }                    \
  KK__FN KK_COL_T(P) kk__col(P v, int64_t j, int64_t es) { return kk__col_##P(v, j, es); }                    \
  KK__FN P kk__rows(P v, int64_t b, int64_t e, int64_t es) { return kk__rows_##P(v, b, e, es); }              \
  template <class T> KK__FN KK_ROW_T(P) kk__row_of(const P &v, int64_t i) {                                   \
    KK_ROW_T(P) r;                                                                                            \
    r.d = v.d;                                                                                                \
    const int bad = KK__SLICE_GUARD(v.d, 0, i) || KK__SLICE_ESIZE(v.d, (int64_t)sizeof(T));                   \
    r.d.data = (void *)((T *)v.d.data + (bad ? 0 : i) * KK__STRIDE0(v.d, PL));                                \
    kk__shape_row(&r.d, bad, LROW);                                                                           \
    return r;                                                                                                 \
  }                                                                                                           \
  template <class T> KK__FN KK_COL_T(P) kk__col_of(const P &v, int64_t j) {                                   \
    KK_COL_T(P) r;                                                                                            \
    r.d = v.d;                                                                                                \
    const int last = v.d.rank - 1;                                                                            \
    const int bad = KK__SLICE_GUARD(v.d, last, j) || KK__SLICE_ESIZE(v.d, (int64_t)sizeof(T));                \
    r.d.data = (void *)((T *)v.d.data + (bad ? 0 : j) * KK__STRIDE_LAST(v.d, PL, last));                      \
    kk__shape_col(&r.d, bad, LCOL);                                                                           \
    return r;                                                                                                 \
  }                                                                                                           \
  template <class T> KK__FN P kk__rows_of(const P &v, int64_t b, int64_t e) {                                 \
    P r = v;                                                                                                  \
    const int bad = KK__ROWS_BAD(v.d, b, e, (int64_t)sizeof(T));                                              \
    r.d.data = (void *)((T *)v.d.data + (bad ? 0 : b) * KK__STRIDE0(v.d, PL));                                \
    r.d.extent[0] = bad ? 0 : e - b;                                                                          \
    return r;                                                                                                 \
  }
KK__SUB_OVL(kk_view, KK__DEFAULT_LAYOUT, KK__ROW_LAYOUT_DEFAULT, KK__COL_LAYOUT_DEFAULT)
KK__SUB_OVL(kk_view_right, KK_LAYOUT_RIGHT, KK_LAYOUT_RIGHT, KK_LAYOUT_STRIDE)
KK__SUB_OVL(kk_view_left, KK_LAYOUT_LEFT, KK_LAYOUT_STRIDE, KK_LAYOUT_LEFT)
KK__SUB_OVL(kk_view_strided, KK_LAYOUT_STRIDE, KK_LAYOUT_STRIDE, KK_LAYOUT_STRIDE)
#define KK__SUB_FN(kind, v) kk__##kind
#else
/* C (the host target): _Generic picks the parent's type */
#define KK__SUB_FN(kind, v)                                                                        \
  _Generic((v), kk_view: kk__##kind##_kk_view, kk_view_right: kk__##kind##_kk_view_right,          \
           kk_view_left: kk__##kind##_kk_view_left, kk_view_strided: kk__##kind##_kk_view_strided)
#endif
/* Index i of the first dimension of v fixed: a KK_ROW_T of rank - 1. */
#define KK_ROW(v, i) KK__SUB_FN(row, v)((v), (int64_t)(i), 0)
/* Index j of the last dimension of v fixed: a KK_COL_T of rank - 1. */
#define KK_COL(v, j) KK__SUB_FN(col, v)((v), (int64_t)(j), 0)
/* Rows [b, e) of the first dimension of v: the same rank and type. */
#define KK_ROWS(v, b, e) KK__SUB_FN(rows, v)((v), (int64_t)(b), (int64_t)(e), 0)
/* The typed forms (C++ targets: templates on T; the host target: the size
 * of T), whose data pointer moves by elements of T where the untyped forms
 * multiply by the element size read from the descriptor.  KK_ROW of a view
 * of element type T (the T of KK_AT on it): */
#ifdef KK__CXX
#define KK_ROW_OF(v, T, i) kk__row_of<T>((v), (int64_t)(i))
#else
#define KK_ROW_OF(v, T, i) KK__SUB_FN(row, v)((v), (int64_t)(i), (int64_t)sizeof(T))
#endif
/* KK_COL of a view of element type T (see KK_ROW_OF). */
#ifdef KK__CXX
#define KK_COL_OF(v, T, j) kk__col_of<T>((v), (int64_t)(j))
#else
#define KK_COL_OF(v, T, j) KK__SUB_FN(col, v)((v), (int64_t)(j), (int64_t)sizeof(T))
#endif
/* KK_ROWS of a view of element type T (see KK_ROW_OF). */
#ifdef KK__CXX
#define KK_ROWS_OF(v, T, b, e) kk__rows_of<T>((v), (int64_t)(b), (int64_t)(e))
#else
#define KK_ROWS_OF(v, T, b, e) KK__SUB_FN(rows, v)((v), (int64_t)(b), (int64_t)(e), (int64_t)sizeof(T))
#endif
/* KK_PLANE of a view of element type T (see KK_ROW_OF). */
#define KK_PLANE_OF(v, T, i) KK_ROW_OF(v, T, i)
/* A plane of a rank-3 view: KK_ROW of it (index i of the first dimension fixed). */
#define KK_PLANE(v, i) KK_ROW(v, i)
#if defined(KK_BOUNDS_CHECK) && !defined(KK__BOUNDS_AT)
#error "this target does not check bounds yet: kkcc --bounds-check defines KK_BOUNDS_CHECK only for targets whose recipe has \"bounds_check\": true"
#endif

#endif /* KK_KERNEL_H */
