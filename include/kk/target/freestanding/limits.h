/* kk/target/freestanding/limits.h -- <limits.h> for kernel files on device targets that have no C library, from the compiler's predefined macros. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* See stdint.h here.  OpenCL defines most of these itself (with the same
 * values): a macro already defined is left as it is. */
#ifndef KK_FREESTANDING_LIMITS_H
#define KK_FREESTANDING_LIMITS_H

#ifndef CHAR_BIT
#define CHAR_BIT __CHAR_BIT__
#endif
#ifndef MB_LEN_MAX
#define MB_LEN_MAX 1
#endif
#ifndef SCHAR_MAX
#define SCHAR_MAX __SCHAR_MAX__
#endif
#ifndef SCHAR_MIN
#define SCHAR_MIN (-__SCHAR_MAX__ - 1)
#endif
#ifndef UCHAR_MAX
#define UCHAR_MAX (__SCHAR_MAX__ * 2 + 1)
#endif
#ifdef __CHAR_UNSIGNED__
#ifndef CHAR_MIN
#define CHAR_MIN 0
#endif
#ifndef CHAR_MAX
#define CHAR_MAX (__SCHAR_MAX__ * 2 + 1)
#endif
#else
#ifndef CHAR_MIN
#define CHAR_MIN (-__SCHAR_MAX__ - 1)
#endif
#ifndef CHAR_MAX
#define CHAR_MAX __SCHAR_MAX__
#endif
#endif
#ifndef SHRT_MAX
#define SHRT_MAX __SHRT_MAX__
#endif
#ifndef SHRT_MIN
#define SHRT_MIN (-__SHRT_MAX__ - 1)
#endif
#ifndef USHRT_MAX
#define USHRT_MAX (__SHRT_MAX__ * 2 + 1)
#endif
#ifndef INT_MAX
#define INT_MAX __INT_MAX__
#endif
#ifndef INT_MIN
#define INT_MIN (-__INT_MAX__ - 1)
#endif
#ifndef UINT_MAX
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#endif
#ifndef LONG_MAX
#define LONG_MAX __LONG_MAX__
#endif
#ifndef LONG_MIN
#define LONG_MIN (-__LONG_MAX__ - 1L)
#endif
#ifndef ULONG_MAX
#define ULONG_MAX (__LONG_MAX__ * 2UL + 1UL)
#endif
#ifndef LLONG_MAX
#define LLONG_MAX __LONG_LONG_MAX__
#endif
#ifndef LLONG_MIN
#define LLONG_MIN (-__LONG_LONG_MAX__ - 1LL)
#endif
#ifndef ULLONG_MAX
#define ULLONG_MAX (__LONG_LONG_MAX__ * 2ULL + 1ULL)
#endif

#endif /* KK_FREESTANDING_LIMITS_H */
