/* core/graph.c -- graphs: nodes added explicitly or recorded from an instance, instantiated once, submitted many times. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "graph.h"
#include "handles.h"
#include "launch.h"
#include "space.h"
#include "state.h"
#include "status.h"
#include "tools.h"
#include "view.h"

/* The graphs and the table of their handles. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static kk__graph_t *g_graphs;

/* ---- handles ---------------------------------------------------------------------------------
 *
 * A kk_graph_t * the program holds is a number: a slot of the table below
 * and the serial number the slot was given for this graph.  Destroying the
 * graph (kk_graph_destroy, kk_finalize) frees its state and clears the
 * slot's serial, so that the old handle, used again, is refused without
 * any read of freed memory -- also after a new graph took the slot, which
 * gets a new serial.  The table costs 24 bytes per slot, as many slots as
 * graphs were alive at once (in chunks of 256, kept for the process's life);
 * a lookup is two loads and a compare, without a lock. */
#define SLOT_BITS (sizeof(uintptr_t) >= 8 ? 20u : 12u)
#define SLOT_CHUNK 256u
#define SLOT_CHUNKS ((1u << 20) / SLOT_CHUNK)

typedef struct slot {
  _Atomic uint64_t serial;  /* the live graph's serial, 0 while free */
  kk__graph_t *graph;
  uint32_t next_free;
} slot_t;

static _Atomic(slot_t *) g_chunks[SLOT_CHUNKS];
static uint32_t g_slot_top;          /* slots handed out so far (slot 0 is never used) */
static uint32_t g_slot_free;         /* a free slot, 0: none (under g_lock, as all below) */
static uint64_t g_serial;            /* the last serial given */
static uint64_t g_gen_first_serial;  /* the first serial given in generation g_serial_gen */
static uintptr_t g_serial_gen;

static uintptr_t serial_mask(void) {
  return sizeof(uintptr_t) >= 8 ? (uintptr_t)-1 >> SLOT_BITS : ((uintptr_t)1 << (32 - SLOT_BITS)) - 1;
}

static slot_t *slot_at(uint32_t i) {
  slot_t *c = atomic_load_explicit(&g_chunks[i / SLOT_CHUNK], memory_order_acquire);
  return c ? &c[i % SLOT_CHUNK] : NULL;
}

/* Gives g a slot and its handle; false when out of memory or slots. */
static bool handle_new(kk__graph_t *g) {
  pthread_mutex_lock(&g_lock);
  uint32_t i = g_slot_free;
  slot_t *sl = i ? slot_at(i) : NULL;
  if (sl)
    g_slot_free = sl->next_free;
  else if (g_slot_top + 1 < (1u << SLOT_BITS) && g_slot_top + 1 < SLOT_CHUNKS * SLOT_CHUNK) {
    i = g_slot_top + 1;
    if (!slot_at(i)) {
      slot_t *c = calloc(SLOT_CHUNK, sizeof *c);
      if (c)
        atomic_store_explicit(&g_chunks[i / SLOT_CHUNK], c, memory_order_release);
    }
    if ((sl = slot_at(i)) != NULL)
      g_slot_top = i;
  }
  if (!sl) {
    pthread_mutex_unlock(&g_lock);
    return false;
  }
  if (++g_serial > serial_mask()) /* wraps only where pointers have 32 bits, after a million graphs */
    g_serial = 1;
  if (g_serial_gen != kk__generation_now()) {
    g_serial_gen = kk__generation_now();
    g_gen_first_serial = g_serial;
  }
  sl->graph = g;
  atomic_store_explicit(&sl->serial, g_serial, memory_order_release);
  g->handle = (kk_graph_t *)(((uintptr_t)g_serial << SLOT_BITS) | i);
  pthread_mutex_unlock(&g_lock);
  return true;
}

/* Invalidates g's handle and frees its slot (g_lock held). */
static void handle_free(kk__graph_t *g) {
  if (!g->handle)
    return;
  uint32_t i = (uint32_t)((uintptr_t)g->handle & ((1u << SLOT_BITS) - 1));
  slot_t *sl = slot_at(i);
  atomic_store_explicit(&sl->serial, 0, memory_order_release);
  sl->graph = NULL;
  sl->next_free = g_slot_free;
  g_slot_free = i;
  g->handle = NULL;
}

/* The graph a handle names, or NULL when it names none (any more). */
static inline kk__graph_t *graph_of(const kk_graph_t *h) {
  const uintptr_t v = (uintptr_t)h;
  const uint32_t i = (uint32_t)(v & ((1u << SLOT_BITS) - 1));
  const uint64_t serial = v >> SLOT_BITS;
  slot_t *sl = i && serial ? slot_at(i) : NULL;
  if (KK__UNLIKELY(!sl || atomic_load_explicit(&sl->serial, memory_order_acquire) != serial))
    return NULL;
  return sl->graph;
}

