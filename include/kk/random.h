/* kk/random.h -- random-number generator pools: the pool descriptors kernels receive and, in kernel files, the generators and their draws. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_RANDOM_H
#define KK_RANDOM_H

/*
 * Host code gets the descriptor types from here (through <kk/algorithms.h>,
 * which creates and binds pools); a kernel file includes this header after
 * <kk/kernel.h> and also gets the generators:
 *
 *   struct mc_args { kk_random_xorshift64_pool pool; kk_view hits; int64_t n; };   // shared header
 *
 *   KK_FOR(throw_darts, struct mc_args, i) {                                       // kernel file
 *     kk_random_xorshift64 g = kk_random_acquire(args->pool);
 *     int64_t in = 0;
 *     for (int64_t k = 0; k < args->n; k++) {
 *       const double x = kk_random_double(&g), y = kk_random_double(&g);
 *       in += x * x + y * y < 1.0;
 *     }
 *     KK_AT(args->hits, int64_t, i) = in;
 *     kk_random_release(args->pool, &g);
 *   }
 *
 * A pool holds one generator state per slot (by default one per thread the
 * backend runs at once).  kk_random_acquire takes a free slot for the calling
 * thread (on host backends the slot of its thread number, on GPUs the slot of
 * its global thread index, the next free one when that is taken) and copies
 * its state into a local generator; kk_random_release writes the advanced
 * state back and frees the slot.  A thread holds at most one state of a pool
 * at a time, and must release it before its body ends.  docs/algorithms.md
 * is the reference (generators, draws, determinism).
 */

#include <kk/kernel_abi.h>

/* Generator kinds. */
typedef enum kk_random_kind {
  KK_RANDOM_XORSHIFT64 = 1,    /* xorshift64*: 8 bytes of state, period 2^64 - 1 */
  KK_RANDOM_XORSHIFT1024 = 2,  /* xorshift1024*: 128 bytes of state, period 2^1024 - 1 */
  KK_RANDOM_PHILOX = 3,        /* Philox4x32-10: counter-based, a stream per slot, reproducible */
  KK__RANDOM_KIND_PIN = 0x7fffffff
} kk_random_kind_t;

/* What every pool descriptor holds.  states: the slots' states in the
 * pool's space, word k of slot s at [k * num_states + s] (xorshift64 1 word,
 * xorshift1024 17 words, philox 1 word: the blocks drawn); locks: one word
 * per slot, 0 when free. */
typedef struct kk__rpool_desc {
  uint64_t *states;
  uint32_t *locks;
  int64_t num_states;
  uint64_t seed;
  int32_t kind;
  int32_t reserved;
} kk__rpool_desc;

/* The descriptors a kernel argument struct holds, one type per kind, filled
 * by kk_random_bind_xorshift64() and friends (<kk/algorithms.h>). */
typedef struct kk_random_xorshift64_pool {
  kk__rpool_desc d;
} kk_random_xorshift64_pool;
/* A kernel argument of a xorshift1024* pool. */
typedef struct kk_random_xorshift1024_pool {
  kk__rpool_desc d;
} kk_random_xorshift1024_pool;
/* A kernel argument of a Philox pool. */
typedef struct kk_random_philox_pool {
  kk__rpool_desc d;
} kk_random_philox_pool;

/* Words of state per slot. */
#define KK__RAND_WORDS(kind) ((kind) == KK_RANDOM_XORSHIFT1024 ? 17 : 1)

#ifdef KK_KERNEL_H /* ==== kernel files: the generators ============================================== */

#if defined(KK_TARGET_HOST) || defined(KK_TARGET_NONE)
#include <math.h>
#endif

/* Generators: local copies of one slot's state. */
typedef struct kk_random_xorshift64 {
  uint64_t x;
  int64_t slot;
} kk_random_xorshift64;
typedef struct kk_random_xorshift1024 {
  uint64_t s[16];
  int32_t p;
  int32_t pad;
  int64_t slot;
} kk_random_xorshift1024;
typedef struct kk_random_philox {
  uint64_t block;   /* the next counter block */
  uint64_t stream;  /* counter words 2 and 3 */
  uint64_t buf[2];  /* the current block's output */
  uint32_t key[2];
  int32_t used;     /* words of buf drawn (2: empty) */
  int32_t pad;
  int64_t slot;     /* -1: not from a pool */
} kk_random_philox;

/* ---- the core of each generator: 64 random bits ----------------------------------------------- */

KK__FN uint64_t kk__splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ul;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ul;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBul;
  return z ^ (z >> 31);
}

KK__FN uint64_t kk__xs64_next(kk_random_xorshift64 *g) {
  uint64_t x = g->x;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  g->x = x;
  return x * 0x2545F4914F6CDD1Dul;
}

