/* plugins/levelzero/levelzero_instance.c -- instances are immediate command lists kept in order by barriers, with the launch slots, events and buffers their launches reuse; fences. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "levelzero_internal.h"

kk_status_t levelzero_inst_init(levelzero_ctx_t *c, levelzero_inst_t *in) {
  memset(in, 0, sizeof *in);
  kkspv_inst_init(&in->sp);
  const levelzero_dev_t *d = &c->devs[c->dev];
  /* Level Zero gives no order between the commands of one list: kk adds a
   * barrier before a command whenever one was appended since the last
   * (levelzero_order), which makes the list an in-order stream. */
  ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                .ordinal = d->compute_ordinal,
                                .index = 0,
                                .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ZE_TRY(c, c->ze.zeCommandListCreateImmediate(c->context, d->id, &qd, &in->list), "zeCommandListCreateImmediate");
  ze_event_pool_desc_t pd = {.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
                             .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                             .count = LEVELZERO_SLOTS + 1};
  ze_device_handle_t dev = d->id;
  ZE_TRY(c, c->ze.zeEventPoolCreate(c->context, &pd, 1, &dev, &in->pool), "zeEventPoolCreate(%d events)",
         LEVELZERO_SLOTS + 1);
  for (uint32_t i = 0; i <= LEVELZERO_SLOTS; i++) {
    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
                          .index = i,
                          .signal = ZE_EVENT_SCOPE_FLAG_HOST,
                          .wait = ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t *e = i < LEVELZERO_SLOTS ? &in->events[i] : &in->fence;
    ZE_TRY(c, c->ze.zeEventCreate(in->pool, &ed, e), "zeEventCreate(%u)", i);
  }
  void *small = NULL, *slots = NULL;
  kk_status_t st;
  if ((st = levelzero_alloc(c, LEVELZERO_SPACE_DEVICE, KKSPV_SMALL_BYTES, &small)) != KK_OK)
    return st;
  kkspv_inst_small(&in->sp, small);
  if ((st = levelzero_alloc(c, LEVELZERO_SPACE_DEVICE, (size_t)LEVELZERO_SLOTS * KK_SPIRV_SLOT_BYTES, &slots)) != KK_OK)
    return st;
  in->slots = slots;
  in->staging = calloc(LEVELZERO_SLOTS, KK_SPIRV_SLOT_BYTES);
  if (!in->staging)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "allocating an instance's launch slots");
  unsigned char zero = 0;
  pthread_mutex_lock(&in->sp.lock);
  ze_result_t r = c->ze.zeCommandListAppendMemoryFill(in->list, small, &zero, 1, KKSPV_SMALL_BYTES, NULL, 0, NULL);
  in->pending = true;
  st = r == ZE_RESULT_SUCCESS ? levelzero_sync_locked(c, in) : levelzero_fail(c, r, "clearing an instance's counters");
  pthread_mutex_unlock(&in->sp.lock);
  if (st != KK_OK)
    return st;
  kkspv_inst_link(&c->def.sp, &in->sp, &c->inst_lock);
  return KK_OK;
}

void levelzero_inst_free(levelzero_ctx_t *c, levelzero_inst_t *in) {
  if (in->list && in->fence) {
    pthread_mutex_lock(&in->sp.lock);
    levelzero_sync_locked(c, in);
    pthread_mutex_unlock(&in->sp.lock);
  }
  kkspv_inst_unlink(&in->sp, &c->inst_lock);
  for (int i = 0; i < LEVELZERO_SLOTS; i++)
    if (in->events[i])
      c->ze.zeEventDestroy(in->events[i]);
  if (in->fence)
    c->ze.zeEventDestroy(in->fence);
  if (in->pool)
    c->ze.zeEventPoolDestroy(in->pool);
  if (in->list)
    c->ze.zeCommandListDestroy(in->list);
  kkspv_buf_t *bufs[] = {&in->sp.partials, &in->sp.partials2, &in->sp.scratch1};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (bufs[i]->ptr)
      c->ze.zeMemFree(c->context, bufs[i]->ptr);
  if (in->sp.counter)
    c->ze.zeMemFree(c->context, in->sp.counter);
  if (in->slots)
    c->ze.zeMemFree(c->context, in->slots);
  free(in->staging);
  pthread_mutex_destroy(&in->sp.lock);
  memset(in, 0, sizeof *in);
}

/* Orders the next command after every command appended before it (with
 * in->lock held). */
kk_status_t levelzero_order(levelzero_ctx_t *c, levelzero_inst_t *in) {
  if (!in->pending)
    return KK_OK;
  ZE_TRY(c, c->ze.zeCommandListAppendBarrier(in->list, NULL, 0, NULL), "zeCommandListAppendBarrier");
  in->pending = false;
  return KK_OK;
}

