/* mpi/p2p.c -- point-to-point on views: send, receive, their non-blocking forms, wait / wait-all / test, sendrecv. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "nccl.h"

/* Requests come from a free list of the comm object, so that a steady
 * exchange allocates nothing after its first round. */
static kk_mpi_request_t *req_new(kk_mpi_comm_t *c) {
  kk_mpi_request_t *r = c->free_reqs;
  if (r)
    c->free_reqs = r->next_free;
  else if (!(r = malloc(sizeof *r)))
    return NULL;
  memset(r, 0, sizeof *r);
  r->c = c;
  r->mreq = MPI_REQUEST_NULL;
  c->live_reqs++;
  return r;
}

static void req_free(kk_mpi_request_t *r) {
  kk_mpi_comm_t *c = r->c;
  if (r->view)
    kk_view_release(r->view);
  r->view = NULL;
  r->next_free = c->free_reqs;
  c->free_reqs = r;
  c->live_reqs--;
}

/* What messages about r name: "kk_mpi_isend: 'x' (10 double) to rank 1 tag 0" (formatted only if one is made). */
static void req_what(const kk_mpi_request_t *r, kk_mpi_what_t *w) {
  kk_mpi__what_init(w, r->op, r->view);
  w->dir = r->recv ? 2 : 1;
  w->peer = r->peer;
  w->tag = r->tag;
}

/* The same for a routine alone ("kk_mpi_recv"). */
static kk_mpi_what_t *op_what(kk_mpi_what_t *w, const char *op) {
  kk_mpi__what_init(w, op, NULL);
  return w;
}

static int status_wanted(const MPI_Status *s) { return s != NULL && s != MPI_STATUS_IGNORE; }

/* Makes the request for a send or receive of `v` and stages it: the view's
 * pack and/or copy to pinned memory left in *job (send), the buffer MPI
 * will write chosen (receive).  Nothing is fenced or posted yet. */
static kk_status_t prepare(kk_mpi_comm_t *c, kk_instance_t *given, kk_view_t *v, int peer, int tag, int recv,
                           const char *op, mpi_job_t *job, kk_mpi_request_t **out) {
  *out = NULL;
  memset(job, 0, sizeof *job);
  if (!v)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL view", op);
  kk_instance_t *inst;
  mpi_plan_t plan;
  MPI_Datatype dt;
  int count;
  kk_mpi_what_t what;
  kk_mpi__what_init(&what, op, v);
  kk_status_t st;
  if ((st = kk_mpi__instance(c, op, v, given, &inst)) != KK_OK || (st = kk_mpi__plan(&what, v, &plan)) != KK_OK ||
      (st = kk_mpi__datatype(&what, kk_view_type(v), kk_view_elem_size(v), plan.count, &dt, &count)) != KK_OK)
    return st;
  kk_mpi_request_t *r = req_new(c);
  if (!r)
    return kk_set_error(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", kk_mpi__what(&what));
  r->op = op;
  r->recv = recv;
  r->view = kk_view_retain(v);
  r->inst = inst;
  r->plan = plan;
  r->dt = dt;
  r->count = count;
  r->peer = peer;
  r->tag = tag;
  r->path = kk_mpi__path(c, v);
  if (c->nccl_on && r->path != KK_MPI_PATH_HOST && peer != MPI_PROC_NULL) {
    const char *ib = kk_instance_backend(inst);
    if (kk_mpi__nccl_serves(ib))
      r->path = KK_MPI_PATH_NCCL;
    if (r->path == KK_MPI_PATH_NCCL && peer == MPI_ANY_SOURCE) {
      req_free(r);
      return kk_set_error(KK_ERROR_UNSUPPORTED,
                          "%s: a receive from MPI_ANY_SOURCE into a device view: NCCL receives only from a named rank "
                          "(name the source, or KK_MPI_NCCL=0 for the MPI path)",
                          kk_mpi__what(&what));
    }
    if (r->path == KK_MPI_PATH_NCCL && (peer < 0 || peer >= c->size)) {
      req_free(r);
      return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: rank %d is not a rank of the communicator (size %d)",
                          kk_mpi__what(&what), peer, c->size);
    }
  }
  if (peer == MPI_PROC_NULL) {
    /* nothing moves: no packing, no fence; MPI still completes the request
     * with the status it defines for MPI_PROC_NULL */
    r->plan.count = 0;
    r->count = 0;
    *out = r;
    return KK_OK;
  }
  req_what(r, &what);
  /* NCCL takes device memory: the view, or a device buffer packed on the instance */
  const kk_mpi_path_t sp = r->path == KK_MPI_PATH_NCCL ? KK_MPI_PATH_GPU_AWARE : r->path;
  if (r->path == KK_MPI_PATH_NCCL)
    c->ordered_on = inst;
  st = recv ? kk_mpi__stage_in(c, &what, inst, v, &plan, sp, &r->ptr, &r->mbuf)
            : kk_mpi__stage_out(c, &what, inst, v, &plan, sp, &r->ptr, &r->mbuf, job);
  c->ordered_on = NULL;
  if (st != KK_OK) {
    req_free(r);
    return st;
  }
  *out = r;
  return KK_OK;
}

