/* plugins/levelzero/levelzero_instance.c -- instances are immediate command lists kept in order by barriers, with an event per launch slot and one for fences. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "levelzero_internal.h"

/* Level Zero gives no order between the commands of one list: a barrier
 * goes before a command whenever one was appended since the last, which
 * makes the list an in-order stream.  The list is the instance's native
 * queue; on a program's list (borrowed) only the events are kk's. */
kk_status_t levelzero_queue_create(kkg_ctx_t *g, kkg_inst_t *gi) {
  const levelzero_ctx_t *c = ze_of(g);
  levelzero_inst_t *in = ze_inst(gi);
  ze_device_handle_t dev = ze_dev(g)->id;
  ze_command_queue_desc_t qd = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                .ordinal = ze_dev(g)->compute_ordinal,
                                .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_event_pool_desc_t pd = {
      .stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE, .count = KKG_SLOTS + 1};
  if (gi->borrowed)
    in->list = gi->queue;
  else
    KKG_TRY(g, c->ze.zeCommandListCreateImmediate(c->context, dev, &qd, &in->list), "zeCommandListCreateImmediate");
  gi->queue = in->list;
  KKG_TRY(g, c->ze.zeEventPoolCreate(c->context, &pd, 1, &dev, &in->pool), "zeEventPoolCreate(%d events)", KKG_SLOTS + 1);
  for (uint32_t i = 0; i <= KKG_SLOTS; i++) {
    ze_event_desc_t ed = {
        .stype = ZE_STRUCTURE_TYPE_EVENT_DESC, .index = i, .signal = ZE_EVENT_SCOPE_FLAG_HOST, .wait = ZE_EVENT_SCOPE_FLAG_HOST};
    KKG_TRY(g, c->ze.zeEventCreate(in->pool, &ed, i < KKG_SLOTS ? &in->events[i] : &in->fence), "zeEventCreate(%u)", i);
  }
  return KK_OK;
}

void levelzero_queue_destroy(kkg_ctx_t *g, kkg_inst_t *gi) {
  const levelzero_ctx_t *c = ze_of(g);
  levelzero_inst_t *in = ze_inst(gi);
  if (in->list && in->fence)
    levelzero_queue_sync(g, gi);
  for (int i = 0; i < KKG_SLOTS; i++)
    if (in->events[i])
      c->ze.zeEventDestroy(in->events[i]);
  if (in->fence)
    c->ze.zeEventDestroy(in->fence);
  if (in->pool)
    c->ze.zeEventPoolDestroy(in->pool);
  if (in->list && !gi->borrowed)
    c->ze.zeCommandListDestroy(in->list);
}

/* On a list the program appends to as well, every kk command waits for all
 * before it: kk cannot see what the program appended. */
kk_status_t levelzero_order(kkg_ctx_t *g, levelzero_inst_t *in) {
  if (!in->pending && !atomic_load_explicit(&in->g.shared, memory_order_relaxed))
    return KK_OK;
  KKG_TRY(g, ze_of(g)->ze.zeCommandListAppendBarrier(in->list, NULL, 0, NULL), "zeCommandListAppendBarrier");
  in->pending = false;
  return KK_OK;
}

kk_status_t levelzero_sync_locked(kkg_ctx_t *g, levelzero_inst_t *in) {
  const levelzero_driver_t *ze = &ze_of(g)->ze;
  KKG_TRY(g, ze->zeCommandListAppendBarrier(in->list, in->fence, 0, NULL), "zeCommandListAppendBarrier (fence)");
  in->pending = false;
  KKG_TRY(g, ze->zeEventHostSynchronize(in->fence, UINT64_MAX), "zeEventHostSynchronize (fence)");
  KKG_TRY(g, ze->zeEventHostReset(in->fence), "zeEventHostReset (fence)");
  return KK_OK;
}

kk_status_t levelzero_queue_sync(kkg_ctx_t *g, kkg_inst_t *gi) {
  pthread_mutex_lock(&gi->lock);
  kk_status_t st = levelzero_sync_locked(g, ze_inst(gi));
  pthread_mutex_unlock(&gi->lock);
  return st;
}

/* A slot is reused once the launch that used it has finished (its event). */
kk_status_t levelzero_slot_wait(kkg_ctx_t *g, kkg_inst_t *gi, unsigned s) {
  levelzero_inst_t *in = ze_inst(gi);
  if (in->used[s]) {
    KKG_TRY(g, ze_of(g)->ze.zeEventHostSynchronize(in->events[s], UINT64_MAX), "waiting for a launch slot");
    KKG_TRY(g, ze_of(g)->ze.zeEventHostReset(in->events[s]), "resetting a launch slot's event");
    in->used[s] = false;
  }
  return KK_OK;
}
