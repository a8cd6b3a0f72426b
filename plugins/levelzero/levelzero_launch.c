/* plugins/levelzero/levelzero_launch.c -- the launch of a slot: arguments, group size, the append. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "levelzero_internal.h"

/* Appends, after a barrier, the kernel over `groups` work-groups of `local`
 * work-items with `smem` bytes of shared local memory, signalling slot s's
 * event.  With in's lock held. */
kk_status_t levelzero_enqueue(kkg_ctx_t *g, kkg_inst_t *gi, const kk_launch_t *l, void *fn, void *slot, unsigned s,
                              int64_t groups, size_t local, uint64_t smem) {
  levelzero_ctx_t *c = ze_of(g);
  levelzero_inst_t *in = ze_inst(gi);
  const ze_group_count_t gc = {.groupCountX = (uint32_t)groups, .groupCountY = 1, .groupCountZ = 1};
  const size_t local_bytes = smem > 16 ? (size_t)smem : 16;
  kk_status_t st = levelzero_order(g, in);
  if (st != KK_OK)
    return st;
  pthread_mutex_lock(&c->launch_lock);
  ze_result_t r = c->ze.zeKernelSetArgumentValue(fn, 0, sizeof slot, &slot);
  if (r == ZE_RESULT_SUCCESS)
    r = c->ze.zeKernelSetArgumentValue(fn, 1, local_bytes, NULL); /* shared local memory: a size, no value */
  if (r == ZE_RESULT_SUCCESS)
    r = c->ze.zeKernelSetGroupSize(fn, (uint32_t)local, 1, 1);
  if (r == ZE_RESULT_SUCCESS)
    r = c->ze.zeCommandListAppendLaunchKernel(in->list, fn, &gc, in->events[s], 0, NULL);
  pthread_mutex_unlock(&c->launch_lock);
  KKG_TRY(g, r, "launching %s: %lld groups of %zu work-items, %zu bytes of shared local memory", l->label,
          (long long)groups, local, local_bytes);
  in->used[s] = true;
  in->pending = true;
  return KK_OK;
}