/* Whether r must wait for its instance before MPI touches its memory: a
 * send reads what the instance packed or staged (or the kernels before it
 * wrote); a receive straight into the view must not overtake work queued
 * before that still reads the view. */
static int needs_fence(const kk_mpi_request_t *r) {
  /* NCCL's operations are ordered on the instance's stream */
  return r->path != KK_MPI_PATH_NCCL && r->peer != MPI_PROC_NULL && r->plan.count > 0 && (!r->recv || !r->mbuf);
}

static kk_status_t post(kk_mpi_comm_t *c, kk_mpi_request_t *r) {
  kk_mpi_what_t what;
  if (r->path == KK_MPI_PATH_NCCL) {
    /* queued: the first completion call hands every queued operation of c
     * to NCCL in one group, so that sends and receives posted in any order
     * on two ranks cannot wait for each other */
    r->nccl_queued = 1;
    r->nccl_err = KK_OK;
    r->nccl_next = NULL;
    if (c->nccl_tail)
      c->nccl_tail->nccl_next = r;
    else
      c->nccl_head = r;
    c->nccl_tail = r;
    kk_mpi__count(c, KK_MPI_PATH_NCCL, r->plan.bytes);
    if (c->debug) {
      req_what(r, &what);
      kk_mpi__debug(c, "%s (%zu bytes): path nccl%s", kk_mpi__what(&what), r->plan.bytes,
                    r->plan.contiguous ? ", contiguous" : ", packed by kk kernels on the stream");
    }
    return KK_OK;
  }
  int err = r->recv ? MPI_Irecv(r->ptr, r->count, r->dt, r->peer, r->tag, c->comm, &r->mreq)
                    : MPI_Isend(r->ptr, r->count, r->dt, r->peer, r->tag, c->comm, &r->mreq);
  if (err != MPI_SUCCESS) {
    req_what(r, &what);
    return kk_mpi__fail(err, r->recv ? "MPI_Irecv" : "MPI_Isend", kk_mpi__what(&what));
  }
  if (r->peer == MPI_PROC_NULL)
    return KK_OK;
  kk_mpi__count(c, r->path, r->plan.bytes);
  if (c->debug) {
    req_what(r, &what);
    kk_mpi__debug(c, "%s (%zu bytes): path %s%s%s", kk_mpi__what(&what), r->plan.bytes, kk_mpi_path_name(r->path),
                  r->plan.contiguous ? ", contiguous" : ", packed by kk kernels on ",
                  r->plan.contiguous ? "" : kk_instance_backend(r->inst));
  }
  return KK_OK;
}

