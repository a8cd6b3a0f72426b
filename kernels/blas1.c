/* kernels/blas1.c -- BLAS 1 routines: checks, the vendor-library offer, then kk's own kernels (blas1.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <string.h>

#include "internal.h"

static const kk_kernel_t *const k_axpby[4] = KKK_K4(axpby), *const k_axpby2[4] = KKK_K4(axpby2);
static const kk_kernel_t *const k_scal[4] = KKK_K4(scal), *const k_scal2[4] = KKK_K4(scal2);
static const kk_kernel_t *const k_update[4] = KKK_K4(update), *const k_update2[4] = KKK_K4(update2);
static const kk_kernel_t *const k_dot[4] = KKK_K4(dot), *const k_nrm2[4] = KKK_K4(nrm2);
static const kk_kernel_t *const k_nrm1[4] = KKK_K4(nrm1), *const k_nrminf[4] = KKK_K4(nrminf);
static const kk_kernel_t *const k_iamax[4] = KKK_K4(iamax), *const k_iamaxt[4] = KKK_K4(iamaxt);
static const kk_kernel_t *const k_emul[4] = KKK_K4(emul);

/* ---- checks ------------------------------------------------------------------------ */

/* views[0] is rank 1 or 2; every other view has its rank and extents. */
static kk_status_t check_shapes(const kkk_call_t *c, int n, kk_view_t *const *v, const char *const *names) {
  const int rank = kk_view_rank(v[0]);
  if (KKK_UNLIKELY(rank != 1 && rank != 2))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s %s has rank %d; vectors have rank 1, multivectors rank 2",
                   c->op, names[0], kkk_label(v[0]), rank);
  for (int i = 1; i < n; i++) {
    if (KKK_UNLIKELY(kk_view_rank(v[i]) != rank))
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s %s has rank %d, view %s %s rank %d", c->op, names[i],
                     kkk_label(v[i]), kk_view_rank(v[i]), names[0], kkk_label(v[0]), rank);
    for (int d = 0; d < rank; d++)
      if (KKK_UNLIKELY(kk_view_extent(v[i], d) != kk_view_extent(v[0], d)))
        return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                       "%s: view %s %s has extent %lld in dimension %d, view %s %s has %lld", c->op, names[i],
                       kkk_label(v[i]), (long long)kk_view_extent(v[i], d), d, names[0], kkk_label(v[0]),
                       (long long)kk_view_extent(v[0], d));
  }
  return KK_OK;
}

static kk_status_t check_scalars(const kkk_call_t *c, int n, const kk_scalar_t *s, const char *const *names) {
  for (int i = 0; i < n; i++) {
    kk_status_t st = kkk_check_scalar(c, s[i], names[i]);
    if (st != KK_OK)
      return st;
  }
  return KK_OK;
}

static kk_complex_double cd(kk_scalar_t s) { return kk_cdouble(s.re, s.im); }
static int is_zero(kk_scalar_t s) { return s.re == 0.0 && s.im == 0.0; }

/* ---- elementwise launches ---------------------------------------------------------- */

/* Whether the rank-2 descriptors all have d[0]'s strides and cover their
 * elements without gaps: then they are one long vector each. */
static int flat(const kk_view_strided *d, int n) {
  const int64_t r = d[0].d.extent[0], cc = d[0].d.extent[1], s0 = d[0].d.stride[0], s1 = d[0].d.stride[1];
  if (!((s0 == 1 && (s1 == r || cc == 1)) || (s1 == 1 && (s0 == cc || r == 1))))
    return 0;
  for (int i = 1; i < n; i++)
    if (d[i].d.stride[0] != s0 || d[i].d.stride[1] != s1)
      return 0;
  return 1;
}

static kk_view_strided flatten(kk_view_strided d) {
  kk_view_strided r = d;
  r.d.rank = 1;
  r.d.extent[0] = d.d.extent[0] * d.d.extent[1];
  r.d.extent[1] = 1;
  r.d.stride[0] = 1;
  r.d.stride[1] = 0;
  return r;
}

