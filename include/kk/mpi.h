/* kk/mpi.h -- libkk-mpi: kk views over MPI (point-to-point, collectives, device memory), docs/mpi.md. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_MPI_H
#define KK_MPI_H

/*
 * libkk-mpi moves kk views between the processes of an MPI program.  It sits
 * on libkk's public API only (libkk never links MPI) and is linked with
 * `pkg-config --cflags --libs kk-mpi` (CMake: kk::mpi, from
 * find_package(kk COMPONENTS mpi)).  docs/mpi.md is the guide; each
 * declaration below is the reference.
 *
 * The program initializes MPI (MPI_Init or MPI_Init_thread) and kk
 * (kk_initialize), then creates a kk_mpi_comm_t for each communicator it
 * sends views over.  Every function here requires both to be initialized.
 *
 * Views.  Any view kk can make may be sent: contiguous ones (span ==
 * size) go to MPI as they are; strided ones (a face of a 3-D view, a column
 * of a LayoutRight matrix, any LayoutStride view) are packed into a reused
 * contiguous buffer, and unpacked from one, by kk kernels on the view's own
 * backend -- never element by element from the host.
 *
 * Element order on the wire.  A view's elements travel in the order of its
 * memory: dimensions sorted from the largest stride to the smallest (for a
 * LayoutRight view the last index varies fastest, for a LayoutLeft view the
 * first).  Sender and receiver agree when their views have the same extents
 * and the same layout family (all views of one backend do), or when either
 * is rank 1.  Elements travel as their MPI type (MPI_INT32_T, MPI_DOUBLE,
 * MPI_C_DOUBLE_COMPLEX ...; MPI_BYTE for KK_TYPE_CUSTOM), so a plain MPI
 * program on kk_mpi_comm_mpi() receives them too.
 *
 * Device memory.  A view the host cannot access (the Cuda, HIP, OpenCL,
 * SYCLDeviceUSM spaces) goes to MPI directly when the MPI library is
 * GPU-aware for that backend (asked at run time: MPIX_Query_cuda_support()
 * and its relatives, MPIX_GPU_query_support(); KK_MPI_GPU_AWARE=0|1
 * overrides), else it is staged through the backend's pinned host memory
 * (CudaHostPinned, HIPHostPinned, OpenCLShared, SYCLHostUSM), the copies
 * asynchronous on the operation's instance.  kk_mpi_view_path() tells which
 * path a view takes; KK_MPI_DEBUG=1 prints every operation with its path on
 * stderr; kk_mpi_print_configuration() (and `kk-info`) print the decision.
 *
 * Instances.  Each operation runs its pack, unpack and copy work on an
 * instance: the one given, or with NULL the default instance of the view's
 * backend (kk_instance_default() for the default backend's spaces,
 * kk_instance_host() for the host space).  It must be an instance of the
 * backend that owns the view's space, or of a host backend when the view is
 * host-accessible.  Sends are ordered after the work already submitted to
 * that instance; work on other instances must be fenced by the program.
 *
 * Errors.  Every function returns a kk_status_t and sets kk_last_error()
 * (kk_set_error).  A failure inside MPI is KK_ERROR_COMM with MPI's error
 * string and class in the message: kk_mpi_comm_create sets
 * MPI_ERRORS_RETURN on its duplicate of the communicator, so MPI reports
 * instead of aborting; where MPI raises errors completing a request on
 * MPI_COMM_WORLD's or MPI_COMM_SELF's handler instead (MPICH 4.0), kk sets
 * MPI_ERRORS_RETURN there for the length of each of its MPI_Wait, MPI_Test
 * and MPI_Waitsome calls and puts the program's handler back after.
 * Mismatched element types, sizes or operations are refused with
 * KK_ERROR_INVALID_ARGUMENT before anything is sent.  Nothing here aborts,
 * exits or prints unless KK_MPI_DEBUG asks.
 *
 * The collective check.  Before any data moves, every collective compares
 * what the ranks passed (the collective, element type and size, count,
 * reduction, root, and whether each rank accepted its own arguments) with
 * one small MPI_Allreduce: ranks that disagree, or a rank that refused its
 * part, make every rank return the same error instead of some ranks
 * hanging in MPI or returning partial data.  KK_MPI_CHECK=0 on every rank
 * turns it off (production runs; then the arguments must agree, as with
 * MPI itself); docs/mpi.md has its cost.
 *
 * After kk_finalize (or MPI_Finalize).  A comm object or request that
 * outlives either stays safe to call: every function returns
 * KK_ERROR_NOT_INITIALIZED (the accessors answer as for NULL), touches
 * nothing kk freed and calls MPI only while MPI runs.  kk_mpi_wait,
 * _waitall and _test release a request that outlived kk_finalize without
 * completing it (a receive is cancelled); kk_mpi_comm_destroy then frees
 * the comm object itself.  A comm object made before kk_finalize must not
 * be used after a later kk_initialize: kk's public API gives no way to tell
 * the two initializations apart.
 *
 * Thread safety.  A kk_mpi_comm_t and its requests belong to one thread at a
 * time (as an MPI_Request does); distinct comm objects may be used by
 * distinct threads when MPI was initialized with MPI_THREAD_MULTIPLE.
 */

