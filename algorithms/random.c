/* algorithms/random.c -- random-number pools (create, seed, bind) and fill_random. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

KK_DECLARE_KERNEL(kka_rseed_xs64);
KK_DECLARE_KERNEL(kka_rseed_xs1024);
KK_DECLARE_KERNEL(kka_rseed_philox);
KK_DECLARE_KERNEL(kka_rfill_xs64);
KK_DECLARE_KERNEL(kka_rfill_xs1024);
KK_DECLARE_KERNEL(kka_rfill_philox);
KK_DECLARE_KERNEL(kka_rfill_philox_v);

struct kk_random_pool_obj {
  kk_random_kind_t kind;
  kka_call_t c;         /* the instance and space the pool lives on */
  kk__rpool_desc d;     /* states and locks (one allocation), count, seed */
  kk_view_t *mem;       /* holds the states and locks (kka_keep) */
  uint64_t fill_block;  /* Philox: the next block of the fill stream */
  uint64_t init_id;     /* the initialization it was made in (kka_live) */
};

static const char *kind_name(int kind) {
  switch (kind) {
  case KK_RANDOM_XORSHIFT64:
    return "xorshift64";
  case KK_RANDOM_XORSHIFT1024:
    return "xorshift1024";
  case KK_RANDOM_PHILOX:
    return "philox";
  default:
    return "unknown";
  }
}

static kk_status_t seed_states(kk_random_pool_t *p) {
  struct kka_rseed_args a;
  memset(&a, 0, sizeof a);
  a.p = p->d;
  const kk_kernel_t *k = p->kind == KK_RANDOM_XORSHIFT64     ? KK_KERNEL(kka_rseed_xs64)
                         : p->kind == KK_RANDOM_XORSHIFT1024 ? KK_KERNEL(kka_rseed_xs1024)
                                                             : KK_KERNEL(kka_rseed_philox);
  p->fill_block = 0;
  kk_status_t st = kka_for(&p->c, k, &a, sizeof a, p->d.num_states);
  return st != KK_OK ? st : kk_instance_fence(p->c.inst);
}

kk_status_t kk_random_pool_create(kk_instance_t *instance, kk_random_kind_t kind, uint64_t seed, int64_t num_states,
                                  kk_random_pool_t **out) {
  kka_call_t c;
  kk_status_t st = kka_begin(&c, "kk_random_pool_create", instance, 0, NULL, NULL);
  if (st != KK_OK)
    return st;
  if ((st = kka_check_ptr(&c, out, "out")) != KK_OK)
    return st;
  *out = NULL;
  if (KKA_UNLIKELY(kind != KK_RANDOM_XORSHIFT64 && kind != KK_RANDOM_XORSHIFT1024 && kind != KK_RANDOM_PHILOX))
    return kka_err(KK_ERROR_INVALID_ARGUMENT,
                   "kk_random_pool_create: kind %d is not KK_RANDOM_XORSHIFT64, KK_RANDOM_XORSHIFT1024 or "
                   "KK_RANDOM_PHILOX",
                   (int)kind);
  if (KKA_UNLIKELY(num_states < 0))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_random_pool_create: num_states %lld is negative (0: the device's "
                   "concurrency)", (long long)num_states);
  if (num_states == 0)
    num_states = kka_concurrency(&c);
  const int64_t words = KK__RAND_WORDS(kind);
  if (KKA_UNLIKELY(num_states > (int64_t)1 << 40))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_random_pool_create: %lld slots is more than 2^40",
                   (long long)num_states);
  kk_random_pool_t *p = calloc(1, sizeof *p);
  if (!p)
    return kka_err(KK_ERROR_OUT_OF_MEMORY, "kk_random_pool_create: out of host memory");
  p->kind = kind;
  p->c = c;
  p->init_id = kk_initialization_id();
  const size_t state_bytes = (size_t)num_states * (size_t)words * 8, lock_bytes = (size_t)num_states * 4;
  char *mem = kka_keep(&p->c, "states", state_bytes + lock_bytes, &p->mem);
  if (!mem) {
    free(p);
    return kk_last_status();
  }
  p->d.states = (uint64_t *)mem;
  p->d.locks = (uint32_t *)(mem + state_bytes);
  p->d.num_states = num_states;
  p->d.seed = seed;
  p->d.kind = (int32_t)kind;
  if ((st = seed_states(p)) != KK_OK) {
    kka_keep_free(&p->c, &p->mem);
    free(p);
    return st;
  }
  *out = p;
  return KK_OK;
}

