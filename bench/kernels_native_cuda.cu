// bench/kernels_native_cuda.cu -- cuBLAS and cuSPARSE, timed by kk-bench-kernels beside kk-kernels on the cuda backend
// (see kernels_native_cuda.h).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "bench_base.h" // bench_now: the programs' clock
#include "bench_cuda.cuh"
#include "kernels_native_cuda.h"

namespace {

bool ok_blas(cublasStatus_t e, const char *what) {
  if (e == CUBLAS_STATUS_SUCCESS)
    return true;
  fprintf(stderr, "kk-bench-kernels (cuBLAS side): %s: cuBLAS status %d\n", what, (int)e);
  return false;
}
#define CU(call) bench_cuda_ok((call), #call, "kk-bench-kernels (cuBLAS side)")
#define BL(call) ok_blas((call), #call)
#define SP(call) bench_cusparse_ok((call), #call, "kk-bench-kernels (cuSPARSE side)")

cublasHandle_t handle() {
  static cublasHandle_t h;
  static bool made;
  if (!made && BL(cublasCreate(&h)))
    made = true;
  return made ? h : nullptr;
}

// Device copies of host arrays, freed at the end of a case.
struct dev {
  std::vector<void *> ptrs;
  ~dev() {
    for (void *p : ptrs)
      cudaFree(p);
  }
  template <class T> T *put(const T *h, int64_t n) {
    T *d = nullptr;
    if (!CU(cudaMalloc((void **)&d, sizeof(T) * (size_t)(n > 0 ? n : 1))))
      return nullptr;
    ptrs.push_back(d);
    if (h && n > 0 && !CU(cudaMemcpy(d, h, sizeof(T) * (size_t)n, cudaMemcpyHostToDevice)))
      return nullptr;
    return d;
  }
};

double sum_of(const double *d, int64_t n) {
  std::vector<double> h((size_t)n);
  if (n > 0 && !CU(cudaMemcpy(h.data(), d, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost)))
    return 0;
  double s = 0;
  for (double v : h)
    s += v;
  return s;
}

// Best of `reps` runs of f() (which returns false on failure), one warm-up first.
template <class F> double best_of(int reps, F f) {
  if (!f() || !CU(cudaDeviceSynchronize()))
    return -1;
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    const double t0 = bench_now();
    if (!f())
      return -1;
    cudaDeviceSynchronize();
    const double t = bench_now() - t0;
    best = t < best ? t : best;
  }
  return CU(cudaGetLastError()) ? best : -1;
}

} // namespace

extern "C" double kcu_dot(const double *x, const double *y, int64_t n, int reps, double *check) {
  dev d;
  double *dx = d.put(x, n), *dy = d.put(y, n);
  cublasHandle_t h = handle();
  if (!dx || !dy || !h)
    return -1;
  return best_of(reps, [&] { return BL(cublasDdot(h, (int)n, dx, 1, dy, 1, check)); });
}

extern "C" double kcu_axpby(const double *x, const double *y, int64_t n, double a, double b, int reps, double *check) {
  dev d;
  double *dx = d.put(x, n), *dy = d.put(y, n);
  cublasHandle_t h = handle();
  if (!dx || !dy || !h)
    return -1;
  // y = a x + b y as an n x 1 matrix (one contiguous column): geam may write C in place of B
  auto run = [&] { return BL(cublasDgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, 1, &a, dx, (int)n, &b, dy, (int)n, dy, (int)n)); };
  if (!run() || !CU(cudaDeviceSynchronize()))
    return -1;
  *check = sum_of(dy, n); // after one call from the inputs
  return best_of(reps, run);
}

