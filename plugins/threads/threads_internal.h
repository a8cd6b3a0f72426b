/* plugins/threads/threads_internal.h -- the threads backend's private types and the functions its files share (prefix threads_). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_THREADS_INTERNAL_H
#define KK_PLUGINS_THREADS_INTERNAL_H

#if defined(__GNUC__)
#define THREADS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define THREADS_UNLIKELY(x) (x)
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <kk/plugin.h>

#include "host_common.h"
#include "host_exec.h"

typedef struct threads_pool threads_pool_t;
typedef struct threads_topo threads_topo_t;
typedef struct threads_instance threads_instance_t;

/* Defaults of the JSON options (docs/backends.md). */
#define THREADS_DEFAULT_SPIN_US 1000.0
#define THREADS_MAX_SPIN_US 1000000.0
#define THREADS_MAX_THREADS 4096
/* Extra spin of a launching thread that had to wake sleeping workers. */
#define THREADS_WAKE_GRACE_NS ((uint64_t)250000)

/* One per process: what init() returns. */
typedef struct threads_ctx {
  const kk_host_services_t *hs;
  int nthreads;             /* the default instance's pool */
  int instance_threads;     /* the pool of each created instance */
  uint64_t spin_ns;         /* spin before sleeping (option spin_us) */
  bool bind;                /* bind workers to cores (option bind) */
  threads_topo_t *topo;     /* where workers go; NULL when they are not bound */
  threads_pool_t *pool;     /* the default instance, from device_open */
  atomic_uint next_target;   /* first binding target of the next instance's pool */
  kkh_inst_list_t instances;  /* the created instances, for fence_all */
} threads_ctx_t;

/* A created instance: its own pool, linked for fence_all. */
struct threads_instance {
  kkh_inst_link_t link; /* first: the instance list holds these */
  threads_pool_t *pool;
};

/* ---- threads_topo.c ------------------------------------------------------- */

/* Loads the topology and orders the cores of the process's affinity mask
 * into binding targets.  Failure to do so is a warning, not an error:
 * ctx->topo stays NULL and workers float. */
void threads_topo_open(threads_ctx_t *ctx);
void threads_topo_close(threads_ctx_t *ctx);
/* The binding targets there are, and the OS index of a target's PU. */
int threads_topo_targets(const threads_topo_t *t);
int threads_topo_pu(const threads_topo_t *t, int target);
/* Binds the calling thread to binding target `target`: 0, or the errno of
 * the failure. */
int threads_topo_bind(const threads_topo_t *t, int target);

/* ---- threads_pool.c -------------------------------------------------------- */

/* Creates a pool of `nthreads` (the caller of each launch is thread 0, so
 * nthreads - 1 workers are started); worker i is bound to binding target
 * first_target + i (modulo the targets).  `what` names the pool in messages. */
kk_status_t threads_pool_create(threads_ctx_t *ctx, int nthreads, unsigned first_target, const char *what,
                                threads_pool_t **out);
/* Waits for the pool's running launch, then stops and joins its workers. */
void threads_pool_destroy(threads_pool_t *pool);

/* Claiming a pool: launches and parallel memory operations hold it, so that
 * application threads that share an instance take turns. */
kkh_exec_t *threads_pool_claim(threads_pool_t *pool);
void threads_pool_drop(threads_pool_t *pool);
/* Returns when the launch running on the pool, if any, has finished. */
void threads_pool_wait_idle(threads_pool_t *pool);
int threads_pool_size(const threads_pool_t *pool);

/* ---- threads_launch.c ------------------------------------------------------ */

kk_status_t threads_launch(void *ctx, void *inst, const kk_launch_t *launch);
/* The team sizes a launch on its instance (launch->instance) can use. */
kk_status_t threads_team_size_query(void *ctx, const kk_launch_t *launch, int32_t *max, int32_t *recommended);

/* Graphs (hostexec/host_graph.h on the instance's pool). */
kk_status_t threads_graph_create(void *ctx, const kk_graph_desc_t *desc, void **pgraph);
kk_status_t threads_graph_launch(void *ctx, void *inst, void *graph);
kk_status_t threads_graph_update(void *ctx, void *graph, uint32_t node, const kk_launch_t *launch);
kk_status_t threads_graph_destroy(void *ctx, void *graph);

/* ---- threads_instance.c ------------------------------------------------- */

/* The pool of `inst` (NULL: the default instance). */
static inline threads_pool_t *threads_pool_of(threads_ctx_t *ctx, void *inst) {
  return inst ? ((threads_instance_t *)inst)->pool : ctx->pool;
}

kk_status_t threads_instance_create(void *ctx, void **inst);
kk_status_t threads_instance_destroy(void *ctx, void *inst);
kk_status_t threads_instance_fence(void *ctx, void *inst);
kk_status_t threads_fence_all(void *ctx);

/* ---- threads_memory.c --------------------------------------------------- */
kk_status_t threads_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr);
kk_status_t threads_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                             size_t bytes);
kk_status_t threads_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes);
kk_status_t threads_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern,
                             size_t pattern_size, size_t count);
/* A copy between layouts (kkh_remap), on the pool when large. */
kk_status_t threads_mem_remap(void *ctx, void *inst, const kk_plugin_remap_t *r);

#endif