/* Releases a request that was prepared but not posted. */
static void unqueue(kk_mpi_request_t *r) {
  kk_mpi_comm_t *c = r->c;
  if (!r->nccl_queued)
    return;
  kk_mpi_request_t **pp = &c->nccl_head, *prev = NULL;
  while (*pp && *pp != r)
    prev = *pp, pp = &(*pp)->nccl_next;
  if (*pp)
    *pp = r->nccl_next;
  if (c->nccl_tail == r)
    c->nccl_tail = prev;
  r->nccl_queued = 0;
}

static void unprepare(kk_mpi_request_t *r) {
  unqueue(r);
  kk_mpi__buf_put(r->mbuf, r->inst);
  req_free(r);
}

/* Starts n sends or receives: all staged first (the packs of up to
 * KK_MPI_BATCH_MAX sends in one launch per instance and word size), each
 * instance fenced once, then all posted (see kk_mpi_isend_batch). */
static kk_status_t start(kk_mpi_comm_t *c, kk_instance_t *given, int n, kk_view_t *const *views, const int *peers,
                         const int *tags, int recv, const char *op, kk_mpi_request_t **reqs) {
  if (n < 0 || (n > 0 && (!views || !peers || !tags || !reqs)))
    return n < 0 ? kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: count %d is negative", op, n)
                 : kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                                !views ? "views" : !peers ? "peers" : !tags ? "tags" : "reqs");
  for (int i = 0; i < n; i++)
    reqs[i] = NULL;
  kk_status_t st = kk_mpi__check_comm(c, op);
  if (st != KK_OK)
    return st;
  mpi_job_t jobs[KK_MPI_BATCH_MAX];
  kk_mpi_what_t what;
  op_what(&what, op);
  int i = 0;
  for (; i < n; i++) {
    const int slot = i % KK_MPI_BATCH_MAX;
    if ((st = prepare(c, given, views[i], peers[i], tags[i], recv, op, &jobs[slot], &reqs[i])) != KK_OK) {
      kk_mpi__jobs_drop(slot, jobs);
      goto fail_unprepare;
    }
    if ((slot == KK_MPI_BATCH_MAX - 1 || i == n - 1) && (st = kk_mpi__stage_out_done(c, &what, slot + 1, jobs)) != KK_OK) {
      i++;
      goto fail_unprepare;
    }
  }
  for (i = 0; i < n; i++) {
    if (!needs_fence(reqs[i]))
      continue;
    int seen = 0;
    for (int k = 0; k < i && !seen; k++)
      seen = needs_fence(reqs[k]) && reqs[k]->inst == reqs[i]->inst;
    if (!seen && (st = kk_mpi__fence(c, reqs[i]->inst, &what)) != KK_OK) {
      i = n;
      goto fail_unprepare;
    }
  }
  for (i = 0; i < n; i++)
    if ((st = post(c, reqs[i])) != KK_OK) {
      /* the ones before are on their way: the caller completes them */
      for (int k = i; k < n; k++) {
        unprepare(reqs[k]);
        reqs[k] = NULL;
      }
      return st;
    }
  return KK_OK;

fail_unprepare:
  for (int k = 0; k < i; k++) {
    unprepare(reqs[k]);
    reqs[k] = NULL;
  }
  return st;
}

kk_status_t kk_mpi_isend(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *view, int dest, int tag,
                         kk_mpi_request_t **req) {
  if (!req)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_isend: NULL request pointer");
  return start(c, instance, 1, &view, &dest, &tag, 0, "kk_mpi_isend", req);
}

kk_status_t kk_mpi_irecv(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *view, int source, int tag,
                         kk_mpi_request_t **req) {
  if (!req)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_irecv: NULL request pointer");
  return start(c, instance, 1, &view, &source, &tag, 1, "kk_mpi_irecv", req);
}

kk_status_t kk_mpi_isend_batch(kk_mpi_comm_t *c, kk_instance_t *instance, int n, kk_view_t *const *views,
                               const int *dests, const int *tags, kk_mpi_request_t **reqs) {
  return start(c, instance, n, views, dests, tags, 0, "kk_mpi_isend_batch", reqs);
}