/* KKK_UNIT when the first n rank-1 descriptors all have unit stride. */
static uint32_t unit(kk_view_strided *const *d, int n) {
  for (int i = 0; i < n; i++)
    if (d[i]->d.stride[0] != 1 && d[i]->d.extent[0] > 1)
      return 0;
  return KKK_UNIT;
}

/* Runs an elementwise kernel over the descriptors args->x, y, z (the first
 * `nused` of them in that order are real views; the output is the last). */
static kk_status_t run_elementwise(const kkk_call_t *c, const kk_kernel_t *k1, const kk_kernel_t *k2,
                                   struct kkk_v_args *a, int nused) {
  kk_view_strided *d[3] = {&a->x, &a->y, &a->z};
  const kk_view_strided *out = d[nused - 1];
  if (out->d.rank == 1) {
    a->n = out->d.extent[0];
    a->flags |= unit(d, nused);
    return kkk_for(c, k1, a, sizeof *a, a->n);
  }
  kk_view_strided used[3] = {0};
  for (int i = 0; i < nused; i++)
    used[i] = *d[i];
  if (flat(used, nused)) {
    for (int i = 0; i < nused; i++)
      *d[i] = flatten(*d[i]);
    a->n = d[0]->d.extent[0];
    a->flags |= KKK_UNIT;
    return kkk_for(c, k1, a, sizeof *a, a->n);
  }
  a->n = out->d.extent[0];
  return kkk_for2(c, k2, a, sizeof *a, out->d.extent[0], out->d.extent[1], out->d.stride[0] == 1);
}

/* A vendor library may take an elementwise call on vectors, or on
 * multivectors that are one long vector each. */
static int tpl_vectors(kk_view_strided *x, kk_view_strided *y, kkk_tvec_t *tx, kkk_tvec_t *ty) {
  if (x->d.rank == 2) {
    kk_view_strided both[2] = {*x, *y};
    if (!flat(both, 2))
      return 0;
    *x = flatten(*x);
    *y = flatten(*y);
  }
  *tx = kkk_tvec(x);
  *ty = kkk_tvec(y);
  return tx->n > 0;
}

kk_status_t kkk_axpby(const kkk_call_t *c, kk_scalar_t a, kk_view_t *x, kk_scalar_t b, kk_view_t *y) {
  struct kkk_v_args args;
  memset(&args, 0, sizeof args);
  args.x = kkk_desc(x);
  args.y = kkk_desc(y);
  args.z = args.y;
  args.a = cd(a);
  args.b = cd(b);
  args.flags = (is_zero(a) ? KKK_A_ZERO : 0) | (is_zero(b) ? KKK_B_ZERO : 0);
  {
    kkk_tpl_call_t t = {.op = KKK_TPL_AXPBY, .c = c, .a = a, .b = b};
    kk_view_strided tx = args.x, ty = args.y;
    kk_status_t st;
    if (tpl_vectors(&tx, &ty, &t.x, &t.y) && kkk_tpl_try(&t, &st))
      return st;
  }
  return run_elementwise(c, k_axpby[c->t], k_axpby2[c->t], &args, 2);
}

kk_status_t kk_blas_axpby(kk_instance_t *instance, kk_scalar_t a, kk_view_t *x, kk_scalar_t b, kk_view_t *y) {
  static const char *const names[] = {"x", "y"}, *const snames[] = {"a", "b"};
  kk_view_t *const v[] = {x, y};
  const kk_scalar_t s[] = {a, b};
  kkk_call_t c;
  kk_status_t st = kkk_begin(&c, "kk_blas_axpby", instance, 2, v, names, 2);
  if (st == KK_OK)
    st = check_shapes(&c, 2, v, names);
  if (st == KK_OK)
    st = check_scalars(&c, 2, s, snames);
  if (st != KK_OK)
    return st;
  return kkk_axpby(&c, a, x, b, y);
}

