/* algorithms/std.kk.c -- kk-algorithms' standard-algorithm kernels for every arithmetic type (std_tmpl.h), and reverse by element size. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "kernel_util.h"

/* Team reductions whose name is built from a suffix (std_tmpl.h's select). */
#define KKA_TEAM_REDUCE(N, A, T, R, TM, ACC) KK_TEAM_REDUCE(N, A, T, R, TM, ACC)

/* The one-pass compaction's look-back (std_tmpl.h's select), for every
 * element type.  SIMT GPUs (CUDA, HIP): warp 0 of a tile publishes the
 * tile's count, then reads the words of a warp of predecessors at once
 * (lane KK__WARP - 1 the nearest), waits until each is written, adds those
 * from the nearest inclusive one on (a shuffle sum), and walks back a warp
 * further until it has met one; then publishes its inclusive count.  The
 * count is in the word, so the words are read and written whole, volatile
 * (past this multiprocessor's L1), with no fence.  Returns the count of
 * the tiles before. */
#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP)
#define KKA_SEL_SIMT 1
KK__FN int kka_sel_popc(kk__lanes_t m) {
#if defined(KK_TARGET_CUDA)
  return __popc(m);
#else
  return __popcll(m);
#endif
}
KK__FN int32_t kka_sel_lookback(uint32_t *status, int32_t tile, int32_t agg, int lane) {
  volatile uint32_t *const w = status;
  if (tile == 0) {
    if (lane == 0)
      w[0] = KKA_SEL_INCL | (uint32_t)agg;
    return 0;
  }
  if (lane == 0)
    w[tile] = KKA_SEL_AGG | (uint32_t)agg;
  int32_t prefix = 0;
  for (int32_t top = tile - 1;; top -= KK__WARP) {
    const int32_t j = top - (KK__WARP - 1) + lane;
    uint32_t v = j >= 0 ? w[j] : KKA_SEL_INCL; /* before tile 0: counts nothing, and tile 0 is nearer */
    while (kk__ballot((v & (KKA_SEL_AGG | KKA_SEL_INCL)) == 0))
      if ((v & (KKA_SEL_AGG | KKA_SEL_INCL)) == 0)
        v = w[j];
    const kk__lanes_t incl = kk__ballot((v & KKA_SEL_INCL) != 0);
    const int from = incl ? kk__top_lane(incl) : 0;
    int32_t c = lane >= from ? (int32_t)(v & KKA_SEL_VALUE) : 0;
#pragma unroll
    for (int d = KK__WARP / 2; d > 0; d >>= 1)
      c += KK__SHFL_xor(KK__WARP_FULL, c, d, KK__WARP);
    prefix += c;
    if (incl)
      break;
  }
  if (lane == 0)
    w[tile] = KKA_SEL_INCL | (uint32_t)(prefix + agg);
  return prefix;
}
#else
/* Other targets (SPIR-V, the host): one thread walks back tile by tile,
 * through kk's acquire loads and release stores. */
#define KKA_SEL_SIMT 0
KK__FN int32_t kka_sel_lookback(uint32_t *status, int32_t tile, int32_t agg) {
  if (tile == 0) {
    kk_atomic_store(&status[0], KKA_SEL_INCL | (uint32_t)agg);
    return 0;
  }
  kk_atomic_store(&status[tile], KKA_SEL_AGG | (uint32_t)agg);
  int32_t prefix = 0;
  for (int32_t j = tile - 1;; j--) {
    uint32_t v;
    do
      v = kk_atomic_load(&status[j]);
    while ((v & (KKA_SEL_AGG | KKA_SEL_INCL)) == 0);
    prefix += (int32_t)(v & KKA_SEL_VALUE);
    if (v & KKA_SEL_INCL)
      break;
  }
  kk_atomic_store(&status[tile], KKA_SEL_INCL | (uint32_t)(prefix + agg));
  return prefix;
}
#endif

#define T int8_t
#define SFX i8
#define ISF 0
#define ISI 1
#include "std_tmpl.h"
#undef T
#undef SFX
#define T uint8_t
#define SFX u8
#include "std_tmpl.h"
#undef T
#undef SFX
#define T int16_t
#define SFX i16
#include "std_tmpl.h"
#undef T
#undef SFX
#define T uint16_t
#define SFX u16
#include "std_tmpl.h"
#undef T
#undef SFX
#define T int32_t
#define SFX i32
#include "std_tmpl.h"
#undef T
#undef SFX
#define T uint32_t
#define SFX u32
#include "std_tmpl.h"
#undef T
#undef SFX
#define T int64_t
#define SFX i64
#include "std_tmpl.h"
#undef T
#undef SFX
#define T uint64_t
#define SFX u64
#include "std_tmpl.h"
#undef T
#undef SFX
#undef ISF
#undef ISI
#define ISF 1
#define ISI 0
#define T float
#define SFX f32
#include "std_tmpl.h"
#undef T
#undef SFX
#define T double
#define SFX f64
#include "std_tmpl.h"
#undef T
#undef SFX
#undef ISF
#undef ISI

/* reverse: elements i and n - 1 - i swap (i < n / 2), by element size */
typedef struct kka_r16 {
  uint64_t w[2];
} kka_r16;
#define KKA_REV(NAME, E)                                                                                        \
  KK_FOR(NAME, struct kka_rev_args, i) {                                                                        \
    E *a = &KK_AT(args->v, E, i), *b = &KK_AT(args->v, E, args->n - 1 - i);                                     \
    const E t = *a;                                                                                             \
    *a = *b;                                                                                                    \
    *b = t;                                                                                                     \
  }
KKA_REV(kka_rev_1, uint8_t)
KKA_REV(kka_rev_2, uint16_t)
KKA_REV(kka_rev_4, uint32_t)
KKA_REV(kka_rev_8, uint64_t)
KKA_REV(kka_rev_16, kka_r16)
KK_FOR(kka_rev_bytes, struct kka_rev_args, i) {
  unsigned char *a = (unsigned char *)args->v.d.data + i * args->v.d.stride[0] * (int64_t)args->esize;
  unsigned char *b = (unsigned char *)args->v.d.data + (args->n - 1 - i) * args->v.d.stride[0] * (int64_t)args->esize;
  for (uint32_t k = 0; k < args->esize; k++) {
    const unsigned char t = a[k];
    a[k] = b[k];
    b[k] = t;
  }
}
