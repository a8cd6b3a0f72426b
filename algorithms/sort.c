/* algorithms/sort.c -- kk_sort and friends: argument checks, the radix sort's passes (host blocks or the GPU one-sweep), the comparator merge sort. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sort_gpu.h"

KK_DECLARE_KERNEL(kka_hcount_1);
KK_DECLARE_KERNEL(kka_hcount_2);
KK_DECLARE_KERNEL(kka_hcount_4);
KK_DECLARE_KERNEL(kka_hcount_8);
KK_DECLARE_KERNEL(kka_hscatter_1);
KK_DECLARE_KERNEL(kka_hscatter_2);
KK_DECLARE_KERNEL(kka_hscatter_4);
KK_DECLARE_KERNEL(kka_hscatter_8);
KK_DECLARE_KERNEL(kka_seq_i64);

/* The keys and values being sorted, in contiguous buffers of the call's
 * space: keys[0] holds them now, keys[1] is the other half of the
 * ping-pong; values likewise (NULL: none). */
typedef struct radix_job {
  void *keys[2], *vals[2];
  int64_t n;
  int ksize, vsize, kind, desc;
  int cur; /* which buffer holds the data */
} radix_job_t;

static int key_kind(kk_type_t t) {
  return kka_is_float(t) ? KKA_KEY_FLOAT : kka_is_signed(t) ? KKA_KEY_SIGNED : KKA_KEY_UNSIGNED;
}

/* ---- host backends: a block of keys per thread, counted then scattered, for each digit ---- */

/* Blocks: one per thread, none shorter than this (less work than a thread's wake-up). */
#define HOST_MIN_BLOCK 16384

static kk_status_t radix_host(const kka_call_t *c, radix_job_t *j) {
  static const kk_kernel_t *const count_k[4] = {KK_KERNEL(kka_hcount_1), KK_KERNEL(kka_hcount_2),
                                                KK_KERNEL(kka_hcount_4), KK_KERNEL(kka_hcount_8)};
  static const kk_kernel_t *const scatter_k[4] = {KK_KERNEL(kka_hscatter_1), KK_KERNEL(kka_hscatter_2),
                                                  KK_KERNEL(kka_hscatter_4), KK_KERNEL(kka_hscatter_8)};
  const int w = j->ksize == 1 ? 0 : j->ksize == 2 ? 1 : j->ksize == 4 ? 2 : 3;
  int64_t nb = kka_host_threads(c);
  if (nb > (j->n + HOST_MIN_BLOCK - 1) / HOST_MIN_BLOCK)
    nb = (j->n + HOST_MIN_BLOCK - 1) / HOST_MIN_BLOCK;
  if (nb < 1)
    nb = 1;
  const int64_t per = (j->n + nb - 1) / nb;
  nb = (j->n + per - 1) / per;
  int64_t *counts = kka_tmp(c, "digit counts", (size_t)nb * KKA_RADIX * sizeof(int64_t));
  if (!counts)
    return kk_last_status();
  kk_status_t st = KK_OK;
  struct kka_hsort_args a;
  memset(&a, 0, sizeof a);
  a.counts = counts;
  a.n = j->n;
  a.per = per;
  a.kind = j->kind;
  a.desc = j->desc;
  a.vsize = j->vsize;
  for (int sh = 0; sh < j->ksize * 8 && st == KK_OK; sh += KKA_RADIX_BITS) {
    a.kin = j->keys[j->cur];
    a.kout = j->keys[!j->cur];
    a.vin = j->vals[j->cur];
    a.vout = j->vals[!j->cur];
    a.shift = sh;
    if ((st = kka_for_blocks(c, count_k[w], &a, sizeof a, nb)) != KK_OK)
      break;
    /* host memory, complete: where each block writes its keys of each digit
     * (digit-major, then block order: the sort is stable) */
    int64_t run = 0;
    int trivial = 0;
    for (int d = 0; d < KKA_RADIX; d++) {
      const int64_t before = run;
      for (int64_t b = 0; b < nb; b++) {
        const int64_t t = counts[b * KKA_RADIX + d];
        counts[b * KKA_RADIX + d] = run;
        run += t;
      }
      trivial |= run - before == j->n; /* every key has this digit: the pass would copy */
    }
    if (trivial)
      continue;
    if ((st = kka_for_blocks(c, scatter_k[w], &a, sizeof a, nb)) != KK_OK)
      break;
    j->cur = !j->cur;
  }
  kka_tmp_free(c, counts);
  return st;
}

