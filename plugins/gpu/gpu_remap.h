/* plugins/gpu/gpu_remap.h -- the argument of the GPU layer's copy-between-layouts kernels (gpu_remap.cu for CUDA/HIP, gpu_remap.cl for OpenCL C and SPIR-V), as the host side (kkg_remap_plan in gpu.c) fills it: C, CUDA/HIP and OpenCL C alike. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_GPU_REMAP_H
#define KK_PLUGINS_GPU_REMAP_H

#ifdef __OPENCL_C_VERSION__
#define KKG_REMAP_I64 long
#define KKG_REMAP_I32 int
#else
#include <stdint.h>
#define KKG_REMAP_I64 int64_t
#define KKG_REMAP_I32 int32_t
#endif

/* a view's dimensions and one for the words of an element wider than a word */
#define KKG_REMAP_DIMS 9

/* Tile side of kk_remap_tile_W, in words, and its block: TILE x ROWS threads;
 * kk_remap_any_W's block: ANY threads. */
#define KKG_REMAP_TILE 32
#define KKG_REMAP_ROWS 8
#define KKG_REMAP_ANY 256

/* A copy of words of W bytes (W in the kernel's name: 1, 2, 4, 8, 16).
 * kk_remap_tile_W: `items` tiles of TILE x TILE words over dimensions a
 * (dst's smallest stride: the writes) and b (src's smallest stride: the
 * reads), through shared memory; the other dimensions are dim[0, nouter).
 * kk_remap_any_W: one word per thread, `items` words, dim[0, nouter) with
 * the fastest (dst's smallest stride) last.  Offsets and strides count
 * words.  In OpenCL C the two pointers are kernel arguments of their own
 * (shared virtual memory must be named to the runtime as such); the
 * struct keeps their place, so that its layout is the same everywhere. */
typedef struct kkg_remap_args {
#ifdef __OPENCL_C_VERSION__
  ulong dst_unused, src_unused;
#else
  void *dst;
  const void *src;
#endif
  KKG_REMAP_I64 ext[KKG_REMAP_DIMS], dstr[KKG_REMAP_DIMS], sstr[KKG_REMAP_DIMS];
  KKG_REMAP_I64 ea, eb, dsa, dsb, ssa, ssb; /* the tiled dimensions (tile kernel) */
  KKG_REMAP_I64 tiles_a, tiles_b;
  KKG_REMAP_I64 items;
  KKG_REMAP_I32 nouter;
  KKG_REMAP_I32 unused;
} kkg_remap_args_t;

#endif
