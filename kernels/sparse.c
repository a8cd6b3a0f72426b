/* kernels/sparse.c -- SpMV on CRS matrices (plain and transposed, vectors and multivectors) and CG with a Jacobi preconditioner. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <string.h>

#include "solvers_internal.h"

static const kk_kernel_t *const k_spmv[4] = KKK_K4(spmv), *const k_spmvt[4] = KKK_K4(spmvt);
static const kk_kernel_t *const k_spmv_vec[4] = KKK_K4(spmv_vec), *const k_spmv_merge[4] = KKK_K4(spmv_merge);
static const kk_kernel_t *const k_spmv_mpipe[4] = KKK_K4(spmv_mpipe), *const k_spmv_mpipe6[4] = KKK_K4(spmv_mpipe6);

static kk_complex_double cd(kk_scalar_t s) { return kk_cdouble(s.re, s.im); }
static int is_zero(kk_scalar_t s) { return s.re == 0.0 && s.im == 0.0; }

static kk_view_strided as2(kk_view_t *v) {
  kk_view_strided d = kkk_desc(v);
  return kk_view_rank(v) == 1 ? kkk_desc_as2(d) : d;
}

/* A matrix's average entries per row, rounded down, at least 1. */
static int64_t avg_row(int64_t rows, int64_t nnz) { return rows > 0 && nnz / rows > 0 ? nnz / rows : 1; }

void kkk_spmv_shape(int64_t rows, int64_t nnz, int32_t *team_size, int32_t *vector_length, int64_t *rows_per_team,
                    int64_t *long_row) {
  /* lanes double while a lane would take more than 8 entries of an
   * average row (two steps of four: 27 entries, 4 lanes), up to a warp; a
   * team of 256 lanes.  (Matrices whose longest row is far over the
   * average go to spmv_merge; here, before it, 4x the lanes had run the
   * irregular matrix 1.15x faster.) */
  const int64_t per_row = avg_row(rows, nnz);
  int32_t v = 1;
  while (v < 32 && 8 * (int64_t)v < per_row)
    v *= 2;
  *vector_length = v;
  *team_size = 256 / v;
  /* about KKK_GPU_SPMV_TEAM_NNZ entries per team, in whole rounds of the
   * team's threads (bench/kk-bench-hier's CG: 8 rows per thread of 32
   * lanes on 27 entries), at least one row per thread */
  int64_t rounds = KKK_GPU_SPMV_TEAM_NNZ / (per_row * *team_size);
  rounds = rounds < 1 ? 1 : rounds > 8 ? 8 : rounds;
  *rows_per_team = rounds * *team_size;
  /* a row that would take a thread 16 steps or more goes to the whole team */
  *long_row = 16 * (int64_t)v > 64 ? 16 * (int64_t)v : 64;
}

/* GPUs, one vector: the merge-path kernel where the longest row is more
 * than 16 times the average (a warp of spmv_vec would wait for its longest
 * row, and its team for the rows it takes whole).  The H100, 2026-11-28:
 * 0.97 of cuSPARSE on 10^6 rows of 4 to 2000 entries (spmv_vec 0.82); on
 * the 27-point matrix spmv_vec 0.97-1.0, spmv_merge 0.81. */
static int use_merge(const kk_crs_t *A) {
  return kkk_crs_max_row(A) > 16 * avg_row(kk_crs_rows(A), kk_crs_nnz(A));
}

/* spmv_merge stores a tile's row ends as it loads them, before the
 * products' loads; KK_KERNELS_SPMV_MERGE=late loads a thread's first row
 * end with its products and stores it after them (measured slower on an
 * H200: 0.867-0.872 of cuSPARSE on the irregular matrix against 0.886),
 * for a comparison in one run; anything else: the default.  Read once. */
static uint32_t merge_ends_early(void) {
  static _Atomic int v = -1;
  static const char *const values[] = {"late"};
  return kkk_env_once(&v, "KK_KERNELS_SPMV_MERGE", values, 1) == 1 ? 0 : KKK_ENDS_EARLY;
}

/* KK_KERNELS_SPMV=pipe: the merge-path SpMV as a pipeline (spmv_mpipe: a
 * team takes tiles in turn, the next tile's loads in flight while it walks
 * one); pipe6: the same kernel bound to 768 threads per multiprocessor
 * (spmv_mpipe6); merge: a team per tile (spmv_merge); unset or anything
 * else (0): pipe6 where the matrix has KKK_MERGE_PIPE_TILES tiles or more,
 * else merge.  0, 1 (pipe), 2 (pipe6) or 3 (merge); read once. */
static int merge_pipe(void) {
  static _Atomic int v = -1;
  static const char *const values[] = {"pipe", "pipe6", "merge"};
  return kkk_env_once(&v, "KK_KERNELS_SPMV", values, 3);
}

/* The tiles from which the merge path is pipelined by default: a team
 * takes 4 of them, and below 2048 teams a GPU of 100-odd multiprocessors
 * holding 12 each would be left partly idle (a small matrix keeps a team
 * per tile, the shortest launch).  On an H200, 10^6 rows of 16 entries on
 * average (16,600 tiles of 1024 items then): 0.922-0.930 of cuSPARSE
 * pipelined, 0.879-0.890 a team per tile (docs/kernels.md). */
