/* algorithms/binsort.c -- BinSort: bins over uniform 1-D or 3-D boxes, their counts, offsets and a permutation, applied to any view. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sort_gpu.h"

KK_DECLARE_KERNEL(kka_bin_count_host);
KK_DECLARE_KERNEL(kka_bin_total);
KK_DECLARE_KERNEL(kka_bin_block_offsets);
KK_DECLARE_KERNEL(kka_bin_scatter_host);
KK_DECLARE_KERNEL(kka_bin_count_gpu);
KK_DECLARE_KERNEL(kka_bin_scatter_gpu);
KK_DECLARE_KERNEL(kka_scan_i64);
KK_DECLARE_KERNEL(kka_seq_i64);
KK_DECLARE_KERNEL(kka_rows_8);
KK_DECLARE_KERNEL(kka_rows_bytes);

enum { HELD_BINS, HELD_BINS2, HELD_BLOCK_COUNTS, HELD_TOTALS, HELD_VALS, HELD_RADIX, HELD_APPLY, HELD_N };

struct kk_binsort {
  kka_call_t c;
  kk_view_t *keys;                  /* retained: kk_binsort_update reads it again */
  int dims;
  int64_t nb[3];
  double min[3], max[3];            /* as given (min == max: the keys' own range at each update) */
  int64_t n, nbins;
  unsigned flags;
  kk_view_t *counts, *offsets, *perm;
  /* what each update reuses: each key's bin, per-block counts and per-bin
   * totals (host backends), cursors (GPUs), the stable GPU path's radix
   * sort (indices, a second bin buffer, its state) */
  uint32_t *bins, *bins2;
  int64_t *block_counts, *totals, *vals;
  int64_t blocks, per;
  kka_ws_t radix_ws;
  /* kk_binsort_apply's copy, grown to the largest element seen */
  void *apply_tmp;
  size_t apply_bytes;
  /* the views that hold these buffers (kka_keep), in the order above */
  kk_view_t *held[HELD_N];
  uint64_t init_id; /* the initialization it was made in (kka_live) */
};

/* blocks of a host backend: one per thread, none shorter than this */
#define BIN_MIN_BLOCK 32768

static kk_view_t *int64_view(const kka_call_t *c, const char *label, int64_t n) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = KK_INT64;
  s.rank = 1;
  s.extents[0] = n;
  s.space = c->space;
  s.flags = KK_VIEW_NO_INIT;
  kk_view_t *v = NULL;
  return kk_view_create(&s, &v) == KK_OK ? v : NULL;
}

/* exclusive scan of n int64 at src into dst (then dst[n] = total, set by the caller) */
static kk_status_t scan_i64(const kka_call_t *c, int64_t *src, int64_t *dst, int64_t n) {
  struct kka_scan_args a;
  memset(&a, 0, sizeof a);
  a.h.in = kka_desc_raw(src, n, 8, KK_INT64);
  a.h.out = kka_desc_raw(dst, n, 8, KK_INT64);
  a.h.n = a.h.cap = n;
  a.h.flags = KK__ALG_UNIT;
  a.exclusive = 1;
  return kka_scan(c, KK_KERNEL(kka_scan_i64), &a, sizeof a, n, NULL, 0);
}

