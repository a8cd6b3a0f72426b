/* containers/kernels.h -- the argument structs of libkk-containers' own kernels (containers/containers.kk.c), shared with its host files. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKC_KERNELS_H
#define KKC_KERNELS_H

#include <kk/containers.h>

/* count the entries of a map (a reduction over its slots) */
struct kkc_umap_args {
  kk_unordered_map m;
};
/* move every entry of `from` into `to` (rehash) */
struct kkc_umap_move_args {
  kk_unordered_map from, to;
};
/* count the set bits of words `stride` apart, keeping `tail` bits (0: all) of word `last` */
struct kkc_bits_args {
  uint32_t *words;
  int64_t stride;
  int64_t last;
  uint32_t tail;
  uint32_t pad;
};

#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__) && !defined(__OPENCL_VERSION__) && \
    !defined(__OPENCL_CPP_VERSION__)
KK_DECLARE_KERNEL(kkc_umap_count);
KK_DECLARE_KERNEL(kkc_umap_move);
KK_DECLARE_KERNEL(kkc_bits_count);
#endif

#endif /* KKC_KERNELS_H */
