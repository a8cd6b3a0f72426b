/* kk/mpi_dualview.h -- kk-mpi with DualViews: send the side that is current, receive into the side MPI reaches best. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_MPI_DUALVIEW_H
#define KK_MPI_DUALVIEW_H

/*
 * libkk-mpi's DualView calls (installed when libkk-containers is built;
 * docs/mpi.md, "DualView").  They take a DualView where kk_mpi_send and
 * kk_mpi_recv take a view, with the same rules for comms, peers, tags,
 * shapes and errors, and the DualView rules of <kk/containers.h>.
 */

#include <kk/containers.h>
#include <kk/mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sends the side of `dv` that is current: the device side when it was
 * modified since the last sync (kk_dualview_need_sync_host), the host side
 * when the host was; when both are in sync, the side MPI reads without
 * staging (kk_mpi_view_path: the device side when it is host-accessible or
 * the MPI is GPU-aware, else the host side).  Nothing is synced, and the
 * flags do not change.  As kk_mpi_send otherwise. */
kk_status_t kk_mpi_send_dualview(kk_mpi_comm_t *c, kk_dualview_t *dv, int dest, int tag);

/* Receives into `dv`: into the device side when MPI reaches it without
 * staging (host-accessible, or a GPU-aware MPI), else into the host side,
 * and marks that side modified (kk_dualview_modify_*), so that a sync
 * brings the other one up to date.  As kk_mpi_recv otherwise (the message
 * must fit the DualView's shape). */
kk_status_t kk_mpi_recv_dualview(kk_mpi_comm_t *c, kk_dualview_t *dv, int source, int tag, MPI_Status *status);

#ifdef __cplusplus
}
#endif

#endif /* KK_MPI_DUALVIEW_H */
