/* plugins/common/host_exec.c -- range for/reduce/scan on a team of host threads, shared by serial, threads and openmp. */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "host_exec.h"

typedef struct range_task {
  const kk_launch_t *l;
  kk_host_for_fn f;
  kk_host_reduce_fn r;
  kk_host_scan_fn s;
  const kk_reducer_info_t *red;
  int64_t begin, n;        /* the range */
  int64_t chunk;           /* iterations per chunk */
  int64_t nchunks;
  int dynamic;
  atomic_llong next;       /* dynamic schedule: next chunk to hand out */
  unsigned char *slots;    /* per-thread partial values */
  size_t slot;             /* bytes between slots */
  kkh_exec_t *ex;
} range_task_t;

/* The contiguous block of thread t out of n threads (static, chunk 0). */
static inline void block_of(int64_t n, int t, int nt, int64_t *b, int64_t *e) {
  int64_t q = n / nt, rem = n % nt;
  *b = (int64_t)t * q + (t < rem ? t : rem);
  *e = *b + q + (t < rem ? 1 : 0);
}

/* Calls `call(b, e)` for every chunk thread t owns. */
#define FOR_MY_CHUNKS(T, tid, nt, call)                                                          \
  do {                                                                                           \
    if ((T)->dynamic) {                                                                          \
      for (;;) {                                                                                 \
        int64_t c_ = atomic_fetch_add_explicit(&(T)->next, 1, memory_order_relaxed);             \
        if (c_ >= (T)->nchunks)                                                                  \
          break;                                                                                 \
        int64_t b_ = (T)->begin + c_ * (T)->chunk;                                               \
        int64_t e_ = b_ + (T)->chunk;                                                            \
        if (e_ > (T)->begin + (T)->n)                                                            \
          e_ = (T)->begin + (T)->n;                                                              \
        call(b_, e_);                                                                            \
      }                                                                                          \
    } else if ((T)->chunk == 0) {                                                                \
      int64_t b_, e_;                                                                            \
      block_of((T)->n, tid, nt, &b_, &e_);                                                       \
      if (e_ > b_)                                                                               \
        call((T)->begin + b_, (T)->begin + e_);                                                  \
    } else {                                                                                     \
      for (int64_t c_ = tid; c_ < (T)->nchunks; c_ += nt) {                                      \
        int64_t b_ = (T)->begin + c_ * (T)->chunk;                                               \
        int64_t e_ = b_ + (T)->chunk;                                                            \
        if (e_ > (T)->begin + (T)->n)                                                            \
          e_ = (T)->begin + (T)->n;                                                              \
        call(b_, e_);                                                                            \
      }                                                                                          \
    }                                                                                            \
  } while (0)

static void for_task(int tid, int nt, void *arg) {
  range_task_t *T = arg;
  const void *args = T->l->args;
#define CALL_FOR(b, e) T->f(args, b, e)
  FOR_MY_CHUNKS(T, tid, nt, CALL_FOR);
#undef CALL_FOR
}

static void reduce_task(int tid, int nt, void *arg) {
  range_task_t *T = arg;
  const void *args = T->l->args;
  void *acc = T->slots + (size_t)tid * T->slot;
  T->red->init(acc);
#define CALL_RED(b, e) T->r(args, b, e, acc)
  FOR_MY_CHUNKS(T, tid, nt, CALL_RED);
#undef CALL_RED
}

/* Scans always split the range into nt contiguous blocks in index order. */
static void scan_task(int tid, int nt, void *arg) {
  range_task_t *T = arg;
  const void *args = T->l->args;
  unsigned char *mine = T->slots + (size_t)tid * T->slot;
  int64_t b, e;
  block_of(T->n, tid, nt, &b, &e);
  T->red->init(mine);
  if (e > b)
    T->s(args, T->begin + b, T->begin + e, mine, 0);
  if (nt > 1)
    T->ex->barrier(T->ex, tid, nt);
  /* My prefix, the join of the totals of every thread before me, lives in
   * slot nt + 1 + tid; after the second pass the last thread's is the total. */
  unsigned char *prefix = T->slots + (size_t)(nt + 1 + tid) * T->slot;
  T->red->init(prefix);
  for (int t = 0; t < tid; t++)
    T->red->join(prefix, T->slots + (size_t)t * T->slot);
  if (e > b)
    T->s(args, T->begin + b, T->begin + e, prefix, 1);
}

/* Slots: nthreads partials, one spare, nthreads scan prefixes. */
#define NSLOTS(nt) ((size_t)(2 * (nt) + 1))

