/* mpi/pack.c -- how a view reaches MPI: its walk (plan), its MPI datatype, the pack and unpack kernels, staging. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "nccl.h"

kk_status_t kk_mpi__plan(kk_mpi_what_t *what, kk_view_t *v, mpi_plan_t *p) {
  memset(p, 0, sizeof *p);
  const int rank = kk_view_rank(v);
  const size_t esize = kk_view_elem_size(v);
  p->count = (int64_t)kk_view_size(v);
  p->bytes = (size_t)p->count * esize;
  p->word = 1;
  if (p->count == 0) {
    p->contiguous = 1;
    return KK_OK;
  }
  /* the dimensions that matter, largest stride first (ties keep index order) */
  int n = 0;
  for (int d = 0; d < rank; d++)
    if (kk_view_extent(v, d) > 1) {
      int k = n++;
      while (k > 0 && kk_view_stride(v, p->order[k - 1]) < kk_view_stride(v, d)) {
        p->order[k] = p->order[k - 1];
        k--;
      }
      p->order[k] = d;
    }
  p->order_n = n;
  /* the widest word that divides the element and its address */
  const uintptr_t addr = (uintptr_t)kk_view_data(v);
  int w = 8;
  while (w > 1 && (esize % (size_t)w != 0 || addr % (uintptr_t)w != 0))
    w /= 2;
  p->word = w;
  const int64_t nw = (int64_t)(esize / (size_t)w);
  int64_t ext[KK_MPI_PLAN_DIMS], str[KK_MPI_PLAN_DIMS];
  int m = 0;
  for (int k = 0; k < n; k++) {
    ext[m] = kk_view_extent(v, p->order[k]);
    str[m++] = kk_view_stride(v, p->order[k]) * nw;
  }
  if (nw > 1 || m == 0) {
    ext[m] = nw;
    str[m++] = 1;
  }
  /* merge a dimension into the next faster one where they continue each other */
  int64_t oe[KK_MPI_PLAN_DIMS], os[KK_MPI_PLAN_DIMS];
  int o = 0;
  for (int k = m - 1; k >= 0; k--) {
    if (o > 0 && str[k] == os[o - 1] * oe[o - 1])
      oe[o - 1] *= ext[k];
    else
      oe[o] = ext[k], os[o++] = str[k];
  }
  if (o > KK_MPI_PLAN_DIMS)
    return kk_set_error(KK_ERROR_LIMIT, "%s: view '%s' has too many dimensions to pack", kk_mpi__what(what), kk_view_label(v));
  p->rank = o;
  for (int k = 0; k < o; k++) {
    p->ext[k] = oe[o - 1 - k];
    p->str[k] = os[o - 1 - k];
  }
  p->contiguous = o == 1 && p->str[0] == 1;
  return KK_OK;
}

kk_status_t kk_mpi__datatype(kk_mpi_what_t *what, kk_type_t type, size_t elem_size, int64_t count, MPI_Datatype *dt,
                             int *mcount) {
  int64_t mult = 1;
  switch (type) {
  case KK_INT8: *dt = MPI_INT8_T; break;
  case KK_UINT8: *dt = MPI_UINT8_T; break;
  case KK_INT16: *dt = MPI_INT16_T; break;
  case KK_UINT16: *dt = MPI_UINT16_T; break;
  case KK_INT32: *dt = MPI_INT32_T; break;
  case KK_UINT32: *dt = MPI_UINT32_T; break;
  case KK_INT64: *dt = MPI_INT64_T; break;
  case KK_UINT64: *dt = MPI_UINT64_T; break;
  case KK_FLOAT: *dt = MPI_FLOAT; break;
  case KK_DOUBLE: *dt = MPI_DOUBLE; break;
  case KK_COMPLEX_FLOAT: *dt = MPI_C_FLOAT_COMPLEX; break;
  case KK_COMPLEX_DOUBLE: *dt = MPI_C_DOUBLE_COMPLEX; break;
  case KK_TYPE_CUSTOM:
    *dt = MPI_BYTE;
    mult = (int64_t)elem_size;
    break;
  default:
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "%s: element type %d has no MPI datatype", kk_mpi__what(what), (int)type);
  }
  if (count > INT_MAX / mult)
    return kk_set_error(KK_ERROR_LIMIT, "%s: %lld elements are more than one MPI message carries (count %d)", kk_mpi__what(what),
                        (long long)count, INT_MAX);
  *mcount = (int)(count * mult);
  return KK_OK;
}

