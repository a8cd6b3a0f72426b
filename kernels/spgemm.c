/* kernels/spgemm.c -- SpGEMM (C = A B and the Jacobi-fused C = (I - w D^-1 A) B) and SpAdd (C = a A + b B), each a symbolic and a numeric phase over a handle. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdlib.h>
#include <string.h>

#include "sparse_ops_internal.h"

static const kk_kernel_t *const k_fill[4] = KKK_K4(sg_fill), *const k_fill_team[4] = KKK_K4(sg_fill_team);
static const kk_kernel_t *const k_merge[4] = KKK_K4(sa_fill);

enum { KIND_PRODUCT = 0, KIND_JACOBI = 1, KIND_ADD = 2 };
static const char *const kind_name[] = {"kk_sparse_spgemm_symbolic", "kk_sparse_spgemm_symbolic (KK_SPGEMM_JACOBI)",
                                        "kk_sparse_spadd_symbolic"};

struct kk_spgemm_handle {
  int kind, flags;
  kk_type_t type;
  kk_space_t *space;
  int64_t m, n, k;           /* C is m x n; A's columns k */
  int64_t annz, bnnz, nnz;   /* the inputs' entries the symbolic phase saw; C's */
  int64_t *rp;               /* C's row offsets (host copy, m + 1) */
  kk_view_t *tsz, *gofs;     /* per row: table slots, global offset or -1 */
  kk_view_t *gkeys, *gvals;  /* the numeric phase's global tables (made by its first call) */
  int64_t gtotal;
  int64_t cap, cap_sym, rows_per_team;
  int32_t team_size;
  int host;
  int merge;                 /* SpAdd of sorted rows: C's rows merged from A's and B's (no tables) */
  const kk_crs_t *made;      /* the C the numeric phase made */
};

/* ---- shared with color.c and gs.c ---------------------------------------------------- */

kk_status_t kkk_work_view(const char *op, const char *what, kk_space_t *space, kk_type_t type, int64_t n,
                          kk_view_t **out) {
  char label[128];
  snprintf(label, sizeof label, "%s.%s", op, what);
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = label;
  spec.type = type;
  spec.rank = 1;
  spec.extents[0] = n;
  spec.layout = KK_LAYOUT_RIGHT;
  spec.space = space;
  spec.flags = KK_VIEW_NO_INIT;
  *out = NULL;
  kk_status_t st = kk_view_create(&spec, out);
  if (st != KK_OK)
    return kkk_err(st, "%s: work array %s of %lld elements: %s", op, what, (long long)n, kk_last_error());
  return KK_OK;
}

kk_status_t kkk_begin_crs(kkk_call_t *c, const char *op, kk_instance_t *inst, const kk_crs_t *A, const kk_crs_t *B,
                          int nextra, kk_view_t *const *extra, const char *const *extra_names) {
  kk_status_t st = kkk_crs_check(op, A);
  if (st == KK_OK && B)
    st = kkk_crs_check(op, B);
  if (st != KK_OK)
    return st;
  kk_view_t *v[10];
  const char *names[10];
  int n = 0, nt;
  v[n] = kk_crs_values(A);
  names[n++] = "A's values";
  if (B) {
    v[n] = kk_crs_values(B);
    names[n++] = "B's values";
  }
  for (int i = 0; i < nextra && i < 4; i++) {
    v[n] = extra[i];
    names[n++] = extra_names[i];
  }
  nt = n;
  v[n] = kk_crs_row_ptr(A);
  names[n++] = "A's row offsets";
  v[n] = kk_crs_col_idx(A);
  names[n++] = "A's column indices";
  if (B) {
    v[n] = kk_crs_row_ptr(B);
    names[n++] = "B's row offsets";
    v[n] = kk_crs_col_idx(B);
    names[n++] = "B's column indices";
  }
  return kkk_begin(c, op, inst, n, v, names, nt);
}

/* ---- the launch ------------------------------------------------------------------------ */

/* The launch shape and the scratch tables' slots.  Host backends: a
 * thread per team taking 64 rows, a row at a time, tables of up to 4096
 * slots in the thread's scratch.  GPUs: a team of 32 threads per row, the
 * row's table in team scratch, at most 48 KiB of it (2048 slots of keys
 * and double values; the symbolic phase, keys only, 8192), so that a row
 * of the 27-point matrix squared (729 terms, 125 columns) stays in scratch
 * in both phases; each phase then asks for what its largest row needs
 * (fit_cap).  cap_sym: the symbolic phase's. */
