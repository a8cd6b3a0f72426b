/* plugins/openmp/openmp_instance.c -- the openmp backend's instances: each has its own thread count, launches are synchronous, fences wait for a launch in flight. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "openmp_internal.h"
#include "openmp_error.h"

/* Application threads that launch on different instances each open their
 * own parallel region; OpenMP runs regions of different (non-OpenMP) threads
 * at the same time, each with its own team. */
kk_status_t openmp_instance_create(void *vctx, void **out) {
  openmp_ctx_t *ctx = vctx;
  *out = NULL;
  openmp_instance_t *inst = calloc(1, sizeof *inst);
  if (!inst)
    return openmp_fail(ctx->hs, ENOMEM, "instance_create: allocating the instance");
  kk_status_t st = openmp_team_create(ctx, ctx->instance_threads, "instance_create", &inst->team);
  if (st != KK_OK) {
    free(inst);
    return st;
  }
  kkh_inst_list_add(&ctx->instances, &inst->link);
  *out = inst;
  return KK_OK;
}

kk_status_t openmp_instance_destroy(void *vctx, void *vinst) {
  openmp_ctx_t *ctx = vctx;
  openmp_instance_t *inst = vinst;
  if (!inst)
    return ctx->hs->error(ctx->hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0,
                          "instance_destroy: the default instance cannot be destroyed");
  kkh_inst_list_remove(&ctx->instances, &inst->link);
  openmp_team_destroy(inst->team);
  free(inst);
  return KK_OK;
}

/* Launches and memory operations complete before they return, so a fence
 * only has to wait for one that another application thread is running on
 * the instance right now. */
kk_status_t openmp_instance_fence(void *vctx, void *inst) {
  openmp_team_t *t = openmp_team_of(vctx, inst);
  if (t)
    kkh_claim_wait_idle(&t->claim, OPENMP_CLAIM_SPIN_NS);
  return KK_OK;
}

static void wait_instance(kkh_inst_link_t *n, void *arg) {
  (void)arg;
  kkh_claim_wait_idle(&((openmp_instance_t *)n)->team->claim, OPENMP_CLAIM_SPIN_NS);
}

kk_status_t openmp_fence_all(void *vctx) {
  openmp_ctx_t *ctx = vctx;
  if (ctx->team)
    kkh_claim_wait_idle(&ctx->team->claim, OPENMP_CLAIM_SPIN_NS);
  kkh_inst_list_each(&ctx->instances, wait_instance, NULL);
  return KK_OK;
}
