/* mpi/comm.c -- kk communicators: creation, GPU-awareness per backend, reused buffers, instances and paths, errors. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "nccl.h"

#ifdef HAVE_MPI_EXT_H
#include <mpi-ext.h> /* after <mpi.h>: Open MPI's MPIX_ extensions */
#endif

const char *kk_mpi_version(void) { return PACKAGE_VERSION; }

const char *kk_mpi_path_name(kk_mpi_path_t path) {
  switch (path) {
  case KK_MPI_PATH_HOST:
    return "host";
  case KK_MPI_PATH_GPU_AWARE:
    return "gpu-aware";
  case KK_MPI_PATH_STAGED:
    return "staged";
  case KK_MPI_PATH_NCCL:
    return "nccl";
  default:
    return "unknown";
  }
}

/* ---- errors and debug output ---------------------------------------------- */

kk_status_t kk_mpi__fail(int err, const char *fn, const char *what) {
  char text[MPI_MAX_ERROR_STRING + 1] = "";
  int len = 0, cls = -1;
  if (MPI_Error_string(err, text, &len) != MPI_SUCCESS)
    snprintf(text, sizeof text, "error code %d", err);
  if (MPI_Error_class(err, &cls) != MPI_SUCCESS)
    cls = -1;
  return kk_set_error(KK_ERROR_COMM, "%s: %s failed: %s (MPI error class %d)", what, fn, text, cls);
}

void kk_mpi__describe(char *buf, size_t size, const char *op, kk_view_t *v) {
  if (!v) {
    snprintf(buf, size, "%s", op);
    return;
  }
  kk_type_t t = kk_view_type(v);
  if (t == KK_TYPE_CUSTOM)
    snprintf(buf, size, "%s: '%s' (%zu elements of %zu bytes)", op, kk_view_label(v), kk_view_size(v),
             kk_view_elem_size(v));
  else
    snprintf(buf, size, "%s: '%s' (%zu %s)", op, kk_view_label(v), kk_view_size(v), kk_type_name(t));
}

void kk_mpi__what_init(kk_mpi_what_t *w, const char *op, kk_view_t *v) {
  w->op = op;
  w->view = v;
  w->dir = 0;
  w->peer = w->tag = 0;
  w->text[0] = '\0';
}

const char *kk_mpi__what(kk_mpi_what_t *w) {
  if (w->text[0])
    return w->text;
  char head[512];
  kk_mpi__describe(head, sizeof head, w->op, w->view);
  if (w->dir == 0)
    snprintf(w->text, sizeof w->text, "%s", head);
  else if (w->peer == MPI_ANY_SOURCE)
    snprintf(w->text, sizeof w->text, "%s from any rank tag %d", head, w->tag);
  else
    snprintf(w->text, sizeof w->text, "%s %s rank %d tag %d", head, w->dir == 2 ? "from" : "to", w->peer, w->tag);
  return w->text;
}

void kk_mpi__debug(const kk_mpi_comm_t *c, const char *fmt, ...) {
  if (!c->debug)
    return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(stderr, "kk[mpi]: rank %d: %s\n", c->rank, line);
}

int kk_mpi__mpi_alive(void) {
  /* its callers hold a comm object, made after MPI_Init: MPI_Finalized
   * alone tells */
  int fin = 0;
  MPI_Finalized(&fin);
  return !fin;
}

int kk_mpi__current(const kk_mpi_comm_t *c) { return c && c->kk_id != 0 && c->kk_id == kk_initialization_id(); }

