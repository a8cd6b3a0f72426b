/* kernels/batched.c -- batched gemm, gemv, trsm and LU: checks, team shapes and scratch, then kk's own kernels (batched.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <string.h>

#include "internal.h"

static const kk_kernel_t *const k_bgemm[4] = KKK_K4(bgemm), *const k_bgemv[4] = KKK_K4(bgemv);
static const kk_kernel_t *const k_bgemm_p[4] = KKK_K4(bgemm_p), *const k_bgemm_p4[4] = KKK_K4(bgemm_p4);
static const kk_kernel_t *const k_btrsm[4] = KKK_K4(btrsm), *const k_blu[4] = KKK_K4(blu);
/* the pipelined form's variants, real types only (batched_tmpl.h) */
KK_DECLARE_KERNEL(kkk_bgemm_pb_s);
KK_DECLARE_KERNEL(kkk_bgemm_pb_d);
KK_DECLARE_KERNEL(kkk_bgemm_pv_s);
KK_DECLARE_KERNEL(kkk_bgemm_pv_d);
static const kk_kernel_t *const k_bgemm_pb[2] = {KK_KERNEL(kkk_bgemm_pb_s), KK_KERNEL(kkk_bgemm_pb_d)};
static const kk_kernel_t *const k_bgemm_pv[2] = {KK_KERNEL(kkk_bgemm_pv_s), KK_KERNEL(kkk_bgemm_pv_d)};

static kk_complex_double cd(kk_scalar_t s) { return kk_cdouble(s.re, s.im); }
static int is_zero(kk_scalar_t s) { return s.re == 0.0 && s.im == 0.0; }

/* Checks the ranks of views[0..n) and that they share views[0]'s batch extent. */
static kk_status_t check_batch(const kkk_call_t *c, int n, kk_view_t *const *v, const char *const *names,
                               const int *ranks) {
  for (int i = 0; i < n; i++) {
    kk_status_t st = kkk_check_rank(c, v[i], names[i], ranks[i]);
    if (st == KK_OK && i > 0)
      st = kkk_check_extent(c, v[i], names[i], 0, kk_view_extent(v[0], 0), "A's batch extent");
    if (st != KK_OK)
      return st;
  }
  return KK_OK;
}

/* Level-0 scratch bytes of a kernel's allocations (elements of each, in
 * order; -1 ends the list). */
static size_t scratch_bytes(const kkk_call_t *c, const int64_t *allocs) {
  size_t bytes = 0;
  for (int i = 0; allocs[i] >= 0; i++)
    bytes += kk_scratch_size(kkk_elem_size(c->type), allocs[i]);
  return bytes;
}

/* The launch: one team per matrix, with the kernel's scratch allocations
 * (scratch_bytes) at level 0, refused before launch when the device has
 * less. */
