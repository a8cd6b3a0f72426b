/* containers/containers.kk.c -- libkk-containers' own kernels: map entry counts and rehash moves, bit counts (kkcc, every target). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>
#include <kk/unordered_map.h>

#include "kernels.h"

/* the bits set in x */
#if defined(KK_TARGET_CUDA)
KK__FN int kkc_popcount(uint32_t x) { return __popc(x); }
#else
KK__FN int kkc_popcount(uint32_t x) { return __builtin_popcount(x); }
#endif

KK_REDUCE(kkc_umap_count, struct kkc_umap_args, int64_t, KK_SUM, i, acc) { *acc += KK_UMAP_VALID_AT(args->m, i); }

/* Every entry of `from` inserted into `to`: keys and values by address, any sizes. */
KK_FOR(kkc_umap_move, struct kkc_umap_move_args, i) {
  if (!KK_UMAP_VALID_AT(args->from, i))
    return;
  const kk_unordered_map *f = &args->from;
  const void *key = (const char *)f->keys.d.data + (uint64_t)i * f->key_size;
  const void *value = f->value_size ? (const void *)((const char *)f->values.d.data + (uint64_t)i * f->value_size) : 0;
  (void)kk__umap_insert_bytes(&args->to, key, f->key_size, value, f->value_size);
}

KK_REDUCE(kkc_bits_count, struct kkc_bits_args, int64_t, KK_SUM, w, acc) {
  uint32_t x = args->words[w * args->stride];
  if (args->tail && w == args->last)
    x &= (1u << args->tail) - 1u;
  *acc += kkc_popcount(x);
}
