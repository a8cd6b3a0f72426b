/* plugins/opencl/opencl_instance.c -- instances are in-order command queues, with the launch slots and buffers their launches reuse; fences. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

kk_status_t opencl_inst_init(opencl_ctx_t *c, opencl_inst_t *in) {
  memset(in, 0, sizeof *in);
  kkspv_inst_init(&in->sp);
  cl_int r;
  in->queue = c->cl.clCreateCommandQueueWithProperties(c->context, c->devs[c->dev].id, NULL, &r);
  if (!in->queue)
    return opencl_fail(c, r, "clCreateCommandQueueWithProperties");
  unsigned char *small = c->cl.clSVMAlloc(c->context, CL_MEM_READ_WRITE, KKSPV_SMALL_BYTES, 128);
  in->slots = c->cl.clSVMAlloc(c->context, CL_MEM_READ_ONLY, (size_t)OPENCL_SLOTS * KK_SPIRV_SLOT_BYTES, 128);
  in->staging = malloc((size_t)OPENCL_SLOTS * KK_SPIRV_SLOT_BYTES);
  if (!small || !in->slots || !in->staging) {
    if (small)
      c->cl.clSVMFree(c->context, small);
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "allocating an instance's launch slots");
  }
  memset(in->staging, 0, (size_t)OPENCL_SLOTS * KK_SPIRV_SLOT_BYTES);
  kkspv_inst_small(&in->sp, small);
  unsigned char zero = 0;
  CL_TRY(c, c->cl.clEnqueueSVMMemFill(in->queue, small, &zero, 1, KKSPV_SMALL_BYTES, 0, NULL, NULL),
         "clearing an instance's counters");
  CL_TRY(c, c->cl.clFinish(in->queue), "clFinish");
  kkspv_inst_link(&c->def.sp, &in->sp, &c->inst_lock);
  return KK_OK;
}

void opencl_inst_free(opencl_ctx_t *c, opencl_inst_t *in) {
  if (in->queue) {
    c->cl.clFinish(in->queue);
    c->cl.clReleaseCommandQueue(in->queue);
  }
  kkspv_inst_unlink(&in->sp, &c->inst_lock);
  for (int i = 0; i < OPENCL_SLOTS; i++)
    if (in->events[i])
      c->cl.clReleaseEvent(in->events[i]);
  kkspv_buf_t *bufs[] = {&in->sp.partials, &in->sp.partials2, &in->sp.scratch1};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (bufs[i]->ptr)
      c->cl.clSVMFree(c->context, bufs[i]->ptr);
  if (in->sp.counter)
    c->cl.clSVMFree(c->context, in->sp.counter);
  if (in->slots)
    c->cl.clSVMFree(c->context, in->slots);
  free(in->staging);
  pthread_mutex_destroy(&in->sp.lock);
  memset(in, 0, sizeof *in);
}

/* Grows a buffer to at least `bytes` (amortized: to twice that).  Work
 * queued before still uses the old buffer, so the queue is drained first.
 * Called with in->lock held (the planner's grow). */
kk_status_t opencl_inst_grow(void *ctx, kkspv_inst_t *sp, kkspv_buf_t *b, size_t bytes) {
  opencl_ctx_t *c = ctx;
  opencl_inst_t *in = (opencl_inst_t *)sp;
  if (b->size >= bytes)
    return KK_OK;
  size_t want = bytes * 2;
  CL_TRY(c, c->cl.clFinish(in->queue), "clFinish before growing a launch buffer");
  if (b->ptr)
    c->cl.clSVMFree(c->context, b->ptr);
  b->size = 0;
  b->ptr = c->cl.clSVMAlloc(c->context, CL_MEM_READ_WRITE, want, 128);
  if (!b->ptr)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "growing a launch buffer to %zu bytes", want);
  b->size = want;
  return KK_OK;
}

kk_status_t opencl_instance_create(void *ctx, void **inst) {
  opencl_ctx_t *c = ctx;
  opencl_inst_t *in = malloc(sizeof *in);
  if (!in)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "instance_create: out of memory");
  kk_status_t st = opencl_inst_init(c, in);
  if (st != KK_OK) {
    opencl_inst_free(c, in);
    free(in);
    return st;
  }
  *inst = in;
  return KK_OK;
}

kk_status_t opencl_instance_destroy(void *ctx, void *inst) {
  opencl_inst_free(ctx, inst);
  free(inst);
  return KK_OK;
}

/* After a queue is drained: did a team kernel on it overrun its scratch? */
static kk_status_t check_failed(opencl_ctx_t *c, opencl_inst_t *in) {
  if (!atomic_exchange(&in->sp.team_launched, false))
    return KK_OK;
  uint64_t f[3];
  CL_TRY(c, c->cl.clEnqueueSVMMemcpy(in->queue, CL_TRUE, f, in->sp.failed, sizeof f, 0, NULL, NULL),
         "reading the kernel failure flag");
  if (!f[0])
    return KK_OK;
  uint64_t zero[3] = {0, 0, 0};
  c->cl.clEnqueueSVMMemcpy(in->queue, CL_TRUE, in->sp.failed, zero, sizeof zero, 0, NULL, NULL);
  return kkspv_overrun(c->hs, f);
}

kk_status_t opencl_instance_fence(void *ctx, void *inst) {
  opencl_ctx_t *c = ctx;
  opencl_inst_t *in = opencl_inst_of(c, inst);
  CL_TRY(c, c->cl.clFinish(in->queue), "clFinish");
  return check_failed(c, in);
}

kk_status_t opencl_fence_all(void *ctx) {
  opencl_ctx_t *c = ctx;
  kk_status_t st = KK_OK;
  pthread_mutex_lock(&c->inst_lock);
  for (kkspv_inst_t *s = &c->def.sp; s; s = s->next) {
    opencl_inst_t *in = (opencl_inst_t *)s;
    cl_int r = c->cl.clFinish(in->queue);
    if (r != CL_SUCCESS && st == KK_OK)
      st = opencl_fail(c, r, "clFinish");
  }
  pthread_mutex_unlock(&c->inst_lock);
  if (st == KK_OK)
    st = check_failed(c, &c->def);
  return st;
}
