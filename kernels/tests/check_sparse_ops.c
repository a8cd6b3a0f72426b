/* kernels/tests/check_sparse_ops.c -- SpGEMM, SpAdd, coloring, MIS-2 and Gauss-Seidel of kk-kernels against a plain C reference, on one backend. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/linalg.h>
#include <kk/tools.h>

#include "../../tests/testutil.h"

/*
 * Usage: check_sparse_ops BACKEND.  Random sparse matrices (several shapes
 * and densities, empty rows, repeated entries, rows long enough for the
 * global accumulator, 1 x 1 and 0 x 0) are multiplied and added on the
 * backend and compared entry by entry with a reference in double complex:
 * the result must hold exactly the columns the reference's structure has
 * (the union of the terms' columns, a term that cancels included), each
 * once, sorted when asked, with values within a tolerance of the type.
 * Colorings, MIS-2 sets and aggregates are checked for validity, not
 * against fixed answers; Gauss-Seidel must reduce the residual.
 */

typedef double complex cplx;

static const char *g_backend = "serial";
static char *g_plugin_path;
/* under valgrind and the sanitizers (tu_small_sizes) the largest shape is left out, and SpGEMM's
 * reference case runs half its type and accumulator pairs (spgemm_against_reference) */
static int g_small;
static const kk_type_t k_types[4] = {KK_FLOAT, KK_DOUBLE, KK_COMPLEX_FLOAT, KK_COMPLEX_DOUBLE};

#define OK(call) ck_assert_msg((call) == KK_OK, "%s failed: %s", #call, kk_last_error())

static void setup(void) {
  tu_clear_env();
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = g_backend;
  s.plugin_path = g_plugin_path;
  s.disable_warnings = 1;
  ck_assert_msg(kk_initialize_with_settings(&s) == KK_OK, "initializing %s: %s", g_backend, kk_last_error());
}

static void teardown(void) { kk_finalize(); }

/* Host backends have two accumulators for SpGEMM and SpAdd of unsorted
 * rows (a dense one per thread, the hash tables): the tests of those run
 * with each (loop index / 4: the automatic choice, then each forced by
 * KK_SPGEMM_HOST_ACCUMULATOR); other backends ignore the setting and run
 * the automatic choice only. */
static const char *const k_accs[3] = {NULL, "hash", "dense"};
static int is_host_backend(void) {
  return strcmp(g_backend, "serial") == 0 || strcmp(g_backend, "threads") == 0 || strcmp(g_backend, "openmp") == 0;
}
static const char *set_acc(int i) {
  const char *acc = k_accs[i / 4];
  if (acc)
    setenv("KK_SPGEMM_HOST_ACCUMULATOR", acc, 1);
  else
    unsetenv("KK_SPGEMM_HOST_ACCUMULATOR");
  return acc ? acc : "auto";
}

