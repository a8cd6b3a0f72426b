/* plugins/hip/hip_error.h -- HIP runtime errors as kk statuses, in one place. */
#ifndef KK_HIP_ERROR_H
#define KK_HIP_ERROR_H

#include <hip/hip_runtime_api.h>

#include "gpu.h"

/* The kk status of a runtime error (others: KK_ERROR_BACKEND). */
static inline kk_status_t hip_status_of(hipError_t r) {
  static const int64_t map[][2] = {{hipErrorOutOfMemory, KK_ERROR_OUT_OF_MEMORY},
                                   {hipErrorInvalidValue, KK_ERROR_INVALID_ARGUMENT},
                                   {hipErrorInvalidHandle, KK_ERROR_INVALID_ARGUMENT},
                                   {hipErrorInvalidDevicePointer, KK_ERROR_INVALID_ARGUMENT},
                                   {hipErrorNoDevice, KK_ERROR_NO_DEVICE},
                                   {hipErrorInvalidDevice, KK_ERROR_NO_DEVICE},
                                   {hipErrorNoBinaryForGpu, KK_ERROR_NOT_FOUND},
                                   {hipErrorNotFound, KK_ERROR_NOT_FOUND},
                                   {hipErrorInvalidImage, KK_ERROR_NOT_FOUND},
                                   {hipErrorLaunchOutOfResources, KK_ERROR_LIMIT},
                                   {hipErrorNotSupported, KK_ERROR_UNSUPPORTED},
                                   {0, 0}};
  return kkg_status_of(map, r);
}

#endif
