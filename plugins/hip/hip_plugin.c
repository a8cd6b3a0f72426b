/* plugins/hip/hip_plugin.c -- the HIP backend's entry point: runtime discovery, devices, and its vendor table for the GPU layer. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hip_internal.h"

static hip_ctx_t g_hip;

static const int64_t hip_statuses[][2] = {HIP_STATUSES};
static const int64_t hip_lost[] = {HIP_LOST};

static void hip_describe(const kkg_ctx_t *g, int64_t code, const char **name, const char **msg) {
  const hip_runtime_t *rt = &hip_of(g)->rt;
  *name = rt->hipGetErrorName ? rt->hipGetErrorName((hipError_t)code) : NULL;
  *msg = rt->hipGetErrorString ? rt->hipGetErrorString((hipError_t)code) : NULL;
  if (*msg && *name && strcmp(*msg, *name) == 0)
    *msg = NULL; /* some releases give the name as the message */
}

/* Why the runtime found no device, with the likeliest cause. */
static kk_status_t no_device(kkg_ctx_t *g, const char *call, hipError_t r) {
  const char *n = NULL, *m = NULL;
  hip_describe(g, r, &n, &m);
  snprintf(g->why_none, sizeof g->why_none, "%s: %s (%d)%s%s%s", call, kkg_code_name(g, r), (int)r, m ? ": " : "", m ? m : "",
           access("/dev/kfd", F_OK) != 0 ? " (no /dev/kfd: the amdgpu kernel driver is not loaded, no AMD GPU)" : "");
  return KK_OK;
}

static const char *hip_probe(kkg_ctx_t *g, void *rec, void *id, char *why, size_t why_size) {
  const hip_runtime_t *rt = &hip_of(g)->rt;
  kkg_device_t *p = rec;
  const int i = (int)(intptr_t)id;
  int per_cu = 0, lds = 0;
  size_t memory = 0;
  /* hipDeviceProp_t has grown between ROCm releases: room for a larger one */
  hipDeviceProp_t *prop = calloc(1, sizeof *prop + 4096);
  if (!prop) {
    snprintf(why, why_size, "out of memory");
    return why;
  }
  if (rt->hipDeviceGetName(p->name, sizeof p->name, i) != hipSuccess)
    snprintf(p->name, sizeof p->name, "AMD GPU %d", i);
  rt->hipDeviceGetAttribute(&p->units, hipDeviceAttributeMultiprocessorCount, i);
  rt->hipDeviceGetAttribute(&per_cu, hipDeviceAttributeMaxThreadsPerMultiProcessor, i);
  rt->hipDeviceGetAttribute(&p->max_threads, hipDeviceAttributeMaxThreadsPerBlock, i);
  rt->hipDeviceGetAttribute(&lds, hipDeviceAttributeMaxSharedMemoryPerBlock, i);
  rt->hipDeviceGetAttribute(&p->warp, hipDeviceAttributeWarpSize, i);
  rt->hipDeviceTotalMem(&memory, i);
  if (rt->hipGetDeviceProperties(prop, i) == hipSuccess)
    snprintf(p->arch, sizeof p->arch, "%.63s", prop->gcnArchName);
  free(prop);
  if (p->warp != 32 && p->warp != 64)
    p->warp = 64; /* every AMD GPU HIP supports runs 64- or 32-wide waves */
  p->max_threads = p->max_threads > 0 ? p->max_threads : 1024;
  p->units = p->units > 0 ? p->units : 1;
  p->concurrency = (int64_t)p->units * (per_cu > 0 ? per_cu : 2048);
  p->smem = (uint64_t)lds; /* LDS: no opt-in on AMD GPUs, a hard limit per block */
  p->memory = memory;
  snprintf(p->vendor, sizeof p->vendor, "AMD");
  return NULL;
}

