/* plugins/threads/threads_instance.c -- the threads backend's instances: each has its own pool, launches are synchronous, fences wait for a launch in flight. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "threads_internal.h"
#include "threads_error.h"

/* An instance gets a pool of its own so that application threads launching
 * on different instances run at the same time.  Its workers are bound to
 * the binding targets after those of the previous instance, so that
 * concurrent instances spread over the cores; the instance's thread 0 is
 * whichever application thread launches, and is never rebound. */
kk_status_t threads_instance_create(void *vctx, void **out) {
  threads_ctx_t *ctx = vctx;
  const kk_host_services_t *hs = ctx->hs;
  *out = NULL;
  threads_instance_t *inst = calloc(1, sizeof *inst);
  if (!inst)
    return threads_fail(hs, ENOMEM, "instance_create: allocating the instance");
  unsigned first = atomic_fetch_add(&ctx->next_target, (unsigned)ctx->instance_threads);
  kk_status_t st = threads_pool_create(ctx, ctx->instance_threads, first, "instance_create", &inst->pool);
  if (st != KK_OK) {
    free(inst);
    return st;
  }
  kkh_inst_list_add(&ctx->instances, &inst->link);
  *out = inst;
  return KK_OK;
}

/* Waits for a launch another thread may be running on it, then stops its
 * workers. */
kk_status_t threads_instance_destroy(void *vctx, void *vinst) {
  threads_ctx_t *ctx = vctx;
  threads_instance_t *inst = vinst;
  if (!inst)
    return ctx->hs->error(ctx->hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0,
                          "instance_destroy: the default instance cannot be destroyed");
  kkh_inst_list_remove(&ctx->instances, &inst->link);
  threads_pool_destroy(inst->pool);
  free(inst);
  return KK_OK;
}

/* Launches and memory operations complete before they return, so a fence
 * only has to wait for one that another application thread is running on
 * the instance right now. */
kk_status_t threads_instance_fence(void *vctx, void *inst) {
  threads_pool_t *pool = threads_pool_of(vctx, inst);
  if (pool)
    threads_pool_wait_idle(pool);
  return KK_OK;
}

static void wait_instance(kkh_inst_link_t *n, void *arg) {
  (void)arg;
  threads_pool_wait_idle(((threads_instance_t *)n)->pool);
}

kk_status_t threads_fence_all(void *vctx) {
  threads_ctx_t *ctx = vctx;
  if (ctx->pool)
    threads_pool_wait_idle(ctx->pool);
  kkh_inst_list_each(&ctx->instances, wait_instance, NULL);
  return KK_OK;
}
