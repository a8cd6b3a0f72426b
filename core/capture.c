/* core/capture.c -- recording into a graph: the nodes and ops that explicit adds and captures make, and the hooks kk_deep_copy, kk_space_copy, kk_fence and dispatch call while an instance captures. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "state.h"
#include "status.h"
#include "tools.h"

atomic_int kk__captures_active;

/* The active captures. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kk__capture *g_captures;

static _Thread_local kk__add_t *tl_add;

/* The explicit add a recording of capture cap belongs to (NULL: a capture). */
static kk__add_t *add_of(const struct kk__capture *cap) { return cap && cap->is_explicit ? tl_add : NULL; }
/* The node a deep copy or fill is recording into (its graph's lock held). */
static _Thread_local kk_graph_node_t *tl_open;

void kk__graph_add_set(kk__add_t *a) { tl_add = a; }

bool kk__capture_begin(struct kk__capture *cap) {
  struct kk__capture *none = NULL;
  pthread_mutex_lock(&g_lock);
  bool ok = atomic_compare_exchange_strong(&cap->instance->capture, &none, cap);
  if (ok) {
    cap->next = g_captures;
    g_captures = cap;
    atomic_fetch_add(&kk__captures_active, 1);
  }
  pthread_mutex_unlock(&g_lock);
  return ok;
}

kk__graph_t *kk__capture_end(kk_instance_t *inst) {
  pthread_mutex_lock(&g_lock);
  struct kk__capture *cap = atomic_load(&inst->capture);
  if (!cap || cap->is_explicit) {
    pthread_mutex_unlock(&g_lock);
    return NULL;
  }
  kk__graph_t *g = cap->graph;
  pthread_mutex_lock(&g->lock);
  atomic_store(&inst->capture, NULL);
  cap->ended = true;
  pthread_mutex_unlock(&g->lock);
  for (struct kk__capture **pp = &g_captures; *pp; pp = &(*pp)->next)
    if (*pp == cap) {
      *pp = cap->next;
      break;
    }
  atomic_fetch_sub(&kk__captures_active, 1);
  pthread_mutex_unlock(&g_lock);
  return g;
}

void kk__captures_end_all(void) {
  pthread_mutex_lock(&g_lock);
  for (struct kk__capture *c = g_captures; c; c = c->next) {
    atomic_store(&c->instance->capture, NULL);
    kk__debug("kk_finalize: ending a capture the program did not end");
  }
  g_captures = NULL;
  atomic_store(&kk__captures_active, 0);
  pthread_mutex_unlock(&g_lock);
}


kk_status_t kk__node_new(kk__graph_t *g, struct kk__capture *cap, kk__add_t *a, uint32_t kind, const char *label,
                         kk_graph_node_t **out) {
  if (g->node_count == g->node_cap) {
    uint32_t cap_n = g->node_cap ? 2 * g->node_cap : 16;
    kk_graph_node_t **nn = realloc(g->nodes, sizeof *nn * cap_n);
    if (!nn)
      return kk__error(KK_ERROR_OUT_OF_MEMORY, "graph: out of memory for node %u", g->node_count);
    g->nodes = nn;
    g->node_cap = cap_n;
  }
  kk_graph_node_t *n = calloc(1, sizeof *n);
  uint32_t ndeps = a ? (uint32_t)a->ndeps : cap && cap->last ? 1u : 0u;
  if (!n || !(n->label = kk__strdup(label)) || (ndeps && !(n->deps = malloc(sizeof *n->deps * ndeps)))) {
    if (n)
      free(n->label);
    free(n);
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "graph: out of memory for node %u", g->node_count);
  }
  n->graph = g;
  n->index = g->node_count;
  n->kind = kind;
  n->first_op = g->op_count;
  n->ndeps = ndeps;
  for (uint32_t i = 0; i < ndeps; i++)
    n->deps[i] = a ? a->deps[i]->index : cap->last - 1;
  g->nodes[g->node_count++] = n;
  if (a)
    a->node = n;
  else if (cap)
    cap->last = n->index + 1;
  *out = n;
  return KK_OK;
}

/* A new op of n, the last node of g. */
static kk_status_t op_new(kk__graph_t *g, kk_graph_node_t *n, uint32_t kind, kk__op_t **out) {
  if (g->op_count == g->op_cap) {
    uint32_t cap_n = g->op_cap ? 2 * g->op_cap : 16;
    kk__op_t *no = realloc(g->ops, sizeof *no * cap_n);
    if (!no)
      return kk__error(KK_ERROR_OUT_OF_MEMORY, "graph: out of memory for operation %u", g->op_count);
    g->ops = no;
    g->op_cap = cap_n;
  }
  kk__op_t *o = &g->ops[g->op_count++];
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->node = n->index;
  n->op_count++;
  *out = o;
  return KK_OK;
}

void kk__node_free(kk_graph_node_t *n) {
  for (int i = 0; i < 2; i++)
    kk_view_release(n->views[i]);
  free(n->deps);
  free(n->label);
  free(n);
}

