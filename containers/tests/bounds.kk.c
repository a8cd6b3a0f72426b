/* containers/tests/bounds.kk.c -- accesses the suite makes out of range, built with kkcc --bounds-check: each must stop the launch with an error naming it. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>
#include <kk/unordered_map.h>
#include <kk/dynamic_view.h>
#include <kk/offset_view.h>

#include "tests.h"

KK_FOR(b_umap_value, struct b_args, i) {
  if (i == 0)
    KK_UMAP_VALUE_AT(args->m, int64_t, args->i) = 1;
}

KK_FOR(b_dyn, struct b_args, i) {
  if (i == 0)
    KK_DYN_AT(args->dv, double, args->i) = 1.0;
}

KK_FOR(b_off, struct b_args, i) {
  if (i == 0)
    KK_OFFSET_AT(args->ov, double, args->i, args->j) = 1.0;
}
