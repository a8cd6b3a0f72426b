/* plugins/gpu/gpu_simt.c -- the SIMT backends' side of the GPU layer (cuda, hip): the native calls they mean alike, made once through kks_api_t, and launch planning for every kind -- grids, blocks, shared memory, partials, mapped result slots. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "gpu_remap.h"

static inline kks_ctx_t *kks(const kkg_ctx_t *c) { return (kks_ctx_t *)(void *)c; }
static inline const kkg_device_t *dev(const kkg_ctx_t *c) { return kkg_device(c, c->dev); }

/* ---- the native calls ------------------------------------------------------------------------------ */

#define KKS_ENUM(name, params) KKS_##name,
enum { KKS_CALLS(KKS_ENUM) };
#define KKS_OFF(name, params) offsetof(kks_api_t, name),
static const size_t kks_offs[KKS_N] = {KKS_CALLS(KKS_OFF)};
/* A native call through the table; its symbol names it in the message. */
#define KKS_TRY(c, CALL, args, fmt, ...) KKG_TRY(c, kks(c)->api.CALL args, "%s" fmt, kks(c)->name[KKS_##CALL], __VA_ARGS__)

bool kks_resolve(kkg_ctx_t *c, const char *missing) {
  kks_ctx_t *s = kks(c);
  char *save = NULL;
  size_t i = 0;
  snprintf(s->sym, sizeof s->sym, "%s", c->v->simt_syms);
  for (char *t = strtok_r(s->sym, " ", &save); t && i < KKS_N; t = strtok_r(NULL, " ", &save))
    s->name[i++] = t;
  if (!kkg_dlsyms(c, c->v->simt_syms, kks_offs, &s->api, missing))
    return false;
  kks_graph_resolve(c);
  return true;
}

kk_status_t kks_alloc(kkg_ctx_t *c, int kind, size_t bytes, void **p) {
  const unsigned host = kind == KKG_MEM_MAPPED ? c->v->mapped_flags : c->v->host_flags;
  if (kind == KKG_MEM_DEVICE)
    KKS_TRY(c, alloc, (p, bytes), "(%zu bytes)", bytes);
  else if (kind == KKG_MEM_MANAGED)
    KKS_TRY(c, alloc_managed, (p, bytes, c->v->managed_flags), "(%zu bytes)", bytes);
  else
    KKS_TRY(c, alloc_host, (p, bytes, host), "(%zu bytes)", bytes);
  return KK_OK;
}

kk_status_t kks_free(kkg_ctx_t *c, int kind, void *p) {
  if (kind == KKG_MEM_HOST || kind == KKG_MEM_MAPPED)
    KKS_TRY(c, free_host, (p), "(%p)", p);
  else
    KKS_TRY(c, free, (p), "(%p)", p);
  return KK_OK;
}

kk_status_t kks_map(kkg_ctx_t *c, void *host, void **devp) {
  KKS_TRY(c, host_map, (devp, host, 0), " of result slots (%p)", host);
  return KK_OK;
}

/* Patterns of 1, 2 and 4 bytes are plain memsets; wider ones the vendor's
 * (fill_wide), else the pattern written once and doubled by stream-ordered
 * copies (elements [0, k) to [k, 2k)): log2(count) copies, nothing staged. */
kk_status_t kks_fill(kkg_ctx_t *c, kkg_inst_t *in, void *dst, const void *pattern, size_t psize, size_t count) {
  unsigned short v16;
  unsigned v32;
  if (psize == 1)
    KKS_TRY(c, memset8, (dst, *(const unsigned char *)pattern, count, in->queue), "(%zu bytes)", count);
  else if (psize == 2 && memcpy(&v16, pattern, 2))
    KKS_TRY(c, memset16, (dst, v16, count, in->queue), "(%zu elements)", count);
  else if (psize == 4 && memcpy(&v32, pattern, 4))
    KKS_TRY(c, memset32, (dst, v32, count, in->queue), "(%zu elements)", count);
  else if (c->v->fill_wide)
    return c->v->fill_wide(c, in, dst, pattern, psize, count);
  else {
    unsigned char *d = dst;
    /* the first element from the host: pageable memory, so the copy is
     * staged before it returns and `pattern` may go */
    kk_status_t st = c->v->copy(c, in, d, pattern, psize);
    for (size_t have = 1; st == KK_OK && have < count;) {
      const size_t n = have <= count - have ? have : count - have;
      st = c->v->copy(c, in, d + have * psize, d, n * psize);
      have += n;
    }
    return st;
  }
  return KK_OK;
}