/* Waits until every command appended so far has finished (with in->lock
 * held): a barrier that signals the fence event, then the host waits for it. */
kk_status_t levelzero_sync_locked(levelzero_ctx_t *c, levelzero_inst_t *in) {
  ZE_TRY(c, c->ze.zeCommandListAppendBarrier(in->list, in->fence, 0, NULL), "zeCommandListAppendBarrier (fence)");
  in->pending = false;
  ZE_TRY(c, c->ze.zeEventHostSynchronize(in->fence, UINT64_MAX), "zeEventHostSynchronize (fence)");
  ZE_TRY(c, c->ze.zeEventHostReset(in->fence), "zeEventHostReset (fence)");
  return KK_OK;
}

/* Grows a buffer to at least `bytes` (amortized: to twice that).  Work
 * appended before still uses the old buffer, so the list is drained first.
 * Called with in->lock held (the planner's grow). */
kk_status_t levelzero_inst_grow(void *ctx, kkspv_inst_t *sp, kkspv_buf_t *b, size_t bytes) {
  levelzero_ctx_t *c = ctx;
  levelzero_inst_t *in = (levelzero_inst_t *)sp;
  if (b->size >= bytes)
    return KK_OK;
  size_t want = bytes * 2;
  kk_status_t st = levelzero_sync_locked(c, in);
  if (st != KK_OK)
    return st;
  if (b->ptr)
    c->ze.zeMemFree(c->context, b->ptr);
  b->size = 0;
  b->ptr = NULL;
  if ((st = levelzero_alloc(c, LEVELZERO_SPACE_DEVICE, want, &b->ptr)) != KK_OK)
    return st;
  b->size = want;
  return KK_OK;
}

kk_status_t levelzero_instance_create(void *ctx, void **inst) {
  levelzero_ctx_t *c = ctx;
  levelzero_inst_t *in = malloc(sizeof *in);
  if (!in)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "instance_create: out of memory");
  kk_status_t st = levelzero_inst_init(c, in);
  if (st != KK_OK) {
    levelzero_inst_free(c, in);
    free(in);
    return st;
  }
  *inst = in;
  return KK_OK;
}

kk_status_t levelzero_instance_destroy(void *ctx, void *inst) {
  levelzero_inst_free(ctx, inst);
  free(inst);
  return KK_OK;
}

/* After a list is drained: did a team kernel on it overrun its scratch?
 * Called with in->lock held. */
static kk_status_t check_failed(levelzero_ctx_t *c, levelzero_inst_t *in) {
  if (!atomic_exchange(&in->sp.team_launched, false))
    return KK_OK;
  uint64_t f[3] = {0, 0, 0};
  ZE_TRY(c, c->ze.zeCommandListAppendMemoryCopy(in->list, f, in->sp.failed, sizeof f, NULL, 0, NULL),
         "reading the kernel failure flag");
  in->pending = true;
  kk_status_t st = levelzero_sync_locked(c, in);
  if (st != KK_OK || !f[0])
    return st;
  unsigned char zero = 0;
  ZE_TRY(c, c->ze.zeCommandListAppendMemoryFill(in->list, in->sp.failed, &zero, 1, sizeof f, NULL, 0, NULL),
         "clearing the kernel failure flag");
  in->pending = true;
  if ((st = levelzero_sync_locked(c, in)) != KK_OK)
    return st;
  return kkspv_overrun(c->hs, f);
}

kk_status_t levelzero_instance_fence(void *ctx, void *inst) {
  levelzero_ctx_t *c = ctx;
  levelzero_inst_t *in = levelzero_inst_of(c, inst);
  pthread_mutex_lock(&in->sp.lock);
  kk_status_t st = levelzero_sync_locked(c, in);
  if (st == KK_OK)
    st = check_failed(c, in);
  pthread_mutex_unlock(&in->sp.lock);
  return st;
}

kk_status_t levelzero_fence_all(void *ctx) {
  levelzero_ctx_t *c = ctx;
  kk_status_t st = KK_OK;
  pthread_mutex_lock(&c->inst_lock);
  for (kkspv_inst_t *s = &c->def.sp; s; s = s->next) {
    levelzero_inst_t *in = (levelzero_inst_t *)s;
    pthread_mutex_lock(&in->sp.lock);
    kk_status_t s = levelzero_sync_locked(c, in);
    pthread_mutex_unlock(&in->sp.lock);
    if (s != KK_OK && st == KK_OK)
      st = s;
  }
  pthread_mutex_unlock(&c->inst_lock);
  if (st == KK_OK) {
    pthread_mutex_lock(&c->def.sp.lock);
    st = check_failed(c, &c->def);
    pthread_mutex_unlock(&c->def.sp.lock);
  }
  return st;
}
