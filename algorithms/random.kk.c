/* algorithms/random.kk.c -- kk-algorithms' random kernels: seeding a pool's slots, and fill_random from xorshift slots and Philox blocks. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "args.h"
#include "kernel_util.h"

/* ---- seeding: every slot's state from the one seed (splitmix64 of the seed
 * and the slot's words), the same on every backend ---------------------------------- */

#define KKA_MIX 0xD1B54A32D192ED03ul

KK_FOR(kka_rseed_xs64, struct kka_rseed_args, s) {
  const uint64_t x = kk__splitmix64(args->p.seed ^ ((uint64_t)s + 1) * KKA_MIX);
  args->p.states[s] = x ? x : 0x9E3779B97F4A7C15ul; /* xorshift's one forbidden state is 0 */
  args->p.locks[s] = 0u;
}

KK_FOR(kka_rseed_xs1024, struct kka_rseed_args, s) {
  const int64_t n = args->p.num_states;
  uint64_t any = 0;
  for (int k = 0; k < 16; k++) {
    const uint64_t x = kk__splitmix64(args->p.seed ^ ((uint64_t)s * 16 + (uint64_t)k + 1) * KKA_MIX);
    args->p.states[k * n + s] = x;
    any |= x;
  }
  if (!any)
    args->p.states[s] = 1;
  args->p.states[16 * n + s] = 0; /* p */
  args->p.locks[s] = 0u;
}

KK_FOR(kka_rseed_philox, struct kka_rseed_args, s) {
  args->p.states[s] = 0; /* blocks drawn */
  args->p.locks[s] = 0u;
}

/* ---- conversions of 64 random bits ------------------------------------------------------- */

/* An integer in [lo, lo + range) (range 0: the bits themselves). */
KK__FN uint64_t kka_int_of(uint64_t r, uint64_t lo, uint64_t range) {
  if (!range)
    return r;
  return lo + (range <= 0xFFFFFFFFul ? ((r >> 32) * range) >> 32 : r % range);
}
KK__FN double kka_dbl_of(uint64_t r, double a, double b) {
  const double x = a + (b - a) * ((double)(r >> 11) * 0x1.0p-53);
  return x < b ? x : a;
}
KK__FN float kka_flt_of(uint64_t r, float a, float b) {
  const float x = a + (b - a) * ((float)(uint32_t)(r >> 40) * 0x1.0p-24f);
  return x < b ? x : a;
}
/* Box-Muller: two normals from two draws */
KK__FN void kka_normals(uint64_t r1, uint64_t r2, double m, double sd, double *z0, double *z1) {
  const double u1 = ((double)(r1 >> 11) + 1.0) * 0x1.0p-53, u2 = (double)(r2 >> 11) * 0x1.0p-53;
  const double rad = sd * sqrt(-2.0 * log(u1)), th = 6.283185307179586 * u2;
  *z0 = m + rad * cos(th);
  *z1 = m + rad * sin(th);
}

/* The elements one slot fills, blocked or interleaved, each given VAL:
 * plain loops over the data for a contiguous view (the compiler keeps the
 * generator's chain and the stores apart), addresses through the strides
 * otherwise. */
#define KKA_FILL_LOOP(T, STEP)                                                                                  \
  do {                                                                                                          \
    const int64_t b_ = args->blocked ? s * args->per : s;                                                       \
    const int64_t e_ = args->blocked ? (s * args->per + args->per < args->n ? s * args->per + args->per : args->n) \
                                     : args->n;                                                                 \
    if (args->contig && args->blocked) {                                                                        \
      T *p_ = (T *)args->v.d.data;                                                                              \
      for (int64_t e = b_; e < e_; e++) {                                                                       \
        STEP;                                                                                                   \
        p_[e] = val_;                                                                                           \
      }                                                                                                         \
    } else if (args->contig) {                                                                                  \
      T *p_ = (T *)args->v.d.data;                                                                              \
      for (int64_t e = b_; e < e_; e += args->p.num_states) {                                                   \
        STEP;                                                                                                   \
        p_[e] = val_;                                                                                           \
      }                                                                                                         \
    } else {                                                                                                    \
      for (int64_t e = b_; e < e_; e += args->blocked ? 1 : args->p.num_states) {                               \
        STEP;                                                                                                   \
        *(T *)kka_elem(&args->v.d, e, 0) = val_;                                                                \
      }                                                                                                         \
    }                                                                                                           \
  } while (0)