/* ---- the entry points --------------------------------------------------------------------------- */

static kk_status_t merge_sort(const kka_call_t *c, kk_view_t *keys, kk_view_t *values, int64_t begin, int64_t n,
                              const kk_comparator_t *cmp);

kk_status_t kk_sort_ex(kk_instance_t *instance, kk_view_t *keys, kk_view_t *values, const kk_sort_options_t *options) {
  static const char *const names[2] = {"keys", "values"};
  kk_view_t *views[2] = {keys, values};
  kk_sort_options_t o = KK_SORT_OPTIONS_INIT;
  if (options) {
    if (KKA_UNLIKELY(options->struct_size < sizeof(size_t)))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_sort_ex: options.struct_size %zu is too small (KK_SORT_OPTIONS_INIT)",
                     options->struct_size);
    memcpy(&o, options, options->struct_size < sizeof o ? options->struct_size : sizeof o);
  }
  const char *op = values ? "kk_sort_by_key" : "kk_sort";
  kka_call_t c;
  kk_status_t st = kka_begin(&c, op, instance, values ? 2 : 1, views, names);
  if (st != KK_OK)
    return st;
  if ((st = kka_check_rank(&c, keys, "keys", 1)) != KK_OK)
    return st;
  if (values && (st = kka_check_rank(&c, values, "values", 1)) != KK_OK)
    return st;
  const int64_t ext = kk_view_extent(keys, 0);
  const int64_t begin = o.begin, end = o.end < 0 ? ext : o.end;
  if (KKA_UNLIKELY(begin < 0 || begin > end || end > ext))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: the range [%lld, %lld) is not inside view 'keys' %s of extent %lld",
                   op, (long long)begin, (long long)end, kka_label(keys), (long long)ext);
  if (values && (st = kka_check_len(&c, values, "values", end, 1, "the end of the keys' range")) != KK_OK)
    return st;
  const int64_t n = end - begin;
  kka_ws_t ws = {NULL, 0, 0};
  if (o.struct_size >= offsetof(kk_sort_options_t, workspace) + sizeof o.workspace && o.workspace) {
    kk_view_t *w = o.workspace;
    if (KKA_UNLIKELY(!kk_view_span_is_contiguous(w) ||
                     (strcmp(kk_space_backend(kk_view_space(w)), kk_instance_backend(c.inst)) != 0 &&
                      !(c.host && kk_space_host_accessible(kk_view_space(w))))))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: workspace %s is not one contiguous view in a space of backend %s",
                     op, kka_label(w), kk_instance_backend(c.inst));
    ws.base = kk_view_data(w);
    ws.size = kk_view_span(w) * kk_view_elem_size(w);
    c.ws = &ws;
  }
  if (o.comparator) {
    if (KKA_UNLIKELY(o.comparator->struct_size < sizeof(kk_comparator_t) ||
                     o.comparator->elem_size != kk_view_elem_size(keys)))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: comparator '%s' takes keys of %u bytes, view 'keys' %s has %zu",
                     op, o.comparator->name ? o.comparator->name : "?", o.comparator->elem_size, kka_label(keys),
                     kk_view_elem_size(keys));
    if (KKA_UNLIKELY(o.descending))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: descending is for sorts by value; a comparator says the order "
                     "itself", op);
    return n > 1 ? merge_sort(&c, keys, values, begin, n, o.comparator) : KK_OK;
  }
  if ((st = kka_check_arith(&c, keys, "keys")) != KK_OK)
    return st;
  if (n <= 1)
    return KK_OK;

  const kk_type_t t = kk_view_type(keys);
  radix_job_t j;
  memset(&j, 0, sizeof j);
  j.n = n;
  j.ksize = (int)kka_tsize(t);
  j.kind = key_kind(t);
  j.desc = o.descending != 0;
  /* the keys: sorted in place when contiguous, else through a copy */
  kk_view_strided kd = kka_desc_range(keys, begin, n);
  void *kcopy = NULL, *ktmp = NULL, *vtmp = NULL, *perm = NULL;
  if (kka_unit(&kd)) {
    j.keys[0] = kd.d.data;
  } else {
    if (!(kcopy = kka_tmp(&c, "keys", (size_t)n * j.ksize)))
      return kk_last_status();
    j.keys[0] = kcopy;
    if ((st = kka_copy(&c, kka_desc_raw(kcopy, n, (uint32_t)j.ksize, t), kd, n, (uint32_t)j.ksize)) != KK_OK)
      goto done;
  }
  if (!(ktmp = kka_tmp(&c, "keys (second buffer)", (size_t)n * j.ksize))) {
    st = kk_last_status();
    goto done;
  }
  j.keys[1] = ktmp;
  /* the values: moved with the keys when contiguous and of 4 or 8 bytes
   * (also 1 or 2 on host backends); otherwise the keys carry their indices,
   * which then permute them */
  kk_view_strided vd;
  memset(&vd, 0, sizeof vd);
  int by_index = 0;
  if (values) {
    vd = kka_desc_range(values, begin, n);
    const size_t vs = kk_view_elem_size(values);
    by_index = !kka_unit(&vd) || !(vs == 4 || vs == 8 || (c.host && (vs == 1 || vs == 2)));
    j.vsize = by_index ? 8 : (int)vs;
    if (by_index) {
      if (!(perm = kka_tmp(&c, "indices", (size_t)n * 8))) {
        st = kk_last_status();
        goto done;
      }
      struct kka_copy_args ia;
      memset(&ia, 0, sizeof ia);
      ia.dst = kka_desc_raw(perm, n, 8, KK_INT64);
      ia.n = n;
      if ((st = kka_for(&c, KK_KERNEL(kka_seq_i64), &ia, sizeof ia, n)) != KK_OK)
        goto done;
      j.vals[0] = perm;
    } else {
      j.vals[0] = vd.d.data;
    }
    if (!(vtmp = kka_tmp(&c, "values (second buffer)", (size_t)n * j.vsize))) {
      st = kk_last_status();
      goto done;
    }
    j.vals[1] = vtmp;
  }
  st = c.host ? radix_host(&c, &j) : kka_radix_gpu(&c, &j.keys[0], &j.vals[0], n, j.ksize, j.vsize, j.kind, j.desc,
                                                   &j.cur);
  if (st != KK_OK)
    goto done;
  /* the sorted keys (and values) back where they belong */
  if (j.cur != 0 || kcopy)
    st = kka_copy(&c, kd, kka_desc_raw(j.keys[j.cur], n, (uint32_t)j.ksize, t), n, (uint32_t)j.ksize);
  if (st == KK_OK && values) {
    if (by_index)
      st = kka_permute(&c, vd, (const int64_t *)j.vals[j.cur], n, (uint32_t)kk_view_elem_size(values));
    else if (j.cur != 0)
      st = kka_copy(&c, vd, kka_desc_raw(j.vals[1], n, (uint32_t)j.vsize, kk_view_type(values)), n, (uint32_t)j.vsize);
  }
