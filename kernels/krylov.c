/* kernels/krylov.c -- preconditioners (Jacobi, ILU(k), Gauss-Seidel, the caller's) and the Krylov solvers on CRS matrices: preconditioned CG and restarted GMRES(m). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers_internal.h"

static const kk_kernel_t *const k_jacobi[4] = KKK_K4(jacobi);

/* ---- preconditioners --------------------------------------------------------------- */

/* Jacobi: the inverse diagonal, a view of A's type in A's space */
static kk_status_t jacobi_apply(void *data, kk_instance_t *inst, kk_view_t *r, kk_view_t *z) {
  static const char *const names[] = {"the inverse diagonal", "r", "z"};
  kk_view_t *d = data;
  kk_view_t *const v[] = {d, r, z};
  kkk_call_t c;
  kk_status_t st = kkk_begin(&c, "jacobi preconditioner", inst, 3, v, names, 3);
  if (st == KK_OK)
    st = kkk_check_extent(&c, r, "r", 0, kk_view_extent(d, 0), "the rows of A");
  if (st == KK_OK)
    st = kkk_check_extent(&c, z, "z", 0, kk_view_extent(d, 0), "the rows of A");
  if (st != KK_OK)
    return st;
  return kkk_emul(&c, d, r, z);
}

static void jacobi_free(void *data) { kk_view_release(data); }

kk_status_t kkk_jacobi_make(const kkk_call_t *c, const char *op, const kk_crs_t *A, kk_precond_t *M) {
  const int64_t n = kk_crs_rows(A);
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = "kk.jacobi.dinv";
  spec.type = kk_crs_type(A);
  spec.rank = 1;
  spec.extents[0] = n;
  spec.layout = KK_LAYOUT_RIGHT;
  spec.space = kk_crs_space(A);
  kk_view_t *d = NULL;
  kk_status_t st = kk_view_create(&spec, &d);
  if (st != KK_OK)
    return st;
  struct kkk_diag_args da = {kkk_desc(kk_crs_row_ptr(A)), kkk_desc(kk_crs_col_idx(A)), kkk_desc(kk_crs_values(A)),
                             kkk_desc(d), n};
  int64_t zeros = 0;
  st = kkk_reduce(c, k_jacobi[c->t], &da, sizeof da, n, &zeros, sizeof zeros);
  if (st == KK_OK && zeros > 0)
    st = kkk_err(KK_ERROR_INVALID_ARGUMENT,
                 "%s: the Jacobi preconditioner needs a nonzero diagonal; %lld row(s) of A '%s' have none", op,
                 (long long)zeros, kkk_crs_label(A));
  if (st != KK_OK) {
    kk_view_release(d);
    return st;
  }
  *M = (kk_precond_t){sizeof *M, jacobi_apply, d, jacobi_free, "jacobi"};
  return KK_OK;
}

kk_status_t kk_precond_jacobi(kk_instance_t *instance, const kk_crs_t *A, kk_precond_t *out) {
  static const char *op = "kk_precond_jacobi";
  static const char *const names[] = {"A's values", "A's row offsets", "A's column indices"};
  if (!out)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: out is NULL", op);
  kk_status_t st = kkk_crs_check(op, A);
  if (st != KK_OK)
    return st;
  if (kk_crs_cols(A) != kk_crs_rows(A))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s' is %lld x %lld, not square", op, kkk_crs_label(A),
                   (long long)kk_crs_rows(A), (long long)kk_crs_cols(A));
  kk_view_t *const v[] = {kk_crs_values(A), kk_crs_row_ptr(A), kk_crs_col_idx(A)};
  kkk_call_t c;
  st = kkk_begin(&c, op, instance, 3, v, names, 1);
  if (st != KK_OK)
    return st;
  kk_precond_t M = KK_PRECOND_INIT;
  st = kkk_jacobi_make(&c, op, A, &M);
  if (st == KK_OK)
    st = kk_instance_fence(c.inst);
  if (st != KK_OK) {
    kk_precond_release(&M);
    return st;
  }
  *out = M;
  return KK_OK;
}

static kk_status_t iluk_apply(void *data, kk_instance_t *inst, kk_view_t *r, kk_view_t *z) {
  return kk_spiluk_apply(inst, data, r, z);
}

kk_status_t kk_precond_iluk(kk_spiluk_t *h, kk_precond_t *out) {
  if (!out || !h)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_precond_iluk: %s is NULL", !out ? "out" : "the handle");
  *out = (kk_precond_t){sizeof *out, iluk_apply, h, NULL, "iluk"};
  return KK_OK;
}

