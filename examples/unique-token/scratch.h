/* examples/unique-token/scratch.h -- what the example's host code and kernel file share. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef SCRATCH_EXAMPLE_H
#define SCRATCH_EXAMPLE_H

#include <kk/containers.h>

#define SCRATCH_ROW 32

struct scratch_args {
  kk_unique_token tok;
  kk_view_right scratch; /* double[tok size][SCRATCH_ROW]: one row per id */
  kk_view y;             /* double[n] */
};

KK_DECLARE_KERNEL(with_scratch_rows);

#endif
