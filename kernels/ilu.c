/* kernels/ilu.c -- ILU(k) on CRS matrices: the level-k fill pattern on the host (symbolic), the factorization by level sets of rows (numeric), and its application by two triangular solves. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers_internal.h"

static const kk_kernel_t *const k_load[4] = KKK_K4(ilu_load), *const k_row[4] = KKK_K4(ilu_row);

struct kk_spiluk {
  const kk_crs_t *A;     /* borrowed: the matrix of the symbolic phase */
  int level;
  int64_t rows, a_nnz;
  kk_crs_t *lu;          /* the factors' pattern and values */
  kk_view_t *diag;       /* int64: where each row's diagonal is in lu */
  kk_view_t *amap;       /* int64: where A's entry p goes in lu */
  kk_view_t *pivot;      /* int64[1]: the smallest row with a zero pivot */
  kk_view_t *tmp;        /* L^-1 r, between the two solves (a vendor solve is out of place) */
  kk_sptrsv_t *lower, *upper;  /* on lu; lower's levels are the factorization's */
  int factored;          /* a numeric phase succeeded */
};

static int cmp_i32(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The level-k pattern of row after row (Saad, Iterative Methods, alg.
 * 10.5: a fill entry's level is lev(i, k) + lev(k, j) + 1 for each k < i of
 * the row, kept when at most `level`).  A row is built in a sorted linked
 * list of its columns (next[]) with their levels (lev[]), both of n, from
 * A's row and the U parts of the rows before; every row gets its diagonal. */
static kk_status_t fill_pattern(const char *op, const int64_t *arp, const int32_t *aci, int64_t n, int level,
                                int64_t **rp_out, int32_t **ci_out, int32_t **lev_out) {
  int64_t cap = arp[n] + n + 16, nnz = 0;
  int64_t *rp = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int32_t *ci = malloc(sizeof(int32_t) * (size_t)cap), *lv = malloc(sizeof(int32_t) * (size_t)cap);
  int64_t *diag = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
  int32_t *next = malloc(sizeof(int32_t) * (size_t)(n + 1)), *lev = malloc(sizeof(int32_t) * (size_t)(n + 1));
  int32_t *tmp = malloc(sizeof(int32_t) * (size_t)(n + 1));
  kk_status_t st = rp && ci && lv && diag && next && lev && tmp ? KK_OK : KK_ERROR_OUT_OF_MEMORY;
  const int32_t END = (int32_t)n; /* the list's end (and its head's slot: next[n] is the first column) */
  for (int64_t j = 0; st == KK_OK && j < n; j++)
    lev[j] = -1; /* not in the row */
  if (st == KK_OK)
    rp[0] = 0;
  for (int64_t i = 0; st == KK_OK && i < n; i++) {
    /* A's row i and the diagonal, unique (lev marks them), sorted, then
     * linked in order: O(len log len) however long the row */
    int64_t len = 0;
    const int64_t p1 = arp[i + 1];
    for (int64_t p = arp[i]; p <= p1; p++) {
      const int32_t j = p < p1 ? aci[p] : (int32_t)i;
      if (lev[j] >= 0)
        continue;
      lev[j] = 0;
      tmp[len++] = j;
    }
    qsort(tmp, (size_t)len, sizeof *tmp, cmp_i32);
    next[END] = len > 0 ? tmp[0] : END;
    for (int64_t q = 0; q < len; q++)
      next[tmp[q]] = q + 1 < len ? tmp[q + 1] : END;
    /* eliminate with rows k < i in increasing order: fill enters after k */
    for (int32_t k = next[END]; level > 0 && k < i; k = next[k]) {
      const int32_t lik = lev[k];
      if (lik >= level)
        continue; /* its fill would be above level */
      int32_t prev = k;
      for (int64_t q = diag[k] + 1; q < rp[k + 1]; q++) {
        const int32_t j = ci[q], l = lik + lv[q] + 1;
        if (l > level)
          continue;
        while (next[prev] != END && next[prev] < j)
          prev = next[prev];
        if (lev[j] < 0) { /* a fill entry */
          lev[j] = l;
          next[j] = next[prev];
          next[prev] = j;
          len++;
        } else if (l < lev[j]) {
          lev[j] = l;
        }
      }
    }
    if (nnz + len > cap) {
      cap = 2 * cap + len;
      int32_t *c2 = realloc(ci, sizeof(int32_t) * (size_t)cap);
      if (c2)
        ci = c2;
      int32_t *l2 = c2 ? realloc(lv, sizeof(int32_t) * (size_t)cap) : NULL;
      if (l2)
        lv = l2;
      if (!c2 || !l2) {
        st = KK_ERROR_OUT_OF_MEMORY;
        break;
      }
    }
    for (int32_t j = next[END]; j != END; j = next[j]) {
      if (j == i)
        diag[i] = nnz;
      ci[nnz] = j;
      lv[nnz++] = lev[j];
      lev[j] = -1;
    }
    rp[i + 1] = nnz;
  }
  free(next);
  free(lev);
  free(tmp);
  free(diag);
  if (st != KK_OK) {
    free(rp), free(ci), free(lv);
    return kkk_err(st, "%s: out of host memory", op);
  }
  *rp_out = rp;
  *ci_out = ci;
  *lev_out = lv;
  return KK_OK;
}

/* An int64 view of n elements in space from host data h (h NULL: only made). */
static kk_status_t upload_i64(kk_space_t *space, const char *label, const int64_t *h, int64_t n, kk_view_t **out) {
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = label;
  spec.type = KK_INT64;
  spec.rank = 1;
  spec.extents[0] = n;
  spec.layout = KK_LAYOUT_RIGHT;
  spec.space = space;
  spec.flags = KK_VIEW_NO_INIT;
  kk_status_t st = kk_view_create(&spec, out);
  if (st == KK_OK && h && n > 0)
    st = kk_space_copy(space, kk_view_data(*out), NULL, h, sizeof(int64_t) * (size_t)n, NULL);
  return st;
}

kk_status_t kk_spiluk_symbolic(const kk_crs_t *A, int level, kk_spiluk_t **out) {
  static const char *op = "kk_spiluk_symbolic";
  if (!out)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: out is NULL", op);
  *out = NULL;
  kk_status_t st = kkk_crs_check(op, A);
  if (st != KK_OK)
    return st;
  const int64_t n = kk_crs_rows(A);
  if (kk_crs_cols(A) != n)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s' is %lld x %lld; ILU(k) needs a square one", op,
                   kkk_crs_label(A), (long long)n, (long long)kk_crs_cols(A));
  if (level < 0)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: level %d is negative", op, level);
  kk_spiluk_t *h = calloc(1, sizeof *h);
  if (!h)
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  h->A = A;
  h->level = level;
  h->rows = n;
  h->a_nnz = kk_crs_nnz(A);
  int64_t *arp = NULL, *rp = NULL, *diag = NULL, *amap = NULL, *lvl = NULL, nlev = 0;
  int32_t *aci = NULL, *ci = NULL, *lv = NULL, *order = NULL;
  void *zeros = NULL;
  st = kkk_crs_host(op, A, &arp, &aci, NULL);
  if (st == KK_OK)
    st = fill_pattern(op, arp, aci, n, level, &rp, &ci, &lv);
  if (st == KK_OK) {
    const int64_t nnz = rp[n];
    diag = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    amap = malloc(sizeof(int64_t) * (size_t)(h->a_nnz > 0 ? h->a_nnz : 1));
    order = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    zeros = calloc((size_t)(nnz > 0 ? nnz : 1), kkk_elem_size(kk_crs_type(A)));
    if (!diag || !amap || !order || !zeros)
      st = kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  }
  /* where each diagonal and each of A's entries sit (rows sorted: bisection) */
  for (int64_t i = 0; st == KK_OK && i < n; i++) {
    for (int64_t p = arp[i]; p <= arp[i + 1]; p++) {
      const int32_t j = p < arp[i + 1] ? aci[p] : (int32_t)i;
      int64_t lo = rp[i], hi = rp[i + 1];
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (ci[mid] < j)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (p < arp[i + 1])
        amap[p] = lo;
      else
        diag[i] = lo;
    }
  }
  char label[256];
  snprintf(label, sizeof label, "%s.iluk", kkk_crs_label(A));
  if (st == KK_OK)
    st = kk_crs_create_csr(kk_crs_space(A), label, kk_crs_type(A), n, n, KK_INT64, rp, KK_INT32, ci, zeros, &h->lu);
  if (st == KK_OK)
    st = kkk_levels(op, rp, ci, n, 1, order, &lvl, &nlev);
  if (st == KK_OK)
    st = kkk_sptrsv_make(op, h->lu, KK_LOWER, KK_DIAG_UNIT, order, lvl, nlev, 1, &h->lower);
  if (st == KK_OK)
    st = kkk_levels(op, rp, ci, n, 0, order, &lvl, &nlev);
  if (st == KK_OK)
    st = kkk_sptrsv_make(op, h->lu, KK_UPPER, KK_DIAG_NONUNIT, order, lvl, nlev, 1, &h->upper);
  if (st == KK_OK) {
    snprintf(label, sizeof label, "%s.iluk_diag", kkk_crs_label(A));
    st = upload_i64(kk_crs_space(A), label, diag, n, &h->diag);
  }
  if (st == KK_OK) {
    snprintf(label, sizeof label, "%s.iluk_map", kkk_crs_label(A));
    st = upload_i64(kk_crs_space(A), label, amap, h->a_nnz, &h->amap);
  }
  if (st == KK_OK) {
    snprintf(label, sizeof label, "%s.iluk_pivot", kkk_crs_label(A));
    st = upload_i64(kk_crs_space(A), label, NULL, 1, &h->pivot);
  }
  if (st == KK_OK) {
    kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
    snprintf(label, sizeof label, "%s.iluk_tmp", kkk_crs_label(A));
    spec.label = label;
    spec.type = kk_crs_type(A);
    spec.rank = 1;
    spec.extents[0] = n;
    spec.layout = KK_LAYOUT_RIGHT;
    spec.space = kk_crs_space(A);
    st = kk_view_create(&spec, &h->tmp);
  }
  free(arp), free(aci), free(rp), free(ci), free(lv), free(diag), free(amap), free(order), free(zeros);
  if (st != KK_OK) {
    kk_spiluk_destroy(h);
    return st;
  }
  *out = h;
  return KK_OK;
}

