/* plugins/opencl/opencl_internal.h -- the OpenCL plugin's state: platform devices, context, instances, programs and kernels. */
#ifndef KK_OPENCL_INTERNAL_H
#define KK_OPENCL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <kk/plugin.h>
#include <kk/target/spirv_launch.h>

#include "opencl_driver.h"
#include "opencl_error.h"
#include "spirv_host.h"

/* OpenCL has no Kokkos space names; these follow the Kokkos pattern. */
enum { OPENCL_SPACE_DEVICE = 0, OPENCL_SPACE_SHARED = 1, OPENCL_SPACE_COUNT = 2 };

/* Launch slots per instance: a slot is reused once the launch that used it
 * has finished (its event), so at most this many launches are in flight. */
#define OPENCL_SLOTS 64

typedef struct opencl_inst {
  kkspv_inst_t sp;                  /* first: the lock (slots, growth), launch buffers, the list of instances */
  cl_command_queue queue;
  unsigned char *slots;             /* OPENCL_SLOTS device slots of KK_SPIRV_SLOT_BYTES */
  unsigned char *staging;           /* their host copies, valid until the copy has run */
  cl_event events[OPENCL_SLOTS];    /* the kernel that last used each slot */
  unsigned next;
} opencl_inst_t;

typedef struct opencl_dev {
  cl_platform_id platform;
  cl_device_id id;
  char name[128], vendor[64], version[256];
  cl_uint units;
  size_t max_wg;
  cl_ulong local_mem, global_mem, max_alloc;
  cl_device_svm_capabilities svm;
  bool il_spirv;                    /* ingests SPIR-V (clCreateProgramWithIL) */
  bool spir;                        /* ingests SPIR 1.2 bitcode (cl_khr_spir) */
} opencl_dev_t;

typedef struct opencl_ctx {
  const kk_host_services_t *hs;
  opencl_driver_t cl;
  void *lib;
  char why_none[1024];
  int ndev;
  opencl_dev_t *devs;
  int dev;                          /* opened device, -1 */
  cl_context context;
  kkspv_dev_t sp;                   /* the opened device for the launch planner; its lock table */
  opencl_inst_t def;                /* the default instance */
  pthread_mutex_t launch_lock;      /* kernel arguments are per cl_kernel: set and enqueue together */
  pthread_mutex_t inst_lock;        /* the list of instances */
} opencl_ctx_t;

typedef struct opencl_kernel {
  kkspv_kernel_t sp;                /* first: the work-group sizes the kernel allows and prefers */
  cl_kernel k;
  cl_kernel final;                  /* a scan's second kernel, kk_k_<name>__final */
  struct opencl_kernel *next;
} opencl_kernel_t;

typedef struct opencl_module {
  cl_program prog;
  opencl_kernel_t *kernels;         /* handed out by kernel_get, freed with the module */
} opencl_module_t;

/* The planner reaches these from its parts (spirv_host.h). */
_Static_assert(offsetof(opencl_inst_t, sp) == 0, "kkspv_inst_t is the first member of an instance");
_Static_assert(offsetof(opencl_kernel_t, sp) == 0, "kkspv_kernel_t is the first member of a kernel");

/* opencl_instance.c */
kk_status_t opencl_inst_init(opencl_ctx_t *c, opencl_inst_t *in);
void opencl_inst_free(opencl_ctx_t *c, opencl_inst_t *in);
kk_status_t opencl_inst_grow(void *ctx, kkspv_inst_t *in, kkspv_buf_t *b, size_t bytes);
kk_status_t opencl_instance_create(void *ctx, void **inst);
kk_status_t opencl_instance_destroy(void *ctx, void *inst);
kk_status_t opencl_instance_fence(void *ctx, void *inst);
kk_status_t opencl_fence_all(void *ctx);
extern const kkspv_ops_t opencl_spirv_ops;
static inline opencl_inst_t *opencl_inst_of(opencl_ctx_t *c, void *inst) {
  return inst ? (opencl_inst_t *)inst : &c->def;
}

/* opencl_memory.c */
int32_t opencl_space_count(void *ctx);
kk_status_t opencl_space_props(void *ctx, int32_t space, kk_plugin_space_t *props);
kk_status_t opencl_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr);
kk_status_t opencl_mem_free(void *ctx, int32_t space, void *ptr);
kk_status_t opencl_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                            size_t bytes);
kk_status_t opencl_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes);
kk_status_t opencl_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern, size_t psize,
                            size_t count);

/* opencl_parallel.c */
kk_status_t opencl_module_load(void *ctx, const kk_module_t *module, const kk_image_t *image, void **pmod);
kk_status_t opencl_module_unload(void *ctx, void *pmod);
kk_status_t opencl_kernel_get(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel);
kk_status_t opencl_launch(void *ctx, void *inst, const kk_launch_t *l);
kk_status_t opencl_team_size_query(void *ctx, const kk_launch_t *l, int32_t *max, int32_t *recommended);

#endif