kk_status_t kkk_scal(const kkk_call_t *c, kk_view_t *r, kk_scalar_t a, kk_view_t *x) {
  struct kkk_v_args args;
  memset(&args, 0, sizeof args);
  args.x = kkk_desc(x);
  args.y = kkk_desc(r);
  args.z = args.y;
  args.a = cd(a);
  args.flags = is_zero(a) ? KKK_A_ZERO : 0;
  {
    kkk_tpl_call_t t = {.op = KKK_TPL_SCAL, .c = c, .a = a};
    kk_view_strided tx = args.x, ty = args.y;
    kk_status_t st;
    if (tpl_vectors(&tx, &ty, &t.x, &t.y) && kkk_tpl_try(&t, &st))
      return st;
  }
  return run_elementwise(c, k_scal[c->t], k_scal2[c->t], &args, 2);
}

kk_status_t kk_blas_scal(kk_instance_t *instance, kk_view_t *r, kk_scalar_t a, kk_view_t *x) {
  static const char *const names[] = {"r", "x"}, *const snames[] = {"a"};
  kk_view_t *const v[] = {r, x};
  kkk_call_t c;
  kk_status_t st = kkk_begin(&c, "kk_blas_scal", instance, 2, v, names, 2);
  if (st == KK_OK)
    st = check_shapes(&c, 2, v, names);
  if (st == KK_OK)
    st = check_scalars(&c, 1, &a, snames);
  if (st != KK_OK)
    return st;
  return kkk_scal(&c, r, a, x);
}

kk_status_t kk_blas_update(kk_instance_t *instance, kk_scalar_t a, kk_view_t *x, kk_scalar_t b, kk_view_t *y,
                           kk_scalar_t g, kk_view_t *z) {
  static const char *const names[] = {"x", "y", "z"}, *const snames[] = {"a", "b", "g"};
  kk_view_t *const v[] = {x, y, z};
  const kk_scalar_t s[] = {a, b, g};
  kkk_call_t c;
  kk_status_t st = kkk_begin(&c, "kk_blas_update", instance, 3, v, names, 3);
  if (st == KK_OK)
    st = check_shapes(&c, 3, v, names);
  if (st == KK_OK)
    st = check_scalars(&c, 3, s, snames);
  if (st != KK_OK)
    return st;
  struct kkk_v_args args;
  memset(&args, 0, sizeof args);
  args.x = kkk_desc(x);
  args.y = kkk_desc(y);
  args.z = kkk_desc(z);
  args.a = cd(a);
  args.b = cd(b);
  args.g = cd(g);
  args.flags = (is_zero(a) ? KKK_A_ZERO : 0) | (is_zero(b) ? KKK_B_ZERO : 0) | (is_zero(g) ? KKK_G_ZERO : 0);
  return run_elementwise(&c, k_update[c.t], k_update2[c.t], &args, 3);
}

kk_status_t kkk_emul(const kkk_call_t *c, kk_view_t *x, kk_view_t *y, kk_view_t *z) {
  struct kkk_emul_args args = {kkk_desc(x), kkk_desc(y), kkk_desc(z), kk_view_extent(z, 0), 0, 0};
  kk_view_strided *const d[] = {&args.x, &args.y, &args.z};
  args.flags = unit(d, 3);
  return kkk_for(c, k_emul[c->t], &args, sizeof args, args.n);
}

/* ---- reductions ----------------------------------------------------------------------- */

typedef enum { R_DOT, R_NRM2, R_NRM1, R_NRMINF, R_IAMAX } red_t;

static const char *const red_name[] = {"kk_blas_dot", "kk_blas_nrm2", "kk_blas_nrm1", "kk_blas_nrminf",
                                       "kk_blas_iamax"};