/* Gauss-Seidel: a handle of its own (borrowing A) and the symmetric sweeps per apply */
struct gs_precond {
  kk_gs_handle_t *h;
  int sweeps;
};

static kk_status_t gs_apply(void *data, kk_instance_t *inst, kk_view_t *r, kk_view_t *z) {
  struct gs_precond *g = data;
  /* z = 0 exactly (a zero factor writes zeros, whatever z held), then the sweeps with b = r */
  kk_status_t st = kk_blas_scal(inst, z, KK_REAL(0), z);
  if (st == KK_OK)
    st = kk_sparse_gs_apply(inst, g->h, z, r, g->sweeps, KK_GS_SYMMETRIC);
  return st;
}

static void gs_free(void *data) {
  struct gs_precond *g = data;
  kk_sparse_gs_destroy(g->h);
  free(g);
}

kk_status_t kk_precond_gs(kk_instance_t *instance, const kk_crs_t *A, const kk_gs_options_t *options, int sweeps,
                          kk_precond_t *out) {
  static const char *op = "kk_precond_gs";
  if (!out)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: out is NULL", op);
  if (sweeps < 1)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: sweeps %d is not >= 1", op, sweeps);
  struct gs_precond *g = calloc(1, sizeof *g);
  if (!g)
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
  g->sweeps = sweeps;
  /* checks A (square, a nonzero diagonal) and the options, and names the failure */
  kk_status_t st = kk_sparse_gs_create(instance, A, options, &g->h);
  if (st != KK_OK) {
    free(g);
    return st;
  }
  *out = (kk_precond_t){sizeof *out, gs_apply, g, gs_free, "gs"};
  return KK_OK;
}

void kk_precond_release(kk_precond_t *M) {
  if (!M)
    return;
  if (M->destroy)
    M->destroy(M->data);
  *M = (kk_precond_t)KK_PRECOND_INIT;
}

/* The preconditioner to call: NULL for none.  A kk_precond_t with a wrong
 * struct_size is refused. */
static kk_status_t precond_of(const char *op, const kk_precond_t *M, const kk_precond_t **out) {
  *out = NULL;
  if (!M)
    return KK_OK;
  if (M->struct_size < sizeof *M)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: M->struct_size is %zu; start from KK_PRECOND_INIT", op,
                   M->struct_size);
  *out = M->apply ? M : NULL;
  return KK_OK;
}

static kk_status_t precond_run(const kkk_call_t *c, const kk_precond_t *M, kk_view_t *r, kk_view_t *z) {
  kk_status_t st = M->apply(M->data, c->inst, r, z);
  if (st != KK_OK && st != kk_last_status())
    return kkk_err(st, "%s: preconditioner '%s' failed: %s", c->op, M->name ? M->name : "(unnamed)",
                   kk_status_str(st));
  return st;
}

/* ---- common checks --------------------------------------------------------------- */

static kk_status_t work_vector(const kkk_call_t *c, kk_view_t *like, const char *label, kk_view_t **out) {
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = label;
  spec.type = c->type;
  spec.rank = 1;
  spec.extents[0] = kk_view_extent(like, 0);
  spec.layout = KK_LAYOUT_RIGHT;
  spec.space = kk_view_space(like);
  return kk_view_create(&spec, out);
}

/* A square, b and x vectors of its rows. */
static kk_status_t begin_solve(kkk_call_t *c, const char *op, kk_instance_t *instance, const kk_crs_t *A,
                               kk_view_t *b, kk_view_t *x) {
  static const char *const names[] = {"b", "x", "A's values", "A's row offsets", "A's column indices"};
  kk_status_t st = kkk_crs_check(op, A);
  if (st != KK_OK)
    return st;
  kk_view_t *const v[] = {b, x, kk_crs_values(A), kk_crs_row_ptr(A), kk_crs_col_idx(A)};
  st = kkk_begin(c, op, instance, 5, v, names, 3);
  if (st != KK_OK)
    return st;
  const int64_t n = kk_crs_rows(A);
  if (kk_crs_cols(A) != n)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix A '%s' is %lld x %lld, not square", op, kkk_crs_label(A),
                   (long long)n, (long long)kk_crs_cols(A));
  st = kkk_check_rank(c, b, "b", 1);
  if (st == KK_OK)
    st = kkk_check_rank(c, x, "x", 1);
  if (st == KK_OK)
    st = kkk_check_extent(c, b, "b", 0, n, "the rows of A");
  if (st == KK_OK)
    st = kkk_check_extent(c, x, "x", 0, n, "the rows of A");
  return st;
}

