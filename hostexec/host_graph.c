/* hostexec/host_graph.c -- a graph on a host backend: its nodes in one parallel region, barriers only between dependency levels. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "host_graph.h"
#include "host_memops.h"
#include "host_task.h"

/* A node as the plugin got it, and its plan. */
typedef struct gnode {
  uint32_t kind;            /* KK_GRAPH_NODE_* */
  uint32_t ndeps;
  const uint32_t *deps;     /* into the graph's dep store */
  kk_launch_t launch;       /* KERNEL: .args and .label point to the copies below */
  void *args;
  char *label;
  unsigned char pattern[16];
  kkh_memop_t mem;          /* COPY and FILL */
  kkh_task_t task;          /* KERNEL: cut up for the plan's threads */
  unsigned char *slots;     /* its partial values */
  size_t slots_bytes;
  struct kkh_team_cache *cache;
} gnode_t;

/* What every thread of the region does for one node at one level: its
 * share (tid < used) of fn(tid, used, arg); the thread that finishes the
 * last share delivers the node's value when `values` is set. */
typedef struct step {
  _Alignas(64) atomic_int left;
  int used;
  kkh_task_fn fn;
  void *arg;
  kkh_task_t *values;
  uint32_t level;
} step_t;

struct kkh_graph {
  uint32_t nnodes;
  gnode_t *nodes;
  uint32_t *dep_store;
  /* the plan */
  int nt;                   /* threads it is for; 0: none */
  int region;               /* threads the run's region needs */
  uint32_t nsteps, nlevels;
  step_t *steps;            /* 2 * nnodes, the first nsteps in level order */
  step_t *scratch;          /* 2 * nnodes, for the sort */
  uint32_t *level_end;      /* steps of level v: [level_end[v - 1], level_end[v]) */
  int32_t *done_at;         /* per node: the level its last step runs at (-1: before any) */
  kkh_exec_t *ex;           /* of the run in progress */
};

static void node_release(gnode_t *n) {
  free(n->args);
  free(n->label);
  free(n->slots);
  kkh_team_cache_free(n->cache);
}

void kkh_graph_destroy(kkh_graph_t *g) {
  if (!g)
    return;
  for (uint32_t i = 0; i < g->nnodes; i++)
    node_release(&g->nodes[i]);
  free(g->nodes);
  free(g->dep_store);
  free(g->steps);
  free(g->scratch);
  free(g->level_end);
  free(g->done_at);
  free(g);
}

static kk_status_t oom(const kk_host_services_t *hs, const char *what) {
  return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "graph: out of memory for %s", what);
}

/* ---- the plan ----------------------------------------------------------------------------------- */

static step_t *add_step(kkh_graph_t *g, uint32_t level, kkh_task_fn fn, void *arg, int used, kkh_task_t *values) {
  step_t *s = &g->scratch[g->nsteps++];
  s->level = level;
  s->fn = fn;
  s->arg = arg;
  s->used = used;
  s->values = values;
  if (level + 1 > g->nlevels)
    g->nlevels = level + 1;
  if (used > g->region)
    g->region = used;
  return s;
}

/* A kernel node cut up for nt threads, with the memory its shares need. */
static kk_status_t plan_kernel(kkh_graph_t *g, const kk_host_services_t *hs, gnode_t *n, int nt, uint32_t start,
                               int32_t *done) {
  kkh_task_t *T = &n->task;
  kk_status_t st = kkh_task_plan(T, hs, &n->launch, nt);
  if (st != KK_OK)
    return st;
  if (T->reduces) {
    size_t bytes = T->slot * KKH_NSLOTS(T->used);
    if (bytes > n->slots_bytes) {
      free(n->slots);
      n->slots = NULL;
      n->slots_bytes = 0;
      if (posix_memalign((void **)&n->slots, 64, bytes) != 0)
        return oom(hs, "partial values");
      n->slots_bytes = bytes;
    }
  }
  T->slots = n->slots;
  if (T->nteams) {
    if ((st = kkh_team_cache_prepare(&n->cache, nt, hs, &n->launch, T->nteams, T->team_size)) != KK_OK)
      return st;
    T->cache = n->cache;
  }
  kkh_task_t *values = T->reduces && n->launch.result ? T : NULL;
  if (T->n <= 0) {
    if (values) /* the identity, from one thread */
      add_step(g, start, NULL, T, 1, values);
    *done = values ? (int32_t)start : (int32_t)start - 1;
  } else if (n->launch.kind == KK_KIND_SCAN && T->used > 1) {
    add_step(g, start, kkh_scan_pass1, T, T->used, NULL);
    add_step(g, start + 1, kkh_scan_pass2, T, T->used, values);
    *done = (int32_t)start + 1;
  } else {
    add_step(g, start, T->task, T, T->used, values);
    *done = (int32_t)start;
  }
  return KK_OK;
}

