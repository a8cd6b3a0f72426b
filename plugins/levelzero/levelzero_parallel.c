/* plugins/levelzero/levelzero_parallel.c -- modules from SPIR-V, kernels and every kind of launch: launch slots, group sizes, partials, results. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levelzero_internal.h"

/* ---- modules and kernels --------------------------------------------------------------------- */

kk_status_t levelzero_module_load(void *ctx, const kk_module_t *m, const kk_image_t *image, void **pmod) {
  levelzero_ctx_t *c = ctx;
  const levelzero_dev_t *d = &c->devs[c->dev];
  const kk_image_t *img = image ? image : kkspv_find_image(m, "spirv");
  if (!img)
    return c->hs->error(c->hs->core, KK_ERROR_NOT_FOUND, NULL, 0,
                        "module %s has no SPIR-V image for %s (built with kkcc --targets=%s)", m->source_name,
                        d->props.name, m->targets ? m->targets : "?");
  kk_status_t st = kkspv_check_image(c->hs, m, img);
  if (st != KK_OK)
    return st;
  ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                         .format = ZE_MODULE_FORMAT_IL_SPIRV,
                         .inputSize = (size_t)img->size,
                         .pInputModule = img->data,
                         .pBuildFlags = ""};
  ze_module_handle_t mod = NULL;
  ze_module_build_log_handle_t log = NULL;
  ze_result_t r = c->ze.zeModuleCreate(c->context, d->id, &md, &mod, &log);
  if (r != ZE_RESULT_SUCCESS) {
    char text[2048] = "";
    size_t n = 0;
    if (log && c->ze.zeModuleBuildLogGetString(log, &n, NULL) == ZE_RESULT_SUCCESS && n > 0) {
      char *buf = malloc(n + 1);
      if (buf && c->ze.zeModuleBuildLogGetString(log, &n, buf) == ZE_RESULT_SUCCESS) {
        buf[n] = '\0';
        snprintf(text, sizeof text, "%s", buf);
      }
      free(buf);
    }
    if (log)
      c->ze.zeModuleBuildLogDestroy(log);
    return levelzero_fail(c, r, "building module %s (SPIR-V, %llu bytes) for %s: %s", m->source_name,
                          (unsigned long long)img->size, d->props.name, *text ? text : "(empty build log)");
  }
  if (log)
    c->ze.zeModuleBuildLogDestroy(log);
  levelzero_module_t *lm = calloc(1, sizeof *lm);
  if (!lm) {
    c->ze.zeModuleDestroy(mod);
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "module_load: out of memory");
  }
  lm->mod = mod;
  *pmod = lm;
  return KK_OK;
}

kk_status_t levelzero_module_unload(void *ctx, void *pmod) {
  levelzero_ctx_t *c = ctx;
  levelzero_module_t *lm = pmod;
  levelzero_fence_all(c);
  while (lm->kernels) {
    levelzero_kernel_t *k = lm->kernels;
    lm->kernels = k->next;
    c->ze.zeKernelDestroy(k->k);
    if (k->final)
      c->ze.zeKernelDestroy(k->final);
    free(k);
  }
  ze_result_t r = c->ze.zeModuleDestroy(lm->mod);
  free(lm);
  if (r != ZE_RESULT_SUCCESS)
    return levelzero_fail(c, r, "zeModuleDestroy");
  return KK_OK;
}

/* Creates one kernel: views and kk's buffers reach it through the launch
 * slot, not as arguments, so it is allowed indirect access to every kind of
 * allocation (else the driver need not make them resident). */
static kk_status_t create_kernel(levelzero_ctx_t *c, ze_module_handle_t mod, const char *name, ze_kernel_handle_t *k) {
  ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
  ZE_TRY(c, c->ze.zeKernelCreate(mod, &kd, k), "zeKernelCreate(%s)", name);
  ze_result_t r = c->ze.zeKernelSetIndirectAccess(*k, ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
                                                        ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST |
                                                        ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED);
  if (r != ZE_RESULT_SUCCESS) {
    c->ze.zeKernelDestroy(*k);
    *k = NULL;
    return levelzero_fail(c, r, "zeKernelSetIndirectAccess(%s)", name);
  }
  return KK_OK;
}

kk_status_t levelzero_kernel_get(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel) {
  levelzero_ctx_t *c = ctx;
  levelzero_module_t *lm = pmod;
  const levelzero_dev_t *d = &c->devs[c->dev];
  char name[300];
  snprintf(name, sizeof name, "kk_k_%s", kernel->name);
  levelzero_kernel_t *k = calloc(1, sizeof *k);
  if (!k)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "kernel_get: out of memory");
  kk_status_t st = create_kernel(c, lm->mod, name, &k->k);
  if (st == KK_OK && kernel->kind == KK_KIND_SCAN) {
    snprintf(name, sizeof name, "kk_k_%s__final", kernel->name);
    st = create_kernel(c, lm->mod, name, &k->final);
  }
  if (st != KK_OK) {
    if (k->k)
      c->ze.zeKernelDestroy(k->k);
    free(k);
    return st;
  }
  /* the largest group the kernel allows (subgroups x their width), else the device's */
  ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
  k->sp.max_wg = d->max_group;
  if (c->ze.zeKernelGetProperties(k->k, &kp) == ZE_RESULT_SUCCESS && kp.maxNumSubgroups && kp.maxSubgroupSize &&
      kp.maxNumSubgroups * kp.maxSubgroupSize < k->sp.max_wg)
    k->sp.max_wg = kp.maxNumSubgroups * kp.maxSubgroupSize;
  /* the driver's group size for a long range (kernels stride over any range,
   * so the range only has to be long enough not to constrain it) */
  uint32_t gx = 0, gy = 0, gz = 0;
  if (c->ze.zeKernelSuggestGroupSize(k->k, 1u << 20, 1, 1, &gx, &gy, &gz) != ZE_RESULT_SUCCESS || gx == 0)
    gx = LEVELZERO_DEFAULT_GROUP;
  if (gx > 256)
    gx = 256;
  k->sp.pref_wg = gx < k->sp.max_wg ? gx : k->sp.max_wg;
  if (k->sp.pref_wg == 0)
    k->sp.pref_wg = 1;
  k->next = lm->kernels;
  lm->kernels = k;
  *pkernel = k;
  return KK_OK;
}

