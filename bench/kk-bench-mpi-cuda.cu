// bench/kk-bench-mpi-cuda.cu -- the CUDA half of kk-bench-mpi's hand-written MPI + CUDA halo exchange and CG
// (kk-bench-mpi-cuda.h): device arrays, pack kernels, staging through pinned memory on one stream.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "kk-bench-mpi-cuda.h"

namespace {

bool ok(cudaError_t e, const char *what) {
  if (e == cudaSuccess)
    return true;
  fprintf(stderr, "kk-bench-mpi (native CUDA): %s: %s\n", what, cudaGetErrorString(e));
  return false;
}
#define OK(call) ok((call), #call)

unsigned blocks_for(int64_t n, int threads) { return (unsigned)((n + threads - 1) / threads); }

#include "native_cuda_cg.cuh" /* block_sum, dot, spmv, axpy, xpay, fill */

// Face (d, layer) of u, (n+2)^3 with the first index fastest: its n^2 interior points, the lower of the other two
// dimensions fastest.  unpack: buffer to u.
__global__ void face(double *u, double *buf, int64_t n, int d, int64_t layer, bool unpack) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n * n)
    return;
  const int64_t a = t % n + 1, b = t / n + 1, e = n + 2;
  int64_t i, j, k;
  if (d == 0)
    i = layer, j = a, k = b;
  else if (d == 1)
    i = a, j = layer, k = b;
  else
    i = a, j = b, k = layer;
  double *p = u + (k * e + j) * e + i;
  if (unpack)
    *p = buf[t];
  else
    buf[t] = *p;
}

}  // namespace

extern "C" int nmc_set_device(int dev) { return OK(cudaSetDevice(dev)) ? 0 : -1; }

/* ---- halo ------------------------------------------------------------------------------------------------- */

struct nmc_halo {
  int64_t n;
  bool staged;
  cudaStream_t s;
  double *u;
  double *dsend[6], *drecv[6];   // device face buffers
  double *hsend[6], *hrecv[6];   // pinned host buffers (staged)
};

extern "C" nmc_halo_t *nmc_halo_create(int64_t n, int staged) {
  nmc_halo_t *h = (nmc_halo_t *)calloc(1, sizeof *h);
  if (!h)
    return nullptr;
  h->n = n;
  h->staged = staged != 0;
  const size_t e = (size_t)(n + 2), face_bytes = (size_t)(n * n) * sizeof(double);
  bool fine = OK(cudaStreamCreateWithFlags(&h->s, cudaStreamNonBlocking)) && OK(cudaMalloc(&h->u, e * e * e * 8));
  for (int f = 0; f < 6 && fine; f++) {
    fine = OK(cudaMalloc(&h->dsend[f], face_bytes)) && OK(cudaMalloc(&h->drecv[f], face_bytes));
    if (fine && h->staged)
      fine = OK(cudaMallocHost(&h->hsend[f], face_bytes)) && OK(cudaMallocHost(&h->hrecv[f], face_bytes));
  }
  if (!fine) {
    nmc_halo_destroy(h);
    return nullptr;
  }
  return h;
}

extern "C" void nmc_halo_destroy(nmc_halo_t *h) {
  if (!h)
    return;
  for (int f = 0; f < 6; f++) {
    cudaFree(h->dsend[f]), cudaFree(h->drecv[f]);
    if (h->hsend[f])
      cudaFreeHost(h->hsend[f]);
    if (h->hrecv[f])
      cudaFreeHost(h->hrecv[f]);
  }
  cudaFree(h->u);
  if (h->s)
    cudaStreamDestroy(h->s);
  free(h);
}

extern "C" int nmc_halo_put(nmc_halo_t *h, const double *u) {
  const size_t e = (size_t)(h->n + 2);
  return OK(cudaMemcpy(h->u, u, e * e * e * 8, cudaMemcpyHostToDevice)) ? 0 : -1;
}

extern "C" int nmc_halo_get(nmc_halo_t *h, double *u) {
  const size_t e = (size_t)(h->n + 2);
  return OK(cudaMemcpy(u, h->u, e * e * e * 8, cudaMemcpyDeviceToHost)) ? 0 : -1;
}

extern "C" void *nmc_halo_send_buf(nmc_halo_t *h, int f) { return h->staged ? h->hsend[f] : h->dsend[f]; }
extern "C" void *nmc_halo_recv_buf(nmc_halo_t *h, int f) { return h->staged ? h->hrecv[f] : h->drecv[f]; }

