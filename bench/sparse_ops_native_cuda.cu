// bench/sparse_ops_native_cuda.cu -- cusparseSpGEMM and cusparseDcsrgeam2, timed by kk-bench-sparse-ops beside
// kk-kernels' SpGEMM and SpAdd on the cuda backend (see sparse_ops_native_cuda.h).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "bench_base.h" // bench_now: the programs' clock
#include "bench_cuda.cuh"
#include "sparse_ops_native_cuda.h"

namespace {

#define CU(call) bench_cuda_ok((call), #call, "kk-bench-sparse-ops (cuSPARSE side)")
#define SP(call) bench_cusparse_ok((call), #call, "kk-bench-sparse-ops (cuSPARSE side)")

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
    const double t0 = bench_now();
    ok = product(h, A, B, m, n, nnz);
    const double t = bench_now() - t0;
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

namespace {

// The matrix descriptor csrgeam2 takes (general, zero-based).
cusparseMatDescr_t general() {
  cusparseMatDescr_t d = nullptr;
  if (!SP(cusparseCreateMatDescr(&d)))
    return nullptr;
  cusparseSetMatType(d, CUSPARSE_MATRIX_TYPE_GENERAL);
  cusparseSetMatIndexBase(d, CUSPARSE_INDEX_BASE_ZERO);
  return d;
}

// The result of one sum on the device, and its work buffer.
struct geam_c {
  dev d;
  int *rp = nullptr, *ci = nullptr;
  double *v = nullptr;
  void *buf = nullptr;
  int nnz = 0;
};

}  // namespace

extern "C" double kkb_cusparse_spadd(int64_t m, int64_t n, int64_t annz, const int64_t *arp, const int32_t *aci,
                                     const double *av, int64_t bnnz, const int64_t *brp, const int32_t *bci,
                                     const double *bv, double alpha, double beta, int reps, double *numeric,
                                     int64_t *crp, int32_t **cci, double **cv, int64_t *nnz) {
  *cci = nullptr;
  *cv = nullptr;
  *numeric = -1;
  dev d;
  int *darp = offsets32(d, arp, m), *dbrp = offsets32(d, brp, m);
  const int *daci = d.put(aci, annz), *dbci = d.put(bci, bnnz);
  const double *dav = d.put(av, annz), *dbv = d.put(bv, bnnz);
  if (!darp || !dbrp || !daci || !dbci || !dav || !dbv)
    return -1;
  cusparseHandle_t h = nullptr;
  cusparseMatDescr_t dA = general(), dB = general(), dC = general();
  bool ok = dA && dB && dC && SP(cusparseCreate(&h)) && SP(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_HOST));
  const int im = (int)m, in = (int)n, ia = (int)annz, ib = (int)bnnz;
  // the whole sum (what kk's symbolic + numeric phases do): buffer size, C's row offsets and entry count, C's
  // allocation, the values; the last run's C stays for the numeric-only runs and the check
  geam_c *last = nullptr;
  double best = 1e30, best_num = 1e30;
  for (int r = 0; ok && r <= reps; r++) { // run 0 warms up
    geam_c *c = new geam_c;
    const double t0 = bench_now();
    size_t bytes = 0;
    ok = (c->rp = (int *)c->d.alloc(sizeof(int) * (size_t)(m + 1))) != nullptr;
    ok = ok && SP(cusparseDcsrgeam2_bufferSizeExt(h, im, in, &alpha, dA, ia, dav, darp, daci, &beta, dB, ib, dbv,
                                                  dbrp, dbci, dC, nullptr, c->rp, nullptr, &bytes));
    ok = ok && (c->buf = c->d.alloc(bytes)) != nullptr;
    ok = ok && SP(cusparseXcsrgeam2Nnz(h, im, in, dA, ia, darp, daci, dB, ib, dbrp, dbci, dC, c->rp, &c->nnz, c->buf));
    ok = ok && (c->ci = (int *)c->d.alloc(sizeof(int) * (size_t)c->nnz)) != nullptr &&
         (c->v = (double *)c->d.alloc(sizeof(double) * (size_t)c->nnz)) != nullptr;
    ok = ok && SP(cusparseDcsrgeam2(h, im, in, &alpha, dA, ia, dav, darp, daci, &beta, dB, ib, dbv, dbrp, dbci, dC,
                                    c->v, c->rp, c->ci, c->buf));
    ok = ok && CU(cudaDeviceSynchronize());
    const double t = bench_now() - t0;
    if (r > 0)
      best = t < best ? t : best;
    delete last;
    last = c;
  }
  // the numeric phase alone: the values again into the same C, with the same buffer
  for (int r = 0; ok && r <= reps; r++) {
    const double t0 = bench_now();
    ok = SP(cusparseDcsrgeam2(h, im, in, &alpha, dA, ia, dav, darp, daci, &beta, dB, ib, dbv, dbrp, dbci, dC,
                              last->v, last->rp, last->ci, last->buf)) &&
         CU(cudaDeviceSynchronize());
    const double t = bench_now() - t0;
    if (r > 0)
      best_num = t < best_num ? t : best_num;
  }
  if (ok && last) {
    std::vector<int> rp((size_t)m + 1);
    *nnz = last->nnz;
    *cci = (int32_t *)malloc(sizeof(int32_t) * (size_t)(last->nnz + 1));
    *cv = (double *)malloc(sizeof(double) * (size_t)(last->nnz + 1));
    ok = *cci && *cv && CU(cudaMemcpy(rp.data(), last->rp, sizeof(int) * (size_t)(m + 1), cudaMemcpyDeviceToHost)) &&
         CU(cudaMemcpy(*cci, last->ci, sizeof(int) * (size_t)last->nnz, cudaMemcpyDeviceToHost)) &&
         CU(cudaMemcpy(*cv, last->v, sizeof(double) * (size_t)last->nnz, cudaMemcpyDeviceToHost));
    for (int64_t i = 0; ok && i <= m; i++)
      crp[i] = rp[(size_t)i];
  }
  delete last;
  if (dA)
    cusparseDestroyMatDescr(dA);
  if (dB)
    cusparseDestroyMatDescr(dB);
  if (dC)
    cusparseDestroyMatDescr(dC);
  if (h)
    cusparseDestroy(h);
  if (!ok) {
    free(*cci);
    free(*cv);
    *cci = nullptr;
    *cv = nullptr;
    return -1;
  }
  *numeric = best_num;
  return best;
}
