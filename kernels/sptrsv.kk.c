/* kernels/sptrsv.kk.c -- kk-kernels' sparse triangular solve kernels (a launch per level set, or one sync-free launch) for the four element types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "solvers_args.h"
#include "scalar.h"

/* A sync-free team's ticket (drawn as it starts, in the level order) and
 * the slots [K0, K1) it gives; the team drawing the last ticket sets the
 * counter back to zero for the next solve. */
#define KKK_SF_TICKET(team, K0, K1)                                                                              \
  int64_t kkk_t;                                                                                                \
  KK_SINGLE_TEAM_BROADCAST(team, kkk_t) {                                                                       \
    int64_t *kkk_ctr = KK_DATA(args->ctr, int64_t);                                                             \
    kkk_t = kk_atomic_fetch_add(kkk_ctr, (int64_t)1);                                                           \
    if (kkk_t == args->nteams - 1)                                                                              \
      kk_atomic_sub(kkk_ctr, args->nteams);                                                                     \
  }                                                                                                             \
  const int64_t K0 = kkk_t * args->rows_per_team;                                                               \
  const int64_t K1 = K0 + args->rows_per_team < args->end ? K0 + args->rows_per_team : args->end

/* How the sync-free solve (sptrsv_sfg) waits for a row and publishes one.
 * CUDA images for compute capability 7.0 and up: a lane polls its
 * dependency's flag with relaxed loads at device scope (ld.relaxed.gpu:
 * served by L2, no fence per poll), a failed poll pausing first where
 * `nap` (KK_SPTRSV_SYNCFREE_NAP) asks for it, and once the flag reads
 * `gen` takes one acquire fence (fence.acq_rel.gpu: PTX's acquire
 * pattern, a relaxed load then the fence), after which its plain load of
 * x sees what the row it waited on stored before its flag (the fence's
 * "memory" clobber keeps that load after it, and the loads of the entry
 * before it); a row's x is published by a release store of its flag
 * (st.release.gpu).  Elsewhere (older images, the NVRTC source, HIP,
 * SPIR-V, the host) kk_atomic_load, an acquire, is the poll itself and
 * kk_atomic_store, a release, the publication. */
#if defined(KK_TARGET_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
KK__FN int32_t kkk_sf_poll(const int32_t *p) {
  int32_t v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
KK__FN void kkk_sf_publish(int32_t *p, int32_t v) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
/* the pause before the next poll: none while cap is 0, else 16 ns doubling
 * up to cap (__nanosleep), so that rows far from ready poll L2 less */
KK__FN uint32_t kkk_sf_nap(uint32_t ns, uint32_t cap) {
  if (!cap)
    return 0;
  __nanosleep(ns);
  ns = ns ? 2 * ns : 16;
  return ns < cap ? ns : cap;
}
#define KKK_SF_WAIT(p, g, nap) \
  for (uint32_t kkk_ns = 0; kkk_sf_poll(p) != (g); kkk_ns = kkk_sf_nap(kkk_ns, (uint32_t)(nap))) \
    ;
#define KKK_SF_ACQUIRE() asm volatile("fence.acq_rel.gpu;" ::: "memory")
#define KKK_SF_PUBLISH(p, g) kkk_sf_publish((p), (g))
#else
#define KKK_SF_WAIT(p, g, nap) \
  while (kk_atomic_load(p) != (g)) \
    ;
#define KKK_SF_ACQUIRE() ((void)0)
#define KKK_SF_PUBLISH(p, g) kk_atomic_store((p), (g))
#endif

/* The value-carrying sync-free solve (sptrsv_sfv, float, double and
 * complex float): row i's x is published as its bits in a word of its
 * own (int32 for float, int64 for double and complex float) that reads
 * KKK_SFV_NONE until then, so that a lane
 * waiting on row j polls that one word and has x(j) when it stops: one
 * access per dependency, no flag, no fence, no second load (a naturally
 * aligned word of up to 64 bits is read and written whole).  NONE
 * (solvers_args.h) is a signalling NaN, which arithmetic never yields
 * (a signalling NaN of b comes out quiet); kkk_sfv_bits turns NONE's bits
 * into the quiet NaN all the same, so a waiter could never mistake one.
 * KKK_SFV_WAIT(SFX, w, p, nap) polls word p until it holds a value, left
 * in w; KKK_SFV_PUT(SFX, p, w) publishes word w.  CUDA 7.0 and up: relaxed loads and stores at
 * device scope (served by L2), a failed poll pausing as KKK_SF_WAIT's;
 * elsewhere kk_atomic_load and kk_atomic_store. */
#if defined(KK_TARGET_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define KKK_SFV_LDST(SFX, W, B, C)                                                                               \
  KK__FN W kkk_sfv_ld_##SFX(W *p) {                                                                             \
    W v;                                                                                                        \
    asm volatile("ld.relaxed.gpu.global." B " %0, [%1];" : "=" C(v) : "l"(p));                                  \
    return v;                                                                                                   \
  }                                                                                                             \
  KK__FN void kkk_sfv_st_##SFX(W *p, W v) {                                                                    \
    asm volatile("st.relaxed.gpu.global." B " [%0], %1;" ::"l"(p), C(v) : "memory");                           \
  }