extern "C" int nmc_halo_pack(nmc_halo_t *h) {
  const int64_t n = h->n, cnt = n * n;
  for (int f = 0; f < 6; f++) {
    face<<<blocks_for(cnt, 256), 256, 0, h->s>>>(h->u, h->dsend[f], n, f / 2, f % 2 ? n : 1, false);
    if (h->staged)
      cudaMemcpyAsync(h->hsend[f], h->dsend[f], (size_t)cnt * 8, cudaMemcpyDeviceToHost, h->s);
  }
  return OK(cudaStreamSynchronize(h->s)) ? 0 : -1;
}

extern "C" int nmc_halo_unpack(nmc_halo_t *h) {
  const int64_t n = h->n, cnt = n * n;
  for (int f = 0; f < 6; f++) {
    if (h->staged)
      cudaMemcpyAsync(h->drecv[f], h->hrecv[f], (size_t)cnt * 8, cudaMemcpyHostToDevice, h->s);
    face<<<blocks_for(cnt, 256), 256, 0, h->s>>>(h->u, h->drecv[f], n, f / 2, f % 2 ? n + 1 : 0, true);
  }
  return OK(cudaStreamSynchronize(h->s)) ? 0 : -1;
}

/* ---- CG ------------------------------------------------------------------------------------------------- */

struct nmc_cg {
  int64_t rows, ghost;
  bool staged;
  unsigned grid;
  cudaStream_t s;
  int64_t *rp;
  int32_t *ci;
  double *va, *x, *r, *pext, *p, *Ap, *part, *out;
  unsigned *done;
  double *hplane[4];  // pinned: the two boundary planes out, the two ghost planes in
};

extern "C" nmc_cg_t *nmc_cg_create(const int64_t *row_ptr, const int32_t *cols, const double *vals, int64_t rows,
                                   int64_t ghost, int staged) {
  nmc_cg_t *g = (nmc_cg_t *)calloc(1, sizeof *g);
  if (!g)
    return nullptr;
  g->rows = rows;
  g->ghost = ghost;
  g->staged = staged != 0;
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  g->grid = (unsigned)sms * 8;
  const int64_t nnz = row_ptr[rows];
  bool fine = OK(cudaStreamCreateWithFlags(&g->s, cudaStreamNonBlocking)) &&
              OK(cudaMalloc(&g->rp, (size_t)(rows + 1) * 8)) && OK(cudaMalloc(&g->ci, (size_t)nnz * 4)) &&
              OK(cudaMalloc(&g->va, (size_t)nnz * 8)) && OK(cudaMalloc(&g->x, (size_t)rows * 8)) &&
              OK(cudaMalloc(&g->r, (size_t)rows * 8)) && OK(cudaMalloc(&g->pext, (size_t)(rows + 2 * ghost) * 8)) &&
              OK(cudaMalloc(&g->Ap, (size_t)rows * 8)) && OK(cudaMalloc(&g->part, g->grid * 8)) &&
              OK(cudaMalloc(&g->out, 8)) && OK(cudaMalloc(&g->done, 4)) && OK(cudaMemset(g->done, 0, 4));
  for (int k = 0; k < 4 && fine && g->staged; k++)
    fine = OK(cudaMallocHost(&g->hplane[k], (size_t)ghost * 8));
  if (fine)
    fine = OK(cudaMemcpy(g->rp, row_ptr, (size_t)(rows + 1) * 8, cudaMemcpyHostToDevice)) &&
           OK(cudaMemcpy(g->ci, cols, (size_t)nnz * 4, cudaMemcpyHostToDevice)) &&
           OK(cudaMemcpy(g->va, vals, (size_t)nnz * 8, cudaMemcpyHostToDevice));
  if (!fine) {
    nmc_cg_destroy(g);
    return nullptr;
  }
  g->p = g->pext + ghost;
  return g;
}

extern "C" void nmc_cg_destroy(nmc_cg_t *g) {
  if (!g)
    return;
  for (int k = 0; k < 4; k++)
    if (g->hplane[k])
      cudaFreeHost(g->hplane[k]);
  cudaFree(g->rp), cudaFree(g->ci), cudaFree(g->va), cudaFree(g->x), cudaFree(g->r), cudaFree(g->pext);
  cudaFree(g->Ap), cudaFree(g->part), cudaFree(g->out), cudaFree(g->done);
  if (g->s)
    cudaStreamDestroy(g->s);
  free(g);
}

extern "C" int nmc_cg_reset(nmc_cg_t *g) {
  const int64_t n = g->rows;
  fill<<<blocks_for(n, 256), 256, 0, g->s>>>(g->x, 0.0, n);
  fill<<<blocks_for(n, 256), 256, 0, g->s>>>(g->r, 1.0, n);
  fill<<<blocks_for(n + 2 * g->ghost, 256), 256, 0, g->s>>>(g->pext, 1.0, n + 2 * g->ghost);
  return OK(cudaStreamSynchronize(g->s)) ? 0 : -1;
}