kk_status_t kk_mpi__check_comm(const kk_mpi_comm_t *c, const char *op) {
  if (!c)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL communicator", op);
  if (!kk_is_initialized())
    return kk_set_error(KK_ERROR_NOT_INITIALIZED, "%s: kk is not initialized (kk_finalize ran before %s?)", op, op);
  if (!kk_mpi__current(c))
    return kk_set_error(KK_ERROR_NOT_INITIALIZED,
                        "%s: the comm object was made before kk_finalize, which ended it: a handle does not carry "
                        "over into a new kk_initialize (make it again)",
                        op);
  if (!kk_mpi__mpi_alive())
    return kk_set_error(KK_ERROR_NOT_INITIALIZED, "%s: MPI is finalized (MPI_Finalize ran before %s?)", op, op);
  return KK_OK;
}

/* Whether a comm object may be used: a comm object that outlived kk_finalize
 * (or MPI_Finalize) answers as NULL does. */
static int alive(const kk_mpi_comm_t *c) { return kk_mpi__current(c) && kk_mpi__mpi_alive(); }

/* ---- where MPI raises errors completing a request ---------------------------- */

/* MPI raises an error of MPI_Wait and its relatives on the request's
 * communicator, whose handler kk set to MPI_ERRORS_RETURN.  MPICH 4.0
 * raises it on MPI_COMM_WORLD's handler instead (the program's, by default
 * MPI_ERRORS_ARE_FATAL: "Fatal error in internal_Wait: Message truncated").
 * The first kk_mpi_comm_create finds out where this MPI raises it
 * (probe_errors); when that is not kk's communicator, every completion call
 * of libkk-mpi runs with MPI_ERRORS_RETURN on the communicators it uses
 * instead, and puts the program's handlers back after. */

/* -1 not known yet; else a bit per communicator MPI raises completion
 * errors on instead of the request's: 1 MPI_COMM_WORLD, 2 MPI_COMM_SELF. */
static _Atomic int g_raise = -1;
static pthread_mutex_t g_raise_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_raise_depth;            /* completion calls under way with the handlers swapped */
static MPI_Errhandler g_raise_saved[2];
static MPI_Comm raise_comm(int i) { return i == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF; }

/* What the probe's handler saw: the bits of g_raise (4: another communicator). */
static _Thread_local int t_probe_seen;

static void probe_handler(MPI_Comm *comm, int *err, ...) {
  (void)err;
  t_probe_seen |= *comm == MPI_COMM_WORLD ? 1 : *comm == MPI_COMM_SELF ? 2 : 4;
}

/* Makes one receive on `comm` (kk's duplicate, MPI_ERRORS_RETURN) fail as
 * it completes -- a message of two ints to this rank into room for one --
 * with a recording handler on MPI_COMM_WORLD and MPI_COMM_SELF, and keeps in
 * g_raise which of them MPI used.  Rank-local: no other rank takes part. */
