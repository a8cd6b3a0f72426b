/* plugins/cuda/cuda_plugin.c -- the CUDA backend's entry point: driver discovery, devices and the operations table. */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

static cuda_ctx_t g_cuda;

void *cuda_driver_open(cuda_driver_t *d, char *why, size_t why_size) {
  const char *name = getenv("KK_CUDA_DRIVER_LIBRARY");
  if (!name || !*name)
    name = "libcuda.so.1";
  void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, why_size, "%s", e ? e : "libcuda.so.1 cannot be opened");
    return NULL;
  }
#define CUDA_DRIVER_LOOKUP(fn, sym, ret, params)                                                  \
  {                                                                                               \
    void *p_ = dlsym(lib, sym);                                                                   \
    if (!p_) {                                                                                    \
      snprintf(why, why_size, "%s has no %s: the driver is too old for this kk", name, sym);     \
      dlclose(lib);                                                                               \
      return NULL;                                                                                \
    }                                                                                             \
    memcpy(&d->fn, &p_, sizeof p_);                                                               \
  }
  CUDA_DRIVER_FUNCTIONS(CUDA_DRIVER_LOOKUP)
#undef CUDA_DRIVER_LOOKUP
  return lib;
}

kk_status_t cuda_fail(const cuda_ctx_t *c, CUresult r, const char *fmt, ...) {
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *name = NULL, *msg = NULL;
  if (c->cu.cuGetErrorName)
    c->cu.cuGetErrorName(r, &name);
  if (c->cu.cuGetErrorString)
    c->cu.cuGetErrorString(r, &msg);
  return c->hs->error(c->hs->core, cuda_status_of(r), name ? name : "CUresult", (int64_t)r, "%s: %s", what,
                      msg ? msg : "unknown CUDA error");
}

/* ---- lifetime and devices --------------------------------------------------------------- */