#include <mpi.h>
#include <stdio.h>

#include <kk.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of libkk-mpi the program runs with ("0.1.0"). */
const char *kk_mpi_version(void);

/* ===========================================================================
 * Communicators
 * ======================================================================== */
/* kk's view of an MPI communicator, with its buffers and statistics (opaque). */
typedef struct kk_mpi_comm kk_mpi_comm_t;

/* Creates a kk communicator over `comm`: a duplicate of it (MPI_Comm_dup,
 * so kk's messages never match the program's own on `comm`) with
 * MPI_ERRORS_RETURN, the reused pack and staging buffers, and the
 * GPU-awareness decision for the default backend, and where NCCL serves
 * the device views, the NCCL communicator (see kk_mpi_nccl).  Collective
 * over `comm`.  Reads KK_MPI_GPU_AWARE (0 or 1), KK_MPI_DEBUG (0 or 1),
 * KK_MPI_CHECK (0 or 1; the collective check is on unless it is 0 on every
 * rank) and KK_MPI_NCCL (0 or 1; unset: automatic), KK_NCCL_LIBRARY and
 * KK_MPI_NCCL_TIMEOUT (seconds; a value that is not a number of seconds is
 * taken as the default, 600), and KK_MPI_NCCL_P2P_CHANNELS (1 to 64: set
 * as NCCL_MAX_P2P_NCHANNELS before the NCCL communicator is made, unless
 * that is set; NCCL reads it once per process, at its first communicator;
 * another value is ignored) and KK_MPI_NCCL_CUMEM (0 or 1, default 0: set as
 * NCCL_CUMEM_ENABLE before NCCL is first used, unless that is set; with 0
 * NCCL's buffers are cudaMalloc memory, which cut the host's time in each
 * halo exchange several-fold on two H200s, docs/mpi.md); a value other than 0 or 1 on any rank, or
 * KK_MPI_NCCL 1 on some ranks and 0 on others, makes every rank return
 * KK_ERROR_CONFIG; KK_MPI_NCCL=1 where a rank cannot use NCCL makes every
 * rank return KK_ERROR_UNSUPPORTED.  Errors: KK_ERROR_NOT_INITIALIZED when MPI or kk is not
 * initialized, KK_ERROR_COMM when MPI fails, KK_ERROR_OUT_OF_MEMORY. */
kk_status_t kk_mpi_comm_create(MPI_Comm comm, kk_mpi_comm_t **out);

/* Waits for nothing: every request of `c` must have completed (else
 * KK_ERROR_IN_USE and nothing is freed).  Fences the instances that still
 * use its buffers, frees them and MPI_Comm_free's the duplicate.  Collective
 * over the communicator.  Belongs before kk_finalize; after it (or after
 * MPI_Finalize) it frees only the comm object itself and the duplicate
 * while MPI still runs, and returns KK_OK (its requests must have been
 * released by kk_mpi_wait and friends first).  NULL is ignored. */
kk_status_t kk_mpi_comm_destroy(kk_mpi_comm_t *c);

/* The duplicated communicator kk sends on (for plain MPI calls that should
 * match kk's messages), its rank and size.  For NULL, and for a comm object
 * that outlived kk_finalize or MPI_Finalize: MPI_COMM_NULL, -1 and 0. */
