/* tests/mpi/mpi_test.kk.c -- kernels of the MPI suite: a slow fill and a scale, to check ordering with sends and receives. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "mpi_test.h"

/* v[i] = base + i, computed the long way round (reps steps) so that the
 * kernel takes a while on an asynchronous backend. */
KK_FOR(mpi_test_fill, struct fill_args, i) {
  double x = 0;
  for (int64_t k = 0; k < args->reps; k++)
    x = x * 0.5 + (double)i;
  KK_AT(args->v, double, i) = args->base + (args->reps > 0 ? x * 0 + (double)i : (double)i);
}

KK_FOR(mpi_test_scale, struct scale_args, i) { KK_AT(args->v, double, i) *= args->factor; }
