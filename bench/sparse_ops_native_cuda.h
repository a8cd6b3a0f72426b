/* bench/sparse_ops_native_cuda.h -- the vendor side of kk-bench-sparse-ops on the cuda backend: cusparseSpGEMM and cusparseDcsrgeam2 (bench/sparse_ops_native_cuda.cu).
 *
 * Copies A (m x k) and B (k x n), CSR with 32-bit offsets and columns, to the device, runs the whole product once to warm
 * up and then `reps` times (work estimation, compute, the result's allocation and copy: what kk's symbolic + numeric
 * phases do), each followed by a device synchronize, and returns the best time in seconds; *nnz gets C's entries.  A
 * negative return means CUDA or cuSPARSE failed (printed on stderr).  Built only when configure enabled cuda. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_SPARSE_OPS_NATIVE_CUDA_H
#define KK_BENCH_SPARSE_OPS_NATIVE_CUDA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

double kkb_cusparse_spgemm(int64_t m, int64_t k, int64_t annz, const int64_t *arp, const int32_t *aci,
                           const double *av, int64_t n, int64_t bnnz, const int64_t *brp, const int32_t *bci,
                           const double *bv, int reps, int64_t *nnz);

/* C = alpha A + beta B with cusparseDcsrgeam2 (A and B m x n, rows sorted without repeated columns, as csrgeam2
 * requires): the whole sum (buffer size, cusparseXcsrgeam2Nnz, C's allocation, cusparseDcsrgeam2; what kk's symbolic +
 * numeric phases do) once to warm up and `reps` times, then cusparseDcsrgeam2 alone into the last C (kk's numeric
 * phase), once to warm up and `reps` times, each followed by a device synchronize.  Returns the best whole time in
 * seconds, *numeric the best numeric one; C comes back for a check: crp (m + 1, the caller's), *cci and *cv (malloc'ed,
 * the caller frees them), *nnz.  A negative return means CUDA or cuSPARSE failed (printed on stderr; *cci and *cv
 * NULL). */
double kkb_cusparse_spadd(int64_t m, int64_t n, int64_t annz, const int64_t *arp, const int32_t *aci, const double *av,
                          int64_t bnnz, const int64_t *brp, const int32_t *bci, const double *bv, double alpha,
                          double beta, int reps, double *numeric, int64_t *crp, int32_t **cci, double **cv,
                          int64_t *nnz);

#ifdef __cplusplus
}
#endif

#endif
