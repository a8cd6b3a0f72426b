/* tests/headers/headers.kk.c -- a kernel file whose shared header includes <stdint.h>, <stddef.h>, <stdbool.h>, <float.h> and <limits.h>: it builds for every target and reports what they define. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "headers.h"

/* launched on a range of one */
KK_FOR(hdr_values, struct hdr_args, i) {
  (void)i;
  int64_t n = 0, d = 0;
#define HDR_STORE_INT(e)                      \
  {                                           \
    KK_AT(args->ints, int64_t, n) = (int64_t)(e); \
    n++;                                      \
  }
#define HDR_STORE_DOUBLE(e)                      \
  {                                              \
    KK_AT(args->doubles, double, d) = (double)(e); \
    d++;                                         \
  }
  HDR_INTS(HDR_STORE_INT)
  HDR_DOUBLES(HDR_STORE_DOUBLE)
}
