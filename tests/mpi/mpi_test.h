/* tests/mpi/mpi_test.h -- argument structs of the MPI suite's kernels, shared by mpi_suite.c and mpi_test.kk.c. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk.h>

struct fill_args {
  kk_view v;          /* double, rank 1 */
  double base;
  int64_t reps;       /* extra work per element, so that the kernel is still running when the host moves on */
};

struct scale_args {
  kk_view v;          /* double, rank 1 */
  double factor;
};

KK_DECLARE_KERNEL(mpi_test_fill);
KK_DECLARE_KERNEL(mpi_test_scale);
