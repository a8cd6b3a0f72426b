/* mpi/nccl.h -- libkk-mpi's device-direct path: NCCL opened at run time, the communicator, the collectives on it. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_MPI_NCCL_H
#define KK_MPI_NCCL_H

#include <stddef.h>

#include <kk.h>

struct kk_mpi_comm;
struct kk_mpi_what;

/* What the process found of NCCL, or of RCCL where the default backend was
 * hip at the first question (opened once, at the first question). */
typedef struct mpi_nccl_lib {
  int found;          /* libnccl (librccl) opened and every function needed resolved */
  int hip;            /* RCCL for the hip backend, else NCCL for cuda */
  const char *name;   /* "NCCL" or "RCCL" */
  const char *backend;/* "cuda" or "hip": the backend it serves */
  char chosen_by[64]; /* the default backend at the first question ("cuda", "serial", ...) */
  int version;        /* ncclGetVersion's code (21805 for 2.18.5; RCCL's follows NCCL's), 0 when not found */
  char path[512];     /* the file opened */
  char why[1024];     /* why not (when !found) */
  const char *setting;/* "KK_NCCL_LIBRARY" when it named the file, else "search" */
} mpi_nccl_lib_t;

/* Opens NCCL (KK_NCCL_LIBRARY, else the loader's path, else the nvidia-nccl
 * Python package's lib directory) once per process; thread-safe.  Where the
 * default backend is hip at the first call it opens RCCL instead
 * (KK_NCCL_LIBRARY, else librccl.so.1 on the loader's path, else
 * /opt/rocm/lib/librccl.so.1), for the rest of the process. */
const mpi_nccl_lib_t *kk_mpi__nccl_lib(void);

/* Whether the library opened serves views of `backend` ("cuda" for NCCL,
 * "hip" for RCCL); 0 for NULL. */
int kk_mpi__nccl_serves(const char *backend);

/* "2.18.5" from a version code. */
void kk_mpi__nccl_version_text(int code, char *buf, size_t size);

/* Decides, collectively over c's communicator, whether c's device
 * collectives go through NCCL (KK_MPI_NCCL: -1 automatic, 0 off, 1 forced)
 * and makes the NCCL communicator when they do (the unique id broadcast
 * over MPI).  Sets c->nccl_on and c->nccl_how.  A forced path that some
 * rank cannot take fails on every rank (KK_ERROR_UNSUPPORTED, or
 * KK_ERROR_COMM when NCCL itself fails); an automatic one falls back to the
 * MPI path and says why. */
kk_status_t kk_mpi__nccl_setup(struct kk_mpi_comm *c, int want);

/* Destroys c's NCCL communicator (if any). */
kk_status_t kk_mpi__nccl_teardown(struct kk_mpi_comm *c);

/* Makes c->xinst (kk_mpi_comm_instance): on cuda and hip an instance on a
 * stream of the device's highest priority, else a plain one; c->xhow says
 * which. */
kk_status_t kk_mpi__xinst_create(struct kk_mpi_comm *c);

/* Destroys c->xinst and the stream under it (the stream only while kk is
 * initialized: kk_finalize took its context with it). */
kk_status_t kk_mpi__xinst_destroy(struct kk_mpi_comm *c, int kk_alive);

/* Whether NCCL can reduce `count` elements of `type` with `op` (-1: no
 * reduction: broadcast, allgather, which move bytes); the same answer on
 * every rank for the same arguments. */
int kk_mpi__nccl_can(kk_type_t type, int op);

enum { KK_MPI_NCCL_ALLREDUCE = 1, KK_MPI_NCCL_BROADCAST, KK_MPI_NCCL_ALLGATHER };

/* Queues one collective on inst's stream: `count` elements of `type` (and
 * elem_size bytes each, for broadcast / allgather of any type), `op` for an
 * allreduce, `root` for a broadcast; allgather's count is per rank. */
kk_status_t kk_mpi__nccl_coll(struct kk_mpi_comm *c, struct kk_mpi_what *what, kk_instance_t *inst, int coll,
                              const void *send, void *recv, size_t count, kk_type_t type, size_t elem_size,
                              int op, int root);

/* Waits for inst's stream, watching NCCL's asynchronous errors, at most
 * KK_MPI_NCCL_TIMEOUT seconds: past that, or on an NCCL error, the
 * communicator is aborted (ncclCommAbort) and every later NCCL operation
 * on c fails at once. */
kk_status_t kk_mpi__nccl_sync(struct kk_mpi_comm *c, struct kk_mpi_what *what, kk_instance_t *inst);

/* Hands c's queued NCCL sends and receives (c->nccl_head) to NCCL as one
 * group (ncclGroupStart, ncclSend / ncclRecv of their bytes on their
 * instances' streams, ncclGroupEnd) and empties the queue; a failure is
 * returned and left in every request's nccl_err. */
kk_status_t kk_mpi__nccl_flush(struct kk_mpi_comm *c);

#endif /* KK_MPI_NCCL_H */
