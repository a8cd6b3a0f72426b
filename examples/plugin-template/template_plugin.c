/* examples/plugin-template/template_plugin.c -- a complete kk backend built outside kk: host memory, threads created per launch. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/*
 * This is the smallest backend that passes kk's conformance suite.  It uses
 * only the installed headers (<kk/plugin.h> and what it includes) and never
 * links libkk: everything it needs from the core arrives through the host
 * services table.  It is deliberately simple -- it creates its threads at
 * every launch -- so it is slower than the in-tree host backends; see
 * docs/plugin-guide.md for what a production backend adds.
 *
 * Build:   make            (uses `pkg-config kk`)
 * Use:     KOKKOS_PLUGIN_PATH=$PWD ./app --kokkos-device=template
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kk/plugin.h>

typedef struct tmpl_ctx {
  const kk_host_services_t *hs;
  int nthreads;
} tmpl_ctx_t;

static tmpl_ctx_t g_ctx;

/* ---- lifetime and devices ---------------------------------------------------------- */

static kk_status_t tmpl_init(const kk_host_services_t *hs, void **ctx) {
  g_ctx.hs = hs;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  g_ctx.nthreads = hs->config->num_threads > 0 ? hs->config->num_threads : (n > 0 ? (int)n : 1);
  const char *opt = hs->option(hs->core, "threads"); /* JSON: "backends": {"template": {"threads": 4}} */
  if (opt && atoi(opt) > 0)
    g_ctx.nthreads = atoi(opt);
  *ctx = &g_ctx;
  return KK_OK;
}

static void tmpl_finalize(void *ctx) { (void)ctx; }

static int32_t tmpl_device_count(void *ctx, const char **why_none) {
  (void)ctx, (void)why_none;
  return 1;
}

static kk_status_t tmpl_device_props(void *ctx, int32_t dev, kk_plugin_device_t *p) {
  tmpl_ctx_t *c = ctx;
  (void)dev;
  strcpy(p->name, "host CPU (template backend, threads per launch)");
  strcpy(p->vendor, "kk example");
  strcpy(p->arch, "host");
  p->preferred_layout = KK_LAYOUT_RIGHT; /* host memory: C order is fastest */
  p->concurrency = c->nthreads;
  p->warp_size = 1;
  p->max_team_size = 1;             /* teams of one thread: no team barrier needed */
  p->max_vector_length = 1 << 16;   /* vector loops run sequentially in each thread */
  p->scratch_max[0] = 1 << 20;      /* scratch is malloc'ed per launch */
  p->scratch_max[1] = 1 << 30;
  p->memory_bytes = 0;
  return KK_OK;
}

static kk_status_t tmpl_device_open(void *ctx, int32_t dev) {
  (void)ctx, (void)dev;
  return KK_OK;
}

/* ---- memory: one host space named "Host", as Kokkos tools expect ------------------- */

static int32_t tmpl_space_count(void *ctx) {
  (void)ctx;
  return 1;
}

static kk_status_t tmpl_space_props(void *ctx, int32_t s, kk_plugin_space_t *p) {
  (void)ctx, (void)s;
  strcpy(p->name, "Host");
  p->flags = KK_SPACE_HOST_ACCESSIBLE | KK_SPACE_DEVICE_ACCESSIBLE | KK_SPACE_DEFAULT;
  return KK_OK;
}

static kk_status_t tmpl_mem_alloc(void *ctx, int32_t s, size_t bytes, void **ptr) {
  tmpl_ctx_t *c = ctx;
  (void)s;
  if (posix_memalign(ptr, 64, bytes) != 0) {
    *ptr = NULL;
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "posix_memalign(%zu) failed", bytes);
  }
  return KK_OK;
}

static kk_status_t tmpl_mem_free(void *ctx, int32_t s, void *ptr) {
  (void)ctx, (void)s;
  free(ptr);
  return KK_OK;
}

static kk_status_t tmpl_mem_copy(void *ctx, void *inst, void *dst, int32_t ds, const void *src, int32_t ss,
                                 size_t bytes) {
  (void)ctx, (void)inst, (void)ds, (void)ss;
  memmove(dst, src, bytes);
  return KK_OK;
}

