/* plugins/threads/threads_pool.c -- the threads backend's pool: workers bound to the binding targets, spin-then-sleep wake-up and barrier, claiming. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_graph.h"
#include "host_sync.h"
#include "threads_internal.h"
#include "threads_error.h"

/* ===========================================================================
 * The pool
 *
 * The caller of a launch is thread 0; workers 1..nthreads-1 wait for work.
 * A region is published by one store to `go` (sequence number and thread
 * count) after `task` and `arg`; workers whose index is below the count run
 * it, the others go on waiting.  A waiting worker spins (pause) for spin_ns
 * after its last task (yielding the CPU now and then, see kkh_spin_step),
 * then sleeps on the pool's futex word `dock` with bit (tid % 32) as its
 * mask.  Only when `nsleep` says some worker sleeps does the master advance
 * `dock` and wake, in one futex call, the sleepers whose bit the region's
 * threads 1..n-1 cover: the kernel wakes them all at once, as libgomp does,
 * so the last one starts one wake-up after the launch, not one per level of
 * a tree of wake-ups (in a virtual machine a wake-up costs tens of
 * microseconds).  Beyond 32 threads bits are shared, and a worker woken for
 * nothing goes back to sleep.  Both sides follow the store-then-load pattern
 * (sleeper: nsleep++, read dock, read go; master: write go, read nsleep,
 * dock++), all seq_cst: either the master sees the sleeper, or the sleeper
 * sees the region, or its futex wait finds `dock` changed.
 * ======================================================================== */

#define GO_COUNT_BITS 16
#define GO_COUNT_MASK ((1u << GO_COUNT_BITS) - 1)
_Static_assert(THREADS_MAX_THREADS <= GO_COUNT_MASK, "thread count must fit the go word");

typedef struct threads_worker {
  _Alignas(64) int tid;
  int target;                        /* binding target, -1: not bound */
  int bind_error;                    /* errno of a failed binding */
  threads_pool_t *pool;
  pthread_t thread;
} threads_worker_t;

struct threads_pool {
  kkh_exec_t ex; /* first: parallel() and barrier() receive &pool->ex */
  threads_ctx_t *ctx;
  const char *what;
  int nthreads;
  int nstarted;                  /* worker threads created */
  uint64_t spin_ns;
  uint64_t seq;                  /* sequence of the last region (the claim holder's) */
  threads_worker_t *workers;     /* [nthreads]; [0] is unused: the caller is thread 0 */

  _Alignas(64) kkh_claim_t claim;

  /* The region: task and arg are published by the store to `go`. */
  _Alignas(64) kkh_task_fn task; /* NULL: workers exit */
  void *arg;
  atomic_ullong go;              /* (seq << GO_COUNT_BITS) | threads in the region */

  _Alignas(64) atomic_uint nsleep;   /* workers asleep or about to sleep */
  atomic_uint dock;                  /* the sleepers' futex word, advanced to wake them */
  _Alignas(64) atomic_uint remaining; /* workers still in the region; the master sleeps on it */
  atomic_uint master_waits;
  _Alignas(64) atomic_uint bar_count;
  _Alignas(64) atomic_uint bar_gen;   /* the barrier's generation; its sleepers' futex word */
  atomic_uint bar_sleep;
  _Alignas(64) atomic_uint started;   /* workers bound and waiting */
};

/* A sleeping worker's bit in the dock mask, and the bits of threads 1..n-1. */
static inline unsigned dock_bit(int tid) { return 1u << (tid & 31); }
static inline unsigned dock_mask(int n) { return n > 32 ? ~0u : (unsigned)(((uint64_t)1 << n) - 2); }

/* True when region `g` is new to a worker and needs it; a new region that
 * does not need it is remembered as seen. */
static inline int go_is_mine(uint64_t g, int tid, uint64_t *seen) {
  uint64_t seq = g >> GO_COUNT_BITS;
  if (seq == *seen)
    return 0;
  if (tid < (int)(g & GO_COUNT_MASK))
    return 1;
  *seen = seq;
  return 0;
}

static uint64_t worker_wait(threads_pool_t *P, threads_worker_t *w, uint64_t *seen) {
  uint64_t g;
  kkh_spin_t spin = KKH_SPIN_INIT(P->spin_ns);
  do {
    g = atomic_load_explicit(&P->go, memory_order_acquire);
    if (go_is_mine(g, w->tid, seen))
      goto mine;
  } while (kkh_spin_step(&spin));
  atomic_fetch_add(&P->nsleep, 1);
  for (;;) {
    unsigned d = atomic_load(&P->dock);
    g = atomic_load(&P->go);
    if (go_is_mine(g, w->tid, seen))
      break;
    kkh_wait_mask(&P->dock, d, dock_bit(w->tid)); /* returns at once if dock moved on since d */
  }
  atomic_fetch_sub(&P->nsleep, 1);
mine:
  *seen = g >> GO_COUNT_BITS;
  return g;
}