static void probe_errors(kk_mpi_comm_t *c) {
  pthread_mutex_lock(&g_raise_lock);
  if (g_raise >= 0) {
    pthread_mutex_unlock(&g_raise_lock);
    return;
  }
  int found = 0;
  MPI_Errhandler rec, old[2] = {MPI_ERRHANDLER_NULL, MPI_ERRHANDLER_NULL};
  if (MPI_Comm_create_errhandler(probe_handler, &rec) == MPI_SUCCESS) {
    for (int i = 0; i < 2; i++)
      if (MPI_Comm_get_errhandler(raise_comm(i), &old[i]) == MPI_SUCCESS)
        MPI_Comm_set_errhandler(raise_comm(i), rec);
    t_probe_seen = 0;
    int two[2] = {1, 2}, one = 0;
    MPI_Request rq = MPI_REQUEST_NULL;
    if (MPI_Irecv(&one, 1, MPI_INT, c->rank, 0, c->comm, &rq) == MPI_SUCCESS) {
      MPI_Send(two, 2, MPI_INT, c->rank, 0, c->comm);
      MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    found = t_probe_seen & 3;
    for (int i = 0; i < 2; i++)
      if (old[i] != MPI_ERRHANDLER_NULL) {
        MPI_Comm_set_errhandler(raise_comm(i), old[i]);
        MPI_Errhandler_free(&old[i]);
      }
    MPI_Errhandler_free(&rec);
  }
  g_raise = found;
  pthread_mutex_unlock(&g_raise_lock);
  if (found)
    kk_mpi__debug(c, "MPI raises errors completing a request on %s, not on the request's communicator: kk sets "
                  "MPI_ERRORS_RETURN there for the length of each of its completion calls",
                  found == 3 ? "MPI_COMM_WORLD and MPI_COMM_SELF" : found == 1 ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
}

static void raise_begin(int which) {
  pthread_mutex_lock(&g_raise_lock);
  if (g_raise_depth++ == 0)
    for (int i = 0; i < 2; i++) {
      g_raise_saved[i] = MPI_ERRHANDLER_NULL;
      if ((which & (1 << i)) && MPI_Comm_get_errhandler(raise_comm(i), &g_raise_saved[i]) == MPI_SUCCESS)
        MPI_Comm_set_errhandler(raise_comm(i), MPI_ERRORS_RETURN);
    }
  pthread_mutex_unlock(&g_raise_lock);
}

static void raise_end(void) {
  pthread_mutex_lock(&g_raise_lock);
  if (--g_raise_depth == 0)
    for (int i = 0; i < 2; i++)
      if (g_raise_saved[i] != MPI_ERRHANDLER_NULL) {
        MPI_Comm_set_errhandler(raise_comm(i), g_raise_saved[i]);
        MPI_Errhandler_free(&g_raise_saved[i]);
      }
  pthread_mutex_unlock(&g_raise_lock);
}

int kk_mpi__wait(MPI_Request *req, MPI_Status *status) {
  const int which = g_raise;
  if (which <= 0)
    return MPI_Wait(req, status);
  raise_begin(which);
  int err = MPI_Wait(req, status);
  raise_end();
  return err;
}

int kk_mpi__test(MPI_Request *req, int *flag, MPI_Status *status) {
  const int which = g_raise;
  if (which <= 0)
    return MPI_Test(req, flag, status);
  raise_begin(which);
  int err = MPI_Test(req, flag, status);
  raise_end();
  return err;
}

int kk_mpi__waitsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *statuses) {
  const int which = g_raise;
  if (which <= 0)
    return MPI_Waitsome(n, reqs, outcount, idx, statuses);
  raise_begin(which);
  int err = MPI_Waitsome(n, reqs, outcount, idx, statuses);
  raise_end();
  return err;
}

/* ---- GPU-awareness -------------------------------------------------------- */

/* Whether MPI takes device pointers of `backend`, asked of the library;
 * *how says how it was decided. */
static int query_aware(const char *backend, const char **how) {
  int v = 0;
  if (strcmp(backend, "cuda") == 0) {
#if defined(KK_MPI_HAVE_QUERY_CUDA)
    v = MPIX_Query_cuda_support() == 1;
    *how = v ? "MPIX_Query_cuda_support() = 1" : "MPIX_Query_cuda_support() = 0";
#elif defined(KK_MPI_HAVE_GPU_QUERY)
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &v) != MPI_SUCCESS)
      v = 0;
    v = v != 0;
    *how = v ? "MPIX_GPU_query_support(CUDA) = 1" : "MPIX_GPU_query_support(CUDA) = 0";
#else
    *how = "this MPI has no CUDA query (KK_MPI_GPU_AWARE=1 if it is CUDA-aware)";
#endif
  } else if (strcmp(backend, "hip") == 0) {
#if defined(KK_MPI_HAVE_QUERY_ROCM)
    v = MPIX_Query_rocm_support() == 1;
    *how = v ? "MPIX_Query_rocm_support() = 1" : "MPIX_Query_rocm_support() = 0";
#elif defined(KK_MPI_HAVE_GPU_QUERY)
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &v) != MPI_SUCCESS)
      v = 0;
    v = v != 0;
    *how = v ? "MPIX_GPU_query_support(HIP) = 1" : "MPIX_GPU_query_support(HIP) = 0";