// The device memory of plane `which` (see nmc_cg_plane).
static double *device_plane(nmc_cg_t *g, int which) {
  switch (which) {
  case 0: return g->p;                                // my lowest plane
  case 1: return g->p + g->rows - g->ghost;           // my highest plane
  case 2: return g->pext;                             // the ghost plane below
  default: return g->pext + g->ghost + g->rows;       // the ghost plane above
  }
}

extern "C" void *nmc_cg_plane(nmc_cg_t *g, int which) { return g->staged ? g->hplane[which] : device_plane(g, which); }

extern "C" int nmc_cg_halo_out(nmc_cg_t *g) {
  if (g->staged)
    for (int k = 0; k < 2; k++)
      cudaMemcpyAsync(g->hplane[k], device_plane(g, k), (size_t)g->ghost * 8, cudaMemcpyDeviceToHost, g->s);
  return OK(cudaStreamSynchronize(g->s)) ? 0 : -1;
}

extern "C" int nmc_cg_halo_in(nmc_cg_t *g) {
  if (g->staged)
    for (int k = 2; k < 4; k++)
      cudaMemcpyAsync(device_plane(g, k), g->hplane[k], (size_t)g->ghost * 8, cudaMemcpyHostToDevice, g->s);
  return 0;
}

extern "C" int nmc_cg_spmv(nmc_cg_t *g) {
  spmv<<<blocks_for(g->rows * 32, 256), 256, 0, g->s>>>(g->rp, g->ci, g->va, g->pext, g->Ap, g->rows);
  return 0;
}

extern "C" double nmc_cg_dot(nmc_cg_t *g, int which) {
  const double *u = which ? g->r : g->p, *v = which ? g->r : g->Ap;
  double h = 0;
  dot<<<g->grid, 256, 0, g->s>>>(u, v, g->rows, g->part, g->done, g->out);
  cudaMemcpyAsync(&h, g->out, 8, cudaMemcpyDeviceToHost, g->s);
  cudaStreamSynchronize(g->s);
  return h;
}

extern "C" int nmc_cg_update(nmc_cg_t *g, double alpha) {
  const unsigned b = blocks_for(g->rows, 256);
  axpy<<<b, 256, 0, g->s>>>(g->x, alpha, g->p, g->rows);
  axpy<<<b, 256, 0, g->s>>>(g->r, -alpha, g->Ap, g->rows);
  return 0;
}

extern "C" int nmc_cg_xpay(nmc_cg_t *g, double beta) {
  xpay<<<blocks_for(g->rows, 256), 256, 0, g->s>>>(g->p, beta, g->r, g->rows);
  return 0;
}

extern "C" int nmc_cg_sync(nmc_cg_t *g) { return OK(cudaStreamSynchronize(g->s)) ? 0 : -1; }

/* ---- NCCL ------------------------------------------------------------------------------------------------ */
// What a CUDA programmer writes with NCCL: the communicator from an MPI-broadcast unique id, and the exchanges as
// grouped ncclSend / ncclRecv on the compute stream, without a host synchronisation.  NCCL's header is not on the
// build machine, so the few declarations are here (NCCL 2.18's nccl.h) and the library is opened at run time, as
// kk-mpi opens it; the calls are what the header would give.
#include <dlfcn.h>
#include <string.h>

namespace {
typedef struct ncclComm *ncclComm_t;
typedef int (*nccl_get_version_t)(int *);
typedef int (*nccl_get_unique_id_t)(void *);
typedef int (*nccl_comm_init_rank_t)(ncclComm_t *, int, nmc_nccl_id_t, int);
typedef int (*nccl_comm_destroy_t)(ncclComm_t);
typedef int (*nccl_group_t)(void);
typedef int (*nccl_send_t)(const void *, size_t, int, int, ncclComm_t, cudaStream_t);
typedef int (*nccl_recv_t)(void *, size_t, int, int, ncclComm_t, cudaStream_t);
typedef const char *(*nccl_error_string_t)(int);
const int ncclFloat64 = 8;
struct {
  nccl_get_version_t get_version;
  nccl_get_unique_id_t get_unique_id;
  nccl_comm_init_rank_t init_rank;
  nccl_comm_destroy_t destroy;
  nccl_group_t group_start, group_end;
  nccl_send_t send;
  nccl_recv_t recv;
  nccl_error_string_t error_string;
  ncclComm_t comm;
} NC;

bool nok(int r, const char *what) {
  if (r == 0)
    return true;
  fprintf(stderr, "kk-bench-mpi (native NCCL): %s: %s\n", what, NC.error_string ? NC.error_string(r) : "error");
  return false;
}
}  // namespace

