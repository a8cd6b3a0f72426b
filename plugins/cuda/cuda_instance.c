/* plugins/cuda/cuda_instance.c -- instances are the layer's streams; the device's primary context is made current in each calling thread. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "cuda_internal.h"

/* The driver's current context belongs to each thread: the GPU layer calls
 * this on a thread's first call into the plugin for each opening of the
 * device, so instances can be used from several threads. */
kk_status_t cuda_bind(kkg_ctx_t *g) {
  KKG_TRY(g, cuda_of(g)->cu.cuCtxSetCurrent(cuda_of(g)->context), "making the device's context current in this thread");
  return KK_OK;
}