/* The handle is of the current initialization of kk and its matrix lives. */
static kk_status_t check_handle(const char *op, const kk_spiluk_t *h) {
  if (!h)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: the handle is NULL", op);
  kk_status_t st = kkk_crs_check(op, h->lu);
  return st;
}

kk_status_t kk_spiluk_numeric(kk_instance_t *instance, kk_spiluk_t *h, const kk_crs_t *A) {
  static const char *op = "kk_spiluk_numeric";
  static const char *const names[] = {"A's values", "the factors' values", "A's row offsets", "the factors' row offsets"};
  kk_status_t st = check_handle(op, h);
  if (st == KK_OK)
    st = kkk_crs_check(op, A);
  if (st != KK_OK)
    return st;
  if (kk_crs_rows(A) != h->rows || kk_crs_cols(A) != h->rows || kk_crs_nnz(A) != h->a_nnz ||
      kk_crs_type(A) != kk_crs_type(h->lu))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: matrix '%s' (%lld x %lld, %lld entries, %s) is not the structure the handle was made from "
                   "(%lld x %lld, %lld entries, %s)",
                   op, kkk_crs_label(A), (long long)kk_crs_rows(A), (long long)kk_crs_cols(A),
                   (long long)kk_crs_nnz(A), kk_type_name(kk_crs_type(A)), (long long)h->rows, (long long)h->rows,
                   (long long)h->a_nnz, kk_type_name(kk_crs_type(h->lu)));
  kk_view_t *const v[] = {kk_crs_values(A), kk_crs_values(h->lu), kk_crs_row_ptr(A), kk_crs_row_ptr(h->lu)};
  kkk_call_t c;
  st = kkk_begin(&c, op, instance, 4, v, names, 2);
  if (st != KK_OK)
    return st;
  h->factored = 0;
  kkk_sptrsv_values_changed(h->lower);
  kkk_sptrsv_values_changed(h->upper);
  struct kkk_ilu_args s;
  memset(&s, 0, sizeof s);
  s.a_row_ptr = kkk_desc(kk_crs_row_ptr(A));
  s.a_vals = kkk_desc(kk_crs_values(A));
  s.amap = kkk_desc(h->amap);
  s.row_ptr = kkk_desc(kk_crs_row_ptr(h->lu));
  s.col_idx = kkk_desc(kk_crs_col_idx(h->lu));
  s.diag = kkk_desc(h->diag);
  s.vals = kkk_desc(kk_crs_values(h->lu));
  s.pivot = kkk_desc(h->pivot);
  s.rows = h->rows;
  int64_t pivot = h->rows;
  st = kk_deep_copy_fill(h->pivot, &pivot);
  if (st == KK_OK)
    st = kkk_for(&c, k_load[c.t], &s, sizeof s, h->rows);
  /* the lower solve's levels are the factorization's: row i needs the rows
   * k < i of its L part */
  const int64_t nlev = kk_sptrsv_levels(h->lower);
  const int64_t *lvl = NULL;
  kk_view_t *order = NULL;
  kkk_sptrsv_levels_of(h->lower, &lvl, &order);
  s.order = kkk_desc(order);
  for (int64_t l = 0; st == KK_OK && l < nlev; l++)
    st = kk_parallel_for(op, KK_RANGE_ON(c.inst, lvl[l], lvl[l + 1]), k_row[c.t], &s, sizeof s);
  if (st == KK_OK)
    st = kk_instance_fence(c.inst);
  if (st == KK_OK)
    st = kk_space_copy(NULL, &pivot, kk_view_space(h->pivot), kk_view_data(h->pivot), sizeof pivot, NULL);
  if (st != KK_OK)
    return st;
  if (pivot < h->rows)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: matrix '%s': zero pivot in row %lld (U(%lld, %lld) = 0): ILU(%d) without pivoting cannot "
                   "factor it",
                   op, kkk_crs_label(A), (long long)pivot, (long long)pivot, (long long)pivot, h->level);
  h->factored = 1;
  return KK_OK;
}