static kk_status_t tmpl_mem_set(void *ctx, void *inst, void *dst, int32_t s, int value, size_t bytes) {
  (void)ctx, (void)inst, (void)s;
  memset(dst, value, bytes);
  return KK_OK;
}

/* ---- instances: launches are synchronous, so an instance is only a token --------------- */

static kk_status_t tmpl_instance_create(void *ctx, void **inst) {
  (void)ctx;
  *inst = malloc(1);
  return *inst ? KK_OK : KK_ERROR_OUT_OF_MEMORY;
}

static kk_status_t tmpl_instance_destroy(void *ctx, void *inst) {
  (void)ctx;
  free(inst);
  return KK_OK;
}

static kk_status_t tmpl_fence(void *ctx, void *inst) {
  (void)ctx, (void)inst;
  return KK_OK;
}

static kk_status_t tmpl_fence_all(void *ctx) {
  (void)ctx;
  return KK_OK;
}

/* ---- launches ------------------------------------------------------------------------------ */

typedef struct part {
  const kk_launch_t *l;
  int t, nt;
  unsigned char *values;  /* nt partial values of value_size bytes */
  size_t vsize;
  pthread_barrier_t *barrier;
  kk_host_thread_t th;    /* what kernel code sees of this thread */
  int failed;             /* a team overran its scratch: */
  int level, per_thread;  /*   where, */
  uint64_t need, have;    /*   and by how much */
} part_t;

/* Team operations for teams of one thread: only the scratch overrun can happen. */
static void team_barrier(const kk_host_thread_t *th) { (void)th; }
static void team_allreduce(const kk_host_thread_t *th, void *v, uint32_t n, void (*join)(void *, const void *)) {
  (void)th, (void)v, (void)n, (void)join;
}
static void team_broadcast(const kk_host_thread_t *th, void *v, uint32_t n, int32_t root) {
  (void)th, (void)v, (void)n, (void)root;
}
static void team_scan(const kk_host_thread_t *th, void *v, void *total, uint32_t n, void (*join)(void *, const void *),
                      void (*init)(void *)) {
  (void)th, (void)join;
  if (total)
    memcpy(total, v, n);
  init(v);
}
static void team_overrun(const kk_host_thread_t *th, int32_t level, int32_t per_thread, uint64_t need, uint64_t have) {
  part_t *w = th->backend;
  w->failed = 1;
  w->level = level, w->per_thread = per_thread, w->need = need, w->have = have;
}
static const kk_host_team_ops_t team_ops = {team_barrier, team_allreduce, team_broadcast, team_scan, team_overrun};


/* The number of items a launch splits over threads: indices, rows of an
 * MDRange's first dimension, or league ranks. */
static int64_t items(const kk_launch_t *l) {
  if (l->kind == KK_KIND_MD_FOR || l->kind == KK_KIND_MD_REDUCE) {
    for (int d = 1; d < l->rank; d++)
      if (l->md_end[d] == l->md_begin[d])
        return 0; /* an empty box, however long its first dimension */
    return l->md_end[0] - l->md_begin[0];
  }
  if (l->kind == KK_KIND_TEAM_FOR || l->kind == KK_KIND_TEAM_REDUCE)
    return l->league_size;
  return l->end - l->begin;
}