MPI_Comm kk_mpi_comm_mpi(const kk_mpi_comm_t *c);
int kk_mpi_comm_rank(const kk_mpi_comm_t *c);
int kk_mpi_comm_size(const kk_mpi_comm_t *c);

/* ===========================================================================
 * Paths: how a view's data reaches MPI
 * ======================================================================== */
/* How a view's data reaches MPI. */
typedef enum kk_mpi_path {
  KK_MPI_PATH_HOST = 0,         /* host-accessible memory: MPI reads and writes it directly */
  KK_MPI_PATH_GPU_AWARE = 1,    /* device memory handed to a GPU-aware MPI */
  KK_MPI_PATH_STAGED = 2,       /* device memory staged through pinned host buffers */
  KK_MPI_PATH_NCCL = 3,         /* device memory moved by NCCL on the instance's stream */
  KK__MPI_PATH_PIN = 0x7fffffff
} kk_mpi_path_t;

/* "host", "gpu-aware", "staged", "nccl". */
const char *kk_mpi_path_name(kk_mpi_path_t path);

/* The path operations on `view` take, and in *packed whether they pack it
 * (1 for a strided view, 0 for a contiguous one); packed may be NULL.
 * KK_MPI_PATH_NCCL for a device view where kk_mpi_nccl() says NCCL
 * serves c (a collective whose reduction NCCL lacks still takes the MPI
 * path). */
kk_status_t kk_mpi_view_path(const kk_mpi_comm_t *c, kk_view_t *view, kk_mpi_path_t *path, int *packed);

/* Whether MPI takes device pointers of `backend` (NULL: the default
 * backend) on this communicator: 1 or 0, and in *how (may be NULL) a static
 * string saying why ("MPIX_Query_cuda_support() = 0", "KK_MPI_GPU_AWARE=1",
 * "host backend" ...; 0 and "kk is not initialized" after kk_finalize). */
int kk_mpi_gpu_aware(const kk_mpi_comm_t *c, const char *backend, const char **how);

/* The device-direct path (docs/mpi.md, "Device-direct: NCCL").  Where the
 * default backend is cuda, NCCL is found at run time (KK_NCCL_LIBRARY, else
 * libnccl.so.2 on the loader's path, else the nvidia-nccl Python package's
 * nvidia/nccl/lib) and every rank of a node has a device of its own,
 * kk_mpi_comm_create also makes an NCCL communicator (its unique id
 * broadcast over the MPI one), and device views of the cuda backend travel
 * by NCCL on their instance's stream, packed and unpacked by kk kernels on
 * the same stream (path KK_MPI_PATH_NCCL):
 *  - the collectives (kk_mpi_allreduce, _broadcast, _allgather; a
 *    one-element view is the device scalar) as NCCL collectives, waited
 *    for once at the end;
 *  - sends and receives as ncclSend / ncclRecv: kk_mpi_isend / _irecv and
 *    their batch forms queue them, and the first completion call
 *    (kk_mpi_wait, _waitall, _test) hands every queued one of the comm
 *    object to NCCL as one group; completion then means "ordered on the
 *    instance" (work submitted to it afterwards sees the data, the host
 *    fences the instance first), with no host synchronisation.  NCCL has
 *    no tags: messages between two ranks pair up by tag within a group
 *    (then in posting order) and in posting order across groups, sizes
 *    must match exactly, MPI_ANY_SOURCE is refused
 *    (KK_ERROR_UNSUPPORTED), and a send completes only once its receive is
 *    posted (as MPI_Ssend).  The blocking forms wait for the stream.
 * What NCCL lacks (reductions of 16-bit integers, logical and bitwise
 * reductions, the product of complex values, custom types; host views;
 * scalars in host memory) stays with MPI.  KK_MPI_NCCL=1 forces the path (every rank fails kk_mpi_comm_create with
 * KK_ERROR_UNSUPPORTED, naming why, when a rank cannot take it), 0 turns
 * it off, unset chooses it when it can.  An NCCL failure is KK_ERROR_COMM
 * with ncclGetErrorString's text (and ncclGetLastError's); a collective
 * that has not completed after KK_MPI_NCCL_TIMEOUT seconds (default 600, 0
 * waits for ever), or whose communicator reports an asynchronous error
 * (ncclCommGetAsyncError), aborts the NCCL communicator (ncclCommAbort), so
 * that the other ranks' operations fail instead of waiting for a dead
 * rank, and returns KK_ERROR_COMM; later device collectives on `c` then
 * fail at once.  Where the default backend is hip, the same holds for
 * RCCL (AMD's NCCL, with NCCL's functions) and the hip backend's views:
 * KK_NCCL_LIBRARY, else librccl.so.1 on the loader's path, else
 * /opt/rocm/lib/librccl.so.1; which of the two a process opens is decided
 * at its first use, from the default backend then, for the whole process.
 * Returns 1 when c's device collectives go through NCCL (RCCL), else 0;
 * *how (may be NULL) is a string owned by `c` saying what serves ("NCCL
 * 2.18.5 (libnccl.so.2), device 1", "RCCL 2.x.y (librccl.so.1), device 0")
 * or why not. */
