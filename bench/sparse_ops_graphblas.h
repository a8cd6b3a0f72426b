/* bench/sparse_ops_graphblas.h -- SuiteSparse:GraphBLAS as the host reference of kk-bench-sparse-ops (SpGEMM, SpAdd), opened at run time. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_SPARSE_OPS_GRAPHBLAS_H
#define KK_BENCH_SPARSE_OPS_GRAPHBLAS_H

#include <stdint.h>

/* Times C = A*B (add 0: GrB_mxm on the plus-times semiring) or C = A + B
 * (add 1: GrB_Matrix_eWiseAdd with plus) on double CSR matrices (row
 * pointers int64, columns int32), a new C each time, finished with
 * GrB_Matrix_wait(MATERIALIZE), on `threads` threads: the best of `reps`
 * in seconds, C's entries in *nnz.  GraphBLAS is opened with dlopen
 * (libgraphblas.so.9, .8, .7, then libgraphblas.so; KK_BENCH_GRAPHBLAS
 * names another file).  Returns a negative value, with the reason in
 * `why` (of `why_size` bytes), when it cannot be opened or a call fails. */
double kkb_graphblas_product(int64_t rows, int64_t inner, int64_t cols, const int64_t *arp, const int32_t *aci,
                             const double *av, const int64_t *brp, const int32_t *bci, const double *bv, int add,
                             int threads, int reps, int64_t *nnz, char *why, int why_size);

#endif
