/* tests/headers/headers.h -- a header shared by host code and a kernel file that includes the C headers such a header naturally does, and the values both sides compare. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TESTS_HEADERS_H
#define KK_TESTS_HEADERS_H

#include <float.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kk.h>

struct hdr_pair {
  char c;
  int64_t i;
};

/* Each expression is evaluated by the kernel on the backend (with the
 * target's headers: kk's freestanding ones on SPIR-V and in the NVRTC
 * source, the C library's elsewhere) and by the host program (the C
 * library's); every value must agree. */
#define HDR_INTS(X)                                                                                                    \
  X(sizeof(int8_t)) X(sizeof(int16_t)) X(sizeof(int32_t)) X(sizeof(int64_t)) X(sizeof(uint64_t)) X(sizeof(intptr_t)) \
  X(sizeof(uintptr_t)) X(sizeof(size_t)) X(sizeof(ptrdiff_t)) X(sizeof(int_least8_t)) X(sizeof(int_least64_t))      \
  X(sizeof(int_fast32_t) >= 4) X(sizeof(intmax_t)) X(sizeof(bool))                                                   \
  X(INT8_MIN) X(INT8_MAX) X(UINT8_MAX) X(INT16_MIN) X(INT16_MAX) X(UINT16_MAX) X(INT32_MIN) X(INT32_MAX)              \
  X(UINT32_MAX) X(INT64_MIN) X(INT64_MAX) X((int64_t)UINT64_MAX) X(INTPTR_MAX) X((int64_t)UINTPTR_MAX)               \
  X(PTRDIFF_MIN) X(PTRDIFF_MAX) X((int64_t)SIZE_MAX) X(INTMAX_MAX) X(INT_LEAST16_MAX) X(INT_FAST8_MAX)                \
  X(INT64_C(1) << 40) X((int64_t)(UINT64_C(3) << 62)) X(INT32_C(-7)) X((int64_t)UINT32_C(4000000000))                 \
  X(CHAR_BIT) X(SCHAR_MIN) X(SCHAR_MAX) X(UCHAR_MAX) X(SHRT_MIN) X(SHRT_MAX) X(USHRT_MAX) X(INT_MIN) X(INT_MAX)      \
  X(UINT_MAX) X(LONG_MAX) X(LONG_MIN) X(true) X(false) X(offsetof(struct hdr_pair, i)) X(NULL == (void *)0)          \
  X(FLT_RADIX) X(FLT_MANT_DIG) X(DBL_MANT_DIG) X(FLT_DIG) X(DBL_DIG) X(FLT_MIN_EXP) X(DBL_MIN_EXP) X(FLT_MAX_EXP)    \
  X(DBL_MAX_EXP) X(FLT_MIN_10_EXP) X(DBL_MAX_10_EXP)
#define HDR_DOUBLES(X)                                                                                                 \
  X(FLT_EPSILON) X(FLT_MAX) X(FLT_MIN) X(DBL_EPSILON) X(DBL_MAX) X(DBL_MIN) X(DBL_TRUE_MIN)

#define HDR_COUNT(e) +1
enum { HDR_NINTS = 0 HDR_INTS(HDR_COUNT), HDR_NDOUBLES = 0 HDR_DOUBLES(HDR_COUNT) };

struct hdr_args {
  kk_view ints, doubles; /* int64 and double, HDR_NINTS and HDR_NDOUBLES long */
};

KK_DECLARE_KERNEL(hdr_values);

#endif