extern "C" double kcu_gemv(const double *A, const double *x, int64_t m, int64_t n, int reps, double *check) {
  dev d;
  double *dA = d.put(A, m * n), *dx = d.put(x, n), *dy = d.put<double>(nullptr, m);
  cublasHandle_t h = handle();
  if (!dA || !dx || !dy || !h)
    return -1;
  const double one = 1, zero = 0;
  // row-major m x n is column-major n x m: y = (A^T)^T x
  auto run = [&] { return BL(cublasDgemv(h, CUBLAS_OP_T, (int)n, (int)m, &one, dA, (int)n, dx, 1, &zero, dy, 1)); };
  double t = best_of(reps, run);
  *check = sum_of(dy, m);
  return t;
}

extern "C" double kcu_gemm(const double *A, const double *B, int64_t n, int reps, double *check) {
  dev d;
  double *dA = d.put(A, n * n), *dB = d.put(B, n * n), *dC = d.put<double>(nullptr, n * n);
  cublasHandle_t h = handle();
  if (!dA || !dB || !dC || !h)
    return -1;
  const double one = 1, zero = 0;
  const int k = (int)n;
  // row-major C = A B is column-major C^T = B^T A^T
  auto run = [&] { return BL(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, k, k, k, &one, dB, k, dA, k, &zero, dC, k)); };
  double t = best_of(reps, run);
  *check = sum_of(dC, n * n);
  return t;
}

extern "C" double kcu_batched_gemm(const double *A, const double *B, int64_t nb, int64_t n, int reps, double *check) {
  dev d;
  double *dA = d.put(A, nb * n * n), *dB = d.put(B, nb * n * n), *dC = d.put<double>(nullptr, nb * n * n);
  cublasHandle_t h = handle();
  if (!dA || !dB || !dC || !h)
    return -1;
  const double one = 1, zero = 0;
  const int k = (int)n;
  const long long s = (long long)n * n;
  auto run = [&] {
    return BL(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, k, k, k, &one, dB, k, s, dA, k, s, &zero, dC, k, s,
                                        (int)nb));
  };
  double t = best_of(reps, run);
  *check = sum_of(dC, nb * n * n);
  return t;
}

extern "C" double kcu_spmv(const int64_t *row_ptr, const int32_t *cols, const double *vals, int64_t rows, int64_t ncols,
                           const double *x, int reps, double *check) {
  const int64_t nnz = row_ptr[rows];
  std::vector<int32_t> rp32((size_t)rows + 1);
  for (int64_t i = 0; i <= rows; i++)
    rp32[(size_t)i] = (int32_t)row_ptr[i];
  dev d;
  int32_t *drp = d.put(rp32.data(), rows + 1), *dci = d.put(cols, nnz);
  double *dv = d.put(vals, nnz), *dx = d.put(x, ncols), *dy = d.put<double>(nullptr, rows);
  if (!drp || !dci || !dv || !dx || !dy)
    return -1;
  cusparseHandle_t h;
  if (!SP(cusparseCreate(&h)))
    return -1;
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  void *buf = nullptr;
  size_t bytes = 0;
  const double one = 1, zero = 0;
  double t = -1;
  if (SP(cusparseCreateCsr(&mat, rows, ncols, nnz, drp, dci, dv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                           CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F)) &&
      SP(cusparseCreateDnVec(&vx, ncols, dx, CUDA_R_64F)) && SP(cusparseCreateDnVec(&vy, rows, dy, CUDA_R_64F)) &&
      SP(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy, CUDA_R_64F,
                                 CUSPARSE_SPMV_ALG_DEFAULT, &bytes)) &&
      CU(cudaMalloc(&buf, bytes ? bytes : 1))) {
    t = best_of(reps, [&] {
      return SP(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy, CUDA_R_64F,
                             CUSPARSE_SPMV_ALG_DEFAULT, buf));
    });
    *check = sum_of(dy, rows);
  }
  cudaFree(buf);
  if (vx)
    cusparseDestroyDnVec(vx);
  if (vy)
    cusparseDestroyDnVec(vy);
  if (mat)
    cusparseDestroySpMat(mat);
  cusparseDestroy(h);
  return t;
}