/* ---- copies between layouts (gpu_remap.cu) ----------------------------------------------------------- */

/* The launch's `extra` list for a vendor that takes a kernel's parameters
 * packed in one buffer (HIP: its markers around buf and its size), built in
 * ex; NULL for a vendor that takes pointers to the parameters. */
static inline void **packed_args(const kkg_ctx_t *c, void *ex[5], void *buf, size_t *size) {
  void *const *mark = c->v->packed;
  if (!mark)
    return NULL;
  ex[0] = mark[0], ex[1] = buf, ex[2] = mark[1], ex[3] = size, ex[4] = mark[2];
  return ex;
}

static pthread_mutex_t remap_lock = PTHREAD_MUTEX_INITIALIZER;

/* The kernel kind (0 tile, 1 any) for words of 2^wl bytes, loaded on first use. */
static kk_status_t remap_function(kkg_ctx_t *c, int kind, int wl, void **fn) {
  kks_ctx_t *s = kks(c);
  kk_status_t st = KK_OK;
  pthread_mutex_lock(&remap_lock);
  if (!s->remap_module && !s->remap_failed) {
    /* an image the device cannot run (no cubin or PTX for it): the core
     * stages these copies through the host instead, as without the image */
    const int code = s->api.module_load(&s->remap_module, c->v->remap_image);
    if (code != 0) {
      s->remap_module = NULL;
      s->remap_failed = true;
      c->hs->log(c->hs->core, KK_LOG_DEBUG, "%s of the copy-between-layouts kernels failed (%s): staged through the host",
                 s->name[KKS_module_load], kkg_code_name(c, code));
    }
  }
  if (!s->remap_module)
    st = KK_ERROR_UNSUPPORTED;
  if (st == KK_OK && !s->remap_fn[kind][wl]) {
    char name[32];
    snprintf(name, sizeof name, "kk_remap_%s_%d", kind ? "any" : "tile", 1 << wl);
    const int code = s->api.function(&s->remap_fn[kind][wl], s->remap_module, name);
    if (code != 0) {
      s->remap_fn[kind][wl] = NULL;
      st = kkg_fail(c, code, "%s(%s)", s->name[KKS_function], name);
    }
  }
  *fn = s->remap_fn[kind][wl];
  pthread_mutex_unlock(&remap_lock);
  return st;
}

void kks_remap_release(kkg_ctx_t *c) {
  kks_ctx_t *s = kks(c);
  if (s->remap_module)
    (void)s->api.module_unload(s->remap_module);
  s->remap_module = NULL;
  s->remap_failed = false;
  memset(s->remap_fn, 0, sizeof s->remap_fn);
}

kk_status_t kks_remap(kkg_ctx_t *c, kkg_inst_t *in, const kk_plugin_remap_t *r) {
  if (!c->v->remap_image)
    return KK_ERROR_UNSUPPORTED;
  kkg_remap_plan_t p;
  if (!kkg_remap_plan(r, false, &p))
    return KK_OK;
  void *fn;
  kk_status_t st = remap_function(c, p.kind, p.wl, &fn);
  if (st != KK_OK)
    return st;
  /* the struct is the kernel's one parameter: packed, the buffer is the struct itself */
  void *params[] = {&p.a}, *ex[5];
  size_t size = sizeof p.a;
  void **extra = packed_args(c, ex, &p.a, &size);
  const unsigned gx = (unsigned)p.groups, bx = p.kind == KKG_REMAP_KIND_TILE ? KKG_REMAP_TILE : KKG_REMAP_ANY;
  const unsigned by = p.kind == KKG_REMAP_KIND_TILE ? KKG_REMAP_ROWS : 1;
  KKS_TRY(c, launch, (fn, gx, 1, 1, bx, by, 1, 0, in->queue, extra ? NULL : params, extra),
          " of a copy between layouts (%lld words)", (long long)p.words);
  return KK_OK;
}

