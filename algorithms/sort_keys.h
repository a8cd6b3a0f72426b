/* algorithms/sort_keys.h -- radix sort keys in kernels: the unsigned number whose order is the key's (signed, floating point, descending), and its digits. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKA_SORT_KEYS_H
#define KKA_SORT_KEYS_H

#include "kernel_util.h"

/* Keys travel as their bits (uint8_t .. uint64_t).  kka_ord_<U>(bits, kind,
 * desc) is an unsigned number in the order the keys sort in: signed keys
 * with the sign bit flipped, floating-point keys with every bit flipped when
 * negative and the sign bit set when not (so -0.0 comes before +0.0),
 * complemented for a descending sort; NaNs (any sign, any payload) become
 * the largest number in both orders, so they come last in their original
 * order. */
#define KKA_ORD(U, T, SIGN, EXP)                                                                                \
  KK__FN T kka_ord_##U(T x, int kind, int desc) {                                                               \
    T t;                                                                                                        \
    if (kind == KKA_KEY_FLOAT) {                                                                                \
      if ((T)(x & (T)~(T)SIGN) > (T)(EXP))                                                                      \
        return (T)~(T)0;                                                                                        \
      t = (x & (T)SIGN) ? (T)~x : (T)(x | (T)SIGN);                                                             \
    } else {                                                                                                    \
      t = kind == KKA_KEY_SIGNED ? (T)(x ^ (T)SIGN) : x;                                                        \
    }                                                                                                           \
    return desc ? (T)~t : t;                                                                                    \
  }                                                                                                             \
  KK__FN T kka_ordm_##U(T x, T xm, T fm) {                                                                      \
    const T neg = (T)((T)0 - (T)(x >> (sizeof(T) * 8 - 1)));                                                    \
    const T t = (T)(x ^ xm ^ (T)(neg & fm & (T)~(T)SIGN));                                                      \
    return (fm && (T)(x & (T)~(T)SIGN) > (T)(EXP)) ? (T)~(T)0 : t;                                              \
  }
KKA_ORD(u8, uint8_t, 0x80u, 0xFFu)
KKA_ORD(u16, uint16_t, 0x8000u, 0xFFFFu)
KKA_ORD(u32, uint32_t, 0x80000000u, 0x7F800000u)
KKA_ORD(u64, uint64_t, 0x8000000000000000ul, 0x7FF0000000000000ul)

/* The same number without a branch on kind and desc, for loops over many
 * keys of one kind: kka_ordm_<U>(x, xm, fm) with the masks KKA_ORD_XM and
 * KKA_ORD_FM of the kind and order (the sign bit flipped for signed and
 * floating-point keys, every bit of negative floating-point keys and of
 * every key of a descending sort). */
#define KKA_ORD_FM(T, kind) ((kind) == KKA_KEY_FLOAT ? (T)~(T)0 : (T)0)
#define KKA_ORD_XM(T, kind, desc)                                                                               \
  (T)(((kind) == KKA_KEY_UNSIGNED ? (T)0 : (T)((T)1 << (sizeof(T) * 8 - 1))) ^ ((desc) ? (T)~(T)0 : (T)0))

/* the digit of an ordered key at bit `sh` */
#define KKA_DIGIT(U, t, sh) ((int)(((t) >> (sh)) & (KKA_RADIX - 1)))

/* SIMT GPUs rank a tile's keys a warp at a time (sort_pass_tmpl.h): the
 * lanes of the warp whose digit equals this lane's, found with eight ballots
 * (the target's kk__ballot over the whole warp, as CUB's MatchAny), and
 * popcounts of lane masks.  Only the radix sort uses these, through this
 * header: the one place that knows the SIMT target's warp primitives. */
#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP)
#define KKA_SIMT 1
#define KKA_WS KK__WARP
#if defined(KK_TARGET_CUDA)
KK__FN uint32_t kka_popc(kk__lanes_t m) { return (uint32_t)__popc(m); }
#else
KK__FN uint32_t kka_popc(kk__lanes_t m) { return (uint32_t)__popcll(m); }
#endif
KK__FN kk__lanes_t kka_lanes_below(int lane) { return ((kk__lanes_t)1 << lane) - 1; }
/* lane `from`'s v, to every lane of the whole warp */
#if defined(KK_TARGET_CUDA)
KK__FN uint32_t kka_shfl(uint32_t v, int from) { return __shfl_sync(0xffffffffu, v, from); }
#else
KK__FN uint32_t kka_shfl(uint32_t v, int from) { return (uint32_t)__shfl((int)v, from); }
#endif
KK__FN kk__lanes_t kka_match(int valid, unsigned d) {
  kk__lanes_t m = kk__ballot(valid != 0);
#pragma unroll
  for (int b = 0; b < KKA_RADIX_BITS; b++) {
    const kk__lanes_t v = kk__ballot(((d >> b) & 1u) != 0);
    m &= ((d >> b) & 1u) ? v : ~v;
  }
  return m;
}
/* the same where every lane of the warp holds a digit (the warp's lanes
 * alone: a mask wider than the warp keeps its upper bits clear) */
KK__FN kk__lanes_t kka_match_full(unsigned d) {
  kk__lanes_t m = KKA_WS >= 8 * (int)sizeof(kk__lanes_t) ? ~(kk__lanes_t)0 : ((kk__lanes_t)1 << (KKA_WS % (8 * sizeof(kk__lanes_t)))) - 1;
#pragma unroll
  for (int b = 0; b < KKA_RADIX_BITS; b++) {
    const kk__lanes_t v = kk__ballot(((d >> b) & 1u) != 0);
    m &= ((d >> b) & 1u) ? v : ~v;
  }
  return m;
}
/* The same as kka_match_full, in four instructions a bit on CUDA (sm_90):
 * the bit's predicate, its ballot, the ballot complemented where the
 * predicate is false, the AND (what nvcc makes of kka_match_full takes six;
 * written so, the fifth pass kernels ran a quarter faster on an H200) */
#if defined(KK_TARGET_CUDA)
KK__FN kk__lanes_t kka_match_fast(unsigned d) {
  unsigned m = 0xffffffffu;
#pragma unroll
  for (int b = 0; b < KKA_RADIX_BITS; b++) {
    unsigned v;
    asm("{\n\t.reg .pred q;\n\tand.b32 %0, %1, %2;\n\tsetp.ne.u32 q, %0, 0;\n\t"
        "vote.sync.ballot.b32 %0, q, 0xffffffff;\n\t@!q not.b32 %0, %0;\n\t}"
        : "=r"(v)
        : "r"(d), "r"(1u << b));
    m &= v;
  }
  return m;
}
#else
KK__FN kk__lanes_t kka_match_fast(unsigned d) { return kka_match_full(d); }
#endif
/* A look-back word (sort_pass_tmpl.h): flag and count in one word,
 * written and read whole, so the loads need no fence (one each would cost
 * more than the load); volatile, so they go past this SM's L1 to where the
 * other blocks' stores are, as the targets' own scan look-back reads its
 * status words. */
KK__FN uint64_t kka_word_load(const uint64_t *p) { return *(const volatile uint64_t *)p; }
KK__FN void kka_word_store(uint64_t *p, uint64_t v) { *(volatile uint64_t *)p = v; }
/* the same for the second kernel's 32-bit words */
KK__FN uint32_t kka_word_load32(const uint32_t *p) { return *(const volatile uint32_t *)p; }
KK__FN void kka_word_store32(uint32_t *p, uint32_t v) { *(volatile uint32_t *)p = v; }
#else
#define KKA_SIMT 0
#endif

#endif
