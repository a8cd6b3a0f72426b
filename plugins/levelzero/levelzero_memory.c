/* plugins/levelzero/levelzero_memory.c -- the SYCLDeviceUSM, SYCLSharedUSM and SYCLHostUSM spaces (Level Zero's device, shared and host allocations): allocation, copies, fills appended in order. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "levelzero_internal.h"

/* Kokkos' alignment for every space; Level Zero takes any power of two. */
#define ALIGNMENT 128

kk_status_t levelzero_alloc(kkg_ctx_t *g, int kind, size_t bytes, void **p) {
  const levelzero_ctx_t *c = ze_of(g);
  ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
  ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
  ze_device_handle_t dev = ze_dev(g)->id;
  ze_result_t r = kind == KKG_MEM_MANAGED ? c->ze.zeMemAllocShared(c->context, &dd, &hd, bytes, ALIGNMENT, dev, p)
                  : kind == KKG_MEM_DEVICE ? c->ze.zeMemAllocDevice(c->context, &dd, bytes, ALIGNMENT, dev, p)
                                           : c->ze.zeMemAllocHost(c->context, &hd, bytes, ALIGNMENT, p);
  if (r != ZE_RESULT_SUCCESS || !*p) {
    *p = NULL;
    return g->hs->error(g->hs->core, KK_ERROR_OUT_OF_MEMORY, kkg_code_name(g, r), (int64_t)r,
                        "zeMemAlloc%s(%zu bytes) failed",
                        kind == KKG_MEM_MANAGED ? "Shared" : kind == KKG_MEM_DEVICE ? "Device" : "Host", bytes);
  }
  return KK_OK;
}

kk_status_t levelzero_free(kkg_ctx_t *g, int kind, void *p) {
  (void)kind; /* the layer fenced first: zeMemFree does not wait for kernels that may still use the memory */
  KKG_TRY(g, ze_of(g)->ze.zeMemFree(ze_of(g)->context, p), "zeMemFree");
  return KK_OK;
}

kk_status_t levelzero_copy(kkg_ctx_t *g, kkg_inst_t *gi, void *dst, const void *src, size_t bytes) {
  levelzero_inst_t *in = ze_inst(gi);
  pthread_mutex_lock(&gi->lock);
  kk_status_t st = levelzero_order(g, in);
  ze_result_t r = st == KK_OK ? ze_of(g)->ze.zeCommandListAppendMemoryCopy(in->list, dst, src, bytes, NULL, 0, NULL)
                              : ZE_RESULT_SUCCESS;
  in->pending = true;
  pthread_mutex_unlock(&gi->lock);
  return r != ZE_RESULT_SUCCESS ? kkg_fail(g, r, "zeCommandListAppendMemoryCopy(%zu bytes)", bytes) : st;
}

/* The pattern is read when the fill is appended; a pattern wider than the
 * engine fills is copied from a host buffer, then waited for (that buffer
 * goes away). */
kk_status_t levelzero_fill(kkg_ctx_t *g, kkg_inst_t *gi, void *dst, const void *pattern, size_t psize, size_t count) {
  levelzero_inst_t *in = ze_inst(gi);
  const size_t max_fill = ze_dev(g)->max_fill;
  if (max_fill && psize > max_fill) {
    unsigned char *buf = malloc(psize * count);
    if (!buf)
      return kkg_error(g, KK_ERROR_OUT_OF_MEMORY, "fill: out of memory for %zu x %zu bytes", count, psize);
    for (size_t i = 0; i < count; i++)
      memcpy(buf + i * psize, pattern, psize);
    kk_status_t st = kkg_sync_copy(g, gi, dst, buf, psize * count);
    free(buf);
    return st;
  }
  pthread_mutex_lock(&gi->lock);
  kk_status_t st = levelzero_order(g, in);
  ze_result_t r = st == KK_OK ? ze_of(g)->ze.zeCommandListAppendMemoryFill(in->list, dst, pattern, psize,
                                                                           psize * count, NULL, 0, NULL)
                              : ZE_RESULT_SUCCESS;
  in->pending = true;
  pthread_mutex_unlock(&gi->lock);
  return r != ZE_RESULT_SUCCESS ? kkg_fail(g, r, "zeCommandListAppendMemoryFill(%zu x %zu bytes)", count, psize) : st;
}