static kk_status_t hip_discover(kkg_ctx_t *g) {
  hip_ctx_t *c = hip_of(g);
  static const char *const names[] = {"libamdhip64.so.5", "libamdhip64.so", NULL};
  static const size_t offs[] = {
#define HIP_RUNTIME_OFF(fn, ret, params) offsetof(hip_runtime_t, fn),
      HIP_RUNTIME_FUNCTIONS(HIP_RUNTIME_OFF)
#undef HIP_RUNTIME_OFF
  };
#define HIP_RUNTIME_SYM(fn, ret, params) #fn " "
  static const char syms[] = HIP_RUNTIME_FUNCTIONS(HIP_RUNTIME_SYM);
#undef HIP_RUNTIME_SYM
  const char *old = "this HIP runtime is too old for this kk";
  if (!kkg_dlopen(g, "KK_HIP_LIBRARY", names, "the HIP runtime cannot be opened: ") ||
      !kkg_dlsyms(g, syms, offs, &c->rt, old) || !kks_resolve(g, old))
    return KK_OK; /* no runtime is not an error: the plugin loads and reports 0 devices */
  hipError_t r = c->rt.hipInit(0);
  int n = 0;
  char skipped[512] = "";
  if (r != hipSuccess)
    return no_device(g, "hipInit", r);
  if ((r = c->rt.hipGetDeviceCount(&n)) != hipSuccess)
    return no_device(g, "hipGetDeviceCount", r);
  for (int i = 0; i < n; i++) {
    kk_status_t st = kkg_probe(g, (void *)(intptr_t)i, hip_probe, skipped, sizeof skipped);
    if (st != KK_OK)
      return st;
  }
  if (g->ndev == 0)
    snprintf(g->why_none, sizeof g->why_none, "the HIP runtime reports no device%s%s", *skipped ? ": " : "", skipped);
  return KK_OK;
}

/* The runtime stays loaded (its handle is dropped, not closed): unloading
 * libamdhip64 unmaps the globals through which it still reaches what
 * hipInit allocated (LeakSanitizer then reports those blocks as leaked),
 * and a later kk_initialize in the same process opens it again anyway. */
static void hip_release(kkg_ctx_t *g) { (void)g; }

static kk_status_t hip_open(kkg_ctx_t *g, int dev) {
  (void)g, (void)dev; /* the runtime's device is current per thread: hip_bind */
  return KK_OK;
}

static void hip_close(kkg_ctx_t *g) { (void)g; }

static const kkg_space_t hip_spaces[] = {
    {"HIP", KKG_MEM_DEVICE}, {"HIPHostPinned", KKG_MEM_HOST}, {"HIPManaged", KKG_MEM_MANAGED}, {NULL, 0}};

/* hipMallocManaged works on every GPU HIP supports (without XNACK it is
 * pinned host memory).  Result slots are coherent (fine-grained) memory, so
 * that a value the kernel writes is seen by the host before the kernel ends.
 * Arguments go packed (AMD GPUs take 4 KiB of explicit kernel arguments);
 * grids count work-items, at most 2^32 - 1 per dimension. */
static void *const hip_packed[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, HIP_LAUNCH_PARAM_BUFFER_SIZE, HIP_LAUNCH_PARAM_END};
KKG_SIMT_VENDOR(hip, .code_type = "hipError_t", .simt_syms = HIP_SIMT_SYMS, .stream_flags = hipStreamNonBlocking, .managed_flags = hipMemAttachGlobal,
                .host_flags = hipHostMallocPortable | hipHostMallocMapped,
                .mapped_flags = hipHostMallocPortable | hipHostMallocMapped | hipHostMallocCoherent,
                .attr_max_threads = HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, .not_ready = hipErrorNotReady,
                .packed = hip_packed, .max_blocks = 0xffffffffll, .max_items = 0xffffffffu, .max_args = 4096,
                .graph_syms = HIP_GRAPH_SYMS, .capture_relaxed = hipStreamCaptureModeRelaxed,
                .capture_set = hipStreamSetCaptureDependencies,
                .native_kind = KK_NATIVE_HIP, .lost_codes = hip_lost, .remap = kks_remap,
                .remap_image = hip_remap_image, .remap_release = kks_remap_release,
                .event_flags = hipEventDisableTiming)

static const char *const hip_image_formats[] = {"hip-codeobject", NULL};

KKG_PLUGIN(hip, 90, KK_TOOLS_DEVICE_HIP, g_hip, hip_image_formats)
