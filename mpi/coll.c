/* mpi/coll.c -- collectives on views and scalars: allreduce, broadcast, allgather. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "nccl.h"

static int is_integer(kk_type_t t) { return t >= KK_INT8 && t <= KK_UINT64; }

static const char *op_name(kk_reducer_op_t op) {
  switch (op) {
  case KK_SUM: return "KK_SUM";
  case KK_PROD: return "KK_PROD";
  case KK_MIN: return "KK_MIN";
  case KK_MAX: return "KK_MAX";
  case KK_LAND: return "KK_LAND";
  case KK_LOR: return "KK_LOR";
  case KK_BAND: return "KK_BAND";
  case KK_BOR: return "KK_BOR";
  default: return "this reducer";
  }
}

/* The MPI operation of `op` on elements of `type`, or a refusal naming both. */
static kk_status_t mpi_op(kk_mpi_what_t *what, kk_type_t type, kk_reducer_op_t op, MPI_Op *out) {
  const int complex = type == KK_COMPLEX_FLOAT || type == KK_COMPLEX_DOUBLE;
  int ok;
  switch (op) {
  case KK_SUM: *out = MPI_SUM; ok = type != KK_TYPE_CUSTOM; break;
  case KK_PROD: *out = MPI_PROD; ok = type != KK_TYPE_CUSTOM; break;
  case KK_MIN: *out = MPI_MIN; ok = type != KK_TYPE_CUSTOM && !complex; break;
  case KK_MAX: *out = MPI_MAX; ok = type != KK_TYPE_CUSTOM && !complex; break;
  case KK_LAND: *out = MPI_LAND; ok = is_integer(type); break;
  case KK_LOR: *out = MPI_LOR; ok = is_integer(type); break;
  case KK_BAND: *out = MPI_BAND; ok = is_integer(type); break;
  case KK_BOR: *out = MPI_BOR; ok = is_integer(type); break;
  default:
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT,
                        "%s: reducer %d is not an MPI reduction (KK_SUM, KK_PROD, KK_MIN, KK_MAX, KK_LAND, KK_LOR, "
                        "KK_BAND or KK_BOR)",
                        kk_mpi__what(what), (int)op);
  }
  if (!ok)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: %s does not apply to %s elements%s", kk_mpi__what(what), op_name(op),
                        type == KK_TYPE_CUSTOM ? "custom" : kk_type_name(type),
                        is_integer(type) || type == KK_TYPE_CUSTOM ? ""
                        : complex ? " (complex values: KK_SUM and KK_PROD)"
                                  : " (logical and bitwise reductions take integer types)");
  return KK_OK;
}

static kk_status_t same_type(const char *op, kk_view_t *a, kk_view_t *b) {
  if (kk_view_type(a) == kk_view_type(b) && kk_view_elem_size(a) == kk_view_elem_size(b))
    return KK_OK;
  return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: send view '%s' holds %s (%zu bytes) but receive view '%s' holds %s (%zu bytes)",
                      op, kk_view_label(a), kk_type_name(kk_view_type(a)), kk_view_elem_size(a), kk_view_label(b),
                      kk_type_name(kk_view_type(b)), kk_view_elem_size(b));
}

/* ---- the collective check (KK_MPI_CHECK) ---------------------------------------- */

/* What a rank brings to a collective.  Before any data moves, every
 * collective compares these over the ranks with one small MPI_Allreduce
 * (unless KK_MPI_CHECK=0 on every rank): ranks that call different
 * collectives or pass different counts, types, reductions or roots, or a
 * rank that refused its own arguments, make every rank return the same
 * error, where MPI would hang some ranks, return partial data on others or
 * abort. */
enum { SIG_STATUS, SIG_COLL, SIG_TYPE, SIG_ELEM, SIG_COUNT, SIG_OP, SIG_ROOT, SIG_NCCL, SIG_N };
enum { COLL_ALLREDUCE = 1, COLL_BROADCAST, COLL_ALLGATHER };

typedef struct sig {
  int v[SIG_N];
} sig_t;

/* Fields are compared as int, negated too: kept within (-INT_MAX, INT_MAX]. */
static int sig_int(long long x) { return x > INT_MAX ? INT_MAX : x < -INT_MAX ? -INT_MAX : (int)x; }

