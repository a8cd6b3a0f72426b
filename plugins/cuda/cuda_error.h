/* plugins/cuda/cuda_error.h -- CUDA driver errors as kk statuses, in one place (names and messages come from the driver). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CUDA_ERROR_H
#define KK_CUDA_ERROR_H

#include <cuda.h>

/* {CUresult, kk status}; every other error is KK_ERROR_BACKEND. */
#define CUDA_STATUSES                                                                                            \
  {CUDA_ERROR_OUT_OF_MEMORY, KK_ERROR_OUT_OF_MEMORY}, {CUDA_ERROR_INVALID_VALUE, KK_ERROR_INVALID_ARGUMENT},     \
      {CUDA_ERROR_INVALID_HANDLE, KK_ERROR_INVALID_ARGUMENT}, {CUDA_ERROR_NO_DEVICE, KK_ERROR_NO_DEVICE},        \
      {CUDA_ERROR_INVALID_DEVICE, KK_ERROR_NO_DEVICE}, {CUDA_ERROR_NO_BINARY_FOR_GPU, KK_ERROR_NOT_FOUND},       \
      {CUDA_ERROR_NOT_FOUND, KK_ERROR_NOT_FOUND}, {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, KK_ERROR_LIMIT},          \
      {CUDA_ERROR_NOT_SUPPORTED, KK_ERROR_UNSUPPORTED}, {0, 0}

/* The errors a faulting kernel leaves in the context ("sticky": the context
 * is unusable and every later call returns them), 0 last. */
#define CUDA_LOST                                                                                                \
  CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_ASSERT, CUDA_ERROR_HARDWARE_STACK_ERROR, CUDA_ERROR_ILLEGAL_INSTRUCTION, \
      CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_INVALID_ADDRESS_SPACE, CUDA_ERROR_INVALID_PC,                    \
      CUDA_ERROR_LAUNCH_FAILED, 0

#endif