static void shape(const kkk_call_t *c, kk_spgemm_handle_t *h) {
  h->host = c->host;
  if (c->host) {
    h->team_size = 1;
    h->rows_per_team = 64;
    h->cap = h->cap_sym = 4096;
    return;
  }
  h->team_size = 32;
  h->rows_per_team = 1;
  const size_t max = kkk_scratch_max(c), es = kkk_elem_size(h->type);
  const size_t have = max < 48 * 1024 ? max : 48 * 1024;
  h->cap = h->cap_sym = 0;
  for (int64_t s = 8; s <= 8192 && kk_scratch_size(4, s) + kk_scratch_size(es, s) <= have; s *= 2)
    h->cap = s;
  for (int64_t s = 8; s <= 16384 && kk_scratch_size(4, s) <= have; s *= 2)
    h->cap_sym = s;
}

/* The scratch table slots a launch asks for: the smallest power of two
 * (at least 8) that holds the largest row's table (twice its upper bound
 * ub), at most cap. */
static int64_t fit_cap(int64_t cap, int64_t ub) {
  int64_t ts = 8;
  while (ts < 2 * ub && ts < cap)
    ts *= 2;
  return ts < cap ? ts : cap;
}

/* Runs the count kernel (with_values 0) or the fill kernel `k` (host) /
 * `kteam` (GPUs) with the scratch tables of a->cap slots. */
static kk_status_t launch(const kkk_call_t *c, const kk_spgemm_handle_t *h, const kk_kernel_t *k,
                          const kk_kernel_t *kteam, const struct kkk_sg_args *a, int with_values) {
  kk_team_policy_t p = {sizeof p, 0, h->team_size, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c->inst};
  const uint64_t bytes = a->cap > 0 ? kk_scratch_size(sizeof(int32_t), a->cap) +
                                          (with_values ? kk_scratch_size(kkk_elem_size(h->type), a->cap) : 0)
                                    : 0;
  if (c->host) {
    p.scratch_thread[0] = bytes;
    p.schedule = KK_SCHEDULE_DYNAMIC;
    p.chunk = 1;
  } else {
    p.scratch_team[0] = bytes;
    k = kteam;
  }
  p.league_size = (h->m + h->rows_per_team - 1) / h->rows_per_team;
  return kk_parallel_for_team(c->op, &p, k, a, sizeof *a);
}

static void base_args(struct kkk_sg_args *a, const kk_spgemm_handle_t *h, const kk_crs_t *A, const kk_crs_t *B) {
  memset(a, 0, sizeof *a);
  a->arp = kkk_desc(kk_crs_row_ptr(A));
  a->aci = kkk_desc(kk_crs_col_idx(A));
  a->av = kkk_desc(kk_crs_values(A));
  a->brp = kkk_desc(kk_crs_row_ptr(B));
  a->bci = kkk_desc(kk_crs_col_idx(B));
  a->bv = kkk_desc(kk_crs_values(B));
  if (h->tsz)
    a->tsz = kkk_desc(h->tsz);
  if (h->gofs)
    a->gofs = kkk_desc(h->gofs);
  if (h->gkeys)
    a->gkeys = kkk_desc(h->gkeys);
  if (h->gvals)
    a->gvals = kkk_desc(h->gvals);
  a->rows = h->m;
  a->rows_per_team = h->rows_per_team;
  a->cap = h->cap;
  a->flags = h->kind == KIND_ADD ? KKK_SG_AROW | KKK_SG_BROW
             : h->kind == KIND_JACOBI ? KKK_SG_AB | KKK_SG_BROW | KKK_SG_DINV
                                      : KKK_SG_AB;
  if (h->flags & KK_SPARSE_SORTED)
    a->flags |= KKK_SG_SORT;
}

void kk_sparse_spgemm_destroy(kk_spgemm_handle_t *h) {
  if (!h)
    return;
  kk_view_release(h->tsz);
  kk_view_release(h->gofs);
  kk_view_release(h->gkeys);
  kk_view_release(h->gvals);
  free(h->rp);
  free(h);
}

/* ---- symbolic ------------------------------------------------------------------------- */