#else
    *how = "this MPI has no ROCm query (KK_MPI_GPU_AWARE=1 if it is ROCm-aware)";
#endif
  } else if (strcmp(backend, "levelzero") == 0) {
#if defined(KK_MPI_HAVE_GPU_QUERY)
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_ZE, &v) != MPI_SUCCESS)
      v = 0;
    v = v != 0;
    *how = v ? "MPIX_GPU_query_support(ZE) = 1" : "MPIX_GPU_query_support(ZE) = 0";
#else
    *how = "this MPI has no Level Zero query (KK_MPI_GPU_AWARE=1 if it takes Level Zero memory)";
#endif
  } else if (strcmp(backend, "opencl") == 0) {
    *how = "no MPI library takes OpenCL memory";
  } else {
    *how = "unknown device backend";
  }
  return v;
}

/* The space staging goes through for `backend`: its pinned host memory,
 * else another host-accessible space of it (not managed memory), else the
 * host space. */
static kk_space_t *pinned_space(const char *backend) {
  kk_space_t *best = NULL;
  int best_rank = 0;
  for (int i = 0; i < kk_space_count(); i++) {
    kk_space_t *s = kk_space_at(i);
    if (strcmp(kk_space_backend(s), backend) != 0 || !kk_space_host_accessible(s))
      continue;
    const char *n = kk_space_name(s);
    int rank = strstr(n, "HostPinned") || strstr(n, "HostUSM") ? 3 : strstr(n, "UVM") || strstr(n, "Managed") ? 1 : 2;
    if (rank > best_rank)
      best = s, best_rank = rank;
  }
  return best ? best : kk_space_host();
}

static int backend_is_host(const char *name) {
  for (int i = 0; i < kk_plugin_count(); i++) {
    kk_plugin_info_t info = {.struct_size = sizeof info};
    if (kk_plugin_get_info(i, &info) == KK_OK && strcmp(info.name, name) == 0 &&
        (info.state == KK_PLUGIN_LOADED || info.state == KK_PLUGIN_BUILTIN))
      return info.is_host_backend;
  }
  return 0;
}

void kk_mpi__decide(mpi_backend_t *b, const char *name, int aware_override, int can_query) {
  b->name = name;
  b->is_host = backend_is_host(name);
  b->threads = 0;
  if (b->is_host) {
    b->threads = kk_num_threads();
    b->aware = 0;
    b->aware_how = "host backend: its memory is host memory";
    b->pinned = kk_space_host();
    return;
  }
  b->pinned = pinned_space(name);
  if (aware_override >= 0) {
    b->aware = aware_override;
    b->aware_how = aware_override ? "KK_MPI_GPU_AWARE=1" : "KK_MPI_GPU_AWARE=0";
  } else if (can_query) {
    b->aware = query_aware(name, &b->aware_how);
  } else {
    b->aware = 0;
    b->aware_how = "asked of MPI at kk_mpi_comm_create; MPI is not initialized here";
  }
}

const mpi_backend_t *kk_mpi__backend(const kk_mpi_comm_t *c, const char *name) {
  for (int i = 0; i < c->nbe; i++)
    if (strcmp(c->be[i].name, name) == 0)
      return &c->be[i];
  return NULL;
}

int kk_mpi_gpu_aware(const kk_mpi_comm_t *c, const char *backend, const char **how) {
  if (!alive(c)) {
    if (how)
      *how = !c                     ? "no communicator"
             : !kk_is_initialized()  ? "kk is not initialized"
             : !kk_mpi__current(c)   ? "the comm object was made before kk_finalize"
                                     : "MPI is finalized";
    return 0;
  }
  const mpi_backend_t *b = kk_mpi__backend(c, backend ? backend : kk_backend_default());
  if (how)
    *how = b ? b->aware_how : "backend not active";
  return b ? b->aware : 0;
}

