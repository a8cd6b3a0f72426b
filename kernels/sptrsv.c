/* kernels/sptrsv.c -- sparse triangular solves on CRS matrices: level sets computed on the host (symbolic); the numeric phase one launch per level or one sync-free launch for all of them. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers_internal.h"

static const kk_kernel_t *const k_sptrsv[4] = KKK_K4(sptrsv), *const k_sptrsv_team[4] = KKK_K4(sptrsv_team),
                         *const k_sptrsv_sf[4] = KKK_K4(sptrsv_sf), *const k_sptrsv_sfg[4] = KKK_K4(sptrsv_sfg),
                         *const k_sptrsv_sfv[3] = {KK_KERNEL(kkk_sptrsv_sfv_s), KK_KERNEL(kkk_sptrsv_sfv_d),
                                                   KK_KERNEL(kkk_sptrsv_sfv_c)};

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
  /* the sync-free solve's mapping, chosen by its first solve (sf_setup) */
  int sf_ready;         /* chosen */
  int sf_warp;          /* KK_SPTRSV_SYNCFREE=warp: sptrsv_sf, a warp per row; else sptrsv_sfg or sptrsv_sfv */
  int sf_value;         /* sptrsv_sfv: x published in words of its own (not complex double nor =flag) */
  kk_view_t *sf_val;    /* sptrsv_sfv: two words a row (int32 or int64), this solve's half and the next's */
  int sf_half;          /* sptrsv_sfv: the half of sf_val the next solve reads */
  kk_view_t *sf_slot, *sf_span; /* sptrsv_sfg: the padded level order (int32) and each slot's entries (int64 pairs) */
  int64_t sf_slots;     /* slots of sf_slot */
  int32_t sf_lanes, sf_team, sf_per_thread; /* vector length, team size, slots per team thread and ticket */
  int32_t sf_nap;       /* KK_SPTRSV_SYNCFREE_NAP: the longest pause between polls on CUDA, ns */
  int32_t sf_strict;    /* sptrsv_sfg/sfv: spans are the strict triangles, the diagonal beside them (sorted columns) */
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

/* The padded level order (slot, -1 for none) and each slot's entries
 * (span, pairs) of a triangle whose levels are lvl / order, for teams of
 * `team` rows; host arrays of *slots slots, NULL when out of memory.
 * Where the columns are sorted a span is the row's triangle, without its
 * diagonal when `strict` (the diagonal, if any, is then the entry just
 * before the span of an upper row, just after that of a lower one). */
static void sf_slots(const kk_sptrsv_t *h, const int64_t *rp, const int32_t *ci, const int32_t *order, int32_t team,
                     int strict, int32_t **slot, int64_t **span, int64_t *slots) {
  const int lower = h->uplo == KK_LOWER, sorted = h->vendor_ok, dg = strict ? 0 : 1;
  int64_t m = 0;
  for (int64_t l = 0; l < h->nlev; l++)
    m += (h->lvl[l + 1] - h->lvl[l] + team - 1) / team * team;
  *slots = m;
  *slot = malloc(sizeof(int32_t) * (size_t)m);
  *span = malloc(2 * sizeof(int64_t) * (size_t)m);
  if (!*slot || !*span) {
    free(*slot), free(*span);
    *slot = NULL, *span = NULL;
    return;
  }
  int64_t k = 0;
  for (int64_t l = 0; l < h->nlev; l++) {
    const int64_t k1 = k + (h->lvl[l + 1] - h->lvl[l] + team - 1) / team * team;
    for (int64_t o = h->lvl[l]; o < h->lvl[l + 1]; o++, k++) {
      const int64_t i = order[o];
      int64_t b = rp[i], e = rp[i + 1];
      if (sorted) { /* lower: the entries up to the diagonal; upper: from it (dg: the diagonal included) */
        if (lower)
          while (e > b && ci[e - 1] >= i + dg)
            e--;
        else
          while (b < e && ci[b] <= i - dg)
            b++;
      }
      (*slot)[k] = (int32_t)i;
      (*span)[2 * k] = b, (*span)[2 * k + 1] = e;
    }
    for (; k < k1; k++) {
      (*slot)[k] = -1;
      (*span)[2 * k] = (*span)[2 * k + 1] = 0;
    }
  }
}

