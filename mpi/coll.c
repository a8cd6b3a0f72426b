/* mpi/coll.c -- collectives on views and scalars: allreduce, broadcast, allgather. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "internal.h"

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

/* Runs the collective `run` between the sides' staging and unpacking.
 * `out` (the side MPI writes) is staged in, or out and in when it is also
 * read (in place, or the root of a broadcast). */
typedef int (*run_fn)(void *ctx, void *sendptr, void *recvptr);

static kk_status_t collective(kk_mpi_comm_t *c, kk_mpi_what_t *what, side_t *in, side_t *out, int out_is_read,
                              run_fn run, void *ctx, const char *fn) {
  kk_status_t st = KK_OK;
  if (in && (st = kk_mpi__stage_out(c, what, in->inst, in->v, &in->plan, in->path, &in->ptr, &in->mbuf, NULL)) != KK_OK)
    return st;
  if (out_is_read)
    st = kk_mpi__stage_out(c, what, out->inst, out->v, &out->plan, out->path, &out->ptr, &out->mbuf, NULL);
  else
    st = kk_mpi__stage_in(c, what, out->inst, out->v, &out->plan, out->path, &out->ptr, &out->mbuf);
  if (st != KK_OK)
    goto done;
  /* the staging is complete, and so is the work that wrote the views or
   * still reads the one MPI writes */
  if ((in && (st = kk_mpi__fence(c, in->inst, what)) != KK_OK) ||
      ((!in || out->inst != in->inst) && (st = kk_mpi__fence(c, out->inst, what)) != KK_OK))
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

kk_status_t kk_mpi_allreduce(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *send, kk_view_t *recv,
                             kk_reducer_op_t op) {
  const char *opn = "kk_mpi_allreduce";
  kk_status_t st = kk_mpi__check_comm(c, opn);
  if (st != KK_OK)
    return st;
  if (!recv)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL receive view", opn);
  if (send == recv)
    send = NULL;
  kk_mpi_what_t what_;
  kk_mpi_what_t *const what = &what_;
  kk_mpi__what_init(what, opn, recv);
  side_t in, out;
  struct allreduce_ctx a = {c->comm, 0, MPI_DATATYPE_NULL, MPI_OP_NULL};
  if ((st = side_init(c, opn, what, recv, instance, &out)) != KK_OK ||
      (send && (st = side_init(c, opn, what, send, instance, &in)) != KK_OK))
    return st;
  if (send) {
    if ((st = same_type(opn, send, recv)) != KK_OK)
      return st;
    if (kk_view_size(send) != kk_view_size(recv))
      return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: send view '%s' has %zu elements, receive view '%s' %zu", opn,
                          kk_view_label(send), kk_view_size(send), kk_view_label(recv), kk_view_size(recv));
    if ((st = kk_mpi__same_order(opn, send, &in.plan, recv, &out.plan)) != KK_OK)
      return st;
  }
  if ((st = mpi_op(what, kk_view_type(recv), op, &a.op)) != KK_OK ||
      (st = kk_mpi__datatype(what, kk_view_type(recv), kk_view_elem_size(recv), out.plan.count, &a.dt, &a.count)) !=
          KK_OK)
    return st;
  return collective(c, what, send ? &in : NULL, &out, send == NULL, run_allreduce, &a, "MPI_Allreduce");
}