static kk_status_t check_tol(const char *op, int max_iterations, double tolerance) {
  if (max_iterations < 0)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: options->max_iterations %d is negative", op, max_iterations);
  if (!(tolerance >= 0))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: options->tolerance %g is not a number >= 0", op, tolerance);
  return KK_OK;
}

static void put_result(kk_cg_result_t *result, const kk_cg_result_t *res) {
  if (!result)
    return;
  const size_t size = result->struct_size;
  *result = *res;
  result->struct_size = size;
}

/* ---- CG ------------------------------------------------------------------------------ */

static kk_scalar_t sdiv(kk_scalar_t a, kk_scalar_t b) {
  const double d = b.re * b.re + b.im * b.im;
  return KK_COMPLEX((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d);
}

kk_status_t kkk_pcg(const kkk_call_t *cc, const kk_crs_t *A, kk_view_t *b, kk_view_t *x, const kk_cg_options_t *optp,
                    const kk_precond_t *M, kk_cg_result_t *result) {
  const kkk_call_t *c = cc;
  const kk_cg_options_t opt = *optp;
  kk_cg_result_t res = {sizeof res, 0, 0.0, 0};
  const kk_scalar_t one = KK_REAL(1), zero = KK_REAL(0), mone = KK_REAL(-1);
  kk_view_t *r = NULL, *z = NULL, *p = NULL, *Ap = NULL;
  double bnorm = 0, rnorm = 0;
  kk_status_t st = kkk_nrm2(c, b, &bnorm);
  if (st == KK_OK)
    st = work_vector(c, x, "kk_sparse_cg.r", &r);
  if (st == KK_OK)
    st = work_vector(c, x, "kk_sparse_cg.p", &p);
  if (st == KK_OK)
    st = work_vector(c, x, "kk_sparse_cg.Ap", &Ap);
  if (st == KK_OK && M)
    st = work_vector(c, x, "kk_sparse_cg.z", &z);
  else
    z = r; /* no preconditioner: z is r itself */
  if (st != KK_OK)
    goto done;
  if (bnorm == 0.0) { /* b = 0: x = 0 */
    st = kkk_scal(c, x, zero, x);
    res.converged = 1;
    goto done;
  }
  /* r = b - A x */
  st = kkk_axpby(c, one, b, zero, r);
  if (st == KK_OK)
    st = kkk_spmv(c, KK_OP_N, mone, A, x, one, r);
  if (st == KK_OK)
    st = kkk_nrm2(c, r, &rnorm);
  if (st != KK_OK)
    goto done;
  res.residual = rnorm / bnorm;
  if (res.residual <= opt.tolerance) {
    res.converged = 1;
    goto done;
  }
  kk_scalar_t rz;
  if (z != r)
    st = precond_run(c, M, r, z);
  if (st == KK_OK)
    st = kkk_axpby(c, one, z, zero, p);
  if (st == KK_OK)
    st = kkk_dot(c, r, z, &rz);
  for (int it = 1; st == KK_OK && it <= opt.max_iterations; it++) {
    kk_scalar_t pAp, rz_new;
    st = kkk_spmv(c, KK_OP_N, one, A, p, zero, Ap);
    if (st == KK_OK)
      st = kkk_dot(c, p, Ap, &pAp);
    if (st != KK_OK)
      break;
    const kk_scalar_t alpha = sdiv(rz, pAp), malpha = KK_COMPLEX(-alpha.re, -alpha.im);
    st = kkk_axpby(c, alpha, p, one, x);
    if (st == KK_OK)
      st = kkk_axpby(c, malpha, Ap, one, r);
    if (st == KK_OK)
      st = kkk_nrm2(c, r, &rnorm);
    if (st != KK_OK)
      break;
    res.iterations = it;
    res.residual = rnorm / bnorm;
    if (res.residual <= opt.tolerance) {
      res.converged = 1;
      break;
    }
    if (z != r)
      st = precond_run(c, M, r, z);
    if (st == KK_OK)
      st = kkk_dot(c, r, z, &rz_new);
    if (st != KK_OK)
      break;
    const kk_scalar_t beta = sdiv(rz_new, rz);
    rz = rz_new;
    st = kkk_axpby(c, one, z, beta, p);
  }
done:
  if (st == KK_OK)
    st = kk_instance_fence(c->inst);
  if (z != r)
    kk_view_release(z);
  kk_view_release(r);
  kk_view_release(p);
  kk_view_release(Ap);
  if (st == KK_OK)
    put_result(result, &res);
  return st;
}

kk_status_t kk_sparse_pcg(kk_instance_t *instance, const kk_crs_t *A, kk_view_t *b, kk_view_t *x,
                          const kk_cg_options_t *options, const kk_precond_t *M, kk_cg_result_t *result) {
  static const char *op = "kk_sparse_pcg";
  kkk_call_t c;
  kk_status_t st = begin_solve(&c, op, instance, A, b, x);
  if (st != KK_OK)
    return st;
  kk_cg_options_t opt = KK_CG_OPTIONS_INIT;
  if (options) {
    if (options->struct_size < sizeof opt)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: options->struct_size is %zu; start from KK_CG_OPTIONS_INIT", op,
                     options->struct_size);
    opt = *options;
  }
  if (result && result->struct_size < sizeof *result)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: result->struct_size must be sizeof(kk_cg_result_t)", op);
  const kk_precond_t *P = NULL;
  st = check_tol(op, opt.max_iterations, opt.tolerance);
  if (st == KK_OK)
    st = precond_of(op, M, &P);
  if (st != KK_OK)
    return st;
  return kkk_pcg(&c, A, b, x, &opt, P, result);
}

