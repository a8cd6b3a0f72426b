/* containers/offset_view.c -- OffsetView on the host: a view and the first index of each dimension; descriptors and host access. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct kk_offset_view_obj {
  kk_view_t *v;
  int64_t begin[KK_MAX_RANK];
};

/* Every dimension's end (begin + extent) fits in int64. */
static kk_status_t check_begin(const char *op, kk_view_t *v, const int64_t *begin) {
  const int rank = kk_view_rank(v);
  if (rank > 0 && !begin)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': begin is NULL", op, kk_view_label(v));
  for (int d = 0; d < rank; d++)
    if (begin[d] > INT64_MAX - kk_view_extent(v, d))
      return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': dimension %d's end (%lld + %lld) does not fit in int64",
                     op, kk_view_label(v), d, (long long)begin[d], (long long)kk_view_extent(v, d));
  return KK_OK;
}

static kk_status_t make(const char *op, kk_view_t *v, const int64_t *begin, kk_offset_view_t **out) {
  kk_offset_view_t *ov = calloc(1, sizeof *ov);
  if (!ov) {
    kk_view_release(v);
    return kkc_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", op);
  }
  ov->v = v;
  for (int d = 0; d < kk_view_rank(v); d++)
    ov->begin[d] = begin[d];
  *out = ov;
  return KK_OK;
}

kk_status_t kk_offset_view_create(const kk_view_spec_t *spec, const int64_t *begin, kk_offset_view_t **out) {
  static const char op[] = "kk_offset_view_create";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!spec || !out)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  kk_view_t *v = NULL;
  if ((st = kk_view_create(spec, &v)) != KK_OK)
    return st;
  if ((st = check_begin(op, v, begin)) != KK_OK) {
    kk_view_release(v);
    return st;
  }
  return make(op, v, begin, out);
}

kk_status_t kk_offset_view_wrap(kk_view_t *view, const int64_t *begin, kk_offset_view_t **out) {
  static const char op[] = "kk_offset_view_wrap";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!view || !out)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  if ((st = check_begin(op, view, begin)) != KK_OK)
    return st;
  return make(op, kk_view_retain(view), begin, out);
}

void kk_offset_view_release(kk_offset_view_t *ov) {
  if (!ov)
    return;
  kk_view_release(ov->v);
  free(ov);
}

kk_view_t *kk_offset_view_view(const kk_offset_view_t *ov) { return ov ? ov->v : NULL; }
int kk_offset_view_rank(const kk_offset_view_t *ov) { return ov ? kk_view_rank(ov->v) : 0; }

int64_t kk_offset_view_begin(const kk_offset_view_t *ov, int d) {
  return ov && d >= 0 && d < kk_view_rank(ov->v) ? ov->begin[d] : 0;
}

int64_t kk_offset_view_end(const kk_offset_view_t *ov, int d) {
  if (!ov || d < 0)
    return 0;
  return d < kk_view_rank(ov->v) ? ov->begin[d] + kk_view_extent(ov->v, d) : 1;
}

kk_status_t kk_offset_view_subview(kk_offset_view_t *ov, const int64_t *first, const int64_t *last,
                                   kk_offset_view_t **out) {
  static const char op[] = "kk_offset_view_subview";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!ov || !out || (kk_view_rank(ov->v) > 0 && (!first || !last)))
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  const int rank = kk_view_rank(ov->v);
  kk_slice_t sl[KK_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    const int64_t b = ov->begin[d], e = b + kk_view_extent(ov->v, d);
    if (first[d] < b || last[d] >= e || last[d] < first[d] - 1)
      return kkc_err(KK_ERROR_INVALID_ARGUMENT,
                     "%s: view '%s': dimension %d: [%lld, %lld] is not inside its indices [%lld, %lld]", op,
                     kk_view_label(ov->v), d, (long long)first[d], (long long)last[d], (long long)b,
                     (long long)(e - 1));
    sl[d] = KK_SPAN(first[d] - b, last[d] + 1 - b);
  }
  kk_view_t *sub = NULL;
  if ((st = kk_view_subview(ov->v, sl, &sub)) != KK_OK)
    return st;
  return make(op, sub, first, out);
}

#define BIND(NAME, T, VT, BINDER)                                                                               \
  T NAME(kk_offset_view_t *ov) {                                                                                \
    T r;                                                                                                        \
    memset(&r, 0, sizeof r);                                                                                    \
    VT v = BINDER(ov ? ov->v : NULL); /* a NULL view: the binder's error, and the next launch fails */          \
    r.d = v.d;                                                                                                  \
    if (ov)                                                                                                     \
      memcpy(r.begin, ov->begin, sizeof r.begin);                                                               \
    return r;                                                                                                   \
  }
BIND(kk_offset_view_bind, kk_offset_view, kk_view, kk_view_bind)
BIND(kk_offset_view_bind_right, kk_offset_view_right, kk_view_right, kk_view_bind_right)
BIND(kk_offset_view_bind_left, kk_offset_view_left, kk_view_left, kk_view_bind_left)
BIND(kk_offset_view_bind_strided, kk_offset_view_strided, kk_view_strided, kk_view_bind_strided)

void *kk_offset_view_host_ptr(const kk_offset_view_t *ov, const int64_t *index) {
  static const char op[] = "kk_offset_view_host_ptr";
  if (!ov || (kk_view_rank(ov->v) > 0 && !index)) {
    kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
    return NULL;
  }
  if (!kk_space_host_accessible(kk_view_space(ov->v))) {
    kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s' is in space %s, which the host cannot access", op,
            kk_view_label(ov->v), kk_space_name(kk_view_space(ov->v)));
    return NULL;
  }
  int64_t off = 0;
  for (int d = 0; d < kk_view_rank(ov->v); d++) {
    const int64_t i = index[d] - ov->begin[d];
    if (index[d] < ov->begin[d] || i >= kk_view_extent(ov->v, d)) {
      kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': index %lld of dimension %d is outside [%lld, %lld)", op,
              kk_view_label(ov->v), (long long)index[d], d, (long long)ov->begin[d],
              (long long)(ov->begin[d] + kk_view_extent(ov->v, d)));
      return NULL;
    }
    off += i * kk_view_stride(ov->v, d);
  }
  return (char *)kk_view_data(ov->v) + off * (int64_t)kk_view_elem_size(ov->v);
}
