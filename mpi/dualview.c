/* mpi/dualview.c -- kk-mpi with DualViews: the side that is current goes on the wire, a message lands where MPI reaches it best. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/mpi_dualview.h>

/* 1 when MPI reads or writes v without staging it through host buffers. */
static int direct(kk_mpi_comm_t *c, kk_view_t *v) {
  kk_mpi_path_t path = KK_MPI_PATH_STAGED;
  int packed = 0;
  if (kk_mpi_view_path(c, v, &path, &packed) != KK_OK)
    return 0;
  return path != KK_MPI_PATH_STAGED;
}

static kk_status_t check(const char *op, kk_dualview_t *dv) {
  if (!dv || !kk_dualview_view_device(dv))
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: the DualView is NULL or was released", op);
  return KK_OK;
}

kk_status_t kk_mpi_send_dualview(kk_mpi_comm_t *c, kk_dualview_t *dv, int dest, int tag) {
  kk_status_t st = check("kk_mpi_send_dualview", dv);
  if (st != KK_OK)
    return st;
  kk_view_t *dev = kk_dualview_view_device(dv), *host = kk_dualview_view_host(dv);
  kk_view_t *side = kk_dualview_need_sync_host(dv)     ? dev  /* the device side is newer */
                    : kk_dualview_need_sync_device(dv) ? host /* the host side is newer */
                    : direct(c, dev)                   ? dev
                                                       : host;
  return kk_mpi_send(c, side, dest, tag);
}

kk_status_t kk_mpi_recv_dualview(kk_mpi_comm_t *c, kk_dualview_t *dv, int source, int tag, MPI_Status *status) {
  kk_status_t st = check("kk_mpi_recv_dualview", dv);
  if (st != KK_OK)
    return st;
  kk_view_t *dev = kk_dualview_view_device(dv);
  const int on_device = kk_dualview_is_single(dv) || direct(c, dev);
  if ((st = kk_mpi_recv(c, on_device ? dev : kk_dualview_view_host(dv), source, tag, status)) != KK_OK)
    return st;
  return on_device ? kk_dualview_modify_device(dv) : kk_dualview_modify_host(dv);
}