/* ---- creation ------------------------------------------------------------- */

int kk_mpi__env_bool(const char *name) {
  const char *v = getenv(name);
  if (!v || !*v)
    return -1;
  if (strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "true") == 0)
    return 1;
  if (strcmp(v, "0") == 0 || strcmp(v, "no") == 0 || strcmp(v, "false") == 0)
    return 0;
  return -2;
}

kk_status_t kk_mpi_comm_create(MPI_Comm comm, kk_mpi_comm_t **out) {
  if (!out)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_comm_create: NULL out");
  *out = NULL;
  int flag = 0;
  MPI_Initialized(&flag);
  if (!flag)
    return kk_set_error(KK_ERROR_NOT_INITIALIZED, "kk_mpi_comm_create: MPI is not initialized (call MPI_Init first)");
  MPI_Finalized(&flag);
  if (flag)
    return kk_set_error(KK_ERROR_NOT_INITIALIZED, "kk_mpi_comm_create: MPI is already finalized");
  if (!kk_is_initialized())
    return kk_set_error(KK_ERROR_NOT_INITIALIZED, "kk_mpi_comm_create: kk is not initialized (call kk_initialize first)");
  if (comm == MPI_COMM_NULL)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_comm_create: MPI_COMM_NULL");
  int aware = kk_mpi__env_bool("KK_MPI_GPU_AWARE"), debug = kk_mpi__env_bool("KK_MPI_DEBUG"),
      check = kk_mpi__env_bool("KK_MPI_CHECK"), nccl = kk_mpi__env_bool("KK_MPI_NCCL"),
      cumem = kk_mpi__env_bool("KK_MPI_NCCL_CUMEM");
  kk_mpi_comm_t *c = calloc(1, sizeof *c);
  if (!c)
    return kk_set_error(KK_ERROR_OUT_OF_MEMORY, "kk_mpi_comm_create: out of memory");
  c->kk_id = kk_initialization_id();
  c->aware_override = aware;
  c->debug = debug == 1;
  c->stats.struct_size = sizeof c->stats;
  int err = MPI_Comm_dup(comm, &c->comm);
  if (err != MPI_SUCCESS) {
    free(c);
    return kk_mpi__fail(err, "MPI_Comm_dup", "kk_mpi_comm_create");
  }
  const char *fn = "MPI_Comm_set_errhandler";
  if ((err = MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN)) != MPI_SUCCESS ||
      (fn = "MPI_Comm_rank", err = MPI_Comm_rank(c->comm, &c->rank)) != MPI_SUCCESS ||
      (fn = "MPI_Comm_size", err = MPI_Comm_size(c->comm, &c->size)) != MPI_SUCCESS) {
    MPI_Comm_free(&c->comm);
    free(c);
    return kk_mpi__fail(err, fn, "kk_mpi_comm_create");
  }
  /* A malformed variable is refused on every rank, and the ranks agree on
   * the collective check (on unless KK_MPI_CHECK=0 on every rank): ranks
   * that went different ways here would wait for each other for ever. */
  const char *bad = aware == -2  ? "KK_MPI_GPU_AWARE"
                    : debug == -2 ? "KK_MPI_DEBUG"
                    : check == -2 ? "KK_MPI_CHECK"
                    : nccl == -2  ? "KK_MPI_NCCL"
                    : cumem == -2 ? "KK_MPI_NCCL_CUMEM"
                                  : NULL;
  /* KK_MPI_NCCL: 1 on any rank forces the path, 0 on any rank turns it off; both at once is refused */
  int mine[4] = {bad != NULL, check != 0, nccl == 1, nccl == 0}, all[4] = {0, 1, 0, 0};
  if ((err = MPI_Allreduce(mine, all, 4, MPI_INT, MPI_MAX, c->comm)) != MPI_SUCCESS || all[0] || (all[2] && all[3])) {
    MPI_Comm_free(&c->comm);
    free(c);
    if (err != MPI_SUCCESS)
      return kk_mpi__fail(err, "MPI_Allreduce", "kk_mpi_comm_create");
    if (bad)
      return kk_set_error(KK_ERROR_CONFIG, "kk_mpi_comm_create: %s='%s' is neither 0 nor 1", bad, getenv(bad));
    if (!all[0])
      return kk_set_error(KK_ERROR_CONFIG, "kk_mpi_comm_create: KK_MPI_NCCL is 1 on some ranks and 0 on others; "
                                           "every rank refuses");
    return kk_set_error(KK_ERROR_CONFIG,
                        "kk_mpi_comm_create: another rank's KK_MPI_GPU_AWARE, KK_MPI_DEBUG, KK_MPI_CHECK, KK_MPI_NCCL "
                        "or KK_MPI_NCCL_CUMEM is neither 0 nor 1 (its kk_last_error() names it); every rank refuses");
  }
  c->check = all[1];
  probe_errors(c);
  kk_mpi__decide(&c->be[c->nbe++], kk_backend_default(), aware, 1);
  if (strcmp(kk_backend_host(), kk_backend_default()) != 0)
    kk_mpi__decide(&c->be[c->nbe++], kk_backend_host(), aware, 1);
  for (int i = 0; i < c->nbe; i++)
    if (!c->be[i].is_host)
      kk_mpi__debug(c, "backend %s: GPU-aware %s (%s): device views %s%s", c->be[i].name,
                    c->be[i].aware ? "yes" : "no", c->be[i].aware_how,
                    c->be[i].aware ? "go to MPI directly" : "are staged through ",
                    c->be[i].aware ? "" : kk_space_name(c->be[i].pinned));
  kk_status_t nst = kk_mpi__nccl_setup(c, all[2] ? 1 : all[3] ? 0 : -1);
  if (nst != KK_OK) {
    MPI_Comm_free(&c->comm);
    free(c);
    return nst;
  }
  kk_mpi__debug(c, "device collectives: %s (%s)", c->nccl_on ? "NCCL" : "MPI", c->nccl_how);
  *out = c;
  return KK_OK;
}

