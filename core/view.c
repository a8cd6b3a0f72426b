/* core/view.c -- views: creation, reference counting, subviews, deep copies, mirrors, resize, and kernel descriptors. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "handles.h"
#include "host_remap.h"
#include "space.h"
#include "state.h"
#include "status.h"
#include "tools.h"
#include "view.h"

/* One allocation, shared by a view and its subviews. */
typedef struct alloc {
  atomic_int refs;
  kk_space_t *space;
  void *ptr;
  size_t bytes;
  uintptr_t generation;    /* kk__generation when allocated: older ones died with kk_finalize */
  char *label;
  struct alloc *next, *prev;
} alloc_t;

struct kk_view_obj {
  atomic_int refs;
  uintptr_t gen;           /* kk__generation when made: once kk_finalize ended it, only release and retain work */
  alloc_t *alloc;          /* NULL when unmanaged */
  char *label;
  kk_type_t type;
  uint32_t elem_size;
  int rank;
  int64_t extent[KK_MAX_RANK];
  int64_t stride[KK_MAX_RANK];
  kk_layout_t layout;
  kk_space_t *space;
  void *data;
  /* unmanaged views with memory, listed so that a bounds-check failure can
   * name them (managed ones are found through their allocation) */
  bool listed;
  struct kk_view_obj *unext, *uprev;
};

/* Live allocations, so that kk_finalize can release what the program kept. */
static pthread_mutex_t g_allocs_lock = PTHREAD_MUTEX_INITIALIZER;
static alloc_t *g_allocs;

/* Unmanaged views that have memory (under g_allocs_lock). */
static kk_view_t *g_unmanaged;

static void list_unmanaged(kk_view_t *v) {
  if (v->alloc || !v->data || kk_view_span(v) == 0)
    return;
  pthread_mutex_lock(&g_allocs_lock);
  v->listed = true;
  v->unext = g_unmanaged;
  if (g_unmanaged)
    g_unmanaged->uprev = v;
  g_unmanaged = v;
  pthread_mutex_unlock(&g_allocs_lock);
}

static void unlist_unmanaged(kk_view_t *v) {
  if (!v->listed)
    return;
  pthread_mutex_lock(&g_allocs_lock);
  if (v->uprev)
    v->uprev->unext = v->unext;
  else
    g_unmanaged = v->unext;
  if (v->unext)
    v->unext->uprev = v->uprev;
  pthread_mutex_unlock(&g_allocs_lock);
}

void kk__view_label_at(const void *data, char *buf, size_t size) {
  const char *best = NULL;
  size_t best_bytes = SIZE_MAX;
  uintptr_t p = (uintptr_t)data;
  pthread_mutex_lock(&g_allocs_lock);
  for (alloc_t *a = g_allocs; a; a = a->next)
    if (a->generation == kk__generation_now() && p >= (uintptr_t)a->ptr && p - (uintptr_t)a->ptr < a->bytes &&
        a->bytes < best_bytes)
      best = a->label, best_bytes = a->bytes;
  for (kk_view_t *v = g_unmanaged; v; v = v->unext) {
    if (v->gen != kk__generation_now())
      continue;
    size_t bytes = kk_view_span(v) * v->elem_size;
    if (p >= (uintptr_t)v->data && p - (uintptr_t)v->data < bytes && bytes < best_bytes)
      best = v->label, best_bytes = bytes;
  }
  if (best)
    kk__snprintf(buf, size, "'%s'", best);
  else
    kk__snprintf(buf, size, "at %p (no live view holds that address)", data);
  pthread_mutex_unlock(&g_allocs_lock);
}

/* A bind failure waits here for the next launch from this thread.  The
 * default (global-dynamic) TLS model: an initial-exec variable marks libkk
 * STATIC_TLS, and the dynamic loader then refuses to dlopen it ("cannot
 * allocate memory in static TLS block") -- which is how Python's ctypes and
 * every other binding open it. */
_Thread_local bool kk__tl_bind_failed;
/* Threads whose kk__tl_bind_failed is set (one that exits with its flag set
 * leaves it above 0: launches then only read their own flag, as before). */
atomic_uint kk__bind_failures;
static _Thread_local char tl_bind_msg[512];
static _Thread_local kk_status_t tl_bind_status;

/* Is v a view of the current initialization?  (NULL is not.) */
static inline bool live(const kk_view_t *v) { return v && v->gen == kk__generation_now(); }

kk_status_t kk__view_check(const char *op, const kk_view_t *v) {
  if (KK__LIKELY(!v || v->gen == kk__generation_now()))
    return KK_OK;
  return kk__stale_error(op, "view", v->label);
}

static size_t type_size(kk_type_t t) {
  switch (t) {
  case KK_INT8:
  case KK_UINT8:
    return 1;
  case KK_INT16:
  case KK_UINT16:
    return 2;
  case KK_INT32:
  case KK_UINT32:
  case KK_FLOAT:
    return 4;
  case KK_INT64:
  case KK_UINT64:
  case KK_DOUBLE:
  case KK_COMPLEX_FLOAT:
    return 8;
  case KK_COMPLEX_DOUBLE:
    return 16;
  default:
    return 0;
  }
}

const char *kk_type_name(kk_type_t t) {
  static const char *names[] = {"none",   "int8_t", "uint8_t",  "int16_t", "uint16_t",      "int32_t",
                                "uint32_t", "int64_t", "uint64_t", "float",   "double", "complex float",
                                "complex double"};
  if ((int)t >= 0 && (size_t)t < sizeof names / sizeof *names)
    return names[t];
  return t == KK_TYPE_CUSTOM ? "custom" : "?";
}

static const char *layout_str(kk_layout_t l) {
  return l == KK_LAYOUT_RIGHT ? "right" : l == KK_LAYOUT_LEFT ? "left" : l == KK_LAYOUT_STRIDE ? "stride" : "default";
}

/* Span in elements: one past the largest offset, 0 when any extent is 0.
 * Only called on shapes that shape_check() accepted, so nothing overflows. */
static size_t span_of(int rank, const int64_t *ext, const int64_t *str) {
  size_t span = 1;
  for (int d = 0; d < rank; d++) {
    if (ext[d] == 0)
      return 0;
    span += (size_t)(ext[d] - 1) * (size_t)str[d];
  }
  return span;
}

static size_t size_of(int rank, const int64_t *ext) {
  size_t n = 1;
  for (int d = 0; d < rank; d++)
    n *= (size_t)ext[d];
  return n;
}

/* Compact strides of a layout; false when a stride does not fit in 64 bits
 * (the strides are then unusable).  An empty dimension counts as 1, so that
 * the strides of a view with a zero extent stay meaningful. */
