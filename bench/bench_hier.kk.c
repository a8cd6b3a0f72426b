/* bench/bench_hier.kk.c -- kernels of the Kokkos 3 paper's benchmarks (Tables 1-5), written once. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "bench_hier.h"

/* Table 4: A += B on 200^3, three ways */
KK_FOR(tensor_outer, struct tensor_args, i) {
  for (int64_t j = 0; j < args->n; j++)
    for (int64_t k = 0; k < args->n; k++)
      KK_AT(args->a, double, i, j, k) += KK_AT(args->b, double, i, j, k);
}
KK_FOR(tensor_flat, struct tensor_args, ii) {
  const int64_t n = args->n, i = ii / (n * n), j = (ii / n) % n, k = ii % n;
  KK_AT(args->a, double, i, j, k) += KK_AT(args->b, double, i, j, k);
}
KK_MD_FOR3(tensor_md, struct tensor_args, i, j, k) { KK_AT(args->a, double, i, j, k) += KK_AT(args->b, double, i, j, k); }

/* Table 2: scatter-add with atomics */
KK_FOR(atomic_add_int, struct scatter_bench_args, u) {
  kk_atomic_add(&KK_AT(args->grid, int32_t, KK_AT(args->idx, int32_t, u)), 1);
}
KK_FOR(atomic_add_double, struct scatter_bench_args, u) {
  kk_atomic_add(&KK_AT(args->grid, double, KK_AT(args->idx, int32_t, u)), 1.0);
}
KK_FOR(atomic_add_cfloat, struct scatter_bench_args, u) {
  kk_atomic_add(&KK_AT(args->grid, kk_complex_float, KK_AT(args->idx, int32_t, u)), kk_cfloat(1.0f, 0.5f));
}
KK_FOR(atomic_add_cdouble, struct scatter_bench_args, u) {
  kk_atomic_add(&KK_AT(args->grid, kk_complex_double, KK_AT(args->idx, int32_t, u)), kk_cdouble(1.0, 0.5));
}

/* Table 3: the same through ScatterView */
KK_FOR(sv_add_int, struct scatter_bench_args, u) { KK_SCATTER_ADD(args->sv, int32_t, 1, KK_AT(args->idx, int32_t, u)); }
KK_FOR(sv_add_double, struct scatter_bench_args, u) { KK_SCATTER_ADD(args->sv, double, 1.0, KK_AT(args->idx, int32_t, u)); }
KK_FOR(sv_add_cfloat, struct scatter_bench_args, u) {
  KK_SCATTER_ADD(args->sv, kk_complex_float, kk_cfloat(1.0f, 0.5f), KK_AT(args->idx, int32_t, u));
}
KK_FOR(sv_add_cdouble, struct scatter_bench_args, u) {
  KK_SCATTER_ADD(args->sv, kk_complex_double, kk_cdouble(1.0, 0.5), KK_AT(args->idx, int32_t, u));
}

/* Table 1: min and sum, apart and in one launch */
KK_REDUCE(red_min, struct minsum_args, double, KK_MIN, i, acc) {
  const double v = KK_AT(args->x, double, i);
  *acc = v < *acc ? v : *acc;
}
KK_REDUCE(red_sum, struct minsum_args, double, KK_SUM, i, acc) { *acc += KK_AT(args->x, double, i); }
KK_REDUCE_N(red_min_sum, struct minsum_args, struct minsum_val, i, acc, (KK_MIN, double, mn), (KK_SUM, double, sum)) {
  const double v = KK_AT(args->x, double, i);
  acc->mn = v < acc->mn ? v : acc->mn;
  acc->sum += v;
}

/* batched m x m matrix-vector products, x staged in level-0 team scratch;
 * two columns per lane per step on GPUs (each lane has m / 32 of them) */
#undef KK_VECTOR_UNROLL
#define KK_VECTOR_UNROLL 2
#define BATCHED_MATVEC(NAME)                                                                                     \
  KK_TEAM_FOR(NAME, struct batched_args, team) {                                                                 \
    const int64_t b = KK_LEAGUE_RANK(team), m = args->m;                                                         \
    double *xs = KK_TEAM_SCRATCH(team, 0, double, m);                                                            \
    KK_TEAM_VECTOR_FOR(team, j, 0, m) { xs[j] = KK_AT(args->x, double, b, j); }                                  \
    KK_TEAM_BARRIER(team);                                                                                       \
    KK_TEAM_THREAD_FOR(team, r, 0, m) {                                                                          \
      double s;                                                                                                  \
      KK_THREAD_VECTOR_REDUCE(team, c, 0, m, double, KK_SUM, s) { s += KK_AT(args->a, double, b, r, c) * xs[c]; } \
      KK_AT(args->y, double, b, r) = s;                                                                          \
    }                                                                                                            \
  }

