/* kk/bitset.h -- Bitset in kernels: atomic set, reset and test, and searches for a set or unset bit (kernel language). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BITSET_H
#define KK_BITSET_H

/*
 * Include it in a kernel file after <kk/kernel.h>.  The bitset arrives as a
 * kk_bitset member of the argument struct (kk_bitset_bind on the host):
 *
 *   int     KK_BITSET_SET(b, i)     sets bit i; 1 when this call changed it (it was reset)
 *   int     KK_BITSET_RESET(b, i)   resets bit i; 1 when this call changed it (it was set)
 *   int     KK_BITSET_TEST(b, i)    1 when bit i is set
 *   int64_t KK_BITSET_SIZE(b)
 *   int64_t KK_BITSET_FIND_ANY_SET_NEAR(b, hint)     a set bit: hint itself when set, else
 *   int64_t KK_BITSET_FIND_ANY_UNSET_NEAR(b, hint)   the next one above it in hint's word,
 *                                                    then in the following words (wrapping
 *                                                    around); KK_INVALID_INDEX when there is none
 *
 * SET and RESET are atomic (any number of threads may change bits of one
 * word at once) and relaxed: they order no other memory access.  As in
 * Kokkos, an index outside [0, size) changes nothing and tests as 0; a hint
 * outside it starts the search at hint modulo size.  A search reads each
 * word once, so it may miss a bit that another thread changes meanwhile.
 */

#ifndef KK_KERNEL_H
#error "include <kk/kernel.h> before <kk/bitset.h>"
#endif

#include <kk/containers.h>

/* the lowest set bit of x != 0 */
#if defined(KK_TARGET_CUDA)
KK__FN int kk__ctz32(uint32_t x) { return __ffs((int)x) - 1; }
#else
KK__FN int kk__ctz32(uint32_t x) { return __builtin_ctz(x); }
#endif

/* a word other threads may be changing: relaxed atomic on the host, volatile on the devices */
#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || defined(KK_TARGET_SPIRV)
KK__FN uint32_t kk__bits_load(const uint32_t *p) { return *(const volatile uint32_t *)p; }
#else
KK__FN uint32_t kk__bits_load(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
#endif

KK__FN int kk__bitset_set(const kk_bitset *b, int64_t i) {
  if ((uint64_t)i >= (uint64_t)b->size)
    return 0;
  const uint32_t m = 1u << (i & 31);
  return (kk_atomic_fetch_or(&b->words[i >> 5], m) & m) == 0u;
}

KK__FN int kk__bitset_reset(const kk_bitset *b, int64_t i) {
  if ((uint64_t)i >= (uint64_t)b->size)
    return 0;
  const uint32_t m = 1u << (i & 31);
  return (kk_atomic_fetch_and(&b->words[i >> 5], ~m) & m) != 0u;
}

KK__FN int kk__bitset_test(const kk_bitset *b, int64_t i) {
  if ((uint64_t)i >= (uint64_t)b->size)
    return 0;
  return (kk__bits_load(&b->words[i >> 5]) >> (i & 31)) & 1u;
}

/* flip: 0 looks for set bits, ~0u for unset ones */
KK__FN int64_t kk__bitset_find(const kk_bitset *b, int64_t hint, uint32_t flip) {
  if (b->size <= 0)
    return KK_INVALID_INDEX;
  const uint64_t start = (uint64_t)hint % (uint64_t)b->size;
  const int64_t nw = b->nwords;
  const uint32_t tail = (uint32_t)(b->size & 31); /* bits of the last word in use (0: all) */
  int64_t w = (int64_t)(start >> 5);
  uint32_t from = (uint32_t)(start & 31);
  int64_t found = KK_INVALID_INDEX;
  for (int64_t k = 0; k <= nw && found < 0; k++) {
    uint32_t x = kk__bits_load(&b->words[w]) ^ flip;
    if (w == nw - 1 && tail)
      x &= (1u << tail) - 1u;
    const uint32_t above = x & (~0u << from); /* from is 0 after the first word: back in it, the bits below the hint */
    if (above)
      found = w * 32 + kk__ctz32(above);
    w = w + 1 == nw ? 0 : w + 1;
    from = 0;
  }
  return found;
}

/* In kernels, on a kk_bitset argument b: SET and RESET change bit i
 * atomically and give 1 when this call changed it; TEST gives 1 when bit i is
 * set; SIZE the number of bits; FIND_ANY_SET_NEAR / FIND_ANY_UNSET_NEAR a bit
 * of that value, the hint itself or the next above it, wrapping around, or
 * KK_INVALID_INDEX when there is none (docs/containers.md, "Bitset"). */
#define KK_BITSET_SET(b, i) kk__bitset_set(&(b), (int64_t)(i))
#define KK_BITSET_RESET(b, i) kk__bitset_reset(&(b), (int64_t)(i))
#define KK_BITSET_TEST(b, i) kk__bitset_test(&(b), (int64_t)(i))
#define KK_BITSET_SIZE(b) ((b).size)
#define KK_BITSET_FIND_ANY_SET_NEAR(b, hint) kk__bitset_find(&(b), (int64_t)(hint), 0u)
#define KK_BITSET_FIND_ANY_UNSET_NEAR(b, hint) kk__bitset_find(&(b), (int64_t)(hint), ~0u)

#endif /* KK_BITSET_H */
