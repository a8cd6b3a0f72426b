/* plugins/opencl/opencl_error.h -- OpenCL errors as kk statuses and names, in one place. */
#ifndef KK_OPENCL_ERROR_H
#define KK_OPENCL_ERROR_H

#include "gpu.h"
#include "opencl_driver.h"

/* The kk status of an OpenCL error code (others: KK_ERROR_BACKEND). */
static inline kk_status_t opencl_status_of(cl_int r) {
  static const int64_t map[][2] = {
      {CL_OUT_OF_RESOURCES, KK_ERROR_OUT_OF_MEMORY}, {CL_OUT_OF_HOST_MEMORY, KK_ERROR_OUT_OF_MEMORY},
      {CL_MEM_OBJECT_ALLOCATION_FAILURE, KK_ERROR_OUT_OF_MEMORY}, {CL_INVALID_VALUE, KK_ERROR_INVALID_ARGUMENT},
      {CL_INVALID_ARG_SIZE, KK_ERROR_INVALID_ARGUMENT}, {CL_INVALID_ARG_VALUE, KK_ERROR_INVALID_ARGUMENT},
      {CL_DEVICE_NOT_FOUND, KK_ERROR_NO_DEVICE}, {CL_DEVICE_NOT_AVAILABLE, KK_ERROR_NO_DEVICE},
      {CL_INVALID_KERNEL_NAME, KK_ERROR_NOT_FOUND}, {CL_INVALID_WORK_GROUP_SIZE, KK_ERROR_LIMIT},
      {CL_INVALID_WORK_ITEM_SIZE, KK_ERROR_LIMIT}, {0, 0}};
  return kkg_status_of(map, r);
}

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
const char *opencl_error_name(cl_int r);

#endif
