/* kk/target/freestanding/stddef.h -- <stddef.h> for kernel files on device targets that have no C library, from the compiler's predefined macros. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* See stdint.h here.  The device targets compile kernel files as C++ (CUDA's
 * NVRTC source is preprocessed as C first, hence the RTC tests): wchar_t is
 * then a keyword and NULL is nullptr, as C++ for OpenCL defines it. */
#ifndef KK_FREESTANDING_STDDEF_H
#define KK_FREESTANDING_STDDEF_H

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef struct {
  __attribute__((aligned(__BIGGEST_ALIGNMENT__))) char kk__align;
} max_align_t;

#if defined(__cplusplus) || defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
#ifndef NULL
#define NULL nullptr
#endif
#else
typedef __WCHAR_TYPE__ wchar_t;
#ifndef NULL
#define NULL ((void *)0)
#endif
#endif

#ifndef offsetof
#if defined(__CUDACC_RTC__)
/* NVRTC has no __builtin_offsetof: the address of the member in an object at
 * 0, a value at run time but not a constant expression (no static_assert) */
#define offsetof(type, member) ((size_t) & reinterpret_cast<const volatile char &>((((type *)0)->member)))
#else
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
#endif

#endif /* KK_FREESTANDING_STDDEF_H */
