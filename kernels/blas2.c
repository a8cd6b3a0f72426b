/* kernels/blas2.c -- gemv and gemm: checks, the vendor-library offer, then kk's own kernels (blas2.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <string.h>

#include "internal.h"

static const kk_kernel_t *const k_gemv_rows[4] = KKK_K4(gemv_rows), *const k_gemv_cols[4] = KKK_K4(gemv_cols);
static const kk_kernel_t *const k_gemv_split[4] = KKK_K4(gemv_split), *const k_gemv_cblk[4] = KKK_K4(gemv_cblk);
static const kk_kernel_t *const k_gemm[4] = KKK_K4(gemm);
static const kk_kernel_t *const k_gemm_rb[2] = {KK_KERNEL(kkk_gemm_rb_s), KK_KERNEL(kkk_gemm_rb_d)};

static kk_complex_double cd(kk_scalar_t s) { return kk_cdouble(s.re, s.im); }
static int is_zero(kk_scalar_t s) { return s.re == 0.0 && s.im == 0.0; }

/* op(A) as a descriptor: A, or A with its dimensions swapped. */
static kk_view_strided op_desc(kk_view_t *A, kk_op_t op) {
  kk_view_strided d = kkk_desc(A);
  return op == KK_OP_N ? d : kkk_desc_swap(d, 0, 1);
}

/* KK_KERNELS_GEMV: which kernel takes M's contiguous columns split into
 * blocks.  "auto" (or unset): gemv_cblk on GPUs where the blocks fit in
 * one team; "split": gemv_split always (y = b y, then atomic additions);
 * "cblk": gemv_cblk wherever the blocks fit, host backends included.
 * KK_KERNELS_GEMV_SLICES: gemv_cblk's row slices per team (1, 2, 4, 8).
 * Read once; other values are taken as unset. */
enum { GEMV_AUTO, GEMV_SPLIT, GEMV_CBLK };
static void gemv_settings(int *choice, int *slices) {
  static _Atomic int v = -1, w = -1;
  static const char *const forms[] = {"split", "cblk"}; /* GEMV_SPLIT, GEMV_CBLK */
  *choice = kkk_env_once(&v, "KK_KERNELS_GEMV", forms, 2);
  const int s = kkk_env_once(&w, "KK_KERNELS_GEMV_SLICES", NULL, 8);
  *slices = s == 1 || s == 2 || s == 4 || s == 8 ? s : KKK_GPU_GEMV_TEAM_SLICES;
}

static const char *op_name(kk_op_t op) { return op == KK_OP_N ? "op N" : op == KK_OP_T ? "op T" : "op C"; }

