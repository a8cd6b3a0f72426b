/* mpi/nccl.c -- NCCL (or RCCL on hip) opened at run time, and the device-direct collectives of kk-mpi on it (docs/mpi.md). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <dlfcn.h>
#include <glob.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "nccl.h"

/*
 * Nothing is linked: libnccl.so.2 is opened with dlopen at the first
 * kk_mpi_comm_create (or kk-info --mpi), as kk-kernels opens cuBLAS, and
 * its functions are looked up by name.  The few types and functions kk
 * needs are declared here, written against NCCL 2.18's public header
 * (NVIDIA/nccl, src/nccl.h.in, v2.18.x); every one of them exists since
 * NCCL 2.7 (ncclSend/ncclRecv), so any NCCL 2.7 or later serves.  libnccl
 * carries its own CUDA runtime and opens libcuda itself; kk opens libcuda
 * too, for the context NCCL must see current (the primary context the cuda
 * plugin uses) and for polling the stream under a time limit.
 *
 * Where the default backend is hip the same code drives RCCL (librccl.so.1),
 * AMD's port of NCCL, which exports NCCL's functions under NCCL's names with
 * the same types, enum values and 128-byte unique id (ROCm/rccl,
 * src/rccl.h.in); the HIP runtime (libamdhip64, as the hip plugin opens it)
 * takes libcuda's part.  The few calls in which the two differ go through
 * the vendor functions below (make_current); the rest does not know which
 * library it drives.
 */

/* ---- NCCL's ABI (nccl.h.in, 2.18) ------------------------------------------------- */
typedef struct ncclComm *ncclComm_t;
#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
  char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;
typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7
} ncclResult_t;
typedef enum {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8
} ncclDataType_t;
typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3 } ncclRedOp_t;
typedef void *cudaStream_t;

static struct nccl_fns {
  ncclResult_t (*get_version)(int *);
  ncclResult_t (*get_unique_id)(ncclUniqueId *);
  ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*comm_destroy)(ncclComm_t);
  ncclResult_t (*comm_abort)(ncclComm_t);
  ncclResult_t (*comm_get_async_error)(ncclComm_t, ncclResult_t *);
  const char *(*get_error_string)(ncclResult_t);
  ncclResult_t (*group_start)(void);
  ncclResult_t (*group_end)(void);
  ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*all_reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*broadcast)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*all_gather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
  /* optional (2.13): the last error's text, more than the result's name */
  const char *(*get_last_error)(ncclComm_t);
} N;

/* The device runtime beside the library: libcuda for NCCL, the HIP runtime
 * for RCCL (RT[0], RT[1]), each opened once, when first needed. */
typedef struct vendor_rt {
  int (*ctx_set_current)(void *); /* cuda: cuCtxSetCurrent */
  int (*set_device)(int);         /* hip: hipSetDevice (KK_NATIVE_HIP's context is NULL) */
  int (*stream_query)(void *);    /* 0 done, 600 not ready on both (CUDA_ERROR_NOT_READY, hipErrorNotReady) */
  /* optional: the exchange instance's stream (kk_mpi_comm_instance) */
  int (*prio_range)(int *, int *);
  int (*stream_create_prio)(void **, unsigned, int); /* flag 0x1: CU_STREAM_NON_BLOCKING, hipStreamNonBlocking */
  int (*stream_destroy)(void *);
  int found;
  char why[300];
} vendor_rt_t;
static vendor_rt_t RT[2];
static vendor_rt_t *V = &RT[0]; /* the runtime of the library opened (g_lib.hip) */

#define NCCL_SYMS(X)                                                                                               \
  X(get_version, "ncclGetVersion") X(get_unique_id, "ncclGetUniqueId") X(comm_init_rank, "ncclCommInitRank")      \
  X(comm_destroy, "ncclCommDestroy") X(comm_abort, "ncclCommAbort")                                                \
  X(comm_get_async_error, "ncclCommGetAsyncError") X(get_error_string, "ncclGetErrorString")                       \
  X(group_start, "ncclGroupStart") X(group_end, "ncclGroupEnd") X(send, "ncclSend") X(recv, "ncclRecv")            \
  X(all_reduce, "ncclAllReduce") X(broadcast, "ncclBroadcast") X(all_gather, "ncclAllGather")

static mpi_nccl_lib_t g_lib;
static pthread_once_t g_once = PTHREAD_ONCE_INIT, g_rt_once[2] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT};