kk_status_t kk_mpi_irecv_batch(kk_mpi_comm_t *c, kk_instance_t *instance, int n, kk_view_t *const *views,
                               const int *sources, const int *tags, kk_mpi_request_t **reqs) {
  return start(c, instance, n, views, sources, tags, 1, "kk_mpi_irecv_batch", reqs);
}

/* After MPI completed r's message with status *s (and error `err`):
 * checks what arrived, submits the unpack (or leaves it in *job, if given,
 * for kk_mpi__finish_in_done), releases the request. */
static kk_status_t finish(kk_mpi_request_t *r, int err, MPI_Status *s, mpi_job_t *job) {
  kk_mpi_comm_t *c = r->c;
  kk_status_t st = KK_OK;
  kk_mpi_what_t what;
  if (job)
    memset(job, 0, sizeof *job);
  req_what(r, &what);
  if (err == MPI_SUCCESS && r->peer == MPI_PROC_NULL) {
    /* MPI defines this status (source MPI_PROC_NULL, tag MPI_ANY_TAG, count
     * 0); MPICH 4.0 leaves it empty for a non-blocking receive (source 0),
     * so kk fills it in on every MPI */
    s->MPI_SOURCE = MPI_PROC_NULL;
    s->MPI_TAG = MPI_ANY_TAG;
    MPI_Status_set_elements(s, r->dt, 0);
    MPI_Status_set_cancelled(s, 0);
  }
  if (err != MPI_SUCCESS) {
    int cls = 0;
    MPI_Error_class(err, &cls);
    st = kk_mpi__fail(err, "completing the request", kk_mpi__what(&what));
    if (cls == MPI_ERR_TRUNCATE)
      st = kk_set_error(st, "%s: the message is longer than the view's %d %s", kk_last_error(), r->count,
                        r->dt == MPI_BYTE ? "bytes" : kk_type_name(kk_view_type(r->view)));
  } else if (r->recv && r->peer != MPI_PROC_NULL) {
    int n = -1;
    MPI_Get_count(s, r->dt, &n);
    if (n != r->count) {
      st = kk_set_error(KK_ERROR_INVALID_ARGUMENT,
                        "%s: the message from rank %d (tag %d) holds %d %s, the view %d: sender and receiver "
                        "disagree on the size",
                        kk_mpi__what(&what), s->MPI_SOURCE, s->MPI_TAG, n, r->dt == MPI_BYTE ? "bytes" : kk_type_name(kk_view_type(r->view)),
                        r->count);
    } else {
      st = kk_mpi__finish_in(c, &what, r->inst, r->view, &r->plan, r->path, r->mbuf, job);
      r->mbuf = NULL; /* finish_in returned it */
    }
  }
  kk_mpi__buf_put(r->mbuf, NULL);
  req_free(r);
  return st;
}

/* Completes an NCCL request: its comm's queue handed to NCCL (if it was
 * not yet), the unpack of a strided receive queued on its instance after
 * the receive, the request released.  Nothing waits for the device: work
 * submitted to the instance afterwards is ordered after the transfer. */
static kk_status_t finish_nccl(kk_mpi_request_t *r, MPI_Status *s) {
  kk_mpi_comm_t *c = r->c;
  kk_status_t st = KK_OK;
  if (r->nccl_queued)
    st = kk_mpi__nccl_flush(c); /* sets r->nccl_err too */
  if (st == KK_OK)
    st = r->nccl_err;
  if (st == KK_OK && r->recv) {
    kk_mpi_what_t what;
    req_what(r, &what);
    st = kk_mpi__finish_in(c, &what, r->inst, r->view, &r->plan, KK_MPI_PATH_GPU_AWARE, r->mbuf, NULL);
    r->mbuf = NULL;
  }
  if (s) {
    memset(s, 0, sizeof *s);
    s->MPI_SOURCE = r->peer;
    s->MPI_TAG = r->tag;
    s->MPI_ERROR = st == KK_OK ? MPI_SUCCESS : MPI_ERR_OTHER;
    MPI_Status_set_elements(s, r->dt, r->recv ? r->count : 0);
  }
  kk_mpi__buf_put(r->mbuf, r->inst); /* the stream may still read it */
  r->mbuf = NULL;
  req_free(r);
  return st;
}