/* ---- GMRES(m) ------------------------------------------------------------------------- */

kk_status_t kk_sparse_gmres(kk_instance_t *instance, const kk_crs_t *A, kk_view_t *b, kk_view_t *x,
                            const kk_gmres_options_t *options, const kk_precond_t *Mp, kk_cg_result_t *result) {
  static const char *op = "kk_sparse_gmres";
  kkk_call_t cs, *c = &cs;
  kk_status_t st = begin_solve(c, op, instance, A, b, x);
  if (st != KK_OK)
    return st;
  if (kkk_is_complex(c->type))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s' is %s; GMRES takes float or double matrices", op,
                   kkk_crs_label(A), kk_type_name(c->type));
  kk_gmres_options_t opt = KK_GMRES_OPTIONS_INIT;
  if (options) {
    if (options->struct_size < sizeof opt)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: options->struct_size is %zu; start from KK_GMRES_OPTIONS_INIT",
                     op, options->struct_size);
    opt = *options;
  }
  if (result && result->struct_size < sizeof *result)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: result->struct_size must be sizeof(kk_cg_result_t)", op);
  st = check_tol(op, opt.max_iterations, opt.tolerance);
  if (st == KK_OK && (opt.restart < 1 || opt.restart > 1000))
    st = kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: options->restart %d is outside [1, 1000]", op, opt.restart);
  const kk_precond_t *M = NULL;
  if (st == KK_OK)
    st = precond_of(op, Mp, &M);
  if (st != KK_OK)
    return st;
  const int m = opt.restart;
  const kk_scalar_t one = KK_REAL(1), zero = KK_REAL(0), mone = KK_REAL(-1);
  kk_cg_result_t res = {sizeof res, 0, 0.0, 0};
  /* the Hessenberg matrix H ((m + 1) x m, column-major), the rotations and the right-hand side g, on the host */
  double *H = calloc((size_t)(m + 1) * (size_t)m, sizeof(double)), *cs_ = calloc((size_t)m, sizeof(double));
  double *sn = calloc((size_t)m, sizeof(double)), *g = calloc((size_t)m + 1, sizeof(double));
  double *y = calloc((size_t)m, sizeof(double));
  kk_view_t **V = calloc((size_t)m + 1, sizeof *V), *u = NULL, *z = NULL;
  if (!H || !cs_ || !sn || !g || !y || !V) {
    st = kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", op);
    goto done;
  }
