/* plugins/gpu/gpu_remap.cu -- the SIMT layer's kernels for kk_deep_copy between layouts in device memory: a tiled transpose through shared memory and a general strided copy, per word size (CUDA; HIP compiles the same source). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#if defined(__HIP__)
#include <hip/hip_runtime.h>
#endif
#include "gpu_remap.h"

struct __align__(16) kkg_w16 {
  unsigned long long x, y;
};

/* The offsets of outer index `rest` (dims [0, n), the last fastest). */
__device__ static inline void outer_offsets(const kkg_remap_args_t &a, long long rest, int n, long long &doff,
                                            long long &soff) {
  for (int k = n - 1; k >= 0; k--) {
    const long long i = rest % a.ext[k];
    rest /= a.ext[k];
    doff += i * a.dstr[k];
    soff += i * a.sstr[k];
  }
}

template <typename W> __device__ static void remap_tile(const kkg_remap_args_t &a) {
  __shared__ W tile[KKG_REMAP_TILE][KKG_REMAP_TILE + 1];
  W *d = (W *)a.dst;
  const W *s = (const W *)a.src;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (long long w = blockIdx.x; w < a.items; w += gridDim.x) {
    long long rest = w;
    const long long ta = rest % a.tiles_a;
    rest /= a.tiles_a;
    const long long tb = rest % a.tiles_b;
    rest /= a.tiles_b;
    long long doff = 0, soff = 0;
    outer_offsets(a, rest, a.nouter, doff, soff);
    const long long a0 = ta * KKG_REMAP_TILE, b0 = tb * KKG_REMAP_TILE;
    /* reads along b, where the source is contiguous */
    for (int j = ty; j < KKG_REMAP_TILE; j += KKG_REMAP_ROWS) {
      const long long ia = a0 + j, ib = b0 + tx;
      if (ia < a.ea && ib < a.eb)
        tile[j][tx] = s[soff + ia * a.ssa + ib * a.ssb];
    }
    __syncthreads();
    /* writes along a, where the destination is */
    for (int j = ty; j < KKG_REMAP_TILE; j += KKG_REMAP_ROWS) {
      const long long ia = a0 + tx, ib = b0 + j;
      if (ia < a.ea && ib < a.eb)
        d[doff + ia * a.dsa + ib * a.dsb] = tile[tx][j];
    }
    __syncthreads();
  }
}

template <typename W> __device__ static void remap_any(const kkg_remap_args_t &a) {
  W *d = (W *)a.dst;
  const W *s = (const W *)a.src;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x; w < a.items; w += step) {
    long long doff = 0, soff = 0;
    outer_offsets(a, w, a.nouter, doff, soff);
    d[doff] = s[soff];
  }
}

#define KKG_REMAP_KERNELS(N, W)                                                                              \
  extern "C" __global__ void __launch_bounds__(KKG_REMAP_TILE *KKG_REMAP_ROWS)                                  \
      kk_remap_tile_##N(const kkg_remap_args_t a) {                                                          \
    remap_tile<W>(a);                                                                                        \
  }                                                                                                          \
  extern "C" __global__ void kk_remap_any_##N(const kkg_remap_args_t a) { remap_any<W>(a); }
KKG_REMAP_KERNELS(1, unsigned char)
KKG_REMAP_KERNELS(2, unsigned short)
KKG_REMAP_KERNELS(4, unsigned int)
KKG_REMAP_KERNELS(8, unsigned long long)
KKG_REMAP_KERNELS(16, kkg_w16)