/* One element's value val_ from the draws NEXT(): an integer, a uniform
 * real, a normal (two draws give two, the second kept for the next element) */
#define KKA_INT_STEP(T, NEXT) const T val_ = (T)kka_int_of(NEXT(), args->ilo, args->irange)
#define KKA_REAL_STEP(T, CONV, NEXT) const T val_ = CONV(NEXT(), a_, w_)
#define KKA_NORMAL_STEP(T, NEXT)                                                                                \
  T val_;                                                                                                       \
  if (have_) {                                                                                                  \
    val_ = (T)z1_;                                                                                              \
  } else {                                                                                                      \
    double z0_;                                                                                                 \
    const uint64_t r1_ = NEXT();                                                                                \
    kka_normals(r1_, NEXT(), args->a, args->b, &z0_, &z1_);                                                     \
    val_ = (T)z0_;                                                                                              \
  }                                                                                                             \
  have_ = !have_
#define KKA_FILL_INT(T, NEXT) KKA_FILL_LOOP(T, KKA_INT_STEP(T, NEXT));
#if defined(KK_TARGET_HOST) || defined(KK_TARGET_NONE)
/* [0, 1), the commonest range, as the bits scaled and nothing more: the
 * same numbers as CONV (0 + 1 u is u, below 1), without the multiply-add
 * and the select, which cost a tenth of a host fill's time. */
