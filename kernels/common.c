/* kernels/common.c -- what every kk-kernels routine does first: choose the instance, check views and scalars, build descriptors, launch. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *kk_kernels_version(void) { return KK_VERSION_STRING; }

kk_status_t kkk_err(kk_status_t st, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return kk_set_error(st, "%s", buf);
}

const char *kkk_label(const kk_view_t *v) {
  static _Thread_local char buf[4][96];
  static _Thread_local int next;
  char *b = buf[next++ & 3];
  const char *label = v ? kk_view_label(v) : NULL;
  if (label)
    snprintf(b, sizeof buf[0], "'%s'", label);
  else
    snprintf(b, sizeof buf[0], "%s", v ? "(from before kk_finalize)" : "(NULL)");
  return b;
}

/* Can the instance's backend read (and write) memory of this space? */
static int readable(const char *backend, int host, const kk_space_t *s) {
  return strcmp(kk_space_backend(s), backend) == 0 || (host && kk_space_host_accessible(s));
}

kk_status_t kkk_begin(kkk_call_t *c, const char *op, kk_instance_t *inst, int n, kk_view_t *const *views,
                      const char *const *names, int ntyped) {
  c->op = op;
  c->inst = NULL;
  c->host = 0;
  c->type = KK_TYPE_NONE;
  c->t = -1;
  if (KKK_UNLIKELY(!kk_is_initialized()))
    return kkk_err(KK_ERROR_NOT_INITIALIZED, "%s: kk is not initialized (call kk_initialize first)", op);
  for (int i = 0; i < n; i++)
    if (KKK_UNLIKELY(!views[i]))
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s is NULL", op, names[i]);
  /* handles from before kk_finalize: kk answers NULL for their space and backend */
  if (KKK_UNLIKELY(inst && !kk_instance_backend(inst)))
    return kkk_err(KK_ERROR_NOT_INITIALIZED,
                   "%s: the instance was made before kk_finalize, which ended it: a handle does not carry over into "
                   "a new kk_initialize (make it again)",
                   op);
  for (int i = 0; i < n; i++)
    if (KKK_UNLIKELY(!kk_view_space(views[i])))
      return kkk_err(KK_ERROR_NOT_INITIALIZED,
                     "%s: view %s was made before kk_finalize, which ended it: a handle does not carry over into a "
                     "new kk_initialize (make it again)",
                     op, names[i]);
  const char *host_name = kk_backend_host();
  if (!inst) {
    /* the backend that owns the first view's memory */
    const char *owner = kk_space_backend(kk_view_space(views[0]));
    inst = strcmp(owner, kk_backend_default()) == 0 ? kk_instance_default() : kk_instance_host();
  }
  const char *backend = kk_instance_backend(inst);
  c->inst = inst;
  c->host = strcmp(backend, host_name) == 0;
  for (int i = 0; i < n; i++) {
    const kk_space_t *s = kk_view_space(views[i]);
    if (KKK_UNLIKELY(!readable(backend, c->host, s)))
      return kkk_err(KK_ERROR_UNSUPPORTED,
                     "%s: view %s %s is in memory space %s (backend %s), which backend %s cannot access; "
                     "copy it into a space of %s or pass an instance that can access it",
                     op, names[i], kkk_label(views[i]), kk_space_name(s), kk_space_backend(s), backend, backend);
  }
  if (ntyped > 0) {
    c->type = kk_view_type(views[0]);
    c->t = kkk_tidx(c->type);
    if (KKK_UNLIKELY(c->t < 0))
      return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                     "%s: view %s %s has element type %s; kk-kernels takes float, double, complex_float and "
                     "complex_double",
                     op, names[0], kkk_label(views[0]), kk_type_name(c->type));
    for (int i = 1; i < ntyped; i++) {
      kk_status_t st = kkk_check_type(c, views[i], names[i], c->type);
      if (st != KK_OK)
        return st;
    }
  }
  return KK_OK;
}

kk_status_t kkk_check_rank(const kkk_call_t *c, const kk_view_t *v, const char *name, int rank) {
  if (KKK_UNLIKELY(kk_view_rank(v) != rank))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s %s has rank %d, expected %d", c->op, name, kkk_label(v),
                   kk_view_rank(v), rank);
  return KK_OK;
}

kk_status_t kkk_check_type(const kkk_call_t *c, const kk_view_t *v, const char *name, kk_type_t type) {
  if (KKK_UNLIKELY(kk_view_type(v) != type))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s %s has element type %s, expected %s", c->op, name,
                   kkk_label(v), kk_type_name(kk_view_type(v)), kk_type_name(type));
  return KK_OK;
}

kk_status_t kkk_check_extent(const kkk_call_t *c, const kk_view_t *v, const char *name, int dim, int64_t want,
                             const char *what) {
  const int64_t have = kk_view_extent(v, dim);
  if (KKK_UNLIKELY(have != want))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s %s has extent %lld in dimension %d, expected %lld (%s)",
                   c->op, name, kkk_label(v), (long long)have, dim, (long long)want, what);
  return KK_OK;
}

kk_status_t kkk_check_scalar(const kkk_call_t *c, kk_scalar_t s, const char *name) {
  if (KKK_UNLIKELY(!kkk_is_complex(c->type) && s.im != 0.0))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: scalar %s = (%g, %g) has an imaginary part, but the views are %s",
                   c->op, name, s.re, s.im, kk_type_name(c->type));
  return KK_OK;
}

