/* plugins/levelzero/levelzero_plugin.c -- the Level Zero backend's entry point: loader and driver discovery, devices, the context, and its vendor table for the GPU layer. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levelzero_internal.h"

static levelzero_ctx_t g_levelzero;

/* ---- devices ------------------------------------------------------------------------------- */

static uint32_t or_default(uint32_t v, uint32_t dflt) { return v ? v : dflt; }

/* Fills the record of the device of `id` ({driver, device}); returns NULL
 * when kk can use it, else why not. */
static const char *probe_device(kkg_ctx_t *g, void *rec, void *id, char *why, size_t why_size) {
  const levelzero_driver_t *ze = &ze_of(g)->ze;
  levelzero_dev_t *d = rec;
  ze_device_properties_t props = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
  ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
  ze_device_module_properties_t mod = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
  ze_result_t r;
  void **pair = id; /* {driver, device} */
  d->driver = pair[0];
  d->id = pair[1];
  if ((r = ze->zeDeviceGetProperties(d->id, &props)) != ZE_RESULT_SUCCESS)
    return snprintf(why, why_size, "zeDeviceGetProperties: %s", kkg_code_name(g, r)), why;
  props.name[sizeof props.name - 1] = '\0';
  snprintf(d->d.name, sizeof d->d.name, "%.127s", props.name);
  if (props.type != ZE_DEVICE_TYPE_GPU)
    return snprintf(why, why_size, "%.100s: not a GPU (type %d)", props.name, (int)props.type), why;
  if ((r = ze->zeDeviceGetComputeProperties(d->id, &cp)) != ZE_RESULT_SUCCESS ||
      (r = ze->zeDeviceGetModuleProperties(d->id, &mod)) != ZE_RESULT_SUCCESS)
    return snprintf(why, why_size, "%.100s: device properties: %s", props.name, kkg_code_name(g, r)), why;
  /* kk's kernels are SPIR-V 1.2 with doubles and 64-bit atomics (as on
   * opencl).  A driver that reports no SPIR-V version at all (the loader's
   * null driver reports 0 for everything) is not judged on these. */
  if (mod.spirvVersionSupported != 0 && mod.spirvVersionSupported < ZE_MAKE_VERSION(1, 2))
    return snprintf(why, why_size, "%.100s: SPIR-V %u.%u, kk's kernels are SPIR-V 1.2", props.name,
                    (unsigned)(mod.spirvVersionSupported >> 16), (unsigned)(mod.spirvVersionSupported & 0xffff)),
           why;
  if (mod.spirvVersionSupported != 0 &&
      (!(mod.flags & ZE_DEVICE_MODULE_FLAG_FP64) || !(mod.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS)))
    return snprintf(why, why_size, "%.100s: no double precision or no 64-bit atomics, which kk's kernels use",
                    props.name),
           why;
  d->d.max_threads = (int)or_default(cp.maxTotalGroupSize, LEVELZERO_DEFAULT_GROUP);
  d->d.smem = or_default(cp.maxSharedLocalMemory, LEVELZERO_DEFAULT_LOCAL_MEM);
  d->d.units = (int)or_default(props.numSlices * props.numSubslicesPerSlice, 1); /* subslices (Xe cores) */
  d->d.warp = 1; /* vector lanes are a loop inside a work-item (spirv.h), as on opencl */
  const uint64_t lanes = (uint64_t)props.numSlices * props.numSubslicesPerSlice * props.numEUsPerSubslice *
                         props.numThreadsPerEU * props.physicalEUSimdWidth;
  d->d.concurrency = lanes ? (int64_t)lanes : d->d.max_threads;
  if (props.vendorId == 0x8086)
    snprintf(d->d.vendor, sizeof d->d.vendor, "Intel");
  else
    snprintf(d->d.vendor, sizeof d->d.vendor, "vendor 0x%04x", (unsigned)props.vendorId);
  snprintf(d->d.arch, sizeof d->d.arch, "SPIR-V (device 0x%04x)", (unsigned)props.deviceId);
  uint32_t n = 0;
  ze_device_memory_properties_t mp[8];
  if (ze->zeDeviceGetMemoryProperties(d->id, &n, NULL) == ZE_RESULT_SUCCESS && n > 0) {
    n = n < 8 ? n : 8;
    for (uint32_t i = 0; i < n; i++)
      mp[i] = (ze_device_memory_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
    if (ze->zeDeviceGetMemoryProperties(d->id, &n, mp) == ZE_RESULT_SUCCESS)
      for (uint32_t i = 0; i < n; i++)
        d->d.memory += mp[i].totalSize;
  }
  /* the first queue group with compute: launches, copies and fills go there */
  ze_command_queue_group_properties_t gp[16];
  n = 0;
  if ((r = ze->zeDeviceGetCommandQueueGroupProperties(d->id, &n, NULL)) == ZE_RESULT_SUCCESS && n > 0) {
    n = n < 16 ? n : 16;
    for (uint32_t i = 0; i < n; i++)
      gp[i] = (ze_command_queue_group_properties_t){.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    r = ze->zeDeviceGetCommandQueueGroupProperties(d->id, &n, gp);
  }
  if (r != ZE_RESULT_SUCCESS)
    return snprintf(why, why_size, "%.100s: zeDeviceGetCommandQueueGroupProperties: %s", props.name,
                    kkg_code_name(g, r)),
           why;
  for (uint32_t i = 0; i < n; i++)
    if (gp[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
      d->compute_ordinal = i;
      d->max_fill = gp[i].maxMemoryFillPatternSize;
      return NULL;
    }
  return snprintf(why, why_size, "%.100s: no command queue group with compute", props.name), why;
}

/* ---- lifetime ------------------------------------------------------------------------------ */

static kk_status_t levelzero_discover(kkg_ctx_t *g) {
  levelzero_ctx_t *c = ze_of(g);
  static const char *const names[] = {"libze_loader.so.1", NULL};
  static const size_t offs[] = {
#define LEVELZERO_OFF(fn, params) offsetof(levelzero_driver_t, fn),
      LEVELZERO_FUNCTIONS(LEVELZERO_OFF)
#undef LEVELZERO_OFF
  };
#define LEVELZERO_SYM(fn, params) #fn " "
  static const char syms[] = LEVELZERO_FUNCTIONS(LEVELZERO_SYM);
#undef LEVELZERO_SYM
  pthread_mutex_init(&c->launch_lock, NULL);
  pthread_mutex_init(&c->remap.lock, NULL);
  if (!kkg_dlopen(g, "KK_LEVELZERO_LIBRARY", names, "") ||
      !kkg_dlsyms(g, syms, offs, &c->ze, "a Level Zero 1.x loader is needed"))
    return KK_OK; /* no loader is not an error: the plugin loads and reports 0 devices */
  ze_result_t r = c->ze.zeInit(ZE_INIT_FLAG_GPU_ONLY);
  uint32_t nd = 0;
  char skipped[768] = "";
  if (r != ZE_RESULT_SUCCESS) {
    snprintf(g->why_none, sizeof g->why_none, "no Level Zero GPU driver (zeInit: %s)", kkg_code_name(g, r));
    return KK_OK;
  }
  if ((r = c->ze.zeDriverGet(&nd, NULL)) != ZE_RESULT_SUCCESS || nd == 0) {
    snprintf(g->why_none, sizeof g->why_none, "no Level Zero driver (zeDriverGet: %s)",
             r == ZE_RESULT_SUCCESS ? "0 drivers" : kkg_code_name(g, r));
    return KK_OK;
  }
  ze_driver_handle_t drivers[16];
  nd = nd < 16 ? nd : 16;
  if ((r = c->ze.zeDriverGet(&nd, drivers)) != ZE_RESULT_SUCCESS) {
    snprintf(g->why_none, sizeof g->why_none, "zeDriverGet: %s", kkg_code_name(g, r));
    return KK_OK;
  }
  for (uint32_t i = 0; i < nd; i++) {
    ze_device_handle_t ids[64];
    uint32_t n = 0;
    if (c->ze.zeDeviceGet(drivers[i], &n, NULL) != ZE_RESULT_SUCCESS || n == 0 || (n = n < 64 ? n : 64, 0) ||
        c->ze.zeDeviceGet(drivers[i], &n, ids) != ZE_RESULT_SUCCESS)
      continue;
    for (uint32_t j = 0; j < n; j++) {
      void *pair[2] = {drivers[i], ids[j]};
      kk_status_t st = kkg_probe(g, pair, probe_device, skipped, sizeof skipped);
      if (st != KK_OK)
        return st;
    }
  }
  if (g->ndev == 0)
    snprintf(g->why_none, sizeof g->why_none, "no usable Level Zero device%s%s", *skipped ? ": " : "", skipped);
  return KK_OK;
}

/* libze_loader stays loaded: zeInit initializes the loader and its drivers
 * once per process, and a later kk_initialize must find them as they are
 * (its dlopen only counts one more use). */
static void levelzero_release(kkg_ctx_t *g) {
  pthread_mutex_destroy(&ze_of(g)->launch_lock);
  pthread_mutex_destroy(&ze_of(g)->remap.lock);
}

static kk_status_t levelzero_open(kkg_ctx_t *g, int dev) {
  const levelzero_dev_t *d = (const levelzero_dev_t *)(void *)kkg_device(g, dev);
  ze_context_desc_t cd = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
  KKG_TRY(g, ze_of(g)->ze.zeContextCreate(d->driver, &cd, &ze_of(g)->context), "zeContextCreate(%s)", d->d.name);
  return KK_OK;
}

static void levelzero_close(kkg_ctx_t *g) {
  if (ze_of(g)->context)
    ze_of(g)->ze.zeContextDestroy(ze_of(g)->context);
}

/* The Kokkos names of SYCL's three USM kinds, which Level Zero's are. */
static const kkg_space_t levelzero_spaces[] = {
    {"SYCLDeviceUSM", KKG_MEM_DEVICE}, {"SYCLSharedUSM", KKG_MEM_MANAGED}, {"SYCLHostUSM", KKG_MEM_HOST}, {NULL, 0}};

static const int64_t levelzero_statuses[][2] = {LEVELZERO_STATUSES};
static const kkg_name_t levelzero_names[] = {LEVELZERO_NAMES{0, NULL}};
static void *levelzero_native_context(kkg_ctx_t *g) { return ze_of(g)->context; }

KKG_SPIRV_VENDOR(levelzero, .code_type = "ze_result_t", .native_kind = KK_NATIVE_LEVELZERO,
                 .native_context = levelzero_native_context, .queue_wraps = true, .remap = levelzero_remap,
                 .remap_release = levelzero_remap_release)

static const char *const levelzero_image_formats[] = {"spirv", NULL};

/* priority 80: docs/plugin-abi.md (cuda 100, hip 90); Kokkos' SYCL backend
 * runs on Level Zero: its spaces, its Kokkos Tools device type */
KKG_PLUGIN(levelzero, 80, KK_TOOLS_DEVICE_SYCL, g_levelzero, levelzero_image_formats)