static uint64_t g_rng = 88172645463325252ull;
static double rnd(void) { /* [-1, 1) */
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (double)(g_rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}
static int64_t rndi(int64_t n) { return n > 0 ? (int64_t)((rnd() + 1.0) * 0.5 * (double)n) % n : 0; }
static int is_cplx(kk_type_t t) { return t == KK_COMPLEX_FLOAT || t == KK_COMPLEX_DOUBLE; }
static size_t esize(kk_type_t t) { return t == KK_FLOAT ? 4 : t == KK_DOUBLE || t == KK_COMPLEX_FLOAT ? 8 : 16; }
static double eps(kk_type_t t) { return t == KK_FLOAT || t == KK_COMPLEX_FLOAT ? 1.2e-7 : 2.3e-16; }

/* A host matrix: CSR with values in double complex (and in the type's bytes). */
typedef struct hmat {
  int64_t rows, cols, nnz;
  int64_t *rp;
  int32_t *ci;
  cplx *v;
} hmat_t;

static void hfree(hmat_t *m) {
  free(m->rp);
  free(m->ci);
  free(m->v);
  memset(m, 0, sizeof *m);
}

/* rows x cols, each row with about density * cols entries (some rows
 * empty, some repeated columns); `long_row` >= 0: that row full and then
 * some (repeated). */
static hmat_t hrandom(kk_type_t t, int64_t rows, int64_t cols, double density, int64_t long_row) {
  hmat_t m = {rows, cols, 0, calloc((size_t)rows + 1, sizeof(int64_t)), NULL, NULL};
  int64_t cap = 16;
  m.ci = malloc(sizeof(int32_t) * (size_t)cap);
  m.v = malloc(sizeof(cplx) * (size_t)cap);
  for (int64_t i = 0; i < rows; i++) {
    int64_t len = cols > 0 && rndi(5) != 0 ? rndi((int64_t)(2.0 * density * (double)cols) + 1) : 0;
    if (i == long_row)
      len = cols + cols / 2;
    if (long_row == -2) /* a ladder: rows of 1, 2, 4, ... 8192 entries, over and over */
      len = (int64_t)1 << (i % 14) < cols ? (int64_t)1 << (i % 14) : cols;
    for (int64_t k = 0; k < len; k++) {
      if (m.nnz == cap) {
        cap *= 2;
        m.ci = realloc(m.ci, sizeof(int32_t) * (size_t)cap);
        m.v = realloc(m.v, sizeof(cplx) * (size_t)cap);
      }
      m.ci[m.nnz] = (int32_t)(i == long_row && k < cols ? k : rndi(cols));
      /* repeats: now and then the previous column again */
      if (k > 0 && rndi(8) == 0)
        m.ci[m.nnz] = m.ci[m.nnz - 1];
      m.v[m.nnz] = is_cplx(t) ? rnd() + I * rnd() : rnd();
      m.nnz++;
    }
    m.rp[i + 1] = m.nnz;
  }
  return m;
}

static void to_type(kk_type_t t, const cplx *v, int64_t n, void *out) {
  for (int64_t k = 0; k < n; k++) {
    if (t == KK_FLOAT)
      ((float *)out)[k] = (float)creal(v[k]);
    else if (t == KK_DOUBLE)
      ((double *)out)[k] = creal(v[k]);
    else if (t == KK_COMPLEX_FLOAT) {
      ((float *)out)[2 * k] = (float)creal(v[k]);
      ((float *)out)[2 * k + 1] = (float)cimag(v[k]);
    } else {
      ((double *)out)[2 * k] = creal(v[k]);
      ((double *)out)[2 * k + 1] = cimag(v[k]);
    }
  }
}
static cplx from_type(kk_type_t t, const void *p, int64_t k) {
  if (t == KK_FLOAT)
    return ((const float *)p)[k];
  if (t == KK_DOUBLE)
    return ((const double *)p)[k];
  if (t == KK_COMPLEX_FLOAT)
    return ((const float *)p)[2 * k] + I * ((const float *)p)[2 * k + 1];
  return ((const double *)p)[2 * k] + I * ((const double *)p)[2 * k + 1];
}

/* The values rounded to the type, as the device sees them. */
static void round_to(kk_type_t t, hmat_t *m) {
  void *b = malloc(esize(t) * (size_t)(m->nnz + 1));
  to_type(t, m->v, m->nnz, b);
  for (int64_t k = 0; k < m->nnz; k++)
    m->v[k] = from_type(t, b, k);
  free(b);
}

static kk_crs_t *upload(kk_type_t t, const hmat_t *m, const char *label) {
  void *b = malloc(esize(t) * (size_t)(m->nnz + 1));
  to_type(t, m->v, m->nnz, b);
  kk_crs_t *A = NULL;
  OK(kk_crs_create_csr(NULL, label, t, m->rows, m->cols, KK_INT64, m->rp, KK_INT32, m->ci, b, &A));
  free(b);
  return A;
}

/* A device matrix back on the host. */
static hmat_t download(const kk_crs_t *C) {
  OK(kk_fence());
  const kk_type_t t = kk_crs_type(C);
  hmat_t m = {kk_crs_rows(C), kk_crs_cols(C), kk_crs_nnz(C), NULL, NULL, NULL};
  m.rp = malloc(sizeof(int64_t) * (size_t)(m.rows + 1));
  m.ci = malloc(sizeof(int32_t) * (size_t)(m.nnz + 1));
  m.v = malloc(sizeof(cplx) * (size_t)(m.nnz + 1));
  void *b = malloc(esize(t) * (size_t)(m.nnz + 1));
  kk_space_t *sp = kk_crs_space(C);
  OK(kk_space_copy(NULL, m.rp, sp, kk_view_data(kk_crs_row_ptr(C)), sizeof(int64_t) * (size_t)(m.rows + 1), NULL));
  if (m.nnz > 0) {
    OK(kk_space_copy(NULL, m.ci, sp, kk_view_data(kk_crs_col_idx(C)), sizeof(int32_t) * (size_t)m.nnz, NULL));
    OK(kk_space_copy(NULL, b, sp, kk_view_data(kk_crs_values(C)), esize(t) * (size_t)m.nnz, NULL));
  }
  for (int64_t k = 0; k < m.nnz; k++)
    m.v[k] = from_type(t, b, k);
  free(b);
  return m;
}

/* Reference row accumulator: dense over the columns. */
typedef struct acc {
  int64_t n;
  cplx *val;
  double *mag;  /* sum of |terms| */
  int *has;
} acc_t;

/* Compares C with the reference rows made by `row(i, acc)`. */
static void compare(const char *what, kk_type_t t, const hmat_t *C, int sorted,
                    void (*row)(int64_t i, acc_t *a, const void *ctx), const void *ctx, int64_t terms) {
  acc_t a = {C->cols, calloc((size_t)C->cols + 1, sizeof(cplx)), calloc((size_t)C->cols + 1, sizeof(double)),
             calloc((size_t)C->cols + 1, sizeof(int))};
  int *seen = calloc((size_t)C->cols + 1, sizeof(int));
  for (int64_t i = 0; i < C->rows; i++) {
    memset(a.val, 0, sizeof(cplx) * (size_t)C->cols);
    memset(a.mag, 0, sizeof(double) * (size_t)C->cols);
    memset(a.has, 0, sizeof(int) * (size_t)C->cols);
    row(i, &a, ctx);
    int64_t want = 0;
    for (int64_t j = 0; j < C->cols; j++)
      want += a.has[j];
    ck_assert_msg(C->rp[i + 1] - C->rp[i] == want, "%s (%s): row %lld has %lld entries, the reference %lld", what,
                  kk_type_name(t), (long long)i, (long long)(C->rp[i + 1] - C->rp[i]), (long long)want);
    for (int64_t p = C->rp[i]; p < C->rp[i + 1]; p++) {
      const int32_t j = C->ci[p];
      ck_assert_msg(j >= 0 && j < C->cols && a.has[j] && !seen[j], "%s (%s): row %lld: column %d %s", what,
                    kk_type_name(t), (long long)i, j,
                    j < 0 || j >= C->cols ? "out of range" : seen[j] ? "twice" : "not in the reference");
      seen[j] = 1;
      if (sorted && p > C->rp[i])
        ck_assert_msg(C->ci[p - 1] < j, "%s (%s): row %lld not sorted", what, kk_type_name(t), (long long)i);
      const double tol = (double)(terms + 8) * eps(t) * (a.mag[j] + 1e-300) * 4;
      ck_assert_msg(cabs(C->v[p] - a.val[j]) <= tol, "%s (%s): C(%lld, %d) = %g%+gi, reference %g%+gi", what,
                    kk_type_name(t), (long long)i, j, creal(C->v[p]), cimag(C->v[p]), creal(a.val[j]),
                    cimag(a.val[j]));
    }
    for (int64_t p = C->rp[i]; p < C->rp[i + 1]; p++)
      seen[C->ci[p]] = 0;
  }
  free(seen);
  free(a.val);
  free(a.mag);
  free(a.has);
}

/* ---- SpGEMM ----------------------------------------------------------------------------- */

typedef struct prod_ctx {
  const hmat_t *A, *B;
  const cplx *dinv;  /* Jacobi: C = B - w D^-1 A B */
  cplx omega;
  cplx a, b;         /* SpAdd: a A + b B */
} prod_ctx_t;

static void prod_row(int64_t i, acc_t *acc, const void *vctx) {
  const prod_ctx_t *x = vctx;
  const cplx f = x->dinv ? -x->omega * x->dinv[i] : 1.0;
  if (x->dinv)
    for (int64_t q = x->B->rp[i]; q < x->B->rp[i + 1]; q++) {
      const int32_t j = x->B->ci[q];
      acc->val[j] += x->B->v[q];
      acc->mag[j] += cabs(x->B->v[q]);
      acc->has[j] = 1;
    }
  for (int64_t p = x->A->rp[i]; p < x->A->rp[i + 1]; p++) {
    const int32_t k = x->A->ci[p];
    for (int64_t q = x->B->rp[k]; q < x->B->rp[k + 1]; q++) {
      const int32_t j = x->B->ci[q];
      const cplx term = f * x->A->v[p] * x->B->v[q];
      acc->val[j] += term;
      acc->mag[j] += cabs(f) * cabs(x->A->v[p]) * cabs(x->B->v[q]);
      acc->has[j] = 1;
    }
  }
}

static void add_row(int64_t i, acc_t *acc, const void *vctx) {
  const prod_ctx_t *x = vctx;
  for (int w = 0; w < 2; w++) {
    const hmat_t *M = w ? x->B : x->A;
    const cplx s = w ? x->b : x->a;
    for (int64_t p = M->rp[i]; p < M->rp[i + 1]; p++) {
      acc->val[M->ci[p]] += s * M->v[p];
      acc->mag[M->ci[p]] += cabs(s * M->v[p]);
      acc->has[M->ci[p]] = 1;
    }
  }
}

/* shapes: m, k, n, density of A, of B, A's long row (-1: none; -2: every
 * row a ladder step, its length doubling from 1 to 8192) */
static const struct {
  int64_t m, k, n;
  double da, db;
  int64_t long_row;
} k_shapes[] = {
    {0, 0, 0, 0.0, 0.0, -1},   {1, 1, 1, 1.0, 1.0, -1},     {5, 7, 3, 0.4, 0.5, -1},   {40, 30, 50, 0.05, 0.1, -1},
    {40, 30, 50, 0.3, 0.3, -1}, {30, 30, 30, 0.0, 0.2, -1},   {3, 0, 4, 0.5, 0.5, -1},   {7, 5, 0, 0.5, 0.5, -1},
    /* a row whose terms overflow the scratch tables of host backends (the global level) */
    {300, 300, 300, 0.02, 0.05, 7},
    /* rows in every bin of the GPU kernels (tables of 8 slots to beyond the scratch: a row per thread, a team per
     * row with its table in scratch, the global tables) and of the host's two levels */
    {56, 4000, 30000, 0.0, 0.00017, -2},
    /* a row of some 20000 columns from 2 10^5 terms: beyond every backend's scratch in both phases */
    {50, 400, 20000, 0.02, 0.02, 3},
};
#define NSHAPES (sizeof k_shapes / sizeof k_shapes[0] - (g_small ? 1 : 0))

START_TEST(spgemm_against_reference) {
  /* under valgrind (where only the two forced host accumulators run, and
   * each pass of this case took about a minute) each accumulator takes two
   * of the four types, so that every type runs once: double and complex
   * double with the first, float and complex float with the second */
  if (g_small && (_i / 4 + _i % 4) % 2)
    return;
  const kk_type_t t = k_types[_i % 4];
  const char *acc = set_acc(_i);
  for (size_t s = 0; s < NSHAPES; s++)
    for (int sorted = 0; sorted < 2; sorted++) {
      hmat_t A = hrandom(t, k_shapes[s].m, k_shapes[s].k, k_shapes[s].da, k_shapes[s].long_row);
      hmat_t B = hrandom(t, k_shapes[s].k, k_shapes[s].n, k_shapes[s].db, -1);
      round_to(t, &A);
      round_to(t, &B);
      kk_crs_t *dA = upload(t, &A, "A"), *dB = upload(t, &B, "B"), *dC = NULL;
      kk_spgemm_handle_t *h = NULL;
      int64_t nnz = -1;
      OK(kk_sparse_spgemm_symbolic(NULL, dA, dB, sorted ? KK_SPARSE_SORTED : 0, &h, &nnz));
      OK(kk_sparse_spgemm_numeric(NULL, h, dA, dB, &dC));
      ck_assert_int_eq(kk_crs_nnz(dC), nnz);
      ck_assert_int_eq(kk_crs_rows(dC), A.rows);
      ck_assert_int_eq(kk_crs_cols(dC), B.cols);
      hmat_t C = download(dC);
      prod_ctx_t ctx = {&A, &B, NULL, 0, 0, 0};
      char what[64];
      snprintf(what, sizeof what, "spgemm shape %zu%s (%s)", s, sorted ? " sorted" : "", acc);
      compare(what, t, &C, sorted, prod_row, &ctx, A.rows > 0 ? A.nnz : 0);
      hfree(&C);
      /* the one call, in one pass (forced: on every backend) and, on
       * devices, as chosen (host backends choose the two phases above)
       * and in one pass with the bins one after the other (cuda and hip
       * run them side by side otherwise) */
      for (int one = is_host_backend() ? 1 : 0; one < (is_host_backend() ? 2 : 3); one++) {
        if (one)
          setenv("KK_SPGEMM_ONE_PASS", "yes", 1);
        else
          unsetenv("KK_SPGEMM_ONE_PASS");
        if (one == 2)
          setenv("KK_SPGEMM_BINS", "sequential", 1);
        /* every other shape with the queues and the workspace kept
         * between calls (the default; growing it from shape to shape),
         * the others without */
        setenv("KK_SPGEMM_CACHE", s % 2 ? "yes" : "no", 1);
        kk_crs_t *dC1 = NULL;
        OK(kk_sparse_spgemm(NULL, dA, dB, sorted ? KK_SPARSE_SORTED : 0, &dC1));
        unsetenv("KK_SPGEMM_BINS");
        unsetenv("KK_SPGEMM_CACHE");
        ck_assert_int_eq(kk_crs_nnz(dC1), nnz);
        C = download(dC1);
        char what1[128];
        snprintf(what1, sizeof what1, "%s, one call%s", what, one == 2 ? " (one pass, bins in sequence)"
                                                              : one ? " (one pass)" : "");
        compare(what1, t, &C, sorted, prod_row, &ctx, A.rows > 0 ? A.nnz : 0);
        hfree(&C);
        kk_crs_destroy(dC1);
      }
      unsetenv("KK_SPGEMM_ONE_PASS");
      /* numeric again with new values (the structure kept), into the same C */
      for (int64_t p = 0; p < A.nnz; p++)
        A.v[p] = is_cplx(t) ? rnd() + I * rnd() : rnd();
      round_to(t, &A);
      void *b = malloc(esize(t) * (size_t)(A.nnz + 1));
      to_type(t, A.v, A.nnz, b);
      if (A.nnz > 0)
        OK(kk_space_copy(kk_crs_space(dA), kk_view_data(kk_crs_values(dA)), NULL, b, esize(t) * (size_t)A.nnz, NULL));
      free(b);
      kk_crs_t *same = dC;
      OK(kk_sparse_spgemm_numeric(NULL, h, dA, dB, &dC));
      ck_assert_ptr_eq(dC, same);
      C = download(dC);
      compare(what, t, &C, sorted, prod_row, &ctx, A.rows > 0 ? A.nnz : 0);
      hfree(&C);
      kk_sparse_spgemm_destroy(h);
      kk_crs_destroy(dC);
      kk_crs_destroy(dA);
      kk_crs_destroy(dB);
      hfree(&A);
      hfree(&B);
    }
}
END_TEST

START_TEST(spgemm_jacobi) {
  const kk_type_t t = k_types[_i % 4];
  set_acc(_i);
  for (int64_t n = 0; n <= 60; n += 30) {
    hmat_t A = hrandom(t, n, n, 0.1, n > 0 ? 3 : -1), B = hrandom(t, n, n / 2 + 1, 0.2, -1);
    round_to(t, &A);
    round_to(t, &B);
    cplx *dinv = malloc(sizeof(cplx) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
      dinv[i] = is_cplx(t) ? rnd() + I * rnd() : rnd();
    hmat_t dh = {n, 1, n, NULL, NULL, dinv};
    round_to(t, &dh);
    void *b = malloc(esize(t) * (size_t)(n + 1));
    to_type(t, dinv, n, b);
    kk_view_t *dv = NULL;
    OK(kk_view_alloc(&dv, "dinv", t, 1, &n));
    if (n > 0)
      OK(kk_space_copy(kk_view_space(dv), kk_view_data(dv), NULL, b, esize(t) * (size_t)n, NULL));
    free(b);
    kk_crs_t *dA = upload(t, &A, "A"), *dB = upload(t, &B, "B"), *dC = NULL;
    kk_spgemm_handle_t *h = NULL;
    OK(kk_sparse_spgemm_symbolic(NULL, dA, dB, KK_SPGEMM_JACOBI | KK_SPARSE_SORTED, &h, NULL));
    const double w = 2.0 / 3.0;
    OK(kk_sparse_spgemm_jacobi_numeric(NULL, h, KK_REAL(w), dv, dA, dB, &dC));
    hmat_t C = download(dC);
    prod_ctx_t ctx = {&A, &B, dinv, w, 0, 0};
    compare("jacobi spgemm", t, &C, 1, prod_row, &ctx, A.nnz + 1);
    /* the handle is for the Jacobi form only */
    kk_crs_t *C2 = NULL;
    ck_assert_int_eq(kk_sparse_spgemm_numeric(NULL, h, dA, dB, &C2), KK_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_null(C2);
    hfree(&C);
    kk_sparse_spgemm_destroy(h);
    kk_crs_destroy(dC);
    kk_crs_destroy(dA);
    kk_crs_destroy(dB);
    kk_view_release(dv);
    free(dinv);
    dh.v = NULL;
    hfree(&A);
    hfree(&B);
  }
}
END_TEST

START_TEST(spadd_against_reference) {
  const kk_type_t t = k_types[_i % 4];
  const char *acc = set_acc(_i);
  const cplx sa = is_cplx(t) ? 0.5 - 0.25 * I : 0.5, sb = -1.5;
  for (size_t s = 0; s < NSHAPES; s++)
    for (int sorted = 0; sorted < 2; sorted++) {
      hmat_t A = hrandom(t, k_shapes[s].m, k_shapes[s].n, k_shapes[s].da, k_shapes[s].long_row);
      hmat_t B = hrandom(t, k_shapes[s].m, k_shapes[s].n, k_shapes[s].db, -1);
      round_to(t, &A);
      round_to(t, &B);
      kk_crs_t *dA = upload(t, &A, "A"), *dB = upload(t, &B, "B"), *dC = NULL;
      kk_spgemm_handle_t *h = NULL;
      int64_t nnz = -1;
      OK(kk_sparse_spadd_symbolic(NULL, dA, dB, sorted ? KK_SPARSE_SORTED : 0, &h, &nnz));
      OK(kk_sparse_spadd_numeric(NULL, h, KK_COMPLEX(creal(sa), cimag(sa)), dA, KK_REAL(creal(sb)), dB, &dC));
      ck_assert_int_eq(kk_crs_nnz(dC), nnz);
      hmat_t C = download(dC);
      prod_ctx_t ctx = {&A, &B, NULL, 0, sa, sb};
      char what[64];
      snprintf(what, sizeof what, "spadd shape %zu%s (%s)", s, sorted ? " sorted" : "", acc);
      compare(what, t, &C, sorted, add_row, &ctx, 16);
      hfree(&C);
      kk_sparse_spgemm_destroy(h);
      kk_crs_destroy(dC);
      kk_crs_destroy(dA);
      kk_crs_destroy(dB);
      hfree(&A);
      hfree(&B);
    }
}
END_TEST

/* B of more columns than the host's dense accumulator takes (4 Mi + 8;
 * the dense setting then keeps the hash tables), rows of it empty and
 * rows with a few entries; C sorted and not. */
START_TEST(spgemm_wide_b) {
  const char *acc = set_acc(4 * _i);
  hmat_t A = hrandom(KK_DOUBLE, 6, 5, 0.5, -1), B = hrandom(KK_DOUBLE, 5, ((int64_t)1 << 22) + 8, 2e-6, -1);
  kk_crs_t *dA = upload(KK_DOUBLE, &A, "A"), *dB = upload(KK_DOUBLE, &B, "B");
  for (int sorted = 0; sorted < 2; sorted++) {
    kk_crs_t *dC = NULL;
    kk_spgemm_handle_t *h = NULL;
    int64_t nnz = -1;
    OK(kk_sparse_spgemm_symbolic(NULL, dA, dB, sorted ? KK_SPARSE_SORTED : 0, &h, &nnz));
    OK(kk_sparse_spgemm_numeric(NULL, h, dA, dB, &dC));
    ck_assert_int_eq(kk_crs_nnz(dC), nnz);
    hmat_t C = download(dC);
    prod_ctx_t ctx = {&A, &B, NULL, 0, 0, 0};
    char what[64];
    snprintf(what, sizeof what, "spgemm wide B%s (%s)", sorted ? " sorted" : "", acc);
    compare(what, KK_DOUBLE, &C, sorted, prod_row, &ctx, A.nnz);
    hfree(&C);
    kk_sparse_spgemm_destroy(h);
    kk_crs_destroy(dC);
  }
  kk_crs_destroy(dA);
  kk_crs_destroy(dB);
  hfree(&A);
  hfree(&B);
}
END_TEST

/* A KK_SPGEMM_HOST_ACCUMULATOR that is none of hash, dense, auto is
 * refused, with its name, by host backends (and ignored by others); a
 * KK_SPGEMM_ONE_PASS that is none of yes, no, auto by kk_sparse_spgemm; a
 * KK_SPGEMM_BINS that is none of concurrent, sequential by cuda and hip. */
START_TEST(host_accumulator_setting) {
  hmat_t A = hrandom(KK_DOUBLE, 4, 4, 0.5, -1);
  kk_crs_t *dA = upload(KK_DOUBLE, &A, "A");
  kk_spgemm_handle_t *h = NULL;
  setenv("KK_SPGEMM_HOST_ACCUMULATOR", "fastest", 1);
  const kk_status_t st = kk_sparse_spgemm_symbolic(NULL, dA, dA, 0, &h, NULL);
  unsetenv("KK_SPGEMM_HOST_ACCUMULATOR");
  if (is_host_backend()) {
    ck_assert_int_eq(st, KK_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_null(h);
    ck_assert_contains(kk_last_error(), "KK_SPGEMM_HOST_ACCUMULATOR is 'fastest'; it takes hash, dense or auto");
  } else {
    OK(st);
  }
  kk_sparse_spgemm_destroy(h);
  setenv("KK_SPGEMM_HOST_ACCUMULATOR", "auto", 1);
  OK(kk_sparse_spgemm_symbolic(NULL, dA, dA, 0, &h, NULL));
  unsetenv("KK_SPGEMM_HOST_ACCUMULATOR");
  kk_sparse_spgemm_destroy(h);
  /* KK_SPGEMM_ONE_PASS (kk_sparse_spgemm, every backend): yes, no, auto */
  kk_crs_t *dC = NULL;
  setenv("KK_SPGEMM_ONE_PASS", "always", 1);
  ck_assert_int_eq(kk_sparse_spgemm(NULL, dA, dA, 0, &dC), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(dC);
  ck_assert_contains(kk_last_error(), "KK_SPGEMM_ONE_PASS is 'always'; it takes yes, no or auto");
  setenv("KK_SPGEMM_ONE_PASS", "no", 1);
  OK(kk_sparse_spgemm(NULL, dA, dA, 0, &dC));
  unsetenv("KK_SPGEMM_ONE_PASS");
  kk_crs_destroy(dC);
  /* KK_SPGEMM_CACHE (every backend): yes, no */
  dC = NULL;
  setenv("KK_SPGEMM_CACHE", "always", 1);
  ck_assert_int_eq(kk_sparse_spgemm(NULL, dA, dA, 0, &dC), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(dC);
  ck_assert_contains(kk_last_error(), "KK_SPGEMM_CACHE is 'always'; it takes yes or no");
  ck_assert_int_eq(kk_sparse_spgemm_symbolic(NULL, dA, dA, 0, &h, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(h);
  unsetenv("KK_SPGEMM_CACHE");
  /* KK_SPGEMM_BINS (cuda and hip's binned launches; ignored elsewhere):
   * concurrent, sequential */
  const char *be = kk_instance_backend(kk_instance_default());
  const int gpu = be && (strcmp(be, "cuda") == 0 || strcmp(be, "hip") == 0);
  dC = NULL;
  setenv("KK_SPGEMM_BINS", "interleaved", 1);
  const kk_status_t sb = kk_sparse_spgemm_symbolic(NULL, dA, dA, 0, &h, NULL);
  unsetenv("KK_SPGEMM_BINS");
  if (gpu && A.nnz > 0) {
    ck_assert_int_eq(sb, KK_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_null(h);
    ck_assert_contains(kk_last_error(), "KK_SPGEMM_BINS is 'interleaved'; it takes concurrent or sequential");
  } else {
    OK(sb);
  }
  kk_sparse_spgemm_destroy(h);
  h = NULL;
  setenv("KK_SPGEMM_BINS", "sequential", 1);
  OK(kk_sparse_spgemm(NULL, dA, dA, 0, &dC));
  setenv("KK_SPGEMM_BINS", "concurrent", 1);
  kk_crs_destroy(dC);
  dC = NULL;
  OK(kk_sparse_spgemm(NULL, dA, dA, 0, &dC));
  unsetenv("KK_SPGEMM_BINS");
  kk_crs_destroy(dC);
  kk_crs_destroy(dA);
  hfree(&A);
}
END_TEST

/* What the Kokkos Tools callbacks saw during one kk_sparse_spgemm: the
 * allocations and frees of its temporaries (labels "kk_sparse_spgemm.*"
 * but C's, "kk_sparse_spgemm.C.*" and "C.*"), every allocation, fences,
 * copies. */
static struct {
  int tmp_alloc, tmp_free, alloc, fence, copy;
} g_seen;
static int is_tmp(const char *label) {
  return label && strncmp(label, "kk_sparse_spgemm.", 17) == 0 && strncmp(label + 17, "C.", 2) != 0;
}
static void seen_alloc(const struct Kokkos_Profiling_SpaceHandle s, const char *label, const void *p,
                       const uint64_t n) {
  (void)s, (void)p, (void)n;
  g_seen.tmp_alloc += is_tmp(label);
  g_seen.alloc++;
}
static void seen_free(const struct Kokkos_Profiling_SpaceHandle s, const char *label, const void *p,
                      const uint64_t n) {
  (void)s, (void)p, (void)n;
  g_seen.tmp_free += is_tmp(label);
}
static void seen_fence(const char *name, const uint32_t dev, uint64_t *id) {
  (void)name, (void)dev;
  *id = 0;
  g_seen.fence++;
}
static void seen_copy(struct Kokkos_Profiling_SpaceHandle ds, const char *dl, const void *dp,
                      struct Kokkos_Profiling_SpaceHandle ss, const char *sl, const void *sp, uint64_t n) {
  (void)ds, (void)dl, (void)dp, (void)ss, (void)sl, (void)sp, (void)n;
  g_seen.copy++;
}

/* KK_SPGEMM_CACHE=yes: a kk_sparse_spgemm after two of a product no
 * smaller makes and frees no temporaries (its queues and
 * workspace are the earlier call's), allocates only C (offsets, columns,
 * values), and waits on the host no more often than without the setting
 * (on cuda and hip once less: the copy into C is not waited for); both
 * results match the reference.  Counted through the Kokkos Tools
 * callbacks (in one pass, forced, so that every backend takes that path). */
START_TEST(spgemm_cache_reuses) {
  hmat_t A = hrandom(KK_DOUBLE, 300, 300, 0.02, 7);
  kk_crs_t *dA = upload(KK_DOUBLE, &A, "A");
  const char *be = kk_instance_backend(kk_instance_default());
  const int gpu = be && (strcmp(be, "cuda") == 0 || strcmp(be, "hip") == 0);
  setenv("KK_SPGEMM_ONE_PASS", "yes", 1);
  int tmp_alloc[2], tmp_free[2], alloc[2], fence[2], copy[2];
  hmat_t C[2];
  for (int cache = 0; cache < 2; cache++) {
    setenv("KK_SPGEMM_CACHE", cache ? "yes" : "no", 1);
    kk_crs_t *dC0 = NULL, *dC1 = NULL;
    /* the first call makes the workspace for its per-row arrays (its
     * scratch a view of its own), the second one large enough for both */
    OK(kk_sparse_spgemm(NULL, dA, dA, 0, &dC0));
    kk_crs_destroy(dC0);
    dC0 = NULL;
    OK(kk_sparse_spgemm(NULL, dA, dA, 0, &dC0));
    OK(kk_fence());
    struct Kokkos_Profiling_EventSet ev;
    memset(&ev, 0, sizeof ev);
    ev.allocate_data = seen_alloc;
    ev.deallocate_data = seen_free;
    ev.begin_fence = seen_fence;
    ev.begin_deep_copy = seen_copy;
    memset(&g_seen, 0, sizeof g_seen);
    kk_tools_set_callbacks(&ev);
    const kk_status_t st = kk_sparse_spgemm(NULL, dA, dA, 0, &dC1);
    kk_tools_set_callbacks(NULL);
    OK(st);
    tmp_alloc[cache] = g_seen.tmp_alloc;
    tmp_free[cache] = g_seen.tmp_free;
    alloc[cache] = g_seen.alloc;
    fence[cache] = g_seen.fence;
    copy[cache] = g_seen.copy;
    C[cache] = download(dC1);
    hmat_t C0 = download(dC0);
    prod_ctx_t ctx = {&A, &A, NULL, 0, 0, 0};
    compare(cache ? "one call, cached, first" : "one call, first", KK_DOUBLE, &C0, 0, prod_row, &ctx, A.nnz);
    compare(cache ? "one call, cached, second" : "one call, second", KK_DOUBLE, &C[cache], 0, prod_row, &ctx, A.nnz);
    hfree(&C0);
    kk_crs_destroy(dC0);
    kk_crs_destroy(dC1);
  }
  unsetenv("KK_SPGEMM_CACHE");
  unsetenv("KK_SPGEMM_ONE_PASS");
  ck_assert_int_eq(C[0].nnz, C[1].nnz);
  ck_assert_mem_eq(C[0].rp, C[1].rp, sizeof(int64_t) * (size_t)(A.rows + 1));
  /* without the setting: the per-row arrays and the scratch, made and freed */
  ck_assert_int_eq(tmp_alloc[0], 2);
  ck_assert_int_eq(tmp_free[0], 2);
  ck_assert_int_eq(tmp_alloc[1], 0);
  ck_assert_int_eq(tmp_free[1], 0);
  ck_assert_int_eq(alloc[1], alloc[0] - 2);
  ck_assert_int_le(copy[1], copy[0]);
  if (gpu)
    ck_assert_int_lt(fence[1], fence[0]);
  else
    ck_assert_int_le(fence[1], fence[0]);
  hfree(&C[0]);
  hfree(&C[1]);
  kk_crs_destroy(dA);
  hfree(&A);
}
END_TEST

/* Sorts each row of m by column (insertion sort, stable: repeated columns
 * stay, next to each other). */
static void hsort_rows(hmat_t *m) {
  for (int64_t i = 0; i < m->rows; i++)
    for (int64_t p = m->rp[i] + 1; p < m->rp[i + 1]; p++) {
      const int32_t c = m->ci[p];
      const cplx v = m->v[p];
      int64_t q = p;
      for (; q > m->rp[i] && m->ci[q - 1] > c; q--) {
        m->ci[q] = m->ci[q - 1];
        m->v[q] = m->v[q - 1];
      }
      m->ci[q] = c;
      m->v[q] = v;
    }
}

/* Inputs with sorted rows (repeated columns side by side) take the merge:
 * C's rows come sorted without KK_SPARSE_SORTED, repeats added into one
 * entry, and the numeric phase repeats into the same C.  Then A sorted and
 * B not (the hash accumulator): the same sum, in table order. */
START_TEST(spadd_sorted_inputs) {
  const kk_type_t t = k_types[_i];
  for (size_t s = 0; s < NSHAPES; s++)
    for (int bsorted = 1; bsorted >= 0; bsorted--) {
      hmat_t A = hrandom(t, k_shapes[s].m, k_shapes[s].n, k_shapes[s].da, k_shapes[s].long_row);
      hmat_t B = hrandom(t, k_shapes[s].m, k_shapes[s].n, k_shapes[s].db, -1);
      hsort_rows(&A);
      if (bsorted)
        hsort_rows(&B);
      round_to(t, &A);
      round_to(t, &B);
      kk_crs_t *dA = upload(t, &A, "A"), *dB = upload(t, &B, "B"), *dC = NULL;
      kk_spgemm_handle_t *h = NULL;
      int64_t nnz = -1;
      OK(kk_sparse_spadd_symbolic(NULL, dA, dB, 0, &h, &nnz));
      for (int rep = 0; rep < 2; rep++) {
        const cplx sa = rep ? -2.0 : is_cplx(t) ? 0.5 - 0.25 * I : 0.5, sb = rep ? 0.75 : -1.5;
        OK(kk_sparse_spadd_numeric(NULL, h, KK_COMPLEX(creal(sa), cimag(sa)), dA, KK_REAL(creal(sb)), dB, &dC));
        ck_assert_int_eq(kk_crs_nnz(dC), nnz);
        hmat_t C = download(dC);
        prod_ctx_t ctx = {&A, &B, NULL, 0, sa, sb};
        char what[80];
        snprintf(what, sizeof what, "spadd shape %zu, A sorted, B %s, numeric %d", s,
                 bsorted ? "sorted" : "unsorted", rep + 1);
        compare(what, t, &C, bsorted, add_row, &ctx, 16);
        hfree(&C);
      }
      kk_sparse_spgemm_destroy(h);
      kk_crs_destroy(dC);
      kk_crs_destroy(dA);
      kk_crs_destroy(dB);
      hfree(&A);
      hfree(&B);
    }
}
END_TEST

/* y = C x on the backend against C's entries on the host. */
static void check_spmv(const char *what, kk_crs_t *dC) {
  hmat_t C = download(dC);
  const int64_t n = C.cols, m = C.rows;
  double *x = malloc(sizeof(double) * (size_t)(n + 1)), *y = malloc(sizeof(double) * (size_t)(m + 1));
  for (int64_t j = 0; j < n; j++)
    x[j] = rnd();
  kk_view_t *dx = NULL, *dy = NULL;
  OK(kk_view_alloc(&dx, "x", KK_DOUBLE, 1, &n));
  OK(kk_view_alloc(&dy, "y", KK_DOUBLE, 1, &m));
  OK(kk_space_copy(kk_view_space(dx), kk_view_data(dx), NULL, x, sizeof(double) * (size_t)n, NULL));
  OK(kk_sparse_spmv(NULL, KK_OP_N, KK_REAL(1), dC, dx, KK_REAL(0), dy));
  OK(kk_fence());
  OK(kk_space_copy(NULL, y, kk_view_space(dy), kk_view_data(dy), sizeof(double) * (size_t)m, NULL));
  for (int64_t i = 0; i < m; i++) {
    double r = 0, mag = 0;
    for (int64_t p = C.rp[i]; p < C.rp[i + 1]; p++) {
      r += creal(C.v[p]) * x[C.ci[p]];
      mag += fabs(creal(C.v[p]) * x[C.ci[p]]);
    }
    ck_assert_msg(fabs(y[i] - r) <= 1e-13 * (mag + 1e-300) * (double)(C.rp[i + 1] - C.rp[i] + 1),
                  "%s: (C x)(%lld) = %g, the reference %g", what, (long long)i, y[i], r);
  }
  kk_view_release(dx);
  kk_view_release(dy);
  free(x);
  free(y);
  hfree(&C);
}

/* The results of SpAdd (merged and hashed) and SpGEMM as SpMV's input: their
 * row offsets never pass through the host, and their longest row and tiles
 * (the GPU SpMV's choice of the merge path, and its work) are made at the
 * first SpMV.  Checked on the first C, on a second C of the same handle
 * (sharing its offsets) that outlives the handle and the first C, and on a
 * copy made before any SpMV. */
START_TEST(results_in_spmv) {
  const int variant = _i; /* 0: SpAdd merged, 1: SpAdd hashed (A unsorted), 2: SpGEMM */
  hmat_t A = hrandom(KK_DOUBLE, 300, 300, 0.02, 7), B = hrandom(KK_DOUBLE, 300, 300, 0.02, -1);
  hsort_rows(&B);
  if (variant != 1)
    hsort_rows(&A);
  else /* one row certainly out of order */
    A.ci[A.rp[7]] = 299;
  kk_crs_t *dA = upload(KK_DOUBLE, &A, "A"), *dB = upload(KK_DOUBLE, &B, "B"), *C1 = NULL, *C2 = NULL, *C3 = NULL;
  kk_spgemm_handle_t *h = NULL;
  int64_t nnz = -1;
  if (variant < 2) {
    OK(kk_sparse_spadd_symbolic(NULL, dA, dB, 0, &h, &nnz));
    OK(kk_sparse_spadd_numeric(NULL, h, KK_REAL(0.5), dA, KK_REAL(-1.5), dB, &C1));
    OK(kk_sparse_spadd_numeric(NULL, h, KK_REAL(2), dA, KK_REAL(1), dB, &C2));
  } else {
    OK(kk_sparse_spgemm_symbolic(NULL, dA, dB, 0, &h, &nnz));
    OK(kk_sparse_spgemm_numeric(NULL, h, dA, dB, &C1));
    OK(kk_sparse_spgemm_numeric(NULL, h, dA, dB, &C2));
  }
  ck_assert_int_eq(kk_crs_nnz(C1), nnz);
  ck_assert_int_eq(kk_crs_nnz(C2), nnz);
  ck_assert_ptr_ne(C1, C2);
  OK(kk_crs_copy(NULL, C2, &C3));
  kk_sparse_spgemm_destroy(h);
  if (variant == 0) {
    /* the sum's longest row (A's full row 7) is over 16 times its average: the GPU SpMV takes the merge path */
    hmat_t C = download(C1);
    int64_t longest = 0;
    for (int64_t i = 0; i < C.rows; i++)
      longest = C.rp[i + 1] - C.rp[i] > longest ? C.rp[i + 1] - C.rp[i] : longest;
    ck_assert_int_gt(longest, 16 * (C.nnz / C.rows));
    hfree(&C);
  }
  const char *name[] = {"spadd merged", "spadd hashed", "spgemm"};
  char what[64];
  snprintf(what, sizeof what, "%s, first C", name[variant]);
  check_spmv(what, C1);
  kk_crs_destroy(C1);
  snprintf(what, sizeof what, "%s, second C", name[variant]);
  check_spmv(what, C2);
  check_spmv(what, C2);
  snprintf(what, sizeof what, "%s, copy of the second C", name[variant]);
  check_spmv(what, C3);
  kk_crs_destroy(C2);
  kk_crs_destroy(C3);
  kk_crs_destroy(dA);
  kk_crs_destroy(dB);
  hfree(&A);
  hfree(&B);
}
END_TEST

START_TEST(mismatched_shapes_refused) {
  hmat_t A = hrandom(KK_DOUBLE, 4, 5, 0.5, -1), B = hrandom(KK_DOUBLE, 4, 5, 0.5, -1);
  kk_crs_t *dA = upload(KK_DOUBLE, &A, "Am"), *dB = upload(KK_DOUBLE, &B, "Bm"), *dC = NULL;
  kk_spgemm_handle_t *h = (kk_spgemm_handle_t *)0x1;
  ck_assert_int_eq(kk_sparse_spgemm_symbolic(NULL, dA, dB, 0, &h, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(h);
  ck_assert_contains(kk_last_error(), "A 'Am' is 4 x 5 but B 'Bm' is 4 x 5; A B needs A's columns equal to B's rows");
  ck_assert_int_eq(kk_sparse_spgemm(NULL, dA, dB, 0, &dC), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(dC);
  /* SpAdd of the same shapes is fine, of different ones refused */
  OK(kk_sparse_spadd_symbolic(NULL, dA, dB, 0, &h, NULL));
  kk_sparse_spgemm_destroy(h);
  hmat_t B2 = hrandom(KK_DOUBLE, 5, 4, 0.5, -1);
  kk_crs_t *dB2 = upload(KK_DOUBLE, &B2, "B2");
  ck_assert_int_eq(kk_sparse_spadd_symbolic(NULL, dA, dB2, 0, &h, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "a sum needs equal shapes");
  /* a handle used with other matrices, or for the other operation */
  OK(kk_sparse_spgemm_symbolic(NULL, dA, dB2, 0, &h, NULL));
  ck_assert_int_eq(kk_sparse_spgemm_numeric(NULL, h, dB2, dA, &dC), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "are not the matrices of the symbolic phase");
  ck_assert_int_eq(kk_sparse_spadd_numeric(NULL, h, KK_REAL(1), dA, KK_REAL(1), dB2, &dC), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(dC);
  kk_sparse_spgemm_destroy(h);
  /* Jacobi needs A square; a float B with a double A is refused */
  ck_assert_int_eq(kk_sparse_spgemm_symbolic(NULL, dA, dB2, KK_SPGEMM_JACOBI, &h, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "needs A square");
  ck_assert_ptr_null(h);
  kk_crs_t *dF = upload(KK_FLOAT, &B2, "F");
  ck_assert_int_eq(kk_sparse_spgemm_symbolic(NULL, dA, dF, 0, &h, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "expected double");
  ck_assert_int_eq(kk_sparse_spgemm_symbolic(NULL, dA, dB2, 0x40, &h, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "unknown bits");
  ck_assert_int_eq(kk_sparse_spgemm_symbolic(NULL, NULL, dB2, 0, &h, NULL), KK_ERROR_INVALID_ARGUMENT);
  kk_crs_destroy(dF);
  kk_crs_destroy(dB2);
  kk_crs_destroy(dA);
  kk_crs_destroy(dB);
  hfree(&A);
  hfree(&B);
  hfree(&B2);
}
END_TEST

/* ---- graphs ------------------------------------------------------------------------------ */

/* A random symmetric structure of n vertices, about deg neighbours each,
 * some vertices isolated, some with self loops, a few hubs. */
static hmat_t hgraph(int64_t n, int64_t deg) {
  char *adj = calloc((size_t)(n * n) + 1, 1);
  for (int64_t i = 0; i < n; i++) {
    const int64_t d = rndi(6) == 0 ? 0 : i % 97 == 5 ? n / 2 : rndi(2 * deg + 1);
    for (int64_t k = 0; k < d; k++) {
      const int64_t j = rndi(n);
      adj[i * n + j] = adj[j * n + i] = 1;
    }
  }
  hmat_t m = {n, n, 0, calloc((size_t)n + 1, sizeof(int64_t)), NULL, NULL};
  for (int64_t i = 0; i < n * n; i++)
    m.nnz += adj[i];
  m.ci = malloc(sizeof(int32_t) * (size_t)(m.nnz + 1));
  m.v = calloc((size_t)m.nnz + 1, sizeof(cplx));
  int64_t p = 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t j = n - 1; j >= 0; j--) /* unsorted rows */
      if (adj[i * n + j])
        m.ci[p++] = (int32_t)j;
    m.rp[i + 1] = p;
  }
  free(adj);
  return m;
}

/* The structure of m + m^T (m square), as hgraph makes them. */
static hmat_t hsym(const hmat_t *m) {
  const int64_t n = m->rows;
  char *adj = calloc((size_t)(n * n) + 1, 1);
  for (int64_t i = 0; i < n; i++)
    for (int64_t p = m->rp[i]; p < m->rp[i + 1]; p++)
      adj[i * n + m->ci[p]] = adj[m->ci[p] * n + i] = 1;
  hmat_t g = {n, n, 0, calloc((size_t)n + 1, sizeof(int64_t)), NULL, NULL};
  for (int64_t i = 0; i < n * n; i++)
    g.nnz += adj[i];
  g.ci = malloc(sizeof(int32_t) * (size_t)(g.nnz + 1));
  g.v = calloc((size_t)g.nnz + 1, sizeof(cplx));
  int64_t p = 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t j = 0; j < n; j++)
      if (adj[i * n + j])
        g.ci[p++] = (int32_t)j;
    g.rp[i + 1] = p;
  }
  free(adj);
  return g;
}

static int32_t *download_i32(kk_view_t *v, int64_t n) {
  OK(kk_fence());
  ck_assert_int_eq(kk_view_extent(v, 0), n);
  ck_assert_int_eq(kk_view_type(v), KK_INT32);
  int32_t *h = malloc(sizeof(int32_t) * (size_t)(n + 1));
  if (n > 0)
    OK(kk_space_copy(NULL, h, kk_view_space(v), kk_view_data(v), sizeof(int32_t) * (size_t)n, NULL));
  return h;
}

/* 1 when i and j (i != j) are within distance d (1 or 2) */
static int near(const hmat_t *g, int64_t i, int64_t j, int d) {
  for (int64_t p = g->rp[i]; p < g->rp[i + 1]; p++) {
    const int64_t k = g->ci[p];
    if (k == j)
      return 1;
    if (d == 2 && k != i)
      for (int64_t q = g->rp[k]; q < g->rp[k + 1]; q++)
        if (g->ci[q] == j)
          return 1;
  }
  return 0;
}

static const int64_t k_graph_sizes[] = {0, 1, 2, 17, 300};

/* KK_COLOR_EB's coloring as docs/kernels.md defines it (Jones-Plassmann:
 * one priority per vertex, a hash of its number; in each round every
 * uncolored vertex that no uncolored neighbour outranks takes the first
 * color of its 64-color window that no neighbour had at the round's start,
 * or moves its window on), computed here serially. */
static uint32_t jp_hash(uint32_t x) {
  x ^= 0x9e3779b9u;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
static int32_t *jp_reference(const hmat_t *g) {
  const int64_t n = g->rows;
  int32_t *c = calloc((size_t)n + 1, sizeof(int32_t)), *next = calloc((size_t)n + 1, sizeof(int32_t));
  int32_t *base = malloc(sizeof(int32_t) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; i++)
    base[i] = 1;
  for (int64_t left = n; left > 0;) {
    left = 0;
    for (int64_t i = 0; i < n; i++) {
      next[i] = c[i];
      if (c[i])
        continue;
      uint64_t used = 0;
      int wait = 0;
      for (int64_t p = g->rp[i]; p < g->rp[i + 1]; p++) {
        const int64_t j = g->ci[p];
        const uint32_t hj = jp_hash((uint32_t)j), hi = jp_hash((uint32_t)i);
        if (j == i)
          continue;
        if (c[j] == 0)
          wait |= hj > hi || (hj == hi && j > i);
        else if (c[j] >= base[i] && c[j] < base[i] + 64)
          used |= (uint64_t)1 << (c[j] - base[i]);
      }
      if (!wait && used == ~(uint64_t)0)
        base[i] += 64;
      else if (!wait)
        for (int b = 0; b < 64 && !next[i]; b++)
          if (!(used >> b & 1))
            next[i] = base[i] + b;
      left += next[i] == 0;
    }
    memcpy(c, next, sizeof(int32_t) * (size_t)n);
  }
  free(next);
  free(base);
  return c;
}


START_TEST(coloring_is_valid) {
  static const kk_color_algorithm_t algs[] = {KK_COLOR_VB, KK_COLOR_EB, KK_COLOR_D2};
  const kk_color_algorithm_t alg = algs[_i];
  const int d = alg == KK_COLOR_D2 ? 2 : 1;
  for (size_t s = 0; s < sizeof k_graph_sizes / sizeof k_graph_sizes[0]; s++) {
   for (int nonsym = 0; nonsym < 2; nonsym++) {
    const int64_t n = k_graph_sizes[s];
    /* nonsym: a random square matrix whose structure is not symmetric; the
     * coloring is of its symmetric closure (g, checked), the device gets
     * the matrix itself */
    hmat_t m = nonsym ? hrandom(KK_DOUBLE, n, n, 0.05, n > 2 ? 1 : -1) : hgraph(n, 4);
    hmat_t g = nonsym ? hsym(&m) : m;
    kk_crs_t *G = upload(KK_DOUBLE, &m, "G");
    kk_view_t *colors = NULL;
    int32_t nc = -1;
    OK(kk_sparse_color(NULL, G, alg, &colors, &nc));
    int32_t *c = download_i32(colors, n);
    int32_t most = 0;
    int64_t maxdeg = 0;
    for (int64_t i = 0; i < n; i++) {
      ck_assert_msg(c[i] >= 1, "algorithm %d, n %lld: vertex %lld uncolored", (int)alg, (long long)n, (long long)i);
      most = c[i] > most ? c[i] : most;
      maxdeg = g.rp[i + 1] - g.rp[i] > maxdeg ? g.rp[i + 1] - g.rp[i] : maxdeg;
      for (int64_t j = 0; j < n; j++)
        if (j != i && c[j] == c[i])
          ck_assert_msg(!near(&g, i, j, d), "algorithm %d, n %lld: vertices %lld and %lld (distance <= %d) share "
                        "color %d", (int)alg, (long long)n, (long long)i, (long long)j, d, c[i]);
    }
    ck_assert_int_eq(nc, most);
    if (alg == KK_COLOR_EB) { /* the same coloring on every backend: the one the structure defines */
      int32_t *ref = jp_reference(&g);
      for (int64_t i = 0; i < n; i++)
        ck_assert_msg(c[i] == ref[i], "KK_COLOR_EB, n %lld%s: vertex %lld has color %d, Jones-Plassmann's %d",
                      (long long)n, nonsym ? " (not symmetric)" : "", (long long)i, c[i], ref[i]);
      free(ref);
    }
    if (d == 1) /* greedy from the smallest free color: at most the largest degree + 1 */
      ck_assert_int_le(nc, maxdeg + 1);
    free(c);
    kk_view_release(colors);
    kk_crs_destroy(G);
    if (nonsym)
      hfree(&m);
    hfree(&g);
   }
  }
}
END_TEST

START_TEST(mis2_is_valid) {
  for (size_t s = 0; s < sizeof k_graph_sizes / sizeof k_graph_sizes[0]; s++) {
   for (int nonsym = 0; nonsym < 2; nonsym++) {
    const int64_t n = k_graph_sizes[s];
    hmat_t m = nonsym ? hrandom(KK_DOUBLE, n, n, 0.03, n > 2 ? 1 : -1) : hgraph(n, 3);
    hmat_t g = nonsym ? hsym(&m) : m;
    kk_crs_t *G = upload(KK_DOUBLE, &m, "G");
    kk_view_t *set = NULL;
    int64_t k = -1;
    OK(kk_sparse_mis2(NULL, G, &set, &k));
    int32_t *ms = download_i32(set, k);
    char *in = calloc((size_t)n + 1, 1);
    for (int64_t a = 0; a < k; a++) {
      ck_assert(ms[a] >= 0 && ms[a] < n);
      if (a > 0)
        ck_assert_msg(ms[a - 1] < ms[a], "the set is not in increasing order");
      in[ms[a]] = 1;
    }
    for (int64_t i = 0; i < n; i++) {
      int covered = in[i];
      for (int64_t j = 0; j < n; j++)
        if (j != i && in[j] && near(&g, i, j, 2)) {
          ck_assert_msg(!in[i], "n %lld: %lld and %lld are both in the set within distance 2", (long long)n,
                        (long long)i, (long long)j);
          covered = 1;
        }
      ck_assert_msg(covered, "n %lld: vertex %lld could join the set (not maximal)", (long long)n, (long long)i);
    }
    /* aggregation: every vertex in an aggregate 0 .. k - 1, whose root is within distance 2 */
    kk_view_t *labels = NULL;
    int64_t na = -1;
    OK(kk_sparse_mis2_aggregate(NULL, G, &labels, &na));
    ck_assert_int_eq(na, k); /* the same set: the algorithm depends only on the structure */
    int32_t *l = download_i32(labels, n);
    for (int64_t i = 0; i < n; i++) {
      ck_assert_msg(l[i] >= 0 && l[i] < na, "vertex %lld has aggregate %d of %lld", (long long)i, l[i], (long long)na);
      ck_assert_msg(ms[l[i]] == i || near(&g, i, ms[l[i]], 2), "vertex %lld is far from its root %d", (long long)i,
                    ms[l[i]]);
    }
    free(l);
    kk_view_release(labels);
    free(in);
    free(ms);
    kk_view_release(set);
    kk_crs_destroy(G);
    if (nonsym)
      hfree(&m);
    hfree(&g);
   }
  }
}
END_TEST

/* ---- Gauss-Seidel ------------------------------------------------------------------------ */

/* The 2-D 5-point Laplacian on an n x n grid, rows in a scrambled column order. */
static hmat_t laplace2d(int64_t n) {
  const int64_t N = n * n;
  hmat_t m = {N, N, 0, calloc((size_t)N + 1, sizeof(int64_t)), malloc(sizeof(int32_t) * (size_t)(5 * N + 1)),
              malloc(sizeof(cplx) * (size_t)(5 * N + 1))};
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      const int64_t r = i * n + j;
      const int64_t nb[4][2] = {{i, j + 1}, {i + 1, j}, {i - 1, j}, {i, j - 1}};
      for (int k = 0; k < 4; k++)
        if (nb[k][0] >= 0 && nb[k][0] < n && nb[k][1] >= 0 && nb[k][1] < n) {
          m.ci[m.nnz] = (int32_t)(nb[k][0] * n + nb[k][1]);
          m.v[m.nnz++] = -1.0;
        }
      m.ci[m.nnz] = (int32_t)r;
      m.v[m.nnz++] = 4.0;
      m.rp[r + 1] = m.nnz;
    }
  return m;
}

static double resid(kk_type_t t, const hmat_t *A, const void *x, const void *b) {
  double s = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    cplx r = from_type(t, b, i);
    for (int64_t p = A->rp[i]; p < A->rp[i + 1]; p++)
      r -= A->v[p] * from_type(t, x, A->ci[p]);
    s += cabs(r) * cabs(r);
  }
  return sqrt(s);
}

START_TEST(gs_reduces_residual) {
  const kk_type_t t = k_types[(_i / 2) % 4];
  const kk_gs_algorithm_t alg = _i % 2 ? KK_GS_TWO_STAGE : KK_GS_MULTICOLOR;
  const int64_t g = 12, n = g * g;
  hmat_t A = laplace2d(g);
  if (_i >= 8) {
    /* a structure that is not symmetric: some entries below the diagonal dropped (still diagonally dominant) */
    int64_t q = 0;
    for (int64_t i = 0, p0 = 0; i < n; i++) {
      const int64_t p1 = A.rp[i + 1];
      for (int64_t p = p0; p < p1; p++)
        if (!(A.ci[p] < i && (i + A.ci[p]) % 3 == 0)) {
          A.ci[q] = A.ci[p];
          A.v[q++] = A.v[p];
        }
      p0 = p1;
      A.rp[i + 1] = q;
    }
    A.nnz = q;
  }
  kk_crs_t *dA = upload(t, &A, "L");
  cplx *hb = malloc(sizeof(cplx) * (size_t)n);
  for (int64_t i = 0; i < n; i++)
    hb[i] = is_cplx(t) ? rnd() + I * rnd() : rnd();
  void *b = malloc(esize(t) * (size_t)n), *x = calloc((size_t)n, esize(t));
  to_type(t, hb, n, b);
  kk_view_t *db = NULL, *dx = NULL;
  OK(kk_view_alloc(&db, "b", t, 1, &n));
  OK(kk_view_alloc(&dx, "x", t, 1, &n));
  OK(kk_space_copy(kk_view_space(db), kk_view_data(db), NULL, b, esize(t) * (size_t)n, NULL));
  kk_gs_options_t opt = KK_GS_OPTIONS_INIT;
  opt.algorithm = alg;
  kk_gs_handle_t *h = NULL;
  OK(kk_sparse_gs_create(NULL, dA, &opt, &h));
  if (alg == KK_GS_MULTICOLOR)
    ck_assert_int_ge(kk_sparse_gs_colors(h), 2); /* a Laplacian has neighbours */
  const double r0 = resid(t, &A, x, b);
  static const kk_gs_direction_t dirs[] = {KK_GS_FORWARD, KK_GS_BACKWARD, KK_GS_SYMMETRIC};
  double prev = r0;
  for (int d = 0; d < 3; d++) {
    OK(kk_sparse_gs_apply(NULL, h, dx, db, 5, dirs[d]));
    OK(kk_fence());
    OK(kk_space_copy(NULL, x, kk_view_space(dx), kk_view_data(dx), esize(t) * (size_t)n, NULL));
    const double r = resid(t, &A, x, b);
    ck_assert_msg(r < 0.9 * prev, "%s, algorithm %d, direction %d: residual %g after %g", kk_type_name(t), (int)alg,
                  d, r, prev);
    prev = r;
  }
  ck_assert_msg(prev < 0.5 * r0, "residual %g of %g", prev, r0);
  /* zero sweeps change nothing; bad arguments are refused */
  OK(kk_sparse_gs_apply(NULL, h, dx, db, 0, KK_GS_FORWARD));
  ck_assert_int_eq(kk_sparse_gs_apply(NULL, h, dx, db, -1, KK_GS_FORWARD), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_sparse_gs_apply(NULL, h, dx, db, 1, (kk_gs_direction_t)7), KK_ERROR_INVALID_ARGUMENT);
  kk_view_t *short_x = NULL;
  const int64_t n1 = n - 1;
  OK(kk_view_alloc(&short_x, "short", t, 1, &n1));
  ck_assert_int_eq(kk_sparse_gs_apply(NULL, h, short_x, db, 1, KK_GS_FORWARD), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "expected 144 (the rows of A)");
  kk_view_release(short_x);
  /* the numeric phase again with scaled values: still a solver */
  OK(kk_sparse_gs_numeric(NULL, h, dA));
  kk_sparse_gs_destroy(h);
  kk_view_release(db);
  kk_view_release(dx);
  kk_crs_destroy(dA);
  free(b);
  free(x);
  free(hb);
  hfree(&A);
}
END_TEST

START_TEST(gs_needs_diagonal) {
  const int64_t rp[] = {0, 1, 2}, ci[] = {1, 0};
  const double v[] = {1, 1};
  kk_crs_t *A = NULL;
  OK(kk_crs_create_csr(NULL, "offdiag", KK_DOUBLE, 2, 2, KK_INT64, rp, KK_INT64, ci, v, &A));
  kk_gs_handle_t *h = (kk_gs_handle_t *)0x1;
  ck_assert_int_eq(kk_sparse_gs_create(NULL, A, NULL, &h), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(h);
  ck_assert_contains(kk_last_error(), "2 row(s) of A 'offdiag' have none");
  kk_gs_options_t opt = KK_GS_OPTIONS_INIT;
  opt.omega = 2.5;
  ck_assert_int_eq(kk_sparse_gs_create(NULL, A, &opt, &h), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "omega 2.5 is outside (0, 2)");
  kk_crs_destroy(A);
}
END_TEST

/* A test case of the suite, its tests checked one by one with a fresh kk
 * (setup, teardown).  TAGS "half" puts it in the half of the cases that
 * CI's valgrind step runs beside the others (tests/check-halves.sh): half
 * of SpGEMM's reference passes and SpAdd's against the other half and
 * everything else, about as long under memcheck. */
static TCase *ops_case(Suite *s, const char *name, const char *tags) {
  TCase *tc = tcase_create(name);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 900);
  if (tags)
    tcase_set_tags(tc, tags);
  suite_add_tcase(s, tc);
  return tc;
}

static Suite *ops_suite(void) {
  Suite *s = suite_create(g_backend);
  /* under valgrind the two forced accumulators only (the automatic
   * choice is one of them): memcheck runs each path once */
  const int nacc = is_host_backend() ? 3 : 1, acc0 = is_host_backend() && g_small ? 1 : 0;
  /* SpGEMM against the reference, the longest by far, in two cases of
   * half its passes each (the same passes as one loop) */
  const int mid = (4 * acc0 + 4 * nacc) / 2;
  TCase *tc = ops_case(s, "spgemm", "half");
  tcase_add_loop_test(tc, spgemm_against_reference, 4 * acc0, mid);
  tc = ops_case(s, "spgemm_2", NULL);
  tcase_add_loop_test(tc, spgemm_against_reference, mid, 4 * nacc);
  tc = ops_case(s, "spgemm_jacobi", NULL);
  tcase_add_loop_test(tc, spgemm_jacobi, 4 * acc0, 4 * nacc);
  tc = ops_case(s, "spadd", "half");
  tcase_add_loop_test(tc, spadd_against_reference, 4 * acc0, 4 * nacc);
  tc = ops_case(s, "spgemm_more", NULL);
  tcase_add_loop_test(tc, spgemm_wide_b, acc0, nacc);
  tcase_add_test(tc, host_accumulator_setting);
  tcase_add_loop_test(tc, spadd_sorted_inputs, 0, 4);
  tcase_add_loop_test(tc, results_in_spmv, 0, 3);
  tcase_add_test(tc, mismatched_shapes_refused);
  tc = ops_case(s, "graphs", NULL);
  tcase_add_loop_test(tc, coloring_is_valid, 0, 3);
  tcase_add_test(tc, mis2_is_valid);
  tcase_add_loop_test(tc, gs_reduces_residual, 0, 16);
  tcase_add_test(tc, gs_needs_diagonal);
  /* what KK_SPGEMM_CACHE keeps (CK_RUN_CASE=spgemm_cache runs it alone) */
  tc = ops_case(s, "spgemm_cache", NULL);
  tcase_add_test(tc, spgemm_cache_reuses);
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
  int rc = tu_run(ops_suite());
  free(g_plugin_path);
  return rc;
}