static kk_status_t symbolic(int kind, kk_instance_t *inst, const kk_crs_t *A, const kk_crs_t *B, int flags,
                            kk_spgemm_handle_t **out, int64_t *nnz) {
  const char *op = kind_name[kind];
  if (out)
    *out = NULL;
  kkk_call_t c;
  kk_status_t st = kkk_begin_crs(&c, op, inst, A, B, 0, NULL, NULL);
  if (st != KK_OK)
    return st;
  if (!out)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: handle is NULL", op);
  const int allowed = KK_SPARSE_SORTED | (kind != KIND_ADD ? KK_SPGEMM_JACOBI : 0);
  if (flags & ~allowed)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: flags 0x%x has unknown bits (this routine takes 0x%x)", op,
                   (unsigned)flags, (unsigned)allowed);
  const int64_t am = kk_crs_rows(A), ak = kk_crs_cols(A), bk = kk_crs_rows(B), bn = kk_crs_cols(B);
  if (kind == KIND_ADD) {
    if (am != bk || ak != bn)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: A '%s' is %lld x %lld but B '%s' is %lld x %lld; a sum needs "
                     "equal shapes", op, kkk_crs_label(A), (long long)am, (long long)ak, kkk_crs_label(B),
                     (long long)bk, (long long)bn);
  } else {
    if (ak != bk)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: A '%s' is %lld x %lld but B '%s' is %lld x %lld; A B needs A's "
                     "columns equal to B's rows", op, kkk_crs_label(A), (long long)am, (long long)ak,
                     kkk_crs_label(B), (long long)bk, (long long)bn);
    if (kind == KIND_JACOBI && am != ak)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: A '%s' is %lld x %lld; (I - w D^-1 A) B needs A square", op,
                     kkk_crs_label(A), (long long)am, (long long)ak);
  }
  kk_spgemm_handle_t *h = calloc(1, sizeof *h);
  if (!h || !(h->rp = calloc((size_t)am + 1, sizeof(int64_t)))) {
    free(h);
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", op);
  }
  h->kind = kind;
  h->flags = flags & KK_SPARSE_SORTED;
  h->type = c.type;
  h->space = kk_crs_space(A);
  h->m = am;
  h->n = bn;
  h->k = ak;
  h->annz = kk_crs_nnz(A);
  h->bnnz = kk_crs_nnz(B);
  shape(&c, h);
  kk_view_t *cnt = NULL, *crp = NULL;
  struct kkk_sg_args a;
  st = kkk_work_view(op, "row_count", h->space, KK_INT64, am, &cnt);
  if (st == KK_OK)
    st = kkk_work_view(op, "row_ptr", h->space, KK_INT64, am + 1, &crp);
  if (st == KK_OK && kind == KIND_ADD) {
    /* rows sorted in both inputs (repeats side by side allowed): C's rows
     * are merges, counted here; when a row of either is out of order, the
     * hash accumulator below counts them instead */
    int64_t unsorted = 0;
    base_args(&a, h, A, B);
    a.cnt = kkk_desc(cnt);
    a.crp = kkk_desc(crp);
    if (am > 0)
      st = kkk_reduce(&c, KK_KERNEL(kkk_sa_count), &a, sizeof a, am, &unsorted, sizeof unsorted);
    h->merge = st == KK_OK && unsorted == 0;
  }
  if (st == KK_OK && h->merge && am > 0) {
    st = kk_parallel_scan(op, KK_RANGE_ON(c.inst, 0, am), KK_KERNEL(kkk_sg_offsets), &a, sizeof a, &h->nnz,
                          sizeof h->nnz);
    if (st == KK_OK)
      st = kk_instance_fence(c.inst);
    if (st == KK_OK)
      st = kk_space_copy(NULL, h->rp, h->space, kk_view_data(crp), sizeof(int64_t) * (size_t)(am + 1), NULL);
  }
  if (st == KK_OK && !h->merge)
    st = kkk_work_view(op, "table_size", h->space, KK_INT64, am, &h->tsz);
  if (st == KK_OK && !h->merge)
    st = kkk_work_view(op, "table_offset", h->space, KK_INT64, am, &h->gofs);
  if (st == KK_OK && am > 0 && !h->merge && !c.host) {
    /* GPUs: the team scratch only as large as the largest row's table
     * needs (a smaller request leaves room for more teams per SM) */
    int64_t maxub = 0;
    base_args(&a, h, A, B);
    st = kkk_reduce(&c, KK_KERNEL(kkk_sg_maxub), &a, sizeof a, am, &maxub, sizeof maxub);
    h->cap_sym = fit_cap(h->cap_sym, maxub);
  }
  if (st == KK_OK && am > 0 && !h->merge) {
    base_args(&a, h, A, B);
    a.cap = h->cap_sym;
    st = kk_parallel_scan(op, KK_RANGE_ON(c.inst, 0, am), KK_KERNEL(kkk_sg_size), &a, sizeof a, &h->gtotal,
                          sizeof h->gtotal);
    if (st == KK_OK)
      st = kkk_work_view(op, "keys", h->space, KK_INT32, h->gtotal, &h->gkeys);
    if (st == KK_OK) {
      base_args(&a, h, A, B);
      a.cap = h->cap_sym;
      a.cnt = kkk_desc(cnt);
      a.crp = kkk_desc(crp);
      st = launch(&c, h, KK_KERNEL(kkk_sg_count), KK_KERNEL(kkk_sg_count_team), &a, 0);
    }
    if (st == KK_OK)
      st = kk_parallel_scan(op, KK_RANGE_ON(c.inst, 0, am), KK_KERNEL(kkk_sg_offsets), &a, sizeof a, &h->nnz,
                            sizeof h->nnz);
    /* the numeric phase's tables: from the counts, in the same views; the
     * symbolic phase's global keys go (the numeric phase makes its own) */
    if (st == KK_OK && !c.host) {
      int64_t maxcnt = 0;
      a.flags |= KKK_SG_FROMCNT;
      st = kkk_reduce(&c, KK_KERNEL(kkk_sg_maxub), &a, sizeof a, am, &maxcnt, sizeof maxcnt);
      h->cap = fit_cap(h->cap, maxcnt);
    }
    if (st == KK_OK) {
      a.flags |= KKK_SG_FROMCNT;
      a.cap = h->cap;
      st = kk_parallel_scan(op, KK_RANGE_ON(c.inst, 0, am), KK_KERNEL(kkk_sg_size), &a, sizeof a, &h->gtotal,
                            sizeof h->gtotal);
    }
    if (st == KK_OK)
      st = kk_instance_fence(c.inst);
    kk_view_release(h->gkeys);
    h->gkeys = NULL;
    if (st == KK_OK)
      st = kk_space_copy(NULL, h->rp, h->space, kk_view_data(crp), sizeof(int64_t) * (size_t)(am + 1), NULL);
  }
  kk_view_release(cnt);
  kk_view_release(crp);
  if (st != KK_OK) {
    kk_sparse_spgemm_destroy(h);
    return st;
  }
  *out = h;
  if (nnz)
    *nnz = h->nnz;
  return KK_OK;
}

