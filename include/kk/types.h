/* kk/types.h -- plain types shared by host code, kernel files and plugins (no functions). */
#ifndef KK_TYPES_H
#define KK_TYPES_H

#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
/* runtime compilers have no C library headers */
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
typedef unsigned long size_t;
#else
#include <stdint.h>
#endif

/* Maximum rank of a view and of a view descriptor. */
#define KK_MAX_RANK 8

/* Memory layout of a view of rank >= 2.
 *  RIGHT: the last index has stride 1 (C order); the default on host backends.
 *  LEFT:  the first index has stride 1 (Fortran order); the default on GPUs.
 *  STRIDE: arbitrary strides.
 *  DEFAULT: resolved when the view is created to the preferred layout of the
 *  backend that owns its memory space. */
typedef enum kk_layout {
  KK_LAYOUT_DEFAULT = 0,
  KK_LAYOUT_RIGHT = 1,
  KK_LAYOUT_LEFT = 2,
  KK_LAYOUT_STRIDE = 3,
  KK__LAYOUT_PIN = 0x7fffffff
} kk_layout_t;

#endif /* KK_TYPES_H */