static kk_status_t launch(const kkk_call_t *c, const kk_kernel_t *k, struct kkk_batched_args *a, int64_t batch,
                          const int64_t *allocs, int64_t rows, int64_t inner) {
  if (batch == 0)
    return KK_OK;
  const size_t bytes = scratch_bytes(c, allocs);
  const size_t have = kkk_scratch_max(c);
  if (KKK_UNLIKELY(bytes > have))
    return kkk_err(KK_ERROR_LIMIT,
                   "%s: one matrix needs %zu bytes of team scratch; backend %s offers %zu at level 0 (use smaller "
                   "matrices)",
                   c->op, bytes, kk_instance_backend(c->inst), have);
  kk_team_policy_t p = {sizeof p, batch, 1, 1, {bytes, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c->inst};
  kkk_team_shape(c, inner, &p.team_size, &p.vector_length);
  if (p.team_size > rows && rows > 0)
    p.team_size = (int32_t)rows;
  return kk_parallel_for_team(c->op, &p, k, a, sizeof *a);
}

/* KK_KERNELS_BGEMM: the form of the pipelined batched gemm on GPUs, real
 * types, from 32 x 32 up.  4x4 (1): 4 x 4 blocks of C (bgemm_p4); bound
 * (2): bgemm_p held to 128 registers a thread for 4 teams of 128 per
 * multiprocessor (bgemm_pb); vec (3): scratch read as 16-byte pairs, n and
 * k even, also 4 teams of 128 (bgemm_pv); plain (4): 4 x 2 blocks at every
 * size (bgemm_p); unset (0): vec for double where it applies, else plain. */
enum { BG_DEFAULT, BG_4X4, BG_BOUND, BG_VEC, BG_PLAIN };
static int bgemm_form(void) {
  static _Atomic int v = -1;
  static const char *const values[] = {"4x4", "bound", "vec", "plain"};
  return kkk_env_once(&v, "KK_KERNELS_BGEMM", values, 4);
}

/* KK_KERNELS_BGEMM_GROUP=N (1 to 64): the pipelined forms' matrices per
 * team; unset or anything else: `dflt`.  For measuring how the count of
 * teams against the teams a GPU holds at once (the last wave's share)
 * and the pipeline's depth weigh. */
static int bgemm_group(int dflt) {
  static _Atomic int v = -1;
  const int g = kkk_env_once(&v, "KK_KERNELS_BGEMM_GROUP", NULL, 64);
  return g > 0 ? g : dflt;
}

static kk_view_strided op_desc3(kk_view_t *A, kk_op_t op) {
  kk_view_strided d = kkk_desc(A);
  return op == KK_OP_N ? d : kkk_desc_swap(d, 1, 2);
}

kk_status_t kk_batched_gemm(kk_instance_t *instance, kk_op_t op_a, kk_op_t op_b, kk_scalar_t a, kk_view_t *A,
                            kk_view_t *B, kk_scalar_t b, kk_view_t *C) {
  static const char *const names[] = {"A", "B", "C"};
  static const int ranks[] = {3, 3, 3};
  kk_view_t *const v[] = {A, B, C};
  kkk_call_t c;
  kk_status_t st = kkk_begin(&c, "kk_batched_gemm", instance, 3, v, names, 3);
  if (st == KK_OK)
    st = kkk_check_op(&c, op_a, "op_a");
  if (st == KK_OK)
    st = kkk_check_op(&c, op_b, "op_b");
  if (st == KK_OK)
    st = check_batch(&c, 3, v, names, ranks);
  if (st != KK_OK)
    return st;
  /* the shape comes from the inputs, as in kk_blas_gemm: a wrong C is blamed on C */
  const int64_t m = kk_view_extent(A, op_a == KK_OP_N ? 1 : 2), k = kk_view_extent(A, op_a == KK_OP_N ? 2 : 1);
  const int64_t n = kk_view_extent(B, op_b == KK_OP_N ? 2 : 1);
  st = kkk_check_extent(&c, B, "B", op_b == KK_OP_N ? 1 : 2, k, "op(B[i]) has op(A[i])'s columns as rows");
  if (st == KK_OK)
    st = kkk_check_extent(&c, C, "C", 1, m, "C[i] has op(A[i])'s rows");
  if (st == KK_OK)
    st = kkk_check_extent(&c, C, "C", 2, n, "C[i] has op(B[i])'s columns");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, a, "a");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, b, "b");
  if (st != KK_OK || m == 0 || n == 0)
    return st;
  const int cplx = kkk_is_complex(c.type);
  struct kkk_batched_args g;
  memset(&g, 0, sizeof g);
  g.A = op_desc3(A, op_a);
  g.B = op_desc3(B, op_b);
  g.C = kkk_desc(C);
  g.a = cd(a);
  g.b = cd(b);
  g.m = m;
  g.n = n;
  g.k = k;
  g.flags = (is_zero(a) ? KKK_A_ZERO : 0) | (is_zero(b) ? KKK_B_ZERO : 0) |
            (op_a == KK_OP_C && cplx ? KKK_CONJ_A : 0) | (op_b == KK_OP_C && cplx ? KKK_CONJ_B : 0);
  /* scratch on GPUs only: host threads read A and B in place */
  const int64_t allocs[] = {c.host ? 0 : m * k, c.host ? 0 : k * n, -1};
  /* GPUs: with a warp's worth of columns (32 lanes) and rows, each lane
   * keeps four rows of C (the team's threads then take blocks of four
   * rows); below that, an element per lane (16^3 ran at 1.09 of cuBLAS so) */
  g.rblock = !c.host && m >= 32 && n >= 32 ? KKK_BGEMM_RB : 1;
  /* GPUs, real types: the pipelined form where a team of one thread per
   * 4 x NC block of C covers it at once (at most 4 NC elements of A and of
   * B per thread): 4 x 2 blocks (bgemm_p), 32^3 in teams of 128, 16^3 in
   * teams of 32.  KK_KERNELS_BGEMM=4x4 takes 4 x 4 blocks (bgemm_p4) from
   * 32 rows and columns up, 32^3 in teams of 64: fewer scratch reads per
   * multiply-add, but 249 registers a thread against 167, and on an H200
   * 0.80-0.84 of cuBLAS at 4096 x 32^3 where 4 x 2 read 0.84-0.85.
   * Complex types keep the general form: twice the registers per element
   * left the pipelined one two teams per SM (242 registers for double
   * complex) */
  const int form = c.host || cplx ? BG_DEFAULT : bgemm_form();
  for (int nc = m >= 32 && n >= 32 && form == BG_4X4 ? 4 : 2; nc >= 2 && !c.host && !cplx && !is_zero(a); nc -= 2) {
    const int64_t ts = (m + 3) / 4 * ((n + nc - 1) / nc), pu = 4 * nc;
    if (ts <= 256 && m * k <= pu * ts && k * n <= pu * ts) {
      g.nbatch = kk_view_extent(C, 0);
      if (g.nbatch == 0)
        return KK_OK;
      /* the variants of 4 x 2 blocks, from 32 rows and columns up: teams of
       * at most 128 threads (their launch bounds); bgemm_pv reads pairs of k
       * and of columns (A's rows padded to k + 2).  By default double takes
       * bgemm_pv with 8 matrices a team where it applies: on an H200 at
       * 4096 x 32^3, 0.987-0.998 of cuBLAS against bgemm_p's 0.833-0.886
       * with 4 (docs/kernels.md); float keeps bgemm_p, not measured there */
      const int big = nc == 2 && m >= 32 && n >= 32 && ts <= 128;
      const int vec = big && (form == BG_VEC || (form == BG_DEFAULT && c.t == 1)) && n % 2 == 0 && k % 2 == 0;
      const int bound = big && form == BG_BOUND;
      g.group = bgemm_group(vec && form == BG_DEFAULT ? 8 : KKK_BGEMM_GROUP);
      const int64_t al[] = {m * (k + (vec ? 2 : 1)), k * n, -1};
      const size_t bytes = scratch_bytes(&c, al);
      if (bytes <= kkk_scratch_max(&c)) {
        kk_team_policy_t p = {sizeof p, (g.nbatch + g.group - 1) / g.group, (int32_t)ts, 1, {bytes, 0}, {0, 0}, 0,
                              KK_SCHEDULE_STATIC, c.inst};
        const kk_kernel_t *kp = nc == 4 ? k_bgemm_p4[c.t]
                                : vec   ? k_bgemm_pv[c.t]
                                : bound ? k_bgemm_pb[c.t]
                                        : k_bgemm_p[c.t];
        return kk_parallel_for_team(c.op, &p, kp, &g, sizeof g);
      }
    }
  }
  return launch(&c, k_bgemm[c.t], &g, kk_view_extent(C, 0), allocs, (m + g.rblock - 1) / g.rblock, n);
}