/* The sync-free solve's mapping (docs/kernels.md), chosen once per handle
 * by its first sync-free solve: sptrsv_sfg, a row per team thread, each
 * level padded to a whole number of teams, so that no row waits on a row
 * of its own team (a team's work-items may run one after the other on
 * OpenCL, and the lanes of a warp in lockstep on HIP).
 *   CUDA, HIP: a row's entries over the 32 lanes of a warp (fewer lanes,
 *     several rows of a warp waiting at once, measured slower on an H200:
 *     docs/benchmarks.md); teams of 128 lanes.
 *   OpenCL, Level Zero: teams of 32 work-items (a row's lanes are a loop
 *     in its work-item).
 *   Both: fewer team threads where the average level has fewer rows than
 *     a team (padding would be most of the slots); a ticket a team's rows.
 *   Host backends (when asked for): teams of one thread, 64 rows a ticket
 *     (rows of one thread run in order, so it may wait on its own).
 * Each slot's entries are its row's triangle where the columns are sorted
 * (the matrix may hold both factors: the other half is not read), else the
 * whole row.  Float, double and complex float publish each row's x in a
 * word of its own (sptrsv_sfv: a waiting lane polls that word and has x
 * when it stops); complex double (16 bytes), and any type under
 * KK_SPTRSV_SYNCFREE=flag, a flag per
 * row beside x (sptrsv_sfg: a poll, an acquire fence and a load of x per
 * dependency).  KK_SPTRSV_SYNCFREE=warp picks the earliest mapping instead
 * (sptrsv_sf: a warp per row, two rows of a ticket one after the other),
 * =2..32 the lanes a row takes on CUDA and HIP; KK_SPTRSV_SYNCFREE_NAP=NS
 * lets a failed poll pause (16 ns doubling up to NS) on CUDA.  Where the
 * columns are sorted a span is the strict triangle and a non-unit solve
 * loads the diagonal beside it (one load, then a reduction of the
 * off-diagonal sum alone); KK_SPTRSV_SYNCFREE_DIAG=sum keeps the diagonal
 * in the span and sums it in the same reduction, as unsorted rows do.
 * All three are read here, once per handle. */
