/* examples/unique-token/scratch.kk.c -- each iteration borrows a row of a scratch view through a UniqueToken id, works in it, and gives it back. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>
#include <kk/unique_token.h>

#include "scratch.h"

KK_FOR(with_scratch_rows, struct scratch_args, i) {
  const int32_t id = KK_UNIQUE_TOKEN_ACQUIRE(args->tok); /* row `id` is this thread's until released */
  /* a small recurrence seeded by i, kept in the row, then folded */
  KK_AT(args->scratch, double, id, 0) = (double)(i % 1000) / 1000.0;
  for (int k = 1; k < SCRATCH_ROW; k++)
    KK_AT(args->scratch, double, id, k) = 0.5 * KK_AT(args->scratch, double, id, k - 1) + 0.25;
  double s = 0;
  for (int k = 0; k < SCRATCH_ROW; k++)
    s += KK_AT(args->scratch, double, id, k) * KK_AT(args->scratch, double, id, SCRATCH_ROW - 1 - k);
  KK_AT(args->y, double, i) = s;
  KK_UNIQUE_TOKEN_RELEASE(args->tok, id);
}
