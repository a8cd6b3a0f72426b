/* plugins/openmp/openmp_memory.c -- the openmp backend's memory: the "Host" space, set/copy/fill in a parallel region when large. */
#include "config.h"

#include <stdint.h>

#include "host_common.h"
#include "host_memops.h"
#include "openmp.h"

int32_t openmp_space_count(void *ctx) {
  (void)ctx;
  return 1;
}

kk_status_t openmp_space_props(void *vctx, int32_t space, kk_plugin_space_t *props) {
  openmp_ctx_t *ctx = vctx;
  if (space != 0)
    return ctx->hs->error(ctx->hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0, "space_props: no memory space %d", space);
  kkh_host_space_props(props);
  return KK_OK;
}

kk_status_t openmp_mem_alloc(void *ctx, int32_t space, size_t bytes, void **ptr) {
  (void)space;
  return kkh_mem_alloc(((openmp_ctx_t *)ctx)->hs, bytes, ptr);
}

kk_status_t openmp_mem_free(void *ctx, int32_t space, void *ptr) {
  (void)ctx, (void)space;
  kkh_mem_free(ptr);
  return KK_OK;
}

/* One set, copy or fill. */
typedef enum { OP_SET, OP_COPY, OP_FILL } op_kind_t;
typedef struct memop {
  op_kind_t op;
  void *dst;
  const void *src;      /* copy */
  int value;            /* set */
  const void *pattern;  /* fill */
  size_t pattern_size, count;
  size_t bytes;
} memop_t;

static void apply(kkh_exec_t *ex, const memop_t *m) {
  switch (m->op) {
  case OP_SET:
    kkh_memops_set(ex, m->dst, m->value, m->bytes);
    break;
  case OP_COPY:
    kkh_memops_copy(ex, m->dst, m->src, m->bytes);
    break;
  case OP_FILL:
    kkh_memops_fill(ex, m->dst, m->pattern, m->pattern_size, m->count);
    break;
  }
}

/* Small operations run on the calling thread; large ones claim the
 * instance's team and run in parallel regions (idempotent, so a region
 * short of threads just runs again).  Work on an instance is done when the
 * call returns, which satisfies "complete at the next fence". */
static void run(openmp_ctx_t *ctx, void *inst, const memop_t *m) {
  openmp_team_t *t = openmp_team_of(ctx, inst);
  if (!t || m->bytes < KKH_MEMOPS_PARALLEL_MIN || t->nthreads < 2) {
    apply(NULL, m);
    return;
  }
  openmp_exec_t *ox = openmp_exec_begin(ctx, t);
  do
    apply(&ox->ex, m);
  while (openmp_exec_retry(ctx, ox));
  openmp_exec_end(t);
}

kk_status_t openmp_mem_copy(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src, int32_t src_space,
                            size_t bytes) {
  (void)dst_space, (void)src_space;
  memop_t m = {.op = OP_COPY, .dst = dst, .src = src, .bytes = bytes};
  run(ctx, inst, &m);
  return KK_OK;
}

kk_status_t openmp_mem_set(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes) {
  (void)space;
  memop_t m = {.op = OP_SET, .dst = dst, .value = value, .bytes = bytes};
  run(ctx, inst, &m);
  return KK_OK;
}

kk_status_t openmp_mem_fill(void *vctx, void *inst, void *dst, int32_t space, const void *pattern,
                            size_t pattern_size, size_t count) {
  openmp_ctx_t *ctx = vctx;
  (void)space;
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4 && pattern_size != 8 && pattern_size != 16)
    return ctx->hs->error(ctx->hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0,
                          "mem_fill: pattern size %zu is not 1, 2, 4, 8 or 16", pattern_size);
  if (count > SIZE_MAX / pattern_size)
    return ctx->hs->error(ctx->hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0,
                          "mem_fill: %zu elements of %zu bytes overflow the address space", count, pattern_size);
  memop_t m = {.op = OP_FILL, .dst = dst, .pattern = pattern, .pattern_size = pattern_size, .count = count,
               .bytes = count * pattern_size};
  run(ctx, inst, &m);
  return KK_OK;
}
