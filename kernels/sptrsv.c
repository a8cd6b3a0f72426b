/* kernels/sptrsv.c -- sparse triangular solves on CRS matrices: level sets computed on the host (symbolic); the numeric phase one launch per level or one sync-free launch for all of them. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers_internal.h"

static const kk_kernel_t *const k_sptrsv[4] = KKK_K4(sptrsv), *const k_sptrsv_team[4] = KKK_K4(sptrsv_team),
                         *const k_sptrsv_sf[4] = KKK_K4(sptrsv_sf);

struct kk_sptrsv {
  const kk_crs_t *A;    /* borrowed */
  kk_uplo_t uplo;
  kk_diag_t diag;
  int64_t rows, nnz;    /* A's when the handle was made: a changed matrix is refused */
  int64_t nlev;
  int64_t *lvl;         /* host: nlev + 1 offsets into order */
  kk_view_t *order;     /* A's space: the rows, level after level (int32) */
  int vendor_ok;        /* columns strictly increasing in every row: a vendor library may take the matrix */
  uint64_t gen;         /* bumped when kk changes the values (kkk_sptrsv_values_changed) */
  void *tpl_cache;      /* a vendor library's state for this handle */
  void (*tpl_cache_free)(void *);
  kk_sptrsv_algo_t algo;
  kk_view_t *ready, *ctr; /* the sync-free solve's row flags and ticket counter (made by its first solve) */
  int32_t sf_gen;       /* the flag value of the last sync-free solve */
  int sf_dirty;         /* a sync-free launch failed: the counter may not be 0 */
};

kk_status_t kkk_crs_host(const char *op, const kk_crs_t *A, int64_t **rp, int32_t **ci, void **vals) {
  const int64_t n = kk_crs_rows(A), nnz = kk_crs_nnz(A);
  const size_t es = kkk_elem_size(kk_crs_type(A));
  kk_space_t *sp = kk_crs_space(A);
  *rp = malloc(sizeof(int64_t) * (size_t)(n + 1));
  *ci = malloc(sizeof(int32_t) * (size_t)(nnz > 0 ? nnz : 1));
  if (vals)
    *vals = malloc(es * (size_t)(nnz > 0 ? nnz : 1));
  kk_status_t st = *rp && *ci && (!vals || *vals) ? KK_OK : KK_ERROR_OUT_OF_MEMORY;
  if (st == KK_OK)
    st = kk_space_copy(NULL, *rp, sp, kk_view_data(kk_crs_row_ptr(A)), sizeof(int64_t) * (size_t)(n + 1), NULL);
  if (st == KK_OK && nnz > 0)
    st = kk_space_copy(NULL, *ci, sp, kk_view_data(kk_crs_col_idx(A)), sizeof(int32_t) * (size_t)nnz, NULL);
  if (st == KK_OK && vals && nnz > 0)
    st = kk_space_copy(NULL, *vals, sp, kk_view_data(kk_crs_values(A)), es * (size_t)nnz, NULL);
  if (st != KK_OK) {
    free(*rp), free(*ci);
    *rp = NULL, *ci = NULL;
    if (vals) {
      free(*vals);
      *vals = NULL;
    }
    return st == KK_ERROR_OUT_OF_MEMORY ? kkk_err(st, "%s: matrix '%s': out of host memory", op, kkk_crs_label(A))
                                        : kkk_err(st, "%s: matrix '%s': copying its structure to the host: %s", op,
                                                  kkk_crs_label(A), kk_last_error());
  }
  return KK_OK;
}

kk_status_t kkk_levels(const char *op, const int64_t *rp, const int32_t *ci, int64_t n, int lower, int32_t *order,
                       int64_t **lvl, int64_t *nlev) {
  int32_t *lev = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
  if (!lev)
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  int32_t top = -1;
  /* a row's level is one more than the highest level it depends on: rows
   * depend on smaller rows (lower) or larger ones (upper), so one pass in
   * that order sees every dependency's level first */
  for (int64_t s = 0; s < n; s++) {
    const int64_t i = lower ? s : n - 1 - s;
    int32_t l = 0;
    for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
      const int64_t j = ci[p];
      if ((lower ? j < i : j > i) && lev[j] + 1 > l)
        l = lev[j] + 1;
    }
    lev[i] = l;
    if (l > top)
      top = l;
  }
  *nlev = (int64_t)top + 1;
  *lvl = calloc((size_t)*nlev + 2, sizeof(int64_t));
  if (!*lvl) {
    free(lev);
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  }
  int64_t *cnt = *lvl;
  for (int64_t i = 0; i < n; i++)
    cnt[lev[i] + 2]++;
  for (int64_t l = 0; l < *nlev; l++)
    cnt[l + 2] += cnt[l + 1];
  /* cnt[l + 1] is now where level l starts; filling moves it to its end */
  for (int64_t i = 0; i < n; i++)
    order[cnt[lev[i] + 1]++] = (int32_t)i;
  free(lev);
  return KK_OK;
}

