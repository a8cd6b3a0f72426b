/* core/graph.c -- graphs: nodes added explicitly or recorded from an instance, instantiated once, submitted many times. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "state.h"
#include "tools.h"

/* A graph's state.  The program's kk_graph_t * is not its address but a
 * handle that names it in the table of graph handles (below). */
typedef struct graph graph_t;

/* What a node is, for the program and the tools (the backend sees ops). */
enum { NODE_KERNEL = 1, NODE_COPY, NODE_FILL, NODE_EMPTY };

/* One primitive the backend runs -- a launch, a copy or a fill -- as the
 * plugin's graph gets it (kk_graph_node_desc_t) and as the replay runs it. */
typedef struct op {
  uint32_t kind;          /* KK_GRAPH_NODE_* */
  uint32_t node;          /* the graph node it belongs to */
  kk_launch_t launch;     /* KERNEL: .args is `args`, .label the node's */
  void *args;
  void *dst;
  const void *src;
  int32_t dst_space, src_space;
  size_t bytes;           /* COPY; FILL: count * pattern_size */
  size_t count;           /* FILL */
  uint32_t pattern_size;  /* FILL */
  unsigned char pattern[16];
} op_t;

struct kk_graph_node {
  graph_t *graph;
  uint32_t index;
  uint32_t kind;          /* NODE_* */
  uint32_t first_op, op_count; /* its ops, contiguous */
  uint32_t ndeps;
  uint32_t *deps;         /* node indices, all smaller than index */
  char *label;
  /* views the node names, retained: a reduction's result, a copy's or fill's views */
  kk_view_t *views[2];
  /* deep copies and fills: what begin_deep_copy reports */
  const char *op_name;
  uint64_t bytes;
};

/* A capture: an instance whose work goes into a graph.  Each graph has one
 * for its own recording instance (explicit: the kk_graph_add_* calls) and
 * one for kk_graph_begin_capture. */
struct kk__capture {
  graph_t *graph;
  kk_instance_t *instance;
  bool is_explicit;
  bool ended;              /* kk_graph_end_capture ran (under the graph's lock) */
  pthread_t thread;        /* began it: its kk_fence is refused */
  uint32_t last;           /* 1 + the node recorded last, 0 before the first */
  struct kk__capture *next; /* the active captures */
};

struct graph {
  kk_graph_t *handle;      /* the program's name for it (handle_new) */
  kk__backend_t *backend;
  kk_instance_t rec;       /* the explicit adds launch here: recorded, never run */
  struct kk__capture cap_rec, cap;
  pthread_mutex_t lock;    /* nodes and ops, while recording */
  kk_graph_node_t **nodes;
  uint32_t node_count, node_cap;
  op_t *ops;
  uint32_t op_count, op_cap;
  bool instantiated;
  bool submitted;          /* since instantiation: destroy fences */
  void *pgraph;            /* the backend's graph; NULL: the core replays */
  kk_graph_node_desc_t *descs; /* what graph_create got, kept to rebuild */
  uint32_t *dep_store;
  atomic_flag busy;        /* an instantiation, submission, update or destruction is running */
  struct graph *next, *prev; /* every graph, for kk_finalize */
};

atomic_int kk__captures_active;

/* The graphs and the active captures. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static graph_t *g_graphs;
static struct kk__capture *g_captures;

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
  graph_t *graph;
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
static bool handle_new(graph_t *g) {
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
static void handle_free(graph_t *g) {
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
static inline graph_t *graph_of(const kk_graph_t *h) {
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
static graph_t *graph_get(const char *op, const kk_graph_t *h) {
  graph_t *g = graph_of(h);
  if (KK__UNLIKELY(!g))
    handle_refused(op, h);
  return g;
}

/* An explicit add: the graph, the node's dependencies and result, and the
 * node it made.  kk_graph_add_copy and kk_graph_add_fill make the ordinary
 * deep copy on the graph's recording instance, whose record hooks find the
 * add in tl_add; a kernel add records the launch it built itself. */
typedef struct add_ctx {
  graph_t *graph;
  kk_graph_node_t *const *deps;
  int ndeps;
  kk_view_t *result;       /* a reduction's result or a scan's total */
  int32_t result_space;
  uint32_t empty_kind;     /* the node to make when the call records nothing */
  kk_graph_node_t *node;   /* out: the node recorded */
} add_ctx_t;
static _Thread_local add_ctx_t *tl_add;

