/* hostexec/host_remap.c -- copies between views of different layouts on the host: cache tiles, split over a team's threads. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host_remap.h"

static size_t g_parallel_min = KKH_REMAP_PARALLEL_MIN;
static pthread_once_t g_parallel_min_once = PTHREAD_ONCE_INIT;

static void read_parallel_min(void) {
  const char *v = getenv("KK_REMAP_PARALLEL_MIN");
  if (v && *v) {
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (*end == '\0')
      g_parallel_min = (size_t)n;
  }
}

size_t kkh_remap_parallel_min(void) {
  pthread_once(&g_parallel_min_once, read_parallel_min);
  return g_parallel_min;
}

/* The copy cut into work items: every index of the dimensions outside the
 * tile (`outer`) times every tile over dimensions a and b. */
typedef struct plan {
  const kk_plugin_remap_t *r;
  int a, b;                   /* tiled dimensions (b == a: one tiled dimension) */
  int64_t ta, tb;             /* tile extents */
  int64_t na, nb;             /* tiles along a and b */
  int nouter;
  int outer[KK_MAX_RANK];     /* the other dimensions of extent > 1 */
  int64_t items;
  int64_t dsa, dsb, ssa, ssb; /* byte strides along a and b */
} plan_t;

/* One tile: la x lb elements of size E, writes along a (where dst's stride
 * is smallest), the reads of a column of the tile reusing the lines the
 * previous column brought in. */
#define TILE_FN(NAME, E)                                                                                           \
  static void NAME(unsigned char *d, const unsigned char *s, int64_t la, int64_t lb, int64_t dsa, int64_t dsb,       \
                   int64_t ssa, int64_t ssb, size_t e) {                                                            \
    (void)e;                                                                                                       \
    for (int64_t ib = 0; ib < lb; ib++) {                                                                          \
      unsigned char *dp = d + ib * dsb;                                                                            \
      const unsigned char *sp = s + ib * ssb;                                                                      \
      for (int64_t ia = 0; ia < la; ia++)                                                                          \
        memcpy(dp + ia * dsa, sp + ia * ssa, E);                                                                   \
    }                                                                                                              \
  }
TILE_FN(tile1, 1)
TILE_FN(tile2, 2)
TILE_FN(tile4, 4)
TILE_FN(tile8, 8)
TILE_FN(tile16, 16)
TILE_FN(tile_any, e)
#undef TILE_FN

typedef void (*tile_fn)(unsigned char *, const unsigned char *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                        size_t);

static tile_fn tile_for(size_t e) {
  switch (e) {
  case 1:
    return tile1;
  case 2:
    return tile2;
  case 4:
    return tile4;
  case 8:
    return tile8;
  case 16:
    return tile16;
  default:
    return tile_any;
  }
}

/* Work items [first, last) of the plan. */
static void run_items(const plan_t *p, int64_t first, int64_t last) {
  const kk_plugin_remap_t *r = p->r;
  const size_t e = r->elem_size;
  const tile_fn tile = tile_for(e);
  for (int64_t w = first; w < last; w++) {
    int64_t rest = w;
    const int64_t ia = rest % p->na;
    rest /= p->na;
    const int64_t ib = rest % p->nb;
    rest /= p->nb;
    int64_t doff = 0, soff = 0;
    for (int k = p->nouter - 1; k >= 0; k--) {
      const int d = p->outer[k];
      const int64_t i = rest % r->extent[d];
      rest /= r->extent[d];
      doff += i * r->dst_stride[d];
      soff += i * r->src_stride[d];
    }
    const int64_t a0 = ia * p->ta, la = r->extent[p->a] - a0 < p->ta ? r->extent[p->a] - a0 : p->ta;
    int64_t b0 = 0, lb = 1;
    if (p->b != p->a) {
      b0 = ib * p->tb;
      lb = r->extent[p->b] - b0 < p->tb ? r->extent[p->b] - b0 : p->tb;
      doff += b0 * r->dst_stride[p->b];
      soff += b0 * r->src_stride[p->b];
    }
    doff += a0 * r->dst_stride[p->a];
    soff += a0 * r->src_stride[p->a];
    tile((unsigned char *)r->dst + doff * (int64_t)e, (const unsigned char *)r->src + soff * (int64_t)e, la, lb,
         p->dsa, p->dsb, p->ssa, p->ssb, e);
  }
}

static void task(int tid, int nt, void *arg) {
  const plan_t *p = arg;
  int64_t b, e;
  kkh_block_of(p->items, tid, nt, &b, &e);
  run_items(p, b, e);
}

/* Elements per tile side: a tile row of about 128 to 256 bytes (whole cache
 * lines), so that a tile of each side stays well inside L1. */
static int64_t tile_extent(size_t e) { return e <= 2 ? 64 : e <= 8 ? 32 : e <= 32 ? 16 : 8; }

void kkh_remap(kkh_exec_t *ex, const kk_plugin_remap_t *r) {
  const int rank = r->rank;
  const size_t e = r->elem_size;
  int64_t n = 1;
  for (int d = 0; d < rank; d++)
    n *= r->extent[d];
  if (n == 0 || e == 0)
    return;
  /* a: where dst's stride is smallest, b: where src's is (extent > 1; the
   * last such dimension on a tie) */
  int a = -1, b = -1;
  for (int d = rank - 1; d >= 0; d--) {
    if (r->extent[d] <= 1)
      continue;
    if (a < 0 || r->dst_stride[d] < r->dst_stride[a])
      a = d;
    if (b < 0 || r->src_stride[d] < r->src_stride[b])
      b = d;
  }
  if (a < 0) { /* one element */
    memcpy(r->dst, r->src, e);
    return;
  }
  plan_t p = {.r = r, .a = a, .b = b};
  const int64_t t = tile_extent(e);
  if (b == a) {
    /* the smallest strides agree: a run along a is the whole tile */
    p.ta = r->extent[a];
    p.tb = 1;
  } else {
    p.ta = r->extent[a] < t ? r->extent[a] : t;
    p.tb = r->extent[b] < t ? r->extent[b] : t;
  }
  p.na = (r->extent[a] + p.ta - 1) / p.ta;
  p.nb = b == a ? 1 : (r->extent[b] + p.tb - 1) / p.tb;
  p.items = p.na * p.nb;
  for (int d = 0; d < rank; d++)
    if (d != a && d != b && r->extent[d] > 1) {
      p.outer[p.nouter++] = d;
      p.items *= r->extent[d];
    }
  p.dsa = r->dst_stride[a] * (int64_t)e;
  p.ssa = r->src_stride[a] * (int64_t)e;
  p.dsb = b == a ? 0 : r->dst_stride[b] * (int64_t)e;
  p.ssb = b == a ? 0 : r->src_stride[b] * (int64_t)e;
  int nt = 1;
  if (ex && ex->nthreads > 1 && (size_t)n * e >= kkh_remap_parallel_min())
    nt = p.items < ex->nthreads ? (int)p.items : ex->nthreads;
  if (nt <= 1)
    run_items(&p, 0, p.items);
  else
    ex->parallel(ex, nt, task, &p);
}
