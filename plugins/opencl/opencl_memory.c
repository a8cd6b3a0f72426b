/* plugins/opencl/opencl_memory.c -- the OpenCL and OpenCLShared spaces (shared virtual memory): allocation, copies, sets, fills. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "opencl_internal.h"

static const char *const space_names[OPENCL_SPACE_COUNT] = {"OpenCL", "OpenCLShared"};

/* OpenCLShared needs fine-grained buffer SVM: the host may then touch it
 * while kernels run. */
int32_t opencl_space_count(void *ctx) {
  opencl_ctx_t *c = ctx;
  int dev = c->dev >= 0 ? c->dev : 0;
  return c->ndev && (c->devs[dev].svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) ? OPENCL_SPACE_COUNT : 1;
}

kk_status_t opencl_space_props(void *ctx, int32_t space, kk_plugin_space_t *p) {
  (void)ctx;
  snprintf(p->name, sizeof p->name, "%s", space_names[space]);
  p->flags = KK_SPACE_DEVICE_ACCESSIBLE | (space == OPENCL_SPACE_DEVICE ? KK_SPACE_DEFAULT : KK_SPACE_HOST_ACCESSIBLE);
  return KK_OK;
}

kk_status_t opencl_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr) {
  opencl_ctx_t *c = ctx;
  cl_svm_mem_flags f = CL_MEM_READ_WRITE | (space == OPENCL_SPACE_SHARED ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0);
  *ptr = c->cl.clSVMAlloc(c->context, f, bytes, 128);
  if (!*ptr)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, "clSVMAlloc", 0, "clSVMAlloc(%zu bytes) failed", bytes);
  return KK_OK;
}

kk_status_t opencl_mem_free(void *ctx, int32_t space, void *ptr) {
  opencl_ctx_t *c = ctx;
  (void)space;
  /* clSVMFree does not wait for kernels that may still use the memory */
  opencl_fence_all(c);
  c->cl.clSVMFree(c->context, ptr);
  return KK_OK;
}

kk_status_t opencl_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                            size_t bytes) {
  opencl_ctx_t *c = ctx;
  opencl_inst_t *in = opencl_inst_of(c, inst);
  (void)dst_space, (void)src_space; /* SVM pointers and host pointers alike */
  CL_TRY(c, c->cl.clEnqueueSVMMemcpy(in->queue, inst ? CL_FALSE : CL_TRUE, dst, src, bytes, 0, NULL, NULL),
         "clEnqueueSVMMemcpy(%zu bytes)", bytes);
  return KK_OK;
}

kk_status_t opencl_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern, size_t psize,
                            size_t count) {
  opencl_ctx_t *c = ctx;
  opencl_inst_t *in = opencl_inst_of(c, inst);
  (void)space;
  if (count == 0)
    return KK_OK;
  CL_TRY(c, c->cl.clEnqueueSVMMemFill(in->queue, dst, pattern, psize, psize * count, 0, NULL, NULL),
         "clEnqueueSVMMemFill(%zu x %zu bytes)", count, psize);
  if (!inst)
    CL_TRY(c, c->cl.clFinish(in->queue), "clFinish after a fill");
  return KK_OK;
}

kk_status_t opencl_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes) {
  unsigned char v = (unsigned char)value;
  return opencl_mem_fill(ctx, inst, dst, space, &v, 1, bytes);
}
