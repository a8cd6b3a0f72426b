/* hostexec/host_memops.c -- parallel memset / memmove / pattern fill for the host backends. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "host_common.h"
#include "host_memops.h"

#define PAGE ((size_t)4096)

/* A fill of a large block: pattern the first page (log2 steps of memcpy),
 * then copy that page on, so that every copy reads from L1 instead of from
 * the (cold) first half of the block.  A page is a whole number of patterns,
 * so the phase carries over. */
static void fill_block(unsigned char *d, const void *pattern, size_t psize, size_t bytes) {
  if (bytes == 0)
    return;
  if (psize == 1) {
    memset(d, *(const unsigned char *)pattern, bytes);
    return;
  }
  size_t head = bytes < PAGE ? bytes : PAGE;
  kkh_mem_fill(d, pattern, psize, head / psize);
  for (size_t off = head; off < bytes; off += head)
    memcpy(d + off, d, bytes - off < head ? bytes - off : head);
}

/* Start of thread t's block (t in [0, nt]): an even split, moved to a page
 * boundary of the destination (absolute for set/copy, so that each page is
 * first touched by one thread; relative to dst for fill, so that blocks start
 * on a whole pattern). */
static size_t block_start(const kkh_memop_t *m, int t, int nt) {
  if (t == 0)
    return 0;
  if (t == nt)
    return m->bytes;
  size_t raw = (m->bytes / (size_t)nt) * (size_t)t;
  size_t off;
  if (m->op == KKH_MEMOP_FILL) {
    off = (raw + PAGE - 1) & ~(PAGE - 1);
  } else {
    uintptr_t a = ((uintptr_t)m->dst + raw + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
    off = (size_t)(a - (uintptr_t)m->dst);
  }
  return off < m->bytes ? off : m->bytes;
}

void kkh_memop_task(int tid, int nt, void *arg) {
  const kkh_memop_t *m = arg;
  if (m->op == KKH_MEMOP_MOVE) {
    memmove(m->dst, m->src, m->bytes);
    return;
  }
  size_t b = block_start(m, tid, nt), e = block_start(m, tid + 1, nt);
  if (e <= b)
    return;
  switch (m->op) {
  case KKH_MEMOP_SET:
    memset(m->dst + b, m->value, e - b);
    break;
  case KKH_MEMOP_COPY:
    memcpy(m->dst + b, m->src + b, e - b);
    break;
  default:
    fill_block(m->dst + b, m->pattern, m->pattern_size, e - b);
    break;
  }
}

int kkh_memop_threads(const kkh_memop_t *m, int nthreads) {
  if (m->op == KKH_MEMOP_MOVE || m->bytes < KKH_MEMOPS_PARALLEL_MIN)
    return 1;
  size_t most = m->bytes / KKH_MEMOPS_MIN_BLOCK;
  return most < (size_t)nthreads ? (most > 0 ? (int)most : 1) : nthreads;
}

void kkh_memop_init_copy(kkh_memop_t *m, void *dst, const void *src, size_t bytes) {
  uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
  *m = (kkh_memop_t){.op = KKH_MEMOP_COPY, .dst = dst, .src = src, .bytes = dst == src ? 0 : bytes};
  if (m->bytes && d < s + bytes && s < d + bytes)
    m->op = KKH_MEMOP_MOVE; /* overlapping: on one thread */
}

void kkh_memop_init_fill(kkh_memop_t *m, void *dst, const void *pattern, size_t pattern_size, size_t count) {
  *m = (kkh_memop_t){.op = KKH_MEMOP_FILL, .dst = dst, .pattern = pattern, .pattern_size = pattern_size,
                     .bytes = count * pattern_size};
}

static void run(kkh_exec_t *ex, kkh_memop_t *m) {
  int nt = ex ? kkh_memop_threads(m, ex->nthreads) : 1;
  if (nt <= 1)
    kkh_memop_task(0, 1, m);
  else
    ex->parallel(ex, nt, kkh_memop_task, m);
}

void kkh_memops_set(kkh_exec_t *ex, void *dst, int value, size_t bytes) {
  kkh_memop_t m = {.op = KKH_MEMOP_SET, .dst = dst, .value = value, .bytes = bytes};
  run(ex, &m);
}

void kkh_memops_copy(kkh_exec_t *ex, void *dst, const void *src, size_t bytes) {
  kkh_memop_t m;
  kkh_memop_init_copy(&m, dst, src, bytes);
  if (m.bytes)
    run(ex, &m);
}

void kkh_memops_fill(kkh_exec_t *ex, void *dst, const void *pattern, size_t pattern_size, size_t count) {
  kkh_memop_t m;
  kkh_memop_init_fill(&m, dst, pattern, pattern_size, count);
  run(ex, &m);
}
