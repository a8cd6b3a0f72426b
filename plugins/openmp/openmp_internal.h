/* plugins/openmp/openmp_internal.h -- the openmp backend's private types and the functions its files share (prefix openmp_). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_OPENMP_INTERNAL_H
#define KK_PLUGINS_OPENMP_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include <kk/plugin.h>

#include "host_common.h"
#include "host_exec.h"
#include "host_sync.h"

/* How long an application thread that finds a team claimed by another spins
 * before it sleeps. */
#define OPENMP_CLAIM_SPIN_NS ((uint64_t)50000)
#define OPENMP_MAX_THREADS 4096

typedef struct openmp_instance openmp_instance_t;

/* The executor of a team, used by whoever holds the team's claim. */
typedef struct openmp_exec {
  kkh_exec_t ex;  /* first: parallel() receives &exec->ex */
  int got;        /* set when a region got fewer threads than asked (and ran nothing) */
} openmp_exec_t;

/* What one launch at a time runs on: a thread count, an executor whose
 * slots and team scratch (ex.teams) persist between launches, and the claim
 * that makes application threads sharing it take turns. */
typedef struct openmp_team {
  openmp_exec_t exec;
  kkh_claim_t claim;
  int nthreads;
} openmp_team_t;

typedef struct openmp_ctx {
  const kk_host_services_t *hs;
  int nthreads;              /* the default instance's team */
  int instance_threads;      /* the team of each created instance */
  openmp_team_t *team;       /* the default instance, from device_open */
  atomic_int warned_short;   /* the "fewer threads than asked" warning was given */
  kkh_inst_list_t instances;  /* the created instances, for fence_all */
} openmp_ctx_t;

struct openmp_instance {
  kkh_inst_link_t link; /* first: the instance list holds these */
  openmp_team_t *team;
};

static inline openmp_team_t *openmp_team_of(openmp_ctx_t *ctx, void *inst) {
  return inst ? ((openmp_instance_t *)inst)->team : ctx->team;
}

/* ---- openmp_launch.c ---------------------------------------------------- */

kk_status_t openmp_team_create(openmp_ctx_t *ctx, int nthreads, const char *what, openmp_team_t **out);
void openmp_team_destroy(openmp_team_t *team);

/* Claims `team` and returns its executor, set up for this operation. */
openmp_exec_t *openmp_exec_begin(openmp_ctx_t *ctx, openmp_team_t *team);
/* After an operation ran on ox: 1 when its region got fewer threads than
 * asked, so it ran nothing and must run again (ox now asks for what the
 * runtime gave); 0 when it is done. */
int openmp_exec_retry(openmp_ctx_t *ctx, openmp_exec_t *ox);
void openmp_exec_end(openmp_team_t *team);

/* Runs one empty region of nthreads, so that the runtime starts the calling
 * thread's team before the first launch. */
void openmp_warm_up(int nthreads);

kk_status_t openmp_launch(void *ctx, void *inst, const kk_launch_t *launch);
/* The team sizes a launch on its instance (launch->instance) can use. */
kk_status_t openmp_team_size_query(void *ctx, const kk_launch_t *launch, int32_t *max, int32_t *recommended);

/* Graphs (hostexec/host_graph.h on the instance's team). */
kk_status_t openmp_graph_create(void *ctx, const kk_graph_desc_t *desc, void **pgraph);
kk_status_t openmp_graph_launch(void *ctx, void *inst, void *graph);
kk_status_t openmp_graph_update(void *ctx, void *graph, uint32_t node, const kk_launch_t *launch);
kk_status_t openmp_graph_destroy(void *ctx, void *graph);

/* ---- openmp_instance.c -------------------------------------------------- */
kk_status_t openmp_instance_create(void *ctx, void **inst);
kk_status_t openmp_instance_destroy(void *ctx, void *inst);
kk_status_t openmp_instance_fence(void *ctx, void *inst);
kk_status_t openmp_fence_all(void *ctx);

/* ---- openmp_memory.c ---------------------------------------------------- */
kk_status_t openmp_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr);
kk_status_t openmp_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                            size_t bytes);
kk_status_t openmp_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes);
kk_status_t openmp_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern, size_t pattern_size,
                            size_t count);
/* A copy between layouts (kkh_remap), in a parallel region when large. */
kk_status_t openmp_mem_remap(void *ctx, void *inst, const kk_plugin_remap_t *r);

#endif