kk_status_t kk_mpi_allreduce_value(kk_mpi_comm_t *c, kk_type_t type, kk_reducer_op_t op, const void *in, void *out) {
  const char *opn = "kk_mpi_allreduce_value";
  kk_status_t st = kk_mpi__check_comm(c, opn);
  if (st != KK_OK)
    return st;
  if (!in || !out)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL value", opn);
  MPI_Datatype dt;
  MPI_Op mop;
  int count;
  if (type == KK_TYPE_CUSTOM)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: custom values have no MPI reduction", opn);
  kk_mpi_what_t what;
  kk_mpi__what_init(&what, opn, NULL);
  if ((st = mpi_op(&what, type, op, &mop)) != KK_OK || (st = kk_mpi__datatype(&what, type, 0, 1, &dt, &count)) != KK_OK)
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
  if (!view)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL view", opn);
  if (root < 0 || root >= c->size)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: root %d is not a rank of the communicator (size %d)", opn,
                        root, c->size);
  kk_mpi_what_t what_;
  kk_mpi_what_t *const what = &what_;
  kk_mpi__what_init(what, opn, view);
  side_t s;
  struct bcast_ctx b = {c->comm, 0, root, MPI_DATATYPE_NULL};
  if ((st = side_init(c, opn, what, view, instance, &s)) != KK_OK ||
      (st = kk_mpi__datatype(what, kk_view_type(view), kk_view_elem_size(view), s.plan.count, &b.dt, &b.count)) !=
          KK_OK)
    return st;
  if (c->rank != root)
    return collective(c, what, NULL, &s, 0, run_bcast, &b, "MPI_Bcast");
  /* the root only reads its view: stage it out, and nothing comes back */
  if ((st = kk_mpi__stage_out(c, what, s.inst, view, &s.plan, s.path, &s.ptr, &s.mbuf, NULL)) == KK_OK &&
      (st = kk_mpi__fence(c, s.inst, what)) == KK_OK) {
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
  if (!value)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL value", opn);
  if (type == KK_TYPE_CUSTOM)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: a custom value has no size here (use a view)", opn);
  if (root < 0 || root >= c->size)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: root %d is not a rank of the communicator (size %d)", opn,
                        root, c->size);
  MPI_Datatype dt;
  int count;
  kk_mpi_what_t what;
  kk_mpi__what_init(&what, opn, NULL);
  if ((st = kk_mpi__datatype(&what, type, 0, 1, &dt, &count)) != KK_OK)
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

kk_status_t kk_mpi_allgather(kk_mpi_comm_t *c, kk_instance_t *instance, kk_view_t *send, kk_view_t *recv) {
  const char *opn = "kk_mpi_allgather";
  kk_status_t st = kk_mpi__check_comm(c, opn);
  if (st != KK_OK)
    return st;
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
  kk_mpi_what_t what_;
  kk_mpi_what_t *const what = &what_;
  kk_mpi__what_init(what, opn, send);
  side_t in, out;
  struct allgather_ctx g = {c->comm, 0, MPI_DATATYPE_NULL};
  if ((st = side_init(c, opn, what, send, instance, &in)) != KK_OK ||
      (st = side_init(c, opn, what, recv, instance, &out)) != KK_OK ||
      (st = kk_mpi__datatype(what, kk_view_type(send), kk_view_elem_size(send), in.plan.count, &g.dt, &g.count)) !=
          KK_OK)
    return st;
  return collective(c, what, &in, &out, 0, run_allgather, &g, "MPI_Allgather");
}

kk_status_t kk_mpi_allgather_value(kk_mpi_comm_t *c, kk_type_t type, const void *in, void *out) {
  const char *opn = "kk_mpi_allgather_value";
  kk_status_t st = kk_mpi__check_comm(c, opn);
  if (st != KK_OK)
    return st;
  if (!in || !out)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL value", opn);
  if (type == KK_TYPE_CUSTOM)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: a custom value has no size here (use a view)", opn);
  MPI_Datatype dt;
  int count;
  kk_mpi_what_t what;
  kk_mpi__what_init(&what, opn, NULL);
  if ((st = kk_mpi__datatype(&what, type, 0, 1, &dt, &count)) != KK_OK)
    return st;
  int err = MPI_Allgather(in, 1, dt, out, 1, dt, c->comm);
  return err == MPI_SUCCESS ? KK_OK : kk_mpi__fail(err, "MPI_Allgather", opn);
}
