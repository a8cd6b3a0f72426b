/* plugins/levelzero/levelzero_internal.h -- the Level Zero plugin's state: the drivers' devices, the context, instances as immediate command lists kept in order; for the GPU layer (plugins/gpu/gpu.h). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_LEVELZERO_INTERNAL_H
#define KK_LEVELZERO_INTERNAL_H

#include "gpu.h"
#include "levelzero_driver.h"
#include "levelzero_error.h"

/* What kk assumes where a driver reports 0 for a limit (the loader's null
 * driver reports 0 for every property). */
#define LEVELZERO_DEFAULT_GROUP 256
#define LEVELZERO_DEFAULT_LOCAL_MEM 65536

typedef struct levelzero_dev {
  kkg_device_t d;                   /* first: what the GPU layer reads */
  ze_driver_handle_t driver;
  ze_device_handle_t id;
  uint32_t compute_ordinal;         /* the command queue group with compute */
  size_t max_fill;                  /* largest fill pattern of that group (0: not reported) */
} levelzero_dev_t;

typedef struct levelzero_inst {
  kkg_inst_t g;                     /* first; its lock guards the command list, which is not thread-safe */
  ze_command_list_handle_t list;    /* an immediate command list */
  ze_event_pool_handle_t pool;      /* KKG_SLOTS slot events, then the fence event */
  ze_event_handle_t events[KKG_SLOTS];
  bool used[KKG_SLOTS];             /* events[s] was signalled by a launch and not reset since */
  ze_event_handle_t fence;
  bool pending;                     /* a command was appended since the last barrier */
} levelzero_inst_t;

typedef struct levelzero_ctx {
  kkg_ctx_t g;                      /* first: the GPU layer's part */
  levelzero_driver_t ze;
  ze_context_handle_t context;
  pthread_mutex_t launch_lock;      /* arguments and group size are per kernel handle: set and append together */
  /* copies between layouts (levelzero_remap.c): the module of gpu_remap.cl, loaded at the first one */
  kkg_remap_once_t remap;            /* its making, once */
  ze_module_handle_t remap_module;
  ze_kernel_handle_t remap_k[2][5]; /* [KKG_REMAP_KIND_TILE, _ANY][word of 1, 2, 4, 8, 16 bytes] */
  uint32_t remap_any_local;         /* work-items per group of the per-word kernels */
} levelzero_ctx_t;

static inline levelzero_ctx_t *ze_of(const kkg_ctx_t *g) { return (levelzero_ctx_t *)(void *)g; }
static inline levelzero_inst_t *ze_inst(kkg_inst_t *in) { return (levelzero_inst_t *)(void *)in; }
static inline const levelzero_dev_t *ze_dev(const kkg_ctx_t *g) { return (const levelzero_dev_t *)(void *)kkg_device(g, g->dev); }

KKG_SPIRV_DECLS(levelzero)
/* levelzero_instance.c: with in's lock held, orders the next command after
 * every one appended before it; waits for all of them (a barrier that
 * signals the fence event, then the host waits for it). */
kk_status_t levelzero_order(kkg_ctx_t *g, levelzero_inst_t *in);
kk_status_t levelzero_sync_locked(kkg_ctx_t *g, levelzero_inst_t *in);
/* copies between layouts on the device (levelzero_remap.c) */
kk_status_t levelzero_remap(kkg_ctx_t *g, kkg_inst_t *in, const kk_plugin_remap_t *r);
void levelzero_remap_release(kkg_ctx_t *g);
/* gpu_remap.cl as SPIR-V (levelzero_remap_image.c, generated at build time) */
extern const unsigned char levelzero_remap_image[];
extern const unsigned long levelzero_remap_image_size;

#endif
