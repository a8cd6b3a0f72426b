/* plugins/gpu/gpu.c -- the GPU plugin layer: lifetime, devices, spaces, instances and fences, modules; everything native goes through the vendor table. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

_Static_assert(KK_GPU_LOCK_COUNT == KK_SPIRV_LOCK_COUNT && KK_GPU_TEAM_VALUE_MAX == KK_SPIRV_TEAM_VALUE_MAX,
               "one lock table and one team collective layout for both launch records");

#define KKG_BIND(c)                        \
  do {                                     \
    kk_status_t bind_st_ = kkg_bind(c);    \
    if (bind_st_ != KK_OK)                 \
      return bind_st_;                     \
  } while (0)

/* ---- helpers ----------------------------------------------------------------------------------- */

const char *kkg_code_name(const kkg_ctx_t *c, int64_t code) {
  const char *name = NULL, *msg = NULL;
  if (c->v->describe)
    c->v->describe(c, code, &name, &msg);
  for (const kkg_name_t *n = c->v->names; !name && n && n->name; n++)
    if (n->code == code)
      name = n->name;
  return name ? name : c->v->code_type;
}

/* The message of a lost device, recorded again (state 2). */
static kk_status_t lost_report(const kkg_ctx_t *c) {
  return c->hs->error(c->hs->core, c->lost_status, c->lost_name, c->lost_code, "%s", c->lost_msg);
}

kk_status_t kkg_fail(const kkg_ctx_t *c, int64_t code, const char *fmt, ...) {
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  const char *name = NULL, *msg = NULL;
  kk_status_t st = KK_ERROR_BACKEND;
  for (const int64_t(*s)[2] = c->v->statuses; s[0][0] || s[0][1]; s++)
    if (s[0][0] == code)
      st = (kk_status_t)s[0][1];
  if (c->v->describe)
    c->v->describe(c, code, &name, &msg);
  if (!name)
    name = kkg_code_name(c, code);
  /* A lost device: only marked here (the caller may hold an instance's lock or the list's); the first error
   * is kept for the message that kkg_lost builds, which every failure repeats once it is built. */
  bool lost = false;
  for (const int64_t *l = c->v->lost_codes; l && *l && !lost; l++)
    lost = *l == code;
  if (lost && atomic_load(&c->lost_state) == 0) {
    kkg_ctx_t *m = (kkg_ctx_t *)(uintptr_t)c; /* the layer's own context, const only to the vendor */
    pthread_mutex_lock(&m->lost_lock);
    if (atomic_load(&m->lost_state) == 0) {
      snprintf(m->lost_text, sizeof m->lost_text, "%.380s%s%.120s", what, msg ? ": " : "", msg ? msg : "");
      m->lost_code = code;
      m->lost_name = name;
      m->lost_status = st;
      atomic_store(&m->lost_state, 1);
    }
    pthread_mutex_unlock(&m->lost_lock);
  }
  if (atomic_load(&c->lost_state) == 2)
    return lost_report(c);
  if (msg)
    return c->hs->error(c->hs->core, st, name, code, "%s: %s", what, msg);
  return c->hs->error(c->hs->core, st, name, code, "%s", what);
}

void kkg_note(kkg_inst_t *in, const char *label) {
  uint64_t w[KKG_LABEL_WORDS] = {0};
  const size_t n = strnlen(label, KKG_LABEL_BYTES - 1); /* the last byte stays 0 */
  memcpy(w, label, n);
  const uint64_t slot = atomic_fetch_add_explicit(&in->launched, 1, memory_order_relaxed) % KKG_RING;
  for (int i = 0; i < KKG_LABEL_WORDS; i++)
    atomic_store_explicit(&in->ring[slot][i], w[i], memory_order_relaxed);
}

/* After a drain that began when launched was `upto`: those kernels are done. */
static void fenced(kkg_inst_t *in, uint64_t upto) {
  uint64_t f = atomic_load_explicit(&in->fenced, memory_order_relaxed);
  while (f < upto && !atomic_compare_exchange_weak(&in->fenced, &f, upto)) {
  }
}

/* Appends the kernels in flight on `in` (since its last drain) to m; their count. */
static uint64_t in_flight(kkg_inst_t *in, char *m, size_t size) {
  const uint64_t to = atomic_load(&in->launched), from = atomic_load(&in->fenced);
  if (to <= from)
    return 0;
  const uint64_t first = to - from > KKG_RING ? to - KKG_RING : from;
  size_t at = strlen(m);
  for (uint64_t i = first; i < to && at < size; i++) {
    uint64_t w[KKG_LABEL_WORDS];
    for (int j = 0; j < KKG_LABEL_WORDS; j++)
      w[j] = atomic_load_explicit(&in->ring[i % KKG_RING][j], memory_order_relaxed);
    char label[KKG_LABEL_BYTES];
    memcpy(label, w, sizeof label);
    label[KKG_LABEL_BYTES - 1] = '\0';
    at += (size_t)snprintf(m + at, size - at, "%s'%s'", i > first ? ", " : "", label);
  }
  if (at < size && first > from)
    at += (size_t)snprintf(m + at, size - at, " and %llu launched before them", (unsigned long long)(first - from));
  if (at < size && in->number)
    snprintf(m + at, size - at, " on instance %u (native queue %p)", in->number, in->queue);
  else if (at < size)
    snprintf(m + at, size - at, " on the default instance");
  return to - from;
}

