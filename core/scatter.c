/* core/scatter.c -- ScatterView: per-thread duplicates or atomics for scatter-contribute loops, and the host lock table. */
#include "config.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The lock table of arbitrary-size atomics in host kernels (KK_ATOMIC_LOCK). */
uint32_t kk_host_locks[KK_HOST_LOCK_COUNT];

struct kk_scatter_view {
  kk_view_t *target;
  int op, mode;
  kk_type_t type;
  size_t elem;
  int ndup;
  int64_t dup_stride;     /* elements: the target's span */
  void *dups;             /* ndup * dup_stride elements, in the target's space */
};

static bool type_ok(kk_type_t t, int op) {
  switch (t) {
  case KK_INT32:
  case KK_UINT32:
  case KK_INT64:
  case KK_UINT64:
  case KK_FLOAT:
  case KK_DOUBLE:
    return true;
  case KK_COMPLEX_FLOAT:
  case KK_COMPLEX_DOUBLE:
    return op == KK_SCATTER_SUM;
  default:
    return false;
  }
}

/* Writes the identity of op into one element. */
static void identity(kk_type_t t, int op, void *p) {
  switch (t) {
  case KK_INT32:
    *(int32_t *)p = op == KK_SCATTER_MIN ? INT32_MAX : op == KK_SCATTER_MAX ? INT32_MIN : 0;
    break;
  case KK_UINT32:
    *(uint32_t *)p = op == KK_SCATTER_MIN ? UINT32_MAX : 0;
    break;
  case KK_INT64:
    *(int64_t *)p = op == KK_SCATTER_MIN ? INT64_MAX : op == KK_SCATTER_MAX ? INT64_MIN : 0;
    break;
  case KK_UINT64:
    *(uint64_t *)p = op == KK_SCATTER_MIN ? UINT64_MAX : 0;
    break;
  case KK_FLOAT:
    *(float *)p = op == KK_SCATTER_MIN ? FLT_MAX : op == KK_SCATTER_MAX ? -FLT_MAX : 0.0f;
    break;
  case KK_DOUBLE:
    *(double *)p = op == KK_SCATTER_MIN ? DBL_MAX : op == KK_SCATTER_MAX ? -DBL_MAX : 0.0;
    break;
  default:
    memset(p, 0, t == KK_COMPLEX_FLOAT ? 8 : 16);
    break;
  }
}

/* dst = dst op src for one element. */
#define COMBINE(T)                                                         \
  do {                                                                     \
    T *d_ = dst;                                                           \
    const T *s_ = src;                                                     \
    if (op == KK_SCATTER_SUM)                                              \
      *d_ += *s_;                                                          \
    else if (op == KK_SCATTER_MIN ? *s_ < *d_ : *s_ > *d_)                 \
      *d_ = *s_;                                                           \
  } while (0)

static void combine(kk_type_t t, int op, void *dst, const void *src) {
  switch (t) {
  case KK_INT32:
    COMBINE(int32_t);
    break;
  case KK_UINT32:
    COMBINE(uint32_t);
    break;
  case KK_INT64:
    COMBINE(int64_t);
    break;
  case KK_UINT64:
    COMBINE(uint64_t);
    break;
  case KK_FLOAT:
    COMBINE(float);
    break;
  case KK_DOUBLE:
    COMBINE(double);
    break;
  case KK_COMPLEX_FLOAT:
    ((float *)dst)[0] += ((const float *)src)[0];
    ((float *)dst)[1] += ((const float *)src)[1];
    break;
  case KK_COMPLEX_DOUBLE:
    ((double *)dst)[0] += ((const double *)src)[0];
    ((double *)dst)[1] += ((const double *)src)[1];
    break;
  default:
    break;
  }
}