KK__FN uint64_t kk__xs1024_next(kk_random_xorshift1024 *g) {
  const uint64_t s0 = g->s[g->p];
  g->p = (g->p + 1) & 15;
  uint64_t s1 = g->s[g->p];
  s1 ^= s1 << 31;
  g->s[g->p] = s1 ^ s0 ^ (s1 >> 11) ^ (s0 >> 30);
  return g->s[g->p] * 1181783497276652981ul;
}

/* Philox4x32-10 (Salmon et al., SC'11): four 32-bit counter words, a
 * 64-bit key, ten rounds. */
KK__FN void kk__philox4x32(uint32_t c[4], uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; r++) {
    const uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
    const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
    c[1] = (uint32_t)p1;
    c[3] = (uint32_t)p0;
    c[0] = n0;
    c[2] = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}
/* The 128 bits of block `block` of stream `stream` under key (k0, k1), as two 64-bit words. */
KK__FN void kk__philox_block(uint64_t block, uint64_t stream, uint32_t k0, uint32_t k1, uint64_t *out) {
  uint32_t c[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)stream, (uint32_t)(stream >> 32)};
  kk__philox4x32(c, k0, k1);
  out[0] = (uint64_t)c[0] | (uint64_t)c[1] << 32;
  out[1] = (uint64_t)c[2] | (uint64_t)c[3] << 32;
}
KK__FN uint64_t kk__philox_next(kk_random_philox *g) {
  if (g->used >= 2) {
    kk__philox_block(g->block, g->stream, g->key[0], g->key[1], g->buf);
    g->block++;
    g->used = 0;
  }
  return g->buf[g->used++];
}

/* A Philox generator outside any pool: stream `stream` of `seed`, from its
 * 64-bit word `position` on.  The same (seed, stream, position) gives the same
 * numbers on every backend, whatever thread draws them: e.g. stream = the
 * element index of a kernel that needs reproducible numbers per element. */
KK__FN kk_random_philox kk_random_philox_at(uint64_t seed, uint64_t stream, uint64_t position) {
  kk_random_philox g;
  g.block = position / 2;
  g.stream = stream;
  g.key[0] = (uint32_t)seed;
  g.key[1] = (uint32_t)(seed >> 32);
  g.used = 2;
  g.pad = 0;
  g.slot = -1;
  g.buf[0] = g.buf[1] = 0;
  if (position % 2)
    (void)kk__philox_next(&g);
  return g;
}

/* ---- acquire and release ---------------------------------------------------------------------- */

/* The calling thread's index, where a search for a free slot starts: the
 * thread number on host targets (kk__th is the body's host thread), the
 * global thread index on GPUs. */
#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP)
#define KK__RAND_SLOT()                                                                                         \
  ((uint64_t)blockIdx.x * (blockDim.x * blockDim.y * blockDim.z) + threadIdx.x +                                \
   blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))
#elif defined(KK_TARGET_SPIRV)
#define KK__RAND_SLOT() ((uint64_t)get_global_linear_id())
#else
#define KK__RAND_SLOT() ((uint64_t)kk__th->thread_id)
#endif

/* Takes a free slot, starting at `from` and probing onward (a thread that
 * has one to itself, the usual case, takes it at the first try); -1 for an
 * empty descriptor (a failed bind). */
KK__FN int64_t kk__rand_lock(const kk__rpool_desc *d, uint64_t from) {
  const int64_t n = d->num_states;
  if (n <= 0)
    return -1;
  int64_t s = (int64_t)(from % (uint64_t)n);
  for (;;) {
    if (kk_atomic_compare_exchange(&d->locks[s], 0u, 1u) == 0u)
      return s;
    s = s + 1 < n ? s + 1 : 0;
  }
}
KK__FN void kk__rand_unlock(const kk__rpool_desc *d, int64_t s) {
  if (s >= 0)
    kk_atomic_store(&d->locks[s], 0u);
}

