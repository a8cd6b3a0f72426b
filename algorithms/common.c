/* algorithms/common.c -- what every kk-algorithms routine does first: choose the instance, check views, make temporaries, launch, copy and permute. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

KK_DECLARE_KERNEL(kka_copy_1);
KK_DECLARE_KERNEL(kka_copy_2);
KK_DECLARE_KERNEL(kka_copy_4);
KK_DECLARE_KERNEL(kka_copy_8);
KK_DECLARE_KERNEL(kka_copy_16);
KK_DECLARE_KERNEL(kka_copy_bytes);

const char *kk_algorithms_version(void) { return KK_VERSION_STRING; }

kk_status_t kka_err(kk_status_t st, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return kk_set_error(st, "%s", buf);
}

const char *kka_label(const kk_view_t *v) {
  static _Thread_local char buf[4][96];
  static _Thread_local int next;
  char *b = buf[next++ & 3];
  const char *l = v ? kk_view_label(v) : NULL; /* NULL too for a view from before kk_finalize */
  snprintf(b, sizeof buf[0], "'%s'", l ? l : "(NULL)");
  return b;
}

/* Can the instance's backend read (and write) memory of this space? */
static int reachable(const char *backend, int host, const kk_space_t *s) {
  return strcmp(kk_space_backend(s), backend) == 0 || (host && kk_space_host_accessible(s));
}

kk_status_t kka_begin(kka_call_t *c, const char *op, kk_instance_t *inst, int n, kk_view_t *const *views,
                      const char *const *names) {
  c->op = op;
  c->inst = NULL;
  c->host = 0;
  c->space = NULL;
  c->ws = NULL;
  if (KKA_UNLIKELY(!kk_is_initialized()))
    return kka_err(KK_ERROR_NOT_INITIALIZED, "%s: kk is not initialized (call kk_initialize first)", op);
  for (int i = 0; i < n; i++)
    if (KKA_UNLIKELY(!views[i]))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s is NULL", op, names[i]);
  /* handles from before kk_finalize: kk answers NULL for their backend and space */
  if (KKA_UNLIKELY(inst && !kk_instance_backend(inst)))
    return kka_err(KK_ERROR_NOT_INITIALIZED,
                   "%s: the instance was made before kk_finalize, which ended it: a handle does not carry over into "
                   "a new kk_initialize (make it again)",
                   op);
  for (int i = 0; i < n; i++)
    if (KKA_UNLIKELY(!kk_view_space(views[i])))
      return kka_err(KK_ERROR_NOT_INITIALIZED,
                     "%s: view %s was made before kk_finalize, which ended it: a handle does not carry over into a "
                     "new kk_initialize (make it again)",
                     op, names[i]);
  if (!inst) {
    /* the backend that owns the first view's memory */
    const char *owner = n > 0 ? kk_space_backend(kk_view_space(views[0])) : kk_backend_default();
    inst = strcmp(owner, kk_backend_default()) == 0 ? kk_instance_default() : kk_instance_host();
  }
  const char *backend = kk_instance_backend(inst);
  c->inst = inst;
  c->host = strcmp(backend, kk_backend_host()) == 0;
  c->space = strcmp(backend, kk_backend_default()) == 0 ? kk_space_default() : kk_space_host();
  for (int i = 0; i < n; i++) {
    const kk_space_t *s = kk_view_space(views[i]);
    if (KKA_UNLIKELY(!reachable(backend, c->host, s)))
      return kka_err(KK_ERROR_UNSUPPORTED,
                     "%s: view %s %s is in memory space %s (backend %s), which backend %s cannot access; "
                     "copy it into a space of %s or pass an instance that can access it",
                     op, names[i], kka_label(views[i]), kk_space_name(s), kk_space_backend(s), backend, backend);
  }
  return KK_OK;
}

kk_status_t kka_live(const char *op, uint64_t init_id, const char *what, const char *label) {
  if (KKA_UNLIKELY(!kk_is_initialized()))
    return kka_err(KK_ERROR_NOT_INITIALIZED, "%s: kk is not initialized (call kk_initialize first)", op);
  if (KKA_UNLIKELY(init_id != kk_initialization_id()))
    return kka_err(KK_ERROR_NOT_INITIALIZED,
                   "%s: %s%s was made before kk_finalize, which ended it: a handle does not carry over into a new "
                   "kk_initialize (make it again)",
                   op, what, label);
  return KK_OK;
}

kk_status_t kka_check_rank(const kka_call_t *c, const kk_view_t *v, const char *name, int rank) {
  if (KKA_UNLIKELY(kk_view_rank(v) != rank))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s %s has rank %d, expected %d", c->op, name, kka_label(v),
                   kk_view_rank(v), rank);
  return KK_OK;
}

kk_status_t kka_check_arith(const kka_call_t *c, const kk_view_t *v, const char *name) {
  if (KKA_UNLIKELY(kka_tidx(kk_view_type(v)) < 0))
    return kka_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: view %s %s has element type %s; this takes the arithmetic types (int8 .. uint64, float, "
                   "double)",
                   c->op, name, kka_label(v), kk_type_name(kk_view_type(v)));
  return KK_OK;
}

