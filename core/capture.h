/* core/capture.h -- a graph's nodes and ops, and recording into them (core/capture.c): the explicit adds' and the captures' common part, which kk_deep_copy, kk_space_copy and dispatch call while an instance captures. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_CAPTURE_H
#define KK_CORE_CAPTURE_H

#include "internal.h"

/* A graph's state.  The program's kk_graph_t * is not its address but a
 * handle that names it in the table of graph handles (below). */
typedef struct graph kk__graph_t;

/* What a node is, for the program and the tools (the backend sees ops). */
enum { KK__NODE_KERNEL = 1, KK__NODE_COPY, KK__NODE_FILL, KK__NODE_EMPTY };

/* The core's own op: a copy between views of different layouts (a
 * transpose, strided views), run at each submission as kk_deep_copy_async
 * runs it (a tiled remap on a host backend or on the device, or staged).
 * It is never handed to a plugin: a graph that has one is replayed by the
 * core, node by node. */
enum { KK__OP_REMAP = 0x100 };

/* One primitive the backend runs -- a launch, a copy or a fill -- as the
 * plugin's graph gets it (kk_graph_node_desc_t) and as the replay runs it. */
typedef struct op {
  uint32_t kind;          /* KK_GRAPH_NODE_*, or KK__OP_REMAP */
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
  kk_view_t *vdst, *vsrc; /* REMAP: the views, which the node retains */
} kk__op_t;

struct kk_graph_node {
  kk__graph_t *graph;
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
  kk__graph_t *graph;
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
  kk__op_t *ops;
  uint32_t op_count, op_cap;
  bool instantiated;
  bool submitted;          /* since instantiation: destroy fences */
  void *pgraph;            /* the backend's graph; NULL: the core replays */
  kk_graph_node_desc_t *descs; /* what graph_create got, kept to rebuild */
  uint32_t *dep_store;
  atomic_flag busy;        /* an instantiation, submission, update or destruction is running */
  struct graph *next, *prev; /* every graph, for kk_finalize */
};

/* An explicit add: the graph, the node's dependencies and result, and the
 * node it made.  kk_graph_add_copy and kk_graph_add_fill make the ordinary
 * deep copy on the graph's recording instance, whose record hooks find the
 * add in tl_add; a kernel add records the launch it built itself. */
typedef struct add_ctx {
  kk__graph_t *graph;
  kk_graph_node_t *const *deps;
  int ndeps;
  kk_view_t *result;       /* a reduction's result or a scan's total */
  int32_t result_space;
  uint32_t empty_kind;     /* the node to make when the call records nothing */
  kk_graph_node_t *node;   /* out: the node recorded */
} kk__add_t;

/* The node kinds' names (labels of the nodes a copy, fill or empty add makes). */
static inline const char *kind_label(uint32_t kind) {
  return kind == KK__NODE_COPY ? "copy" : kind == KK__NODE_FILL ? "fill" : kind == KK__NODE_EMPTY ? "empty" : "kernel";
}

/* Is work queued on inst recorded into a graph?  One load on the dispatch
 * path; the kk__graph_record_* functions are called only behind it. */
static inline bool kk__capturing(kk_instance_t *inst) {
  return atomic_load_explicit(&inst->capture, memory_order_acquire) != NULL;
}

/* Records a checked launch (dispatch.c, instead of running it) and closes
 * the tuning context; refuses the synchronous forms (a result in host
 * memory) that a capture cannot replay. */
kk_status_t kk__graph_record_launch(const char *op, kk_instance_t *inst, const kk_launch_t *l, size_t tune_context);

/* Records the deep copy (src) or fill (src NULL) of views as one node: body(ctx)
 * does the copies or fills, which kk_space_copy and the fill path hand to
 * the two functions below (view.c). */
kk_status_t kk__graph_record_views(const char *op, kk_instance_t *inst, kk_view_t *dst, kk_view_t *src,
                                   kk_status_t (*body)(void *), void *ctx);
kk_status_t kk__graph_record_copy(kk_instance_t *inst, void *dst, int32_t dst_space, const void *src,
                                  int32_t src_space, size_t bytes);
/* A copy between layouts into the deep copy being recorded: one op, which
 * the replay runs with kk__view_remap (view.c). */
kk_status_t kk__graph_record_remap(kk_instance_t *inst, kk_view_t *dst, kk_view_t *src);
/* Copies src into dst, views of one shape that share no dimension of unit
 * stride, as kk_deep_copy_async does on inst (complete on return). */
kk_status_t kk__view_remap(kk_instance_t *inst, kk_view_t *dst, kk_view_t *src);
/* ds: the fill's space as the capturing backend sees it (kk__side_index;
 * -2, which is refused, when it cannot reach it). */
kk_status_t kk__graph_record_fill(kk_instance_t *inst, const kk_space_t *space, int32_t ds, void *dst,
                                  const void *value, size_t elem_size, size_t count);

/* Captures under way; kk_fence looks closer only when it is not 0. */
extern atomic_int kk__captures_active;
/* KK_ERROR_CAPTURE (naming op) when the calling thread began a capture. */
kk_status_t kk__graph_fence_check(const char *op);

/* ---- for graph.c ---- */

/* Starts capture cap on its instance (kk_graph_begin_capture); false when
 * the instance is capturing already. */
bool kk__capture_begin(struct kk__capture *cap);
/* Ends the capture of inst (kk_graph_end_capture): its graph, or NULL when
 * inst is not capturing (or only records explicit adds). */
kk__graph_t *kk__capture_end(kk_instance_t *inst);
/* kk_finalize: ends every capture the program did not end. */
void kk__captures_end_all(void);

/* The explicit add under way on this thread, which the recording of a deep
 * copy or fill on the graph's recording instance joins (NULL: none). */
void kk__graph_add_set(kk__add_t *a);

/* A new node of g (the caller holds g->lock, or builds g alone): its
 * dependencies are those of the explicit add a, or (a NULL) the node the
 * capture recorded last. */
kk_status_t kk__node_new(kk__graph_t *g, struct kk__capture *cap, kk__add_t *a, uint32_t kind, const char *label,
                         kk_graph_node_t **out);
/* Frees a node and releases the views it holds. */
void kk__node_free(kk_graph_node_t *n);
/* Records the checked launch l as a kernel node of g, under g->lock: into
 * the node of the explicit add a (its result view, when it has one), or
 * (a NULL) after the capture's last node. */
kk_status_t kk__record_kernel(const char *op, kk__graph_t *g, struct kk__capture *cap, kk__add_t *a, const kk_launch_t *l);

#endif /* KK_CORE_CAPTURE_H */