static const char *const red_into_name[] = {"kk_blas_dot_into", "kk_blas_nrm2_into", "kk_blas_nrm1_into",
                                            "kk_blas_nrminf_into", "kk_blas_iamax_into"};

static const kk_kernel_t *red_kernel(red_t r, int t) {
  switch (r) {
  case R_DOT:
    return k_dot[t];
  case R_NRM2:
    return k_nrm2[t];
  case R_NRM1:
    return k_nrm1[t];
  case R_NRMINF:
    return k_nrminf[t];
  default:
    return k_iamax[t];
  }
}

/* The launch range of a reduction over n elements: host kernels take
 * KKK_HOST_VB elements per iteration (iamax one). */
static int64_t red_range(const kkk_call_t *c, red_t r, int64_t n) {
  return c->host && r != R_IAMAX ? (n + KKK_HOST_VB - 1) / KKK_HOST_VB : n;
}

static const kkk_tpl_op_t red_tpl[] = {KKK_TPL_DOT, KKK_TPL_NRM2, KKK_TPL_NRM1, (kkk_tpl_op_t)-1, KKK_TPL_IAMAX};

/* One column: x (and y for dot) rank-1 descriptors; the value into *out
 * (kk_scalar_t for dot, double for the norms, int64_t for iamax). */
static kk_status_t reduce_column(const kkk_call_t *c, red_t r, kk_view_strided x, kk_view_strided y, void *out) {
  const int64_t n = x.d.extent[0];
  if (n > 0 && (int)red_tpl[r] >= 0) {
    kkk_tpl_call_t t = {.op = red_tpl[r], .c = c, .x = kkk_tvec(&x), .y = kkk_tvec(&y), .result = out};
    kk_status_t st;
    if (kkk_tpl_try(&t, &st))
      return st;
  }
  struct kkk_v_args args;
  memset(&args, 0, sizeof args);
  args.x = x;
  args.y = y;
  args.z = y;
  args.n = n;
  {
    kk_view_strided *const d[] = {&args.x, &args.y};
    args.flags = unit(d, 2);
  }
  /* the value: the element type for dot, the real type for norms, {value, index} for iamax */
  union {
    float f;
    double d;
    kk_complex_float cf;
    kk_complex_double cd;
    kk_valloc_float lf;
    kk_valloc_double ld;
  } v;
  const int single = c->type == KK_FLOAT || c->type == KK_COMPLEX_FLOAT;
  size_t size;
  if (r == R_DOT)
    size = kkk_elem_size(c->type);
  else if (r == R_IAMAX)
    size = single ? sizeof(kk_valloc_float) : sizeof(kk_valloc_double);
  else
    size = single ? sizeof(float) : sizeof(double);
  kk_status_t st = kkk_reduce(c, red_kernel(r, c->t), &args, sizeof args, red_range(c, r, n), &v, size);
  if (st != KK_OK)
    return st;
  switch (r) {
  case R_DOT: {
    kk_scalar_t *s = out;
    switch (c->type) {
    case KK_FLOAT:
      *s = KK_REAL(v.f);
      break;
    case KK_DOUBLE:
      *s = KK_REAL(v.d);
      break;
    case KK_COMPLEX_FLOAT:
      *s = KK_COMPLEX(v.cf.re, v.cf.im);
      break;
    default:
      *s = KK_COMPLEX(v.cd.re, v.cd.im);
      break;
    }
    break;
  }
  case R_IAMAX:
    *(int64_t *)out = n == 0 ? -1 : single ? v.lf.loc : v.ld.loc;
    break;
  default: {
    double d = n == 0 ? 0.0 : single ? (double)v.f : v.d; /* the empty max is 0, not the reducer's identity */
    *(double *)out = r == R_NRM2 ? sqrt(d) : d;
    break;
  }
  }
  return KK_OK;
}

