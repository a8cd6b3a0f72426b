/* containers/tests/mpi_dualview.c -- DualViews over kk-mpi between two ranks: the side that is current is sent, a message lands where MPI reaches it and is marked modified there. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/mpi_dualview.h>

#include "tests.h"

/*
 * Run on 2 ranks: mpi_dualview --kokkos-device=BACKEND [expect]: `expect`
 * ("device" or "host") is where a message must land (default: device when
 * the default space is host-accessible).  Exit 0 when every check holds.
 */

static int g_fail;
#define CHECK(call)                                                                                 \
  do {                                                                                              \
    if ((call) != KK_OK) {                                                                          \
      fprintf(stderr, "rank %d: %s:%d: %s: %s\n", rank, __FILE__, __LINE__, #call, kk_last_error()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                 \
    }                                                                                               \
  } while (0)
#define EXPECT(cond, ...)                    \
  do {                                       \
    if (!(cond)) {                           \
      fprintf(stderr, "rank %d: ", rank);    \
      fprintf(stderr, __VA_ARGS__);          \
      fputc('\n', stderr);                   \
      g_fail = 1;                            \
    }                                        \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  kk_initialize_or_exit(&argc, &argv);
  if (size != 2) {
    fprintf(stderr, "mpi_dualview: run on 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int single_space = kk_space_host_accessible(kk_space_default());
  const char *expect = argc > 1 ? argv[1] : "device";
  kk_mpi_comm_t *c = NULL;
  CHECK(kk_mpi_comm_create(MPI_COMM_WORLD, &c));
  const int64_t n = 1000;
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = "dv";
  s.type = KK_INT64;
  s.rank = 1;
  s.extents[0] = n;
  kk_dualview_t *dv = NULL;
  CHECK(kk_dualview_create(&s, &dv));
  int64_t *h = kk_view_data(kk_dualview_view_host(dv));
  const int peer = 1 - rank;
  for (int round = 0; round < 2; round++) {
    const int sender = round; /* rank 0 sends first, then rank 1 */
    if (rank == sender) {
      if (round == 0) { /* the host side is current */
        for (int64_t i = 0; i < n; i++)
          h[i] = i;
        CHECK(kk_dualview_modify_host(dv));
      } else { /* the device side is current: a kernel changed it */
        CHECK(kk_dualview_sync_device(dv));
        struct t_dv_args a = {kk_view_bind(kk_dualview_view_device(dv))};
        CHECK(kk_parallel_for("scale", KK_RANGE(0, n), KK_KERNEL(t_dv_scale), KK_ARGS(a)));
        CHECK(kk_fence());
        CHECK(kk_dualview_modify_device(dv));
      }
      const int hs = kk_dualview_need_sync_host(dv), ds = kk_dualview_need_sync_device(dv);
      CHECK(kk_mpi_send_dualview(c, dv, peer, round));
      EXPECT(kk_dualview_need_sync_host(dv) == hs && kk_dualview_need_sync_device(dv) == ds,
             "sending changed the DualView's flags");
    } else {
      CHECK(kk_mpi_recv_dualview(c, dv, peer, round, MPI_STATUS_IGNORE));
      if (!single_space) {
        const int on_device = kk_dualview_need_sync_host(dv);
        EXPECT(on_device == (strcmp(expect, "device") == 0), "the message landed on the %s side, expected %s",
               on_device ? "device" : "host", expect);
        EXPECT(on_device != kk_dualview_need_sync_device(dv), "the side written is not marked modified");
      }
      CHECK(kk_dualview_sync_host(dv));
      for (int64_t i = 0; i < n; i++)
        if (h[i] != (round == 0 ? i : 2 * i + 1)) {
          EXPECT(0, "round %d: element %lld is %lld", round, (long long)i, (long long)h[i]);
          break;
        }
    }
  }
  /* in sync: the side MPI reaches best goes, and the data is the same */
  CHECK(kk_dualview_clear_sync_state(dv));
  if (rank == 0) {
    for (int64_t i = 0; i < n; i++)
      h[i] = -i;
    CHECK(kk_dualview_modify_host(dv));
    CHECK(kk_dualview_sync_device(dv));
    CHECK(kk_mpi_send_dualview(c, dv, 1, 7));
  } else {
    CHECK(kk_mpi_recv_dualview(c, dv, 0, 7, MPI_STATUS_IGNORE));
    CHECK(kk_dualview_sync_host(dv));
    EXPECT(h[5] == -5 && h[n - 1] == -(n - 1), "in-sync round: %lld %lld", (long long)h[5], (long long)h[n - 1]);
  }
  EXPECT(kk_mpi_send_dualview(c, NULL, peer, 0) == KK_ERROR_INVALID_ARGUMENT, "a NULL DualView was accepted");
  kk_dualview_release(dv);
  CHECK(kk_mpi_comm_destroy(c));
  kk_finalize();
  int bad = g_fail, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    printf("DualViews over MPI on 2 ranks: %s\n", any ? "FAILED" : "ok");
  MPI_Finalize();
  return any;
}