kk_status_t kk_sparse_spgemm_symbolic(kk_instance_t *instance, const kk_crs_t *A, const kk_crs_t *B, int flags,
                                      kk_spgemm_handle_t **handle, int64_t *nnz) {
  return symbolic(flags & KK_SPGEMM_JACOBI ? KIND_JACOBI : KIND_PRODUCT, instance, A, B, flags, handle, nnz);
}

kk_status_t kk_sparse_spadd_symbolic(kk_instance_t *instance, const kk_crs_t *A, const kk_crs_t *B, int flags,
                                     kk_spgemm_handle_t **handle, int64_t *nnz) {
  return symbolic(KIND_ADD, instance, A, B, flags, handle, nnz);
}

/* ---- numeric ---------------------------------------------------------------------------- */

static kk_status_t numeric(int kind, const char *op, kk_instance_t *inst, kk_spgemm_handle_t *h, kk_scalar_t fa,
                           kk_scalar_t fb, kk_view_t *dinv, const kk_crs_t *A, const kk_crs_t *B, kk_crs_t **C) {
  kkk_call_t c;
  static const char *const dn[] = {"dinv"};
  kk_status_t st = kkk_begin_crs(&c, op, inst, A, B, dinv ? 1 : 0, &dinv, dn);
  if (st != KK_OK)
    return st;
  if (!h || !C)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op, !h ? "handle" : "C");
  if (h->kind != kind)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: the handle comes from %s", op, kind_name[h->kind]);
  if (kk_crs_rows(A) != h->m || kk_crs_cols(A) != h->k || kk_crs_cols(B) != h->n || kk_crs_nnz(A) != h->annz ||
      kk_crs_nnz(B) != h->bnnz || c.type != h->type)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: A '%s' (%lld x %lld, %lld entries, %s) and B '%s' (%lld x %lld, %lld entries) are not the "
                   "matrices of the symbolic phase (A %lld x %lld, %lld entries, %s; B %lld entries, %lld columns)",
                   op, kkk_crs_label(A), (long long)kk_crs_rows(A), (long long)kk_crs_cols(A),
                   (long long)kk_crs_nnz(A), kk_type_name(c.type), kkk_crs_label(B), (long long)kk_crs_rows(B),
                   (long long)kk_crs_cols(B), (long long)kk_crs_nnz(B), (long long)h->m, (long long)h->k,
                   (long long)h->annz, kk_type_name(h->type), (long long)h->bnnz, (long long)h->n);
  if (h->host != c.host)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: the symbolic phase ran on a %s backend, this call on a %s one", op,
                   h->host ? "host" : "device", c.host ? "host" : "device");
  if (dinv) {
    st = kkk_check_rank(&c, dinv, "dinv", 1);
    if (st == KK_OK)
      st = kkk_check_extent(&c, dinv, "dinv", 0, h->m, "the rows of A");
    if (st != KK_OK)
      return st;
  }
  st = kkk_check_scalar(&c, fa, kind == KIND_ADD ? "a" : "omega");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, fb, "b");
  if (st != KK_OK)
    return st;
  if (*C) {
    if (*C != h->made || kkk_crs_check(op, *C) != KK_OK)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: C '%s' is not the matrix this handle's numeric phase made "
                     "(pass NULL in *C for a new one)", op, kkk_crs_label(*C));
  }
  if (!h->merge && !h->gvals) {
    st = kkk_work_view(op, "keys", h->space, KK_INT32, h->gtotal, &h->gkeys);
    if (st == KK_OK)
      st = kkk_work_view(op, "values", h->space, h->type, h->gtotal, &h->gvals);
    if (st != KK_OK) {
      kk_view_release(h->gkeys);
      h->gkeys = NULL;
      return st;
    }
  }
  kk_crs_t *out = *C;
  if (!out) {
    st = kkk_crs_make(op, h->space, "C", h->type, h->m, h->n, h->rp, &out);
    if (st != KK_OK)
      return st;
  }
  struct kkk_sg_args a;
  base_args(&a, h, A, B);
  a.fa = kk_cdouble(fa.re, fa.im);
  a.fb = kk_cdouble(fb.re, fb.im);
  if (dinv)
    a.dinv = kkk_desc(dinv);
  a.crp = kkk_desc(kk_crs_row_ptr(out));
  a.cci = kkk_desc(kk_crs_col_idx(out));
  a.cv = kkk_desc(kk_crs_values(out));
  if (h->m > 0 && h->merge)
    st = kkk_for(&c, k_merge[c.t], &a, sizeof a, h->m);
  else if (h->m > 0)
    st = launch(&c, h, k_fill[c.t], k_fill_team[c.t], &a, 1);
  if (st != KK_OK) {
    if (!*C)
      kk_crs_destroy(out);
    return st;
  }
  h->made = out;
  *C = out;
  return KK_OK;
}