kk_status_t kkg_lost(kkg_ctx_t *c) {
  if (atomic_load(&c->lost_state) == 1) {
    pthread_mutex_lock(&c->inst_lock);
    pthread_mutex_lock(&c->lost_lock);
    if (atomic_load(&c->lost_state) == 1) {
      char k[768] = "";
      uint64_t total = 0;
      int insts = 0;
      for (kkg_inst_t *in = c->def; in; in = in->next_inst) {
        const size_t at = strlen(k);
        if (insts && at + 2 < sizeof k)
          snprintf(k + at, sizeof k - at, "; ");
        const uint64_t n = in_flight(in, k, sizeof k);
        if (n) {
          total += n;
          insts++;
        } else {
          k[at] = '\0';
        }
      }
      if (total == 1)
        snprintf(c->lost_msg, sizeof c->lost_msg,
                 "kernel %s faulted (the one kernel in flight since the last fence): %s; the device is lost, every "
                 "later call on this backend fails",
                 k, c->lost_text);
      else if (total)
        snprintf(c->lost_msg, sizeof c->lost_msg,
                 "one of the %llu kernels in flight since the last fence faulted (the device does not say which): "
                 "%s: %s; the device is lost, every later call on this backend fails",
                 (unsigned long long)total, k, c->lost_text);
      else
        snprintf(c->lost_msg, sizeof c->lost_msg,
                 "%s (no kk kernel was in flight since the last fence); the device is lost, every later call on "
                 "this backend fails",
                 c->lost_text);
      atomic_store(&c->lost_state, 2);
    }
    pthread_mutex_unlock(&c->lost_lock);
    pthread_mutex_unlock(&c->inst_lock);
  }
  return lost_report(c);
}

bool kkg_dlopen(kkg_ctx_t *c, const char *env, const char *const *names, const char *prefix) {
  const char *e = getenv(env), *one[] = {e, NULL};
  if (e && *e)
    names = one;
  size_t at = (size_t)snprintf(c->why_none, sizeof c->why_none, "%s", prefix);
  for (size_t i = 0; !c->lib && names[i]; i++)
    if (!(c->lib = dlopen(c->libname = names[i], RTLD_NOW | RTLD_LOCAL)) && at < sizeof c->why_none) {
      const char *d = dlerror(); /* every name's reason, in order */
      at += (size_t)snprintf(c->why_none + at, sizeof c->why_none - at, "%s%s", i ? "; " : "", d ? d : names[i]);
    }
  if (c->lib)
    c->why_none[0] = '\0';
  return c->lib != NULL;
}

bool kkg_dlsyms(kkg_ctx_t *c, const char *syms, const size_t *offs, void *table, const char *missing) {
  char name[128];
  for (size_t i = 0;; i++) {
    syms += strspn(syms, " ");
    const size_t n = strcspn(syms, " ");
    if (!n)
      return true;
    snprintf(name, sizeof name, "%.*s", (int)n, syms);
    syms += n;
    void *p = dlsym(c->lib, name);
    if (!p) {
      snprintf(c->why_none, sizeof c->why_none, "%s has no %s: %s", c->libname, name, missing);
      dlclose(c->lib);
      c->lib = NULL;
      return false;
    }
    memcpy((char *)table + offs[i], &p, sizeof p);
  }
}

kk_status_t kkg_devices(kkg_ctx_t *c, int n) {
  unsigned char *grown = realloc(c->devs, c->v->dev_size * (size_t)(c->ndev + n));
  if (!grown)
    return kkg_error(c, KK_ERROR_OUT_OF_MEMORY, "init: out of memory for %d devices", c->ndev + n);
  c->devs = grown;
  memset(c->devs + c->v->dev_size * (size_t)c->ndev, 0, c->v->dev_size * (size_t)n);
  return KK_OK;
}

kk_status_t kkg_probe(kkg_ctx_t *c, void *id, const char *(*probe)(kkg_ctx_t *, void *, void *, char *, size_t),
                      char *skipped, size_t skipped_size) {
  kk_status_t st = kkg_devices(c, 1);
  char why[256];
  const char *no = st == KK_OK ? probe(c, kkg_device(c, c->ndev), id, why, sizeof why) : NULL;
  if (no) {
    const size_t l = strlen(skipped);
    snprintf(skipped + l, skipped_size - l, "%s%s", l ? "; " : "", no);
  } else if (st == KK_OK) {
    c->ndev++;
  }
  return st;
}

_Thread_local unsigned kkg_tl_gen;

kk_status_t kkg_bind_slow(kkg_ctx_t *c) {
  kk_status_t st = c->v->bind ? c->v->bind(c) : KK_OK;
  if (st == KK_OK)
    kkg_tl_gen = c->gen;
  return st;
}

/* The error of a scratch overrun from its record {1 + level + 2 * per_thread, asked, given}. */
static kk_status_t overrun(const kkg_ctx_t *c, const uint64_t f[3]) {
  const unsigned level = (unsigned)((f[0] - 1) & 1u), per_thread = (unsigned)((f[0] - 1) >> 1 & 1u);
  return kkg_error(c, KK_ERROR_KERNEL_FAILED,
                   "%s scratch at level %u overrun: the kernel asked for %llu bytes %s, the launch requested %llu",
                   per_thread ? "thread" : "team", level, (unsigned long long)f[1], per_thread ? "per thread" : "per team",
                   (unsigned long long)f[2]);
}

const kk_image_t *kkg_find_image(const kk_module_t *m, const char *format) {
  for (uint32_t i = 0; i < m->image_count; i++)
    if (m->images[i].format && strcmp(m->images[i].format, format) == 0)
      return &m->images[i];
  return NULL;
}

/* ---- instances --------------------------------------------------------------------------------- */

kk_status_t kkg_inst_sync(kkg_ctx_t *c, kkg_inst_t *in) {
  const uint64_t upto = atomic_load(&in->launched);
  kk_status_t st = c->v->queue_sync(c, in);
  if (st == KK_OK)
    fenced(in, upto);
  return st;
}

kk_status_t kkg_sync_copy(kkg_ctx_t *c, kkg_inst_t *in, void *dst, const void *src, size_t bytes) {
  kk_status_t st = c->v->copy(c, in, dst, src, bytes);
  return st != KK_OK ? st : kkg_inst_sync(c, in);
}

