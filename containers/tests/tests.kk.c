/* containers/tests/tests.kk.c -- the containers suite's kernels: every thread inserting, setting or acquiring at once, and reading back. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>
#include <kk/unordered_map.h>
#include <kk/bitset.h>
#include <kk/unique_token.h>
#include <kk/dynamic_view.h>
#include <kk/offset_view.h>

#include "tests.h"

/* Integer keys of type K: the key's op inserts it (with 3 * key as its value
 * when asked), then counts itself in `counts` whatever the insert said. */
#define T_INSERT(NAME, K)                                                                                       \
  KK_FOR(NAME, struct t_insert_args, i) {                                                                       \
    const K key = KK_AT(args->keys, K, i % args->nkeys);                                                        \
    const int64_t value = 3 * (int64_t)key;                                                                     \
    kk_umap_insert_result r = args->with_value ? KK_UMAP_INSERT_VALUE(args->m, key, &value)                     \
                                               : KK_UMAP_INSERT(args->m, key);                                  \
    kk_atomic_inc(&KK_AT(args->tally, int64_t, r.status));                                                      \
    if (args->with_value && r.status == KK_UMAP_EXISTING &&                                                     \
        kk_atomic_load(&KK_UMAP_VALUE_AT(args->m, int64_t, r.index)) != value)                                  \
      kk_atomic_inc(&KK_AT(args->tally, int64_t, 3));                                                           \
    kk_umap_insert_result c = KK_UMAP_INSERT(args->counts, key);                                                \
    if (c.status != KK_UMAP_FAILED)                                                                             \
      kk_atomic_add(&KK_UMAP_VALUE_AT(args->counts, int64_t, c.index), (int64_t)1);                             \
  }
T_INSERT(t_insert_i32, int32_t)
T_INSERT(t_insert_u32, uint32_t)
T_INSERT(t_insert_i64, int64_t)
T_INSERT(t_insert_u64, uint64_t)

/* 12-byte keys by address; counts is keyed by the key's `a` (distinct per key) */
KK_FOR(t_insert_key12, struct t_insert_args, i) {
  const struct key12 key = KK_AT(args->keys, struct key12, i % args->nkeys);
  const int64_t value = 3 * (int64_t)key.a;
  kk_umap_insert_result r = args->with_value ? KK_UMAP_INSERT_BYTES_VALUE(args->m, &key, &value)
                                             : KK_UMAP_INSERT_BYTES(args->m, &key);
  kk_atomic_inc(&KK_AT(args->tally, int64_t, r.status));
  if (args->with_value && r.status == KK_UMAP_EXISTING &&
      kk_atomic_load(&KK_UMAP_VALUE_AT(args->m, int64_t, r.index)) != value)
    kk_atomic_inc(&KK_AT(args->tally, int64_t, 3));
  kk_umap_insert_result c = KK_UMAP_INSERT(args->counts, key.a);
  if (c.status != KK_UMAP_FAILED)
    kk_atomic_add(&KK_UMAP_VALUE_AT(args->counts, int64_t, c.index), (int64_t)1);
}

KK_FOR(t_find_i64, struct t_find_args, i) {
  const int64_t key = KK_AT(args->keys, int64_t, i);
  const int64_t at = KK_UMAP_FIND(args->m, key);
  KK_AT(args->out, int64_t, i) = at >= 0 ? KK_UMAP_VALUE_AT(args->m, int64_t, at) : -1;
  KK_AT(args->found, int32_t, i) = KK_UMAP_EXISTS(args->m, key);
}

KK_FOR(t_find_key12, struct t_find_args, i) {
  const struct key12 key = KK_AT(args->keys, struct key12, i);
  const int64_t at = KK_UMAP_FIND_BYTES(args->m, &key);
  KK_AT(args->out, int64_t, i) = at >= 0 ? KK_UMAP_VALUE_AT(args->m, int64_t, at) : -1;
  KK_AT(args->found, int32_t, i) = KK_UMAP_EXISTS_BYTES(args->m, &key);
}

/* the entries, seen by iterating valid_at over the slots */
KK_REDUCE(t_count_valid, struct t_find_args, int64_t, KK_SUM, i, acc) { *acc += KK_UMAP_VALID_AT(args->m, i); }

KK_FOR(t_bits, struct t_bits_args, i) {
  const int64_t bit = i % args->nbits;
  const int changed = args->reset ? KK_BITSET_RESET(args->b, bit) : KK_BITSET_SET(args->b, bit);
  if (changed)
    kk_atomic_inc(&KK_AT(args->tally, int64_t, 0));
}

KK_FOR(t_bits_test, struct t_bits_args, i) { KK_AT(args->out, int64_t, i) = KK_BITSET_TEST(args->b, i); }

/* out[2i] / out[2i+1]: the set / unset bit found near hints[i] */
KK_FOR(t_bits_find, struct t_bits_args, i) {
  const int64_t h = KK_AT(args->hints, int64_t, i);
  KK_AT(args->out, int64_t, 2 * i) = KK_BITSET_FIND_ANY_SET_NEAR(args->b, h);
  KK_AT(args->out, int64_t, 2 * i + 1) = KK_BITSET_FIND_ANY_UNSET_NEAR(args->b, h);
}

KK__FN void t_token_work(const struct t_token_args *a, int32_t id) {
  if (id < 0 || id >= KK_UNIQUE_TOKEN_SIZE(a->tok)) {
    kk_atomic_inc(&KK_AT(a->tally, int64_t, 0));
    return;
  }
  kk_atomic_max(&KK_AT(a->tally, int64_t, 2), (int64_t)id);
  if (kk_atomic_exchange(&KK_AT(a->inuse, int32_t, id), 1) != 0)
    kk_atomic_inc(&KK_AT(a->tally, int64_t, 1));
  for (int k = 0; k < 8; k++) /* the row is this thread's alone: plain updates */
    KK_AT(a->rows, int64_t, id, k) += 1;
  (void)kk_atomic_exchange(&KK_AT(a->inuse, int32_t, id), 0);
}

KK_FOR(t_token, struct t_token_args, i) {
  const int32_t id = KK_UNIQUE_TOKEN_ACQUIRE(args->tok);
  t_token_work(args, id);
  KK_UNIQUE_TOKEN_RELEASE(args->tok, id);
}

/* in a team kernel: each thread (and, on GPUs, each vector lane) takes its own id */
KK_TEAM_FOR(t_token_team, struct t_token_args, team) {
  const int32_t id = KK_UNIQUE_TOKEN_ACQUIRE(args->tok);
  t_token_work(args, id);
  KK_UNIQUE_TOKEN_RELEASE(args->tok, id);
  (void)team;
}

KK_FOR(t_dyn_fill, struct t_dyn_args, i) { KK_DYN_AT(args->dv, double, i) += args->scale * (double)i; }

KK_REDUCE(t_dyn_sum, struct t_dyn_args, double, KK_SUM, i, acc) { *acc += KK_DYN_AT(args->dv, double, i); }

/* every element of the rank-2 OffsetView, by its own indices (the policy's box is the view's) */
KK_MD_FOR2(t_off_fill, struct t_off_args, i, j) {
  KK_OFFSET_AT(args->ov, double, i, j) = 1000.0 * (double)i + (double)j;
}

KK_MD_REDUCE2(t_off_sum, struct t_off_args, double, KK_SUM, i, j, acc) {
  *acc += KK_OFFSET_AT(args->os, double, i, j);
}

KK_FOR(t_dv_scale, struct t_dv_args, i) { KK_AT(args->x, int64_t, i) = 2 * KK_AT(args->x, int64_t, i) + 1; }
