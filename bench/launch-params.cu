// bench/launch-params.cu -- what a kernel's parameter bytes cost a plain CUDA launch: back-to-back launches of an empty kernel taking 16 bytes to 4 KiB by value (a benchmark for maint/gpu-lat.sh, not a test).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// nvcc -O2 -arch=sm_90 bench/launch-params.cu -o launch-params && ./launch-params [LAUNCHES]
//
// A kk launch on cuda passes the kernel's argument struct (a view descriptor
// is 160 bytes) and the launch record kk_gpu_launch by value; a hand-written
// kernel passes a few pointers.  This prints, per parameter size, the host
// time of one cudaLaunchKernel (submission) and the time per launch until the
// stream is done (throughput), best of 5 rounds, so that the cost of kk's
// parameter bytes can be read off against the 16-byte row.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>


template <int P> struct blob { unsigned char b[P]; };

template <int P> __global__ void empty(const blob<P> p, int *sink) {
  if (p.b[P - 1] == 77 && threadIdx.x == 0 && blockIdx.x == 0)
    *sink = 1;  // never true: the parameters are read, nothing is written
}

template <int P> static void row(int launches, int *sink, cudaStream_t s) {
  blob<P> p = {};
  double sub = 1e30, thr = 1e30;
  for (int round = -1; round < 5; round++) {
    cudaStreamSynchronize(s);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; i++)
      empty<P><<<1, 32, 0, s>>>(p, sink);
    auto t1 = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    auto t2 = std::chrono::steady_clock::now();
    if (round < 0)
      continue;
    double a = std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
    double b = std::chrono::duration<double, std::micro>(t2 - t0).count() / launches;
    sub = a < sub ? a : sub;
    thr = b < thr ? b : thr;
  }
  if (cudaGetLastError() != cudaSuccess) {
    std::printf("%6d  launch failed\n", P);
    return;
  }
  std::printf("%6d  %12.3f  %12.3f\n", P, sub, thr);
}

int main(int argc, char **argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 20000;
  int *sink = nullptr;
  cudaStream_t s;
  if (cudaMalloc(&sink, sizeof(int)) != cudaSuccess || cudaStreamCreate(&s) != cudaSuccess) {
    std::printf("no CUDA device\n");
    return 77;
  }
  std::printf("params  submit us/launch  done us/launch  (%d launches of 1 x 32 threads, best of 5)\n", launches);
  row<16>(launches, sink, s);
  row<256>(launches, sink, s);
  row<512>(launches, sink, s);
  row<768>(launches, sink, s);
  row<1024>(launches, sink, s);
  row<1536>(launches, sink, s);
  row<2048>(launches, sink, s);
  row<4000>(launches, sink, s);
  cudaFree(sink);
  cudaStreamDestroy(s);
  return 0;
}
