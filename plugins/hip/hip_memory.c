/* plugins/hip/hip_memory.c -- the HIP, HIPHostPinned and HIPManaged spaces: allocation, copies, sets and fills. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hip_internal.h"

static const char *const space_names[HIP_SPACE_COUNT] = {"HIP", "HIPHostPinned", "HIPManaged"};

int32_t hip_space_count(void *ctx) {
  (void)ctx;
  return HIP_SPACE_COUNT; /* hipMallocManaged works on every GPU HIP supports (without XNACK it is pinned host memory) */
}

kk_status_t hip_space_props(void *ctx, int32_t space, kk_plugin_space_t *p) {
  (void)ctx;
  snprintf(p->name, sizeof p->name, "%s", space_names[space]);
  p->flags = KK_SPACE_DEVICE_ACCESSIBLE | (space == HIP_SPACE_DEVICE ? KK_SPACE_DEFAULT : KK_SPACE_HOST_ACCESSIBLE);
  return KK_OK;
}

kk_status_t hip_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  *ptr = NULL;
  switch (space) {
  case HIP_SPACE_DEVICE:
    HIP_TRY(c, c->rt.hipMalloc(ptr, bytes), "hipMalloc(%zu bytes) in HIP", bytes);
    break;
  case HIP_SPACE_MANAGED:
    HIP_TRY(c, c->rt.hipMallocManaged(ptr, bytes, hipMemAttachGlobal), "hipMallocManaged(%zu bytes) in HIPManaged",
            bytes);
    break;
  default:
    HIP_TRY(c, c->rt.hipHostMalloc(ptr, bytes, hipHostMallocPortable | hipHostMallocMapped),
            "hipHostMalloc(%zu bytes) in HIPHostPinned", bytes);
    break;
  }
  return KK_OK;
}

kk_status_t hip_mem_free(void *ctx, int32_t space, void *ptr) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  if (space == HIP_SPACE_PINNED)
    HIP_TRY(c, c->rt.hipHostFree(ptr), "hipHostFree");
  else
    HIP_TRY(c, c->rt.hipFree(ptr), "hipFree");
  return KK_OK;
}

/* A synchronous operation goes on the default instance's stream and waits
 * for it, so it is ordered after the default instance's kernels. */
static kk_status_t finish(hip_ctx_t *c, void *inst, hip_inst_t *in, const char *what) {
  if (!inst)
    HIP_TRY(c, c->rt.hipStreamSynchronize(in->stream), "%s", what);
  return KK_OK;
}

kk_status_t hip_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                         size_t bytes) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  hip_inst_t *in = hip_inst_of(c, inst);
  (void)dst_space, (void)src_space; /* unified addressing tells the runtime the direction */
  HIP_TRY(c, c->rt.hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault, in->stream), "hipMemcpyAsync(%zu bytes)", bytes);
  return finish(c, inst, in, "hipStreamSynchronize after a copy");
}

kk_status_t hip_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  hip_inst_t *in = hip_inst_of(c, inst);
  (void)space;
  HIP_TRY(c, c->rt.hipMemsetD8Async(dst, (unsigned char)value, bytes, in->stream), "hipMemsetD8Async(%zu bytes)",
          bytes);
  return finish(c, inst, in, "hipStreamSynchronize after a memset");
}

/* Patterns of 1, 2 and 4 bytes are plain memsets.  HIP has no strided
 * 32-bit memset, so a longer pattern is written once and then doubled by
 * copies on the stream (elements [0, k) to [k, 2k)): log2(count) copies,
 * all in stream order, nothing staged on the host. */
kk_status_t hip_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern, size_t psize,
                         size_t count) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  hip_inst_t *in = hip_inst_of(c, inst);
  (void)space;
  if (count == 0)
    return KK_OK;
  if (psize == 1) {
    HIP_TRY(c, c->rt.hipMemsetD8Async(dst, *(const unsigned char *)pattern, count, in->stream), "hipMemsetD8Async");
  } else if (psize == 2) {
    unsigned short v;
    memcpy(&v, pattern, 2);
    HIP_TRY(c, c->rt.hipMemsetD16Async(dst, v, count, in->stream), "hipMemsetD16Async");
  } else if (psize == 4) {
    int v;
    memcpy(&v, pattern, 4);
    HIP_TRY(c, c->rt.hipMemsetD32Async(dst, v, count, in->stream), "hipMemsetD32Async");
  } else {
    unsigned char *d = dst;
    /* the first element from the host: pageable memory, so the copy is
     * staged before hipMemcpyAsync returns and `pattern` may go */
    HIP_TRY(c, c->rt.hipMemcpyAsync(d, pattern, psize, hipMemcpyDefault, in->stream),
            "writing a %zu-byte fill pattern", psize);
    for (size_t have = 1; have < count;) {
      const size_t n = have <= count - have ? have : count - have;
      HIP_TRY(c, c->rt.hipMemcpyAsync(d + have * psize, d, n * psize, hipMemcpyDefault, in->stream),
              "hipMemcpyAsync(%zu bytes) of a fill", n * psize);
      have += n;
    }
  }
  return finish(c, inst, in, "hipStreamSynchronize after a fill");
}