KK__FN kk_random_xorshift64 kk__rand_acquire_xs64(const kk__rpool_desc *d, uint64_t from) {
  kk_random_xorshift64 g;
  g.slot = kk__rand_lock(d, from);
  g.x = g.slot >= 0 ? d->states[g.slot] : 0x853C49E6748FEA9Bul;
  return g;
}
KK__FN void kk__rand_release_xs64(const kk__rpool_desc *d, const kk_random_xorshift64 *g) {
  if (g->slot < 0)
    return;
  d->states[g->slot] = g->x;
  kk__rand_unlock(d, g->slot);
}
KK__FN kk_random_xorshift1024 kk__rand_acquire_xs1024(const kk__rpool_desc *d, uint64_t from) {
  kk_random_xorshift1024 g;
  g.slot = kk__rand_lock(d, from);
  g.pad = 0;
  for (int k = 0; k < 16; k++)
    g.s[k] = g.slot >= 0 ? d->states[k * d->num_states + g.slot] : 0x853C49E6748FEA9Bul + (uint64_t)k;
  g.p = g.slot >= 0 ? (int32_t)d->states[16 * d->num_states + g.slot] : 0;
  return g;
}
KK__FN void kk__rand_release_xs1024(const kk__rpool_desc *d, const kk_random_xorshift1024 *g) {
  if (g->slot < 0)
    return;
  for (int k = 0; k < 16; k++)
    d->states[k * d->num_states + g->slot] = g->s[k];
  d->states[16 * d->num_states + g->slot] = (uint64_t)g->p;
  kk__rand_unlock(d, g->slot);
}
KK__FN kk_random_philox kk__rand_acquire_philox(const kk__rpool_desc *d, uint64_t from) {
  const int64_t s = kk__rand_lock(d, from);
  kk_random_philox g = kk_random_philox_at(d->seed, s >= 0 ? (uint64_t)s : ~(uint64_t)1, 0);
  g.slot = s;
  g.block = s >= 0 ? d->states[s] : 0;
  return g;
}
KK__FN void kk__rand_release_philox(const kk__rpool_desc *d, const kk_random_philox *g) {
  if (g->slot < 0)
    return;
  d->states[g->slot] = g->block; /* a block partly drawn is not drawn again */
  kk__rand_unlock(d, g->slot);
}

/* ---- draws, the same for every generator -------------------------------------------------------- */

/* The derived draws of generator type G whose core is NEXT(G *). */
#define KK__RAND_DRAWS(G, NEXT)                                                                                 \
  KK__FN uint64_t kk__rand_u64_##G(G *g) { return NEXT(g); }                                                    \
  KK__FN uint32_t kk__rand_u32_##G(G *g) { return (uint32_t)(NEXT(g) >> 32); }                                  \
  KK__FN double kk__rand_double_##G(G *g) { return (double)(NEXT(g) >> 11) * 0x1.0p-53; }                       \
  KK__FN float kk__rand_float_##G(G *g) { return (float)(uint32_t)(NEXT(g) >> 40) * 0x1.0p-24f; }               \
  KK__FN uint64_t kk__rand_below_##G(G *g, uint64_t n) {                                                        \
    const uint64_t r = NEXT(g);                                                                                 \
    return n <= 0xFFFFFFFFul ? ((r >> 32) * n) >> 32 : (n ? r % n : r);                                        \
  }                                                                                                             \
  KK__FN double kk__rand_range_##G(G *g, double a, double b) {                                                 \
    const double r = a + (b - a) * ((double)(NEXT(g) >> 11) * 0x1.0p-53);                                      \
    return r < b ? r : a; /* (b - a) u may round up to b */                                                     \
  }                                                                                                             \
  KK__FN float kk__rand_rangef_##G(G *g, float a, float b) {                                                   \
    const float r = a + (b - a) * ((float)(uint32_t)(NEXT(g) >> 40) * 0x1.0p-24f);                             \
    return r < b ? r : a;                                                                                       \
  }                                                                                                             \
  KK__FN double kk__rand_normal_##G(G *g, double mean, double stddev) {                                         \
    const double u1 = ((double)(NEXT(g) >> 11) + 1.0) * 0x1.0p-53; /* (0, 1] */                                 \
    const double u2 = (double)(NEXT(g) >> 11) * 0x1.0p-53;                                                      \
    return mean + stddev * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);                                  \
  }

KK__RAND_DRAWS(kk_random_xorshift64, kk__xs64_next)
KK__RAND_DRAWS(kk_random_xorshift1024, kk__xs1024_next)
KK__RAND_DRAWS(kk_random_philox, kk__philox_next)

/* The draws, for a pointer g to any generator:
 *   kk_random_u64(g), kk_random_u32(g)       uniform bits
 *   kk_random_double(g), kk_random_float(g)  uniform in [0, 1) (53 and 24 bits)
 *   kk_random_below(g, n)                    uniform integer in [0, n) (n = 0: any 64 bits); n up to
 *                                            2^32 by a multiply (bias below n / 2^32), larger by a modulo
 *   kk_random_range(g, a, b)                 uniform double in [a, b)
 *   kk_random_range_float(g, a, b)           uniform float in [a, b)
 *   kk_random_normal(g, mean, stddev)        normal (Box-Muller, two draws)
 * and around them, where the body runs (so that the host thread is known):
 *   kk_random_acquire(pool)                  a generator of the pool's kind
 *   kk_random_release(pool, g)               its state back into the pool */
