/* plugins/hip/hip_plugin.c -- the HIP backend's entry point: runtime discovery, devices and the operations table. */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hip_internal.h"

static hip_ctx_t g_hip;

void *hip_runtime_open(hip_runtime_t *r, char *why, size_t why_size) {
  const char *env = getenv("KK_HIP_LIBRARY");
  const char *names[] = {env && *env ? env : "libamdhip64.so.5", env && *env ? NULL : "libamdhip64.so"};
  void *lib = NULL;
  const char *name = names[0];
  char first[256] = "";
  for (size_t i = 0; i < 2 && !lib && names[i]; i++) {
    name = names[i];
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib && i == 0) {
      const char *e = dlerror();
      snprintf(first, sizeof first, "%s", e ? e : name);
    }
  }
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, why_size, "the HIP runtime cannot be opened: %s%s%s", first, *first && e ? "; " : "",
             e && strcmp(e, first) ? e : "");
    return NULL;
  }
#define HIP_RUNTIME_LOOKUP(fn, sym, ret, params)                                                  \
  {                                                                                               \
    void *p_ = dlsym(lib, sym);                                                                   \
    if (!p_) {                                                                                    \
      snprintf(why, why_size, "%s has no %s: this HIP runtime is too old for this kk", name, sym); \
      dlclose(lib);                                                                               \
      return NULL;                                                                                \
    }                                                                                             \
    memcpy(&r->fn, &p_, sizeof p_);                                                               \
  }
  HIP_RUNTIME_FUNCTIONS(HIP_RUNTIME_LOOKUP)
#undef HIP_RUNTIME_LOOKUP
  return lib;
}

kk_status_t hip_fail(const hip_ctx_t *c, hipError_t r, const char *fmt, ...) {
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *name = c->rt.hipGetErrorName ? c->rt.hipGetErrorName(r) : NULL;
  const char *msg = c->rt.hipGetErrorString ? c->rt.hipGetErrorString(r) : NULL;
  return c->hs->error(c->hs->core, hip_status_of(r), name ? name : "hipError_t", (int64_t)r, "%s: %s", what,
                      msg ? msg : "unknown HIP error");
}

/* ---- lifetime and devices --------------------------------------------------------------- */

/* Why the runtime found no device, with the likeliest cause. */
static void no_device(hip_ctx_t *c, const char *call, hipError_t r) {
  const char *n = c->rt.hipGetErrorName(r), *m = c->rt.hipGetErrorString(r);
  if (m && n && strcmp(m, n) == 0)
    m = NULL; /* some releases give the name as the message */
  snprintf(c->why_none, sizeof c->why_none, "%s: %s (%d)%s%s%s", call, n ? n : "?", (int)r, m ? ": " : "", m ? m : "",
           access("/dev/kfd", F_OK) != 0 ? " (no /dev/kfd: the amdgpu kernel driver is not loaded, no AMD GPU)" : "");
}

static kk_status_t hip_init(const kk_host_services_t *hs, void **ctx) {
  hip_ctx_t *c = &g_hip;
  memset(c, 0, sizeof *c);
  c->hs = hs;
  c->dev = -1;
  *ctx = c;
  /* No runtime is not an error: the plugin loads and reports 0 devices. */
  c->lib = hip_runtime_open(&c->rt, c->why_none, sizeof c->why_none);
  if (!c->lib)
    return KK_OK;
  hipError_t r = c->rt.hipInit(0);
  if (r != hipSuccess) {
    no_device(c, "hipInit", r);
    return KK_OK;
  }
  int n = 0;
  if ((r = c->rt.hipGetDeviceCount(&n)) != hipSuccess || n <= 0) {
    if (r != hipSuccess)
      no_device(c, "hipGetDeviceCount", r);
    else
      snprintf(c->why_none, sizeof c->why_none, "the HIP runtime reports no device");
    return KK_OK;
  }
  c->devs = calloc((size_t)n, sizeof *c->devs);
  /* hipDeviceProp_t has grown between ROCm releases: room for a larger one */
  hipDeviceProp_t *prop = calloc(1, sizeof *prop + 4096);
  if (!c->devs || !prop) {
    free(prop);
    return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "init: out of memory");
  }
  for (int i = 0; i < n; i++) {
    hip_dev_t *p = &c->devs[i];
    if (c->rt.hipDeviceGetName(p->name, sizeof p->name, i) != hipSuccess)
      snprintf(p->name, sizeof p->name, "AMD GPU %d", i);
    c->rt.hipDeviceGetAttribute(&p->cu_count, hipDeviceAttributeMultiprocessorCount, i);
    c->rt.hipDeviceGetAttribute(&p->max_threads_per_cu, hipDeviceAttributeMaxThreadsPerMultiProcessor, i);
    c->rt.hipDeviceGetAttribute(&p->max_threads_per_block, hipDeviceAttributeMaxThreadsPerBlock, i);
    c->rt.hipDeviceGetAttribute(&p->lds, hipDeviceAttributeMaxSharedMemoryPerBlock, i);
    c->rt.hipDeviceGetAttribute(&p->warp, hipDeviceAttributeWarpSize, i);
    c->rt.hipDeviceGetAttribute(&p->managed, hipDeviceAttributeManagedMemory, i);
    c->rt.hipDeviceTotalMem(&p->memory, i);
    if (c->rt.hipGetDeviceProperties(prop, i) == hipSuccess)
      snprintf(p->arch, sizeof p->arch, "%.63s", prop->gcnArchName);
    if (p->warp != 32 && p->warp != 64)
      p->warp = 64; /* every AMD GPU HIP supports runs 64- or 32-wide waves */
    if (p->max_threads_per_block <= 0)
      p->max_threads_per_block = 1024;
    if (p->cu_count <= 0)
      p->cu_count = 1;
  }
  free(prop);
  c->ndev = n;
  return KK_OK;
}

