/* plugins/hip/hip_instance.c -- instances are streams, with the scratch buffers their launches reuse; fences. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hip_internal.h"

kk_status_t hip_inst_init(hip_ctx_t *c, hip_inst_t *in) {
  memset(in, 0, sizeof *in);
  pthread_mutex_init(&in->grow, NULL);
  atomic_init(&in->epoch, 1);
  atomic_init(&in->next_slot, 0);
  atomic_init(&in->team_launched, false);
  HIP_TRY(c, c->rt.hipStreamCreateWithFlags(&in->stream, hipStreamNonBlocking), "hipStreamCreateWithFlags");
  HIP_TRY(c, c->rt.hipMalloc((void **)&in->counter, 64), "allocating an instance's counters");
  in->tile_counter = in->counter + 16;
  in->failed = in->counter + 32;
  HIP_TRY(c, c->rt.hipMemsetD8Async(in->counter, 0, 64, in->stream), "clearing an instance's counters");
  /* coherent (fine-grained) host memory: a value the kernel writes is seen
   * by the host before the kernel ends */
  HIP_TRY(c,
          c->rt.hipHostMalloc((void **)&in->results, HIP_RESULT_SLOTS * HIP_RESULT_SLOT_BYTES,
                              hipHostMallocPortable | hipHostMallocMapped | hipHostMallocCoherent),
          "allocating mapped result slots");
  memset(in->results, 0, HIP_RESULT_SLOTS * HIP_RESULT_SLOT_BYTES);
  HIP_TRY(c, c->rt.hipHostGetDevicePointer((void **)&in->results_dev, in->results, 0), "mapping result slots");
  HIP_TRY(c, c->rt.hipStreamSynchronize(in->stream), "hipStreamSynchronize");
  return KK_OK;
}

void hip_inst_free(hip_ctx_t *c, hip_inst_t *in) {
  if (in->stream) {
    c->rt.hipStreamSynchronize(in->stream);
    c->rt.hipStreamDestroy(in->stream);
  }
  hip_buf_t *bufs[] = {&in->partials, &in->partials2, &in->status, &in->scratch1};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (bufs[i]->ptr)
      c->rt.hipFree(bufs[i]->ptr);
  if (in->counter)
    c->rt.hipFree(in->counter);
  if (in->results)
    c->rt.hipHostFree(in->results);
  pthread_mutex_destroy(&in->grow);
  memset(in, 0, sizeof *in);
}

/* Grows a buffer to at least `bytes` (amortized: to twice that).  Work
 * queued before still uses the old buffer, so the stream is drained first. */
kk_status_t hip_inst_grow(hip_ctx_t *c, hip_inst_t *in, hip_buf_t *b, size_t bytes, bool zero) {
  if (b->size >= bytes)
    return KK_OK;
  pthread_mutex_lock(&in->grow);
  kk_status_t st = KK_OK;
  if (b->size < bytes) {
    size_t want = bytes * 2;
    hipError_t r = c->rt.hipStreamSynchronize(in->stream);
    if (r == hipSuccess && b->ptr)
      r = c->rt.hipFree(b->ptr);
    b->ptr = NULL;
    b->size = 0;
    if (r == hipSuccess)
      r = c->rt.hipMalloc(&b->ptr, want);
    if (r == hipSuccess && zero)
      r = c->rt.hipMemsetD8Async(b->ptr, 0, want, in->stream);
    if (r == hipSuccess)
      b->size = want;
    else
      st = hip_fail(c, r, "growing a launch buffer to %zu bytes", want);
  }
  pthread_mutex_unlock(&in->grow);
  return st;
}

kk_status_t hip_instance_create(void *ctx, void **inst) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  hip_inst_t *in = malloc(sizeof *in);
  if (!in)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "instance_create: out of memory");
  kk_status_t st = hip_inst_init(c, in);
  if (st != KK_OK) {
    hip_inst_free(c, in);
    free(in);
    return st;
  }
  *inst = in;
  return KK_OK;
}

kk_status_t hip_instance_destroy(void *ctx, void *inst) {
  HIP_BIND((hip_ctx_t *)ctx);
  hip_inst_free(ctx, inst);
  free(inst);
  return KK_OK;
}

/* After a stream is drained: did a team kernel on it overrun its scratch? */
static kk_status_t check_failed(hip_ctx_t *c, hip_inst_t *in) {
  if (!atomic_exchange(&in->team_launched, false))
    return KK_OK;
  /* the failure word, then (8 bytes on) the bytes asked for and requested */
  unsigned long long rec[3] = {0, 0, 0};
  HIP_TRY(c, c->rt.hipMemcpyDtoH(rec, in->failed, sizeof rec), "reading the kernel failure record");
  const unsigned failed = (unsigned)(rec[0] & 0xffffffffu);
  if (!failed)
    return KK_OK;
  unsigned long long zero[3] = {0, 0, 0};
  c->rt.hipMemcpyHtoD(in->failed, zero, sizeof zero);
  unsigned level = (failed - 1) & 1u, per_thread = (failed - 1) >> 1;
  return c->hs->error(c->hs->core, KK_ERROR_KERNEL_FAILED, NULL, 0,
                      "%s scratch at level %u overrun: the kernel asked for %llu bytes %s, the launch requested %llu",
                      per_thread ? "thread" : "team", level, rec[1], per_thread ? "per thread" : "per team", rec[2]);
}

kk_status_t hip_instance_fence(void *ctx, void *inst) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  hip_inst_t *in = hip_inst_of(c, inst);
  HIP_TRY(c, c->rt.hipStreamSynchronize(in->stream), "hipStreamSynchronize");
  return check_failed(c, in);
}

kk_status_t hip_fence_all(void *ctx) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  HIP_TRY(c, c->rt.hipDeviceSynchronize(), "hipDeviceSynchronize");
  return check_failed(c, &c->def);
}