unsigned char *kkh_slots_alloc(int nthreads) {
  void *p = NULL;
  if (posix_memalign(&p, 64, NSLOTS(nthreads) * KKH_SLOT_SIZE) != 0)
    return NULL;
  memset(p, 0, NSLOTS(nthreads) * KKH_SLOT_SIZE);
  return p;
}

kk_status_t kkh_launch(kkh_exec_t *ex, const kk_host_services_t *hs, const kk_launch_t *l) {
  const kk_kernel_t *k = l->kernel;
  range_task_t T;
  T.l = l;
  T.f = k->host_for;
  T.r = k->host_reduce;
  T.s = k->host_scan;
  T.red = k->reducer;
  T.begin = l->begin;
  T.n = l->end - l->begin;
  T.ex = ex;
  T.slots = ex->slots;
  T.slot = KKH_SLOT_SIZE;
  T.dynamic = l->schedule == KK_SCHEDULE_DYNAMIC;
  int nt = ex->nthreads;

  void *fn = l->kind == KK_KIND_FOR ? (void *)T.f : l->kind == KK_KIND_REDUCE ? (void *)T.r : (void *)T.s;
  if (l->kind != KK_KIND_FOR && l->kind != KK_KIND_REDUCE && l->kind != KK_KIND_SCAN)
    return hs->error(hs->core, KK_ERROR_UNSUPPORTED, NULL, 0, "kernel '%s': kernel kind %u is not a range kernel",
                     k->name, l->kind);
  if (!fn)
    return hs->error(hs->core, KK_ERROR_KERNEL_MISMATCH, NULL, 0,
                     "kernel '%s' has no host code (its kernel file was compiled without the host target)",
                     k->name);
  if (l->kind != KK_KIND_FOR && !T.red)
    return hs->error(hs->core, KK_ERROR_KERNEL_MISMATCH, NULL, 0, "kernel '%s' has no reducer", k->name);

  /* Values larger than a slot (big custom reducers) get their own slots. */
  unsigned char *own = NULL;
  if (l->kind != KK_KIND_FOR && T.red->value_size > KKH_SLOT_SIZE) {
    T.slot = ((size_t)T.red->value_size + 63) & ~(size_t)63;
    if (posix_memalign((void **)&own, 64, T.slot * NSLOTS(nt)) != 0)
      return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0,
                       "kernel '%s': no memory for %zu partial values of %u bytes", k->name, NSLOTS(nt),
                       T.red->value_size);
    T.slots = own;
  }

  if (T.n <= 0) {
    if (l->kind != KK_KIND_FOR && l->result) {
      T.red->init(T.slots);
      memcpy(l->result, T.slots, T.red->value_size);
    }
    free(own);
    return KK_OK;
  }

  if (l->kind == KK_KIND_SCAN) {
    T.chunk = 0;
    T.nchunks = T.n;
  } else if (T.dynamic) {
    T.chunk = l->chunk > 0 ? l->chunk : (T.n + (int64_t)nt * 16 - 1) / ((int64_t)nt * 16);
    if (T.chunk < 1)
      T.chunk = 1;
    T.nchunks = (T.n + T.chunk - 1) / T.chunk;
  } else {
    T.chunk = l->chunk > 0 ? l->chunk : 0;
    T.nchunks = T.chunk ? (T.n + T.chunk - 1) / T.chunk : T.n;
  }
  atomic_init(&T.next, 0);
  int used = T.nchunks < (int64_t)nt ? (int)T.nchunks : nt;
  if (used < 1)
    used = 1;

  kkh_task_fn task = l->kind == KK_KIND_FOR ? for_task : l->kind == KK_KIND_REDUCE ? reduce_task : scan_task;
  if (used == 1 && l->kind == KK_KIND_SCAN) {
    /* one thread: a single pass with final set, as a sequential scan does */
    unsigned char *acc = T.slots + (size_t)2 * T.slot; /* slot 2 * used: where the total is read */
    T.red->init(acc);
    T.s(l->args, T.begin, T.begin + T.n, acc, 1);
  } else if (used == 1)
    task(0, 1, &T); /* one chunk: no thread needs waking */
  else
    ex->parallel(ex, used, task, &T);

  if (l->kind == KK_KIND_REDUCE) {
    /* join in thread order: deterministic for static schedules */
    for (int t = 1; t < used; t++)
      T.red->join(T.slots, T.slots + (size_t)t * T.slot);
    memcpy(l->result, T.slots, T.red->value_size);
  } else if (l->kind == KK_KIND_SCAN && l->result) {
    memcpy(l->result, T.slots + (size_t)(used + 1 + used - 1) * T.slot, T.red->value_size);
  }
  free(own);
  return KK_OK;
}
