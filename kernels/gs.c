/* kernels/gs.c -- Gauss-Seidel: point multicolor (rows of one color at once) and two-stage (inner Jacobi sweeps for the triangular solve); smoother and preconditioner. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdlib.h>
#include <string.h>

#include "sparse_ops_internal.h"

static const kk_kernel_t *const k_jacobi[4] = KKK_K4(jacobi);
static const kk_kernel_t *const k_gs_color[4] = KKK_K4(gs_color), *const k_gs_inner[4] = KKK_K4(gs_inner);

struct kk_gs_handle {
  kk_gs_options_t opt;
  kk_type_t type;
  kk_space_t *space;
  int64_t n, nnz;
  kk_view_t *dinv;       /* 1 / A(i, i) */
  kk_view_t *rows;       /* multicolor: the rows ordered by color */
  int64_t *cstart;       /* multicolor: color k's rows are rows[cstart[k], cstart[k + 1]) */
  int32_t ncolors;
  kk_view_t *r, *z, *z2; /* two-stage: residual and inner iterates */
  const kk_crs_t *A;     /* the matrix (the caller's: it outlives the handle's use) */
};

void kk_sparse_gs_destroy(kk_gs_handle_t *h) {
  if (!h)
    return;
  kk_view_release(h->dinv);
  kk_view_release(h->rows);
  kk_view_release(h->r);
  kk_view_release(h->z);
  kk_view_release(h->z2);
  free(h->cstart);
  free(h);
}

int32_t kk_sparse_gs_colors(const kk_gs_handle_t *h) { return h ? h->ncolors : 0; }

static kk_status_t check_matrix(const kkk_call_t *c, const kk_gs_handle_t *h, const kk_crs_t *A) {
  if (!h)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: handle is NULL", c->op);
  if (kk_crs_rows(A) != h->n || kk_crs_cols(A) != h->n || kk_crs_nnz(A) != h->nnz || c->type != h->type)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: A '%s' (%lld x %lld, %lld entries, %s) is not the matrix the handle was made for (%lld rows, "
                   "%lld entries, %s)",
                   c->op, kkk_crs_label(A), (long long)kk_crs_rows(A), (long long)kk_crs_cols(A),
                   (long long)kk_crs_nnz(A), kk_type_name(c->type), (long long)h->n, (long long)h->nnz,
                   kk_type_name(h->type));
  return KK_OK;
}

static kk_status_t numeric(const kkk_call_t *c, kk_gs_handle_t *h, const kk_crs_t *A) {
  struct kkk_diag_args da = {kkk_desc(kk_crs_row_ptr(A)), kkk_desc(kk_crs_col_idx(A)), kkk_desc(kk_crs_values(A)),
                             kkk_desc(h->dinv), h->n};
  int64_t zeros = 0;
  kk_status_t st = kkk_reduce(c, k_jacobi[c->t], &da, sizeof da, h->n, &zeros, sizeof zeros);
  if (st == KK_OK && zeros > 0)
    st = kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: Gauss-Seidel needs a nonzero diagonal; %lld row(s) of A '%s' have none",
                 c->op, (long long)zeros, kkk_crs_label(A));
  return st;
}

