/* kernels/tests/check_kernels.c -- every kk-kernels routine against a plain C reference, on one backend, with and without the CBLAS. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _GNU_SOURCE /* the CPU masks of kernels/affinity.h */
#include <complex.h>
#include <dirent.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/linalg.h>

#include "../../tests/testutil.h"
#include "../affinity.h"

/*
 * Usage: check_kernels BACKEND.  Every test runs twice: with vendor
 * libraries switched off (kk's own kernels) and on ("auto": the CBLAS on
 * host backends, where one is installed).  Views are made in every layout
 * the routines take (right, left, padded, strided: a subview with gaps),
 * filled through a host copy of their parent view, and after each call the
 * parent's elements outside the view are checked to be untouched.  The
 * reference is plain C in double complex; a result passes when it is within
 * (terms + 8) * epsilon of the type * the sum of the magnitudes of its terms.
 */

typedef double complex cplx;

static const char *g_backend = "serial";
/* under valgrind and the sanitizers (tu_small_sizes) the largest sizes are left out */
static int g_small;
static char *g_plugin_path;
static const kk_type_t k_types[4] = {KK_FLOAT, KK_DOUBLE, KK_COMPLEX_FLOAT, KK_COMPLEX_DOUBLE};

#define OK(call) ck_assert_msg((call) == KK_OK, "%s failed: %s", #call, kk_last_error())

static void setup(void) {
  tu_clear_env();
  unsetenv("KK_KERNELS_TPL");
  unsetenv("KK_KERNELS_CBLAS");
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = g_backend;
  s.plugin_path = g_plugin_path;
  s.disable_warnings = 1;
  ck_assert_msg(kk_initialize_with_settings(&s) == KK_OK, "initializing %s: %s", g_backend, kk_last_error());
}

static void teardown(void) { kk_finalize(); }

/* Loop tests: index 0 without vendor libraries, 1 with. */
static int g_tpl;
static void use_tpl(int i) {
  g_tpl = i;
  OK(kk_kernels_set_tpl(NULL, i ? "auto" : "none"));
}

static int host_backend(void) { return strcmp(kk_backend_default(), kk_backend_host()) == 0; }

/* The vendor library that serves this backend's BLAS calls (the CBLAS on
 * host backends, cuBLAS on cuda) or its SpMV (cuSPARSE on cuda); -1: none. */
static int blas_lib(void) { return host_backend() ? 0 : strcmp(kk_backend_default(), "cuda") == 0 ? 1 : -1; }
static int spmv_lib(void) { return strcmp(kk_backend_default(), "cuda") == 0 ? 2 : -1; }


static uint64_t tpl_calls(int lib, int *loaded) {
  if (loaded)
    *loaded = 0;
  if (lib < 0)
    return 0;
  kk_tpl_info_t info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  OK(kk_kernels_tpl_get_info(lib, 0, &info));
  if (loaded)
    *loaded = info.state == KK_TPL_LOADED;
  return info.calls;
}

/* With vendor libraries on and library `lib` loaded, the routines it serves
 * must have gone there; with them off, none. */
static void expect_tpl_used(int lib, uint64_t before, const char *what) {
  int loaded = 0;
  uint64_t now = tpl_calls(lib, &loaded);
  if (g_tpl && loaded)
    ck_assert_msg(now > before, "%s: vendor library %d is loaded but served no call", what, lib);
  if (!g_tpl)
    ck_assert_msg(now == before, "%s: vendor libraries are off but library %d served %llu call(s)", what, lib,
                  (unsigned long long)(now - before));
}

/* BLAS 1 and gemv follow the vendor-choice rule (tpl_cblas.c): on a host
 * backend with more than one thread the CBLAS is not offered them (kk's own
 * kernels are faster there), so it must have served none; else as above. */
static void expect_blas12_used(uint64_t before, const char *what) {
  if (host_backend() && kk_num_threads() > 1) {
    const uint64_t now = tpl_calls(blas_lib(), NULL);
    ck_assert_msg(now == before, "%s: the CBLAS served %llu call(s) with %d host threads", what,
                  (unsigned long long)(now - before), kk_num_threads());
    return;
  }
  expect_tpl_used(blas_lib(), before, what);
}

/* ---- random numbers (deterministic) --------------------------------------------------- */

static uint64_t g_rng = 88172645463325252ull;
static double rnd(void) { /* [-1, 1) */
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (double)(g_rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}
static cplx rndc(kk_type_t t) {
  const double re = rnd();
  return t == KK_COMPLEX_FLOAT || t == KK_COMPLEX_DOUBLE ? re + I * rnd() : re;
}

static int is_cplx(kk_type_t t) { return t == KK_COMPLEX_FLOAT || t == KK_COMPLEX_DOUBLE; }
static int is_single(kk_type_t t) { return t == KK_FLOAT || t == KK_COMPLEX_FLOAT; }
static double eps_of(kk_type_t t) { return is_single(t) ? FLT_EPSILON : DBL_EPSILON; }
static size_t esize(kk_type_t t) { return t == KK_FLOAT ? 4 : t == KK_COMPLEX_DOUBLE ? 16 : 8; }
/* the value as the type stores it */
static cplx as_type(kk_type_t t, cplx v) {
  if (t == KK_FLOAT)
    return (float)creal(v);
  if (t == KK_DOUBLE)
    return creal(v);
  if (t == KK_COMPLEX_FLOAT)
    return (float)creal(v) + I * (float)cimag(v);
  return v;
}
static kk_scalar_t sc(cplx v) { return KK_COMPLEX(creal(v), cimag(v)); }

static void put(kk_type_t t, unsigned char *p, cplx v) {
  switch (t) {
  case KK_FLOAT:
    *(float *)p = (float)creal(v);
    break;
  case KK_DOUBLE:
    *(double *)p = creal(v);
    break;
  case KK_COMPLEX_FLOAT:
    ((float *)p)[0] = (float)creal(v);
    ((float *)p)[1] = (float)cimag(v);
    break;
  default:
    ((double *)p)[0] = creal(v);
    ((double *)p)[1] = cimag(v);
    break;
  }
}
static cplx get(kk_type_t t, const unsigned char *p) {
  switch (t) {
  case KK_FLOAT:
    return *(const float *)p;
  case KK_DOUBLE:
    return *(const double *)p;
  case KK_COMPLEX_FLOAT:
    return ((const float *)p)[0] + I * ((const float *)p)[1];
  default:
    return ((const double *)p)[0] + I * ((const double *)p)[1];
  }
}

/* ---- test views ------------------------------------------------------------------------ */

enum { K_RIGHT, K_LEFT, K_PADDED, K_STRIDED, K_NKINDS };
static const char *const k_kind_names[] = {"right", "left", "padded", "strided"};

typedef struct tv {
  kk_view_t *parent, *v;
  kk_type_t type;
  size_t es;
  int64_t span;           /* elements of the parent */
  unsigned char *host;    /* host copy of the parent */
  unsigned char *orig;    /* the parent as uploaded */
  int64_t base;           /* v's first element in the parent */
  int rank;
  int64_t ext[4], str[4];
} tv_t;

/* A view of `rank` (1..3) and extents, in the default space, of one layout
 * kind: right, left, padded (right, with a leading dimension 3 larger) or
 * strided (every other element of a larger parent: no unit stride). */
static tv_t tv_make(kk_type_t type, int rank, const int64_t *ext, int kind) {
  tv_t t;
  memset(&t, 0, sizeof t);
  t.type = type;
  t.es = esize(type);
  t.rank = rank;
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = "test";
  spec.type = type;
  spec.rank = rank;
  for (int d = 0; d < rank; d++)
    spec.extents[d] = ext[d];
  spec.layout = kind == K_LEFT ? KK_LAYOUT_LEFT : KK_LAYOUT_RIGHT;
  kk_slice_t sl[5];
  for (int d = 0; d < 5; d++)
    sl[d] = KK_ALL;
  if (kind == K_PADDED) {
    spec.extents[rank - 1] += 3;
    sl[rank - 1] = KK_SPAN(1, 1 + ext[rank - 1]);
  } else if (kind == K_STRIDED) {
    spec.rank = rank + 1;
    spec.extents[rank] = 2;
    sl[rank] = KK_IDX(1);
  }
  OK(kk_view_create(&spec, &t.parent));
  if (kind == K_PADDED || kind == K_STRIDED)
    OK(kk_view_subview(t.parent, sl, &t.v));
  else
    t.v = kk_view_retain(t.parent);
  ck_assert_int_eq(kk_view_rank(t.v), rank);
  for (int d = 0; d < rank; d++) {
    t.ext[d] = kk_view_extent(t.v, d);
    t.str[d] = kk_view_stride(t.v, d);
    ck_assert_int_eq(t.ext[d], ext[d]);
  }
  t.span = 1;
  for (int d = 0; d < kk_view_rank(t.parent); d++)
    t.span *= kk_view_extent(t.parent, d);
  t.base = t.span ? ((char *)kk_view_data(t.v) - (char *)kk_view_data(t.parent)) / (int64_t)t.es : 0;
  t.host = calloc((size_t)t.span + 1, t.es);
  t.orig = calloc((size_t)t.span + 1, t.es);
  return t;
}

static tv_t tv1(kk_type_t type, int64_t n, int kind) { return tv_make(type, 1, &n, kind); }
static tv_t tv2(kk_type_t type, int64_t m, int64_t n, int kind) {
  const int64_t e[2] = {m, n};
  return tv_make(type, 2, e, kind);
}
static tv_t tv3(kk_type_t type, int64_t b, int64_t m, int64_t n, int kind) {
  const int64_t e[3] = {b, m, n};
  return tv_make(type, 3, e, kind);
}

static void tv_free(tv_t *t) {
  kk_view_release(t->v);
  kk_view_release(t->parent);
  free(t->host);
  free(t->orig);
}

static int64_t tv_off(const tv_t *t, int64_t i, int64_t j, int64_t k) {
  const int64_t idx[3] = {i, j, k};
  int64_t o = t->base;
  for (int d = 0; d < t->rank; d++)
    o += idx[d] * t->str[d];
  return o;
}
static cplx tv_get(const tv_t *t, int64_t i, int64_t j, int64_t k) { return get(t->type, t->host + tv_off(t, i, j, k) * t->es); }
static void tv_set(tv_t *t, int64_t i, int64_t j, int64_t k, cplx v) { put(t->type, t->host + tv_off(t, i, j, k) * t->es, v); }

/* Parent all random (gaps included), uploaded; orig remembers it. */
static void tv_fill(tv_t *t) {
  for (int64_t e = 0; e < t->span; e++)
    put(t->type, t->host + e * t->es, rndc(t->type));
  memcpy(t->orig, t->host, (size_t)t->span * t->es);
  if (t->span)
    OK(kk_space_copy(kk_view_space(t->parent), kk_view_data(t->parent), NULL, t->host, (size_t)t->span * t->es, NULL));
}

/* After a change of t->host (tv_set): upload and remember. */
static void tv_upload(tv_t *t) {
  memcpy(t->orig, t->host, (size_t)t->span * t->es);
  if (t->span)
    OK(kk_space_copy(kk_view_space(t->parent), kk_view_data(t->parent), NULL, t->host, (size_t)t->span * t->es, NULL));
}

/* Fences, downloads, and checks that the parent's elements outside v kept their values. */
static void tv_download(tv_t *t) {
  OK(kk_fence());
  if (!t->span)
    return;
  OK(kk_space_copy(NULL, t->host, kk_view_space(t->parent), kk_view_data(t->parent), (size_t)t->span * t->es, NULL));
  unsigned char *mine = calloc((size_t)t->span, 1);
  const int64_t e0 = t->rank > 0 ? t->ext[0] : 1, e1 = t->rank > 1 ? t->ext[1] : 1, e2 = t->rank > 2 ? t->ext[2] : 1;
  for (int64_t i = 0; i < e0; i++)
    for (int64_t j = 0; j < e1; j++)
      for (int64_t k = 0; k < e2; k++)
        mine[tv_off(t, i, j, k)] = 1;
  for (int64_t e = 0; e < t->span; e++)
    if (!mine[e])
      ck_assert_msg(memcmp(t->host + e * t->es, t->orig + e * t->es, t->es) == 0,
                    "an element outside the view (parent offset %lld) was written", (long long)e);
  free(mine);
}

/* |got - ref| within (terms + 8) eps scale */
static void expect_close(kk_type_t type, cplx got, cplx ref, double scale, int64_t terms, const char *what) {
  const double tol = (double)(terms + 8) * eps_of(type) * (scale > 0 ? scale : 1e-300) + 1e-300;
  ck_assert_msg(cabs(got - ref) <= tol, "%s: got (%.9g, %.9g), expected (%.9g, %.9g), off by %.3g > %.3g", what,
                creal(got), cimag(got), creal(ref), cimag(ref), cabs(got - ref), tol);
}

static char g_what[256];
#define WHAT(...) (snprintf(g_what, sizeof g_what, __VA_ARGS__), g_what)

/* ---- BLAS 1 ------------------------------------------------------------------------------ */

/* shapes: rank 1 (n) and rank 2 (m x n) with every layout kind */
typedef struct shape {
  int rank;
  int64_t m, n;
} shape_t;
static const shape_t k_shapes[] = {{1, 0, 0}, {1, 1, 0}, {1, 7, 0}, {1, 1000, 0}, {2, 0, 3}, {2, 5, 0}, {2, 33, 3}, {2, 1, 4}};
#define NSHAPES (int)(sizeof k_shapes / sizeof *k_shapes)

static tv_t shape_view(kk_type_t t, const shape_t *s, int kind) {
  return s->rank == 1 ? tv1(t, s->m, kind == K_LEFT || kind == K_PADDED ? K_RIGHT : kind) : tv2(t, s->m, s->n, kind);
}
static int64_t cols_of(const tv_t *t) { return t->rank == 2 ? t->ext[1] : 1; }
static cplx at(const tv_t *t, int64_t i, int64_t j) { return t->rank == 2 ? tv_get(t, i, j, 0) : tv_get(t, i, 0, 0); }

START_TEST(blas1_elementwise) {
  use_tpl(_i);
  const uint64_t calls0 = tpl_calls(blas_lib(), NULL);
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t T = k_types[ti];
    for (int si = 0; si < NSHAPES; si++) {
      for (int kind = 0; kind < K_NKINDS; kind++) {
        const shape_t *s = &k_shapes[si];
        if (g_small && s->m * (s->rank == 2 ? s->n : 1) > 100)
          continue;
        for (int variant = 0; variant < 3; variant++) {
          tv_t x = shape_view(T, s, kind), y = shape_view(T, s, (kind + variant) % K_NKINDS),
               z = shape_view(T, s, (kind + 2 * variant) % K_NKINDS);
          tv_fill(&x);
          tv_fill(&y);
          tv_fill(&z);
          const int64_t m = x.ext[0], n = cols_of(&x);
          /* variant 1: b = 0 with NaN in y (not read); variant 2: a = 0 */
          if (variant == 1) {
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++) {
                if (y.rank == 2)
                  tv_set(&y, i, j, 0, NAN);
                else
                  tv_set(&y, i, 0, 0, NAN);
              }
            tv_upload(&y);
          }
          const cplx a = variant == 2 ? 0 : as_type(T, rndc(T)), b = variant == 1 ? 0 : as_type(T, rndc(T)),
                     g = as_type(T, rndc(T));
          tv_t y0 = y;
          unsigned char *ysave = malloc((size_t)y.span * y.es + 1);
          memcpy(ysave, y.host, (size_t)y.span * y.es);
          y0.host = ysave;
          /* axpby */
          OK(kk_blas_axpby(NULL, sc(a), x.v, sc(b), y.v));
          tv_download(&y);
          for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
              const cplx xv = at(&x, i, j), yv = at(&y0, i, j);
              const cplx ref = b == 0 ? a * xv : a * xv + b * yv;
              expect_close(T, at(&y, i, j), ref, cabs(a * xv) + (b == 0 ? 0 : cabs(b * yv)), 2,
                           WHAT("axpby %s shape %d kinds %s/%s (%lld,%lld)", kk_type_name(T), si, k_kind_names[kind],
                                k_kind_names[(kind + variant) % K_NKINDS], (long long)i, (long long)j));
            }
          /* update: z = a x + g z + b y, with y as axpby left it */
          memcpy(ysave, y.host, (size_t)y.span * y.es);
          if (variant == 1) { /* NaN in z too: g = 0 means z is not read */
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++) {
                if (z.rank == 2)
                  tv_set(&z, i, j, 0, NAN);
                else
                  tv_set(&z, i, 0, 0, NAN);
              }
            tv_upload(&z);
          }
          const cplx gg = variant == 1 ? 0 : g, bb = variant == 1 ? g : b;
          tv_t z0 = z;
          unsigned char *zsave = malloc((size_t)z.span * z.es + 1);
          memcpy(zsave, z.host, (size_t)z.span * z.es);
          z0.host = zsave;
          OK(kk_blas_update(NULL, sc(a), x.v, sc(bb), y.v, sc(gg), z.v));
          tv_download(&z);
          for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
              const cplx xv = at(&x, i, j), yv = at(&y0, i, j), zv = at(&z0, i, j);
              const cplx ref = a * xv + bb * yv + (gg == 0 ? 0 : gg * zv);
              expect_close(T, at(&z, i, j), ref, cabs(a * xv) + cabs(bb * yv) + (gg == 0 ? 0 : cabs(gg * zv)), 3,
                           WHAT("update %s shape %d kind %s", kk_type_name(T), si, k_kind_names[kind]));
            }
          /* scal out of place: z = a x; then in place: x = g x */
          OK(kk_blas_scal(NULL, z.v, sc(a), x.v));
          tv_download(&z);
          for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
              expect_close(T, at(&z, i, j), a * at(&x, i, j), cabs(a * at(&x, i, j)), 1,
                           WHAT("scal %s shape %d kind %s", kk_type_name(T), si, k_kind_names[kind]));
          unsigned char *xsave = malloc((size_t)x.span * x.es + 1);
          memcpy(xsave, x.host, (size_t)x.span * x.es);
          tv_t x0 = x;
          x0.host = xsave;
          OK(kk_blas_scal(NULL, x.v, sc(g), x.v));
          tv_download(&x);
          for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
              expect_close(T, at(&x, i, j), g * at(&x0, i, j), cabs(g * at(&x0, i, j)), 1,
                           WHAT("scal in place %s shape %d kind %s", kk_type_name(T), si, k_kind_names[kind]));
          free(xsave);
          free(ysave);
          free(zsave);
          tv_free(&x);
          tv_free(&y);
          tv_free(&z);
        }
      }
    }
  }
  expect_blas12_used(calls0, "axpby/scal");
}
END_TEST