static kk_status_t inst_init(kkg_ctx_t *c, kkg_inst_t *in) {
  const kkg_vendor_t *v = c->v;
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&in->lock, &a);
  pthread_mutexattr_destroy(&a);
  atomic_init(&in->epoch, 1);
  atomic_init(&in->shared, in->borrowed);
  kk_status_t st = in->borrowed && !v->queue_wraps ? KK_OK : v->queue_create(c, in);
  /* the event kk_instance_wait records here, made now so that the call
   * itself allocates nothing (a graph's own instance is never waited for) */
  if (st == KK_OK && v->mark_create && !in->recording)
    st = v->mark_create(c, in);
  if (st == KK_OK)
    st = v->alloc(c, KKG_MEM_DEVICE, KKG_SMALL_BYTES, (void **)&in->small);
  if (in->recording) { /* a graph's failure record is the default instance's, which kk_fence reads */
    in->results = c->def->results;
    in->results_dev = c->def->results_dev;
  } else if (st == KK_OK && v->mapped_results &&
             (st = v->alloc(c, KKG_MEM_MAPPED, KKG_MAPPED_BYTES, (void **)&in->results)) == KK_OK) {
    memset(in->results, 0, KKG_MAPPED_BYTES);
    st = v->map(c, in->results, (void **)&in->results_dev);
  }
  if (st == KK_OK && v->enqueue) {
    st = v->alloc(c, KKG_MEM_DEVICE, (size_t)KKG_SLOTS * KK_SPIRV_SLOT_BYTES, (void **)&in->slots);
    if (st == KK_OK && !(in->staging = calloc(KKG_SLOTS, KK_SPIRV_SLOT_BYTES)))
      st = kkg_error(c, KK_ERROR_OUT_OF_MEMORY, "allocating an instance's launch slots");
  }
  const unsigned char zero = 0;
  if (st == KK_OK)
    st = v->fill(c, in, in->small, &zero, 1, KKG_SMALL_BYTES);
  if (st == KK_OK)
    st = kkg_inst_sync(c, in);
  if (st == KK_OK && in != c->def && !in->recording) {
    pthread_mutex_lock(&c->inst_lock);
    in->next_inst = c->def->next_inst;
    in->prev = c->def;
    if (c->def->next_inst)
      c->def->next_inst->prev = in;
    c->def->next_inst = in;
    pthread_mutex_unlock(&c->inst_lock);
  }
  return st;
}

/* Drains the instance and frees what inst_init made (of it, after a failure). */
static void inst_free(kkg_ctx_t *c, kkg_inst_t *in) {
  const kkg_vendor_t *v = c->v;
  pthread_mutex_lock(&c->inst_lock);
  if (in->prev)
    in->prev->next_inst = in->next_inst;
  if (in->next_inst)
    in->next_inst->prev = in->prev;
  pthread_mutex_unlock(&c->inst_lock);
  if (in->borrowed && in->queue) {
    /* the program's queue: drained (what this instance queued there may still run) and left to the program */
    (void)v->queue_sync(c, in);
    in->queue = NULL;
  }
  v->queue_destroy(c, in);
  if (in->mark)
    v->mark_destroy(c, in);
  kkg_buf_t *bufs[] = {&in->partials, &in->partials2, &in->status, &in->scratch1};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (bufs[i]->ptr)
      v->free(c, KKG_MEM_DEVICE, bufs[i]->ptr);
  if (in->small)
    v->free(c, KKG_MEM_DEVICE, in->small);
  if (in->results && !in->recording)
    v->free(c, KKG_MEM_MAPPED, in->results);
  if (in->slots)
    v->free(c, KKG_MEM_DEVICE, in->slots);
  free(in->staging);
  pthread_mutex_destroy(&in->lock);
}

kk_status_t kkg_grow(kkg_ctx_t *c, kkg_inst_t *in, kkg_buf_t *b, size_t bytes, bool zero) {
  if (b->size >= bytes)
    return KK_OK;
  if (in->recording)
    return kkg_graph_grow(c, in, b, bytes, zero);
  pthread_mutex_lock(&in->lock);
  kk_status_t st = KK_OK;
  if (b->size < bytes) {
    const size_t want = bytes * 2;
    const unsigned char z = 0;
    st = kkg_inst_sync(c, in); /* work queued before still uses the old buffer */
    if (st == KK_OK && b->ptr)
      c->v->free(c, KKG_MEM_DEVICE, b->ptr);
    if (st == KK_OK) {
      b->ptr = NULL;
      b->size = 0;
      st = c->v->alloc(c, KKG_MEM_DEVICE, want, &b->ptr);
    }
    if (st == KK_OK && zero)
      st = c->v->fill(c, in, b->ptr, &z, 1, want);
    if (st == KK_OK)
      b->size = want;
  }
  pthread_mutex_unlock(&in->lock);
  return st;
}

/* A new instance: on its own queue, on the program's (queue non-NULL,
 * instance_create_native), or a graph's own (recording non-NULL). */
static kk_status_t inst_new(kkg_ctx_t *c, struct kkg_graph *recording, void *queue, kkg_inst_t **out) {
  kkg_inst_t *in = calloc(1, c->v->inst_size);
  if (!in)
    return kkg_error(c, KK_ERROR_OUT_OF_MEMORY, "instance_create: out of memory");
  in->recording = recording;
  in->number = recording ? 0 : atomic_fetch_add(&c->ninst, 1u) + 1u;
  in->queue = queue;
  in->borrowed = queue != NULL;
  kk_status_t st = inst_init(c, in);
  if (st != KK_OK) {
    inst_free(c, in);
    free(in);
    return st;
  }
  *out = in;
  return KK_OK;
}

kk_status_t kkg_inst_open(kkg_ctx_t *c, struct kkg_graph *recording, kkg_inst_t **out) {
  return inst_new(c, recording, NULL, out);
}

void kkg_inst_close(kkg_ctx_t *c, kkg_inst_t *in) {
  inst_free(c, in);
  free(in);
}

/* The default instance's record: copies and fills the core queues on the
 * default instance pass it, and then go on its queue without waiting. */
void *kkg_instance_default(void *ctx) { return ((kkg_ctx_t *)ctx)->def; }

kk_status_t kkg_instance_create(void *ctx, void **inst) {
  kkg_ctx_t *c = ctx;
  KKG_BIND(c);
  return inst_new(c, NULL, NULL, (kkg_inst_t **)inst);
}

