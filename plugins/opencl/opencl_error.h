/* plugins/opencl/opencl_error.h -- OpenCL errors as kk statuses and messages, in one place. */
#ifndef KK_OPENCL_ERROR_H
#define KK_OPENCL_ERROR_H

#include <kk/plugin.h>

#include "opencl_driver.h"

struct opencl_ctx;

/* The kk status of an OpenCL error code. */
static inline kk_status_t opencl_status_of(cl_int r) {
  switch (r) {
  case CL_SUCCESS:
    return KK_OK;
  case CL_OUT_OF_RESOURCES:
  case CL_OUT_OF_HOST_MEMORY:
  case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    return KK_ERROR_OUT_OF_MEMORY;
  case CL_INVALID_VALUE:
  case CL_INVALID_ARG_SIZE:
  case CL_INVALID_ARG_VALUE:
    return KK_ERROR_INVALID_ARGUMENT;
  case CL_DEVICE_NOT_FOUND:
  case CL_DEVICE_NOT_AVAILABLE:
    return KK_ERROR_NO_DEVICE;
  case CL_INVALID_KERNEL_NAME:
    return KK_ERROR_NOT_FOUND;
  case CL_INVALID_WORK_GROUP_SIZE:
  case CL_INVALID_WORK_ITEM_SIZE:
    return KK_ERROR_LIMIT;
  default:
    return KK_ERROR_BACKEND;
  }
}

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
const char *opencl_error_name(cl_int r);

/* Records "what: CL_X" with the native code and returns the kk status
 * (defined in opencl_plugin.c). */
kk_status_t opencl_fail(const struct opencl_ctx *c, cl_int r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Calls OpenCL and returns from the calling function on error. */
#define CL_TRY(c, call, ...)                                                  \
  do {                                                                        \
    cl_int cl_r_ = (call);                                                    \
    if (cl_r_ != CL_SUCCESS)                                                  \
      return opencl_fail((c), cl_r_, __VA_ARGS__);                            \
  } while (0)

#endif
