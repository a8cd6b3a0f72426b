/* mpi/internal.h -- libkk-mpi's private types and helpers: the comm object, its buffers, pack plans, requests. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_MPI_INTERNAL_H
#define KK_MPI_INTERNAL_H

#include <stdint.h>

#include <kk/mpi.h>

#include "pack.h"

#if defined(__GNUC__)
#define KK_MPI__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KK_MPI__PRINTF(f, a)
#endif

/* A buffer the comm object reuses: packed elements, staging in pinned host
 * memory, or both.  `pending` is an instance whose queued work may still
 * read or write it: fenced before the buffer is handed out again. */
typedef struct mpi_buf {
  kk_space_t *space;
  void *ptr;
  size_t cap;
  int in_use;
  kk_instance_t *pending;
} mpi_buf_t;

/* How a view's memory is walked: `rank` dimensions of words, slowest first
 * (the wire order), ext[d] words str[d] words apart.  A contiguous view has
 * rank 1 and str[0] == 1 (or no element at all). */
typedef struct mpi_plan {
  int rank;
  int64_t ext[KK_MPI_PLAN_DIMS];
  int64_t str[KK_MPI_PLAN_DIMS];
  int word;                 /* bytes per word: 1, 2, 4 or 8 */
  int contiguous;
  int64_t count;            /* elements */
  size_t bytes;             /* count * element size */
  int order[KK_MAX_RANK];   /* the view's dimensions of extent > 1, largest stride first */
  int order_n;
} mpi_plan_t;

/* What the comm object decided for one active backend. */
typedef struct mpi_backend {
  const char *name;         /* kk's string, valid until kk_finalize */
  int is_host;              /* the backend runs on the host CPU */
  int threads;              /* host backends: the threads a kernel runs on (kk_num_threads) */
  int aware;                /* MPI takes this backend's device pointers */
  const char *aware_how;    /* why (a static string) */
  kk_space_t *pinned;       /* the host-accessible space staging goes through */
} mpi_backend_t;

typedef struct mpi_reqpool mpi_reqpool_t;

struct kk_mpi_comm {
  MPI_Comm comm;            /* the duplicate, with MPI_ERRORS_RETURN */
  int rank, size;
  uint64_t kk_id;           /* kk_initialization_id() when made: stale once it differs */
  int debug;                /* KK_MPI_DEBUG */
  int check;                /* the collectives compare their arguments over the ranks first (KK_MPI_CHECK) */
  int aware_override;       /* KK_MPI_GPU_AWARE: -1 unset, 0, 1 */
  mpi_backend_t be[2];      /* the default backend and, when different, the host backend */
  int nbe;
  mpi_buf_t **bufs;
  int nbufs, capbufs;
  kk_mpi_request_t *free_reqs;
  int live_reqs;
  kk_mpi_stats_t stats;
  /* the device-direct path (nccl.c) */
  int nccl_on;              /* device collectives go through NCCL */
  void *nccl_comm;          /* the ncclComm_t; NULL when off or aborted */
  void *nccl_ctx;           /* the CUcontext NCCL runs in (the cuda plugin's) */
  int nccl_device;
  double nccl_timeout;      /* KK_MPI_NCCL_TIMEOUT, seconds (0: wait for ever) */
  char nccl_how[1024];      /* what NCCL serves, or why not */
  kk_mpi_request_t *nccl_head, *nccl_tail; /* NCCL sends and receives not yet handed to NCCL, in posting order */
  /* While the NCCL path stages a view, every use of its buffers is queued
   * on this instance: a buffer pending on it may be handed out again (stream
   * order puts the new use after the old one).  NULL otherwise. */
  kk_instance_t *ordered_on;
  /* the exchange instance (kk_mpi_comm_instance), its own stream where kk
   * made one (cuda), and what it is */
  kk_instance_t *xinst;
  void *xstream, *xctx;
  int xdev, xhip;           /* the stream's device, and whether it is a hip stream (else cuda) */
  char xhow[400];
};

struct kk_mpi_request {
  kk_mpi_comm_t *c;
  kk_mpi_request_t *next_free;
  const char *op;           /* "kk_mpi_isend", "kk_mpi_irecv" */
  int recv;
  kk_mpi_path_t path;
  kk_view_t *view;          /* retained until completion */
  kk_instance_t *inst;
  mpi_plan_t plan;
  MPI_Request mreq;
  MPI_Datatype dt;
  int count;                /* MPI count of dt */
  int peer, tag;
  void *ptr;                /* what MPI reads or writes: the view's data or mbuf's */
  mpi_buf_t *mbuf;          /* a buffer, when MPI does not use the view itself */
  /* path KK_MPI_PATH_NCCL: queued on c until a completion call hands the
   * queue to NCCL as one group (kk_mpi__nccl_flush) */
  int nccl_queued;
  kk_status_t nccl_err;     /* the group's failure, reported at completion */
  kk_mpi_request_t *nccl_next;
};

