/* plugins/hip/hip_internal.h -- the HIP plugin's state: the runtime and its devices, for the GPU layer (plugins/gpu/gpu.h). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_HIP_INTERNAL_H
#define KK_HIP_INTERNAL_H

#include "gpu.h"
#include "hip_error.h"
#include "hip_driver.h"

typedef struct hip_dev {
  kkg_device_t d;                   /* first: what the GPU layer reads; arch is gcnArchName, gfx90a:sramecc+:xnack- */
} hip_dev_t;

typedef struct hip_ctx {
  kks_ctx_t s;                      /* first: the GPU layer's part, with the calls it makes */
  hip_runtime_t rt;
} hip_ctx_t;

/* hip_remap_image.c (generated): plugins/gpu/gpu_remap.cu as a clang offload bundle with a code object for each
 * configured architecture, the form hipModuleLoadData takes */
extern const unsigned char hip_remap_image[];

static inline hip_ctx_t *hip_of(const kkg_ctx_t *g) { return (hip_ctx_t *)(void *)g; }

KKG_SIMT_DECLS(hip)

#endif
