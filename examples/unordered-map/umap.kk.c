/* examples/unordered-map/umap.kk.c -- the example's kernels: insert every value (phase 1), then count each value's occurrences (phase 2). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>
#include <kk/unordered_map.h>

#include "umap.h"

/* Inserting a key that is there already changes nothing, so this kernel can
 * run again after a rehash: the keys that failed go in, the others stay. */
KK_FOR(insert_values, struct distinct_args, i) { (void)KK_UMAP_INSERT(args->map, KK_AT(args->data, int64_t, i)); }

/* Every key is in the map now: find it and count (many threads add to one
 * value at once, hence the atomic). */
KK_FOR(count_values, struct distinct_args, i) {
  const int64_t at = KK_UMAP_FIND(args->map, KK_AT(args->data, int64_t, i));
  kk_atomic_add(&KK_UMAP_VALUE_AT(args->map, int64_t, at), (int64_t)1);
}
