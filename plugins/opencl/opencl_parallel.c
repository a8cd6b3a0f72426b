/* plugins/opencl/opencl_parallel.c -- programs, kernels and every kind of launch: launch slots, work-groups, partials, results. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

/* ---- programs and kernels ------------------------------------------------------------------ */

kk_status_t opencl_module_load(void *ctx, const kk_module_t *m, const kk_image_t *image, void **pmod) {
  opencl_ctx_t *c = ctx;
  const opencl_dev_t *d = &c->devs[c->dev];
  /* SPIR-V where the device ingests it, else the SPIR 1.2 bitcode made from it */
  const kk_image_t *img = d->il_spirv ? kkspv_find_image(m, "spirv")
                          : d->spir   ? kkspv_find_image(m, "spir-bitcode")
                                      : NULL;
  (void)image;
  if (!img)
    return c->hs->error(c->hs->core, KK_ERROR_NOT_FOUND, NULL, 0,
                        "module %s has no %s image for %s (built with kkcc --targets=%s)", m->source_name,
                        d->il_spirv ? "SPIR-V" : "SPIR bitcode", d->name, m->targets ? m->targets : "?");
  kk_status_t st = kkspv_check_image(c->hs, m, img);
  if (st != KK_OK)
    return st;
  cl_int r = CL_SUCCESS, bs = CL_SUCCESS;
  cl_program prog;
  const bool spirv = strcmp(img->format, "spirv") == 0;
  if (spirv) {
    prog = c->cl.clCreateProgramWithIL(c->context, img->data, (size_t)img->size, &r);
  } else {
    size_t size = (size_t)img->size;
    const unsigned char *data = img->data;
    prog = c->cl.clCreateProgramWithBinary(c->context, 1, &d->id, &size, &data, &bs, &r);
  }
  if (!prog)
    return opencl_fail(c, r != CL_SUCCESS ? r : bs, "creating the program of module %s from its %s image",
                       m->source_name, img->format);
  r = c->cl.clBuildProgram(prog, 1, &d->id, spirv ? "" : "-x spir -spir-std=1.2", NULL, NULL);
  if (r != CL_SUCCESS) {
    char log[2048] = "";
    c->cl.clGetProgramBuildInfo(prog, d->id, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    c->cl.clReleaseProgram(prog);
    return opencl_fail(c, r, "building module %s (%s image) for %s: %s", m->source_name, img->format, d->name, log);
  }
  opencl_module_t *om = calloc(1, sizeof *om);
  if (!om) {
    c->cl.clReleaseProgram(prog);
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "module_load: out of memory");
  }
  om->prog = prog;
  *pmod = om;
  return KK_OK;
}

kk_status_t opencl_module_unload(void *ctx, void *pmod) {
  opencl_ctx_t *c = ctx;
  opencl_module_t *om = pmod;
  opencl_fence_all(c);
  while (om->kernels) {
    opencl_kernel_t *k = om->kernels;
    om->kernels = k->next;
    c->cl.clReleaseKernel(k->k);
    if (k->final)
      c->cl.clReleaseKernel(k->final);
    free(k);
  }
  cl_int r = c->cl.clReleaseProgram(om->prog);
  free(om);
  if (r != CL_SUCCESS)
    return opencl_fail(c, r, "clReleaseProgram");
  return KK_OK;
}

kk_status_t opencl_kernel_get(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel) {
  opencl_ctx_t *c = ctx;
  opencl_module_t *om = pmod;
  char name[300];
  snprintf(name, sizeof name, "kk_k_%s", kernel->name);
  cl_int r;
  cl_kernel ck = c->cl.clCreateKernel(om->prog, name, &r);
  if (!ck)
    return opencl_fail(c, r, "clCreateKernel(%s)", name);
  opencl_kernel_t *k = calloc(1, sizeof *k);
  if (!k) {
    c->cl.clReleaseKernel(ck);
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "kernel_get: out of memory");
  }
  k->k = ck;
  if (kernel->kind == KK_KIND_SCAN) {
    snprintf(name, sizeof name, "kk_k_%s__final", kernel->name);
    k->final = c->cl.clCreateKernel(om->prog, name, &r);
    if (!k->final) {
      c->cl.clReleaseKernel(ck);
      free(k);
      return opencl_fail(c, r, "clCreateKernel(%s)", name);
    }
  }
  if (c->cl.clGetKernelWorkGroupInfo(ck, c->devs[c->dev].id, CL_KERNEL_WORK_GROUP_SIZE, sizeof k->sp.max_wg,
                                     &k->sp.max_wg, NULL) != CL_SUCCESS || k->sp.max_wg == 0)
    k->sp.max_wg = c->devs[c->dev].max_wg;
  k->sp.pref_wg = 256; /* ranges of 256 items and longer run in groups of 256 (or what the kernel allows) */
  k->next = om->kernels;
  om->kernels = k;
  *pkernel = k;
  return KK_OK;
}

