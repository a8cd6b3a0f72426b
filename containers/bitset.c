/* containers/bitset.c -- Bitset on the host: words in a memory space, count, set and reset all, deep copy. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct kk_bitset_obj {
  char *label;
  kk_space_t *space;
  int64_t size, nwords;
  kk_view_t *words;
};

static kk_status_t check(const char *op, const kk_bitset_t *b) {
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!b)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: the bitset is NULL", op);
  return KK_OK;
}

kk_status_t kk_bitset_create(kk_space_t *space, const char *label, int64_t size, kk_bitset_t **out) {
  static const char op[] = "kk_bitset_create";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!label)
    label = "bitset";
  if (!out)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: out is NULL", op);
  if (size < 0 || size > INT64_MAX - 31)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: bitset '%s': size %lld", op, label, (long long)size);
  kk_bitset_t *b = calloc(1, sizeof *b);
  if (!b || !(b->label = kkc_strdup(label))) {
    free(b);
    return kkc_err(KK_ERROR_OUT_OF_MEMORY, "%s: bitset '%s': out of memory", op, label);
  }
  b->space = space ? space : kk_space_default();
  b->size = size;
  b->nwords = (size + 31) / 32;
  if ((st = kkc_vector(b->space, label, "", KK_UINT32, 0, b->nwords, 0, &b->words)) != KK_OK) {
    free(b->label);
    free(b);
    return kkc_err(st, "%s: bitset '%s': %s", op, label, kk_last_error());
  }
  *out = b;
  return KK_OK;
}

void kk_bitset_release(kk_bitset_t *b) {
  if (!b)
    return;
  kk_view_release(b->words);
  free(b->label);
  free(b);
}

kk_bitset kk_bitset_bind(kk_bitset_t *b) {
  kk_bitset d;
  memset(&d, 0, sizeof d);
  if (!b) {
    kkc_err(KK_ERROR_INVALID_ARGUMENT, "kk_bitset_bind: the bitset is NULL");
    return d;
  }
  d.words = (uint32_t *)kk_view_data(b->words);
  d.size = b->size;
  d.nwords = b->nwords;
  return d;
}

int64_t kk_bitset_size(const kk_bitset_t *b) { return b ? b->size : 0; }
kk_view_t *kk_bitset_words(const kk_bitset_t *b) { return b ? b->words : NULL; }

kk_status_t kk_bitset_count(kk_bitset_t *b, int64_t *count) {
  static const char op[] = "kk_bitset_count";
  kk_status_t st = check(op, b);
  if (st != KK_OK)
    return st;
  if (!count)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: count is NULL", op);
  kk_instance_t *inst = kkc_instance_for(op, b->label, b->space);
  if (!inst)
    return kk_last_status();
  struct kkc_bits_args a = {(uint32_t *)kk_view_data(b->words), 1, b->nwords - 1, (uint32_t)(b->size & 31), 0};
  int64_t n = 0;
  if ((st = kk_parallel_reduce(op, KK_RANGE_ON(inst, 0, b->nwords), KK_KERNEL(kkc_bits_count), KK_ARGS(a),
                               KK_RESULT(n))) != KK_OK)
    return st;
  *count = n;
  return KK_OK;
}

kk_status_t kk_bitset_set_all(kk_bitset_t *b) {
  static const char op[] = "kk_bitset_set_all";
  kk_status_t st = check(op, b);
  if (st != KK_OK)
    return st;
  const uint32_t ones = ~0u, tail = (uint32_t)(b->size & 31);
  if ((st = kk_deep_copy_fill(b->words, &ones)) != KK_OK)
    return st;
  if (tail) { /* the bits past the size stay reset, so that count and the searches never see them */
    const uint32_t last = (1u << tail) - 1u;
    st = kk_space_copy(b->space, (uint32_t *)kk_view_data(b->words) + b->nwords - 1, NULL, &last, sizeof last, NULL);
  }
  return st;
}

kk_status_t kk_bitset_reset_all(kk_bitset_t *b) {
  kk_status_t st = check("kk_bitset_reset_all", b);
  if (st != KK_OK)
    return st;
  const uint32_t zero = 0;
  return kk_deep_copy_fill(b->words, &zero);
}

kk_status_t kk_bitset_deep_copy(kk_bitset_t *dst, kk_bitset_t *src) {
  static const char op[] = "kk_bitset_deep_copy";
  kk_status_t st = check(op, dst);
  if (st != KK_OK)
    return st;
  if (!src)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: the source bitset is NULL", op);
  if (dst->size != src->size)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: bitsets '%s' (%lld bits) and '%s' (%lld bits) differ in size", op,
                   dst->label, (long long)dst->size, src->label, (long long)src->size);
  return kk_deep_copy(dst->words, src->words);
}
