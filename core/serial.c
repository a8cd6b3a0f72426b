/* core/serial.c -- the serial backend, built into libkk: runs everything on the calling thread and always works. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "host_common.h"
#include "host_exec.h"
#include "host_graph.h"
#include "host_remap.h"
#include "serial.h"

/* An instance: a team of one (the calling thread) with its own cache of team
 * scratch; `busy` keeps two application threads from sharing the cache. */
typedef struct serial_inst {
  kkh_exec_t exec;
  atomic_flag busy;
} serial_inst_t;

typedef struct serial_ctx {
  const kk_host_services_t *hs;
  serial_inst_t def;     /* the default instance */
} serial_ctx_t;

/* The serial backend has one context per process, like any plugin. */
static serial_ctx_t g_serial;

static void serial_parallel(kkh_exec_t *ex, int n, kkh_task_fn task, void *arg) {
  (void)ex;
  (void)n; /* always 1 */
  task(0, 1, arg);
}

static void serial_barrier(kkh_exec_t *ex, int tid, int n) { (void)ex, (void)tid, (void)n; }

static void inst_init(serial_inst_t *si) {
  memset(&si->exec, 0, sizeof si->exec);
  si->exec.nthreads = 1;
  si->exec.parallel = serial_parallel;
  si->exec.barrier = serial_barrier;
  si->exec.slots = NULL; /* on the stack of each launch, see serial_launch */
  atomic_flag_clear(&si->busy);
}

static kk_status_t serial_init(const kk_host_services_t *hs, void **ctx) {
  g_serial.hs = hs;
  inst_init(&g_serial.def);
  *ctx = &g_serial;
  return KK_OK;
}

static void serial_finalize(void *ctx) {
  serial_ctx_t *c = ctx;
  kkh_exec_release(&c->def.exec);
}

/* Serial work runs synchronously on the calling thread, so the partial-value
 * slots live on its stack.  The team cache belongs to the instance; a second
 * application thread launching on the same instance at the same time gets a
 * cache of its own for that launch. */
static kk_status_t serial_launch(void *ctx, void *inst, const kk_launch_t *l) {
  serial_ctx_t *c = ctx;
  serial_inst_t *si = inst ? inst : &c->def;
  _Alignas(64) unsigned char slots[3 * KKH_SLOT_SIZE];
  if (!atomic_flag_test_and_set_explicit(&si->busy, memory_order_acquire)) {
    si->exec.slots = slots;
    kk_status_t st = kkh_launch(&si->exec, c->hs, l);
    si->exec.slots = NULL;
    atomic_flag_clear_explicit(&si->busy, memory_order_release);
    return st;
  }
  serial_inst_t own;
  inst_init(&own);
  own.exec.slots = slots;
  kk_status_t st = kkh_launch(&own.exec, c->hs, l);
  kkh_exec_release(&own.exec);
  return st;
}

/* Graphs run on the calling thread like everything serial: the nodes in
 * order, nothing between them. */
static kk_status_t serial_graph_create(void *ctx, const kk_graph_desc_t *desc, void **pgraph) {
  return kkh_graph_create(((serial_ctx_t *)ctx)->hs, desc, 1, (kkh_graph_t **)pgraph);
}

static kk_status_t serial_graph_launch(void *ctx, void *inst, void *graph) {
  serial_ctx_t *c = ctx;
  serial_inst_t *si = inst ? inst : &c->def;
  return kkh_graph_run(&si->exec, c->hs, graph);
}

static kk_status_t serial_graph_update(void *ctx, void *graph, uint32_t node, const kk_launch_t *launch) {
  return kkh_graph_update(((serial_ctx_t *)ctx)->hs, graph, node, launch);
}

static kk_status_t serial_graph_destroy(void *ctx, void *graph) {
  (void)ctx;
  kkh_graph_destroy(graph);
  return KK_OK;
}

static int32_t serial_device_count(void *ctx, const char **why_none) {
  (void)ctx;
  (void)why_none;
  return 1;
}