/* Was handle h (naming no graph) made in an earlier initialization? */
static bool handle_before_finalize(const kk_graph_t *h) {
  const uint64_t serial = (uintptr_t)h >> SLOT_BITS;
  pthread_mutex_lock(&g_lock);
  bool before = g_serial_gen != kk__generation_now() || serial < g_gen_first_serial;
  pthread_mutex_unlock(&g_lock);
  return before;
}

/* Why handle h names no graph: NULL, made before kk_finalize, or destroyed. */
static kk_status_t handle_refused(const char *op, const kk_graph_t *h) {
  if (!h)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: graph is NULL", op);
  if (handle_before_finalize(h))
    return kk__stale_error(op, "the graph", NULL);
  return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: the graph was destroyed (kk_graph_destroy): its handle is invalid",
                   op);
}

/* The graph of h for op, or NULL with the error set. */
static kk__graph_t *graph_get(const char *op, const kk_graph_t *h) {
  kk__graph_t *g = graph_of(h);
  if (KK__UNLIKELY(!g))
    handle_refused(op, h);
  return g;
}

static bool has_graph_ops(const kk__backend_t *b) {
  return KK_PLUGIN_HAS(&b->ops, graph_create) && KK_PLUGIN_HAS(&b->ops, graph_launch) &&
         KK_PLUGIN_HAS(&b->ops, graph_destroy);
}

/* ---- graphs ------------------------------------------------------------------------------------- */

static kk_status_t graph_new(const char *op, kk__backend_t *b, kk__graph_t **out) {
  kk__graph_t *g = calloc(1, sizeof *g);
  if (!g || !handle_new(g)) {
    free(g);
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory for a graph or its handle", op);
  }
  g->backend = b;
  g->rec.backend = b;
  g->rec.gen = kk__generation_now();
  g->cap_rec.graph = g;
  g->cap_rec.instance = &g->rec;
  g->cap_rec.is_explicit = true;
  atomic_init(&g->rec.capture, &g->cap_rec);
  g->cap.graph = g;
  atomic_flag_clear(&g->busy);
  pthread_mutex_init(&g->lock, NULL);
  pthread_mutex_lock(&g_lock);
  g->next = g_graphs;
  if (g_graphs)
    g_graphs->prev = g;
  g_graphs = g;
  pthread_mutex_unlock(&g_lock);
  *out = g;
  return KK_OK;
}

static void graph_free(kk__graph_t *g) {
  pthread_mutex_lock(&g_lock);
  handle_free(g);
  pthread_mutex_unlock(&g_lock);
  kk__backend_t *b = g->backend;
  if (g->pgraph)
    b->ops.graph_destroy(b->ctx, g->pgraph);
  for (uint32_t i = 0; i < g->op_count; i++)
    free(g->ops[i].args);
  for (uint32_t i = 0; i < g->node_count; i++)
    kk__node_free(g->nodes[i]);
  free(g->nodes);
  free(g->ops);
  free(g->descs);
  free(g->dep_store);
  pthread_mutex_destroy(&g->lock);
  free(g);
}

/* Unlinks g from the list of graphs (g_lock held). */
static void graph_unlink(kk__graph_t *g) {
  if (g->prev)
    g->prev->next = g->next;
  else
    g_graphs = g->next;
  if (g->next)
    g->next->prev = g->prev;
}

