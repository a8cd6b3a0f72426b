// bench/native_cuda_cg.cuh -- hand-written CUDA kernels of a CG iteration (block sum, dot, SpMV, axpy, xpay, fill),
// shared by native_cuda.cu (kk-bench) and kk-bench-mpi-cuda.cu; included inside an anonymous namespace.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

__device__ double block_sum(double v) {
  __shared__ double warp_part[32];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0)
    warp_part[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < (blockDim.x >> 5) ? warp_part[threadIdx.x] : 0.0;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// Grid-stride dot product; every block writes its part, the last block to finish adds them up.
__global__ void dot(const double *__restrict__ x, const double *__restrict__ y, int64_t n, double *part,
                    unsigned *done, double *out) {
  double s = 0;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    s += x[i] * y[i];
  s = block_sum(s);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    part[blockIdx.x] = s;
    __threadfence();
    last = atomicInc(done, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (last) {
    double t = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
      t += ((volatile double *)part)[b];
    t = block_sum(t);
    if (threadIdx.x == 0)
      *out = t;
  }
}

// CSR SpMV, one warp per row.
__global__ void spmv(const int64_t *__restrict__ rp, const int32_t *__restrict__ ci, const double *__restrict__ va,
                     const double *__restrict__ x, double *__restrict__ y, int64_t n) {
  const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (row >= n)
    return;
  double s = 0;
  for (int64_t q = rp[row] + lane; q < rp[row + 1]; q += 32)
    s += va[q] * x[ci[q]];
  for (int o = 16; o > 0; o >>= 1)
    s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0)
    y[row] = s;
}

/* y += a x and y = x + a y: the forms of kk-bench's CG kernels */
__global__ void axpy(double *y, double a, const double *x, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = y[i] + a * x[i];
}

__global__ void xpay(double *y, double a, const double *x, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] + a * y[i];
}

__global__ void fill(double *p, double v, int64_t n) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = v;
}
