/* hostexec/host_task.h -- one launch as host threads run it (host_exec.c), for the executors in hostexec/: a launch and a graph. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_HOST_TASK_H
#define KK_PLUGINS_HOST_TASK_H

#include <stdatomic.h>

#include "host_exec.h"

/* Slots of an executor of nt threads: nt partials, one spare, nt scan prefixes. */
#define KKH_NSLOTS(nt) ((size_t)(2 * (nt) + 1))

/* A launch cut up for `used` threads: thread tid < used calls task(tid,
 * used, T) and does its share; kkh_task_values then delivers the result. */
typedef struct kkh_task {
  const kk_launch_t *l;
  const kk_kernel_t *k;
  /* l->args, copied: a worker that reads it here needs one cache line the
   * launching thread wrote less (the launch), on its way to the kernel */
  const void *args;
  const kk_reducer_info_t *red;
  kkh_task_fn task;        /* what each of the `used` threads runs */
  int used;                /* threads that have a share (>= 1) */
  int reduces;             /* reduce and scan kinds: partial values in slots */
  int64_t begin, n;        /* the range (of indices, of tiles, of league ranks) */
  int64_t chunk;           /* per chunk; 0: one contiguous block per thread (or team) */
  int64_t nchunks;
  int dynamic;
  atomic_llong next;       /* dynamic schedule: next chunk to hand out */
  unsigned char *slots;    /* per-thread partial values: KKH_NSLOTS(used) slots of `slot` bytes */
  size_t slot;             /* bytes between slots */
  kkh_exec_t *ex;          /* the combined scan task's barrier */
  /* MDRange */
  int rank, inner_left, outer_left;
  int64_t tile[KK_MD_MAX_RANK], ntile[KK_MD_MAX_RANK];
  unsigned char even[KK_MD_MAX_RANK]; /* split into ntile near-equal parts (default tiles), not tiles of `tile` */
  /* teams */
  struct kkh_team_cache *cache;
  int team_size, nteams;   /* nteams > 0: a team launch, which needs `cache` */
} kkh_task_t;

/* Cuts launch l up for nt threads (everything but slots, cache and ex).
 * Errors: an unknown kind, no host code, no reducer, a team larger than nt. */
kk_status_t kkh_task_plan(kkh_task_t *T, const kk_host_services_t *hs, const kk_launch_t *l, int nt);

/* Once every share ran: the reduction's join, the scan's total or an empty
 * range's identity into l->result (nothing for other kinds).  Any thread may
 * call it. */
void kkh_task_values(kkh_task_t *T);

/* KK_ERROR_KERNEL_FAILED when a team overran its scratch (on the calling
 * thread's error slot: call it from the thread that launched). */
kk_status_t kkh_task_status(const kkh_task_t *T, const kk_host_services_t *hs);

/* A scan's two passes, for executors that put a barrier of their own
 * between them; kkh_scan_single is the one-thread form (task of a plan with
 * used == 1). */
void kkh_scan_pass1(int tid, int nt, void *T);
void kkh_scan_pass2(int tid, int nt, void *T);
void kkh_scan_single(int tid, int nt, void *T);

/* Team state (scratch, team barriers) for nslots teams of tsize threads of
 * an executor of nthreads, grown as needed in *pc; reset puts its barriers
 * and failure back to the start, free releases it. */
kk_status_t kkh_team_cache_prepare(struct kkh_team_cache **pc, int nthreads, const kk_host_services_t *hs,
                                   const kk_launch_t *l, int nslots, int tsize);
void kkh_team_cache_reset(struct kkh_team_cache *c);
void kkh_team_cache_free(struct kkh_team_cache *c);

#endif