kk_status_t kk_mpi__same_order(const char *op, kk_view_t *a, const mpi_plan_t *pa, kk_view_t *b,
                               const mpi_plan_t *pb) {
  int r = kk_view_rank(a);
  if (r < 2 || r != kk_view_rank(b))
    return KK_OK;
  for (int d = 0; d < r; d++)
    if (kk_view_extent(a, d) != kk_view_extent(b, d))
      return KK_OK;
  for (int k = 0; k < pa->order_n; k++)
    if (pa->order[k] != pb->order[k])
      return kk_set_error(KK_ERROR_INVALID_ARGUMENT,
                          "%s: views '%s' and '%s' have the same extents but order their elements differently "
                          "(layouts %d and %d): their elements would not pair up",
                          op, kk_view_label(a), kk_view_label(b), (int)kk_view_layout(a), (int)kk_view_layout(b));
  return KK_OK;
}

/* ---- the kernels ---------------------------------------------------------- */

#define KK_MPI_PACK_ROW(W)                                                                        \
  {KK_KERNEL(kk_mpi_pack1_w##W), KK_KERNEL(kk_mpi_pack2_w##W), KK_KERNEL(kk_mpi_pack3_w##W),       \
   KK_KERNEL(kk_mpi_packn_w##W)},                                                                  \
  {                                                                                                \
    KK_KERNEL(kk_mpi_unpack1_w##W), KK_KERNEL(kk_mpi_unpack2_w##W), KK_KERNEL(kk_mpi_unpack3_w##W), \
        KK_KERNEL(kk_mpi_unpackn_w##W)                                                             \
  }
/* [word 1, 2, 4, 8][pack, unpack][rank 1, 2, 3, any] */
static kk_kernel_t *const kernels[4][2][4] = {{KK_MPI_PACK_ROW(1)}, {KK_MPI_PACK_ROW(2)}, {KK_MPI_PACK_ROW(4)},
                                              {KK_MPI_PACK_ROW(8)}};

/* Row of a kernel table for words of w bytes. */
static int word_index(int w) { return w == 8 ? 3 : w == 4 ? 2 : w == 2 ? 1 : 0; }

static void count_launch(kk_mpi_comm_t *c, int unpack) {
  if (unpack)
    c->stats.unpack_launches++;
  else
    c->stats.pack_launches++;
}

kk_status_t kk_mpi__pack(kk_mpi_comm_t *c, kk_instance_t *inst, const mpi_plan_t *p, void *view_data, void *buf,
                         int unpack) {
  const int wi = word_index(p->word);
  const int shape = p->rank <= 3 ? p->rank - 1 : 3;
  kk_kernel_t *k = kernels[wi][unpack][shape];
  const char *label = unpack ? "kk_mpi_unpack" : "kk_mpi_pack";
  struct kk_mpi_pack_args a;
  memset(&a, 0, sizeof a);
  a.view.d.data = view_data;
  a.buf.d.data = buf;
  a.rank = p->rank;
  int64_t words = 1;
  for (int d = 0; d < p->rank; d++) {
    a.ext[d] = p->ext[d];
    a.str[d] = p->str[d];
    words *= p->ext[d];
  }
  kk_status_t st;
  if (shape == 1 || shape == 2) {
    /* the last (smallest-stride) index innermost on every backend */
    kk_md_policy_t mp = {sizeof mp, p->rank, KK_ITERATE_RIGHT, KK_ITERATE_RIGHT, {0}, {0}, {0}, inst};
    for (int d = 0; d < p->rank; d++)
      mp.end[d] = p->ext[d];
    st = kk_parallel_for_md(label, &mp, k, KK_ARGS(a));
  } else {
    kk_range_policy_t rp = {sizeof rp, 0, words, 0, KK_SCHEDULE_STATIC, inst};
    st = kk_parallel_for(label, &rp, k, KK_ARGS(a));
  }
  if (st == KK_OK)
    count_launch(c, unpack);
  return st;
}

/* The batch table travels as kernel arguments: it must fit the 3584 bytes a
 * SPIR-V launch carries, and 4 KiB of CUDA/HIP parameters beside the launch
 * record (392 bytes). */
_Static_assert(sizeof(struct kk_mpi_batch_args) <= 3072, "kk_mpi_batch_args too large for a kernel launch");

/* [word 1, 2, 4, 8][pack, unpack]: one index per word (device backends) */
static kk_kernel_t *const batch_kernels[4][2] = {
    {KK_KERNEL(kk_mpi_packb_w1), KK_KERNEL(kk_mpi_unpackb_w1)},
    {KK_KERNEL(kk_mpi_packb_w2), KK_KERNEL(kk_mpi_unpackb_w2)},
    {KK_KERNEL(kk_mpi_packb_w4), KK_KERNEL(kk_mpi_unpackb_w4)},
    {KK_KERNEL(kk_mpi_packb_w8), KK_KERNEL(kk_mpi_unpackb_w8)}};

/* [word 1, 2, 4, 8][pack, unpack]: one index per part of a view (host backends) */
static kk_kernel_t *const part_kernels[4][2] = {
    {KK_KERNEL(kk_mpi_packp_w1), KK_KERNEL(kk_mpi_unpackp_w1)},
    {KK_KERNEL(kk_mpi_packp_w2), KK_KERNEL(kk_mpi_unpackp_w2)},
    {KK_KERNEL(kk_mpi_packp_w4), KK_KERNEL(kk_mpi_unpackp_w4)},
    {KK_KERNEL(kk_mpi_packp_w8), KK_KERNEL(kk_mpi_unpackp_w8)}};

/* A part of a view on the host path has at least this many words (unless
 * the view has fewer): below that a thread's share costs less than waking
 * it. */
enum { PART_MIN_WORDS = 256 };

static int batchable(const mpi_job_t *j) { return j->pack && j->plan.rank <= 3; }

int kk_mpi__host_threads(const kk_mpi_comm_t *c, kk_instance_t *inst) {
  const mpi_backend_t *b = kk_mpi__backend(c, kk_instance_backend(inst));
  return b && b->is_host ? (b->threads > 0 ? b->threads : 1) : 0;
}

kk_status_t kk_mpi__pack_jobs(kk_mpi_comm_t *c, int n, mpi_job_t *jobs, int unpack) {
  char done[KK_MPI_BATCH_MAX] = {0};
  if (n > KK_MPI_BATCH_MAX)
    return kk_set_error(KK_ERROR_INTERNAL, "kk_mpi: %d pack jobs in one batch (at most %d)", n, KK_MPI_BATCH_MAX);
  for (int i = 0; i < n; i++) {
    mpi_job_t *ji = &jobs[i];
    if (!ji->pack || done[i])
      continue;
    done[i] = 1;
    /* the jobs after it that can share its launch */
    int group[KK_MPI_BATCH_MAX], g = 0;
    if (batchable(ji))
      for (int k = i + 1; k < n; k++)
        if (!done[k] && batchable(&jobs[k]) && jobs[k].inst == ji->inst && jobs[k].plan.word == ji->plan.word)
          group[g++] = k, done[k] = 1;
    /* on a host backend even a view alone takes the part kernels (a row
     * loop per part, where the single-view kernels index every word) */
    const int threads = batchable(ji) ? kk_mpi__host_threads(c, ji->inst) : 0;
    kk_status_t st;
    if (g == 0 && threads == 0) {
      if ((st = kk_mpi__pack(c, ji->inst, &ji->plan, ji->data, ji->buf, unpack)) != KK_OK)
        return st;
      continue;
    }
    struct kk_mpi_batch_args a;
    memset(&a, 0, sizeof a);
    int64_t total = 0, most = 0;
    for (int f = 0; f <= g; f++) {
      const mpi_job_t *j = f == 0 ? ji : &jobs[group[f - 1]];
      const int r = j->plan.rank;
      a.view[f].d.data = j->data;
      a.buf[f].d.data = j->buf;
      a.first[f] = total;
      int64_t words = 1;
      for (int d = 0; d < 3; d++) {
        const int pd = d - (3 - r); /* the plan's dimension, padded in front */
        a.ext[f][d] = pd < 0 ? 1 : j->plan.ext[pd];
        a.str[f][d] = pd < 0 ? 0 : j->plan.str[pd];
        words *= a.ext[f][d];
      }
      total += words;
      most = words > most ? words : most;
    }
    a.n = g + 1;
    a.first[a.n] = total;
    const int wi = word_index(ji->plan.word);
    const char *label = g > 0 ? (unpack ? "kk_mpi_unpack_batch" : "kk_mpi_pack_batch")
                              : unpack ? "kk_mpi_unpack" : "kk_mpi_pack";
    if (threads > 0) {
      /* each view in `parts` even parts, part-major: a static block
       * schedule gives each thread its share of every view */
      int64_t parts = most / PART_MIN_WORDS;
      a.parts = (int32_t)(parts < 1 ? 1 : parts > threads ? threads : parts);
      kk_range_policy_t rp = {sizeof rp, 0, (int64_t)a.parts * a.n, 0, KK_SCHEDULE_STATIC, ji->inst};
      st = kk_parallel_for(label, &rp, part_kernels[wi][unpack], KK_ARGS(a));
    } else {
      kk_range_policy_t rp = {sizeof rp, 0, total, 0, KK_SCHEDULE_STATIC, ji->inst};
      st = kk_parallel_for(label, &rp, batch_kernels[wi][unpack], KK_ARGS(a));
    }
    if (st != KK_OK)
      return st;
    count_launch(c, unpack);
  }
  return KK_OK;
}

/* ---- staging -------------------------------------------------------------- */

/* Where a host-path buffer lives: in the view's space when the instance is
 * of its backend (it can write there), else in the host space. */
static kk_space_t *host_side_space(kk_view_t *v, kk_instance_t *inst) {
  kk_space_t *vs = kk_view_space(v);
  return strcmp(kk_instance_backend(inst), kk_space_backend(vs)) == 0 ? vs : kk_space_host();
}

static kk_space_t *pinned_of(const kk_mpi_comm_t *c, kk_view_t *v) {
  const mpi_backend_t *b = kk_mpi__backend(c, kk_space_backend(kk_view_space(v)));
  return b ? b->pinned : kk_space_host();
}

void kk_mpi__jobs_drop(int n, mpi_job_t *jobs) {
  for (int i = 0; i < n; i++) {
    kk_mpi__buf_put(jobs[i].dbuf, NULL);
    jobs[i].dbuf = NULL;
    jobs[i].pack = 0;
  }
}

kk_status_t kk_mpi__stage_out_done(kk_mpi_comm_t *c, kk_mpi_what_t *what, int n, mpi_job_t *jobs) {
  kk_status_t st = kk_mpi__pack_jobs(c, n, jobs, 0);
  for (int i = 0; i < n; i++) {
    mpi_job_t *j = &jobs[i];
    if (!j->dbuf)
      continue;
    if (st == KK_OK) {
      if ((st = kk_space_copy(j->mbuf->space, j->mbuf->ptr, j->vs, j->dbuf->ptr, j->plan.bytes, j->inst)) != KK_OK)
        st = kk_set_error(st, "%s: staging to %s: %s", kk_mpi__what(what), kk_space_name(j->mbuf->space), kk_last_error());
      else
        c->stats.staging_copies++;
    }
    kk_mpi__buf_put(j->dbuf, j->inst); /* the copy still reads it */
    j->dbuf = NULL;
  }
  return st;
}

kk_status_t kk_mpi__stage_out(kk_mpi_comm_t *c, kk_mpi_what_t *what, kk_instance_t *inst, kk_view_t *v,
                              const mpi_plan_t *p, kk_mpi_path_t path, void **ptr, mpi_buf_t **mbuf,
                              mpi_job_t *job) {
  mpi_job_t own;
  mpi_job_t *j = job ? job : &own;
  memset(j, 0, sizeof *j);
  j->inst = inst;
  *mbuf = NULL;
  *ptr = NULL;
  if (p->count == 0)
    return KK_OK;
  void *data = kk_view_data(v);
  kk_space_t *vs = kk_view_space(v);
  kk_status_t st;
  if (path != KK_MPI_PATH_STAGED) {
    if (p->contiguous) {
      *ptr = data;
      return KK_OK;
    }
    kk_space_t *bs = path == KK_MPI_PATH_HOST ? host_side_space(v, inst) : vs;
    if ((st = kk_mpi__buf_get(c, bs, p->bytes, what, mbuf)) != KK_OK)
      return st;
    j->buf = (*mbuf)->ptr;
  } else {
    /* staged: pack on the device (if strided), then copy to pinned host memory */
    if ((st = kk_mpi__buf_get(c, pinned_of(c, v), p->bytes, what, mbuf)) != KK_OK)
      return st;
    if (p->contiguous) {
      if ((st = kk_space_copy((*mbuf)->space, (*mbuf)->ptr, vs, data, p->bytes, inst)) != KK_OK) {
        st = kk_set_error(st, "%s: staging to %s: %s", kk_mpi__what(what), kk_space_name((*mbuf)->space), kk_last_error());
        goto fail_put;
      }
      c->stats.staging_copies++;
      *ptr = (*mbuf)->ptr;
      return KK_OK;
    }
    if ((st = kk_mpi__buf_get(c, vs, p->bytes, what, &j->dbuf)) != KK_OK)
      goto fail_put;
    j->buf = j->dbuf->ptr;
    j->mbuf = *mbuf;
    j->vs = vs;
  }
  j->pack = 1;
  j->plan = *p;
  j->data = data;
  *ptr = (*mbuf)->ptr;
  if (job || (st = kk_mpi__stage_out_done(c, what, 1, j)) == KK_OK)
    return KK_OK;

fail_put:
  kk_mpi__buf_put(*mbuf, inst);
  *mbuf = NULL;
  *ptr = NULL;
  return st;
}

kk_status_t kk_mpi__stage_in(kk_mpi_comm_t *c, kk_mpi_what_t *what, kk_instance_t *inst, kk_view_t *v,
                             const mpi_plan_t *p, kk_mpi_path_t path, void **ptr, mpi_buf_t **mbuf) {
  *mbuf = NULL;
  *ptr = NULL;
  if (p->count == 0)
    return KK_OK;
  if (path != KK_MPI_PATH_STAGED && p->contiguous) {
    *ptr = kk_view_data(v);
    return KK_OK;
  }
  kk_space_t *bs = path == KK_MPI_PATH_STAGED ? pinned_of(c, v)
                   : path == KK_MPI_PATH_HOST ? host_side_space(v, inst)
                                              : kk_view_space(v);
  kk_status_t st = kk_mpi__buf_get(c, bs, p->bytes, what, mbuf);
  if (st == KK_OK)
    *ptr = (*mbuf)->ptr;
  return st;
}

kk_status_t kk_mpi__finish_in_done(kk_mpi_comm_t *c, int n, mpi_job_t *jobs) {
  kk_status_t st = kk_mpi__pack_jobs(c, n, jobs, 1);
  for (int i = 0; i < n; i++) {
    kk_mpi__buf_put(jobs[i].dbuf, jobs[i].inst);
    kk_mpi__buf_put(jobs[i].mbuf, jobs[i].inst);
    jobs[i].dbuf = jobs[i].mbuf = NULL;
    jobs[i].pack = 0;
  }
  return st;
}

kk_status_t kk_mpi__finish_in(kk_mpi_comm_t *c, kk_mpi_what_t *what, kk_instance_t *inst, kk_view_t *v,
                              const mpi_plan_t *p, kk_mpi_path_t path, mpi_buf_t *mbuf, mpi_job_t *job) {
  mpi_job_t own;
  mpi_job_t *j = job ? job : &own;
  memset(j, 0, sizeof *j);
  j->inst = inst;
  if (!mbuf)
    return KK_OK;
  void *data = kk_view_data(v);
  kk_space_t *vs = kk_view_space(v);
  kk_status_t st = KK_OK;
  j->mbuf = mbuf;
  if (path != KK_MPI_PATH_STAGED) {
    j->buf = mbuf->ptr;
  } else if (p->contiguous) {
    st = kk_space_copy(vs, data, mbuf->space, mbuf->ptr, p->bytes, inst);
    if (st != KK_OK)
      st = kk_set_error(st, "%s: copying from %s: %s", kk_mpi__what(what), kk_space_name(mbuf->space), kk_last_error());
    else
      c->stats.staging_copies++;
    kk_mpi__buf_put(mbuf, inst);
    j->mbuf = NULL;
    return st;
  } else {
    if ((st = kk_mpi__buf_get(c, vs, p->bytes, what, &j->dbuf)) != KK_OK ||
        (st = kk_space_copy(vs, j->dbuf->ptr, mbuf->space, mbuf->ptr, p->bytes, inst)) != KK_OK) {
      if (j->dbuf)
        st = kk_set_error(st, "%s: copying from %s: %s", kk_mpi__what(what), kk_space_name(mbuf->space), kk_last_error());
      kk_mpi__buf_put(j->dbuf, inst);
      kk_mpi__buf_put(mbuf, inst);
      j->dbuf = j->mbuf = NULL;
      return st;
    }
    c->stats.staging_copies++;
    j->buf = j->dbuf->ptr;
  }
  j->pack = 1;
  j->plan = *p;
  j->data = data;
  return job ? KK_OK : kk_mpi__finish_in_done(c, 1, j);
}

/* The path a view takes and whether it is packed: the plan above, for the
 * program (comm.c stays below this file). */
kk_status_t kk_mpi_view_path(const kk_mpi_comm_t *c, kk_view_t *view, kk_mpi_path_t *path, int *packed) {
  kk_status_t st = kk_mpi__check_comm(c, "kk_mpi_view_path");
  if (st != KK_OK)
    return st;
  if (!view || !path)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_view_path: %s is NULL", !view ? "view" : "path");
  mpi_plan_t p;
  kk_mpi_what_t w;
  kk_mpi__what_init(&w, "kk_mpi_view_path", NULL);
  if ((st = kk_mpi__plan(&w, view, &p)) != KK_OK)
    return st;
  *path = kk_mpi__path(c, view);
  if (c->nccl_on && *path != KK_MPI_PATH_HOST && kk_mpi__nccl_serves(kk_space_backend(kk_view_space(view))))
    *path = KK_MPI_PATH_NCCL;
  if (packed)
    *packed = !p.contiguous;
  return KK_OK;
}
