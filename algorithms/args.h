/* algorithms/args.h -- the argument structs kk-algorithms' kernel files share with its host code (every target compiles this). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKA_ARGS_H
#define KKA_ARGS_H

#include <kk.h>
#include <kk/random.h>
#include <kk/std_algorithms.h>

/* ---- random ------------------------------------------------------------------------------------- */

/* Seeds every slot of a pool. */
struct kka_rseed_args {
  kk__rpool_desc p;
};

/* Fills a view from a pool.  xorshift pools: one iteration per slot, which
 * fills elements [s * per, (s + 1) * per) (blocked) or s, s + num_states, ...
 * (interleaved).  Philox: one iteration per counter block of `per_block`
 * elements. */
struct kka_rfill_args {
  kk__rpool_desc p;
  kk_view_strided v;   /* any rank */
  int64_t n;           /* elements */
  int64_t per;         /* blocked: elements per slot */
  uint64_t ilo;        /* integers: the lowest value (its bits) */
  uint64_t irange;     /* integers: values in the range (0: every bit pattern) */
  double a, b;         /* floating point: [a, b), or mean and standard deviation */
  uint64_t offset;     /* Philox: the fill stream's first block */
  int32_t type;        /* kk_type_t */
  int32_t normal;      /* 1: normal numbers */
  int32_t blocked;     /* 1: blocked, 0: interleaved */
  int32_t contig;      /* 1: element i at data[i] */
  const uint64_t *jump; /* host backends, xorshift64: the jump table below (random.c), else NULL */
  int32_t stream;       /* with jump, 4- and 8-byte elements: stores that bypass the caches */
  int32_t pad;
};
/* xorshift64* on host backends: a slot's block of at least KKA_LANE_MIN
 * elements is drawn by KKA_LANES generators at once, in rounds of
 * 2^KKA_LANE_LOG2Q elements per lane, lane l starting l * 2^KKA_LANE_LOG2Q
 * draws into the round (a jump by the matrices of the table: 64 matrices
 * of 2^i steps, 64 columns each).  The numbers are those of one generator
 * drawing the block in order. */
#define KKA_LANES 4
#define KKA_LANE_LOG2Q 12
#define KKA_LANE_MIN ((int64_t)1 << 15)
#define KKA_JUMP_WORDS (64 * 64)
/* The counter stream of kk_fill_random on a Philox pool (slots use 0 .. num_states - 1). */
#define KKA_PHILOX_FILL_STREAM 0xFFFFFFFFFFFFFFFFul

/* ---- copies -------------------------------------------------------------------------------------- */

/* dst[j] = src[perm ? perm[j] : j] for j in [0, n) (rank-1 descriptors); a
 * kernel per element size class (1, 2, 4, 8, 16 bytes), bytes otherwise. */
struct kka_copy_args {
  kk_view_strided dst, src;
  const int64_t *perm;
  int64_t n;
  uint32_t esize;
  uint32_t pad;
};

/* ---- radix sort ---------------------------------------------------------------------------------- */

/* Radix digits: 8 bits. */
#define KKA_RADIX_BITS 8
#define KKA_RADIX 256

/* How a key's bits become an unsigned number in the order of its values. */
#define KKA_KEY_UNSIGNED 0
#define KKA_KEY_SIGNED 1
#define KKA_KEY_FLOAT 2

/* Host backends: a block of keys per iteration; counts[b * 256 + d] is the
 * number of keys of block b with digit d, then (after the host's scan) where
 * block b writes its first key of digit d. */
struct kka_hsort_args {
  const void *kin, *vin;
  void *kout, *vout;
  int64_t *counts;
  int64_t n, per;
  int32_t shift;  /* the digit's first bit */
  int32_t kind;   /* KKA_KEY_* */
  int32_t desc;   /* 1: descending */
  int32_t vsize;  /* bytes per value, 0: none */
};

/* GPUs: the one-sweep radix sort (sort_pass_tmpl.h).  Teams of KKA_GPU_TS
 * threads take tiles of KKA_GPU_TS * KKA_GPU_IT_<key bytes> keys; team
 * scratch holds counters for up to KKA_GPU_NWMAX warps (of 32 lanes). */
