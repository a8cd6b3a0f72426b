/* plugins/hip/hip_instance.c -- instances are the layer's streams; the plugin's device is made current in each calling thread. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "hip_internal.h"

/* The runtime's current device belongs to each thread: the GPU layer calls
 * this on a thread's first call into the plugin for each opening of the
 * device, so instances can be used from several threads. */
kk_status_t hip_bind(kkg_ctx_t *g) {
  KKG_TRY(g, hip_of(g)->rt.hipSetDevice(g->dev), "making device %d current in this thread", g->dev);
  return KK_OK;
}