/* Cuts every node up for nt threads and orders the steps by level: a node's
 * steps start one level after the last of its dependencies' end. */
static kk_status_t plan(kkh_graph_t *g, const kk_host_services_t *hs, int nt) {
  g->nt = 0;
  g->nsteps = g->nlevels = 0;
  g->region = 1;
  for (uint32_t i = 0; i < g->nnodes; i++) {
    gnode_t *n = &g->nodes[i];
    int32_t after = -1;
    for (uint32_t k = 0; k < n->ndeps; k++)
      if (g->done_at[n->deps[k]] > after)
        after = g->done_at[n->deps[k]];
    const uint32_t start = (uint32_t)(after + 1);
    if (n->kind == KK_GRAPH_NODE_KERNEL) {
      kk_status_t st = plan_kernel(g, hs, n, nt, start, &g->done_at[i]);
      if (st != KK_OK)
        return st;
    } else if (n->mem.bytes == 0) {
      g->done_at[i] = after; /* nothing to do: no level of its own */
    } else {
      add_step(g, start, kkh_memop_task, &n->mem, kkh_memop_threads(&n->mem, nt), NULL);
      g->done_at[i] = (int32_t)start;
    }
  }
  /* counting sort of the steps by level, stable */
  memset(g->level_end, 0, sizeof *g->level_end * (g->nlevels + 1));
  for (uint32_t s = 0; s < g->nsteps; s++)
    g->level_end[g->scratch[s].level + 1]++;
  for (uint32_t v = 0; v < g->nlevels; v++)
    g->level_end[v + 1] += g->level_end[v];
  for (uint32_t s = 0; s < g->nsteps; s++)
    g->steps[g->level_end[g->scratch[s].level]++] = g->scratch[s];
  /* level_end[v] now holds the end of level v */
  if (g->region > nt)
    g->region = nt;
  g->nt = nt;
  return KK_OK;
}

kk_status_t kkh_graph_create(const kk_host_services_t *hs, const kk_graph_desc_t *d, int nthreads,
                             kkh_graph_t **out) {
  *out = NULL;
  if (!d || d->struct_size < sizeof *d || (d->node_count && !d->nodes))
    return hs->error(hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0, "graph_create: malformed graph description");
  kkh_graph_t *g = calloc(1, sizeof *g);
  if (!g)
    return oom(hs, "the graph");
  const uint32_t nn = d->node_count;
  size_t ndeps = 0;
  for (uint32_t i = 0; i < nn; i++)
    ndeps += d->nodes[i].dep_count;
  g->nnodes = nn;
  g->nodes = calloc(nn ? nn : 1, sizeof *g->nodes);
  g->dep_store = malloc(sizeof *g->dep_store * (ndeps ? ndeps : 1));
  g->steps = aligned_alloc(64, sizeof *g->steps * (2 * (size_t)nn + 1));
  g->scratch = malloc(sizeof *g->scratch * (2 * (size_t)nn + 1));
  g->level_end = malloc(sizeof *g->level_end * (2 * (size_t)nn + 2));
  g->done_at = malloc(sizeof *g->done_at * (nn ? nn : 1));
  kk_status_t st = KK_OK;
  if (!g->nodes || !g->dep_store || !g->steps || !g->scratch || !g->level_end || !g->done_at) {
    st = oom(hs, "the graph");
    goto fail_destroy;
  }
  size_t at = 0;
  for (uint32_t i = 0; i < nn; i++) {
    const kk_graph_node_desc_t *x = &d->nodes[i];
    gnode_t *n = &g->nodes[i];
    n->kind = x->kind;
    n->ndeps = x->dep_count;
    n->deps = g->dep_store + at;
    for (uint32_t k = 0; k < x->dep_count; k++) {
      if (!x->deps || x->deps[k] >= i) {
        st = hs->error(hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0,
                       "graph_create: node %u depends on node %u, which does not come before it", i,
                       x->deps ? x->deps[k] : 0);
        goto fail_destroy;
      }
      g->dep_store[at++] = x->deps[k];
    }
    if (x->kind == KK_GRAPH_NODE_KERNEL && x->launch) {
      n->launch = *x->launch;
      n->label = strdup(x->launch->label ? x->launch->label : x->launch->kernel->name);
      n->args = malloc(x->launch->args_size ? x->launch->args_size : 1);
      if (!n->label || !n->args) {
        st = oom(hs, "a node");
        goto fail_destroy;
      }
      memcpy(n->args, x->launch->args, x->launch->args_size);
      n->launch.args = n->args;
      n->launch.label = n->label;
    } else if (x->kind == KK_GRAPH_NODE_COPY) {
      kkh_memop_init_copy(&n->mem, x->dst, x->src, x->bytes);
    } else if (x->kind == KK_GRAPH_NODE_FILL) {
      const uint32_t ps = x->pattern_size;
      if (ps != 1 && ps != 2 && ps != 4 && ps != 8 && ps != 16) {
        st = hs->error(hs->core, KK_ERROR_UNSUPPORTED, NULL, 0, "graph_create: fill pattern of %u bytes", ps);
        goto fail_destroy;
      }
      memcpy(n->pattern, x->pattern, ps);
      kkh_memop_init_fill(&n->mem, x->dst, n->pattern, ps, x->count);
    } else {
      st = hs->error(hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0, "graph_create: node %u has kind %u%s", i, x->kind,
                     x->kind == KK_GRAPH_NODE_KERNEL ? " and no launch" : "");
      goto fail_destroy;
    }
  }
  if ((st = plan(g, hs, nthreads > 0 ? nthreads : 1)) != KK_OK)
    goto fail_destroy;
  *out = g;
  return KK_OK;

fail_destroy:
  kkh_graph_destroy(g);
  return st;
}

