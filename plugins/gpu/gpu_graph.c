/* plugins/gpu/gpu_graph.c -- kk graphs as native graphs on the SIMT backends (cuda, hip): the planners' own launches, copies and fills captured on a graph's instance, its dependencies set node by node. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

/*
 * A kk graph reaches a GPU plugin as primitive nodes in dependency order
 * (kk_graph_desc_t).  Rather than plan each kernel a second time for a
 * native kernel node, the layer runs the ordinary launch path on an
 * instance of the graph's own while that instance's stream is being
 * captured: what a launch would queue (the kernel with its grid, block,
 * shared memory and parameters; a scan's memsets; a copy; a fill's memsets)
 * becomes nodes of the native graph.  Before each node the capture's
 * dependency set is replaced by the nodes its dependencies ended with
 * (cuStreamUpdateCaptureDependencies), so the native graph has the kk
 * graph's edges, not a chain.
 *
 * What a launch takes from its instance -- reduction partials and counter,
 * a scan's tile counter and status words, team level-1 scratch -- is the
 * graph's instance's, allocated once at creation and kept while the graph
 * lives, since a native graph may run on any stream.  Nodes that use those
 * buffers are ordered one after the other (an extra edge from the previous
 * one); the others run as their dependencies allow.  Launches of one
 * executable graph are ordered by the runtime, so two streams never run it
 * at once.  A scan's epoch, fresh at every ordinary launch, is frozen into
 * its node: the planner queues a memset of the scan's status words before
 * the kernel in a graph, so each replay starts from clean tiles.
 */

static inline kks_ctx_t *kks(const kkg_ctx_t *c) { return (kks_ctx_t *)(void *)c; }

struct kkg_graph {
  kkg_inst_t *in;                   /* the recording instance: capture stream and buffers */
  void *graph, *exec;
  uint32_t n;
  void **knode;                     /* per node: its kernel's native node (KERNEL nodes), else NULL */
  void **kept;                      /* buffers a grow replaced: captured nodes still use them */
  size_t nkept, capkept;
};

/* ---- the native calls ------------------------------------------------------------------------ */

void kks_graph_resolve(kkg_ctx_t *c) {
  kks_ctx_t *s = kks(c);
  const char *syms = c->v->graph_syms;
  if (!syms) {
    snprintf(s->graphs, sizeof s->graphs, "this backend has no native graphs in kk");
    return;
  }
  snprintf(s->gsym, sizeof s->gsym, "%s", syms);
  char *save = NULL;
  size_t i = 0;
  for (char *t = strtok_r(s->gsym, " ", &save); t && i < KKS_GRAPH_N; t = strtok_r(NULL, " ", &save), i++) {
    void *p = dlsym(c->lib, t);
    if (!p) { /* optional: the core replays graphs instead */
      snprintf(s->graphs, sizeof s->graphs, "%s has no %s", c->libname, t);
      return;
    }
    s->gname[i] = t;
    memcpy((char *)&s->gapi + i * sizeof(int (*)(void)), &p, sizeof p);
  }
  if (i < KKS_GRAPH_N)
    snprintf(s->graphs, sizeof s->graphs, "the vendor names %zu of the %zu graph calls", i, (size_t)KKS_GRAPH_N);
  else
    s->graphs[0] = '\0';
}