done:
  kka_tmp_free(&c, kcopy);
  kka_tmp_free(&c, ktmp);
  kka_tmp_free(&c, vtmp);
  kka_tmp_free(&c, perm);
  return st;
}

size_t kk_sort_workspace_bytes(kk_instance_t *instance, int64_t n, size_t key_size, size_t value_size) {
  kka_call_t c;
  if (n <= 0 || kka_begin(&c, "kk_sort_workspace_bytes", instance, 0, NULL, NULL) != KK_OK)
    return 0;
  const size_t un = (size_t)n, ks = key_size ? key_size : 1;
  /* keys: a copy (strided keys) and the second buffer; values: indices,
   * the second buffer, the permuted copy; the passes' own state (a
   * comparator's merge sort: two key and two index buffers, the copy) */
  size_t b = 2 * kka_ws_round(un * ks) + 2 * kka_ws_round(un * 8);
  if (value_size)
    b += 2 * kka_ws_round(un * 8) + kka_ws_round(un * value_size);
  if (c.host) {
    b += kka_ws_round((size_t)kka_host_threads(&c) * KKA_RADIX * 8);
  } else {
    b += kka_ws_round(kka_radix_gpu_state_bytes(n, (int)ks));
  }
  return b;
}

kk_status_t kk_sort(kk_instance_t *instance, kk_view_t *keys) { return kk_sort_ex(instance, keys, NULL, NULL); }
kk_status_t kk_sort_stable(kk_instance_t *instance, kk_view_t *keys) { return kk_sort_ex(instance, keys, NULL, NULL); }
kk_status_t kk_sort_by_key(kk_instance_t *instance, kk_view_t *keys, kk_view_t *values) {
  if (KKA_UNLIKELY(!values))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_sort_by_key: view values is NULL");
  return kk_sort_ex(instance, keys, values, NULL);
}

