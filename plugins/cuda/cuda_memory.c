/* plugins/cuda/cuda_memory.c -- the Cuda, CudaUVM and CudaHostPinned spaces: allocation, copies, sets and fills. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"

static const char *const space_names[CUDA_SPACE_COUNT] = {"Cuda", "CudaUVM", "CudaHostPinned"};

int32_t cuda_space_count(void *ctx) {
  (void)ctx;
  return CUDA_SPACE_COUNT; /* managed memory exists on every GPU a supported toolkit targets */
}

kk_status_t cuda_space_props(void *ctx, int32_t space, kk_plugin_space_t *p) {
  (void)ctx;
  snprintf(p->name, sizeof p->name, "%s", space_names[space]);
  p->flags = KK_SPACE_DEVICE_ACCESSIBLE | (space == CUDA_SPACE_DEVICE ? KK_SPACE_DEFAULT : KK_SPACE_HOST_ACCESSIBLE);
  return KK_OK;
}

kk_status_t cuda_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr) {
  cuda_ctx_t *c = ctx;
  CUdeviceptr d = 0;
  *ptr = NULL;
  switch (space) {
  case CUDA_SPACE_DEVICE:
    CU_TRY(c, c->cu.cuMemAlloc(&d, bytes), "cuMemAlloc(%zu)", bytes);
    *ptr = (void *)(uintptr_t)d;
    break;
  case CUDA_SPACE_UVM:
    CU_TRY(c, c->cu.cuMemAllocManaged(&d, bytes, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged(%zu)", bytes);
    *ptr = (void *)(uintptr_t)d;
    break;
  default:
    CU_TRY(c, c->cu.cuMemHostAlloc(ptr, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
           "cuMemHostAlloc(%zu)", bytes);
    break;
  }
  return KK_OK;
}

kk_status_t cuda_mem_free(void *ctx, int32_t space, void *ptr) {
  cuda_ctx_t *c = ctx;
  if (space == CUDA_SPACE_PINNED)
    CU_TRY(c, c->cu.cuMemFreeHost(ptr), "cuMemFreeHost");
  else
    CU_TRY(c, c->cu.cuMemFree((CUdeviceptr)(uintptr_t)ptr), "cuMemFree");
  return KK_OK;
}

/* A synchronous operation goes on the default stream and waits for it, so it
 * is ordered after the default instance's kernels. */
static kk_status_t finish(cuda_ctx_t *c, void *inst, cuda_inst_t *in, const char *what) {
  if (!inst)
    CU_TRY(c, c->cu.cuStreamSynchronize(in->stream), "%s", what);
  return KK_OK;
}

kk_status_t cuda_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                          size_t bytes) {
  cuda_ctx_t *c = ctx;
  cuda_inst_t *in = cuda_inst_of(c, inst);
  (void)dst_space, (void)src_space; /* unified addressing tells the driver the direction */
  CU_TRY(c, c->cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, bytes, in->stream),
         "cuMemcpyAsync(%zu bytes)", bytes);
  return finish(c, inst, in, "cuStreamSynchronize after a copy");
}

kk_status_t cuda_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes) {
  cuda_ctx_t *c = ctx;
  cuda_inst_t *in = cuda_inst_of(c, inst);
  (void)space;
  CU_TRY(c, c->cu.cuMemsetD8Async((CUdeviceptr)(uintptr_t)dst, (unsigned char)value, bytes, in->stream),
         "cuMemsetD8Async(%zu bytes)", bytes);
  return finish(c, inst, in, "cuStreamSynchronize after a memset");
}

/* Patterns of 1, 2 and 4 bytes are plain memsets; 8 and 16-byte patterns are
 * 2 or 4 strided 32-bit memsets, one per word of the pattern. */
kk_status_t cuda_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern, size_t psize,
                          size_t count) {
  cuda_ctx_t *c = ctx;
  cuda_inst_t *in = cuda_inst_of(c, inst);
  CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst;
  (void)space;
  if (count == 0)
    return KK_OK;
  if (psize == 1) {
    CU_TRY(c, c->cu.cuMemsetD8Async(d, *(const unsigned char *)pattern, count, in->stream), "cuMemsetD8Async");
  } else if (psize == 2) {
    unsigned short v;
    memcpy(&v, pattern, 2);
    CU_TRY(c, c->cu.cuMemsetD16Async(d, v, count, in->stream), "cuMemsetD16Async");
  } else if (psize == 4) {
    unsigned v;
    memcpy(&v, pattern, 4);
    CU_TRY(c, c->cu.cuMemsetD32Async(d, v, count, in->stream), "cuMemsetD32Async");
  } else {
    for (size_t w = 0; w < psize / 4; w++) {
      unsigned v;
      memcpy(&v, (const char *)pattern + 4 * w, 4);
      CU_TRY(c, c->cu.cuMemsetD2D32Async(d + 4 * w, psize, v, 1, count, in->stream), "cuMemsetD2D32Async");
    }
  }
  return finish(c, inst, in, "cuStreamSynchronize after a fill");
}
