/* plugins/levelzero/levelzero_memory.c -- the SYCLDeviceUSM, SYCLSharedUSM and SYCLHostUSM spaces (Level Zero's device, shared and host allocations): allocation, copies, sets, fills. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levelzero_internal.h"

static const char *const space_names[LEVELZERO_SPACE_COUNT] = {"SYCLDeviceUSM", "SYCLSharedUSM", "SYCLHostUSM"};

/* Kokkos' alignment for every space; Level Zero takes any power of two. */
#define ALIGNMENT 128

int32_t levelzero_space_count(void *ctx) {
  (void)ctx;
  return LEVELZERO_SPACE_COUNT;
}

kk_status_t levelzero_space_props(void *ctx, int32_t space, kk_plugin_space_t *p) {
  (void)ctx;
  snprintf(p->name, sizeof p->name, "%s", space_names[space]);
  p->flags = KK_SPACE_DEVICE_ACCESSIBLE | (space == LEVELZERO_SPACE_DEVICE ? KK_SPACE_DEFAULT : KK_SPACE_HOST_ACCESSIBLE);
  return KK_OK;
}

kk_status_t levelzero_alloc(levelzero_ctx_t *c, int32_t space, size_t bytes, void **ptr) {
  const levelzero_dev_t *d = &c->devs[c->dev];
  ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
  ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
  ze_result_t r;
  *ptr = NULL;
  switch (space) {
  case LEVELZERO_SPACE_SHARED:
    r = c->ze.zeMemAllocShared(c->context, &dd, &hd, bytes, ALIGNMENT, d->id, ptr);
    break;
  case LEVELZERO_SPACE_HOST:
    r = c->ze.zeMemAllocHost(c->context, &hd, bytes, ALIGNMENT, ptr);
    break;
  default:
    r = c->ze.zeMemAllocDevice(c->context, &dd, bytes, ALIGNMENT, d->id, ptr);
    break;
  }
  if (r != ZE_RESULT_SUCCESS || !*ptr) {
    *ptr = NULL;
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, levelzero_error_name(r), (int64_t)r,
                        "zeMemAlloc%s(%zu bytes) failed", space == LEVELZERO_SPACE_SHARED ? "Shared"
                                                          : space == LEVELZERO_SPACE_HOST ? "Host" : "Device",
                        bytes);
  }
  return KK_OK;
}

kk_status_t levelzero_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr) {
  return levelzero_alloc(ctx, space, bytes, ptr);
}

kk_status_t levelzero_mem_free(void *ctx, int32_t space, void *ptr) {
  levelzero_ctx_t *c = ctx;
  (void)space;
  /* zeMemFree does not wait for kernels that may still use the memory */
  levelzero_fence_all(c);
  ZE_TRY(c, c->ze.zeMemFree(c->context, ptr), "zeMemFree");
  return KK_OK;
}

kk_status_t levelzero_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src,
                               int32_t src_space, size_t bytes) {
  levelzero_ctx_t *c = ctx;
  levelzero_inst_t *in = levelzero_inst_of(c, inst);
  (void)dst_space, (void)src_space; /* USM and ordinary host pointers alike */
  if (bytes == 0)
    return KK_OK;
  pthread_mutex_lock(&in->sp.lock);
  kk_status_t st = levelzero_order(c, in);
  if (st == KK_OK) {
    ze_result_t r = c->ze.zeCommandListAppendMemoryCopy(in->list, dst, src, bytes, NULL, 0, NULL);
    if (r != ZE_RESULT_SUCCESS)
      st = levelzero_fail(c, r, "zeCommandListAppendMemoryCopy(%zu bytes)", bytes);
    in->pending = true;
  }
  /* synchronous: complete on return.  On an instance the caller keeps both
   * buffers until its next fence (the plugin ABI's contract). */
  if (st == KK_OK && !inst)
    st = levelzero_sync_locked(c, in);
  pthread_mutex_unlock(&in->sp.lock);
  return st;
}

kk_status_t levelzero_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern, size_t psize,
                               size_t count) {
  levelzero_ctx_t *c = ctx;
  levelzero_inst_t *in = levelzero_inst_of(c, inst);
  (void)space;
  if (count == 0)
    return KK_OK;
  const size_t max_fill = c->devs[c->dev].max_fill;
  pthread_mutex_lock(&in->sp.lock);
  kk_status_t st = levelzero_order(c, in);
  if (st == KK_OK && max_fill && psize > max_fill) {
    /* a pattern wider than the engine fills: copy it from a host buffer,
     * then wait, since that buffer goes away */
    unsigned char *buf = malloc(psize * count);
    if (!buf) {
      st = c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "fill: out of memory for %zu x %zu bytes", count,
                        psize);
    } else {
      for (size_t i = 0; i < count; i++)
        memcpy(buf + i * psize, pattern, psize);
      ze_result_t r = c->ze.zeCommandListAppendMemoryCopy(in->list, dst, buf, psize * count, NULL, 0, NULL);
      in->pending = true;
      st = r == ZE_RESULT_SUCCESS ? levelzero_sync_locked(c, in)
                                  : levelzero_fail(c, r, "zeCommandListAppendMemoryCopy(fill, %zu bytes)", psize * count);
      free(buf);
    }
  } else if (st == KK_OK) {
    /* the pattern is read when the fill is appended */
    ze_result_t r = c->ze.zeCommandListAppendMemoryFill(in->list, dst, pattern, psize, psize * count, NULL, 0, NULL);
    in->pending = true;
    if (r != ZE_RESULT_SUCCESS)
      st = levelzero_fail(c, r, "zeCommandListAppendMemoryFill(%zu x %zu bytes)", count, psize);
    else if (!inst)
      st = levelzero_sync_locked(c, in);
  }
  pthread_mutex_unlock(&in->sp.lock);
  return st;
}

kk_status_t levelzero_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes) {
  unsigned char v = (unsigned char)value;
  return levelzero_mem_fill(ctx, inst, dst, space, &v, 1, bytes);
}