kk_status_t kk_mpi_comm_destroy(kk_mpi_comm_t *c) {
  if (!c)
    return KK_OK;
  if (c->live_reqs)
    return kk_set_error(KK_ERROR_IN_USE, "kk_mpi_comm_destroy: %d request%s not completed (kk_mpi_wait them first)",
                        c->live_reqs, c->live_reqs == 1 ? " is" : "s are");
  const int current = kk_mpi__current(c);
  kk_status_t st = kk_mpi__xinst_destroy(c, current);
  if (current) {
    kk_status_t s = kk_mpi__nccl_teardown(c);
    if (st == KK_OK)
      st = s;
    /* queued copies and unpacks may still use buffers; their instances may
     * be gone, so wait for all */
    for (int i = 0; i < c->nbufs; i++)
      if (c->bufs[i]->pending) {
        st = kk_fence_named("kk_mpi_comm_destroy");
        break;
      }
    for (int i = 0; i < c->nbufs; i++) {
      kk_status_t s = kk_space_free(c->bufs[i]->space, c->bufs[i]->ptr);
      if (st == KK_OK)
        st = s;
    }
  }
  for (int i = 0; i < c->nbufs; i++)
    free(c->bufs[i]);
  free(c->bufs);
  while (c->free_reqs) {
    kk_mpi_request_t *r = c->free_reqs;
    c->free_reqs = r->next_free;
    free(r);
  }
  /* after MPI_Finalize the duplicate went with MPI */
  int err = kk_mpi__mpi_alive() ? MPI_Comm_free(&c->comm) : MPI_SUCCESS;
  free(c);
  if (err != MPI_SUCCESS)
    return kk_mpi__fail(err, "MPI_Comm_free", "kk_mpi_comm_destroy");
  return st;
}