/* ---- the comparator's merge sort ------------------------------------------------------------------ */

static kk_status_t merge_sort(const kka_call_t *c, kk_view_t *keys, kk_view_t *values, int64_t begin, int64_t n,
                              const kk_comparator_t *cmp) {
  const uint32_t es = cmp->elem_size;
  void *kb[2] = {kka_tmp(c, "keys", (size_t)n * es), kka_tmp(c, "keys (second buffer)", (size_t)n * es)};
  int64_t *ib[2] = {kka_tmp(c, "indices", (size_t)n * 8), kka_tmp(c, "indices (second buffer)", (size_t)n * 8)};
  kk_status_t st = kb[0] && kb[1] && ib[0] && ib[1] ? KK_OK : kk_last_status();
  kk__msort_args a;
  memset(&a, 0, sizeof a);
  a.keys = kka_desc_range(keys, begin, n);
  a.n = n;
  int cur = 0;
  if (st == KK_OK) {
    a.kdst = kb[0];
    a.idst = ib[0];
    st = kka_for(c, cmp->block_sort, &a, sizeof a, (n + KK__MSORT_BLOCK - 1) / KK__MSORT_BLOCK);
  }
  for (int64_t w = KK__MSORT_BLOCK; w < n && st == KK_OK; w *= 2) {
    a.ksrc = kb[cur];
    a.isrc = ib[cur];
    a.kdst = kb[!cur];
    a.idst = ib[!cur];
    a.width = w;
    a.chunk = 2 * w < KK__MSORT_CHUNK ? 2 * w : KK__MSORT_CHUNK;
    st = kka_for(c, cmp->merge, &a, sizeof a, (n + a.chunk - 1) / a.chunk);
    cur = !cur;
  }
  if (st == KK_OK)
    st = kka_copy(c, a.keys, kka_desc_raw(kb[cur], n, es, kk_view_type(keys)), n, es);
  if (st == KK_OK && values)
    st = kka_permute(c, kka_desc_range(values, begin, n), ib[cur], n, (uint32_t)kk_view_elem_size(values));
  for (int k = 0; k < 2; k++) {
    kka_tmp_free(c, kb[k]);
    kka_tmp_free(c, ib[k]);
  }
  return st;
}