static kk_status_t serial_device_props(void *ctx, int32_t dev, kk_plugin_device_t *props) {
  (void)ctx;
  (void)dev;
  kkh_host_device_props(props, 1, 1);
  return KK_OK;
}

static kk_status_t serial_device_open(void *ctx, int32_t dev) {
  (void)ctx;
  (void)dev;
  return KK_OK;
}

static int32_t serial_space_count(void *ctx) {
  (void)ctx;
  return 1;
}

static kk_status_t serial_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr) {
  (void)space;
  return kkh_mem_alloc(((serial_ctx_t *)ctx)->hs, bytes, ptr);
}

static kk_status_t serial_mem_free(void *ctx, int32_t space, void *ptr) {
  (void)ctx;
  (void)space;
  kkh_mem_free(ptr);
  return KK_OK;
}

/* Everything serial is synchronous, so the instance is only a token. */
static kk_status_t serial_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src,
                                   int32_t src_space, size_t bytes) {
  (void)ctx, (void)inst, (void)dst_space, (void)src_space;
  memmove(dst, src, bytes);
  return KK_OK;
}

static kk_status_t serial_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes) {
  (void)ctx, (void)inst, (void)space;
  memset(dst, value, bytes);
  return KK_OK;
}

static kk_status_t serial_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern,
                                   size_t pattern_size, size_t count) {
  (void)ctx, (void)inst, (void)space;
  kkh_mem_fill(dst, pattern, pattern_size, count);
  return KK_OK;
}

/* One thread: the tiled copy, on the calling thread. */
static kk_status_t serial_mem_remap(void *ctx, void *inst, const kk_plugin_remap_t *r) {
  (void)ctx, (void)inst;
  kkh_remap(NULL, r);
  return KK_OK;
}

static kk_status_t serial_instance_create(void *ctx, void **inst) {
  serial_ctx_t *c = ctx;
  serial_inst_t *si = malloc(sizeof *si);
  if (!si)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "instance_create: out of memory");
  inst_init(si);
  *inst = si;
  return KK_OK;
}

static kk_status_t serial_instance_destroy(void *ctx, void *inst) {
  (void)ctx;
  kkh_exec_release(&((serial_inst_t *)inst)->exec);
  free(inst);
  return KK_OK;
}

static kk_status_t serial_instance_fence(void *ctx, void *inst) {
  (void)ctx, (void)inst;
  return KK_OK;
}

static kk_status_t serial_fence_all(void *ctx) {
  (void)ctx;
  return KK_OK;
}

static const kk_plugin_ops_t serial_ops = {
    .struct_size = sizeof(kk_plugin_ops_t),
    .abi_version = KK_PLUGIN_ABI_VERSION,
    .name = "serial",
    .priority = 10,
    .flags = KK_PLUGIN_FLAG_HOST,
    .tools_device_type = KK_TOOLS_DEVICE_SERIAL,
    .init = serial_init,
    .finalize = serial_finalize,
    .device_count = serial_device_count,
    .device_props = serial_device_props,
    .device_open = serial_device_open,
    .space_count = serial_space_count,
    .space_props = kkh_space_props,
    .mem_alloc = serial_mem_alloc,
    .mem_free = serial_mem_free,
    .mem_copy = serial_mem_copy,
    .mem_set = serial_mem_set,
    .instance_create = serial_instance_create,
    .instance_destroy = serial_instance_destroy,
    .instance_fence = serial_instance_fence,
    .fence_all = serial_fence_all,
    .mem_fill = serial_mem_fill,
    .launch = serial_launch,
    .graph_create = serial_graph_create,
    .graph_launch = serial_graph_launch,
    .graph_update = serial_graph_update,
    .graph_destroy = serial_graph_destroy,
    .mem_remap = serial_mem_remap,
};

const kk_plugin_ops_t *kk__serial_entry(uint32_t core_abi, const kk_host_services_t *hs) {
  (void)core_abi;
  (void)hs;
  return &serial_ops;
}
