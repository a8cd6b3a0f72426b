/* plugins/levelzero/levelzero_plugin.c -- the Level Zero backend's entry point: loader and driver discovery, devices and the operations table. */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levelzero_internal.h"

static levelzero_ctx_t g_levelzero;

void *levelzero_driver_open(levelzero_driver_t *d, char *why, size_t why_size) {
  const char *name = getenv("KK_LEVELZERO_LIBRARY");
  if (!name || !*name)
    name = "libze_loader.so.1";
  void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, why_size, "%s", e ? e : "libze_loader.so.1 cannot be opened");
    return NULL;
  }
#define LEVELZERO_LOOKUP(fn, params)                                                           \
  {                                                                                            \
    void *p_ = dlsym(lib, #fn);                                                                \
    if (!p_) {                                                                                 \
      snprintf(why, why_size, "%s has no %s: a Level Zero 1.x loader is needed", name, #fn);   \
      dlclose(lib);                                                                            \
      return NULL;                                                                             \
    }                                                                                          \
    memcpy(&d->fn, &p_, sizeof p_);                                                            \
  }
  LEVELZERO_FUNCTIONS(LEVELZERO_LOOKUP)
#undef LEVELZERO_LOOKUP
  return lib;
}

const char *levelzero_error_name(ze_result_t r) {
  switch (r) {
#define N(x) \
  case x:    \
    return #x;
    N(ZE_RESULT_SUCCESS) N(ZE_RESULT_NOT_READY) N(ZE_RESULT_ERROR_DEVICE_LOST) N(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
    N(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY) N(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    N(ZE_RESULT_ERROR_MODULE_LINK_FAILURE) N(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET)
    N(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE) N(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS)
    N(ZE_RESULT_ERROR_NOT_AVAILABLE) N(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE) N(ZE_RESULT_ERROR_UNINITIALIZED)
    N(ZE_RESULT_ERROR_UNSUPPORTED_VERSION) N(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE) N(ZE_RESULT_ERROR_INVALID_ARGUMENT)
    N(ZE_RESULT_ERROR_INVALID_NULL_HANDLE) N(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)
    N(ZE_RESULT_ERROR_INVALID_NULL_POINTER) N(ZE_RESULT_ERROR_INVALID_SIZE) N(ZE_RESULT_ERROR_UNSUPPORTED_SIZE)
    N(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT) N(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT)
    N(ZE_RESULT_ERROR_INVALID_ENUMERATION) N(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION)
    N(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY) N(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)
    N(ZE_RESULT_ERROR_INVALID_KERNEL_NAME) N(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME)
    N(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION) N(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION)
    N(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX) N(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
    N(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE) N(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)
    N(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE) N(ZE_RESULT_ERROR_OVERLAPPING_REGIONS) N(ZE_RESULT_ERROR_UNKNOWN)
#undef N
  default:
    return "ze_result_t";
  }
}

kk_status_t levelzero_fail(const levelzero_ctx_t *c, ze_result_t r, const char *fmt, ...) {
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return c->hs->error(c->hs->core, levelzero_status_of(r), levelzero_error_name(r), (int64_t)r, "%s", what);
}

/* ---- lifetime and devices --------------------------------------------------------------- */

static uint32_t or_default(uint32_t v, uint32_t dflt) { return v ? v : dflt; }

/* Fills d from the device; returns NULL when kk can use it, else why not. */
static const char *probe_device(levelzero_ctx_t *c, levelzero_dev_t *d, char *why, size_t why_size) {
  d->props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  ze_result_t r = c->ze.zeDeviceGetProperties(d->id, &d->props);
  if (r != ZE_RESULT_SUCCESS) {
    snprintf(why, why_size, "zeDeviceGetProperties: %s", levelzero_error_name(r));
    return why;
  }
  d->props.name[sizeof d->props.name - 1] = '\0';
  if (d->props.type != ZE_DEVICE_TYPE_GPU) {
    snprintf(why, why_size, "%.100s: not a GPU (type %d)", d->props.name, (int)d->props.type);
    return why;
  }
  ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
  if ((r = c->ze.zeDeviceGetComputeProperties(d->id, &cp)) != ZE_RESULT_SUCCESS) {
    snprintf(why, why_size, "%.100s: zeDeviceGetComputeProperties: %s", d->props.name, levelzero_error_name(r));
    return why;
  }
  /* kk's kernels are SPIR-V 1.2 with doubles and 64-bit atomics (as on
   * opencl).  A driver that reports no SPIR-V version at all (the loader's
   * null driver reports 0 for everything) is not judged on these. */
  ze_device_module_properties_t mod = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
  if ((r = c->ze.zeDeviceGetModuleProperties(d->id, &mod)) != ZE_RESULT_SUCCESS) {
    snprintf(why, why_size, "%.100s: zeDeviceGetModuleProperties: %s", d->props.name, levelzero_error_name(r));
    return why;
  }
  if (mod.spirvVersionSupported != 0) {
    if (mod.spirvVersionSupported < ZE_MAKE_VERSION(1, 2)) {
      snprintf(why, why_size, "%.100s: SPIR-V %u.%u, kk's kernels are SPIR-V 1.2", d->props.name,
               (unsigned)(mod.spirvVersionSupported >> 16), (unsigned)(mod.spirvVersionSupported & 0xffff));
      return why;
    }
    if (!(mod.flags & ZE_DEVICE_MODULE_FLAG_FP64) || !(mod.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS)) {
      snprintf(why, why_size, "%.100s: no double precision or no 64-bit atomics, which kk's kernels use",
               d->props.name);
      return why;
    }
  }
  d->max_group = or_default(cp.maxTotalGroupSize, LEVELZERO_DEFAULT_GROUP);
  d->local_mem = or_default(cp.maxSharedLocalMemory, LEVELZERO_DEFAULT_LOCAL_MEM);
  d->units = or_default(d->props.numSlices * d->props.numSubslicesPerSlice, 1);
  uint32_t nmem = 0;
  if (c->ze.zeDeviceGetMemoryProperties(d->id, &nmem, NULL) == ZE_RESULT_SUCCESS && nmem > 0) {
    ze_device_memory_properties_t mp[8];
    if (nmem > 8)
      nmem = 8;
    for (uint32_t i = 0; i < nmem; i++)
      mp[i] = (ze_device_memory_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    if (c->ze.zeDeviceGetMemoryProperties(d->id, &nmem, mp) == ZE_RESULT_SUCCESS)
      for (uint32_t i = 0; i < nmem; i++)
        d->memory += mp[i].totalSize;
  }
  /* the first queue group with compute: launches, copies and fills go there */
  uint32_t ng = 0;
  if ((r = c->ze.zeDeviceGetCommandQueueGroupProperties(d->id, &ng, NULL)) != ZE_RESULT_SUCCESS || ng == 0) {
    snprintf(why, why_size, "%.100s: no command queue groups (%s)", d->props.name, levelzero_error_name(r));
    return why;
  }
  ze_command_queue_group_properties_t gp[16];
  if (ng > 16)
    ng = 16;
  for (uint32_t i = 0; i < ng; i++)
    gp[i] = (ze_command_queue_group_properties_t){.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
  if ((r = c->ze.zeDeviceGetCommandQueueGroupProperties(d->id, &ng, gp)) != ZE_RESULT_SUCCESS) {
    snprintf(why, why_size, "%.100s: zeDeviceGetCommandQueueGroupProperties: %s", d->props.name,
             levelzero_error_name(r));
    return why;
  }
  for (uint32_t i = 0; i < ng; i++)
    if (gp[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
      d->compute_ordinal = i;
      d->max_fill = gp[i].maxMemoryFillPatternSize;
      return NULL;
    }
  snprintf(why, why_size, "%.100s: no command queue group with compute", d->props.name);
  return why;
}

static kk_status_t levelzero_init(const kk_host_services_t *hs, void **ctx) {
  levelzero_ctx_t *c = &g_levelzero;
  memset(c, 0, sizeof *c);
  c->hs = hs;
  c->dev = -1;
  c->sp.hs = hs;
  c->sp.ops = &levelzero_spirv_ops;
  c->sp.ctx = c;
  pthread_mutex_init(&c->launch_lock, NULL);
  pthread_mutex_init(&c->inst_lock, NULL);
  *ctx = c;
  /* No loader is not an error: the plugin loads and reports 0 devices. */
  c->lib = levelzero_driver_open(&c->ze, c->why_none, sizeof c->why_none);
  if (!c->lib)
    return KK_OK;
  ze_result_t r = c->ze.zeInit(ZE_INIT_FLAG_GPU_ONLY);
  if (r != ZE_RESULT_SUCCESS) {
    snprintf(c->why_none, sizeof c->why_none, "no Level Zero GPU driver (zeInit: %s)", levelzero_error_name(r));
    return KK_OK;
  }
  uint32_t nd = 0;
  r = c->ze.zeDriverGet(&nd, NULL);
  if (r != ZE_RESULT_SUCCESS || nd == 0) {
    snprintf(c->why_none, sizeof c->why_none, "no Level Zero driver (zeDriverGet: %s)",
             r == ZE_RESULT_SUCCESS ? "0 drivers" : levelzero_error_name(r));
    return KK_OK;
  }
  ze_driver_handle_t *drivers = calloc(nd, sizeof *drivers);
  if (!drivers)
    return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "init: out of memory");
  if ((r = c->ze.zeDriverGet(&nd, drivers)) != ZE_RESULT_SUCCESS) {
    free(drivers);
    snprintf(c->why_none, sizeof c->why_none, "zeDriverGet: %s", levelzero_error_name(r));
    return KK_OK;
  }
  char skipped[768] = "";
  for (uint32_t i = 0; i < nd; i++) {
    uint32_t n = 0;
    if (c->ze.zeDeviceGet(drivers[i], &n, NULL) != ZE_RESULT_SUCCESS || n == 0)
      continue;
    ze_device_handle_t *ids = calloc(n, sizeof *ids);
    levelzero_dev_t *grown = realloc(c->devs, sizeof *c->devs * (size_t)(c->ndev + (int)n));
    if (!ids || !grown) {
      free(ids);
      free(drivers);
      if (grown)
        c->devs = grown;
      return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "init: out of memory");
    }
    c->devs = grown;
    if (c->ze.zeDeviceGet(drivers[i], &n, ids) != ZE_RESULT_SUCCESS)
      n = 0;
    for (uint32_t j = 0; j < n; j++) {
      levelzero_dev_t *d = &c->devs[c->ndev];
      memset(d, 0, sizeof *d);
      d->driver = drivers[i];
      d->id = ids[j];
      char why[256];
      const char *no = probe_device(c, d, why, sizeof why);
      if (no) {
        size_t l = strlen(skipped);
        snprintf(skipped + l, sizeof skipped - l, "%s%s", l ? "; " : "", no);
      } else {
        c->ndev++;
      }
    }
    free(ids);
  }
  free(drivers);
  if (c->ndev == 0)
    snprintf(c->why_none, sizeof c->why_none, "no usable Level Zero device%s%s", *skipped ? ": " : "", skipped);
  return KK_OK;
}

static void levelzero_finalize(void *ctx) {
  levelzero_ctx_t *c = ctx;
  if (c->dev >= 0) {
    levelzero_inst_free(c, &c->def);
    if (c->sp.locks)
      c->ze.zeMemFree(c->context, c->sp.locks);
    if (c->context)
      c->ze.zeContextDestroy(c->context);
  }
  free(c->devs);
  /* libze_loader stays loaded: zeInit initializes the loader and its drivers
   * once per process, and a later kk_initialize must find them as they are
   * (its dlopen only counts one more use). */
  pthread_mutex_destroy(&c->launch_lock);
  pthread_mutex_destroy(&c->inst_lock);
  memset(c, 0, sizeof *c);
}

static int32_t levelzero_device_count(void *ctx, const char **why_none) {
  levelzero_ctx_t *c = ctx;
  if (c->ndev == 0 && why_none)
    *why_none = c->why_none;
  return c->ndev;
}

static kk_status_t levelzero_device_props(void *ctx, int32_t dev, kk_plugin_device_t *p) {
  levelzero_ctx_t *c = ctx;
  const levelzero_dev_t *d = &c->devs[dev];
  const ze_device_properties_t *dp = &d->props;
  snprintf(p->name, sizeof p->name, "%.127s", dp->name);
  if (dp->vendorId == 0x8086)
    snprintf(p->vendor, sizeof p->vendor, "Intel");
  else
    snprintf(p->vendor, sizeof p->vendor, "vendor 0x%04x", (unsigned)dp->vendorId);
  snprintf(p->arch, sizeof p->arch, "SPIR-V (device 0x%04x)", (unsigned)dp->deviceId);
  p->preferred_layout = KK_LAYOUT_LEFT; /* the SPIR-V target's default layout */
  uint64_t lanes = (uint64_t)dp->numSlices * dp->numSubslicesPerSlice * dp->numEUsPerSubslice * dp->numThreadsPerEU *
                   dp->physicalEUSimdWidth;
  p->concurrency = lanes ? (int32_t)(lanes < 0x7fffffff ? lanes : 0x7fffffff) : (int32_t)d->max_group;
  p->warp_size = 1; /* vector lanes are a loop inside a work-item (spirv.h), as on opencl */
  kkspv_device_limits(p, d->max_group, d->local_mem);
  p->memory_bytes = d->memory;
  return KK_OK;
}

static kk_status_t levelzero_device_open(void *ctx, int32_t dev) {
  levelzero_ctx_t *c = ctx;
  levelzero_dev_t *d = &c->devs[dev];
  ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
  ZE_TRY(c, c->ze.zeContextCreate(d->driver, &cd, &c->context), "zeContextCreate(%s)", d->props.name);
  c->dev = dev;
  c->sp.units = d->units;
  c->sp.max_wg = d->max_group;
  c->sp.local_mem = d->local_mem;
  size_t lock_bytes = (size_t)KK_SPIRV_LOCK_COUNT * sizeof(uint32_t);
  void *locks = NULL;
  kk_status_t st = levelzero_alloc(c, LEVELZERO_SPACE_DEVICE, lock_bytes, &locks);
  if (st != KK_OK)
    return st;
  c->sp.locks = locks;
  if ((st = levelzero_inst_init(c, &c->def)) != KK_OK)
    return st;
  uint32_t zero = 0;
  pthread_mutex_lock(&c->def.sp.lock);
  ze_result_t r = c->ze.zeCommandListAppendMemoryFill(c->def.list, c->sp.locks, &zero, sizeof zero, lock_bytes, NULL, 0,
                                                      NULL);
  c->def.pending = true;
  st = r == ZE_RESULT_SUCCESS ? levelzero_sync_locked(c, &c->def) : levelzero_fail(c, r, "clearing the lock table");
  pthread_mutex_unlock(&c->def.sp.lock);
  return st;
}

static const char *const levelzero_image_formats[] = {"spirv", NULL};

static const kk_plugin_ops_t levelzero_ops = {
    .struct_size = sizeof(kk_plugin_ops_t),
    .abi_version = KK_PLUGIN_ABI_VERSION,
    .name = "levelzero",
    .priority = 80, /* docs/plugin-abi.md: cuda 100, hip 90, levelzero 80 */
    .flags = 0,
    .tools_device_type = KK_TOOLS_DEVICE_SYCL, /* Kokkos' SYCL backend runs on Level Zero: its spaces, its type */
    .init = levelzero_init,
    .finalize = levelzero_finalize,
    .device_count = levelzero_device_count,
    .device_props = levelzero_device_props,
    .device_open = levelzero_device_open,
    .space_count = levelzero_space_count,
    .space_props = levelzero_space_props,
    .mem_alloc = levelzero_mem_alloc,
    .mem_free = levelzero_mem_free,
    .mem_copy = levelzero_mem_copy,
    .mem_set = levelzero_mem_set,
    .instance_create = levelzero_instance_create,
    .instance_destroy = levelzero_instance_destroy,
    .instance_fence = levelzero_instance_fence,
    .fence_all = levelzero_fence_all,
    .mem_fill = levelzero_mem_fill,
    .launch = levelzero_launch,
    .image_formats = levelzero_image_formats,
    .module_load = levelzero_module_load,
    .module_unload = levelzero_module_unload,
    .kernel_get = levelzero_kernel_get,
    .team_size_query = levelzero_team_size_query,
};

KK_PLUGIN_EXPORT const kk_plugin_ops_t *kk_plugin_levelzero_entry(uint32_t core_abi, const kk_host_services_t *hs) {
  if (KK_PLUGIN_ABI_MAJOR_OF(core_abi) != KK_PLUGIN_ABI_MAJOR || KK_PLUGIN_ABI_MINOR_OF(core_abi) < 2) {
    hs->error(hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0, "needs plugin ABI 1.2 or later, the core has %u.%u",
              KK_PLUGIN_ABI_MAJOR_OF(core_abi), KK_PLUGIN_ABI_MINOR_OF(core_abi));
    return NULL;
  }
  return &levelzero_ops;
}