/* dot, nrm2, nrm1, nrminf, iamax: host results and results in views */
START_TEST(blas1_reductions) {
  use_tpl(_i);
  const uint64_t calls0 = tpl_calls(blas_lib(), NULL);
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t T = k_types[ti], R = is_single(T) ? KK_FLOAT : KK_DOUBLE;
    for (int si = 0; si < NSHAPES; si++) {
      for (int kind = 0; kind < K_NKINDS; kind++) {
        const shape_t *s = &k_shapes[si];
        if (g_small && s->m * (s->rank == 2 ? s->n : 1) > 100)
          continue;
        tv_t x = shape_view(T, s, kind), y = shape_view(T, s, (kind + 1) % K_NKINDS);
        tv_fill(&x);
        tv_fill(&y);
        const int64_t m = x.ext[0], n = cols_of(&x);
        /* a tie for iamax: the first of two equal magnitudes wins */
        if (m >= 7) {
          for (int64_t j = 0; j < n; j++) {
            cplx big = is_cplx(T) ? 3.0 - 2.0 * I : -5.0;
            if (x.rank == 2) {
              tv_set(&x, 3, j, 0, big);
              tv_set(&x, 5, j, 0, conj(big));
            } else {
              tv_set(&x, 3, 0, 0, big);
              tv_set(&x, 5, 0, 0, conj(big));
            }
          }
          tv_upload(&x);
        }
        kk_scalar_t dot[8];
        double n2[8], n1[8], ninf[8];
        int64_t im[8];
        OK(kk_blas_dot(NULL, x.v, y.v, dot));
        OK(kk_blas_nrm2(NULL, x.v, n2));
        OK(kk_blas_nrm1(NULL, x.v, n1));
        OK(kk_blas_nrminf(NULL, x.v, ninf));
        OK(kk_blas_iamax(NULL, x.v, im));
        /* into views: rank 0 for vectors, rank 1 for multivectors */
        kk_view_t *rd = NULL, *r2 = NULL, *r1 = NULL, *ri = NULL, *rim = NULL;
        const int64_t ncol = n;
        const int rrank = x.rank - 1;
        OK(kk_view_alloc(&rd, "dot", T, rrank, &ncol));
        OK(kk_view_alloc(&r2, "nrm2", R, rrank, &ncol));
        OK(kk_view_alloc(&r1, "nrm1", R, rrank, &ncol));
        OK(kk_view_alloc(&ri, "nrminf", R, rrank, &ncol));
        OK(kk_view_alloc(&rim, "iamax", KK_INT64, rrank, &ncol));
        OK(kk_blas_dot_into(NULL, rd, x.v, y.v));
        OK(kk_blas_nrm2_into(NULL, r2, x.v));
        OK(kk_blas_nrm1_into(NULL, r1, x.v));
        OK(kk_blas_nrminf_into(NULL, ri, x.v));
        OK(kk_blas_iamax_into(NULL, rim, x.v));
        OK(kk_fence());
        unsigned char bd[8 * 16], b2[8 * 8], b1[8 * 8], bi[8 * 8], bim[8 * 8];
        if (ncol > 0) {
          OK(kk_space_copy(NULL, bd, kk_view_space(rd), kk_view_data(rd), (size_t)ncol * esize(T), NULL));
          OK(kk_space_copy(NULL, b2, kk_view_space(r2), kk_view_data(r2), (size_t)ncol * esize(R), NULL));
          OK(kk_space_copy(NULL, b1, kk_view_space(r1), kk_view_data(r1), (size_t)ncol * esize(R), NULL));
          OK(kk_space_copy(NULL, bi, kk_view_space(ri), kk_view_data(ri), (size_t)ncol * esize(R), NULL));
          OK(kk_space_copy(NULL, bim, kk_view_space(rim), kk_view_data(rim), (size_t)ncol * 8, NULL));
        }
        for (int64_t j = 0; j < n; j++) {
          cplx rdot = 0;
          double sdot = 0, rn2 = 0, rn1 = 0, rinf = 0, best = -1;
          int64_t rim_ref = -1;
          for (int64_t i = 0; i < m; i++) {
            const cplx xv = at(&x, i, j), yv = at(&y, i, j);
            rdot += conj(xv) * yv;
            sdot += cabs(xv) * cabs(yv);
            rn2 += creal(xv) * creal(xv) + cimag(xv) * cimag(xv);
            const double a1 = fabs(creal(xv)) + fabs(cimag(xv));
            rn1 += a1;
            if (cabs(xv) > rinf)
              rinf = cabs(xv);
            if (a1 > best) {
              best = a1;
              rim_ref = i;
            }
          }
          const char *tn = kk_type_name(T);
          expect_close(T, dot[j].re + I * dot[j].im, rdot, sdot, m,
                       WHAT("dot %s shape %d kind %s col %lld", tn, si, k_kind_names[kind], (long long)j));
          expect_close(T, get(T, bd + j * esize(T)), rdot, sdot, m, WHAT("dot_into %s shape %d", tn, si));
          expect_close(T, n2[j], sqrt(rn2), sqrt(rn2), m, WHAT("nrm2 %s shape %d kind %s", tn, si, k_kind_names[kind]));
          expect_close(T, get(R, b2 + j * esize(R)), sqrt(rn2), sqrt(rn2), m, WHAT("nrm2_into %s shape %d", tn, si));
          expect_close(T, n1[j], rn1, rn1, m, WHAT("nrm1 %s shape %d kind %s", tn, si, k_kind_names[kind]));
          expect_close(T, get(R, b1 + j * esize(R)), rn1, rn1, m, WHAT("nrm1_into %s shape %d", tn, si));
          expect_close(T, ninf[j], rinf, rinf, 4, WHAT("nrminf %s shape %d kind %s", tn, si, k_kind_names[kind]));
          expect_close(T, get(R, bi + j * esize(R)), rinf, rinf, 4, WHAT("nrminf_into %s shape %d", tn, si));
          ck_assert_msg(im[j] == rim_ref, "iamax %s shape %d kind %s col %lld: got %lld, expected %lld", tn, si,
                        k_kind_names[kind], (long long)j, (long long)im[j], (long long)rim_ref);
          ck_assert_msg(((int64_t *)bim)[j] == rim_ref, "iamax_into %s shape %d: got %lld, expected %lld", tn, si,
                        (long long)((int64_t *)bim)[j], (long long)rim_ref);
        }
        kk_view_release(rd);
        kk_view_release(r2);
        kk_view_release(r1);
        kk_view_release(ri);
        kk_view_release(rim);
        tv_free(&x);
        tv_free(&y);
      }
    }
  }
  expect_blas12_used(calls0, "dot/nrm2/nrm1/iamax");
}
END_TEST