/* the same through subviews: a plane of A and a row of x and y per team,
 * against indexing the parents (above): zero cost is a ratio of 1; the typed
 * slices (KK_PLANE_OF) move the pointer by a compile-time element size */
#define BATCHED_MATVEC_SUB(NAME)                                                                                 \
  KK_TEAM_FOR(NAME, struct batched_args, team) {                                                                 \
    const int64_t b = KK_LEAGUE_RANK(team), m = args->m;                                                         \
    const kk_view_right A = KK_PLANE_OF(args->a, double, b), x = KK_ROW_OF(args->x, double, b),                  \
                        y = KK_ROW_OF(args->y, double, b);                                                       \
    double *xs = KK_TEAM_SCRATCH(team, 0, double, m);                                                            \
    KK_TEAM_VECTOR_FOR(team, j, 0, m) { xs[j] = KK_AT(x, double, j); }                                           \
    KK_TEAM_BARRIER(team);                                                                                       \
    KK_TEAM_THREAD_FOR(team, r, 0, m) {                                                                          \
      double s;                                                                                                  \
      KK_THREAD_VECTOR_REDUCE(team, c, 0, m, double, KK_SUM, s) { s += KK_AT(A, double, r, c) * xs[c]; }         \
      KK_AT(y, double, r) = s;                                                                                   \
    }                                                                                                            \
  }

BATCHED_MATVEC(batched_matvec)
BATCHED_MATVEC_SUB(batched_matvec_sub)

/* both again with a register cap (teams of at most 256 threads, 8 resident
 * per multiprocessor: 32 registers on sm_90), which the typed slices do not
 * need: nvcc 13.0 gives the slices' kernel 31 registers and the parent's 32
 * uncapped (8 teams of 256 threads per multiprocessor both), 32 and 32
 * capped, no spills (tests/cuda-slice-regs.sh checks the uncapped pair,
 * tests/cuda-slice-loads.sh the order of all four's loads) */
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS KK_LAUNCH_BOUNDS(256, 8)
BATCHED_MATVEC(batched_matvec_b)
BATCHED_MATVEC_SUB(batched_matvec_sub_b)
#undef KK_TEAM_BOUNDS
#define KK_TEAM_BOUNDS

#undef KK_VECTOR_UNROLL
#define KK_VECTOR_UNROLL 1

/* Table 5: the CG solve's SpMV with three levels: worksets of rows per team,
 * rows over the team's threads, nonzeros over a thread's vector lanes */
KK_TEAM_FOR(team_spmv, struct tspmv_args, team) {
  const int64_t first = KK_LEAGUE_RANK(team) * args->rows_per_team;
  const int64_t last = first + args->rows_per_team < args->rows ? first + args->rows_per_team : args->rows;
  KK_TEAM_THREAD_FOR(team, row, first, last) {
    const int64_t b = KK_AT(args->row_ptr, int64_t, row), e = KK_AT(args->row_ptr, int64_t, row + 1);
    double s;
    KK_THREAD_VECTOR_REDUCE(team, p, b, e, double, KK_SUM, s) {
      s += KK_AT(args->vals, double, p) * KK_AT(args->x, double, KK_AT(args->cols, int32_t, p));
    }
    KK_SINGLE_THREAD(team) { KK_AT(args->y, double, row) = s; }
  }
}
/* The vector updates have the native loops' form (y += a x, y = x + a y), not
 * one general z = a x + b y: with z the same array as x, that form took
 * 520-570 us where x += a y took 300-330 (10^6 doubles in cache, 2 threads,
 * this workplace's AMD VM; the same in a native loop), for the same result. */
KK_FOR(cg_axpy, struct vec_args, i) { KK_AT(args->y, double, i) = KK_AT(args->y, double, i) + args->a * KK_AT(args->x, double, i); }
KK_FOR(cg_xpay, struct vec_args, i) { KK_AT(args->y, double, i) = KK_AT(args->x, double, i) + args->a * KK_AT(args->y, double, i); }
KK_REDUCE(cg_dot2, struct vec_args, double, KK_SUM, i, acc) { *acc += KK_AT(args->x, double, i) * KK_AT(args->y, double, i); }