#if defined(__cplusplus) || defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || defined(KK_TARGET_SPIRV)
/* the device targets compile kernel files as C++ (kkcc may preprocess the
 * source NVRTC gets as C: the target, not __cplusplus, decides) */
#define KK__RAND_OVERLOADS(G)                                                                                   \
  KK__FN uint64_t kk_random_u64(G *g) { return kk__rand_u64_##G(g); }                                           \
  KK__FN uint32_t kk_random_u32(G *g) { return kk__rand_u32_##G(g); }                                           \
  KK__FN double kk_random_double(G *g) { return kk__rand_double_##G(g); }                                       \
  KK__FN float kk_random_float(G *g) { return kk__rand_float_##G(g); }                                          \
  KK__FN uint64_t kk_random_below(G *g, uint64_t n) { return kk__rand_below_##G(g, n); }                        \
  KK__FN double kk_random_range(G *g, double a, double b) { return kk__rand_range_##G(g, a, b); }               \
  KK__FN float kk_random_range_float(G *g, float a, float b) { return kk__rand_rangef_##G(g, a, b); }           \
  KK__FN double kk_random_normal(G *g, double m, double s) { return kk__rand_normal_##G(g, m, s); }
KK__RAND_OVERLOADS(kk_random_xorshift64)
KK__RAND_OVERLOADS(kk_random_xorshift1024)
KK__RAND_OVERLOADS(kk_random_philox)
KK__FN kk_random_xorshift64 kk__rand_acquire(const kk_random_xorshift64_pool *p, uint64_t f) {
  return kk__rand_acquire_xs64(&p->d, f);
}
KK__FN kk_random_xorshift1024 kk__rand_acquire(const kk_random_xorshift1024_pool *p, uint64_t f) {
  return kk__rand_acquire_xs1024(&p->d, f);
}
KK__FN kk_random_philox kk__rand_acquire(const kk_random_philox_pool *p, uint64_t f) {
  return kk__rand_acquire_philox(&p->d, f);
}
KK__FN void kk__rand_release(const kk_random_xorshift64_pool *p, const kk_random_xorshift64 *g) {
  kk__rand_release_xs64(&p->d, g);
}
KK__FN void kk__rand_release(const kk_random_xorshift1024_pool *p, const kk_random_xorshift1024 *g) {
  kk__rand_release_xs1024(&p->d, g);
}
KK__FN void kk__rand_release(const kk_random_philox_pool *p, const kk_random_philox *g) {
  kk__rand_release_philox(&p->d, g);
}
#define kk_random_acquire(pool) kk__rand_acquire(&(pool), KK__RAND_SLOT())
#define kk_random_release(pool, g) kk__rand_release(&(pool), (g))
#else
#define KK__RAND_G(g, f)                                                                                        \
  _Generic((g), kk_random_xorshift64 *: kk__rand_##f##_kk_random_xorshift64,                                  \
           kk_random_xorshift1024 *: kk__rand_##f##_kk_random_xorshift1024,                                   \
           kk_random_philox *: kk__rand_##f##_kk_random_philox)
#define kk_random_u64(g) KK__RAND_G(g, u64)(g)
#define kk_random_u32(g) KK__RAND_G(g, u32)(g)
#define kk_random_double(g) KK__RAND_G(g, double)(g)
#define kk_random_float(g) KK__RAND_G(g, float)(g)
#define kk_random_below(g, n) KK__RAND_G(g, below)((g), (n))
#define kk_random_range(g, a, b) KK__RAND_G(g, range)((g), (a), (b))
#define kk_random_range_float(g, a, b) KK__RAND_G(g, rangef)((g), (a), (b))
#define kk_random_normal(g, m, s) KK__RAND_G(g, normal)((g), (m), (s))
#define kk_random_acquire(pool)                                                                                 \
  _Generic((pool), kk_random_xorshift64_pool: kk__rand_acquire_xs64,                                          \
           kk_random_xorshift1024_pool: kk__rand_acquire_xs1024,                                              \
           kk_random_philox_pool: kk__rand_acquire_philox)(&(pool).d, KK__RAND_SLOT())
#define kk_random_release(pool, g)                                                                              \
  _Generic((pool), kk_random_xorshift64_pool: kk__rand_release_xs64,                                          \
           kk_random_xorshift1024_pool: kk__rand_release_xs1024,                                              \
           kk_random_philox_pool: kk__rand_release_philox)(&(pool).d, (g))
#endif
#endif /* KK_KERNEL_H */
#endif /* KK_RANDOM_H */