#define HH(i, j) H[(size_t)(j) * (size_t)(m + 1) + (size_t)(i)]
  for (int i = 0; st == KK_OK && i <= m; i++)
    st = work_vector(c, x, "kk_sparse_gmres.V", &V[i]);
  if (st == KK_OK)
    st = work_vector(c, x, "kk_sparse_gmres.u", &u);
  if (st == KK_OK && M)
    st = work_vector(c, x, "kk_sparse_gmres.z", &z);
  double bnorm = 0, beta = 0;
  if (st == KK_OK)
    st = kkk_nrm2(c, b, &bnorm);
  if (st != KK_OK)
    goto done;
  if (bnorm == 0.0) {
    st = kkk_scal(c, x, zero, x);
    res.converged = 1;
    goto done;
  }
  for (;;) {
    /* V0 = r = b - A x; the true residual at each (re)start */
    st = kkk_axpby(c, one, b, zero, V[0]);
    if (st == KK_OK)
      st = kkk_spmv(c, KK_OP_N, mone, A, x, one, V[0]);
    if (st == KK_OK)
      st = kkk_nrm2(c, V[0], &beta);
    if (st != KK_OK)
      break;
    res.residual = beta / bnorm;
    if (res.residual <= opt.tolerance) {
      res.converged = 1;
      break;
    }
    if (res.iterations >= opt.max_iterations || !isfinite(beta))
      break;
    st = kkk_scal(c, V[0], KK_REAL(1.0 / beta), V[0]);
    memset(g, 0, sizeof(double) * ((size_t)m + 1));
    g[0] = beta;
    int k = 0; /* Arnoldi steps of this cycle */
    while (st == KK_OK && k < m && res.iterations < opt.max_iterations) {
      /* w = A M^-1 v_k, into V[k + 1] */
      kk_view_t *w = V[k + 1];
      if (M) {
        st = precond_run(c, M, V[k], z);
        if (st == KK_OK)
          st = kkk_spmv(c, KK_OP_N, one, A, z, zero, w);
      } else {
        st = kkk_spmv(c, KK_OP_N, one, A, V[k], zero, w);
      }
      /* modified Gram-Schmidt */
      for (int i = 0; st == KK_OK && i <= k; i++) {
        kk_scalar_t h;
        st = kkk_dot(c, V[i], w, &h);
        if (st == KK_OK)
          st = kkk_axpby(c, KK_REAL(-h.re), V[i], one, w);
        HH(i, k) = h.re;
      }
      double hn = 0;
      if (st == KK_OK)
        st = kkk_nrm2(c, w, &hn);
      if (st != KK_OK)
        break;
      HH(k + 1, k) = hn;
      if (hn != 0)
        st = kkk_scal(c, w, KK_REAL(1.0 / hn), w);
      /* the earlier rotations on the new column, then one that zeroes H(k + 1, k) */
      for (int i = 0; i < k; i++) {
        const double t = cs_[i] * HH(i, k) + sn[i] * HH(i + 1, k);
        HH(i + 1, k) = -sn[i] * HH(i, k) + cs_[i] * HH(i + 1, k);
        HH(i, k) = t;
      }
      const double a = HH(k, k), bb = HH(k + 1, k), rr = hypot(a, bb);
      cs_[k] = rr == 0 ? 1 : a / rr;
      sn[k] = rr == 0 ? 0 : bb / rr;
      HH(k, k) = rr;
      HH(k + 1, k) = 0;
      g[k + 1] = -sn[k] * g[k];
      g[k] = cs_[k] * g[k];
      k++;
      res.iterations++;
      /* the estimate |g[k]| is the residual's norm; hn == 0: the Krylov space holds the solution */
      if (fabs(g[k]) <= opt.tolerance * bnorm || hn == 0)
        break;
    }
    if (st != KK_OK)
      break;
    /* y = H(0:k, 0:k)^-1 g, u = V y, x += M^-1 u */
    for (int i = k - 1; i >= 0; i--) {
      double s = g[i];
      for (int j = i + 1; j < k; j++)
        s -= HH(i, j) * y[j];
      y[i] = HH(i, i) != 0 ? s / HH(i, i) : 0;
    }
    st = kkk_scal(c, u, zero, u);
    for (int i = 0; st == KK_OK && i < k; i++)
      st = kkk_axpby(c, KK_REAL(y[i]), V[i], one, u);
    if (st == KK_OK && M) {
      st = precond_run(c, M, u, z);
      if (st == KK_OK)
        st = kkk_axpby(c, one, z, one, x);
    } else if (st == KK_OK) {
      st = kkk_axpby(c, one, u, one, x);
    }
    if (st != KK_OK)
      break;
  }
#undef HH
done:
  if (st == KK_OK)
    st = kk_instance_fence(c->inst);
  for (int i = 0; V && i <= m; i++)
    kk_view_release(V[i]);
  kk_view_release(u);
  kk_view_release(z);
  free(V), free(H), free(cs_), free(sn), free(g), free(y);
  if (st == KK_OK)
    put_result(result, &res);
  return st;
}