int kk_mpi_nccl(const kk_mpi_comm_t *c, const char **how);

/* What the comm object has done so far: one counter per kind of work,
 * for tests and tuning.  The struct may grow; set struct_size. */
typedef struct kk_mpi_stats {
  size_t struct_size;         /* sizeof(kk_mpi_stats_t), set by the caller */
  uint64_t messages[3];       /* messages sent or received, per kk_mpi_path_t */
  uint64_t bytes[3];          /* their payload bytes, per kk_mpi_path_t */
  uint64_t pack_launches;     /* pack kernels launched (strided sends, collectives) */
  uint64_t unpack_launches;   /* unpack kernels launched (strided receives, collectives) */
  uint64_t staging_copies;    /* device <-> pinned host copies */
  uint64_t buffer_allocs;     /* buffers allocated (the rest were reused) */
  uint64_t buffer_bytes;      /* bytes the comm object holds in buffers now */
  uint64_t checks;            /* collective checks run (one per collective unless KK_MPI_CHECK=0) */
  uint64_t nccl_ops;          /* collectives, sends and receives NCCL ran (KK_MPI_PATH_NCCL) */
  uint64_t nccl_bytes;        /* their payload bytes */
} kk_mpi_stats_t;

/* Copies the communicator's counters into *stats (set stats->struct_size first). */
kk_status_t kk_mpi_comm_get_stats(const kk_mpi_comm_t *c, kk_mpi_stats_t *stats);

/* The instance for c's exchanges: made at the first call on the default
 * backend and kept by c until kk_mpi_comm_destroy (never destroy it
 * yourself).  Post sends and receives on it to run an exchange beside
 * compute queued on other instances, as a halo travels while the interior
 * of a stencil is computed; order work on another instance that reads what
 * arrived after it with kk_instance_wait(other, instance) (on cuda the host
 * does not wait), and the exchange after work elsewhere that wrote what it
 * sends with kk_instance_wait(instance, other).  On cuda its stream
 * has the device's highest priority: as a long kernel's blocks finish, the
 * device schedules the exchange's packing, NCCL's transfer kernels and the
 * unpacking first, instead of after the long kernel's remaining blocks.
 * Elsewhere it is an instance as kk_instance_create(NULL) makes one.  *how
 * (may be NULL) is a string owned by c saying which ("cuda stream of
 * priority -5 (the device's highest)", or why a plain one).  Not
 * thread-safe, like the rest of a communicator's calls. */
kk_status_t kk_mpi_comm_instance(kk_mpi_comm_t *c, kk_instance_t **out, const char **how);

/* Prints what libkk-mpi found: its version, the MPI library
 * (MPI_Get_library_version), the MPI standard version, the thread level,
 * and for the default backend whether MPI is GPU-aware for it, why, and the
 * path a view of each of its spaces takes.  With `c` NULL (before any
 * communicator exists, as in kk-info) it says what it can without one: MPI
 * need not be initialized then, and the run-time GPU query is reported as
 * "asked at kk_mpi_comm_create".  kk must be initialized. */
kk_status_t kk_mpi_print_configuration(const kk_mpi_comm_t *c, FILE *out);

/* The same as one JSON object (the "mpi" member of `kk-info --json`). */
kk_status_t kk_mpi_print_configuration_json(const kk_mpi_comm_t *c, FILE *out);