kk_status_t kkk_upload_i32(kk_space_t *space, const char *label, const int32_t *h, int64_t n, kk_view_t **out) {
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = label;
  spec.type = KK_INT32;
  spec.rank = 1;
  spec.extents[0] = n;
  spec.layout = KK_LAYOUT_RIGHT;
  spec.space = space;
  spec.flags = KK_VIEW_NO_INIT;
  kk_status_t st = kk_view_create(&spec, out);
  if (st == KK_OK && n > 0)
    st = kk_space_copy(space, kk_view_data(*out), NULL, h, sizeof(int32_t) * (size_t)n, NULL);
  if (st != KK_OK) {
    kk_view_release(*out);
    *out = NULL;
  }
  return st;
}

kk_status_t kkk_sptrsv_make(const char *op, const kk_crs_t *A, kk_uplo_t uplo, kk_diag_t diag, const int32_t *order,
                            int64_t *lvl, int64_t nlev, int vendor_ok, kk_sptrsv_t **out) {
  kk_sptrsv_t *h = calloc(1, sizeof *h);
  if (!h) {
    free(lvl);
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  }
  h->A = A;
  h->uplo = uplo;
  h->diag = diag;
  h->rows = kk_crs_rows(A);
  h->nnz = kk_crs_nnz(A);
  h->nlev = nlev;
  h->lvl = lvl;
  h->vendor_ok = vendor_ok;
  char label[256];
  snprintf(label, sizeof label, "%s.sptrsv_order", kkk_crs_label(A));
  kk_status_t st = kkk_upload_i32(kk_crs_space(A), label, order, h->rows, &h->order);
  if (st != KK_OK) {
    kk_sptrsv_destroy(h);
    return kkk_err(st, "%s: matrix '%s': %s", op, kkk_crs_label(A), kk_last_error());
  }
  *out = h;
  return KK_OK;
}

int kkk_crs_sorted(const int64_t *rp, const int32_t *ci, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    for (int64_t p = rp[i] + 1; p < rp[i + 1]; p++)
      if (ci[p] <= ci[p - 1])
        return 0;
  return 1;
}

/* The sum of row i's diagonal entries is zero (or there is none). */
static int zero_diag(kk_type_t t, const int64_t *rp, const int32_t *ci, const void *vals, int64_t i) {
  double re = 0, im = 0;
  for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
    if (ci[p] != i)
      continue;
    switch (t) {
    case KK_FLOAT:
      re += ((const float *)vals)[p];
      break;
    case KK_DOUBLE:
      re += ((const double *)vals)[p];
      break;
    case KK_COMPLEX_FLOAT:
      re += ((const float *)vals)[2 * p], im += ((const float *)vals)[2 * p + 1];
      break;
    default:
      re += ((const double *)vals)[2 * p], im += ((const double *)vals)[2 * p + 1];
      break;
    }
  }
  return re == 0 && im == 0;
}

kk_status_t kk_sptrsv_symbolic(const kk_crs_t *A, kk_uplo_t uplo, kk_diag_t diag, kk_sptrsv_t **out) {
  static const char *op = "kk_sptrsv_symbolic";
  if (!out)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: out is NULL", op);
  *out = NULL;
  kk_status_t st = kkk_crs_check(op, A);
  if (st != KK_OK)
    return st;
  const int64_t n = kk_crs_rows(A);
  if (kk_crs_cols(A) != n)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s' is %lld x %lld; a triangular solve needs a square one",
                   op, kkk_crs_label(A), (long long)n, (long long)kk_crs_cols(A));
  if (uplo != KK_LOWER && uplo != KK_UPPER)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: uplo %d is neither KK_LOWER nor KK_UPPER", op, (int)uplo);
  if (diag != KK_DIAG_NONUNIT && diag != KK_DIAG_UNIT)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: diag %d is neither KK_DIAG_NONUNIT nor KK_DIAG_UNIT", op, (int)diag);
  int64_t *rp = NULL, *lvl = NULL, nlev = 0;
  int32_t *ci = NULL, *order = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
  void *vals = NULL;
  if (!order)
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  st = kkk_crs_host(op, A, &rp, &ci, diag == KK_DIAG_NONUNIT ? &vals : NULL);
  for (int64_t i = 0; st == KK_OK && vals && i < n; i++)
    if (zero_diag(kk_crs_type(A), rp, ci, vals, i))
      st = kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: matrix '%s' is singular: row %lld has %s diagonal entry (a solve with KK_DIAG_NONUNIT "
                   "divides by it)",
                   op, kkk_crs_label(A), (long long)i, "a zero or no");
  if (st == KK_OK)
    st = kkk_levels(op, rp, ci, n, uplo == KK_LOWER, order, &lvl, &nlev);
  if (st == KK_OK)
    st = kkk_sptrsv_make(op, A, uplo, diag, order, lvl, nlev, kkk_crs_sorted(rp, ci, n), out);
  free(rp);
  free(ci);
  free(vals);
  free(order);
  return st;
}

