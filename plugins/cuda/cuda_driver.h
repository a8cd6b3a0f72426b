/* plugins/cuda/cuda_driver.h -- the CUDA driver API, opened lazily from libcuda.so.1 so the plugin loads without a driver. */
#ifndef KK_CUDA_DRIVER_H
#define KK_CUDA_DRIVER_H

#include <cuda.h>

/* One entry per driver function the plugin uses: the name it is looked up
 * by (the versioned symbol the header maps the API name to) and its type. */
#define CUDA_DRIVER_FUNCTIONS(X)                                                                          \
  X(cuInit, "cuInit", CUresult, (unsigned int))                                                          \
  X(cuDriverGetVersion, "cuDriverGetVersion", CUresult, (int *))                                         \
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
  X(cuCtxSynchronize, "cuCtxSynchronize", CUresult, (void))                                              \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr *, size_t))                                      \
  X(cuMemAllocManaged, "cuMemAllocManaged", CUresult, (CUdeviceptr *, size_t, unsigned int))             \
  X(cuMemHostAlloc, "cuMemHostAlloc", CUresult, (void **, size_t, unsigned int))                        \
  X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", CUresult, (CUdeviceptr *, void *, unsigned int)) \
  X(cuMemFree, "cuMemFree_v2", CUresult, (CUdeviceptr))                                                  \
  X(cuMemFreeHost, "cuMemFreeHost", CUresult, (void *))                                                  \
  X(cuMemcpyAsync, "cuMemcpyAsync", CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream))             \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", CUresult, (CUdeviceptr, const void *, size_t))                      \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", CUresult, (void *, CUdeviceptr, size_t))                            \
  X(cuMemsetD8Async, "cuMemsetD8Async", CUresult, (CUdeviceptr, unsigned char, size_t, CUstream))        \
  X(cuMemsetD16Async, "cuMemsetD16Async", CUresult, (CUdeviceptr, unsigned short, size_t, CUstream))     \
  X(cuMemsetD32Async, "cuMemsetD32Async", CUresult, (CUdeviceptr, unsigned int, size_t, CUstream))       \
  X(cuMemsetD2D32Async, "cuMemsetD2D32Async", CUresult,                                                  \
    (CUdeviceptr, size_t, unsigned int, size_t, size_t, CUstream))                                        \
  X(cuStreamCreate, "cuStreamCreate", CUresult, (CUstream *, unsigned int))                              \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream))                                         \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream))                                    \
  X(cuModuleLoadData, "cuModuleLoadData", CUresult, (CUmodule *, const void *))                          \
  X(cuModuleUnload, "cuModuleUnload", CUresult, (CUmodule))                                              \
  X(cuModuleGetFunction, "cuModuleGetFunction", CUresult, (CUfunction *, CUmodule, const char *))        \
  X(cuModuleGetGlobal, "cuModuleGetGlobal_v2", CUresult, (CUdeviceptr *, size_t *, CUmodule, const char *)) \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", CUresult, (int *, CUfunction_attribute, CUfunction))       \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", CUresult, (CUfunction, CUfunction_attribute, int))         \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", CUresult, \
    (int *, CUfunction, int, size_t))                                                                     \
  X(cuLaunchKernel, "cuLaunchKernel", CUresult,                                                          \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **))

typedef struct cuda_driver {
#define CUDA_DRIVER_MEMBER(name, sym, ret, params) ret(*name) params;
  CUDA_DRIVER_FUNCTIONS(CUDA_DRIVER_MEMBER)
#undef CUDA_DRIVER_MEMBER
} cuda_driver_t;

/* Opens libcuda.so.1 (or KK_CUDA_DRIVER_LIBRARY) and resolves every entry;
 * on failure writes why into `why` and returns NULL. */
void *cuda_driver_open(cuda_driver_t *d, char *why, size_t why_size);

#endif
