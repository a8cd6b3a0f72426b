/* plugins/opencl/opencl_plugin.c -- the OpenCL backend's entry point: ICD loader discovery, devices and the operations table. */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

static opencl_ctx_t g_opencl;

void *opencl_driver_open(opencl_driver_t *d, char *why, size_t why_size) {
  const char *name = getenv("KK_OPENCL_LIBRARY");
  if (!name || !*name)
    name = "libOpenCL.so.1";
  void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, why_size, "%s", e ? e : "libOpenCL.so.1 cannot be opened");
    return NULL;
  }
#define OPENCL_LOOKUP(fn, ret, params)                                                            \
  {                                                                                               \
    void *p_ = dlsym(lib, #fn);                                                                   \
    if (!p_) {                                                                                    \
      snprintf(why, why_size, "%s has no %s: an OpenCL 2.0 ICD loader is needed", name, #fn);    \
      dlclose(lib);                                                                               \
      return NULL;                                                                                \
    }                                                                                             \
    memcpy(&d->fn, &p_, sizeof p_);                                                               \
  }
  OPENCL_FUNCTIONS(OPENCL_LOOKUP)
#undef OPENCL_LOOKUP
  void *il = dlsym(lib, "clCreateProgramWithIL");
  memcpy(&d->clCreateProgramWithIL, &il, sizeof il);
  return lib;
}

const char *opencl_error_name(cl_int r) {
  switch (r) {
#define N(x) \
  case x:    \
    return #x;
    N(CL_DEVICE_NOT_FOUND) N(CL_DEVICE_NOT_AVAILABLE) N(CL_COMPILER_NOT_AVAILABLE)
    N(CL_MEM_OBJECT_ALLOCATION_FAILURE) N(CL_OUT_OF_RESOURCES) N(CL_OUT_OF_HOST_MEMORY)
    N(CL_BUILD_PROGRAM_FAILURE) N(CL_INVALID_VALUE) N(CL_INVALID_DEVICE) N(CL_INVALID_CONTEXT)
    N(CL_INVALID_COMMAND_QUEUE) N(CL_INVALID_BINARY) N(CL_INVALID_BUILD_OPTIONS) N(CL_INVALID_PROGRAM)
    N(CL_INVALID_PROGRAM_EXECUTABLE) N(CL_INVALID_KERNEL_NAME) N(CL_INVALID_KERNEL) N(CL_INVALID_ARG_INDEX)
    N(CL_INVALID_ARG_VALUE) N(CL_INVALID_ARG_SIZE) N(CL_INVALID_KERNEL_ARGS) N(CL_INVALID_WORK_DIMENSION)
    N(CL_INVALID_WORK_GROUP_SIZE) N(CL_INVALID_WORK_ITEM_SIZE) N(CL_INVALID_GLOBAL_OFFSET)
    N(CL_INVALID_EVENT_WAIT_LIST) N(CL_INVALID_EVENT) N(CL_INVALID_OPERATION) N(CL_INVALID_BUFFER_SIZE)
    N(CL_INVALID_GLOBAL_WORK_SIZE)
#undef N
  default:
    return "cl_int";
  }
}

kk_status_t opencl_fail(const opencl_ctx_t *c, cl_int r, const char *fmt, ...) {
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return c->hs->error(c->hs->core, opencl_status_of(r), opencl_error_name(r), (int64_t)r, "%s", what);
}

/* ---- lifetime and devices --------------------------------------------------------------- */

static bool has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
      return true;
  return false;
}