extern "C" int nmc_nccl_open(int *version) {
  const char *file = getenv("KK_NCCL_LIBRARY");
  void *h = dlopen(file && *file ? file : "libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "kk-bench-mpi (native NCCL): %s (set KK_NCCL_LIBRARY)\n", dlerror());
    return -1;
  }
  NC.get_version = (nccl_get_version_t)dlsym(h, "ncclGetVersion");
  NC.get_unique_id = (nccl_get_unique_id_t)dlsym(h, "ncclGetUniqueId");
  NC.init_rank = (nccl_comm_init_rank_t)dlsym(h, "ncclCommInitRank");
  NC.destroy = (nccl_comm_destroy_t)dlsym(h, "ncclCommDestroy");
  NC.group_start = (nccl_group_t)dlsym(h, "ncclGroupStart");
  NC.group_end = (nccl_group_t)dlsym(h, "ncclGroupEnd");
  NC.send = (nccl_send_t)dlsym(h, "ncclSend");
  NC.recv = (nccl_recv_t)dlsym(h, "ncclRecv");
  NC.error_string = (nccl_error_string_t)dlsym(h, "ncclGetErrorString");
  if (!NC.get_version || !NC.get_unique_id || !NC.init_rank || !NC.destroy || !NC.group_start || !NC.group_end ||
      !NC.send || !NC.recv || !NC.error_string) {
    fprintf(stderr, "kk-bench-mpi (native NCCL): the library lacks NCCL 2.7's functions\n");
    return -1;
  }
  return nok(NC.get_version(version), "ncclGetVersion") ? 0 : -1;
}

extern "C" int nmc_nccl_unique_id(nmc_nccl_id_t *id) { return nok(NC.get_unique_id(id), "ncclGetUniqueId") ? 0 : -1; }

extern "C" int nmc_nccl_init(const nmc_nccl_id_t *id, int nranks, int rank) {
  return nok(NC.init_rank(&NC.comm, nranks, *id, rank), "ncclCommInitRank") ? 0 : -1;
}

extern "C" void nmc_nccl_finalize(void) {
  if (NC.comm)
    NC.destroy(NC.comm);
  NC.comm = nullptr;
}

extern "C" int nmc_halo_exchange_nccl(nmc_halo_t *h, const int *peers) {
  const int64_t n = h->n, cnt = n * n;
  for (int f = 0; f < 6; f++)
    face<<<blocks_for(cnt, 256), 256, 0, h->s>>>(h->u, h->dsend[f], n, f / 2, f % 2 ? n : 1, false);
  // Face f goes to peers[f] and the ghost layer f comes from peers[f], which sent its face f ^ 1: between two
  // ranks the messages pair in the order they are listed, so the receives are listed in the order of the faces
  // that fill them (f ^ 1), the sends in face order.
  bool fine = nok(NC.group_start(), "ncclGroupStart");
  for (int f = 0; f < 6 && fine; f++)
    fine = nok(NC.send(h->dsend[f], (size_t)cnt, ncclFloat64, peers[f], NC.comm, h->s), "ncclSend");
  for (int g = 0; g < 6 && fine; g++)
    fine = nok(NC.recv(h->drecv[g ^ 1], (size_t)cnt, ncclFloat64, peers[g ^ 1], NC.comm, h->s), "ncclRecv");
  fine = nok(NC.group_end(), "ncclGroupEnd") && fine;
  for (int f = 0; f < 6 && fine; f++)
    face<<<blocks_for(cnt, 256), 256, 0, h->s>>>(h->u, h->drecv[f], n, f / 2, f % 2 ? n + 1 : 0, true);
  return fine && OK(cudaStreamSynchronize(h->s)) ? 0 : -1;
}

extern "C" int nmc_cg_halo_nccl(nmc_cg_t *g, int down, int up) {
  const size_t cnt = (size_t)g->ghost;
  bool fine = nok(NC.group_start(), "ncclGroupStart");
  if (down >= 0 && fine)
    fine = nok(NC.send(device_plane(g, 0), cnt, ncclFloat64, down, NC.comm, g->s), "ncclSend") &&
           nok(NC.recv(device_plane(g, 2), cnt, ncclFloat64, down, NC.comm, g->s), "ncclRecv");
  if (up >= 0 && fine)
    fine = nok(NC.send(device_plane(g, 1), cnt, ncclFloat64, up, NC.comm, g->s), "ncclSend") &&
           nok(NC.recv(device_plane(g, 3), cnt, ncclFloat64, up, NC.comm, g->s), "ncclRecv");
  return nok(NC.group_end(), "ncclGroupEnd") && fine ? 0 : -1;
}