kk_status_t kks_queue_create(kkg_ctx_t *c, kkg_inst_t *in) {
  KKS_TRY(c, stream_create, (&in->queue, c->v->stream_flags), "(flags %u)", c->v->stream_flags);
  return KK_OK;
}

void kks_queue_destroy(kkg_ctx_t *c, kkg_inst_t *in) {
  if (in->queue) {
    kks(c)->api.stream_sync(in->queue);
    kks(c)->api.stream_destroy(in->queue);
  }
}

kk_status_t kks_queue_sync(kkg_ctx_t *c, kkg_inst_t *in) {
  KKS_TRY(c, stream_sync, (in->queue), "%s", "");
  return KK_OK;
}

kk_status_t kks_queue_query(kkg_ctx_t *c, kkg_inst_t *in, bool *done) {
  const int r = kks(c)->api.stream_query(in->queue);
  *done = r == 0;
  if (r != 0 && r != c->v->not_ready)
    return kkg_fail(c, r, "%s: waiting for a result", kks(c)->name[KKS_stream_query]);
  return KK_OK;
}

kk_status_t kks_mark_create(kkg_ctx_t *c, kkg_inst_t *in) {
  KKS_TRY(c, event_create, (&in->mark, c->v->event_flags), "(flags %u)", c->v->event_flags);
  return KK_OK;
}

void kks_mark_destroy(kkg_ctx_t *c, kkg_inst_t *in) {
  (void)kks(c)->api.event_destroy(in->mark); /* released by the runtime once a pending record completes */
  in->mark = NULL;
}

/* waited's event recorded after what is queued on it, and waiter's stream
 * waiting for that record.  Two threads ordering after one instance at once
 * may each wait for the other's (later) record: a little more of waited's
 * work, never less. */
kk_status_t kks_order(kkg_ctx_t *c, kkg_inst_t *waiter, kkg_inst_t *waited) {
  KKS_TRY(c, event_record, (waited->mark, waited->queue), "%s", "");
  KKS_TRY(c, stream_wait_event, (waiter->queue, waited->mark, 0u), "%s", "");
  return KK_OK;
}

kk_status_t kks_device_sync(kkg_ctx_t *c) {
  KKS_TRY(c, device_sync, (), "%s", "");
  return KK_OK;
}

kk_status_t kks_module_load(kkg_ctx_t *c, const kk_module_t *m, const void *image, void **handle, int *code) {
  if ((*code = kks(c)->api.module_load(handle, image)) != 0)
    return KK_ERROR_BACKEND; /* the vendor says what failed */
  kk_status_t st = kkg_simt_module_check(c, m, *handle);
  if (st != KK_OK)
    kks(c)->api.module_unload(*handle);
  return st;
}

int kks_module_unload(kkg_ctx_t *c, void *handle) { return kks(c)->api.module_unload(handle); }

kk_status_t kks_function(kkg_ctx_t *c, void *handle, const char *name, bool quiet, void **fn, int *max_threads,
                         int *pref) {
  const int r = kks(c)->api.function(fn, handle, name);
  (void)pref;
  if (r != 0 && quiet) {
    *fn = NULL;
    return KK_OK;
  }
  KKS_TRY(c, function, (fn, handle, name), "(%s)", name);
  if (kks(c)->api.func_attribute(max_threads, c->v->attr_max_threads, *fn) != 0 || *max_threads <= 0)
    *max_threads = dev(c)->max_threads;
  return KK_OK;
}

/* ---- modules and kernels -------------------------------------------------------------------- */