/* Fills d from the device; returns NULL when kk can use it, else why not. */
static const char *probe_device(opencl_ctx_t *c, opencl_dev_t *d, char *why, size_t why_size) {
  char ext[8192] = "", il[256] = "";
  c->cl.clGetDeviceInfo(d->id, CL_DEVICE_NAME, sizeof d->name, d->name, NULL);
  c->cl.clGetDeviceInfo(d->id, CL_DEVICE_VENDOR, sizeof d->vendor, d->vendor, NULL);
  c->cl.clGetDeviceInfo(d->id, CL_DEVICE_VERSION, sizeof d->version, d->version, NULL);
  c->cl.clGetDeviceInfo(d->id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->units, &d->units, NULL);
  c->cl.clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_wg, &d->max_wg, NULL);
  c->cl.clGetDeviceInfo(d->id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof d->local_mem, &d->local_mem, NULL);
  c->cl.clGetDeviceInfo(d->id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof d->global_mem, &d->global_mem, NULL);
  c->cl.clGetDeviceInfo(d->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc, &d->max_alloc, NULL);
  c->cl.clGetDeviceInfo(d->id, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
  if (c->cl.clGetDeviceInfo(d->id, CL_DEVICE_SVM_CAPABILITIES, sizeof d->svm, &d->svm, NULL) != CL_SUCCESS)
    d->svm = 0;
  if (c->cl.clGetDeviceInfo(d->id, CL_DEVICE_IL_VERSION, sizeof il - 1, il, NULL) != CL_SUCCESS)
    il[0] = '\0';
  d->il_spirv = strstr(il, "SPIR-V") != NULL && c->cl.clCreateProgramWithIL;
  d->spir = has_word(ext, "cl_khr_spir");
  if (strncmp(d->version, "OpenCL 1.", 9) == 0)
    snprintf(why, why_size, "%.100s: %.60s, kk needs OpenCL 2.0 (shared virtual memory)", d->name, d->version);
  else if (!(d->svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
    snprintf(why, why_size, "%.100s: no shared virtual memory", d->name);
  else if (!d->il_spirv && !d->spir)
    snprintf(why, why_size, "%.100s: ingests neither SPIR-V nor SPIR 1.2 bitcode", d->name);
  else if (!has_word(ext, "cl_khr_int64_base_atomics") || !has_word(ext, "cl_khr_fp64"))
    snprintf(why, why_size, "%.100s: no 64-bit atomics or no double precision", d->name);
  else
    return NULL;
  return why;
}

static kk_status_t opencl_init(const kk_host_services_t *hs, void **ctx) {
  opencl_ctx_t *c = &g_opencl;
  memset(c, 0, sizeof *c);
  c->hs = hs;
  c->dev = -1;
  c->sp.hs = hs;
  c->sp.ops = &opencl_spirv_ops;
  c->sp.ctx = c;
  pthread_mutex_init(&c->launch_lock, NULL);
  pthread_mutex_init(&c->inst_lock, NULL);
  *ctx = c;
  /* No ICD loader is not an error: the plugin loads and reports 0 devices. */
  c->lib = opencl_driver_open(&c->cl, c->why_none, sizeof c->why_none);
  if (!c->lib)
    return KK_OK;
  cl_uint np = 0;
  cl_int r = c->cl.clGetPlatformIDs(0, NULL, &np);
  if (r != CL_SUCCESS || np == 0) {
    snprintf(c->why_none, sizeof c->why_none, "no OpenCL platform (clGetPlatformIDs: %s)",
             r == CL_SUCCESS ? "0 platforms" : opencl_error_name(r));
    return KK_OK;
  }
  cl_platform_id *plats = calloc(np, sizeof *plats);
  if (!plats)
    return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "init: out of memory");
  c->cl.clGetPlatformIDs(np, plats, NULL);
  const char *want = getenv("KK_OPENCL_PLATFORM"); /* a substring of the platform's name */
  char skipped[768] = "";
  for (cl_uint p = 0; p < np; p++) {
    char pname[256] = "";
    c->cl.clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    if (want && *want && !strstr(pname, want))
      continue;
    cl_uint nd = 0;
    if (c->cl.clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0)
      continue;
    cl_device_id *ids = calloc(nd, sizeof *ids);
    opencl_dev_t *grown = realloc(c->devs, sizeof *c->devs * (size_t)(c->ndev + (int)nd));
    if (!ids || !grown) {
      free(ids);
      free(plats);
      if (grown)
        c->devs = grown;
      return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "init: out of memory");
    }
    c->devs = grown;
    c->cl.clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, ids, NULL);
    for (cl_uint i = 0; i < nd; i++) {
      opencl_dev_t *d = &c->devs[c->ndev];
      memset(d, 0, sizeof *d);
      d->platform = plats[p];
      d->id = ids[i];
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
  free(plats);
  if (c->ndev == 0)
    snprintf(c->why_none, sizeof c->why_none, "no usable OpenCL device%s%s", *skipped ? ": " : "",
             *skipped ? skipped : (want && *want ? " on a platform named like KK_OPENCL_PLATFORM" : ""));
  return KK_OK;
}

static void opencl_finalize(void *ctx) {
  opencl_ctx_t *c = ctx;
  if (c->dev >= 0) {
    opencl_inst_free(c, &c->def);
    if (c->sp.locks)
      c->cl.clSVMFree(c->context, c->sp.locks);
    c->cl.clReleaseContext(c->context);
  }
  free(c->devs);
  /* libOpenCL stays loaded: an ICD such as PoCL keeps process-wide state
   * (worker threads, caches) and cannot be unloaded and loaded again by a
   * later kk_initialize; the next init's dlopen only counts one more use. */
  pthread_mutex_destroy(&c->launch_lock);
  pthread_mutex_destroy(&c->inst_lock);
  memset(c, 0, sizeof *c);
}

static int32_t opencl_device_count(void *ctx, const char **why_none) {
  opencl_ctx_t *c = ctx;
  if (c->ndev == 0 && why_none)
    *why_none = c->why_none;
  return c->ndev;
}

static kk_status_t opencl_device_props(void *ctx, int32_t dev, kk_plugin_device_t *p) {
  opencl_ctx_t *c = ctx;
  const opencl_dev_t *d = &c->devs[dev];
  snprintf(p->name, sizeof p->name, "%s", d->name);
  snprintf(p->vendor, sizeof p->vendor, "%s", d->vendor);
  snprintf(p->arch, sizeof p->arch, "%s (%.40s)", d->il_spirv ? "SPIR-V" : "SPIR 1.2", d->version);
  p->preferred_layout = KK_LAYOUT_LEFT; /* the SPIR-V target's default layout */
  p->concurrency = (int32_t)(d->units * (d->max_wg < 256 ? d->max_wg : 256));
  p->warp_size = 1;
  kkspv_device_limits(p, d->max_wg, d->local_mem);
  p->memory_bytes = d->global_mem;
  return KK_OK;
}

static kk_status_t opencl_device_open(void *ctx, int32_t dev) {
  opencl_ctx_t *c = ctx;
  opencl_dev_t *d = &c->devs[dev];
  cl_int r;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
  c->context = c->cl.clCreateContext(props, 1, &d->id, NULL, NULL, &r);
  if (!c->context)
    return opencl_fail(c, r, "clCreateContext(%s)", d->name);
  c->dev = dev;
  c->sp.units = d->units;
  c->sp.max_wg = d->max_wg;
  c->sp.local_mem = d->local_mem;
  size_t lock_bytes = (size_t)KK_SPIRV_LOCK_COUNT * sizeof(uint32_t);
  c->sp.locks = c->cl.clSVMAlloc(c->context, CL_MEM_READ_WRITE, lock_bytes, 0);
  if (!c->sp.locks)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "allocating the device lock table (%zu bytes)",
                        lock_bytes);
  kk_status_t st = opencl_inst_init(c, &c->def);
  if (st != KK_OK)
    return st;
  uint32_t zero = 0;
  CL_TRY(c, c->cl.clEnqueueSVMMemFill(c->def.queue, c->sp.locks, &zero, sizeof zero, lock_bytes, 0, NULL, NULL),
         "clearing the lock table");
  CL_TRY(c, c->cl.clFinish(c->def.queue), "clearing the lock table");
  return KK_OK;
}

