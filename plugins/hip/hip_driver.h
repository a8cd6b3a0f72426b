/* plugins/hip/hip_driver.h -- the HIP runtime API, opened lazily from libamdhip64 so the plugin loads without ROCm. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_HIP_DRIVER_H
#define KK_HIP_DRIVER_H

#include <hip/hip_runtime_api.h>

/* The calls the GPU layer makes itself (kks_api_t's, in its order). */
#define HIP_SIMT_SYMS                                                                                           \
  "hipMalloc hipMallocManaged hipHostMalloc hipHostGetDevicePointer hipFree hipHostFree hipMemsetD8Async "      \
  "hipMemsetD16Async hipMemsetD32Async hipStreamCreateWithFlags hipStreamDestroy hipStreamSynchronize "         \
  "hipStreamQuery hipDeviceSynchronize hipModuleLoadData hipModuleUnload hipModuleGetFunction "                 \
  "hipModuleGetGlobal hipFuncGetAttribute hipModuleOccupancyMaxActiveBlocksPerMultiprocessor "                  \
  "hipModuleLaunchKernel hipEventCreateWithFlags hipEventDestroy hipEventRecord hipStreamWaitEvent"

/* The graph calls of the GPU layer (kks_graph_api_t's, in its order); optional. */
#define HIP_GRAPH_SYMS                                                                                          \
  "hipStreamBeginCapture hipStreamEndCapture hipStreamGetCaptureInfo_v2 hipStreamUpdateCaptureDependencies "    \
  "hipGraphInstantiateWithFlags hipGraphLaunch hipGraphExecDestroy hipGraphDestroy hipGraphKernelNodeGetParams " \
  "hipGraphExecKernelNodeSetParams"

/* The calls only the HIP plugin makes, looked up by name, and their types
 * (from the HIP headers the plugin is built with; the library is never
 * linked). */
#define HIP_RUNTIME_FUNCTIONS(X)                                                                                \
  X(hipInit, hipError_t, (unsigned int))                                                                        \
  X(hipGetErrorName, const char *, (hipError_t))                                                                \
  X(hipGetErrorString, const char *, (hipError_t))                                                              \
  X(hipGetDeviceCount, hipError_t, (int *))                                                                     \
  X(hipSetDevice, hipError_t, (int))                                                                            \
  X(hipDeviceGetName, hipError_t, (char *, int, hipDevice_t))                                                   \
  X(hipDeviceGetAttribute, hipError_t, (int *, hipDeviceAttribute_t, int))                                      \
  X(hipGetDeviceProperties, hipError_t, (hipDeviceProp_t *, int))                                               \
  X(hipDeviceTotalMem, hipError_t, (size_t *, hipDevice_t))                                                     \
  X(hipMemcpyAsync, hipError_t, (void *, const void *, size_t, hipMemcpyKind, hipStream_t))

typedef struct hip_runtime {
#define HIP_RUNTIME_MEMBER(name, ret, params) ret(*name) params;
  HIP_RUNTIME_FUNCTIONS(HIP_RUNTIME_MEMBER)
#undef HIP_RUNTIME_MEMBER
} hip_runtime_t;

#endif
