/* plugins/cuda/cuda_driver.h -- the CUDA driver API, opened lazily from libcuda.so.1 so the plugin loads without a driver. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CUDA_DRIVER_H
#define KK_CUDA_DRIVER_H

#include <cuda.h>

/* The calls the GPU layer makes itself (kks_api_t's, in its order), by the
 * versioned symbols the header maps the API names to. */
#define CUDA_SIMT_SYMS                                                                                          \
  "cuMemAlloc_v2 cuMemAllocManaged cuMemHostAlloc cuMemHostGetDevicePointer_v2 cuMemFree_v2 cuMemFreeHost "   \
  "cuMemsetD8Async cuMemsetD16Async cuMemsetD32Async cuStreamCreate cuStreamDestroy_v2 cuStreamSynchronize "  \
  "cuStreamQuery cuCtxSynchronize cuModuleLoadData cuModuleUnload cuModuleGetFunction cuModuleGetGlobal_v2 "  \
  "cuFuncGetAttribute cuOccupancyMaxActiveBlocksPerMultiprocessor cuLaunchKernel cuEventCreate cuEventDestroy_v2 " \
  "cuEventRecord cuStreamWaitEvent"

/* The graph calls of the GPU layer (kks_graph_api_t's, in its order); optional.  The capture info and
 * dependency update of CUDA 11.3-12.2 (without edge data), which newer drivers keep. */
#define CUDA_GRAPH_SYMS                                                                                         \
  "cuStreamBeginCapture_v2 cuStreamEndCapture cuStreamGetCaptureInfo_v2 cuStreamUpdateCaptureDependencies "    \
  "cuGraphInstantiateWithFlags cuGraphLaunch cuGraphExecDestroy cuGraphDestroy cuGraphKernelNodeGetParams_v2 "  \
  "cuGraphExecKernelNodeSetParams_v2"

/* The calls only the CUDA plugin makes: symbol and type of each. */
#define CUDA_DRIVER_FUNCTIONS(X)                                                                          \
  X(cuInit, "cuInit", CUresult, (unsigned int))                                                          \
  X(cuGetErrorName, "cuGetErrorName", CUresult, (CUresult, const char **))                               \
  X(cuGetErrorString, "cuGetErrorString", CUresult, (CUresult, const char **))                           \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult, (int *))                                             \
  X(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice *, int))                                             \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult, (char *, int, CUdevice))                               \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult, (int *, CUdevice_attribute, CUdevice))       \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", CUresult, (size_t *, CUdevice))                             \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult, (CUcontext *, CUdevice))             \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUresult, (CUdevice))                     \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext))                                           \
  X(cuMemcpyAsync, "cuMemcpyAsync", CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream))             \
  X(cuMemsetD2D32Async, "cuMemsetD2D32Async", CUresult,                                                  \
    (CUdeviceptr, size_t, unsigned int, size_t, size_t, CUstream))                                        \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", CUresult, (CUfunction, CUfunction_attribute, int))

typedef struct cuda_driver {
#define CUDA_DRIVER_MEMBER(name, sym, ret, params) ret(*name) params;
  CUDA_DRIVER_FUNCTIONS(CUDA_DRIVER_MEMBER)
#undef CUDA_DRIVER_MEMBER
} cuda_driver_t;

#endif