/* Whether a request may be completed: the kk initialization it was made in
 * and MPI are both still up. */
static int usable(const kk_mpi_request_t *r) { return kk_mpi__current(r->c) && kk_mpi__mpi_alive(); }

/* Releases a request that outlived kk_finalize (or MPI_Finalize) without
 * completing it: kk_finalize took its view and buffers, so nothing of kk is
 * touched; while MPI still runs, a receive is cancelled (MPI guarantees that
 * waiting for a cancelled request returns) and a send is let go
 * (MPI_Request_free), so that MPI_Finalize does not wait for them. */
static kk_status_t drop(kk_mpi_request_t *r, const char *op) {
  const int kk_up = kk_mpi__current(r->c);
  unqueue(r); /* never handed to NCCL */
  if (kk_mpi__mpi_alive() && r->mreq != MPI_REQUEST_NULL) {
    if (r->recv) {
      MPI_Cancel(&r->mreq);
      kk_mpi__wait(&r->mreq, MPI_STATUS_IGNORE);
    } else {
      MPI_Request_free(&r->mreq);
    }
  }
  r->view = NULL;
  r->mbuf = NULL;
  req_free(r);
  return kk_set_error(KK_ERROR_NOT_INITIALIZED,
                      "%s: %s is not initialized any more (%s ran before %s): the request was released without "
                      "completing",
                      op, kk_up ? "MPI" : "kk", kk_up ? "MPI_Finalize" : "kk_finalize", op);
}

kk_status_t kk_mpi_wait(kk_mpi_request_t **req, MPI_Status *status) {
  if (!req)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_wait: NULL request pointer");
  kk_mpi_request_t *r = *req;
  if (!r)
    return KK_OK;
  *req = NULL;
  if (!usable(r))
    return drop(r, "kk_mpi_wait");
  MPI_Status s;
  memset(&s, 0, sizeof s);
  if (r->path == KK_MPI_PATH_NCCL) {
    kk_status_t st = finish_nccl(r, &s);
    if (status_wanted(status))
      *status = s;
    return st;
  }
  int err = kk_mpi__wait(&r->mreq, &s);
  kk_status_t st = finish(r, err, &s, NULL);
  if (status_wanted(status))
    *status = s;
  return st;
}

kk_status_t kk_mpi_test(kk_mpi_request_t **req, int *done, MPI_Status *status) {
  if (!req || !done)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_test: %s is NULL", !req ? "req" : "done");
  kk_mpi_request_t *r = *req;
  *done = 1;
  if (!r)
    return KK_OK;
  if (!usable(r)) {
    *req = NULL;
    return drop(r, "kk_mpi_test");
  }
  MPI_Status s;
  memset(&s, 0, sizeof s);
  if (r->path == KK_MPI_PATH_NCCL) {
    *req = NULL;
    kk_status_t st = finish_nccl(r, &s);
    if (status_wanted(status))
      *status = s;
    return st;
  }
  int flag = 0;
  int err = kk_mpi__test(&r->mreq, &flag, &s);
  if (err == MPI_SUCCESS && !flag) {
    *done = 0;
    return KK_OK;
  }
  *req = NULL;
  kk_status_t st = finish(r, err, &s, NULL);
  if (status_wanted(status))
    *status = s;
  return st;
}

static kk_status_t waitall_live(int n, kk_mpi_request_t **reqs, MPI_Status *statuses);