static bool compact_strides(int rank, const int64_t *ext, kk_layout_t layout, int64_t *str) {
  for (int d = 0; d < KK_MAX_RANK; d++)
    str[d] = 0;
  int64_t s = 1;
  bool ok = true;
  for (int k = 0; k < rank; k++) {
    int d = layout == KK_LAYOUT_LEFT ? k : rank - 1 - k;
    str[d] = s;
    if (k + 1 < rank && __builtin_mul_overflow(s, ext[d] > 0 ? ext[d] : 1, &s))
      ok = false;
  }
  return ok;
}

/* Checks that every product of a shape fits: the strides (computed here for
 * right and left layouts), the element count, the span and the span in
 * bytes, all below 2^63 so that index and pointer arithmetic on them is
 * defined.  On failure returns KK_ERROR_OUT_OF_MEMORY (no memory can hold
 * such a view, as calloc says of an overflowing product) naming the shape. */
static kk_status_t shape_check(const char *op, kk_view_t *v, size_t elem, size_t *bytes) {
  bool ok = v->layout == KK_LAYOUT_STRIDE || compact_strides(v->rank, v->extent, v->layout, v->stride);
  int64_t count = 1, span = 1, b = 0;
  bool empty = false;
  for (int d = 0; d < v->rank; d++)
    empty |= v->extent[d] == 0;
  for (int d = 0; ok && d < v->rank; d++) {
    int64_t reach;
    ok = !__builtin_mul_overflow(count, v->extent[d], &count);
    if (ok && !empty)
      ok = !__builtin_mul_overflow(v->extent[d] - 1, v->stride[d], &reach) && !__builtin_add_overflow(span, reach, &span);
  }
  if (ok)
    ok = !__builtin_mul_overflow(empty ? 0 : span, (int64_t)elem, &b);
  if (!ok) {
    kk__str_t s = {0};
    kk__str_addf(&s, "%s: view '%s': ", op, v->label);
    for (int d = 0; d < v->rank; d++)
      kk__str_addf(&s, "%s%lld", d ? " x " : "", (long long)v->extent[d]);
    if (v->layout == KK_LAYOUT_STRIDE) {
      kk__str_addf(&s, " with strides (");
      for (int d = 0; d < v->rank; d++)
        kk__str_addf(&s, "%s%lld", d ? ", " : "", (long long)v->stride[d]);
      kk__str_addf(&s, ")");
    }
    kk__str_addf(&s, " elements of %zu bytes: the size overflows 64-bit arithmetic", elem);
    kk_status_t st = kk__error(KK_ERROR_OUT_OF_MEMORY, "%s", s.s ? s.s : op);
    kk__str_free(&s);
    return st;
  }
  *bytes = (size_t)b;
  return KK_OK;
}

static void alloc_release(alloc_t *a) {
  if (!a || atomic_fetch_sub(&a->refs, 1) != 1)
    return;
  pthread_mutex_lock(&g_allocs_lock);
  bool live = a->generation == kk__generation_now() && kk__g.initialized;
  if (live) {
    if (a->prev)
      a->prev->next = a->next;
    else
      g_allocs = a->next;
    if (a->next)
      a->next->prev = a->prev;
  }
  pthread_mutex_unlock(&g_allocs_lock);
  if (live && KK__UNLIKELY(kk__tools.active) && a->bytes)
    kk__tools_deallocate(a->space, a->label, a->ptr, a->bytes);
  if (live)
    kk__space_free(a->space, a->ptr);
  free(a->label);
  free(a);
}

void kk__views_release_all(void) {
  pthread_mutex_lock(&g_allocs_lock);
  alloc_t *a = g_allocs;
  g_allocs = NULL;
  pthread_mutex_unlock(&g_allocs_lock);
  for (; a; a = a->next) {
    kk__warn("kk_finalize: view memory '%s' (%zu bytes in %s) was still in use; it is freed now", a->label, a->bytes,
             a->space->name);
    if (KK__UNLIKELY(kk__tools.active) && a->bytes)
      kk__tools_deallocate(a->space, a->label, a->ptr, a->bytes);
    kk__space_free(a->space, a->ptr);
    a->ptr = NULL;
    a->generation = 0; /* the handle's last release frees only the record */
  }
}

static kk_status_t check_spec(const char *op, const kk_view_spec_t *spec, size_t *elem) {
  if (!spec || spec->struct_size < offsetof(kk_view_spec_t, flags))
    return spec ? kk__error(KK_ERROR_INVALID_ARGUMENT,
                            "%s: spec->struct_size is %zu, smaller than any kk_view_spec_t: initialize it with "
                            "KK_VIEW_SPEC_INIT",
                            op, spec->struct_size)
                : kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: spec is NULL", op);
  const char *label = spec->label ? spec->label : "";
  if (spec->rank < 0 || spec->rank > KK_MAX_RANK)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': rank %d is outside 0..%d", op, label, spec->rank,
                     KK_MAX_RANK);
  for (int d = 0; d < spec->rank; d++)
    if (spec->extents[d] < 0)
      return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': extent %d is negative (%lld)", op, label, d,
                       (long long)spec->extents[d]);
  *elem = spec->type == KK_TYPE_CUSTOM ? spec->elem_size : type_size(spec->type);
  if (*elem == 0)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': %s", op, label,
                     spec->type == KK_TYPE_CUSTOM ? "a KK_TYPE_CUSTOM view needs elem_size > 0" : "unknown element type");
  if (spec->type != KK_TYPE_CUSTOM && spec->elem_size && spec->elem_size != *elem)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': elem_size %zu does not match %s (%zu bytes)", op,
                     label, spec->elem_size, kk_type_name(spec->type), *elem);
  if (spec->layout != KK_LAYOUT_DEFAULT && spec->layout != KK_LAYOUT_RIGHT && spec->layout != KK_LAYOUT_LEFT &&
      spec->layout != KK_LAYOUT_STRIDE)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': unknown layout %d", op, label, (int)spec->layout);
  if (spec->layout == KK_LAYOUT_STRIDE)
    for (int d = 0; d < spec->rank; d++)
      if (spec->strides[d] < 0)
        return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': stride %d is negative", op, label, d);
  return KK_OK;
}

/* A handle with the shape of `spec` (no memory yet). */
static kk_view_t *shape_new(const kk_view_spec_t *spec, size_t elem, kk_space_t *space) {
  kk_view_t *v = calloc(1, sizeof *v);
  if (!v)
    return NULL;
  v->label = kk__strdup(spec->label ? spec->label : "");
  if (!v->label) {
    free(v);
    return NULL;
  }
  atomic_init(&v->refs, 1);
  v->gen = kk__generation_now();
  v->type = spec->type;
  v->elem_size = (uint32_t)elem;
  v->rank = spec->rank;
  v->space = space;
  v->layout = spec->layout == KK_LAYOUT_DEFAULT ? kk_space_default_layout(space) : spec->layout;
  for (int d = 0; d < KK_MAX_RANK; d++)
    v->extent[d] = d < spec->rank ? spec->extents[d] : 1;
  if (v->layout == KK_LAYOUT_STRIDE)
    for (int d = 0; d < KK_MAX_RANK; d++)
      v->stride[d] = d < spec->rank ? spec->strides[d] : 0;
  return v; /* shape_check() computes compact strides */
}

