/* plugins/hip/hip_module.c -- modules from a bundle of code objects, one per architecture (no JIT: there is no hiprtc here). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "hip_internal.h"

kk_status_t hip_module_load(kkg_ctx_t *g, const kk_module_t *m, const kk_image_t *image, void **handle) {
  int r = 0;
  if (!image)
    return kkg_error(g, KK_ERROR_NOT_FOUND, "module %s has no HIP code objects (built with kkcc --targets=%s)",
                     m->source_name, m->targets ? m->targets : "?");
  /* the runtime picks the code object of this device's architecture from the bundle */
  kk_status_t st = kks_module_load(g, m, image->data, handle, &r);
  if (r == hipSuccess) /* loaded; st says whether its launch record is ours */
    return st;
  return kkg_fail(g, r, "hipModuleLoadData(%s: code objects for %s; this device is %s%s)", m->source_name,
                  image->arch && *image->arch ? image->arch : "no architecture", kkg_device(g, g->dev)->arch,
                  r == hipErrorNoBinaryForGpu || r == hipErrorInvalidImage || r == hipErrorInvalidKernelFile
                      ? ": rebuild it with kkcc --hip-arch=<this architecture>"
                      : "");
}
