/* bench/kk-bench-mpi-cuda.h -- the hand-written CUDA half of kk-bench-mpi's MPI + CUDA versions (kk-bench-mpi-cuda.cu).
 *
 * What a CUDA programmer writes around MPI: device arrays, pack kernels, copies to pinned host memory on a stream
 * when MPI is not CUDA-aware (staged), device pointers to MPI when it is.  The MPI calls themselves stay in
 * kk-bench-mpi.c.  Every function returns 0 (or a valid pointer) on success, -1 (NULL) after printing why. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_MPI_CUDA_H
#define KK_BENCH_MPI_CUDA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Makes device `dev` current for the rest of the process (the device kk chose for this rank). */
int nmc_set_device(int dev);

/* ---- halo: u is an (n+2)^3 array of doubles, first index fastest (kk's layout on CUDA), one ghost layer ---- */
typedef struct nmc_halo nmc_halo_t;

nmc_halo_t *nmc_halo_create(int64_t n, int staged);
void nmc_halo_destroy(nmc_halo_t *h);
/* Copies the whole of u from / to host memory of the same layout. */
int nmc_halo_put(nmc_halo_t *h, const double *u);
int nmc_halo_get(nmc_halo_t *h, double *u);
/* Face f = 2 d + side (d the dimension, side 0 low, 1 high): the n^2 elements MPI sends from (pinned host memory
 * when staged, device memory otherwise) and receives into. */
void *nmc_halo_send_buf(nmc_halo_t *h, int f);
void *nmc_halo_recv_buf(nmc_halo_t *h, int f);
/* Packs the six boundary layers (and copies them to pinned memory when staged), then synchronizes: the send
 * buffers are ready for MPI. */
int nmc_halo_pack(nmc_halo_t *h);
/* Copies the received faces to the device (staged) and unpacks them into the ghost layers, then synchronizes. */
int nmc_halo_unpack(nmc_halo_t *h);

/* ---- CG on this rank's slab: CSR rows whose columns index p extended by `ghost` elements on each side ---- */
typedef struct nmc_cg nmc_cg_t;

nmc_cg_t *nmc_cg_create(const int64_t *row_ptr, const int32_t *cols, const double *vals, int64_t rows, int64_t ghost,
                        int staged);
void nmc_cg_destroy(nmc_cg_t *g);
/* x = 0, r = p = 1 (the ghosts too). */
int nmc_cg_reset(nmc_cg_t *g);
/* Where MPI sends the boundary planes from (which 0: low, 1: high) and receives the ghost planes into (2: low,
 * 3: high); pinned host memory when staged. */
void *nmc_cg_plane(nmc_cg_t *g, int which);
/* Before the sends: the boundary planes copied to pinned memory (staged) and the stream synchronized. */
int nmc_cg_halo_out(nmc_cg_t *g);
/* After the receives: the ghost planes copied to the device (staged; on the stream, before the SpMV). */
int nmc_cg_halo_in(nmc_cg_t *g);
/* Ap = A p. */
int nmc_cg_spmv(nmc_cg_t *g);
/* This rank's part of p.Ap (which 0) or r.r (which 1); synchronous. */
double nmc_cg_dot(nmc_cg_t *g, int which);
/* x += alpha p, r -= alpha Ap. */
int nmc_cg_update(nmc_cg_t *g, double alpha);
/* p = r + beta p. */
int nmc_cg_xpay(nmc_cg_t *g, double beta);
/* Waits for the stream. */
int nmc_cg_sync(nmc_cg_t *g);

/* ---- NCCL: the exchanges as grouped ncclSend / ncclRecv on the stream (no host synchronisation) ---- */
typedef struct {
  char internal[128];
} nmc_nccl_id_t;

/* Opens libnccl (KK_NCCL_LIBRARY, else libnccl.so.2 on the loader's path); *version: ncclGetVersion's code. */
int nmc_nccl_open(int *version);
/* Rank 0 makes the id, the program broadcasts it over MPI, every rank joins. */
int nmc_nccl_unique_id(nmc_nccl_id_t *id);
int nmc_nccl_init(const nmc_nccl_id_t *id, int nranks, int rank);
void nmc_nccl_finalize(void);
/* The six faces (h made with staged = 0): packed, sent to peers[f] and received from it in one NCCL group, unpacked,
 * all on the stream, then one synchronisation. */
int nmc_halo_exchange_nccl(nmc_halo_t *h, const int *peers);
/* The two planes (g made with staged = 0) to and from down and up (-1: none), one NCCL group on the stream, not
 * waited for: the SpMV queued after it sees the ghosts. */
int nmc_cg_halo_nccl(nmc_cg_t *g, int down, int up);

#ifdef __cplusplus
}
#endif

#endif