/* Opens `file` and resolves every function: 0, or -1 with why. */
static int try_open(const char *file, char *why, size_t why_size) {
  dlerror();
  void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(why, why_size, "%s", e ? e : "dlopen failed");
    return -1;
  }
  const char *family = g_lib.name; /* NCCL or RCCL */
#define RESOLVE(field, name)                                                                                       \
  if (!(*(void **)&N.field = dlsym(h, name))) {                                                                    \
    snprintf(why, why_size, "%s has no %s (not %s 2.7 or later)", file, name, family);                            \
    memset(&N, 0, offsetof(struct nccl_fns, get_last_error));                                                        \
    dlclose(h);                                                                                                    \
    return -1;                                                                                                     \
  }
  NCCL_SYMS(RESOLVE)
#undef RESOLVE
  *(void **)&N.get_last_error = dlsym(h, "ncclGetLastError");
  return 0; /* stays open for the life of the process */
}

/* The nvidia-nccl Python package's library under the usual prefixes. */
static int try_python(char *path, size_t path_size, char *why, size_t why_size) {
  const char *env[] = {"VIRTUAL_ENV", "CONDA_PREFIX", "HOME"};
  char pat[1024];
  const char *prefixes[8];
  char bufs[3][512];
  int np = 0;
  for (int i = 0; i < 3; i++) {
    const char *v = getenv(env[i]);
    if (v && *v && strlen(v) < 400) {
      snprintf(bufs[i], sizeof bufs[i], "%s%s", v, i == 2 ? "/.local/lib" : "/lib");
      prefixes[np++] = bufs[i];
    }
  }
  prefixes[np++] = "/usr/local/lib";
  prefixes[np++] = "/usr/lib";
  prefixes[np++] = "/opt/conda/lib";
  for (int i = 0; i < np; i++) {
    snprintf(pat, sizeof pat, "%s/python3*/*-packages/nvidia/nccl/lib/libnccl.so.2", prefixes[i]);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0)
      continue;
    for (size_t k = 0; k < g.gl_pathc; k++)
      if (try_open(g.gl_pathv[k], why, why_size) == 0) {
        snprintf(path, path_size, "%s", g.gl_pathv[k]);
        globfree(&g);
        return 0;
      }
    globfree(&g);
    return -1; /* found one that failed: its reason stands */
  }
  snprintf(why, why_size, "no nvidia/nccl/lib/libnccl.so.2 under the Python prefixes");
  return -1;
}

static void open_cuda(void) {
  vendor_rt_t *R = &RT[0];
  dlerror();
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(R->why, sizeof R->why, "%s", e ? e : "libcuda.so.1: dlopen failed");
    return;
  }
  *(void **)&R->ctx_set_current = dlsym(h, "cuCtxSetCurrent");
  *(void **)&R->stream_query = dlsym(h, "cuStreamQuery");
  *(void **)&R->prio_range = dlsym(h, "cuCtxGetStreamPriorityRange");
  *(void **)&R->stream_create_prio = dlsym(h, "cuStreamCreateWithPriority");
  *(void **)&R->stream_destroy = dlsym(h, "cuStreamDestroy_v2");
  if (!R->ctx_set_current || !R->stream_query) {
    snprintf(R->why, sizeof R->why, "libcuda.so.1 lacks cuCtxSetCurrent or cuStreamQuery");
    return;
  }
  R->found = 1;
}

/* The HIP runtime the hip plugin runs on: the file KK_HIP_LIBRARY names,
 * else libamdhip64.so.5, else libamdhip64.so, as the plugin looks; the
 * loader hands back the plugin's copy when it is the same file. */
static void open_hip(void) {
  vendor_rt_t *R = &RT[1];
  const char *set = getenv("KK_HIP_LIBRARY");
  const char *names[] = {set && *set ? set : "libamdhip64.so.5", set && *set ? NULL : "libamdhip64.so", NULL};
  void *h = NULL;
  for (int i = 0; !h && names[i]; i++) {
    dlerror();
    if (!(h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL))) {
      const char *e = dlerror();
      snprintf(R->why, sizeof R->why, "%s", e ? e : "the HIP runtime: dlopen failed");
    }
  }
  if (!h)
    return;
  *(void **)&R->set_device = dlsym(h, "hipSetDevice");
  *(void **)&R->stream_query = dlsym(h, "hipStreamQuery");
  *(void **)&R->prio_range = dlsym(h, "hipDeviceGetStreamPriorityRange");
  *(void **)&R->stream_create_prio = dlsym(h, "hipStreamCreateWithPriority");
  *(void **)&R->stream_destroy = dlsym(h, "hipStreamDestroy");
  if (!R->set_device || !R->stream_query) {
    snprintf(R->why, sizeof R->why, "the HIP runtime lacks hipSetDevice or hipStreamQuery");
    return;
  }
  R->found = 1;
}

