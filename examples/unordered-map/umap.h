/* examples/unordered-map/umap.h -- what the example's host code and kernel file share: the argument structs and kernels. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef UMAP_EXAMPLE_H
#define UMAP_EXAMPLE_H

#include <kk/containers.h>

/* phase 1: every value of `data` into the set of distinct values (its map) */
struct distinct_args {
  kk_unordered_map map; /* int64 keys, int64 values: the counts of phase 2 */
  kk_view data;         /* int64 */
};

KK_DECLARE_KERNEL(insert_values);
KK_DECLARE_KERNEL(count_values);

#endif
