/* kk/target/freestanding/stdint.h -- <stdint.h> for kernel files on device targets that have no C library, from the compiler's predefined macros. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* kkcc's spirv recipe, and the CUDA source it embeds for NVRTC, put this
 * directory first in the include path, so that a header shared by host code
 * and kernel files can include <stdint.h> (docs/kernel-language.md).  The
 * types are the target compiler's own (__INT64_TYPE__ ...), as a C library
 * would define them for that target.  On OpenCL, whose widest integer is 64
 * bits, intmax_t is int64_t. */
#ifndef KK_FREESTANDING_STDINT_H
#define KK_FREESTANDING_STDINT_H

typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;

typedef __INT_LEAST8_TYPE__ int_least8_t;
typedef __INT_LEAST16_TYPE__ int_least16_t;
typedef __INT_LEAST32_TYPE__ int_least32_t;
typedef __INT_LEAST64_TYPE__ int_least64_t;
typedef __UINT_LEAST8_TYPE__ uint_least8_t;
typedef __UINT_LEAST16_TYPE__ uint_least16_t;
typedef __UINT_LEAST32_TYPE__ uint_least32_t;
typedef __UINT_LEAST64_TYPE__ uint_least64_t;

typedef __INT_FAST8_TYPE__ int_fast8_t;
typedef __INT_FAST16_TYPE__ int_fast16_t;
typedef __INT_FAST32_TYPE__ int_fast32_t;
typedef __INT_FAST64_TYPE__ int_fast64_t;
typedef __UINT_FAST8_TYPE__ uint_fast8_t;
typedef __UINT_FAST16_TYPE__ uint_fast16_t;
typedef __UINT_FAST32_TYPE__ uint_fast32_t;
typedef __UINT_FAST64_TYPE__ uint_fast64_t;

typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;

#define INT8_MAX __INT8_MAX__
#define INT16_MAX __INT16_MAX__
#define INT32_MAX __INT32_MAX__
#define INT64_MAX __INT64_MAX__
#define INT8_MIN (-INT8_MAX - 1)
#define INT16_MIN (-INT16_MAX - 1)
#define INT32_MIN (-INT32_MAX - 1)
#define INT64_MIN (-INT64_MAX - 1)
#define UINT8_MAX __UINT8_MAX__
#define UINT16_MAX __UINT16_MAX__
#define UINT32_MAX __UINT32_MAX__
#define UINT64_MAX __UINT64_MAX__

#define INT_LEAST8_MAX __INT_LEAST8_MAX__
#define INT_LEAST16_MAX __INT_LEAST16_MAX__
#define INT_LEAST32_MAX __INT_LEAST32_MAX__
#define INT_LEAST64_MAX __INT_LEAST64_MAX__
#define INT_LEAST8_MIN (-INT_LEAST8_MAX - 1)
#define INT_LEAST16_MIN (-INT_LEAST16_MAX - 1)
#define INT_LEAST32_MIN (-INT_LEAST32_MAX - 1)
#define INT_LEAST64_MIN (-INT_LEAST64_MAX - 1)
#define UINT_LEAST8_MAX __UINT_LEAST8_MAX__
#define UINT_LEAST16_MAX __UINT_LEAST16_MAX__
#define UINT_LEAST32_MAX __UINT_LEAST32_MAX__
#define UINT_LEAST64_MAX __UINT_LEAST64_MAX__

#define INT_FAST8_MAX __INT_FAST8_MAX__
#define INT_FAST16_MAX __INT_FAST16_MAX__
#define INT_FAST32_MAX __INT_FAST32_MAX__
#define INT_FAST64_MAX __INT_FAST64_MAX__
#define INT_FAST8_MIN (-INT_FAST8_MAX - 1)
#define INT_FAST16_MIN (-INT_FAST16_MAX - 1)
#define INT_FAST32_MIN (-INT_FAST32_MAX - 1)
#define INT_FAST64_MIN (-INT_FAST64_MAX - 1)
#define UINT_FAST8_MAX __UINT_FAST8_MAX__
#define UINT_FAST16_MAX __UINT_FAST16_MAX__
#define UINT_FAST32_MAX __UINT_FAST32_MAX__
#define UINT_FAST64_MAX __UINT_FAST64_MAX__

