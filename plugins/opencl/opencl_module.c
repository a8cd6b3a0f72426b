/* plugins/opencl/opencl_module.c -- programs from SPIR-V or SPIR bitcode, and kernels. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <string.h>

#include "opencl_internal.h"

/* SPIR-V where the device ingests it, else the SPIR 1.2 bitcode made from it. */
kk_status_t opencl_module_load(kkg_ctx_t *g, const kk_module_t *m, const kk_image_t *image, void **handle) {
  const opencl_driver_t *cl = &cl_of(g)->cl;
  const opencl_dev_t *d = cl_dev(g);
  const bool spirv = d->il_spirv;
  const kk_image_t *img = image;
  cl_int r = CL_SUCCESS, bs = CL_SUCCESS;
  cl_program prog;
  kk_status_t st = kkg_spv_image(g, m, spirv ? "spirv" : "spir-bitcode", &img);
  if (st != KK_OK)
    return st;
  if (spirv) {
    prog = cl->clCreateProgramWithIL(cl_of(g)->context, img->data, (size_t)img->size, &r);
  } else {
    size_t size = (size_t)img->size;
    const unsigned char *data = img->data;
    prog = cl->clCreateProgramWithBinary(cl_of(g)->context, 1, &d->id, &size, &data, &bs, &r);
  }
  KKG_TRY(g, prog ? CL_SUCCESS : r != CL_SUCCESS ? r : bs, "creating the program of module %s from its %s image",
          m->source_name, img->format);
  if ((r = cl->clBuildProgram(prog, 1, &d->id, spirv ? "" : "-x spir -spir-std=1.2", NULL, NULL)) != CL_SUCCESS) {
    char log[2048] = "";
    cl->clGetProgramBuildInfo(prog, d->id, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    cl->clReleaseProgram(prog);
    return kkg_fail(g, r, "building module %s (%s image) for %s: %s", m->source_name, img->format, d->d.name, log);
  }
  *handle = prog;
  return KK_OK;
}

int opencl_module_unload(kkg_ctx_t *g, void *handle) { return cl_of(g)->cl.clReleaseProgram(handle); }

/* Ranges of 256 items and longer run in groups of 256, or what the kernel allows. */
kk_status_t opencl_function(kkg_ctx_t *g, void *handle, const char *name, bool quiet, void **fn, int *max_threads,
                            int *pref) {
  const opencl_driver_t *cl = &cl_of(g)->cl;
  cl_int r = CL_SUCCESS;
  size_t wg = 0;
  (void)quiet;
  cl_kernel k = cl->clCreateKernel(handle, name, &r);
  KKG_TRY(g, k ? CL_SUCCESS : r, "clCreateKernel(%s)", name);
  if (cl->clGetKernelWorkGroupInfo(k, cl_dev(g)->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL) == CL_SUCCESS)
    *max_threads = (int)wg;
  *pref = 256;
  *fn = k;
  return KK_OK;
}

void opencl_function_free(kkg_ctx_t *g, void *fn) { cl_of(g)->cl.clReleaseKernel(fn); }
