/* kernels/tests/check_solvers.c -- SpTRSV, ILU(k), the preconditioners and the Krylov solvers of kk-kernels against a plain C reference, on one backend. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/linalg.h>

#include "../../tests/testutil.h"
#include "../solvers_args.h" /* KKK_SFV_NONE_s, _d, _c */

/*
 * Usage: check_solvers BACKEND.  Matrices are random (a fixed seed) CRS
 * matrices of several sizes and densities, with empty rows, duplicate
 * entries and unsorted columns; the reference is dense plain C in double
 * complex.  Triangular solves and ILU factors are compared entry by entry
 * (within a bound of the type's epsilon times the sizes involved), Krylov
 * solves by their true residual.
 */

typedef double complex cplx;

static const char *g_backend = "serial";
static int g_small; /* under valgrind and the sanitizers (tu_small_sizes): smaller sizes */
static char *g_plugin_path;
static const kk_type_t k_types[4] = {KK_FLOAT, KK_DOUBLE, KK_COMPLEX_FLOAT, KK_COMPLEX_DOUBLE};

#define OK(call) ck_assert_msg((call) == KK_OK, "%s failed: %s", #call, kk_last_error())

static void setup(void) {
  tu_clear_env();
  unsetenv("KK_KERNELS_TPL");
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = g_backend;
  s.plugin_path = g_plugin_path;
  s.disable_warnings = 1;
  ck_assert_msg(kk_initialize_with_settings(&s) == KK_OK, "initializing %s: %s", g_backend, kk_last_error());
}

