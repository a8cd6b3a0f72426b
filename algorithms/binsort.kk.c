/* algorithms/binsort.kk.c -- kk-algorithms' BinSort kernels: each key's bin and the bins' counts, offsets per host block, the permutation. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "kernel_util.h"

/* coordinate d of key i as a double */
KK__FN double kka_coord(const struct kka_bin_args *a, int64_t i, int d) {
  const kk_view_desc_t *v = &a->keys.d;
  const char *p = (const char *)v->data + (i * v->stride[0] + (a->dims == 3 ? d * v->stride[1] : 0)) * (int64_t)v->elem_size;
  switch (a->type) {
  case KK_INT8:
    return *(const int8_t *)p;
  case KK_UINT8:
    return *(const uint8_t *)p;
  case KK_INT16:
    return *(const int16_t *)p;
  case KK_UINT16:
    return *(const uint16_t *)p;
  case KK_INT32:
    return *(const int32_t *)p;
  case KK_UINT32:
    return *(const uint32_t *)p;
  case KK_INT64:
    return (double)*(const int64_t *)p;
  case KK_UINT64:
    return (double)*(const uint64_t *)p;
  case KK_FLOAT:
    return *(const float *)p;
  default:
    return *(const double *)p;
  }
}
/* the bin of key i: below min (or NaN) the first along that axis, past max the last */
KK__FN uint32_t kka_bin_of(const struct kka_bin_args *a, int64_t i) {
  int64_t b = 0, mul = 1;
  for (int d = 0; d < a->dims; d++) {
    const double t = (kka_coord(a, i, d) - a->min[d]) * a->scale[d];
    const int64_t nb = a->nb[d];
    const int64_t c = t >= 0.0 ? (t < (double)nb ? (int64_t)t : nb - 1) : 0;
    b += c * mul;
    mul *= nb;
  }
  return (uint32_t)b;
}

/* host backends: block b's bins and its count of each */
KK_FOR(kka_bin_count_host, struct kka_bin_args, b) {
  int64_t *cnt = args->counts + b * args->nbins;
  for (int64_t k = 0; k < args->nbins; k++)
    cnt[k] = 0;
  const int64_t lo = b * args->per, hi = lo + args->per < args->n ? lo + args->per : args->n;
  for (int64_t i = lo; i < hi; i++) {
    const uint32_t bin = kka_bin_of(args, i);
    args->bins[i] = bin;
    cnt[bin]++;
  }
}
/* each bin's total over the blocks */
KK_FOR(kka_bin_total, struct kka_bin_args, k) {
  int64_t s = 0;
  for (int64_t b = 0; b < args->blocks; b++)
    s += args->counts[b * args->nbins + k];
  args->cursor[k] = s;
}
/* after the scan of the totals (offsets): where each block's keys of bin k start */
KK_FOR(kka_bin_block_offsets, struct kka_bin_args, k) {
  int64_t run = args->offsets[k];
  for (int64_t b = 0; b < args->blocks; b++) {
    const int64_t c = args->counts[b * args->nbins + k];
    args->counts[b * args->nbins + k] = run;
    run += c;
  }
}
KK_FOR(kka_bin_scatter_host, struct kka_bin_args, b) {
  int64_t *at = args->counts + b * args->nbins;
  const int64_t lo = b * args->per, hi = lo + args->per < args->n ? lo + args->per : args->n;
  for (int64_t i = lo; i < hi; i++)
    args->perm[at[args->bins[i]]++] = i;
}

/* GPUs: bins and counts by atomics; the scatter by an atomic cursor per bin */
KK_FOR(kka_bin_count_gpu, struct kka_bin_args, i) {
  const uint32_t bin = kka_bin_of(args, i);
  args->bins[i] = bin;
  kk_atomic_add(&args->counts[bin], (int64_t)1);
}
KK_FOR(kka_bin_scatter_gpu, struct kka_bin_args, i) {
  const uint32_t bin = args->bins[i];
  args->perm[args->offsets[bin] + kk_atomic_fetch_add(&args->cursor[bin], (int64_t)1)] = i;
}

/* rows of a rank-2 view through a contiguous copy: 8-byte elements, or any size byte by byte */
KK_FOR(kka_rows_8, struct kka_rows_args, j) {
  const int64_t r = args->put ? j : args->perm[j], m = args->m, s1 = args->v.d.stride[1];
  uint64_t *row = (uint64_t *)args->v.d.data + r * args->v.d.stride[0], *t = (uint64_t *)args->tmp + j * m;
  if (args->put)
    for (int64_t k = 0; k < m; k++)
      row[k * s1] = t[k];
  else
    for (int64_t k = 0; k < m; k++)
      t[k] = row[k * s1];
}
KK_FOR(kka_rows_bytes, struct kka_rows_args, j) {
  const int64_t r = args->put ? j : args->perm[j], m = args->m, es = (int64_t)args->esize;
  unsigned char *row = (unsigned char *)args->v.d.data + r * args->v.d.stride[0] * es;
  unsigned char *t = (unsigned char *)args->tmp + j * m * es;
  for (int64_t k = 0; k < m; k++)
    for (int64_t b = 0; b < es; b++) {
      unsigned char *e = row + k * args->v.d.stride[1] * es + b;
      if (args->put)
        *e = t[k * es + b];
      else
        t[k * es + b] = *e;
    }
}
