/* plugins/levelzero/levelzero_remap.c -- kk_deep_copy between layouts on the device: the GPU layer's kernels (plugins/gpu/gpu_remap.cl) as a SPIR-V module built with the plugin, loaded once per context at the first such copy, and their launch. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levelzero_internal.h"

/* Loads the module and its ten kernels; false (and a KK_DEBUG note) when
 * the device cannot: its copies are then staged through the host by the
 * core, correct and slower, never an error for the program. */
static bool load(kkg_ctx_t *g) {
  levelzero_ctx_t *c = ze_of(g);
  const levelzero_driver_t *ze = &c->ze;
  const levelzero_dev_t *d = ze_dev(g);
  ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                         .format = ZE_MODULE_FORMAT_IL_SPIRV,
                         .inputSize = (size_t)levelzero_remap_image_size,
                         .pInputModule = levelzero_remap_image,
                         .pBuildFlags = ""};
  ze_module_build_log_handle_t log = NULL;
  ze_result_t r = ze->zeModuleCreate(c->context, d->id, &md, &c->remap_module, &log);
  if (r != ZE_RESULT_SUCCESS) {
    char text[1024] = "";
    size_t n = 0;
    if (log && ze->zeModuleBuildLogGetString(log, &n, NULL) == ZE_RESULT_SUCCESS && n > 0) {
      char *buf = malloc(n + 1);
      if (buf && ze->zeModuleBuildLogGetString(log, &n, buf) == ZE_RESULT_SUCCESS)
        snprintf(text, sizeof text, "%.*s", (int)n, buf);
      free(buf);
    }
    c->remap_module = NULL;
    g->hs->log(g->hs->core, KK_LOG_DEBUG,
               "zeModuleCreate of the copy-between-layouts kernels for %s failed (%s): staged through the host; %s",
               d->d.name, kkg_code_name(g, r), text);
  }
  if (log)
    ze->zeModuleBuildLogDestroy(log);
  if (r != ZE_RESULT_SUCCESS)
    return false;
  for (int kind = 0; kind < 2; kind++)
    for (int wl = 0; wl < 5; wl++) {
      char name[32];
      snprintf(name, sizeof name, "kk_remap_%s_%d", kind == KKG_REMAP_KIND_TILE ? "tile" : "any", 1 << wl);
      ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
      if ((r = ze->zeKernelCreate(c->remap_module, &kd, &c->remap_k[kind][wl])) != ZE_RESULT_SUCCESS) {
        c->remap_k[kind][wl] = NULL;
        g->hs->log(g->hs->core, KK_LOG_DEBUG, "zeKernelCreate(%s) failed (%s): staged through the host", name,
                   kkg_code_name(g, r));
        return false;
      }
    }
  /* a tile needs TILE x ROWS work-items in a group and its local memory; a
   * limit the driver reports as 0 is taken as no limit (the loader's null
   * driver reports 0 for all) */
  uint32_t any = KKG_REMAP_ANY;
  for (int wl = 0; wl < 5; wl++) {
    ze_kernel_properties_t tp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    ze_kernel_properties_t ap = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    c->remap.tile_ok[wl] = true;
    if (ze->zeKernelGetProperties(c->remap_k[KKG_REMAP_KIND_TILE][wl], &tp) == ZE_RESULT_SUCCESS) {
      const uint64_t most = (uint64_t)tp.maxNumSubgroups * tp.maxSubgroupSize;
      c->remap.tile_ok[wl] = (most == 0 || most >= KKG_REMAP_TILE * KKG_REMAP_ROWS) && tp.localMemSize <= d->d.smem;
    }
    if (ze->zeKernelGetProperties(c->remap_k[KKG_REMAP_KIND_ANY][wl], &ap) == ZE_RESULT_SUCCESS) {
      const uint64_t most = (uint64_t)ap.maxNumSubgroups * ap.maxSubgroupSize;
      if (most > 0 && most < any)
        any = (uint32_t)most;
    }
  }
  c->remap_any_local = any;
  g->hs->log(g->hs->core, KK_LOG_DEBUG,
             "copies between layouts run on the device: kernels loaded on %s (tiles for words of 1-16 bytes: "
             "%d%d%d%d%d, %u work-items per group word by word)",
             d->d.name, c->remap.tile_ok[0], c->remap.tile_ok[1], c->remap.tile_ok[2], c->remap.tile_ok[3],
             c->remap.tile_ok[4], any);
  return true;
}

void levelzero_remap_release(kkg_ctx_t *g) {
  levelzero_ctx_t *c = ze_of(g);
  for (int kind = 0; kind < 2; kind++)
    for (int wl = 0; wl < 5; wl++)
      if (c->remap_k[kind][wl])
        c->ze.zeKernelDestroy(c->remap_k[kind][wl]);
  if (c->remap_module)
    c->ze.zeModuleDestroy(c->remap_module);
  memset(c->remap_k, 0, sizeof c->remap_k);
  c->remap_module = NULL;
  c->remap.state = 0;
}

kk_status_t levelzero_remap(kkg_ctx_t *g, kkg_inst_t *gi, const kk_plugin_remap_t *r) {
  levelzero_ctx_t *c = ze_of(g);
  kkg_remap_plan_t p;
  kk_status_t pst = kkg_remap_prepare(g, &c->remap, load, levelzero_remap_release, r, &p);
  if (pst != KK_OK || p.words == 0)
    return pst;
  ze_kernel_handle_t k = c->remap_k[p.kind][p.wl];
  const bool tile = p.kind == KKG_REMAP_KIND_TILE;
  const ze_group_count_t gc = {.groupCountX = (uint32_t)p.groups, .groupCountY = 1, .groupCountZ = 1};
  levelzero_inst_t *in = ze_inst(gi);
  /* the list is not thread-safe (the instance's lock); arguments and group
   * size belong to the kernel handle (set and appended under launch_lock) */
  pthread_mutex_lock(&gi->lock);
  kk_status_t st = levelzero_order(g, in);
  ze_result_t e = ZE_RESULT_SUCCESS;
  if (st == KK_OK) {
    pthread_mutex_lock(&c->launch_lock);
    e = c->ze.zeKernelSetArgumentValue(k, 0, sizeof r->dst, &r->dst);
    if (e == ZE_RESULT_SUCCESS)
      e = c->ze.zeKernelSetArgumentValue(k, 1, sizeof r->src, &r->src);
    if (e == ZE_RESULT_SUCCESS)
      e = c->ze.zeKernelSetArgumentValue(k, 2, sizeof p.a, &p.a);
    if (e == ZE_RESULT_SUCCESS)
      e = c->ze.zeKernelSetGroupSize(k, tile ? KKG_REMAP_TILE : c->remap_any_local, tile ? KKG_REMAP_ROWS : 1, 1);
    if (e == ZE_RESULT_SUCCESS)
      e = c->ze.zeCommandListAppendLaunchKernel(in->list, k, &gc, NULL, 0, NULL);
    pthread_mutex_unlock(&c->launch_lock);
    in->pending = true;
  }
  pthread_mutex_unlock(&gi->lock);
  KKG_TRY(g, e, "launching a copy between layouts (%lld words of %d bytes, %s kernel, %lld groups)",
          (long long)p.words, 1 << p.wl, tile ? "tiled" : "per-word", (long long)p.groups);
  return st;
}