kk_status_t kk_batched_gemv(kk_instance_t *instance, kk_op_t op, kk_scalar_t a, kk_view_t *A, kk_view_t *x,
                            kk_scalar_t b, kk_view_t *y) {
  static const char *const names[] = {"A", "x", "y"};
  static const int ranks[] = {3, 2, 2};
  kk_view_t *const v[] = {A, x, y};
  kkk_call_t c;
  kk_status_t st = kkk_begin(&c, "kk_batched_gemv", instance, 3, v, names, 3);
  if (st == KK_OK)
    st = kkk_check_op(&c, op, "op");
  if (st == KK_OK)
    st = check_batch(&c, 3, v, names, ranks);
  if (st != KK_OK)
    return st;
  const int64_t m = kk_view_extent(A, op == KK_OP_N ? 1 : 2), n = kk_view_extent(A, op == KK_OP_N ? 2 : 1);
  st = kkk_check_extent(&c, x, "x", 1, n, "the columns of op(A[i])");
  if (st == KK_OK)
    st = kkk_check_extent(&c, y, "y", 1, m, "the rows of op(A[i])");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, a, "a");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, b, "b");
  if (st != KK_OK || m == 0)
    return st;
  struct kkk_batched_args g;
  memset(&g, 0, sizeof g);
  g.A = op_desc3(A, op);
  g.B = kkk_desc(x);
  g.C = kkk_desc(y);
  g.a = cd(a);
  g.b = cd(b);
  g.m = m;
  g.n = n;
  g.flags = (is_zero(a) || n == 0 ? KKK_A_ZERO : 0) | (is_zero(b) ? KKK_B_ZERO : 0) |
            (op == KK_OP_C && kkk_is_complex(c.type) ? KKK_CONJ_A : 0);
  const int64_t allocs[] = {n, -1};
  return launch(&c, k_bgemv[c.t], &g, kk_view_extent(A, 0), allocs, m, n);
}