static void bind_self(threads_worker_t *w) {
  const threads_topo_t *t = w->pool->ctx->topo;
  if (t && w->target >= 0)
    w->bind_error = threads_topo_bind(t, w->target);
}

/* Wakes the sleeping workers whose bits `mask` covers (see dock_mask). */
static void wake_sleepers(threads_pool_t *P, unsigned mask) {
  atomic_fetch_add(&P->dock, 1);
  kkh_wake_mask(&P->dock, mask);
}

static void *worker_main(void *arg) {
  threads_worker_t *w = arg;
  threads_pool_t *P = w->pool;
#if defined(__GLIBC__)
  char name[16];
  snprintf(name, sizeof name, "kk-threads-%d", w->tid);
  pthread_setname_np(pthread_self(), name);
#endif
  bind_self(w);
  atomic_fetch_add(&P->started, 1);
  kkh_wake_all(&P->started);

  uint64_t seen = 0;
  for (;;) {
    uint64_t g = worker_wait(P, w, &seen);
    kkh_task_fn task = P->task;
    if (!task)
      break;
    int n = (int)(g & GO_COUNT_MASK);
    task(w->tid, n, P->arg);
    /* seq_cst: pairs with the master's store to master_waits then load of
     * remaining, so the master is either seen asleep or sees zero. */
    if (atomic_fetch_sub(&P->remaining, 1) == 1 && atomic_load(&P->master_waits))
      kkh_wake_one(&P->remaining);
  }
  return NULL;
}

/* Waits for the workers of the region.  When some were asleep, they need a
 * futex wake-up before they even start (microseconds on bare metal, tens of
 * them in a virtual machine): sleeping before they finish would add a
 * second wake-up, of the master, so the master spins THREADS_WAKE_GRACE_NS
 * longer (unless spin_us is 0). */
static void master_wait(threads_pool_t *P, int woke) {
  kkh_spin_t spin = KKH_SPIN_INIT(woke && P->spin_ns ? P->spin_ns + THREADS_WAKE_GRACE_NS : P->spin_ns);
  do
    if (atomic_load_explicit(&P->remaining, memory_order_acquire) == 0)
      return;
  while (kkh_spin_step(&spin));
  atomic_store(&P->master_waits, 1);
  unsigned r;
  while ((r = atomic_load(&P->remaining)) != 0)
    kkh_wait(&P->remaining, r);
  atomic_store_explicit(&P->master_waits, 0, memory_order_relaxed);
}

/* kkh_exec_t.parallel: the caller holds the pool's claim. */
static void pool_parallel(kkh_exec_t *ex, int n, kkh_task_fn task, void *arg) {
  threads_pool_t *P = (threads_pool_t *)ex;
  if (n > P->nthreads)
    n = P->nthreads;
  if (n <= 1) {
    task(0, 1, arg);
    return;
  }
  P->task = task;
  P->arg = arg;
  atomic_store_explicit(&P->remaining, (unsigned)(n - 1), memory_order_relaxed);
  P->seq++;
  atomic_store(&P->go, (P->seq << GO_COUNT_BITS) | (uint64_t)n);
  int woke = atomic_load(&P->nsleep) != 0;
  if (woke)
    wake_sleepers(P, dock_mask(n));
  task(0, n, arg);
  master_wait(P, woke);
}

/* kkh_exec_t.barrier: a counter and a generation; the last thread to arrive
 * resets the counter and advances the generation the others wait on. */
static void pool_barrier(kkh_exec_t *ex, int tid, int n) {
  threads_pool_t *P = (threads_pool_t *)ex;
  (void)tid;
  if (n <= 1)
    return;
  unsigned gen = atomic_load_explicit(&P->bar_gen, memory_order_acquire);
  if (atomic_fetch_add_explicit(&P->bar_count, 1, memory_order_acq_rel) == (unsigned)n - 1) {
    atomic_store_explicit(&P->bar_count, 0, memory_order_relaxed);
    atomic_store(&P->bar_gen, gen + 1);
    if (atomic_load(&P->bar_sleep))
      kkh_wake_all(&P->bar_gen);
    return;
  }
  if (kkh_spin_while(&P->bar_gen, gen, P->spin_ns) != gen)
    return;
  atomic_fetch_add(&P->bar_sleep, 1);
  while (atomic_load(&P->bar_gen) == gen)
    kkh_wait(&P->bar_gen, gen);
  atomic_fetch_sub(&P->bar_sleep, 1);
}

/* Makes every started worker leave its loop, and joins them. */
static void pool_stop(threads_pool_t *P) {
  P->task = NULL;
  P->seq++;
  atomic_store(&P->go, (P->seq << GO_COUNT_BITS) | (uint64_t)P->nthreads);
  wake_sleepers(P, ~0u);
  for (int i = 1; i <= P->nstarted; i++)
    pthread_join(P->workers[i].thread, NULL);
  P->nstarted = 0;
}

