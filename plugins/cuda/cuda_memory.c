/* plugins/cuda/cuda_memory.c -- what the driver API does its own way for the Cuda, CudaUVM and CudaHostPinned spaces: copies, and fills of wide patterns. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <string.h>

#include "cuda_internal.h"

/* Unified addressing tells the driver the direction. */
kk_status_t cuda_copy(kkg_ctx_t *g, kkg_inst_t *in, void *dst, const void *src, size_t bytes) {
  KKG_TRY(g, cuda_of(g)->cu.cuMemcpyAsync(cuda_ptr(dst), cuda_ptr(src), bytes, (CUstream)in->queue),
          "cuMemcpyAsync(%zu bytes)", bytes);
  return KK_OK;
}

/* 8 and 16-byte patterns are 2 or 4 strided 32-bit memsets, one per word. */
kk_status_t cuda_fill_wide(kkg_ctx_t *g, kkg_inst_t *in, void *dst, const void *pattern, size_t psize, size_t count) {
  for (size_t w = 0; w < psize / 4; w++) {
    unsigned v;
    memcpy(&v, (const char *)pattern + 4 * w, 4);
    KKG_TRY(g, cuda_of(g)->cu.cuMemsetD2D32Async(cuda_ptr(dst) + 4 * w, psize, v, 1, count, (CUstream)in->queue),
            "cuMemsetD2D32Async(%zu x %zu bytes)", count, psize);
  }
  return KK_OK;
}
