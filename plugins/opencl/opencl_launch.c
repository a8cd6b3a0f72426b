/* plugins/opencl/opencl_launch.c -- the launch of a slot: arguments, the NDRange. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "opencl_internal.h"

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