kk_status_t kk_mpi_waitall(int n, kk_mpi_request_t **reqs, MPI_Status *statuses) {
  if (n < 0 || (n > 0 && !reqs))
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_waitall: %s", n < 0 ? "negative count" : "NULL requests");
  /* requests that outlived their kk initialization or MPI are released
   * first; the others complete as usual, and the call returns the first
   * error of either kind */
  kk_status_t stale = KK_OK;
  char stale_msg[2048] = "";
  int live = 0;
  for (int i = 0; i < n; i++)
    if (reqs[i] && !usable(reqs[i])) {
      kk_mpi_request_t *r = reqs[i];
      reqs[i] = NULL;
      kk_status_t s = drop(r, "kk_mpi_waitall");
      if (stale == KK_OK) {
        stale = s;
        snprintf(stale_msg, sizeof stale_msg, "%s", kk_last_error());
      }
    } else if (reqs[i]) {
      live++;
    }
  if (live == 0)
    return stale == KK_OK ? KK_OK : kk_set_error(stale, "%s", stale_msg);
  kk_status_t rest = waitall_live(n, reqs, statuses);
  if (stale != KK_OK && rest == KK_OK)
    return kk_set_error(stale, "%s", stale_msg);
  return rest;
}

/* kk_mpi_waitall of requests that may all be completed (NULL entries skipped). */
static kk_status_t waitall_live(int n, kk_mpi_request_t **reqs, MPI_Status *statuses) {
  enum { SMALL = 32 };
  MPI_Request mr_small[SMALL];
  int at_small[SMALL], idx_small[SMALL];
  MPI_Status st_small[SMALL];
  MPI_Request *mr = mr_small;
  int *at = at_small, *idx = idx_small;
  MPI_Status *sts = st_small;
  if (n > SMALL) {
    mr = malloc(sizeof *mr * (size_t)n);
    at = malloc(sizeof *at * (size_t)n);
    idx = malloc(sizeof *idx * (size_t)n);
    sts = malloc(sizeof *sts * (size_t)n);
    if (!mr || !at || !idx || !sts) {
      free(mr), free(at), free(idx), free(sts);
      return kk_set_error(KK_ERROR_OUT_OF_MEMORY, "kk_mpi_waitall: out of memory for %d requests", n);
    }
  }
  kk_status_t first = KK_OK;
  char first_msg[2048] = "";
  /* NCCL's requests: every queue handed over in one group, nothing waited for */
  for (int i = 0; i < n; i++)
    if (reqs[i] && reqs[i]->path == KK_MPI_PATH_NCCL) {
      kk_mpi_request_t *r = reqs[i];
      reqs[i] = NULL;
      MPI_Status s;
      kk_status_t f = finish_nccl(r, &s);
      if (statuses && statuses != MPI_STATUSES_IGNORE)
        statuses[i] = s;
      if (f != KK_OK && first == KK_OK) {
        first = f;
        snprintf(first_msg, sizeof first_msg, "%s", kk_last_error());
      }
    }
  int m = 0;
  for (int i = 0; i < n; i++)
    if (reqs[i]) {
      mr[m] = reqs[i]->mreq;
      at[m++] = i;
    }
  int left = m;
  /* finish receives as their messages arrive: on a device the unpack of
   * one overlaps the arrival of the next.  A host backend's launch returns
   * when its kernel is done, and meanwhile this thread does not progress
   * MPI, so there is little to overlap: its unpacks are held until every
   * message is in (or KK_MPI_BATCH_MAX are held) and go in one launch, as
   * in the native Waitall-then-unpack. */
  mpi_job_t held[KK_MPI_BATCH_MAX];
  kk_mpi_comm_t *hc = NULL; /* the comm of held[0 .. nh) */
  int nh = 0;
  while (left > 0) {
    int outcount = 0;
    int err = kk_mpi__waitsome(m, mr, &outcount, idx, sts);
    if (err != MPI_SUCCESS && err != MPI_ERR_IN_STATUS) {
      /* MPI gave up on the whole call: report it on every request left */
      for (int k = 0; k < m; k++) {
        kk_mpi_request_t *r = reqs[at[k]];
        if (!r)
          continue;
        reqs[at[k]] = NULL;
        kk_status_t s = finish(r, err, &sts[0], NULL);
        if (first == KK_OK) {
          first = s;
          snprintf(first_msg, sizeof first_msg, "%s", kk_last_error());
        }
      }
      break;
    }
    if (outcount == MPI_UNDEFINED)
      break;
    /* the unpacks of the messages that arrived together go in one launch
     * per instance and word size */
    mpi_job_t jobs[KK_MPI_BATCH_MAX];
    kk_mpi_comm_t *jc = NULL; /* the comm of jobs[0 .. nj) */
    int nj = 0;
    for (int k = 0; k < outcount; k++) {
      int j = idx[k], i = at[j];
      kk_mpi_request_t *r = reqs[i];
      reqs[i] = NULL;
      kk_status_t s = KK_OK;
      if (nj > 0 && r->c != jc) {
        s = kk_mpi__finish_in_done(jc, nj, jobs);
        nj = 0;
      }
      jc = r->c;
      kk_status_t f = finish(r, err == MPI_ERR_IN_STATUS ? sts[k].MPI_ERROR : MPI_SUCCESS, &sts[k], &jobs[nj]);
      if (s == KK_OK)
        s = f;
      if (jobs[nj].mbuf && kk_mpi__host_threads(jc, jobs[nj].inst) > 0) {
        if (nh > 0 && (nh == KK_MPI_BATCH_MAX || hc != jc)) {
          f = kk_mpi__finish_in_done(hc, nh, held);
          nh = 0;
          if (s == KK_OK)
            s = f;
        }
        held[nh++] = jobs[nj];
        hc = jc;
      } else if (jobs[nj].mbuf) {
        nj++;
      }
      if (nj > 0 && (nj == KK_MPI_BATCH_MAX || k == outcount - 1)) {
        f = kk_mpi__finish_in_done(jc, nj, jobs);
        nj = 0;
        if (s == KK_OK)
          s = f;
      }
      if (s != KK_OK && first == KK_OK) {
        first = s;
        snprintf(first_msg, sizeof first_msg, "%s", kk_last_error());
      }
      if (statuses && statuses != MPI_STATUSES_IGNORE)
        statuses[i] = sts[k];
      left--;
    }
  }
  if (nh > 0) {
    kk_status_t s = kk_mpi__finish_in_done(hc, nh, held);
    if (s != KK_OK && first == KK_OK) {
      first = s;
      snprintf(first_msg, sizeof first_msg, "%s", kk_last_error());
    }
  }
  if (n > SMALL)
    free(mr), free(at), free(idx), free(sts);
  /* the first failure's message, not a later one's */
  return first == KK_OK ? KK_OK : kk_set_error(first, "%s", first_msg);
}