/* A signature of collective `coll` on `count` elements of `type` (of
 * elem_size bytes, for a custom type) -- -1 for what a collective does not
 * use. */
static sig_t sig_make(int coll, kk_type_t type, size_t elem_size, size_t count, int op, int root) {
  sig_t g = {{0}};
  g.v[SIG_COLL] = coll;
  g.v[SIG_TYPE] = sig_int(type);
  /* the type gives the size, but for custom elements */
  if (type == KK_TYPE_CUSTOM)
    g.v[SIG_ELEM] = sig_int((long long)(elem_size > (size_t)INT_MAX ? (size_t)INT_MAX : elem_size));
  g.v[SIG_COUNT] = sig_int((long long)(count > (size_t)INT_MAX ? (size_t)INT_MAX : count));
  g.v[SIG_OP] = sig_int(op);
  g.v[SIG_ROOT] = sig_int(root);
  return g;
}

static const char *coll_name(int coll) {
  switch (coll) {
  case COLL_ALLREDUCE: return "an allreduce";
  case COLL_BROADCAST: return "a broadcast";
  case COLL_ALLGATHER: return "an allgather";
  default: return "another collective";
  }
}

/* One field's value as a message shows it. */
static void sig_text(int field, int v, char *buf, size_t size) {
  switch (field) {
  case SIG_COLL: snprintf(buf, size, "calls %s", coll_name(v)); break;
  case SIG_TYPE:
    snprintf(buf, size, "passes %s elements", v == KK_TYPE_CUSTOM ? "custom" : kk_type_name((kk_type_t)v));
    break;
  case SIG_ELEM: snprintf(buf, size, "passes elements of %d bytes", v); break;
  case SIG_COUNT: snprintf(buf, size, "passes %d element%s", v, v == 1 ? "" : "s"); break;
  case SIG_OP: snprintf(buf, size, "reduces with %s", op_name((kk_reducer_op_t)v)); break;
  case SIG_ROOT: snprintf(buf, size, "names root %d", v); break;
  default: snprintf(buf, size, "passes %s", v ? "device views only (the NCCL path)" : "a view NCCL does not take"); break;
  }
}

static const char *const sig_what[SIG_N] = {"", "the collective", "the element type", "the element size",
                                            "the element count", "the reduction", "the root",
                                            "the path (NCCL or MPI)"};

/* The collective check: this rank's signature `g` and the status of its
 * own preparation `local` (KK_OK, or an error already in kk_last_error())
 * against every other rank's.  Returns `local` when it failed (its own
 * message), else the verdict every rank reaches alike: KK_OK, the status of
 * a rank that refused its part, or KK_ERROR_INVALID_ARGUMENT naming the
 * first field the ranks disagree on, two ranks and their values.  With the
 * check off, `local` as it is. */
static kk_status_t agree(kk_mpi_comm_t *c, kk_mpi_what_t *what, sig_t g, kk_status_t local) {
  if (!c->check)
    return local;
  c->stats.checks++;
  g.v[SIG_STATUS] = (int)local;
  /* (value, rank) and (-value, rank) of each field under MPI_MINLOC: its
   * minimum and maximum over the ranks, and the first rank holding each */
  struct { int v, r; } in[2 * SIG_N], out[2 * SIG_N];
  for (int f = 0; f < SIG_N; f++) {
    in[2 * f].v = g.v[f], in[2 * f].r = c->rank;
    in[2 * f + 1].v = -g.v[f], in[2 * f + 1].r = c->rank;
  }
  int err = MPI_Allreduce(in, out, 2 * SIG_N, MPI_2INT, MPI_MINLOC, c->comm);
  if (local != KK_OK)
    return local;
  if (err != MPI_SUCCESS)
    return kk_mpi__fail(err, "MPI_Allreduce (comparing the ranks' arguments, KK_MPI_CHECK)", kk_mpi__what(what));
  if (out[2 * SIG_STATUS].v != KK_OK) {
    kk_status_t st = (kk_status_t)out[2 * SIG_STATUS].v;
    return kk_set_error(st,
                        "%s: rank %d refused its part of the collective (%s; its kk_last_error() says why): no rank "
                        "sent anything",
                        kk_mpi__what(what), out[2 * SIG_STATUS].r, kk_status_name(st));
  }
  for (int f = SIG_COLL; f < SIG_N; f++) {
    const int lo = out[2 * f].v, hi = -out[2 * f + 1].v;
    if (lo == hi)
      continue;
    char a[96], b[96];
    sig_text(f, lo, a, sizeof a);
    sig_text(f, hi, b, sizeof b);
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT,
                        "%s: the ranks disagree on %s: rank %d %s, rank %d %s; every rank must pass the same, and "
                        "no rank sent anything (KK_MPI_CHECK=0 turns this check off)",
                        kk_mpi__what(what), sig_what[f], out[2 * f].r, a, out[2 * f + 1].r, b);
  }
  return KK_OK;
}

