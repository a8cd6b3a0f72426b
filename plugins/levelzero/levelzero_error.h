/* plugins/levelzero/levelzero_error.h -- Level Zero results as kk statuses and messages, in one place. */
#ifndef KK_LEVELZERO_ERROR_H
#define KK_LEVELZERO_ERROR_H

#include <kk/plugin.h>

#include "levelzero_driver.h"

struct levelzero_ctx;

/* The kk status of a Level Zero result. */
static inline kk_status_t levelzero_status_of(ze_result_t r) {
  switch (r) {
  case ZE_RESULT_SUCCESS:
    return KK_OK;
  case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
  case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY:
    return KK_ERROR_OUT_OF_MEMORY;
  case ZE_RESULT_ERROR_INVALID_ARGUMENT:
  case ZE_RESULT_ERROR_INVALID_NULL_HANDLE:
  case ZE_RESULT_ERROR_INVALID_NULL_POINTER:
  case ZE_RESULT_ERROR_INVALID_SIZE:
  case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE:
  case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX:
    return KK_ERROR_INVALID_ARGUMENT;
  case ZE_RESULT_ERROR_DEVICE_LOST:
  case ZE_RESULT_ERROR_UNINITIALIZED:
    return KK_ERROR_NO_DEVICE;
  case ZE_RESULT_ERROR_INVALID_KERNEL_NAME:
  case ZE_RESULT_ERROR_INVALID_FUNCTION_NAME:
    return KK_ERROR_NOT_FOUND;
  case ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION:
  case ZE_RESULT_ERROR_UNSUPPORTED_SIZE:
    return KK_ERROR_LIMIT;
  case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
  case ZE_RESULT_ERROR_UNSUPPORTED_VERSION:
    return KK_ERROR_UNSUPPORTED;
  default:
    return KK_ERROR_BACKEND;
  }
}

/* The name of a Level Zero result ("ZE_RESULT_ERROR_DEVICE_LOST"). */
const char *levelzero_error_name(ze_result_t r);

/* Records "what: ZE_RESULT_X" with the native code and returns the kk status
 * (defined in levelzero_plugin.c). */
kk_status_t levelzero_fail(const struct levelzero_ctx *c, ze_result_t r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Calls Level Zero and returns from the calling function on error. */
#define ZE_TRY(c, call, ...)                                                  \
  do {                                                                        \
    ze_result_t ze_r_ = (call);                                               \
    if (ze_r_ != ZE_RESULT_SUCCESS)                                           \
      return levelzero_fail((c), ze_r_, __VA_ARGS__);                         \
  } while (0)

#endif
