/* plugins/openmp/openmp_memory.c -- the openmp backend's memory: the "Host" space, set/copy/fill in a parallel region when large. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>

#include "host_common.h"
#include "host_memops.h"
#include "host_remap.h"
#include "openmp_internal.h"

kk_status_t openmp_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr) {
  (void)space;
  return kkh_mem_alloc(((openmp_ctx_t *)ctx)->hs, bytes, ptr);
}

/* The executor that runs a memory operation of `bytes` on `inst`, its team
 * claimed, or NULL when the operation is small enough for the calling
 * thread.  Work on an instance is done when the call returns, which
 * satisfies "complete at the next fence". */
static openmp_exec_t *claim_min(openmp_ctx_t *ctx, void *inst, size_t bytes, size_t min, openmp_team_t **team) {
  openmp_team_t *t = openmp_team_of(ctx, inst);
  *team = NULL;
  if (!t || bytes < min || t->nthreads < 2)
    return NULL;
  *team = t;
  return openmp_exec_begin(ctx, t);
}

static openmp_exec_t *claim_for(openmp_ctx_t *ctx, void *inst, size_t bytes, openmp_team_t **team) {
  return claim_min(ctx, inst, bytes, KKH_MEMOPS_PARALLEL_MIN, team);
}

/* After a run: true when it must run again (its region was short of
 * threads; the operations are idempotent), else drops the claim. */
static bool again(openmp_ctx_t *ctx, openmp_team_t *team, openmp_exec_t *ox) {
  if (!team)
    return false;
  if (openmp_exec_retry(ctx, ox))
    return true;
  openmp_exec_end(team);
  return false;
}

kk_status_t openmp_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                            size_t bytes) {
  (void)dst_space, (void)src_space;
  openmp_team_t *team;
  openmp_exec_t *ox = claim_for(ctx, inst, bytes, &team);
  do
    kkh_memops_copy(ox ? &ox->ex : NULL, dst, src, bytes);
  while (again(ctx, team, ox));
  return KK_OK;
}

kk_status_t openmp_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes) {
  (void)space;
  openmp_team_t *team;
  openmp_exec_t *ox = claim_for(ctx, inst, bytes, &team);
  do
    kkh_memops_set(ox ? &ox->ex : NULL, dst, value, bytes);
  while (again(ctx, team, ox));
  return KK_OK;
}

kk_status_t openmp_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern,
                            size_t pattern_size, size_t count) {
  (void)space;
  openmp_team_t *team;
  openmp_exec_t *ox = claim_for(ctx, inst, count * pattern_size, &team);
  do
    kkh_memops_fill(ox ? &ox->ex : NULL, dst, pattern, pattern_size, count);
  while (again(ctx, team, ox));
  return KK_OK;
}

kk_status_t openmp_mem_remap(void *ctx, void *inst, const kk_plugin_remap_t *r) {
  size_t bytes = r->elem_size;
  for (int d = 0; d < r->rank; d++)
    bytes *= (size_t)r->extent[d];
  openmp_team_t *team;
  openmp_exec_t *ox = claim_min(ctx, inst, bytes, kkh_remap_parallel_min(), &team);
  do
    kkh_remap(ox ? &ox->ex : NULL, r);
  while (again(ctx, team, ox));
  return KK_OK;
}