static void *worker(void *p) {
  part_t *w = p;
  const kk_launch_t *l = w->l;
  const kk_kernel_t *k = l->kernel;
  int64_t b, e, n = items(l), q = n / w->nt, r = n % w->nt;
  b = w->t * q + (w->t < r ? w->t : r);
  e = b + q + (w->t < r ? 1 : 0);
  void *mine = w->values ? w->values + (size_t)w->t * w->vsize : NULL;
  if (mine)
    k->reducer->init(mine);
  switch (l->kind) {
  case KK_KIND_FOR:
    if (e > b)
      k->host_for(l->args, l->begin + b, l->begin + e, &w->th);
    break;
  case KK_KIND_REDUCE:
    if (e > b)
      k->host_reduce(l->args, l->begin + b, l->begin + e, mine, &w->th);
    break;
  case KK_KIND_SCAN: {
    /* pass 1: my block's total; then the prefix of the blocks before mine; pass 2 */
    if (e > b)
      k->host_scan(l->args, l->begin + b, l->begin + e, mine, 0, &w->th);
    pthread_barrier_wait(w->barrier);
    unsigned char *prefix = w->values + (size_t)(w->nt + 1 + w->t) * w->vsize;
    k->reducer->init(prefix);
    for (int t = 0; t < w->t; t++)
      k->reducer->join(prefix, w->values + (size_t)t * w->vsize);
    if (e > b)
      k->host_scan(l->args, l->begin + b, l->begin + e, prefix, 1, &w->th);
    break;
  }
  case KK_KIND_MD_FOR:
  case KK_KIND_MD_REDUCE: {
    /* my block of the first dimension, whole extents elsewhere; tiles only
     * tune performance, so this simple backend ignores them */
    int64_t lo[KK_MD_MAX_RANK], hi[KK_MD_MAX_RANK];
    for (int d = 0; d < l->rank; d++)
      lo[d] = l->md_begin[d], hi[d] = l->md_end[d];
    lo[0] = l->md_begin[0] + b;
    hi[0] = l->md_begin[0] + e;
    if (e > b)
      k->host_md(l->args, lo, hi, l->iterate_inner == KK_ITERATE_LEFT, mine, &w->th);
    break;
  }
  case KK_KIND_TEAM_FOR:
  case KK_KIND_TEAM_REDUCE:
    if (e > b && k->host_team(l->args, b, e, mine, &w->th))
      w->failed = 1;
    break;
  }
  return NULL;
}

static kk_status_t tmpl_launch(void *ctx, void *inst, const kk_launch_t *l) {
  tmpl_ctx_t *c = ctx;
  const kk_kernel_t *k = l->kernel;
  (void)inst;
  int ok = (l->kind == KK_KIND_FOR && k->host_for) || (l->kind == KK_KIND_REDUCE && k->host_reduce) ||
           (l->kind == KK_KIND_SCAN && k->host_scan) ||
           ((l->kind == KK_KIND_MD_FOR || l->kind == KK_KIND_MD_REDUCE) && k->host_md) ||
           ((l->kind == KK_KIND_TEAM_FOR || l->kind == KK_KIND_TEAM_REDUCE) && k->host_team);
  if (!ok)
    return c->hs->error(c->hs->core, KK_ERROR_UNSUPPORTED, NULL, 0,
                        "kernel '%s': kind %u without host code is not supported by this backend", k->name, l->kind);
  int reduces = l->kind == KK_KIND_REDUCE || l->kind == KK_KIND_SCAN || l->kind == KK_KIND_MD_REDUCE ||
                l->kind == KK_KIND_TEAM_REDUCE;
  int64_t n = items(l);
  int nt = n < c->nthreads ? (int)(n > 0 ? n : 1) : c->nthreads;
  size_t vsize = 0;
  unsigned char *values = NULL;
  if (reduces) {
    vsize = ((size_t)k->reducer->value_size + 63) & ~(size_t)63;
    /* nt partials, one spare, nt scan prefixes */
    if (posix_memalign((void **)&values, 64, vsize * (size_t)(2 * nt + 1)) != 0)
      return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "launch '%s': no memory", l->label);
  }
  pthread_t th[256];
  part_t parts[256];
  if (nt > 256)
    nt = 256;
  /* team kernels: every thread is a team of one, with its own scratch */
  size_t scratch = (size_t)(l->scratch_team[0] + l->scratch_team[1] + l->scratch_thread[0] + l->scratch_thread[1]);
  unsigned char *scr = NULL;
  if (scratch && !(scr = malloc(scratch * (size_t)nt))) {
    free(values);
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "launch '%s': no scratch memory", l->label);
  }
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, (unsigned)nt);
  for (int t = 0; t < nt; t++) {
    part_t *w = &parts[t];
    memset(w, 0, sizeof *w);
    w->l = l, w->t = t, w->nt = nt, w->values = values, w->vsize = vsize, w->barrier = &barrier;
    w->th.thread_id = t;
    w->th.nthreads = nt;
    w->th.team_rank = 0;
    w->th.team_size = 1;
    w->th.vector_length = l->vector_length > 0 ? l->vector_length : 1;
    w->th.league_size = l->league_size;
    unsigned char *mine = scr ? scr + (size_t)t * scratch : NULL;
    w->th.team_scratch[0] = mine;
    w->th.team_scratch[1] = mine ? mine + l->scratch_team[0] : NULL;
    w->th.thread_scratch[0] = mine ? mine + l->scratch_team[0] + l->scratch_team[1] : NULL;
    w->th.thread_scratch[1] = mine ? w->th.thread_scratch[0] + l->scratch_thread[0] : NULL;
    for (int lv = 0; lv < 2; lv++) {
      w->th.team_scratch_size[lv] = l->scratch_team[lv];
      w->th.thread_scratch_size[lv] = l->scratch_thread[lv];
    }
    w->th.ops = &team_ops;
    w->th.backend = w;
  }
  for (int t = 1; t < nt; t++)
    if (pthread_create(&th[t], NULL, worker, &parts[t]) != 0) {
      /* fewer threads than planned would break the scan barrier: give up cleanly */
      for (int u = 1; u < t; u++)
        pthread_join(th[u], NULL);
      pthread_barrier_destroy(&barrier);
      free(values);
      free(scr);
      return c->hs->error(c->hs->core, KK_ERROR_BACKEND, "errno", 0, "launch '%s': pthread_create failed",
                          l->label);
    }
  worker(&parts[0]); /* the calling thread is thread 0 */
  for (int t = 1; t < nt; t++)
    pthread_join(th[t], NULL);
  pthread_barrier_destroy(&barrier);
  free(scr);
  for (int t = 0; t < nt; t++)
    if (parts[t].failed) {
      part_t *w = &parts[t];
      free(values);
      return c->hs->error(c->hs->core, KK_ERROR_KERNEL_FAILED, NULL, 0,
                          "kernel '%s': %s scratch at level %d overrun: the kernel asked for %llu bytes %s, the launch "
                          "requested %llu",
                          k->name, w->per_thread ? "thread" : "team", w->level, (unsigned long long)w->need,
                          w->per_thread ? "per thread" : "per team", (unsigned long long)w->have);
    }
  if (reduces && l->kind != KK_KIND_SCAN) {
    if (n <= 0)
      k->reducer->init(values);
    for (int t = 1; t < nt; t++)
      k->reducer->join(values, values + (size_t)t * vsize);
    memcpy(l->result, values, k->reducer->value_size);
  } else if (l->kind == KK_KIND_SCAN && l->result) {
    /* the last thread's prefix after its second pass is the total */
    if (n <= 0)
      k->reducer->init(values + (size_t)(2 * nt) * vsize);
    memcpy(l->result, values + (size_t)(2 * nt) * vsize, k->reducer->value_size);
  }
  free(values);
  return KK_OK;
}