kk_status_t kk_graph_create(kk_instance_t *instance, kk_graph_t **out) {
  KK__REQUIRE_INIT("kk_graph_create");
  if (!out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_graph_create: out must not be NULL");
  *out = NULL;
  if (instance && kk__stale(instance->gen))
    return kk__stale_error("kk_graph_create", "the instance", NULL);
  kk__graph_t *g;
  kk_status_t st = graph_new("kk_graph_create", instance ? instance->backend : kk__g.def, &g);
  if (st == KK_OK)
    *out = g->handle;
  return st;
}

/* Waits for what g's backend may still run (a graph submitted and not yet
 * fenced), reported to a tool as a fence of the backend. */
static void fence_backend(kk__backend_t *b, const char *name) {
  uint64_t h = 0;
  bool traced = KK__UNLIKELY(kk__tools.active);
  if (traced)
    kk__tools_begin_fence(name, kk__tools_device_id(b, KK__TOOLS_INSTANCE_GLOBAL), &h);
  kk_status_t st = b->ops.fence_all(b->ctx);
  if (traced)
    kk__tools_end_fence(h);
  if (st != KK_OK)
    kk__debug("%s: the fence of backend %s failed (%s): destroying the graph anyway", name, b->name,
              kk_last_error());
}

kk_status_t kk_graph_destroy(kk_graph_t *h) {
  if (!h)
    return KK_OK;
  kk__graph_t *g = graph_of(h);
  if (!g) /* one kk_finalize destroyed has nothing left to free */
    return handle_before_finalize(h) ? KK_OK : handle_refused("kk_graph_destroy", h);
  KK__REQUIRE_INIT("kk_graph_destroy");
  if (atomic_flag_test_and_set_explicit(&g->busy, memory_order_acquire))
    return kk__error(KK_ERROR_IN_USE, "kk_graph_destroy: another thread submits or updates the graph");
  if (g->submitted)
    fence_backend(g->backend, "kk_graph_destroy: fence before destroying the graph");
  pthread_mutex_lock(&g_lock);
  graph_unlink(g);
  pthread_mutex_unlock(&g_lock);
  graph_free(g);
  return KK_OK;
}

void kk__graphs_release_all(void) {
  kk__captures_end_all();
  pthread_mutex_lock(&g_lock);
  kk__graph_t *all = g_graphs;
  g_graphs = NULL;
  pthread_mutex_unlock(&g_lock);
  bool fenced = false;
  while (all) {
    kk__graph_t *g = all;
    all = g->next;
    if (g->submitted && !fenced) {
      kk__fence_all("kk_finalize: fence before destroying the graphs");
      fenced = true;
    }
    kk__debug("kk_finalize: destroying a graph the program did not destroy");
    graph_free(g);
  }
}

/* ---- explicit nodes -------------------------------------------------------------------------- */

/* Checks an explicit add to the graph of h and starts it: a->graph is the graph. */
static kk_status_t add_begin(const char *op, const kk_graph_t *h, kk_graph_node_t *const *deps, int ndeps,
                             uint32_t empty, kk__add_t *a) {
  KK__REQUIRE_INIT(op);
  kk__graph_t *g = graph_get(op, h);
  if (!g)
    return kk_last_status();
  if (g->instantiated)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: the graph is instantiated: it takes no more nodes", op);
  if (ndeps < 0 || (ndeps > 0 && !deps))
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: %d dependencies at %p", op, ndeps, (const void *)deps);
  for (int i = 0; i < ndeps; i++)
    if (!deps[i] || deps[i]->graph != g)
      return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: dependency %d is %s", op, i,
                       deps[i] ? "a node of another graph" : "NULL");
  memset(a, 0, sizeof *a);
  a->graph = g;
  a->deps = deps;
  a->ndeps = ndeps;
  a->empty_kind = empty;
  return KK_OK;
}

/* After the ordinary call `st`: the node it recorded (or an empty one, for
 * a call that had nothing to do) into *out. */
static kk_status_t add_end(const char *op, kk__add_t *a, kk_status_t st, kk_graph_node_t **out) {
  kk__graph_add_set(NULL);
  if (st != KK_OK)
    return kk__error(st, "%s: %s", op, kk_last_error());
  if (!a->node) {
    pthread_mutex_lock(&a->graph->lock);
    st = kk__node_new(a->graph, &a->graph->cap_rec, a, a->empty_kind, kind_label(a->empty_kind), &a->node);
    pthread_mutex_unlock(&a->graph->lock);
    if (st != KK_OK)
      return st;
  }
  if (out)
    *out = a->node;
  return KK_OK;
}

/* A reduction's result view (or a scan's total): one value, in a space the
 * graph's backend writes. */
static kk_status_t result_view(const char *op, kk__graph_t *g, const kk_kernel_t *k, kk_view_t *v, bool required,
                               kk__add_t *a) {
  if (!v) {
    if (!required)
      return KK_OK;
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "%s: the result view is NULL: a graph runs asynchronously, so a reduction in it leaves its value "
                     "in a view, never in a host variable",
                     op);
  }
  if (kk__view_check(op, v) != KK_OK)
    return kk_last_status();
  size_t bytes = kk_view_span(v) * kk_view_elem_size(v);
  if (k && k->reducer && bytes != k->reducer->value_size)
    return kk__error(KK_ERROR_KERNEL_MISMATCH, "%s: kernel '%s' reduces a %u-byte value, the result view '%s' has %zu bytes",
                     op, k->name, k->reducer->value_size, kk_view_label(v), bytes);
  kk_space_t *space = kk_view_space(v);
  kk__backend_t *b = g->backend;
  if (space->backend == b)
    a->result_space = space->index;
  else if ((b->ops.flags & KK_PLUGIN_FLAG_HOST) && kk_space_host_accessible(space))
    a->result_space = KK_PLUGIN_HOST_MEMORY;
  else
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: backend %s cannot write the result view '%s' in space %s", op,
                     b->name, kk_view_label(v), space->name);
  a->result = v;
  return KK_OK;
}

typedef union policy_copy {
  kk_range_policy_t range;
  kk_md_policy_t md;
  kk_team_policy_t team;
} policy_copy_t;

/* Records a kernel node: builds the launch `call` (core/launch.c) with a
 * copy of the policy that names the graph's recording instance, and
 * records it.  A policy the launch refuses anyway (NULL, too small) is
 * passed on as it is, so that the refusal is the launch's; one on another
 * backend's instance is refused here. */
