/* plugins/opencl/opencl_parallel.c -- programs from SPIR-V or SPIR bitcode, kernels, and the launch of a slot: arguments, the NDRange. */
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

/* Enqueues the kernel over `groups` work-groups of `local` work-items with
 * `smem` bytes of local memory; its event frees slot s.  With in's lock held. */
kk_status_t opencl_enqueue(kkg_ctx_t *g, kkg_inst_t *in, const kk_launch_t *l, void *fn, void *slot, unsigned s,
                           int64_t groups, size_t local, uint64_t smem) {
  opencl_ctx_t *c = cl_of(g);
  const size_t global = (size_t)groups * local;
  pthread_mutex_lock(&c->launch_lock);
  cl_int r = c->cl.clSetKernelArgSVMPointer(fn, 0, slot);
  if (r == CL_SUCCESS)
    r = c->cl.clSetKernelArg(fn, 1, smem > 16 ? (size_t)smem : 16, NULL);
  if (r == CL_SUCCESS)
    r = c->cl.clEnqueueNDRangeKernel(cl_queue(in), fn, 1, NULL, &global, &local, 0, NULL,
                                     &((opencl_inst_t *)(void *)in)->events[s]);
  pthread_mutex_unlock(&c->launch_lock);
  KKG_TRY(g, r, "clEnqueueNDRangeKernel(%s: %lld groups of %zu work-items, %llu bytes of local memory)", l->label,
          (long long)groups, local, (unsigned long long)smem);
  c->cl.clFlush(cl_queue(in));
  return KK_OK;
}
