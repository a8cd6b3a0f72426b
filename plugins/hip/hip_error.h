/* plugins/hip/hip_error.h -- HIP runtime errors as kk statuses and messages, in one place. */
#ifndef KK_HIP_ERROR_H
#define KK_HIP_ERROR_H

#include <hip/hip_runtime_api.h>

#include <kk/plugin.h>

struct hip_ctx;

/* The kk status of a runtime error. */
static inline kk_status_t hip_status_of(hipError_t r) {
  switch (r) {
  case hipSuccess:
    return KK_OK;
  case hipErrorOutOfMemory:
    return KK_ERROR_OUT_OF_MEMORY;
  case hipErrorInvalidValue:
  case hipErrorInvalidHandle:
  case hipErrorInvalidDevicePointer:
    return KK_ERROR_INVALID_ARGUMENT;
  case hipErrorNoDevice:
  case hipErrorInvalidDevice:
    return KK_ERROR_NO_DEVICE;
  case hipErrorNoBinaryForGpu:
  case hipErrorNotFound:
  case hipErrorInvalidImage:
    return KK_ERROR_NOT_FOUND;
  case hipErrorLaunchOutOfResources:
    return KK_ERROR_LIMIT;
  case hipErrorNotSupported:
    return KK_ERROR_UNSUPPORTED;
  default:
    return KK_ERROR_BACKEND;
  }
}

/* Records "what: hipErrorX: the runtime's message" with the native code and
 * returns the kk status (defined in hip_plugin.c, where the runtime table is). */
kk_status_t hip_fail(const struct hip_ctx *c, hipError_t r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Calls the runtime and returns from the calling function on error. */
#define HIP_TRY(c, call, ...)                                                 \
  do {                                                                        \
    hipError_t hip_r_ = (call);                                               \
    if (hip_r_ != hipSuccess)                                                 \
      return hip_fail((c), hip_r_, __VA_ARGS__);                              \
  } while (0)

#endif
