/* core/scatter.c -- ScatterView: per-thread duplicates or atomics for scatter-contribute loops, and the host lock table. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "handles.h"
#include "state.h"
#include "status.h"
#include "view.h"

/* The lock table of arbitrary-size atomics in host kernels (KK_ATOMIC_LOCK). */
uint32_t kk_host_locks[KK_HOST_LOCK_COUNT];

struct kk_scatter_view {
  uintptr_t gen;          /* kk__generation when made: after kk_finalize only release works */
  kk_view_t *target;
  kk_view_t *dup_view;    /* the duplicates' memory: a view, so that kk_finalize frees it like any view's */
  int op, mode;
  kk_type_t type;
  size_t elem;
  int ndup;
  int64_t dup_stride;     /* elements: the target's size (each duplicate is a dense right-layout copy) */
  void *dups;             /* ndup * dup_stride elements, in the target's space */
  kk__backend_t *runner;  /* the host backend whose threads own the duplicates */
  /* the target's shape: element lin of a duplicate is, in right order,
   * (lin / row as a multi-index over ext[0..rank-2], lin % row) */
  int rank;
  int64_t ext[KK_MAX_RANK], str[KK_MAX_RANK], row, row_stride;
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

/* Elements [b, e) of duplicates [k0, k1) back to the identity. */
static void reset_range(const kk_scatter_view_t *sv, int k0, int k1, int64_t b, int64_t e) {
  for (int k = k0; k < k1; k++) {
    char *d = (char *)sv->dups + ((int64_t)k * sv->dup_stride + b) * (int64_t)sv->elem;
    if (sv->op == KK_SCATTER_SUM) { /* the identity is all-zero bytes for every type */
      memset(d, 0, (size_t)(e - b) * sv->elem);
      continue;
    }
    for (int64_t i = b; i < e; i++, d += sv->elem)
      identity(sv->type, sv->op, d);
  }
}

/* Folds duplicate elements [lin, lin + n), dense, into n target elements
 * `ts` elements apart starting at t, resetting the duplicates as it goes: one
 * tight loop per type and operation, so the fold runs at memory speed. */
#define FOLD_LOOP(T, EXPR)                                                  \
  do {                                                                      \
    T *t_ = (T *)t;                                                         \
    for (int k = 0; k < sv->ndup; k++) {                                    \
      T *d_ = (T *)sv->dups + (int64_t)k * sv->dup_stride + lin;            \
      for (int64_t i = 0; i < n; i++) {                                     \
        T *dst = t_ + i * ts;                                               \
        const T src = d_[i];                                                \
        EXPR;                                                               \
      }                                                                     \
    }                                                                       \
  } while (0)
#define FOLD_REAL(T)                                                        \
  do {                                                                      \
    if (sv->op == KK_SCATTER_SUM)                                           \
      FOLD_LOOP(T, *dst += src);                                            \
    else if (sv->op == KK_SCATTER_MIN)                                      \
      FOLD_LOOP(T, *dst = src < *dst ? src : *dst);                         \
    else                                                                    \
      FOLD_LOOP(T, *dst = src > *dst ? src : *dst);                         \
  } while (0)

/* complex elements as (re, im) pairs of R */
#define FOLD_COMPLEX(R)                                                     \
  do {                                                                      \
    R *t_ = (R *)t;                                                         \
    for (int k = 0; k < sv->ndup; k++) {                                    \
      const R *d_ = (const R *)sv->dups + 2 * ((int64_t)k * sv->dup_stride + lin); \
      for (int64_t i = 0; i < n; i++) {                                     \
        t_[2 * i * ts] += d_[2 * i];                                        \
        t_[2 * i * ts + 1] += d_[2 * i + 1];                                \
      }                                                                     \
    }                                                                       \
  } while (0)

static void fold_row(const kk_scatter_view_t *sv, void *t, int64_t ts, int64_t lin, int64_t n) {
  switch (sv->type) {
  case KK_INT32:
    FOLD_REAL(int32_t);
    break;
  case KK_UINT32:
    FOLD_REAL(uint32_t);
    break;
  case KK_INT64:
    FOLD_REAL(int64_t);
    break;
  case KK_UINT64:
    FOLD_REAL(uint64_t);
    break;
  case KK_FLOAT:
    FOLD_REAL(float);
    break;
  case KK_DOUBLE:
    FOLD_REAL(double);
    break;
  case KK_COMPLEX_FLOAT: /* sum only */
    FOLD_COMPLEX(float);
    break;
  case KK_COMPLEX_DOUBLE:
    FOLD_COMPLEX(double);
    break;
  default:
    break;
  }
}

/* Folds elements [b, e) of every duplicate into the target (in right order,
 * a row of the target's last dimension at a time), then resets them. */
static void fold_range(const kk_scatter_view_t *sv, int64_t b, int64_t e) {
  char *data = kk_view_data(sv->target);
  for (int64_t lin = b; lin < e;) {
    int64_t r = lin / sv->row, c = lin % sv->row, n = sv->row - c < e - lin ? sv->row - c : e - lin;
    int64_t off = c * sv->row_stride;
    for (int d = sv->rank - 2; d >= 0; d--) {
      off += r % sv->ext[d] * sv->str[d];
      r /= sv->ext[d];
    }
    fold_row(sv, data + off * (int64_t)sv->elem, sv->row_stride, lin, n);
    lin += n;
  }
  reset_range(sv, 0, sv->ndup, b, e);
}

/* The contribute and reset steps run as a kernel of the core's own on the
 * runner's threads, as Kokkos' ScatterView does.  Contribute gives each
 * thread a block of elements, which it folds from every duplicate and
 * resets; reset gives thread k duplicate k, the copy it writes in kernels
 * (so that, at creation, its pages are first touched where they are used).
 * Small ones run on the calling thread, where waking the team would cost
 * more than the work. */
#define SCATTER_PARALLEL_MIN_BYTES ((size_t)64 << 10)

struct scatter_step_args {
  const kk_scatter_view_t *sv;
  int fold; /* 1: [b, e) are elements to fold and reset; 0: duplicates to reset */
};

static void scatter_step_host(const void *args, int64_t b, int64_t e, const kk_host_thread_t *th) {
  (void)th;
  const struct scatter_step_args *a = args;
  if (a->fold)
    fold_range(a->sv, b, e);
  else
    reset_range(a->sv, (int)b, (int)e, 0, a->sv->dup_stride);
}

static kk_kernel_t scatter_step_kernel = {
    .struct_size = sizeof(kk_kernel_t),
    .abi_version = KK_KERNEL_ABI_VERSION,
    .name = "kk_scatter_view_step",
    .kind = KK_KIND_FOR,
    .args_size = sizeof(struct scatter_step_args),
    .args_align = _Alignof(struct scatter_step_args),
    .host_for = scatter_step_host,
};

static kk_status_t scatter_step(const kk_scatter_view_t *sv, int fold, const char *label) {
  const int64_t n = fold ? sv->dup_stride : sv->ndup;
  if (sv->dup_stride == 0)
    return KK_OK;
  struct scatter_step_args a = {sv, fold};
  if (sv->ndup < 2 || (size_t)sv->ndup * (size_t)sv->dup_stride * sv->elem < SCATTER_PARALLEL_MIN_BYTES) {
    scatter_step_host(&a, 0, n, NULL);
    return KK_OK;
  }
  return kk_parallel_for(label, KK_RANGE_ON(sv->runner->default_instance, 0, n), &scatter_step_kernel, KK_ARGS(a));
}

kk_status_t kk_scatter_view_create(kk_view_t *target, int op, int mode, kk_scatter_view_t **out) {
  KK__REQUIRE_INIT("kk_scatter_view_create");
  if (out)
    *out = NULL;
  kk_status_t st = kk__view_check("kk_scatter_view_create", target);
  if (st != KK_OK)
    return st;
  if (!target || !out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_scatter_view_create: %s is NULL", !target ? "target" : "out");
  kk_type_t type = kk_view_type(target);
  if (op < KK_SCATTER_SUM || op > KK_SCATTER_MAX)
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_scatter_view_create: view '%s': %d is not a scatter operation (KK_SCATTER_SUM %d, "
                     "KK_SCATTER_MIN %d or KK_SCATTER_MAX %d)",
                     kk_view_label(target), op, KK_SCATTER_SUM, KK_SCATTER_MIN, KK_SCATTER_MAX);
  if (!type_ok(type, op))
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_scatter_view_create: view '%s': %s is not supported on elements of type %s",
                     kk_view_label(target), op == KK_SCATTER_SUM ? "sum" : op == KK_SCATTER_MIN ? "min" : "max",
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
  sv->gen = kk__generation_now();
  sv->target = kk_view_retain(target);
  sv->op = op;
  sv->mode = mode;
  sv->type = type;
  sv->elem = kk_view_elem_size(target);
  if (mode == KK_SCATTER_DUPLICATED) {
    /* one copy per thread of the backend whose kernels will run on it */
    kk__backend_t *runner = (owner->ops.flags & KK_PLUGIN_FLAG_HOST) ? owner : kk__g.host;
    sv->ndup = runner->devices[runner->device].concurrency > 0 ? runner->devices[runner->device].concurrency : 1;
    sv->dup_stride = (int64_t)kk_view_size(target);
    sv->runner = runner;
    sv->rank = kk_view_rank(target);
    for (int d = 0; d < sv->rank; d++)
      sv->ext[d] = kk_view_extent(target, d), sv->str[d] = kk_view_stride(target, d);
    sv->row = sv->rank > 0 ? sv->ext[sv->rank - 1] : 1;
    sv->row_stride = sv->rank > 0 ? sv->str[sv->rank - 1] : 1;
    char label[300];
    snprintf(label, sizeof label, "%s_scatter_duplicates", kk_view_label(target));
    kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
    spec.label = label;
    spec.type = type;
    spec.rank = 1;
    spec.extents[0] = (int64_t)sv->ndup * sv->dup_stride;
    spec.layout = KK_LAYOUT_RIGHT;
    spec.space = space;
    spec.flags = KK_VIEW_NO_INIT; /* the reset below writes the identity */
    st = kk_view_create(&spec, &sv->dup_view);
    if (st != KK_OK) {
      kk_view_release(sv->target);
      free(sv);
      return kk__error(st, "kk_scatter_view_create: %s", kk_last_error());
    }
    sv->dups = kk_view_data(sv->dup_view);
    if ((st = scatter_step(sv, 0, "kk_scatter_view_create")) != KK_OK) {
      kk_status_t rst = kk__error(st, "kk_scatter_view_create: %s", kk_last_error());
      kk_view_release(sv->dup_view);
      kk_view_release(sv->target);
      free(sv);
      return rst;
    }
  }
  *out = sv;
  return KK_OK;
}

kk_scatter kk_scatter_bind(kk_scatter_view_t *sv) {
  kk_scatter s;
  memset(&s, 0, sizeof s);
  if (!sv)
    return s;
  if (kk__stale(sv->gen)) {
    kk__bind_fail_stale("kk_scatter_bind", "the scatter view", NULL);
    return s;
  }
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
  if (kk__stale(sv->gen))
    return kk__stale_error("kk_scatter_view_contribute", "the scatter view", NULL);
  kk_status_t st = kk_fence_named("kk_scatter_view_contribute: fence before folding the contributions");
  if (st != KK_OK || sv->mode == KK_SCATTER_ATOMIC)
    return st;
  return scatter_step(sv, 1, "kk_scatter_view_contribute");
}

kk_status_t kk_scatter_view_reset(kk_scatter_view_t *sv) {
  KK__REQUIRE_INIT("kk_scatter_view_reset");
  if (!sv)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_scatter_view_reset: NULL scatter view");
  if (kk__stale(sv->gen))
    return kk__stale_error("kk_scatter_view_reset", "the scatter view", NULL);
  kk_status_t st = kk_fence_named("kk_scatter_view_reset: fence before resetting the duplicates");
  if (st != KK_OK || sv->mode != KK_SCATTER_DUPLICATED)
    return st;
  return scatter_step(sv, 0, "kk_scatter_view_reset");
}

/* 0 for a scatter view from before kk_finalize. */
int kk_scatter_view_mode(const kk_scatter_view_t *sv) { return sv && !kk__stale(sv->gen) ? sv->mode : 0; }

/* After kk_finalize (which freed the duplicates' memory with the views')
 * this frees only the handles. */
void kk_scatter_view_release(kk_scatter_view_t *sv) {
  if (!sv)
    return;
  kk_view_release(sv->dup_view);
  kk_view_release(sv->target);
  free(sv);
}
