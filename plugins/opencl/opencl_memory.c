/* plugins/opencl/opencl_memory.c -- the OpenCL and OpenCLShared spaces (shared virtual memory): allocation, copies and fills on an in-order queue. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "opencl_internal.h"

kk_status_t opencl_alloc(kkg_ctx_t *g, int kind, size_t bytes, void **p) {
  const cl_svm_mem_flags f = CL_MEM_READ_WRITE | (kind == KKG_MEM_MANAGED ? CL_MEM_SVM_FINE_GRAIN_BUFFER : 0);
  if (!(*p = cl_of(g)->cl.clSVMAlloc(cl_of(g)->context, f, bytes, 128)))
    return g->hs->error(g->hs->core, KK_ERROR_OUT_OF_MEMORY, "clSVMAlloc", 0, "clSVMAlloc(%zu bytes) failed", bytes);
  return KK_OK;
}

/* The layer fenced first: clSVMFree does not wait for kernels that may still use the memory. */
kk_status_t opencl_free(kkg_ctx_t *g, int kind, void *p) {
  (void)kind;
  cl_of(g)->cl.clSVMFree(cl_of(g)->context, p);
  return KK_OK;
}

kk_status_t opencl_copy(kkg_ctx_t *g, kkg_inst_t *in, void *dst, const void *src, size_t bytes) {
  KKG_TRY(g, cl_of(g)->cl.clEnqueueSVMMemcpy(cl_queue(in), CL_FALSE, dst, src, bytes, 0, NULL, NULL),
          "clEnqueueSVMMemcpy(%zu bytes)", bytes);
  return KK_OK;
}

/* The pattern is read when the fill is enqueued. */
kk_status_t opencl_fill(kkg_ctx_t *g, kkg_inst_t *in, void *dst, const void *pattern, size_t psize, size_t count) {
  KKG_TRY(g, cl_of(g)->cl.clEnqueueSVMMemFill(cl_queue(in), dst, pattern, psize, psize * count, 0, NULL, NULL),
          "clEnqueueSVMMemFill(%zu x %zu bytes)", count, psize);
  return KK_OK;
}