#define KKK_MERGE_PIPE_TILES 8192

/* spmv_mpipe's tiles per team: KK_KERNELS_SPMV_GROUP, 1 to 64 (default
 * 4).  Read once. */
static int64_t merge_pipe_group(void) {
  static _Atomic int v = -1;
  const int g = kkk_env_once(&v, "KK_KERNELS_SPMV_GROUP", NULL, 64);
  return g > 0 ? g : 4;
}

kk_status_t kkk_spmv(const kkk_call_t *c, kk_op_t op, kk_scalar_t a, const kk_crs_t *A, kk_view_t *x, kk_scalar_t b,
                     kk_view_t *y) {
  const int64_t rows = kk_crs_rows(A);
  struct kkk_spmv_args s;
  memset(&s, 0, sizeof s);
  s.row_ptr = kkk_desc(kk_crs_row_ptr(A));
  s.col_idx = kkk_desc(kk_crs_col_idx(A));
  s.vals = kkk_desc(kk_crs_values(A));
  s.x = as2(x);
  s.y = as2(y);
  s.a = cd(a);
  s.b = cd(b);
  s.rows = rows;
  s.nvec = s.y.d.extent[1];
  s.flags = (is_zero(b) ? KKK_B_ZERO : 0) | (op == KK_OP_C && kkk_is_complex(c->type) ? KKK_CONJ_A : 0);
  if (s.nvec == 0 || kk_view_extent(y, 0) == 0)
    return KK_OK;
  if (s.nvec == 1 && rows > 0 && kk_crs_cols(A) > 0) {
    kk_view_strided vx = kkk_desc_col(s.x, 0), vy = kkk_desc_col(s.y, 0);
    kkk_tpl_call_t t = {.op = KKK_TPL_SPMV, .c = c, .a = a, .b = b, .op_a = op, .crs = A};
    t.x = kkk_tvec(&vx);
    t.y = kkk_tvec(&vy);
    kk_status_t st;
    if (kkk_tpl_try(&t, &st))
      return st;
  }
  if (op != KK_OP_N || is_zero(a)) {
    /* y = b y, then the rows of A scattered into y */
    kk_status_t st = kkk_scal(c, y, b, y);
    if (st != KK_OK || is_zero(a) || rows == 0)
      return st;
    return kk_parallel_for(c->op, KK_RANGE_ON(c->inst, 0, rows), k_spmvt[c->t], &s, sizeof s);
  }
  kk_team_policy_t p = {sizeof p, 0, 1, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c->inst};
  const kk_kernel_t *k = k_spmv[c->t];
  if (c->host) {
    /* blocks of rows taken as threads free up: rows may differ a lot in length */
    s.rows_per_team = KKK_HOST_SPMV_ROWS;
    p.schedule = KK_SCHEDULE_DYNAMIC;
    p.chunk = 1;
  } else if (s.nvec > 1) {
    /* multivectors: a row per team thread, lanes for about one entry each */
    const int64_t per_row = rows > 0 ? (kk_crs_nnz(A) + rows - 1) / rows : 1;
    kkk_team_shape(c, per_row, &p.team_size, &p.vector_length);
    s.rows_per_team = p.team_size;
  } else if (use_merge(A)) {
    /* rows of irregular length: the merge path over the matrix's tiles */
    int64_t ntiles = 0;
    kk_view_t *ends = NULL;
    s.tiles = kkk_desc(kkk_crs_tiles(A, &ntiles, &ends));
    s.ends = kkk_desc(ends);
    const size_t es = kkk_elem_size(c->type);
    s.merge_tile = KKK_MERGE_TILE;
    s.flags |= merge_ends_early();
    p.team_size = KKK_MERGE_TEAM;
    p.scratch_team[0] = kk_scratch_size(sizeof(int32_t), KKK_MERGE_TILE) + kk_scratch_size(es, KKK_MERGE_PADDED) +
                        2 * (kk_scratch_size(sizeof(int32_t), KKK_MERGE_TEAM) + kk_scratch_size(es, KKK_MERGE_TEAM));
    p.league_size = ntiles;
    int pipe = merge_pipe();
    if (pipe == 0)
      pipe = ntiles >= KKK_MERGE_PIPE_TILES ? 2 : 3;
    if (pipe != 3 && ntiles > 0) {
      const int64_t g = merge_pipe_group();
      s.ntiles = ntiles;
      p.league_size = (ntiles + g - 1) / g;
      return kk_parallel_for_team(c->op, &p, (pipe == 2 ? k_spmv_mpipe6 : k_spmv_mpipe)[c->t], &s, sizeof s);
    }
    return kk_parallel_for_team(c->op, &p, k_spmv_merge[c->t], &s, sizeof s);
  } else {
    kkk_spmv_shape(rows, kk_crs_nnz(A), &p.team_size, &p.vector_length, &s.rows_per_team, &s.long_row);
    p.scratch_team[0] = kk_scratch_size(sizeof(int32_t), 1) + kk_scratch_size(sizeof(int32_t), s.rows_per_team);
    k = k_spmv_vec[c->t];
  }
  p.league_size = (rows + s.rows_per_team - 1) / s.rows_per_team;
  return kk_parallel_for_team(c->op, &p, k, &s, sizeof s);
}