kk_status_t kkg_simt_module_check(kkg_ctx_t *c, const kk_module_t *m, void *handle) {
  void *p = NULL;
  size_t bytes;
  int version = 0;
  if (kks(c)->api.global(&p, &bytes, handle, "kk__gpu_launch_version") != 0 ||
      kkg_sync_copy(c, c->def, &version, p, sizeof version) != KK_OK || version != KK_GPU_LAUNCH_VERSION)
    return kkg_error(c, KK_ERROR_ABI_MISMATCH,
                     "module %s was compiled for GPU launch record %d, this plugin fills version %d: rebuild it",
                     m->source_name, version, KK_GPU_LAUNCH_VERSION);
  kk_status_t st = KK_OK;
  if (kks(c)->api.global(&p, &bytes, handle, "kk__dev_locks") == 0)
    st = kkg_sync_copy(c, c->def, p, &c->locks, sizeof c->locks);
  /* a module built with kkcc --bounds-check: the context's failure word and
   * record (kk/target/simt.h; read at fences by gpu.c's check_bounds) */
  if (st == KK_OK && kks(c)->api.global(&p, &bytes, handle, "kk__bc_word") == 0) {
    void *word = c->def->small + KKG_BC_WORD_AT;
    st = kkg_sync_copy(c, c->def, p, &word, sizeof word);
  }
  if (st == KK_OK && kks(c)->api.global(&p, &bytes, handle, "kk__bc_record") == 0) {
    void *rec = c->def->results_dev ? c->def->results_dev + KKG_BC_AT : NULL;
    st = kkg_sync_copy(c, c->def, p, &rec, sizeof rec);
  }
  return st;
}

kk_status_t kkg_simt_kernel_get(kkg_ctx_t *c, void *handle, const kk_kernel_t *kernel, kkg_kernel_t *k) {
  char name[300];
  if (c->v->max_args && kernel->args_size + sizeof(kk_gpu_launch) + 8 > c->v->max_args)
    return kkg_error(c, KK_ERROR_LIMIT,
                     "kernel %s: its argument struct (%u bytes) and the launch record exceed the %zu bytes of kernel "
                     "arguments the device takes",
                     kernel->name, kernel->args_size, c->v->max_args);
  snprintf(name, sizeof name, "kk_k_%s", kernel->name);
  kk_status_t st = kks_function(c, handle, name, false, &k->fn, &k->max_threads, NULL);
  if (st == KK_OK && kernel->kind == KK_KIND_MD_FOR) { /* images from before the direct entry have none */
    snprintf(name, sizeof name, "kk_kd_%s", kernel->name);
    st = kks_function(c, handle, name, true, &k->fn2, &k->max_threads2, NULL);
  }
  const int bound = kernel->kind == KK_KIND_MD_FOR || kernel->kind == KK_KIND_MD_REDUCE ? 256 : dev(c)->max_threads;
  if (k->max_threads > bound) /* MDRange entries are bounded to 256 threads (KK__MD_BOUNDS in kk/target/simt.h) */
    k->max_threads = bound;
  return st;
}

/* Runs fn with the argument struct and L as its two parameters, packed in a
 * buffer on the stack where the vendor wants them so (the record 8-byte
 * aligned after the arguments): the launch path allocates nothing. */
static kk_status_t run(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kkg_kernel_t *k, void *fn,
                       const kk_gpu_launch *L, const unsigned grid[3], const unsigned block[3], uint64_t smem) {
  const uint64_t have = dev(c)->smem;
  if (!c->v->smem_optin && have && smem > have)
    return kkg_error(c, KK_ERROR_LIMIT, "launch '%s' needs %llu bytes of shared memory per block, the device has %llu",
                     l->label, (unsigned long long)smem, (unsigned long long)have);
  /* Beyond 48 KiB a kernel opts in.  Launches of one kernel from several
   * threads may opt in at once (the vendor's call is idempotent); the
   * record only grows, so that a smaller opt-in never hides a larger one. */
  if (c->v->smem_optin && smem > 48 * 1024 &&
      (int)smem > atomic_load_explicit(&k->smem_set, memory_order_relaxed)) {
    KKG_TRY(c, c->v->set_smem(c, fn, (int)smem), "allowing %llu bytes of shared memory", (unsigned long long)smem);
    int seen = atomic_load_explicit(&k->smem_set, memory_order_relaxed);
    while (seen < (int)smem &&
           !atomic_compare_exchange_weak_explicit(&k->smem_set, &seen, (int)smem, memory_order_relaxed,
                                                  memory_order_relaxed))
      ;
  }
  void *params[2] = {(void *)l->args, (void *)L}, *ex[5];
  _Alignas(16) unsigned char buf[4096];
  size_t size = (((size_t)l->kernel->args_size + 7) & ~(size_t)7) + sizeof *L;
  void **extra = packed_args(c, ex, buf, &size);
  if (extra) {
    memcpy(buf, l->args, l->kernel->args_size);
    memcpy(buf + size - sizeof *L, L, sizeof *L);
  }
  KKS_TRY(c, launch, (fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], (unsigned)smem, in->queue,
                 extra ? NULL : params, extra),
          "(%s: %ux%ux%u blocks of %ux%ux%u threads, %llu bytes of shared memory)", l->label, grid[0], grid[1],
          grid[2], block[0], block[1], block[2], (unsigned long long)smem);
  return KK_OK;
}