/* ---- gemv and gemm -------------------------------------------------------------------------- */

static cplx opel(const tv_t *A, kk_op_t op, int64_t i, int64_t j, int64_t batch) {
  if (A->rank == 3)
    return op == KK_OP_N ? tv_get(A, batch, i, j) : op == KK_OP_T ? tv_get(A, batch, j, i) : conj(tv_get(A, batch, j, i));
  return op == KK_OP_N ? tv_get(A, i, j, 0) : op == KK_OP_T ? tv_get(A, j, i, 0) : conj(tv_get(A, j, i, 0));
}

START_TEST(gemv) {
  use_tpl(_i);
  const uint64_t calls0 = tpl_calls(blas_lib(), NULL);
  /* the last three: few rows and many columns, which GPU backends split
   * into column blocks (KKK_GPU_GEMV_MIN_CHUNK 256: 3 blocks), whichever
   * layout op(A) has; where op(A)'s columns are contiguous the blocks of
   * 32 rows share a team (gemv_cblk: 70 rows are three teams, the last
   * partial), else they add into y atomically.  kernels-gemv-cblk.sh runs
   * this case with gemv_cblk on host backends too. */
  static const int64_t sizes[][2] = {{0, 0}, {0, 3}, {3, 0}, {1, 5}, {7, 13}, {37, 20}, {5, 700}, {700, 3}, {70, 600}};
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t T = k_types[ti];
    for (int zi = 0; zi < 9; zi++)
      for (int op = 0; op < 3; op++)
        for (int kind = 0; kind < K_NKINDS; kind++) {
          const int64_t M = sizes[zi][0], N = sizes[zi][1]; /* A is M x N */
          if (g_small && M * N > 100)
            continue;
          const int64_t m = op == KK_OP_N ? M : N, n = op == KK_OP_N ? N : M;
          tv_t A = tv2(T, M, N, kind), x = tv1(T, n, kind == K_STRIDED ? K_STRIDED : K_RIGHT),
               y = tv1(T, m, kind == K_LEFT ? K_STRIDED : K_RIGHT);
          tv_fill(&A);
          tv_fill(&x);
          tv_fill(&y);
          const int bzero = kind == K_PADDED;
          if (bzero) {
            for (int64_t i = 0; i < m; i++)
              tv_set(&y, i, 0, 0, NAN);
            tv_upload(&y);
          }
          const cplx a = as_type(T, rndc(T)), b = bzero ? 0 : as_type(T, rndc(T));
          cplx *y0 = malloc(sizeof(cplx) * (size_t)(m + 1));
          for (int64_t i = 0; i < m; i++)
            y0[i] = tv_get(&y, i, 0, 0);
          OK(kk_blas_gemv(NULL, (kk_op_t)op, sc(a), A.v, x.v, sc(b), y.v));
          tv_download(&y);
          for (int64_t i = 0; i < m; i++) {
            cplx s = 0;
            double mag = 0;
            for (int64_t j = 0; j < n; j++) {
              s += opel(&A, (kk_op_t)op, i, j, 0) * tv_get(&x, j, 0, 0);
              mag += cabs(opel(&A, (kk_op_t)op, i, j, 0) * tv_get(&x, j, 0, 0));
            }
            const cplx ref = a * s + (bzero ? 0 : b * y0[i]);
            expect_close(T, tv_get(&y, i, 0, 0), ref, cabs(a) * mag + (bzero ? 0 : cabs(b * y0[i])), n + 2,
                         WHAT("gemv %s op %d A %s %lldx%lld row %lld", kk_type_name(T), op, k_kind_names[kind],
                              (long long)M, (long long)N, (long long)i));
          }
          free(y0);
          tv_free(&A);
          tv_free(&x);
          tv_free(&y);
        }
  }
  expect_blas12_used(calls0, "gemv");
}
END_TEST

START_TEST(gemm) {
  use_tpl(_i);
  const uint64_t calls0 = tpl_calls(blas_lib(), NULL);
  static const int64_t sizes[][3] = {{0, 3, 2}, {3, 0, 2}, {2, 3, 0}, {1, 1, 1}, {17, 9, 33}, {40, 35, 20}};
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t T = k_types[ti];
    for (int zi = 0; zi < 6; zi++)
      for (int oa = 0; oa < 3; oa++)
        for (int ob = 0; ob < 3; ob++)
          for (int kind = 0; kind < K_NKINDS; kind++) {
            if ((zi < 4 || g_small) && kind > 0)
              continue; /* small and empty sizes (and under valgrind): one layout is enough */
            const int64_t m = sizes[zi][0], n = sizes[zi][1], k = sizes[zi][2];
            tv_t A = oa == KK_OP_N ? tv2(T, m, k, kind) : tv2(T, k, m, kind);
            tv_t B = ob == KK_OP_N ? tv2(T, k, n, (kind + 1) % K_NKINDS) : tv2(T, n, k, (kind + 1) % K_NKINDS);
            tv_t C = tv2(T, m, n, (kind + 2) % K_NKINDS);
            tv_fill(&A);
            tv_fill(&B);
            tv_fill(&C);
            const int bzero = (oa + ob) % 3 == 0;
            if (bzero) {
              for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++)
                  tv_set(&C, i, j, 0, NAN);
              tv_upload(&C);
            }
            const cplx a = as_type(T, rndc(T)), b = bzero ? 0 : as_type(T, rndc(T));
            cplx *c0 = malloc(sizeof(cplx) * (size_t)(m * n + 1));
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++)
                c0[i * n + j] = tv_get(&C, i, j, 0);
            OK(kk_blas_gemm(NULL, (kk_op_t)oa, (kk_op_t)ob, sc(a), A.v, B.v, sc(b), C.v));
            tv_download(&C);
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++) {
                cplx s = 0;
                double mag = 0;
                for (int64_t l = 0; l < k; l++) {
                  const cplx p = opel(&A, (kk_op_t)oa, i, l, 0) * opel(&B, (kk_op_t)ob, l, j, 0);
                  s += p;
                  mag += cabs(p);
                }
                const cplx ref = a * s + (bzero ? 0 : b * c0[i * n + j]);
                expect_close(T, tv_get(&C, i, j, 0), ref, cabs(a) * mag + (bzero ? 0 : cabs(b * c0[i * n + j])), k + 2,
                             WHAT("gemm %s ops %d%d kinds %s %lldx%lldx%lld (%lld,%lld)", kk_type_name(T), oa, ob,
                                  k_kind_names[kind], (long long)m, (long long)n, (long long)k, (long long)i,
                                  (long long)j));
              }
            free(c0);
            tv_free(&A);
            tv_free(&B);
            tv_free(&C);
          }
  }
  expect_tpl_used(blas_lib(), calls0, "gemm");
}
END_TEST

/* kk's own gemm at the sizes where its blocking has edges: 1, 7, 33, 129
 * (past a GPU tile of 128 by one), k past a host slice of 256 (C added to
 * across slices), each op of each operand, every layout of each operand;
 * beta 0 with C full of NaN (C not read), alpha 0 with A and B full of
 * NaN (neither read: C = beta C).  Real types take the register-blocked
 * kernel (gemm_rb), complex ones the tiles; both are checked.  The last
 * three sizes, real types only, are for the GPU tiles of 128 x 128 and
 * the stages of k of the tensor-core form (16): three by two tiles, the
 * last of each partial, with k a whole number of stages; one whole tile
 * with k one past a stage; nine by two tiles, past the tensor-core form's
 * groups of 8 rows of tiles (KKK_GEMM_TC_GROUP). */