/* SPIR-V first; SPIR 1.2 bitcode translated back from the same SPIR-V for
 * platforms without SPIR-V ingestion (module_load picks by device). */
static const char *const opencl_image_formats[] = {"spirv", "spir-bitcode", NULL};

static const kk_plugin_ops_t opencl_ops = {
    .struct_size = sizeof(kk_plugin_ops_t),
    .abi_version = KK_PLUGIN_ABI_VERSION,
    .name = "opencl",
    /* below the host backends: a CPU OpenCL platform (PoCL) is used when
     * asked for (--kokkos-device=opencl, backend_order), never by default */
    .priority = 5,
    .flags = 0,
    .tools_device_type = 32, /* Kokkos Tools has no OpenCL device type: the first third-party value */
    .init = opencl_init,
    .finalize = opencl_finalize,
    .device_count = opencl_device_count,
    .device_props = opencl_device_props,
    .device_open = opencl_device_open,
    .space_count = opencl_space_count,
    .space_props = opencl_space_props,
    .mem_alloc = opencl_mem_alloc,
    .mem_free = opencl_mem_free,
    .mem_copy = opencl_mem_copy,
    .mem_set = opencl_mem_set,
    .instance_create = opencl_instance_create,
    .instance_destroy = opencl_instance_destroy,
    .instance_fence = opencl_instance_fence,
    .fence_all = opencl_fence_all,
    .mem_fill = opencl_mem_fill,
    .launch = opencl_launch,
    .image_formats = opencl_image_formats,
    .module_load = opencl_module_load,
    .module_unload = opencl_module_unload,
    .kernel_get = opencl_kernel_get,
    .team_size_query = opencl_team_size_query,
};

KK_PLUGIN_EXPORT const kk_plugin_ops_t *kk_plugin_opencl_entry(uint32_t core_abi, const kk_host_services_t *hs) {
  if (KK_PLUGIN_ABI_MAJOR_OF(core_abi) != KK_PLUGIN_ABI_MAJOR || KK_PLUGIN_ABI_MINOR_OF(core_abi) < 2) {
    hs->error(hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0, "needs plugin ABI 1.2 or later, the core has %u.%u",
              KK_PLUGIN_ABI_MAJOR_OF(core_abi), KK_PLUGIN_ABI_MINOR_OF(core_abi));
    return NULL;
  }
  return &opencl_ops;
}
