/* kk/unordered_map.h -- UnorderedMap in kernels: insert, find, exists, valid_at, key_at, value_at on every target (kernel language). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_UNORDERED_MAP_H
#define KK_UNORDERED_MAP_H

/*
 * Include it in a kernel file after <kk/kernel.h>.  The map arrives as a
 * kk_unordered_map member of the argument struct (kk_unordered_map_bind on
 * the host); every macro takes that member (an lvalue such as args->map):
 *
 *   kk_umap_insert_result KK_UMAP_INSERT(m, key)
 *   kk_umap_insert_result KK_UMAP_INSERT_VALUE(m, key, &value)
 *   int64_t               KK_UMAP_FIND(m, key)         slot, or KK_INVALID_INDEX
 *   int                   KK_UMAP_EXISTS(m, key)
 *   ...                   _BYTES(m, &key, ...)         the same with the key by address
 *   int                   KK_UMAP_VALID_AT(m, i)       slot i holds an entry
 *   T (lvalue)            KK_UMAP_KEY_AT(m, T, i)      slot i's key / value, as KK_AT
 *   T (lvalue)            KK_UMAP_VALUE_AT(m, T, i)      (bounds checked under --bounds-check)
 *   int64_t               KK_UMAP_SLOTS(m)             the slot count (iterate valid_at over it)
 *
 * Integer keys are converted to the map's key type as C converts integers
 * (pass any integer expression); a map of byte keys takes its keys by
 * address only (the _BYTES forms, which work on integer maps too, reading
 * key_size bytes).  A value is passed by address and must be of the map's
 * value size; KK_UMAP_INSERT leaves a new slot's value as it is (zero after
 * creation or clear), so that "insert, then update the value atomically"
 * counts every update:
 *
 *   kk_umap_insert_result r = KK_UMAP_INSERT(args->counts, key);
 *   if (r.status != KK_UMAP_FAILED) kk_atomic_add(&KK_UMAP_VALUE_AT(args->counts, int64_t, r.index), 1);
 *
 * Concurrency: any number of threads may insert and find at once, the same
 * keys included: each key ends in exactly one slot, its inserts return
 * KK_UMAP_SUCCESS once and KK_UMAP_EXISTING for the others.  An insert with
 * a value writes the value before the key becomes visible, so a thread told
 * KK_UMAP_EXISTING may read the value with kk_atomic_load or update it with
 * atomics in the same launch.  A find that runs while its key is being
 * inserted may miss it; finds and plain reads of values see every insert of
 * earlier launches.  A key or value of the wrong size makes the operation
 * fail and is reported by kk_unordered_map_failed_inserts on the host.
 * docs/containers.md says how the probing works and what it costs.
 */

#ifndef KK_KERNEL_H
#error "include <kk/kernel.h> before <kk/unordered_map.h>"
#endif

#include <kk/containers.h>

/* ---- helpers ---------------------------------------------------------------------------- */

/* The per-key operations, inlined into the kernel's loop on every target:
 * KK__FN is only a hint on host targets, and a compiler that keeps the
 * probing loop out of line pays a call, a returned struct and the value
 * through memory per key (the hand-written table pays none). */
#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || defined(KK_TARGET_SPIRV) || !defined(__GNUC__)
#define KK__UMAP_FN KK__FN
#else
#define KK__UMAP_FN static inline __attribute__((always_inline))
#endif

/* A 64-bit finalizer (MurmurHash3's fmix64): every key bit moves the home slot. */
KK__UMAP_FN uint64_t kk__umap_mix(uint64_t h) {
  h ^= h >> 33;
  h *= (uint64_t)0xff51afd7ed558ccdu;
  h ^= h >> 33;
  h *= (uint64_t)0xc4ceb9fe1a85ec53u;
  h ^= h >> 33;
  return h;
}
/* The home slot of hash h among n hashed slots (n <= 2^32): the high 32 bits scaled. */
KK__UMAP_FN uint64_t kk__umap_home(uint64_t h, uint64_t n) { return ((h >> 32) * n) >> 32; }

/* A load the compiler must make every time (a slot another thread may be
 * writing), ordering nothing: relaxed atomics on the host (plain loads,
 * and what a thread sanitizer understands), volatile on the devices. */
#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || defined(KK_TARGET_SPIRV)
KK__FN uint64_t kk__umap_vload64(const uint64_t *p) { return *(const volatile uint64_t *)p; }
KK__FN uint32_t kk__umap_vload32(const uint32_t *p) { return *(const volatile uint32_t *)p; }
#else
KK__FN uint64_t kk__umap_vload64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
KK__FN uint32_t kk__umap_vload32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
#endif
/* What a find reads: it sees the inserts of earlier launches, so plain
 * (cached) loads on the devices, where volatile ones would skip L1. */