#define KKA_GPU_TS 256
#define KKA_GPU_NWMAX 8
#define KKA_GPU_MISC 32
#define KKA_GPU_IT_1 16
#define KKA_GPU_IT_2 16
#define KKA_GPU_IT_4 16
#define KKA_GPU_IT_8 12
/* CUDA: pass teams resident per SM (launch bounds: the registers per
 * thread), keys alone and key-value pairs */
#define KKA_GPU_TEAMS_KEYS 4
#define KKA_GPU_TEAMS_PAIRS 3
/* the fifth form's pass of 4-byte keys and values (values sorted after
 * the keys, sort_gpu.c) on HIP: its team scratch, 40 KB, lets 4 teams share
 * a multiprocessor, where 3 leave a quarter of its warps idle */
#define KKA_GPU_TEAMS_PAIRS4 4
/* CUDA: the fifth form's passes of key-value pairs of 4 and of 8 bytes
 * each take larger tiles, KKA_GPU_TS * KKA_CUDA_IT_PAIRS_<bytes> pairs
 * (the values sorted after the keys, through the keys' buffer), with
 * KKA_CUDA_TEAMS_PAIRS teams an SM: longer runs of a digit a tile, and
 * fewer tiles to look back over, for half the teams (docs/algorithms.md) */
#define KKA_CUDA_IT_PAIRS_4 36
#define KKA_CUDA_IT_PAIRS_8 24
#define KKA_CUDA_TEAMS_PAIRS 2
/* the histogram kernel: keys each thread loads before it counts them */
#define KKA_HIST_UNROLL 8
/* the byte offsets of a pass team's scratch (sort_pass_tmpl.h) for tiles
 * of `tile` keys of `ksize` bytes and values of `vsize` (0: none) */
#define KKA_GS_WC 0
#define KKA_GS_TDS (KKA_GPU_NWMAX * KKA_RADIX * 4)
#define KKA_GS_GS (KKA_GS_TDS + ((KKA_RADIX + 1) * 4 + 15) / 16 * 16)
#define KKA_GS_MISC (KKA_GS_GS + KKA_RADIX * 8)
#define KKA_GS_DIG (KKA_GS_MISC + KKA_GPU_MISC * 4)
#define KKA_GS_KBUF(tile) (KKA_GS_DIG + ((tile) + 15) / 16 * 16)
#define KKA_GS_VBUF(tile, ksize) (KKA_GS_KBUF(tile) + ((tile) * (ksize) + 15) / 16 * 16)
#define KKA_GS_BYTES(tile, ksize, vsize) (KKA_GS_VBUF(tile, ksize) + (tile) * (vsize))
/* look-back words, one array for every pass of a sort (zeroed once): a
 * flag in the top two bits, the pass's epoch (1 + its number) in the six
 * below, a count in the rest; a word of another epoch is one this pass has
 * not written yet */
#define KKA_ST_AGG (1ul << 62)
#define KKA_ST_INCL (2ul << 62)
#define KKA_ST_EPOCH_SHIFT 56
#define KKA_ST_EPOCH(e) ((uint64_t)(e) << KKA_ST_EPOCH_SHIFT)
#define KKA_ST_EPOCH_OF(x) ((int)(((x) >> KKA_ST_EPOCH_SHIFT) & 63u))
#define KKA_ST_VALUE ((1ul << KKA_ST_EPOCH_SHIFT) - 1)
/* The second kernels (the default; sort_gpu.c): 32-bit look-back words,
 * the flags in the top two bits, the pass's parity bit below them, a count
 * in the 29 bits left (so they sort fewer than 2^29 keys; the first kernels
 * take more).  Every pass writes every word, so when a pass starts each
 * word holds the previous pass's parity (or zero, before the first pass,
 * whose parity is 1): a word of the other parity is one this pass has not
 * written yet.  Their histogram kernel keeps KKA_HIST2_PARTS(key bytes)
 * copies of its counters (16 KiB for 4- and 8-byte keys: eight teams of
 * 256 still fit in a multiprocessor). */
#define KKA_SW_AGG (1u << 30)
#define KKA_SW_INCL (2u << 30)
#define KKA_SW_PARITY(e) ((uint32_t)(e) << 29)
#define KKA_SW_PARITY_OF(x) ((int)(((x) >> 29) & 1u))
#define KKA_SW_VALUE ((1u << 29) - 1)
#define KKA_SW_MAXN ((int64_t)1 << 29)
#define KKA_HIST2_PARTS(ksize) ((ksize) <= 4 ? 4 : 2)