/* The keys' range along each axis with min == max (kk_reduce on a column). */
static kk_status_t auto_range(const kka_call_t *c, kk_view_t *keys, int dims, double *mn, double *mx) {
  for (int d = 0; d < dims; d++) {
    if (mn[d] != mx[d])
      continue;
    kk_view_t *col = kk_view_retain(keys);
    if (dims == 3) {
      kk_view_release(col);
      kk_slice_t sl[2] = {KK_ALL, KK_IDX(d)};
      kk_status_t st = kk_view_subview(keys, sl, &col);
      if (st != KK_OK)
        return st;
    }
    union {
      double d;
      float f;
      int64_t i;
      unsigned char b[8];
    } lo, hi;
    memset(&lo, 0, sizeof lo);
    memset(&hi, 0, sizeof hi);
    kk_status_t st = kk_reduce(c->inst, col, KK_MIN, lo.b);
    if (st == KK_OK)
      st = kk_reduce(c->inst, col, KK_MAX, hi.b);
    const kk_type_t t = kk_view_type(col);
    kk_view_release(col);
    if (st != KK_OK)
      return st;
    /* as doubles: the reduce gave one element of the view's type */
    double l, h;
    switch (t) {
    case KK_FLOAT:
      l = lo.f, h = hi.f;
      break;
    case KK_DOUBLE:
      l = lo.d, h = hi.d;
      break;
    default: { /* integers: sign-extend or zero-extend from their size */
      const int sz = (int)kka_tsize(t), sig = kka_is_signed(t);
      int64_t a = 0, b = 0;
      memcpy(&a, lo.b, (size_t)sz);
      memcpy(&b, hi.b, (size_t)sz);
      if (sig && sz < 8) {
        a = (int64_t)((uint64_t)a << (64 - 8 * sz)) >> (64 - 8 * sz);
        b = (int64_t)((uint64_t)b << (64 - 8 * sz)) >> (64 - 8 * sz);
      }
      l = t == KK_UINT64 ? (double)(uint64_t)a : (double)a;
      h = t == KK_UINT64 ? (double)(uint64_t)b : (double)b;
    }
    }
    mn[d] = l;
    mx[d] = h;
  }
  return KK_OK;
}

static kk_status_t create(const char *op, kk_instance_t *instance, kk_view_t *keys, int dims, const int64_t *nb,
                          const double *min_in, const double *max_in, unsigned flags, kk_binsort_t **out) {
  kka_call_t c;
  const char *names[1] = {"keys"};
  kk_status_t st = kka_begin(&c, op, instance, 1, &keys, names);
  if (st != KK_OK)
    return st;
  if ((st = kka_check_ptr(&c, out, "out")) != KK_OK)
    return st;
  *out = NULL;
  if ((st = kka_check_rank(&c, keys, "keys", dims == 1 ? 1 : 2)) != KK_OK || (st = kka_check_arith(&c, keys, "keys")) != KK_OK)
    return st;
  if (dims == 3 && KKA_UNLIKELY(kk_view_extent(keys, 1) != 3))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: view 'keys' %s has extent %lld in dimension 1, expected 3 (x, y, z)",
                   op, kka_label(keys), (long long)kk_view_extent(keys, 1));
  if (KKA_UNLIKELY(flags & ~(unsigned)KK_BINSORT_STABLE))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", op, flags & ~(unsigned)KK_BINSORT_STABLE);
  double mn[3] = {0, 0, 0}, mx[3] = {0, 0, 0};
  int64_t nbins = 1;
  for (int d = 0; d < dims; d++) {
    if (KKA_UNLIKELY(nb[d] < 1 || !(min_in[d] <= max_in[d]) || !isfinite(min_in[d]) || !isfinite(max_in[d])))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: axis %d: %lld bins over [%g, %g); need at least 1 bin and a finite "
                     "min <= max", op, d, (long long)nb[d], min_in[d], max_in[d]);
    mn[d] = min_in[d];
    mx[d] = max_in[d];
    nbins *= nb[d];
    if (KKA_UNLIKELY(nbins > (int64_t)1 << 31))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: %lld bins or more: at most 2^31", op, (long long)nbins);
  }
  const int64_t n = kk_view_extent(keys, 0);
  kk_binsort_t *bs = calloc(1, sizeof *bs);
  if (!bs)
    return kka_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  bs->c = c;
  bs->init_id = kk_initialization_id();
  bs->keys = kk_view_retain(keys);
  bs->dims = dims;
  for (int d = 0; d < dims; d++) {
    bs->nb[d] = nb[d];
    bs->min[d] = mn[d];
    bs->max[d] = mx[d];
  }
  bs->n = n;
  bs->nbins = nbins;
  bs->flags = flags;
  bs->counts = int64_view(&c, "binsort counts", nbins);
  bs->offsets = int64_view(&c, "binsort offsets", nbins + 1);
  bs->perm = int64_view(&c, "binsort permutation", n);
  bs->bins = kka_keep(&c, "bins", (size_t)(n > 0 ? n : 1) * 4, &bs->held[HELD_BINS]);
  st = bs->counts && bs->offsets && bs->perm && bs->bins ? KK_OK : kk_last_status();
  if (st == KK_OK && c.host) {
    /* blocks: one per thread, none shorter than BIN_MIN_BLOCK */
    int64_t blocks = kka_host_threads(&c);
    if (blocks > (n + BIN_MIN_BLOCK - 1) / BIN_MIN_BLOCK)
      blocks = (n + BIN_MIN_BLOCK - 1) / BIN_MIN_BLOCK;
    if (blocks < 1)
      blocks = 1;
    bs->per = (n + blocks - 1) / blocks;
    bs->blocks = bs->per > 0 ? (n + bs->per - 1) / bs->per : 1;
    bs->block_counts =
        kka_keep(&c, "block counts", (size_t)bs->blocks * (size_t)nbins * 8, &bs->held[HELD_BLOCK_COUNTS]);
    bs->totals = kka_keep(&c, "bin totals", (size_t)nbins * 8, &bs->held[HELD_TOTALS]);
    st = bs->block_counts && bs->totals ? KK_OK : kk_last_status();
  } else if (st == KK_OK && !(flags & KK_BINSORT_STABLE)) {
    bs->totals = kka_keep(&c, "bin cursors", (size_t)nbins * 8, &bs->held[HELD_TOTALS]);
    st = bs->totals ? KK_OK : kk_last_status();
  } else if (st == KK_OK && n > 1) {
    bs->vals = kka_keep(&c, "indices", (size_t)n * 8, &bs->held[HELD_VALS]);
    bs->bins2 = kka_keep(&c, "bins (second buffer)", (size_t)n * 4, &bs->held[HELD_BINS2]);
    bs->radix_ws.size = kka_ws_round(kka_radix_gpu_state_bytes(n, 4));
    bs->radix_ws.base = kka_keep(&c, "radix sort state", bs->radix_ws.size, &bs->held[HELD_RADIX]);
    st = bs->vals && bs->bins2 && bs->radix_ws.base ? KK_OK : kk_last_status();
  }
  if (st == KK_OK)
    st = kka_from_host(&c, (int64_t *)kk_view_data(bs->offsets) + nbins, &n, 8); /* the total, after the last bin */
  if (st == KK_OK)
    st = kk_binsort_update(bs);
  if (st == KK_OK)
    st = kk_instance_fence(c.inst);
  if (st != KK_OK) {
    kk_binsort_destroy(bs);
    return st;
  }
  *out = bs;
  return KK_OK;
}

