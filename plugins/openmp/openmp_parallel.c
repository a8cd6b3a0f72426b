/* plugins/openmp/openmp_parallel.c -- the openmp backend's executor: one `omp parallel` region per launch, `omp barrier`, and launch. */
#include "config.h"

#include <errno.h>
#include <omp.h>
#include <stdlib.h>

#include "openmp.h"
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
  do
    st = kkh_launch(&ox->ex, ctx->hs, l);
  while (st == KK_OK && openmp_exec_retry(ctx, ox));
  openmp_exec_end(t);
  return st;
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
