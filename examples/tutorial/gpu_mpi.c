/* examples/tutorial/gpu_mpi.c -- tutorial 5: one process per GPU (or per host backend), each working on its part, the results summed over MPI. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>

#include <kk/mpi.h>

#include "tutorial.h"

static int g_rank;

/* A failure on one rank ends the whole job: the others would wait for it. */
#define CHECK(call)                                                         \
  do {                                                                      \
    if ((call) != KK_OK) {                                                  \
      fprintf(stderr, "gpu_mpi: rank %d: %s\n", g_rank, kk_last_error());  \
      MPI_Abort(MPI_COMM_WORLD, 1);                                         \
    }                                                                       \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  /* --kokkos-device=cuda picks the GPU backend; with several GPUs per node,
   * --kokkos-map-device-id-by=mpi_rank gives each rank its own. */
  kk_initialize_or_exit(&argc, &argv);
  kk_mpi_comm_t *comm;
  CHECK(kk_mpi_comm_create(MPI_COMM_WORLD, &comm));
  const int size = kk_mpi_comm_size(comm);

  /* each rank owns n elements: x = 1, then x = 2x + 1 (3 everywhere) */
  const int64_t n = 100000;
  kk_view_t *x;
  CHECK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n));
  const double one = 1.0;
  CHECK(kk_deep_copy_fill(x, &one));
  struct axpb_args args = {kk_view_bind(x), 2.0};
  CHECK(kk_parallel_for("axpb", KK_RANGE(0, n), KK_KERNEL(axpb), KK_ARGS(args)));
  double mine = 0, total = 0;
  CHECK(kk_parallel_reduce("sum", KK_RANGE(0, n), KK_KERNEL(sum_vec2), KK_ARGS(args), KK_RESULT(mine)));

  /* the sum over every rank */
  CHECK(kk_mpi_allreduce_value(comm, KK_DOUBLE, KK_SUM, &mine, &total));
  const int ok = total == 3.0 * (double)n * size;
  if (g_rank == 0)
    printf("%d rank%s on %s: total %.0f: %s\n", size, size == 1 ? "" : "s", kk_backend_default(), total,
           ok ? "correct" : "WRONG");
  kk_view_release(x);
  kk_mpi_comm_destroy(comm);
  kk_finalize();
  MPI_Finalize();
  return !ok;
}
