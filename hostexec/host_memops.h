/* hostexec/host_memops.h -- set, copy and fill host memory on a team of threads when it is large (first-touch placement). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_HOST_MEMOPS_H
#define KK_PLUGINS_HOST_MEMOPS_H

#include <stddef.h>

#include "host_exec.h"

/* Operations on at least this many bytes run on the team, each thread taking
 * one page-aligned block, so that freshly allocated memory is first touched
 * (placed) by the threads that later work on it with a static schedule.
 * Smaller ones run on the calling thread, where waking a team costs more
 * than it saves. */
#define KKH_MEMOPS_PARALLEL_MIN ((size_t)1 << 20)

/* Smallest block one thread gets; fewer threads are used for less. */
#define KKH_MEMOPS_MIN_BLOCK ((size_t)256 << 10)

/* Each function runs on `ex` (NULL: the calling thread) and returns when the
 * memory is written.  The caller must own `ex` (hold its claim).  A team
 * that runs nothing (a backend whose parallel() could not get its threads)
 * may call these again: they are idempotent. */

/* memset. */
void kkh_memops_set(kkh_exec_t *ex, void *dst, int value, size_t bytes);

/* memmove: overlapping ranges are copied on the calling thread. */
void kkh_memops_copy(kkh_exec_t *ex, void *dst, const void *src, size_t bytes);

/* `count` copies of the `pattern_size`-byte pattern (1, 2, 4, 8 or 16). */
void kkh_memops_fill(kkh_exec_t *ex, void *dst, const void *pattern, size_t pattern_size, size_t count);

/* The same operations as tasks, for an executor that runs them inside a
 * region of its own (a graph): kkh_memop_threads says on how many of
 * nthreads threads one runs (1 below KKH_MEMOPS_PARALLEL_MIN bytes, or for
 * an overlapping copy), and each of them calls kkh_memop_task(tid, nt, m). */
enum { KKH_MEMOP_SET, KKH_MEMOP_COPY, KKH_MEMOP_FILL, KKH_MEMOP_MOVE };
typedef struct kkh_memop {
  int op;
  unsigned char *dst;
  const unsigned char *src;
  int value;
  const void *pattern;
  size_t pattern_size;
  size_t bytes;
} kkh_memop_t;
void kkh_memop_init_copy(kkh_memop_t *m, void *dst, const void *src, size_t bytes);
void kkh_memop_init_fill(kkh_memop_t *m, void *dst, const void *pattern, size_t pattern_size, size_t count);
int kkh_memop_threads(const kkh_memop_t *m, int nthreads);
void kkh_memop_task(int tid, int nt, void *m);

#endif