static kk_status_t sf_setup(const kkk_call_t *c, kk_sptrsv_t *h) {
  const char *nap = getenv("KK_SPTRSV_SYNCFREE_NAP");
  if (nap && *nap) {
    char *e;
    const long v = strtol(nap, &e, 10);
    if (*e || v < 0 || v > 1000000)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                     "%s: KK_SPTRSV_SYNCFREE_NAP='%s' is not a pause in nanoseconds from 0 to 1000000", c->op, nap);
    h->sf_nap = (int32_t)v;
  }
  const char *dm = getenv("KK_SPTRSV_SYNCFREE_DIAG");
  int strict = h->vendor_ok;
  if (dm && *dm && strcmp(dm, "load") != 0) {
    if (strcmp(dm, "sum") != 0)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: KK_SPTRSV_SYNCFREE_DIAG='%s' is neither load nor sum", c->op,
                     dm);
    strict = 0;
  }
  const char *env = getenv("KK_SPTRSV_SYNCFREE");
  int32_t lanes = 0;
  int flag = 0;
  if (env && *env && strcmp(env, "auto") != 0) {
    if (strcmp(env, "warp") == 0) {
      h->sf_warp = 1;
      h->sf_ready = 1;
      return KK_OK;
    }
    if (strcmp(env, "flag") == 0) {
      flag = 1;
    } else {
      char *e;
      const long v = strtol(env, &e, 10);
      if (*e || (v != 2 && v != 4 && v != 8 && v != 16 && v != 32))
        return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                       "%s: KK_SPTRSV_SYNCFREE='%s' is none of auto, flag, warp, 2, 4, 8, 16, 32", c->op, env);
      lanes = (int32_t)v;
    }
  }
  const int64_t n = h->rows;
  int64_t *rp = NULL, *span = NULL, slots = 0;
  int32_t *ci = NULL, *slot = NULL, *order = malloc(sizeof(int32_t) * (size_t)n);
  if (!order)
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", c->op);
  kk_status_t st = kkk_crs_host(c->op, h->A, &rp, &ci, NULL);
  if (st == KK_OK) {
    st = kk_space_copy(NULL, order, kk_crs_space(h->A), kk_view_data(h->order), sizeof(int32_t) * (size_t)n, NULL);
    if (st != KK_OK)
      st = kkk_err(st, "%s: matrix '%s': copying the level order to the host: %s", c->op, kkk_crs_label(h->A),
                   kk_last_error());
  }
  /* the shape */
  int32_t team = 1, per = 64;
  const char *be = c->host ? NULL : kk_instance_backend(c->inst);
  const int simt = be && (strcmp(be, "cuda") == 0 || strcmp(be, "hip") == 0);
  if (!c->host) {
    if (!simt)
      lanes = 1; /* SPIR-V: a team thread's lanes are a loop in its work-item */
    else if (!lanes)
      lanes = 32; /* a warp a row: on an H200 it beat 16 and 8 lanes even on rows of 14 entries */
    team = simt ? 128 / (lanes ? lanes : 1) : 32;
    while (team > 1 && (int64_t)team * h->nlev > n) /* the average level holds a team's rows or more */
      team /= 2;
    per = 1;
  } else {
    lanes = 1; /* a loop in the host thread */
  }
  if (st == KK_OK) {
    sf_slots(h, rp, ci, order, team, strict, &slot, &span, &slots);
    if (!slot)
      st = kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", c->op);
  }
  kk_view_t *vs = NULL, *vp = NULL;
  if (st == KK_OK) {
    char label[256];
    snprintf(label, sizeof label, "%s.sptrsv_slots", kkk_crs_label(h->A));
    st = kkk_upload_i32(kk_crs_space(h->A), label, slot, slots, &vs);
    if (st == KK_OK) {
      kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
      snprintf(label, sizeof label, "%s.sptrsv_spans", kkk_crs_label(h->A));
      spec.label = label;
      spec.type = KK_INT64;
      spec.rank = 1;
      spec.extents[0] = 2 * slots;
      spec.layout = KK_LAYOUT_RIGHT;
      spec.space = kk_crs_space(h->A);
      spec.flags = KK_VIEW_NO_INIT;
      st = kk_view_create(&spec, &vp);
      if (st == KK_OK)
        st = kk_space_copy(spec.space, kk_view_data(vp), NULL, span, 2 * sizeof(int64_t) * (size_t)slots, NULL);
    }
    if (st != KK_OK) {
      kk_view_release(vs);
      kk_view_release(vp);
      st = kkk_err(st, "%s: matrix '%s': the sync-free solve's level order: %s", c->op, kkk_crs_label(h->A),
                   kk_last_error());
    }
  }
  if (st == KK_OK) {
    h->sf_slot = vs;
    h->sf_span = vp;
    h->sf_slots = slots;
    h->sf_lanes = lanes;
    h->sf_team = team;
    h->sf_per_thread = per;
    h->sf_value = !flag && c->t <= 2;
    h->sf_strict = strict;
    h->sf_ready = 1;
  }
  free(rp);
  free(ci);
  free(order);
  free(slot);
  free(span);
  return st;
}

/* The sync-free solve: one launch (sf_setup says how).  Its row flags
 * (ready) or words (sf_val) and ticket counter are made by the first
 * solve; the words are set to KKK_SFV_NONE by the first solve and after a
 * failed launch (a solve sets the next one's as it goes). */