/* Takes back the last node of g and its ops (a recording that failed half
 * way; a: the explicit add that made it, or NULL). */
static void node_drop_last(kk__graph_t *g, struct kk__capture *cap, kk__add_t *a) {
  kk_graph_node_t *n = g->nodes[--g->node_count];
  for (uint32_t i = 0; i < n->op_count; i++)
    free(g->ops[n->first_op + i].args);
  g->op_count = n->first_op;
  if (cap && !cap->is_explicit)
    cap->last = n->ndeps ? n->deps[0] + 1 : 0;
  if (a && a->node == n)
    a->node = NULL;
  kk__node_free(n);
}

/* The capture of inst, with its graph locked; NULL (and an error) when the
 * capture ended or the graph takes no more nodes. */
static struct kk__capture *lock_capture(const char *op, kk_instance_t *inst) {
  struct kk__capture *cap = atomic_load_explicit(&inst->capture, memory_order_acquire);
  kk__graph_t *g = cap->graph;
  pthread_mutex_lock(&g->lock);
  if (cap->ended || g->instantiated) {
    pthread_mutex_unlock(&g->lock);
    kk__error(KK_ERROR_CAPTURE, "%s: the capture of this instance ended while the call was being recorded", op);
    return NULL;
  }
  if (cap->is_explicit && (!tl_add || tl_add->graph != g)) {
    pthread_mutex_unlock(&g->lock);
    kk__error(KK_ERROR_INTERNAL, "%s: a graph's recording instance was used outside kk_graph_add_*", op);
    return NULL;
  }
  return cap;
}

static bool host_result_op(const char *op) { return strcmp(op, "kk_parallel_reduce_view") != 0; }

kk_status_t kk__record_kernel(const char *op, kk__graph_t *g, struct kk__capture *cap, kk__add_t *a, const kk_launch_t *l) {
  kk_graph_node_t *n;
  kk__op_t *o;
  kk_status_t st = kk__node_new(g, cap, a, KK__NODE_KERNEL, l->label, &n);
  if (st == KK_OK && (st = op_new(g, n, KK_GRAPH_NODE_KERNEL, &o)) == KK_OK) {
    o->launch = *l;
    o->launch.label = n->label;
    if (l->args_size && !(o->args = malloc(l->args_size)))
      st = kk__error(KK_ERROR_OUT_OF_MEMORY, "%s '%s': out of memory for the arguments", op, l->label);
    else {
      memcpy(o->args, l->args, l->args_size);
      o->launch.args = o->args;
      if (a && a->result) {
        o->launch.result = kk_view_data(a->result);
        o->launch.result_space = a->result_space;
        n->views[0] = kk_view_retain(a->result);
      }
    }
    if (st != KK_OK)
      node_drop_last(g, cap, a);
  }
  return st;
}

kk_status_t kk__graph_record_launch(const char *op, kk_instance_t *inst, const kk_launch_t *l, size_t tune_context) {
  kk__tools_tune_end(tune_context);
  struct kk__capture *c0 = atomic_load_explicit(&inst->capture, memory_order_acquire);
  /* A capture records what the instance would run later; a value the
   * program waits for on the host cannot be delivered by a replay.  (Only
   * kk_parallel_reduce_view, of the calls with a result, writes a view.) */
  if (!c0->is_explicit && l->result && l->result_space == KK_PLUGIN_HOST_MEMORY && host_result_op(op))
    return kk__error(KK_ERROR_CAPTURE,
                     "%s '%s': the instance is capturing a graph, and a %s into a host variable is synchronous: it "
                     "cannot be recorded (reduce into a view: kk_parallel_reduce_view, or kk_graph_add_reduce%s)",
                     op, l->label, l->kind == KK_KIND_SCAN ? "scan's total" : "reduction",
                     l->kind == KK_KIND_MD_REDUCE ? "_md" : l->kind == KK_KIND_TEAM_REDUCE ? "_team" : "");
  struct kk__capture *cap = lock_capture(op, inst);
  if (!cap)
    return kk_last_status();
  kk_status_t st = kk__record_kernel(op, cap->graph, cap, add_of(cap), l);
  pthread_mutex_unlock(&cap->graph->lock);
  return st;
}

kk_status_t kk__graph_record_views(const char *op, kk_instance_t *inst, kk_view_t *dst, kk_view_t *src,
                                   kk_status_t (*body)(void *), void *ctx) {
  struct kk__capture *cap = lock_capture(op, inst);
  if (!cap)
    return kk_last_status();
  kk__graph_t *g = cap->graph;
  kk_graph_node_t *n;
  kk_status_t st = kk__node_new(g, cap, add_of(cap), src ? KK__NODE_COPY : KK__NODE_FILL, src ? "copy" : "fill", &n);
  if (st == KK_OK) {
    n->views[0] = kk_view_retain(dst);
    n->views[1] = src ? kk_view_retain(src) : NULL;
    n->op_name = src ? "kk_graph_submit: deep copy" : "kk_graph_submit: fill";
    n->bytes = (uint64_t)kk_view_size(dst) * kk_view_elem_size(dst);
    tl_open = n;
    st = body(ctx);
    tl_open = NULL;
    if (st != KK_OK)
      node_drop_last(g, cap, add_of(cap));
  }
  pthread_mutex_unlock(&g->lock);
  return st;
}

