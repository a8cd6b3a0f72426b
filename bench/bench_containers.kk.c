/* bench/bench_containers.kk.c -- kk-bench-containers' kk side: UnorderedMap inserts and finds of random int64 keys, UniqueToken acquire and release. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>
#include <kk/unordered_map.h>
#include <kk/unique_token.h>

#include "bench_containers.h"

KK_FOR(bc_keys, struct bc_map_args, i) { KK_AT(args->keys, int64_t, i) = (int64_t)bc_key((uint64_t)i); }

/* key i with value i */
KK_FOR(bc_map_insert, struct bc_map_args, i) {
  (void)KK_UMAP_INSERT_VALUE(args->map, KK_AT(args->keys, int64_t, i), &i);
}

KK_FOR(bc_set_insert, struct bc_map_args, i) { (void)KK_UMAP_INSERT(args->map, KK_AT(args->keys, int64_t, i)); }

KK_FOR(bc_map_find, struct bc_map_args, i) {
  const int64_t at = KK_UMAP_FIND(args->map, KK_AT(args->keys, int64_t, i));
  KK_AT(args->out, int64_t, i) = at >= 0 ? KK_UMAP_VALUE_AT(args->map, int64_t, at) : -1;
}

KK_FOR(bc_token, struct bc_token_args, i) {
  const int32_t id = KK_UNIQUE_TOKEN_ACQUIRE(args->tok);
  KK_AT(args->rows, int64_t, id, 0) += 1;
  KK_UNIQUE_TOKEN_RELEASE(args->tok, id);
}