kk_status_t kkg_instance_native(void *ctx, void *inst, kk_native_queue_t *out) {
  kkg_ctx_t *c = ctx;
  kkg_inst_t *in = inst ? inst : c->def;
  if (c->v->native_kind == KK_NATIVE_NONE || !in || !in->queue)
    return kkg_error(c, KK_ERROR_UNSUPPORTED, "instance_native: this backend's instances have no single native queue");
  atomic_store(&in->shared, true);
  out->kind = c->v->native_kind;
  out->device = c->dev;
  out->queue = in->queue;
  out->context = c->v->native_context ? c->v->native_context(c) : NULL;
  return KK_OK;
}

kk_status_t kkg_instance_create_native(void *ctx, const kk_native_queue_t *q, void **inst) {
  kkg_ctx_t *c = ctx;
  if (c->v->native_kind == KK_NATIVE_NONE || q->kind != c->v->native_kind || !q->queue || q->device != c->dev)
    return kkg_error(c, KK_ERROR_INVALID_ARGUMENT, "instance_create_native: not a queue of this backend's device");
  if (q->context && c->v->native_context && q->context != c->v->native_context(c))
    return kkg_error(c, KK_ERROR_INVALID_ARGUMENT, "instance_create_native: the queue's context is not this backend's");
  /* a queue of another context, named or not, would fail only at its first
   * launch: ask the vendor which context it belongs to */
  if (c->v->queue_context && c->v->native_context) {
    void *qc = NULL;
    kk_status_t st = c->v->queue_context(c, q->queue, &qc);
    if (st != KK_OK)
      return st;
    if (qc != c->v->native_context(c))
      return kkg_error(c, KK_ERROR_INVALID_ARGUMENT,
                       "instance_create_native: the queue belongs to another %s context than this backend's (%p, "
                       "not %p): make it on the context kk_instance_native_queue reports",
                       c->v->native_kind == KK_NATIVE_OPENCL      ? "OpenCL"
                       : c->v->native_kind == KK_NATIVE_LEVELZERO ? "Level Zero"
                       : c->v->native_kind == KK_NATIVE_CUDA      ? "CUDA"
                                                                  : "native",
                       qc, c->v->native_context(c));
  }
  KKG_BIND(c);
  return inst_new(c, NULL, q->queue, (kkg_inst_t **)inst);
}

kk_status_t kkg_instance_destroy(void *ctx, void *inst) {
  KKG_BIND((kkg_ctx_t *)ctx);
  kkg_inst_close(ctx, inst);
  return KK_OK;
}

/* At a fence: did a bounds-checked kernel of the context (kkcc
 * --bounds-check, kk/target/simt.h) fail an access?  Its record is in the
 * default instance's mapped memory, so a fence reads one word; a written
 * record is cleared with the device's failure word and reported through the
 * core (the view's label, the host backends' sentence) with the last
 * bounds-checked launch's label and kernel. */
static kk_status_t check_bounds(kkg_ctx_t *c) {
  kkg_inst_t *d = c->def;
  uint64_t copy[KK_GPU_BC_WORDS];
  volatile uint64_t *r;
  if (!d)
    return KK_OK;
  if (d->results) {
    r = (volatile uint64_t *)(d->results + KKG_BC_AT);
  } else {
    /* SPIR-V: the record is device memory (kk/target/spirv.h), copied here
     * at each fence once a bounds-checked kernel has run in the context */
    if (c->v->launch != kkg_spv_launch || !atomic_load_explicit(&c->bc_launches, memory_order_relaxed))
      return KK_OK;
    copy[KK_GPU_BC_STATE] = 0; /* a driver that runs nothing (the null one) copies nothing */
    kk_status_t st = kkg_sync_copy(c, d, copy, d->small + KKG_SPV_BC_AT, sizeof copy);
    if (st != KK_OK)
      return st;
    r = copy;
  }
  if (r[KK_GPU_BC_STATE] != 2)
    return KK_OK;
  atomic_thread_fence(memory_order_acquire);
  kk_bounds_fault_t f;
  memset(&f, 0, sizeof f);
  char file[KK_GPU_BC_FILE_BYTES];
  f.data = (const void *)(uintptr_t)r[KK_GPU_BC_DATA];
  f.rank = (int32_t)(uint32_t)r[KK_GPU_BC_RANK_N];
  f.n = (int32_t)(uint32_t)(r[KK_GPU_BC_RANK_N] >> 32);
  f.elem_size = (uint32_t)r[KK_GPU_BC_SIZES];
  f.view_elem_size = (uint32_t)(r[KK_GPU_BC_SIZES] >> 32);
  for (int k = 0; k < KK_MAX_RANK; k++) {
    f.idx[k] = (int64_t)r[KK_GPU_BC_IDX + k];
    f.ext[k] = (int64_t)r[KK_GPU_BC_EXT + k];
  }
  f.line = (int32_t)r[KK_GPU_BC_LINE];
  for (int w = 0; w < KK_GPU_BC_FILE_BYTES / 8; w++) {
    const uint64_t b = r[KK_GPU_BC_FILE + w];
    memcpy(file + 8 * w, &b, 8);
  }
  file[sizeof file - 1] = '\0';
  f.file = file[0] ? file : NULL;
  for (int k = 0; k < KK_GPU_BC_WORDS; k++)
    r[k] = 0;
  /* the device's word (SPIR-V: the record), for the next failure */
  const unsigned char zero = 0;
  kk_status_t st = d->results ? c->v->fill(c, d, d->small + KKG_BC_WORD_AT, &zero, 1, 4)
                              : c->v->fill(c, d, d->small + KKG_SPV_BC_AT, &zero, 1, KK_GPU_BC_WORDS * 8);
  if (st == KK_OK)
    st = kkg_inst_sync(c, d);
  if (st != KK_OK)
    return st;
  uint64_t w[KKG_LABEL_WORDS];
  for (int j = 0; j < KKG_LABEL_WORDS; j++)
    w[j] = atomic_load_explicit(&c->bc_label[j], memory_order_relaxed);
  char label[KKG_LABEL_BYTES];
  memcpy(label, w, sizeof label);
  label[KKG_LABEL_BYTES - 1] = '\0';
  const kk_kernel_t *k = atomic_load_explicit(&c->bc_kernel, memory_order_relaxed);
  atomic_store_explicit(&c->bc_launches, 0, memory_order_relaxed);
  const char *kname = k && k->name ? k->name : "?";
  const uint32_t kind = k ? k->kind : 0;
  if (c->hs->struct_size >= offsetof(kk_host_services_t, bounds_report) + sizeof c->hs->bounds_report &&
      c->hs->bounds_report)
    return c->hs->bounds_report(c->hs->core, kind, label, kname, &f);
  /* a core before ABI 1.5: no view label */
  return kkg_error(c, KK_ERROR_KERNEL_FAILED,
                   "'%s' (kernel '%s') stopped: bounds check: an access of %d ind%s to a view at %p failed, at %s:%d",
                   label, kname, f.n, f.n == 1 ? "ex" : "ices", f.data, f.file ? f.file : "?", f.line);
}