kk_status_t kk_binsort_update(kk_binsort_t *bs) {
  if (KKA_UNLIKELY(!bs))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_binsort_update: binsort is NULL");
  kk_status_t st = kka_live("kk_binsort_update", bs->init_id, "the binsort", "");
  if (st != KK_OK)
    return st;
  kka_call_t c = bs->c;
  c.op = "kk_binsort_update";
  const int64_t n = bs->n, nbins = bs->nbins;
  double mn[3] = {0, 0, 0}, mx[3] = {0, 0, 0};
  for (int d = 0; d < bs->dims; d++)
    mn[d] = bs->min[d], mx[d] = bs->max[d];
  st = auto_range(&c, bs->keys, bs->dims, mn, mx);
  if (st != KK_OK)
    return st;
  struct kka_bin_args a;
  memset(&a, 0, sizeof a);
  a.keys = kka_desc(bs->keys);
  a.n = n;
  a.nbins = nbins;
  a.dims = bs->dims;
  a.type = (int32_t)kk_view_type(bs->keys);
  a.perm = kk_view_data(bs->perm);
  a.offsets = kk_view_data(bs->offsets);
  a.bins = bs->bins;
  for (int d = 0; d < bs->dims; d++) {
    a.min[d] = mn[d];
    a.nb[d] = bs->nb[d];
    /* min == max: every key in the first bin; the keys' own range: its maximum in the last */
    a.scale[d] = mx[d] > mn[d] ? (double)bs->nb[d] / (mx[d] - mn[d]) : 0.0;
  }
  if (c.host) {
    /* blocks: count, total per bin, offsets, scatter (stable: blocks and keys in order) */
    a.per = bs->per;
    a.blocks = bs->blocks;
    a.counts = bs->block_counts;
    a.cursor = bs->totals;
    if (n > 0)
      st = kka_for_blocks(&c, KK_KERNEL(kka_bin_count_host), &a, sizeof a, bs->blocks);
    if (st == KK_OK) {
      if (n > 0)
        st = kka_for(&c, KK_KERNEL(kka_bin_total), &a, sizeof a, nbins);
      else
        memset(bs->totals, 0, (size_t)nbins * 8);
    }
    if (st == KK_OK)
      st = kka_copy(&c, kka_desc(bs->counts), kka_desc_raw(bs->totals, nbins, 8, KK_INT64), nbins, 8);
    if (st == KK_OK)
      st = scan_i64(&c, bs->totals, a.offsets, nbins);
    if (st == KK_OK && n > 0)
      st = kka_for(&c, KK_KERNEL(kka_bin_block_offsets), &a, sizeof a, nbins);
    if (st == KK_OK && n > 0)
      st = kka_for_blocks(&c, KK_KERNEL(kka_bin_scatter_host), &a, sizeof a, bs->blocks);
    return st;
  }
  /* atomics: counts, their scan, then a cursor per bin -- or, stable, a radix sort of (bin, index) */
  a.counts = kk_view_data(bs->counts);
  st = kka_zero(&c, a.counts, (size_t)nbins * 8);
  if (st == KK_OK)
    st = kka_for(&c, KK_KERNEL(kka_bin_count_gpu), &a, sizeof a, n);
  if (st == KK_OK)
    st = scan_i64(&c, a.counts, a.offsets, nbins);
  if (st != KK_OK)
    return st;
  if (!(bs->flags & KK_BINSORT_STABLE)) {
    a.cursor = bs->totals;
    st = kka_zero(&c, a.cursor, (size_t)nbins * 8);
    return st != KK_OK ? st : kka_for(&c, KK_KERNEL(kka_bin_scatter_gpu), &a, sizeof a, n);
  }
  if (n < 2) {
    const int64_t zero = 0;
    return n == 1 ? kka_from_host(&c, a.perm, &zero, 8) : KK_OK;
  }
  struct kka_copy_args ia;
  memset(&ia, 0, sizeof ia);
  ia.dst = kka_desc_raw(bs->vals, n, 8, KK_INT64);
  ia.n = n;
  if ((st = kka_for(&c, KK_KERNEL(kka_seq_i64), &ia, sizeof ia, n)) != KK_OK)
    return st;
  void *kb[2] = {bs->bins, bs->bins2}, *vb[2] = {bs->vals, a.perm};
  int cur = 0;
  bs->radix_ws.used = 0;
  c.ws = &bs->radix_ws;
  if ((st = kka_radix_gpu(&c, kb, vb, n, 4, 8, KKA_KEY_UNSIGNED, 0, &cur)) != KK_OK)
    return st;
  return cur == 0 /* the indices ended in vals */ ? kka_copy(&c, kka_desc_raw(a.perm, n, 8, KK_INT64), ia.dst, n, 8) : KK_OK;
}