static void teardown(void) { kk_finalize(); }

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static double rnd(void) { /* [-1, 1) */
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (double)(g_rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}
static int is_cplx(kk_type_t t) { return t == KK_COMPLEX_FLOAT || t == KK_COMPLEX_DOUBLE; }
static int is_single(kk_type_t t) { return t == KK_FLOAT || t == KK_COMPLEX_FLOAT; }
static double eps_of(kk_type_t t) { return is_single(t) ? FLT_EPSILON : DBL_EPSILON; }
static size_t esize(kk_type_t t) { return t == KK_FLOAT ? 4 : t == KK_COMPLEX_DOUBLE ? 16 : 8; }
static cplx rndv(kk_type_t t) { return is_cplx(t) ? rnd() + I * rnd() : rnd(); }

static void put(kk_type_t t, void *a, int64_t i, cplx v) {
  switch (t) {
  case KK_FLOAT:
    ((float *)a)[i] = (float)creal(v);
    break;
  case KK_DOUBLE:
    ((double *)a)[i] = creal(v);
    break;
  case KK_COMPLEX_FLOAT:
    ((float *)a)[2 * i] = (float)creal(v), ((float *)a)[2 * i + 1] = (float)cimag(v);
    break;
  default:
    ((double *)a)[2 * i] = creal(v), ((double *)a)[2 * i + 1] = cimag(v);
    break;
  }
}
static cplx get(kk_type_t t, const void *a, int64_t i) {
  switch (t) {
  case KK_FLOAT:
    return ((const float *)a)[i];
  case KK_DOUBLE:
    return ((const double *)a)[i];
  case KK_COMPLEX_FLOAT:
    return ((const float *)a)[2 * i] + I * ((const float *)a)[2 * i + 1];
  default:
    return ((const double *)a)[2 * i] + I * ((const double *)a)[2 * i + 1];
  }
}

/* A CSR matrix on the host, values in double complex (rounded to the type
 * when made). */
typedef struct hcsr {
  int64_t n, m, nnz;
  int64_t *rp;
  int64_t *ci;
  cplx *v;
} hcsr_t;

static void hcsr_free(hcsr_t *h) {
  free(h->rp), free(h->ci), free(h->v);
  memset(h, 0, sizeof *h);
}

/* The values rounded to type t, so that the reference sees what kk sees. */
static void hcsr_round(kk_type_t t, hcsr_t *h) {
  for (int64_t p = 0; p < h->nnz; p++) {
    unsigned char b[16];
    put(t, b, 0, h->v[p]);
    h->v[p] = get(t, b, 0);
  }
}

/* Random n x m: about `per_row` off-diagonal entries a row, every 5th row
 * empty of them when `empty` (and without a diagonal too when diag is 2), a duplicate entry now and then, columns
 * unsorted; a diagonal of magnitude about per_row + 2 (dominant) where
 * `diag`.  Values rounded to type t. */
static hcsr_t random_matrix(kk_type_t t, int64_t n, int64_t m, int per_row, int diag, int empty) {
  hcsr_t h = {n, m, 0, calloc((size_t)n + 1, sizeof(int64_t)), NULL, NULL};
  const int64_t cap = n * (2 * per_row + 3) + 1; /* up to 2 per_row entries, a duplicate, the diagonal */
  h.ci = malloc(sizeof(int64_t) * (size_t)cap);
  h.v = malloc(sizeof(cplx) * (size_t)cap);
  for (int64_t i = 0; i < n; i++) {
    const int k = empty && i % 5 == 2 ? 0 : (int)((rnd() + 1) * per_row);
    for (int q = 0; q < k && m > 0; q++) {
      const int64_t j = (int64_t)((rnd() + 1) * 0.5 * (double)m) % m;
      if (j == i)
        continue;
      /* small enough that no solve with a unit diagonal grows */
      h.ci[h.nnz] = j;
      h.v[h.nnz++] = rndv(t) / (2.0 * per_row + 1);
      if (q == 1) { /* a duplicate of the entry before */
        h.ci[h.nnz] = j;
        h.v[h.nnz++] = rndv(t) / (2.0 * per_row + 1);
      }
    }
    if (diag && i < m && !(diag == 2 && k == 0 && empty && i % 5 == 2)) {
      h.ci[h.nnz] = i;
      h.v[h.nnz++] = (per_row + 2.0) * (rnd() < 0 ? -1 : 1) + rndv(t) * 0.5;
    }
    h.rp[i + 1] = h.nnz;
  }
  hcsr_round(t, &h);
  return h;
}

static kk_crs_t *to_crs(kk_type_t t, const hcsr_t *h, const char *label) {
  void *vals = malloc(esize(t) * (size_t)(h->nnz + 1));
  for (int64_t p = 0; p < h->nnz; p++)
    put(t, vals, p, h->v[p]);
  kk_crs_t *A = NULL;
  OK(kk_crs_create_csr(NULL, label, t, h->n, h->m, KK_INT64, h->rp, KK_INT64, h->ci, vals, &A));
  free(vals);
  return A;
}

/* Dense n x m of the matrix (duplicates summed). */
static cplx *dense(const hcsr_t *h) {
  cplx *d = calloc((size_t)(h->n * h->m + 1), sizeof(cplx));
  for (int64_t i = 0; i < h->n; i++)
    for (int64_t p = h->rp[i]; p < h->rp[i + 1]; p++)
      d[i * h->m + h->ci[p]] += h->v[p];
  return d;
}

/* A vector of n in the default space, from host values (or zeros). */
static kk_view_t *vec(kk_type_t t, int64_t n, const cplx *h) {
  kk_view_t *v = NULL;
  OK(kk_view_alloc(&v, "vec", t, 1, &n));
  if (h && n > 0) {
    void *b = malloc(esize(t) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
      put(t, b, i, h[i]);
    OK(kk_space_copy(kk_view_space(v), kk_view_data(v), NULL, b, esize(t) * (size_t)n, NULL));
    free(b);
  }
  return v;
}
static cplx *fetch(kk_type_t t, kk_view_t *v) {
  const int64_t n = kk_view_extent(v, 0);
  void *b = malloc(esize(t) * (size_t)(n + 1));
  cplx *h = malloc(sizeof(cplx) * (size_t)(n + 1));
  OK(kk_fence());
  if (n > 0)
    OK(kk_space_copy(NULL, b, kk_view_space(v), kk_view_data(v), esize(t) * (size_t)n, NULL));
  for (int64_t i = 0; i < n; i++)
    h[i] = get(t, b, i);
  free(b);
  return h;
}

/* ---- SpTRSV ------------------------------------------------------------------------------------ */

/* x = T^-1 b by dense substitution; T the lower or upper triangle of d,
 * unit diagonal or d's. */
static void ref_trsv(const cplx *d, int64_t n, int lower, int unit, const cplx *b, cplx *x) {
  for (int64_t s = 0; s < n; s++) {
    const int64_t i = lower ? s : n - 1 - s;
    cplx v = b[i];
    for (int64_t j = 0; j < n; j++)
      if (lower ? j < i : j > i)
        v -= d[i * n + j] * x[j];
    x[i] = unit ? v : v / d[i * n + i];
  }
}

START_TEST(sptrsv_against_reference) {
  const int64_t sizes[] = {0, 1, 2, 9, 60, 300};
  const int nsizes = g_small ? 5 : 6;
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t t = k_types[ti];
    for (int si = 0; si < nsizes; si++) {
      const int64_t n = sizes[si];
      for (int shape = 0; shape < 3; shape++) {
        /* shape 0: sparse with empty rows; 1: denser; 2: a banded chain (one level per row) */
        hcsr_t h;
        if (shape < 2) {
          h = random_matrix(t, n, n, shape ? 8 : 2, shape ? 1 : 2, shape == 0);
        } else {
          h = (hcsr_t){n, n, 0, calloc((size_t)n + 1, sizeof(int64_t)), malloc(sizeof(int64_t) * 3 * (size_t)(n + 1)),
                       malloc(sizeof(cplx) * 3 * (size_t)(n + 1))};
          for (int64_t i = 0; i < n; i++) {
            for (int64_t j = i - 1; j <= i + 1; j++)
              if (j >= 0 && j < n) {
                h.ci[h.nnz] = j;
                h.v[h.nnz++] = j == i ? 4.0 : -1.0;
              }
            h.rp[i + 1] = h.nnz;
          }
        }
        kk_crs_t *A = to_crs(t, &h, "T");
        cplx *d = dense(&h);
        cplx *b = malloc(sizeof(cplx) * (size_t)(n + 1)), *xr = malloc(sizeof(cplx) * (size_t)(n + 1));
        for (int64_t i = 0; i < n; i++)
          b[i] = rndv(t);
        for (int lower = 0; lower < 2; lower++)
          for (int unit = 0; unit < 2; unit++) {
            kk_sptrsv_t *S = NULL;
            if (shape == 0 && !unit && n > 2) { /* row 2 is empty: no diagonal to divide by */
              ck_assert_int_eq(kk_sptrsv_symbolic(A, lower ? KK_LOWER : KK_UPPER, KK_DIAG_NONUNIT, &S),
                               KK_ERROR_INVALID_ARGUMENT);
              ck_assert_contains(kk_last_error(), "row 2 has a zero or no diagonal");
              continue;
            }
            OK(kk_sptrsv_symbolic(A, lower ? KK_LOWER : KK_UPPER, unit ? KK_DIAG_UNIT : KK_DIAG_NONUNIT, &S));
            if (shape == 2 && n > 0)
              ck_assert_int_eq(kk_sptrsv_levels(S), n);
            ck_assert_int_le(kk_sptrsv_levels(S), n);
            ref_trsv(d, n, lower, unit, b, xr);
            kk_view_t *vb = vec(t, n, b), *vx = vec(t, n, NULL);
            for (int inplace = 0; inplace < 2; inplace++) {
              OK(kk_sptrsv_solve(NULL, S, vb, inplace ? vb : vx));
              cplx *x = fetch(t, inplace ? vb : vx);
              double scale = 1;
              for (int64_t i = 0; i < n; i++)
                scale = fmax(scale, cabs(xr[i]));
              for (int64_t i = 0; i < n; i++)
                ck_assert_msg(cabs(x[i] - xr[i]) <= 1e3 * (double)n * eps_of(t) * scale,
                              "%s n %lld shape %d lower %d unit %d inplace %d: x[%lld] = %g%+gi, want %g%+gi",
                              kk_type_name(t), (long long)n, shape, lower, unit, inplace, (long long)i, creal(x[i]),
                              cimag(x[i]), creal(xr[i]), cimag(xr[i]));
              free(x);
            }
            kk_view_release(vb);
            kk_view_release(vx);
            kk_sptrsv_destroy(S);
          }
        free(b), free(xr), free(d);
        kk_crs_destroy(A);
        hcsr_free(&h);
      }
    }
  }
}
END_TEST

/* x = T^-1 b by sparse substitution over h (duplicates summed as they come). */
static void ref_trsv_sparse(const hcsr_t *h, int lower, int unit, const cplx *b, cplx *x) {
  for (int64_t s = 0; s < h->n; s++) {
    const int64_t i = lower ? s : h->n - 1 - s;
    cplx v = b[i], d = 0;
    for (int64_t p = h->rp[i]; p < h->rp[i + 1]; p++) {
      const int64_t j = h->ci[p];
      if (lower ? j < i : j > i)
        v -= h->v[p] * x[j];
      else if (j == i)
        d += h->v[p];
    }
    x[i] = unit ? v : v / d;
  }
}

/* Both algorithms on matrices made to stress them: a chain (every row
 * depends on the one before: as many levels as rows, each a row; every
 * 64th row slow to solve, so that the next row, often another team's,
 * reads it while it is being solved unless it waits), rows far
 * longer than a warp (every 97th row reads every row on its side of the
 * diagonal: a long row waits on many flags) amid short random ones, and a
 * random matrix of a few dozen levels; each solve repeated with b times
 * 1, 2, 3 (the sync-free flags or words of one solve must not pass for
 * the next's) and in place. */
START_TEST(sptrsv_algorithms) {
  const int64_t n = g_small ? 700 : 3000;
  for (int shape = 0; shape < 3; shape++)
    for (int ti = 0; ti < 4; ti++) {
      const kk_type_t t = k_types[ti];
      hcsr_t h;
      if (shape == 2) {
        h = random_matrix(t, n, n, 4, 1, 0);
      } else {
        const int64_t heavy = 20000; /* zeros a slow row of the chain carries, on each side */
        int64_t cap = 3 * n + 1 + (n / 64 + 1) * 2 * heavy;
        if (shape == 1)
          cap += (n / 97 + 1) * n + 8 * n;
        h = (hcsr_t){n, n, 0, calloc((size_t)n + 1, sizeof(int64_t)), malloc(sizeof(int64_t) * (size_t)cap),
                     malloc(sizeof(cplx) * (size_t)cap)};
        for (int64_t i = 0; i < n; i++) {
          if (shape == 0) {
            for (int64_t j = i - 1; j <= i + 1; j++)
              if (j >= 0 && j < n) {
                h.ci[h.nnz] = j;
                h.v[h.nnz++] = j == i ? 4.0 + rndv(t) * 0.5 : -1.0 + rndv(t) * 0.25;
              }
            /* every 64th row slow (zeros on both sides, which change nothing): the rows after it,
             * another team's or thread's under most partitions, must wait for it */
            if (i % 64 == 63 && i + 1 < n)
              for (int64_t q = 0; q < 2 * heavy; q++) {
                h.ci[h.nnz] = q % 2 ? i + 1 : i - 1;
                h.v[h.nnz++] = 0.0;
              }
          } else if (i % 97 == 5) {
            for (int64_t j = 0; j < n; j++) {
              h.ci[h.nnz] = j;
              h.v[h.nnz++] = j == i ? 3.0 : rndv(t) / (double)n;
            }
          } else {
            for (int q = 0; q < 4; q++) {
              h.ci[h.nnz] = (int64_t)((rnd() + 1) * 0.5 * (double)n) % n;
              h.v[h.nnz] = h.ci[h.nnz] == i ? 0.0 : rndv(t) / 9.0;
              h.nnz++;
            }
            h.ci[h.nnz] = i;
            h.v[h.nnz++] = 2.0 + rndv(t) * 0.25;
          }
          h.rp[i + 1] = h.nnz;
        }
        hcsr_round(t, &h);
      }
      kk_crs_t *A = to_crs(t, &h, "T");
      cplx *b = malloc(sizeof(cplx) * (size_t)n), *xr = malloc(sizeof(cplx) * (size_t)n),
           *bk = malloc(sizeof(cplx) * (size_t)n);
      for (int64_t i = 0; i < n; i++)
        b[i] = rndv(t);
      for (int lower = 0; lower < 2; lower++)
        for (int unit = 0; unit < 2; unit++) {
          if (shape == 0 && unit)
            continue; /* a unit chain's x grows as 1, 2, 3, ... times b */
          ref_trsv_sparse(&h, lower, unit, b, xr);
          double scale = 1;
          for (int64_t i = 0; i < n; i++)
            scale = fmax(scale, cabs(xr[i]));
          kk_sptrsv_t *S = NULL;
          OK(kk_sptrsv_symbolic(A, lower ? KK_LOWER : KK_UPPER, unit ? KK_DIAG_UNIT : KK_DIAG_NONUNIT, &S));
          if (shape == 0)
            ck_assert_int_eq(kk_sptrsv_levels(S), n);
          for (int algo = KK_SPTRSV_LEVELS; algo <= KK_SPTRSV_SYNCFREE; algo++) {
            OK(kk_sptrsv_set_algorithm(S, (kk_sptrsv_algo_t)algo));
            ck_assert_int_eq(kk_sptrsv_algorithm(S), algo);
            for (int rep = 0; rep < 3; rep++) {
              const int inplace = rep == 2;
              for (int64_t i = 0; i < n; i++)
                bk[i] = b[i] * (rep + 1);
              kk_view_t *vb = vec(t, n, bk), *vx = vec(t, n, NULL);
              OK(kk_sptrsv_solve(NULL, S, vb, inplace ? vb : vx));
              cplx *x = fetch(t, inplace ? vb : vx);
              for (int64_t i = 0; i < n; i++)
                ck_assert_msg(cabs(x[i] - xr[i] * (rep + 1)) <= 1e2 * sqrt((double)n) * eps_of(t) * scale * (rep + 1),
                              "%s shape %d lower %d unit %d algo %d rep %d: x[%lld] = %g%+gi, want %g%+gi",
                              kk_type_name(t), shape, lower, unit, algo, rep, (long long)i, creal(x[i]),
                              cimag(x[i]), creal(xr[i]) * (rep + 1), cimag(xr[i]) * (rep + 1));
              free(x);
              kk_view_release(vb);
              kk_view_release(vx);
            }
          }
          kk_sptrsv_destroy(S);
        }
      free(b), free(xr), free(bk);
      kk_crs_destroy(A);
      hcsr_free(&h);
    }
}
END_TEST

/* Sets variable `name` back to `keep` (a copy of its value the test
 * saved, freed here; NULL: it was unset). */
static void env_restore(const char *name, char *keep) {
  if (keep)
    setenv(name, keep, 1);
  else
    unsetenv(name);
  free(keep);
}

/* The sync-free solve's mappings (KK_SPTRSV_SYNCFREE, read once per
 * handle): a matrix holding both triangles with sorted columns (a 9-point
 * grid: the solve reads only its triangle's part of each row), whose
 * levels grow from one row to g and shrink back (padded to whole teams on
 * the device backends), solved by every mapping (float and double publish
 * x in words of their own unless KK_SPTRSV_SYNCFREE=flag), twice each, half of them
 * with polls that pause (KK_SPTRSV_SYNCFREE_NAP), two with the diagonal
 * summed with the row (KK_SPTRSV_SYNCFREE_DIAG=sum) instead of loaded
 * beside the strict triangle; a value of any of the three variables that
 * names none is refused, naming the variable, and x keeps its values. */
START_TEST(sptrsv_syncfree_mappings) {
  const int64_t g = g_small ? 12 : 28, n = g * g;
  const kk_type_t types[2] = {KK_DOUBLE, KK_COMPLEX_FLOAT};
  static const char *const modes[] = {NULL, "auto", "warp", "2", "4", "8", "16", "32", "flag"};
  const char *saved = getenv("KK_SPTRSV_SYNCFREE");
  char *keep = saved ? strdup(saved) : NULL;
  const char *saved_nap = getenv("KK_SPTRSV_SYNCFREE_NAP");
  char *keep_nap = saved_nap ? strdup(saved_nap) : NULL;
  const char *saved_diag = getenv("KK_SPTRSV_SYNCFREE_DIAG");
  char *keep_diag = saved_diag ? strdup(saved_diag) : NULL;
  /* kk's own kernels: where cuSPARSE is loaded it would take these solves */
  const char *saved_cusparse = getenv("KK_KERNELS_CUSPARSE");
  OK(kk_kernels_set_tpl("cusparse", "off"));
  for (int ti = 0; ti < 2; ti++) {
    const kk_type_t t = types[ti];
    hcsr_t h = {n, n, 0, calloc((size_t)n + 1, sizeof(int64_t)), malloc(sizeof(int64_t) * (size_t)(9 * n)),
                malloc(sizeof(cplx) * (size_t)(9 * n))};
    for (int64_t r = 0; r < g; r++)
      for (int64_t q = 0; q < g; q++) {
        const int64_t i = r * g + q;
        for (int64_t dr = -1; dr <= 1; dr++)
          for (int64_t dq = -1; dq <= 1; dq++)
            if (r + dr >= 0 && r + dr < g && q + dq >= 0 && q + dq < g) {
              h.ci[h.nnz] = (r + dr) * g + q + dq;
              h.v[h.nnz++] = dr || dq ? rndv(t) / 9.0 : 3.0 + rndv(t) * 0.5;
            }
        h.rp[i + 1] = h.nnz;
      }
    hcsr_round(t, &h);
    kk_crs_t *A = to_crs(t, &h, "grid");
    cplx *b = malloc(sizeof(cplx) * (size_t)n), *xr = malloc(sizeof(cplx) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
      b[i] = rndv(t);
    for (int lower = 0; lower < 2; lower++)
      for (int unit = 0; unit < 2; unit++) {
        ref_trsv_sparse(&h, lower, unit, b, xr);
        double scale = 1;
        for (int64_t i = 0; i < n; i++)
          scale = fmax(scale, cabs(xr[i]));
        for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
          if (modes[m])
            setenv("KK_SPTRSV_SYNCFREE", modes[m], 1);
          else
            unsetenv("KK_SPTRSV_SYNCFREE");
          if (m % 2) /* polls that pause (CUDA) */
            setenv("KK_SPTRSV_SYNCFREE_NAP", m == 7 ? "1" : "200", 1);
          else
            unsetenv("KK_SPTRSV_SYNCFREE_NAP");
          if (m == 1 || m == 8) /* the diagonal summed with the row, as unsorted rows do */
            setenv("KK_SPTRSV_SYNCFREE_DIAG", "sum", 1);
          else if (m == 4)
            setenv("KK_SPTRSV_SYNCFREE_DIAG", "load", 1);
          else
            unsetenv("KK_SPTRSV_SYNCFREE_DIAG");
          kk_sptrsv_t *S = NULL;
          OK(kk_sptrsv_symbolic(A, lower ? KK_LOWER : KK_UPPER, unit ? KK_DIAG_UNIT : KK_DIAG_NONUNIT, &S));
          ck_assert_int_eq(kk_sptrsv_levels(S), 3 * (g - 1) + 1);
          OK(kk_sptrsv_set_algorithm(S, KK_SPTRSV_SYNCFREE));
          for (int rep = 0; rep < 2; rep++) {
            kk_view_t *vb = vec(t, n, b), *vx = vec(t, n, NULL);
            OK(kk_sptrsv_solve(NULL, S, vb, vx));
            cplx *x = fetch(t, vx);
            for (int64_t i = 0; i < n; i++)
              ck_assert_msg(cabs(x[i] - xr[i]) <= 1e2 * sqrt((double)n) * eps_of(t) * scale,
                            "%s lower %d unit %d KK_SPTRSV_SYNCFREE=%s (nap %d, diag %s) rep %d: x[%lld] = "
                            "%g%+gi, want %g%+gi",
                            kk_type_name(t), lower, unit, modes[m] ? modes[m] : "(unset)", (int)(m % 2),
                            m == 1 || m == 8 ? "sum" : "load", rep,
                            (long long)i,
                            creal(x[i]), cimag(x[i]), creal(xr[i]), cimag(xr[i]));
            free(x);
            kk_view_release(vb);
            kk_view_release(vx);
          }
          kk_sptrsv_destroy(S);
        }
      }
    /* refused: the variable is read by a handle's first sync-free solve */
    static const char *const bad[] = {"3", "64", "warpx", "16 ", "-1", "2000000", "10ns", "loads", "Sum"};
    unsetenv("KK_SPTRSV_SYNCFREE_DIAG");
    for (int k = 0; k < 9; k++) {
      if (k < 4) { /* mappings, then pauses, then the diagonal's form */
        setenv("KK_SPTRSV_SYNCFREE", bad[k], 1);
        unsetenv("KK_SPTRSV_SYNCFREE_NAP");
      } else if (k < 7) {
        unsetenv("KK_SPTRSV_SYNCFREE");
        setenv("KK_SPTRSV_SYNCFREE_NAP", bad[k], 1);
      } else {
        unsetenv("KK_SPTRSV_SYNCFREE_NAP");
        setenv("KK_SPTRSV_SYNCFREE_DIAG", bad[k], 1);
      }
      kk_sptrsv_t *S = NULL;
      OK(kk_sptrsv_symbolic(A, KK_LOWER, KK_DIAG_NONUNIT, &S));
      OK(kk_sptrsv_set_algorithm(S, KK_SPTRSV_SYNCFREE));
      const cplx sev[1] = {7};
      cplx *sv = malloc(sizeof(cplx) * (size_t)n);
      for (int64_t i = 0; i < n; i++)
        sv[i] = sev[0];
      kk_view_t *vb = vec(t, n, b), *vx = vec(t, n, sv);
      ck_assert_int_eq(kk_sptrsv_solve(NULL, S, vb, vx), KK_ERROR_INVALID_ARGUMENT);
      ck_assert_contains(kk_last_error(), k < 4   ? "KK_SPTRSV_SYNCFREE="
                                          : k < 7 ? "KK_SPTRSV_SYNCFREE_NAP="
                                                  : "KK_SPTRSV_SYNCFREE_DIAG=");
      cplx *x = fetch(t, vx);
      for (int64_t i = 0; i < n; i++)
        ck_assert(x[i] == 7);
      free(x), free(sv);
      kk_view_release(vb);
      kk_view_release(vx);
      kk_sptrsv_destroy(S);
    }
    free(b), free(xr);
    kk_crs_destroy(A);
    hcsr_free(&h);
  }
  OK(kk_kernels_set_tpl("cusparse", saved_cusparse && *saved_cusparse ? saved_cusparse : "auto"));
  env_restore("KK_SPTRSV_SYNCFREE", keep);
  env_restore("KK_SPTRSV_SYNCFREE_NAP", keep_nap);
  env_restore("KK_SPTRSV_SYNCFREE_DIAG", keep_diag);
}
END_TEST

/* The sync-free solve of float, double and complex float publishes each
 * row's x in a word that reads a signalling NaN (KKK_SFV_NONE) until the
 * row is solved: a b holding that NaN's very bits must not stall the rows
 * that depend on it (they come out NaN, the arithmetic quieting it, or
 * the publication where arithmetic would not) nor the others (they come
 * out right).  Chains of 50 rows (x(i) = (b(i) - x(i - 1)) / 2), the
 * first starting at the NaN; three solves with one handle (the words of
 * one solve are reset by the one before it), with the words and with
 * flags. */
START_TEST(sptrsv_syncfree_nan) {
  const int64_t n = 200, chain = 50;
  const char *saved = getenv("KK_SPTRSV_SYNCFREE");
  char *keep = saved ? strdup(saved) : NULL;
  const char *saved_cusparse = getenv("KK_KERNELS_CUSPARSE");
  OK(kk_kernels_set_tpl("cusparse", "off"));
  hcsr_t h = {n, n, 0, calloc((size_t)n + 1, sizeof(int64_t)), malloc(sizeof(int64_t) * (size_t)(2 * n)),
              malloc(sizeof(cplx) * (size_t)(2 * n))};
  for (int64_t i = 0; i < n; i++) {
    if (i % chain) {
      h.ci[h.nnz] = i - 1;
      h.v[h.nnz++] = 1.0;
    }
    h.ci[h.nnz] = i;
    h.v[h.nnz++] = 2.0;
    h.rp[i + 1] = h.nnz;
  }
  static const kk_type_t types[3] = {KK_FLOAT, KK_DOUBLE, KK_COMPLEX_FLOAT};
  for (int ti = 0; ti < 3; ti++) {
    const kk_type_t t = types[ti];
    kk_crs_t *A = to_crs(t, &h, "chains");
    /* b: ones, b(0) the bits of NONE */
    void *hb = malloc(esize(t) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
      put(t, hb, i, 1.0);
    const int32_t none_s = KKK_SFV_NONE_s;
    const int64_t none_d = KKK_SFV_NONE_d, none_c = KKK_SFV_NONE_c;
    memcpy(hb, ti == 0 ? (const void *)&none_s : ti == 1 ? (const void *)&none_d : (const void *)&none_c, esize(t));
    kk_view_t *vb = vec(t, n, NULL);
    OK(kk_space_copy(kk_view_space(vb), kk_view_data(vb), NULL, hb, esize(t) * (size_t)n, NULL));
    for (int m = 0; m < 2; m++) {
      if (m)
        setenv("KK_SPTRSV_SYNCFREE", "flag", 1);
      else
        unsetenv("KK_SPTRSV_SYNCFREE");
      kk_sptrsv_t *S = NULL;
      OK(kk_sptrsv_symbolic(A, KK_LOWER, KK_DIAG_NONUNIT, &S));
      ck_assert_int_eq(kk_sptrsv_levels(S), chain);
      OK(kk_sptrsv_set_algorithm(S, KK_SPTRSV_SYNCFREE));
      for (int rep = 0; rep < 3; rep++) {
        kk_view_t *vx = vec(t, n, NULL);
        OK(kk_sptrsv_solve(NULL, S, vb, vx));
        cplx *x = fetch(t, vx);
        double want = 0;
        for (int64_t i = 0; i < n; i++) {
          want = (1.0 - (i % chain ? want : 0)) / 2;
          if (i < chain)
            ck_assert_msg(isnan(creal(x[i])), "%s mode %s rep %d: x[%lld] = %g, want NaN", kk_type_name(t),
                          m ? "flag" : "auto", rep, (long long)i, creal(x[i]));
          else
            ck_assert_msg(cabs(x[i] - want) <= 4 * eps_of(t), "%s mode %s rep %d: x[%lld] = %g, want %g",
                          kk_type_name(t), m ? "flag" : "auto", rep, (long long)i, creal(x[i]), want);
        }
        free(x);
        kk_view_release(vx);
      }
      kk_sptrsv_destroy(S);
    }
    kk_view_release(vb);
    free(hb);
    kk_crs_destroy(A);
  }
  hcsr_free(&h);
  OK(kk_kernels_set_tpl("cusparse", saved_cusparse && *saved_cusparse ? saved_cusparse : "auto"));
  env_restore("KK_SPTRSV_SYNCFREE", keep);
}
END_TEST

START_TEST(sptrsv_refuses_bad_input) {
  /* a zero diagonal: singular, refused by name and row; fine with a unit diagonal */
  const int64_t rp[] = {0, 1, 3, 4}, ci[] = {0, 0, 1, 2};
  const double v[] = {2, 1, 0, 3};
  kk_crs_t *A = NULL, *R = NULL;
  OK(kk_crs_create_csr(NULL, "sing", KK_DOUBLE, 3, 3, KK_INT64, rp, KK_INT64, ci, v, &A));
  kk_sptrsv_t *S = (kk_sptrsv_t *)&S;
  ck_assert_int_eq(kk_sptrsv_symbolic(A, KK_LOWER, KK_DIAG_NONUNIT, &S), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(S);
  ck_assert_contains(kk_last_error(), "'sing' is singular: row 1");
  OK(kk_sptrsv_symbolic(A, KK_LOWER, KK_DIAG_UNIT, &S));
  /* a missing diagonal: the upper triangle of row 0 has none in a matrix with no (2, 2) */
  const int64_t rp2[] = {0, 1, 2}, ci2[] = {1, 0};
  const double v2[] = {1, 1};
  kk_crs_t *B = NULL;
  OK(kk_crs_create_csr(NULL, "nodiag", KK_DOUBLE, 2, 2, KK_INT64, rp2, KK_INT64, ci2, v2, &B));
  kk_sptrsv_t *S2 = NULL;
  ck_assert_int_eq(kk_sptrsv_symbolic(B, KK_UPPER, KK_DIAG_NONUNIT, &S2), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "row 0 has a zero or no diagonal");
  /* not square */
  const int64_t rp3[] = {0, 1, 2};
  OK(kk_crs_create_csr(NULL, "rect", KK_DOUBLE, 2, 3, KK_INT64, rp3, KK_INT64, ci2, v2, &R));
  ck_assert_int_eq(kk_sptrsv_symbolic(R, KK_LOWER, KK_DIAG_UNIT, &S2), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "2 x 3");
  ck_assert_int_eq(kk_sptrsv_symbolic(A, (kk_uplo_t)7, KK_DIAG_UNIT, &S2), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_sptrsv_symbolic(NULL, KK_LOWER, KK_DIAG_UNIT, &S2), KK_ERROR_INVALID_ARGUMENT);
  /* mismatched vectors: wrong length, wrong type, wrong rank; x keeps its values */
  kk_view_t *b3 = vec(KK_DOUBLE, 3, NULL), *b4 = vec(KK_DOUBLE, 4, NULL), *f3 = vec(KK_FLOAT, 3, NULL);
  const cplx sev[3] = {7, 7, 7};
  kk_view_t *x3 = vec(KK_DOUBLE, 3, sev);
  ck_assert_int_eq(kk_sptrsv_solve(NULL, S, b4, x3), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_sptrsv_solve");
  ck_assert_int_eq(kk_sptrsv_solve(NULL, S, b3, b4), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_sptrsv_solve(NULL, S, f3, x3), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_sptrsv_solve(NULL, NULL, b3, x3), KK_ERROR_INVALID_ARGUMENT);
  int64_t ext[2] = {3, 1};
  kk_view_t *m31 = NULL;
  OK(kk_view_alloc(&m31, "m31", KK_DOUBLE, 2, ext));
  ck_assert_int_eq(kk_sptrsv_solve(NULL, S, m31, x3), KK_ERROR_INVALID_ARGUMENT);
  cplx *x = fetch(KK_DOUBLE, x3);
  for (int i = 0; i < 3; i++)
    ck_assert(x[i] == 7);
  free(x);
  kk_view_release(m31);
  kk_view_release(b3), kk_view_release(b4), kk_view_release(f3), kk_view_release(x3);
  ck_assert_int_eq(kk_sptrsv_set_algorithm(S, (kk_sptrsv_algo_t)3), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_sptrsv_set_algorithm");
  ck_assert_int_eq(kk_sptrsv_algorithm(S), KK_SPTRSV_AUTO);
  ck_assert_int_eq(kk_sptrsv_set_algorithm(NULL, KK_SPTRSV_LEVELS), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_sptrsv_algorithm(NULL), KK_SPTRSV_AUTO);
  kk_sptrsv_destroy(S);
  kk_sptrsv_destroy(NULL);
  kk_crs_destroy(A), kk_crs_destroy(B), kk_crs_destroy(R);
}
END_TEST

/* ---- ILU(k) ------------------------------------------------------------------------------------- */

/* Dense ILU(K) (Saad, Iterative Methods, alg. 10.5) of d in place: L's
 * multipliers below the diagonal, U on and above; lev[] the final levels
 * (entries above K dropped, set to INT_MAX / 2 and zero). */
static void ref_iluk(cplx *d, int *lev, int64_t n, int K) {
  const int INF = 1 << 29;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      lev[i * n + j] = d[i * n + j] != 0 || i == j ? 0 : INF;
  /* entries that are there but sum to zero still count (the pattern is structural): the caller marks them */
  for (int64_t i = 1; i < n; i++) {
    for (int64_t k = 0; k < i; k++) {
      if (lev[i * n + k] > K)
        continue;
      d[i * n + k] /= d[k * n + k];
      for (int64_t j = k + 1; j < n; j++) {
        const int l = lev[i * n + k] + lev[k * n + j] + 1;
        if (l < lev[i * n + j])
          lev[i * n + j] = l;
        d[i * n + j] -= d[i * n + k] * d[k * n + j];
      }
    }
    for (int64_t j = 0; j < n; j++)
      if (lev[i * n + j] > K)
        d[i * n + j] = 0;
  }
}

/* The reference's levels start from the structure (an entry present but
 * summing to zero is in the pattern). */
static void ref_iluk_struct(const hcsr_t *h, cplx *d, int *lev, int K) {
  const int64_t n = h->n;
  for (int64_t i = 0; i < n; i++)
    for (int64_t p = h->rp[i]; p < h->rp[i + 1]; p++)
      if (d[i * n + h->ci[p]] == 0)
        d[i * n + h->ci[p]] = 1e-300; /* keeps the entry structural; too small to matter */
  ref_iluk(d, lev, n, K);
}

START_TEST(spiluk_against_reference) {
  const int64_t sizes[] = {0, 1, 5, 40, 120};
  const int nsizes = g_small ? 4 : 5;
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t t = k_types[ti];
    for (int si = 0; si < nsizes; si++)
      for (int K = 0; K <= 2; K++) {
        const int64_t n = sizes[si];
        hcsr_t h = random_matrix(t, n, n, 3, 1, 1);
        kk_crs_t *A = to_crs(t, &h, "A");
        cplx *d = dense(&h);
        int *lev = malloc(sizeof(int) * (size_t)(n * n + 1));
        ref_iluk_struct(&h, d, lev, K);
        kk_spiluk_t *F = NULL;
        OK(kk_spiluk_symbolic(A, K, &F));
        ck_assert_int_eq(kk_spiluk_level(F), K);
        /* twice: the handle is reused, the second time with the same values */
        for (int rep = 0; rep < 2; rep++)
          OK(kk_spiluk_numeric(NULL, F, A));
        const kk_crs_t *LU = kk_spiluk_factors(F);
        int64_t *rp = NULL;
        int64_t pattern = 0;
        for (int64_t q = 0; q < n * n; q++)
          pattern += lev[q] <= K;
        ck_assert_int_eq(kk_spiluk_nnz(F), pattern);
        /* the factors' arrays */
        const int64_t nnz = kk_crs_nnz(LU);
        rp = malloc(sizeof(int64_t) * (size_t)(n + 1));
        int32_t *c32 = malloc(sizeof(int32_t) * (size_t)(nnz + 1));
        void *vals = malloc(esize(t) * (size_t)(nnz + 1));
        OK(kk_space_copy(NULL, rp, kk_crs_space(LU), kk_view_data(kk_crs_row_ptr(LU)), sizeof(int64_t) * (size_t)(n + 1), NULL));
        if (nnz > 0) {
          OK(kk_space_copy(NULL, c32, kk_crs_space(LU), kk_view_data(kk_crs_col_idx(LU)), sizeof(int32_t) * (size_t)nnz, NULL));
          OK(kk_space_copy(NULL, vals, kk_crs_space(LU), kk_view_data(kk_crs_values(LU)), esize(t) * (size_t)nnz, NULL));
        }
        double scale = 1;
        for (int64_t q = 0; q < n * n; q++)
          scale = fmax(scale, cabs(d[q]));
        for (int64_t i = 0; i < n; i++)
          for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
            const int64_t j = c32[p];
            ck_assert_msg(p == rp[i] || c32[p - 1] < j, "row %lld not sorted", (long long)i);
            ck_assert_msg(lev[i * n + j] <= K, "%s ILU(%d) n %lld: (%lld, %lld) in the pattern, level %d",
                          kk_type_name(t), K, (long long)n, (long long)i, (long long)j, lev[i * n + j]);
            const cplx got = get(t, vals, p), want = d[i * n + j];
            ck_assert_msg(cabs(got - want) <= 1e3 * (double)(n + 1) * eps_of(t) * scale,
                          "%s ILU(%d) n %lld: (%lld, %lld) = %g%+gi, want %g%+gi", kk_type_name(t), K, (long long)n,
                          (long long)i, (long long)j, creal(got), cimag(got), creal(want), cimag(want));
          }
        /* apply: z = (L U)^-1 r, checked by L (U z) = r */
        cplx *r = malloc(sizeof(cplx) * (size_t)(n + 1)), *u = malloc(sizeof(cplx) * (size_t)(n + 1));
        for (int64_t i = 0; i < n; i++)
          r[i] = rndv(t);
        kk_view_t *vr = vec(t, n, r), *vz = vec(t, n, NULL);
        OK(kk_spiluk_apply(NULL, F, vr, vz));
        cplx *z = fetch(t, vz);
        double rmax = 1;
        for (int64_t i = 0; i < n; i++) {
          u[i] = 0;
          for (int64_t j = i; j < n; j++)
            u[i] += d[i * n + j] * z[j];
        }
        for (int64_t i = 0; i < n; i++) {
          cplx s = u[i];
          for (int64_t j = 0; j < i; j++)
            s += d[i * n + j] * u[j];
          rmax = fmax(rmax, cabs(z[i]));
          ck_assert_msg(cabs(s - r[i]) <= 1e4 * (double)(n + 1) * eps_of(t) * rmax * scale,
                        "%s ILU(%d) n %lld apply: row %lld residual %g", kk_type_name(t), K, (long long)n,
                        (long long)i, cabs(s - r[i]));
        }
        free(z), free(r), free(u), free(rp), free(c32), free(vals), free(lev), free(d);
        kk_view_release(vr), kk_view_release(vz);
        kk_spiluk_destroy(F);
        kk_crs_destroy(A);
        hcsr_free(&h);
      }
  }
}
END_TEST

START_TEST(spiluk_refuses_bad_input) {
  /* [[0 1] [1 0]]: a zero pivot in row 0 */
  const int64_t rp[] = {0, 2, 4}, ci[] = {0, 1, 0, 1};
  const double v[] = {0, 1, 1, 0};
  kk_crs_t *A = NULL, *B = NULL;
  OK(kk_crs_create_csr(NULL, "swap", KK_DOUBLE, 2, 2, KK_INT64, rp, KK_INT64, ci, v, &A));
  kk_spiluk_t *F = NULL;
  OK(kk_spiluk_symbolic(A, 0, &F));
  kk_view_t *r = vec(KK_DOUBLE, 2, NULL), *z = vec(KK_DOUBLE, 2, NULL);
  ck_assert_int_eq(kk_spiluk_apply(NULL, F, r, z), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_spiluk_numeric has not succeeded");
  ck_assert_int_eq(kk_spiluk_numeric(NULL, F, A), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "zero pivot in row 0");
  ck_assert_int_eq(kk_spiluk_apply(NULL, F, r, z), KK_ERROR_INVALID_ARGUMENT);
  /* another structure */
  const int64_t rp2[] = {0, 1, 2}, ci2[] = {0, 1};
  const double v2[] = {1, 1};
  OK(kk_crs_create_csr(NULL, "diag", KK_DOUBLE, 2, 2, KK_INT64, rp2, KK_INT64, ci2, v2, &B));
  ck_assert_int_eq(kk_spiluk_numeric(NULL, F, B), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "not the structure the handle was made from");
  kk_spiluk_destroy(F);
  /* the diagonal one works; then vectors of the wrong length are refused */
  OK(kk_spiluk_symbolic(B, 0, &F));
  OK(kk_spiluk_numeric(NULL, F, B));
  kk_view_t *r3 = vec(KK_DOUBLE, 3, NULL);
  ck_assert_int_eq(kk_spiluk_apply(NULL, F, r3, z), KK_ERROR_INVALID_ARGUMENT);
  kk_spiluk_destroy(F);
  ck_assert_int_eq(kk_spiluk_symbolic(B, -1, &F), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(F);
  kk_view_release(r), kk_view_release(z), kk_view_release(r3);
  kk_crs_destroy(A), kk_crs_destroy(B);
}
END_TEST

/* ---- Krylov solvers ------------------------------------------------------------------------------ */

/* The 2-D convection-diffusion operator -lap u + c . grad u on a g x g
 * grid, first-order upwind (nonsymmetric, an M-matrix): `conv` the cell
 * Peclet number (0: the Laplacian, symmetric positive definite). */
static hcsr_t convdiff(int64_t g, double conv) {
  const int64_t n = g * g;
  hcsr_t h = {n, n, 0, calloc((size_t)n + 1, sizeof(int64_t)), malloc(sizeof(int64_t) * 5 * (size_t)n),
              malloc(sizeof(cplx) * 5 * (size_t)n)};
  for (int64_t i = 0; i < g; i++)
    for (int64_t j = 0; j < g; j++) {
      const int64_t r = i * g + j;
      const int64_t nb[4][2] = {{i - 1, j}, {i, j - 1}, {i, j + 1}, {i + 1, j}};
      const double w[4] = {-1 - conv, -1 - conv, -1, -1};
      h.ci[h.nnz] = r, h.v[h.nnz++] = 4 + 2 * conv;
      for (int q = 0; q < 4; q++)
        if (nb[q][0] >= 0 && nb[q][0] < g && nb[q][1] >= 0 && nb[q][1] < g)
          h.ci[h.nnz] = nb[q][0] * g + nb[q][1], h.v[h.nnz++] = w[q];
      h.rp[r + 1] = h.nnz;
    }
  return h;
}

/* ||b - A x|| / ||b|| on the host */
static double true_residual(const hcsr_t *h, const cplx *b, const cplx *x) {
  double rr = 0, bb = 0;
  for (int64_t i = 0; i < h->n; i++) {
    cplx s = b[i];
    for (int64_t p = h->rp[i]; p < h->rp[i + 1]; p++)
      s -= h->v[p] * x[h->ci[p]];
    rr += creal(s * conj(s));
    bb += creal(b[i] * conj(b[i]));
  }
  return sqrt(rr / bb);
}

/* the caller's preconditioner: Jacobi by hand, counting its calls */
typedef struct my_pre {
  kk_precond_t jac;
  int calls;
} my_pre_t;
static kk_status_t my_apply(void *data, kk_instance_t *inst, kk_view_t *r, kk_view_t *z) {
  my_pre_t *m = data;
  m->calls++;
  return m->jac.apply(m->jac.data, inst, r, z);
}

START_TEST(gmres_nonsymmetric) {
  const int64_t g = g_small ? 10 : 24, n = g * g;
  for (int ti = 0; ti < 2; ti++) {
    const kk_type_t t = k_types[ti];
    hcsr_t h = convdiff(g, 2.0);
    kk_crs_t *A = to_crs(t, &h, "convdiff");
    cplx *b = malloc(sizeof(cplx) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
      b[i] = 1 + 0.5 * rnd();
    int iters[7] = {0};
    for (int pre = 0; pre < 7; pre++) {
      /* 0 none, 1 Jacobi, 2 ILU(0), 3 ILU(1), 4 the caller's, 5 multicolor Gauss-Seidel, 6 two-stage (damped) */
      kk_precond_t M = KK_PRECOND_INIT;
      kk_spiluk_t *F = NULL;
      my_pre_t mine = {KK_PRECOND_INIT, 0};
      if (pre == 1)
        OK(kk_precond_jacobi(NULL, A, &M));
      if (pre == 2 || pre == 3) {
        OK(kk_spiluk_symbolic(A, pre - 2, &F));
        OK(kk_spiluk_numeric(NULL, F, A));
        OK(kk_precond_iluk(F, &M));
      }
      if (pre == 4) {
        OK(kk_precond_jacobi(NULL, A, &mine.jac));
        M.apply = my_apply;
        M.data = &mine;
      }
      if (pre == 5)
        OK(kk_precond_gs(NULL, A, NULL, 1, &M));
      if (pre == 6) {
        kk_gs_options_t go = KK_GS_OPTIONS_INIT;
        go.algorithm = KK_GS_TWO_STAGE;
        go.omega = 0.9;
        go.inner_sweeps = 2;
        OK(kk_precond_gs(NULL, A, &go, 2, &M));
        ck_assert_str_eq(M.name, "gs");
      }
      for (int restart = 0; restart < 2; restart++) {
        kk_view_t *vb = vec(t, n, b), *vx = vec(t, n, NULL);
        kk_gmres_options_t opt = KK_GMRES_OPTIONS_INIT;
        opt.tolerance = is_single(t) ? 1e-4 : 1e-10;
        opt.restart = restart ? 5 : 30;
        opt.max_iterations = 5000;
        kk_cg_result_t res = {sizeof res, 0, 0, 0};
        OK(kk_sparse_gmres(NULL, A, vb, vx, &opt, &M, &res));
        ck_assert_msg(res.converged, "%s pre %d restart %d: no convergence in %d iterations (residual %g)",
                      kk_type_name(t), pre, opt.restart, res.iterations, res.residual);
        ck_assert_int_ge(res.iterations, 1);
        cplx *x = fetch(t, vx);
        const double tr = true_residual(&h, b, x);
        ck_assert_msg(tr <= (is_single(t) ? 1e-3 : 1e-9), "%s pre %d restart %d: true residual %g", kk_type_name(t),
                      pre, opt.restart, tr);
        ck_assert_msg(fabs(tr - res.residual) <= 1e-2 * tr + 10 * eps_of(t), "reported residual %g, true %g",
                      res.residual, tr);
        if (!restart)
          iters[pre] = res.iterations;
        /* started from the solution: no iteration */
        OK(kk_sparse_gmres(NULL, A, vb, vx, &opt, &M, &res));
        ck_assert_int_eq(res.iterations, 0);
        ck_assert(res.converged);
        free(x);
        kk_view_release(vb), kk_view_release(vx);
      }
      if (pre == 4)
        ck_assert_int_gt(mine.calls, iters[4]);
      kk_precond_release(&M);
      kk_precond_release(&mine.jac);
      kk_spiluk_destroy(F);
    }
    /* ILU(0) is a far better preconditioner than none or Jacobi here, ILU(1) no worse than ILU(0) */
    ck_assert_int_lt(iters[2], iters[0]);
    ck_assert_int_lt(iters[2], iters[1]);
    ck_assert_int_le(iters[3], iters[2] + 1);
    /* the caller's Jacobi is kk's (a sum's order may differ between runs on threads: one iteration either way) */
    ck_assert_int_le(abs(iters[4] - iters[1]), 1);
    /* symmetric Gauss-Seidel, either algorithm, beats no preconditioner and Jacobi */
    ck_assert_msg(iters[5] < iters[0] && iters[5] < iters[1], "%s: gs %d iterations, none %d, jacobi %d",
                  kk_type_name(t), iters[5], iters[0], iters[1]);
    ck_assert_msg(iters[6] < iters[0] && iters[6] < iters[1], "%s: two-stage gs %d iterations, none %d, jacobi %d",
                  kk_type_name(t), iters[6], iters[0], iters[1]);
    /* an iteration limit is honoured and reported as not converged */
    kk_view_t *vb = vec(t, n, b), *vx = vec(t, n, NULL);
    kk_gmres_options_t opt = KK_GMRES_OPTIONS_INIT;
    opt.max_iterations = 3;
    kk_cg_result_t res = {sizeof res, 0, 0, 0};
    OK(kk_sparse_gmres(NULL, A, vb, vx, &opt, NULL, &res));
    ck_assert_int_eq(res.iterations, 3);
    ck_assert(!res.converged);
    /* b = 0 gives x = 0 */
    OK(kk_blas_scal(NULL, vb, KK_REAL(0), vb));
    OK(kk_sparse_gmres(NULL, A, vb, vx, &opt, NULL, &res));
    ck_assert(res.converged);
    kk_view_release(vb), kk_view_release(vx);
    free(b);
    kk_crs_destroy(A);
    hcsr_free(&h);
  }
}
END_TEST

START_TEST(pcg_preconditioners) {
  const int64_t g = g_small ? 8 : 20, n = g * g;
  for (int ti = 0; ti < 4; ti++) {
    const kk_type_t t = k_types[ti];
    hcsr_t h = convdiff(g, 0.0);
    kk_crs_t *A = to_crs(t, &h, "lap");
    cplx *b = malloc(sizeof(cplx) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
      b[i] = rndv(t);
    int iters[6] = {0};
    for (int pre = 0; pre < 6; pre++) {
      /* 0 none, 1 Jacobi, 2 ILU(0), 3 multicolor symmetric Gauss-Seidel, 4 two-stage, 5 SSOR (omega 1.5), 2 sweeps */
      kk_precond_t M = KK_PRECOND_INIT;
      kk_spiluk_t *F = NULL;
      kk_gs_options_t go = KK_GS_OPTIONS_INIT;
      if (pre == 1)
        OK(kk_precond_jacobi(NULL, A, &M));
      if (pre == 3)
        OK(kk_precond_gs(NULL, A, &go, 1, &M));
      if (pre == 4) {
        go.algorithm = KK_GS_TWO_STAGE;
        OK(kk_precond_gs(NULL, A, &go, 1, &M));
      }
      if (pre == 5) {
        go.omega = 1.5;
        OK(kk_precond_gs(NULL, A, &go, 2, &M));
      }
      if (pre == 2) {
        OK(kk_spiluk_symbolic(A, 0, &F));
        OK(kk_spiluk_numeric(NULL, F, A));
        OK(kk_precond_iluk(F, &M));
      }
      kk_view_t *vb = vec(t, n, b), *vx = vec(t, n, NULL);
      kk_cg_options_t opt = KK_CG_OPTIONS_INIT;
      opt.tolerance = is_single(t) ? 1e-4 : 1e-10;
      kk_cg_result_t res = {sizeof res, 0, 0, 0};
      OK(kk_sparse_pcg(NULL, A, vb, vx, &opt, &M, &res));
      ck_assert_msg(res.converged, "%s pre %d: %d iterations, residual %g", kk_type_name(t), pre, res.iterations,
                    res.residual);
      cplx *x = fetch(t, vx);
      ck_assert_double_le(true_residual(&h, b, x), is_single(t) ? 1e-3 : 1e-9);
      iters[pre] = res.iterations;
      if (pre == 1) { /* the same as kk_sparse_cg with its Jacobi */
        kk_view_t *vy = vec(t, n, NULL);
        kk_cg_result_t r2 = {sizeof r2, 0, 0, 0};
        OK(kk_sparse_cg(NULL, A, vb, vy, &opt, &r2));
        ck_assert_int_le(abs(r2.iterations - res.iterations), 1);
        kk_view_release(vy);
      }
      free(x);
      kk_view_release(vb), kk_view_release(vx);
      kk_precond_release(&M);
      kk_spiluk_destroy(F);
    }
    ck_assert_int_lt(iters[2], iters[0]);
    for (int pre = 3; pre < 6; pre++)
      ck_assert_msg(iters[pre] < iters[0] && iters[pre] < iters[1], "%s: gs %d: %d iterations, none %d, jacobi %d",
                    kk_type_name(t), pre, iters[pre], iters[0], iters[1]);
    free(b);
    kk_crs_destroy(A);
    hcsr_free(&h);
  }
}
END_TEST

START_TEST(krylov_refuses_bad_input) {
  hcsr_t h = convdiff(3, 1.0);
  kk_crs_t *A = to_crs(KK_DOUBLE, &h, "cd"), *Z = to_crs(KK_COMPLEX_DOUBLE, &h, "cdz");
  kk_view_t *b = vec(KK_DOUBLE, 9, NULL), *x = vec(KK_DOUBLE, 9, NULL), *x8 = vec(KK_DOUBLE, 8, NULL);
  kk_view_t *bz = vec(KK_COMPLEX_DOUBLE, 9, NULL), *xz = vec(KK_COMPLEX_DOUBLE, 9, NULL);
  kk_gmres_options_t opt = KK_GMRES_OPTIONS_INIT;
  opt.restart = 0;
  ck_assert_int_eq(kk_sparse_gmres(NULL, A, b, x, &opt, NULL, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "restart 0");
  ck_assert_int_eq(kk_sparse_gmres(NULL, A, b, x8, NULL, NULL, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_sparse_gmres(NULL, Z, bz, xz, NULL, NULL, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "float or double");
  ck_assert_int_eq(kk_sparse_pcg(NULL, A, b, x8, NULL, NULL, NULL), KK_ERROR_INVALID_ARGUMENT);
  kk_precond_t bad = KK_PRECOND_INIT;
  bad.struct_size = 8;
  ck_assert_int_eq(kk_sparse_pcg(NULL, A, b, x, NULL, &bad, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "KK_PRECOND_INIT");
  /* a failing preconditioner's status comes back */
  hcsr_t r = random_matrix(KK_DOUBLE, 4, 6, 2, 0, 0);
  kk_crs_t *R = to_crs(KK_DOUBLE, &r, "rect");
  kk_precond_t M = KK_PRECOND_INIT;
  ck_assert_int_eq(kk_precond_jacobi(NULL, R, &M), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_sparse_gmres(NULL, R, b, x, NULL, NULL, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "not square");
  /* the Gauss-Seidel preconditioner refuses bad arguments and leaves *out alone */
  M.name = "untouched";
  ck_assert_int_eq(kk_precond_gs(NULL, R, NULL, 1, &M), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_precond_gs(NULL, NULL, NULL, 1, &M), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_precond_gs(NULL, A, NULL, 0, &M), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "sweeps 0");
  ck_assert_int_eq(kk_precond_gs(NULL, A, NULL, 1, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "out is NULL");
  kk_gs_options_t go = KK_GS_OPTIONS_INIT;
  go.omega = 2.5;
  ck_assert_int_eq(kk_precond_gs(NULL, A, &go, 1, &M), KK_ERROR_INVALID_ARGUMENT);
  go = (kk_gs_options_t)KK_GS_OPTIONS_INIT;
  go.algorithm = (kk_gs_algorithm_t)7;
  ck_assert_int_eq(kk_precond_gs(NULL, A, &go, 1, &M), KK_ERROR_INVALID_ARGUMENT);
  hcsr_t nd = random_matrix(KK_DOUBLE, 5, 5, 2, 0, 0); /* no diagonal */
  kk_crs_t *ND = to_crs(KK_DOUBLE, &nd, "nodiag");
  ck_assert_int_eq(kk_precond_gs(NULL, ND, NULL, 1, &M), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(M.name, "untouched");
  ck_assert_ptr_null(M.apply);
  kk_crs_destroy(ND);
  hcsr_free(&nd);
  /* its apply refuses a z of the wrong length */
  OK(kk_precond_gs(NULL, A, NULL, 1, &M));
  ck_assert_int_eq(M.apply(M.data, NULL, b, x8), KK_ERROR_INVALID_ARGUMENT);
  kk_precond_release(&M);
  kk_crs_destroy(R);
  hcsr_free(&r);
  kk_view_release(b), kk_view_release(x), kk_view_release(x8), kk_view_release(bz), kk_view_release(xz);
  kk_crs_destroy(A), kk_crs_destroy(Z);
  hcsr_free(&h);
}
END_TEST

/* Handles kept past kk_finalize are refused in the next initialization,
 * and destroying them then frees their records (valgrind watches). */
START_TEST(handles_outlive_finalize) {
  hcsr_t h = convdiff(4, 1.0);
  kk_crs_t *A = to_crs(KK_DOUBLE, &h, "old");
  kk_sptrsv_t *S = NULL;
  kk_spiluk_t *F = NULL;
  kk_precond_t M = KK_PRECOND_INIT, G = KK_PRECOND_INIT;
  OK(kk_sptrsv_symbolic(A, KK_LOWER, KK_DIAG_NONUNIT, &S));
  OK(kk_spiluk_symbolic(A, 1, &F));
  OK(kk_spiluk_numeric(NULL, F, A));
  OK(kk_precond_jacobi(NULL, A, &M));
  OK(kk_precond_gs(NULL, A, NULL, 1, &G));
  kk_finalize();
  setup();
  kk_view_t *b = vec(KK_DOUBLE, 16, NULL), *x = vec(KK_DOUBLE, 16, NULL);
  ck_assert_int_eq(kk_sptrsv_solve(NULL, S, b, x), KK_ERROR_NOT_INITIALIZED);
  ck_assert_contains(kk_last_error(), "before kk_finalize");
  ck_assert_int_eq(kk_spiluk_apply(NULL, F, b, x), KK_ERROR_NOT_INITIALIZED);
  ck_assert_int_eq(kk_spiluk_numeric(NULL, F, A), KK_ERROR_NOT_INITIALIZED);
  ck_assert_int_eq(M.apply(M.data, NULL, b, x), KK_ERROR_NOT_INITIALIZED);
  ck_assert_int_eq(G.apply(G.data, NULL, b, x), KK_ERROR_NOT_INITIALIZED);
  kk_view_release(b), kk_view_release(x);
  kk_precond_release(&M);
  kk_precond_release(&G);
  kk_spiluk_destroy(F);
  kk_sptrsv_destroy(S);
  kk_crs_destroy(A);
  hcsr_free(&h);
}
END_TEST

static Suite *solvers_suite(void) {
  Suite *s = suite_create(g_backend);
  TCase *tc = tcase_create("solvers");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, sptrsv_against_reference);
  tcase_add_test(tc, sptrsv_algorithms);
  tcase_add_test(tc, sptrsv_syncfree_mappings);
  tcase_add_test(tc, sptrsv_syncfree_nan);
  tcase_add_test(tc, sptrsv_refuses_bad_input);
  tcase_add_test(tc, spiluk_against_reference);
  tcase_add_test(tc, spiluk_refuses_bad_input);
  tcase_add_test(tc, gmres_nonsymmetric);
  tcase_add_test(tc, pcg_preconditioners);
  tcase_add_test(tc, krylov_refuses_bad_input);
  tcase_add_test(tc, handles_outlive_finalize);
  suite_add_tcase(s, tc);
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
  int rc = tu_run(solvers_suite());
  free(g_plugin_path);
  return rc;
}