START_TEST(gemm_blocked) {
  use_tpl(0);
  static const int64_t sizes[][3] = {{1, 1, 1},       {7, 33, 129},  {129, 7, 33},  {33, 129, 7},
                                     {129, 129, 300}, {130, 97, 1},  {257, 200, 64}, {128, 128, 17},
                                     {1100, 130, 9}};
  const int nz = g_small ? 2 : 9;
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t T = k_types[ti];
    for (int zi = 0; zi < nz; zi++)
      for (int oa = 0; oa < 3; oa++)
        for (int ob = 0; ob < 3; ob++)
          for (int kind = 0; kind < K_NKINDS; kind++) {
            const int64_t m = sizes[zi][0], n = sizes[zi][1], k = sizes[zi][2];
            if (zi >= 6 && ti >= 2)
              continue; /* complex types take the portable tiles, whose edges the sizes before cover */
            if ((ti >= 2 || zi == 4 || zi >= 6) && (oa == KK_OP_C || ob == KK_OP_C) && kind > 0)
              continue; /* the complex and largest products: op C in one layout */
            const int variant = (int)((zi + oa + 2 * ob + kind) % 4); /* 0: beta 0, 1: alpha 0, else both random */
            tv_t A = oa == KK_OP_N ? tv2(T, m, k, kind) : tv2(T, k, m, kind);
            tv_t B = ob == KK_OP_N ? tv2(T, k, n, (kind + 1 + zi) % K_NKINDS) : tv2(T, n, k, (kind + 1 + zi) % K_NKINDS);
            tv_t C = tv2(T, m, n, (kind + 2 + oa) % K_NKINDS);
            tv_fill(&A);
            tv_fill(&B);
            tv_fill(&C);
            cplx *c0 = malloc(sizeof(cplx) * (size_t)(m * n + 1));
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++)
                c0[i * n + j] = tv_get(&C, i, j, 0);
            if (variant == 0) {
              for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++)
                  tv_set(&C, i, j, 0, NAN);
              tv_upload(&C);
            }
            const cplx a = variant == 1 ? 0 : as_type(T, rndc(T)), b = variant == 0 ? 0 : as_type(T, rndc(T));
            cplx *s = malloc(sizeof(cplx) * (size_t)(m * n + 1));
            double *mag = malloc(sizeof(double) * (size_t)(m * n + 1));
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++) {
                s[i * n + j] = 0;
                mag[i * n + j] = 0;
                for (int64_t l = 0; l < k; l++) {
                  const cplx p = opel(&A, (kk_op_t)oa, i, l, 0) * opel(&B, (kk_op_t)ob, l, j, 0);
                  s[i * n + j] += p;
                  mag[i * n + j] += cabs(p);
                }
              }
            if (variant == 1) {
              for (int64_t i = 0; i < A.ext[0]; i++)
                for (int64_t j = 0; j < A.ext[1]; j++)
                  tv_set(&A, i, j, 0, NAN);
              for (int64_t i = 0; i < B.ext[0]; i++)
                for (int64_t j = 0; j < B.ext[1]; j++)
                  tv_set(&B, i, j, 0, NAN);
              tv_upload(&A);
              tv_upload(&B);
            }
            OK(kk_blas_gemm(NULL, (kk_op_t)oa, (kk_op_t)ob, sc(a), A.v, B.v, sc(b), C.v));
            tv_download(&C);
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++) {
                const cplx c = variant == 0 ? 0 : c0[i * n + j];
                const cplx ref = (variant == 1 ? 0 : a * s[i * n + j]) + b * c;
                expect_close(T, tv_get(&C, i, j, 0), ref, (variant == 1 ? 0 : cabs(a) * mag[i * n + j]) + cabs(b * c),
                             k + 2,
                             WHAT("gemm %s ops %d%d kinds %s %lldx%lldx%lld a%s b%s (%lld,%lld)", kk_type_name(T), oa,
                                  ob, k_kind_names[kind], (long long)m, (long long)n, (long long)k,
                                  variant == 1 ? " 0" : "", variant == 0 ? " 0" : "", (long long)i, (long long)j));
              }
            free(s);
            free(mag);
            free(c0);
            tv_free(&A);
            tv_free(&B);
            tv_free(&C);
          }
  }
}
END_TEST

/* ---- batched -------------------------------------------------------------------------------- */

static const int64_t k_batches[] = {0, 1, 7};

START_TEST(batched_gemm_gemv) {
  use_tpl(_i);
  /* 34 x 33 (k 32): GPU backends keep four rows of C per lane (the last
   * block partial, the lanes taking a second column), or 4 x 2 blocks per
   * thread in the pipelined form (bgemm_p; 4 x 4, bgemm_p4, under
   * KK_KERNELS_BGEMM=4x4), as at 32^3, which it takes with constant
   * sizes; 32 x 32 (k 24): the pipelined forms' general sizes where
   * KK_KERNELS_BGEMM=vec takes bgemm_pv (n and k even) */
  static const int64_t sizes[][3] = {{1, 1, 1},    {5, 3, 4},    {16, 16, 16}, {3, 4, 0},
                                     {34, 33, 32}, {32, 32, 32}, {32, 32, 24}};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t T = k_types[ti];
    for (int bi = 0; bi < 3; bi++)
      for (int zi = 0; zi < nsizes; zi++)
        for (int kind = 0; kind < K_NKINDS; kind++) {
          const int64_t nb = k_batches[bi], m = sizes[zi][0], n = sizes[zi][1], k = sizes[zi][2];
          if (g_small && (m > 8 || kind > 1))
            continue;
          const int oa = (zi + kind) % 3, ob = (zi + 2 * kind) % 3;
          tv_t A = oa == KK_OP_N ? tv3(T, nb, m, k, kind) : tv3(T, nb, k, m, kind);
          tv_t B = ob == KK_OP_N ? tv3(T, nb, k, n, (kind + 1) % K_NKINDS) : tv3(T, nb, n, k, (kind + 1) % K_NKINDS);
          tv_t C = tv3(T, nb, m, n, (kind + 3) % K_NKINDS);
          tv_fill(&A);
          tv_fill(&B);
          tv_fill(&C);
          const cplx a = as_type(T, rndc(T)), b = kind == K_PADDED ? 0 : as_type(T, rndc(T));
          cplx *c0 = malloc(sizeof(cplx) * (size_t)(nb * m * n + 1));
          for (int64_t p = 0; p < nb; p++)
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++)
                c0[(p * m + i) * n + j] = tv_get(&C, p, i, j);
          OK(kk_batched_gemm(NULL, (kk_op_t)oa, (kk_op_t)ob, sc(a), A.v, B.v, sc(b), C.v));
          tv_download(&C);
          for (int64_t p = 0; p < nb; p++)
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++) {
                cplx s = 0;
                double mag = 0;
                for (int64_t l = 0; l < k; l++) {
                  const cplx pr = opel(&A, (kk_op_t)oa, i, l, p) * opel(&B, (kk_op_t)ob, l, j, p);
                  s += pr;
                  mag += cabs(pr);
                }
                const cplx cv = c0[(p * m + i) * n + j];
                expect_close(T, tv_get(&C, p, i, j), a * s + b * cv, cabs(a) * mag + cabs(b * cv), k + 2,
                             WHAT("batched gemm %s ops %d%d %s batch %lld %lldx%lldx%lld", kk_type_name(T), oa, ob,
                                  k_kind_names[kind], (long long)nb, (long long)m, (long long)n, (long long)k));
              }
          free(c0);
          /* gemv on the same A: y[p] = a op(A[p]) x[p] + b y[p], op(A) is m x k */
          tv_t x = tv2(T, nb, k, kind == K_LEFT ? K_LEFT : K_RIGHT), y = tv2(T, nb, m, kind == K_STRIDED ? K_STRIDED : K_RIGHT);
          tv_fill(&x);
          tv_fill(&y);
          cplx *y0 = malloc(sizeof(cplx) * (size_t)(nb * m + 1));
          for (int64_t p = 0; p < nb; p++)
            for (int64_t i = 0; i < m; i++)
              y0[p * m + i] = tv_get(&y, p, i, 0);
          OK(kk_batched_gemv(NULL, (kk_op_t)oa, sc(a), A.v, x.v, sc(b), y.v));
          tv_download(&y);
          for (int64_t p = 0; p < nb; p++)
            for (int64_t i = 0; i < m; i++) {
              cplx s = 0;
              double mag = 0;
              for (int64_t l = 0; l < k; l++) {
                const cplx pr = opel(&A, (kk_op_t)oa, i, l, p) * tv_get(&x, p, l, 0);
                s += pr;
                mag += cabs(pr);
              }
              expect_close(T, tv_get(&y, p, i, 0), a * s + b * y0[p * m + i], cabs(a) * mag + cabs(b * y0[p * m + i]),
                           k + 2, WHAT("batched gemv %s op %d %s batch %lld %lldx%lld", kk_type_name(T), oa,
                                       k_kind_names[kind], (long long)nb, (long long)m, (long long)k));
            }
          free(y0);
          tv_free(&x);
          tv_free(&y);
          tv_free(&A);
          tv_free(&B);
          tv_free(&C);
        }
  }
}
END_TEST

/* A batched gemm whose matrices exceed level-0 scratch (<kk/linalg.h>,
 * "Batched dense linear algebra"): host backends read A and B in place and
 * run it; a device backend stages them in scratch and refuses it with
 * KK_ERROR_LIMIT when they do not fit. */
START_TEST(batched_gemm_beyond_scratch) {
  const int64_t n = 300; /* A and B: 720 000 bytes each, together more than the 1 MiB of host scratch */
  kk_device_info_t di;
  memset(&di, 0, sizeof di);
  di.struct_size = sizeof di;
  OK(kk_device_get_info(kk_backend_default(), kk_device_id(), &di));
  const int fits = di.scratch_max[0] >= (size_t)(2 * n * n) * sizeof(double) + 4096;
  if (host_backend())
    ck_assert_msg(!fits, "the host backend's level-0 scratch (%zu bytes) holds A and B: make n larger",
                  di.scratch_max[0]);
  tv_t A = tv3(KK_DOUBLE, 1, n, n, K_RIGHT), B = tv3(KK_DOUBLE, 1, n, n, K_LEFT), C = tv3(KK_DOUBLE, 1, n, n, K_RIGHT);
  tv_fill(&A);
  tv_fill(&B);
  tv_fill(&C);
  const kk_status_t st = kk_batched_gemm(NULL, KK_OP_N, KK_OP_N, KK_REAL(1), A.v, B.v, KK_REAL(0), C.v);
  if (!host_backend() && !fits) {
    ck_assert_int_eq(st, KK_ERROR_LIMIT);
    ck_assert_contains(kk_last_error(), "kk_batched_gemm: one matrix needs");
  } else {
    OK(st);
    tv_download(&C);
    for (int64_t i = 0; i < n; i += 37)
      for (int64_t j = 0; j < n; j += 41) {
        cplx s = 0;
        double mag = 0;
        for (int64_t l = 0; l < n; l++) {
          s += tv_get(&A, 0, i, l) * tv_get(&B, 0, l, j);
          mag += cabs(tv_get(&A, 0, i, l) * tv_get(&B, 0, l, j));
        }
        expect_close(KK_DOUBLE, tv_get(&C, 0, i, j), s, mag, n, WHAT("batched gemm %lld^3 C(%lld, %lld)", (long long)n,
                                                                       (long long)i, (long long)j));
      }
  }
  tv_free(&A);
  tv_free(&B);
  tv_free(&C);
}
END_TEST

START_TEST(batched_trsm) {
  use_tpl(_i);
  static const int64_t sizes[][2] = {{1, 1}, {5, 3}, {4, 9}, {16, 16}};
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t T = k_types[ti];
    for (int bi = 0; bi < 3; bi++)
      for (int zi = 0; zi < 4; zi++)
        for (int combo = 0; combo < 24; combo++) {
          const int side = combo & 1, uplo = (combo >> 1) & 1, diag = (combo >> 2) & 1, op = (combo >> 3) % 3;
          const int kind = (combo + zi) % K_NKINDS;
          if (g_small && (zi == 3 || bi == 2))
            continue;
          const int64_t nb = k_batches[bi], m = sizes[zi][0], n = sizes[zi][1], d = side == 0 ? m : n;
          tv_t A = tv3(T, nb, d, d, kind), B = tv3(T, nb, m, n, (kind + 1) % K_NKINDS);
          tv_fill(&A);
          tv_fill(&B);
          /* a well-conditioned triangle; the other triangle (and a unit diagonal) NaN: never read */
          for (int64_t p = 0; p < nb; p++)
            for (int64_t i = 0; i < d; i++)
              for (int64_t l = 0; l < d; l++) {
                const int in_tri = uplo == KK_LOWER ? l < i : l > i;
                if (i == l)
                  tv_set(&A, p, i, l, diag ? NAN : as_type(T, (2.0 + fabs(rnd())) * (rnd() < 0 ? -1 : 1)));
                else if (in_tri)
                  tv_set(&A, p, i, l, as_type(T, rndc(T) / (double)d));
                else
                  tv_set(&A, p, i, l, NAN);
              }
          tv_upload(&A);
          const cplx a = as_type(T, 0.5 + rndc(T));
          cplx *b0 = malloc(sizeof(cplx) * (size_t)(nb * m * n + 1));
          for (int64_t p = 0; p < nb; p++)
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++)
                b0[(p * m + i) * n + j] = tv_get(&B, p, i, j);
          OK(kk_batched_trsm(NULL, (kk_side_t)side, (kk_uplo_t)uplo, (kk_op_t)op, (kk_diag_t)diag, sc(a), A.v, B.v));
          tv_download(&B);
          /* the residual: op(A) X - a B (left) or X op(A) - a B (right) */
          for (int64_t p = 0; p < nb; p++)
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++) {
                cplx s = 0;
                double mag = 0;
                for (int64_t l = 0; l < d; l++) {
                  /* op(A)(r, c) within the triangle (unit diagonal as 1) */
                  const int64_t r = side == 0 ? i : l, c = side == 0 ? l : j;
                  const int64_t ar = op == KK_OP_N ? r : c, ac = op == KK_OP_N ? c : r; /* in A */
                  const int in_tri = ar == ac || (uplo == KK_LOWER ? ac < ar : ac > ar);
                  if (!in_tri)
                    continue;
                  cplx e = ar == ac && diag ? 1.0 : tv_get(&A, p, ar, ac);
                  if (op == KK_OP_C)
                    e = conj(e);
                  const cplx xv = side == 0 ? tv_get(&B, p, l, j) : tv_get(&B, p, i, l);
                  s += e * xv;
                  mag += cabs(e * xv);
                }
                const cplx rhs = a * b0[(p * m + i) * n + j];
                expect_close(T, s, rhs, mag + cabs(rhs), 4 * d,
                             WHAT("batched trsm %s side %d uplo %d diag %d op %d %s batch %lld %lldx%lld",
                                  kk_type_name(T), side, uplo, diag, op, k_kind_names[kind], (long long)nb,
                                  (long long)m, (long long)n));
              }
          free(b0);
          tv_free(&A);
          tv_free(&B);
        }
  }
}
END_TEST