static void note_bounds(kkg_ctx_t *c, const kk_launch_t *l) {
  uint64_t w[KKG_LABEL_WORDS] = {0};
  const char *label = l->label ? l->label : "";
  memcpy(w, label, strnlen(label, KKG_LABEL_BYTES - 1));
  for (int i = 0; i < KKG_LABEL_WORDS; i++)
    atomic_store_explicit(&c->bc_label[i], w[i], memory_order_relaxed);
  atomic_store_explicit(&c->bc_kernel, l->kernel, memory_order_relaxed);
  atomic_fetch_add_explicit(&c->bc_launches, 1, memory_order_relaxed);
}

/* After an instance drained: did a team kernel on it overrun its scratch?
 * With mapped results the kernel that recorded the failure also wrote the
 * record into host memory, so a fence reads three words, not a device copy
 * (which cost a fence after a team launch about 8 us on an H100). */
static kk_status_t check_failed(kkg_ctx_t *c, kkg_inst_t *in) {
  uint64_t f[3] = {0, 0, 0}; /* a driver that runs nothing (the null one) copies nothing */
  kk_status_t st = check_bounds(c);
  if (st != KK_OK)
    return st;
  if (in->results) {
    volatile uint64_t *r = (volatile uint64_t *)(in->results + KKG_RECORD_AT);
    if (!(r[0] & 0xffffffffu))
      return KK_OK;
    f[0] = r[0], f[1] = r[1], f[2] = r[2];
    r[0] = r[1] = r[2] = 0;
  } else {
    if (!atomic_exchange(&in->team_launched, false))
      return KK_OK;
    if ((st = kkg_sync_copy(c, in, f, in->small + 64, sizeof f)) != KK_OK || !(f[0] & 0xffffffffu))
      return st;
  }
  const unsigned char zero = 0; /* the device's record, for the next failure */
  if ((st = c->v->fill(c, in, in->small + 64, &zero, 1, sizeof f)) != KK_OK || (st = kkg_inst_sync(c, in)) != KK_OK)
    return st;
  return overrun(c, f);
}

kk_status_t kkg_instance_fence(void *ctx, void *inst) {
  kkg_ctx_t *c = ctx;
  KKG_BIND(c);
  kkg_inst_t *in = kkg_inst_of(c, inst);
  if (atomic_load_explicit(&c->lost_state, memory_order_relaxed))
    return kkg_lost(c);
  kk_status_t st = kkg_inst_sync(c, in);
  if (st != KK_OK && atomic_load(&c->lost_state))
    return kkg_lost(c);
  return st != KK_OK ? st : check_failed(c, in);
}

/* kk_instance_wait: the vendor queues the order on the device; a vendor
 * that cannot answers KK_ERROR_UNSUPPORTED, quietly, and the core fences
 * `waited` instead. */
kk_status_t kkg_instance_wait(void *ctx, void *waiter, void *waited) {
  kkg_ctx_t *c = ctx;
  kkg_inst_t *a = kkg_inst_of(c, waiter), *w = kkg_inst_of(c, waited);
  if (!c->v->order || !w->mark)
    return KK_ERROR_UNSUPPORTED;
  if (a == w)
    return KK_OK;
  KKG_BIND(c);
  if (atomic_load_explicit(&c->lost_state, memory_order_relaxed))
    return kkg_lost(c);
  kk_status_t st = c->v->order(c, a, w);
  if (st != KK_OK && atomic_load(&c->lost_state))
    return kkg_lost(c);
  return st;
}

kk_status_t kkg_fence_all(void *ctx) {
  kkg_ctx_t *c = ctx;
  KKG_BIND(c);
  if (!c->def)
    return KK_OK;
  if (atomic_load_explicit(&c->lost_state, memory_order_relaxed))
    return kkg_lost(c);
  kk_status_t st = KK_OK;
  if (c->v->device_sync) {
    /* what each instance had launched when the drain began is done after it */
    pthread_mutex_lock(&c->inst_lock);
    for (kkg_inst_t *in = c->def; in; in = in->next_inst)
      atomic_store_explicit(&in->snap, atomic_load(&in->launched), memory_order_relaxed);
    pthread_mutex_unlock(&c->inst_lock);
    st = c->v->device_sync(c);
    pthread_mutex_lock(&c->inst_lock);
    for (kkg_inst_t *in = c->def; in && st == KK_OK; in = in->next_inst)
      fenced(in, atomic_load_explicit(&in->snap, memory_order_relaxed));
    pthread_mutex_unlock(&c->inst_lock);
  } else {
    pthread_mutex_lock(&c->inst_lock);
    for (kkg_inst_t *in = c->def; in; in = in->next_inst) {
      kk_status_t s = kkg_inst_sync(c, in);
      if (st == KK_OK)
        st = s;
    }
    pthread_mutex_unlock(&c->inst_lock);
  }
  if (st != KK_OK && atomic_load(&c->lost_state))
    return kkg_lost(c);
  return st != KK_OK ? st : check_failed(c, c->def);
}

/* ---- what both planners compute alike ------------------------------------------------------------ */