static void hip_finalize(void *ctx) {
  hip_ctx_t *c = ctx;
  if (c->dev >= 0) {
    (void)hip_bind(c); /* finalize may come from another thread than the initialization */
    c->rt.hipDeviceSynchronize();
    hip_inst_free(c, &c->def);
    if (c->locks)
      c->rt.hipFree(c->locks);
  }
  free(c->devs);
  /* The runtime stays loaded (its handle is dropped, not closed): unloading
   * libamdhip64 unmaps the globals through which it still reaches what
   * hipInit allocated (LeakSanitizer then reports those blocks as leaked),
   * and a later kk_initialize in the same process opens it again anyway. */
  memset(c, 0, sizeof *c);
}

static int32_t hip_device_count(void *ctx, const char **why_none) {
  hip_ctx_t *c = ctx;
  if (c->ndev == 0 && why_none)
    *why_none = c->why_none;
  return c->ndev;
}

static kk_status_t hip_device_props(void *ctx, int32_t dev, kk_plugin_device_t *p) {
  hip_ctx_t *c = ctx;
  const hip_dev_t *d = &c->devs[dev];
  snprintf(p->name, sizeof p->name, "%s", d->name);
  snprintf(p->vendor, sizeof p->vendor, "AMD");
  snprintf(p->arch, sizeof p->arch, "%s", d->arch);
  p->preferred_layout = KK_LAYOUT_LEFT;
  p->concurrency = d->cu_count * (d->max_threads_per_cu > 0 ? d->max_threads_per_cu : 2048);
  p->warp_size = d->warp; /* KK_AUTO vector length: one wavefront */
  p->max_team_size = d->max_threads_per_block;
  p->max_vector_length = d->warp;
  /* level 0 is LDS less what the team collectives take; level 1 a slice of
   * device memory per resident team */
  p->scratch_max[0] = (uint64_t)d->lds > 4096 ? (uint64_t)d->lds - 4096 : 0;
  p->scratch_max[1] = (uint64_t)1 << 26;
  p->memory_bytes = d->memory;
  return KK_OK;
}

_Thread_local unsigned hip_tl_gen;
static atomic_uint hip_generation;

kk_status_t hip_bind_slow(hip_ctx_t *c) {
  HIP_TRY(c, c->rt.hipSetDevice(c->dev), "making device %d current in this thread", c->dev);
  hip_tl_gen = c->gen;
  return KK_OK;
}

static kk_status_t hip_device_open(void *ctx, int32_t dev) {
  hip_ctx_t *c = ctx;
  c->dev = dev;
  c->gen = atomic_fetch_add(&hip_generation, 1u) + 1u; /* never 0, the value of a thread not yet bound */
  kk_status_t st = hip_bind(c);
  if (st != KK_OK) {
    c->dev = -1;
    return st;
  }
  size_t lock_bytes = (size_t)KK_GPU_LOCK_COUNT * sizeof(unsigned);
  HIP_TRY(c, c->rt.hipMalloc(&c->locks, lock_bytes), "allocating the device lock table (%zu bytes)", lock_bytes);
  if ((st = hip_inst_init(c, &c->def)) != KK_OK)
    return st;
  HIP_TRY(c, c->rt.hipMemsetD32Async(c->locks, 0, KK_GPU_LOCK_COUNT, c->def.stream), "clearing the lock table");
  HIP_TRY(c, c->rt.hipStreamSynchronize(c->def.stream), "clearing the lock table");
  return KK_OK;
}

static const char *const hip_image_formats[] = {"hip-codeobject", NULL};

static const kk_plugin_ops_t hip_ops = {
    .struct_size = sizeof(kk_plugin_ops_t),
    .abi_version = KK_PLUGIN_ABI_VERSION,
    .name = "hip",
    .priority = 90,
    .flags = 0,
    .tools_device_type = KK_TOOLS_DEVICE_HIP,
    .init = hip_init,
    .finalize = hip_finalize,
    .device_count = hip_device_count,
    .device_props = hip_device_props,
    .device_open = hip_device_open,
    .space_count = hip_space_count,
    .space_props = hip_space_props,
    .mem_alloc = hip_mem_alloc,
    .mem_free = hip_mem_free,
    .mem_copy = hip_mem_copy,
    .mem_set = hip_mem_set,
    .instance_create = hip_instance_create,
    .instance_destroy = hip_instance_destroy,
    .instance_fence = hip_instance_fence,
    .fence_all = hip_fence_all,
    .mem_fill = hip_mem_fill,
    .launch = hip_launch,
    .image_formats = hip_image_formats,
    .module_load = hip_module_load,
    .module_unload = hip_module_unload,
    .kernel_get = hip_kernel_get,
    .team_size_query = hip_team_size_query,
};

KK_PLUGIN_EXPORT const kk_plugin_ops_t *kk_plugin_hip_entry(uint32_t core_abi, const kk_host_services_t *hs) {
  if (KK_PLUGIN_ABI_MAJOR_OF(core_abi) != KK_PLUGIN_ABI_MAJOR || KK_PLUGIN_ABI_MINOR_OF(core_abi) < 2) {
    hs->error(hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0, "needs plugin ABI 1.2 or later, the core has %u.%u",
              KK_PLUGIN_ABI_MAJOR_OF(core_abi), KK_PLUGIN_ABI_MINOR_OF(core_abi));
    return NULL;
  }
  return &hip_ops;
}