kk_status_t kk_view_create(const kk_view_spec_t *spec, kk_view_t **out) {
  KK__REQUIRE_INIT("kk_view_create");
  size_t elem;
  if (!out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_view_create: out is NULL");
  *out = NULL;
  kk_status_t st = check_spec("kk_view_create", spec, &elem);
  if (st != KK_OK)
    return st;
  if (spec->space && kk__stale(spec->space->gen))
    return kk__stale_error("kk_view_create", "the memory space of view", spec->label ? spec->label : "");
  kk_space_t *space = spec->space ? spec->space : kk_space_default();
  kk_view_t *v = shape_new(spec, elem, space);
  alloc_t *a = calloc(1, sizeof *a);
  if (!v || !a) {
    if (v)
      free(v->label);
    free(v);
    free(a);
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk_view_create: view '%s': out of host memory for its handle",
                     spec->label ? spec->label : "");
  }
  size_t bytes = 0;
  if ((st = shape_check("kk_view_create", v, elem, &bytes)) != KK_OK) {
    free(v->label);
    free(v);
    free(a);
    return st;
  }
  if ((st = kk__space_alloc(space, v->label, bytes, &a->ptr)) != KK_OK) {
    free(v->label);
    free(v);
    free(a);
    return kk__error(st, "kk_view_create: %s", kk_last_error());
  }
  if (bytes && !(spec->flags & KK_VIEW_NO_INIT)) {
    kk__backend_t *b = space->backend;
    st = b->ops.mem_set(b->ctx, NULL, a->ptr, space->index, 0, bytes);
    if (st != KK_OK) {
      kk__space_free(space, a->ptr);
      free(v->label);
      free(v);
      free(a);
      return kk__error(st, "kk_view_create: zeroing view '%s' (%zu bytes in %s) failed: %s", spec->label, bytes,
                       space->name, kk_last_error());
    }
  }
  atomic_init(&a->refs, 1);
  a->space = space;
  a->bytes = bytes;
  a->label = kk__strdup(v->label);
  a->generation = kk__generation_now();
  pthread_mutex_lock(&g_allocs_lock);
  a->next = g_allocs;
  if (g_allocs)
    g_allocs->prev = a;
  g_allocs = a;
  pthread_mutex_unlock(&g_allocs_lock);
  v->alloc = a;
  v->data = a->ptr;
  if (KK__UNLIKELY(kk__tools.active) && bytes)
    kk__tools_allocate(space, v->label, a->ptr, bytes);
  *out = v;
  return KK_OK;
}

kk_status_t kk_view_alloc(kk_view_t **out, const char *label, kk_type_t type, int rank, const int64_t *extents) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = type;
  s.rank = rank;
  for (int d = 0; d < rank && d < KK_MAX_RANK && extents; d++)
    s.extents[d] = extents[d];
  if (rank > 0 && !extents)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_view_alloc: view '%s': extents is NULL", label ? label : "");
  return kk_view_create(&s, out);
}