/* The host-result reductions: one value per column. */
static kk_status_t reduce_host(kk_instance_t *instance, red_t r, kk_view_t *x, kk_view_t *y, void *result) {
  static const char *const names[] = {"x", "y"};
  kk_view_t *const v[] = {x, y};
  const int nv = r == R_DOT ? 2 : 1;
  kkk_call_t c;
  kk_status_t st = kkk_begin(&c, red_name[r], instance, nv, v, names, nv);
  if (st == KK_OK)
    st = check_shapes(&c, nv, v, names);
  if (st != KK_OK)
    return st;
  if (KKK_UNLIKELY(!result))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: result is NULL", c.op);
  kk_view_strided dx = kkk_desc(x), dy = r == R_DOT ? kkk_desc(y) : dx;
  if (kk_view_rank(x) == 1)
    return reduce_column(&c, r, dx, dy, result);
  const size_t step = r == R_DOT ? sizeof(kk_scalar_t) : r == R_IAMAX ? sizeof(int64_t) : sizeof(double);
  for (int64_t j = 0; j < kk_view_extent(x, 1); j++) {
    st = reduce_column(&c, r, kkk_desc_col(dx, j), kkk_desc_col(dy, j), (char *)result + (size_t)j * step);
    if (st != KK_OK)
      return st;
  }
  return KK_OK;
}

kk_status_t kk_blas_dot(kk_instance_t *instance, kk_view_t *x, kk_view_t *y, kk_scalar_t *result) {
  return reduce_host(instance, R_DOT, x, y, result);
}
kk_status_t kk_blas_nrm2(kk_instance_t *instance, kk_view_t *x, double *result) {
  return reduce_host(instance, R_NRM2, x, NULL, result);
}
kk_status_t kk_blas_nrm1(kk_instance_t *instance, kk_view_t *x, double *result) {
  return reduce_host(instance, R_NRM1, x, NULL, result);
}
kk_status_t kk_blas_nrminf(kk_instance_t *instance, kk_view_t *x, double *result) {
  return reduce_host(instance, R_NRMINF, x, NULL, result);
}
kk_status_t kk_blas_iamax(kk_instance_t *instance, kk_view_t *x, int64_t *result) {
  return reduce_host(instance, R_IAMAX, x, NULL, result);
}

/* Internal forms for the solvers (checked arguments, rank 1). */
kk_status_t kkk_dot(const kkk_call_t *c, kk_view_t *x, kk_view_t *y, kk_scalar_t *result) {
  return reduce_column(c, R_DOT, kkk_desc(x), kkk_desc(y), result);
}
kk_status_t kkk_nrm2(const kkk_call_t *c, kk_view_t *x, double *result) {
  kk_view_strided d = kkk_desc(x);
  return reduce_column(c, R_NRM2, d, d, result);
}