static kk_status_t add_kernel(const char *op, kk__call_t call, kk_graph_t *h, const char *label, const void *policy,
                              const kk_kernel_t *k, const void *args, size_t args_size, kk_view_t *result,
                              kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out) {
  kk__add_t a;
  kk_status_t st = add_begin(op, h, deps, ndeps, KK__NODE_KERNEL, &a);
  if (st != KK_OK)
    return st;
  kk__graph_t *g = a.graph;
  if (call != KK__CALL_FOR && call != KK__CALL_FOR_MD && call != KK__CALL_FOR_TEAM)
    st = result_view(op, g, k, result, call != KK__CALL_SCAN, &a);
  const size_t psize = call == KK__CALL_FOR_MD || call == KK__CALL_REDUCE_MD       ? sizeof(kk_md_policy_t)
                       : call == KK__CALL_FOR_TEAM || call == KK__CALL_REDUCE_TEAM ? sizeof(kk_team_policy_t)
                                                                                   : sizeof(kk_range_policy_t);
  policy_copy_t p;
  const void *use = policy;
  if (st == KK_OK && policy && *(const size_t *)policy >= psize) {
    memcpy(&p, policy, psize);
    kk_instance_t **pi = psize == sizeof(kk_md_policy_t)     ? &p.md.instance
                         : psize == sizeof(kk_team_policy_t) ? &p.team.instance
                                                             : &p.range.instance;
    if (*pi && kk__stale((*pi)->gen))
      st = kk__stale_error(op, "the policy's instance", NULL);
    else if (*pi && (*pi)->backend != g->backend)
      st = kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: the policy's instance belongs to backend %s, the graph to backend %s",
                     op, (*pi)->backend->name, g->backend->name);
    *(size_t *)(void *)&p = psize;
    *pi = &g->rec;
    use = &p;
  }
  if (st != KK_OK)
    return st;
  void *rdata = result ? kk_view_data(result) : NULL;
  const size_t rsize = result && k && k->reducer ? k->reducer->value_size : 0;
  kk__launch_t L;
  const char *name = kk__call_name(call);
  if ((st = kk__launch_build(&L, name, call, label, use, k, args, args_size, rdata, rsize)) == KK_OK) {
    kk__tools_tune_end(L.tune); /* the node is recorded, not run */
    pthread_mutex_lock(&g->lock);
    if (g->instantiated)
      st = kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': the graph was instantiated while the node was added", name,
                     L.l.label);
    else
      st = kk__record_kernel(name, g, &g->cap_rec, &a, &L.l);
    pthread_mutex_unlock(&g->lock);
  }
  return add_end(op, &a, st, out);
}

kk_status_t kk_graph_add_for(kk_graph_t *g, const char *label, const kk_range_policy_t *policy,
                             const kk_kernel_t *kernel, const void *args, size_t args_size,
                             kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out) {
  return add_kernel("kk_graph_add_for", KK__CALL_FOR, g, label, policy, kernel, args, args_size, NULL, deps, ndeps, out);
}

kk_status_t kk_graph_add_for_md(kk_graph_t *g, const char *label, const kk_md_policy_t *policy,
                                const kk_kernel_t *kernel, const void *args, size_t args_size,
                                kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out) {
  return add_kernel("kk_graph_add_for_md", KK__CALL_FOR_MD, g, label, policy, kernel, args, args_size, NULL, deps, ndeps,
                    out);
}

kk_status_t kk_graph_add_for_team(kk_graph_t *g, const char *label, const kk_team_policy_t *policy,
                                  const kk_kernel_t *kernel, const void *args, size_t args_size,
                                  kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out) {
  return add_kernel("kk_graph_add_for_team", KK__CALL_FOR_TEAM, g, label, policy, kernel, args, args_size, NULL, deps,
                    ndeps, out);
}

kk_status_t kk_graph_add_reduce(kk_graph_t *g, const char *label, const kk_range_policy_t *policy,
                                const kk_kernel_t *kernel, const void *args, size_t args_size, kk_view_t *result,
                                kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out) {
  return add_kernel("kk_graph_add_reduce", KK__CALL_REDUCE, g, label, policy, kernel, args, args_size, result, deps, ndeps,
                    out);
}

kk_status_t kk_graph_add_reduce_md(kk_graph_t *g, const char *label, const kk_md_policy_t *policy,
                                   const kk_kernel_t *kernel, const void *args, size_t args_size, kk_view_t *result,
                                   kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out) {
  return add_kernel("kk_graph_add_reduce_md", KK__CALL_REDUCE_MD, g, label, policy, kernel, args, args_size, result, deps,
                    ndeps, out);
}

kk_status_t kk_graph_add_reduce_team(kk_graph_t *g, const char *label, const kk_team_policy_t *policy,
                                     const kk_kernel_t *kernel, const void *args, size_t args_size,
                                     kk_view_t *result, kk_graph_node_t *const *deps, int ndeps,
                                     kk_graph_node_t **out) {
  return add_kernel("kk_graph_add_reduce_team", KK__CALL_REDUCE_TEAM, g, label, policy, kernel, args, args_size, result,
                    deps, ndeps, out);
}

