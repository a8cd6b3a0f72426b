/* algorithms/sort.kk.c -- kk-algorithms' sort kernels: copies and gathers, the host radix sort (a block per thread) and the GPU one-sweep radix sort. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "sort_keys.h"

/* ---- copies and gathers: dst[j] = src[perm ? perm[j] : j] ------------------------------------------ */

typedef struct kka_b16 {
  uint64_t w[2];
} kka_b16;

#define KKA_COPY(NAME, T)                                                                                       \
  KK_FOR(NAME, struct kka_copy_args, j) {                                                                       \
    const int64_t from = args->perm ? args->perm[j] : j;                                                        \
    KK_AT(args->dst, T, j) = KK_AT(args->src, T, from);                                                         \
  }
KKA_COPY(kka_copy_1, uint8_t)
KKA_COPY(kka_copy_2, uint16_t)
KKA_COPY(kka_copy_4, uint32_t)
KKA_COPY(kka_copy_8, uint64_t)
KKA_COPY(kka_copy_16, kka_b16)
KK_FOR(kka_copy_bytes, struct kka_copy_args, j) {
  const int64_t from = args->perm ? args->perm[j] : j;
  unsigned char *d = (unsigned char *)args->dst.d.data + j * args->dst.d.stride[0] * (int64_t)args->esize;
  const unsigned char *s = (const unsigned char *)args->src.d.data + from * args->src.d.stride[0] * (int64_t)args->esize;
  for (uint32_t b = 0; b < args->esize; b++)
    d[b] = s[b];
}

/* ---- host radix sort: one block of keys per iteration (a thread each) ---------------------------- */