kk_status_t kk_binsort_create_1d(kk_instance_t *instance, kk_view_t *keys, int64_t nbins, double min, double max,
                                 unsigned flags, kk_binsort_t **out) {
  return create("kk_binsort_create_1d", instance, keys, 1, &nbins, &min, &max, flags, out);
}

kk_status_t kk_binsort_create_3d(kk_instance_t *instance, kk_view_t *keys, const int64_t nbins[3],
                                 const double min[3], const double max[3], unsigned flags, kk_binsort_t **out) {
  if (KKA_UNLIKELY(!nbins || !min || !max))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_binsort_create_3d: nbins, min or max is NULL");
  return create("kk_binsort_create_3d", instance, keys, 3, nbins, min, max, flags, out);
}

/* A binsort from before kk_finalize answers as NULL does. */
static int bs_live(const kk_binsort_t *bs) { return bs && kka_is_live(bs->init_id); }
kk_view_t *kk_binsort_counts(const kk_binsort_t *bs) { return bs_live(bs) ? bs->counts : NULL; }
kk_view_t *kk_binsort_offsets(const kk_binsort_t *bs) { return bs_live(bs) ? bs->offsets : NULL; }
kk_view_t *kk_binsort_permutation(const kk_binsort_t *bs) { return bs_live(bs) ? bs->perm : NULL; }
int64_t kk_binsort_bins(const kk_binsort_t *bs) { return bs_live(bs) ? bs->nbins : 0; }