/* The report of every rank, for `kk-info --mpi` and tools like it:
 * initializes MPI when it is not (MPI_Init_thread, MPI_THREAD_FUNNELED),
 * creates a communicator over MPI_COMM_WORLD, and rank 0 prints each rank's
 * host, local rank, backend and device, and kk_mpi_print_configuration()
 * (json: a JSON array of one object per rank), in rank order; then frees
 * the communicator and finalizes MPI if it initialized it.  Collective over
 * MPI_COMM_WORLD.  kk must be initialized. */
kk_status_t kk_mpi_print_ranks(FILE *out, int json);

/* ===========================================================================
 * Point-to-point
 *
 * The blocking forms return when the operation is complete (a receive's
 * data is in the view, visible to the host and every instance).  The
 * non-blocking forms return a request that kk_mpi_wait / _waitall /
 * _test complete; until then the view must not be changed (send) or read
 * (receive).  tag and the peer rank are MPI's (MPI_ANY_SOURCE and
 * MPI_ANY_TAG are accepted by receives, MPI_PROC_NULL by both: a no-op).
 * ======================================================================== */
/* A nonblocking send or receive in flight (opaque; freed by its wait or test). */
typedef struct kk_mpi_request kk_mpi_request_t;

/* Sends every element of `view` to rank `dest`. */
kk_status_t kk_mpi_send(kk_mpi_comm_t *c, kk_view_t *view, int dest, int tag);

/* Receives into every element of `view` from rank `source`.  The message
 * must hold exactly kk_view_size(view) elements: a longer one is
 * KK_ERROR_COMM (MPI_ERR_TRUNCATE), a shorter one KK_ERROR_INVALID_ARGUMENT,
 * both naming the two counts.  `status` (may be NULL, or MPI_STATUS_IGNORE)
 * receives MPI's status of the message. */
kk_status_t kk_mpi_recv(kk_mpi_comm_t *c, kk_view_t *view, int source, int tag, MPI_Status *status);

/* Sends `send` to `dest` and receives `recv` from `source` at once, as
 * MPI_Sendrecv: the halo-exchange step.  The two views must have the same
 * element type and must not overlap in memory. */
kk_status_t kk_mpi_sendrecv(kk_mpi_comm_t *c, kk_view_t *send, int dest, int send_tag, kk_view_t *recv, int source,
                            int recv_tag, MPI_Status *status);

/* Starts a send of `view` to `dest`, ordered after the work submitted to
 * `instance` so far (NULL: the view's default instance, see above): the
 * view is packed (strided) and copied to pinned host memory (staged path)
 * on the instance, which is then fenced, and the message is posted.
 * *req receives the request. */
kk_status_t kk_mpi_isend(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *view, int dest, int tag,
                         kk_mpi_request_t **req);

/* Starts a receive into `view` from `source`.  When MPI writes into the
 * view itself (a contiguous view on the host or GPU-aware path), the
 * instance is fenced first, so that work already submitted to it has
 * finished reading the view.  Completion (kk_mpi_wait and friends) puts the
 * data into the view for the instance: the unpack kernel and the copy from
 * pinned memory are submitted to it without waiting, so work submitted to
 * the instance afterwards sees the data; fence the instance before the host
 * reads the view. */
kk_status_t kk_mpi_irecv(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *view, int source, int tag,
                         kk_mpi_request_t **req);

/* Starts n sends at once, as n kk_mpi_isend calls would, but with one fence
 * of each instance instead of one per message: every view is packed and
 * staged on the instance first, then the instance is fenced, then the n
 * messages are posted -- the six faces of a halo with one wait for the
 * device.  views[i] goes to dests[i] with tags[i]; reqs[i] (an array of n)
 * receives its request.  On an error before any message is posted every
 * reqs[i] is NULL; if MPI refuses the i-th message, reqs[0 .. i-1] are on
 * their way (complete them) and the rest are NULL. */
kk_status_t kk_mpi_isend_batch(kk_mpi_comm_t *c, kk_instance_t *instance, int n, kk_view_t *const *views,
                               const int *dests, const int *tags, kk_mpi_request_t **reqs);

/* Starts n receives at once (one fence of each instance that must finish
 * before MPI writes views directly), as kk_mpi_isend_batch. */
kk_status_t kk_mpi_irecv_batch(kk_mpi_comm_t *c, kk_instance_t *instance, int n, kk_view_t *const *views,
                               const int *sources, const int *tags, kk_mpi_request_t **reqs);