/* the histogram of every pass's digits: hist[pass * 256 + digit]; each team
 * counts keys [l * per, (l + 1) * per) */
struct kka_ghist_args {
  const void *kin;
  uint64_t *hist;
  int64_t n, per;
  int32_t kind, desc;
};
/* each pass's histogram into its digits' exclusive starts, in place: a
 * team of KKA_GSCAN_TS threads per pass */
#define KKA_GSCAN_TS 32
struct kka_gscan_args {
  uint64_t *hist;
};
struct kka_gsort_args {
  const void *kin, *vin;
  void *kout, *vout;
  const int64_t *offsets;               /* this pass's digit starts */
  void *status;                         /* look-back words [tile][digit] (64 or 32 bits) */
  uint32_t *counter;                    /* this pass's tile counter */
  int64_t n;
  int32_t shift, kind, desc;
  int32_t epoch;                        /* this pass's in the look-back words (its parity: 32-bit words) */
};

/* ---- standard algorithms (std_tmpl.h; kk__alg_args: in, in2, out, n, cap, flags) ------------------ */

/* the built-in predicate x `op` value (kk_cmp_t), value's bits in vbits,
 * as masks: ((x < v) & lt | (x == v) & eq | (x > v) & gt) ^ inv, a
 * comparison without a branch per element (NE: inv and eq; the negation
 * of remove_if and none_of folded into inv) */
struct kka_cmp_args {
  kk__alg_args h;
  uint64_t vbits;
  int32_t lt, eq, gt, inv;
};
/* the same comparison as the band of values it keeps, for compaction:
 * (lo <= x && x <= hi) ^ inv, two compares an element (the host derives
 * lo and hi from the value and the comparison: x < v is x <= the value
 * before v; an empty band is lo = the largest value, hi = the smallest;
 * NaN is in no band) */
struct kka_band_args {
  kk__alg_args h;
  uint64_t lo, hi;
  int32_t inv, pad;
};
/* Host backends count a built-in predicate's matches KKA_HOST_CB elements
 * per iteration, a plain loop per comparison (no masks per element); GPUs
 * one element per iteration. */
#define KKA_HOST_CB 512

/* reductions, adjacent differences, is_sorted, unique */
struct kka_red_args {
  kk__alg_args h;
};
/* scans: dst = inclusive or exclusive prefix sums of src, from init (bits) */
struct kka_scan_args {
  kk__alg_args h;
  uint64_t init;
  int32_t exclusive, pad;
};
/* iota: element i (any rank, index order) = start + i */
struct kka_iota_args {
  kk_view_strided v;
  int64_t n;
  uint64_t start;
  int32_t contig, pad;
};
/* reverse: swaps elements i and n - 1 - i of a rank-1 view */
struct kka_rev_args {
  kk_view_strided v;
  int64_t n;
  uint32_t esize, pad;
};

/* ---- BinSort ------------------------------------------------------------------------------------ */

/* Bin b of key i: per axis, floor((x - min) * scale) clamped to [0, nb); b =
 * bx + nb[0] (by + nb[1] bz).  Host backends: iteration b is a block of
 * keys ([b * per, ...)), counted into counts[b * nbins + bin], then (after
 * the offsets) scattered; GPUs: one key per iteration, counted with
 * atomics into counts[bin], then scattered at offsets[bin] + an atomic
 * cursor. */
struct kka_bin_args {
  kk_view_strided keys;  /* rank 1 (1-D) or n x 3 */
  uint32_t *bins;        /* each key's bin */
  int64_t *counts, *offsets, *cursor;
  int64_t *perm;
  int64_t n, per, nbins, blocks;
  double min[3], scale[3];
  int64_t nb[3];
  int32_t dims, type;
};

/* BinSort's apply to a rank-2 view: whole rows at once.  gather: tmp row j
 * = v row perm[j]; put: v row j = tmp row j (tmp: n rows of m elements,
 * contiguous) */
struct kka_rows_args {
  kk_view_strided v;  /* rank 2: n x m */
  void *tmp;
  const int64_t *perm;
  int64_t n, m;
  uint32_t esize, put;
};

#endif