/* The sync-free solve: one launch.  GPUs: teams of warps (a warp per team
 * thread, so that the team's threads may wait on each other) on CUDA and
 * HIP, of one thread elsewhere (an OpenCL work-group's work-items may run
 * one after the other, and one must never wait on another); a ticket
 * takes two rows per team thread (fewer tickets, so less contention on the
 * counter, while rows next to each other in order are mostly of one level
 * and independent).  Host backends (when asked for): 64 rows per ticket. */
static kk_status_t run_syncfree(const kkk_call_t *c, kk_sptrsv_t *h, struct kkk_sptrsv_args *s) {
  kk_status_t st = KK_OK;
  if (!h->ready) {
    char label[256];
    kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
    spec.label = label;
    spec.rank = 1;
    spec.layout = KK_LAYOUT_RIGHT;
    spec.space = kk_crs_space(h->A);
    snprintf(label, sizeof label, "%s.sptrsv_ready", kkk_crs_label(h->A));
    spec.type = KK_INT32;
    spec.extents[0] = h->rows;
    st = kk_view_create(&spec, &h->ready);
    if (st == KK_OK) {
      snprintf(label, sizeof label, "%s.sptrsv_tickets", kkk_crs_label(h->A));
      spec.type = KK_INT64;
      spec.extents[0] = 1;
      st = kk_view_create(&spec, &h->ctr);
    }
    if (st != KK_OK) {
      kk_view_release(h->ready);
      h->ready = NULL;
      return kkk_err(st, "%s: matrix '%s': the sync-free solve's flags: %s", c->op, kkk_crs_label(h->A),
                     kk_last_error());
    }
    h->sf_gen = 0;
  }
  if (h->sf_dirty) {
    const int64_t zero = 0;
    st = kk_deep_copy_fill_async(c->inst, h->ctr, &zero);
    if (st != KK_OK)
      return st;
    h->sf_dirty = 0;
  }
  if (h->sf_gen == INT32_MAX) { /* flags of old solves could read as this one's: clear them */
    const int32_t zero = 0;
    st = kk_deep_copy_fill_async(c->inst, h->ready, &zero);
    if (st != KK_OK)
      return st;
    h->sf_gen = 0;
  }
  s->gen = ++h->sf_gen;
  s->ready = kkk_desc(h->ready);
  s->ctr = kkk_desc(h->ctr);
  s->begin = 0;
  s->end = h->rows;
  kk_team_policy_t p = {sizeof p, 0, 1, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c->inst};
  if (c->host) {
    s->rows_per_team = 64;
  } else {
    const char *be = kk_instance_backend(c->inst);
    const int warps = be && (strcmp(be, "cuda") == 0 || strcmp(be, "hip") == 0);
    p.vector_length = KK_AUTO; /* the device's warp */
    p.team_size = warps ? 4 : 1;
    s->rows_per_team = 2 * (int64_t)p.team_size;
  }
  p.league_size = (h->rows + s->rows_per_team - 1) / s->rows_per_team;
  s->nteams = p.league_size;
  st = kk_parallel_for_team(c->op, &p, k_sptrsv_sf[c->t], s, sizeof *s);
  if (st != KK_OK)
    h->sf_dirty = 1;
  return st;
}

