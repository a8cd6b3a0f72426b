/* bench/bench_common.h -- what the parts of kk-bench share (bench_common.c): the result table, settling, case selection, CG's matrix. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_COMMON_H
#define KK_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk.h>

#include "bench_base.h" /* CHECK, bench_now, bench_rest */

/* Does `backend` run on the GPU that bench/native_cuda.cu times? */
#ifdef KK_BENCH_CUDA
#define ON_GPU(backend) (strcmp((backend), "cuda") == 0)
#else
#define ON_GPU(backend) 0
#endif

/* Records one row: figures for kk and for the hand-written version. */
void bench_record(const char *kcase, const char *backend, const char *size, double kk, double native, const char *unit,
                  int lower_is_better);
/* How many rows were recorded; the table and its JSON form (one object per row). */
int bench_result_count(void);
void bench_print_table(FILE *out);
void bench_print_json(FILE *out);
/* Lets the other runtime's spinning threads go to sleep before timing:
 * bench_rest(20, 500), with a warning the first time a thread still runs. */
void bench_settle(void);
/* 1 when `name` is in the comma list `cases` ("all" selects everything). */
int bench_wants(const char *cases, const char *name);
/* kk against native: each runs 2 * `reps` times, turn about, the side going
 * first alternating, with a settle before every run; the best time of each
 * side counts.  On a shared VM the memory bandwidth moves by up to 2x over a
 * few seconds: taking turns run by run lets both sides see the same machine,
 * where a block of kk runs followed by a block of native runs does not. */
#define DUEL(reps, tk, tn, kk_expr, native_expr) DUEL_BURST(reps, 0, tk, tn, kk_expr, native_expr)

/* DUEL for operations of microseconds, burst > 0: each timed run is one
 * untimed call (which wakes the sleeping threads) and then `burst` calls back
 * to back, and counts as their time / burst.  That is the steady state of a
 * program that launches kernel after kernel, and how the seed's Table 1 was
 * measured; a single call after the settle mostly times the operating system
 * waking 15 sleeping threads, which in a virtual machine varies by more than
 * the call itself. */
#define DUEL_BURST(reps, burst, tk, tn, kk_expr, native_expr)                      \
  do {                                                                             \
    (tk) = (tn) = 1e30;                                                            \
    const int calls_ = (burst) > 0 ? (burst) : 1;                                  \
    for (int r_ = 0; r_ < 2 * (reps); r_++) {                                      \
      for (int s_ = 0; s_ < 2; s_++) {                                             \
        const int native_ = (r_ ^ s_) & 1;                                         \
        bench_settle();                                                            \
        double t0_ = 0;                                                            \
        for (int c_ = (burst) > 0 ? -1 : 0; c_ < calls_; c_++) {                   \
          if (c_ == 0)                                                             \
            t0_ = bench_now();                                                     \
          if (native_) {                                                           \
            native_expr;                                                           \
          } else {                                                                 \
            kk_expr;                                                               \
          }                                                                        \
        }                                                                          \
        double t_ = (bench_now() - t0_) / calls_;                                  \
        if (native_)                                                               \
          (tn) = t_ < (tn) ? t_ : (tn);                                            \
        else                                                                       \
          (tk) = t_ < (tk) ? t_ : (tk);                                            \
      }                                                                            \
    }                                                                              \
  } while (0)

/* CG's pieces, shared with the graph cases: the 27-point matrix of an n^3
 * grid in CRS (malloc'ed), a view of the default space holding a copy of n
 * elements at data, and the hand-written OpenMP iterations. */
void bench_cg_matrix(int64_t n, int64_t **row_ptr, int32_t **cols, double **vals, int64_t *nnz);
kk_view_t *bench_view_of(const char *label, kk_type_t t, int64_t n, void *data);
double bench_native_cg(const int64_t *rp, const int32_t *ci, const double *va, int64_t N, int iters, int nt,
                       double *x, double *r, double *p, double *ap, double *rr);

#endif