KKK_SFV_LDST(s, int32_t, "b32", "r")
KKK_SFV_LDST(d, int64_t, "b64", "l")
KKK_SFV_LDST(c, int64_t, "b64", "l")
#define KKK_SFV_WAIT_(SFX, w, p, nap)                                                   \
  for (uint32_t kkk_ns = 0; ((w) = kkk_sfv_ld_##SFX(p)) == KKK_SFV_NONE_##SFX;           \
       kkk_ns = kkk_sf_nap(kkk_ns, (uint32_t)(nap)))                                     \
    ;
#define KKK_SFV_PUT_(SFX, p, w) kkk_sfv_st_##SFX((p), (w))
#else
#define KKK_SFV_WAIT_(SFX, w, p, nap)                     \
  while (((w) = kk_atomic_load(p)) == KKK_SFV_NONE_##SFX) \
    ;
#define KKK_SFV_PUT_(SFX, p, w) kk_atomic_store((p), (w))
#endif
/* (SFX expanded first) */
#define KKK_SFV_WAIT(SFX, w, p, nap) KKK_SFV_WAIT_(SFX, w, p, nap)
#define KKK_SFV_PUT(SFX, p, w) KKK_SFV_PUT_(SFX, p, w)
#define KKK_SFV_NONE(SFX) KKK_CAT(KKK_SFV_NONE_, SFX)
#define kkk_sfv_w_s int32_t
#define kkk_sfv_w_d int64_t
#define kkk_sfv_w_c int64_t
/* the types sptrsv_sfv is made for (complex double's 16 bytes are no word) */
#define KKK_SFV_HAS_s 1
#define KKK_SFV_HAS_d 1
#define KKK_SFV_HAS_c 1
#define KKK_SFV_HAS_z 0
/* the word of a value (NONE's bits turned to the quiet NaN) and back */
#define KKK_SFV_BITS(SFX, T, W, QNAN)                   \
  union kkk_sfv_##SFX {                                  \
    T v;                                                 \
    W w;                                                 \
  };                                                     \
  KK__FN W kkk_sfv_bits_##SFX(T v) {                     \
    union kkk_sfv_##SFX u;                               \
    u.v = v;                                             \
    return u.w == KKK_SFV_NONE_##SFX ? (W)(QNAN) : u.w;  \
  }                                                      \
  KK__FN T kkk_sfv_val_##SFX(W w) {                      \
    union kkk_sfv_##SFX u;                               \
    u.w = w;                                             \
    return u.v;                                          \
  }
KKK_SFV_BITS(s, float, int32_t, 0x7FC00000)
KKK_SFV_BITS(d, double, int64_t, 0x7FF8000000000000)
KKK_SFV_BITS(c, kk_complex_float, int64_t, 0x7FC000007FC00000)

#define KKK_TMPL "sptrsv_tmpl.h"
#include "each_type.h"
#undef KKK_TMPL
