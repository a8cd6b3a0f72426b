/* plugins/openmp/openmp_launch.c -- the openmp backend's executor: one `omp parallel` region per launch, `omp barrier`, and launch. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <errno.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "host_graph.h"
#include "openmp_internal.h"
#include "openmp_error.h"

/* kkh_exec_t.parallel.  The executor's tasks need exactly n threads (each
 * computes its share from n), so a region that gets fewer -- dynamic
 * adjustment (OMP_DYNAMIC), a thread limit, a nested region past
 * max-active-levels -- runs nothing and reports how many it got; the
 * operation then runs again on that many (openmp_exec_retry). */
static void openmp_parallel(kkh_exec_t *ex, int n, kkh_task_fn task, void *arg) {
  openmp_exec_t *ox = (openmp_exec_t *)ex;
  if (n <= 1) {
    task(0, 1, arg);
    return;
  }
#pragma omp parallel num_threads(n)
  {
    int got = omp_get_num_threads();
    if (got == n)
      task(omp_get_thread_num(), n, arg);
    else if (omp_get_thread_num() == 0)
      ox->got = got;
  }
}

static void openmp_barrier(kkh_exec_t *ex, int tid, int n) {
  (void)ex, (void)tid, (void)n;
#pragma omp barrier
}

kk_status_t openmp_team_create(openmp_ctx_t *ctx, int nthreads, const char *what, openmp_team_t **out) {
  *out = NULL;
  openmp_team_t *t = calloc(1, sizeof *t);
  if (!t)
    return openmp_fail(ctx->hs, ENOMEM, "%s: allocating the team", what);
  atomic_init(&t->claim.state, 0);
  t->nthreads = nthreads;
  t->exec.ex.parallel = openmp_parallel;
  t->exec.ex.barrier = openmp_barrier;
  t->exec.ex.slots = kkh_slots_alloc(nthreads);
  if (!t->exec.ex.slots) {
    free(t);
    return openmp_fail(ctx->hs, ENOMEM, "%s: allocating the partial values of %d threads", what, nthreads);
  }
  *out = t;
  return KK_OK;
}

void openmp_team_destroy(openmp_team_t *t) {
  if (!t)
    return;
  kkh_claim_take(&t->claim, OPENMP_CLAIM_SPIN_NS); /* a launch in flight finishes first */
  kkh_exec_release(&t->exec.ex);
  free(t->exec.ex.slots);
  free(t);
}

openmp_exec_t *openmp_exec_begin(openmp_ctx_t *ctx, openmp_team_t *t) {
  (void)ctx;
  kkh_claim_take(&t->claim, OPENMP_CLAIM_SPIN_NS);
  int n = t->nthreads;
  /* A region inside an active one past max-active-levels gets one thread:
   * do not ask for more. */
  if (n > 1 && omp_get_active_level() >= omp_get_max_active_levels())
    n = 1;
  openmp_exec_t *ox = &t->exec;
  ox->ex.nthreads = n;
  ox->got = 0;
  return ox;
}

int openmp_exec_retry(openmp_ctx_t *ctx, openmp_exec_t *ox) {
  if (!ox->got)
    return 0;
  if (!atomic_exchange(&ctx->warned_short, 1))
    ctx->hs->log(ctx->hs->core, KK_LOG_WARNING,
                 "a parallel region got %d threads where %d were asked (OMP_DYNAMIC, OMP_THREAD_LIMIT or nesting?); "
                 "such launches run again on the threads the runtime gives",
                 ox->got, ox->ex.nthreads);
  ox->ex.nthreads = ox->got < ox->ex.nthreads ? ox->got : 1;
  ox->got = 0;
  return 1;
}

void openmp_exec_end(openmp_team_t *t) { kkh_claim_drop(&t->claim); }

/* A thread entering such a region: its context and block of the n items, or
 * 0 when the runtime gave the region another number of threads than `used`
 * (thread 0 records how many in *got; nobody runs anything). */
static inline int fast_enter(int used, int *got, int64_t n, kk_host_thread_t *th, int64_t *lo, int64_t *hi) {
  const int t = omp_get_thread_num(), T = omp_get_num_threads();
  if (T != used) {
    if (t == 0)
      *got = T;
    return 0;
  }
  kkh_thread_init(th, t, T);
  kkh_block_of(n, t, T, lo, hi);
  return 1;
}

/* Range for and reduce on the static block schedule, the commonest
 * launches, get a region of their own: what a thread needs travels as the
 * region's firstprivate values, in the one block of arguments the runtime
 * hands its threads (as in a native `omp parallel for`), not behind
 * pointers to the launch and the executor's task.  Each further cache line a
 * worker must fetch from the launching core cost about 0.05-0.1 us per
 * launch here.  Returns 0 (nothing ran) when the launch is not such a one,
 * or the runtime gave the region fewer threads than asked: the general path
 * then runs it. */