START_TEST(batched_lu) {
  use_tpl(_i);
  static const int64_t sizes[][2] = {{1, 1}, {5, 5}, {7, 4}, {4, 7}, {16, 16}};
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t T = k_types[ti];
    for (int bi = 0; bi < 3; bi++)
      for (int zi = 0; zi < 5; zi++)
        for (int kind = 0; kind < K_NKINDS; kind++) {
          const int64_t nb = k_batches[bi], m = sizes[zi][0], n = sizes[zi][1];
          if (g_small && (zi == 4 || kind > 1))
            continue;
          tv_t A = tv3(T, nb, m, n, kind);
          tv_fill(&A);
          for (int64_t p = 0; p < nb; p++) /* diagonally dominant: no pivoting needed */
            for (int64_t i = 0; i < m && i < n; i++)
              tv_set(&A, p, i, i, as_type(T, (double)(m + n) + rnd()));
          tv_upload(&A);
          cplx *a0 = malloc(sizeof(cplx) * (size_t)(nb * m * n + 1));
          for (int64_t p = 0; p < nb; p++)
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++)
                a0[(p * m + i) * n + j] = tv_get(&A, p, i, j);
          OK(kk_batched_lu(NULL, A.v));
          tv_download(&A);
          const int64_t mn = m < n ? m : n;
          for (int64_t p = 0; p < nb; p++)
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++) {
                cplx s = 0;
                double mag = 0;
                for (int64_t l = 0; l < mn && l <= i && l <= j; l++) {
                  const cplx L = l == i ? 1.0 : tv_get(&A, p, i, l), U = tv_get(&A, p, l, j);
                  s += L * U;
                  mag += cabs(L * U);
                }
                expect_close(T, s, a0[(p * m + i) * n + j], mag, 4 * mn,
                             WHAT("batched lu %s %s batch %lld %lldx%lld (%lld,%lld)", kk_type_name(T),
                                  k_kind_names[kind], (long long)nb, (long long)m, (long long)n, (long long)i,
                                  (long long)j));
              }
          free(a0);
          tv_free(&A);
        }
  }
}
END_TEST

/* ---- sparse ------------------------------------------------------------------------------------ */

/* A random sparse matrix with irregular rows: empty rows, short ones and
 * one long one, as COO triplets with some duplicates (summed). */
typedef struct coo {
  int64_t rows, cols, nnz;
  int64_t *r, *c;
  cplx *v;
} coo_t;

static coo_t make_coo(kk_type_t T, int64_t rows, int64_t cols) {
  coo_t m = {rows, cols, 0, NULL, NULL, NULL};
  const int64_t cap = rows * 6 + cols + 16;
  m.r = malloc(sizeof(int64_t) * (size_t)cap);
  m.c = malloc(sizeof(int64_t) * (size_t)cap);
  m.v = malloc(sizeof(cplx) * (size_t)cap);
  for (int64_t i = 0; i < rows; i++) {
    int64_t len = i % 7 == 3 ? 0 : (int64_t)((rnd() + 1.0) * 3.0);
    if (i == rows / 2)
      len = cols; /* one long row */
    for (int64_t q = 0; q < len && cols > 0; q++) {
      m.r[m.nnz] = i;
      m.c[m.nnz] = i == rows / 2 ? q : (int64_t)((rnd() + 1.0) * 0.5 * (double)cols) % cols;
      m.v[m.nnz] = as_type(T, rndc(T));
      m.nnz++;
    }
  }
  return m;
}
static void free_coo(coo_t *m) {
  free(m->r);
  free(m->c);
  free(m->v);
}

/* dense copy of a COO matrix (duplicates summed), as the reference sees it */
static cplx *coo_dense(const coo_t *m) {
  cplx *d = calloc((size_t)(m->rows * m->cols + 1), sizeof(cplx));
  for (int64_t k = 0; k < m->nnz; k++)
    d[m->r[k] * m->cols + m->c[k]] += m->v[k];
  return d;
}

static void *typed_values(kk_type_t T, const cplx *v, int64_t n) {
  unsigned char *b = malloc(esize(T) * (size_t)(n + 1));
  for (int64_t k = 0; k < n; k++)
    put(T, b + (size_t)k * esize(T), v[k]);
  return b;
}

/* CSR arrays (index type KK_INT32 or KK_INT64) of a COO matrix, duplicates kept in place */
static void coo_to_csr(const coo_t *m, kk_type_t it, void **rp, void **ci, cplx **vals) {
  int64_t *cnt = calloc((size_t)m->rows + 1, sizeof(int64_t));
  for (int64_t k = 0; k < m->nnz; k++)
    cnt[m->r[k] + 1]++;
  for (int64_t i = 0; i < m->rows; i++)
    cnt[i + 1] += cnt[i];
  const size_t is = it == KK_INT32 ? 4 : 8;
  unsigned char *r = malloc(is * (size_t)(m->rows + 1)), *c = malloc(is * (size_t)(m->nnz + 1));
  *vals = malloc(sizeof(cplx) * (size_t)(m->nnz + 1));
  int64_t *pos = malloc(sizeof(int64_t) * (size_t)(m->rows + 1));
  memcpy(pos, cnt, sizeof(int64_t) * (size_t)(m->rows + 1));
  for (int64_t k = 0; k < m->nnz; k++) {
    const int64_t p = pos[m->r[k]]++;
    if (it == KK_INT32)
      ((int32_t *)c)[p] = (int32_t)m->c[k];
    else
      ((int64_t *)c)[p] = m->c[k];
    (*vals)[p] = m->v[k];
  }
  for (int64_t i = 0; i <= m->rows; i++) {
    if (it == KK_INT32)
      ((int32_t *)r)[i] = (int32_t)cnt[i];
    else
      ((int64_t *)r)[i] = cnt[i];
  }
  free(cnt);
  free(pos);
  *rp = r;
  *ci = c;
}

START_TEST(sparse_spmv) {
  use_tpl(_i);
  const uint64_t calls0 = tpl_calls(spmv_lib(), NULL);
  static const int64_t sizes[][2] = {{0, 0}, {1, 1}, {37, 29}, {100, 120}};
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t T = k_types[ti];
    for (int zi = 0; zi < (g_small ? 3 : 4); zi++) {
      coo_t coo = make_coo(T, sizes[zi][0], sizes[zi][1]);
      cplx *dense = coo_dense(&coo);
      /* from COO on the host, then copied into the default space; and from CSR directly */
      kk_crs_t *Ah = NULL, *A = NULL, *Acsr = NULL;
      void *vals = typed_values(T, coo.v, coo.nnz);
      OK(kk_crs_create_coo(kk_space_host(), "A", T, coo.rows, coo.cols, coo.nnz, KK_INT64, coo.r, coo.c, vals, &Ah));
      OK(kk_crs_copy(NULL, Ah, &A));
      ck_assert_int_eq(kk_crs_rows(A), coo.rows);
      ck_assert_int_eq(kk_crs_cols(A), coo.cols);
      ck_assert_int_eq(kk_crs_type(A), T);
      ck_assert_ptr_eq(kk_crs_space(A), kk_space_default());
      ck_assert_int_le(kk_crs_nnz(A), coo.nnz); /* duplicates merged */
      void *rp, *ci;
      cplx *cv;
      const kk_type_t it = zi % 2 ? KK_INT32 : KK_INT64;
      coo_to_csr(&coo, it, &rp, &ci, &cv);
      void *cvals = typed_values(T, cv, coo.nnz);
      OK(kk_crs_create_csr(NULL, "Acsr", T, coo.rows, coo.cols, it, rp, it, ci, cvals, &Acsr));
      ck_assert_int_eq(kk_crs_nnz(Acsr), coo.nnz);
      for (int which = 0; which < 2; which++) {
        kk_crs_t *M = which ? Acsr : A;
        for (int op = 0; op < 3; op++)
          for (int nv = 1; nv <= 3; nv += 2) {
            const int64_t xn = op == KK_OP_N ? coo.cols : coo.rows, yn = op == KK_OP_N ? coo.rows : coo.cols;
            const int kind = (op + nv + which) % K_NKINDS;
            tv_t x = nv == 1 ? tv1(T, xn, kind == K_STRIDED ? K_STRIDED : K_RIGHT) : tv2(T, xn, nv, kind);
            tv_t y = nv == 1 ? tv1(T, yn, kind == K_LEFT ? K_STRIDED : K_RIGHT) : tv2(T, yn, nv, (kind + 1) % K_NKINDS);
            tv_fill(&x);
            tv_fill(&y);
            const cplx a = as_type(T, rndc(T)), b = op == 1 ? 0 : as_type(T, rndc(T));
            cplx *y0 = malloc(sizeof(cplx) * (size_t)(yn * nv + 1));
            for (int64_t i = 0; i < yn; i++)
              for (int64_t v = 0; v < nv; v++)
                y0[i * nv + v] = at(&y, i, v);
            OK(kk_sparse_spmv(NULL, (kk_op_t)op, sc(a), M, x.v, sc(b), y.v));
            tv_download(&y);
            for (int64_t i = 0; i < yn; i++)
              for (int64_t v = 0; v < nv; v++) {
                cplx s = 0;
                double mag = 0;
                int64_t terms = 0;
                for (int64_t j = 0; j < xn; j++) {
                  cplx e = op == KK_OP_N ? dense[i * coo.cols + j] : dense[j * coo.cols + i];
                  if (op == KK_OP_C)
                    e = conj(e);
                  if (e == 0)
                    continue;
                  s += e * at(&x, j, v);
                  mag += cabs(e * at(&x, j, v));
                  terms += 3; /* duplicates: up to a few entries per position */
                }
                const cplx ref = a * s + b * y0[i * nv + v];
                expect_close(T, at(&y, i, v), ref, cabs(a) * mag + cabs(b * y0[i * nv + v]), terms + 2,
                             WHAT("spmv %s op %d %s %lldx%lld vectors %d row %lld", kk_type_name(T), op,
                                  which ? "csr" : "coo", (long long)coo.rows, (long long)coo.cols, nv, (long long)i));
              }
            free(y0);
            tv_free(&x);
            tv_free(&y);
          }
      }
      kk_crs_destroy(Ah);
      kk_crs_destroy(A);
      kk_crs_destroy(Acsr);
      free(vals);
      free(cvals);
      free(rp);
      free(ci);
      free(cv);
      free(dense);
      free_coo(&coo);
    }
  }
  expect_tpl_used(spmv_lib(), calls0, "spmv");
}
END_TEST