int64_t kkg_md_plan(const kk_launch_t *l, int64_t inner, int spread, int *order, int64_t *begin, int64_t *end,
                    int64_t *tile, int64_t *ntile) {
  const int r = l->rank;
  int64_t tiles = 1, points = 1;
  for (int i = 0; i < r; i++) {
    const int d = order[i] = l->iterate_inner == KK_ITERATE_LEFT ? i : r - 1 - i;
    const int64_t ext = l->md_end[d] - l->md_begin[d];
    int64_t t = l->md_tile[d];
    if (t <= 0)
      t = i == 0 ? (ext < inner ? (ext > 0 ? ext : 1) : inner) : i <= spread ? 256 / points : 1;
    if (i >= 1 && i <= spread && t > ext && ext > 0)
      t = ext;
    t = t < 1 ? 1 : t;
    begin[d] = l->md_begin[d];
    end[d] = l->md_end[d];
    tile[d] = t;
    ntile[d] = ext > 0 ? kkg_div_up(ext, t) : 0;
    /* no more tiles than points, whose number fits unless a dimension is
     * empty (then 0, however the others saturate); points only chooses the
     * default tiles of the next dimensions */
    tiles = kkg_mul_sat(tiles, ntile[d]);
    points = kkg_mul_sat(points, t);
  }
  return tiles;
}

uint64_t kkg_team_smem(const kk_launch_t *l) {
  const uint64_t ts = (uint64_t)l->team_size;
  return kkg_r16(ts * KK_GPU_TEAM_VALUE_MAX) + kkg_r16(l->scratch_team[0]) + ts * kkg_r16(l->scratch_thread[0]);
}

kk_status_t kkg_team_pool(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, int64_t groups, uint64_t *stride,
                          unsigned char **pool) {
  *stride = kkg_r16(l->scratch_team[1]) + (uint64_t)l->team_size * kkg_r16(l->scratch_thread[1]);
  kk_status_t st = *stride ? kkg_grow(c, in, &in->scratch1, (size_t)(*stride * (uint64_t)groups), false) : KK_OK;
  *pool = *stride ? in->scratch1.ptr : NULL;
  return st;
}

/* ---- lifetime and devices ----------------------------------------------------------------------- */

kk_status_t kkg_init(kkg_ctx_t *c, const kkg_vendor_t *v, const kk_host_services_t *hs, void **ctx) {
  memset(c, 0, v->ctx_size);
  c->hs = hs;
  c->v = v;
  c->dev = -1;
  while (v->spaces[c->nspaces].name)
    c->nspaces++;
  pthread_mutex_init(&c->inst_lock, NULL);
  pthread_mutex_init(&c->lost_lock, NULL);
  *ctx = c;
  return v->discover(c); /* no library or no device is not an error: 0 devices, and why */
}

void kkg_finalize(void *ctx) {
  kkg_ctx_t *c = ctx;
  const kkg_vendor_t *v = c->v;
  if (c->dev >= 0) {
    (void)kkg_bind(c); /* finalize may come from another thread than the initialization */
    if (v->device_sync)
      (void)v->device_sync(c);
    if (v->remap_release)
      v->remap_release(c);
    if (c->def) {
      inst_free(c, c->def);
      free(c->def);
    }
    if (c->locks)
      v->free(c, KKG_MEM_DEVICE, c->locks);
    v->close(c);
  }
  v->release(c);
  free(c->devs);
  pthread_mutex_destroy(&c->inst_lock);
  pthread_mutex_destroy(&c->lost_lock);
  memset(c, 0, v->ctx_size);
}

int32_t kkg_device_count(void *ctx, const char **why_none) {
  kkg_ctx_t *c = ctx;
  if (c->ndev == 0 && why_none)
    *why_none = c->why_none;
  return c->ndev;
}

kk_status_t kkg_device_props(void *ctx, int32_t dev, kk_plugin_device_t *p) {
  const kkg_device_t *d = kkg_device(ctx, dev);
  snprintf(p->name, sizeof p->name, "%s", d->name);
  snprintf(p->vendor, sizeof p->vendor, "%s", d->vendor);
  snprintf(p->arch, sizeof p->arch, "%s", d->arch);
  p->preferred_layout = KK_LAYOUT_LEFT; /* the device targets' default layout */
  p->concurrency = (int32_t)(d->concurrency < 0x7fffffff ? d->concurrency : 0x7fffffff);
  p->warp_size = d->warp; /* KK_AUTO vector length: a warp (SIMT), or 1 (lanes are a loop) */
  p->max_team_size = d->max_threads < 1024 || d->warp > 1 ? d->max_threads : 1024;
  p->max_vector_length = d->warp > 1 ? d->warp : 64; /* a loop inside a work-item takes any length */
  /* level 0 is shared memory less what the team collectives take; level 1 a
   * slice of device memory per resident team */
  const uint64_t coll = d->warp > 1 ? 4096 : (uint64_t)p->max_team_size * KK_SPIRV_TEAM_VALUE_MAX + 64;
  p->scratch_max[0] = d->smem > coll ? d->smem - coll : 0;
  p->scratch_max[1] = (uint64_t)1 << 26;
  p->memory_bytes = d->memory;
  return KK_OK;
}

kk_status_t kkg_device_open(void *ctx, int32_t dev) {
  static atomic_uint generation;
  kkg_ctx_t *c = ctx;
  const kkg_vendor_t *v = c->v;
  c->dev = dev; /* from here on finalize undoes what opening made, if it fails half way */
  c->gen = atomic_fetch_add(&generation, 1u) + 1u; /* never 0, the value of a thread not yet bound */
  /* a way around a device's copy-between-layouts kernels (a driver fault, a comparison): the core's staging */
  const char *remap = getenv("KK_DEVICE_REMAP");
  c->remap_staged = v->remap && remap && strcmp(remap, "0") == 0;
  if (c->remap_staged)
    c->hs->log(c->hs->core, KK_LOG_DEBUG, "KK_DEVICE_REMAP=0: copies between layouts are staged through the host");
  kk_status_t st = v->open(c, dev);
  if (st == KK_OK)
    st = kkg_bind(c);
  const size_t lock_bytes = (size_t)KK_GPU_LOCK_COUNT * sizeof(uint32_t);
  if (st == KK_OK)
    st = v->alloc(c, KKG_MEM_DEVICE, lock_bytes, &c->locks);
  if (st == KK_OK && !(c->def = calloc(1, v->inst_size)))
    st = kkg_error(c, KK_ERROR_OUT_OF_MEMORY, "device_open: out of memory");
  if (st == KK_OK)
    st = inst_init(c, c->def);
  const uint32_t zero = 0;
  if (st == KK_OK)
    st = v->fill(c, c->def, c->locks, &zero, sizeof zero, KK_GPU_LOCK_COUNT);
  return st != KK_OK ? st : kkg_inst_sync(c, c->def);
}

