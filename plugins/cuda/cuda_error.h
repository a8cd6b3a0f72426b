/* plugins/cuda/cuda_error.h -- CUDA driver errors as kk statuses, in one place. */
#ifndef KK_CUDA_ERROR_H
#define KK_CUDA_ERROR_H

#include <cuda.h>

#include "gpu.h"

/* The kk status of a driver error (others: KK_ERROR_BACKEND). */
static inline kk_status_t cuda_status_of(CUresult r) {
  static const int64_t map[][2] = {
      {CUDA_ERROR_OUT_OF_MEMORY, KK_ERROR_OUT_OF_MEMORY}, {CUDA_ERROR_INVALID_VALUE, KK_ERROR_INVALID_ARGUMENT},
      {CUDA_ERROR_INVALID_HANDLE, KK_ERROR_INVALID_ARGUMENT}, {CUDA_ERROR_NO_DEVICE, KK_ERROR_NO_DEVICE},
      {CUDA_ERROR_INVALID_DEVICE, KK_ERROR_NO_DEVICE}, {CUDA_ERROR_NO_BINARY_FOR_GPU, KK_ERROR_NOT_FOUND},
      {CUDA_ERROR_NOT_FOUND, KK_ERROR_NOT_FOUND}, {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, KK_ERROR_LIMIT},
      {CUDA_ERROR_NOT_SUPPORTED, KK_ERROR_UNSUPPORTED}, {0, 0}};
  return kkg_status_of(map, r);
}

#endif