kk_status_t kk_graph_add_scan(kk_graph_t *g, const char *label, const kk_range_policy_t *policy,
                              const kk_kernel_t *kernel, const void *args, size_t args_size, kk_view_t *total,
                              kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out) {
  return add_kernel("kk_graph_add_scan", KK__CALL_SCAN, g, label, policy, kernel, args, args_size, total, deps, ndeps, out);
}

kk_status_t kk_graph_add_copy(kk_graph_t *g, kk_view_t *dst, kk_view_t *src, kk_graph_node_t *const *deps,
                              int ndeps, kk_graph_node_t **out) {
  kk__add_t a;
  kk_status_t st = add_begin("kk_graph_add_copy", g, deps, ndeps, KK__NODE_COPY, &a);
  if (st != KK_OK)
    return st;
  kk__graph_add_set(&a);
  return add_end("kk_graph_add_copy", &a, kk_deep_copy_async(&a.graph->rec, dst, src), out);
}

kk_status_t kk_graph_add_fill(kk_graph_t *g, kk_view_t *dst, const void *value, kk_graph_node_t *const *deps,
                              int ndeps, kk_graph_node_t **out) {
  kk__add_t a;
  kk_status_t st = add_begin("kk_graph_add_fill", g, deps, ndeps, KK__NODE_FILL, &a);
  if (st != KK_OK)
    return st;
  kk__graph_add_set(&a);
  return add_end("kk_graph_add_fill", &a, kk_deep_copy_fill_async(&a.graph->rec, dst, value), out);
}

kk_status_t kk_graph_add_empty(kk_graph_t *g, kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out) {
  kk__add_t a;
  kk_status_t st = add_begin("kk_graph_add_empty", g, deps, ndeps, KK__NODE_EMPTY, &a);
  if (st != KK_OK)
    return st;
  return add_end("kk_graph_add_empty", &a, KK_OK, out);
}

/* A destroyed graph's handle (or one from before kk_finalize) has no nodes. */
int kk_graph_node_count(const kk_graph_t *h) {
  const kk__graph_t *g = graph_of(h);
  return g ? (int)g->node_count : 0;
}

kk_graph_node_t *kk_graph_node_at(const kk_graph_t *h, int i) {
  const kk__graph_t *g = graph_of(h);
  return g && i >= 0 && (uint32_t)i < g->node_count ? g->nodes[i] : NULL;
}

const char *kk_graph_node_label(const kk_graph_node_t *n) { return n ? n->label : NULL; }

/* ---- capture ------------------------------------------------------------------------------------ */

kk_status_t kk_graph_begin_capture(kk_instance_t *inst) {
  KK__REQUIRE_INIT("kk_graph_begin_capture");
  if (inst && kk__stale(inst->gen))
    return kk__stale_error("kk_graph_begin_capture", "the instance", NULL);
  if (!inst)
    inst = kk__g.def->default_instance;
  kk__graph_t *g;
  kk_status_t st = graph_new("kk_graph_begin_capture", inst->backend, &g);
  if (st != KK_OK)
    return st;
  struct kk__capture *cap = &g->cap;
  cap->instance = inst;
  cap->thread = pthread_self();
  if (!kk__capture_begin(cap)) {
    pthread_mutex_lock(&g_lock);
    graph_unlink(g);
    pthread_mutex_unlock(&g_lock);
    graph_free(g);
    return kk__error(KK_ERROR_CAPTURE, "kk_graph_begin_capture: the instance (backend %s) is capturing already",
                     inst->backend->name);
  }
  return KK_OK;
}

kk_status_t kk_graph_end_capture(kk_instance_t *inst, kk_graph_t **out) {
  KK__REQUIRE_INIT("kk_graph_end_capture");
  if (!out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_graph_end_capture: out must not be NULL");
  *out = NULL;
  if (inst && kk__stale(inst->gen))
    return kk__stale_error("kk_graph_end_capture", "the instance", NULL);
  if (!inst)
    inst = kk__g.def->default_instance;
  kk__graph_t *g = kk__capture_end(inst);
  if (!g)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_graph_end_capture: the instance (backend %s) is not capturing",
                     inst->backend->name);
  *out = g->handle;
  return KK_OK;
}

/* ---- instantiation ------------------------------------------------------------------------------ */

/* A growable array of op indices. */
typedef struct idx_vec {
  uint32_t *v;
  size_t n, cap;
} idx_vec_t;

static bool idx_push(idx_vec_t *x, uint32_t i) {
  if (x->n == x->cap) {
    size_t c = x->cap ? 2 * x->cap : 64;
    uint32_t *nv = realloc(x->v, sizeof *nv * c);
    if (!nv)
      return false;
    x->v = nv;
    x->cap = c;
  }
  x->v[x->n++] = i;
  return true;
}

/* The plugin's view of g: an op depends on the ops its node's dependencies
 * end with -- their own ops, or for a node without ops (an empty node, a
 * copy of nothing) the ops its own dependencies end with -- each once. */
