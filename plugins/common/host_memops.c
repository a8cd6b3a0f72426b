/* plugins/common/host_memops.c -- parallel memset / memmove / pattern fill for the host backends. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "host_common.h"
#include "host_memops.h"

#define PAGE ((size_t)4096)

enum { OP_SET, OP_COPY, OP_FILL };

typedef struct memop {
  int op;
  unsigned char *dst;
  const unsigned char *src;
  int value;
  const void *pattern;
  size_t pattern_size;
  size_t bytes;
} memop_t;

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
static size_t block_start(const memop_t *m, int t, int nt) {
  if (t == 0)
    return 0;
  if (t == nt)
    return m->bytes;
  size_t raw = (m->bytes / (size_t)nt) * (size_t)t;
  size_t off;
  if (m->op == OP_FILL) {
    off = (raw + PAGE - 1) & ~(PAGE - 1);
  } else {
    uintptr_t a = ((uintptr_t)m->dst + raw + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
    off = (size_t)(a - (uintptr_t)m->dst);
  }
  return off < m->bytes ? off : m->bytes;
}

static void memop_task(int tid, int nt, void *arg) {
  const memop_t *m = arg;
  size_t b = block_start(m, tid, nt), e = block_start(m, tid + 1, nt);
  if (e <= b)
    return;
  switch (m->op) {
  case OP_SET:
    memset(m->dst + b, m->value, e - b);
    break;
  case OP_COPY:
    memcpy(m->dst + b, m->src + b, e - b);
    break;
  default:
    fill_block(m->dst + b, m->pattern, m->pattern_size, e - b);
    break;
  }
}

static void run(kkh_exec_t *ex, memop_t *m) {
  int nt = 1;
  if (ex && m->bytes >= KKH_MEMOPS_PARALLEL_MIN) {
    size_t most = m->bytes / KKH_MEMOPS_MIN_BLOCK;
    nt = ex->nthreads;
    if (most < (size_t)nt)
      nt = most > 0 ? (int)most : 1;
  }
  if (nt <= 1)
    memop_task(0, 1, m);
  else
    ex->parallel(ex, nt, memop_task, m);
}

void kkh_memops_set(kkh_exec_t *ex, void *dst, int value, size_t bytes) {
  memop_t m = {.op = OP_SET, .dst = dst, .value = value, .bytes = bytes};
  run(ex, &m);
}

void kkh_memops_copy(kkh_exec_t *ex, void *dst, const void *src, size_t bytes) {
  uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
  if (bytes == 0 || dst == src)
    return;
  if (d < s + bytes && s < d + bytes) {
    memmove(dst, src, bytes);
    return;
  }
  memop_t m = {.op = OP_COPY, .dst = dst, .src = src, .bytes = bytes};
  run(ex, &m);
}

void kkh_memops_fill(kkh_exec_t *ex, void *dst, const void *pattern, size_t pattern_size, size_t count) {
  memop_t m = {.op = OP_FILL, .dst = dst, .pattern = pattern, .pattern_size = pattern_size,
               .bytes = count * pattern_size};
  run(ex, &m);
}