kk_status_t kk_sparse_spgemm_numeric(kk_instance_t *instance, kk_spgemm_handle_t *handle, const kk_crs_t *A,
                                     const kk_crs_t *B, kk_crs_t **C) {
  return numeric(KIND_PRODUCT, "kk_sparse_spgemm_numeric", instance, handle, KK_REAL(1), KK_REAL(0), NULL, A, B, C);
}

kk_status_t kk_sparse_spgemm_jacobi_numeric(kk_instance_t *instance, kk_spgemm_handle_t *handle, kk_scalar_t omega,
                                            kk_view_t *dinv, const kk_crs_t *A, const kk_crs_t *B, kk_crs_t **C) {
  if (!dinv)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_spgemm_jacobi_numeric: dinv is NULL");
  return numeric(KIND_JACOBI, "kk_sparse_spgemm_jacobi_numeric", instance, handle, KK_COMPLEX(-omega.re, -omega.im),
                 KK_REAL(1), dinv, A, B, C);
}

kk_status_t kk_sparse_spadd_numeric(kk_instance_t *instance, kk_spgemm_handle_t *handle, kk_scalar_t a,
                                    const kk_crs_t *A, kk_scalar_t b, const kk_crs_t *B, kk_crs_t **C) {
  return numeric(KIND_ADD, "kk_sparse_spadd_numeric", instance, handle, a, b, NULL, A, B, C);
}

kk_status_t kk_sparse_spgemm(kk_instance_t *instance, const kk_crs_t *A, const kk_crs_t *B, int flags, kk_crs_t **C) {
  if (!C)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_spgemm: C is NULL");
  *C = NULL;
  if (flags & KK_SPGEMM_JACOBI)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "kk_sparse_spgemm: KK_SPGEMM_JACOBI needs the phases apart (kk_sparse_spgemm_jacobi_numeric)");
  kk_spgemm_handle_t *h = NULL;
  kk_status_t st = kk_sparse_spgemm_symbolic(instance, A, B, flags, &h, NULL);
  if (st == KK_OK)
    st = kk_sparse_spgemm_numeric(instance, h, A, B, C);
  kk_sparse_spgemm_destroy(h);
  return st;
}