/* ---- the table and the entry point ----------------------------------------------------- */

static const kk_plugin_ops_t tmpl_ops = {
    .struct_size = sizeof(kk_plugin_ops_t),
    .abi_version = KK_PLUGIN_ABI_VERSION,
    .name = "template",
    .priority = 15, /* between serial (10) and threads (20): never chosen over a real host backend */
    .flags = KK_PLUGIN_FLAG_HOST,
    .tools_device_type = 32, /* third parties pick a value >= 32 */
    .init = tmpl_init,
    .finalize = tmpl_finalize,
    .device_count = tmpl_device_count,
    .device_props = tmpl_device_props,
    .device_open = tmpl_device_open,
    .space_count = tmpl_space_count,
    .space_props = tmpl_space_props,
    .mem_alloc = tmpl_mem_alloc,
    .mem_free = tmpl_mem_free,
    .mem_copy = tmpl_mem_copy,
    .mem_set = tmpl_mem_set,
    .instance_create = tmpl_instance_create,
    .instance_destroy = tmpl_instance_destroy,
    .instance_fence = tmpl_fence,
    .fence_all = tmpl_fence_all,
    .launch = tmpl_launch,
};

KK_PLUGIN_EXPORT const kk_plugin_ops_t *kk_plugin_template_entry(uint32_t core_abi, const kk_host_services_t *hs) {
  if (KK_PLUGIN_ABI_MAJOR_OF(core_abi) != KK_PLUGIN_ABI_MAJOR) {
    hs->error(hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0, "built for plugin ABI %d.x", KK_PLUGIN_ABI_MAJOR);
    return NULL;
  }
  return &tmpl_ops;
}