/* After a blocking form: on the NCCL path the transfer is only queued on
 * the stream when the request completes; wait for it (bounded). */
static kk_status_t settle(kk_mpi_comm_t *c, int nccl, kk_instance_t *inst, const char *op) {
  kk_mpi_what_t what;
  return nccl ? kk_mpi__nccl_sync(c, op_what(&what, op), inst) : kk_mpi__fence(c, inst, op_what(&what, op));
}

kk_status_t kk_mpi_send(kk_mpi_comm_t *c, kk_view_t *view, int dest, int tag) {
  kk_mpi_request_t *r;
  kk_status_t st = start(c, NULL, 1, &view, &dest, &tag, 0, "kk_mpi_send", &r);
  if (st != KK_OK)
    return st;
  const int nccl = r->path == KK_MPI_PATH_NCCL;
  kk_instance_t *inst = r->inst;
  if ((st = kk_mpi_wait(&r, NULL)) != KK_OK || !nccl)
    return st;
  return settle(c, 1, inst, "kk_mpi_send");
}

kk_status_t kk_mpi_recv(kk_mpi_comm_t *c, kk_view_t *view, int source, int tag, MPI_Status *status) {
  kk_mpi_request_t *r;
  kk_status_t st = start(c, NULL, 1, &view, &source, &tag, 1, "kk_mpi_recv", &r);
  if (st != KK_OK)
    return st;
  kk_instance_t *inst = r->inst;
  const int nccl = r->path == KK_MPI_PATH_NCCL;
  if ((st = kk_mpi_wait(&r, status)) != KK_OK)
    return st;
  return settle(c, nccl, inst, "kk_mpi_recv");
}