/* The node a raw copy goes into: the deep copy's being recorded, or a node
 * of its own.  Returns with the graph locked (unlock_raw undoes it). */
static kk_graph_node_t *open_for(const char *op, kk_instance_t *inst, uint32_t kind, bool *locked) {
  struct kk__capture *cap = atomic_load_explicit(&inst->capture, memory_order_acquire);
  *locked = false;
  if (tl_open && tl_open->graph == cap->graph)
    return tl_open;
  if (!(cap = lock_capture(op, inst)))
    return NULL;
  *locked = true;
  kk_graph_node_t *n;
  if (kk__node_new(cap->graph, cap, add_of(cap), kind, kind_label(kind), &n) != KK_OK) {
    pthread_mutex_unlock(&cap->graph->lock);
    *locked = false;
    return NULL;
  }
  return n;
}

kk_status_t kk__graph_record_copy(kk_instance_t *inst, void *dst, int32_t dst_space, const void *src,
                                  int32_t src_space, size_t bytes) {
  bool locked;
  kk_graph_node_t *n = open_for("kk_space_copy", inst, KK__NODE_COPY, &locked);
  if (!n)
    return kk_last_status();
  kk__graph_t *g = n->graph;
  kk__op_t *o;
  kk_status_t st = op_new(g, n, KK_GRAPH_NODE_COPY, &o);
  if (st == KK_OK) {
    o->dst = dst;
    o->dst_space = dst_space;
    o->src = src;
    o->src_space = src_space;
    o->bytes = bytes;
  }
  if (locked) {
    if (st != KK_OK)
    {
      struct kk__capture *cap = atomic_load_explicit(&inst->capture, memory_order_acquire);
      node_drop_last(g, cap, add_of(cap));
    }
    pthread_mutex_unlock(&g->lock);
  }
  return st;
}

kk_status_t kk__graph_record_remap(kk_instance_t *inst, kk_view_t *dst, kk_view_t *src) {
  kk_graph_node_t *n = tl_open;
  struct kk__capture *cap = atomic_load_explicit(&inst->capture, memory_order_acquire);
  if (!n || n->graph != cap->graph)
    return kk__error(KK_ERROR_INTERNAL, "graph: a copy between layouts recorded outside a deep copy");
  kk__op_t *o;
  kk_status_t st = op_new(n->graph, n, KK__OP_REMAP, &o);
  if (st != KK_OK)
    return st;
  o->vdst = dst;
  o->vsrc = src;
  return KK_OK;
}

kk_status_t kk__graph_record_fill(kk_instance_t *inst, const kk_space_t *space, int32_t ds, void *dst, const void *value,
                                  size_t elem_size, size_t count) {
  kk_graph_node_t *n = tl_open;
  struct kk__capture *cap = atomic_load_explicit(&inst->capture, memory_order_acquire);
  if (!n || n->graph != cap->graph)
    return kk__error(KK_ERROR_INTERNAL, "graph: a fill recorded outside a fill");
  kk__graph_t *g = n->graph;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8 && elem_size != 16)
    return kk__error(KK_ERROR_UNSUPPORTED,
                     "a fill of %zu-byte elements cannot be put into a graph (element sizes 1, 2, 4, 8 and 16 can)",
                     elem_size);
  if (ds == -2)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "backend %s cannot reach memory space %s of backend %s",
                     g->backend->name, space->name, space->backend->name);
  kk__op_t *o;
  kk_status_t st = op_new(g, n, KK_GRAPH_NODE_FILL, &o);
  if (st != KK_OK)
    return st;
  o->dst = dst;
  o->dst_space = ds;
  o->count = count;
  o->pattern_size = (uint32_t)elem_size;
  o->bytes = count * elem_size;
  memcpy(o->pattern, value, elem_size);
  return KK_OK;
}

kk_status_t kk__graph_fence_check(const char *op) {
  pthread_t self = pthread_self();
  const char *backend = NULL;
  pthread_mutex_lock(&g_lock);
  for (struct kk__capture *c = g_captures; c && !backend; c = c->next)
    if (pthread_equal(c->thread, self))
      backend = c->instance->backend->name;
  pthread_mutex_unlock(&g_lock);
  if (!backend)
    return KK_OK;
  return kk__error(KK_ERROR_CAPTURE,
                   "%s: this thread is capturing a graph on an instance of backend %s: a fence cannot be recorded, and "
                   "the captured work has not run (end the capture and submit the graph, then fence)",
                   op, backend);
}