/* What a message names, "kk_mpi_isend: 'x' (10 double) to rank 1 tag 0",
 * kept as its parts and formatted only when a message needs it
 * (kk_mpi__what): a send, receive or collective that succeeds formats
 * nothing (the exchange path did, and that was two thirds of its own cost
 * on a small halo). */
typedef struct kk_mpi_what {
  const char *op;   /* the routine */
  kk_view_t *view;  /* the view the call is about (NULL: none) */
  int dir;          /* 0: no peer; 1: to `peer`; 2: from `peer` */
  int peer, tag;
  char text[640];   /* kk_mpi__what's result, made at its first call ("" before) */
} kk_mpi_what_t;

/* Sets w to name `op` on `v` (no peer yet). */
void kk_mpi__what_init(kk_mpi_what_t *w, const char *op, kk_view_t *v);
/* The text of w, formatted at the first call. */
const char *kk_mpi__what(kk_mpi_what_t *w);

/* ---- comm.c --------------------------------------------------------------- */

/* Records an MPI failure (KK_ERROR_COMM) with MPI's error string and class:
 * "<what>: <fn> failed: <string> (MPI error class N)". */
kk_status_t kk_mpi__fail(int err, const char *fn, const char *what);

/* "op: 'label' (n type)": the start of every message about a view. */
void kk_mpi__describe(char *buf, size_t size, const char *op, kk_view_t *v);

/* KK_ERROR_INVALID_ARGUMENT for a NULL c; KK_ERROR_NOT_INITIALIZED when kk
 * or MPI is not initialized (any more): a comm object that outlived
 * kk_finalize or MPI_Finalize touches neither. */
kk_status_t kk_mpi__check_comm(const kk_mpi_comm_t *c, const char *op);
/* Was c made in the kk initialization under way (kk_initialization_id)? */
int kk_mpi__current(const kk_mpi_comm_t *c);

/* Whether MPI_Finalize has not run yet (asked by holders of a comm object,
 * so MPI_Init has). */
int kk_mpi__mpi_alive(void);

/* The completion calls (MPI_Wait, MPI_Test, MPI_Waitsome) that libkk-mpi
 * makes.  Some MPI libraries (MPICH 4.0) raise an error completing a
 * request on MPI_COMM_WORLD's (or MPI_COMM_SELF's) handler instead of on
 * the request's communicator, which kk set to MPI_ERRORS_RETURN; found out
 * once per process at the first kk_mpi_comm_create (comm.c, probe_errors),
 * those handlers are then MPI_ERRORS_RETURN for the length of each call
 * and the program's own handlers are put back after it. */
int kk_mpi__wait(MPI_Request *req, MPI_Status *status);
int kk_mpi__test(MPI_Request *req, int *flag, MPI_Status *status);
int kk_mpi__waitsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *statuses);

/* KK_MPI_GPU_AWARE, KK_MPI_DEBUG, KK_MPI_CHECK: -1 unset, 0 or 1; -2 malformed. */
int kk_mpi__env_bool(const char *name);

/* Fills *b for backend `name`: host or device, the pinned space, and
 * whether MPI takes its device pointers (the override, else MPI's answer
 * when `can_query`, else "asked at kk_mpi_comm_create"). */
void kk_mpi__decide(mpi_backend_t *b, const char *name, int aware_override, int can_query);

/* The backend entry of `name`, or NULL when it is not active. */
const mpi_backend_t *kk_mpi__backend(const kk_mpi_comm_t *c, const char *name);

/* The instance an operation on `v` runs its work on (see kk/mpi.h). */
kk_status_t kk_mpi__instance(const kk_mpi_comm_t *c, const char *op, kk_view_t *v, kk_instance_t *given,
                             kk_instance_t **out);

/* The path of view `v` (whose work runs on `inst`). */
kk_mpi_path_t kk_mpi__path(const kk_mpi_comm_t *c, kk_view_t *v);

/* A free buffer of at least `bytes` in `space`, or an error naming `what`. */
kk_status_t kk_mpi__buf_get(kk_mpi_comm_t *c, kk_space_t *space, size_t bytes, kk_mpi_what_t *what, mpi_buf_t **out);
/* Returns a buffer; `pending` (may be NULL) is an instance whose queued work
 * still uses it: the buffer is not handed out again before the comm object
 * has fenced that instance itself (kk_mpi__fence) or everything.  The
 * pointer is only compared, never used: the program may destroy the
 * instance meanwhile. */
void kk_mpi__buf_put(mpi_buf_t *b, kk_instance_t *pending);

/* Fences `inst` and frees the buffers pending on it; errors name `what`. */
kk_status_t kk_mpi__fence(kk_mpi_comm_t *c, kk_instance_t *inst, kk_mpi_what_t *what);
/* Frees the buffers pending on `inst`, whose queued work the caller knows
 * to be complete (kk_mpi__fence does this after its fence). */
void kk_mpi__bufs_done(kk_mpi_comm_t *c, kk_instance_t *inst);

/* Prints one KK_MPI_DEBUG line ("kk[mpi]: rank R: ..."). */
void kk_mpi__debug(const kk_mpi_comm_t *c, const char *fmt, ...) KK_MPI__PRINTF(2, 3);

