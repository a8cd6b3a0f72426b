/* plugins/hip/hip_memory.c -- what the HIP runtime does its own way for the HIP, HIPHostPinned and HIPManaged spaces: copies (wide fills are the layer's doubling copies). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "hip_internal.h"

kk_status_t hip_copy(kkg_ctx_t *g, kkg_inst_t *in, void *dst, const void *src, size_t bytes) {
  KKG_TRY(g, hip_of(g)->rt.hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault, (hipStream_t)in->queue),
          "hipMemcpyAsync(%zu bytes)", bytes);
  return KK_OK;
}