#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || defined(KK_TARGET_SPIRV)
KK__FN uint64_t kk__umap_fload64(const uint64_t *p) { return *p; }
KK__FN uint32_t kk__umap_fload32(const uint32_t *p) { return *p; }
#else
#define kk__umap_fload64 kk__umap_vload64
#define kk__umap_fload32 kk__umap_vload32
#endif

/* After the word at p (a key, a tag, a reserved slot's state) was seen
 * full, before what its writer wrote first is read (a byte key's bytes, the
 * value of a key found "existing"): acquire order, pairing with the
 * writer's release store of that word -- on the host an acquire load of it
 * again (what C11 and a thread sanitizer understand), on the devices a
 * fence. */
#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP)
#define KK__UMAP_ACQUIRE(p) ((void)(p), __threadfence())
#elif defined(KK_TARGET_SPIRV)
#define KK__UMAP_ACQUIRE(p) \
  ((void)(p), atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device))
#else
#define KK__UMAP_ACQUIRE(p) ((void)__atomic_load_n((p), __ATOMIC_ACQUIRE))
#endif

/* n bytes from s to d, in the widest words both addresses allow (on the
 * host the compiler's memcpy: one move where n is a constant, and the
 * source -- often a local -- stays in a register, as its address is not
 * inspected). */
KK__UMAP_FN void kk__umap_copy(void *d, const void *s, uint32_t n) {
#if !defined(KK_TARGET_CUDA) && !defined(KK_TARGET_HIP) && !defined(KK_TARGET_SPIRV) && defined(__GNUC__)
  __builtin_memcpy(d, s, n);
  return;
#endif
  const uint64_t a = (uint64_t)(uintptr_t)d | (uint64_t)(uintptr_t)s;
  if ((n & 7u) == 0 && (a & 7u) == 0) {
    for (uint32_t i = 0; i < n / 8; i++)
      ((uint64_t *)d)[i] = ((const uint64_t *)s)[i];
  } else if ((n & 3u) == 0 && (a & 3u) == 0) {
    for (uint32_t i = 0; i < n / 4; i++)
      ((uint32_t *)d)[i] = ((const uint32_t *)s)[i];
  } else {
    for (uint32_t i = 0; i < n; i++)
      ((unsigned char *)d)[i] = ((const unsigned char *)s)[i];
  }
}

KK__FN int kk__umap_equal(const void *a, const void *b, uint32_t n) {
  int eq = 1;
  for (uint32_t i = 0; i < n; i++)
    eq &= ((const unsigned char *)a)[i] == ((const unsigned char *)b)[i];
  return eq;
}

/* Records the first misuse (kind 1: a key, 2: a value, of `bytes` bytes). */
KK__FN kk_umap_insert_result kk__umap_misuse(const kk_unordered_map *m, uint32_t kind, uint32_t bytes) {
  (void)kk_atomic_compare_exchange(&m->ctl->misuse, 0u, (kind << 16) | (bytes & 0xffffu));
  kk_umap_insert_result r;
  r.index = KK_INVALID_INDEX;
  r.status = KK_UMAP_FAILED;
  r.reserved_ = 0;
  return r;
}

KK__UMAP_FN kk_umap_insert_result kk__umap_result(int64_t index, int32_t status) {
  kk_umap_insert_result r;
  r.index = index;
  r.status = status;
  r.reserved_ = 0;
  return r;
}

KK__FN kk_umap_insert_result kk__umap_failed(const kk_unordered_map *m) {
  kk_atomic_add(&m->ctl->failed, (uint64_t)1);
  return kk__umap_result(KK_INVALID_INDEX, KK_UMAP_FAILED);
}

/* Where the two reserved slots start: after the hashed slots and the probe
 * tail (see kk_unordered_map in kk/containers.h). */
KK__FN uint64_t kk__umap_reserved_at(const kk_unordered_map *m) { return m->hashed + m->max_probe; }

/* One of the two keys whose bits mark empty and busy slots, in its
 * reserved slot, claimed through a state word. */