kk_status_t kk_blas_gemv(kk_instance_t *instance, kk_op_t op, kk_scalar_t a, kk_view_t *A, kk_view_t *x,
                         kk_scalar_t b, kk_view_t *y) {
  static const char *const names[] = {"A", "x", "y"};
  kk_view_t *const v[] = {A, x, y};
  kkk_call_t c;
  kk_status_t st = kkk_begin(&c, "kk_blas_gemv", instance, 3, v, names, 3);
  if (st == KK_OK)
    st = kkk_check_op(&c, op, "op");
  if (st == KK_OK)
    st = kkk_check_rank(&c, A, "A", 2);
  if (st == KK_OK)
    st = kkk_check_rank(&c, x, "x", 1);
  if (st == KK_OK)
    st = kkk_check_rank(&c, y, "y", 1);
  if (st != KK_OK)
    return st;
  const int64_t m = kk_view_extent(A, op == KK_OP_N ? 0 : 1), n = kk_view_extent(A, op == KK_OP_N ? 1 : 0);
  st = kkk_check_extent(&c, x, "x", 0, n, "the columns of op(A)");
  if (st == KK_OK)
    st = kkk_check_extent(&c, y, "y", 0, m, "the rows of op(A)");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, a, "a");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, b, "b");
  if (st != KK_OK)
    return st;
  (void)op_name;
  if (m == 0)
    return KK_OK;
  if (n == 0 || is_zero(a)) /* y = b y */
    return kkk_scal(&c, y, b, y);
  struct kkk_gemv_args g;
  memset(&g, 0, sizeof g);
  g.A = op_desc(A, op);
  g.x = kkk_desc(x);
  g.y = kkk_desc(y);
  {
    kk_view_strided dA = kkk_desc(A);
    kkk_tpl_call_t t = {.op = KKK_TPL_GEMV, .c = &c, .a = a, .b = b, .op_a = op};
    t.A = kkk_tmat(&dA);
    t.x = kkk_tvec(&g.x);
    t.y = kkk_tvec(&g.y);
    if (kkk_tpl_try(&t, &st))
      return st;
  }
  g.a = cd(a);
  g.b = cd(b);
  g.m = m;
  g.n = n;
  g.flags = (is_zero(b) ? KKK_B_ZERO : 0) | (op == KK_OP_C && kkk_is_complex(c.type) ? KKK_CONJ_A : 0);
  const int64_t rs = g.A.d.stride[0], cs = g.A.d.stride[1];
  const int cols_contiguous = !(cs == 1 || n == 1) && rs == 1;
  int choice = GEMV_AUTO, slices = KKK_GPU_GEMV_TEAM_SLICES;
  if (cols_contiguous)
    gemv_settings(&choice, &slices);
  if (cols_contiguous && c.host && choice != GEMV_CBLK) {
    /* a block of rows per index, accumulated column after column */
    g.row_blocks = g.col_blocks = 1;
    g.col_chunk = n;
    return kk_parallel_for(c.op, KK_RANGE_ON(c.inst, 0, (m + KKK_HOST_GEMV_RB - 1) / KKK_HOST_GEMV_RB),
                           k_gemv_cols[c.t], &g, sizeof g);
  }
  kk_team_policy_t p = {sizeof p, 0, KK_AUTO, KK_AUTO, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c.inst};
  int64_t items = m; /* work items of one column block: a thread per row (split), a vector per row (rows) */
  if (c.host) {
    p.team_size = p.vector_length = 1;
    g.rows_per_team = 16;
  } else if (!cols_contiguous) {
    kkk_team_shape(&c, n, &p.team_size, &p.vector_length);
    g.rows_per_team = p.team_size;
    items = m * p.vector_length;
  }
  /* GPUs: enough work items to fill the device, columns split into blocks
   * of at least KKK_GPU_GEMV_MIN_CHUNK when the rows alone are too few */
  g.col_blocks = 1;
  const int64_t target = cols_contiguous ? KKK_GPU_GEMV_SPLIT_ITEMS : KKK_GPU_GEMV_ITEMS;
  if (!c.host && items < target) {
    const int64_t want = (target + items - 1) / items;
    const int64_t most = (n + KKK_GPU_GEMV_MIN_CHUNK - 1) / KKK_GPU_GEMV_MIN_CHUNK;
    g.col_blocks = want < most ? want : most;
  }
  if (cols_contiguous && c.host) /* KK_KERNELS_GEMV=cblk on a host backend: blocks as a GPU would take them */
    g.col_blocks = (n + KKK_GPU_GEMV_MIN_CHUNK - 1) / KKK_GPU_GEMV_MIN_CHUNK;
  if (cols_contiguous && choice != GEMV_SPLIT && slices > 1 && g.col_blocks * slices > KKK_GPU_GEMV_TEAM_THREADS)
    g.col_blocks = KKK_GPU_GEMV_TEAM_THREADS / slices; /* larger slices asked for: fewer blocks, so that they fit */
  g.col_chunk = (n + g.col_blocks - 1) / g.col_blocks;
  g.col_blocks = (n + g.col_chunk - 1) / g.col_chunk; /* no empty block */
  if (cols_contiguous && g.col_blocks > 1 && g.col_blocks * slices <= KKK_GPU_GEMV_TEAM_THREADS &&
      choice != GEMV_SPLIT) {
    /* the blocks in one team, their sums added in scratch: one launch, no atomics */
    g.rows_per_team = (int64_t)slices * KKK_GPU_GEMV_TEAM_ROWS;
    kk_team_policy_t pt = {sizeof pt, (m + g.rows_per_team - 1) / g.rows_per_team, (int32_t)(g.col_blocks * slices),
                           c.host ? 1 : KKK_GPU_GEMV_TEAM_ROWS,
                           {kk_scratch_size(kkk_elem_size(c.type), g.col_blocks * g.rows_per_team), 0}, {0, 0}, 0,
                           KK_SCHEDULE_STATIC, c.inst};
    int most = 1; /* fewer threads than slices x blocks: a thread takes several (host teams, smaller devices) */
    if (kk_team_size_max(k_gemv_cblk[c.t], &pt, &most) != KK_OK || most < 1)
      most = 1;
    pt.team_size = pt.team_size < most ? pt.team_size : most;
    return kk_parallel_for_team(c.op, &pt, k_gemv_cblk[c.t], &g, sizeof g);
  }
  if (g.col_blocks > 1) {
    /* the blocks add into y: y = b y first (queued before, on the same instance) */
    g.flags |= KKK_SPLIT;
    st = kkk_scal(&c, y, b, y);
    if (st != KK_OK)
      return st;
  }
  if (cols_contiguous) /* GPUs: a thread per (row, column block), consecutive threads on consecutive rows */
    return kk_parallel_for(c.op, KK_RANGE_ON(c.inst, 0, m * g.col_blocks), k_gemv_split[c.t], &g, sizeof g);
  g.row_blocks = (m + g.rows_per_team - 1) / g.rows_per_team;
  p.league_size = g.row_blocks * g.col_blocks;
  return kk_parallel_for_team(c.op, &p, k_gemv_rows[c.t], &g, sizeof g);
}