/* Calls f(offset) for the offset (in elements) of every element of v. */
static void for_each_offset(const kk_view_t *v, void (*f)(kk_scatter_view_t *, int64_t), kk_scatter_view_t *sv) {
  int rank = kk_view_rank(v);
  if (kk_view_size(v) == 0)
    return;
  int64_t idx[KK_MAX_RANK] = {0};
  for (;;) {
    int64_t off = 0;
    for (int d = 0; d < rank; d++)
      off += idx[d] * kk_view_stride(v, d);
    f(sv, off);
    int d = rank - 1;
    for (; d >= 0; d--) {
      if (++idx[d] < kk_view_extent(v, d))
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

static void reset_one(kk_scatter_view_t *sv, int64_t off) {
  for (int k = 0; k < sv->ndup; k++)
    identity(sv->type, sv->op, (char *)sv->dups + ((int64_t)k * sv->dup_stride + off) * (int64_t)sv->elem);
}

static void contribute_one(kk_scatter_view_t *sv, int64_t off) {
  char *t = (char *)kk_view_data(sv->target) + off * (int64_t)sv->elem;
  for (int k = 0; k < sv->ndup; k++) {
    char *d = (char *)sv->dups + ((int64_t)k * sv->dup_stride + off) * (int64_t)sv->elem;
    combine(sv->type, sv->op, t, d);
    identity(sv->type, sv->op, d);
  }
}

kk_status_t kk_scatter_view_create(kk_view_t *target, int op, int mode, kk_scatter_view_t **out) {
  KK__REQUIRE_INIT("kk_scatter_view_create");
  if (!target || !out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_scatter_view_create: NULL target or out");
  *out = NULL;
  kk_type_t type = kk_view_type(target);
  if (op < KK_SCATTER_SUM || op > KK_SCATTER_MAX || !type_ok(type, op))
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_scatter_view_create: view '%s': %s is not supported on elements of type %s",
                     kk_view_label(target), op == KK_SCATTER_SUM ? "sum" : op == KK_SCATTER_MIN ? "min" : op == KK_SCATTER_MAX ? "max" : "this operation",
                     kk_type_name(type));
  kk_space_t *space = kk_view_space(target);
  kk__backend_t *owner = space->backend;
  if (mode == KK_SCATTER_AUTO) /* the backend's preference: duplicates on CPUs, atomics on GPUs */
    mode = (owner->ops.flags & KK_PLUGIN_FLAG_HOST) ? KK_SCATTER_DUPLICATED : KK_SCATTER_ATOMIC;
  if (mode != KK_SCATTER_DUPLICATED && mode != KK_SCATTER_ATOMIC)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_scatter_view_create: unknown mode %d", mode);
  if (mode == KK_SCATTER_DUPLICATED && !kk_space_host_accessible(space))
    return kk__error(KK_ERROR_UNSUPPORTED,
                     "kk_scatter_view_create: view '%s' lives in %s, which the host cannot reach: duplicated mode "
                     "needs host-accessible memory (use KK_SCATTER_ATOMIC)",
                     kk_view_label(target), space->name);
  kk_scatter_view_t *sv = calloc(1, sizeof *sv);
  if (!sv)
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk_scatter_view_create: out of memory");
  sv->target = kk_view_retain(target);
  sv->op = op;
  sv->mode = mode;
  sv->type = type;
  sv->elem = kk_view_elem_size(target);
  if (mode == KK_SCATTER_DUPLICATED) {
    /* one copy per thread of the backend whose kernels will run on it */
    kk__backend_t *runner = (owner->ops.flags & KK_PLUGIN_FLAG_HOST) ? owner : kk__g.host;
    sv->ndup = runner->devices[runner->device].concurrency > 0 ? runner->devices[runner->device].concurrency : 1;
    sv->dup_stride = (int64_t)kk_view_span(target);
    size_t bytes = (size_t)sv->ndup * (size_t)sv->dup_stride * sv->elem;
    char label[300];
    snprintf(label, sizeof label, "%s_scatter_duplicates", kk_view_label(target));
    kk_status_t st = kk_space_alloc(space, label, bytes, &sv->dups);
    if (st != KK_OK) {
      kk_view_release(sv->target);
      free(sv);
      return kk__error(st, "kk_scatter_view_create: %s", kk_last_error());
    }
    for_each_offset(target, reset_one, sv);
  }
  *out = sv;
  return KK_OK;
}

kk_scatter kk_scatter_bind(kk_scatter_view_t *sv) {
  kk_scatter s;
  memset(&s, 0, sizeof s);
  if (!sv)
    return s;
  kk_view_strided v = kk_view_bind_strided(sv->target); /* any layout: offsets go through strides */
  s.d = v.d;
  s.dups = sv->dups;
  s.dup_stride = sv->dup_stride;
  s.ndup = sv->ndup;
  s.mode = sv->mode;
  s.op = sv->op;
  s.type = (int32_t)sv->type;
  return s;
}

kk_status_t kk_scatter_view_contribute(kk_scatter_view_t *sv) {
  KK__REQUIRE_INIT("kk_scatter_view_contribute");
  if (!sv)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_scatter_view_contribute: NULL scatter view");
  kk_status_t st = kk_fence();
  if (st != KK_OK || sv->mode == KK_SCATTER_ATOMIC)
    return st;
  for_each_offset(sv->target, contribute_one, sv);
  return KK_OK;
}

kk_status_t kk_scatter_view_reset(kk_scatter_view_t *sv) {
  KK__REQUIRE_INIT("kk_scatter_view_reset");
  if (!sv)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_scatter_view_reset: NULL scatter view");
  kk_status_t st = kk_fence();
  if (st == KK_OK && sv->mode == KK_SCATTER_DUPLICATED)
    for_each_offset(sv->target, reset_one, sv);
  return st;
}

int kk_scatter_view_mode(const kk_scatter_view_t *sv) { return sv ? sv->mode : 0; }

void kk_scatter_view_release(kk_scatter_view_t *sv) {
  if (!sv)
    return;
  if (sv->dups && kk__g.initialized)
    kk_space_free(kk_view_space(sv->target), sv->dups);
  kk_view_release(sv->target);
  free(sv);
}