/* One view of a collective: where MPI reads or writes it. */
typedef struct side {
  kk_view_t *v;
  kk_instance_t *inst;
  mpi_plan_t plan;
  kk_mpi_path_t path;
  void *ptr;
  mpi_buf_t *mbuf;
} side_t;

static kk_status_t side_init(kk_mpi_comm_t *c, const char *op, kk_mpi_what_t *what, kk_view_t *v, kk_instance_t *given,
                             side_t *s) {
  memset(s, 0, sizeof *s);
  s->v = v;
  kk_status_t st = kk_mpi__instance(c, op, v, given, &s->inst);
  if (st == KK_OK)
    st = kk_mpi__plan(what, v, &s->plan);
  s->path = kk_mpi__path(c, v);
  return st;
}

/* Runs the collective `run` between the sides' staging and unpacking, once
 * the ranks agree (agree(), with `g` and the status `st` of the caller's own
 * checks).  `out` (the side MPI writes) is staged in, or out and in when it
 * is also read (in place, or the root of a broadcast). */
typedef int (*run_fn)(void *ctx, void *sendptr, void *recvptr);

/* What an NCCL collective needs besides the sides. */
typedef struct nccl_args {
  int coll;                 /* KK_MPI_NCCL_ALLREDUCE ... */
  kk_type_t type;
  size_t elem_size, count;  /* allgather: per rank */
  int op, root;             /* -1 when unused */
} nccl_args_t;

static int is_cuda(kk_instance_t *inst) {
  return inst && kk_mpi__nccl_serves(kk_instance_backend(inst));
}

/* Whether this collective goes through NCCL: c has an NCCL communicator,
 * every view is device memory of the backend it serves (cuda; hip for
 * RCCL), and NCCL has the
 * reduction.  The ranks compare the answer in the collective check. */
static int use_nccl(const kk_mpi_comm_t *c, const side_t *in, const side_t *out, const nccl_args_t *na) {
  if (!c->nccl_on || !na || out->path == KK_MPI_PATH_HOST || !is_cuda(out->inst))
    return 0;
  if (in && (in->path == KK_MPI_PATH_HOST || !is_cuda(in->inst)))
    return 0;
  return kk_mpi__nccl_can(na->type, na->op);
}

/* The collective on NCCL: strided views packed into device buffers on
 * their instance, the NCCL operation queued on out's stream after them,
 * the unpack after it, and one wait (bounded, kk_mpi__nccl_sync) at the
 * end. */