static void pool_free(threads_pool_t *P) {
  kkh_exec_release(&P->ex);
  free(P->ex.slots);
  free(P->workers);
  free(P);
}

kk_status_t threads_pool_create(threads_ctx_t *ctx, int nthreads, unsigned first_target, const char *what,
                                threads_pool_t **out) {
  const kk_host_services_t *hs = ctx->hs;
  threads_pool_t *P = NULL;
  kk_status_t st;
  *out = NULL;
  if (nthreads < 1 || nthreads > THREADS_MAX_THREADS)
    return hs->error(hs->core, KK_ERROR_LIMIT, NULL, 0, "%s: %d threads requested, the backend supports 1 to %d", what,
                     nthreads, THREADS_MAX_THREADS);
  if (posix_memalign((void **)&P, 64, sizeof *P) != 0)
    return threads_fail(hs, ENOMEM, "%s: allocating the pool", what);
  memset(P, 0, sizeof *P);
  P->ctx = ctx;
  P->what = what;
  P->nthreads = nthreads;
  P->spin_ns = ctx->spin_ns;
  P->ex.nthreads = nthreads;
  P->ex.parallel = pool_parallel;
  P->ex.barrier = pool_barrier;
  P->ex.slots = kkh_slots_alloc(nthreads);
  if (!P->ex.slots || posix_memalign((void **)&P->workers, 64, (size_t)nthreads * sizeof *P->workers) != 0) {
    P->workers = NULL;
    st = threads_fail(hs, ENOMEM, "%s: allocating the state of %d threads", what, nthreads);
    goto fail_free_pool;
  }
  memset(P->workers, 0, (size_t)nthreads * sizeof *P->workers);
  atomic_init(&P->claim.state, 0);
  atomic_init(&P->go, 0);
  atomic_init(&P->nsleep, 0);
  atomic_init(&P->dock, 0);
  atomic_init(&P->remaining, 0);
  atomic_init(&P->master_waits, 0);
  atomic_init(&P->bar_count, 0);
  atomic_init(&P->bar_gen, 0);
  atomic_init(&P->bar_sleep, 0);
  atomic_init(&P->started, 0);

  /* Workers get no asynchronous signals: those belong to the application's
   * threads (a SIGINT handler must not run on a worker). */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = 0;
  for (int i = 1; i < nthreads; i++) {
    threads_worker_t *w = &P->workers[i];
    w->tid = i;
    w->pool = P;
    w->target = ctx->topo ? (int)((first_target + (unsigned)i) % (unsigned)threads_topo_targets(ctx->topo)) : -1;
    rc = pthread_create(&w->thread, NULL, worker_main, w);
    if (rc != 0)
      break;
    P->nstarted = i;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    st = threads_fail(hs, rc, "%s: pthread_create of worker %d of %d", what, P->nstarted + 1, nthreads - 1);
    goto fail_stop_workers;
  }

  /* Wait until every worker is bound, so that binding failures are reported
   * here and the first launch does not pay for thread start-up. */
  unsigned s;
  while ((s = atomic_load(&P->started)) != (unsigned)P->nstarted)
    kkh_wait(&P->started, s);
  int failed = 0, first = 0;
  for (int i = 1; i < nthreads; i++)
    if (P->workers[i].bind_error && !failed++)
      first = i;
  if (failed) {
    threads_worker_t *w = &P->workers[first];
    threads_warn(hs, w->bind_error, "%s: %d of %d workers could not be bound (first: worker %d to PU %d); they float",
                 what, failed, nthreads - 1, first, threads_topo_pu(ctx->topo, w->target));
  }
  if (ctx->topo && nthreads > 1)
    hs->log(hs->core, KK_LOG_DEBUG, "%s: %d threads; worker 1 bound to PU %d, the next ones along the %d targets",
            what, nthreads, threads_topo_pu(ctx->topo, P->workers[1].target), threads_topo_targets(ctx->topo));
  *out = P;
  return KK_OK;

fail_stop_workers:
  pool_stop(P);
fail_free_pool:
  pool_free(P);
  return st;
}

void threads_pool_destroy(threads_pool_t *P) {
  if (!P)
    return;
  kkh_claim_take(&P->claim, P->spin_ns);
  pool_stop(P);
  pool_free(P);
}

kkh_exec_t *threads_pool_claim(threads_pool_t *P) {
  kkh_claim_take(&P->claim, P->spin_ns);
  return &P->ex;
}

void threads_pool_drop(threads_pool_t *P) { kkh_claim_drop(&P->claim); }

void threads_pool_wait_idle(threads_pool_t *P) { kkh_claim_wait_idle(&P->claim, P->spin_ns); }

int threads_pool_size(const threads_pool_t *P) { return P->nthreads; }