/* Whether two views share memory. */
static int overlap(kk_view_t *a, kk_view_t *b) {
  if (kk_view_size(a) == 0 || kk_view_size(b) == 0)
    return 0;
  const char *pa = kk_view_data(a), *pb = kk_view_data(b);
  const char *ea = pa + kk_view_span(a) * kk_view_elem_size(a), *eb = pb + kk_view_span(b) * kk_view_elem_size(b);
  if (pa >= eb || pb >= ea)
    return 0;
  /* the spans meet: two faces of one view interleave their spans without
   * sharing an element, so look closer only when both are contiguous */
  return kk_view_span_is_contiguous(a) && kk_view_span_is_contiguous(b);
}

kk_status_t kk_mpi_sendrecv(kk_mpi_comm_t *c, kk_view_t *send, int dest, int send_tag, kk_view_t *recv, int source,
                            int recv_tag, MPI_Status *status) {
  kk_status_t st = kk_mpi__check_comm(c, "kk_mpi_sendrecv");
  if (st != KK_OK)
    return st;
  if (!send || !recv)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_sendrecv: NULL %s view", send ? "receive" : "send");
  if (kk_view_type(send) != kk_view_type(recv) || kk_view_elem_size(send) != kk_view_elem_size(recv))
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT,
                        "kk_mpi_sendrecv: send view '%s' holds %s (%zu bytes) but receive view '%s' holds %s (%zu bytes)",
                        kk_view_label(send), kk_type_name(kk_view_type(send)), kk_view_elem_size(send),
                        kk_view_label(recv), kk_type_name(kk_view_type(recv)), kk_view_elem_size(recv));
  if (overlap(send, recv))
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_sendrecv: send view '%s' and receive view '%s' overlap",
                        kk_view_label(send), kk_view_label(recv));
  kk_mpi_request_t *r[2] = {NULL, NULL};
  if ((st = start(c, NULL, 1, &recv, &source, &recv_tag, 1, "kk_mpi_sendrecv", &r[0])) != KK_OK)
    return st;
  kk_instance_t *inst = r[0]->inst;
  if ((st = start(c, NULL, 1, &send, &dest, &send_tag, 0, "kk_mpi_sendrecv", &r[1])) != KK_OK) {
    /* the receive is posted (or queued for NCCL): take it back */
    unqueue(r[0]);
    if (r[0]->mreq != MPI_REQUEST_NULL)
      MPI_Cancel(&r[0]->mreq);
    kk_status_t keep = st;
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", kk_last_error());
    MPI_Status s;
    kk_mpi__wait(&r[0]->mreq, &s);
    kk_mpi__buf_put(r[0]->mbuf, NULL);
    req_free(r[0]);
    return kk_set_error(keep, "%s", msg);
  }
  MPI_Status sts[2];
  const int nccl = r[0]->path == KK_MPI_PATH_NCCL || r[1]->path == KK_MPI_PATH_NCCL;
  kk_instance_t *sinst = r[1]->inst;
  st = kk_mpi_waitall(2, r, sts);
  if (status_wanted(status))
    *status = sts[0];
  if (st == KK_OK && nccl && sinst != inst)
    st = settle(c, 1, sinst, "kk_mpi_sendrecv");
  if (st != KK_OK)
    return st;
  return settle(c, nccl, inst, "kk_mpi_sendrecv");
}