kk_status_t kka_check_same_type(const kka_call_t *c, const kk_view_t *a, const char *an, const kk_view_t *b,
                                const char *bn) {
  if (KKA_UNLIKELY(kk_view_type(a) != kk_view_type(b) || kk_view_elem_size(a) != kk_view_elem_size(b)))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s %s has element type %s (%zu bytes), view %s %s %s (%zu bytes)",
                   c->op, bn, kka_label(b), kk_type_name(kk_view_type(b)), kk_view_elem_size(b), an, kka_label(a),
                   kk_type_name(kk_view_type(a)), kk_view_elem_size(a));
  return KK_OK;
}

kk_status_t kka_check_len(const kka_call_t *c, const kk_view_t *v, const char *name, int64_t n, int at_least,
                          const char *what) {
  const int64_t have = kk_view_extent(v, 0);
  if (KKA_UNLIKELY(at_least ? have < n : have != n))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s %s has extent %lld, expected %s%lld (%s)", c->op, name,
                   kka_label(v), (long long)have, at_least ? "at least " : "", (long long)n, what);
  return KK_OK;
}

kk_status_t kka_check_ptr(const kka_call_t *c, const void *p, const char *name) {
  if (KKA_UNLIKELY(!p))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", c->op, name);
  return KK_OK;
}

/* ---- descriptors ----------------------------------------------------------------- */

kk_view_strided kka_desc_range(kk_view_t *v, int64_t b, int64_t n) {
  kk_view_strided d = kk_view_bind_strided(v);
  d.d.data = (char *)d.d.data + (size_t)(b * d.d.stride[0]) * d.d.elem_size;
  d.d.extent[0] = n;
  return d;
}

kk_view_strided kka_desc_raw(void *p, int64_t n, uint32_t elem_size, kk_type_t type) {
  kk_view_strided d;
  memset(&d, 0, sizeof d);
  d.d.data = p;
  for (int k = 0; k < KK_MAX_RANK; k++)
    d.d.extent[k] = 1;
  d.d.extent[0] = n;
  d.d.stride[0] = 1;
  d.d.rank = 1;
  d.d.layout = KK_LAYOUT_RIGHT;
  d.d.elem_size = elem_size;
  d.d.type = (uint32_t)type;
  return d;
}

/* ---- temporaries ------------------------------------------------------------------ */

void *kka_tmp(const kka_call_t *c, const char *what, size_t bytes) {
  if (c->ws && c->ws->size - c->ws->used >= kka_ws_round(bytes)) {
    void *w = c->ws->base + c->ws->used;
    c->ws->used += kka_ws_round(bytes);
    return w;
  }
  void *p = NULL;
  char label[128];
  snprintf(label, sizeof label, "%s: %s", c->op, what);
  if (kk_space_alloc(c->space, label, bytes ? bytes : 1, &p) != KK_OK)
    return NULL;
  return p;
}

void *kka_keep(const kka_call_t *c, const char *what, size_t bytes, kk_view_t **hold) {
  char label[128];
  snprintf(label, sizeof label, "%s: %s", c->op, what);
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = KK_UINT8;
  s.rank = 1;
  s.extents[0] = (int64_t)(bytes ? bytes : 1);
  s.space = c->space;
  s.flags = KK_VIEW_NO_INIT;
  *hold = NULL;
  if (kk_view_create(&s, hold) != KK_OK)
    return NULL;
  return kk_view_data(*hold);
}

void kka_keep_free(const kka_call_t *c, kk_view_t **hold) {
  if (!*hold)
    return;
  if (!c->host && kka_is_live_view(*hold))
    (void)kk_instance_fence(c->inst); /* the queued work may still use it */
  kk_view_release(*hold);
  *hold = NULL;
}

void kka_tmp_free(const kka_call_t *c, void *p) {
  if (!p || (c->ws && (char *)p >= c->ws->base && (char *)p < c->ws->base + c->ws->size))
    return;
  if (!c->host)
    (void)kk_instance_fence(c->inst); /* the queued work may still use it */
  (void)kk_space_free(c->space, p);
}

kk_status_t kka_to_host(const kka_call_t *c, void *dst, const void *src, size_t bytes) {
  if (!bytes)
    return KK_OK;
  kk_status_t st = kk_instance_fence(c->inst);
  return st != KK_OK ? st : kk_space_copy(NULL, dst, c->space, src, bytes, NULL);
}

kk_status_t kka_from_host(const kka_call_t *c, void *dst, const void *src, size_t bytes) {
  if (!bytes)
    return KK_OK;
  kk_status_t st = kk_instance_fence(c->inst);
  return st != KK_OK ? st : kk_space_copy(c->space, dst, NULL, src, bytes, NULL);
}