kk_status_t kk_view_wrap(const kk_view_spec_t *spec, void *data, kk_view_t **out) {
  KK__REQUIRE_INIT("kk_view_wrap");
  size_t elem;
  if (!out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_view_wrap: out is NULL");
  *out = NULL;
  kk_status_t st = check_spec("kk_view_wrap", spec, &elem);
  if (st != KK_OK)
    return st;
  if (spec->space && kk__stale(spec->space->gen))
    return kk__stale_error("kk_view_wrap", "the memory space of view", spec->label ? spec->label : "");
  kk_space_t *space = spec->space ? spec->space : kk_space_host();
  kk_view_t *v = shape_new(spec, elem, space);
  if (!v)
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk_view_wrap: out of memory");
  size_t bytes = 0;
  if ((st = shape_check("kk_view_wrap", v, elem, &bytes)) != KK_OK) {
    kk_view_release(v);
    return st;
  }
  if (!data && bytes) {
    st = kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_view_wrap: view '%s': data is NULL", v->label);
    kk_view_release(v); /* after the message: it frees the label */
    return st;
  }
  v->data = data;
  list_unmanaged(v);
  *out = v;
  return KK_OK;
}

kk_view_t *kk_view_retain(kk_view_t *v) {
  if (v)
    atomic_fetch_add(&v->refs, 1);
  return v;
}

void kk_view_release(kk_view_t *v) {
  if (!v || atomic_fetch_sub(&v->refs, 1) != 1)
    return;
  unlist_unmanaged(v);
  alloc_release(v->alloc);
  free(v->label);
  free(v);
}

/* The reference count is the handle's own: it counts on after kk_finalize.
 * Every other query answers for a view from before kk_finalize as for NULL. */
int kk_view_use_count(const kk_view_t *v) { return v ? atomic_load(&((kk_view_t *)v)->refs) : 0; }
const char *kk_view_label(const kk_view_t *v) { return live(v) ? v->label : NULL; }
kk_type_t kk_view_type(const kk_view_t *v) { return live(v) ? v->type : KK_TYPE_NONE; }
size_t kk_view_elem_size(const kk_view_t *v) { return live(v) ? v->elem_size : 0; }
int kk_view_rank(const kk_view_t *v) { return live(v) ? v->rank : 0; }
int64_t kk_view_extent(const kk_view_t *v, int d) { return live(v) && d >= 0 && d < KK_MAX_RANK ? v->extent[d] : 1; }
int64_t kk_view_stride(const kk_view_t *v, int d) { return live(v) && d >= 0 && d < v->rank ? v->stride[d] : 0; }
size_t kk_view_size(const kk_view_t *v) { return live(v) ? size_of(v->rank, v->extent) : 0; }
size_t kk_view_span(const kk_view_t *v) { return live(v) ? span_of(v->rank, v->extent, v->stride) : 0; }
int kk_view_span_is_contiguous(const kk_view_t *v) { return live(v) && kk_view_span(v) == kk_view_size(v); }
kk_layout_t kk_view_layout(const kk_view_t *v) { return live(v) ? v->layout : KK_LAYOUT_DEFAULT; }
kk_space_t *kk_view_space(const kk_view_t *v) { return live(v) ? v->space : NULL; }
void *kk_view_data(const kk_view_t *v) { return live(v) ? v->data : NULL; }
int kk_view_is_managed(const kk_view_t *v) { return live(v) && v->alloc != NULL; }

/* ---- subviews ------------------------------------------------------------ */

kk_status_t kk_view_subview(kk_view_t *src, const kk_slice_t *slices, kk_view_t **out) {
  if (out)
    *out = NULL;
  if (src && kk__stale(src->gen))
    return kk__view_check("kk_view_subview", src);
  if (!src || !out || (src->rank > 0 && !slices))
    return !src ? kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_view_subview: src is NULL")
           : !out ? kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_view_subview: view '%s': out is NULL", src->label)
                  : kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_view_subview: view '%s': slices is NULL (rank %d)",
                              src->label, src->rank);
  kk_view_t *v = calloc(1, sizeof *v);
  if (!v)
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk_view_subview: out of memory");
  int64_t offset = 0;
  int r = 0;
  int kept_dim[KK_MAX_RANK];
  for (int d = 0; d < src->rank; d++) {
    const kk_slice_t *s = &slices[d];
    int64_t b = 0, e = src->extent[d];
    if (s->kind == KK_SLICE_INDEX) {
      b = s->begin;
      e = s->begin + 1;
    } else if (s->kind == KK_SLICE_RANGE) {
      b = s->begin;
      e = s->end;
    } else if (s->kind != KK_SLICE_ALL) {
      free(v);
      return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_view_subview: view '%s': slice %d has unknown kind %d",
                       src->label, d, (int)s->kind);
    }
    if (b < 0 || e < b || e > src->extent[d] || (s->kind == KK_SLICE_INDEX && b >= src->extent[d])) {
      free(v);
      return kk__error(KK_ERROR_INVALID_ARGUMENT,
                       "kk_view_subview: view '%s': slice %d [%lld, %lld) is outside extent %lld", src->label, d,
                       (long long)b, (long long)e, (long long)src->extent[d]);
    }
    offset += b * src->stride[d];
    if (s->kind != KK_SLICE_INDEX) {
      kept_dim[r] = d;
      v->extent[r] = e - b;
      v->stride[r] = src->stride[d];
      r++;
    }
  }
  for (int d = r; d < KK_MAX_RANK; d++) {
    v->extent[d] = 1;
    v->stride[d] = 0;
  }
  v->rank = r;
  /* right stays right when the last dimension survives, left when the first does */
  if (src->layout == KK_LAYOUT_RIGHT)
    v->layout = (r == 0 || kept_dim[r - 1] == src->rank - 1) ? KK_LAYOUT_RIGHT : KK_LAYOUT_STRIDE;
  else if (src->layout == KK_LAYOUT_LEFT)
    v->layout = (r == 0 || kept_dim[0] == 0) ? KK_LAYOUT_LEFT : KK_LAYOUT_STRIDE;
  else
    v->layout = KK_LAYOUT_STRIDE;
  if (r == 1 && v->stride[0] == 1 && v->layout == KK_LAYOUT_STRIDE)
    v->layout = src->layout; /* a unit-stride line is right and left at once */
  atomic_init(&v->refs, 1);
  v->gen = src->gen;
  v->label = kk__strdup(src->label);
  v->type = src->type;
  v->elem_size = src->elem_size;
  v->space = src->space;
  v->data = (char *)src->data + offset * (int64_t)src->elem_size;
  v->alloc = src->alloc;
  if (v->alloc)
    atomic_fetch_add(&v->alloc->refs, 1);
  else
    list_unmanaged(v);
  *out = v;
  return KK_OK;
}

/* ---- deep copies ----------------------------------------------------------- */

/* Calls run(dst_offset, src_offset, elements) for every contiguous run that a
 * copy between two views of the same extents decomposes into. */
typedef kk_status_t (*run_fn)(void *ctx, int64_t doff, int64_t soff, int64_t n);

