/* plugins/threads/threads_memory.c -- the threads backend's memory: the "Host" space, set/copy/fill on the pool when large. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdint.h>

#include "host_common.h"
#include "host_memops.h"
#include "host_remap.h"
#include "threads_internal.h"

kk_status_t threads_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr) {
  (void)space;
  return kkh_mem_alloc(((threads_ctx_t *)ctx)->hs, bytes, ptr);
}

/* The pool that runs a memory operation on `inst`, claimed, or NULL when the
 * operation is small enough for the calling thread.  Work on an instance is
 * done when the call returns, which satisfies "complete at the next fence". */
static kkh_exec_t *claim_min(threads_ctx_t *c, void *inst, size_t bytes, size_t min, threads_pool_t **pool) {
  threads_pool_t *p = threads_pool_of(c, inst);
  *pool = NULL;
  if (!p || bytes < min || threads_pool_size(p) < 2)
    return NULL;
  *pool = p;
  return threads_pool_claim(p);
}

static kkh_exec_t *claim_for(threads_ctx_t *c, void *inst, size_t bytes, threads_pool_t **pool) {
  return claim_min(c, inst, bytes, KKH_MEMOPS_PARALLEL_MIN, pool);
}

static void drop(threads_pool_t *pool) {
  if (pool)
    threads_pool_drop(pool);
}

kk_status_t threads_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                             size_t bytes) {
  (void)dst_space, (void)src_space;
  threads_pool_t *pool;
  kkh_exec_t *ex = claim_for(ctx, inst, bytes, &pool);
  kkh_memops_copy(ex, dst, src, bytes);
  drop(pool);
  return KK_OK;
}

kk_status_t threads_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes) {
  (void)space;
  threads_pool_t *pool;
  kkh_exec_t *ex = claim_for(ctx, inst, bytes, &pool);
  kkh_memops_set(ex, dst, value, bytes);
  drop(pool);
  return KK_OK;
}

kk_status_t threads_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern,
                             size_t pattern_size, size_t count) {
  (void)space;
  threads_pool_t *pool;
  kkh_exec_t *ex = claim_for(ctx, inst, count * pattern_size, &pool);
  kkh_memops_fill(ex, dst, pattern, pattern_size, count);
  drop(pool);
  return KK_OK;
}

kk_status_t threads_mem_remap(void *ctx, void *inst, const kk_plugin_remap_t *r) {
  size_t bytes = r->elem_size;
  for (int d = 0; d < r->rank; d++)
    bytes *= (size_t)r->extent[d];
  threads_pool_t *pool;
  kkh_exec_t *ex = claim_min(ctx, inst, bytes, kkh_remap_parallel_min(), &pool);
  kkh_remap(ex, r);
  drop(pool);
  return KK_OK;
}
