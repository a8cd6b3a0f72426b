/* plugins/opencl/opencl_instance.c -- instances are in-order command queues; a launch slot is free again once its kernel's event completed. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "opencl_internal.h"

kk_status_t opencl_queue_create(kkg_ctx_t *g, kkg_inst_t *in) {
  cl_int r = CL_SUCCESS;
  in->queue = cl_of(g)->cl.clCreateCommandQueueWithProperties(cl_of(g)->context, cl_dev(g)->id, NULL, &r);
  KKG_TRY(g, in->queue ? CL_SUCCESS : r, "clCreateCommandQueueWithProperties");
  return KK_OK;
}

void opencl_queue_destroy(kkg_ctx_t *g, kkg_inst_t *in) {
  const opencl_driver_t *cl = &cl_of(g)->cl;
  if (in->queue) {
    cl->clFinish(cl_queue(in));
    cl->clReleaseCommandQueue(cl_queue(in));
  }
  for (int i = 0; i < KKG_SLOTS; i++)
    if (((opencl_inst_t *)(void *)in)->events[i])
      cl->clReleaseEvent(((opencl_inst_t *)(void *)in)->events[i]);
}

kk_status_t opencl_queue_sync(kkg_ctx_t *g, kkg_inst_t *in) {
  KKG_TRY(g, cl_of(g)->cl.clFinish(cl_queue(in)), "clFinish");
  return KK_OK;
}

kk_status_t opencl_slot_wait(kkg_ctx_t *g, kkg_inst_t *in, unsigned s) {
  cl_event *e = &((opencl_inst_t *)(void *)in)->events[s];
  if (*e) {
    KKG_TRY(g, cl_of(g)->cl.clWaitForEvents(1, e), "waiting for a launch slot");
    cl_of(g)->cl.clReleaseEvent(*e);
    *e = NULL;
  }
  return KK_OK;
}
