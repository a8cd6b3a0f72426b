/* plugins/cuda/cuda_internal.h -- the CUDA plugin's state: the driver, its devices and the primary context, for the GPU layer (plugins/gpu/gpu.h). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CUDA_INTERNAL_H
#define KK_CUDA_INTERNAL_H

#include "cuda_driver.h"
#include "cuda_error.h"
#include "gpu.h"

typedef struct cuda_dev {
  kkg_device_t d;                   /* first: what the GPU layer reads */
  int cc_major, cc_minor;
} cuda_dev_t;

typedef struct cuda_ctx {
  kks_ctx_t s;                      /* first: the GPU layer's part, with the calls it makes */
  cuda_driver_t cu;
  CUdevice device;
  CUcontext context;                /* the device's primary context */
  char jit_cache[1024];             /* where NVRTC results are kept */
} cuda_ctx_t;

static inline cuda_ctx_t *cuda_of(const kkg_ctx_t *g) { return (cuda_ctx_t *)(void *)g; }
static inline const cuda_dev_t *cuda_dev(const kkg_ctx_t *g) { return (const cuda_dev_t *)(void *)kkg_device(g, g->dev); }
static inline CUdeviceptr cuda_ptr(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

KKG_SIMT_DECLS(cuda)
/* cuda_memory.c: patterns of 8 and 16 bytes */
kk_status_t cuda_fill_wide(kkg_ctx_t *g, kkg_inst_t *in, void *dst, const void *pattern, size_t psize, size_t count);
/* cuda_module.c: opts a function in to `bytes` of dynamic shared memory */
int cuda_set_smem(kkg_ctx_t *g, void *fn, int bytes);
/* cuda_jit.c: compiles a module's embedded source with NVRTC for the open
 * device, through an on-disk cache; *image is malloc'ed. */
kk_status_t cuda_jit(cuda_ctx_t *c, const kk_module_t *module, void **image, size_t *size);
/* cuda_remap_image.c (generated): plugins/gpu/gpu_remap.cu as a fatbin for the configured architectures (8-byte words: the alignment a fatbin needs) */
extern const unsigned long long cuda_remap_image[];

#endif