kk_status_t kk_sparse_spmv(kk_instance_t *instance, kk_op_t op, kk_scalar_t a, const kk_crs_t *A, kk_view_t *x,
                           kk_scalar_t b, kk_view_t *y) {
  static const char *const names[] = {"x", "y", "A's values", "A's row offsets", "A's column indices"};
  kk_status_t st = kkk_crs_check("kk_sparse_spmv", A);
  if (st != KK_OK)
    return st;
  kk_view_t *const v[] = {x, y, kk_crs_values(A), kk_crs_row_ptr(A), kk_crs_col_idx(A)};
  kkk_call_t c;
  st = kkk_begin(&c, "kk_sparse_spmv", instance, 5, v, names, 3);
  if (st == KK_OK)
    st = kkk_check_op(&c, op, "op");
  if (st != KK_OK)
    return st;
  const int rank = kk_view_rank(x);
  if (rank != 1 && rank != 2)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_spmv: x %s has rank %d; vectors have rank 1, multivectors 2",
                   kkk_label(x), rank);
  st = kkk_check_rank(&c, y, "y", rank);
  const int64_t xn = op == KK_OP_N ? kk_crs_cols(A) : kk_crs_rows(A), yn = op == KK_OP_N ? kk_crs_rows(A) : kk_crs_cols(A);
  if (st == KK_OK)
    st = kkk_check_extent(&c, x, "x", 0, xn, op == KK_OP_N ? "the columns of A" : "the rows of A");
  if (st == KK_OK)
    st = kkk_check_extent(&c, y, "y", 0, yn, op == KK_OP_N ? "the rows of A" : "the columns of A");
  if (st == KK_OK && rank == 2)
    st = kkk_check_extent(&c, y, "y", 1, kk_view_extent(x, 1), "x's columns");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, a, "a");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, b, "b");
  if (st != KK_OK)
    return st;
  return kkk_spmv(&c, op, a, A, x, b, y);
}

/* ---- CG ---------------------------------------------------------------------------- */

/* kk_sparse_cg is kk_sparse_pcg (krylov.c) with the preconditioner its
 * options name: Jacobi or none. */
kk_status_t kk_sparse_cg(kk_instance_t *instance, const kk_crs_t *A, kk_view_t *b, kk_view_t *x,
                         const kk_cg_options_t *options, kk_cg_result_t *result) {
  static const char *const names[] = {"b", "x", "A's values", "A's row offsets", "A's column indices"};
  kk_status_t st = kkk_crs_check("kk_sparse_cg", A);
  if (st != KK_OK)
    return st;
  kk_view_t *const v[] = {b, x, kk_crs_values(A), kk_crs_row_ptr(A), kk_crs_col_idx(A)};
  kkk_call_t c;
  st = kkk_begin(&c, "kk_sparse_cg", instance, 5, v, names, 3);
  if (st != KK_OK)
    return st;
  kk_cg_options_t opt = KK_CG_OPTIONS_INIT;
  if (options) {
    if (options->struct_size < sizeof opt)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_cg: options->struct_size is %zu; start from "
                     "KK_CG_OPTIONS_INIT", options->struct_size);
    opt = *options;
  }
  if (result && result->struct_size < sizeof *result)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_cg: result->struct_size must be sizeof(kk_cg_result_t)");
  if (opt.max_iterations < 0)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_cg: options->max_iterations %d is negative",
                   opt.max_iterations);
  if (!(opt.tolerance >= 0))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_cg: options->tolerance %g is not a number >= 0",
                   opt.tolerance);
  if (opt.preconditioner != KK_CG_NONE && opt.preconditioner != KK_CG_JACOBI)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "kk_sparse_cg: options->preconditioner %d is neither KK_CG_NONE nor KK_CG_JACOBI",
                   (int)opt.preconditioner);
  const int64_t n = kk_crs_rows(A);
  if (kk_crs_cols(A) != n)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_cg: matrix A '%s' is %lld x %lld, not square",
                   kkk_crs_label(A), (long long)n, (long long)kk_crs_cols(A));
  st = kkk_check_rank(&c, b, "b", 1);
  if (st == KK_OK)
    st = kkk_check_rank(&c, x, "x", 1);
  if (st == KK_OK)
    st = kkk_check_extent(&c, b, "b", 0, n, "the rows of A");
  if (st == KK_OK)
    st = kkk_check_extent(&c, x, "x", 0, n, "the rows of A");
  if (st != KK_OK)
    return st;
  kk_precond_t M = KK_PRECOND_INIT;
  if (opt.preconditioner == KK_CG_JACOBI)
    st = kkk_jacobi_make(&c, "kk_sparse_cg", A, &M);
  if (st == KK_OK)
    st = kkk_pcg(&c, A, b, x, &opt, M.apply ? &M : NULL, result);
  kk_precond_release(&M);
  return st;
}
