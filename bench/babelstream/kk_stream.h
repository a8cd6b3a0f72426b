/* bench/babelstream/kk_stream.h -- the argument structs and kernels that KKStream.cpp and kk_stream.kk.c share. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BABELSTREAM_KK_STREAM_H
#define KK_BABELSTREAM_KK_STREAM_H
#include <kk.h>

/* One struct per element type: the three arrays, the scalar of mul, triad
 * and nstream, and the start values init_arrays writes. */
#define KK_BS_ARGS(T)          \
  struct kk_bs_args_##T {      \
    kk_view a, b, c;           \
    T scalar;                  \
    T init_a, init_b, init_c;  \
  }
KK_BS_ARGS(double);
KK_BS_ARGS(float);

#ifdef __cplusplus
extern "C" {
#endif
/* init, copy, mul, add, triad, nstream (range for) and dot (a sum) per type */
#define KK_BS_DECLARE(T)               \
  KK_DECLARE_KERNEL(kk_bs_init_##T);   \
  KK_DECLARE_KERNEL(kk_bs_copy_##T);   \
  KK_DECLARE_KERNEL(kk_bs_mul_##T);    \
  KK_DECLARE_KERNEL(kk_bs_add_##T);    \
  KK_DECLARE_KERNEL(kk_bs_triad_##T);  \
  KK_DECLARE_KERNEL(kk_bs_nstream_##T); \
  KK_DECLARE_KERNEL(kk_bs_dot_##T)
KK_BS_DECLARE(double);
KK_BS_DECLARE(float);
#ifdef __cplusplus
}
#endif
#endif