/* The runtime of one family (0 cuda, 1 hip), opened at the first question. */
static vendor_rt_t *vendor_rt(int hip) {
  pthread_once(&g_rt_once[hip], hip ? open_hip : open_cuda);
  return &RT[hip];
}

/* Makes the library's device current in this thread: the CUcontext on cuda,
 * the device on hip. */
static int make_current(const vendor_rt_t *R, void *ctx, int dev) {
  return R->set_device ? R->set_device(dev) : R->ctx_set_current(ctx);
}

static void load_once(void) {
  mpi_nccl_lib_t *L = &g_lib;
  /* the family follows the default backend of this first use */
  const char *b = kk_backend_default();
  L->hip = b && strcmp(b, "hip") == 0;
  L->name = L->hip ? "RCCL" : "NCCL";
  L->backend = L->hip ? "hip" : "cuda";
  snprintf(L->chosen_by, sizeof L->chosen_by, "%s", b ? b : "none (kk was not initialized)");
  const char *setting = getenv("KK_NCCL_LIBRARY");
  char why[460] = ""; /* two of them and the text around fit L->why (1024) */
  if (setting && *setting) {
    L->setting = "KK_NCCL_LIBRARY";
    if (try_open(setting, why, sizeof why) == 0) {
      snprintf(L->path, sizeof L->path, "%s", setting);
      L->found = 1;
    } else
      snprintf(L->why, sizeof L->why, "KK_NCCL_LIBRARY=%s: %s", setting, why);
  } else if (L->hip) {
    L->setting = "search";
    char why2[460] = "";
    if (try_open("librccl.so.1", why, sizeof why) == 0) {
      snprintf(L->path, sizeof L->path, "librccl.so.1");
      L->found = 1;
    } else if (try_open("/opt/rocm/lib/librccl.so.1", why2, sizeof why2) == 0) {
      snprintf(L->path, sizeof L->path, "/opt/rocm/lib/librccl.so.1");
      L->found = 1;
    } else
      snprintf(L->why, sizeof L->why, "no RCCL found (KK_NCCL_LIBRARY, the loader's path, /opt/rocm/lib): %s; %s",
               why, why2);
  } else {
    L->setting = "search";
    char why2[460] = "";
    if (try_open("libnccl.so.2", why, sizeof why) == 0) {
      snprintf(L->path, sizeof L->path, "libnccl.so.2");
      L->found = 1;
    } else if (try_python(L->path, sizeof L->path, why2, sizeof why2) == 0)
      L->found = 1;
    else
      snprintf(L->why, sizeof L->why, "no NCCL found (KK_NCCL_LIBRARY, the loader's path, the nvidia-nccl Python "
                                      "package): %s; %s", why, why2);
  }
  if (L->found && N.get_version(&L->version) != ncclSuccess)
    L->version = 0;
  if (L->found)
    V = vendor_rt(L->hip);
}

const mpi_nccl_lib_t *kk_mpi__nccl_lib(void) {
  pthread_once(&g_once, load_once);
  return &g_lib;
}

int kk_mpi__nccl_serves(const char *backend) {
  return backend && strcmp(backend, kk_mpi__nccl_lib()->backend) == 0;
}

