/* core/bounds.c -- bounds checking of host kernels built with kkcc --bounds-check: a failure record per launch, the sink, the message. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "state.h"
#include "status.h"
#include "view.h"

/* Launches of bounds-checked kernels on host backends get one of these
 * records each (slots 1..63) for as long as they run; the kernel's threads
 * reach it through kk_host_thread_t.bounds_slot.  Slot 0 is shared: the
 * threads of a host plugin that does not pass the slot on, and launches
 * beyond 63 at once, record there. */
#define NSLOTS 64

typedef struct what {
  const void *data;
  int32_t rank, n;
  uint32_t elem_size, view_elem_size;
  int64_t idx[KK_MAX_RANK], ext[KK_MAX_RANK];
  const char *file;
  int32_t line;
} what_t;

typedef struct rec {
  int32_t failed; /* 0 none, 1 being written, 2 written (atomic builtins: the kernels poll it) */
  what_t w;       /* the first failed access, written by the thread that set failed to 1 */
} rec_t;

static rec_t g_rec[NSLOTS];
static _Atomic uint64_t g_busy = 1; /* bit s: slot s is handed out; slot 0 never is */
static _Thread_local rec_t *tl_rec;

uint32_t kk__bounds_claim(void) {
  uint64_t busy = atomic_load_explicit(&g_busy, memory_order_relaxed);
  while (busy != UINT64_MAX) {
    int slot = __builtin_ctzll(~busy);
    if (atomic_compare_exchange_weak_explicit(&g_busy, &busy, busy | (1ull << slot), memory_order_acquire,
                                              memory_order_relaxed))
      return (uint32_t)slot;
  }
  return 0;
}

const int32_t *kk_bounds_enter(const kk_host_thread_t *th) {
  int32_t slot = th ? th->bounds_slot : 0;
  tl_rec = &g_rec[slot > 0 && slot < NSLOTS ? slot : 0];
  return &tl_rec->failed;
}

/* ---- the sink: where a failed access reads and writes instead --------------------------- */

static _Thread_local _Alignas(64) unsigned char tl_sink[256];
/* elements larger than tl_sink: a per-thread heap block, freed when the thread ends */
static pthread_key_t g_big_key;
static pthread_once_t g_big_once = PTHREAD_ONCE_INIT;
static bool g_big_ok;
typedef struct big {
  size_t size;
  _Alignas(64) unsigned char mem[];
} big_t;

static void big_init(void) { g_big_ok = pthread_key_create(&g_big_key, free) == 0; }

static void *sink(size_t bytes) {
  if (bytes <= sizeof tl_sink) {
    memset(tl_sink, 0, bytes);
    return tl_sink;
  }
  pthread_once(&g_big_once, big_init);
  big_t *b = g_big_ok ? pthread_getspecific(g_big_key) : NULL;
  if (!b || b->size < bytes) {
    big_t *nb = NULL;
    if (!g_big_ok || posix_memalign((void **)&nb, 64, sizeof *nb + bytes) != 0)
      return NULL; /* no memory for an element of more than 256 bytes: see docs/bounds-check.md */
    nb->size = bytes;
    free(b);
    pthread_setspecific(g_big_key, nb);
    b = nb;
  }
  memset(b->mem, 0, bytes);
  return b->mem;
}

