// bench/sparse_ops_native_cuda.cu -- cusparseSpGEMM, timed by kk-bench-sparse-ops beside kk-kernels' SpGEMM on the cuda
// backend (see sparse_ops_native_cuda.h).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <vector>

#include "sparse_ops_native_cuda.h"

namespace {

double now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

bool ok_cuda(cudaError_t e, const char *what) {
  if (e == cudaSuccess)
    return true;
  fprintf(stderr, "kk-bench-sparse-ops (cuSPARSE side): %s: %s\n", what, cudaGetErrorString(e));
  return false;
}
bool ok_sparse(cusparseStatus_t e, const char *what) {
  if (e == CUSPARSE_STATUS_SUCCESS)
    return true;
  fprintf(stderr, "kk-bench-sparse-ops (cuSPARSE side): %s: %s\n", what, cusparseGetErrorString(e));
  return false;
}
#define CU(call) ok_cuda((call), #call)
#define SP(call) ok_sparse((call), #call)

struct dev {
  std::vector<void *> ptrs;
  ~dev() {
    for (void *p : ptrs)
      cudaFree(p);
  }
  void *alloc(size_t bytes) {
    void *d = nullptr;
    if (!CU(cudaMalloc(&d, bytes ? bytes : 1)))
      return nullptr;
    ptrs.push_back(d);
    return d;
  }
  template <class T> T *put(const T *h, int64_t n) {
    T *d = (T *)alloc(sizeof(T) * (size_t)n);
    if (d && n > 0 && !CU(cudaMemcpy(d, h, sizeof(T) * (size_t)n, cudaMemcpyHostToDevice)))
      return nullptr;
    return d;
  }
};

int *offsets32(dev &d, const int64_t *rp, int64_t rows) {
  std::vector<int> h((size_t)rows + 1);
  for (int64_t i = 0; i <= rows; i++)
    h[(size_t)i] = (int)rp[i];
  return d.put(h.data(), rows + 1);
}

// One whole product C = A B; *nnz its entries.  false on failure.
bool product(cusparseHandle_t h, cusparseSpMatDescr_t A, cusparseSpMatDescr_t B, int64_t m, int64_t n,
             int64_t *nnz) {
  const double one = 1.0, zero = 0.0;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  dev d;
  int *crp = (int *)d.alloc(sizeof(int) * (size_t)(m + 1));
  cusparseSpMatDescr_t C = nullptr;
  cusparseSpGEMMDescr_t g = nullptr;
  bool ok = crp && SP(cusparseCreateCsr(&C, m, n, 0, crp, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F)) &&
            SP(cusparseSpGEMM_createDescr(&g));
  size_t s1 = 0, s2 = 0;
  void *b1 = nullptr, *b2 = nullptr;
  ok = ok && SP(cusparseSpGEMM_workEstimation(h, op, op, &one, A, B, &zero, C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g,
                                              &s1, nullptr));
  ok = ok && (b1 = d.alloc(s1)) != nullptr;
  ok = ok && SP(cusparseSpGEMM_workEstimation(h, op, op, &one, A, B, &zero, C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g,
                                              &s1, b1));
  ok = ok && SP(cusparseSpGEMM_compute(h, op, op, &one, A, B, &zero, C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g, &s2,
                                       nullptr));
  ok = ok && (b2 = d.alloc(s2)) != nullptr;
  ok = ok && SP(cusparseSpGEMM_compute(h, op, op, &one, A, B, &zero, C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g, &s2,
                                       b2));
  int64_t r = 0, c = 0, z = 0;
  ok = ok && SP(cusparseSpMatGetSize(C, &r, &c, &z));
  int *cci = ok ? (int *)d.alloc(sizeof(int) * (size_t)z) : nullptr;
  double *cv = ok ? (double *)d.alloc(sizeof(double) * (size_t)z) : nullptr;
  ok = ok && cci && cv && SP(cusparseCsrSetPointers(C, crp, cci, cv));
  ok = ok && SP(cusparseSpGEMM_copy(h, op, op, &one, A, B, &zero, C, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g));
  ok = ok && CU(cudaDeviceSynchronize());
  *nnz = z;
  if (g)
    cusparseSpGEMM_destroyDescr(g);
  if (C)
    cusparseDestroySpMat(C);
  return ok;
}

}  // namespace

extern "C" double kkb_cusparse_spgemm(int64_t m, int64_t k, int64_t annz, const int64_t *arp, const int32_t *aci,
                                      const double *av, int64_t n, int64_t bnnz, const int64_t *brp,
                                      const int32_t *bci, const double *bv, int reps, int64_t *nnz) {
  dev d;
  int *darp = offsets32(d, arp, m), *dbrp = offsets32(d, brp, k);
  const int *daci = d.put(aci, annz), *dbci = d.put(bci, bnnz);
  const double *dav = d.put(av, annz), *dbv = d.put(bv, bnnz);
  if (!darp || !dbrp || !daci || !dbci || !dav || !dbv)
    return -1;
  cusparseHandle_t h = nullptr;
  cusparseSpMatDescr_t A = nullptr, B = nullptr;
  bool ok = SP(cusparseCreate(&h)) &&
            SP(cusparseCreateCsr(&A, m, k, annz, darp, (void *)daci, (void *)dav, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F)) &&
            SP(cusparseCreateCsr(&B, k, n, bnnz, dbrp, (void *)dbci, (void *)dbv, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  double best = 1e30;
  ok = ok && product(h, A, B, m, n, nnz); // warm-up
  for (int r = 0; ok && r < reps; r++) {
    const double t0 = now();
    ok = product(h, A, B, m, n, nnz);
    const double t = now() - t0;
    best = t < best ? t : best;
  }
  if (A)
    cusparseDestroySpMat(A);
  if (B)
    cusparseDestroySpMat(B);
  if (h)
    cusparseDestroy(h);
  return ok ? best : -1;
}