KK__FN kk_umap_insert_result kk__umap_insert_reserved(const kk_unordered_map *m, uint32_t r, const void *key,
                                                      uint32_t ksize, const void *v) {
  uint32_t *state = &m->ctl->reserved[r];
  const int64_t slot = (int64_t)(kk__umap_reserved_at(m) + r);
  int32_t status = KK_UMAP_FAILED;
  while (status == KK_UMAP_FAILED) { /* every path ends its step here: safe under warp divergence */
    const uint32_t s = kk__umap_vload32(state);
    if (s == 2u) {
      KK__UMAP_ACQUIRE(state);
      status = KK_UMAP_EXISTING;
    } else if (s == 0u && kk_atomic_compare_exchange(state, 0u, 1u) == 0u) {
      kk__umap_copy((char *)m->keys.d.data + (uint64_t)slot * ksize, key, ksize);
      if (v && m->value_size)
        kk__umap_copy((char *)m->values.d.data + (uint64_t)slot * m->value_size, v, m->value_size);
      kk_atomic_store(state, 2u);
      status = KK_UMAP_SUCCESS;
    }
  }
  return kk__umap_result(slot, status);
}

/* Inserts of 4- and 8-byte keys (v: the value, vs its size, the map's --
 * a constant where the caller's macro gives it, so that the copy is one
 * store): the key word itself is claimed, from EMPTY to the key (a set) or
 * to BUSY while the value is written, then the key is stored with release
 * order.  A thread that sees BUSY reads the slot again: its writer finishes
 * within its own step of the loop, so waiting never depends on a thread
 * that cannot run (GPU warps, PoCL's work-item loops).  An insert looks at
 * max_probe slots from the home slot, straight on into the tail past the
 * hashed slots (no wrapping around), so a find stops at the first empty
 * slot without counting: the last slot of the tail is never written. */