static kk_status_t build_descs(kk__graph_t *g) {
  const uint32_t nn = g->node_count, no = g->op_count;
  size_t *exit_at = malloc(sizeof *exit_at * (nn + 1)), *dep_at = malloc(sizeof *dep_at * (nn + 1));
  uint32_t *mark = calloc(no ? no : 1, sizeof *mark);
  idx_vec_t exits = {0}, deps = {0};
  kk_graph_node_desc_t *d = calloc(no ? no : 1, sizeof *d);
  bool ok = exit_at && dep_at && mark && d;
  for (uint32_t i = 0; ok && i < nn; i++) {
    const kk_graph_node_t *n = g->nodes[i];
    const uint32_t stamp = i + 1;
    dep_at[i] = deps.n;
    for (uint32_t k = 0; ok && k < n->ndeps; k++) {
      const uint32_t dn = n->deps[k];
      for (size_t e = exit_at[dn]; ok && e < exit_at[dn + 1]; e++)
        if (mark[exits.v[e]] != stamp) {
          mark[exits.v[e]] = stamp;
          ok = idx_push(&deps, exits.v[e]);
        }
    }
    exit_at[i] = exits.n;
    if (n->op_count)
      for (uint32_t k = 0; ok && k < n->op_count; k++)
        ok = idx_push(&exits, n->first_op + k);
    else
      for (size_t e = dep_at[i]; ok && e < deps.n; e++)
        ok = idx_push(&exits, deps.v[e]);
    exit_at[i + 1] = exits.n;
    dep_at[i + 1] = deps.n;
  }
  if (!ok) {
    free(exit_at), free(dep_at), free(mark), free(d), free(exits.v), free(deps.v);
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk_graph_instantiate: out of memory for %u nodes", nn);
  }
  for (uint32_t k = 0; k < no; k++) {
    const kk__op_t *o = &g->ops[k];
    kk_graph_node_desc_t *x = &d[k];
    x->struct_size = sizeof *x;
    x->kind = o->kind;
    x->dep_count = (uint32_t)(dep_at[o->node + 1] - dep_at[o->node]);
    x->deps = x->dep_count ? deps.v + dep_at[o->node] : NULL;
    x->launch = o->kind == KK_GRAPH_NODE_KERNEL ? &o->launch : NULL;
    x->dst = o->dst;
    x->dst_space = o->dst_space;
    x->src = o->src;
    x->src_space = o->src_space;
    x->bytes = o->bytes;
    x->count = o->count;
    x->pattern_size = o->pattern_size;
    memcpy(x->pattern, o->pattern, sizeof x->pattern);
  }
  free(exit_at), free(dep_at), free(mark), free(exits.v);
  g->descs = d;
  g->dep_store = deps.v;
  return KK_OK;
}

/* Builds the backend's graph; KK_ERROR_UNSUPPORTED from it leaves pgraph
 * NULL (replay) without an error. */
static kk_status_t create_native(const char *op, kk__graph_t *g) {
  kk__backend_t *b = g->backend;
  g->pgraph = NULL;
  if (!g->op_count || !has_graph_ops(b))
    return KK_OK;
  for (uint32_t k = 0; k < g->op_count; k++)
    if (g->ops[k].kind == KK__OP_REMAP) {
      kk__debug("%s: node %u ('%s') copies between layouts, which backend %s's graphs cannot express; kk replays "
                "the graph's %u nodes",
                op, g->ops[k].node, g->nodes[g->ops[k].node]->label, b->name, g->node_count);
      return KK_OK;
    }
  kk_graph_desc_t desc = {sizeof desc, g->op_count, g->descs};
  kk_clear_error();
  kk_status_t st = b->ops.graph_create(b->ctx, &desc, &g->pgraph);
  if (st == KK_OK)
    return KK_OK;
  g->pgraph = NULL;
  if (st == KK_ERROR_UNSUPPORTED) {
    kk__debug("%s: backend %s cannot run this graph itself (%s); kk replays its %u nodes", op, b->name,
              kk_last_error(), g->node_count);
    kk_clear_error();
    return KK_OK;
  }
  return kk__error(st, "%s: backend %s: %s", op, b->name, kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
}

/* Instantiates g, whose busy flag the caller holds. */
static kk_status_t instantiate(const char *op, kk__graph_t *g) {
  if (g->instantiated)
    return KK_OK;
  kk_status_t st = build_descs(g);
  if (st == KK_OK && (st = create_native(op, g)) != KK_OK) {
    free(g->descs), free(g->dep_store);
    g->descs = NULL, g->dep_store = NULL;
  }
  if (st == KK_OK)
    g->instantiated = true;
  return st;
}

kk_status_t kk_graph_instantiate(kk_graph_t *h) {
  KK__REQUIRE_INIT("kk_graph_instantiate");
  kk__graph_t *g = graph_get("kk_graph_instantiate", h);
  if (!g)
    return kk_last_status();
  if (atomic_flag_test_and_set_explicit(&g->busy, memory_order_acquire))
    return kk__error(KK_ERROR_IN_USE, "kk_graph_instantiate: another thread submits or updates the graph");
  kk_status_t st = instantiate("kk_graph_instantiate", g);
  atomic_flag_clear_explicit(&g->busy, memory_order_release);
  return st;
}

int kk_graph_native(const kk_graph_t *h) {
  const kk__graph_t *g = graph_of(h);
  return g && g->instantiated && g->pgraph ? 1 : 0;
}

/* ---- submission ------------------------------------------------------------------------------------ */

/* A fill on a backend without mem_fill (a plugin older than ABI 1.0's
 * optional member): wait for the work before it, then write from the host,
 * directly or through a staging buffer. */
static kk_status_t fill_without_plugin(kk__backend_t *b, kk_instance_t *inst, const kk__op_t *o) {
  kk_status_t st = b->ops.instance_fence(b->ctx, inst->plugin_inst);
  if (st != KK_OK)
    return st;
  const size_t e = o->pattern_size;
  if (o->dst_space == KK_PLUGIN_HOST_MEMORY || (b->spaces[o->dst_space].flags & KK_SPACE_HOST_ACCESSIBLE)) {
    for (size_t i = 0; i < o->count; i++)
      memcpy((char *)o->dst + i * e, o->pattern, e);
    return KK_OK;
  }
  size_t per = o->count < 65536 ? o->count : 65536;
  char *buf = malloc(per * e);
  if (!buf)
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "fill: no host staging buffer");
  for (size_t i = 0; i < per; i++)
    memcpy(buf + i * e, o->pattern, e);
  for (size_t done = 0; done < o->count && st == KK_OK; done += per) {
    size_t k = o->count - done < per ? o->count - done : per;
    st = b->ops.mem_copy(b->ctx, NULL, (char *)o->dst + done * e, o->dst_space, buf, KK_PLUGIN_HOST_MEMORY, k * e);
  }
  free(buf);
  return st;
}

