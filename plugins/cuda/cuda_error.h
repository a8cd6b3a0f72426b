/* plugins/cuda/cuda_error.h -- CUDA driver errors as kk statuses and messages, in one place. */
#ifndef KK_CUDA_ERROR_H
#define KK_CUDA_ERROR_H

#include <cuda.h>

#include <kk/plugin.h>

struct cuda_ctx;

/* The kk status of a driver error. */
static inline kk_status_t cuda_status_of(CUresult r) {
  switch (r) {
  case CUDA_SUCCESS:
    return KK_OK;
  case CUDA_ERROR_OUT_OF_MEMORY:
    return KK_ERROR_OUT_OF_MEMORY;
  case CUDA_ERROR_INVALID_VALUE:
  case CUDA_ERROR_INVALID_HANDLE:
    return KK_ERROR_INVALID_ARGUMENT;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_INVALID_DEVICE:
    return KK_ERROR_NO_DEVICE;
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_NOT_FOUND:
    return KK_ERROR_NOT_FOUND;
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return KK_ERROR_LIMIT;
  case CUDA_ERROR_NOT_SUPPORTED:
    return KK_ERROR_UNSUPPORTED;
  default:
    return KK_ERROR_BACKEND;
  }
}

/* Records "what: CUDA_ERROR_X: the driver's message" with the native code and
 * returns the kk status (defined in cuda_plugin.c, where the driver table is). */
kk_status_t cuda_fail(const struct cuda_ctx *c, CUresult r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Calls the driver and returns from the calling function on error. */
#define CU_TRY(c, call, ...)                                                  \
  do {                                                                        \
    CUresult cu_r_ = (call);                                                  \
    if (cu_r_ != CUDA_SUCCESS)                                                \
      return cuda_fail((c), cu_r_, __VA_ARGS__);                              \
  } while (0)

#endif
