/* plugins/common/host_exec.h -- how every host backend runs a range launch: chunking, schedules, per-thread partials, two-pass scans. */
#ifndef KK_PLUGINS_HOST_EXEC_H
#define KK_PLUGINS_HOST_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include <kk/plugin.h>

/* Bytes of one thread's slot for reduction partials and scan totals. */
#define KKH_SLOT_SIZE 256

/* The work of one thread in a parallel region: tid in [0, nthreads). */
typedef void (*kkh_task_fn)(int tid, int nthreads, void *arg);

/* A team of host threads, as a backend provides it. */
typedef struct kkh_exec {
  int nthreads;   /* threads the team has */
  /* Runs task(tid, n, arg) on n threads (1 <= n <= nthreads), the calling
   * thread being tid 0; returns when all n are done. */
  void (*parallel)(struct kkh_exec *ex, int n, kkh_task_fn task, void *arg);
  /* Waits until all n threads of the running region reach the barrier. */
  void (*barrier)(struct kkh_exec *ex, int tid, int n);
  /* nthreads slots of KKH_SLOT_SIZE bytes, 64-byte aligned, owned by the backend */
  unsigned char *slots;
} kkh_exec_t;

/* Runs a range for/reduce/scan launch on `ex`.  Synchronous: results are
 * written before it returns.  Threads used: never more than there are chunks
 * (a one-iteration launch runs on the calling thread alone).  Returns
 * KK_ERROR_UNSUPPORTED for kinds it does not know and
 * KK_ERROR_KERNEL_MISMATCH when the kernel has no host entry point. */
kk_status_t kkh_launch(kkh_exec_t *ex, const kk_host_services_t *hs, const kk_launch_t *launch);

/* Allocates nthreads slots for an executor (64-byte aligned); NULL on failure. */
unsigned char *kkh_slots_alloc(int nthreads);

#endif
