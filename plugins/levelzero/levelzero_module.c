/* plugins/levelzero/levelzero_module.c -- modules from SPIR-V and kernels allowed indirect access. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "levelzero_internal.h"

kk_status_t levelzero_module_load(kkg_ctx_t *g, const kk_module_t *m, const kk_image_t *image, void **handle) {
  const levelzero_ctx_t *c = ze_of(g);
  const kk_image_t *img = image;
  kk_status_t st = kkg_spv_image(g, m, "spirv", &img);
  if (st != KK_OK)
    return st;
  ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                         .format = ZE_MODULE_FORMAT_IL_SPIRV,
                         .inputSize = (size_t)img->size,
                         .pInputModule = img->data,
                         .pBuildFlags = ""};
  ze_module_build_log_handle_t log = NULL;
  ze_module_handle_t mod = NULL;
  ze_result_t r = c->ze.zeModuleCreate(c->context, ze_dev(g)->id, &md, &mod, &log);
  char text[2048] = "";
  size_t n = 0;
  if (r != ZE_RESULT_SUCCESS && log && c->ze.zeModuleBuildLogGetString(log, &n, NULL) == ZE_RESULT_SUCCESS && n > 0) {
    char *buf = malloc(n + 1);
    if (buf && c->ze.zeModuleBuildLogGetString(log, &n, buf) == ZE_RESULT_SUCCESS)
      snprintf(text, sizeof text, "%.*s", (int)n, buf);
    free(buf);
  }
  if (log)
    c->ze.zeModuleBuildLogDestroy(log);
  KKG_TRY(g, r, "building module %s (SPIR-V, %llu bytes) for %s: %s", m->source_name, (unsigned long long)img->size,
          ze_dev(g)->d.name, *text ? text : "(empty build log)");
  *handle = mod;
  return KK_OK;
}

int levelzero_module_unload(kkg_ctx_t *g, void *handle) { return ze_of(g)->ze.zeModuleDestroy(handle); }

/* Views and kk's buffers reach a kernel through the launch slot, not as
 * arguments, so it is allowed indirect access to every kind of allocation
 * (else the driver need not make them resident).  It allows as many
 * work-items per group as its subgroups hold; the driver suggests its group
 * size for a long range (kernels stride over any range, so the range only
 * has to be long enough not to constrain it). */
kk_status_t levelzero_function(kkg_ctx_t *g, void *handle, const char *name, bool quiet, void **fn, int *max_threads,
                               int *pref) {
  const levelzero_driver_t *ze = &ze_of(g)->ze;
  ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
  ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
  uint32_t gx = 0, gy = 0, gz = 0;
  ze_kernel_handle_t k = NULL;
  (void)quiet;
  KKG_TRY(g, ze->zeKernelCreate(handle, &kd, &k), "zeKernelCreate(%s)", name);
  *fn = k;
  ze_result_t r = ze->zeKernelSetIndirectAccess(
      k, ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE | ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST | ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED);
  if (r != ZE_RESULT_SUCCESS) {
    ze->zeKernelDestroy(k);
    *fn = NULL;
    return kkg_fail(g, r, "zeKernelSetIndirectAccess(%s)", name);
  }
  if (ze->zeKernelGetProperties(k, &kp) == ZE_RESULT_SUCCESS)
    *max_threads = (int)(kp.maxNumSubgroups * kp.maxSubgroupSize);
  if (ze->zeKernelSuggestGroupSize(k, 1u << 20, 1, 1, &gx, &gy, &gz) == ZE_RESULT_SUCCESS)
    *pref = (int)gx;
  return KK_OK;
}

void levelzero_function_free(kkg_ctx_t *g, void *fn) { ze_of(g)->ze.zeKernelDestroy(fn); }