#define KK__UMAP_WORD(W, K)                                                                                     \
  KK__UMAP_FN kk_umap_insert_result kk__umap_insert_##W(const kk_unordered_map *m, K k, const void *v,          \
                                                        uint32_t vs) {                                          \
    const K empty = (K)~(K)0, busy = (K)(empty - 1u);                                                           \
    if (k >= busy)                                                                                              \
      return kk__umap_insert_reserved(m, k == empty ? 0u : 1u, &k, (uint32_t)sizeof(K), v);                     \
    K *keys = (K *)m->keys.d.data;                                                                              \
    uint64_t i = kk__umap_home(kk__umap_mix((uint64_t)k), m->hashed);                                           \
    const uint64_t stop = i + m->max_probe;                                                                     \
    const K claim = v && vs ? busy : k;                                                                         \
    int32_t status = 0;                                                                                         \
    while (status == 0) {                                                                                       \
      const K cur = kk__umap_vload##W(&keys[i]);                                                                \
      if (cur == k) {                                                                                           \
        status = KK_UMAP_EXISTING;                                                                              \
      } else if (cur == empty) {                                                                                \
        const K seen = kk_atomic_compare_exchange(&keys[i], empty, claim);                                      \
        if (seen == empty) {                                                                                    \
          if (claim == busy) {                                                                                  \
            kk__umap_copy((char *)m->values.d.data + i * vs, v, vs);                                            \
            kk_atomic_store(&keys[i], k);                                                                       \
          }                                                                                                     \
          status = KK_UMAP_SUCCESS;                                                                             \
        } else if (seen == k) {                                                                                 \
          status = KK_UMAP_EXISTING;                                                                            \
        } /* else another key took the slot: look at it again */                                                \
      } else if (cur != busy && ++i == stop) {                                                                  \
        status = -1;                                                                                            \
      }                                                                                                         \
    }                                                                                                           \
    if (status < 0)                                                                                             \
      return kk__umap_failed(m);                                                                                \
    if (status == KK_UMAP_EXISTING && m->value_size)                                                            \
      KK__UMAP_ACQUIRE(&keys[i]); /* the value written before the key was published */                          \
    return kk__umap_result((int64_t)i, status);                                                                 \
  }                                                                                                             \
  KK__UMAP_FN int64_t kk__umap_find_##W(const kk_unordered_map *m, K k) {                                       \
    const K empty = (K)~(K)0, busy = (K)(empty - 1u);                                                           \
    if (k >= busy) {                                                                                            \
      const uint32_t r = k == empty ? 0u : 1u;                                                                  \
      return kk__umap_vload32(&m->ctl->reserved[r]) == 2u ? (int64_t)(kk__umap_reserved_at(m) + r)             \
                                                            : KK_INVALID_INDEX;                                 \
    }                                                                                                           \
    const K *keys = (const K *)m->keys.d.data;                                                                  \
    uint64_t i = kk__umap_home(kk__umap_mix((uint64_t)k), m->hashed);                                           \
    K cur;                                                                                                      \
    while ((cur = kk__umap_fload##W(&keys[i])) != k && cur != empty)                                           \
      i++;                                                                                                      \
    return cur == k ? (int64_t)i : KK_INVALID_INDEX;                                                            \
  }
KK__UMAP_WORD(32, uint32_t)
KK__UMAP_WORD(64, uint64_t)

/* Keys of other sizes: a tag per slot (0 empty, 1 being written, else the
 * key's hash bits with bit 1 set), claimed before the key and value are
 * written and set with release order after them; the same probing. */
KK__FN uint64_t kk__umap_hash_bytes(const void *key, uint32_t n) {
  uint64_t h = (uint64_t)0xcbf29ce484222325u;
  for (uint32_t i = 0; i < n; i++)
    h = (h ^ ((const unsigned char *)key)[i]) * (uint64_t)0x100000001b3u;
  return kk__umap_mix(h);
}

KK__FN kk_umap_insert_result kk__umap_insert_tagged(const kk_unordered_map *m, const void *key, const void *v) {
  const uint32_t ks = m->key_size;
  const uint64_t h = kk__umap_hash_bytes(key, ks);
  const uint32_t tag = (uint32_t)h | 2u;
  uint64_t i = kk__umap_home(h, m->hashed);
  const uint64_t stop = i + m->max_probe;
  int32_t status = 0;
  while (status == 0) {
    const uint32_t t = kk__umap_vload32(&m->tags[i]);
    if (t == 0u) {
      if (kk_atomic_compare_exchange(&m->tags[i], 0u, 1u) == 0u) {
        kk__umap_copy((char *)m->keys.d.data + i * ks, key, ks);
        if (v && m->value_size)
          kk__umap_copy((char *)m->values.d.data + i * m->value_size, v, m->value_size);
        kk_atomic_store(&m->tags[i], tag);
        status = KK_UMAP_SUCCESS;
      }
    } else if (t != 1u) {
      if (t == tag)
        KK__UMAP_ACQUIRE(&m->tags[i]); /* the key's bytes were written before its tag */
      if (t == tag && kk__umap_equal((const char *)m->keys.d.data + i * ks, key, ks))
        status = KK_UMAP_EXISTING;
      else if (++i == stop)
        status = -1;
    }
  }
  if (status < 0)
    return kk__umap_failed(m);
  return kk__umap_result((int64_t)i, status);
}

KK__FN int64_t kk__umap_find_tagged(const kk_unordered_map *m, const void *key) {
  const uint32_t ks = m->key_size;
  const uint64_t h = kk__umap_hash_bytes(key, ks);
  const uint32_t tag = (uint32_t)h | 2u;
  uint64_t i = kk__umap_home(h, m->hashed);
  int64_t found = KK_INVALID_INDEX;
  for (;;) {
    const uint32_t t = kk__umap_vload32(&m->tags[i]);
    if (t == 0u)
      break;
    if (t == tag) {
      KK__UMAP_ACQUIRE(&m->tags[i]); /* the key's bytes were written before its tag */
      if (kk__umap_equal((const char *)m->keys.d.data + i * ks, key, ks)) {
        found = (int64_t)i;
        break;
      }
    }
    i++;
  }
  return found;
}

/* ---- the operations ------------------------------------------------------------------------ */

/* An integer key (converted to the map's key type); vsize: sizeof the value
 * passed, 0 for none. */
KK__UMAP_FN kk_umap_insert_result kk__umap_insert_int(const kk_unordered_map *m, uint64_t key, const void *v,
                                                      uint32_t vsize) {
  if (v && vsize != m->value_size)
    return kk__umap_misuse(m, 2u, vsize);
  if (!v)
    vsize = 0;
  if (m->key_size == 8u)
    return kk__umap_insert_64(m, key, v, vsize);
  if (m->key_size == 4u)
    return kk__umap_insert_32(m, (uint32_t)key, v, vsize);
  return kk__umap_misuse(m, 1u, 8u);
}

KK__UMAP_FN int64_t kk__umap_find_int(const kk_unordered_map *m, uint64_t key) {
  if (m->key_size == 8u)
    return kk__umap_find_64(m, key);
  if (m->key_size == 4u)
    return kk__umap_find_32(m, (uint32_t)key);
  (void)kk__umap_misuse(m, 1u, 8u);
  return KK_INVALID_INDEX;
}

/* A key by address (ksize: sizeof what it points to). */
KK__FN kk_umap_insert_result kk__umap_insert_bytes(const kk_unordered_map *m, const void *key, uint32_t ksize,
                                                   const void *v, uint32_t vsize) {
  if (ksize != m->key_size)
    return kk__umap_misuse(m, 1u, ksize);
  if (v && vsize != m->value_size)
    return kk__umap_misuse(m, 2u, vsize);
  if (!v)
    vsize = 0;
  if (ksize == 8u) {
    uint64_t k;
    kk__umap_copy(&k, key, 8u);
    return kk__umap_insert_64(m, k, v, vsize);
  }
  if (ksize == 4u) {
    uint32_t k;
    kk__umap_copy(&k, key, 4u);
    return kk__umap_insert_32(m, k, v, vsize);
  }
  return kk__umap_insert_tagged(m, key, v);
}

KK__FN int64_t kk__umap_find_bytes(const kk_unordered_map *m, const void *key, uint32_t ksize) {
  if (ksize != m->key_size) {
    (void)kk__umap_misuse(m, 1u, ksize);
    return KK_INVALID_INDEX;
  }
  if (ksize == 8u) {
    uint64_t k;
    kk__umap_copy(&k, key, 8u);
    return kk__umap_find_64(m, k);
  }
  if (ksize == 4u) {
    uint32_t k;
    kk__umap_copy(&k, key, 4u);
    return kk__umap_find_32(m, k);
  }
  return kk__umap_find_tagged(m, key);
}

KK__FN int kk__umap_valid_at(const kk_unordered_map *m, int64_t i) {
  if (i < 0 || (uint64_t)i >= m->capacity)
    return 0;
  const uint64_t u = (uint64_t)i;
  if (m->tags)
    return kk__umap_vload32(&m->tags[u]) >= 2u;
  if (u >= kk__umap_reserved_at(m))
    return kk__umap_vload32(&m->ctl->reserved[u - kk__umap_reserved_at(m)]) == 2u;
  if (m->key_size == 8u) {
    const uint64_t k = kk__umap_vload64((const uint64_t *)m->keys.d.data + u);
    return k < ~(uint64_t)0 - 1u;
  }
  const uint32_t k = kk__umap_vload32((const uint32_t *)m->keys.d.data + u);
  return k < ~(uint32_t)0 - 1u;
}

/* In kernels, on a kk_unordered_map argument m (docs/containers.md,
 * "UnorderedMap"): INSERT and INSERT_VALUE give a kk_umap_insert_result;
 * FIND the key's slot or KK_INVALID_INDEX; EXISTS 1 or 0; the _BYTES forms
 * take the key by address; VALID_AT(m, i) is 1 when slot i holds an entry,
 * KEY_AT and VALUE_AT its key and value as lvalues of type T; SLOTS the
 * number of slots. */
#define KK_UMAP_INSERT(m, key) kk__umap_insert_int(&(m), (uint64_t)(key), (const void *)0, 0u)
#define KK_UMAP_INSERT_VALUE(m, key, vp) \
  kk__umap_insert_int(&(m), (uint64_t)(key), (const void *)(vp), (uint32_t)sizeof(*(vp)))
#define KK_UMAP_FIND(m, key) kk__umap_find_int(&(m), (uint64_t)(key))
#define KK_UMAP_EXISTS(m, key) (KK_UMAP_FIND(m, key) >= 0)
#define KK_UMAP_INSERT_BYTES(m, kp) \
  kk__umap_insert_bytes(&(m), (const void *)(kp), (uint32_t)sizeof(*(kp)), (const void *)0, 0u)
#define KK_UMAP_INSERT_BYTES_VALUE(m, kp, vp)                                                       \
  kk__umap_insert_bytes(&(m), (const void *)(kp), (uint32_t)sizeof(*(kp)), (const void *)(vp),     \
                        (uint32_t)sizeof(*(vp)))
#define KK_UMAP_FIND_BYTES(m, kp) kk__umap_find_bytes(&(m), (const void *)(kp), (uint32_t)sizeof(*(kp)))
#define KK_UMAP_EXISTS_BYTES(m, kp) (KK_UMAP_FIND_BYTES(m, kp) >= 0)
#define KK_UMAP_VALID_AT(m, i) kk__umap_valid_at(&(m), (int64_t)(i))
#define KK_UMAP_KEY_AT(m, T, i) KK_AT((m).keys, T, i)
#define KK_UMAP_VALUE_AT(m, T, i) KK_AT((m).values, T, i)
#define KK_UMAP_SLOTS(m) ((int64_t)(m).capacity)

#endif /* KK_UNORDERED_MAP_H */
