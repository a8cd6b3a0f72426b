/* bench/bench_containers.h -- the argument structs of kk-bench-containers' kernels (bench/bench_containers.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_CONTAINERS_H
#define KK_BENCH_CONTAINERS_H

#include <kk/containers.h>

/* Key i of the benchmark: splitmix64 of i, off the two bit patterns an
 * UnorderedMap reserves -- the hand-written tables compute the same. */
static inline KK__HOST_DEVICE uint64_t bc_key(uint64_t i) {
  uint64_t z = i + (uint64_t)0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * (uint64_t)0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * (uint64_t)0x94d049bb133111ebu;
  z ^= z >> 31;
  return z >= ~(uint64_t)0 - 1u ? z - 2u : z;
}

struct bc_map_args {
  kk_unordered_map map;
  kk_view keys; /* int64 */
  kk_view out;  /* int64: what find returned (value, or -1) */
};

struct bc_token_args {
  kk_unique_token tok;
  kk_view_right rows; /* int64[size][8]: each holder adds to its row */
};

#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__) && !defined(__OPENCL_VERSION__) && \
    !defined(__OPENCL_CPP_VERSION__)
KK_DECLARE_KERNEL(bc_keys);
KK_DECLARE_KERNEL(bc_map_insert);
KK_DECLARE_KERNEL(bc_set_insert);
KK_DECLARE_KERNEL(bc_map_find);
KK_DECLARE_KERNEL(bc_token);
#endif

#endif