/* The row lengths of the merge-path SpMV's matrix (avg 0 below): a run of
 * 1100 empty rows (a tile of 1024 row ends alone), rows of 1000 to 1049
 * entries (a tile of one row shared by 128 threads, or one too long for a
 * tile: the whole team's), rows of 200 and short rows, the last row 3000
 * entries long.  Its longest row is far over 16 times the average, so GPUs
 * take it with spmv_merge. */
static int64_t merge_row_len(int64_t i, int64_t rows) {
  if (i == rows - 1)
    return 3000;
  if (i >= 100 && i < 1200)
    return 0;
  if (i % 97 == 5)
    return 1000 + i % 50;
  return i % 13 == 1 ? 200 : 1 + i % 5;
}

/* SpMV on one vector over matrices whose average row picks each GPU vector
 * length (Kokkos Kernels' rule: 1, 4, 8, 32 lanes for 3, 20, 45, 250
 * entries), with rows long enough for the whole team to take them (more
 * than 16 lanes' steps, at least 64 entries) among short and empty ones,
 * and over the merge-path kernel's matrix (merge_row_len; columns repeat
 * in its long rows); x strided or not, b zero or not.  Two matrices in
 * turn, twice each, so that a vendor library's per-matrix state
 * (cuSPARSE's descriptors) is made once per matrix and reused with other
 * vectors. */
START_TEST(sparse_spmv_row_lengths) {
  use_tpl(_i);
  const uint64_t calls0 = tpl_calls(spmv_lib(), NULL);
  static const int64_t avg[] = {3, 20, 45, 250, 0};
  const int64_t cols = 257; /* prime: the column pattern below repeats only in rows longer than that */
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t T = k_types[ti];
    for (int ai = 0; ai < 5; ai++) {
      const int64_t rows = avg[ai] == 0 ? 2600 : g_small ? 40 : 300;
      kk_crs_t *M[2] = {NULL, NULL};
      int64_t *rp[2];
      int32_t *ci[2];
      cplx *cv[2];
      for (int w = 0; w < 2; w++) {
        rp[w] = malloc(sizeof(int64_t) * (size_t)(rows + 1));
        int64_t nnz = 0;
        for (int64_t i = 0; i < rows; i++) {
          int64_t len = avg[ai] - 2 + (i * 5 + w) % 5;
          if (i % 11 == 4)
            len = 0;
          if (i % 29 == 7)
            len = i % 2 ? cols : 65 + i % 100; /* long rows */
          if (avg[ai] == 0)
            len = merge_row_len(i + w, rows);
          rp[w][i] = nnz;
          nnz += avg[ai] == 0 || len < cols ? len : cols;
        }
        rp[w][rows] = nnz;
        ci[w] = malloc(sizeof(int32_t) * (size_t)(nnz + 1));
        cv[w] = malloc(sizeof(cplx) * (size_t)(nnz + 1));
        for (int64_t i = 0; i < rows; i++)
          for (int64_t q = rp[w][i]; q < rp[w][i + 1]; q++) {
            ci[w][q] = (int32_t)((i * 7 + (q - rp[w][i]) * 13) % cols);
            cv[w][q] = as_type(T, rndc(T));
          }
        void *vals = typed_values(T, cv[w], nnz);
        OK(kk_crs_create_csr(NULL, "M", T, rows, cols, KK_INT64, rp[w], KK_INT32, ci[w], vals, &M[w]));
        free(vals);
      }
      for (int round = 0; round < 4; round++) {
        const int w = round % 2;
        tv_t x = tv1(T, cols, round < 2 ? K_RIGHT : K_STRIDED), y = tv1(T, rows, round == 1 ? K_STRIDED : K_RIGHT);
        tv_fill(&x);
        tv_fill(&y);
        const cplx a = as_type(T, rndc(T)), b = round == 2 ? 0 : as_type(T, rndc(T));
        cplx *y0 = malloc(sizeof(cplx) * (size_t)rows);
        for (int64_t i = 0; i < rows; i++)
          y0[i] = tv_get(&y, i, 0, 0);
        OK(kk_sparse_spmv(NULL, KK_OP_N, sc(a), M[w], x.v, sc(b), y.v));
        tv_download(&y);
        for (int64_t i = 0; i < rows; i++) {
          cplx sum = 0;
          double mag = 0;
          for (int64_t q = rp[w][i]; q < rp[w][i + 1]; q++) {
            sum += cv[w][q] * tv_get(&x, ci[w][q], 0, 0);
            mag += cabs(cv[w][q] * tv_get(&x, ci[w][q], 0, 0));
          }
          expect_close(T, tv_get(&y, i, 0, 0), a * sum + b * y0[i], cabs(a) * mag + cabs(b * y0[i]),
                       rp[w][i + 1] - rp[w][i] + 2,
                       WHAT("spmv %s average %lld matrix %d round %d row %lld", kk_type_name(T), (long long)avg[ai], w,
                            round, (long long)i));
        }
        free(y0);
        tv_free(&x);
        tv_free(&y);
      }
      for (int w = 0; w < 2; w++) {
        kk_crs_destroy(M[w]);
        free(rp[w]);
        free(ci[w]);
        free(cv[w]);
      }
    }
  }
  expect_tpl_used(spmv_lib(), calls0, "spmv");
}
END_TEST