KK__FN double kka_dbl_unit(uint64_t r) { return (double)(r >> 11) * 0x1.0p-53; }
KK__FN float kka_flt_unit(uint64_t r) { return (float)(uint32_t)(r >> 40) * 0x1.0p-24f; }
#define KKA_DBL_STEP(T, NEXT) KKA_REAL_STEP(T, kka_dbl_of, NEXT)
#define KKA_FLT_STEP(T, NEXT) KKA_REAL_STEP(T, kka_flt_of, NEXT)
#define KKA_DBL_UNIT_STEP(T, NEXT) const T val_ = kka_dbl_unit(NEXT())
#define KKA_FLT_UNIT_STEP(T, NEXT) const T val_ = kka_flt_unit(NEXT())
#define KKA_UNIFORM_LOOP(T, CONV, NEXT)                                                                         \
  if (a_ == (T)0 && w_ == (T)1) {                                                                               \
    KKA_FILL_LOOP(T, CONV##_UNIT_STEP(T, NEXT));                                                                \
  } else {                                                                                                      \
    KKA_FILL_LOOP(T, CONV##_STEP(T, NEXT));                                                                     \
  }
#else
#define KKA_UNIFORM_LOOP(T, CONV, NEXT) KKA_FILL_LOOP(T, KKA_REAL_STEP(T, CONV##_OF, NEXT));
#define KKA_DBL_OF kka_dbl_of
#define KKA_FLT_OF kka_flt_of
#endif
#define KKA_FILL_REAL(T, CONV, NEXT)                                                                            \
  if (!args->normal) {                                                                                          \
    const T a_ = (T)args->a, w_ = (T)args->b;                                                                   \
    KKA_UNIFORM_LOOP(T, CONV, NEXT)                                                                             \
  } else {                                                                                                      \
    double z1_ = 0.0;                                                                                           \
    int have_ = 0;                                                                                              \
    KKA_FILL_LOOP(T, KKA_NORMAL_STEP(T, NEXT));                                                                 \
  }

#define KKA_FILL_BODY(NEXT)                                                                                     \
  switch (args->type) {                                                                                         \
  case KK_INT8:                                                                                                 \
    KKA_FILL_INT(int8_t, NEXT) break;                                                                           \
  case KK_UINT8:                                                                                                \
    KKA_FILL_INT(uint8_t, NEXT) break;                                                                          \
  case KK_INT16:                                                                                                \
    KKA_FILL_INT(int16_t, NEXT) break;                                                                          \
  case KK_UINT16:                                                                                               \
    KKA_FILL_INT(uint16_t, NEXT) break;                                                                         \
  case KK_INT32:                                                                                                \
    KKA_FILL_INT(int32_t, NEXT) break;                                                                          \
  case KK_UINT32:                                                                                               \
    KKA_FILL_INT(uint32_t, NEXT) break;                                                                         \
  case KK_INT64:                                                                                                \
    KKA_FILL_INT(int64_t, NEXT) break;                                                                          \
  case KK_UINT64:                                                                                               \
    KKA_FILL_INT(uint64_t, NEXT) break;                                                                         \
  case KK_FLOAT:                                                                                                \
    KKA_FILL_REAL(float, KKA_FLT, NEXT) break;                                                                  \
  default:                                                                                                      \
    KKA_FILL_REAL(double, KKA_DBL, NEXT) break;                                                                 \
  }

#if defined(KK_TARGET_HOST) || defined(KK_TARGET_NONE)
/* x advanced by the steps of matrix m (of the jump table, which random.c
 * makes: matrix i is 2^i steps, column j the image of bit j) */
KK__FN uint64_t kka_xs64_apply(const uint64_t *m, uint64_t x) {
  uint64_t r = 0;
  for (int j = 0; j < 64; j++)
    r ^= m[j] & (0 - ((x >> j) & 1));
  return r;
}
/* x advanced by q steps: the matrices of q's bits */
KK__FN uint64_t kka_xs64_jump(const uint64_t *t, uint64_t x, uint64_t q) {
  for (const uint64_t *m = t; q; q >>= 1, m += 64)
    if (q & 1)
      x = kka_xs64_apply(m, x);
  return x;
}

/* Stores of fills larger than the last-level cache (args->stream): whole
 * lines gathered in write-combining buffers and written to memory without
 * first being read into the cache (a plain store of a line not in the cache
 * reads it first: twice the memory traffic of a write-only fill).  x86-64
 * only; elsewhere plain stores. */
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
KK__FN void kka_nt8(void *p, uint64_t v) { _mm_stream_si64((long long *)p, (long long)v); }
KK__FN void kka_nt4(void *p, uint32_t v) { _mm_stream_si32((int *)p, (int)v); }
#define KKA_NT_FENCE() _mm_sfence()
#else
KK__FN void kka_nt8(void *p, uint64_t v) { *(uint64_t *)p = v; }
KK__FN void kka_nt4(void *p, uint32_t v) { *(uint32_t *)p = v; }
#define KKA_NT_FENCE() (void)0
#endif
#define KKA_STORE(T, P, V) (*(P) = (V))
#define KKA_STORE_NT8(T, P, V)                                                                                  \
  do {                                                                                                          \
    const T v_ = (V);                                                                                           \
    uint64_t b_;                                                                                                \
    memcpy(&b_, &v_, 8);                                                                                        \
    kka_nt8((P), b_);                                                                                           \
  } while (0)
#define KKA_STORE_NT4(T, P, V)                                                                                  \
  do {                                                                                                          \
    const T v_ = (V);                                                                                           \
    uint32_t b_;                                                                                                \
    memcpy(&b_, &v_, 4);                                                                                        \
    kka_nt4((P), b_);                                                                                           \
  } while (0)
/* A host slot's block [b_, e_) of a contiguous view in KKA_LANES = 4
 * lanes, round by round: in a round of 4 q elements lane l draws elements
 * [l q, l q + q) of the round from the slot's state jumped l q steps ahead,
 * the four in one loop (four independent chains of shifts where one
 * generator waits for each step before the next), and the last lane's
 * generator is then the state after the round, as if one generator had
 * drawn it all in order.  Rounds of 2^KKA_LANE_LOG2Q elements per lane (a
 * jump is one matrix of the table), then one round of what is left (a
 * jump by the matrices of q's bits), then the last few elements one by
 * one.  Short rounds keep the four lanes' stores near each other: lanes a
 * quarter of a long block apart (hundreds of MiB, a power of 2 for a
 * power-of-2 view) ran at a sixth of one generator's speed with plain
 * stores.  STEPM(T, NEXT) is one element's val_, STORE(T, P, V) stores it. */
#if KKA_LANES != 4
#error "KKA_XS64_ROUND is written for four lanes"
#endif
#define KKA_L0() kk__xs64_next(&l0_)
#define KKA_L1() kk__xs64_next(&l1_)
#define KKA_L2() kk__xs64_next(&l2_)
#define KKA_L3() kk__xs64_next(&l3_)
#define KKA_XS64_ROUND(T, STEPM, STORE, P0, Q, JUMP)                                                            \
  do {                                                                                                          \
    const int64_t q_ = (Q);                                                                                     \
    T *const p0_ = (P0), *const p1_ = p0_ + q_, *const p2_ = p1_ + q_, *const p3_ = p2_ + q_;                   \
    kk_random_xorshift64 l0_ = g, l1_ = g, l2_ = g, l3_ = g;                                                    \
    l1_.x = JUMP(l0_.x);                                                                                        \
    l2_.x = JUMP(l1_.x);                                                                                        \
    l3_.x = JUMP(l2_.x);                                                                                        \
    for (int64_t j_ = 0; j_ < q_; j_++) {                                                                       \
      {                                                                                                         \
        STEPM(T, KKA_L0);                                                                                       \
        STORE(T, p0_ + j_, val_);                                                                               \
      }                                                                                                         \
      {                                                                                                         \
        STEPM(T, KKA_L1);                                                                                       \
        STORE(T, p1_ + j_, val_);                                                                               \
      }                                                                                                         \
      {                                                                                                         \
        STEPM(T, KKA_L2);                                                                                       \
        STORE(T, p2_ + j_, val_);                                                                               \
      }                                                                                                         \
      {                                                                                                         \
        STEPM(T, KKA_L3);                                                                                       \
        STORE(T, p3_ + j_, val_);                                                                               \
      }                                                                                                         \
    }                                                                                                           \
    g = l3_;                                                                                                    \
  } while (0)
#define KKA_JUMP_ROUND(x) kka_xs64_apply(jq_, (x))
#define KKA_JUMP_REST(x) kka_xs64_jump(args->jump, (x), (uint64_t)r_)
#define KKA_XS64_LANES(T, STEPM, STORE)                                                                         \
  do {                                                                                                          \
    T *const pb_ = (T *)args->v.d.data + b_;                                                                    \
    const int64_t len_ = e_ - b_, round_ = (int64_t)KKA_LANES << KKA_LANE_LOG2Q;                                \
    const uint64_t *const jq_ = args->jump + 64 * KKA_LANE_LOG2Q;                                               \
    int64_t o_ = 0;                                                                                             \
    for (; len_ - o_ >= round_; o_ += round_)                                                                   \
      KKA_XS64_ROUND(T, STEPM, STORE, pb_ + o_, (int64_t)1 << KKA_LANE_LOG2Q, KKA_JUMP_ROUND);                  \
    const int64_t r_ = (len_ - o_) / KKA_LANES;                                                                 \
    KKA_XS64_ROUND(T, STEPM, STORE, pb_ + o_, r_, KKA_JUMP_REST);                                               \
    for (o_ += KKA_LANES * r_; o_ < len_; o_++) {                                                               \
      STEPM(T, KKA_NEXT);                                                                                       \
      STORE(T, pb_ + o_, val_);                                                                                 \
    }                                                                                                           \
  } while (0)
/* 4- and 8-byte elements (NT: KKA_STORE_NT4 or 8), stored plainly or past
 * the caches */
#define KKA_LANES_ST(T, STEPM, NT)                                                                              \
  do {                                                                                                          \
    if (args->stream) {                                                                                         \
      KKA_XS64_LANES(T, STEPM, NT);                                                                             \
      KKA_NT_FENCE();                                                                                           \
    } else {                                                                                                    \
      KKA_XS64_LANES(T, STEPM, KKA_STORE);                                                                      \
    }                                                                                                           \
  } while (0)
#define KKA_LANES_REAL(T, CONV, NT)                                                                             \
  do {                                                                                                          \
    const T a_ = (T)args->a, w_ = (T)args->b;                                                                   \
    if (a_ == (T)0 && w_ == (T)1)                                                                               \
      KKA_LANES_ST(T, CONV##_UNIT_STEP, NT);                                                                    \
    else                                                                                                        \
      KKA_LANES_ST(T, CONV##_STEP, NT);                                                                         \
  } while (0)

/* The lanes for every uniform type (the jump table is given only for
 * blocks of at least KKA_LANE_MIN elements). */
#define KKA_XS64_LANES_BODY()                                                                                   \
  do {                                                                                                          \
    const int64_t b_ = s * args->per, e_ = b_ + args->per < args->n ? b_ + args->per : args->n;                 \
    switch (args->type) {                                                                                       \
    case KK_INT8:                                                                                               \
      KKA_XS64_LANES(int8_t, KKA_INT_STEP, KKA_STORE);                                                          \
      break;                                                                                                    \
    case KK_UINT8:                                                                                              \
      KKA_XS64_LANES(uint8_t, KKA_INT_STEP, KKA_STORE);                                                         \
      break;                                                                                                    \
    case KK_INT16:                                                                                              \
      KKA_XS64_LANES(int16_t, KKA_INT_STEP, KKA_STORE);                                                         \
      break;                                                                                                    \
    case KK_UINT16:                                                                                             \
      KKA_XS64_LANES(uint16_t, KKA_INT_STEP, KKA_STORE);                                                        \
      break;                                                                                                    \
    case KK_INT32:                                                                                              \
      KKA_LANES_ST(int32_t, KKA_INT_STEP, KKA_STORE_NT4);                                                       \
      break;                                                                                                    \
    case KK_UINT32:                                                                                             \
      KKA_LANES_ST(uint32_t, KKA_INT_STEP, KKA_STORE_NT4);                                                      \
      break;                                                                                                    \
    case KK_INT64:                                                                                              \
      KKA_LANES_ST(int64_t, KKA_INT_STEP, KKA_STORE_NT8);                                                       \
      break;                                                                                                    \
    case KK_UINT64:                                                                                             \
      KKA_LANES_ST(uint64_t, KKA_INT_STEP, KKA_STORE_NT8);                                                      \
      break;                                                                                                    \
    case KK_FLOAT:                                                                                              \
      KKA_LANES_REAL(float, KKA_FLT, KKA_STORE_NT4);                                                            \
      break;                                                                                                    \
    default:                                                                                                    \
      KKA_LANES_REAL(double, KKA_DBL, KKA_STORE_NT8);                                                           \
      break;                                                                                                    \
    }                                                                                                           \
  } while (0)
#define KKA_USE_LANES (args->jump && args->blocked && args->contig && !args->normal)
#else
#define KKA_XS64_LANES_BODY() (void)0
#define KKA_USE_LANES 0
#endif

/* xorshift slots: slot s fills its elements from its own state, unlocked
 * (each iteration is one slot, so no other thread holds it). */
KK_FOR(kka_rfill_xs64, struct kka_rfill_args, s) {
  kk_random_xorshift64 g;
  g.x = args->p.states[s];
  g.slot = s;
#define KKA_NEXT() kk__xs64_next(&g)
  if (KKA_USE_LANES) {
    KKA_XS64_LANES_BODY();
  } else {
    KKA_FILL_BODY(KKA_NEXT)
  }
#undef KKA_NEXT
  args->p.states[s] = g.x;
}

KK_FOR(kka_rfill_xs1024, struct kka_rfill_args, s) {
  const int64_t ns = args->p.num_states;
  kk_random_xorshift1024 g;
  for (int k = 0; k < 16; k++)
    g.s[k] = args->p.states[k * ns + s];
  g.p = (int32_t)args->p.states[16 * ns + s];
  g.pad = 0;
  g.slot = s;
#define KKA_NEXT() kk__xs1024_next(&g)
  KKA_FILL_BODY(KKA_NEXT)
#undef KKA_NEXT
  for (int k = 0; k < 16; k++)
    args->p.states[k * ns + s] = g.s[k];
  args->p.states[16 * ns + s] = (uint64_t)g.p;
}

/* Philox, a contiguous view 16-byte aligned, uniform numbers, every block
 * whole (the host launches the last partial block through kka_rfill_philox):
 * iteration j is block offset + j, its elements [j * per, j * per + per)
 * one 16-byte store (neighbouring iterations write neighbouring 16 bytes),
 * the type's conversion chosen once per launch.  The numbers are those of
 * kka_rfill_philox, bit for bit. */
typedef struct KK_ALIGNED(16) kka_v16 {
  uint64_t w[2];
} kka_v16;
typedef struct KK_ALIGNED(16) kka_d2 {
  double v[2];
} kka_d2;
typedef struct KK_ALIGNED(16) kka_f4 {
  float v[4];
} kka_f4;
typedef struct KK_ALIGNED(16) kka_u4 {
  uint32_t v[4];
} kka_u4;
KK_FOR(kka_rfill_philox_v, struct kka_rfill_args, j) {
  uint32_t c[4] = {(uint32_t)(args->offset + (uint64_t)j), (uint32_t)((args->offset + (uint64_t)j) >> 32),
                   (uint32_t)KKA_PHILOX_FILL_STREAM, (uint32_t)(KKA_PHILOX_FILL_STREAM >> 32)};
  kk__philox4x32(c, (uint32_t)args->p.seed, (uint32_t)(args->p.seed >> 32));
  const uint64_t w0 = (uint64_t)c[0] | (uint64_t)c[1] << 32, w1 = (uint64_t)c[2] | (uint64_t)c[3] << 32;
  switch (args->type) {
  case KK_DOUBLE: {
    kka_d2 o;
    o.v[0] = kka_dbl_of(w0, args->a, args->b);
    o.v[1] = kka_dbl_of(w1, args->a, args->b);
    ((kka_d2 *)args->v.d.data)[j] = o;
    break;
  }
  case KK_FLOAT: {
    const float a = (float)args->a, b = (float)args->b;
    kka_f4 o;
    for (int k = 0; k < 4; k++) {
      const uint64_t h = (uint64_t)c[k];
      o.v[k] = kka_flt_of(h << 32 | h, a, b);
    }
    ((kka_f4 *)args->v.d.data)[j] = o;
    break;
  }
  case KK_INT64:
  case KK_UINT64: {
    kka_v16 o;
    o.w[0] = kka_int_of(w0, args->ilo, args->irange);
    o.w[1] = kka_int_of(w1, args->ilo, args->irange);
    ((kka_v16 *)args->v.d.data)[j] = o;
    break;
  }
  default: { /* KK_INT32, KK_UINT32 */
    kka_u4 o;
    for (int k = 0; k < 4; k++) {
      const uint64_t h = (uint64_t)c[k];
      o.v[k] = (uint32_t)kka_int_of(h << 32 | h, args->ilo, args->irange);
    }
    ((kka_u4 *)args->v.d.data)[j] = o;
    break;
  }
  }
}

/* Philox: iteration j is counter block offset + j of the fill stream, which
 * gives elements [j * per, j * per + per) (per: 2 for 8-byte types and
 * normal doubles, 4 otherwise). */
KK__FN uint64_t kka_word(const uint64_t w[2], int k, int per) {
  if (per == 2)
    return w[k];
  const uint32_t h = (uint32_t)(w[k >> 1] >> (32 * (k & 1)));
  return (uint64_t)h << 32 | h; /* the 32 bits of word k in both halves: the conversions read the top */
}
KK_FOR(kka_rfill_philox, struct kka_rfill_args, j) {
  uint64_t w[2];
  kk__philox_block(args->offset + (uint64_t)j, KKA_PHILOX_FILL_STREAM, (uint32_t)args->p.seed,
                   (uint32_t)(args->p.seed >> 32), w);
  const int per = (int)args->per;
  const int64_t e0 = j * per;
  if (args->normal) {
    double z[4];
    if (per == 2) {
      kka_normals(w[0], w[1], args->a, args->b, &z[0], &z[1]);
    } else {
      kka_normals(kka_word(w, 0, 4), kka_word(w, 1, 4), args->a, args->b, &z[0], &z[1]);
      kka_normals(kka_word(w, 2, 4), kka_word(w, 3, 4), args->a, args->b, &z[2], &z[3]);
    }
    for (int k = 0; k < per && e0 + k < args->n; k++) {
      void *p = kka_elem(&args->v.d, e0 + k, args->contig);
      if (args->type == KK_FLOAT)
        *(float *)p = (float)z[k];
      else
        *(double *)p = z[k];
    }
    return;
  }
  for (int k = 0; k < per && e0 + k < args->n; k++) {
    const uint64_t r = kka_word(w, k, per);
    void *p = kka_elem(&args->v.d, e0 + k, args->contig);
    switch (args->type) {
    case KK_INT8:
      *(int8_t *)p = (int8_t)kka_int_of(r, args->ilo, args->irange);
      break;
    case KK_UINT8:
      *(uint8_t *)p = (uint8_t)kka_int_of(r, args->ilo, args->irange);
      break;
    case KK_INT16:
      *(int16_t *)p = (int16_t)kka_int_of(r, args->ilo, args->irange);
      break;
    case KK_UINT16:
      *(uint16_t *)p = (uint16_t)kka_int_of(r, args->ilo, args->irange);
      break;
    case KK_INT32:
      *(int32_t *)p = (int32_t)kka_int_of(r, args->ilo, args->irange);
      break;
    case KK_UINT32:
      *(uint32_t *)p = (uint32_t)kka_int_of(r, args->ilo, args->irange);
      break;
    case KK_INT64:
      *(int64_t *)p = (int64_t)kka_int_of(r, args->ilo, args->irange);
      break;
    case KK_UINT64:
      *(uint64_t *)p = kka_int_of(r, args->ilo, args->irange);
      break;
    case KK_FLOAT:
      *(float *)p = kka_flt_of(r, (float)args->a, (float)args->b);
      break;
    default:
      *(double *)p = kka_dbl_of(r, args->a, args->b);
      break;
    }
  }
}
