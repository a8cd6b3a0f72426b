/* plugins/levelzero/levelzero_internal.h -- the Level Zero plugin's state: driver devices, context, instances (immediate command lists), modules and kernels. */
#ifndef KK_LEVELZERO_INTERNAL_H
#define KK_LEVELZERO_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <kk/plugin.h>
#include <kk/target/spirv_launch.h>

#include "levelzero_driver.h"
#include "levelzero_error.h"
#include "spirv_host.h"

/* The Kokkos names of SYCL's three USM kinds, which Level Zero's are. */
enum { LEVELZERO_SPACE_DEVICE = 0, LEVELZERO_SPACE_SHARED = 1, LEVELZERO_SPACE_HOST = 2, LEVELZERO_SPACE_COUNT = 3 };

/* Launch slots per instance: a slot is reused once the launch that used it
 * has finished (its event), so at most this many launches are in flight. */
#define LEVELZERO_SLOTS 64

/* What kk assumes where a driver reports 0 for a limit (the loader's null
 * driver reports 0 for every property). */
#define LEVELZERO_DEFAULT_GROUP 256
#define LEVELZERO_DEFAULT_LOCAL_MEM 65536

typedef struct levelzero_inst {
  kkspv_inst_t sp;                  /* first: the lock (the command list, which is not thread-safe, slots,
                                       growth), launch buffers, the list of instances */
  ze_command_list_handle_t list;    /* an immediate command list */
  ze_event_pool_handle_t pool;      /* LEVELZERO_SLOTS slot events, then the fence event */
  ze_event_handle_t events[LEVELZERO_SLOTS];
  bool used[LEVELZERO_SLOTS];       /* events[s] was signalled by a launch and not reset since */
  ze_event_handle_t fence;
  bool pending;                     /* a command was appended since the last barrier */
  unsigned char *slots;             /* LEVELZERO_SLOTS device slots of KK_SPIRV_SLOT_BYTES */
  unsigned char *staging;           /* their host copies, valid until the copy has run */
  unsigned next;
} levelzero_inst_t;

typedef struct levelzero_dev {
  ze_driver_handle_t driver;
  ze_device_handle_t id;
  ze_device_properties_t props;
  uint32_t max_group;               /* work-items per group (maxTotalGroupSize, or the default) */
  uint32_t local_mem;               /* shared local memory per group */
  uint64_t memory;                  /* sum of the device's memories */
  uint32_t units;                   /* subslices (Xe cores): groups a reduction spreads over are 4 per unit */
  uint32_t compute_ordinal;         /* the command queue group with compute */
  size_t max_fill;                  /* largest fill pattern of that group (0: not reported) */
} levelzero_dev_t;

typedef struct levelzero_ctx {
  const kk_host_services_t *hs;
  levelzero_driver_t ze;
  void *lib;
  char why_none[1024];
  int ndev;
  levelzero_dev_t *devs;
  int dev;                          /* opened device, -1 */
  ze_context_handle_t context;
  kkspv_dev_t sp;                   /* the opened device for the launch planner; its lock table */
  levelzero_inst_t def;             /* the default instance */
  pthread_mutex_t launch_lock;      /* arguments and group size are per kernel handle: set and append together */
  pthread_mutex_t inst_lock;        /* the list of instances */
} levelzero_ctx_t;

typedef struct levelzero_kernel {
  kkspv_kernel_t sp;                /* first: work-items per group the kernel allows, and what
                                       zeKernelSuggestGroupSize prefers for a large range */
  ze_kernel_handle_t k;
  ze_kernel_handle_t final;         /* a scan's second kernel, kk_k_<name>__final */
  struct levelzero_kernel *next;
} levelzero_kernel_t;

typedef struct levelzero_module {
  ze_module_handle_t mod;
  levelzero_kernel_t *kernels;      /* handed out by kernel_get, freed with the module */
} levelzero_module_t;

/* The planner reaches these from its parts (spirv_host.h). */
_Static_assert(offsetof(levelzero_inst_t, sp) == 0, "kkspv_inst_t is the first member of an instance");
_Static_assert(offsetof(levelzero_kernel_t, sp) == 0, "kkspv_kernel_t is the first member of a kernel");

/* levelzero_instance.c */
kk_status_t levelzero_inst_init(levelzero_ctx_t *c, levelzero_inst_t *in);
void levelzero_inst_free(levelzero_ctx_t *c, levelzero_inst_t *in);
kk_status_t levelzero_inst_grow(void *ctx, kkspv_inst_t *in, kkspv_buf_t *b, size_t bytes);
kk_status_t levelzero_order(levelzero_ctx_t *c, levelzero_inst_t *in);
kk_status_t levelzero_sync_locked(levelzero_ctx_t *c, levelzero_inst_t *in);
kk_status_t levelzero_instance_create(void *ctx, void **inst);
kk_status_t levelzero_instance_destroy(void *ctx, void *inst);
kk_status_t levelzero_instance_fence(void *ctx, void *inst);
kk_status_t levelzero_fence_all(void *ctx);
extern const kkspv_ops_t levelzero_spirv_ops;
static inline levelzero_inst_t *levelzero_inst_of(levelzero_ctx_t *c, void *inst) {
  return inst ? (levelzero_inst_t *)inst : &c->def;
}

/* levelzero_memory.c */
int32_t levelzero_space_count(void *ctx);
kk_status_t levelzero_space_props(void *ctx, int32_t space, kk_plugin_space_t *props);
kk_status_t levelzero_alloc(levelzero_ctx_t *c, int32_t space, size_t bytes, void **ptr);
kk_status_t levelzero_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr);
kk_status_t levelzero_mem_free(void *ctx, int32_t space, void *ptr);
kk_status_t levelzero_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src,
                               int32_t src_space, size_t bytes);
kk_status_t levelzero_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes);
kk_status_t levelzero_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern, size_t psize,
                               size_t count);

/* levelzero_parallel.c */
kk_status_t levelzero_module_load(void *ctx, const kk_module_t *module, const kk_image_t *image, void **pmod);
kk_status_t levelzero_module_unload(void *ctx, void *pmod);
kk_status_t levelzero_kernel_get(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel);
kk_status_t levelzero_launch(void *ctx, void *inst, const kk_launch_t *l);
kk_status_t levelzero_team_size_query(void *ctx, const kk_launch_t *l, int32_t *max, int32_t *recommended);

#endif