/* ---- launching --------------------------------------------------------------------------------- */

/* The planner's enqueue (spirv_host.h): writes the launch record and the
 * arguments into the instance's next slot and appends the slot's copy, a
 * barrier and the kernel over `groups` work-groups of `local` work-items
 * with `smem` bytes of shared local memory.  Called with in->lock held. */
static kk_status_t enqueue(void *ctx, kkspv_inst_t *sp, const kk_launch_t *l, bool final, const kk_spirv_launch *L,
                           int64_t groups, size_t local, uint64_t smem) {
  levelzero_ctx_t *c = ctx;
  levelzero_inst_t *in = (levelzero_inst_t *)sp;
  const levelzero_kernel_t *k = l->device_kernel;
  ze_kernel_handle_t zk = final ? k->final : k->k;
  const unsigned s = in->next++ % LEVELZERO_SLOTS;
  if (in->used[s]) {
    ZE_TRY(c, c->ze.zeEventHostSynchronize(in->events[s], UINT64_MAX), "waiting for a launch slot");
    ZE_TRY(c, c->ze.zeEventHostReset(in->events[s]), "resetting a launch slot's event");
    in->used[s] = false;
  }
  unsigned char *stage = in->staging + (size_t)s * KK_SPIRV_SLOT_BYTES, *slot = in->slots + (size_t)s * KK_SPIRV_SLOT_BYTES;
  memcpy(stage, L, sizeof *L);
  memcpy(stage + KK_SPIRV_ARGS_OFFSET, l->args, l->args_size);
  kk_status_t st = levelzero_order(c, in);
  if (st != KK_OK)
    return st;
  ZE_TRY(c, c->ze.zeCommandListAppendMemoryCopy(in->list, slot, stage, KK_SPIRV_ARGS_OFFSET + l->args_size, NULL, 0, NULL),
         "copying the arguments of '%s'", l->label);
  in->pending = true;
  if ((st = levelzero_order(c, in)) != KK_OK)
    return st;
  ze_group_count_t gc = {.groupCountX = (uint32_t)groups, .groupCountY = 1, .groupCountZ = 1};
  const size_t local_bytes = smem > 16 ? (size_t)smem : 16;
  pthread_mutex_lock(&c->launch_lock);
  ze_result_t r = c->ze.zeKernelSetArgumentValue(zk, 0, sizeof slot, &slot);
  if (r == ZE_RESULT_SUCCESS)
    r = c->ze.zeKernelSetArgumentValue(zk, 1, local_bytes, NULL); /* shared local memory: a size, no value */
  if (r == ZE_RESULT_SUCCESS)
    r = c->ze.zeKernelSetGroupSize(zk, (uint32_t)local, 1, 1);
  if (r == ZE_RESULT_SUCCESS)
    r = c->ze.zeCommandListAppendLaunchKernel(in->list, zk, &gc, in->events[s], 0, NULL);
  pthread_mutex_unlock(&c->launch_lock);
  if (r != ZE_RESULT_SUCCESS)
    return levelzero_fail(c, r, "launching %s: %lld groups of %zu work-items, %zu bytes of shared local memory",
                          l->label, (long long)groups, local, local_bytes);
  in->used[s] = true;
  in->pending = true;
  return KK_OK;
}

/* The planner's result_copy: appends the copy of a synchronous result
 * (with in->lock held); the launch then drains the list. */
static kk_status_t result_copy(void *ctx, kkspv_inst_t *sp, const kk_launch_t *l, const void *dev) {
  levelzero_ctx_t *c = ctx;
  levelzero_inst_t *in = (levelzero_inst_t *)sp;
  kk_status_t st = levelzero_order(c, in);
  if (st != KK_OK)
    return st;
  ZE_TRY(c,
         c->ze.zeCommandListAppendMemoryCopy(in->list, l->result, dev, l->kernel->reducer->value_size, NULL, 0, NULL),
         "copying the result of '%s'", l->label);
  in->pending = true;
  return KK_OK;
}

const kkspv_ops_t levelzero_spirv_ops = {
    .grow = levelzero_inst_grow,
    .enqueue = enqueue,
    .result_copy = result_copy,
    .fence = levelzero_instance_fence,
};

kk_status_t levelzero_launch(void *ctx, void *inst, const kk_launch_t *l) {
  levelzero_ctx_t *c = ctx;
  return kkspv_launch(&c->sp, &levelzero_inst_of(c, inst)->sp, inst, l);
}

kk_status_t levelzero_team_size_query(void *ctx, const kk_launch_t *l, int32_t *max, int32_t *recommended) {
  levelzero_ctx_t *c = ctx;
  const levelzero_kernel_t *k = l->device_kernel;
  return kkspv_team_size_query(&c->sp, k ? &k->sp : NULL, l, max, recommended);
}