static int openmp_fast_range(openmp_exec_t *ox, const kk_launch_t *l) {
  const kk_kernel_t *k = l->kernel;
  const int64_t b = l->begin, n = l->end - l->begin;
  int used = ox->ex.nthreads;
  if (l->schedule == KK_SCHEDULE_DYNAMIC || l->chunk > 0 || n < 2 || used < 2 || l->bounds_slot)
    return 0; /* (a bounds-checked launch: the general path hands its threads the record) */
  if (n < used)
    used = (int)n;
  int got = used;
  if (l->kind == KK_KIND_FOR && k->host_for) {
    const kk_host_for_fn fn = k->host_for;
    const void *const args = l->args;
#pragma omp parallel num_threads(used) firstprivate(fn, args, b, n, used) shared(got)
    {
      kk_host_thread_t th;
      int64_t lo, hi;
      if (fast_enter(used, &got, n, &th, &lo, &hi))
        fn(args, b + lo, b + hi, &th);
    }
    return got == used;
  }
  if (l->kind == KK_KIND_REDUCE && k->host_reduce && k->reducer && k->reducer->value_size <= KKH_SLOT_SIZE &&
      l->result) {
    const kk_host_reduce_fn fn = k->host_reduce;
    void (*const init)(void *) = k->reducer->init;
    const void *const args = l->args;
    unsigned char *const slots = ox->ex.slots;
#pragma omp parallel num_threads(used) firstprivate(fn, init, args, slots, b, n, used) shared(got)
    {
      kk_host_thread_t th;
      int64_t lo, hi;
      if (fast_enter(used, &got, n, &th, &lo, &hi)) {
        void *acc = slots + (size_t)th.thread_id * KKH_SLOT_SIZE;
        init(acc);
        fn(args, b + lo, b + hi, acc, &th);
      }
    }
    if (got != used)
      return 0;
    /* join in thread order, as kkh_launch does */
    for (int t = 1; t < used; t++)
      k->reducer->join(slots, slots + (size_t)t * KKH_SLOT_SIZE);
    memcpy(l->result, slots, k->reducer->value_size);
    return 1;
  }
  return 0;
}

/* The hot path: claim, one parallel region, let go.  No allocation, lock or
 * formatting unless the kernel is refused (or the runtime shorts a team,
 * which is warned about once). */
kk_status_t openmp_launch(void *vctx, void *inst, const kk_launch_t *l) {
  openmp_ctx_t *ctx = vctx;
  openmp_team_t *t = openmp_team_of(ctx, inst);
  if (!t)
    return ctx->hs->error(ctx->hs->core, KK_ERROR_NOT_INITIALIZED, NULL, 0,
                          "launch of '%s': the backend's device was not opened", l->label);
  openmp_exec_t *ox = openmp_exec_begin(ctx, t);
  kk_status_t st;
  if (openmp_fast_range(ox, l)) {
    openmp_exec_end(t);
    return KK_OK;
  }
  do
    st = kkh_launch(&ox->ex, ctx->hs, l);
  while (st == KK_OK && openmp_exec_retry(ctx, ox));
  openmp_exec_end(t);
  return st;
}

/* A team may hold every thread of the instance the launch is for (a created
 * instance has instance_threads); a core before plugin ABI 1.6 does not say
 * which, and gets the default instance's.  A team of one, which needs no
 * barrier, is the recommendation.  (A region the runtime shorts at launch,
 * see openmp_exec_retry, may still refuse a team this allowed.) */
kk_status_t openmp_team_size_query(void *vctx, const kk_launch_t *l, int32_t *max, int32_t *recommended) {
  openmp_ctx_t *ctx = vctx;
  const openmp_team_t *t = openmp_team_of(ctx, KK_LAUNCH_HAS(l, instance) ? l->instance : NULL);
  *max = t ? t->nthreads : ctx->nthreads;
  *recommended = 1;
  return KK_OK;
}

/* A graph: one `omp parallel` region for all its nodes, `omp barrier`
 * between dependency levels; run again on what the runtime gives when a
 * region gets fewer threads than asked. */
kk_status_t openmp_graph_create(void *vctx, const kk_graph_desc_t *desc, void **pgraph) {
  openmp_ctx_t *ctx = vctx;
  return kkh_graph_create(ctx->hs, desc, ctx->nthreads, (kkh_graph_t **)pgraph);
}

kk_status_t openmp_graph_launch(void *vctx, void *inst, void *graph) {
  openmp_ctx_t *ctx = vctx;
  openmp_team_t *t = openmp_team_of(ctx, inst);
  if (!t)
    return ctx->hs->error(ctx->hs->core, KK_ERROR_NOT_INITIALIZED, NULL, 0,
                          "graph launch: the backend's device was not opened");
  openmp_exec_t *ox = openmp_exec_begin(ctx, t);
  kk_status_t st;
  do
    st = kkh_graph_run(&ox->ex, ctx->hs, graph);
  while (st == KK_OK && openmp_exec_retry(ctx, ox));
  openmp_exec_end(t);
  return st;
}

kk_status_t openmp_graph_update(void *vctx, void *graph, uint32_t node, const kk_launch_t *launch) {
  return kkh_graph_update(((openmp_ctx_t *)vctx)->hs, graph, node, launch);
}

kk_status_t openmp_graph_destroy(void *vctx, void *graph) {
  (void)vctx;
  kkh_graph_destroy(graph);
  return KK_OK;
}

void openmp_warm_up(int nthreads) {
  if (nthreads < 2)
    return;
  /* Not an empty region: the compiler removes those. */
  atomic_int started;
  atomic_init(&started, 0);
#pragma omp parallel num_threads(nthreads)
  atomic_fetch_add_explicit(&started, 1, memory_order_relaxed);
}