void kk_random_pool_destroy(kk_random_pool_t *pool) {
  if (!pool)
    return;
  /* a pool from before kk_finalize: kk_finalize freed its memory, the
   * release frees the view's record */
  if (kka_is_live(pool->init_id))
    (void)kk_instance_fence(pool->c.inst);
  kk_view_release(pool->mem);
  free(pool);
}

kk_status_t kk_random_pool_reseed(kk_random_pool_t *pool, uint64_t seed) {
  if (KKA_UNLIKELY(!pool))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "kk_random_pool_reseed: pool is NULL");
  kk_status_t st = kka_live("kk_random_pool_reseed", pool->init_id, "the pool", "");
  if (st != KK_OK)
    return st;
  pool->d.seed = seed;
  return seed_states(pool);
}

/* A pool from before kk_finalize answers as NULL does. */
kk_random_kind_t kk_random_pool_kind(const kk_random_pool_t *pool) {
  return pool && kka_is_live(pool->init_id) ? pool->kind : (kk_random_kind_t)0;
}
int64_t kk_random_pool_size(const kk_random_pool_t *pool) {
  return pool && kka_is_live(pool->init_id) ? pool->d.num_states : 0;
}
kk_instance_t *kk_random_pool_instance(const kk_random_pool_t *pool) {
  return pool && kka_is_live(pool->init_id) ? pool->c.inst : NULL;
}

/* The descriptor of a pool of the wanted kind, or an empty one (num_states
 * 0: acquires give slot -1) with the error recorded. */
static kk__rpool_desc bind(kk_random_pool_t *pool, kk_random_kind_t want, const char *fn) {
  kk__rpool_desc d;
  memset(&d, 0, sizeof d);
  if (KKA_UNLIKELY(!pool)) {
    (void)kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: pool is NULL", fn);
    return d;
  }
  if (KKA_UNLIKELY(kka_live(fn, pool->init_id, "the pool", "") != KK_OK)) {
    d.kind = (int32_t)want;
    return d;
  }
  if (KKA_UNLIKELY(pool->kind != want)) {
    (void)kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: the pool is of kind %s, not %s; its acquires would fail", fn,
                  kind_name(pool->kind), kind_name(want));
    d.kind = (int32_t)want;
    return d;
  }
  return pool->d;
}

kk_random_xorshift64_pool kk_random_bind_xorshift64(kk_random_pool_t *pool) {
  kk_random_xorshift64_pool p = {bind(pool, KK_RANDOM_XORSHIFT64, "kk_random_bind_xorshift64")};
  return p;
}
kk_random_xorshift1024_pool kk_random_bind_xorshift1024(kk_random_pool_t *pool) {
  kk_random_xorshift1024_pool p = {bind(pool, KK_RANDOM_XORSHIFT1024, "kk_random_bind_xorshift1024")};
  return p;
}
kk_random_philox_pool kk_random_bind_philox(kk_random_pool_t *pool) {
  kk_random_philox_pool p = {bind(pool, KK_RANDOM_PHILOX, "kk_random_bind_philox")};
  return p;
}

/* ---- fill_random ---------------------------------------------------------------------------- */

/* The lowest and highest value of an integer type, as doubles (exact for
 * the bounds that matter: the 64-bit ones are 2^63 and 2^64, powers of 2). */
static void int_bounds(kk_type_t t, double *lo, double *hi) {
  const int bits = (int)kka_tsize(t) * 8;
  if (kka_is_signed(t)) {
    *lo = -ldexp(1.0, bits - 1);
    *hi = ldexp(1.0, bits - 1) - 1.0;
  } else {
    *lo = 0.0;
    *hi = ldexp(1.0, bits) - 1.0;
  }
}