static inline kk_status_t run_op(kk__backend_t *b, kk_instance_t *inst, const kk__op_t *o) {
  switch (o->kind) {
  case KK_GRAPH_NODE_KERNEL:
    return kk__launch_call(b, inst, &o->launch);
  case KK_GRAPH_NODE_COPY:
    return b->ops.mem_copy(b->ctx, inst->plugin_inst, o->dst, o->dst_space, o->src, o->src_space, o->bytes);
  case KK__OP_REMAP:
    return kk__view_remap(inst, o->vdst, o->vsrc);
  default:
    if (o->dst_space >= 0 && KK_PLUGIN_HAS(&b->ops, mem_fill))
      return b->ops.mem_fill(b->ctx, inst->plugin_inst, o->dst, o->dst_space, o->pattern, o->pattern_size, o->count);
    return fill_without_plugin(b, inst, o);
  }
}

static kk_status_t node_failed(const kk__graph_t *g, uint32_t node, kk_status_t st) {
  const kk_graph_node_t *n = g->nodes[node];
  return kk__error(st, "kk_graph_submit: node %u ('%s') on backend %s failed: %s", node, n->label, g->backend->name,
                   kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
}

/* The replay: every op in order on the instance, which keeps them in order. */
static kk_status_t replay(kk__graph_t *g, kk_instance_t *inst, uint32_t first, uint32_t count) {
  kk__backend_t *b = g->backend;
  for (uint32_t i = first; i < first + count; i++) {
    kk_status_t st = run_op(b, inst, &g->ops[i]);
    if (KK__UNLIKELY(st != KK_OK))
      return node_failed(g, g->ops[i].node, st);
  }
  return KK_OK;
}

typedef struct node_run {
  kk__graph_t *g;
  kk_instance_t *inst;
  const kk_graph_node_t *n;
} node_run_t;

static kk_status_t replay_node(void *p) {
  node_run_t *r = p;
  return replay(r->g, r->inst, r->n->first_op, r->n->op_count);
}

/* With a tool: node by node, each kernel between its begin and end events
 * (as kk_parallel_* reports it), each copy and fill of views between
 * begin_deep_copy and end_deep_copy. */
static kk_status_t replay_with_tools(kk__graph_t *g, kk_instance_t *inst) {
  kk__backend_t *b = g->backend;
  for (uint32_t i = 0; i < g->node_count; i++) {
    const kk_graph_node_t *n = g->nodes[i];
    kk_status_t st = KK_OK;
    if (n->kind == KK__NODE_KERNEL) {
      st = kk__launch_exec(b, inst, &g->ops[n->first_op].launch, 0);
      if (st != KK_OK)
        return node_failed(g, i, st);
    } else if (n->views[0] && n->op_name) {
      node_run_t r = {g, inst, n};
      kk_view_t *dst = n->views[0], *src = n->views[1];
      const void *sp = src ? kk_view_data(src) : n->op_count ? (const void *)g->ops[n->first_op].pattern : NULL;
      st = kk__tools_deep_copy(n->op_name, inst, kk_view_space(dst), kk_view_label(dst), kk_view_data(dst),
                               src ? kk_view_space(src) : NULL, src ? kk_view_label(src) : "Scalar", sp, n->bytes,
                               replay_node, &r);
      if (st != KK_OK)
        return st;
    } else if ((st = replay(g, inst, n->first_op, n->op_count)) != KK_OK) {
      return st;
    }
  }
  return KK_OK;
}

static kk_status_t submit_refused(const kk_graph_t *h, kk__graph_t *g, kk_instance_t *inst) {
  if (!kk__g.initialized)
    return kk__error(KK_ERROR_NOT_INITIALIZED, "kk_graph_submit: kk is not initialized");
  if (!g)
    return handle_refused("kk_graph_submit", h);
  if (kk__stale(inst->gen))
    return kk__stale_error("kk_graph_submit", "the instance", NULL);
  if (inst->backend != g->backend)
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_graph_submit: the instance belongs to backend %s, the graph to backend %s", inst->backend->name,
                     g->backend->name);
  if (kk__capturing(inst))
    return kk__error(KK_ERROR_CAPTURE, "kk_graph_submit: the instance is capturing a graph");
  return kk__error(KK_ERROR_IN_USE, "kk_graph_submit: another thread submits or updates the graph");
}

