/* kk/types.h -- plain types shared by host code, kernel files and plugins (no functions). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TYPES_H
#define KK_TYPES_H

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_CPP_VERSION__)
/* the SPIR-V target (C++ for OpenCL): kernel_abi.h declares function-pointer
 * members the kernels never call */
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable
#endif
/* Targets without a C library (SPIR-V, and the CUDA source for NVRTC) get
 * kk's freestanding <stddef.h> and <stdint.h> from include/kk/target/freestanding,
 * which kkcc's recipes put first in their include path: a kernel file may
 * include them too, before or after this header. */
#include <stddef.h>
#include <stdint.h>

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