static kk_status_t run_syncfree(const kkk_call_t *c, kk_sptrsv_t *h, struct kkk_sptrsv_args *s) {
  kk_status_t st = KK_OK;
  if (!h->sf_ready && (st = sf_setup(c, h)) != KK_OK)
    return st;
  if (!h->ctr) {
    char label[256];
    kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
    spec.label = label;
    spec.rank = 1;
    spec.layout = KK_LAYOUT_RIGHT;
    spec.space = kk_crs_space(h->A);
    snprintf(label, sizeof label, "%s.sptrsv_tickets", kkk_crs_label(h->A));
    spec.type = KK_INT64;
    spec.extents[0] = 1;
    st = kk_view_create(&spec, &h->ctr);
    if (st == KK_OK && h->sf_value) {
      snprintf(label, sizeof label, "%s.sptrsv_values", kkk_crs_label(h->A));
      spec.type = c->t == 0 ? KK_INT32 : KK_INT64;
      spec.extents[0] = 2 * h->rows;
      spec.flags = KK_VIEW_NO_INIT;
      st = kk_view_create(&spec, &h->sf_val);
      h->sf_dirty = 1; /* set them to NONE below */
    } else if (st == KK_OK) {
      snprintf(label, sizeof label, "%s.sptrsv_ready", kkk_crs_label(h->A));
      spec.type = KK_INT32;
      spec.extents[0] = h->rows;
      st = kk_view_create(&spec, &h->ready);
    }
    if (st != KK_OK) {
      kk_view_release(h->ctr);
      h->ctr = NULL;
      return kkk_err(st, "%s: matrix '%s': the sync-free solve's row words or flags: %s", c->op,
                     kkk_crs_label(h->A), kk_last_error());
    }
    h->sf_gen = 0;
  }
  if (h->sf_dirty) {
    const int64_t zero = 0, none_w = c->t == 2 ? KKK_SFV_NONE_c : KKK_SFV_NONE_d;
    const int32_t none_s = KKK_SFV_NONE_s;
    st = kk_deep_copy_fill_async(c->inst, h->ctr, &zero);
    if (st == KK_OK && h->sf_val)
      st = kk_deep_copy_fill_async(c->inst, h->sf_val, c->t == 0 ? (const void *)&none_s : (const void *)&none_w);
    if (st != KK_OK)
      return st;
    h->sf_half = 0;
    h->sf_dirty = 0;
  }
  if (h->ready && h->sf_gen == INT32_MAX) { /* flags of old solves could read as this one's: clear them */
    const int32_t zero = 0;
    st = kk_deep_copy_fill_async(c->inst, h->ready, &zero);
    if (st != KK_OK)
      return st;
    h->sf_gen = 0;
  }
  s->gen = ++h->sf_gen;
  if (h->ready)
    s->ready = kkk_desc(h->ready);
  s->ctr = kkk_desc(h->ctr);
  s->begin = 0;
  kk_team_policy_t p = {sizeof p, 0, 1, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c->inst};
  if (!h->sf_warp) {
    s->order = kkk_desc(h->sf_slot);
    s->span = kkk_desc(h->sf_span);
    s->end = h->sf_slots;
    s->nap_ns = h->sf_nap;
    s->strict = h->sf_strict;
    p.team_size = h->sf_team;
    p.vector_length = h->sf_lanes;
    s->rows_per_team = (int64_t)h->sf_team * h->sf_per_thread;
    p.league_size = (h->sf_slots + s->rows_per_team - 1) / s->rows_per_team;
    s->nteams = p.league_size;
    if (h->sf_value) {
      s->val = kkk_desc(h->sf_val);
      s->vcur = h->sf_half ? h->rows : 0;
      s->vnext = h->rows - s->vcur;
    }
    st = kk_parallel_for_team(c->op, &p, h->sf_value ? k_sptrsv_sfv[c->t] : k_sptrsv_sfg[c->t], s, sizeof *s);
    if (st != KK_OK)
      h->sf_dirty = 1;
    else
      h->sf_half ^= 1;
    return st;
  }
  /* KK_SPTRSV_SYNCFREE=warp: a warp per row, the rows of a ticket one after the other */
  s->end = h->rows;
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
  kk_view_release(h->sf_slot);
  kk_view_release(h->sf_span);
  kk_view_release(h->sf_val);
  free(h->lvl);
  free(h);
}
