/* kk/target/gpu_launch.h -- the launch record a GPU plugin passes to every kernel it runs, after the argument struct. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TARGET_GPU_LAUNCH_H
#define KK_TARGET_GPU_LAUNCH_H

/*
 * A GPU kernel compiled from a kernel file takes two parameters, both by
 * value: the argument struct, then this record.  The GPU target headers
 * (cuda.h, hip.h) read it and the plugins (plugins/cuda, plugins/hip) fill
 * it; it is part of neither public ABI, only of the contract between a
 * target header and its plugin, and travels with KK_GPU_LAUNCH_VERSION,
 * which each image's kernel table records.
 */
#include <kk/kernel_abi.h>

#define KK_GPU_LAUNCH_VERSION 3

/* Largest value a nested team reduction, broadcast or scan may carry on GPUs. */
#define KK_GPU_TEAM_VALUE_MAX 32

/* Words in a device's lock table for arbitrary-size atomics. */
#define KK_GPU_LOCK_COUNT 65536

/* Scan tile states in the status words (low 2 bits; the rest is the epoch). */
#define KK_GPU_TILE_AGGREGATE 1ull
#define KK_GPU_TILE_INCLUSIVE 2ull

/* Bounds checking (kkcc --bounds-check, kk/target/simt.h): the record of
 * a context's first failed access, in 64-bit words of mapped host memory
 * that the plugin reads at a fence.  Not part of kk_gpu_launch: a checked
 * module reaches its context's failure word and record through two module
 * globals (kk__bc_word, kk__bc_record) that the plugin sets when it loads
 * the module, so that unchecked images and the launch record are unchanged. */
#define KK_GPU_BC_STATE 0   /* 2 once the rest is written */
#define KK_GPU_BC_DATA 1    /* the view's data pointer */
#define KK_GPU_BC_RANK_N 2  /* the view's rank | indices given << 32 */
#define KK_GPU_BC_SIZES 3   /* the access's element size | the view's << 32 */
#define KK_GPU_BC_IDX 4     /* KK_MAX_RANK (8) indices */
#define KK_GPU_BC_EXT 12    /* 8 extents */
#define KK_GPU_BC_LINE 20
#define KK_GPU_BC_FILE 21   /* the source file's last 63 bytes, NUL-terminated, 8 words */
#define KK_GPU_BC_WORDS 32
#define KK_GPU_BC_FILE_BYTES 64

typedef struct kk_gpu_launch {
  int64_t begin, end;                  /* range kernels: [begin, end) */
  int64_t league_size;                 /* team kernels */
  void *partials;                      /* reduce: one value per block; scan: tile aggregates */
  void *partials2;                     /* scan: tile inclusive prefixes */
  unsigned long long *status;          /* scan: one status word per tile */
  unsigned long long *tile_counter;    /* scan: hands out tiles in order */
  unsigned long long tile_base;        /* scan: the counter's value when this launch starts */
  unsigned long long epoch;            /* scan: this launch's epoch in the status words */
  unsigned int *counter;               /* reduce: blocks done (the last one combines, then resets it) */
  void *result;                        /* reduce: the value; scan: the total (NULL: not wanted) */
  unsigned char *scratch1;             /* teams: the level-1 scratch pool */
  uint64_t scratch1_stride;            /* bytes of level-1 scratch per block */
  uint64_t team_scratch[2];            /* bytes per team, levels 0 and 1 */
  uint64_t thread_scratch[2];          /* bytes per thread */
  unsigned int *failed;                /* 1 + level (+ 2 per thread) when a kernel overruns its scratch; then 2 words on: bytes asked, bytes requested (uint64) */
  int32_t items;                       /* scan: elements per thread of a tile */
  int32_t rank;                        /* MDRange */
  int32_t inner_left, outer_left;      /* MDRange orders */
  int32_t flat;                        /* MDRange: points of a tile spread over a 1-D block */
  int32_t reserved;
  int64_t md_begin[KK_MD_MAX_RANK], md_end[KK_MD_MAX_RANK];
  int64_t md_tile[KK_MD_MAX_RANK], md_ntile[KK_MD_MAX_RANK];
  int64_t md_tiles;                    /* number of tiles */
  unsigned long long *result_flag;     /* reduce: set to result_seq once the value is in place (NULL: none) */
  unsigned long long result_seq;       /* lets the host wait for this value alone, not the whole kernel */
  unsigned long long *failed_record;   /* teams (cuda): host-mapped {code, bytes asked, bytes requested}, written by
                                        * the kernel that wins `failed`, so that a fence reads it without a copy
                                        * (NULL: none) */
} kk_gpu_launch;

#endif