/* The xorshift64* jump table (KKA_JUMP_WORDS in args.h): matrix i, over
 * GF(2), advances a state by 2^i steps; its column j is the state that
 * state bit j alone becomes.  xorshift's step is linear, so column j of
 * matrix 0 is one step of 1 << j, and matrix i + 1 is matrix i squared.
 * Made once per process (about 0.2 ms), read by every host fill. */
static uint64_t g_jump[KKA_JUMP_WORDS];
static pthread_once_t g_jump_once = PTHREAD_ONCE_INIT;
/* The last-level cache's size (32 MiB where the C library does not say). */
static int64_t g_llc_bytes;

static uint64_t jump_apply(const uint64_t *m, uint64_t x) {
  uint64_t r = 0;
  for (int j = 0; j < 64; j++)
    r ^= m[j] & (0 - ((x >> j) & 1));
  return r;
}
static void jump_make(void) {
  long llc = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
  llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  g_llc_bytes = llc > 0 ? (int64_t)llc : (int64_t)32 << 20;
  for (int j = 0; j < 64; j++) {
    uint64_t x = (uint64_t)1 << j;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    g_jump[j] = x;
  }
  for (int i = 1; i < 64; i++)
    for (int j = 0; j < 64; j++)
      g_jump[64 * i + j] = jump_apply(g_jump + 64 * (i - 1), g_jump[64 * (i - 1) + j]);
}
static const uint64_t *jump_table(void) {
  (void)pthread_once(&g_jump_once, jump_make);
  return g_jump;
}
/* Host xorshift64* fills of at least this many bytes store past the caches
 * (docs/algorithms.md): KK_FILL_STREAM_BYTES when it is a number >= 0, read
 * at each fill, else the last-level cache's size, since a fill larger than
 * that cache leaves its first part out of it anyway.  After jump_table(). */
static int64_t stream_bytes(void) {
  const char *e = getenv("KK_FILL_STREAM_BYTES");
  if (e && *e) {
    char *end;
    const long long v = strtoll(e, &end, 10);
    if (*end == '\0' && v >= 0)
      return (int64_t)v;
  }
  return g_llc_bytes;
}