/* ---- a run ---------------------------------------------------------------------------------------- */

static inline void run_step(step_t *s, int tid) {
  if (tid >= s->used)
    return;
  if (s->fn)
    s->fn(tid, s->used, s->arg);
  if (s->values && atomic_fetch_sub_explicit(&s->left, 1, memory_order_acq_rel) == 1)
    kkh_task_values(s->values);
}

static void graph_task(int tid, int nt, void *arg) {
  kkh_graph_t *g = arg;
  uint32_t s = 0;
  for (uint32_t v = 0; v < g->nlevels; v++) {
    for (; s < g->level_end[v]; s++)
      run_step(&g->steps[s], tid);
    if (nt > 1 && v + 1 < g->nlevels)
      g->ex->barrier(g->ex, tid, nt);
  }
}

kk_status_t kkh_graph_run(kkh_exec_t *ex, const kk_host_services_t *hs, kkh_graph_t *g) {
  if (g->nt != ex->nthreads) {
    kk_status_t st = plan(g, hs, ex->nthreads);
    if (st != KK_OK)
      return st;
  }
  for (uint32_t s = 0; s < g->nsteps; s++)
    atomic_store_explicit(&g->steps[s].left, g->steps[s].used, memory_order_relaxed);
  for (uint32_t i = 0; i < g->nnodes; i++) {
    gnode_t *n = &g->nodes[i];
    if (n->kind != KK_GRAPH_NODE_KERNEL)
      continue;
    atomic_store_explicit(&n->task.next, 0, memory_order_relaxed);
    if (n->task.cache)
      kkh_team_cache_reset(n->task.cache);
  }
  g->ex = ex;
  if (g->region <= 1)
    graph_task(0, 1, g);
  else
    ex->parallel(ex, g->region, graph_task, g);
  g->ex = NULL;
  for (uint32_t i = 0; i < g->nnodes; i++)
    if (g->nodes[i].task.cache) {
      kk_status_t st = kkh_task_status(&g->nodes[i].task, hs);
      if (st != KK_OK)
        return st;
    }
  return KK_OK;
}

/* Does launch b cut up differently from a (another range, policy or result)? */
static int reshaped(const kk_launch_t *a, const kk_launch_t *b) {
  if (a->begin != b->begin || a->end != b->end || a->chunk != b->chunk || a->schedule != b->schedule ||
      a->result != b->result || a->result_space != b->result_space || a->league_size != b->league_size ||
      a->team_size != b->team_size || a->vector_length != b->vector_length || a->rank != b->rank ||
      a->iterate_inner != b->iterate_inner || a->iterate_outer != b->iterate_outer)
    return 1;
  for (int d = 0; d < KK_MD_MAX_RANK; d++)
    if (a->md_begin[d] != b->md_begin[d] || a->md_end[d] != b->md_end[d] || a->md_tile[d] != b->md_tile[d])
      return 1;
  for (int lv = 0; lv < 2; lv++)
    if (a->scratch_team[lv] != b->scratch_team[lv] || a->scratch_thread[lv] != b->scratch_thread[lv])
      return 1;
  return 0;
}

kk_status_t kkh_graph_update(const kk_host_services_t *hs, kkh_graph_t *g, uint32_t node, const kk_launch_t *l) {
  if (node >= g->nnodes || g->nodes[node].kind != KK_GRAPH_NODE_KERNEL)
    return hs->error(hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0, "graph_update: node %u is not a kernel node", node);
  gnode_t *n = &g->nodes[node];
  if (l->kernel != n->launch.kernel || l->kind != n->launch.kind || l->args_size != n->launch.args_size)
    return KK_ERROR_UNSUPPORTED;
  if (reshaped(&n->launch, l)) {
    n->launch = *l;
    n->launch.args = n->args;
    n->launch.label = n->label;
    g->nt = 0; /* plan again at the next run */
  }
  memcpy(n->args, l->args, l->args_size);
  return KK_OK;
}
