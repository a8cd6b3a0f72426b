/* plugins/levelzero/levelzero_driver.h -- the Level Zero API, opened lazily from libze_loader.so.1 so the plugin loads without the loader. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_LEVELZERO_DRIVER_H
#define KK_LEVELZERO_DRIVER_H

#include <level_zero/ze_api.h>

/* One entry per Level Zero function the plugin uses (all in the 1.0 core API,
 * so a loader of any 1.x version has them). */
#define LEVELZERO_FUNCTIONS(X)                                                                                   \
  X(zeInit, (ze_init_flags_t))                                                                                  \
  X(zeDriverGet, (uint32_t *, ze_driver_handle_t *))                                                            \
  X(zeDeviceGet, (ze_driver_handle_t, uint32_t *, ze_device_handle_t *))                                        \
  X(zeDeviceGetProperties, (ze_device_handle_t, ze_device_properties_t *))                                      \
  X(zeDeviceGetComputeProperties, (ze_device_handle_t, ze_device_compute_properties_t *))                       \
  X(zeDeviceGetModuleProperties, (ze_device_handle_t, ze_device_module_properties_t *))                         \
  X(zeDeviceGetMemoryProperties, (ze_device_handle_t, uint32_t *, ze_device_memory_properties_t *))             \
  X(zeDeviceGetCommandQueueGroupProperties, (ze_device_handle_t, uint32_t *, ze_command_queue_group_properties_t *)) \
  X(zeContextCreate, (ze_driver_handle_t, const ze_context_desc_t *, ze_context_handle_t *))                    \
  X(zeContextDestroy, (ze_context_handle_t))                                                                    \
  X(zeCommandListCreateImmediate,                                                                               \
    (ze_context_handle_t, ze_device_handle_t, const ze_command_queue_desc_t *, ze_command_list_handle_t *))     \
  X(zeCommandListDestroy, (ze_command_list_handle_t))                                                           \
  X(zeCommandListAppendBarrier, (ze_command_list_handle_t, ze_event_handle_t, uint32_t, ze_event_handle_t *))   \
  X(zeCommandListAppendMemoryCopy,                                                                              \
    (ze_command_list_handle_t, void *, const void *, size_t, ze_event_handle_t, uint32_t, ze_event_handle_t *)) \
  X(zeCommandListAppendMemoryFill,                                                                              \
    (ze_command_list_handle_t, void *, const void *, size_t, size_t, ze_event_handle_t, uint32_t,               \
     ze_event_handle_t *))                                                                                      \
  X(zeCommandListAppendLaunchKernel,                                                                            \
    (ze_command_list_handle_t, ze_kernel_handle_t, const ze_group_count_t *, ze_event_handle_t, uint32_t,       \
     ze_event_handle_t *))                                                                                      \
  X(zeEventPoolCreate,                                                                                          \
    (ze_context_handle_t, const ze_event_pool_desc_t *, uint32_t, ze_device_handle_t *, ze_event_pool_handle_t *)) \
  X(zeEventPoolDestroy, (ze_event_pool_handle_t))                                                               \
  X(zeEventCreate, (ze_event_pool_handle_t, const ze_event_desc_t *, ze_event_handle_t *))                      \
  X(zeEventDestroy, (ze_event_handle_t))                                                                        \
  X(zeEventHostSynchronize, (ze_event_handle_t, uint64_t))                                                      \
  X(zeEventHostReset, (ze_event_handle_t))                                                                      \
  X(zeMemAllocDevice,                                                                                           \
    (ze_context_handle_t, const ze_device_mem_alloc_desc_t *, size_t, size_t, ze_device_handle_t, void **))     \
  X(zeMemAllocShared,                                                                                           \
    (ze_context_handle_t, const ze_device_mem_alloc_desc_t *, const ze_host_mem_alloc_desc_t *, size_t, size_t, \
     ze_device_handle_t, void **))                                                                              \
  X(zeMemAllocHost, (ze_context_handle_t, const ze_host_mem_alloc_desc_t *, size_t, size_t, void **))          \
  X(zeMemFree, (ze_context_handle_t, void *))                                                                   \
  X(zeModuleCreate,                                                                                             \
    (ze_context_handle_t, ze_device_handle_t, const ze_module_desc_t *, ze_module_handle_t *,                   \
     ze_module_build_log_handle_t *))                                                                           \
  X(zeModuleDestroy, (ze_module_handle_t))                                                                      \
  X(zeModuleBuildLogGetString, (ze_module_build_log_handle_t, size_t *, char *))                                \
  X(zeModuleBuildLogDestroy, (ze_module_build_log_handle_t))                                                    \
  X(zeKernelCreate, (ze_module_handle_t, const ze_kernel_desc_t *, ze_kernel_handle_t *))                       \
  X(zeKernelDestroy, (ze_kernel_handle_t))                                                                      \
  X(zeKernelGetProperties, (ze_kernel_handle_t, ze_kernel_properties_t *))                                      \
  X(zeKernelSetIndirectAccess, (ze_kernel_handle_t, ze_kernel_indirect_access_flags_t))                         \
  X(zeKernelSuggestGroupSize, (ze_kernel_handle_t, uint32_t, uint32_t, uint32_t, uint32_t *, uint32_t *, uint32_t *)) \
  X(zeKernelSetGroupSize, (ze_kernel_handle_t, uint32_t, uint32_t, uint32_t))                                   \
  X(zeKernelSetArgumentValue, (ze_kernel_handle_t, uint32_t, size_t, const void *))

typedef struct levelzero_driver {
#define LEVELZERO_MEMBER(name, params) ze_result_t(ZE_APICALL *name) params;
  LEVELZERO_FUNCTIONS(LEVELZERO_MEMBER)
#undef LEVELZERO_MEMBER
} levelzero_driver_t;

#endif
