/* plugins/hip/hip_runtime.h -- the HIP runtime API, opened lazily from libamdhip64 so the plugin loads without ROCm. */
#ifndef KK_HIP_RUNTIME_H
#define KK_HIP_RUNTIME_H

#include <hip/hip_runtime_api.h>

/* One entry per runtime function the plugin uses: the symbol it is looked up
 * by and its type.  Types come from the HIP headers the plugin is built
 * with; the library is never linked. */
#define HIP_RUNTIME_FUNCTIONS(X)                                                                                 \
  X(hipInit, "hipInit", hipError_t, (unsigned int))                                                              \
  X(hipRuntimeGetVersion, "hipRuntimeGetVersion", hipError_t, (int *))                                           \
  X(hipGetErrorName, "hipGetErrorName", const char *, (hipError_t))                                              \
  X(hipGetErrorString, "hipGetErrorString", const char *, (hipError_t))                                          \
  X(hipGetDeviceCount, "hipGetDeviceCount", hipError_t, (int *))                                                 \
  X(hipSetDevice, "hipSetDevice", hipError_t, (int))                                                             \
  X(hipDeviceGetName, "hipDeviceGetName", hipError_t, (char *, int, hipDevice_t))                                \
  X(hipDeviceGetAttribute, "hipDeviceGetAttribute", hipError_t, (int *, hipDeviceAttribute_t, int))              \
  X(hipGetDeviceProperties, "hipGetDeviceProperties", hipError_t, (hipDeviceProp_t *, int))                      \
  X(hipDeviceTotalMem, "hipDeviceTotalMem", hipError_t, (size_t *, hipDevice_t))                                 \
  X(hipDeviceSynchronize, "hipDeviceSynchronize", hipError_t, (void))                                            \
  X(hipMalloc, "hipMalloc", hipError_t, (void **, size_t))                                                       \
  X(hipMallocManaged, "hipMallocManaged", hipError_t, (void **, size_t, unsigned int))                           \
  X(hipHostMalloc, "hipHostMalloc", hipError_t, (void **, size_t, unsigned int))                                 \
  X(hipHostGetDevicePointer, "hipHostGetDevicePointer", hipError_t, (void **, void *, unsigned int))            \
  X(hipFree, "hipFree", hipError_t, (void *))                                                                    \
  X(hipHostFree, "hipHostFree", hipError_t, (void *))                                                            \
  X(hipMemcpyAsync, "hipMemcpyAsync", hipError_t, (void *, const void *, size_t, hipMemcpyKind, hipStream_t))    \
  X(hipMemcpyHtoD, "hipMemcpyHtoD", hipError_t, (hipDeviceptr_t, void *, size_t))                                \
  X(hipMemcpyDtoH, "hipMemcpyDtoH", hipError_t, (void *, hipDeviceptr_t, size_t))                                \
  X(hipMemsetD8Async, "hipMemsetD8Async", hipError_t, (hipDeviceptr_t, unsigned char, size_t, hipStream_t))      \
  X(hipMemsetD16Async, "hipMemsetD16Async", hipError_t, (hipDeviceptr_t, unsigned short, size_t, hipStream_t))   \
  X(hipMemsetD32Async, "hipMemsetD32Async", hipError_t, (hipDeviceptr_t, int, size_t, hipStream_t))              \
  X(hipStreamCreateWithFlags, "hipStreamCreateWithFlags", hipError_t, (hipStream_t *, unsigned int))             \
  X(hipStreamDestroy, "hipStreamDestroy", hipError_t, (hipStream_t))                                             \
  X(hipStreamSynchronize, "hipStreamSynchronize", hipError_t, (hipStream_t))                                     \
  X(hipStreamQuery, "hipStreamQuery", hipError_t, (hipStream_t))                                                 \
  X(hipModuleLoadData, "hipModuleLoadData", hipError_t, (hipModule_t *, const void *))                           \
  X(hipModuleUnload, "hipModuleUnload", hipError_t, (hipModule_t))                                               \
  X(hipModuleGetFunction, "hipModuleGetFunction", hipError_t, (hipFunction_t *, hipModule_t, const char *))      \
  X(hipModuleGetGlobal, "hipModuleGetGlobal", hipError_t, (hipDeviceptr_t *, size_t *, hipModule_t, const char *)) \
  X(hipFuncGetAttribute, "hipFuncGetAttribute", hipError_t, (int *, hipFunction_attribute, hipFunction_t))       \
  X(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor",    \
    hipError_t, (int *, hipFunction_t, int, size_t))                                                             \
  X(hipModuleLaunchKernel, "hipModuleLaunchKernel", hipError_t,                                                  \
    (hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, hipStream_t, void **,  \
     void **))

typedef struct hip_runtime {
#define HIP_RUNTIME_MEMBER(name, sym, ret, params) ret(*name) params;
  HIP_RUNTIME_FUNCTIONS(HIP_RUNTIME_MEMBER)
#undef HIP_RUNTIME_MEMBER
} hip_runtime_t;

/* Opens the HIP runtime ($KK_HIP_LIBRARY, else libamdhip64.so.5, else
 * libamdhip64.so) and resolves every entry; on failure writes why into
 * `why` and returns NULL. */
void *hip_runtime_open(hip_runtime_t *r, char *why, size_t why_size);

#endif