static kk_status_t collective_nccl(kk_mpi_comm_t *c, kk_mpi_what_t *what, sig_t g, side_t *in, side_t *out,
                                   int out_is_read, const nccl_args_t *na) {
  const kk_mpi_path_t dev = KK_MPI_PATH_GPU_AWARE; /* device buffers, no pinned copies */
  kk_status_t st = KK_OK;
  /* every use of the buffers is queued on out's stream (in's is ordered before it below when it differs) */
  c->ordered_on = in && in->inst != out->inst ? NULL : out->inst;
  if (in)
    st = kk_mpi__stage_out(c, what, in->inst, in->v, &in->plan, dev, &in->ptr, &in->mbuf, NULL);
  if (st == KK_OK && out_is_read)
    st = kk_mpi__stage_out(c, what, out->inst, out->v, &out->plan, dev, &out->ptr, &out->mbuf, NULL);
  else if (st == KK_OK)
    st = kk_mpi__stage_in(c, what, out->inst, out->v, &out->plan, dev, &out->ptr, &out->mbuf);
  c->ordered_on = NULL;
  /* one stream carries the operation: it is ordered after the packing on
   * in's instance on the device (kk_instance_wait), and the wait at the end
   * covers both */
  if (st == KK_OK && in && in->inst != out->inst && (st = kk_instance_wait(out->inst, in->inst)) != KK_OK)
    st = kk_set_error(st, "%s: ordering the operation after the send view's instance: %s", kk_mpi__what(what),
                      kk_last_error());
  g.v[SIG_NCCL] = 1;
  if ((st = agree(c, what, g, st)) != KK_OK)
    goto done;
  if (out->plan.count > 0 || (in && in->plan.count > 0))
    st = kk_mpi__nccl_coll(c, what, out->inst, na->coll, in ? in->ptr : out->ptr, out->ptr, na->count, na->type,
                           na->elem_size, na->op, na->root);
  if (st != KK_OK)
    goto done;
  kk_mpi__count(c, KK_MPI_PATH_NCCL, out->plan.bytes);
  if (c->debug)
    kk_mpi__debug(c, "%s (%zu bytes): path nccl%s", kk_mpi__what(what), out->plan.bytes,
                  (in && !in->plan.contiguous) || !out->plan.contiguous ? ", packed by kk kernels on the stream"
                                                                         : ", contiguous");
  st = kk_mpi__finish_in(c, what, out->inst, out->v, &out->plan, dev, out->mbuf, NULL);
  out->mbuf = NULL; /* finish_in returned it */
  if (st == KK_OK)
    st = kk_mpi__nccl_sync(c, what, out->inst);
  /* out's stream waited for in's work queued so far: done too */
  if (st == KK_OK && in && in->inst != out->inst)
    kk_mpi__bufs_done(c, in->inst);
done:
  /* queued work may still use the buffers until the instance is fenced */
  kk_mpi__buf_put(out->mbuf, out->inst);
  if (in)
    kk_mpi__buf_put(in->mbuf, in->inst);
  return st;
}

static kk_status_t collective(kk_mpi_comm_t *c, kk_mpi_what_t *what, sig_t g, kk_status_t st, side_t *in, side_t *out,
                              int out_is_read, run_fn run, void *ctx, const char *fn, const nccl_args_t *na) {
  if (st != KK_OK)
    return agree(c, what, g, st);
  if (use_nccl(c, in, out, na))
    return collective_nccl(c, what, g, in, out, out_is_read, na);
  if (in)
    st = kk_mpi__stage_out(c, what, in->inst, in->v, &in->plan, in->path, &in->ptr, &in->mbuf, NULL);
  if (st == KK_OK && out_is_read)
    st = kk_mpi__stage_out(c, what, out->inst, out->v, &out->plan, out->path, &out->ptr, &out->mbuf, NULL);
  else if (st == KK_OK)
    st = kk_mpi__stage_in(c, what, out->inst, out->v, &out->plan, out->path, &out->ptr, &out->mbuf);
  /* the staging is complete, and so is the work that wrote the views or
   * still reads the one MPI writes */
  if (st == KK_OK && in)
    st = kk_mpi__fence(c, in->inst, what);
  if (st == KK_OK && (!in || out->inst != in->inst))
    st = kk_mpi__fence(c, out->inst, what);
  /* a rank that failed so far still takes part in the check, so that the
   * others do not wait for it in MPI */
  if ((st = agree(c, what, g, st)) != KK_OK)
    goto done;
  int err = run(ctx, in ? in->ptr : MPI_IN_PLACE, out->ptr);
  if (err != MPI_SUCCESS) {
    st = kk_mpi__fail(err, fn, kk_mpi__what(what));
    goto done;
  }
  kk_mpi__count(c, out->path, out->plan.bytes);
  if (c->debug)
    kk_mpi__debug(c, "%s (%zu bytes): path %s%s", kk_mpi__what(what), out->plan.bytes, kk_mpi_path_name(out->path),
                  (in && !in->plan.contiguous) || !out->plan.contiguous ? ", packed by kk kernels" : ", contiguous");
  if ((st = kk_mpi__finish_in(c, what, out->inst, out->v, &out->plan, out->path, out->mbuf, NULL)) == KK_OK)
    st = kk_mpi__fence(c, out->inst, what);
  out->mbuf = NULL; /* finish_in returned it */
done:
  kk_mpi__buf_put(out->mbuf, NULL);
  if (in)
    kk_mpi__buf_put(in->mbuf, NULL);
  return st;
}

