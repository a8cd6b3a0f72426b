/* bench/babelstream/kk_stream.kk.c -- BabelStream's kernels in kk's kernel language, for double and float. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "kk_stream.h"

/* The same bodies as upstream's OpenMP model (src/omp/OMPStream.cpp), once per element type. */
#define KK_BS_KERNELS(T)                                                                          \
  KK_FOR(kk_bs_init_##T, struct kk_bs_args_##T, i) {                                              \
    KK_AT(args->a, T, i) = args->init_a;                                                          \
    KK_AT(args->b, T, i) = args->init_b;                                                          \
    KK_AT(args->c, T, i) = args->init_c;                                                          \
  }                                                                                               \
  KK_FOR(kk_bs_copy_##T, struct kk_bs_args_##T, i) { KK_AT(args->c, T, i) = KK_AT(args->a, T, i); } \
  KK_FOR(kk_bs_mul_##T, struct kk_bs_args_##T, i) {                                               \
    KK_AT(args->b, T, i) = args->scalar * KK_AT(args->c, T, i);                                   \
  }                                                                                               \
  KK_FOR(kk_bs_add_##T, struct kk_bs_args_##T, i) {                                               \
    KK_AT(args->c, T, i) = KK_AT(args->a, T, i) + KK_AT(args->b, T, i);                           \
  }                                                                                               \
  KK_FOR(kk_bs_triad_##T, struct kk_bs_args_##T, i) {                                             \
    KK_AT(args->a, T, i) = KK_AT(args->b, T, i) + args->scalar * KK_AT(args->c, T, i);            \
  }                                                                                               \
  KK_FOR(kk_bs_nstream_##T, struct kk_bs_args_##T, i) {                                           \
    KK_AT(args->a, T, i) += KK_AT(args->b, T, i) + args->scalar * KK_AT(args->c, T, i);           \
  }                                                                                               \
  KK_REDUCE(kk_bs_dot_##T, struct kk_bs_args_##T, T, KK_SUM, i, acc) {                            \
    *acc += KK_AT(args->a, T, i) * KK_AT(args->b, T, i);                                          \
  }

KK_BS_KERNELS(double)
KK_BS_KERNELS(float)
