/* hostexec/host_exec.h -- how every host backend runs a launch: chunking, schedules, partials, scans, MDRange tiles, teams. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_HOST_EXEC_H
#define KK_PLUGINS_HOST_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <kk/plugin.h>

/* Bytes of one thread's slot for reduction partials and scan totals. */
#define KKH_SLOT_SIZE 256

/* Largest value a nested team reduction, broadcast or scan may carry. */
#define KKH_TEAM_VALUE_MAX KK_HOST_TEAM_VALUE_MAX

/* The work of one thread in a parallel region: tid in [0, nthreads). */
typedef void (*kkh_task_fn)(int tid, int nthreads, void *arg);

struct kkh_team_cache;

/* A team of host threads, as a backend provides it.  Zero-initialize it,
 * then set the first four members; call kkh_exec_release() when done. */
typedef struct kkh_exec {
  int nthreads;   /* threads the team has */
  /* Runs task(tid, n, arg) on n threads (1 <= n <= nthreads), the calling
   * thread being tid 0; returns when all n are done. */
  void (*parallel)(struct kkh_exec *ex, int n, kkh_task_fn task, void *arg);
  /* Waits until all n threads of the running region reach the barrier. */
  void (*barrier)(struct kkh_exec *ex, int tid, int n);
  /* 2 * nthreads + 1 slots of KKH_SLOT_SIZE bytes, 64-byte aligned (kkh_slots_alloc) */
  unsigned char *slots;
  /* host_exec's own state for team launches (scratch, team barriers), grown
   * on demand and kept between launches; NULL until the first team launch */
  struct kkh_team_cache *teams;
  /* the partials of values larger than a slot (big custom reducers): grown
   * on demand and kept between launches, so that a launch allocates only
   * when it needs more than any before it; NULL until then */
  unsigned char *big_slots;
  size_t big_size;
} kkh_exec_t;

/* The contiguous block t of nt over n items: [*b, *e). */
static inline void kkh_block_of(int64_t n, int t, int nt, int64_t *b, int64_t *e) {
  const int64_t q = n / nt, rem = n % nt;
  *b = (int64_t)t * q + (t < rem ? t : rem);
  *e = *b + q + (t < rem ? 1 : 0);
}

/* A range kernel's thread context: thread tid of nt, a team of one. */
static inline void kkh_thread_init(kk_host_thread_t *th, int tid, int nt) {
  memset(th, 0, sizeof *th);
  th->thread_id = tid;
  th->nthreads = nt;
  th->team_size = 1;
  th->vector_length = 1;
}

/* Runs a launch of any kind on `ex`.  Synchronous: results are written
 * before it returns.  Threads used: never more than there are chunks (a
 * one-iteration launch runs on the calling thread alone).  Returns
 * KK_ERROR_UNSUPPORTED for kinds it does not know, KK_ERROR_KERNEL_MISMATCH
 * when the kernel has no host entry point, KK_ERROR_KERNEL_FAILED when a team
 * overran its scratch (the message says by how much). */
kk_status_t kkh_launch(kkh_exec_t *ex, const kk_host_services_t *hs, const kk_launch_t *launch);

/* Largest team size and scratch per level a host backend offers. */
int32_t kkh_team_size_max(const kkh_exec_t *ex);

/* Allocates the slots of an executor of nthreads (64-byte aligned); NULL on failure. */
unsigned char *kkh_slots_alloc(int nthreads);

/* Frees what kkh_launch cached in ex (not ex->slots). */
void kkh_exec_release(kkh_exec_t *ex);

#endif