kk_status_t kkk_sptrsv_run(const kkk_call_t *c, kk_sptrsv_t *h, kk_view_t *b, kk_view_t *x) {
  struct kkk_sptrsv_args s;
  memset(&s, 0, sizeof s);
  s.row_ptr = kkk_desc(kk_crs_row_ptr(h->A));
  s.col_idx = kkk_desc(kk_crs_col_idx(h->A));
  s.vals = kkk_desc(kk_crs_values(h->A));
  s.order = kkk_desc(h->order);
  s.b = kkk_desc(b);
  s.x = kkk_desc(x);
  s.lower = h->uplo == KK_LOWER;
  s.unit = h->diag == KK_DIAG_UNIT;
  if (h->rows > 0 && h->vendor_ok) {
    /* cuSPARSE (cusparseSpSV) where it is loaded and takes the case */
    kkk_tpl_call_t t = {.op = KKK_TPL_SPSV, .c = c, .crs = h->A, .uplo = !s.lower, .unit = s.unit,
                        .cache = &h->tpl_cache, .cache_free = &h->tpl_cache_free, .values_gen = h->gen};
    t.x = kkk_tvec(&s.b);
    t.y = kkk_tvec(&s.x);
    kk_status_t st;
    if (kkk_tpl_try(&t, &st))
      return st;
  }
  if (h->rows > 0 && (h->algo == KK_SPTRSV_SYNCFREE || (h->algo == KK_SPTRSV_AUTO && !c->host)))
    return run_syncfree(c, h, &s);
  if (c->host) {
    /* a row per iteration: the host kernel's loop over the row is short and sequential */
    for (int64_t l = 0; l < h->nlev; l++) {
      kk_status_t st = kk_parallel_for(c->op, KK_RANGE_ON(c->inst, h->lvl[l], h->lvl[l + 1]), k_sptrsv[c->t], &s,
                                       sizeof s);
      if (st != KK_OK)
        return st;
    }
    return KK_OK;
  }
  /* GPUs: the SpMV's shape for rows of the triangle's average length (about half the matrix's entries) */
  kk_team_policy_t p = {sizeof p, 0, 1, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c->inst};
  int64_t long_row = 0;
  kkk_spmv_shape(h->rows, (h->nnz + h->rows) / 2, &p.team_size, &p.vector_length, &s.rows_per_team, &long_row);
  /* teams of about 64 lanes, a row per thread: a level is often a few
   * thousand rows, and small teams spread them over more multiprocessors */
  p.team_size = 64 / p.vector_length > 0 ? 64 / p.vector_length : 1;
  s.rows_per_team = p.team_size;
  for (int64_t l = 0; l < h->nlev; l++) {
    s.begin = h->lvl[l];
    s.end = h->lvl[l + 1];
    p.league_size = (s.end - s.begin + s.rows_per_team - 1) / s.rows_per_team;
    kk_status_t st = kk_parallel_for_team(c->op, &p, k_sptrsv_team[c->t], &s, sizeof s);
    if (st != KK_OK)
      return st;
  }
  return KK_OK;
}

kk_status_t kk_sptrsv_solve(kk_instance_t *instance, kk_sptrsv_t *h, kk_view_t *b, kk_view_t *x) {
  static const char *op = "kk_sptrsv_solve";
  static const char *const names[] = {"b", "x", "A's values", "A's row offsets", "A's column indices", "the handle's order"};
  if (!h)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: the handle is NULL", op);
  kk_status_t st = kkk_crs_check(op, h->A);
  if (st != KK_OK)
    return st;
  if (kk_crs_rows(h->A) != h->rows || kk_crs_nnz(h->A) != h->nnz)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s' changed its structure since the symbolic phase", op,
                   kkk_crs_label(h->A));
  kk_view_t *const v[] = {b, x, kk_crs_values(h->A), kk_crs_row_ptr(h->A), kk_crs_col_idx(h->A), h->order};
  kkk_call_t c;
  st = kkk_begin(&c, op, instance, 6, v, names, 3);
  if (st == KK_OK)
    st = kkk_check_rank(&c, b, "b", 1);
  if (st == KK_OK)
    st = kkk_check_rank(&c, x, "x", 1);
  if (st == KK_OK)
    st = kkk_check_extent(&c, b, "b", 0, h->rows, "the rows of A");
  if (st == KK_OK)
    st = kkk_check_extent(&c, x, "x", 0, h->rows, "the rows of A");
  if (st != KK_OK)
    return st;
  return kkk_sptrsv_run(&c, h, b, x);
}

int64_t kk_sptrsv_levels(const kk_sptrsv_t *h) { return h ? h->nlev : 0; }

kk_status_t kk_sptrsv_set_algorithm(kk_sptrsv_t *h, kk_sptrsv_algo_t algo) {
  if (!h)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sptrsv_set_algorithm: the handle is NULL");
  if (algo != KK_SPTRSV_AUTO && algo != KK_SPTRSV_LEVELS && algo != KK_SPTRSV_SYNCFREE)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "kk_sptrsv_set_algorithm: algorithm %d is none of KK_SPTRSV_AUTO, KK_SPTRSV_LEVELS, "
                   "KK_SPTRSV_SYNCFREE", (int)algo);
  h->algo = algo;
  return KK_OK;
}

kk_sptrsv_algo_t kk_sptrsv_algorithm(const kk_sptrsv_t *h) { return h ? h->algo : KK_SPTRSV_AUTO; }

void kkk_sptrsv_levels_of(const kk_sptrsv_t *h, const int64_t **lvl, kk_view_t **order) {
  *lvl = h->lvl;
  *order = h->order;
}

void kkk_sptrsv_values_changed(kk_sptrsv_t *h) { h->gen++; }

void kk_sptrsv_destroy(kk_sptrsv_t *h) {
  if (!h)
    return;
  if (h->tpl_cache && h->tpl_cache_free)
    h->tpl_cache_free(h->tpl_cache);
  kk_view_release(h->order);
  kk_view_release(h->ready);
  kk_view_release(h->ctr);
  free(h->lvl);
  free(h);
}