static kk_status_t fill(const char *op, kk_instance_t *instance, kk_view_t *view, kk_random_pool_t *pool, double a,
                        double b, int normal) {
  kka_call_t c;
  kk_view_t *views[1] = {view};
  const char *names[1] = {"view"};
  if (KKA_UNLIKELY(!pool))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: pool is NULL", op);
  kk_status_t st = kka_live(op, pool->init_id, "the pool", "");
  if (st != KK_OK)
    return st;
  st = kka_begin(&c, op, instance ? instance : pool->c.inst, 1, views, names);
  if (st != KK_OK)
    return st;
  if (KKA_UNLIKELY(c.inst != pool->c.inst))
    return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: the instance is not the pool's (backend %s); pass NULL or the "
                   "pool's instance", op, kk_instance_backend(pool->c.inst));
  if ((st = kka_check_arith(&c, view, "view")) != KK_OK)
    return st;
  const kk_type_t t = kk_view_type(view);
  struct kka_rfill_args args;
  memset(&args, 0, sizeof args);
  args.p = pool->d;
  args.v = kka_desc(view);
  args.n = (int64_t)kk_view_size(view);
  args.type = (int32_t)t;
  args.contig = kk_view_span_is_contiguous(view) && (kk_view_rank(view) <= 1 || kk_view_layout(view) == KK_LAYOUT_RIGHT);
  args.normal = normal;
  if (normal) {
    if (KKA_UNLIKELY(!kka_is_float(t)))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: view %s has element type %s; normal numbers need float or double",
                     op, kka_label(view), kk_type_name(t));
    if (KKA_UNLIKELY(!(b >= 0.0) || !isfinite(a) || !isfinite(b)))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: mean %g and standard deviation %g: need finite values and a "
                     "standard deviation >= 0", op, a, b);
    args.a = a;
    args.b = b;
  } else if (kka_is_float(t)) {
    if (a == 0.0 && b == 0.0)
      b = 1.0;
    if (KKA_UNLIKELY(!(a < b) || !isfinite(a) || !isfinite(b) || (t == KK_FLOAT && (fabs(a) > 3.4e38 || fabs(b) > 3.4e38))))
      return kka_err(KK_ERROR_INVALID_ARGUMENT, "%s: the range [%g, %g) is empty, inverted or not finite in %s", op, a,
                     b, kk_type_name(t));
    args.a = a;
    args.b = b;
  } else if (!(a == 0.0 && b == 0.0)) {
    double lo, hi;
    int_bounds(t, &lo, &hi);
    const double first = ceil(a);
    /* the integers in [a, b): first .. last */
    const double last = ceil(b) - 1.0;
    if (KKA_UNLIKELY(!(first <= last) || first < lo || last > hi || !isfinite(a) || !isfinite(b)))
      return kka_err(KK_ERROR_INVALID_ARGUMENT,
                     "%s: the range [%g, %g) holds no integer, or one outside %s [%.0f, %.0f]", op, a, b,
                     kk_type_name(t), lo, hi);
    const double count = last - first + 1.0; /* up to 2^64, exact as a power of 2 only: see below */
    args.ilo = first < 0 ? (uint64_t)(int64_t)first : (uint64_t)first;
    args.irange = count >= 18446744073709551616.0 ? 0 : (uint64_t)count;
  }
  const int64_t n = args.n;
  if (n == 0)
    return KK_OK;
  if (pool->kind == KK_RANDOM_PHILOX) {
    const int per = kka_tsize(t) == 8 || (normal && t == KK_DOUBLE) ? 2 : 4;
    const int64_t blocks = (n + per - 1) / per;
    args.per = per;
    args.offset = pool->fill_block;
    pool->fill_block += (uint64_t)blocks;
    /* whole blocks of a contiguous, 16-byte aligned view of uniform numbers
     * of 4 or 8 bytes: one 16-byte store each; the rest (a last partial
     * block, other views) element by element */
    const int vec_type = t == KK_DOUBLE || t == KK_FLOAT || t == KK_INT32 || t == KK_UINT32 || t == KK_INT64 ||
                         t == KK_UINT64;
    const int64_t whole = n / per;
    if (args.contig && !normal && vec_type && (uintptr_t)args.v.d.data % 16 == 0 && whole > 0) {
      kk_status_t st = kka_for(&c, KK_KERNEL(kka_rfill_philox_v), &args, sizeof args, whole);
      if (st != KK_OK || whole == blocks)
        return st;
      args.v.d.data = (char *)args.v.d.data + whole * per * (int64_t)kka_tsize(t);
      args.n = n - whole * per;
      args.offset += (uint64_t)whole;
      return kka_for(&c, KK_KERNEL(kka_rfill_philox), &args, sizeof args, 1);
    }
    return kka_for(&c, KK_KERNEL(kka_rfill_philox), &args, sizeof args, blocks);
  }
  const int64_t ns = pool->d.num_states;
  args.blocked = c.host;
  args.per = (n + ns - 1) / ns;
  if (c.host && pool->kind == KK_RANDOM_XORSHIFT64 && args.per >= KKA_LANE_MIN) {
    args.jump = jump_table();
    const int64_t es = (int64_t)kka_tsize(t);
    args.stream = args.contig && (es == 4 || es == 8) && n * es >= stream_bytes();
  }
  const kk_kernel_t *k = pool->kind == KK_RANDOM_XORSHIFT64 ? KK_KERNEL(kka_rfill_xs64) : KK_KERNEL(kka_rfill_xs1024);
  /* blocked: only the slots that have elements */
  const int64_t slots = args.blocked ? (n + args.per - 1) / args.per : (ns < n ? ns : n);
  return args.blocked ? kka_for(&c, k, &args, sizeof args, slots) : kka_for(&c, k, &args, sizeof args, slots);
}

kk_status_t kk_fill_random(kk_instance_t *instance, kk_view_t *view, kk_random_pool_t *pool, double begin,
                           double end) {
  return fill("kk_fill_random", instance, view, pool, begin, end, 0);
}

kk_status_t kk_fill_random_normal(kk_instance_t *instance, kk_view_t *view, kk_random_pool_t *pool, double mean,
                                  double stddev) {
  return fill("kk_fill_random_normal", instance, view, pool, mean, stddev, 1);
}
