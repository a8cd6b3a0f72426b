/* plugins/cuda/cuda_module.c -- modules from a fatbin, else from their source through NVRTC; the shared-memory opt-in of launches. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdlib.h>

#include "cuda_internal.h"

/* The driver cannot use the image on this device: compile the source instead. */
static bool needs_jit(int r) {
  return r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
         r == CUDA_ERROR_INVALID_PTX;
}

kk_status_t cuda_module_load(kkg_ctx_t *g, const kk_module_t *m, const kk_image_t *image, void **handle) {
  int r = CUDA_ERROR_NO_BINARY_FOR_GPU;
  kk_status_t st = image ? kks_module_load(g, m, image->data, handle, &r) : KK_ERROR_NOT_FOUND;
  if (r != CUDA_SUCCESS && needs_jit(r) && m->source) {
    void *cubin = NULL;
    size_t size = 0;
    if ((st = cuda_jit(cuda_of(g), m, &cubin, &size)) != KK_OK)
      return st;
    st = kks_module_load(g, m, cubin, handle, &r);
    free(cubin);
  }
  if (r == CUDA_SUCCESS) /* loaded; st says whether its launch record is ours */
    return st;
  if (!image && !m->source)
    return kkg_error(g, KK_ERROR_NOT_FOUND, "module %s has no CUDA image and no source (built with kkcc --targets=%s)",
                     m->source_name, m->targets ? m->targets : "?");
  return kkg_fail(g, r, "cuModuleLoadData(%s, image for %s)", m->source_name,
                  image && image->arch ? image->arch : "no architecture");
}

int cuda_set_smem(kkg_ctx_t *g, void *fn, int bytes) {
  return cuda_of(g)->cu.cuFuncSetAttribute((CUfunction)fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
}