kk_status_t kk_batched_trsm(kk_instance_t *instance, kk_side_t side, kk_uplo_t uplo, kk_op_t op, kk_diag_t diag,
                            kk_scalar_t a, kk_view_t *A, kk_view_t *B) {
  static const char *const names[] = {"A", "B"};
  static const int ranks[] = {3, 3};
  kk_view_t *const v[] = {A, B};
  kkk_call_t c;
  kk_status_t st = kkk_begin(&c, "kk_batched_trsm", instance, 2, v, names, 2);
  if (st == KK_OK)
    st = kkk_check_op(&c, op, "op");
  if (st == KK_OK && (unsigned)side > KK_SIDE_RIGHT)
    st = kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: side %d is neither KK_SIDE_LEFT nor KK_SIDE_RIGHT", c.op, (int)side);
  if (st == KK_OK && (unsigned)uplo > KK_UPPER)
    st = kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: uplo %d is neither KK_LOWER nor KK_UPPER", c.op, (int)uplo);
  if (st == KK_OK && (unsigned)diag > KK_DIAG_UNIT)
    st = kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: diag %d is neither KK_DIAG_NONUNIT nor KK_DIAG_UNIT", c.op,
                 (int)diag);
  if (st == KK_OK)
    st = check_batch(&c, 2, v, names, ranks);
  if (st != KK_OK)
    return st;
  /* A[i] is square, of order d; B[i] has d rows (left) or columns (right) */
  const int64_t m = kk_view_extent(B, 1), n = kk_view_extent(B, 2), d = kk_view_extent(A, 1);
  st = kkk_check_extent(&c, A, "A", 2, d, "A[i] is square");
  if (st == KK_OK)
    st = kkk_check_extent(&c, B, "B", side == KK_SIDE_LEFT ? 1 : 2, d,
                          side == KK_SIDE_LEFT ? "B[i] has A[i]'s order as rows" : "B[i] has A[i]'s order as columns");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, a, "a");
  if (st != KK_OK || m == 0 || n == 0)
    return st;
  struct kkk_batched_args g;
  memset(&g, 0, sizeof g);
  g.A = kkk_desc(A);
  g.B = kkk_desc(B);
  g.C = g.B;
  g.a = cd(a);
  g.m = m;
  g.n = n;
  g.side = side == KK_SIDE_LEFT ? 0 : 1;
  g.swap = op != KK_OP_N;
  g.lower = (uplo == KK_LOWER) != (op != KK_OP_N); /* the triangle of op(A) */
  g.unit = diag == KK_DIAG_UNIT;
  g.flags = op == KK_OP_C && kkk_is_complex(c.type) ? KKK_CONJ_A : 0;
  const int64_t allocs[] = {d * d, m * n, -1};
  return launch(&c, k_btrsm[c.t], &g, kk_view_extent(A, 0), allocs, side == KK_SIDE_LEFT ? n : m,
                side == KK_SIDE_LEFT ? n : m);
}

kk_status_t kk_batched_lu(kk_instance_t *instance, kk_view_t *A) {
  static const char *const names[] = {"A"};
  static const int ranks[] = {3};
  kk_view_t *const v[] = {A};
  kkk_call_t c;
  kk_status_t st = kkk_begin(&c, "kk_batched_lu", instance, 1, v, names, 1);
  if (st == KK_OK)
    st = check_batch(&c, 1, v, names, ranks);
  if (st != KK_OK)
    return st;
  const int64_t m = kk_view_extent(A, 1), n = kk_view_extent(A, 2);
  if (m == 0 || n == 0)
    return KK_OK;
  struct kkk_batched_args g;
  memset(&g, 0, sizeof g);
  g.A = kkk_desc(A);
  g.B = g.C = g.A;
  g.m = m;
  g.n = n;
  const int64_t allocs[] = {m * n, -1};
  return launch(&c, k_blu[c.t], &g, kk_view_extent(A, 0), allocs, m, n);
}