kk_status_t kkk_check_op(const kkk_call_t *c, kk_op_t op, const char *name) {
  if (KKK_UNLIKELY((unsigned)op > (unsigned)KK_OP_C))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: %s = %d is not KK_OP_N, KK_OP_T or KK_OP_C", c->op, name, (int)op);
  return KK_OK;
}

/* ---- descriptors ----------------------------------------------------------------- */

kk_view_strided kkk_desc_col(kk_view_strided d, int64_t j) {
  kk_view_strided r = d;
  r.d.data = (char *)d.d.data + (size_t)(j * d.d.stride[1]) * d.d.elem_size;
  r.d.rank = 1;
  r.d.extent[1] = 1;
  r.d.stride[1] = 0;
  return r;
}

kk_view_strided kkk_desc_as2(kk_view_strided d) {
  kk_view_strided r = d;
  if (d.d.rank == 0) {
    r.d.extent[0] = 1;
    r.d.stride[0] = 1;
  }
  r.d.rank = 2;
  r.d.extent[1] = 1;
  r.d.stride[1] = r.d.extent[0]; /* any value: index 0 only */
  return r;
}

kk_view_strided kkk_desc_swap(kk_view_strided d, int a, int b) {
  kk_view_strided r = d;
  r.d.extent[a] = d.d.extent[b];
  r.d.extent[b] = d.d.extent[a];
  r.d.stride[a] = d.d.stride[b];
  r.d.stride[b] = d.d.stride[a];
  r.d.layout = KK_LAYOUT_STRIDE;
  return r;
}

kkk_tvec_t kkk_tvec(const kk_view_strided *d) {
  kkk_tvec_t v = {d->d.data, d->d.extent[0], d->d.stride[0]};
  return v;
}

kkk_tmat_t kkk_tmat(const kk_view_strided *d) {
  kkk_tmat_t m = {d->d.data, d->d.extent[0], d->d.extent[1], d->d.stride[0], d->d.stride[1]};
  return m;
}

/* ---- launches ------------------------------------------------------------------- */

kk_status_t kkk_for(const kkk_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n) {
  if (n <= 0)
    return KK_OK;
  return kk_parallel_for(c->op, KK_RANGE_ON(c->inst, 0, n), k, args, size);
}

kk_status_t kkk_for2(const kkk_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n0, int64_t n1,
                     int inner_left) {
  if (n0 <= 0 || n1 <= 0)
    return KK_OK;
  kk_md_policy_t p = {sizeof p, 2, KK_ITERATE_DEFAULT, KK_ITERATE_DEFAULT, {0}, {n0, n1}, {0}, c->inst};
  p.outer = p.inner = inner_left ? KK_ITERATE_LEFT : KK_ITERATE_RIGHT;
  return kk_parallel_for_md(c->op, &p, k, args, size);
}

kk_status_t kkk_reduce(const kkk_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n,
                       void *result, size_t result_size) {
  return kk_parallel_reduce(c->op, KK_RANGE_ON(c->inst, 0, n > 0 ? n : 0), k, args, size, result, result_size);
}

kk_status_t kkk_reduce_view(const kkk_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n,
                            kk_view_t *result) {
  return kk_parallel_reduce_view(c->op, KK_RANGE_ON(c->inst, 0, n > 0 ? n : 0), k, args, size, result);
}

void kkk_team_shape(const kkk_call_t *c, int64_t inner, int32_t *team_size, int32_t *vector_length) {
  if (c->host) {
    *team_size = 1;
    *vector_length = 1;
    return;
  }
  int32_t v = 1;
  while (v < 32 && v < inner)
    v *= 2;
  *vector_length = v;
  *team_size = 256 / v;
}

/* The call's device as kk_device_get_info describes it; 0 when it cannot. */
static int device_info(const kkk_call_t *c, kk_device_info_t *info) {
  const char *b = kk_instance_backend(c->inst);
  memset(info, 0, sizeof *info);
  info->struct_size = sizeof *info;
  int dev = strcmp(b, kk_backend_default()) == 0 ? kk_device_id() : 0;
  return kk_device_get_info(b, dev, info) == KK_OK;
}

size_t kkk_scratch_max(const kkk_call_t *c) {
  kk_device_info_t info;
  return device_info(c, &info) ? info.scratch_max[0] : 0;
}

int64_t kkk_concurrency(const kkk_call_t *c) {
  kk_device_info_t info;
  return device_info(c, &info) && info.concurrency >= 1 ? info.concurrency : 1;
}

int kkk_env_once(_Atomic int *cache, const char *var, const char *const *values, int n) {
  int r = atomic_load_explicit(cache, memory_order_relaxed);
  if (r < 0) {
    const char *e = getenv(var);
    r = 0;
    for (int i = 0; e && values && i < n && !r; i++)
      r = strcmp(e, values[i]) == 0 ? i + 1 : 0;
    if (e && !values) {
      char *end;
      const long v = strtol(e, &end, 10);
      r = end != e && *end == '\0' && v >= 1 && v <= n ? (int)v : 0;
    }
    atomic_store_explicit(cache, r, memory_order_relaxed);
  }
  return r;
}
