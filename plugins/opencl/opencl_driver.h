/* plugins/opencl/opencl_driver.h -- the OpenCL API, opened lazily from libOpenCL.so.1 so the plugin loads without an ICD loader. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_OPENCL_DRIVER_H
#define KK_OPENCL_DRIVER_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

/* One entry per OpenCL function the plugin uses (OpenCL 2.1 at most). */
#define OPENCL_FUNCTIONS(X)                                                                               \
  X(clGetPlatformIDs, cl_int, (cl_uint, cl_platform_id *, cl_uint *))                                     \
  X(clGetPlatformInfo, cl_int, (cl_platform_id, cl_platform_info, size_t, void *, size_t *))              \
  X(clGetDeviceIDs, cl_int, (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *))         \
  X(clGetDeviceInfo, cl_int, (cl_device_id, cl_device_info, size_t, void *, size_t *))                    \
  X(clCreateContext, cl_context,                                                                          \
    (const cl_context_properties *, cl_uint, const cl_device_id *,                                        \
     void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *))                   \
  X(clReleaseContext, cl_int, (cl_context))                                                               \
  X(clCreateCommandQueueWithProperties, cl_command_queue,                                                 \
    (cl_context, cl_device_id, const cl_queue_properties *, cl_int *))                                    \
  X(clReleaseCommandQueue, cl_int, (cl_command_queue))                                                    \
  X(clGetCommandQueueInfo, cl_int, (cl_command_queue, cl_command_queue_info, size_t, void *, size_t *))  \
  X(clFinish, cl_int, (cl_command_queue))                                                                 \
  X(clFlush, cl_int, (cl_command_queue))                                                                  \
  X(clSVMAlloc, void *, (cl_context, cl_svm_mem_flags, size_t, cl_uint))                                  \
  X(clSVMFree, void, (cl_context, void *))                                                                \
  X(clEnqueueSVMMemcpy, cl_int,                                                                           \
    (cl_command_queue, cl_bool, void *, const void *, size_t, cl_uint, const cl_event *, cl_event *))     \
  X(clEnqueueSVMMemFill, cl_int,                                                                          \
    (cl_command_queue, void *, const void *, size_t, size_t, cl_uint, const cl_event *, cl_event *))      \
  X(clCreateProgramWithSource, cl_program, (cl_context, cl_uint, const char **, const size_t *, cl_int *))  \
  X(clCreateProgramWithBinary, cl_program,                                                                \
    (cl_context, cl_uint, const cl_device_id *, const size_t *, const unsigned char **, cl_int *, cl_int *)) \
  X(clBuildProgram, cl_int,                                                                               \
    (cl_program, cl_uint, const cl_device_id *, const char *, void(CL_CALLBACK *)(cl_program, void *), void *)) \
  X(clGetProgramBuildInfo, cl_int, (cl_program, cl_device_id, cl_program_build_info, size_t, void *, size_t *)) \
  X(clReleaseProgram, cl_int, (cl_program))                                                               \
  X(clCreateKernel, cl_kernel, (cl_program, const char *, cl_int *))                                      \
  X(clReleaseKernel, cl_int, (cl_kernel))                                                                 \
  X(clSetKernelArg, cl_int, (cl_kernel, cl_uint, size_t, const void *))                                   \
  X(clSetKernelArgSVMPointer, cl_int, (cl_kernel, cl_uint, const void *))                                 \
  X(clGetKernelWorkGroupInfo, cl_int, (cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *, size_t *)) \
  X(clEnqueueNDRangeKernel, cl_int,                                                                       \
    (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *, cl_uint,       \
     const cl_event *, cl_event *))                                                                       \
  X(clWaitForEvents, cl_int, (cl_uint, const cl_event *))                                                 \
  X(clReleaseEvent, cl_int, (cl_event))

/* clCreateProgramWithIL is OpenCL 2.1: looked up, but optional. */
typedef cl_program (*opencl_create_with_il_fn)(cl_context, const void *, size_t, cl_int *);

typedef struct opencl_driver {
#define OPENCL_MEMBER(name, ret, params) ret(CL_API_CALL *name) params;
  OPENCL_FUNCTIONS(OPENCL_MEMBER)
#undef OPENCL_MEMBER
  opencl_create_with_il_fn clCreateProgramWithIL;
} opencl_driver_t;

#endif