kk_status_t kk_binsort_apply(kk_binsort_t *bs, kk_view_t *view, int64_t begin) {
  if (KKA_UNLIKELY(!bs))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_binsort_apply: binsort is NULL");
  kka_call_t c;
  const char *names[1] = {"view"};
  kk_status_t st = kka_live("kk_binsort_apply", bs->init_id, "the binsort", "");
  if (st != KK_OK)
    return st;
  st = kka_begin(&c, "kk_binsort_apply", bs->c.inst, 1, &view, names);
  if (st != KK_OK)
    return st;
  const int rank = kk_view_rank(view);
  if (KKA_UNLIKELY(rank < 1 || rank > 3))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_binsort_apply: view %s has rank %d; this takes ranks 1 to 3",
                   kka_label(view), rank);
  if (KKA_UNLIKELY(begin < 0 || kk_view_extent(view, 0) - begin < bs->n))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_binsort_apply: view %s has extent %lld; the binsort's %lld keys "
                   "from %lld need %lld", kka_label(view), (long long)kk_view_extent(view, 0), (long long)bs->n,
                   (long long)begin, (long long)(begin + bs->n));
  const uint32_t es = (uint32_t)kk_view_elem_size(view);
  const int64_t e1 = rank > 1 ? kk_view_extent(view, 1) : 1, e2 = rank > 2 ? kk_view_extent(view, 2) : 1;
  /* the permuted copy: the binsort's, grown for larger elements (a rank-2
   * view's rows go whole) */
  const size_t need = kka_ws_round((size_t)bs->n * es * (size_t)(rank == 2 ? e1 : 1));
  if (need > bs->apply_bytes) {
    kka_keep_free(&bs->c, &bs->held[HELD_APPLY]);
    bs->apply_tmp = NULL;
    bs->apply_bytes = 0;
    if (!(bs->apply_tmp = kka_keep(&bs->c, "permuted copy", need, &bs->held[HELD_APPLY])))
      return kk_last_status();
    bs->apply_bytes = need;
  }
  kka_ws_t ws = {bs->apply_tmp, bs->apply_bytes, 0};
  c.ws = &ws;
  if (rank == 2) { /* rows gathered into the copy, then put back */
    struct kka_rows_args a;
    memset(&a, 0, sizeof a);
    a.v = kk_view_bind_strided(view);
    a.v.d.data = (char *)a.v.d.data + (size_t)(begin * a.v.d.stride[0]) * es;
    a.tmp = bs->apply_tmp;
    a.perm = kk_view_data(bs->perm);
    a.n = bs->n;
    a.m = e1;
    a.esize = es;
    const kk_kernel_t *k = es == 8 ? KK_KERNEL(kka_rows_8) : KK_KERNEL(kka_rows_bytes);
    st = kka_for(&c, k, &a, sizeof a, bs->n);
    a.put = 1;
    return st != KK_OK ? st : kka_for(&c, k, &a, sizeof a, bs->n);
  }
  /* each run along dimension 0 (one for rank 1, one per trailing index otherwise) */
  for (int64_t p = 0; p < e1 && st == KK_OK; p++) {
    for (int64_t q = 0; q < e2 && st == KK_OK; q++) {
      kk_view_strided d = kk_view_bind_strided(view);
      d.d.data = (char *)d.d.data + (size_t)((begin * d.d.stride[0] + p * (rank > 1 ? d.d.stride[1] : 0) +
                                              q * (rank > 2 ? d.d.stride[2] : 0)) * (int64_t)es);
      d.d.rank = 1;
      d.d.extent[0] = bs->n;
      ws.used = 0;
      st = kka_permute(&c, d, kk_view_data(bs->perm), bs->n, es);
    }
  }
  return st;
}

void kk_binsort_destroy(kk_binsort_t *bs) {
  if (!bs)
    return;
  /* a binsort from before kk_finalize: kk_finalize freed its views' memory,
   * their releases free the records */
  if (kka_is_live(bs->init_id))
    (void)kk_instance_fence(bs->c.inst);
  kk_view_release(bs->counts);
  kk_view_release(bs->offsets);
  kk_view_release(bs->perm);
  kk_view_release(bs->keys);
  for (int h = 0; h < HELD_N; h++)
    kk_view_release(bs->held[h]);
  free(bs);
}