void kk_mpi__nccl_version_text(int code, char *buf, size_t size) {
  /* NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z from 2.9, X*1000 + Y*100 + Z before */
  if (code >= 20900)
    snprintf(buf, size, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
  else
    snprintf(buf, size, "%d.%d.%d", code / 1000, code / 100 % 10, code % 100);
}

/* ---- errors ------------------------------------------------------------------------ */

/* KK_ERROR_COMM with NCCL's words: "<what>: ncclX failed: <string> (ncclResult_t N)[: <last error>]". */
static kk_status_t nccl_fail(kk_mpi_comm_t *c, ncclResult_t r, const char *fn, const char *what) {
  const char *s = N.get_error_string ? N.get_error_string(r) : NULL;
  const char *last = N.get_last_error ? N.get_last_error(c ? (ncclComm_t)c->nccl_comm : NULL) : NULL;
  return kk_set_error(r == ncclInvalidArgument || r == ncclInvalidUsage ? KK_ERROR_INVALID_ARGUMENT : KK_ERROR_COMM,
                      "%s: %s failed: %s (ncclResult_t %d)%s%s", what, fn, s ? s : "unknown NCCL error", (int)r,
                      last && *last ? ": " : "", last && *last ? last : "");
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the communicator ------------------------------------------------------------- */

/* This rank's answer to "can my device views go through NCCL (RCCL)?": 0,
 * or -1 with why; c->nccl_device and c->nccl_ctx the device and context of
 * the default instance (the context NULL on hip). */
static int local_ok(kk_mpi_comm_t *c, char *why, size_t why_size) {
  const char *b = kk_backend_default();
  if (strcmp(b, "cuda") != 0 && strcmp(b, "hip") != 0) {
    snprintf(why, why_size, "the default backend is %s; NCCL serves the cuda backend, RCCL the hip backend", b);
    return -1;
  }
  const mpi_nccl_lib_t *L = kk_mpi__nccl_lib();
  if (strcmp(b, L->backend) != 0) {
    snprintf(why, why_size, "the default backend is %s, but this process chose %s for the %s backend at its first "
             "use (default backend then: %s), and the library is opened once per process", b, L->name,
             L->backend, L->chosen_by);
    return -1;
  }
  if (!L->found) {
    snprintf(why, why_size, "%s", L->why);
    return -1;
  }
  if (!V->found) {
    snprintf(why, why_size, "%s found but not the %s: %s", L->name, L->hip ? "HIP runtime" : "CUDA driver", V->why);
    return -1;
  }
  kk_native_queue_t q;
  if (kk_instance_native_queue(kk_instance_default(), &q) != KK_OK ||
      q.kind != (L->hip ? KK_NATIVE_HIP : KK_NATIVE_CUDA)) {
    snprintf(why, why_size, "the %s instance has no native stream: %s", b, kk_last_error());
    return -1;
  }
  c->nccl_ctx = q.context;
  c->nccl_device = q.device;
  return 0;
}

/* Whether two ranks of one node share a device (NCCL needs one per rank):
 * 0, or -1 with why (the same on every rank of the node). */
static int own_device(kk_mpi_comm_t *c, int dev, char *why, size_t why_size) {
  MPI_Comm node;
  if (MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS) {
    snprintf(why, why_size, "MPI_Comm_split_type failed: cannot tell whether ranks share a device");
    return -1;
  }
  int n = 0, rc = 0;
  MPI_Comm_size(node, &n);
  int *devs = malloc((size_t)n * sizeof *devs);
  if (!devs || MPI_Allgather(&dev, 1, MPI_INT, devs, 1, MPI_INT, node) != MPI_SUCCESS) {
    snprintf(why, why_size, "cannot gather the devices of this node's ranks");
    rc = -1;
  }
  for (int i = 0; rc == 0 && i < n; i++)
    for (int j = i + 1; rc == 0 && j < n; j++)
      if (devs[i] >= 0 && devs[i] == devs[j]) {
        snprintf(why, why_size, "node ranks %d and %d share device %d (NCCL needs a device per rank)", i, j, devs[i]);
        rc = -1;
      }
  free(devs);
  MPI_Comm_free(&node);
  return rc;
}

kk_status_t kk_mpi__nccl_setup(kk_mpi_comm_t *c, int want) {
  c->nccl_on = 0;
  c->nccl_timeout = 600.0;
  const char *t = getenv("KK_MPI_NCCL_TIMEOUT");
  if (t && *t) {
    char *end;
    double v = strtod(t, &end);
    if (*end == '\0' && v >= 0)
      c->nccl_timeout = v;
  }
  char why[1024] = "";
  int ok = -1;
  if (want == 0)
    snprintf(why, sizeof why, "KK_MPI_NCCL=0");
  else if ((ok = local_ok(c, why, sizeof why)) == 0)
    ok = 0;
  /* every rank must take part in the device check, ready or not */
  /* want is the same on every rank: they all take part in the device check, or none does */
  int ok2 = want == 0 ? 0 : own_device(c, ok == 0 ? c->nccl_device : -1, why + strlen(why), sizeof why - strlen(why));
  if (ok == 0 && ok2 != 0)
    ok = -1;
  struct { int v, r; } mine = {ok == 0 ? 1 : 0, c->rank}, all;
  int err = MPI_Allreduce(&mine, &all, 1, MPI_2INT, MPI_MINLOC, c->comm);
  if (err != MPI_SUCCESS)
    return kk_mpi__fail(err, "MPI_Allreduce (agreeing on the NCCL path)", "kk_mpi_comm_create");
  if (!all.v) {
    if (ok != 0)
      snprintf(c->nccl_how, sizeof c->nccl_how, "%s", why);
    else
      snprintf(c->nccl_how, sizeof c->nccl_how, "rank %d cannot use NCCL (KK_MPI_DEBUG=1 there says why)", all.r);
    if (want == 1)
      return kk_set_error(KK_ERROR_UNSUPPORTED, "kk_mpi_comm_create: KK_MPI_NCCL=1 but %s%s",
                          ok != 0 ? "this rank cannot use NCCL: " : "", c->nccl_how);
    return KK_OK; /* the MPI path, and nccl_how says why */
  }
  /* NCCL reads its settings from the environment once, when the process
   * first uses it (rank 0's ncclGetUniqueId below): kk passes two of its own
   * on, each unless the program set NCCL's variable itself.
   * KK_MPI_NCCL_P2P_CHANNELS (1 to 64) becomes NCCL_MAX_P2P_NCHANNELS;
   * KK_MPI_NCCL_CUMEM (0 or 1, default 0) becomes NCCL_CUMEM_ENABLE: with
   * NCCL's buffers in cuMem allocations (NCCL's default) the host spent
   * 0.5-0.7 ms inside ncclGroupEnd for each halo exchange of cg-mpi on two
   * H200s, with them in cudaMalloc memory about 0.1 (docs/mpi.md). */
  const char *pc = getenv("KK_MPI_NCCL_P2P_CHANNELS");
  char *pend = NULL;
  const long pcn = pc && *pc ? strtol(pc, &pend, 10) : 0;
  const int p2p_set = pcn >= 1 && pcn <= 64 && pend && *pend == '\0' && !getenv("NCCL_MAX_P2P_NCHANNELS") &&
                      setenv("NCCL_MAX_P2P_NCHANNELS", pc, 0) == 0;
  const char *cm = getenv("KK_MPI_NCCL_CUMEM");
  cm = cm && (strcmp(cm, "0") == 0 || strcmp(cm, "1") == 0) ? cm : "0";
  const int cumem_set = !getenv("NCCL_CUMEM_ENABLE") && setenv("NCCL_CUMEM_ENABLE", cm, 0) == 0;
  /* rank 0 makes the unique id; its status travels with it */
  struct { int st; ncclUniqueId id; } msg;
  memset(&msg, 0, sizeof msg);
  if (c->rank == 0)
    msg.st = (int)N.get_unique_id(&msg.id);
  if ((err = MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, c->comm)) != MPI_SUCCESS)
    return kk_mpi__fail(err, "MPI_Bcast (NCCL's unique id)", "kk_mpi_comm_create");
  ncclResult_t r = (ncclResult_t)msg.st;
  const char *fn = "ncclGetUniqueId (on rank 0)";
  ncclComm_t nc = NULL;
  if (r == ncclSuccess) {
    fn = "ncclCommInitRank";
    make_current(V, c->nccl_ctx, c->nccl_device);
    r = N.comm_init_rank(&nc, c->size, msg.id, c->rank);
  }
  int good = r == ncclSuccess, all_good = 0;
  if ((err = MPI_Allreduce(&good, &all_good, 1, MPI_INT, MPI_MIN, c->comm)) != MPI_SUCCESS)
    all_good = 0;
  if (!all_good) {
    kk_status_t st = good ? kk_set_error(KK_ERROR_COMM, "kk_mpi_comm_create: another rank failed to join the NCCL "
                                                        "communicator (its kk_last_error() says why)")
                          : nccl_fail(NULL, r, fn, "kk_mpi_comm_create");
    if (nc)
      N.comm_destroy(nc);
    snprintf(c->nccl_how, sizeof c->nccl_how, "%s", kk_last_error());
    return want == 1 ? st : KK_OK;
  }
  c->nccl_comm = nc;
  c->nccl_on = 1;
  char v[32];
  kk_mpi__nccl_version_text(g_lib.version, v, sizeof v);
  const char *ce = getenv("NCCL_CUMEM_ENABLE");
  snprintf(c->nccl_how, sizeof c->nccl_how, "%s %s (%s), device %d%s%s%s, NCCL_CUMEM_ENABLE=%s%s", g_lib.name, v,
           g_lib.path, c->nccl_device, want == 1 ? ", KK_MPI_NCCL=1" : "", p2p_set ? ", NCCL_MAX_P2P_NCHANNELS=" : "",
           p2p_set ? pc : "", ce ? ce : "(unset)", cumem_set ? " (set by kk)" : "");
  return KK_OK;
}

kk_status_t kk_mpi__nccl_teardown(kk_mpi_comm_t *c) {
  if (!c->nccl_comm)
    return KK_OK;
  make_current(V, c->nccl_ctx, c->nccl_device);
  ncclResult_t r = N.comm_destroy((ncclComm_t)c->nccl_comm);
  c->nccl_comm = NULL;
  c->nccl_on = 0;
  return r == ncclSuccess ? KK_OK : nccl_fail(NULL, r, "ncclCommDestroy", "kk_mpi_comm_destroy");
}

/* ---- collectives --------------------------------------------------------------------- */

/* NCCL's type for kk's, for a reduction; -1 when it has none. */
static int nccl_type(kk_type_t type) {
  switch (type) {
  case KK_INT8: return ncclInt8;
  case KK_UINT8: return ncclUint8;
  case KK_INT32: return ncclInt32;
  case KK_UINT32: return ncclUint32;
  case KK_INT64: return ncclInt64;
  case KK_UINT64: return ncclUint64;
  case KK_FLOAT: case KK_COMPLEX_FLOAT: return ncclFloat32;
  case KK_DOUBLE: case KK_COMPLEX_DOUBLE: return ncclFloat64;
  default: return -1;
  }
}

static int nccl_op(int op) {
  switch (op) {
  case KK_SUM: return ncclSum;
  case KK_PROD: return ncclProd;
  case KK_MIN: return ncclMin;
  case KK_MAX: return ncclMax;
  default: return -1;
  }
}

int kk_mpi__nccl_can(kk_type_t type, int op) {
  if (op < 0)
    return 1; /* bytes */
  const int complex = type == KK_COMPLEX_FLOAT || type == KK_COMPLEX_DOUBLE;
  /* a complex sum is the sum of its parts; its product is not */
  return nccl_type(type) >= 0 && nccl_op(op) >= 0 && (!complex || op == KK_SUM);
}

kk_status_t kk_mpi__nccl_coll(kk_mpi_comm_t *c, kk_mpi_what_t *what, kk_instance_t *inst, int coll, const void *send,
                              void *recv, size_t count, kk_type_t type, size_t elem_size, int op, int root) {
  if (!c->nccl_comm)
    return kk_set_error(KK_ERROR_COMM, "%s: the NCCL communicator was aborted earlier (%s)", kk_mpi__what(what),
                        c->nccl_how);
  kk_native_queue_t q;
  kk_status_t st = kk_instance_native_queue(inst, &q);
  if (st != KK_OK)
    return st;
  make_current(V, c->nccl_ctx, c->nccl_device);
  ncclResult_t r;
  const char *fn;
  if (coll == KK_MPI_NCCL_ALLREDUCE) {
    size_t n = type == KK_COMPLEX_FLOAT || type == KK_COMPLEX_DOUBLE ? 2 * count : count;
    fn = "ncclAllReduce";
    r = N.all_reduce(send, recv, n, (ncclDataType_t)nccl_type(type), (ncclRedOp_t)nccl_op(op),
                     (ncclComm_t)c->nccl_comm, q.queue);
  } else if (coll == KK_MPI_NCCL_BROADCAST) {
    fn = "ncclBroadcast";
    r = N.broadcast(send, recv, count * elem_size, ncclUint8, root, (ncclComm_t)c->nccl_comm, q.queue);
  } else {
    fn = "ncclAllGather";
    r = N.all_gather(send, recv, count * elem_size, ncclUint8, (ncclComm_t)c->nccl_comm, q.queue);
  }
  return r == ncclSuccess ? KK_OK : nccl_fail(c, r, fn, kk_mpi__what(what));
}

/* Aborts c's communicator after a failure or a time-out: the other ranks'
 * NCCL operations then fail too instead of waiting for this one. */
static void nccl_abort(kk_mpi_comm_t *c) {
  if (c->nccl_comm)
    N.comm_abort((ncclComm_t)c->nccl_comm);
  c->nccl_comm = NULL;
}

kk_status_t kk_mpi__nccl_sync(kk_mpi_comm_t *c, kk_mpi_what_t *what, kk_instance_t *inst) {
  kk_native_queue_t q;
  kk_status_t st = kk_instance_native_queue(inst, &q);
  if (st != KK_OK)
    return st;
  if (!c->nccl_comm)
    return kk_mpi__fence(c, inst, what);
  make_current(V, c->nccl_ctx, c->nccl_device);
  const double t0 = now_s();
  for (unsigned spin = 0;; spin++) {
    int cr = V->stream_query(q.queue);
    if (cr == 0)
      break;
    if (cr != 600) /* CUDA_ERROR_NOT_READY, hipErrorNotReady */
      return kk_mpi__fence(c, inst, what); /* the instance's fence reports the CUDA or HIP error */
    ncclResult_t ar = ncclSuccess;
    N.comm_get_async_error((ncclComm_t)c->nccl_comm, &ar);
    if (ar != ncclSuccess && ar != ncclInProgress) {
      st = nccl_fail(c, ar, "ncclCommGetAsyncError", kk_mpi__what(what));
      nccl_abort(c);
      snprintf(c->nccl_how, sizeof c->nccl_how, "aborted after an NCCL error");
      return st;
    }
    if (c->nccl_timeout > 0 && (spin & 255) == 0 && now_s() - t0 > c->nccl_timeout) {
      nccl_abort(c);
      snprintf(c->nccl_how, sizeof c->nccl_how, "aborted after waiting %.0f s (KK_MPI_NCCL_TIMEOUT)", c->nccl_timeout);
      return kk_set_error(KK_ERROR_COMM,
                          "%s: NCCL did not complete within KK_MPI_NCCL_TIMEOUT=%.0f s (a rank died or never "
                          "joined?); the NCCL communicator was aborted",
                          kk_mpi__what(what), c->nccl_timeout);
    }
    if (spin > 64) {
      struct timespec ts = {0, 20000};
      nanosleep(&ts, NULL);
    }
  }
  return kk_mpi__fence(c, inst, what);
}

int kk_mpi_nccl(const kk_mpi_comm_t *c, const char **how) {
  if (!c || !kk_is_initialized() || !kk_mpi__current(c) || !kk_mpi__mpi_alive()) {
    if (how)
      *how = c ? "kk or MPI is not initialized" : "no communicator";
    return 0;
  }
  if (how)
    *how = c->nccl_how;
  return c->nccl_on && c->nccl_comm != NULL;
}

/* ---- point-to-point ---------------------------------------------------------------- */

kk_status_t kk_mpi__nccl_flush(kk_mpi_comm_t *c) {
  kk_mpi_request_t *head = c->nccl_head;
  c->nccl_head = c->nccl_tail = NULL;
  if (!head)
    return KK_OK;
  kk_status_t st = KK_OK;
  kk_mpi_what_t what;
  kk_mpi__what_init(&what, head->op, head->view);
  /* NCCL pairs the sends and receives between two ranks in the order a
   * group lists them, and has no tags: the queue is listed by tag (stable:
   * posting order within a tag), on both ranks alike, so that a halo whose
   * faces go to one neighbour twice (a periodic grid of two ranks) pairs
   * each face with the receive of the same tag, as MPI would */
  for (kk_mpi_request_t **pp = &head; *pp && (*pp)->nccl_next;) {
    kk_mpi_request_t *a = *pp, *b = a->nccl_next;
    if (b->tag >= a->tag) {
      pp = &a->nccl_next;
      continue;
    }
    /* take b out and insert it before the first element with a larger tag */
    a->nccl_next = b->nccl_next;
    kk_mpi_request_t **ins = &head;
    while ((*ins)->tag <= b->tag)
      ins = &(*ins)->nccl_next;
    b->nccl_next = *ins;
    *ins = b;
  }
  if (!c->nccl_comm)
    st = kk_set_error(KK_ERROR_COMM, "%s: the NCCL communicator was aborted earlier (%s)", kk_mpi__what(&what),
                      c->nccl_how);
  ncclResult_t r = ncclSuccess;
  const char *fn = "ncclGroupStart";
  int started = 0;
  if (st == KK_OK) {
    make_current(V, c->nccl_ctx, c->nccl_device);
    r = N.group_start();
    started = r == ncclSuccess;
  }
  for (kk_mpi_request_t *q = head; st == KK_OK && r == ncclSuccess && q; q = q->nccl_next) {
    if (q->plan.bytes == 0)
      continue;
    kk_native_queue_t nq;
    if ((st = kk_instance_native_queue(q->inst, &nq)) != KK_OK)
      break;
    fn = q->recv ? "ncclRecv" : "ncclSend";
    r = q->recv ? N.recv(q->ptr, q->plan.bytes, ncclUint8, q->peer, (ncclComm_t)c->nccl_comm, nq.queue)
                : N.send(q->ptr, q->plan.bytes, ncclUint8, q->peer, (ncclComm_t)c->nccl_comm, nq.queue);
  }
  if (started) {
    /* a group once started is ended, whatever failed inside it */
    ncclResult_t e = N.group_end();
    if (r == ncclSuccess && e != ncclSuccess)
      r = e, fn = "ncclGroupEnd";
  }
  if (st == KK_OK && r != ncclSuccess)
    st = nccl_fail(c, r, fn, kk_mpi__what(&what));
  for (kk_mpi_request_t *q = head, *next; q; q = next) {
    next = q->nccl_next;
    q->nccl_next = NULL;
    q->nccl_queued = 0;
    q->nccl_err = st;
  }
  return st;
}

kk_status_t kk_mpi__xinst_create(kk_mpi_comm_t *c) {
  const char *be = kk_backend_default();
  const char *why = "the default backend has no stream priorities kk sets";
  kk_native_queue_t q;
  const int hip = be && strcmp(be, "hip") == 0;
  if (be && (hip || strcmp(be, "cuda") == 0) && kk_instance_native_queue(kk_instance_default(), &q) == KK_OK &&
      q.kind == (hip ? KK_NATIVE_HIP : KK_NATIVE_CUDA)) {
    const vendor_rt_t *R = vendor_rt(hip);
    int least = 0, greatest = 0;
    void *s = NULL;
    if (!R->found)
      why = R->why;
    else if (!R->prio_range || !R->stream_create_prio || !R->stream_destroy)
      why = hip ? "the HIP runtime lacks hipDeviceGetStreamPriorityRange, hipStreamCreateWithPriority or "
                  "hipStreamDestroy"
                : "libcuda.so.1 lacks cuCtxGetStreamPriorityRange, cuStreamCreateWithPriority or cuStreamDestroy_v2";
    else if (make_current(R, q.context, q.device) != 0 || R->prio_range(&least, &greatest) != 0 ||
             R->stream_create_prio(&s, 0x1 /* CU_STREAM_NON_BLOCKING, hipStreamNonBlocking */, greatest) != 0)
      why = hip ? "hipStreamCreateWithPriority failed" : "cuStreamCreateWithPriority failed";
    else {
      kk_native_queue_t mine = q;
      mine.queue = s;
      kk_status_t st = kk_instance_create_native(be, &mine, &c->xinst);
      if (st != KK_OK) {
        R->stream_destroy(s);
        return st;
      }
      c->xstream = s;
      c->xctx = q.context;
      c->xdev = q.device;
      c->xhip = hip;
      snprintf(c->xhow, sizeof c->xhow, "%s stream of priority %d (the device's highest; lowest %d)", be, greatest,
               least);
      return KK_OK;
    }
  }
  kk_status_t st = kk_instance_create(NULL, &c->xinst);
  if (st == KK_OK)
    snprintf(c->xhow, sizeof c->xhow, "an instance of %s as kk_instance_create makes it (%s)", be ? be : "?", why);
  return st;
}

kk_status_t kk_mpi__xinst_destroy(kk_mpi_comm_t *c, int kk_alive) {
  if (!c->xinst)
    return KK_OK;
  kk_status_t st = kk_instance_destroy(c->xinst); /* fences it first */
  c->xinst = NULL;
  if (c->xstream && kk_alive) {
    const vendor_rt_t *R = &RT[c->xhip]; /* opened by kk_mpi__xinst_create */
    make_current(R, c->xctx, c->xdev);
    if (R->stream_destroy(c->xstream) != 0 && st == KK_OK)
      st = kk_set_error(KK_ERROR_BACKEND, "kk_mpi_comm_destroy: %s of the exchange instance's stream failed",
                        c->xhip ? "hipStreamDestroy" : "cuStreamDestroy");
  }
  c->xstream = NULL;
  return st;
}