#define INTPTR_MAX __INTPTR_MAX__
#define INTPTR_MIN (-INTPTR_MAX - 1)
#define UINTPTR_MAX __UINTPTR_MAX__
#define PTRDIFF_MAX __PTRDIFF_MAX__
#define PTRDIFF_MIN (-PTRDIFF_MAX - 1)
#define SIZE_MAX __SIZE_MAX__
#ifdef __SIG_ATOMIC_MAX__
#define SIG_ATOMIC_MAX __SIG_ATOMIC_MAX__
#define SIG_ATOMIC_MIN (-SIG_ATOMIC_MAX - 1)
#endif
#ifdef __WINT_MAX__
#define WINT_MAX __WINT_MAX__
#endif

/* INTn_C: GCC predefines __INT64_C(c) and friends, clang before 17 only the
 * suffixes (__INT64_C_SUFFIX__). */
#define KK__STDINT_PASTE(c, s) c##s
#define KK__STDINT_SUFFIX(c, s) KK__STDINT_PASTE(c, s)
#ifdef __INT64_C
#define INT8_C(c) __INT8_C(c)
#define INT16_C(c) __INT16_C(c)
#define INT32_C(c) __INT32_C(c)
#define INT64_C(c) __INT64_C(c)
#define UINT8_C(c) __UINT8_C(c)
#define UINT16_C(c) __UINT16_C(c)
#define UINT32_C(c) __UINT32_C(c)
#define UINT64_C(c) __UINT64_C(c)
#else
#define INT8_C(c) KK__STDINT_SUFFIX(c, __INT8_C_SUFFIX__)
#define INT16_C(c) KK__STDINT_SUFFIX(c, __INT16_C_SUFFIX__)
#define INT32_C(c) KK__STDINT_SUFFIX(c, __INT32_C_SUFFIX__)
#define INT64_C(c) KK__STDINT_SUFFIX(c, __INT64_C_SUFFIX__)
#define UINT8_C(c) KK__STDINT_SUFFIX(c, __UINT8_C_SUFFIX__)
#define UINT16_C(c) KK__STDINT_SUFFIX(c, __UINT16_C_SUFFIX__)
#define UINT32_C(c) KK__STDINT_SUFFIX(c, __UINT32_C_SUFFIX__)
#define UINT64_C(c) KK__STDINT_SUFFIX(c, __UINT64_C_SUFFIX__)
#endif

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_CPP_VERSION__)
typedef int64_t intmax_t;
typedef uint64_t uintmax_t;
#define INTMAX_MAX INT64_MAX
#define INTMAX_MIN INT64_MIN
#define UINTMAX_MAX UINT64_MAX
#define INTMAX_C(c) INT64_C(c)
#define UINTMAX_C(c) UINT64_C(c)
#else
typedef __INTMAX_TYPE__ intmax_t;
typedef __UINTMAX_TYPE__ uintmax_t;
#define INTMAX_MAX __INTMAX_MAX__
#define INTMAX_MIN (-INTMAX_MAX - 1)
#define UINTMAX_MAX __UINTMAX_MAX__
#ifdef __INTMAX_C
#define INTMAX_C(c) __INTMAX_C(c)
#define UINTMAX_C(c) __UINTMAX_C(c)
#else
#define INTMAX_C(c) KK__STDINT_SUFFIX(c, __INTMAX_C_SUFFIX__)
#define UINTMAX_C(c) KK__STDINT_SUFFIX(c, __UINTMAX_C_SUFFIX__)
#endif
#endif

#endif /* KK_FREESTANDING_STDINT_H */