/* The reductions into a view: x rank 1 -> result rank 0, x rank 2 -> result rank 1 (one per column). */
static kk_status_t reduce_into(kk_instance_t *instance, red_t r, kk_view_t *result, kk_view_t *x, kk_view_t *y) {
  static const char *const names[] = {"x", "y", "result"};
  kk_view_t *const v3[] = {x, y, result};
  kk_view_t *const v2[] = {x, result};
  const int nv = r == R_DOT ? 2 : 1;
  kkk_call_t c;
  static const char *const names2[] = {"x", "result"};
  kk_status_t st = r == R_DOT ? kkk_begin(&c, red_into_name[r], instance, 3, v3, names, 3)
                              : kkk_begin(&c, red_into_name[r], instance, 2, v2, names2, 1);
  if (st == KK_OK)
    st = check_shapes(&c, nv, v3, names);
  if (st != KK_OK)
    return st;
  const int rank = kk_view_rank(x);
  const kk_type_t want = r == R_DOT ? c.type : r == R_IAMAX ? KK_INT64 : kkk_real_type(c.type);
  st = kkk_check_rank(&c, result, "result", rank - 1);
  if (st == KK_OK && rank == 2)
    st = kkk_check_extent(&c, result, "result", 0, kk_view_extent(x, 1), "one element per column of x");
  if (st == KK_OK)
    st = kkk_check_type(&c, result, "result", want);
  if (st != KK_OK)
    return st;
  const int64_t n = kk_view_extent(x, 0), ncols = rank == 2 ? kk_view_extent(x, 1) : 1;
  kk_view_strided dx = kkk_desc(x), dr = kkk_desc(result);
  if (rank == 1) {
    dx = kkk_desc_as2(dx);
    dr.d.rank = 1;
    dr.d.extent[0] = 1;
    dr.d.stride[0] = 1;
  }
  if (r == R_NRMINF && n == 0 && ncols > 0) { /* the empty max is 0, not the reducer's identity */
    const double zd = 0;
    const float zf = 0;
    return kk_deep_copy_fill_async(c.inst, result, want == KK_FLOAT ? (const void *)&zf : (const void *)&zd);
  }
  if (r == R_IAMAX) {
    struct kkk_iamax_args a = {dx, dr};
    kk_team_policy_t p = {sizeof p, ncols, KK_AUTO, KK_AUTO, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c.inst};
    kkk_team_shape(&c, n, &p.team_size, &p.vector_length);
    return ncols > 0 ? kk_parallel_for_team(c.op, &p, k_iamaxt[c.t], &a, sizeof a) : KK_OK;
  }
  kk_view_strided dy = r == R_DOT ? (rank == 1 ? kkk_desc_as2(kkk_desc(y)) : kkk_desc(y)) : dx;
  for (int64_t j = 0; j < ncols; j++) {
    struct kkk_v_args a;
    memset(&a, 0, sizeof a);
    a.x = kkk_desc_col(dx, j);
    a.y = kkk_desc_col(dy, j);
    a.z = a.y;
    a.n = n;
    {
      kk_view_strided *const d[] = {&a.x, &a.y};
      a.flags = unit(d, 2);
    }
    kk_view_t *rj = result;
    if (rank == 2) {
      kk_slice_t sl[1] = {KK_IDX(j)};
      st = kk_view_subview(result, sl, &rj);
      if (st != KK_OK)
        return st;
    }
    st = kkk_reduce_view(&c, red_kernel(r, c.t), &a, sizeof a, red_range(&c, r, n), rj);
    if (rj != result)
      kk_view_release(rj);
    if (st != KK_OK)
      return st;
  }
  if (r == R_NRM2 && ncols > 0) {
    struct kkk_sqrt_args a = {dr};
    a.r.d.extent[0] = ncols;
    return kkk_for(&c, c.type == KK_FLOAT || c.type == KK_COMPLEX_FLOAT ? KK_KERNEL(kkk_sqrt_s) : KK_KERNEL(kkk_sqrt_d),
                   &a, sizeof a, ncols);
  }
  return KK_OK;
}

kk_status_t kk_blas_dot_into(kk_instance_t *instance, kk_view_t *result, kk_view_t *x, kk_view_t *y) {
  return reduce_into(instance, R_DOT, result, x, y);
}
kk_status_t kk_blas_nrm2_into(kk_instance_t *instance, kk_view_t *result, kk_view_t *x) {
  return reduce_into(instance, R_NRM2, result, x, NULL);
}
kk_status_t kk_blas_nrm1_into(kk_instance_t *instance, kk_view_t *result, kk_view_t *x) {
  return reduce_into(instance, R_NRM1, result, x, NULL);
}
kk_status_t kk_blas_nrminf_into(kk_instance_t *instance, kk_view_t *result, kk_view_t *x) {
  return reduce_into(instance, R_NRMINF, result, x, NULL);
}
kk_status_t kk_blas_iamax_into(kk_instance_t *instance, kk_view_t *result, kk_view_t *x) {
  return reduce_into(instance, R_IAMAX, result, x, NULL);
}
