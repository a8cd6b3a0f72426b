/* plugins/gpu/gpu_remap.h -- the argument of the SIMT layer's copy-between-layouts kernels (gpu_remap.cu), as the host side (gpu_simt.c) fills it: C and CUDA/HIP alike. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_GPU_REMAP_H
#define KK_PLUGINS_GPU_REMAP_H

#include <stdint.h>

/* a view's dimensions and one for the words of an element wider than a word */
#define KKG_REMAP_DIMS 9

/* Tile side of kk_remap_tile_W, in words, and its block: TILE x ROWS threads. */
#define KKG_REMAP_TILE 32
#define KKG_REMAP_ROWS 8

/* A copy of words of W bytes (W in the kernel's name: 1, 2, 4, 8, 16).
 * kk_remap_tile_W: `items` tiles of TILE x TILE words over dimensions a
 * (dst's smallest stride: the writes) and b (src's smallest stride: the
 * reads), through shared memory; the other dimensions are dim[0, nouter).
 * kk_remap_any_W: one word per thread, `items` words, dim[0, nouter) with
 * the fastest (dst's smallest stride) last.  Offsets and strides count
 * words. */
typedef struct kkg_remap_args {
  void *dst;
  const void *src;
  int64_t ext[KKG_REMAP_DIMS], dstr[KKG_REMAP_DIMS], sstr[KKG_REMAP_DIMS];
  int64_t ea, eb, dsa, dsb, ssa, ssb; /* the tiled dimensions (tile kernel) */
  int64_t tiles_a, tiles_b;
  int64_t items;
  int32_t nouter;
  int32_t unused;
} kkg_remap_args_t;

#endif