/* The element count of view v, or 0 for none. */
static size_t view_count(kk_view_t *v) { return v ? kk_view_size(v) : 0; }

/* ---- allreduce ------------------------------------------------------------- */

struct allreduce_ctx {
  MPI_Comm comm;
  int count;
  MPI_Datatype dt;
  MPI_Op op;
};

static int run_allreduce(void *p, void *sendptr, void *recvptr) {
  struct allreduce_ctx *a = p;
  return MPI_Allreduce(sendptr, recvptr, a->count, a->dt, a->op, a->comm);
}

/* kk_mpi_allreduce's own checks of its arguments (send NULL: in place). */
static kk_status_t allreduce_args(kk_mpi_comm_t *c, kk_mpi_what_t *what, kk_instance_t *instance, kk_view_t *send,
                                  kk_view_t *recv, kk_reducer_op_t op, side_t *in, side_t *out,
                                  struct allreduce_ctx *a) {
  const char *opn = what->op;
  kk_status_t st;
  if (!recv)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL receive view", opn);
  if ((st = side_init(c, opn, what, recv, instance, out)) != KK_OK ||
      (send && (st = side_init(c, opn, what, send, instance, in)) != KK_OK))
    return st;
  if (send) {
    if ((st = same_type(opn, send, recv)) != KK_OK)
      return st;
    if (kk_view_size(send) != kk_view_size(recv))
      return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: send view '%s' has %zu elements, receive view '%s' %zu", opn,
                          kk_view_label(send), kk_view_size(send), kk_view_label(recv), kk_view_size(recv));
    if ((st = kk_mpi__same_order(opn, send, &in->plan, recv, &out->plan)) != KK_OK)
      return st;
  }
  if ((st = mpi_op(what, kk_view_type(recv), op, &a->op)) != KK_OK)
    return st;
  return kk_mpi__datatype(what, kk_view_type(recv), kk_view_elem_size(recv), out->plan.count, &a->dt, &a->count);
}

kk_status_t kk_mpi_allreduce(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *send, kk_view_t *recv,
                             kk_reducer_op_t op) {
  const char *opn = "kk_mpi_allreduce";
  kk_status_t st = kk_mpi__check_comm(c, opn);
  if (st != KK_OK)
    return st;
  if (send == recv)
    send = NULL;
  kk_mpi_what_t what_;
  kk_mpi_what_t *const what = &what_;
  kk_mpi__what_init(what, opn, recv);
  side_t in, out;
  memset(&in, 0, sizeof in);
  memset(&out, 0, sizeof out);
  struct allreduce_ctx a = {c->comm, 0, MPI_DATATYPE_NULL, MPI_OP_NULL};
  st = allreduce_args(c, what, instance, send, recv, op, &in, &out, &a);
  sig_t g = sig_make(COLL_ALLREDUCE, recv ? kk_view_type(recv) : KK_TYPE_CUSTOM, recv ? kk_view_elem_size(recv) : 0,
                     view_count(recv), (int)op, -1);
  nccl_args_t na = {KK_MPI_NCCL_ALLREDUCE, recv ? kk_view_type(recv) : KK_TYPE_CUSTOM, recv ? kk_view_elem_size(recv) : 0,
                    view_count(recv), (int)op, -1};
  return collective(c, what, g, st, send ? &in : NULL, &out, send == NULL, run_allreduce, &a, "MPI_Allreduce", &na);
}

kk_status_t kk_mpi_allreduce_value(kk_mpi_comm_t *c, kk_type_t type, kk_reducer_op_t op, const void *in, void *out) {
  const char *opn = "kk_mpi_allreduce_value";
  kk_status_t st = kk_mpi__check_comm(c, opn);
  if (st != KK_OK)
    return st;
  MPI_Datatype dt;
  MPI_Op mop;
  int count;
  kk_mpi_what_t what;
  kk_mpi__what_init(&what, opn, NULL);
  if (!in || !out)
    st = kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL value", opn);
  else if (type == KK_TYPE_CUSTOM)
    st = kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: custom values have no MPI reduction", opn);
  else if ((st = mpi_op(&what, type, op, &mop)) == KK_OK)
    st = kk_mpi__datatype(&what, type, 0, 1, &dt, &count);
  if ((st = agree(c, &what, sig_make(COLL_ALLREDUCE, type, 0, 1, (int)op, -1), st)) != KK_OK)
    return st;
  int err = MPI_Allreduce(in == out ? MPI_IN_PLACE : in, out, 1, dt, mop, c->comm);
  return err == MPI_SUCCESS ? KK_OK : kk_mpi__fail(err, "MPI_Allreduce", opn);
}