void *kk_bounds_fail(const kk_view_desc_t *view, uint32_t elem_size, int32_t n, const int64_t *idx, const char *file,
                     int32_t line) {
  rec_t *r = tl_rec ? tl_rec : &g_rec[0];
  int32_t none = 0;
  if (__atomic_compare_exchange_n(&r->failed, &none, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    what_t *w = &r->w;
    w->data = view->data;
    w->rank = view->rank;
    w->n = n < 0 ? 0 : n > KK_MAX_RANK ? KK_MAX_RANK : n;
    w->elem_size = elem_size;
    w->view_elem_size = view->elem_size;
    for (int k = 0; k < KK_MAX_RANK; k++) {
      w->idx[k] = k < w->n ? idx[k] : 0;
      w->ext[k] = view->extent[k];
    }
    w->file = file;
    w->line = line;
    __atomic_store_n(&r->failed, 2, __ATOMIC_RELEASE);
  }
  return sink(elem_size);
}

/* ---- after the launch --------------------------------------------------------------------- */

static void list(kk__str_t *s, const int64_t *v, int n) {
  kk__str_addf(s, "(");
  for (int k = 0; k < n; k++)
    kk__str_addf(s, "%s%lld", k ? ", " : "", (long long)v[k]);
  kk__str_addf(s, ")");
}

/* Takes a written record (and clears it); false when there is none. */
static bool take(rec_t *r, what_t *out) {
  if (__atomic_load_n(&r->failed, __ATOMIC_ACQUIRE) != 2)
    return false;
  *out = r->w;
  __atomic_store_n(&r->failed, 0, __ATOMIC_RELEASE);
  return true;
}

/* The sentence of a failed access, as kk_last_error(); host and device
 * launches alike. */
static void report(const char *op, const char *label, const char *kernel, const char *backend, const what_t *r) {
  char vlabel[320];
  kk__view_label_at(r->data, vlabel, sizeof vlabel);
  kk__str_t s = {0};
  kk__str_addf(&s, "%s '%s' (kernel '%s') on backend %s stopped: bounds check: ", op, label, kernel, backend);
  if (r->elem_size != r->view_elem_size)
    kk__str_addf(&s, "view %s has elements of %u bytes but is accessed as a %u-byte type", vlabel, r->view_elem_size,
                 r->elem_size);
  else if (r->n < r->rank) {
    kk__str_addf(&s, "view %s of rank %d accessed with %d ind%s ", vlabel, r->rank, r->n, r->n == 1 ? "ex" : "ices");
    list(&s, r->idx, r->n);
  } else {
    kk__str_addf(&s, "view %s: index ", vlabel);
    list(&s, r->idx, r->n);
    kk__str_addf(&s, " is outside its extents ");
    list(&s, r->ext, r->n > r->rank ? r->n : r->rank);
  }
  if (r->file)
    kk__str_addf(&s, ", at %s:%d", r->file, r->line);
  kk__error(KK_ERROR_KERNEL_FAILED, "%s", s.s ? s.s : "bounds check failed");
  kk__str_free(&s);
}

bool kk__bounds_release(uint32_t slot, const char *op, const kk_launch_t *l, const kk__backend_t *b) {
  what_t r;
  bool failed = take(&g_rec[slot], &r) || (slot != 0 && take(&g_rec[0], &r));
  if (slot != 0)
    atomic_fetch_and_explicit(&g_busy, ~(1ull << slot), memory_order_release);
  if (!failed)
    return false;
  report(op, l->label, l->kernel->name, b->name, &r);
  return true;
}

/* kk_host_services_t.bounds_report: a device's record of a failed access. */
kk_status_t kk__bounds_report(const kk__backend_t *b, uint32_t kind, const char *label, const char *kernel,
                              const kk_bounds_fault_t *f) {
  static const char *const ops[] = {
      [KK_KIND_FOR] = "kk_parallel_for",           [KK_KIND_REDUCE] = "kk_parallel_reduce",
      [KK_KIND_SCAN] = "kk_parallel_scan",         [KK_KIND_MD_FOR] = "kk_parallel_for_md",
      [KK_KIND_MD_REDUCE] = "kk_parallel_reduce_md", [KK_KIND_TEAM_FOR] = "kk_parallel_for_team",
      [KK_KIND_TEAM_REDUCE] = "kk_parallel_reduce_team",
  };
  const char *op = kind < sizeof ops / sizeof *ops && ops[kind] ? ops[kind] : "launch";
  what_t r;
  memset(&r, 0, sizeof r);
  if (f) {
    r.data = f->data;
    r.rank = f->rank < 0 ? 0 : f->rank > KK_MAX_RANK ? KK_MAX_RANK : f->rank;
    r.n = f->n < 0 ? 0 : f->n > KK_MAX_RANK ? KK_MAX_RANK : f->n;
    r.elem_size = f->elem_size;
    r.view_elem_size = f->view_elem_size;
    memcpy(r.idx, f->idx, sizeof r.idx);
    memcpy(r.ext, f->ext, sizeof r.ext);
    r.file = f->file;
    r.line = f->line;
  }
  report(op, label ? label : "", kernel ? kernel : "?", b->name, &r);
  return KK_ERROR_KERNEL_FAILED;
}
