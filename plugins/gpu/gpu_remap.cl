/* plugins/gpu/gpu_remap.cl -- the GPU layer's kernels for kk_deep_copy between layouts on the SPIR-V backends (OpenCL C 1.2): a tiled transpose through local memory and a general strided copy, per word size, as gpu_remap.cu does for CUDA/HIP; compiled after gpu_remap.h (the opencl plugin builds the two as one source at run time). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/* The offsets of outer index `rest` (dims [0, n), the last fastest). */
static void kkg_outer_offsets(__private const kkg_remap_args_t *a, long rest, int n, __private long *doff,
                              __private long *soff) {
  for (int k = n - 1; k >= 0; k--) {
    const long i = rest % a->ext[k];
    rest /= a->ext[k];
    *doff += i * a->dstr[k];
    *soff += i * a->sstr[k];
  }
}

/* Tile by tile, a group of TILE x ROWS work-items: reads along b, where the
 * source is contiguous, into local memory; writes along a, where the
 * destination is.  Every work-item of a group runs the same iterations, so
 * the barriers are reached by all. */
#define KKG_REMAP_TILE_KERNEL(N, W)                                                                        \
  __kernel __attribute__((reqd_work_group_size(KKG_REMAP_TILE, KKG_REMAP_ROWS, 1))) void kk_remap_tile_##N( \
      __global W *d, __global const W *s, const kkg_remap_args_t a) {                                       \
    __local W tile[KKG_REMAP_TILE][KKG_REMAP_TILE + 1];                                                     \
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);                                         \
    for (long w = (long)get_group_id(0); w < a.items; w += (long)get_num_groups(0)) {                       \
      long rest = w;                                                                                        \
      const long ta = rest % a.tiles_a;                                                                     \
      rest /= a.tiles_a;                                                                                    \
      const long tb = rest % a.tiles_b;                                                                     \
      rest /= a.tiles_b;                                                                                    \
      long doff = 0, soff = 0;                                                                              \
      kkg_outer_offsets(&a, rest, a.nouter, &doff, &soff);                                                  \
      const long a0 = ta * KKG_REMAP_TILE, b0 = tb * KKG_REMAP_TILE;                                        \
      for (int j = ty; j < KKG_REMAP_TILE; j += KKG_REMAP_ROWS) {                                           \
        const long ia = a0 + j, ib = b0 + tx;                                                               \
        if (ia < a.ea && ib < a.eb)                                                                         \
          tile[j][tx] = s[soff + ia * a.ssa + ib * a.ssb];                                                  \
      }                                                                                                     \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                         \
      for (int j = ty; j < KKG_REMAP_TILE; j += KKG_REMAP_ROWS) {                                           \
        const long ia = a0 + tx, ib = b0 + j;                                                               \
        if (ia < a.ea && ib < a.eb)                                                                         \
          d[doff + ia * a.dsa + ib * a.dsb] = tile[tx][j];                                                  \
      }                                                                                                     \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                         \
    }                                                                                                       \
  }

/* One word per work-item, the destination's fastest dimension last, so that
 * neighbouring work-items write neighbouring words. */
#define KKG_REMAP_ANY_KERNEL(N, W)                                                                         \
  __kernel void kk_remap_any_##N(__global W *d, __global const W *s, const kkg_remap_args_t a) {            \
    const long step = (long)get_global_size(0);                                                             \
    for (long w = (long)get_global_id(0); w < a.items; w += step) {                                         \
      long doff = 0, soff = 0;                                                                              \
      kkg_outer_offsets(&a, w, a.nouter, &doff, &soff);                                                     \
      d[doff] = s[soff];                                                                                    \
    }                                                                                                       \
  }

#define KKG_REMAP_KERNELS(N, W) KKG_REMAP_TILE_KERNEL(N, W) KKG_REMAP_ANY_KERNEL(N, W)
KKG_REMAP_KERNELS(1, uchar)
KKG_REMAP_KERNELS(2, ushort)
KKG_REMAP_KERNELS(4, uint)
KKG_REMAP_KERNELS(8, ulong)
KKG_REMAP_KERNELS(16, ulong2)