MPI_Comm kk_mpi_comm_mpi(const kk_mpi_comm_t *c) { return alive(c) ? c->comm : MPI_COMM_NULL; }
int kk_mpi_comm_rank(const kk_mpi_comm_t *c) { return alive(c) ? c->rank : -1; }
int kk_mpi_comm_size(const kk_mpi_comm_t *c) { return alive(c) ? c->size : 0; }

kk_status_t kk_mpi_comm_instance(kk_mpi_comm_t *c, kk_instance_t **out, const char **how) {
  kk_status_t st = kk_mpi__check_comm(c, "kk_mpi_comm_instance");
  if (st != KK_OK)
    return st;
  if (!out)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_comm_instance: out is NULL");
  if (!c->xinst && (st = kk_mpi__xinst_create(c)) != KK_OK)
    return st;
  *out = c->xinst;
  if (how)
    *how = c->xhow;
  return KK_OK;
}

kk_status_t kk_mpi_comm_get_stats(const kk_mpi_comm_t *c, kk_mpi_stats_t *stats) {
  kk_status_t st = kk_mpi__check_comm(c, "kk_mpi_comm_get_stats");
  if (st != KK_OK)
    return st;
  if (!stats)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_comm_get_stats: stats is NULL");
  if (stats->struct_size == 0 || stats->struct_size > sizeof *stats)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT,
                        "kk_mpi_comm_get_stats: stats->struct_size is %zu, not 1 to sizeof(kk_mpi_stats_t) (%zu)",
                        stats->struct_size, sizeof *stats);
  size_t n = stats->struct_size;
  memcpy(stats, &c->stats, n);
  stats->struct_size = n;
  return KK_OK;
}

void kk_mpi__count(kk_mpi_comm_t *c, kk_mpi_path_t path, size_t bytes) {
  if (path == KK_MPI_PATH_NCCL) {
    c->stats.nccl_ops++;
    c->stats.nccl_bytes += bytes;
    return;
  }
  c->stats.messages[path]++;
  c->stats.bytes[path] += bytes;
}

/* ---- instances and paths ---------------------------------------------------- */

kk_status_t kk_mpi__instance(const kk_mpi_comm_t *c, const char *op, kk_view_t *v, kk_instance_t *given,
                             kk_instance_t **out) {
  kk_space_t *s = kk_view_space(v);
  const char *sb = kk_space_backend(s);
  int host_ok = kk_space_host_accessible(s);
  if (given) {
    const char *ib = kk_instance_backend(given);
    const mpi_backend_t *b = kk_mpi__backend(c, ib);
    if (strcmp(ib, sb) != 0 && !(host_ok && b && b->is_host))
      return kk_set_error(KK_ERROR_INVALID_ARGUMENT,
                          "%s: view '%s' in space %s (backend %s) cannot be packed or staged on an instance of backend %s",
                          op, kk_view_label(v), kk_space_name(s), sb, ib);
    *out = given;
    return KK_OK;
  }
  if (strcmp(sb, kk_backend_default()) == 0)
    *out = kk_instance_default();
  else if (strcmp(sb, kk_backend_host()) == 0 || host_ok)
    *out = kk_instance_host();
  else
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s' is in space %s of backend %s, which is not active",
                        op, kk_view_label(v), kk_space_name(s), sb);
  return KK_OK;
}

kk_mpi_path_t kk_mpi__path(const kk_mpi_comm_t *c, kk_view_t *v) {
  kk_space_t *s = kk_view_space(v);
  if (kk_space_host_accessible(s))
    return KK_MPI_PATH_HOST;
  const mpi_backend_t *b = kk_mpi__backend(c, kk_space_backend(s));
  return b && b->aware ? KK_MPI_PATH_GPU_AWARE : KK_MPI_PATH_STAGED;
}

/* ---- buffers -------------------------------------------------------------- */

/* Buffers a comm object keeps before it fences everything to reuse those
 * still pending on an instance. */