kk_status_t kk_sparse_gs_create(kk_instance_t *instance, const kk_crs_t *A, const kk_gs_options_t *options,
                                kk_gs_handle_t **handle) {
  static const char *op = "kk_sparse_gs_create";
  kkk_call_t c;
  kk_status_t st = kkk_begin_crs(&c, op, instance, A, NULL, 0, NULL, NULL);
  if (st != KK_OK)
    return st;
  if (!handle)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: handle is NULL", op);
  *handle = NULL;
  kk_gs_options_t opt = KK_GS_OPTIONS_INIT;
  if (options) {
    if (options->struct_size < sizeof opt)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: options->struct_size is %zu; start from KK_GS_OPTIONS_INIT", op,
                     options->struct_size);
    opt = *options;
  }
  if ((unsigned)opt.algorithm > (unsigned)KK_GS_TWO_STAGE)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: options->algorithm %d is neither KK_GS_MULTICOLOR nor KK_GS_TWO_STAGE",
                   op, (int)opt.algorithm);
  if (!(opt.omega > 0.0 && opt.omega < 2.0))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: options->omega %g is outside (0, 2)", op, opt.omega);
  if (opt.inner_sweeps < 1)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: options->inner_sweeps %d is below 1", op, opt.inner_sweeps);
  const int64_t n = kk_crs_rows(A);
  if (kk_crs_cols(A) != n)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: A '%s' is %lld x %lld, not square", op, kkk_crs_label(A),
                   (long long)n, (long long)kk_crs_cols(A));
  kk_gs_handle_t *h = calloc(1, sizeof *h);
  if (!h)
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", op);
  h->opt = opt;
  h->type = c.type;
  h->space = kk_crs_space(A);
  h->n = n;
  h->nnz = kk_crs_nnz(A);
  h->A = A;
  st = kkk_work_view(op, "dinv", h->space, c.type, n, &h->dinv);
  if (st == KK_OK)
    st = numeric(&c, h, A);
  if (st == KK_OK && opt.algorithm == KK_GS_MULTICOLOR) {
    kk_view_t *colors = NULL;
    int32_t nc = 0, *hc = NULL, *hr = NULL;
    const kk_crs_t *G = NULL;
    kk_crs_t *made = NULL;
    st = kkk_sym_graph(&c, A, &G, &made);
    if (st == KK_OK)
      st = kkk_color(&c, G, KK_COLOR_VB, &colors, &nc);
    kk_crs_destroy(made);
    if (st == KK_OK) {
      hc = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
      hr = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
      h->cstart = calloc((size_t)nc + 2, sizeof(int64_t));
      if (!hc || !hr || !h->cstart)
        st = kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    if (st == KK_OK && n > 0)
      st = kk_space_copy(NULL, hc, h->space, kk_view_data(colors), sizeof(int32_t) * (size_t)n, NULL);
    if (st == KK_OK) {
      /* rows by color (a counting sort; rows of one color in increasing order) */
      h->ncolors = nc;
      for (int64_t i = 0; i < n; i++)
        h->cstart[hc[i]]++; /* colors from 1: cstart[k] counts color k's rows */
      for (int32_t k = 1; k <= nc + 1; k++)
        h->cstart[k] += h->cstart[k - 1];
      /* now cstart[k] = rows of colors <= k; color k + 1 starts at cstart[k] */
      int64_t *pos = calloc((size_t)nc + 1, sizeof(int64_t));
      if (!pos)
        st = kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", op);
      for (int32_t k = 0; st == KK_OK && k < nc; k++)
        pos[k] = h->cstart[k];
      for (int64_t i = 0; st == KK_OK && i < n; i++)
        hr[pos[hc[i] - 1]++] = (int32_t)i;
      free(pos);
    }
    if (st == KK_OK)
      st = kkk_work_view(op, "rows", h->space, KK_INT32, n, &h->rows);
    if (st == KK_OK && n > 0)
      st = kk_space_copy(h->space, kk_view_data(h->rows), NULL, hr, sizeof(int32_t) * (size_t)n, NULL);
    free(hc);
    free(hr);
    kk_view_release(colors);
  } else if (st == KK_OK) {
    st = kkk_work_view(op, "r", h->space, c.type, n, &h->r);
    if (st == KK_OK)
      st = kkk_work_view(op, "z", h->space, c.type, n, &h->z);
    if (st == KK_OK)
      st = kkk_work_view(op, "z2", h->space, c.type, n, &h->z2);
  }
  if (st == KK_OK)
    st = kk_instance_fence(c.inst);
  if (st != KK_OK) {
    kk_sparse_gs_destroy(h);
    return st;
  }
  *handle = h;
  return KK_OK;
}

kk_status_t kk_sparse_gs_numeric(kk_instance_t *instance, kk_gs_handle_t *handle, const kk_crs_t *A) {
  kkk_call_t c;
  kk_status_t st = kkk_begin_crs(&c, "kk_sparse_gs_numeric", instance, A, NULL, 0, NULL, NULL);
  if (st == KK_OK)
    st = check_matrix(&c, handle, A);
  if (st == KK_OK)
    st = numeric(&c, handle, A);
  if (st == KK_OK)
    handle->A = A;
  return st;
}

/* One multicolor sweep, colors in increasing (backward: decreasing) order. */
static kk_status_t mc_sweep(const kkk_call_t *c, const kk_gs_handle_t *h, struct kkk_gs_args *a, int backward) {
  kk_status_t st = KK_OK;
  /* color k + 1's rows: [cstart[k], cstart[k + 1]) */
  for (int32_t s = 0; st == KK_OK && s < h->ncolors; s++) {
    const int32_t k = backward ? h->ncolors - 1 - s : s;
    a->beg = h->cstart[k];
    a->n = h->cstart[k + 1] - h->cstart[k];
    st = kkk_for(c, k_gs_color[c->t], a, sizeof *a, a->n);
  }
  return st;
}