/* Malformed CSR and COO input is refused, naming the first bad entry. */
START_TEST(crs_bad_input) {
  use_tpl(_i);
  kk_crs_t *A = (kk_crs_t *)0x1;
  const int64_t rp_bad[] = {0, 2, 1, 3}, rp_ok[] = {0, 1, 2, 3}, ci_bad[] = {0, 5, 1}, ci_ok[] = {0, 1, 2};
  const double v[] = {1, 2, 3};
  ck_assert_int_eq(kk_crs_create_csr(NULL, "A", KK_DOUBLE, 3, 3, KK_INT64, rp_bad, KK_INT64, ci_ok, v, &A),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_crs_create_csr: matrix 'A': row_ptr[2] = 1 is below row_ptr[1] = 2");
  ck_assert_ptr_null(A);
  ck_assert_int_eq(kk_crs_create_csr(NULL, "A", KK_DOUBLE, 3, 3, KK_INT64, rp_ok, KK_INT64, ci_bad, v, &A),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_crs_create_csr: matrix 'A': col_idx[1] = 5 is outside [0, 3)");
  ck_assert_int_eq(kk_crs_create_csr(NULL, "A", KK_INT32, 3, 3, KK_INT64, rp_ok, KK_INT64, ci_ok, v, &A),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "element type int32");
  ck_assert_int_eq(kk_crs_create_csr(NULL, "A", KK_DOUBLE, 3, 3, KK_INT64, rp_ok, KK_FLOAT, ci_ok, v, &A),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_crs_create_coo(NULL, "A", KK_DOUBLE, 3, 3, 3, KK_INT64, ci_ok, ci_bad, v, &A),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_crs_create_coo: matrix 'A': entry 1 at (1, 5) is outside the 3 x 3 matrix");
  ck_assert_int_eq(kk_crs_create_coo(NULL, "Q", KK_DOUBLE, 3, 3, 3, KK_INT64, ci_ok, ci_ok, NULL, &A),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_crs_create_coo: matrix 'Q': 3 entries but values is NULL");
  OK(kk_crs_create_csr(NULL, "A", KK_DOUBLE, 3, 3, KK_INT64, rp_ok, KK_INT64, ci_ok, v, &A));
  /* mixed: int64 offsets, int32 columns (the matrix's own layout) */
  const int32_t ci32[] = {0, 1, 2};
  kk_crs_t *B = NULL;
  OK(kk_crs_create_csr(NULL, "B", KK_DOUBLE, 3, 3, KK_INT64, rp_ok, KK_INT32, ci32, v, &B));
  ck_assert_int_eq(kk_crs_nnz(B), 3);
  kk_crs_destroy(B);
  /* x of the wrong length, y of the wrong type */
  kk_view_t *x = NULL, *y = NULL;
  int64_t n4 = 4, n3 = 3;
  OK(kk_view_alloc(&x, "x4", KK_DOUBLE, 1, &n4));
  OK(kk_view_alloc(&y, "y3", KK_FLOAT, 1, &n3));
  ck_assert_int_eq(kk_sparse_spmv(NULL, KK_OP_N, KK_REAL(1), A, x, KK_REAL(0), y), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_sparse_spmv");
  /* CG on a matrix that is not square names it */
  const int64_t rp_r[] = {0, 1, 2};
  kk_crs_t *R = NULL;
  OK(kk_crs_create_csr(NULL, "R", KK_DOUBLE, 2, 3, KK_INT64, rp_r, KK_INT64, ci_ok, v, &R));
  kk_view_t *b2 = NULL, *x2 = NULL;
  int64_t n2 = 2;
  OK(kk_view_alloc(&b2, "b2", KK_DOUBLE, 1, &n2));
  OK(kk_view_alloc(&x2, "x2", KK_DOUBLE, 1, &n2));
  ck_assert_int_eq(kk_sparse_cg(NULL, R, b2, x2, NULL, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_sparse_cg: matrix A 'R' is 2 x 3, not square");
  kk_view_release(b2);
  kk_view_release(x2);
  kk_crs_destroy(R);
  kk_view_release(x);
  kk_view_release(y);
  kk_crs_destroy(A);
}
END_TEST

/* CG with and without Jacobi on a Hermitian positive definite matrix:
 * the 2D 5-point Laplacian plus the identity (and an imaginary
 * antisymmetric part on complex types), b = A * ones. */
START_TEST(sparse_cg) {
  use_tpl(_i);
  const int64_t g = g_small ? 6 : 12, n = g * g;
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t T = k_types[ti];
    for (int pre = 0; pre < 2; pre++) {
      coo_t m = {n, n, 0, malloc(sizeof(int64_t) * 5 * (size_t)n), malloc(sizeof(int64_t) * 5 * (size_t)n),
                 malloc(sizeof(cplx) * 5 * (size_t)n)};
      for (int64_t i = 0; i < g; i++)
        for (int64_t j = 0; j < g; j++) {
          const int64_t r = i * g + j;
          const int64_t nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
          m.r[m.nnz] = r, m.c[m.nnz] = r, m.v[m.nnz++] = 5.0 + (double)(r % 3);
          for (int q = 0; q < 4; q++)
            if (nb[q][0] >= 0 && nb[q][0] < g && nb[q][1] >= 0 && nb[q][1] < g) {
              const int64_t c = nb[q][0] * g + nb[q][1];
              /* Hermitian: (r, c) and (c, r) conjugate; the imaginary part antisymmetric */
              m.r[m.nnz] = r, m.c[m.nnz] = c, m.v[m.nnz++] = -1.0 + (is_cplx(T) ? 0.1 * I * (c > r ? 1 : -1) : 0);
            }
        }
      cplx *dense = coo_dense(&m);
      void *vals = typed_values(T, m.v, m.nnz);
      kk_crs_t *A = NULL;
      OK(kk_crs_create_coo(NULL, "lap", T, n, n, m.nnz, KK_INT64, m.r, m.c, vals, &A));
      tv_t b = tv1(T, n, K_RIGHT), x = tv1(T, n, pre ? K_STRIDED : K_RIGHT);
      for (int64_t i = 0; i < n; i++) {
        cplx s = 0;
        for (int64_t j = 0; j < n; j++)
          s += dense[i * n + j];
        tv_set(&b, i, 0, 0, s);
        tv_set(&x, i, 0, 0, 0);
      }
      tv_upload(&b);
      tv_upload(&x);
      kk_cg_options_t opt = KK_CG_OPTIONS_INIT;
      opt.tolerance = is_single(T) ? 1e-5 : 1e-12;
      opt.preconditioner = pre ? KK_CG_JACOBI : KK_CG_NONE;
      kk_cg_result_t res = {sizeof res, 0, 0, 0};
      OK(kk_sparse_cg(NULL, A, b.v, x.v, &opt, &res));
      ck_assert_msg(res.converged, "cg %s pre %d: no convergence in %d iterations (residual %g)", kk_type_name(T), pre,
                    res.iterations, res.residual);
      ck_assert_int_gt(res.iterations, 1);
      ck_assert_int_lt(res.iterations, 200);
      tv_download(&x);
      double err = 0;
      for (int64_t i = 0; i < n; i++)
        err = fmax(err, cabs(tv_get(&x, i, 0, 0) - 1.0));
      ck_assert_msg(err < (is_single(T) ? 1e-3 : 1e-9), "cg %s pre %d: max error %g", kk_type_name(T), pre, err);
      /* a converged start takes no iteration */
      OK(kk_sparse_cg(NULL, A, b.v, x.v, &opt, &res));
      ck_assert_int_le(res.iterations, 1);
      kk_crs_destroy(A);
      free(vals);
      free(dense);
      free_coo(&m);
      tv_free(&b);
      tv_free(&x);
    }
  }
  /* a zero diagonal is refused by the Jacobi preconditioner */
  const int64_t rp[] = {0, 1, 2}, ci[] = {1, 0};
  const double v[] = {1, 1};
  kk_crs_t *A = NULL;
  OK(kk_crs_create_csr(NULL, "offdiag", KK_DOUBLE, 2, 2, KK_INT64, rp, KK_INT64, ci, v, &A));
  kk_view_t *b = NULL, *x = NULL;
  int64_t two = 2;
  OK(kk_view_alloc(&b, "b", KK_DOUBLE, 1, &two));
  OK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &two));
  double one = 1;
  OK(kk_deep_copy_fill(b, &one));
  ck_assert_int_eq(kk_sparse_cg(NULL, A, b, x, NULL, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "nonzero diagonal");
  kk_view_release(b);
  kk_view_release(x);
  kk_crs_destroy(A);
}
END_TEST

/* ---- errors --------------------------------------------------------------------------------- */

/* Bad calls are refused before anything runs, with the routine and the
 * views' labels in the message, and the output keeps its values. */
START_TEST(errors_refused_before_launch) {
  use_tpl(_i);
  tv_t x = tv1(KK_DOUBLE, 10, K_RIGHT), y = tv1(KK_DOUBLE, 12, K_RIGHT), f = tv1(KK_FLOAT, 10, K_RIGHT);
  tv_t M = tv2(KK_DOUBLE, 10, 12, K_RIGHT), i32 = tv1(KK_INT32, 10, K_RIGHT);
  tv_fill(&x);
  tv_fill(&y);
  tv_fill(&f);
  kk_scalar_t r;
  ck_assert_int_eq(kk_blas_axpby(NULL, KK_REAL(1), x.v, KK_REAL(1), y.v), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_blas_axpby: view y 'test' has extent 12 in dimension 0, view x 'test' has 10");
  ck_assert_int_eq(kk_blas_dot(NULL, x.v, f.v, &r), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "has element type float, expected double");
  ck_assert_int_eq(kk_blas_axpby(NULL, KK_COMPLEX(1, 1), x.v, KK_REAL(1), x.v), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "scalar a = (1, 1) has an imaginary part");
  ck_assert_int_eq(kk_blas_nrm2(NULL, i32.v, &r.re), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "element type int32");
  ck_assert_int_eq(kk_blas_axpby(NULL, KK_REAL(1), M.v, KK_REAL(1), x.v), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "rank");
  ck_assert_int_eq(kk_blas_gemv(NULL, KK_OP_N, KK_REAL(1), M.v, x.v, KK_REAL(0), x.v), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_blas_gemv: view x 'test' has extent 10 in dimension 0, expected 12");
  ck_assert_int_eq(kk_blas_gemv(NULL, (kk_op_t)7, KK_REAL(1), M.v, y.v, KK_REAL(0), x.v), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_blas_gemm(NULL, KK_OP_N, KK_OP_N, KK_REAL(1), M.v, M.v, KK_REAL(0), M.v),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_batched_gemm(NULL, KK_OP_N, KK_OP_N, KK_REAL(1), M.v, M.v, KK_REAL(0), M.v),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "rank 2, expected 3");
  /* a C of the wrong shape is blamed on C, not on B */
  {
    tv_t B = tv2(KK_DOUBLE, 12, 5, K_RIGHT), C = tv2(KK_DOUBLE, 10, 4, K_RIGHT);
    ck_assert_int_eq(kk_blas_gemm(NULL, KK_OP_N, KK_OP_N, KK_REAL(1), M.v, B.v, KK_REAL(0), C.v),
                     KK_ERROR_INVALID_ARGUMENT);
    ck_assert_contains(kk_last_error(),
                       "kk_blas_gemm: view C 'test' has extent 4 in dimension 1, expected 5 (C has op(B)'s columns)");
    tv_free(&B);
    tv_free(&C);
    tv_t A3 = tv3(KK_DOUBLE, 2, 10, 12, K_RIGHT), B3 = tv3(KK_DOUBLE, 2, 12, 5, K_RIGHT);
    tv_t C3 = tv3(KK_DOUBLE, 2, 9, 5, K_RIGHT);
    ck_assert_int_eq(kk_batched_gemm(NULL, KK_OP_N, KK_OP_N, KK_REAL(1), A3.v, B3.v, KK_REAL(0), C3.v),
                     KK_ERROR_INVALID_ARGUMENT);
    ck_assert_contains(kk_last_error(), "kk_batched_gemm: view C 'test' has extent 9 in dimension 1, expected 10");
    /* trsm: a B that does not match the square A is blamed on B */
    tv_t S = tv3(KK_DOUBLE, 2, 4, 4, K_RIGHT), R3 = tv3(KK_DOUBLE, 2, 3, 5, K_RIGHT);
    ck_assert_int_eq(kk_batched_trsm(NULL, KK_SIDE_LEFT, KK_LOWER, KK_OP_N, KK_DIAG_NONUNIT, KK_REAL(1), S.v, R3.v),
                     KK_ERROR_INVALID_ARGUMENT);
    ck_assert_contains(kk_last_error(), "kk_batched_trsm: view B 'test' has extent 3 in dimension 1, expected 4");
    ck_assert_int_eq(kk_batched_trsm(NULL, KK_SIDE_LEFT, (kk_uplo_t)5, KK_OP_N, KK_DIAG_NONUNIT, KK_REAL(1), S.v,
                                     S.v),
                     KK_ERROR_INVALID_ARGUMENT);
    ck_assert_contains(kk_last_error(), "kk_batched_trsm: uplo 5 is neither KK_LOWER nor KK_UPPER");
    tv_free(&A3);
    tv_free(&B3);
    tv_free(&C3);
    tv_free(&S);
    tv_free(&R3);
  }
  ck_assert_int_eq(kk_blas_axpby(NULL, KK_REAL(1), NULL, KK_REAL(1), x.v), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "view x is NULL");
  ck_assert_int_eq(kk_blas_dot(NULL, x.v, x.v, NULL), KK_ERROR_INVALID_ARGUMENT);
  /* a batch too large for scratch */
  tv_t big = tv3(KK_DOUBLE, 1, 600, 600, K_RIGHT);
  ck_assert_int_eq(kk_batched_lu(NULL, big.v), KK_ERROR_LIMIT);
  ck_assert_contains(kk_last_error(), "kk_batched_lu: one matrix needs");
  tv_free(&big);
  /* a view the instance's backend cannot read: a host view on a device backend */
  if (!host_backend()) {
    kk_view_t *h = NULL;
    kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
    spec.label = "on_host";
    spec.rank = 1;
    spec.extents[0] = 10;
    spec.space = kk_space_host();
    OK(kk_view_create(&spec, &h));
    ck_assert_int_eq(kk_blas_axpby(NULL, KK_REAL(1), x.v, KK_REAL(1), h), KK_ERROR_UNSUPPORTED);
    ck_assert_contains(kk_last_error(), "'on_host' is in memory space Host");
    ck_assert_int_eq(kk_blas_axpby(kk_instance_host(), KK_REAL(1), h, KK_REAL(1), x.v), KK_ERROR_UNSUPPORTED);
    kk_view_release(h);
  }
  /* nothing was written */
  tv_download(&x);
  tv_download(&y);
  ck_assert(memcmp(x.host, x.orig, (size_t)x.span * x.es) == 0);
  ck_assert(memcmp(y.host, y.orig, (size_t)y.span * y.es) == 0);
  tv_free(&x);
  tv_free(&y);
  tv_free(&f);
  tv_free(&M);
  tv_free(&i32);
}
END_TEST

/* ---- vendor libraries ------------------------------------------------------------------------ */

START_TEST(tpl_switches_and_report) {
  ck_assert_int_eq(kk_kernels_tpl_count(), 3);
  static const char *const names[] = {"cblas", "cublas", "cusparse"};
  for (int i = 0; i < 3; i++) {
    kk_tpl_info_t in;
    memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    OK(kk_kernels_tpl_get_info(i, strcmp(kk_backend_default(), "cuda") == 0, &in));
    ck_assert_str_eq(in.name, names[i]);
    /* on a CUDA machine the run that says so must have found cuBLAS and cuSPARSE */
    const char *cu = getenv("KK_KERNELS_TEST_EXPECT_CUDA_TPL");
    if (i > 0 && cu && strcmp(cu, "1") == 0 && strcmp(kk_backend_default(), "cuda") == 0)
      ck_assert_msg(in.state == KK_TPL_LOADED, "%s is expected but not loaded: %s", in.name, in.reason);
  }
  kk_tpl_info_t info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  OK(kk_kernels_tpl_get_info(0, 1, &info));
  ck_assert_str_eq(info.name, "cblas");
  const char *expect = getenv("KK_KERNELS_TEST_EXPECT_CBLAS");
  if (expect && strcmp(expect, "1") == 0)
    ck_assert_msg(info.state == KK_TPL_LOADED, "a CBLAS is installed but not loaded: %s", info.reason);
  if (info.state != KK_TPL_LOADED)
    printf("note: no CBLAS here (%s): the vendor-library runs use kk's own kernels\n", info.reason);
  /* off: disabled with the reason; on again: loaded again if it was */
  const int was = info.state;
  OK(kk_kernels_set_tpl("cblas", "off"));
  OK(kk_kernels_tpl_get_info(0, 1, &info));
  ck_assert_int_eq(info.state, KK_TPL_DISABLED);
  ck_assert_contains(info.reason, "switched off");
  OK(kk_kernels_set_tpl("cblas", "auto"));
  OK(kk_kernels_tpl_get_info(0, 1, &info));
  ck_assert_int_eq(info.state, was);
  OK(kk_kernels_set_tpl(NULL, "none"));
  OK(kk_kernels_tpl_get_info(0, 1, &info));
  ck_assert_int_eq(info.state, KK_TPL_DISABLED);
  OK(kk_kernels_set_tpl(NULL, "auto"));
  /* a file that is not there */
  OK(kk_kernels_set_tpl("cblas", "off"));
  OK(kk_kernels_set_tpl("cblas", "/nonexistent/libcblas.so"));
  OK(kk_kernels_tpl_get_info(0, 1, &info));
  ck_assert_int_eq(info.state, was == KK_TPL_LOADED ? KK_TPL_LOADED : KK_TPL_NOT_FOUND); /* an open one stays */
  ck_assert_int_eq(kk_kernels_set_tpl("nosuch", "auto"), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_kernels_set_tpl(NULL, "sometimes"), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_kernels_tpl_get_info(3, 0, &info), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_kernels_tpl_get_info: index 3 is out of range: kk_kernels_tpl_count() is 3");
  ck_assert_int_eq(kk_kernels_tpl_get_info(0, 0, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_kernels_tpl_get_info: info is NULL");
  /* the report, text and JSON */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  OK(kk_kernels_print_report(f, 0));
  fclose(f);
  ck_assert_contains(buf, "kk-kernels ");
  ck_assert_contains(buf, "cblas");
  free(buf);
  f = open_memstream(&buf, &len);
  OK(kk_kernels_print_report(f, 1));
  fclose(f);
  ck_assert_contains(buf, "{\"version\": \"");
  ck_assert_contains(buf, "\"name\": \"cblas\"");
  free(buf);
  ck_assert_str_eq(kk_kernels_version(), KK_VERSION_STRING);
}
END_TEST

/* The threads of the process, by id (at most `max`); their number. */
static int thread_ids(long *ids, int max) {
  int n = 0;
  DIR *d = opendir("/proc/self/task");
  for (struct dirent *e; d && n < max && (e = readdir(d)) != NULL;) {
    char *end;
    const long tid = strtol(e->d_name, &end, 10);
    if (*end == '\0' && tid > 0)
      ids[n++] = tid;
  }
  if (d)
    closedir(d);
  return n;
}

/* An OpenBLAS loaded for a call runs its threads on every CPU the process
 * runs on, not on the one core that OMP_PROC_BIND bound the loading thread
 * to (kernels/affinity.h).  kernels-openmp.sh runs the suite with
 * OMP_PROC_BIND=true: there libgomp binds the initial thread as it is
 * loaded, before any CBLAS is opened.  The threads that appear while the
 * CBLAS is loaded are its own (and kk's OpenMP threads, bound to one CPU
 * each): one of them must have every CPU. */
START_TEST(cblas_threads_see_every_cpu) {
  OK(kk_kernels_set_tpl(NULL, "auto"));
  tv_t A = tv2(KK_DOUBLE, 8, 8, K_RIGHT), B = tv2(KK_DOUBLE, 8, 8, K_RIGHT), C = tv2(KK_DOUBLE, 8, 8, K_RIGHT);
  tv_fill(&A);
  tv_fill(&B);
  tv_fill(&C);
  long before[256], after[256];
  const int nb = thread_ids(before, 256);
  void *was = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD);
  OK(kk_blas_gemm(NULL, KK_OP_N, KK_OP_N, KK_REAL(1.0), A.v, B.v, KK_REAL(0.0), C.v)); /* gemm: offered to the CBLAS */
  const int na = thread_ids(after, 256);
  tv_free(&A);
  tv_free(&B);
  tv_free(&C);
  kk_tpl_info_t info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  OK(kk_kernels_tpl_get_info(0, 1, &info));
  const char *bind = getenv("OMP_PROC_BIND");
  cpu_set_t all;
  kkk_affinity_process(&all);
  if (strcmp(kk_backend_default(), "openmp") != 0 || !bind || strcmp(bind, "false") == 0 || was ||
      info.state != KK_TPL_LOADED || !strstr(info.path, "openblas") || CPU_COUNT(&all) < 2 || kk_num_threads() < 2) {
    printf("note: the CBLAS's CPUs are not checked here (wants openmp on 2 threads or more, OMP_PROC_BIND, an "
           "OpenBLAS not yet loaded)\n");
  } else {
    int widest = 0;
    for (int i = 0; i < na; i++) {
      int old = 0;
      for (int j = 0; j < nb && !old; j++)
        old = before[j] == after[i];
      cpu_set_t m;
      if (!old && sched_getaffinity((pid_t)after[i], sizeof m, &m) == 0 && CPU_COUNT(&m) > widest)
        widest = CPU_COUNT(&m);
    }
    ck_assert_msg(widest == CPU_COUNT(&all), "the CBLAS's threads run on %d of the process's %d CPUs", widest,
                  CPU_COUNT(&all));
  }
  if (was)
    dlclose(was);
}
END_TEST

/* A matrix, views and an instance kept past kk_finalize: kk_crs_rows and
 * the others read on as if nothing had happened, and a routine given them
 * then touched freed memory.  Now every routine refuses them, before and
 * after a new kk_initialize, and destroying them afterwards is safe. */
START_TEST(handles_outlive_finalize) {
  const int64_t rp[] = {0, 1, 2, 3}, ci[] = {0, 1, 2}, n3 = 3;
  const double v[] = {1, 2, 3};
  kk_crs_t *A = NULL, *B = (kk_crs_t *)0x1;
  kk_view_t *x = NULL, *y = NULL, *x2 = NULL, *y2 = NULL;
  kk_instance_t *inst = NULL;
  OK(kk_crs_create_csr(NULL, "A", KK_DOUBLE, 3, 3, KK_INT64, rp, KK_INT64, ci, v, &A));
  OK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n3));
  OK(kk_view_alloc(&y, "y", KK_DOUBLE, 1, &n3));
  OK(kk_instance_create(NULL, &inst));
  OK(kk_finalize());
  ck_assert_int_eq(kk_crs_rows(A), 0);
  ck_assert_int_eq(kk_crs_cols(A), 0);
  ck_assert_int_eq(kk_crs_nnz(A), 0);
  ck_assert_int_eq(kk_crs_type(A), KK_TYPE_NONE);
  ck_assert_ptr_null(kk_crs_space(A));
  ck_assert_ptr_null(kk_crs_row_ptr(A));
  ck_assert_ptr_null(kk_crs_col_idx(A));
  ck_assert_ptr_null(kk_crs_values(A));
  ck_assert_int_eq(kk_sparse_spmv(NULL, KK_OP_N, KK_REAL(1), A, x, KK_REAL(0), y), KK_ERROR_NOT_INITIALIZED);
  ck_assert_int_eq(kk_blas_axpby(NULL, KK_REAL(1), x, KK_REAL(1), y), KK_ERROR_NOT_INITIALIZED);
  ck_assert_int_eq(kk_crs_copy(NULL, A, &B), KK_ERROR_NOT_INITIALIZED);
  ck_assert_ptr_null(B);
  setup(); /* a new initialization: the old handles stay refused */
  OK(kk_view_alloc(&x2, "x2", KK_DOUBLE, 1, &n3));
  OK(kk_view_alloc(&y2, "y2", KK_DOUBLE, 1, &n3));
  ck_assert_int_eq(kk_sparse_spmv(NULL, KK_OP_N, KK_REAL(1), A, x2, KK_REAL(0), y2), KK_ERROR_NOT_INITIALIZED);
  ck_assert_contains(kk_last_error(), "kk_sparse_spmv: matrix 'A' was made before kk_finalize");
  kk_cg_result_t res;
  ck_assert_int_eq(kk_sparse_cg(NULL, A, x2, y2, NULL, &res), KK_ERROR_NOT_INITIALIZED);
  ck_assert_int_eq(kk_crs_copy(NULL, A, &B), KK_ERROR_NOT_INITIALIZED);
  ck_assert_contains(kk_last_error(), "kk_crs_copy: matrix 'A' was made before kk_finalize");
  ck_assert_int_eq(kk_blas_axpby(NULL, KK_REAL(1), x, KK_REAL(1), y2), KK_ERROR_NOT_INITIALIZED);
  ck_assert_contains(kk_last_error(), "kk_blas_axpby: view x was made before kk_finalize");
  ck_assert_int_eq(kk_blas_axpby(inst, KK_REAL(1), x2, KK_REAL(1), y2), KK_ERROR_NOT_INITIALIZED);
  ck_assert_contains(kk_last_error(), "kk_blas_axpby: the instance was made before kk_finalize");
  kk_scalar_t dot;
  ck_assert_int_eq(kk_blas_dot(NULL, x2, y, &dot), KK_ERROR_NOT_INITIALIZED);
  kk_crs_destroy(A);
  kk_view_release(x);
  kk_view_release(y);
  kk_view_release(x2);
  kk_view_release(y2);
  OK(kk_instance_destroy(inst));
}
END_TEST

static Suite *kernels_suite(void) {
  Suite *s = suite_create(g_backend);
  TCase *tc = tcase_create("kernels");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, cblas_threads_see_every_cpu); /* first: the CBLAS is opened here */
  tcase_add_test(tc, tpl_switches_and_report);
  tcase_add_loop_test(tc, blas1_elementwise, 0, 2);
  tcase_add_loop_test(tc, blas1_reductions, 0, 2);
  tcase_add_loop_test(tc, batched_gemm_gemv, 0, 1);
  tcase_add_test(tc, batched_gemm_beyond_scratch);
  tcase_add_loop_test(tc, batched_trsm, 0, 1);
  tcase_add_loop_test(tc, batched_lu, 0, 1);
  tcase_add_loop_test(tc, sparse_spmv, 0, 2);
  tcase_add_loop_test(tc, crs_bad_input, 0, 1);
  tcase_add_loop_test(tc, sparse_cg, 0, 2);
  tcase_add_loop_test(tc, errors_refused_before_launch, 0, 2);
  tcase_add_test(tc, handles_outlive_finalize);
  suite_add_tcase(s, tc);
  /* gemm on its own, so that CK_RUN_CASE=gemm runs just it (a GPU's
   * own gemm checked in seconds) */
  TCase *tg = tcase_create("gemm");
  tcase_add_checked_fixture(tg, setup, teardown);
  tcase_set_timeout(tg, 900);
  tcase_add_loop_test(tg, gemm, 0, 2);
  tcase_add_test(tg, gemm_blocked);
  suite_add_tcase(s, tg);
  /* gemv on its own too: kernels-gemv-cblk.sh runs CK_RUN_CASE=gemv with
   * KK_KERNELS_GEMV=cblk */
  TCase *tv = tcase_create("gemv");
  tcase_add_checked_fixture(tv, setup, teardown);
  tcase_set_timeout(tv, 900);
  tcase_add_loop_test(tv, gemv, 0, 2);
  suite_add_tcase(s, tv);
  /* the matrices of every GPU SpMV kernel on their own:
   * kernels-spmv-pipe.sh runs CK_RUN_CASE=spmv with KK_KERNELS_SPMV=pipe6 */
  TCase *ts = tcase_create("spmv");
  tcase_add_checked_fixture(ts, setup, teardown);
  tcase_set_timeout(ts, 900);
  tcase_add_loop_test(ts, sparse_spmv_row_lengths, 0, 2);
  suite_add_tcase(s, ts);
  return s;
}

int main(int argc, char **argv) {
  if (argc > 1)
    g_backend = argv[1];
  g_small = tu_small_sizes();
  if (getenv("KOKKOS_PLUGIN_PATH"))
    g_plugin_path = strdup(getenv("KOKKOS_PLUGIN_PATH"));
  tu_clear_env();
  int probe = tu_probe_backend(g_backend, g_plugin_path);
  if (probe != 0)
    return probe;
  int rc = tu_run(kernels_suite());
  free(g_plugin_path);
  return rc;
}
