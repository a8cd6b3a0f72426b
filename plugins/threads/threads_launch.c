/* plugins/threads/threads_launch.c -- the threads backend's launch, team sizes and graphs, each on the pool of its instance. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "host_exec.h"
#include "host_graph.h"
#include "threads_internal.h"

/* A team may hold every thread of the pool of the instance the launch is
 * for (a created instance's pool has instance_threads); a core before
 * plugin ABI 1.6 does not say which, and gets the default instance's.  A
 * team of one, which needs no barrier, is the recommendation. */
kk_status_t threads_team_size_query(void *vctx, const kk_launch_t *l, int32_t *max, int32_t *recommended) {
  threads_ctx_t *ctx = vctx;
  const threads_pool_t *P = threads_pool_of(ctx, KK_LAUNCH_HAS(l, instance) ? l->instance : NULL);
  *max = P ? threads_pool_size(P) : ctx->nthreads;
  *recommended = 1;
  return KK_OK;
}

/* The hot path: claim, run, let go.  No allocation, lock or formatting
 * unless the kernel is refused. */
kk_status_t threads_launch(void *vctx, void *inst, const kk_launch_t *l) {
  threads_ctx_t *ctx = vctx;
  threads_pool_t *P = threads_pool_of(ctx, inst);
  if (THREADS_UNLIKELY(!P))
    return ctx->hs->error(ctx->hs->core, KK_ERROR_NOT_INITIALIZED, NULL, 0,
                          "launch of '%s': the backend's device was not opened", l->label);
  kk_status_t st = kkh_launch(threads_pool_claim(P), ctx->hs, l);
  threads_pool_drop(P);
  return st;
}

/* A graph: one region on the instance's pool for all its nodes. */
kk_status_t threads_graph_create(void *vctx, const kk_graph_desc_t *desc, void **pgraph) {
  threads_ctx_t *ctx = vctx;
  return kkh_graph_create(ctx->hs, desc, ctx->nthreads, (kkh_graph_t **)pgraph);
}

kk_status_t threads_graph_launch(void *vctx, void *inst, void *graph) {
  threads_ctx_t *ctx = vctx;
  threads_pool_t *P = threads_pool_of(ctx, inst);
  if (THREADS_UNLIKELY(!P))
    return ctx->hs->error(ctx->hs->core, KK_ERROR_NOT_INITIALIZED, NULL, 0,
                          "graph launch: the backend's device was not opened");
  kk_status_t st = kkh_graph_run(threads_pool_claim(P), ctx->hs, graph);
  threads_pool_drop(P);
  return st;
}

kk_status_t threads_graph_update(void *vctx, void *graph, uint32_t node, const kk_launch_t *launch) {
  return kkh_graph_update(((threads_ctx_t *)vctx)->hs, graph, node, launch);
}

kk_status_t threads_graph_destroy(void *vctx, void *graph) {
  (void)vctx;
  kkh_graph_destroy(graph);
  return KK_OK;
}