/* counts[b][d]: the keys of block b with digit d */
#define KKA_HCOUNT(NAME, K, U)                                                                                  \
  KK_FOR(NAME, struct kka_hsort_args, b) {                                                                      \
    int64_t *cnt = args->counts + b * KKA_RADIX;                                                                \
    for (int d = 0; d < KKA_RADIX; d++)                                                                         \
      cnt[d] = 0;                                                                                               \
    const K *k = (const K *)args->kin;                                                                          \
    const int64_t lo = b * args->per, hi = lo + args->per < args->n ? lo + args->per : args->n;                 \
    const int sh = args->shift, kind = args->kind, desc = args->desc;                                           \
    for (int64_t i = lo; i < hi; i++)                                                                           \
      cnt[KKA_DIGIT(U, kka_ord_##U(k[i], kind, desc), sh)]++;                                                   \
  }

/* Each block writes its keys (and values) where the host's scan says,
 * through write-combining buffers: a cache line of keys per digit is
 * gathered on the stack and written whole, so that the 256 streams of a
 * pass do not each cost a partial line (and a read of it) per key. */
#define KKA_WC_BYTES 64
#define KKA_HSCATTER_LOOP(K, U, VT)                                                                            \
  do {                                                                                                         \
    enum { L_ = KKA_WC_BYTES / sizeof(K) };                                                                     \
    K kb_[KKA_RADIX][L_];                                                                                       \
    VT vb_[KKA_RADIX][L_];                                                                                      \
    int fill_[KKA_RADIX];                                                                                       \
    const VT *vi_ = (const VT *)args->vin;                                                                      \
    VT *vo_ = (VT *)args->vout;                                                                                 \
    const int has_v_ = vi_ != 0;                                                                                \
    for (int d = 0; d < KKA_RADIX; d++)                                                                         \
      fill_[d] = 0;                                                                                             \
    for (int64_t i = lo; i < hi; i++) {                                                                         \
      const K x = k[i];                                                                                         \
      const int d = KKA_DIGIT(U, kka_ord_##U(x, kind, desc), sh);                                               \
      const int f = fill_[d];                                                                                   \
      kb_[d][f] = x;                                                                                            \
      if (has_v_)                                                                                               \
        vb_[d][f] = vi_[i];                                                                                     \
      if (f + 1 == L_) {                                                                                        \
        memcpy(ko + off[d], kb_[d], sizeof kb_[d]);                                                             \
        if (has_v_)                                                                                             \
          memcpy(vo_ + off[d], vb_[d], sizeof vb_[d]);                                                          \
        off[d] += L_;                                                                                           \
        fill_[d] = 0;                                                                                           \
      } else {                                                                                                  \
        fill_[d] = f + 1;                                                                                       \
      }                                                                                                         \
    }                                                                                                           \
    for (int d = 0; d < KKA_RADIX; d++) {                                                                       \
      memcpy(ko + off[d], kb_[d], (size_t)fill_[d] * sizeof(K));                                                \
      if (has_v_)                                                                                               \
        memcpy(vo_ + off[d], vb_[d], (size_t)fill_[d] * sizeof(VT));                                            \
    }                                                                                                           \
  } while (0)
/* Only host backends run these (the buffers, 16 to 144 KiB of stack, are
 * no GPU thread's); device targets get an empty body. */
#if defined(KK_TARGET_HOST) || defined(KK_TARGET_NONE)
#define KKA_HSCATTER(NAME, K, U)                                                                                \
  KK_FOR(NAME, struct kka_hsort_args, b) {                                                                      \
    int64_t off[KKA_RADIX];                                                                                     \
    for (int d = 0; d < KKA_RADIX; d++)                                                                         \
      off[d] = args->counts[b * KKA_RADIX + d];                                                                 \
    const K *k = (const K *)args->kin;                                                                          \
    K *ko = (K *)args->kout;                                                                                    \
    const int64_t lo = b * args->per, hi = lo + args->per < args->n ? lo + args->per : args->n;                 \
    const int sh = args->shift, kind = args->kind, desc = args->desc;                                           \
    switch (args->vsize) {                                                                                      \
    case 0:                                                                                                     \
    case 1:                                                                                                     \
      KKA_HSCATTER_LOOP(K, U, uint8_t);                                                                         \
      break;                                                                                                    \
    case 2:                                                                                                     \
      KKA_HSCATTER_LOOP(K, U, uint16_t);                                                                        \
      break;                                                                                                    \
    case 4:                                                                                                     \
      KKA_HSCATTER_LOOP(K, U, uint32_t);                                                                        \
      break;                                                                                                    \
    default:                                                                                                    \
      KKA_HSCATTER_LOOP(K, U, uint64_t);                                                                        \
      break;                                                                                                    \
    }                                                                                                           \
  }
#else
#define KKA_HSCATTER(NAME, K, U) \
  KK_FOR(NAME, struct kka_hsort_args, b) { (void)args; }
#endif

KKA_HCOUNT(kka_hcount_1, uint8_t, u8)
KKA_HCOUNT(kka_hcount_2, uint16_t, u16)
KKA_HCOUNT(kka_hcount_4, uint32_t, u32)
KKA_HCOUNT(kka_hcount_8, uint64_t, u64)
KKA_HSCATTER(kka_hscatter_1, uint8_t, u8)
KKA_HSCATTER(kka_hscatter_2, uint16_t, u16)
KKA_HSCATTER(kka_hscatter_4, uint32_t, u32)
KKA_HSCATTER(kka_hscatter_8, uint64_t, u64)

/* values travel as their indices when they are not 1, 2, 4 or 8 bytes in
 * one contiguous run: the indices first */
KK_FOR(kka_seq_i64, struct kka_copy_args, j) { KK_AT(args->dst, int64_t, j) = j; }

/* ---- GPU radix sort: histograms, their scan, the passes (sort_pass_tmpl.h) ----------------------- */

/* each pass's counts into exclusive starts, in place (a team per pass: a
 * thread's run of digits, the runs joined by the team scan; the loads in
 * parallel, where one thread's loop waited for each load and store) */
KK_TEAM_FOR(kka_gscan, struct kka_gscan_args, team) {
  uint64_t *h = args->hist + KK_LEAGUE_RANK(team) * KKA_RADIX;
  uint64_t part;
  KK_TEAM_THREAD_SCAN(team, d, 0, KKA_RADIX, uint64_t, part, final) {
    const uint64_t c = h[d];
    if (final)
      h[d] = part;
    part += c;
  }
}

/* one pass kernel per key width and value (none, 4 or 8 bytes), one
 * histogram kernel per key width, in two forms (KKA_V2, sort_pass_tmpl.h;
 * sort_gpu.c picks one); for 4- and 8-byte keys a fifth form of the pass
 * (KKA_V5, the tile's counts first, with the second's histogram), its pass
 * of 4-byte keys and values with the values sorted after the keys on SIMT
 * GPUs (KKA_V5_VAFTER, kka_gpass5a_4_4).  (The third and fourth forms,
 * superseded by the fifth, are no longer built: docs/algorithms.md.)  The
 * fifth form's passes of keys alone look back two tiles a step
 * (KKA_LB_STEP).  On CUDA its passes of 4-byte and of 8-byte pairs take
 * larger tiles for two teams an SM (args.h: KKA_CUDA_IT_PAIRS_<bytes>),
 * sort the values after the keys, and the 4-byte one looks back two tiles
 * a step; on HIP they keep the shape of the other passes (the 4-byte one
 * for KKA_GPU_TEAMS_PAIRS4 teams a multiprocessor), which the HIP
 * backend's 64 KB of team scratch holds. */
#define KEY_T uint8_t
#define ORD u8
#define IT KKA_GPU_IT_1
#define HIST kka_ghist_1
#define VAL_NONE
#define PASS kka_gpass_1_0
#include "sort_pass_tmpl.h"
#undef HIST
#undef VAL_NONE
#undef PASS
#define VAL_T uint32_t
#define PASS kka_gpass_1_4
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define VAL_T uint64_t
#define PASS kka_gpass_1_8
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define KKA_V2
#define HIST kka_ghist2_1
#define VAL_NONE
#define PASS kka_gpass2_1_0
#include "sort_pass_tmpl.h"
#undef HIST
#undef VAL_NONE
#undef PASS
#define VAL_T uint32_t
#define PASS kka_gpass2_1_4
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define VAL_T uint64_t
#define PASS kka_gpass2_1_8
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#undef KKA_V2
#undef KEY_T
#undef ORD
#undef IT

#define KEY_T uint16_t
#define ORD u16
#define IT KKA_GPU_IT_2
#define HIST kka_ghist_2
#define VAL_NONE
#define PASS kka_gpass_2_0
#include "sort_pass_tmpl.h"
#undef HIST
#undef VAL_NONE
#undef PASS
#define VAL_T uint32_t
#define PASS kka_gpass_2_4
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define VAL_T uint64_t
#define PASS kka_gpass_2_8
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define KKA_V2
#define HIST kka_ghist2_2
#define VAL_NONE
#define PASS kka_gpass2_2_0
#include "sort_pass_tmpl.h"
#undef HIST
#undef VAL_NONE
#undef PASS
#define VAL_T uint32_t
#define PASS kka_gpass2_2_4
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define VAL_T uint64_t
#define PASS kka_gpass2_2_8
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#undef KKA_V2
#undef KEY_T
#undef ORD
#undef IT

#define KEY_T uint32_t
#define ORD u32
#define IT KKA_GPU_IT_4
#define HIST kka_ghist_4
#define VAL_NONE
#define PASS kka_gpass_4_0
#include "sort_pass_tmpl.h"
#undef HIST
#undef VAL_NONE
#undef PASS
#define VAL_T uint32_t
#define PASS kka_gpass_4_4
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define VAL_T uint64_t
#define PASS kka_gpass_4_8
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define KKA_V2
#define HIST kka_ghist2_4
#define VAL_NONE
#define PASS kka_gpass2_4_0
#include "sort_pass_tmpl.h"
#undef HIST
#undef VAL_NONE
#undef PASS
#define VAL_T uint32_t
#define PASS kka_gpass2_4_4
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define VAL_T uint64_t
#define PASS kka_gpass2_4_8
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define KKA_V5
#define VAL_NONE
#define KKA_LB_STEP 2
#define PASS kka_gpass5_4_0
#include "sort_pass_tmpl.h"
#undef KKA_LB_STEP
#undef VAL_NONE
#undef PASS
#define KKA_V5_VAFTER
#define VAL_T uint32_t
#define PASS kka_gpass5a_4_4
#undef IT
#if defined(KK_TARGET_CUDA)
#define IT KKA_CUDA_IT_PAIRS_4
#define KKA_TEAMS KKA_CUDA_TEAMS_PAIRS
#define KKA_LB_STEP 2
#else
#define IT KKA_GPU_IT_4
#define KKA_TEAMS KKA_GPU_TEAMS_PAIRS4
#endif
#include "sort_pass_tmpl.h"
#undef IT
#define IT KKA_GPU_IT_4
#undef KKA_LB_STEP
#undef KKA_TEAMS
#undef VAL_T
#undef PASS
#undef KKA_V5_VAFTER
#define VAL_T uint64_t
#define PASS kka_gpass5_4_8
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#undef KKA_V5
#undef KKA_V2
#undef KEY_T
#undef ORD
#undef IT

#define KEY_T uint64_t
#define ORD u64
#define IT KKA_GPU_IT_8
#define HIST kka_ghist_8
#define VAL_NONE
#define PASS kka_gpass_8_0
#include "sort_pass_tmpl.h"
#undef HIST
#undef VAL_NONE
#undef PASS
#define VAL_T uint32_t
#define PASS kka_gpass_8_4
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define VAL_T uint64_t
#define PASS kka_gpass_8_8
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define KKA_V2
#define HIST kka_ghist2_8
#define VAL_NONE
#define PASS kka_gpass2_8_0
#include "sort_pass_tmpl.h"
#undef HIST
#undef VAL_NONE
#undef PASS
#define VAL_T uint32_t
#define PASS kka_gpass2_8_4
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define VAL_T uint64_t
#define PASS kka_gpass2_8_8
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define KKA_V5
#define VAL_NONE
#define KKA_LB_STEP 2
#define PASS kka_gpass5_8_0
#include "sort_pass_tmpl.h"
#undef KKA_LB_STEP
#undef VAL_NONE
#undef PASS
#define VAL_T uint32_t
#define PASS kka_gpass5_8_4
#include "sort_pass_tmpl.h"
#undef VAL_T
#undef PASS
#define VAL_T uint64_t
#define PASS kka_gpass5_8_8
#if defined(KK_TARGET_CUDA)
#undef IT
#define IT KKA_CUDA_IT_PAIRS_8
#define KKA_TEAMS KKA_CUDA_TEAMS_PAIRS
#define KKA_V5_VAFTER
#endif
#include "sort_pass_tmpl.h"
#undef IT
#define IT KKA_GPU_IT_8
#undef KKA_TEAMS
#undef KKA_V5_VAFTER
#undef VAL_T
#undef PASS
#undef KKA_V5
#undef KKA_V2
#undef KEY_T
#undef ORD
#undef IT