/* Completes *req and sets it to NULL (a NULL *req is a no-op, as
 * MPI_REQUEST_NULL).  `status` as in kk_mpi_recv; a receive from
 * MPI_PROC_NULL gets source MPI_PROC_NULL, tag MPI_ANY_TAG and count 0 on
 * every MPI.  On an error the request is still released.  After kk_finalize
 * (or MPI_Finalize): KK_ERROR_NOT_INITIALIZED, and the request is released
 * without completing (a receive is cancelled, a send let go). */
kk_status_t kk_mpi_wait(kk_mpi_request_t **req, MPI_Status *status);

/* Completes n requests (NULL entries are skipped) and sets each to NULL.
 * Receives are finished in the order their messages arrive, so the unpack
 * of one overlaps the arrival of the others.  `statuses` may be NULL or an
 * array of n.  Every request is released even when one fails; the first
 * error is returned.  After kk_finalize as kk_mpi_wait. */
kk_status_t kk_mpi_waitall(int n, kk_mpi_request_t **reqs, MPI_Status *statuses);

/* Completes *req if it can without waiting: *done = 1 and *req = NULL, else
 * *done = 0.  After kk_finalize as kk_mpi_wait (*done = 1). */
kk_status_t kk_mpi_test(kk_mpi_request_t **req, int *done, MPI_Status *status);

/* ===========================================================================
 * Collectives (blocking, collective over the communicator)
 *
 * Operations: KK_SUM, KK_PROD, KK_MIN, KK_MAX on every arithmetic type
 * (complex: sum and product only), KK_LAND, KK_LOR, KK_BAND, KK_BOR on the
 * integer types.  Views may be strided and in any space, like the
 * point-to-point forms; `instance` as there.  On return the result is in
 * the view, visible to the host and every instance.
 *
 * Every rank must call the same collective with the same element type,
 * count (for allgather: per rank), reduction and root; a view form and the
 * scalar form of one collective meet when those agree (one double).  With
 * the collective check (on by default, see the top of this file) ranks that
 * disagree all get KK_ERROR_INVALID_ARGUMENT naming the first difference,
 * two ranks and their values ("the ranks disagree on the element count:
 * rank 0 passes 10 elements, rank 3 passes 11 elements"), and when a rank
 * refuses its own arguments (a NULL view, an instance that cannot reach
 * the view, a reduction the type lacks, a staging buffer it cannot get) it
 * returns its own error and every other rank that same status, naming the
 * rank ("rank 3 refused its part of the collective"); nothing is sent in
 * either case.  A NULL communicator, and a comm object that outlived
 * kk_finalize or MPI_Finalize, return at once on the rank that passed it.
 * ======================================================================== */

/* Elementwise reduction of every rank's `send` into every rank's `recv`.
 * send and recv: same element type and size (send == recv, or send NULL,
 * reduces in place).  Two views of the same rank and extents must also
 * order their elements alike (not a LayoutRight and a LayoutLeft view). */
kk_status_t kk_mpi_allreduce(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *send, kk_view_t *recv,
                             kk_reducer_op_t op);

/* The scalar form: *out = op over the ranks of *in (one value of `type`;
 * in and out may be the same). */
kk_status_t kk_mpi_allreduce_value(kk_mpi_comm_t *c, kk_type_t type, kk_reducer_op_t op, const void *in, void *out);

/* Every rank's `view` becomes root's. */
kk_status_t kk_mpi_broadcast(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *view, int root);

/* The scalar form: *value (one value of `type`) becomes root's. */
kk_status_t kk_mpi_broadcast_value(kk_mpi_comm_t *c, kk_type_t type, void *value, int root);

/* Gathers every rank's `send` into every rank's `recv`, rank r's elements
 * being elements [r n, (r + 1) n) of recv in its wire order (n =
 * kk_view_size(send); a row of a LayoutRight (size, n) view, a column of a
 * LayoutLeft (n, size) view).  recv must hold size * n elements of send's
 * type. */
kk_status_t kk_mpi_allgather(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *send, kk_view_t *recv);

/* The scalar form: out[r] = rank r's *in (out holds kk_mpi_comm_size
 * values of `type`, in host memory). */
kk_status_t kk_mpi_allgather_value(kk_mpi_comm_t *c, kk_type_t type, const void *in, void *out);

#ifdef __cplusplus
}
#endif

#endif /* KK_MPI_H */