/* ---- memory ---------------------------------------------------------------------------------------- */

int32_t kkg_space_count(void *ctx) { return ((kkg_ctx_t *)ctx)->nspaces; }

kk_status_t kkg_space_props(void *ctx, int32_t space, kk_plugin_space_t *p) {
  kkg_ctx_t *c = ctx;
  snprintf(p->name, sizeof p->name, "%s", c->v->spaces[space].name);
  p->flags = KK_SPACE_DEVICE_ACCESSIBLE | (space == 0 ? KK_SPACE_DEFAULT : KK_SPACE_HOST_ACCESSIBLE);
  return KK_OK;
}

kk_status_t kkg_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr) {
  kkg_ctx_t *c = ctx;
  KKG_BIND(c);
  *ptr = NULL;
  return c->v->alloc(c, c->v->spaces[space].kind, bytes, ptr);
}

kk_status_t kkg_mem_free(void *ctx, int32_t space, void *ptr) {
  kkg_ctx_t *c = ctx;
  KKG_BIND(c);
  if (c->v->unordered_free)
    (void)kkg_fence_all(c);
  return c->v->free(c, c->v->spaces[space].kind, ptr);
}

/* A synchronous copy or fill goes on the default instance and waits for it,
 * so it is ordered after the default instance's kernels.  On an instance the
 * caller keeps both buffers until its next fence (the plugin ABI's contract).
 * Unified addressing tells every vendor the direction of a copy. */
kk_status_t kkg_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                         size_t bytes) {
  kkg_ctx_t *c = ctx;
  (void)dst_space, (void)src_space;
  if (bytes == 0)
    return KK_OK;
  KKG_BIND(c);
  kkg_inst_t *in = kkg_inst_of(c, inst);
  kk_status_t st = c->v->copy(c, in, dst, src, bytes);
  return st != KK_OK || inst ? st : kkg_inst_sync(c, in);
}

kk_status_t kkg_mem_fill(void *ctx, void *inst, void *dst, int32_t space, const void *pattern, size_t psize,
                         size_t count) {
  kkg_ctx_t *c = ctx;
  (void)space;
  if (count == 0)
    return KK_OK;
  KKG_BIND(c);
  kkg_inst_t *in = kkg_inst_of(c, inst);
  kk_status_t st = c->v->fill(c, in, dst, pattern, psize, count);
  return st != KK_OK || inst ? st : kkg_inst_sync(c, in);
}

kk_status_t kkg_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes) {
  const unsigned char v = (unsigned char)value;
  return kkg_mem_fill(ctx, inst, dst, space, &v, 1, bytes);
}

bool kkg_remap_plan(const kk_plugin_remap_t *r, bool force_any, kkg_remap_plan_t *p) {
  memset(p, 0, sizeof *p);
  kkg_remap_args_t *a = &p->a;
  /* words: the widest of 16, 8, 4, 2, 1 bytes that divides the element and both addresses */
  const size_t e = r->elem_size;
  int wl = 4;
  while (wl > 0 && (e % ((size_t)1 << wl) || ((uintptr_t)r->dst | (uintptr_t)r->src) % ((uintptr_t)1 << wl)))
    wl--;
  const int64_t per = (int64_t)(e >> wl);
  /* the dimensions of extent > 1 in words, an element's words last (stride 1 on both sides) */
  a->dst = r->dst;
  a->src = r->src;
  int64_t ext[KKG_REMAP_DIMS], ds[KKG_REMAP_DIMS], ss[KKG_REMAP_DIMS], n = 1;
  int nd = 0;
  for (int d = 0; d < r->rank; d++) {
    n *= r->extent[d];
    if (r->extent[d] > 1)
      ext[nd] = r->extent[d], ds[nd] = r->dst_stride[d] * per, ss[nd] = r->src_stride[d] * per, nd++;
  }
  if (n == 0)
    return false;
  if (per > 1)
    ext[nd] = per, ds[nd] = 1, ss[nd] = 1, nd++;
  n *= per;
  int ia = -1, ib = -1;
  for (int d = nd - 1; d >= 0; d--) {
    if (ia < 0 || ds[d] < ds[ia])
      ia = d;
    if (ib < 0 || ss[d] < ss[ib])
      ib = d;
  }
  p->wl = wl;
  p->words = n;
  if (ia >= 0 && ib != ia && !force_any) {
    /* a transpose over dimensions ia (the writes) and ib (the reads), tile by tile */
    p->kind = KKG_REMAP_KIND_TILE;
    a->ea = ext[ia], a->eb = ext[ib], a->dsa = ds[ia], a->dsb = ds[ib], a->ssa = ss[ia], a->ssb = ss[ib];
    a->tiles_a = (a->ea + KKG_REMAP_TILE - 1) / KKG_REMAP_TILE;
    a->tiles_b = (a->eb + KKG_REMAP_TILE - 1) / KKG_REMAP_TILE;
    a->items = a->tiles_a * a->tiles_b;
    for (int d = 0; d < nd; d++)
      if (d != ia && d != ib) {
        a->ext[a->nouter] = ext[d], a->dstr[a->nouter] = ds[d], a->sstr[a->nouter] = ss[d], a->nouter++;
        a->items *= ext[d];
      }
    p->groups = a->items < KKG_REMAP_MAX_GROUPS ? a->items : KKG_REMAP_MAX_GROUPS;
  } else {
    /* one word per thread, the destination's fastest dimension last, so that the writes coalesce */
    p->kind = KKG_REMAP_KIND_ANY;
    for (int d = 0; d < nd; d++) {
      int k = a->nouter++;
      while (k > 0 && a->dstr[k - 1] < ds[d])
        a->ext[k] = a->ext[k - 1], a->dstr[k] = a->dstr[k - 1], a->sstr[k] = a->sstr[k - 1], k--;
      a->ext[k] = ext[d], a->dstr[k] = ds[d], a->sstr[k] = ss[d];
    }
    if (nd == 0) /* one element */
      a->ext[0] = 1, a->nouter = 1;
    a->items = n;
    const int64_t blocks = (n + KKG_REMAP_ANY - 1) / KKG_REMAP_ANY;
    p->groups = blocks < KKG_REMAP_MAX_GROUPS ? blocks : KKG_REMAP_MAX_GROUPS;
  }
  return true;
}