/* One two-stage sweep: r = b - A x, z = (D + L)^-1 r by inner Jacobi
 * sweeps (D + U backward), x += omega z. */
static kk_status_t ts_sweep(const kkk_call_t *c, const kk_gs_handle_t *h, struct kkk_gs_args *a, const kk_crs_t *A,
                            kk_view_t *x, kk_view_t *b, int backward) {
  const kk_scalar_t one = KK_REAL(1), zero = KK_REAL(0), mone = KK_REAL(-1);
  kk_status_t st = kkk_axpby(c, one, b, zero, h->r);
  if (st == KK_OK)
    st = kkk_spmv(c, KK_OP_N, mone, A, x, one, h->r);
  if (st == KK_OK)
    st = kkk_emul(c, h->dinv, h->r, h->z);
  kk_view_t *z = h->z, *z2 = h->z2;
  a->upper = backward;
  for (int s = 0; st == KK_OK && s < h->opt.inner_sweeps; s++) {
    a->z = kkk_desc(z);
    a->z2 = kkk_desc(z2);
    st = kkk_for(c, k_gs_inner[c->t], a, sizeof *a, h->n);
    kk_view_t *t = z;
    z = z2;
    z2 = t;
  }
  if (st == KK_OK)
    st = kkk_axpby(c, KK_REAL(h->opt.omega), z, one, x);
  return st;
}

kk_status_t kk_sparse_gs_apply(kk_instance_t *instance, kk_gs_handle_t *handle, kk_view_t *x, kk_view_t *b,
                               int sweeps, kk_gs_direction_t dir) {
  static const char *const names[] = {"x", "b"};
  kk_view_t *const v[] = {x, b};
  if (!handle || !x || !b)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_gs_apply: %s is NULL", !handle ? "handle" : !x ? "x" : "b");
  const kk_crs_t *A = handle->A;
  kkk_call_t c;
  kk_status_t st = kkk_begin_crs(&c, "kk_sparse_gs_apply", instance, A, NULL, 2, v, names);
  if (st == KK_OK)
    st = check_matrix(&c, handle, A);
  if (st == KK_OK)
    st = kkk_check_rank(&c, x, "x", 1);
  if (st == KK_OK)
    st = kkk_check_rank(&c, b, "b", 1);
  if (st == KK_OK)
    st = kkk_check_extent(&c, x, "x", 0, handle->n, "the rows of A");
  if (st == KK_OK)
    st = kkk_check_extent(&c, b, "b", 0, handle->n, "the rows of A");
  if (st != KK_OK)
    return st;
  if (sweeps < 0)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_gs_apply: sweeps %d is negative", sweeps);
  if ((unsigned)dir > (unsigned)KK_GS_SYMMETRIC)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "kk_sparse_gs_apply: direction %d is not KK_GS_FORWARD, KK_GS_BACKWARD or KK_GS_SYMMETRIC", (int)dir);
  struct kkk_gs_args a;
  memset(&a, 0, sizeof a);
  a.rp = kkk_desc(kk_crs_row_ptr(A));
  a.ci = kkk_desc(kk_crs_col_idx(A));
  a.av = kkk_desc(kk_crs_values(A));
  a.dinv = kkk_desc(handle->dinv);
  a.x = kkk_desc(x);
  a.b = kkk_desc(b);
  a.omega = kk_cdouble(handle->opt.omega, 0.0);
  if (handle->opt.algorithm == KK_GS_MULTICOLOR) {
    a.rows = kkk_desc(handle->rows);
  } else {
    a.r = kkk_desc(handle->r);
  }
  for (int s = 0; st == KK_OK && s < sweeps; s++) {
    for (int half = 0; st == KK_OK && half < 2; half++) {
      const int backward = dir == KK_GS_BACKWARD || (dir == KK_GS_SYMMETRIC && half == 1);
      if (half == 1 && dir != KK_GS_SYMMETRIC)
        break;
      st = handle->opt.algorithm == KK_GS_MULTICOLOR ? mc_sweep(&c, handle, &a, backward)
                                                      : ts_sweep(&c, handle, &a, A, x, b, backward);
    }
  }
  return st;
}
