/* bench/native_cuda.h -- the hand-written CUDA versions kk-bench times the cuda backend against (bench/native_cuda.cu).
 *
 * Each function owns its device memory, fills it with the same values as kk-bench's kernels, and returns the best
 * time in seconds of `reps` runs, each run ending with a stream synchronize.  All return a negative value when CUDA
 * fails, after printing why.  Built only when configure enabled the cuda backend. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_NATIVE_CUDA_H
#define KK_BENCH_NATIVE_CUDA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* a[i] = b[i] + s c[i] over n doubles, b = 1 + i%7, c = 0.5 (i%3). */
double ncu_triad(int64_t n, int reps);
/* sum of b[i] c[i] (values as above); the result in *result.  One kernel with a block reduction and a last-block
 * combine, as one would write it by hand. */
double ncu_dot(int64_t n, int reps, double *result);
/* cudaMemcpyAsync device to device of n doubles: the bandwidth ceiling of a streaming kernel. */
double ncu_copy(int64_t n, int reps);
/* Exclusive sum of n int64 (x[i] = i % 5) with CUB's DeviceScan::ExclusiveSum; the total in *total. */
double ncu_scan_i64(int64_t n, int reps, int64_t *total);
/* One bare driver-API launch of an empty kernel (cuLaunchKernel, one block of 32 threads) plus cuStreamSynchronize:
 * seconds per launch, best of `trials` rounds of `launches` launches. */
double ncu_launch_latency(int launches, int trials);

/* Tensor add a(i,j,k) += b(i,j,k) over n^3 doubles three ways, stored LayoutLeft (i unit stride) when `left`, else
 * LayoutRight: way 0 one thread per i looping over j and k ("outer"), 1 one thread per element of the flattened
 * index (k fastest), 2 a 3-D grid of 3-D blocks, x along the unit-stride index (the MDRange shape). */
double ncu_tensor(int way, int64_t n, int reps, int left);
/* Scatter-add of 1 (int), 1.0 (double), (1, 0.5) (complex float / double) into `cells` cells at idx[u], u < updates,
 * with atomicAdd (complex: one atomicAdd per component).  type 0 int, 1 double, 2 complex float, 3 complex double. */
/* grid: the device memory the updates go to (kk's view, so that both sides
 * update the same addresses), or NULL for a cudaMalloc of its own */
double ncu_atomics(int type, const int32_t *idx, int64_t updates, int64_t cells, int reps, void *grid);
/* Min and sum of x[0..n) in one kernel (two block reductions); results in *mn, *sum. */
double ncu_min_sum(const double *x, int64_t n, int reps, double *mn, double *sum);
/* nb batched m x m matrix-vector products y_b = A_b x_b, A = 0.5, x = 1, one block per batch with A_b's rows
 * staged through shared memory. */
double ncu_batched(int64_t nb, int64_t m, int reps);
/* The transpose of an n x n matrix of doubles stored LayoutRight (src(i, j) at i n + j, src = i n + j) into
 * LayoutLeft (dst(i, j) at i + j n), hand-written: 32 x 32 tiles through shared memory (padded to 33 columns), reads
 * and writes coalesced; a check of every element after the timed runs (-1 on a mismatch). */
double ncu_transpose(int64_t n, int reps);
/* `iters` CG iterations on the CSR matrix (row_ptr, cols, vals) of n rows from b = 1, x = 0, one warp per row in
 * SpMV; the final r.r in *rr.  Seconds for the whole solve. */
double ncu_cg(const int64_t *row_ptr, const int32_t *cols, const double *vals, int64_t n, int iters, double *rr);

/* Graphs (kk-bench-graph.c).  A chain of `kernels` launches of y = x + 0.5 y over n doubles on one stream, each
 * reading the y the one before wrote: seconds per chain (then a stream synchronize), best of `reps` runs of 20
 * chains; launched one by one when graph is 0, as one CUDA graph captured from the same launches
 * (cudaStreamBeginCapture, cudaGraphInstantiate, cudaGraphLaunch) when graph is 1. */
double ncu_chain(int64_t n, int kernels, int reps, int graph);
/* CG as ncu_cg with its scalars on the device (the dots into device memory, the vector updates reading them and
 * dividing in every thread, r.r carried by a device-to-device copy), so that an iteration needs no host: launched one by one (graph 0) or as one
 * CUDA graph of an iteration launched `iters` times (graph 1).  The final r.r in *rr; seconds for the whole solve,
 * best of two. */
double ncu_cg_device(const int64_t *row_ptr, const int32_t *cols, const double *vals, int64_t n, int iters, int graph,
                     double *rr);

#ifdef __cplusplus
}
#endif

#endif