/* ---- broadcast ------------------------------------------------------------- */

struct bcast_ctx {
  MPI_Comm comm;
  int count, root;
  MPI_Datatype dt;
};

static int run_bcast(void *p, void *sendptr, void *recvptr) {
  (void)sendptr;
  struct bcast_ctx *b = p;
  return MPI_Bcast(recvptr, b->count, b->dt, b->root, b->comm);
}

kk_status_t kk_mpi_broadcast(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *view, int root) {
  const char *opn = "kk_mpi_broadcast";
  kk_status_t st = kk_mpi__check_comm(c, opn);
  if (st != KK_OK)
    return st;
  kk_mpi_what_t what_;
  kk_mpi_what_t *const what = &what_;
  kk_mpi__what_init(what, opn, view);
  side_t s;
  memset(&s, 0, sizeof s);
  struct bcast_ctx b = {c->comm, 0, root, MPI_DATATYPE_NULL};
  if (!view)
    st = kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL view", opn);
  else if (root < 0 || root >= c->size)
    st = kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: root %d is not a rank of the communicator (size %d)", opn, root,
                      c->size);
  else if ((st = side_init(c, opn, what, view, instance, &s)) == KK_OK)
    st = kk_mpi__datatype(what, kk_view_type(view), kk_view_elem_size(view), s.plan.count, &b.dt, &b.count);
  sig_t g = sig_make(COLL_BROADCAST, view ? kk_view_type(view) : KK_TYPE_CUSTOM, view ? kk_view_elem_size(view) : 0,
                     view_count(view), -1, root);
  nccl_args_t na = {KK_MPI_NCCL_BROADCAST, view ? kk_view_type(view) : KK_TYPE_CUSTOM, view ? kk_view_elem_size(view) : 0,
                    view_count(view), -1, root};
  if (st == KK_OK && use_nccl(c, NULL, &s, &na))
    return collective_nccl(c, what, g, NULL, &s, c->rank == root, &na); /* the root's view is read, in place */
  if (st != KK_OK || c->rank != root)
    return collective(c, what, g, st, NULL, &s, 0, run_bcast, &b, "MPI_Bcast", NULL);
  /* the root only reads its view: stage it out, and nothing comes back */
  if ((st = kk_mpi__stage_out(c, what, s.inst, view, &s.plan, s.path, &s.ptr, &s.mbuf, NULL)) == KK_OK)
    st = kk_mpi__fence(c, s.inst, what);
  if ((st = agree(c, what, g, st)) == KK_OK) {
    int err = MPI_Bcast(s.ptr, b.count, b.dt, root, c->comm);
    if (err != MPI_SUCCESS)
      st = kk_mpi__fail(err, "MPI_Bcast", kk_mpi__what(what));
    else
      kk_mpi__count(c, s.path, s.plan.bytes);
  }
  kk_mpi__buf_put(s.mbuf, NULL);
  return st;
}

kk_status_t kk_mpi_broadcast_value(kk_mpi_comm_t *c, kk_type_t type, void *value, int root) {
  const char *opn = "kk_mpi_broadcast_value";
  kk_status_t st = kk_mpi__check_comm(c, opn);
  if (st != KK_OK)
    return st;
  MPI_Datatype dt;
  int count;
  kk_mpi_what_t what;
  kk_mpi__what_init(&what, opn, NULL);
  if (!value)
    st = kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL value", opn);
  else if (type == KK_TYPE_CUSTOM)
    st = kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: a custom value has no size here (use a view)", opn);
  else if (root < 0 || root >= c->size)
    st = kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: root %d is not a rank of the communicator (size %d)", opn, root,
                      c->size);
  else
    st = kk_mpi__datatype(&what, type, 0, 1, &dt, &count);
  if ((st = agree(c, &what, sig_make(COLL_BROADCAST, type, 0, 1, -1, root), st)) != KK_OK)
    return st;
  int err = MPI_Bcast(value, 1, dt, root, c->comm);
  return err == MPI_SUCCESS ? KK_OK : kk_mpi__fail(err, "MPI_Bcast", opn);
}

