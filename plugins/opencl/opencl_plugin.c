/* plugins/opencl/opencl_plugin.c -- the OpenCL backend's entry point: ICD loader discovery, platforms' devices, the context, and its vendor table for the GPU layer. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

static opencl_ctx_t g_opencl;

/* ---- devices ------------------------------------------------------------------------------- */

static bool has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
      return true;
  return false;
}

/* Fills the record of the device of `id` ({platform, device}); returns NULL
 * when kk can use it, else why not. */
static const char *probe_device(kkg_ctx_t *g, void *rec, void *id, char *why, size_t why_size) {
  const opencl_driver_t *cl = &cl_of(g)->cl;
  opencl_dev_t *d = rec;
  void **pair = id;
  char ext[8192] = "", il[256] = "", version[256] = "";
  cl_uint units = 0;
  size_t max_wg = 0;
  cl_ulong local_mem = 0, global_mem = 0;
  d->platform = pair[0];
  d->id = pair[1];
  cl->clGetDeviceInfo(d->id, CL_DEVICE_NAME, sizeof d->d.name, d->d.name, NULL);
  cl->clGetDeviceInfo(d->id, CL_DEVICE_VENDOR, sizeof d->d.vendor, d->d.vendor, NULL);
  cl->clGetDeviceInfo(d->id, CL_DEVICE_VERSION, sizeof version, version, NULL);
  cl->clGetDeviceInfo(d->id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
  cl->clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
  cl->clGetDeviceInfo(d->id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
  cl->clGetDeviceInfo(d->id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global_mem, &global_mem, NULL);
  cl->clGetDeviceInfo(d->id, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
  if (cl->clGetDeviceInfo(d->id, CL_DEVICE_SVM_CAPABILITIES, sizeof d->svm, &d->svm, NULL) != CL_SUCCESS)
    d->svm = 0;
  if (cl->clGetDeviceInfo(d->id, CL_DEVICE_IL_VERSION, sizeof il - 1, il, NULL) != CL_SUCCESS)
    il[0] = '\0';
  d->il_spirv = strstr(il, "SPIR-V") != NULL && cl->clCreateProgramWithIL;
  d->d.units = (int)units, d->d.max_threads = (int)max_wg, d->d.smem = local_mem, d->d.memory = global_mem;
  d->d.warp = 1; /* vector lanes are a loop inside a work-item (spirv.h) */
  d->d.concurrency = (int64_t)units * (int64_t)(max_wg < 256 ? max_wg : 256);
  snprintf(d->d.arch, sizeof d->d.arch, "%s (%.40s)", d->il_spirv ? "SPIR-V" : "SPIR 1.2", version);
  if (strncmp(version, "OpenCL 1.", 9) == 0)
    snprintf(why, why_size, "%.100s: %.60s, kk needs OpenCL 2.0 (shared virtual memory)", d->d.name, version);
  else if (!(d->svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER))
    snprintf(why, why_size, "%.100s: no shared virtual memory", d->d.name);
  else if (!d->il_spirv && !has_word(ext, "cl_khr_spir"))
    snprintf(why, why_size, "%.100s: ingests neither SPIR-V nor SPIR 1.2 bitcode", d->d.name);
  else if (!has_word(ext, "cl_khr_int64_base_atomics") || !has_word(ext, "cl_khr_fp64"))
    snprintf(why, why_size, "%.100s: no 64-bit atomics or no double precision", d->d.name);
  else
    return NULL;
  return why;
}

/* ---- lifetime ------------------------------------------------------------------------------ */

/* OpenCLShared needs fine-grained buffer SVM: the host may then touch it
 * while kernels run. */
static void count_spaces(kkg_ctx_t *g, int dev) {
  const opencl_dev_t *d = (const opencl_dev_t *)(void *)kkg_device(g, dev);
  g->nspaces = g->ndev && (d->svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) ? 2 : 1;
}

static kk_status_t opencl_discover(kkg_ctx_t *g) {
  opencl_ctx_t *c = cl_of(g);
  static const char *const names[] = {"libOpenCL.so.1", NULL};
  static const size_t offs[] = {
#define OPENCL_OFF(fn, ret, params) offsetof(opencl_driver_t, fn),
      OPENCL_FUNCTIONS(OPENCL_OFF)
#undef OPENCL_OFF
  };
#define OPENCL_SYM(fn, ret, params) #fn " "
  static const char syms[] = OPENCL_FUNCTIONS(OPENCL_SYM);
#undef OPENCL_SYM
  pthread_mutex_init(&c->launch_lock, NULL);
  pthread_mutex_init(&c->remap.lock, NULL);
  if (!kkg_dlopen(g, "KK_OPENCL_LIBRARY", names, "") ||
      !kkg_dlsyms(g, syms, offs, &c->cl, "an OpenCL 2.0 ICD loader is needed"))
    return KK_OK; /* no ICD loader is not an error: the plugin loads and reports 0 devices */
  void *il = dlsym(g->lib, "clCreateProgramWithIL"); /* OpenCL 2.1: optional */
  memcpy(&c->cl.clCreateProgramWithIL, &il, sizeof il);
  cl_uint np = 0;
  cl_platform_id plats[16];
  cl_int r = c->cl.clGetPlatformIDs(16, plats, &np);
  const char *want = getenv("KK_OPENCL_PLATFORM"); /* a substring of the platform's name */
  char skipped[768] = "";
  if (r != CL_SUCCESS || np == 0) {
    snprintf(g->why_none, sizeof g->why_none, "no OpenCL platform (clGetPlatformIDs: %s)",
             r == CL_SUCCESS ? "0 platforms" : kkg_code_name(g, r));
    return KK_OK;
  }
  for (cl_uint p = 0; p < np && p < 16; p++) {
    char pname[256] = "";
    cl_device_id ids[64];
    cl_uint nd = 0;
    c->cl.clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    if ((want && *want && !strstr(pname, want)) ||
        c->cl.clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, ids, &nd) != CL_SUCCESS)
      continue;
    for (cl_uint i = 0; i < nd && i < 64; i++) {
      void *pair[2] = {plats[p], ids[i]};
      kk_status_t st = kkg_probe(g, pair, probe_device, skipped, sizeof skipped);
      if (st != KK_OK)
        return st;
    }
  }
  count_spaces(g, 0);
  if (g->ndev == 0)
    snprintf(g->why_none, sizeof g->why_none, "no usable OpenCL device%s%s", *skipped ? ": " : "",
             *skipped ? skipped : (want && *want ? " on a platform named like KK_OPENCL_PLATFORM" : ""));
  return KK_OK;
}

/* libOpenCL stays loaded: an ICD such as PoCL keeps process-wide state
 * (worker threads, caches) and cannot be unloaded and loaded again by a
 * later kk_initialize; the next init's dlopen only counts one more use. */
static void opencl_release(kkg_ctx_t *g) {
  pthread_mutex_destroy(&cl_of(g)->launch_lock);
  pthread_mutex_destroy(&cl_of(g)->remap.lock);
}

static kk_status_t opencl_open(kkg_ctx_t *g, int dev) {
  const opencl_dev_t *d = (const opencl_dev_t *)(void *)kkg_device(g, dev);
  cl_int r = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
  count_spaces(g, dev);
  cl_of(g)->context = cl_of(g)->cl.clCreateContext(props, 1, &d->id, NULL, NULL, &r);
  KKG_TRY(g, cl_of(g)->context ? CL_SUCCESS : r, "clCreateContext(%s)", d->d.name);
  return KK_OK;
}

static void opencl_close(kkg_ctx_t *g) {
  if (cl_of(g)->context)
    cl_of(g)->cl.clReleaseContext(cl_of(g)->context);
}

/* OpenCL has no Kokkos space names; these follow the Kokkos pattern. */
static const kkg_space_t opencl_spaces[] = {{"OpenCL", KKG_MEM_DEVICE}, {"OpenCLShared", KKG_MEM_MANAGED}, {NULL, 0}};

static const int64_t opencl_statuses[][2] = {OPENCL_STATUSES};
static const kkg_name_t opencl_names[] = {OPENCL_NAMES{0, NULL}};
/* interop: an instance's in-order queue and the plugin's context */
static void *opencl_native_context(kkg_ctx_t *g) { return cl_of(g)->context; }
static kk_status_t opencl_queue_context(kkg_ctx_t *g, void *queue, void **context) {
  cl_context qc = NULL;
  KKG_TRY(g, cl_of(g)->cl.clGetCommandQueueInfo((cl_command_queue)queue, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL),
          "instance_create_native: clGetCommandQueueInfo(CL_QUEUE_CONTEXT) of the program's queue");
  *context = qc;
  return KK_OK;
}

KKG_SPIRV_VENDOR(opencl, .code_type = "cl_int", .native_kind = KK_NATIVE_OPENCL, .native_context = opencl_native_context,
                 .queue_context = opencl_queue_context, .remap = opencl_remap, .remap_release = opencl_remap_release)

/* SPIR-V first; SPIR 1.2 bitcode translated back from the same SPIR-V for
 * platforms without SPIR-V ingestion (module_load picks by device). */
static const char *const opencl_image_formats[] = {"spirv", "spir-bitcode", NULL};

/* priority 5, below the host backends: a CPU OpenCL platform (PoCL) is used
 * when asked for (--kokkos-device=opencl, backend_order), never by default;
 * Kokkos Tools has no OpenCL device type: the first third-party value */
KKG_PLUGIN(opencl, 5, 32, g_opencl, opencl_image_formats)