kk_status_t kkg_remap_prepare(kkg_ctx_t *g, kkg_remap_once_t *o, bool (*make)(kkg_ctx_t *), void (*release)(kkg_ctx_t *),
                              const kk_plugin_remap_t *r, kkg_remap_plan_t *p) {
  pthread_mutex_lock(&o->lock);
  if (o->state == 0) {
    const bool made = make(g);
    if (!made)
      release(g); /* what was made before the failure */
    o->state = made ? 1 : -1;
  }
  const int state = o->state;
  pthread_mutex_unlock(&o->lock);
  if (state < 0)
    return KK_ERROR_UNSUPPORTED;
  if (kkg_remap_plan(r, false, p) && p->kind == KKG_REMAP_KIND_TILE && !o->tile_ok[p->wl])
    (void)kkg_remap_plan(r, true, p);
  return KK_OK;
}

/* A copy between layouts in this backend's spaces, on the device when the vendor can (remap); else
 * KK_ERROR_UNSUPPORTED without a message, and the core stages the copy through the host. */
kk_status_t kkg_mem_remap(void *ctx, void *inst, const kk_plugin_remap_t *r) {
  kkg_ctx_t *c = ctx;
  if (!c->v->remap || c->remap_staged || r->dst_space < 0 || r->src_space < 0)
    return KK_ERROR_UNSUPPORTED;
  KKG_BIND(c);
  kkg_inst_t *in = kkg_inst_of(c, inst);
  kk_status_t st = c->v->remap(c, in, r);
  return st != KK_OK || inst ? st : kkg_inst_sync(c, in);
}

/* ---- modules, kernels, launches -------------------------------------------------------------------- */

kk_status_t kkg_module_load(void *ctx, const kk_module_t *m, const kk_image_t *image, void **pmod) {
  kkg_ctx_t *c = ctx;
  KKG_BIND(c);
  kkg_module_t *km = calloc(1, sizeof *km);
  if (!km)
    return kkg_error(c, KK_ERROR_OUT_OF_MEMORY, "module_load: out of memory");
  kk_status_t st = c->v->module_load(c, m, image, &km->handle);
  if (st != KK_OK) {
    free(km);
    return st;
  }
  *pmod = km;
  return KK_OK;
}

kk_status_t kkg_module_unload(void *ctx, void *pmod) {
  kkg_ctx_t *c = ctx;
  kkg_module_t *km = pmod;
  KKG_BIND(c);
  if (c->v->unordered_free)
    (void)kkg_fence_all(c);
  while (km->kernels) {
    kkg_kernel_t *k = km->kernels;
    km->kernels = k->next;
    for (int i = 0; i < 2 && c->v->function_free; i++)
      if (i ? k->fn2 : k->fn)
        c->v->function_free(c, i ? k->fn2 : k->fn);
    free(k);
  }
  const int r = c->v->module_unload(c, km->handle);
  free(km);
  return r ? kkg_fail(c, r, "unloading a module") : KK_OK;
}

kk_status_t kkg_kernel_get(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel) {
  kkg_ctx_t *c = ctx;
  kkg_module_t *km = pmod;
  KKG_BIND(c);
  kkg_kernel_t *k = calloc(1, sizeof *k);
  if (!k)
    return kkg_error(c, KK_ERROR_OUT_OF_MEMORY, "kernel_get: out of memory");
  kk_status_t st = c->v->kernel_get(c, km->handle, kernel, k);
  if (st != KK_OK) {
    free(k);
    return st;
  }
  k->next = km->kernels;
  km->kernels = k;
  *pkernel = k;
  return KK_OK;
}

kk_status_t kkg_launch(void *ctx, void *inst, const kk_launch_t *l) {
  kkg_ctx_t *c = ctx;
  KKG_BIND(c);
  kkg_inst_t *in = kkg_inst_of(c, inst);
  if (atomic_load_explicit(&c->lost_state, memory_order_relaxed))
    return kkg_lost(c);
  if (!in->recording) /* a graph's own instance captures, the graph's launch runs */
    kkg_note(in, l->label && l->label[0] ? l->label : l->kernel && l->kernel->name ? l->kernel->name : "?");
  if (l->kernel && (l->kernel->flags & KK_KERNEL_FLAG_BOUNDS_CHECK))
    note_bounds(c, l);
  kk_status_t st = c->v->launch(c, in, l);
  return st == KK_OK || !atomic_load(&c->lost_state) ? st : kkg_lost(c);
}

kk_status_t kkg_team_size_query(void *ctx, const kk_launch_t *l, int32_t *max, int32_t *recommended) {
  kkg_ctx_t *c = ctx;
  KKG_BIND(c);
  return c->v->team_size_query(c, l, max, recommended);
}

const kk_plugin_ops_t *kkg_entry(uint32_t core_abi, const kk_host_services_t *hs, const kk_plugin_ops_t *ops) {
  if (KK_PLUGIN_ABI_MAJOR_OF(core_abi) != KK_PLUGIN_ABI_MAJOR || KK_PLUGIN_ABI_MINOR_OF(core_abi) < 2) {
    hs->error(hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0, "needs plugin ABI 1.2 or later, the core has %u.%u",
              KK_PLUGIN_ABI_MAJOR_OF(core_abi), KK_PLUGIN_ABI_MINOR_OF(core_abi));
    return NULL;
  }
  return ops;
}
