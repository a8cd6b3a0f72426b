/* plugins/cuda/cuda_plugin.c -- the CUDA backend's entry point: driver discovery, devices, the primary context, and its vendor table for the GPU layer. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cuda_internal.h"

static cuda_ctx_t g_cuda;

static const int64_t cuda_statuses[][2] = {CUDA_STATUSES};
static const int64_t cuda_lost[] = {CUDA_LOST};

static void cuda_describe(const kkg_ctx_t *g, int64_t code, const char **name, const char **msg) {
  const cuda_driver_t *cu = &cuda_of(g)->cu;
  if (cu->cuGetErrorName && cu->cuGetErrorName((CUresult)code, name) != CUDA_SUCCESS)
    *name = NULL;
  if (!cu->cuGetErrorString || cu->cuGetErrorString((CUresult)code, msg) != CUDA_SUCCESS)
    *msg = "unknown CUDA error";
}

static const char *cuda_probe(kkg_ctx_t *g, void *rec, void *id, char *why, size_t why_size) {
  const cuda_driver_t *cu = &cuda_of(g)->cu;
  cuda_dev_t *p = rec;
  CUdevice d;
  int per_sm = 0, v[6];
  size_t memory = 0;
  static const CUdevice_attribute attrs[6] = {
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
      CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,     CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
      CU_DEVICE_ATTRIBUTE_WARP_SIZE,                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN};
  CUresult r = cu->cuDeviceGet(&d, (int)(intptr_t)id);
  if (r != CUDA_SUCCESS) {
    snprintf(why, why_size, "cuDeviceGet(%d): error %d", (int)(intptr_t)id, (int)r);
    return why;
  }
  cu->cuDeviceGetName(p->d.name, sizeof p->d.name, d);
  for (int a = 0; a < 6; a++)
    cu->cuDeviceGetAttribute(&v[a], attrs[a], d);
  cu->cuDeviceGetAttribute(&per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d);
  cu->cuDeviceTotalMem(&memory, d);
  p->d.memory = memory;
  p->cc_major = v[0], p->cc_minor = v[1];
  p->d.units = v[2], p->d.max_threads = v[3], p->d.warp = v[4], p->d.smem = (uint64_t)v[5];
  p->d.concurrency = (int64_t)v[2] * per_sm;
  snprintf(p->d.vendor, sizeof p->d.vendor, "NVIDIA");
  snprintf(p->d.arch, sizeof p->d.arch, "sm_%d%d", v[0], v[1]);
  return NULL;
}

static kk_status_t cuda_discover(kkg_ctx_t *g) {
  cuda_ctx_t *c = cuda_of(g);
  static const char *const names[] = {"libcuda.so.1", NULL};
  static const size_t offs[] = {
#define CUDA_DRIVER_OFF(fn, sym, ret, params) offsetof(cuda_driver_t, fn),
      CUDA_DRIVER_FUNCTIONS(CUDA_DRIVER_OFF)
#undef CUDA_DRIVER_OFF
  };
#define CUDA_DRIVER_SYM(fn, sym, ret, params) sym " "
  static const char syms[] = CUDA_DRIVER_FUNCTIONS(CUDA_DRIVER_SYM);
#undef CUDA_DRIVER_SYM
  const char *old = "the driver is too old for this kk";
  if (!kkg_dlopen(g, "KK_CUDA_DRIVER_LIBRARY", names, "") || !kkg_dlsyms(g, syms, offs, &c->cu, old) ||
      !kks_resolve(g, old))
    return KK_OK; /* no driver is not an error: the plugin loads and reports 0 devices */
  CUresult r = c->cu.cuInit(0);
  int n = 0;
  char skipped[512] = "";
  if (r != CUDA_SUCCESS) {
    const char *name = NULL, *msg = NULL;
    cuda_describe(g, r, &name, &msg);
    snprintf(g->why_none, sizeof g->why_none, "cuInit: %s (%d): %s", kkg_code_name(g, r), (int)r, msg);
    return KK_OK;
  }
  if (c->cu.cuDeviceGetCount(&n) != CUDA_SUCCESS || n <= 0) {
    snprintf(g->why_none, sizeof g->why_none, "the CUDA driver reports no device");
    return KK_OK;
  }
  for (int i = 0; i < n; i++) {
    kk_status_t st = kkg_probe(g, (void *)(intptr_t)i, cuda_probe, skipped, sizeof skipped);
    if (st != KK_OK)
      return st;
  }
  if (g->ndev == 0)
    snprintf(g->why_none, sizeof g->why_none, "no usable CUDA device: %s", skipped);
  const char *opt = g->hs->option(g->hs->core, "jit_cache_dir"), *env = getenv("KK_JIT_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (opt && *opt)
    snprintf(c->jit_cache, sizeof c->jit_cache, "%s", opt);
  else if (env)
    snprintf(c->jit_cache, sizeof c->jit_cache, "%s", env);
  else if (xdg && *xdg)
    snprintf(c->jit_cache, sizeof c->jit_cache, "%s/kk/jit", xdg);
  else if (home && *home)
    snprintf(c->jit_cache, sizeof c->jit_cache, "%s/.cache/kk/jit", home);
  else /* no home: a directory of this user's own, never a shared one (docs/security.md) */
    snprintf(c->jit_cache, sizeof c->jit_cache, "/tmp/kk-%u/jit", (unsigned)geteuid());
  return KK_OK;
}