kk_status_t kka_zero(const kka_call_t *c, void *p, size_t bytes) {
  if (!bytes)
    return KK_OK;
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = "kk-algorithms zero";
  s.type = KK_UINT8;
  s.rank = 1;
  s.extents[0] = (int64_t)bytes;
  s.space = c->space;
  kk_view_t *v = NULL;
  kk_status_t st = kk_view_wrap(&s, p, &v);
  if (st != KK_OK)
    return st;
  const uint8_t zero = 0;
  st = kk_deep_copy_fill_async(c->inst, v, &zero);
  kk_view_release(v);
  return st;
}

/* ---- launches ------------------------------------------------------------------- */

kk_status_t kka_for(const kka_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n) {
  if (n <= 0)
    return KK_OK;
  return kk_parallel_for(c->op, KK_RANGE_ON(c->inst, 0, n), k, args, size);
}

kk_status_t kka_for_blocks(const kka_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n) {
  if (n <= 0)
    return KK_OK;
  kk_range_policy_t p = {sizeof p, 0, n, 1, KK_SCHEDULE_STATIC, c->inst};
  return kk_parallel_for(c->op, &p, k, args, size);
}

kk_status_t kka_reduce(const kka_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n,
                       void *result, size_t result_size) {
  return kk_parallel_reduce(c->op, KK_RANGE_ON(c->inst, 0, n > 0 ? n : 0), k, args, size, result, result_size);
}

kk_status_t kka_scan(const kka_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n, void *total,
                     size_t total_size) {
  return kk_parallel_scan(c->op, KK_RANGE_ON(c->inst, 0, n > 0 ? n : 0), k, args, size, total, total_size);
}

kk_status_t kka_team(const kka_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t league,
                     int32_t team_size, uint64_t scratch0) {
  if (league <= 0)
    return KK_OK;
  kk_team_policy_t p = {sizeof p, league, team_size, 1, {scratch0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c->inst};
  return kk_parallel_for_team(c->op, &p, k, args, size);
}

static int device_info(const kka_call_t *c, kk_device_info_t *info) {
  const char *b = kk_instance_backend(c->inst);
  memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  int dev = strcmp(b, kk_backend_default()) == 0 ? kk_device_id() : 0;
  return kk_device_get_info(b, dev, info) == KK_OK;
}

int kka_host_threads(const kka_call_t *c) {
  if (!c->host)
    return 1;
  const int n = kk_num_threads();
  return n > 0 ? n : 1;
}

int64_t kka_concurrency(const kka_call_t *c) {
  if (c->host)
    return kka_host_threads(c);
  kk_device_info_t info;
  if (!device_info(c, &info) || info.concurrency <= 0)
    return 65536;
  return info.concurrency;
}

uint64_t kka_scratch_max(const kka_call_t *c) {
  kk_device_info_t info;
  return device_info(c, &info) ? (uint64_t)info.scratch_max[0] : 0;
}

/* ---- shared pieces ---------------------------------------------------------------- */

static const kk_kernel_t *copy_kernel(uint32_t esize) {
  switch (esize) {
  case 1:
    return KK_KERNEL(kka_copy_1);
  case 2:
    return KK_KERNEL(kka_copy_2);
  case 4:
    return KK_KERNEL(kka_copy_4);
  case 8:
    return KK_KERNEL(kka_copy_8);
  case 16:
    return KK_KERNEL(kka_copy_16);
  default:
    return KK_KERNEL(kka_copy_bytes);
  }
}

kk_status_t kka_copy(const kka_call_t *c, kk_view_strided dst, kk_view_strided src, int64_t n, uint32_t elem_size) {
  return kka_gather(c, dst, src, NULL, n, elem_size);
}

kk_status_t kka_gather(const kka_call_t *c, kk_view_strided dst, kk_view_strided src, const int64_t *perm, int64_t n,
                       uint32_t elem_size) {
  struct kka_copy_args a;
  memset(&a, 0, sizeof a);
  a.dst = dst;
  a.src = src;
  a.perm = perm;
  a.n = n;
  a.esize = elem_size;
  /* the size classes need aligned elements: a custom type of 16 bytes may be
   * aligned to 8 only */
  const kk_kernel_t *k = copy_kernel(elem_size);
  if (elem_size == 16 && (((uintptr_t)dst.d.data | (uintptr_t)src.d.data) & 15u))
    k = KK_KERNEL(kka_copy_bytes);
  return kka_for(c, k, &a, sizeof a, n);
}

kk_status_t kka_permute(const kka_call_t *c, kk_view_strided v, const int64_t *perm, int64_t n, uint32_t elem_size) {
  if (n <= 0)
    return KK_OK;
  void *tmp = kka_tmp(c, "permuted copy", (size_t)n * elem_size);
  if (!tmp)
    return kk_last_status();
  kk_view_strided t = kka_desc_raw(tmp, n, elem_size, (kk_type_t)v.d.type);
  kk_status_t st = kka_gather(c, t, v, perm, n, elem_size);
  if (st == KK_OK)
    st = kka_copy(c, v, t, n, elem_size);
  kka_tmp_free(c, tmp);
  return st;
}
