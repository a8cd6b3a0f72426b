/* plugins/hip/hip_internal.h -- the HIP plugin's state: device, instances, loaded modules and kernels. */
#ifndef KK_HIP_INTERNAL_H
#define KK_HIP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <kk/plugin.h>
#include <kk/target/gpu_launch.h>

#include "hip_error.h"
#include "hip_runtime.h"

enum { HIP_SPACE_DEVICE = 0, HIP_SPACE_PINNED = 1, HIP_SPACE_MANAGED = 2, HIP_SPACE_COUNT = 3 };

/* Synchronous results land in mapped, coherent host memory, one slot per
 * launch in flight; a slot's last 8 bytes are the flag the kernel sets once
 * the value is in place, so the host waits for the value, not the end of the
 * kernel. */
#define HIP_RESULT_SLOTS 64
#define HIP_RESULT_SLOT_BYTES 256
#define HIP_RESULT_VALUE_BYTES (HIP_RESULT_SLOT_BYTES - 8)

/* Largest kernel argument buffer: the argument struct, then the launch record
 * (AMD GPUs take 4 KiB of explicit kernel arguments). */
#define HIP_ARGS_MAX 4096

/* A device buffer grown on demand (only the growth takes the instance's lock). */
typedef struct hip_buf {
  void *ptr;
  size_t size;
} hip_buf_t;

typedef struct hip_inst {
  hipStream_t stream;
  pthread_mutex_t grow;             /* guards growing the buffers below */
  hip_buf_t partials, partials2, status, scratch1;
  unsigned char *counter;           /* device: reduce's blocks done (reset by the last block) */
  unsigned char *tile_counter;      /* scan: monotonic tile counter */
  atomic_ullong epoch;              /* of the next scan's status words */
  unsigned char *failed;            /* a team kernel overran its scratch: 1 + level (+2 per thread) */
  atomic_bool team_launched;        /* check `failed` at the next fence */
  unsigned char *results;           /* HIP_RESULT_SLOTS mapped coherent host slots */
  unsigned char *results_dev;
  atomic_uint next_slot;
  atomic_ullong result_seq;         /* the flag value of the next synchronous result */
} hip_inst_t;

typedef struct hip_dev {
  char name[128];
  char arch[64];                    /* gcnArchName, e.g. gfx90a:sramecc+:xnack- */
  int cu_count, max_threads_per_cu, max_threads_per_block, lds, warp, managed;
  size_t memory;
} hip_dev_t;

typedef struct hip_ctx {
  const kk_host_services_t *hs;
  hip_runtime_t rt;
  void *lib;
  char why_none[512];
  int ndev;
  hip_dev_t *devs;
  int dev;                          /* opened device, -1 */
  void *locks;                      /* the device lock table (KK_GPU_LOCK_COUNT words) */
  hip_inst_t def;                   /* the default instance */
  unsigned gen;                     /* this opening of the device (see hip_bind) */
} hip_ctx_t;

/* A loaded module and a kernel of it. */
typedef struct hip_module {
  hipModule_t mod;
  struct hip_kernel *kernels;       /* handed out by kernel_get, freed with the module */
} hip_module_t;

typedef struct hip_kernel {
  hipFunction_t fn;
  int max_threads;                  /* per block, given registers and the kernel's bounds */
  struct hip_kernel *next;
} hip_kernel_t;

/* The runtime's current device belongs to each thread: every entry point a
 * program's thread may call first makes ours current.  After a thread's first
 * call this is one compare of a thread-local word; the generation tells an
 * older opening of the device (before a finalize) from this one. */
extern _Thread_local unsigned hip_tl_gen;
kk_status_t hip_bind_slow(hip_ctx_t *c);
static inline kk_status_t hip_bind(hip_ctx_t *c) { return hip_tl_gen == c->gen ? KK_OK : hip_bind_slow(c); }
#define HIP_BIND(c)                       \
  do {                                    \
    kk_status_t bind_st_ = hip_bind(c);   \
    if (bind_st_ != KK_OK)                \
      return bind_st_;                    \
  } while (0)

/* hip_instance.c */
kk_status_t hip_inst_init(hip_ctx_t *c, hip_inst_t *in);
void hip_inst_free(hip_ctx_t *c, hip_inst_t *in);
kk_status_t hip_inst_grow(hip_ctx_t *c, hip_inst_t *in, hip_buf_t *b, size_t bytes, bool zero);
kk_status_t hip_instance_create(void *ctx, void **inst);
kk_status_t hip_instance_destroy(void *ctx, void *inst);
kk_status_t hip_instance_fence(void *ctx, void *inst);
kk_status_t hip_fence_all(void *ctx);
static inline hip_inst_t *hip_inst_of(hip_ctx_t *c, void *inst) { return inst ? (hip_inst_t *)inst : &c->def; }

/* hip_memory.c */
int32_t hip_space_count(void *ctx);
kk_status_t hip_space_props(void *ctx, int32_t space, kk_plugin_space_t *props);
kk_status_t hip_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr);
kk_status_t hip_mem_free(void *ctx, int32_t space, void *ptr);
kk_status_t hip_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                         size_t bytes);
kk_status_t hip_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes);
kk_status_t hip_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern, size_t psize,
                         size_t count);

/* hip_parallel.c */
kk_status_t hip_module_load(void *ctx, const kk_module_t *module, const kk_image_t *image, void **pmod);
kk_status_t hip_module_unload(void *ctx, void *pmod);
kk_status_t hip_kernel_get(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel);
kk_status_t hip_launch(void *ctx, void *inst, const kk_launch_t *l);
kk_status_t hip_team_size_query(void *ctx, const kk_launch_t *l, int32_t *max, int32_t *recommended);

#endif