/* ---- pack.c ---------------------------------------------------------------- */

/* The plan of view `v`; KK_ERROR_LIMIT when it cannot be walked. */
kk_status_t kk_mpi__plan(kk_mpi_what_t *what, kk_view_t *v, mpi_plan_t *p);

/* The MPI datatype and count of `count` elements of `v`'s type; errors
 * name `what`. */
kk_status_t kk_mpi__datatype(kk_mpi_what_t *what, kk_type_t type, size_t elem_size, int64_t count, MPI_Datatype *dt,
                             int *mcount);

/* Refuses two views whose elements would pair up differently: the same
 * rank and extents but a different memory order. */
kk_status_t kk_mpi__same_order(const char *op, kk_view_t *a, const mpi_plan_t *pa, kk_view_t *b,
                               const mpi_plan_t *pb);

/* Copies the words of the plan between `view_data` and the contiguous
 * `buf` with a kk kernel on `inst` (unpack: buffer to view). */
kk_status_t kk_mpi__pack(kk_mpi_comm_t *c, kk_instance_t *inst, const mpi_plan_t *p, void *view_data, void *buf,
                         int unpack);

/* A pack or unpack put off so that several go in one launch: the plan's
 * words between `data` (the view) and `buf` on `inst`; on the staged path
 * `dbuf` is the device buffer packed into (then copied to `mbuf`) or
 * unpacked from (after the copy from `mbuf`). */
typedef struct mpi_job {
  kk_instance_t *inst;
  int pack;                 /* 0: nothing to pack or unpack */
  mpi_plan_t plan;
  void *data, *buf;
  mpi_buf_t *dbuf, *mbuf;
  kk_space_t *vs;
} mpi_job_t;

/* The threads of `inst` when its kernels run on the host (an instance of a
 * host backend), else 0. */
int kk_mpi__host_threads(const kk_mpi_comm_t *c, kk_instance_t *inst);

/* Packs (or unpacks) the n <= KK_MPI_BATCH_MAX jobs: those of one instance
 * and word size together in one launch, kk_mpi_packb/unpackb (a range over
 * every word) on a device backend, kk_mpi_packp/unpackp (a range over parts
 * of the views, a row loop each) on a host backend; on a device backend one
 * alone, and anywhere a plan of rank above 3, through kk_mpi__pack. */
kk_status_t kk_mpi__pack_jobs(kk_mpi_comm_t *c, int n, mpi_job_t *jobs, int unpack);

/* The memory MPI sends `v` from: the view itself, or a buffer the view was
 * packed and/or staged into on `inst` (not yet fenced). *mbuf gets the
 * buffer (NULL for the view itself).  With `job` non-NULL the pack (and the
 * staging copy after it) is left in *job for kk_mpi__stage_out_done; `p`
 * is copied. */
kk_status_t kk_mpi__stage_out(kk_mpi_comm_t *c, kk_mpi_what_t *what, kk_instance_t *inst, kk_view_t *v,
                              const mpi_plan_t *p, kk_mpi_path_t path, void **ptr, mpi_buf_t **mbuf,
                              mpi_job_t *job);

/* Submits the n jobs kk_mpi__stage_out left: the packs batched, then the
 * staging copies; the device buffers go back in every case (the request
 * buffers stay with their requests). */
kk_status_t kk_mpi__stage_out_done(kk_mpi_comm_t *c, kk_mpi_what_t *what, int n, mpi_job_t *jobs);

/* Returns the device buffers of jobs that will not be submitted. */
void kk_mpi__jobs_drop(int n, mpi_job_t *jobs);

/* The memory MPI receives `v` into: the view itself or a buffer. */
kk_status_t kk_mpi__stage_in(kk_mpi_comm_t *c, kk_mpi_what_t *what, kk_instance_t *inst, kk_view_t *v,
                             const mpi_plan_t *p, kk_mpi_path_t path, void **ptr, mpi_buf_t **mbuf);

/* After MPI wrote `mbuf`: submits to `inst` the copy and unpack that put it
 * into `v`, and returns the buffers with `inst` pending.  A NULL mbuf (MPI
 * wrote the view) does nothing.  With `job` non-NULL the unpack is left in
 * *job (which then owns the buffers) for kk_mpi__finish_in_done. */
kk_status_t kk_mpi__finish_in(kk_mpi_comm_t *c, kk_mpi_what_t *what, kk_instance_t *inst, kk_view_t *v,
                              const mpi_plan_t *p, kk_mpi_path_t path, mpi_buf_t *mbuf, mpi_job_t *job);

/* Submits the n unpacks kk_mpi__finish_in left, batched, and returns their
 * buffers with their instances pending. */
kk_status_t kk_mpi__finish_in_done(kk_mpi_comm_t *c, int n, mpi_job_t *jobs);

/* Counts a message in the stats. */
void kk_mpi__count(kk_mpi_comm_t *c, kk_mpi_path_t path, size_t bytes);

#endif /* KK_MPI_INTERNAL_H */