kk_status_t kk_blas_gemm(kk_instance_t *instance, kk_op_t op_a, kk_op_t op_b, kk_scalar_t a, kk_view_t *A,
                         kk_view_t *B, kk_scalar_t b, kk_view_t *C) {
  static const char *const names[] = {"A", "B", "C"};
  kk_view_t *const v[] = {A, B, C};
  kkk_call_t c;
  kk_status_t st = kkk_begin(&c, "kk_blas_gemm", instance, 3, v, names, 3);
  if (st == KK_OK)
    st = kkk_check_op(&c, op_a, "op_a");
  if (st == KK_OK)
    st = kkk_check_op(&c, op_b, "op_b");
  for (int i = 0; i < 3 && st == KK_OK; i++)
    st = kkk_check_rank(&c, v[i], names[i], 2);
  if (st != KK_OK)
    return st;
  /* the shape comes from the inputs, op(A) m x k and op(B) k x n; the
   * output C must be m x n, so a wrong C is blamed on C */
  const int64_t m = kk_view_extent(A, op_a == KK_OP_N ? 0 : 1), k = kk_view_extent(A, op_a == KK_OP_N ? 1 : 0);
  const int64_t n = kk_view_extent(B, op_b == KK_OP_N ? 1 : 0);
  st = kkk_check_extent(&c, B, "B", op_b == KK_OP_N ? 0 : 1, k, "op(B) has op(A)'s columns as rows");
  if (st == KK_OK)
    st = kkk_check_extent(&c, C, "C", 0, m, "C has op(A)'s rows");
  if (st == KK_OK)
    st = kkk_check_extent(&c, C, "C", 1, n, "C has op(B)'s columns");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, a, "a");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, b, "b");
  if (st != KK_OK)
    return st;
  if (m == 0 || n == 0)
    return KK_OK;
  struct kkk_gemm_args g;
  memset(&g, 0, sizeof g);
  g.A = op_desc(A, op_a);
  g.B = op_desc(B, op_b);
  g.C = kkk_desc(C);
  if (k > 0) {
    kk_view_strided dA = kkk_desc(A), dB = kkk_desc(B);
    kkk_tpl_call_t t = {.op = KKK_TPL_GEMM, .c = &c, .a = a, .b = b, .op_a = op_a, .op_b = op_b};
    t.A = kkk_tmat(&dA);
    t.B = kkk_tmat(&dB);
    t.C = kkk_tmat(&g.C);
    if (kkk_tpl_try(&t, &st))
      return st;
  }
  const int cplx = kkk_is_complex(c.type);
  g.a = cd(a);
  g.b = cd(b);
  g.m = m;
  g.n = n;
  g.k = k;
  if (!cplx) {
    /* real types: the register-blocked kernel (gemm_tmpl.h) */
    g.flags = (is_zero(a) ? KKK_A_ZERO : 0) | (is_zero(b) ? KKK_B_ZERO : 0);
    const size_t es = kkk_elem_size(c.type);
    kk_team_policy_t p = {sizeof p, 0, 1, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c.inst};
    if (c.host) {
      /* blocks of mr x nc, mr (then nc) narrowed until every thread has
       * about four, so that smaller products use every thread: op(B) is
       * packed once per block and slice of k, so the tall blocks of large
       * products pack it least */
      const int64_t want = 4 * (int64_t)kk_num_threads();
      g.mr = KKK_GEMM_H_MR_RANK;
      g.nc = KKK_GEMM_H_NC;
      while (g.mr > KKK_GEMM_H_MC && ((m + g.mr - 1) / g.mr) * ((n + g.nc - 1) / g.nc) < want)
        g.mr -= KKK_GEMM_H_MC;
      while (g.nc > KKK_GEMM_H_NR_MAX && ((m + g.mr - 1) / g.mr) * ((n + g.nc - 1) / g.nc) < want)
        g.nc -= KKK_GEMM_H_NR_MAX;
      g.tiles_n = (n + g.nc - 1) / g.nc;
      p.league_size = ((m + g.mr - 1) / g.mr) * g.tiles_n;
      p.scratch_team[1] = kk_scratch_size(es, KKK_GEMM_H_MR * KKK_GEMM_H_KC) +
                          kk_scratch_size(es, KKK_GEMM_H_KC * KKK_GEMM_H_NC);
      return kk_parallel_for_team(c.op, &p, k_gemm_rb[c.t], &g, sizeof g);
    }
    p.team_size = KKK_GEMM_GPU_THREADS;
    const size_t simt = 2 * kk_scratch_size(es, 2 * KKK_GEMM_GPU_K * (KKK_GEMM_GPU_T + 16 / es));
    p.scratch_team[0] = simt;
    int most = 0;
    if (c.type == KK_DOUBLE && strcmp(kk_instance_backend(c.inst), "cuda") == 0) {
      /* the CUDA images for sm_80 and up take the FP64 tensor cores, whose
       * stages are larger (gemm_tmpl.h); older images run the portable
       * form in the same scratch.  Every device that cannot give this much
       * scratch (64 KiB on sm_75) is older than sm_80 and runs the
       * portable form: it gets the smaller request. */
      const size_t tc = 2 * kk_scratch_size(es, 2 * KKK_GEMM_TC_STAGE);
      p.scratch_team[0] = tc > simt ? tc : simt;
      if (kk_team_size_max(k_gemm_rb[c.t], &p, &most) != KK_OK || most < KKK_GEMM_GPU_THREADS)
        p.scratch_team[0] = simt;
    }
    if (kk_team_size_max(k_gemm_rb[c.t], &p, &most) == KK_OK && most >= KKK_GEMM_GPU_THREADS) {
      g.tiles_n = (n + KKK_GEMM_GPU_T - 1) / KKK_GEMM_GPU_T;
      p.league_size = ((m + KKK_GEMM_GPU_T - 1) / KKK_GEMM_GPU_T) * g.tiles_n;
      return kk_parallel_for_team(c.op, &p, k_gemm_rb[c.t], &g, sizeof g);
    }
    /* a device whose teams cannot be that large takes the portable tiles below */
  }
  const int64_t tile = c.type == KK_COMPLEX_DOUBLE ? KKK_GEMM_TILE_Z : KKK_GEMM_TILE;
  g.a = cd(a);
  g.b = cd(b);
  g.m = m;
  g.n = n;
  g.k = k;
  g.tiles_n = (n + tile - 1) / tile;
  g.flags = (is_zero(a) ? KKK_A_ZERO : 0) | (is_zero(b) ? KKK_B_ZERO : 0) |
            (op_a == KK_OP_C && cplx ? KKK_CONJ_A : 0) | (op_b == KK_OP_C && cplx ? KKK_CONJ_B : 0);
  kk_team_policy_t p = {sizeof p, ((m + tile - 1) / tile) * g.tiles_n, 1, 1, {0, 0}, {0, 0}, 0,
                        KK_SCHEDULE_STATIC, c.inst};
  if (!c.host) {
    p.team_size = 8;
    p.vector_length = 32;
  }
  p.scratch_team[0] = 3 * kk_scratch_size(kkk_elem_size(c.type), tile * tile);
  return kk_parallel_for_team(c.op, &p, k_gemm[c.t], &g, sizeof g);
}