/* ---- launching ---------------------------------------------------------------------------------- */

/* Largest grid of blocks of `threads`. */
static int64_t grid_cap(const kkg_ctx_t *c, unsigned threads) {
  const int64_t items = c->v->max_items ? (int64_t)(c->v->max_items / (threads ? threads : 1)) : c->v->max_blocks;
  return items < c->v->max_blocks ? items : c->v->max_blocks;
}

static kk_status_t go(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kkg_kernel_t *k, kk_gpu_launch *L,
                      int64_t blocks, unsigned bx, unsigned by, unsigned bz, uint64_t smem) {
  const unsigned grid[3] = {(unsigned)blocks, 1, 1}, block[3] = {bx, by, bz};
  return run(c, in, l, k, k->fn, L, grid, block, smem);
}

/* Threads per block for n items (a multiple of the warp, at most 256). */
static unsigned block_for(const kkg_ctx_t *c, const kkg_kernel_t *k, int64_t n) {
  const unsigned w = (unsigned)dev(c)->warp;
  unsigned t = 256;
  if (n < 256)
    t = n <= w ? w : (unsigned)((n + w - 1) / w) * w;
  if ((int)t > k->max_threads)
    t = (unsigned)k->max_threads / w * w;
  return t ? t : w;
}

/* Where a reduction's value goes: a mapped slot of host memory (synchronous
 * result) or the caller's device memory. */
typedef struct result_target {
  void *host_slot;
  volatile unsigned long long *flag; /* in the host slot: equals seq once the value is there */
  unsigned long long seq;
  size_t size;
  bool sync;
} result_target_t;

/* with_flag: the kernel ends in kk__reduce_finish, which sets the slot's flag. */
static kk_status_t result_prepare(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kk_gpu_launch *L,
                                  result_target_t *rt, bool with_flag) {
  const uint32_t vs = l->kernel->reducer->value_size;
  rt->size = vs;
  rt->sync = l->result_space == KK_PLUGIN_HOST_MEMORY;
  rt->host_slot = NULL;
  rt->flag = NULL;
  L->result_flag = NULL;
  if (!l->result) {
    L->result = NULL;
    return KK_OK;
  }
  if (!rt->sync) {
    L->result = l->result; /* a view in one of our spaces: written in stream order */
    return KK_OK;
  }
  if (vs <= KKG_RESULT_VALUE_BYTES) {
    const size_t at = (size_t)(atomic_fetch_add(&in->next_slot, 1u) % KKG_RESULT_SLOTS) * KKG_RESULT_SLOT_BYTES;
    rt->host_slot = in->results + at;
    L->result = in->results_dev + at;
    if (with_flag) {
      rt->seq = atomic_fetch_add(&in->result_seq, 1ull) + 1;
      rt->flag = (volatile unsigned long long *)(in->results + at + KKG_RESULT_VALUE_BYTES);
      L->result_flag = (unsigned long long *)(void *)(in->results_dev + at + KKG_RESULT_VALUE_BYTES);
      L->result_seq = rt->seq;
    }
    return KK_OK;
  }
  /* a large value: through device memory and a copy */
  kk_status_t st = kkg_grow(c, in, &in->partials2, vs, false);
  L->result = in->partials2.ptr;
  return st;
}

static kk_status_t result_finish(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, const kk_gpu_launch *L,
                                 const result_target_t *rt) {
  if (!rt->sync || !l->result)
    return KK_OK;
  if (rt->flag) {
    /* Wait for the value's flag, asking the stream now and then so that a
     * failed kernel (which never sets it) is reported, not waited for. */
    for (unsigned spin = 1; *rt->flag != rt->seq; spin++)
      if ((spin & 255u) == 0) {
        bool done = false;
        kk_status_t st = c->v->queue_query(c, in, &done);
        if (st != KK_OK)
          return st;
        if (done)
          break;
      }
    atomic_thread_fence(memory_order_acquire);
    memcpy(l->result, rt->host_slot, rt->size);
    return KK_OK;
  }
  if (rt->host_slot) {
    kk_status_t st = kkg_inst_sync(c, in);
    if (st == KK_OK)
      memcpy(l->result, rt->host_slot, rt->size);
    return st;
  }
  return kkg_sync_copy(c, in, l->result, L->result, rt->size);
}