#define KK_MPI_MAX_BUFFERS 64

/* The smallest free buffer of the space that fits and that no queued work
 * uses (or only work queued on c->ordered_on, which orders the new use after
 * it), or NULL. */
static mpi_buf_t *free_buf(kk_mpi_comm_t *c, kk_space_t *space, size_t bytes) {
  mpi_buf_t *best = NULL;
  for (int i = 0; i < c->nbufs; i++) {
    mpi_buf_t *b = c->bufs[i];
    if (!b->in_use && (!b->pending || b->pending == c->ordered_on) && b->space == space && b->cap >= bytes &&
        (!best || b->cap < best->cap))
      best = b;
  }
  return best;
}

kk_status_t kk_mpi__buf_get(kk_mpi_comm_t *c, kk_space_t *space, size_t bytes, kk_mpi_what_t *what, mpi_buf_t **out) {
  mpi_buf_t *best = free_buf(c, space, bytes);
  if (!best && c->nbufs >= KK_MPI_MAX_BUFFERS) {
    /* Many buffers, all busy or pending on instances: wait for every
     * instance (the pending ones may have been destroyed since, so they are
     * never fenced one by one) and reuse. */
    kk_status_t st = kk_fence_named("kk_mpi: reusing buffers");
    if (st != KK_OK)
      return kk_set_error(st, "%s: waiting for the work that used the buffers: %s", kk_mpi__what(what), kk_last_error());
    for (int i = 0; i < c->nbufs; i++)
      c->bufs[i]->pending = NULL;
    best = free_buf(c, space, bytes);
  }
  if (best) {
    best->in_use = 1;
    *out = best;
    return KK_OK;
  }
  if (c->nbufs == c->capbufs) {
    int cap = c->capbufs ? 2 * c->capbufs : 8;
    mpi_buf_t **nb = realloc(c->bufs, sizeof *nb * (size_t)cap);
    if (!nb)
      return kk_set_error(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", kk_mpi__what(what));
    c->bufs = nb;
    c->capbufs = cap;
  }
  mpi_buf_t *b = calloc(1, sizeof *b);
  if (!b)
    return kk_set_error(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", kk_mpi__what(what));
  /* round up to a power of two (at least 4 KiB), so that messages of
   * slightly different sizes share buffers */
  size_t cap = 4096;
  while (cap < bytes)
    cap *= 2;
  kk_status_t st = kk_space_alloc(space, "kk_mpi_buffer", cap, &b->ptr);
  if (st != KK_OK) {
    free(b);
    return kk_set_error(st, "%s: allocating a %zu-byte buffer in space %s: %s", kk_mpi__what(what), cap, kk_space_name(space),
                        kk_last_error());
  }
  b->space = space;
  b->cap = cap;
  b->in_use = 1;
  c->bufs[c->nbufs++] = b;
  c->stats.buffer_allocs++;
  c->stats.buffer_bytes += cap;
  *out = b;
  return KK_OK;
}

kk_status_t kk_mpi__fence(kk_mpi_comm_t *c, kk_instance_t *inst, kk_mpi_what_t *what) {
  kk_status_t st = kk_instance_fence(inst);
  if (st != KK_OK)
    return kk_set_error(st, "%s: waiting for the instance: %s", kk_mpi__what(what), kk_last_error());
  kk_mpi__bufs_done(c, inst);
  return KK_OK;
}

void kk_mpi__bufs_done(kk_mpi_comm_t *c, kk_instance_t *inst) {
  /* what was queued on it is done: its buffers are free again */
  for (int i = 0; i < c->nbufs; i++)
    if (c->bufs[i]->pending == inst)
      c->bufs[i]->pending = NULL;
}

void kk_mpi__buf_put(mpi_buf_t *b, kk_instance_t *pending) {
  if (!b)
    return;
  b->in_use = 0;
  b->pending = pending;
}