static void cuda_release(kkg_ctx_t *g) {
  if (g->lib)
    dlclose(g->lib);
}

static kk_status_t cuda_open(kkg_ctx_t *g, int dev) {
  cuda_ctx_t *c = cuda_of(g);
  KKG_TRY(g, c->cu.cuDeviceGet(&c->device, dev), "cuDeviceGet(%d)", dev);
  KKG_TRY(g, c->cu.cuDevicePrimaryCtxRetain(&c->context, c->device), "cuDevicePrimaryCtxRetain(device %d)", dev);
  return KK_OK;
}

static void cuda_close(kkg_ctx_t *g) {
  if (cuda_of(g)->context)
    cuda_of(g)->cu.cuDevicePrimaryCtxRelease(cuda_of(g)->device);
}

static const kkg_space_t cuda_spaces[] = {
    {"Cuda", KKG_MEM_DEVICE}, {"CudaUVM", KKG_MEM_MANAGED}, {"CudaHostPinned", KKG_MEM_HOST}, {NULL, 0}};

/* Managed memory exists on every GPU a supported toolkit targets; pinned
 * memory is mapped, so that result slots are too. */
/* interop: kk's streams live in the device's primary context */
static void *cuda_native_context(kkg_ctx_t *g) { return cuda_of(g)->context; }

KKG_SIMT_VENDOR(cuda, .code_type = "CUresult", .simt_syms = CUDA_SIMT_SYMS, .stream_flags = CU_STREAM_NON_BLOCKING,
                .managed_flags = CU_MEM_ATTACH_GLOBAL, .host_flags = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP,
                .mapped_flags = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP,
                .attr_max_threads = CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, .not_ready = CUDA_ERROR_NOT_READY,
                .smem_optin = true, .max_blocks = 2147483647ll, .fill_wide = cuda_fill_wide, .set_smem = cuda_set_smem,
                .graph_syms = CUDA_GRAPH_SYMS, .capture_relaxed = CU_STREAM_CAPTURE_MODE_RELAXED,
                .capture_set = CU_STREAM_SET_CAPTURE_DEPENDENCIES,
                .native_kind = KK_NATIVE_CUDA, .native_context = cuda_native_context, .lost_codes = cuda_lost,
                .remap = kks_remap, .remap_image = cuda_remap_image,
                .remap_release = kks_remap_release, .event_flags = CU_EVENT_DISABLE_TIMING)

static const char *const cuda_image_formats[] = {"cuda-fatbin", NULL};

KKG_PLUGIN(cuda, 100, KK_TOOLS_DEVICE_CUDA, g_cuda, cuda_image_formats)
