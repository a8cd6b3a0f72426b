// bench/bench_cuda.cuh -- the check the bench programs' cuBLAS and cuSPARSE sides make of each CUDA runtime and
// cuSPARSE call: true on success, otherwise one line on stderr naming the side (`who`, e.g.
// "kk-bench-kernels (cuSPARSE side)"), the call and the library's message.  Host code; included by .cu files.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef KK_BENCH_CUDA_CUH
#define KK_BENCH_CUDA_CUH

#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdio.h>

static inline bool bench_cuda_ok(cudaError_t e, const char *what, const char *who) {
  if (e == cudaSuccess)
    return true;
  fprintf(stderr, "%s: %s: %s\n", who, what, cudaGetErrorString(e));
  return false;
}

static inline bool bench_cusparse_ok(cusparseStatus_t e, const char *what, const char *who) {
  if (e == CUSPARSE_STATUS_SUCCESS)
    return true;
  fprintf(stderr, "%s: %s: %s\n", who, what, cusparseGetErrorString(e));
  return false;
}

#endif