/* ---- launching --------------------------------------------------------------------------------- */

/* The planner's enqueue (spirv_host.h): writes the launch record and the
 * arguments into the instance's next slot and enqueues the kernel over
 * `groups` work-groups of `local` work-items with `smem` bytes of local
 * memory.  Called with in->lock held. */
static kk_status_t enqueue(void *ctx, kkspv_inst_t *sp, const kk_launch_t *l, bool final, const kk_spirv_launch *L,
                           int64_t groups, size_t local, uint64_t smem) {
  opencl_ctx_t *c = ctx;
  opencl_inst_t *in = (opencl_inst_t *)sp;
  const opencl_kernel_t *k = l->device_kernel;
  cl_kernel ck = final ? k->final : k->k;
  const unsigned s = in->next++ % OPENCL_SLOTS;
  if (in->events[s]) {
    CL_TRY(c, c->cl.clWaitForEvents(1, &in->events[s]), "waiting for a launch slot");
    c->cl.clReleaseEvent(in->events[s]);
    in->events[s] = NULL;
  }
  unsigned char *stage = in->staging + (size_t)s * KK_SPIRV_SLOT_BYTES, *slot = in->slots + (size_t)s * KK_SPIRV_SLOT_BYTES;
  memcpy(stage, L, sizeof *L);
  memcpy(stage + KK_SPIRV_ARGS_OFFSET, l->args, l->args_size);
  CL_TRY(c, c->cl.clEnqueueSVMMemcpy(in->queue, CL_FALSE, slot, stage, KK_SPIRV_ARGS_OFFSET + l->args_size, 0, NULL, NULL),
         "copying the arguments of '%s'", l->label);
  size_t global = (size_t)groups * local;
  pthread_mutex_lock(&c->launch_lock);
  cl_int r = c->cl.clSetKernelArgSVMPointer(ck, 0, slot);
  if (r == CL_SUCCESS)
    r = c->cl.clSetKernelArg(ck, 1, smem > 16 ? (size_t)smem : 16, NULL);
  if (r == CL_SUCCESS)
    r = c->cl.clEnqueueNDRangeKernel(in->queue, ck, 1, NULL, &global, &local, 0, NULL, &in->events[s]);
  pthread_mutex_unlock(&c->launch_lock);
  if (r != CL_SUCCESS)
    return opencl_fail(c, r, "clEnqueueNDRangeKernel(%s: %lld groups of %zu work-items, %llu bytes of local memory)",
                       l->label, (long long)groups, local, (unsigned long long)smem);
  c->cl.clFlush(in->queue);
  return KK_OK;
}

/* The planner's result_copy: enqueues the copy of a synchronous result
 * (with in->lock held); the launch then drains the queue. */
static kk_status_t result_copy(void *ctx, kkspv_inst_t *sp, const kk_launch_t *l, const void *dev) {
  opencl_ctx_t *c = ctx;
  opencl_inst_t *in = (opencl_inst_t *)sp;
  CL_TRY(c,
         c->cl.clEnqueueSVMMemcpy(in->queue, CL_FALSE, l->result, dev, l->kernel->reducer->value_size, 0, NULL, NULL),
         "copying the result of '%s'", l->label);
  c->cl.clFlush(in->queue);
  return KK_OK;
}

const kkspv_ops_t opencl_spirv_ops = {
    .grow = opencl_inst_grow,
    .enqueue = enqueue,
    .result_copy = result_copy,
    .fence = opencl_instance_fence,
};

kk_status_t opencl_launch(void *ctx, void *inst, const kk_launch_t *l) {
  opencl_ctx_t *c = ctx;
  return kkspv_launch(&c->sp, &opencl_inst_of(c, inst)->sp, inst, l);
}

kk_status_t opencl_team_size_query(void *ctx, const kk_launch_t *l, int32_t *max, int32_t *recommended) {
  opencl_ctx_t *c = ctx;
  const opencl_kernel_t *k = l->device_kernel;
  return kkspv_team_size_query(&c->sp, k ? &k->sp : NULL, l, max, recommended);
}
