/* kk/target/spirv_launch.h -- the launch record the SPIR-V plugins (opencl, levelzero) pass to every kernel they run. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TARGET_SPIRV_LAUNCH_H
#define KK_TARGET_SPIRV_LAUNCH_H

/*
 * A kernel compiled for the SPIR-V target (kk/target/spirv.h) takes two
 * parameters: a global pointer to one launch slot and the work-group's local
 * memory.  The slot holds this record, then the argument struct at
 * KK_SPIRV_ARGS_OFFSET.  Slots are device memory the plugin fills before the
 * launch: an OpenCL device may cap all kernel parameters together at 1 KiB,
 * and argument structs of ten views are larger than that.
 *
 * The record is not kk_gpu_launch (gpu_launch.h) because OpenCL's
 * `long long` is 128 bits wide; every field here is a fixed-width type or a
 * pointer, identical for the host compiler and the device compiler.  It is
 * part of no public ABI, only of the contract between spirv.h and the SPIR-V
 * plugins, and travels with KK_SPIRV_LAUNCH_VERSION (the image's "arch").
 */
#include <kk/kernel_abi.h>

#define KK_SPIRV_LAUNCH_VERSION 1

/* Where the argument struct starts inside a launch slot, and the largest
 * argument struct a slot carries. */
#define KK_SPIRV_ARGS_OFFSET 512
#define KK_SPIRV_SLOT_BYTES 4096

/* Largest value a nested team reduction, broadcast or scan may carry. */
#define KK_SPIRV_TEAM_VALUE_MAX 32

/* Words in a device's lock table for arbitrary-size atomics. */
#define KK_SPIRV_LOCK_COUNT 65536

/* Kernels built with kkcc --bounds-check find the context's bounds-check
 * record (KK_SPIRV_BC_WORDS words laid out as KK_SPIRV_BC_* below, its
 * state word doubling as the failure word the first failing access takes)
 * through a pointer at this offset of the slot, after the launch record and
 * outside it, so that the record's type, and with it every unchecked image,
 * stays as it was.  The plugin writes NULL there for unchecked kernels. */
#define KK_SPIRV_BC_POINTER_OFFSET (KK_SPIRV_ARGS_OFFSET - 8)

/* The bounds-check record's words (kk/target/gpu_launch.h's KK_GPU_BC_*,
 * repeated here because that header's launch record is not OpenCL's;
 * plugins/gpu/gpu_spirv.c checks that they agree). */
#define KK_SPIRV_BC_STATE 0
#define KK_SPIRV_BC_DATA 1
#define KK_SPIRV_BC_RANK_N 2
#define KK_SPIRV_BC_SIZES 3
#define KK_SPIRV_BC_IDX 4
#define KK_SPIRV_BC_EXT 12
#define KK_SPIRV_BC_LINE 20
#define KK_SPIRV_BC_FILE 21
#define KK_SPIRV_BC_WORDS 32
#define KK_SPIRV_BC_FILE_BYTES 64

typedef struct kk_spirv_launch {
  int64_t begin, end;                  /* range kernels: [begin, end) */
  int64_t league_size;                 /* team kernels */
  void *partials;                      /* reduce: one value per group; scan: tile aggregates */
  void *partials2;                     /* scan: every thread's part of every tile */
  void *result;                        /* reduce: the value; scan: the total (NULL: not wanted) */
  uint32_t *counter;                   /* reduce: groups done (the last one combines, then resets it) */
  uint64_t *failed;                    /* teams: {1 + level + 2 * per_thread, bytes asked, bytes given} */
  uint32_t *locks;                     /* the device lock table */
  unsigned char *scratch1;             /* teams: the level-1 scratch pool */
  uint64_t scratch1_stride;            /* bytes of level-1 scratch per group */
  uint64_t team_scratch[2];            /* bytes per team, levels 0 and 1 */
  uint64_t thread_scratch[2];          /* bytes per thread */
  int64_t tiles;                       /* scan: number of tiles (and groups) */
  int32_t items;                       /* scan: elements per work-item of a tile */
  int32_t reserved;
  int32_t rank;                        /* MDRange */
  int32_t inner_left, outer_left;      /* MDRange orders */
  int32_t vector_length;               /* teams: the launch's vector length */
  int64_t md_begin[KK_MD_MAX_RANK], md_end[KK_MD_MAX_RANK];
  int64_t md_tile[KK_MD_MAX_RANK], md_ntile[KK_MD_MAX_RANK];
  int64_t md_tiles;                    /* number of tiles */
} kk_spirv_launch;

#endif
