/* plugins/cuda/cuda_instance.c -- instances are streams, with the scratch buffers their launches reuse; fences. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

kk_status_t cuda_inst_init(cuda_ctx_t *c, cuda_inst_t *in) {
  memset(in, 0, sizeof *in);
  pthread_mutex_init(&in->grow, NULL);
  atomic_init(&in->tile_base, 0);
  atomic_init(&in->epoch, 1);
  atomic_init(&in->next_slot, 0);
  CU_TRY(c, c->cu.cuStreamCreate(&in->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CU_TRY(c, c->cu.cuMemAlloc(&in->counter, 64), "allocating an instance's counters");
  in->tile_counter = in->counter + 16;
  in->failed = in->counter + 32;
  CU_TRY(c, c->cu.cuMemsetD8Async(in->counter, 0, 64, in->stream), "clearing an instance's counters");
  CU_TRY(c, c->cu.cuMemHostAlloc((void **)&in->results, CUDA_RESULT_SLOTS * CUDA_RESULT_SLOT_BYTES + CUDA_FAILED_RECORD_BYTES,
                                 CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
         "allocating mapped result slots");
  CU_TRY(c, c->cu.cuMemHostGetDevicePointer(&in->results_dev, in->results, 0), "mapping result slots");
  in->failed_record = (volatile unsigned long long *)(in->results + CUDA_RESULT_SLOTS * CUDA_RESULT_SLOT_BYTES);
  memset(in->results + CUDA_RESULT_SLOTS * CUDA_RESULT_SLOT_BYTES, 0, CUDA_FAILED_RECORD_BYTES);
  CU_TRY(c, c->cu.cuStreamSynchronize(in->stream), "cuStreamSynchronize");
  return KK_OK;
}

void cuda_inst_free(cuda_ctx_t *c, cuda_inst_t *in) {
  if (in->stream) {
    c->cu.cuStreamSynchronize(in->stream);
    c->cu.cuStreamDestroy(in->stream);
  }
  cuda_buf_t *bufs[] = {&in->partials, &in->partials2, &in->status, &in->scratch1};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (bufs[i]->ptr)
      c->cu.cuMemFree(bufs[i]->ptr);
  if (in->counter)
    c->cu.cuMemFree(in->counter);
  if (in->results)
    c->cu.cuMemFreeHost(in->results);
  pthread_mutex_destroy(&in->grow);
  memset(in, 0, sizeof *in);
}

/* Grows a buffer to at least `bytes` (amortized: to twice that).  Work
 * queued before still uses the old buffer, so the stream is drained first. */
kk_status_t cuda_inst_grow(cuda_ctx_t *c, cuda_inst_t *in, cuda_buf_t *b, size_t bytes, bool zero) {
  if (b->size >= bytes)
    return KK_OK;
  pthread_mutex_lock(&in->grow);
  kk_status_t st = KK_OK;
  if (b->size < bytes) {
    size_t want = bytes * 2;
    CUresult r = c->cu.cuStreamSynchronize(in->stream);
    if (r == CUDA_SUCCESS && b->ptr)
      r = c->cu.cuMemFree(b->ptr);
    b->ptr = 0;
    b->size = 0;
    if (r == CUDA_SUCCESS)
      r = c->cu.cuMemAlloc(&b->ptr, want);
    if (r == CUDA_SUCCESS && zero)
      r = c->cu.cuMemsetD8Async(b->ptr, 0, want, in->stream);
    if (r == CUDA_SUCCESS)
      b->size = want;
    else
      st = cuda_fail(c, r, "growing a launch buffer to %zu bytes", want);
  }
  pthread_mutex_unlock(&in->grow);
  return st;
}

kk_status_t cuda_instance_create(void *ctx, void **inst) {
  cuda_ctx_t *c = ctx;
  CUDA_BIND(c);
  cuda_inst_t *in = malloc(sizeof *in);
  if (!in)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "instance_create: out of memory");
  kk_status_t st = cuda_inst_init(c, in);
  if (st != KK_OK) {
    cuda_inst_free(c, in);
    free(in);
    return st;
  }
  *inst = in;
  return KK_OK;
}

kk_status_t cuda_instance_destroy(void *ctx, void *inst) {
  CUDA_BIND((cuda_ctx_t *)ctx);
  cuda_inst_free(ctx, inst);
  free(inst);
  return KK_OK;
}

/* After a stream is drained: did a team kernel on it overrun its scratch?
 * The kernel that recorded the failure also wrote the record into mapped
 * host memory, so a fence reads three words, not a device copy (which cost
 * a fence after a team launch about 8 us). */
static kk_status_t check_failed(cuda_ctx_t *c, cuda_inst_t *in) {
  volatile unsigned long long *r = in->failed_record;
  const unsigned failed = (unsigned)(r[0] & 0xffffffffu);
  if (!failed)
    return KK_OK;
  const unsigned long long rec[3] = {r[0], r[1], r[2]};
  r[0] = r[1] = r[2] = 0;
  const unsigned long long zero[3] = {0, 0, 0};
  c->cu.cuMemcpyHtoD(in->failed, zero, sizeof zero); /* the device's word, for the next failure */
  unsigned level = (failed - 1) & 1u, per_thread = (failed - 1) >> 1;
  return c->hs->error(c->hs->core, KK_ERROR_KERNEL_FAILED, NULL, 0,
                      "%s scratch at level %u overrun: the kernel asked for %llu bytes %s, the launch requested %llu",
                      per_thread ? "thread" : "team", level, rec[1], per_thread ? "per thread" : "per team", rec[2]);
}

kk_status_t cuda_instance_fence(void *ctx, void *inst) {
  cuda_ctx_t *c = ctx;
  CUDA_BIND(c);
  cuda_inst_t *in = cuda_inst_of(c, inst);
  CU_TRY(c, c->cu.cuStreamSynchronize(in->stream), "cuStreamSynchronize");
  return check_failed(c, in);
}

kk_status_t cuda_fence_all(void *ctx) {
  cuda_ctx_t *c = ctx;
  CUDA_BIND(c);
  CU_TRY(c, c->cu.cuCtxSynchronize(), "cuCtxSynchronize");
  return check_failed(c, &c->def);
}