/* ---- allgather -------------------------------------------------------------- */

struct allgather_ctx {
  MPI_Comm comm;
  int count;
  MPI_Datatype dt;
};

static int run_allgather(void *p, void *sendptr, void *recvptr) {
  struct allgather_ctx *g = p;
  return MPI_Allgather(sendptr, g->count, g->dt, recvptr, g->count, g->dt, g->comm);
}

/* kk_mpi_allgather's own checks of its arguments. */
static kk_status_t allgather_args(kk_mpi_comm_t *c, kk_mpi_what_t *what, kk_instance_t *instance, kk_view_t *send,
                                  kk_view_t *recv, side_t *in, side_t *out, struct allgather_ctx *g) {
  const char *opn = what->op;
  kk_status_t st;
  if (!send || !recv)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL %s view", opn, send ? "receive" : "send");
  if (send == recv)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: send and receive are the same view '%s'", opn,
                        kk_view_label(send));
  if ((st = same_type(opn, send, recv)) != KK_OK)
    return st;
  if (kk_view_size(recv) != kk_view_size(send) * (size_t)c->size)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT,
                        "%s: receive view '%s' has %zu elements, not %d ranks x %zu elements of send view '%s'", opn,
                        kk_view_label(recv), kk_view_size(recv), c->size, kk_view_size(send), kk_view_label(send));
  if ((st = side_init(c, opn, what, send, instance, in)) != KK_OK ||
      (st = side_init(c, opn, what, recv, instance, out)) != KK_OK)
    return st;
  return kk_mpi__datatype(what, kk_view_type(send), kk_view_elem_size(send), in->plan.count, &g->dt, &g->count);
}

kk_status_t kk_mpi_allgather(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *send, kk_view_t *recv) {
  const char *opn = "kk_mpi_allgather";
  kk_status_t st = kk_mpi__check_comm(c, opn);
  if (st != KK_OK)
    return st;
  kk_mpi_what_t what_;
  kk_mpi_what_t *const what = &what_;
  kk_mpi__what_init(what, opn, send);
  side_t in, out;
  memset(&in, 0, sizeof in);
  memset(&out, 0, sizeof out);
  struct allgather_ctx ga = {c->comm, 0, MPI_DATATYPE_NULL};
  st = allgather_args(c, what, instance, send, recv, &in, &out, &ga);
  sig_t g = sig_make(COLL_ALLGATHER, send ? kk_view_type(send) : KK_TYPE_CUSTOM, send ? kk_view_elem_size(send) : 0,
                     view_count(send), -1, -1);
  nccl_args_t na = {KK_MPI_NCCL_ALLGATHER, send ? kk_view_type(send) : KK_TYPE_CUSTOM, send ? kk_view_elem_size(send) : 0,
                    view_count(send), -1, -1};
  return collective(c, what, g, st, &in, &out, 0, run_allgather, &ga, "MPI_Allgather", &na);
}

kk_status_t kk_mpi_allgather_value(kk_mpi_comm_t *c, kk_type_t type, const void *in, void *out) {
  const char *opn = "kk_mpi_allgather_value";
  kk_status_t st = kk_mpi__check_comm(c, opn);
  if (st != KK_OK)
    return st;
  MPI_Datatype dt;
  int count;
  kk_mpi_what_t what;
  kk_mpi__what_init(&what, opn, NULL);
  if (!in || !out)
    st = kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL value", opn);
  else if (type == KK_TYPE_CUSTOM)
    st = kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: a custom value has no size here (use a view)", opn);
  else
    st = kk_mpi__datatype(&what, type, 0, 1, &dt, &count);
  if ((st = agree(c, &what, sig_make(COLL_ALLGATHER, type, 0, 1, -1, -1), st)) != KK_OK)
    return st;
  int err = MPI_Allgather(in, 1, dt, out, 1, dt, c->comm);
  return err == MPI_SUCCESS ? KK_OK : kk_mpi__fail(err, "MPI_Allgather", opn);
}