kk_status_t kk_spiluk_apply(kk_instance_t *instance, kk_spiluk_t *h, kk_view_t *r, kk_view_t *z) {
  static const char *op = "kk_spiluk_apply";
  static const char *const names[] = {"r", "z", "the handle's work vector", "the factors' values",
                                      "the factors' row offsets"};
  kk_status_t st = check_handle(op, h);
  if (st != KK_OK)
    return st;
  if (!h->factored)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: the factors of '%s' have no values: kk_spiluk_numeric has not succeeded on this handle", op,
                   kkk_crs_label(h->A));
  kk_view_t *const v[] = {r, z, h->tmp, kk_crs_values(h->lu), kk_crs_row_ptr(h->lu)};
  kkk_call_t c;
  st = kkk_begin(&c, op, instance, 5, v, names, 4);
  if (st == KK_OK)
    st = kkk_check_rank(&c, r, "r", 1);
  if (st == KK_OK)
    st = kkk_check_rank(&c, z, "z", 1);
  if (st == KK_OK)
    st = kkk_check_extent(&c, r, "r", 0, h->rows, "the rows of A");
  if (st == KK_OK)
    st = kkk_check_extent(&c, z, "z", 0, h->rows, "the rows of A");
  if (st == KK_OK)
    st = kkk_sptrsv_run(&c, h->lower, r, h->tmp);
  if (st == KK_OK)
    st = kkk_sptrsv_run(&c, h->upper, h->tmp, z);
  return st;
}

const kk_crs_t *kk_spiluk_factors(const kk_spiluk_t *h) { return h ? h->lu : NULL; }
int kk_spiluk_level(const kk_spiluk_t *h) { return h ? h->level : 0; }
int64_t kk_spiluk_nnz(const kk_spiluk_t *h) { return h ? kk_crs_nnz(h->lu) : 0; }

void kk_spiluk_destroy(kk_spiluk_t *h) {
  if (!h)
    return;
  kk_sptrsv_destroy(h->lower);
  kk_sptrsv_destroy(h->upper);
  kk_view_release(h->diag);
  kk_view_release(h->amap);
  kk_view_release(h->pivot);
  kk_view_release(h->tmp);
  kk_crs_destroy(h->lu);
  free(h);
}
