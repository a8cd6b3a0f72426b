/* plugins/opencl/opencl_internal.h -- the OpenCL plugin's state: the platforms' devices, the context, instances as in-order queues; for the GPU layer (plugins/gpu/gpu.h). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_OPENCL_INTERNAL_H
#define KK_OPENCL_INTERNAL_H

#include "gpu.h"
#include "opencl_driver.h"
#include "opencl_error.h"

typedef struct opencl_dev {
  kkg_device_t d;                   /* first: what the GPU layer reads */
  cl_platform_id platform;
  cl_device_id id;
  cl_device_svm_capabilities svm;
  bool il_spirv;                    /* ingests SPIR-V (clCreateProgramWithIL) */
} opencl_dev_t;

typedef struct opencl_inst {
  kkg_inst_t g;                     /* first; g.queue is the cl_command_queue */
  cl_event events[KKG_SLOTS];       /* the kernel that last used each launch slot */
} opencl_inst_t;

typedef struct opencl_ctx {
  kkg_ctx_t g;                      /* first: the GPU layer's part */
  opencl_driver_t cl;
  cl_context context;
  pthread_mutex_t launch_lock;      /* kernel arguments are per cl_kernel: set and enqueue together */
  /* copies between layouts (opencl_remap.c): the program of gpu_remap.cl, built from source at the first one */
  kkg_remap_once_t remap;            /* its making, once */
  cl_program remap_prog;
  cl_kernel remap_k[2][5];          /* [KKG_REMAP_KIND_TILE, _ANY][word of 1, 2, 4, 8, 16 bytes] */
  size_t remap_any_local;           /* work-items per group of the per-word kernels */
} opencl_ctx_t;

static inline opencl_ctx_t *cl_of(const kkg_ctx_t *g) { return (opencl_ctx_t *)(void *)g; }
static inline const opencl_dev_t *cl_dev(const kkg_ctx_t *g) { return (const opencl_dev_t *)(void *)kkg_device(g, g->dev); }
static inline cl_command_queue cl_queue(const kkg_inst_t *in) { return (cl_command_queue)in->queue; }

KKG_SPIRV_DECLS(opencl)
/* copies between layouts on the device (opencl_remap.c) */
kk_status_t opencl_remap(kkg_ctx_t *g, kkg_inst_t *in, const kk_plugin_remap_t *r);
void opencl_remap_release(kkg_ctx_t *g);
/* gpu_remap.h then gpu_remap.cl, NUL-terminated (opencl_remap_source.c, generated at build time) */
extern const char opencl_remap_source[];

#endif
