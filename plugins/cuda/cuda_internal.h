/* plugins/cuda/cuda_internal.h -- the CUDA plugin's state: context, instances, loaded modules and kernels. */
#ifndef KK_CUDA_INTERNAL_H
#define KK_CUDA_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <kk/plugin.h>
#include <kk/target/gpu_launch.h>

#include "cuda_driver.h"
#include "cuda_error.h"

enum { CUDA_SPACE_DEVICE = 0, CUDA_SPACE_UVM = 1, CUDA_SPACE_PINNED = 2, CUDA_SPACE_COUNT = 3 };

/* Synchronous results land in mapped pinned memory, one slot per launch in
 * flight; a slot's last 8 bytes are the flag the kernel sets once the value
 * is in place, so the host waits for the value, not the end of the kernel. */
#define CUDA_RESULT_SLOTS 64
#define CUDA_RESULT_SLOT_BYTES 256
#define CUDA_RESULT_VALUE_BYTES (CUDA_RESULT_SLOT_BYTES - 8)
/* After the slots, in the same mapped memory: the host's copy of a team
 * kernel's failure record, {code, bytes asked, bytes requested}. */
#define CUDA_FAILED_RECORD_BYTES 64

/* A device buffer grown on demand (only the growth takes the instance's lock). */
typedef struct cuda_buf {
  CUdeviceptr ptr;
  size_t size;
} cuda_buf_t;

typedef struct cuda_inst {
  CUstream stream;
  pthread_mutex_t grow;             /* guards growing the buffers below */
  cuda_buf_t partials, partials2, status, scratch1;
  CUdeviceptr counter;              /* reduce: blocks done, reset by the last block */
  CUdeviceptr tile_counter;         /* scan: monotonic tile counter */
  atomic_ullong tile_base;          /* its value at the next scan's start */
  atomic_ullong epoch;              /* of the next scan's status words */
  CUdeviceptr failed;               /* a team kernel overran its scratch: 1 + level (+2 per thread) */
  volatile unsigned long long *failed_record; /* its mapped host copy, read at fences (no device copy) */
  unsigned char *results;           /* CUDA_RESULT_SLOTS mapped pinned slots, then the failure record */
  CUdeviceptr results_dev;
  atomic_uint next_slot;
  atomic_ullong result_seq;         /* the flag value of the next synchronous result */
} cuda_inst_t;

typedef struct cuda_dev {
  char name[128];
  int cc_major, cc_minor, sm_count, max_threads_per_sm, max_threads_per_block, smem_optin, warp;
  size_t memory;
  int managed, uva;
} cuda_dev_t;

typedef struct cuda_ctx {
  const kk_host_services_t *hs;
  cuda_driver_t cu;
  void *lib;
  char why_none[512];
  int ndev;
  cuda_dev_t *devs;
  int dev;                          /* opened device, -1 */
  CUdevice device;
  CUcontext context;
  CUdeviceptr locks;                /* the device lock table (KK_DEV_LOCK_COUNT words) */
  cuda_inst_t def;                  /* the default instance */
  char jit_cache[1024];             /* where NVRTC results are kept */
  unsigned gen;                     /* this opening of the device (see cuda_bind) */
} cuda_ctx_t;

/* A loaded module and a kernel of it. */
typedef struct cuda_module {
  CUmodule mod;
  struct cuda_kernel *kernels;      /* handed out by kernel_get, freed with the module */
} cuda_module_t;

typedef struct cuda_kernel {
  CUfunction fn;
  int max_threads;                  /* per block, given registers */
  CUfunction fn_direct;             /* MDRange for: the one-tile-per-block entry (kk_kd_*), or NULL */
  int max_threads_direct;
  int static_smem;
  int dyn_smem_set;                 /* the dynamic shared memory opted in so far */
  struct cuda_kernel *next;
} cuda_kernel_t;

/* The driver's current context belongs to each thread: every entry point a
 * program's thread may call first makes ours current.  After a thread's first
 * call this is one compare of a thread-local word; the generation tells an
 * older opening of the device (before a finalize) from this one. */
extern _Thread_local unsigned cuda_tl_gen;
kk_status_t cuda_bind_slow(cuda_ctx_t *c);
static inline kk_status_t cuda_bind(cuda_ctx_t *c) { return cuda_tl_gen == c->gen ? KK_OK : cuda_bind_slow(c); }
#define CUDA_BIND(c)                      \
  do {                                    \
    kk_status_t bind_st_ = cuda_bind(c);  \
    if (bind_st_ != KK_OK)                \
      return bind_st_;                    \
  } while (0)

/* cuda_instance.c */
kk_status_t cuda_inst_init(cuda_ctx_t *c, cuda_inst_t *in);
void cuda_inst_free(cuda_ctx_t *c, cuda_inst_t *in);
kk_status_t cuda_inst_grow(cuda_ctx_t *c, cuda_inst_t *in, cuda_buf_t *b, size_t bytes, bool zero);
kk_status_t cuda_instance_create(void *ctx, void **inst);
kk_status_t cuda_instance_destroy(void *ctx, void *inst);
kk_status_t cuda_instance_fence(void *ctx, void *inst);
kk_status_t cuda_fence_all(void *ctx);
static inline cuda_inst_t *cuda_inst_of(cuda_ctx_t *c, void *inst) { return inst ? (cuda_inst_t *)inst : &c->def; }

/* cuda_memory.c */
int32_t cuda_space_count(void *ctx);
kk_status_t cuda_space_props(void *ctx, int32_t space, kk_plugin_space_t *props);
kk_status_t cuda_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr);
kk_status_t cuda_mem_free(void *ctx, int32_t space, void *ptr);
kk_status_t cuda_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                          size_t bytes);
kk_status_t cuda_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes);
kk_status_t cuda_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern, size_t psize,
                          size_t count);

/* cuda_parallel.c */
kk_status_t cuda_module_load(void *ctx, const kk_module_t *module, const kk_image_t *image, void **pmod);
kk_status_t cuda_module_unload(void *ctx, void *pmod);
kk_status_t cuda_kernel_get(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel);
kk_status_t cuda_launch(void *ctx, void *inst, const kk_launch_t *l);
kk_status_t cuda_team_size_query(void *ctx, const kk_launch_t *l, int32_t *max, int32_t *recommended);

/* cuda_jit.c: compiles a module's embedded source with NVRTC for the open
 * device, through an on-disk cache; *image is malloc'ed. */
kk_status_t cuda_jit(cuda_ctx_t *c, const kk_module_t *module, void **image, size_t *size);

#endif