static kk_status_t cuda_init(const kk_host_services_t *hs, void **ctx) {
  cuda_ctx_t *c = &g_cuda;
  memset(c, 0, sizeof *c);
  c->hs = hs;
  c->dev = -1;
  *ctx = c;
  /* No driver is not an error: the plugin loads and reports 0 devices. */
  c->lib = cuda_driver_open(&c->cu, c->why_none, sizeof c->why_none);
  if (!c->lib)
    return KK_OK;
  CUresult r = c->cu.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char *n = NULL, *m = NULL;
    c->cu.cuGetErrorName(r, &n);
    c->cu.cuGetErrorString(r, &m);
    snprintf(c->why_none, sizeof c->why_none, "cuInit: %s (%d): %s", n ? n : "?", (int)r, m ? m : "");
    return KK_OK;
  }
  int n = 0;
  if ((r = c->cu.cuDeviceGetCount(&n)) != CUDA_SUCCESS || n <= 0) {
    snprintf(c->why_none, sizeof c->why_none, "the CUDA driver reports no device");
    return KK_OK;
  }
  c->devs = calloc((size_t)n, sizeof *c->devs);
  if (!c->devs)
    return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "init: out of memory");
  for (int i = 0; i < n; i++) {
    CUdevice d;
    cuda_dev_t *p = &c->devs[i];
    CU_TRY(c, c->cu.cuDeviceGet(&d, i), "cuDeviceGet(%d)", i);
    c->cu.cuDeviceGetName(p->name, sizeof p->name, d);
    c->cu.cuDeviceGetAttribute(&p->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
    c->cu.cuDeviceGetAttribute(&p->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
    c->cu.cuDeviceGetAttribute(&p->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d);
    c->cu.cuDeviceGetAttribute(&p->max_threads_per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d);
    c->cu.cuDeviceGetAttribute(&p->max_threads_per_block, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, d);
    c->cu.cuDeviceGetAttribute(&p->smem_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d);
    c->cu.cuDeviceGetAttribute(&p->warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, d);
    c->cu.cuDeviceGetAttribute(&p->managed, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, d);
    c->cu.cuDeviceGetAttribute(&p->uva, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, d);
    c->cu.cuDeviceTotalMem(&p->memory, d);
  }
  c->ndev = n;
  const char *cache = hs->option(hs->core, "jit_cache_dir");
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (cache && *cache)
    snprintf(c->jit_cache, sizeof c->jit_cache, "%s", cache);
  else if (getenv("KK_JIT_CACHE_DIR"))
    snprintf(c->jit_cache, sizeof c->jit_cache, "%s", getenv("KK_JIT_CACHE_DIR"));
  else if (xdg && *xdg)
    snprintf(c->jit_cache, sizeof c->jit_cache, "%s/kk/jit", xdg);
  else
    snprintf(c->jit_cache, sizeof c->jit_cache, "%s/.cache/kk/jit", home && *home ? home : "/tmp");
  return KK_OK;
}

static void cuda_finalize(void *ctx) {
  cuda_ctx_t *c = ctx;
  if (c->dev >= 0) {
    c->cu.cuCtxSynchronize();
    cuda_inst_free(c, &c->def);
    if (c->locks)
      c->cu.cuMemFree(c->locks);
    c->cu.cuDevicePrimaryCtxRelease(c->device);
  }
  free(c->devs);
  if (c->lib)
    dlclose(c->lib);
  memset(c, 0, sizeof *c);
}

static int32_t cuda_device_count(void *ctx, const char **why_none) {
  cuda_ctx_t *c = ctx;
  if (c->ndev == 0 && why_none)
    *why_none = c->why_none;
  return c->ndev;
}

static kk_status_t cuda_device_props(void *ctx, int32_t dev, kk_plugin_device_t *p) {
  cuda_ctx_t *c = ctx;
  const cuda_dev_t *d = &c->devs[dev];
  snprintf(p->name, sizeof p->name, "%s", d->name);
  snprintf(p->vendor, sizeof p->vendor, "NVIDIA");
  snprintf(p->arch, sizeof p->arch, "sm_%d%d", d->cc_major, d->cc_minor);
  p->preferred_layout = KK_LAYOUT_LEFT;
  p->concurrency = d->sm_count * d->max_threads_per_sm;
  p->warp_size = d->warp;
  p->max_team_size = d->max_threads_per_block;
  p->max_vector_length = d->warp;
  /* level 0 is shared memory less what the team collectives take; level 1 a
   * slice of device memory per resident team */
  p->scratch_max[0] = (uint64_t)d->smem_optin > 4096 ? (uint64_t)d->smem_optin - 4096 : 0;
  p->scratch_max[1] = (uint64_t)1 << 26;
  p->memory_bytes = d->memory;
  return KK_OK;
}

static kk_status_t cuda_device_open(void *ctx, int32_t dev) {
  cuda_ctx_t *c = ctx;
  CU_TRY(c, c->cu.cuDeviceGet(&c->device, dev), "cuDeviceGet(%d)", dev);
  CU_TRY(c, c->cu.cuDevicePrimaryCtxRetain(&c->context, c->device), "cuDevicePrimaryCtxRetain(device %d)", dev);
  CU_TRY(c, c->cu.cuCtxSetCurrent(c->context), "cuCtxSetCurrent");
  c->dev = dev;
  size_t lock_bytes = (size_t)KK_GPU_LOCK_COUNT * sizeof(unsigned);
  CU_TRY(c, c->cu.cuMemAlloc(&c->locks, lock_bytes), "allocating the device lock table (%zu bytes)", lock_bytes);
  kk_status_t st = cuda_inst_init(c, &c->def);
  if (st != KK_OK)
    return st;
  CU_TRY(c, c->cu.cuMemsetD32Async(c->locks, 0, KK_GPU_LOCK_COUNT, c->def.stream), "clearing the lock table");
  CU_TRY(c, c->cu.cuStreamSynchronize(c->def.stream), "clearing the lock table");
  return KK_OK;
}

static const char *const cuda_image_formats[] = {"cuda-fatbin", NULL};

static const kk_plugin_ops_t cuda_ops = {
    .struct_size = sizeof(kk_plugin_ops_t),
    .abi_version = KK_PLUGIN_ABI_VERSION,
    .name = "cuda",
    .priority = 100,
    .flags = 0,
    .tools_device_type = KK_TOOLS_DEVICE_CUDA,
    .init = cuda_init,
    .finalize = cuda_finalize,
    .device_count = cuda_device_count,
    .device_props = cuda_device_props,
    .device_open = cuda_device_open,
    .space_count = cuda_space_count,
    .space_props = cuda_space_props,
    .mem_alloc = cuda_mem_alloc,
    .mem_free = cuda_mem_free,
    .mem_copy = cuda_mem_copy,
    .mem_set = cuda_mem_set,
    .instance_create = cuda_instance_create,
    .instance_destroy = cuda_instance_destroy,
    .instance_fence = cuda_instance_fence,
    .fence_all = cuda_fence_all,
    .mem_fill = cuda_mem_fill,
    .launch = cuda_launch,
    .image_formats = cuda_image_formats,
    .module_load = cuda_module_load,
    .module_unload = cuda_module_unload,
    .kernel_get = cuda_kernel_get,
    .team_size_query = cuda_team_size_query,
};

KK_PLUGIN_EXPORT const kk_plugin_ops_t *kk_plugin_cuda_entry(uint32_t core_abi, const kk_host_services_t *hs) {
  if (KK_PLUGIN_ABI_MAJOR_OF(core_abi) != KK_PLUGIN_ABI_MAJOR || KK_PLUGIN_ABI_MINOR_OF(core_abi) < 2) {
    hs->error(hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0, "needs plugin ABI 1.2 or later, the core has %u.%u",
              KK_PLUGIN_ABI_MAJOR_OF(core_abi), KK_PLUGIN_ABI_MINOR_OF(core_abi));
    return NULL;
  }
  return &cuda_ops;
}