#define KKS_GRAPH_ENUM(name, params) KKS_G_##name,
enum { KKS_GRAPH_CALLS(KKS_GRAPH_ENUM) };
/* A native graph call; its symbol names it in the message. */
#define KKS_GTRY(c, CALL, args, fmt, ...) \
  KKG_TRY(c, kks(c)->gapi.CALL args, "%s" fmt, kks(c)->gname[KKS_G_##CALL], __VA_ARGS__)

/* ---- buffers ---------------------------------------------------------------------------------- */

kk_status_t kkg_graph_grow(kkg_ctx_t *c, kkg_inst_t *in, kkg_buf_t *b, size_t bytes, bool zero) {
  struct kkg_graph *g = in->recording;
  if (b->ptr && g->nkept == g->capkept) {
    size_t cap = g->capkept ? 2 * g->capkept : 8;
    void **k = realloc(g->kept, cap * sizeof *k);
    if (!k)
      return kkg_error(c, KK_ERROR_OUT_OF_MEMORY, "graph: out of memory");
    g->kept = k;
    g->capkept = cap;
  }
  void *p = NULL;
  kk_status_t st = c->v->alloc(c, KKG_MEM_DEVICE, bytes * 2, &p);
  const unsigned char z = 0;
  if (st == KK_OK && zero) /* captured: a memset node, before the node that grew it */
    st = c->v->fill(c, in, p, &z, 1, bytes * 2);
  if (st != KK_OK) {
    if (p)
      c->v->free(c, KKG_MEM_DEVICE, p);
    return st;
  }
  if (b->ptr)
    g->kept[g->nkept++] = b->ptr;
  b->ptr = p;
  b->size = bytes * 2;
  return KK_OK;
}

kk_status_t kkg_graph_identity(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l) {
  _Alignas(16) unsigned char id[KKG_RESULT_VALUE_BYTES];
  const size_t vs = l->kernel->reducer->value_size;
  if (vs > sizeof id)
    return kkg_error(c, KK_ERROR_UNSUPPORTED, "graph: a scan's %zu-byte total", vs);
  l->kernel->reducer->init(id);
  const size_t w = vs % 4 ? 1 : 4; /* a memset node per word */
  kk_status_t st = KK_OK;
  for (size_t at = 0; st == KK_OK && at < vs; at += w)
    st = c->v->fill(c, in, (unsigned char *)l->result + at, id + at, w, 1);
  return st;
}

/* ---- building ----------------------------------------------------------------------------------- */

/* Nodes that use the graph's instance buffers (partials, counters, scan
 * status, level-1 scratch) and so must not run at the same time. */
static bool uses_buffers(const kk_launch_t *l) {
  switch (l->kind) {
  case KK_KIND_REDUCE:
  case KK_KIND_MD_REDUCE:
  case KK_KIND_TEAM_REDUCE:
  case KK_KIND_SCAN:
    return true;
  case KK_KIND_TEAM_FOR:
    return l->scratch_team[1] || l->scratch_thread[1];
  default:
    return false;
  }
}

/* The capture's current dependency set (the nodes the last operation ended with), copied to *out. */
static kk_status_t capture_ends(kkg_ctx_t *c, kkg_inst_t *in, void ***out, size_t *n) {
  int status = 0;
  unsigned long long id = 0;
  void *graph = NULL;
  void *const *deps = NULL;
  KKS_GTRY(c, capture_info, (in->queue, &status, &id, &graph, &deps, n), "%s", "");
  *out = NULL;
  if (*n && !(*out = malloc(*n * sizeof **out)))
    return kkg_error(c, KK_ERROR_OUT_OF_MEMORY, "graph: out of memory");
  if (*n)
    memcpy(*out, deps, *n * sizeof **out);
  return KK_OK;
}

static bool has(void *const *set, size_t n, const void *x) {
  for (size_t i = 0; i < n; i++)
    if (set[i] == x)
      return true;
  return false;
}

/* Adds `add` to the set, each node once. */
static kk_status_t set_union(kkg_ctx_t *c, void ***set, size_t *n, size_t *cap, void *const *add, size_t nadd) {
  for (size_t i = 0; i < nadd; i++) {
    if (has(*set, *n, add[i]))
      continue;
    if (*n == *cap) {
      size_t nc = *cap ? 2 * *cap : 16;
      void **s = realloc(*set, nc * sizeof *s);
      if (!s)
        return kkg_error(c, KK_ERROR_OUT_OF_MEMORY, "graph: out of memory");
      *set = s;
      *cap = nc;
    }
    (*set)[(*n)++] = add[i];
  }
  return KK_OK;
}

/* What the planners queue for node d, on the recording instance. */
static kk_status_t queue_node(kkg_ctx_t *c, kkg_inst_t *in, const kk_graph_node_desc_t *d) {
  switch (d->kind) {
  case KK_GRAPH_NODE_KERNEL:
    return c->v->launch(c, in, d->launch);
  case KK_GRAPH_NODE_COPY:
    return d->bytes ? c->v->copy(c, in, d->dst, d->src, d->bytes) : KK_OK;
  case KK_GRAPH_NODE_FILL:
    return d->count ? c->v->fill(c, in, d->dst, d->pattern, d->pattern_size, d->count) : KK_OK;
  default:
    return kkg_error(c, KK_ERROR_INVALID_ARGUMENT, "graph: node kind %u", d->kind);
  }
}

/* Why the native graph cannot take node d, or NULL. */
static const char *refused(const kk_graph_node_desc_t *d) {
  if (d->kind == KK_GRAPH_NODE_KERNEL)
    return d->launch->result && d->launch->result_space == KK_PLUGIN_HOST_MEMORY ? "a result in host memory" : NULL;
  if (d->dst_space == KK_PLUGIN_HOST_MEMORY || (d->kind == KK_GRAPH_NODE_COPY && d->src_space == KK_PLUGIN_HOST_MEMORY))
    return "a copy or fill of ordinary (pageable) host memory";
  return NULL;
}

/* The capture of every node, with its edges; ends[i] (nends[i] nodes) what node i ended with. */
static kk_status_t capture_all(kkg_ctx_t *c, struct kkg_graph *g, const kk_graph_desc_t *desc, void ***ends,
                               size_t *nends) {
  kkg_inst_t *in = g->in;
  void **set = NULL;
  size_t nset = 0, capset = 0;
  int64_t last_user = -1;
  kk_status_t st = KK_OK;
  for (uint32_t i = 0; st == KK_OK && i < desc->node_count; i++) {
    const kk_graph_node_desc_t *d = &desc->nodes[i];
    const bool user = d->kind == KK_GRAPH_NODE_KERNEL && uses_buffers(d->launch);
    nset = 0;
    for (uint32_t k = 0; st == KK_OK && k < d->dep_count; k++)
      st = set_union(c, &set, &nset, &capset, ends[d->deps[k]], nends[d->deps[k]]);
    if (st == KK_OK && user && last_user >= 0)
      st = set_union(c, &set, &nset, &capset, ends[last_user], nends[last_user]);
    if (st != KK_OK)
      break;
    /* the first node's set is the capture's, empty */
    int r = i ? kks(c)->gapi.capture_deps(in->queue, set, nset, c->v->capture_set) : 0;
    if (r != 0 && nset == 0 && i > 0) /* a runtime that takes no empty set: after the node before, which is safe */
      r = kks(c)->gapi.capture_deps(in->queue, ends[i - 1], nends[i - 1], c->v->capture_set);
    if (r != 0) {
      st = kkg_fail(c, r, "%s(node %u, %zu dependencies)", kks(c)->gname[KKS_G_capture_deps], i, nset);
      break;
    }
    if ((st = queue_node(c, in, d)) != KK_OK || (st = capture_ends(c, in, &ends[i], &nends[i])) != KK_OK)
      break;
    /* a kernel node is the one node its launch ended with, when it added one */
    if (d->kind == KK_GRAPH_NODE_KERNEL && nends[i] == 1 && !has(set, nset, ends[i][0]))
      g->knode[i] = ends[i][0];
    if (user)
      last_user = i;
  }
  free(set);
  return st;
}

static void graph_free(kkg_ctx_t *c, struct kkg_graph *g) {
  if (g->exec)
    kks(c)->gapi.exec_destroy(g->exec);
  if (g->graph)
    kks(c)->gapi.graph_destroy(g->graph);
  if (g->in || g->nkept) /* a launch of the graph may still run: its buffers after it */
    (void)c->v->device_sync(c);
  if (g->in)
    kkg_inst_close(c, g->in);
  for (size_t i = 0; i < g->nkept; i++)
    c->v->free(c, KKG_MEM_DEVICE, g->kept[i]);
  free(g->kept);
  free(g->knode);
  free(g);
}

kk_status_t kkg_graph_create(void *ctx, const kk_graph_desc_t *desc, void **pgraph) {
  kkg_ctx_t *c = ctx;
  if (!c->v->graph_syms || kks(c)->graphs[0])
    return kkg_error(c, KK_ERROR_UNSUPPORTED, "graphs: %s",
                     c->v->graph_syms ? kks(c)->graphs : "this backend has no native graphs in kk");
  for (uint32_t i = 0; i < desc->node_count; i++) {
    const char *why = refused(&desc->nodes[i]);
    if (why)
      return kkg_error(c, KK_ERROR_UNSUPPORTED, "graph node %u: %s cannot be a node of a native graph", i, why);
  }
  kk_status_t st = kkg_bind(c);
  if (st != KK_OK)
    return st;
  struct kkg_graph *g = calloc(1, sizeof *g);
  void ***ends = calloc(desc->node_count, sizeof *ends);
  size_t *nends = calloc(desc->node_count, sizeof *nends);
  if (!g || !ends || !nends || !(g->knode = calloc(desc->node_count, sizeof *g->knode))) {
    free(g ? g->knode : NULL), free(g), free(ends), free(nends);
    return kkg_error(c, KK_ERROR_OUT_OF_MEMORY, "graph: out of memory for %u nodes", desc->node_count);
  }
  g->n = desc->node_count;
  int r = 0;
  if ((st = kkg_inst_open(c, g, &g->in)) == KK_OK) {
    if ((r = kks(c)->gapi.begin_capture(g->in->queue, c->v->capture_relaxed)) != 0) {
      st = kkg_fail(c, r, "%s", kks(c)->gname[KKS_G_begin_capture]);
    } else {
      st = capture_all(c, g, desc, ends, nends);
      /* the capture always ends, or the stream stays in capture mode */
      r = kks(c)->gapi.end_capture(g->in->queue, &g->graph);
      if (st == KK_OK && r != 0)
        st = kkg_fail(c, r, "%s", kks(c)->gname[KKS_G_end_capture]);
    }
  }
  if (st == KK_OK && (r = kks(c)->gapi.instantiate(&g->exec, g->graph, 0)) != 0)
    st = kkg_fail(c, r, "%s (%u nodes)", kks(c)->gname[KKS_G_instantiate], desc->node_count);
  for (uint32_t i = 0; i < desc->node_count; i++)
    free(ends[i]);
  free(ends), free(nends);
  if (st != KK_OK) {
    graph_free(c, g);
    /* the runtime would not take the graph as kk built it: the core replays it, correctly, with this reason */
    return st == KK_ERROR_OUT_OF_MEMORY ? st : KK_ERROR_UNSUPPORTED;
  }
  *pgraph = g;
  return KK_OK;
}

/* ---- running ---------------------------------------------------------------------------------- */

kk_status_t kkg_graph_launch(void *ctx, void *inst, void *pgraph) {
  kkg_ctx_t *c = ctx;
  kk_status_t st = kkg_bind(c);
  if (st != KK_OK)
    return st;
  struct kkg_graph *g = pgraph;
  kkg_inst_t *in = kkg_inst_of(c, inst);
  if (atomic_load_explicit(&c->lost_state, memory_order_relaxed))
    return kkg_lost(c);
  kkg_note(in, "(a graph's kernels)");
  KKS_GTRY(c, graph_launch, (g->exec, in->queue), "(%u nodes)", g->n);
  return KK_OK;
}

/* The new arguments go into the executable graph's node: the launch is
 * captured alone into a graph of its own, whose kernel node's parameters
 * (the runtime's struct, opaque here) replace the old node's. */
kk_status_t kkg_graph_update(void *ctx, void *pgraph, uint32_t node, const kk_launch_t *launch) {
  kkg_ctx_t *c = ctx;
  struct kkg_graph *g = pgraph;
  /* a scan's node comes with a memset of its status words: rebuilt whole */
  if (node >= g->n || !g->knode[node] || launch->kind == KK_KIND_SCAN)
    return KK_ERROR_UNSUPPORTED;
  kk_status_t st = kkg_bind(c);
  if (st != KK_OK)
    return st;
  _Alignas(16) unsigned char params[512]; /* CUDA_KERNEL_NODE_PARAMS, hipKernelNodeParams: under 100 bytes */
  void *tmp = NULL, **ends = NULL;
  size_t n = 0;
  int r = kks(c)->gapi.begin_capture(g->in->queue, c->v->capture_relaxed);
  if (r != 0)
    return kkg_fail(c, r, "%s", kks(c)->gname[KKS_G_begin_capture]);
  st = c->v->launch(c, g->in, launch);
  if (st == KK_OK)
    st = capture_ends(c, g->in, &ends, &n);
  r = kks(c)->gapi.end_capture(g->in->queue, &tmp);
  if (st == KK_OK && r != 0)
    st = kkg_fail(c, r, "%s", kks(c)->gname[KKS_G_end_capture]);
  if (st == KK_OK && n != 1)
    st = kkg_error(c, KK_ERROR_UNSUPPORTED, "graph update: the launch queued %zu nodes", n);
  if (st == KK_OK && (r = kks(c)->gapi.node_params(ends[0], params)) != 0)
    st = kkg_fail(c, r, "%s", kks(c)->gname[KKS_G_node_params]);
  if (st == KK_OK && (r = kks(c)->gapi.exec_node_params(g->exec, g->knode[node], params)) != 0)
    st = kkg_fail(c, r, "%s (node %u)", kks(c)->gname[KKS_G_exec_node_params], node);
  if (tmp)
    kks(c)->gapi.graph_destroy(tmp);
  free(ends);
  return st == KK_OK || st == KK_ERROR_OUT_OF_MEMORY ? st : KK_ERROR_UNSUPPORTED;
}

kk_status_t kkg_graph_destroy(void *ctx, void *pgraph) {
  kkg_ctx_t *c = ctx;
  kk_status_t st = kkg_bind(c);
  if (st == KK_OK)
    graph_free(c, pgraph);
  return st;
}