/* The partials of a reduction over `blocks` blocks of `threads`, then the launch and its result. */
static kk_status_t reduce(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kkg_kernel_t *k, kk_gpu_launch *L,
                          int64_t blocks, const unsigned block[3], uint64_t smem) {
  result_target_t rt;
  kk_status_t st;
  if ((st = kkg_grow(c, in, &in->partials, (size_t)blocks * l->kernel->reducer->value_size, false)) != KK_OK ||
      (st = result_prepare(c, in, l, L, &rt, true)) != KK_OK)
    return st;
  L->partials = in->partials.ptr;
  L->counter = (unsigned *)(void *)in->small;
  if ((st = go(c, in, l, k, L, blocks, block[0], block[1], block[2], smem)) != KK_OK ||
      (st = result_finish(c, in, l, L, &rt)) != KK_OK)
    return st;
  return rt.sync && (l->kind == KK_KIND_TEAM_REDUCE) ? kkg_instance_fence(c, in == c->def ? NULL : in) : KK_OK;
}

static int64_t reduce_cap(const kkg_ctx_t *c, int64_t blocks) {
  const int64_t cap = (int64_t)dev(c)->units * 8;
  return blocks < cap ? blocks : cap;
}

static kk_status_t launch_range(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kkg_kernel_t *k) {
  kk_gpu_launch L;
  memset(&L, 0, sizeof L);
  L.begin = l->begin;
  L.end = l->end;
  const int64_t n = l->end - l->begin;
  const unsigned t = block_for(c, k, n);
  if (l->kind == KK_KIND_FOR) {
    if (n <= 0)
      return KK_OK;
    const int64_t blocks = kkg_div_up(n, t), cap = grid_cap(c, t);
    return go(c, in, l, k, &L, blocks < cap ? blocks : cap, t, 1, 1, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  if (l->kind == KK_KIND_REDUCE) {
    const unsigned block[3] = {t, 1, 1};
    return reduce(c, in, l, k, &L, reduce_cap(c, n > 0 ? kkg_div_up(n, t) : 1), block, (uint64_t)t * vs);
  }
  /* scan: one pass over tiles of items rounds of 256 threads */
  if (n <= 0) {
    if (l->result && in->recording) /* a graph's total is a view on the device: the identity by memsets */
      return kkg_graph_identity(c, in, l);
    if (l->result)
      l->kernel->reducer->init(l->result);
    return KK_OK;
  }
  const int items = vs <= 8 ? 16 : vs <= 16 ? 8 : 1; /* KK__SCAN_ITEMS (kk/target/simt.h) */
  const unsigned tb = 256; /* threads of a scan block, its launch bound */
  const int64_t per = (int64_t)tb * items, tiles = kkg_div_up(n, per);
  if (tiles > grid_cap(c, tb))
    return kkg_error(c, KK_ERROR_LIMIT, "scan '%s': %lld tiles exceed the grid", l->label, (long long)tiles);
  result_target_t rt;
  kk_status_t st;
  if ((st = kkg_grow(c, in, &in->partials, (size_t)tiles * vs, false)) != KK_OK ||
      (st = kkg_grow(c, in, &in->partials2, (size_t)tiles * vs, false)) != KK_OK ||
      (st = kkg_grow(c, in, &in->status, (size_t)tiles * 16, true)) != KK_OK || /* 16-byte descriptors */
      (st = result_prepare(c, in, l, &L, &rt, false)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.partials2 = in->partials2.ptr;
  L.status = in->status.ptr;
  L.tile_counter = (unsigned long long *)(void *)(in->small + 16);
  L.tile_base = 0;
  L.epoch = atomic_fetch_add(&in->epoch, 1ull);
  L.items = items;
  /* In a graph the epoch is frozen into the node, and every replay would
   * find the last one's tiles done: the status words are zeroed before it. */
  const unsigned char zero = 0;
  if (in->recording && (st = c->v->fill(c, in, L.status, &zero, 1, (size_t)tiles * 16)) != KK_OK)
    return st;
  /* shared memory: the tile's values, one pad slot after every `items`
   * (kk__scan_slot in kk/target/simt.h) */
  const uint64_t slots = items > 1 ? (uint64_t)(items + 1) * tb : tb;
  if ((st = go(c, in, l, k, &L, tiles, tb, 1, 1, slots * vs)) != KK_OK)
    return st;
  return result_finish(c, in, l, &L, &rt);
}

/* Default tiles: a warp along the innermost dimension (unit-stride accesses
 * in the default layout), up to 256 threads with the next two, one point
 * per thread, 1 beyond. */
static kk_status_t launch_md(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kkg_kernel_t *k) {
  kk_gpu_launch L;
  memset(&L, 0, sizeof L);
  const int r = l->rank;
  int order[KK_MD_MAX_RANK] = {0};
  L.rank = r;
  L.inner_left = l->iterate_inner == KK_ITERATE_LEFT;
  L.outer_left = l->iterate_outer == KK_ITERATE_LEFT;
  const int64_t tiles = L.md_tiles =
      kkg_md_plan(l, dev(c)->warp, 2, order, L.md_begin, L.md_end, L.md_tile, L.md_ntile);
  /* (tiles as large as the launch allows, their products saturated, take
   * the flat form; the other counts the points of the outer dimensions in
   * 32 bits: kk__md_tiles) */
  int64_t t0 = L.md_tile[order[0]], t1 = r > 1 ? L.md_tile[order[1]] : 1, t01 = kkg_mul_sat(t0, t1), rest = 1;
  for (int i = 2; i < r; i++)
    rest = kkg_mul_sat(rest, L.md_tile[order[i]]);
  unsigned block[3];
  if (t01 <= k->max_threads && t01 <= 1024 && rest <= INT32_MAX) {
    /* threads on the two innermost dimensions, and on the others as far as
     * 256 threads go (at most 64 in z); the kernel loops over the rest */
    int64_t room = 256 / t01, z = rest < room ? rest : room;
    if (z > 64)
      z = 64;
    if (z < 1 || t01 * z > k->max_threads)
      z = 1;
    block[0] = (unsigned)t0, block[1] = (unsigned)t1, block[2] = (unsigned)z;
  } else {
    L.flat = 1;
    block[0] = 256 <= k->max_threads ? 256 : (unsigned)k->max_threads, block[1] = block[2] = 1;
  }
  const unsigned nthreads = block[0] * block[1] * block[2];
  if (l->kind == KK_KIND_MD_FOR) {
    if (tiles == 0)
      return KK_OK;
    /* A block that holds a whole tile, and tile counts the grid's
     * dimensions hold: the direct entry, one tile per block found without
     * division, with the registers of that form alone. */
    int64_t gz = 1;
    for (int i = 2; i < r; i++)
      gz *= L.md_ntile[order[i]];
    if (k->fn2 && !L.flat && (int64_t)block[2] == rest && (int)nthreads <= k->max_threads2 &&
        L.md_ntile[order[0]] < grid_cap(c, block[0] * block[1] * block[2]) && L.md_ntile[order[1]] <= 65535 &&
        gz <= 65535) {
      const unsigned grid[3] = {(unsigned)L.md_ntile[order[0]], (unsigned)L.md_ntile[order[1]], (unsigned)gz};
      return run(c, in, l, k, k->fn2, &L, grid, block, 0);
    }
    const int64_t cap = grid_cap(c, nthreads);
    return go(c, in, l, k, &L, tiles < cap ? tiles : cap, block[0], block[1], block[2], 0);
  }
  return reduce(c, in, l, k, &L, reduce_cap(c, tiles > 0 ? tiles : 1), block,
                (uint64_t)nthreads * l->kernel->reducer->value_size);
}

static kk_status_t launch_team(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kkg_kernel_t *k) {
  kk_gpu_launch L;
  memset(&L, 0, sizeof L);
  const int32_t v = l->vector_length, ts = l->team_size, w = dev(c)->warp;
  /* a thread's vector lanes are lanes of one warp: shuffles reach them */
  if (v < 1 || v > w || (v & (v - 1)))
    return kkg_error(c, KK_ERROR_LIMIT,
                     "team launch '%s': vector length %d must be a power of two up to the warp (%d on %s)", l->label, v,
                     w, dev(c)->arch);
  if ((int64_t)v * ts > k->max_threads)
    return kkg_error(c, KK_ERROR_LIMIT,
                     "team launch '%s': team size %d x vector length %d exceeds the kernel's %d threads per block",
                     l->label, ts, v, k->max_threads);
  const unsigned threads = (unsigned)(v * ts);
  uint64_t smem = kkg_team_smem(l);
  const bool reducing = l->kind == KK_KIND_TEAM_REDUCE;
  const uint32_t vs = reducing ? l->kernel->reducer->value_size : 0;
  if (reducing && (uint64_t)threads * vs > smem)
    smem = (uint64_t)threads * vs;
  /* A block per team, as the hardware balances blocks best; only level-1
   * scratch (a pool slice per block) or a reduction (a partial per block)
   * caps the grid at the blocks that can be resident, which then loop over
   * the league. */
  int64_t cap = grid_cap(c, threads);
  if (reducing || l->scratch_team[1] || l->scratch_thread[1]) {
    int per_unit = 1;
    if (kks(c)->api.occupancy(&per_unit, k->fn, (int)threads, (size_t)smem) != 0)
      per_unit = 1;
    cap = (int64_t)(per_unit > 0 ? per_unit : 1) * dev(c)->units;
  }
  int64_t blocks = l->league_size < cap ? l->league_size : cap;
  if (blocks < 1) {
    if (!reducing)
      return KK_OK;
    blocks = 1; /* an empty league still yields the identity */
  }
  L.league_size = l->league_size;
  for (int lv = 0; lv < 2; lv++) {
    L.team_scratch[lv] = l->scratch_team[lv];
    L.thread_scratch[lv] = l->scratch_thread[lv];
  }
  kk_status_t st = kkg_team_pool(c, in, l, blocks, &L.scratch1_stride, &L.scratch1);
  if (st != KK_OK)
    return st;
  L.failed = (unsigned *)(void *)(in->small + 64);
  L.failed_record = (unsigned long long *)(void *)(in->results_dev + KKG_RECORD_AT);
  const unsigned block[3] = {(unsigned)v, (unsigned)ts, 1};
  if (!reducing)
    return go(c, in, l, k, &L, blocks, block[0], block[1], 1, smem);
  /* a synchronous result: reduce() reports a scratch overrun now, not at the next fence */
  return reduce(c, in, l, k, &L, blocks, block, smem);
}

kk_status_t kkg_simt_launch(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l) {
  kkg_kernel_t *k = l->device_kernel;
  switch (l->kind) {
  case KK_KIND_FOR:
  case KK_KIND_REDUCE:
  case KK_KIND_SCAN:
    return launch_range(c, in, l, k);
  case KK_KIND_MD_FOR:
  case KK_KIND_MD_REDUCE:
    return launch_md(c, in, l, k);
  case KK_KIND_TEAM_FOR:
  case KK_KIND_TEAM_REDUCE:
    return launch_team(c, in, l, k);
  default:
    return kkg_error(c, KK_ERROR_UNSUPPORTED, "unknown kernel kind %u", l->kind);
  }
}

kk_status_t kkg_simt_team_size_query(kkg_ctx_t *c, const kk_launch_t *l, int32_t *max, int32_t *recommended) {
  const kkg_kernel_t *k = l->device_kernel;
  const int32_t v = l->vector_length > 0 ? l->vector_length : 1;
  int32_t m = (k ? k->max_threads : dev(c)->max_threads) / v;
  /* shared memory: collectives and level-0 scratch grow with the team */
  const uint64_t fixed = kkg_r16(l->scratch_team[0]), per = KK_GPU_TEAM_VALUE_MAX + kkg_r16(l->scratch_thread[0]);
  int32_t by_smem = dev(c)->smem > fixed ? (int32_t)((dev(c)->smem - fixed) / per) : 0;
  if (by_smem < m)
    m = by_smem;
  *max = m > 0 ? m : 0;
  int32_t rec = 256 / v;
  *recommended = rec < *max ? rec : *max;
  if (*recommended < 1)
    *recommended = 1;
  return KK_OK;
}