/* The explicit add a recording of capture cap belongs to (NULL: a capture). */
static add_ctx_t *add_of(const struct kk__capture *cap) { return cap && cap->is_explicit ? tl_add : NULL; }
/* The node a deep copy or fill is recording into (its graph's lock held). */
static _Thread_local kk_graph_node_t *tl_open;

static bool has_graph_ops(const kk__backend_t *b) {
  return KK_PLUGIN_HAS(&b->ops, graph_create) && KK_PLUGIN_HAS(&b->ops, graph_launch) &&
         KK_PLUGIN_HAS(&b->ops, graph_destroy);
}

static const char *kind_label(uint32_t kind) {
  return kind == NODE_COPY ? "copy" : kind == NODE_FILL ? "fill" : kind == NODE_EMPTY ? "empty" : "kernel";
}

/* ---- building -------------------------------------------------------------------------------- */

/* A new node of g (the caller holds g->lock, or builds g alone): its
 * dependencies are those of the explicit add a, or (a NULL) the node the
 * capture recorded last. */
static kk_status_t node_new(graph_t *g, struct kk__capture *cap, add_ctx_t *a, uint32_t kind, const char *label,
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
static kk_status_t op_new(graph_t *g, kk_graph_node_t *n, uint32_t kind, op_t **out) {
  if (g->op_count == g->op_cap) {
    uint32_t cap_n = g->op_cap ? 2 * g->op_cap : 16;
    op_t *no = realloc(g->ops, sizeof *no * cap_n);
    if (!no)
      return kk__error(KK_ERROR_OUT_OF_MEMORY, "graph: out of memory for operation %u", g->op_count);
    g->ops = no;
    g->op_cap = cap_n;
  }
  op_t *o = &g->ops[g->op_count++];
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->node = n->index;
  n->op_count++;
  *out = o;
  return KK_OK;
}

static void node_free(kk_graph_node_t *n) {
  for (int i = 0; i < 2; i++)
    kk_view_release(n->views[i]);
  free(n->deps);
  free(n->label);
  free(n);
}

/* Takes back the last node of g and its ops (a recording that failed half
 * way; a: the explicit add that made it, or NULL). */
static void node_drop_last(graph_t *g, struct kk__capture *cap, add_ctx_t *a) {
  kk_graph_node_t *n = g->nodes[--g->node_count];
  for (uint32_t i = 0; i < n->op_count; i++)
    free(g->ops[n->first_op + i].args);
  g->op_count = n->first_op;
  if (cap && !cap->is_explicit)
    cap->last = n->ndeps ? n->deps[0] + 1 : 0;
  if (a && a->node == n)
    a->node = NULL;
  node_free(n);
}

/* The capture of inst, with its graph locked; NULL (and an error) when the
 * capture ended or the graph takes no more nodes. */
static struct kk__capture *lock_capture(const char *op, kk_instance_t *inst) {
  struct kk__capture *cap = atomic_load_explicit(&inst->capture, memory_order_acquire);
  graph_t *g = cap->graph;
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

/* Records the checked launch l as a kernel node of g, under g->lock: into
 * the node of the explicit add a (its result view, when it has one), or
 * (a NULL) after the capture's last node. */
static kk_status_t record_kernel(const char *op, graph_t *g, struct kk__capture *cap, add_ctx_t *a,
                                 const kk_launch_t *l) {
  kk_graph_node_t *n;
  op_t *o;
  kk_status_t st = node_new(g, cap, a, NODE_KERNEL, l->label, &n);
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
  kk_status_t st = record_kernel(op, cap->graph, cap, add_of(cap), l);
  pthread_mutex_unlock(&cap->graph->lock);
  return st;
}

kk_status_t kk__graph_record_views(const char *op, kk_instance_t *inst, kk_view_t *dst, kk_view_t *src,
                                   kk_status_t (*body)(void *), void *ctx) {
  struct kk__capture *cap = lock_capture(op, inst);
  if (!cap)
    return kk_last_status();
  graph_t *g = cap->graph;
  kk_graph_node_t *n;
  kk_status_t st = node_new(g, cap, add_of(cap), src ? NODE_COPY : NODE_FILL, src ? "copy" : "fill", &n);
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
  if (node_new(cap->graph, cap, add_of(cap), kind, kind_label(kind), &n) != KK_OK) {
    pthread_mutex_unlock(&cap->graph->lock);
    *locked = false;
    return NULL;
  }
  return n;
}

kk_status_t kk__graph_record_copy(kk_instance_t *inst, void *dst, int32_t dst_space, const void *src,
                                  int32_t src_space, size_t bytes) {
  bool locked;
  kk_graph_node_t *n = open_for("kk_space_copy", inst, NODE_COPY, &locked);
  if (!n)
    return kk_last_status();
  graph_t *g = n->graph;
  op_t *o;
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

kk_status_t kk__graph_record_fill(kk_instance_t *inst, kk_space_t *space, void *dst, const void *value,
                                  size_t elem_size, size_t count) {
  kk_graph_node_t *n = tl_open;
  struct kk__capture *cap = atomic_load_explicit(&inst->capture, memory_order_acquire);
  if (!n || n->graph != cap->graph)
    return kk__error(KK_ERROR_INTERNAL, "graph: a fill recorded outside a fill");
  graph_t *g = n->graph;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8 && elem_size != 16)
    return kk__error(KK_ERROR_UNSUPPORTED,
                     "a fill of %zu-byte elements cannot be put into a graph (element sizes 1, 2, 4, 8 and 16 can)",
                     elem_size);
  int32_t ds = kk__side_index(g->backend, space);
  if (ds == -2)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "backend %s cannot reach memory space %s of backend %s",
                     g->backend->name, space->name, space->backend->name);
  op_t *o;
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

/* ---- graphs ------------------------------------------------------------------------------------- */

static kk_status_t graph_new(const char *op, kk__backend_t *b, graph_t **out) {
  graph_t *g = calloc(1, sizeof *g);
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

static void graph_free(graph_t *g) {
  pthread_mutex_lock(&g_lock);
  handle_free(g);
  pthread_mutex_unlock(&g_lock);
  kk__backend_t *b = g->backend;
  if (g->pgraph)
    b->ops.graph_destroy(b->ctx, g->pgraph);
  for (uint32_t i = 0; i < g->op_count; i++)
    free(g->ops[i].args);
  for (uint32_t i = 0; i < g->node_count; i++)
    node_free(g->nodes[i]);
  free(g->nodes);
  free(g->ops);
  free(g->descs);
  free(g->dep_store);
  pthread_mutex_destroy(&g->lock);
  free(g);
}

/* Unlinks g from the list of graphs (g_lock held). */
static void graph_unlink(graph_t *g) {
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
  graph_t *g;
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
  graph_t *g = graph_of(h);
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
  pthread_mutex_lock(&g_lock);
  for (struct kk__capture *c = g_captures; c; c = c->next) {
    atomic_store(&c->instance->capture, NULL);
    kk__debug("kk_finalize: ending a capture the program did not end");
  }
  g_captures = NULL;
  atomic_store(&kk__captures_active, 0);
  graph_t *all = g_graphs;
  g_graphs = NULL;
  pthread_mutex_unlock(&g_lock);
  bool fenced = false;
  while (all) {
    graph_t *g = all;
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
                             uint32_t empty, add_ctx_t *a) {
  KK__REQUIRE_INIT(op);
  graph_t *g = graph_get(op, h);
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
static kk_status_t add_end(const char *op, add_ctx_t *a, kk_status_t st, kk_graph_node_t **out) {
  tl_add = NULL;
  if (st != KK_OK)
    return kk__error(st, "%s: %s", op, kk_last_error());
  if (!a->node) {
    pthread_mutex_lock(&a->graph->lock);
    st = node_new(a->graph, &a->graph->cap_rec, a, a->empty_kind, kind_label(a->empty_kind), &a->node);
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
static kk_status_t result_view(const char *op, graph_t *g, const kk_kernel_t *k, kk_view_t *v, bool required,
                               add_ctx_t *a) {
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

/* The public call whose checks a kernel add makes, named in its errors. */
static const char *call_name(kk__call_t call) {
  switch (call) {
  case KK__CALL_FOR:
    return "kk_parallel_for";
  case KK__CALL_FOR_MD:
    return "kk_parallel_for_md";
  case KK__CALL_FOR_TEAM:
    return "kk_parallel_for_team";
  case KK__CALL_REDUCE:
  case KK__CALL_REDUCE_VIEW:
    return "kk_parallel_reduce";
  case KK__CALL_REDUCE_MD:
    return "kk_parallel_reduce_md";
  case KK__CALL_REDUCE_TEAM:
    return "kk_parallel_reduce_team";
  default:
    return "kk_parallel_scan";
  }
}

/* Records a kernel node: builds the launch `call` (core/launch.c) with a
 * copy of the policy that names the graph's recording instance, and
 * records it.  A policy the launch refuses anyway (NULL, too small) is
 * passed on as it is, so that the refusal is the launch's; one on another
 * backend's instance is refused here. */
static kk_status_t add_kernel(const char *op, kk__call_t call, kk_graph_t *h, const char *label, const void *policy,
                              const kk_kernel_t *k, const void *args, size_t args_size, kk_view_t *result,
                              kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out) {
  add_ctx_t a;
  kk_status_t st = add_begin(op, h, deps, ndeps, NODE_KERNEL, &a);
  if (st != KK_OK)
    return st;
  graph_t *g = a.graph;
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
  const char *name = call_name(call);
  if ((st = kk__launch_build(&L, name, call, label, use, k, args, args_size, rdata, rsize)) == KK_OK) {
    kk__tools_tune_end(L.tune); /* the node is recorded, not run */
    pthread_mutex_lock(&g->lock);
    if (g->instantiated)
      st = kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': the graph was instantiated while the node was added", name,
                     L.l.label);
    else
      st = record_kernel(name, g, &g->cap_rec, &a, &L.l);
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
  add_ctx_t a;
  kk_status_t st = add_begin("kk_graph_add_copy", g, deps, ndeps, NODE_COPY, &a);
  if (st != KK_OK)
    return st;
  tl_add = &a;
  return add_end("kk_graph_add_copy", &a, kk_deep_copy_async(&a.graph->rec, dst, src), out);
}

kk_status_t kk_graph_add_fill(kk_graph_t *g, kk_view_t *dst, const void *value, kk_graph_node_t *const *deps,
                              int ndeps, kk_graph_node_t **out) {
  add_ctx_t a;
  kk_status_t st = add_begin("kk_graph_add_fill", g, deps, ndeps, NODE_FILL, &a);
  if (st != KK_OK)
    return st;
  tl_add = &a;
  return add_end("kk_graph_add_fill", &a, kk_deep_copy_fill_async(&a.graph->rec, dst, value), out);
}

kk_status_t kk_graph_add_empty(kk_graph_t *g, kk_graph_node_t *const *deps, int ndeps, kk_graph_node_t **out) {
  add_ctx_t a;
  kk_status_t st = add_begin("kk_graph_add_empty", g, deps, ndeps, NODE_EMPTY, &a);
  if (st != KK_OK)
    return st;
  return add_end("kk_graph_add_empty", &a, KK_OK, out);
}

/* A destroyed graph's handle (or one from before kk_finalize) has no nodes. */
int kk_graph_node_count(const kk_graph_t *h) {
  const graph_t *g = graph_of(h);
  return g ? (int)g->node_count : 0;
}

kk_graph_node_t *kk_graph_node_at(const kk_graph_t *h, int i) {
  const graph_t *g = graph_of(h);
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
  graph_t *g;
  kk_status_t st = graph_new("kk_graph_begin_capture", inst->backend, &g);
  if (st != KK_OK)
    return st;
  struct kk__capture *cap = &g->cap, *none = NULL;
  cap->instance = inst;
  cap->thread = pthread_self();
  pthread_mutex_lock(&g_lock);
  if (!atomic_compare_exchange_strong(&inst->capture, &none, cap)) {
    graph_unlink(g);
    pthread_mutex_unlock(&g_lock);
    graph_free(g);
    return kk__error(KK_ERROR_CAPTURE, "kk_graph_begin_capture: the instance (backend %s) is capturing already",
                     inst->backend->name);
  }
  cap->next = g_captures;
  g_captures = cap;
  atomic_fetch_add(&kk__captures_active, 1);
  pthread_mutex_unlock(&g_lock);
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
  pthread_mutex_lock(&g_lock);
  struct kk__capture *cap = atomic_load(&inst->capture);
  if (!cap || cap->is_explicit) {
    pthread_mutex_unlock(&g_lock);
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_graph_end_capture: the instance (backend %s) is not capturing",
                     inst->backend->name);
  }
  graph_t *g = cap->graph;
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
  *out = g->handle;
  pthread_mutex_unlock(&g_lock);
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
static kk_status_t build_descs(graph_t *g) {
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
    const op_t *o = &g->ops[k];
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
static kk_status_t create_native(const char *op, graph_t *g) {
  kk__backend_t *b = g->backend;
  g->pgraph = NULL;
  if (!g->op_count || !has_graph_ops(b))
    return KK_OK;
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
static kk_status_t instantiate(const char *op, graph_t *g) {
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
  graph_t *g = graph_get("kk_graph_instantiate", h);
  if (!g)
    return kk_last_status();
  if (atomic_flag_test_and_set_explicit(&g->busy, memory_order_acquire))
    return kk__error(KK_ERROR_IN_USE, "kk_graph_instantiate: another thread submits or updates the graph");
  kk_status_t st = instantiate("kk_graph_instantiate", g);
  atomic_flag_clear_explicit(&g->busy, memory_order_release);
  return st;
}

int kk_graph_native(const kk_graph_t *h) {
  const graph_t *g = graph_of(h);
  return g && g->instantiated && g->pgraph ? 1 : 0;
}

/* ---- submission ------------------------------------------------------------------------------------ */

/* A fill on a backend without mem_fill (a plugin older than ABI 1.0's
 * optional member): wait for the work before it, then write from the host,
 * directly or through a staging buffer. */
static kk_status_t fill_without_plugin(kk__backend_t *b, kk_instance_t *inst, const op_t *o) {
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

static inline kk_status_t run_op(kk__backend_t *b, kk_instance_t *inst, const op_t *o) {
  switch (o->kind) {
  case KK_GRAPH_NODE_KERNEL:
    return kk__launch_call(b, inst, &o->launch);
  case KK_GRAPH_NODE_COPY:
    return b->ops.mem_copy(b->ctx, inst->plugin_inst, o->dst, o->dst_space, o->src, o->src_space, o->bytes);
  default:
    if (o->dst_space >= 0 && KK_PLUGIN_HAS(&b->ops, mem_fill))
      return b->ops.mem_fill(b->ctx, inst->plugin_inst, o->dst, o->dst_space, o->pattern, o->pattern_size, o->count);
    return fill_without_plugin(b, inst, o);
  }
}

static kk_status_t node_failed(const graph_t *g, uint32_t node, kk_status_t st) {
  const kk_graph_node_t *n = g->nodes[node];
  return kk__error(st, "kk_graph_submit: node %u ('%s') on backend %s failed: %s", node, n->label, g->backend->name,
                   kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
}

/* The replay: every op in order on the instance, which keeps them in order. */
static kk_status_t replay(graph_t *g, kk_instance_t *inst, uint32_t first, uint32_t count) {
  kk__backend_t *b = g->backend;
  for (uint32_t i = first; i < first + count; i++) {
    kk_status_t st = run_op(b, inst, &g->ops[i]);
    if (KK__UNLIKELY(st != KK_OK))
      return node_failed(g, g->ops[i].node, st);
  }
  return KK_OK;
}

typedef struct node_run {
  graph_t *g;
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
static kk_status_t replay_with_tools(graph_t *g, kk_instance_t *inst) {
  kk__backend_t *b = g->backend;
  for (uint32_t i = 0; i < g->node_count; i++) {
    const kk_graph_node_t *n = g->nodes[i];
    kk_status_t st = KK_OK;
    if (n->kind == NODE_KERNEL) {
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

static kk_status_t submit_refused(const kk_graph_t *h, graph_t *g, kk_instance_t *inst) {
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
  graph_t *g = graph_of(h);
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
  graph_t *g = graph_of(h);
  if (h && !g)
    return handle_refused("kk_graph_set_args", h);
  if (!g || !n || n->graph != g || n->kind != NODE_KERNEL || !args)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_graph_set_args: %s",
                     !g ? "graph is NULL" : !n ? "node is NULL" : n->graph != g ? "the node belongs to another graph"
                     : !args ? "args is NULL" : "the node is not a kernel node");
  op_t *o = &g->ops[n->first_op];
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