static kk_status_t for_each_run(int rank, const int64_t *ext, const int64_t *dstr, const int64_t *sstr, run_fn run,
                                void *ctx) {
  if (size_of(rank, ext) == 0)
    return KK_OK;
  /* the inner dimension: where both have stride 1, preferring the last */
  int inner = -1;
  for (int d = rank - 1; d >= 0 && inner < 0; d--)
    if (dstr[d] == 1 && sstr[d] == 1 && ext[d] > 1)
      inner = d;
  int64_t len = inner >= 0 ? ext[inner] : 1;
  int64_t idx[KK_MAX_RANK] = {0};
  for (;;) {
    int64_t doff = 0, soff = 0;
    for (int d = 0; d < rank; d++) {
      doff += idx[d] * dstr[d];
      soff += idx[d] * sstr[d];
    }
    kk_status_t st = run(ctx, doff, soff, len);
    if (st != KK_OK)
      return st;
    int d = rank - 1;
    for (; d >= 0; d--) {
      if (d == inner)
        continue;
      if (++idx[d] < ext[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return KK_OK;
  }
}

typedef struct copy_ctx {
  kk_view_t *dst, *src;
  kk_instance_t *inst;
} copy_ctx_t;

static kk_status_t copy_run(void *p, int64_t doff, int64_t soff, int64_t n) {
  copy_ctx_t *c = p;
  size_t e = c->dst->elem_size;
  return kk_space_copy(c->dst->space, (char *)c->dst->data + doff * (int64_t)e, c->src->space,
                       (char *)c->src->data + soff * (int64_t)e, (size_t)n * e, c->inst);
}

static bool same_shape(const kk_view_t *a, const kk_view_t *b) {
  if (a->rank != b->rank || a->elem_size != b->elem_size)
    return false;
  for (int d = 0; d < a->rank; d++)
    if (a->extent[d] != b->extent[d])
      return false;
  return true;
}

/* The description of a copy from src's geometry at sbuf (space index si of
 * the backend that runs it) into dst's at dbuf (di). */
static void remap_desc(kk_plugin_remap_t *r, const kk_view_t *dst, void *dbuf, int32_t di, const kk_view_t *src,
                       const void *sbuf, int32_t si) {
  *r = (kk_plugin_remap_t){.struct_size = sizeof *r, .rank = dst->rank, .elem_size = dst->elem_size, .dst = dbuf,
                           .dst_space = di, .src = sbuf, .src_space = si};
  for (int d = 0; d < KK_MAX_RANK; d++) {
    r->extent[d] = d < dst->rank ? dst->extent[d] : 1;
    r->dst_stride[d] = d < dst->rank ? dst->stride[d] : 0;
    r->src_stride[d] = d < src->rank ? src->stride[d] : 0;
  }
}

/* b's mem_remap on plugin instance pinst (NULL: complete on return);
 * KK_ERROR_UNSUPPORTED as the plugin returns it, without a message. */
static kk_status_t plugin_remap(kk__backend_t *b, void *pinst, const kk_plugin_remap_t *r, const kk_view_t *dst,
                                const kk_view_t *src) {
  kk_clear_error();
  kk_status_t st = b->ops.mem_remap(b->ctx, pinst, r);
  if (st != KK_OK && st != KK_ERROR_UNSUPPORTED)
    return kk__error(st, "copy between layouts from '%s' (%s) to '%s' (%s) on backend %s failed: %s", src->label,
                     src->space->name, dst->label, dst->space->name, b->name,
                     kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
  return st;
}

/* Copies every element of src (its data at sbuf) into dst (its data at
 * dbuf), both in host memory, by host backend b (space indices di, si):
 * its mem_remap, on its threads when large; a backend without one (or that
 * declines) gets the tiled copy on the calling thread. */
static kk_status_t remap_on(kk__backend_t *b, kk_instance_t *inst, const kk_view_t *dst, void *dbuf, int32_t di,
                            const kk_view_t *src, const void *sbuf, int32_t si) {
  kk_plugin_remap_t r;
  remap_desc(&r, dst, dbuf, di, src, sbuf, si);
  if (KK_PLUGIN_HAS(&b->ops, mem_remap)) {
    kk_status_t st = plugin_remap(b, inst && inst->backend == b ? inst->plugin_inst : NULL, &r, dst, src);
    if (st != KK_ERROR_UNSUPPORTED)
      return st;
    kk_clear_error();
  }
  kkh_remap(NULL, &r);
  return KK_OK;
}

/* b's mem_remap between geometry (dbuf, dst's strides) and (sbuf, src's
 * strides), both in b's spaces (di, si >= 0). */
static kk_status_t device_remap_call(kk__backend_t *b, void *pinst, const kk_view_t *dst, void *dbuf, int32_t di,
                                     const kk_view_t *src, const void *sbuf, int32_t si) {
  kk_plugin_remap_t r;
  remap_desc(&r, dst, dbuf, di, src, sbuf, si);
  return plugin_remap(b, pinst, &r, dst, src);
}

/* A copy between layouts that never passes through host memory as a remap:
 * both sides in the spaces of device backend b, remapped there (on the
 * instance when it is b's); or one side host memory, moved in one bulk
 * transfer to or from a buffer in the device side's space (in the host
 * side's geometry) and remapped on the device.  KK_ERROR_UNSUPPORTED (no
 * message) when b cannot (its plugin has no device remap, the sides are of
 * two device backends, the host side has gaps or is mostly gaps). */
static kk_status_t device_remap(copy_ctx_t *c, kk__backend_t *b) {
  kk_view_t *dst = c->dst, *src = c->src;
  const size_t e = dst->elem_size;
  int32_t di = kk__side_index(b, dst->space), si = kk__side_index(b, src->space);
  if (di >= 0 && si >= 0) {
    void *pinst = c->inst && c->inst->backend == b ? c->inst->plugin_inst : NULL;
    kk_status_t st = device_remap_call(b, pinst, dst, dst->data, di, src, src->data, si);
    return st == KK_OK && pinst ? kk_instance_fence(c->inst) : st;
  }
  if (di < -1 || si < -1 || (di < 0 && si < 0))
    return KK_ERROR_UNSUPPORTED;
  const bool to_device = di >= 0;
  kk_view_t *host = to_device ? src : dst, *dev = to_device ? dst : src;
  const size_t bytes = kk_view_size(dst) * e, hbytes = span_of(host->rank, host->extent, host->stride) * e;
  /* a host destination with gaps would get the buffer's gaps; a host side
   * mostly made of gaps would move far more than it copies */
  if ((!to_device && hbytes != bytes) || hbytes / 4 > bytes + (64u << 10))
    return KK_ERROR_UNSUPPORTED;
  void *buf = NULL;
  kk_status_t st = kk__space_alloc(dev->space, "kk_deep_copy remap buffer", hbytes, &buf);
  if (st != KK_OK)
    return KK_ERROR_UNSUPPORTED; /* then staged through the host */
  if (to_device) {
    if ((st = kk_space_copy(dev->space, buf, host->space, host->data, hbytes, NULL)) == KK_OK)
      st = device_remap_call(b, NULL, dst, dst->data, di, src, buf, di);
  } else {
    if ((st = device_remap_call(b, NULL, dst, buf, si, src, src->data, si)) == KK_OK)
      st = kk_space_copy(host->space, host->data, dev->space, buf, hbytes, NULL);
  }
  kk_status_t fst = kk__space_free(dev->space, buf);
  return st != KK_OK ? st : fst;
}

/* Waits for what the copy must follow (and for what may still read a
 * staging buffer): the instance, or with none every instance when a side
 * belongs to a device backend. */
static kk_status_t copy_fence(kk_instance_t *inst, const kk_view_t *dst, const kk_view_t *src) {
  if (inst)
    return kk_instance_fence(inst);
  if (!(dst->space->backend->ops.flags & KK_PLUGIN_FLAG_HOST) || !(src->space->backend->ops.flags & KK_PLUGIN_FLAG_HOST))
    return kk_fence();
  return KK_OK;
}

/* A run from a host buffer in dst's geometry into dst. */
typedef struct stage_ctx {
  kk_view_t *dst;
  const char *buf;
} stage_ctx_t;

static kk_status_t stage_run(void *p, int64_t doff, int64_t soff, int64_t n) {
  stage_ctx_t *c = p;
  size_t e = c->dst->elem_size;
  return kk_space_copy(c->dst->space, (char *)c->dst->data + doff * (int64_t)e, NULL, c->buf + soff * (int64_t)e,
                       (size_t)n * e, NULL);
}

/* A copy between views that share no unit-stride dimension (LayoutLeft into
 * LayoutRight, a transpose-like strided view): a tiled remap by a host
 * backend where both sides are host-accessible; else on the device when
 * its backend remaps there (device_remap); else staged through host
 * buffers holding each side's span (one bulk copy in, the same remap on the
 * host, one bulk copy out, or one per contiguous run of a destination with
 * gaps).  Complete on return, also with an instance (which it fences first,
 * so that the copy follows the work queued on it). */
static kk_status_t copy_remap(copy_ctx_t *c) {
  kk_view_t *dst = c->dst, *src = c->src;
  size_t e = dst->elem_size;
  kk_status_t st = copy_fence(c->inst, dst, src);
  if (st != KK_OK)
    return st;
  bool dhost = kk_space_host_accessible(dst->space), shost = kk_space_host_accessible(src->space);
  /* host memory is remapped by a host backend (on its threads when the copy
   * is large): the instance's when it is one, else the active host backend */
  kk__backend_t *hb = c->inst && (c->inst->backend->ops.flags & KK_PLUGIN_FLAG_HOST) ? c->inst->backend : kk__g.host;
  if (dhost && shost)
    return remap_on(hb, c->inst, dst, dst->data, kk__side_index(hb, dst->space), src, src->data,
                    kk__side_index(hb, src->space));
  /* a device backend that remaps in its own memory: no host staging */
  kk__backend_t *gb = !dhost ? dst->space->backend : src->space->backend;
  if (KK_PLUGIN_HAS(&gb->ops, mem_remap) && !(gb->ops.flags & KK_PLUGIN_FLAG_HOST)) {
    st = device_remap(c, gb);
    if (st != KK_ERROR_UNSUPPORTED)
      return st;
    kk_clear_error();
  }
  size_t sbytes = span_of(src->rank, src->extent, src->stride) * e;
  size_t dbytes = span_of(dst->rank, dst->extent, dst->stride) * e;
  size_t bytes = kk_view_size(dst) * e;
  /* a side mostly made of gaps (a column of a large matrix) would stage far
   * more than it copies: element runs then */
  if ((!shost && sbytes / 4 > bytes + (64u << 10)) || (!dhost && dbytes / 4 > bytes + (64u << 10)))
    return for_each_run(dst->rank, dst->extent, dst->stride, src->stride, copy_run, c);
  char *sbuf = shost ? src->data : malloc(sbytes);
  char *dbuf = dhost ? dst->data : malloc(dbytes);
  if (!sbuf || !dbuf) {
    st = kk__error(KK_ERROR_OUT_OF_MEMORY, "no host staging buffer of %zu bytes for a copy between layouts",
                   !sbuf ? sbytes : dbytes);
    goto fail_free_buffers;
  }
  if (!shost && (st = kk_space_copy(NULL, sbuf, src->space, src->data, sbytes, NULL)) != KK_OK)
    goto fail_free_buffers;
  if ((st = remap_on(hb, c->inst, dst, dbuf, dhost ? kk__side_index(hb, dst->space) : KK_PLUGIN_HOST_MEMORY, src,
                     sbuf, shost ? kk__side_index(hb, src->space) : KK_PLUGIN_HOST_MEMORY)) != KK_OK)
    goto fail_free_buffers;
  if (!dhost) {
    if (dbytes == bytes) {
      st = kk_space_copy(dst->space, dst->data, NULL, dbuf, dbytes, NULL);
    } else {
      /* a destination with gaps: only its elements, run by run */
      stage_ctx_t runs = {dst, dbuf};
      st = for_each_run(dst->rank, dst->extent, dst->stride, dst->stride, stage_run, &runs);
    }
  }
fail_free_buffers:
  if (!shost)
    free(sbuf);
  if (!dhost)
    free(dbuf);
  return st;
}

/* Copies every element of c->src into c->dst (same shape; any layouts and
 * strides). */
static kk_status_t copy_views(void *p) {
  copy_ctx_t *c = p;
  kk_view_t *dst = c->dst, *src = c->src;
  size_t n = size_of(dst->rank, dst->extent);
  if (kk_view_span_is_contiguous(dst) && kk_view_span_is_contiguous(src) &&
      memcmp(dst->stride, src->stride, sizeof dst->stride) == 0)
    return copy_run(c, 0, 0, (int64_t)n);
  /* runs along a dimension of unit stride on both sides, when there is one */
  bool common_unit = false;
  for (int k = 0; k < dst->rank; k++)
    common_unit |= dst->extent[k] > 1 && dst->stride[k] == 1 && src->stride[k] == 1;
  if (common_unit || n <= 1)
    return for_each_run(dst->rank, dst->extent, dst->stride, src->stride, copy_run, c);
  /* inside a graph capture: one op that remaps at each submission */
  if (c->inst && kk__capturing(c->inst))
    return kk__graph_record_remap(c->inst, dst, src);
  return copy_remap(c);
}

kk_status_t kk__view_remap(kk_instance_t *inst, kk_view_t *dst, kk_view_t *src) {
  copy_ctx_t c = {dst, src, inst};
  return copy_remap(&c);
}

/* A stale view or instance among a call's arguments: its error (else KK_OK). */
static kk_status_t stale_args(const char *op, kk_instance_t *inst, const kk_view_t *a, const kk_view_t *b) {
  if (KK__UNLIKELY(inst && kk__stale(inst->gen)))
    return kk__stale_error(op, "the instance", NULL);
  kk_status_t st = kk__view_check(op, a);
  return st != KK_OK ? st : kk__view_check(op, b);
}

static kk_status_t deep_copy(const char *op, kk_instance_t *inst, kk_view_t *dst, kk_view_t *src) {
  KK__REQUIRE_INIT(op);
  kk_status_t st = stale_args(op, inst, dst, src);
  if (st != KK_OK)
    return st;
  if (!dst || !src)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: NULL view", op);
  /* as Kokkos refuses at compile time; KK_TYPE_CUSTOM views agree by their element size (below) */
  if (dst->type != src->type)
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "%s: views '%s' (%s) and '%s' (%s) differ in element type: a deep copy does not convert", op,
                     dst->label, kk_type_name(dst->type), src->label, kk_type_name(src->type));
  if (!same_shape(dst, src)) {
    kk__str_t s = {0};
    kk__str_addf(&s, "%s: views '%s' and '%s' differ in shape: (", op, dst->label, src->label);
    for (int d = 0; d < dst->rank; d++)
      kk__str_addf(&s, "%s%lld", d ? "," : "", (long long)dst->extent[d]);
    kk__str_addf(&s, ") x %u bytes vs (", dst->elem_size);
    for (int d = 0; d < src->rank; d++)
      kk__str_addf(&s, "%s%lld", d ? "," : "", (long long)src->extent[d]);
    kk__str_addf(&s, ") x %u bytes", src->elem_size);
    kk_status_t st = kk__error(KK_ERROR_INVALID_ARGUMENT, "%s", s.s ? s.s : op);
    kk__str_free(&s);
    return st;
  }
  if (dst->data == src->data && memcmp(dst->stride, src->stride, sizeof dst->stride) == 0)
    return KK_OK;
  copy_ctx_t c = {dst, src, inst};
  if (KK__UNLIKELY(inst && kk__capturing(inst)))
    return kk__graph_record_views(op, inst, dst, src, copy_views, &c);
  if (KK__UNLIKELY(kk__tools.active))
    return kk__tools_deep_copy(op, inst, dst->space, dst->label, dst->data, src->space, src->label, src->data,
                               (uint64_t)kk_view_size(dst) * dst->elem_size, copy_views, &c);
  return copy_views(&c);
}

kk_status_t kk_deep_copy(kk_view_t *dst, kk_view_t *src) { return deep_copy("kk_deep_copy", NULL, dst, src); }

kk_status_t kk_deep_copy_async(kk_instance_t *inst, kk_view_t *dst, kk_view_t *src) {
  return deep_copy("kk_deep_copy_async", inst, dst, src);
}

typedef struct fill_ctx {
  kk_view_t *dst;
  const void *value;
  kk_instance_t *inst;
} fill_ctx_t;

/* Fills n elements at element offset off: through the plugin's mem_fill when
 * it has one and the element size is a fill pattern size, else by copying a
 * host buffer of repeated values. */
static kk_status_t fill_run(void *p, int64_t off, int64_t unused, int64_t n) {
  (void)unused;
  fill_ctx_t *c = p;
  kk_view_t *v = c->dst;
  size_t e = v->elem_size;
  char *base = (char *)v->data + off * (int64_t)e;
  if (KK__UNLIKELY(c->inst && kk__capturing(c->inst)))
    return kk__graph_record_fill(c->inst, v->space, kk__side_index(c->inst->backend, v->space), base, c->value, e,
                                 (size_t)n);
  kk__backend_t *b = v->space->backend;
  bool pattern_ok = e == 1 || e == 2 || e == 4 || e == 8 || e == 16;
  if (pattern_ok && KK_PLUGIN_HAS(&b->ops, mem_fill))
    return b->ops.mem_fill(b->ctx, c->inst && c->inst->backend == b ? kk__mem_inst(c->inst) : NULL, base,
                           v->space->index, c->value, e, (size_t)n);
  if (kk_space_host_accessible(v->space) && !c->inst) {
    for (int64_t i = 0; i < n; i++)
      memcpy(base + i * (int64_t)e, c->value, e);
    return KK_OK;
  }
  /* staging: a host buffer of whole elements, at most 1 MiB */
  size_t per = (1u << 20) / e ? (1u << 20) / e : 1;
  if ((size_t)n < per)
    per = (size_t)n;
  char *buf = malloc(per * e);
  if (!buf)
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "fill: no host staging buffer");
  for (size_t i = 0; i < per; i++)
    memcpy(buf + i * e, c->value, e);
  kk_status_t st = KK_OK;
  for (int64_t done = 0; done < n && st == KK_OK; done += (int64_t)per) {
    size_t k = (size_t)(n - done) < per ? (size_t)(n - done) : per;
    st = kk_space_copy(v->space, base + done * (int64_t)e, NULL, buf, k * e, NULL);
  }
  free(buf);
  return st;
}

/* Sets every element of c->dst to *c->value. */
static kk_status_t fill_view(void *p) {
  fill_ctx_t *c = p;
  kk_view_t *dst = c->dst;
  if (kk_view_span_is_contiguous(dst))
    return fill_run(c, 0, 0, (int64_t)kk_view_size(dst));
  return for_each_run(dst->rank, dst->extent, dst->stride, dst->stride, fill_run, c);
}

static kk_status_t fill(const char *op, kk_instance_t *inst, kk_view_t *dst, const void *value) {
  KK__REQUIRE_INIT(op);
  kk_status_t st = stale_args(op, inst, dst, NULL);
  if (st != KK_OK)
    return st;
  if (!dst || !value)
    return !dst ? kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: the view is NULL", op)
                : kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': the value is NULL", op, dst->label);
  fill_ctx_t c = {dst, value, inst};
  if (KK__UNLIKELY(inst && kk__capturing(inst)))
    return kk__graph_record_views(op, inst, dst, NULL, fill_view, &c);
  /* as in Kokkos, a fill is a deep copy from the host scalar "Scalar" */
  st = KK__UNLIKELY(kk__tools.active)
           ? kk__tools_deep_copy(op, inst, dst->space, dst->label, dst->data, NULL, "Scalar", value,
                                 (uint64_t)kk_view_size(dst) * dst->elem_size, fill_view, &c)
           : fill_view(&c);
  if (st != KK_OK)
    return kk__error(st, "%s: view '%s' in %s: %s", op, dst->label, dst->space->name, kk_last_error());
  return KK_OK;
}

kk_status_t kk_deep_copy_fill(kk_view_t *dst, const void *value) { return fill("kk_deep_copy_fill", NULL, dst, value); }

kk_status_t kk_deep_copy_fill_async(kk_instance_t *inst, kk_view_t *dst, const void *value) {
  return fill("kk_deep_copy_fill_async", inst, dst, value);
}

/* ---- mirrors, resize ---------------------------------------------------------- */

/* A new view shaped like src (compact strides in src's layout; a strided view
 * gets compact right strides) in `space`. */
static kk_status_t like(const char *op, kk_space_t *space, kk_view_t *src, const char *suffix, const int64_t *extents,
                        unsigned flags, kk_view_t **out) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  char label[512];
  snprintf(label, sizeof label, "%s%s", src->label, suffix);
  s.label = label;
  s.type = src->type;
  s.elem_size = src->elem_size;
  s.rank = src->rank;
  for (int d = 0; d < src->rank; d++)
    s.extents[d] = extents ? extents[d] : src->extent[d];
  s.layout = src->layout;
  if (s.layout == KK_LAYOUT_STRIDE)
    compact_strides(src->rank, s.extents, KK_LAYOUT_RIGHT, s.strides);
  s.space = space;
  s.flags = flags;
  kk_status_t st = kk_view_create(&s, out);
  if (st != KK_OK)
    return kk__error(st, "%s: %s", op, kk_last_error());
  return KK_OK;
}

kk_status_t kk_view_create_mirror(kk_view_t *src, kk_view_t **out) {
  KK__REQUIRE_INIT("kk_view_create_mirror");
  if (kk__view_check("kk_view_create_mirror", src) != KK_OK)
    return kk_last_status();
  if (!src || !out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_view_create_mirror: %s is NULL", !src ? "src" : "out");
  return like("kk_view_create_mirror", kk_space_host(), src, "_mirror", NULL, 0, out);
}

kk_status_t kk_view_create_mirror_in(kk_space_t *space, kk_view_t *src, kk_view_t **out) {
  KK__REQUIRE_INIT("kk_view_create_mirror_in");
  if (kk__view_check("kk_view_create_mirror_in", src) != KK_OK)
    return kk_last_status();
  if (space && kk__stale(space->gen))
    return kk__stale_error("kk_view_create_mirror_in", "memory space", space->name);
  if (!src || !out || !space)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_view_create_mirror_in: %s is NULL",
                     !space ? "space" : !src ? "src" : "out");
  return like("kk_view_create_mirror_in", space, src, "_mirror", NULL, 0, out);
}

kk_status_t kk_view_create_mirror_view(kk_view_t *src, kk_view_t **out) {
  KK__REQUIRE_INIT("kk_view_create_mirror_view");
  if (kk__view_check("kk_view_create_mirror_view", src) != KK_OK)
    return kk_last_status();
  if (!src || !out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_view_create_mirror_view: %s is NULL", !src ? "src" : "out");
  if (kk_space_host_accessible(src->space)) {
    *out = kk_view_retain(src);
    return KK_OK;
  }
  return kk_view_create_mirror(src, out);
}

static kk_status_t reshape(const char *op, kk_view_t **view, const int64_t *extents, bool keep) {
  KK__REQUIRE_INIT(op);
  if (view && kk__view_check(op, *view) != KK_OK)
    return kk_last_status();
  if (!view || !*view || (!extents && (*view)->rank > 0))
    return !view || !*view ? kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: the view is NULL", op)
                           : kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': extents is NULL (rank %d)", op,
                                       (*view)->label, (*view)->rank);
  kk_view_t *old = *view;
  if (!old->alloc)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s' is unmanaged", op, old->label);
  for (int d = 0; d < old->rank; d++)
    if (extents[d] < 0)
      return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: view '%s': extent %d is negative", op, old->label, d);
  kk_view_t *nv;
  kk_status_t st = like(op, old->space, old, "", extents, 0, &nv);
  if (st != KK_OK)
    return st;
  if (keep) {
    kk_slice_t sl[KK_MAX_RANK];
    for (int d = 0; d < old->rank; d++)
      sl[d] = KK_SPAN(0, extents[d] < old->extent[d] ? extents[d] : old->extent[d]);
    kk_view_t *a = NULL, *b = NULL;
    if ((st = kk_view_subview(nv, sl, &a)) == KK_OK && (st = kk_view_subview(old, sl, &b)) == KK_OK) {
      /* the common box keeps its layout in both (right/left survive ranges) */
      st = deep_copy(op, NULL, a, b);
    }
    kk_view_release(a);
    kk_view_release(b);
    if (st != KK_OK) {
      kk_view_release(nv);
      return st;
    }
  }
  kk_view_release(old);
  *view = nv;
  return KK_OK;
}

kk_status_t kk_view_resize(kk_view_t **view, const int64_t *extents) {
  return reshape("kk_view_resize", view, extents, true);
}

kk_status_t kk_view_realloc(kk_view_t **view, const int64_t *extents) {
  return reshape("kk_view_realloc", view, extents, false);
}

/* ---- kernel descriptors -------------------------------------------------------- */

static void bind_fail(kk_status_t st, const char *fmt, ...) KK__PRINTF(2, 3);
static void bind_fail(kk_status_t st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kk__vsnprintf(tl_bind_msg, sizeof tl_bind_msg, fmt, ap);
  va_end(ap);
  if (!kk__tl_bind_failed) {
    kk__tl_bind_failed = true;
    atomic_fetch_add_explicit(&kk__bind_failures, 1, memory_order_relaxed);
  }
  tl_bind_status = st;
  kk__error(st, "%s", tl_bind_msg);
}

void kk__bind_fail_stale(const char *op, const char *kind, const char *label) {
  char msg[sizeof tl_bind_msg];
  kk__stale_message(msg, sizeof msg, op, kind, label);
  bind_fail(KK_ERROR_NOT_INITIALIZED, "%s", msg);
}

kk_status_t kk__take_bind_error(const char *op, const char *label) {
  if (kk__tl_bind_failed) {
    kk__tl_bind_failed = false;
    atomic_fetch_sub_explicit(&kk__bind_failures, 1, memory_order_relaxed);
  }
  return kk__error(tl_bind_status, "%s '%s' refused: an earlier view binding failed: %s", op, label, tl_bind_msg);
}

/* Fills `d` from v when v's layout fits a parameter of layout `want`
 * (KK_LAYOUT_DEFAULT: the default of the backend owning v's space). */
static void bind(const char *op, kk_view_t *v, kk_layout_t want, kk_view_desc_t *d) {
  memset(d, 0, sizeof *d);
  if (!v) {
    bind_fail(KK_ERROR_LAYOUT_MISMATCH, "%s: view is NULL", op);
    return;
  }
  if (kk__stale(v->gen)) {
    kk__bind_fail_stale(op, "view", v->label);
    return;
  }
  kk_layout_t need = want == KK_LAYOUT_DEFAULT ? kk_space_default_layout(v->space) : want;
  bool unit_line = v->rank == 0 || (v->rank == 1 && v->stride[0] == 1);
  if (need != KK_LAYOUT_STRIDE && !unit_line && v->layout != need) {
    bind_fail(KK_ERROR_LAYOUT_MISMATCH, "%s: view '%s' has layout %s, but the kernel parameter expects layout %s%s%s", op, v->label,
              layout_str(v->layout), layout_str(need), want == KK_LAYOUT_DEFAULT ? " (the default of backend " : "",
              want == KK_LAYOUT_DEFAULT ? v->space->backend->name : "");
    if (want == KK_LAYOUT_DEFAULT)
      strncat(tl_bind_msg, "; declare the parameter kk_view_left/_right/_stride or create the view with the default layout",
              sizeof tl_bind_msg - strlen(tl_bind_msg) - 1);
    return;
  }
  d->data = v->data;
  for (int k = 0; k < KK_MAX_RANK; k++) {
    d->extent[k] = v->extent[k];
    d->stride[k] = v->stride[k];
  }
  d->rank = v->rank;
  d->layout = v->layout;
  d->elem_size = v->elem_size;
  d->type = (uint32_t)v->type;
}

kk_view kk_view_bind(kk_view_t *v) {
  kk_view r;
  memset(&r, 0, sizeof r);
  bind("kk_view_bind", v, KK_LAYOUT_DEFAULT, &r.d);
  return r;
}

kk_view_left kk_view_bind_left(kk_view_t *v) {
  kk_view_left r;
  memset(&r, 0, sizeof r);
  bind("kk_view_bind_left", v, KK_LAYOUT_LEFT, &r.d);
  return r;
}

kk_view_right kk_view_bind_right(kk_view_t *v) {
  kk_view_right r;
  memset(&r, 0, sizeof r);
  bind("kk_view_bind_right", v, KK_LAYOUT_RIGHT, &r.d);
  return r;
}

kk_view_strided kk_view_bind_strided(kk_view_t *v) {
  kk_view_strided r;
  memset(&r, 0, sizeof r);
  bind("kk_view_bind_strided", v, KK_LAYOUT_STRIDE, &r.d);
  return r;
}

/* Space and data of a view for the dispatcher (reduce into a view). */
kk_space_t *kk__view_space(const kk_view_t *v) { return v->space; }
