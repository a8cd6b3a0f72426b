/* bench/kernels_native_cuda.h -- the vendor side of kk-bench-kernels on the cuda backend: cuBLAS and cuSPARSE (bench/kernels_native_cuda.cu).
 *
 * Each function copies its host inputs to the device, runs the vendor routine once to warm up and then `reps` times,
 * each followed by a device synchronize, and returns the best time in seconds; *check gets a value to compare with
 * kk's (a dot product, or the sum of the output's elements after one call from the inputs).  Matrices are row-major
 * (C order), as kk-bench-kernels lays out its views; cuBLAS is called on the transposes.  A negative return means
 * CUDA, cuBLAS or cuSPARSE failed (printed on stderr).  Built only when configure enabled the cuda backend. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_KERNELS_NATIVE_CUDA_H
#define KK_BENCH_KERNELS_NATIVE_CUDA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x . y over n doubles (cublasDdot). */
double kcu_dot(const double *x, const double *y, int64_t n, int reps, double *check);
/* y = a x + b y over n doubles, in one pass (cublasDgeam on a 1 x n matrix, in place). */
double kcu_axpby(const double *x, const double *y, int64_t n, double a, double b, int reps, double *check);
/* y = A x, A m x n row-major (cublasDgemv, transposed). */
double kcu_gemv(const double *A, const double *x, int64_t m, int64_t n, int reps, double *check);
/* C = A B, n x n row-major (cublasDgemm on the transposes). */
double kcu_gemm(const double *A, const double *B, int64_t n, int reps, double *check);
/* C_i = A_i B_i for nb matrices n x n, each row-major and contiguous (cublasDgemmStridedBatched). */
double kcu_batched_gemm(const double *A, const double *B, int64_t nb, int64_t n, int reps, double *check);
/* y = A x with A in CSR (cusparseSpMV, 32-bit offsets and columns, the default algorithm). */
double kcu_spmv(const int64_t *row_ptr, const int32_t *cols, const double *vals, int64_t rows, int64_t ncols,
                const double *x, int reps, double *check);

#ifdef __cplusplus
}
#endif

#endif