kk_status_t kk_graph_submit(kk_graph_t *h, kk_instance_t *inst) {
  kk__graph_t *g = graph_of(h);
  if (KK__UNLIKELY(!kk__g.initialized || !g))
    return submit_refused(h, g, inst);
  if (!inst)
    inst = g->backend->default_instance;
  if (KK__UNLIKELY(inst->gen != kk__generation_now() || inst->backend != g->backend || kk__capturing(inst)))
    return submit_refused(h, g, inst);
  if (KK__UNLIKELY(atomic_flag_test_and_set_explicit(&g->busy, memory_order_acquire)))
    return submit_refused(h, g, inst);
  kk_status_t st;
  if (KK__UNLIKELY(!g->instantiated) && (st = instantiate("kk_graph_submit", g)) != KK_OK) {
    atomic_flag_clear_explicit(&g->busy, memory_order_release);
    return st;
  }
  g->submitted = true;
  kk__backend_t *b = g->backend;
  if (KK__UNLIKELY(kk__tools.active))
    st = replay_with_tools(g, inst);
  else if (g->pgraph) {
    st = b->ops.graph_launch(b->ctx, inst->plugin_inst, g->pgraph);
    if (KK__UNLIKELY(st != KK_OK))
      st = kk__error(st, "kk_graph_submit: backend %s: %s", b->name,
                     kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
  } else
    st = replay(g, inst, 0, g->op_count);
  atomic_flag_clear_explicit(&g->busy, memory_order_release);
  return st;
}

kk_status_t kk_graph_set_args(kk_graph_t *h, kk_graph_node_t *n, const void *args, size_t args_size) {
  KK__REQUIRE_INIT("kk_graph_set_args");
  kk__graph_t *g = graph_of(h);
  if (h && !g)
    return handle_refused("kk_graph_set_args", h);
  if (!g || !n || n->graph != g || n->kind != KK__NODE_KERNEL || !args)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_graph_set_args: %s",
                     !g ? "graph is NULL" : !n ? "node is NULL" : n->graph != g ? "the node belongs to another graph"
                     : !args ? "args is NULL" : "the node is not a kernel node");
  kk__op_t *o = &g->ops[n->first_op];
  if (args_size != o->launch.args_size)
    return kk__error(KK_ERROR_KERNEL_MISMATCH,
                     "kk_graph_set_args: node '%s' (kernel '%s') takes a %u-byte argument struct, not %zu bytes",
                     n->label, o->launch.kernel->name, o->launch.args_size, args_size);
  if (atomic_flag_test_and_set_explicit(&g->busy, memory_order_acquire))
    return kk__error(KK_ERROR_IN_USE, "kk_graph_set_args: another thread submits or updates the graph");
  memcpy(o->args, args, args_size);
  kk__backend_t *b = g->backend;
  if (g->pgraph) {
    kk_status_t st = KK_ERROR_UNSUPPORTED;
    if (KK_PLUGIN_HAS(&b->ops, graph_update))
      st = b->ops.graph_update(b->ctx, g->pgraph, n->first_op, &o->launch);
    if (st != KK_OK) {
      /* the backend cannot change the node in place: build its graph anew */
      kk__debug("kk_graph_set_args: backend %s rebuilds its graph for node '%s'%s%s", b->name, n->label,
                st != KK_ERROR_UNSUPPORTED ? ": " : "", st != KK_ERROR_UNSUPPORTED ? kk_last_error() : "");
      b->ops.graph_destroy(b->ctx, g->pgraph);
      g->pgraph = NULL;
      if (create_native("kk_graph_set_args", g) != KK_OK) {
        kk__debug("kk_graph_set_args: rebuilding failed (%s); kk replays the graph node by node", kk_last_error());
        kk_clear_error();
      }
    }
  }
  atomic_flag_clear_explicit(&g->busy, memory_order_release);
  return KK_OK;
}
