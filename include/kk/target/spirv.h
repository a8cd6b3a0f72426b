/* kk/target/spirv.h -- how the SPIR-V target spells the kernel language: one OpenCL kernel per kernel (C++ for OpenCL, clang -target spir64). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TARGET_SPIRV_H
#define KK_TARGET_SPIRV_H

/*
 * Compiled as C++ for OpenCL 2021 by clang (kkcc's spirv recipe) and turned
 * into SPIR-V by llvm-spirv; run by plugins/opencl and plugins/levelzero.
 * Every kernel becomes `kernel void kk_k_<name>(global uchar *slot,
 * local uchar *smem)`: the slot holds the launch record and the argument
 * struct (kk/target/spirv_launch.h), smem is the work-group's local memory,
 * sized by the plugin.  Mapping:
 *   range for      group-stride loop, one index per work-item per step
 *   range reduce   per-work-item partials, a work-group tree in local memory
 *                  (order kept), one partial per group; the last group to
 *                  finish combines them and writes the result
 *   scan           two kernels over tiles of items x work-items, one group
 *                  per tile: tile aggregates (and every work-item's part),
 *                  then each tile folds the aggregates before it, scans its
 *                  parts and runs the final pass -- no group ever waits for
 *                  another, so no forward progress between groups is needed
 *   MDRange        a group per tile (group-stride over tiles), its work-items
 *                  over the tile's points
 *   teams          a group per team (group-stride over league ranks), one
 *                  work-item per team thread; a thread's vector lanes are a
 *                  loop inside its work-item (OpenCL 3.0 without subgroups has
 *                  no cross-lane operations), so KK_VECTOR_LENGTH is the
 *                  length asked for and KK_SINGLE_THREAD is always true;
 *                  level-0 scratch in local memory, level 1 in a device pool
 * Atomics use OpenCL 2.0 atomics on generic pointers (views and scratch
 * alike); values of other sizes go through the device lock table, which the
 * launch record carries -- so complex-double atomics and KK_ATOMIC_LOCK are
 * available in kernel bodies, not in KK__FN helpers.
 */

#include <kk/target/spirv_launch.h>

#define KK__DEFAULT_LAYOUT KK_LAYOUT_LEFT
#define KK__DEFAULT_ITERATE 2 /* KK_ITERATE_LEFT */
/* Everything is inlined into the kernels: kkcc compiles at -O0 (llvm-spirv
 * 14 cannot translate what LLVM's optimizers emit, and the platform's own
 * compiler optimizes anyway), where only always_inline functions are inlined,
 * and an OpenCL platform such as PoCL needs the work-item functions inside
 * the kernel itself. */
#define KK__INL static inline __attribute__((always_inline))
#define KK__FN KK__INL
#define KK__UNUSED __attribute__((unused))
#ifndef restrict
#define restrict __restrict
#endif
#ifndef offsetof
#define offsetof(T, m) __builtin_offsetof(T, m)
#endif
#ifndef memcpy
#define memcpy __builtin_memcpy
#endif
#ifndef memset
#define memset __builtin_memset
#endif

/* ==== bounds checking (kkcc --bounds-check) ==================================================
 * Only in checked images (KK_BOUNDS_CHECK).  OpenCL has no portable way for
 * the host to set a program-scope variable, so the plugin passes the
 * context's record in the launch slot (at KK_SPIRV_BC_POINTER_OFFSET, after
 * the launch record; NULL for unchecked kernels) and every kernel's entry stores it into the
 * program-scope kk__bc_rec (every work-item stores the same pointer), where
 * a checked KK_AT in the body or in a helper outside it finds it.  The first
 * failing access takes the record's state word (compare-and-swap 0 -> 1),
 * writes the record and then the state 2; the access uses a zeroed dummy
 * element (kk__bc_sink) instead of the view's.  The host copies the record
 * at the next fence (plugins/gpu/gpu.c's check_bounds).  Launches do not
 * stop early: a failed access only reads and writes the dummy, so no
 * work-item waits alone at a barrier.  Without KK_BOUNDS_CHECK none of this
 * exists and the image is what it was. */
#ifdef KK_BOUNDS_CHECK
uint64_t *kk__bc_rec;
#define KK__BC_SINK_BYTES 512
__attribute__((aligned(16))) unsigned char kk__bc_sink[KK__BC_SINK_BYTES];
#define KK__BC_ENTER kk__bc_rec = *(uint64_t *const __global *)(kk__slot + KK_SPIRV_BC_POINTER_OFFSET);
#else
#define KK__BC_ENTER
#endif

/* What a kernel body sees as its context: the launch record (lock table,
 * scratch failure flag). */
typedef const __global kk_spirv_launch *kk__thread_t;
/* helpers outside kernel bodies see no launch record */
static constant kk__thread_t kk__th = 0;

#define KK__BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define KK__LID() ((unsigned)get_local_id(0))
#define KK__LSIZE() ((unsigned)get_local_size(0))
#define KK__GID() ((unsigned)get_group_id(0))
#define KK__NGROUPS() ((unsigned)get_num_groups(0))
#define KK__LAUNCH(p) ((const __global kk_spirv_launch *)(p))
#define KK__ARGS(T, p) ((const T *)(const __global T *)((p) + KK_SPIRV_ARGS_OFFSET))

/* ==== generic helpers ===================================================================== */

/* Work-group reduction of one value per work-item (tid of n), in local memory
 * at sm: work-item 0 joins them in order, so the join need only be
 * associative.  Every work-item gets the result.  No barrier sits in a loop
 * or under a condition: OpenCL compilers for CPUs (PoCL) turn work-groups
 * into loops between barriers and handle straight-line barriers best. */
template <class VT, class RED> KK__INL VT kk__block_reduce(VT v, unsigned tid, unsigned n, unsigned char *sm) {
  VT *s = (VT *)sm;
  s[tid] = v;
  KK__BARRIER();
  if (tid == 0)
    for (unsigned k = 1; k < n; k++)
      RED::join(&s[0], &s[k]);
  KK__BARRIER();
  v = s[0];
  KK__BARRIER();
  return v;
}

/* The end of every reduce kernel: group partial, then the last group to
 * finish combines the partials.  Every group runs the combining steps (their
 * barriers stay unconditional); only the last one reads the partials and
 * writes the result. */
template <class VT, class RED>
KK__INL void kk__reduce_finish(VT v, kk__thread_t L, unsigned tid, unsigned n, unsigned nblocks, unsigned block,
                               unsigned char *sm) {
  v = kk__block_reduce<VT, RED>(v, tid, n, sm);
  if (tid == 0) {
    ((VT *)L->partials)[block] = v;
    unsigned prev = atomic_fetch_add_explicit((volatile atomic_uint *)L->counter, 1u, memory_order_acq_rel,
                                              memory_scope_device);
    *(volatile int *)sm = prev == nblocks - 1;
  }
  KK__BARRIER();
  const int last = *(volatile int *)sm;
  KK__BARRIER();
  VT acc;
  RED::init(&acc);
  if (last) {
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device);
    const unsigned per = (nblocks + n - 1) / n;
    for (unsigned b = tid * per; b < nblocks && b < (tid + 1) * per; b++) {
      VT p = ((VT *)L->partials)[b];
      RED::join(&acc, &p);
    }
  }
  acc = kk__block_reduce<VT, RED>(acc, tid, n, sm);
  if (last && tid == 0) {
    *(VT *)L->result = acc;
    atomic_store_explicit((volatile atomic_uint *)L->counter, 0u, memory_order_release, memory_scope_device);
  }
}

/* Inclusive scan over the work-group, in order (work-item 0 walks it). */
template <class VT, class RED> KK__INL VT kk__block_inscan(VT v, unsigned tid, unsigned n, unsigned char *sm) {
  VT *s = (VT *)sm;
  s[tid] = v;
  KK__BARRIER();
  if (tid == 0)
    for (unsigned k = 1; k < n; k++) {
      VT t = s[k - 1];
      RED::join(&t, &s[k]);
      s[k] = t;
    }
  KK__BARRIER();
  v = s[tid];
  KK__BARRIER();
  return v;
}

/* The indices [*b, *e) of work-item tid of tile `tile` of a scan, found by
 * offsets from begin: the last tile's work-items may start past the end,
 * which may be INT64_MAX. */
KK__INL void kk__scan_part(kk__thread_t L, int64_t tile, unsigned tid, unsigned n, int64_t *b, int64_t *e) {
  const uint64_t len = (uint64_t)(L->end - L->begin), items = (uint64_t)L->items;
  const uint64_t o = ((uint64_t)tile * n + tid) * items;
  *b = o < len ? L->begin + (int64_t)o : L->end;
  *e = o < len && len - o > items ? *b + (int64_t)items : L->end;
}

/* The two kernels of a scan, one group per tile; body(i, &value, final).
 * First every tile's aggregate (and every work-item's part of it), then each
 * tile folds the aggregates before it, scans its parts and runs the final
 * pass.  Two kernels rather than a phase flag: barriers stay unconditional. */
template <class T, class RED, class F> KK__INL void kk__scan_tiles(kk__thread_t L, unsigned char *sm, F body) {
  const unsigned tid = KK__LID(), n = KK__LSIZE();
  const int64_t tile = KK__GID();
  int64_t b, e;
  kk__scan_part(L, tile, tid, n, &b, &e);
  T part;
  RED::init(&part);
  for (int64_t i = b; i < e; i++)
    body(i, &part, 0);
  ((T *)L->partials2)[tile * n + tid] = part;
  T agg = kk__block_reduce<T, RED>(part, tid, n, sm);
  if (tid == 0)
    ((T *)L->partials)[tile] = agg;
}
template <class T, class RED, class F> KK__INL void kk__scan_final(kk__thread_t L, unsigned char *sm, F body) {
  const unsigned tid = KK__LID(), n = KK__LSIZE();
  const int64_t tile = KK__GID();
  int64_t b, e;
  kk__scan_part(L, tile, tid, n, &b, &e);
  T *aggs = (T *)L->partials;
  /* the prefix of the tiles before this one, in order */
  T prefix;
  RED::init(&prefix);
  const int64_t chunk = (tile + n - 1) / n;
  for (int64_t j = (int64_t)tid * chunk; j < tile && j < (int64_t)(tid + 1) * chunk; j++)
    RED::join(&prefix, &aggs[j]);
  prefix = kk__block_reduce<T, RED>(prefix, tid, n, sm);
  T incl = kk__block_inscan<T, RED>(((T *)L->partials2)[tile * n + tid], tid, n, sm);
  /* exclusive: the inclusive value of the work-item before */
  T *s = (T *)sm;
  s[tid] = incl;
  KK__BARRIER();
  T run = prefix;
  if (tid > 0) {
    T ex = s[tid - 1];
    RED::join(&run, &ex);
  }
  if (tid == n - 1 && L->result && tile == L->tiles - 1) {
    T total = prefix;
    RED::join(&total, &incl);
    *(T *)L->result = total;
  }
  for (int64_t i = b; i < e; i++)
    body(i, &run, 1);
}

/* ==== atomics on 32- and 64-bit integers, the lock table ===================================== */

#define KK__MO_RLX memory_order_relaxed
#define KK__SCOPE memory_scope_device
#define KK__AI(T, A, p) ((volatile A *)(p))

/* 32- and 64-bit integers map onto OpenCL 2.0 atomics */
#define KK__INT_ATOMICS(T, A)                                                                                   \
  KK__INL T kk__afetch_add(kk__thread_t, T *p, T v) { return atomic_fetch_add_explicit(KK__AI(T, A, p), v, KK__MO_RLX, KK__SCOPE); } \
  KK__INL T kk__afetch_sub(kk__thread_t, T *p, T v) { return atomic_fetch_sub_explicit(KK__AI(T, A, p), v, KK__MO_RLX, KK__SCOPE); } \
  KK__INL T kk__afetch_min(kk__thread_t, T *p, T v) { return atomic_fetch_min_explicit(KK__AI(T, A, p), v, KK__MO_RLX, KK__SCOPE); } \
  KK__INL T kk__afetch_max(kk__thread_t, T *p, T v) { return atomic_fetch_max_explicit(KK__AI(T, A, p), v, KK__MO_RLX, KK__SCOPE); } \
  KK__INL T kk__afetch_and(kk__thread_t, T *p, T v) { return atomic_fetch_and_explicit(KK__AI(T, A, p), v, KK__MO_RLX, KK__SCOPE); } \
  KK__INL T kk__afetch_or(kk__thread_t, T *p, T v) { return atomic_fetch_or_explicit(KK__AI(T, A, p), v, KK__MO_RLX, KK__SCOPE); }   \
  KK__INL T kk__afetch_xor(kk__thread_t, T *p, T v) { return atomic_fetch_xor_explicit(KK__AI(T, A, p), v, KK__MO_RLX, KK__SCOPE); } \
  KK__INL T kk__aexchange(kk__thread_t, T *p, T v) { return atomic_exchange_explicit(KK__AI(T, A, p), v, KK__MO_RLX, KK__SCOPE); }   \
  KK__INL T kk__acas(kk__thread_t, T *p, T e, T d) {                                                      \
    atomic_compare_exchange_strong_explicit(KK__AI(T, A, p), &e, d, memory_order_acq_rel, KK__MO_RLX, KK__SCOPE); \
    return e;                                                                                                   \
  }                                                                                                             \
  KK__INL T kk__aload(kk__thread_t, T *p) { return atomic_load_explicit(KK__AI(T, A, p), memory_order_acquire, KK__SCOPE); } \
  KK__INL void kk__astore(kk__thread_t, T *p, T v) { atomic_store_explicit(KK__AI(T, A, p), v, memory_order_release, KK__SCOPE); }
KK__INT_ATOMICS(int, atomic_int)
KK__INT_ATOMICS(unsigned int, atomic_uint)
KK__INT_ATOMICS(long, atomic_long)
KK__INT_ATOMICS(unsigned long, atomic_ulong)

/* The lock table, safe without independent forward progress of the
 * work-items of a subgroup: a work-item only ever tries the lock once per
 * round and leaves the loop when it has done its update, so a sibling that
 * holds the lock is never starved by one spinning on it.  The launch record
 * carries the table: complex-double atomics and KK_ATOMIC_LOCK are
 * available in kernel bodies, not in KK__FN helpers. */
struct kk__devlock {
  uint32_t *lock;
  bool done;
  __attribute__((always_inline)) kk__devlock(uint32_t *l) : lock(l), done(false) {}
  /* true: this work-item holds the lock and runs the block once */
  __attribute__((always_inline)) bool next() {
    while (!done) {
      if (kk__acas((kk__thread_t)0, lock, 0u, 1u) == 0u) {
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device);
        return true;
      }
    }
    return false;
  }
  __attribute__((always_inline)) void release() {
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
    kk__astore((kk__thread_t)0, lock, 0u);
    done = true;
  }
};
#define KK_ATOMIC_LOCK(p) for (kk__devlock kk__lk(&kk__th->locks[KK__LOCK_INDEX(p)]); kk__lk.next(); kk__lk.release())

/* what kk/target/gpu_common.h asks of a target */
#define KK__TEAM_BARRIER() KK__BARRIER()
#define KK__TEAM_VALUE_MAX KK_SPIRV_TEAM_VALUE_MAX
#define KK__ATH kk__th,
#define KK__ATHP kk__thread_t kk__th,
typedef uint64_t kk__failed_t;
#define KK__CTX kk__L                     /* bodies see the launch record (lock table, failure flag) */
#define KK__CAPTURE =
#define KK__LAMBDA __attribute__((always_inline))
#define KK__MD_BOUNDS
#define KK__TEAM_BOUNDS(n) /* KK_TEAM_FOR_BOUNDS: no bound to give */
#define KK__MD_DIRECT(NAME, ARGS_T, RANK)
/* A kernel: its launch record and argument struct from the slot. */
#define KK__KERNEL(BOUNDS, NAME, ARGS_T)                                                                        \
  extern "C" kernel void NAME(__global const unsigned char *kk__slot, local unsigned char *kk__sm) {            \
    kk__thread_t kk__L = KK__LAUNCH(kk__slot);                                                                  \
    const ARGS_T *kk__ap = KK__ARGS(ARGS_T, kk__slot);                                                          \
    unsigned char *kk__smem KK__UNUSED = (unsigned char *)kk__sm;                                               \
    KK__BC_ENTER
/* Offsets from begin, unsigned: the range's length fits in int64_t (the
 * core refuses others), so offset + stride never wraps, and no index past
 * the range's end, which may be INT64_MAX, is ever formed. */
#define KK__GRID_LOOP(O)                                                                                        \
  for (uint64_t O = (uint64_t)KK__GID() * KK__LSIZE() + KK__LID(),                                              \
                kk__n = (uint64_t)(kk__L->end - kk__L->begin), kk__stride = (uint64_t)KK__NGROUPS() * KK__LSIZE(); \
       O < kk__n; O += kk__stride)
#define KK__GRID_INDEX(O) (kk__L->begin + (int64_t)(O))
#define KK__FINISH(VT, NAME, DIMS)                                                                              \
  kk__reduce_finish<VT, kk__red_##NAME>(kk__acc, kk__L, KK__LID(), KK__LSIZE(), KK__NGROUPS(), KK__GID(), kk__smem)
/* kk__scratch returns NULL when a request does not fit: the body returns
 * (every work-item of the team makes the same request, so the whole team
 * leaves and nothing past the scratch is written) */
#define KK__SCRATCH_OR_LEAVE(expr)                                                                              \
  ({                                                                                                            \
    void *kk__q = (expr);                                                                                       \
    if (!kk__q)                                                                                                 \
      return;                                                                                                   \
    kk__q;                                                                                                      \
  })
#include <kk/target/gpu_common.h>

/* a thread's vector lanes are a loop of its work-item: nothing to join across */
template <class J, class V> KK__INL void kk__vector_allreduce(const kk_team *, V *) {}

/* ==== scan and MDRange kernels ============================================================== */

#define KK__SCAN_KERNEL(KNAME, NAME, T, ARGS_T, WHICH)                                                          \
  KK__KERNEL(, KNAME, ARGS_T)                                                                                   \
  WHICH<T, kk__red_##NAME>(kk__L, kk__smem, [&](int64_t kk__i, T *kk__v, int kk__f) KK__LAMBDA {                \
    if (kk__f)                                                                                                  \
      kk__body_##NAME(kk__ap, kk__i, kk__v, 1, kk__L);                                                          \
    else                                                                                                        \
      kk__body_##NAME(kk__ap, kk__i, kk__v, 0, kk__L);                                                          \
  });                                                                                                           \
  }
/* a scan is two kernels: kk_k_<name> (tile aggregates) and kk_k_<name>__final */
#define KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN)                                                           \
  KK__BODY(NAME, ARGS_T, const int64_t I KK__UNUSED, T *const UPD KK__UNUSED, const int FIN KK__UNUSED, );     \
  KK__SCAN_KERNEL(kk_k_##NAME, NAME, T, ARGS_T, kk__scan_tiles)                                                 \
  KK__SCAN_KERNEL(kk_k_##NAME##__final, NAME, T, ARGS_T, kk__scan_final)                                        \
  KK__BODY(NAME, ARGS_T, const int64_t I KK__UNUSED, T *const UPD KK__UNUSED, const int FIN KK__UNUSED, )

/* Runs f(idx) on the points of every tile this group owns, its work-items
 * spread over the tile's points innermost dimension first. */
template <int RANK, class F> KK__INL void kk__md_run(kk__thread_t L, F f) {
  const int r = L->rank;
  int order[KK_MD_MAX_RANK]; /* dimensions, innermost first */
  for (int k = 0; k < r; k++)
    order[k] = L->inner_left ? k : r - 1 - k;
  const unsigned tid = KK__LID(), nt = KK__LSIZE();
  for (int64_t t = KK__GID(); t < L->md_tiles; t += KK__NGROUPS()) {
    int64_t lo[KK_MD_MAX_RANK], hi[KK_MD_MAX_RANK], rem = t;
    for (int k = 0; k < r; k++) {
      const int d = L->outer_left ? k : r - 1 - k;
      lo[d] = L->md_begin[d] + (rem % L->md_ntile[d]) * L->md_tile[d];
      rem /= L->md_ntile[d];
      hi[d] = L->md_end[d] - lo[d] > L->md_tile[d] ? lo[d] + L->md_tile[d] : L->md_end[d];
    }
    int64_t pts = 1;
    for (int d = 0; d < r; d++)
      pts *= hi[d] - lo[d];
    int64_t idx[KK_MD_MAX_RANK];
    for (int64_t p = tid; p < pts; p += nt) {
      int64_t q = p;
      for (int k = 0; k < r; k++) {
        const int d = order[k];
        const int64_t ext = hi[d] - lo[d];
        idx[d] = lo[d] + q % ext;
        q /= ext;
      }
      f(idx);
    }
  }
}

/* ==== team kernels =========================================================================== */

/* A team is a group, one work-item per thread; its vector lanes are a loop. */
KK__INL void kk__team_setup(kk_team *t, kk__thread_t L, unsigned char *sm) {
  kk__team_layout(t, L, sm, KK__LID(), KK__LSIZE(), KK__GID());
  t->lane = 0;
  t->vlen = L->vector_length;
}

/* A scratch request that does not fit records the failure and returns NULL
 * (KK__SCRATCH_OR_LEAVE). */
KK__INL void *kk__scratch(kk_team *t, int level, int per_thread, uint64_t bytes) {
  const uint64_t need = (bytes + (KK_SCRATCH_ALIGN - 1)) & ~(uint64_t)(KK_SCRATCH_ALIGN - 1);
  uint64_t *used = per_thread ? &t->thread_used[level] : &t->team_used[level];
  const uint64_t have = per_thread ? t->thread_size_b[level] : t->team_size_b[level];
  if (*used + need > have) {
    unsigned long none = 0;
    if (atomic_compare_exchange_strong_explicit((volatile atomic_ulong *)&t->failed[0], &none,
                                                1ul + (unsigned long)level + (per_thread ? 2ul : 0ul),
                                                memory_order_relaxed, memory_order_relaxed, memory_scope_device)) {
      t->failed[1] = *used + need;
      t->failed[2] = have;
    }
    return 0;
  }
  unsigned char *p = (per_thread ? t->thread_scr[level] : t->team_scr[level]) + *used;
  *used += need;
  return p;
}

/* The league loop of a team kernel. */
#define KK__LEAGUE_LOOP(BODY_CALL)                                                                              \
  kk_team kk__t;                                                                                                \
  kk__team_setup(&kk__t, kk__L, kk__smem);                                                                      \
  for (int64_t kk__l = KK__GID(); kk__l < kk__L->league_size; kk__l += KK__NGROUPS()) {                         \
    kk__t.league_rank = kk__l;                                                                                  \
    kk__t.team_used[0] = kk__t.team_used[1] = kk__t.thread_used[0] = kk__t.thread_used[1] = 0;                  \
    BODY_CALL;                                                                                                  \
    KK__BARRIER();                                                                                              \
  }

/* nested loops: a thread's vector lanes are a loop of its work-item */
#define KK_TEAM_THREAD_FOR(t, J, B, E)                                                                          \
  for (int64_t J = (B) + (t)->team_rank, KK__CAT(kk__e_, J) = (E); J < KK__CAT(kk__e_, J); J += (t)->team_size)
#define KK_THREAD_VECTOR_FOR(t, K, B, E) for (int64_t K = (B), KK__CAT(kk__e_, K) = (E); K < KK__CAT(kk__e_, K); ++K)
#define KK_TEAM_VECTOR_FOR(t, J, B, E) KK_TEAM_THREAD_FOR(t, J, B, E)

/* ==== atomics of other types ================================================================ */

/* floating point: exchange, compare-exchange, load and store on the bits */
#define KK__FP_BITS(T, U)                                                                                       \
  KK__INL T kk__aexchange(kk__thread_t, T *p, T v) {                                                            \
    return kk__from_bits<T, U>(kk__aexchange((kk__thread_t)0, (U *)p, kk__bits<T, U>(v)));                     \
  }                                                                                                             \
  KK__INL T kk__acas(kk__thread_t, T *p, T e, T d) {                                                            \
    return kk__from_bits<T, U>(kk__acas((kk__thread_t)0, (U *)p, kk__bits<T, U>(e), kk__bits<T, U>(d)));       \
  }                                                                                                             \
  KK__INL T kk__aload(kk__thread_t, T *p) { return kk__from_bits<T, U>(kk__aload((kk__thread_t)0, (U *)p)); }   \
  KK__INL void kk__astore(kk__thread_t, T *p, T v) { kk__astore((kk__thread_t)0, (U *)p, kk__bits<T, U>(v)); }
KK__FP_BITS(float, uint32_t)
KK__FP_BITS(double, uint64_t)

#define KK__LOCK_COUNT KK_SPIRV_LOCK_COUNT
#include <kk/target/gpu_atomics.h>

/* OpenCL 2.0 has no floating-point atomic add: compare-and-swap loops */
#define KK__FP_ADDSUB(T, U)                                                                                     \
  KK__INL T kk__afetch_add(kk__thread_t L, T *p, T v) {                                                         \
    return kk__acas_loop<T, U>(L, p, [&](T o, T *n) KK__LAMBDA { return *n = o + v, true; });                   \
  }                                                                                                             \
  KK__INL T kk__afetch_sub(kk__thread_t L, T *p, T v) {                                                         \
    return kk__acas_loop<T, U>(L, p, [&](T o, T *n) KK__LAMBDA { return *n = o - v, true; });                   \
  }
KK__FP_ADDSUB(float, uint32_t)
KK__FP_ADDSUB(double, uint64_t)
/* complex double: 16 bytes through the lock table */
KK__INL kk_complex_double kk__afetch_add(kk__thread_t L, kk_complex_double *p, kk_complex_double v) { return kk__acd(L, p, v, 0, v); }
KK__INL kk_complex_double kk__afetch_sub(kk__thread_t L, kk_complex_double *p, kk_complex_double v) { return kk__acd(L, p, v, 1, v); }
/* add and subtract without the old value */
template <class T, class V> KK__INL void kk__aadd(kk__thread_t L, T *p, V v) { (void)kk__afetch_add(L, p, (T)v); }
template <class T, class V> KK__INL void kk__asub(kk__thread_t L, T *p, V v) { (void)kk__afetch_sub(L, p, (T)v); }

#ifdef KK_BOUNDS_CHECK
/* Records the first failure of the context and gives the dummy element. */
KK__INL void *kk__bc_fail(const kk_view_desc_t *d, unsigned esize, int n, const int64_t *ix, const __constant char *file,
                          int line) {
  uint64_t *r = kk__bc_rec;
  unsigned long none = 0;
  if (r && atomic_compare_exchange_strong_explicit((volatile atomic_ulong *)&r[KK_SPIRV_BC_STATE], &none, 1ul,
                                                   memory_order_relaxed, memory_order_relaxed, memory_scope_device)) {
    volatile uint64_t *w = r;
    w[KK_SPIRV_BC_DATA] = (uint64_t)(uintptr_t)d->data;
    w[KK_SPIRV_BC_RANK_N] = (uint64_t)(unsigned)d->rank | (uint64_t)(unsigned)n << 32;
    w[KK_SPIRV_BC_SIZES] = (uint64_t)esize | (uint64_t)d->elem_size << 32;
    for (int k = 0; k < KK_MAX_RANK; k++) {
      w[KK_SPIRV_BC_IDX + k] = (uint64_t)(k < n ? ix[k] : 0);
      w[KK_SPIRV_BC_EXT + k] = (uint64_t)d->extent[k];
    }
    w[KK_SPIRV_BC_LINE] = (uint64_t)line;
    int len = 0;
    while (file && file[len])
      len++;
    const int from = len > KK_SPIRV_BC_FILE_BYTES - 1 ? len - (KK_SPIRV_BC_FILE_BYTES - 1) : 0;
    for (int wd = 0; wd < KK_SPIRV_BC_FILE_BYTES / 8; wd++) {
      uint64_t b = 0;
      for (int k = 0; k < 8; k++) {
        const int at = from + wd * 8 + k;
        b |= (uint64_t)(unsigned char)(at < len ? file[at] : 0) << (8 * k);
      }
      w[KK_SPIRV_BC_FILE + wd] = b;
    }
    atomic_store_explicit((volatile atomic_ulong *)&r[KK_SPIRV_BC_STATE], 2ul, memory_order_release,
                          memory_scope_device);
  }
  for (unsigned k = 0; k < esize && k < KK__BC_SINK_BYTES; k++)
    kk__bc_sink[k] = 0;
  return (void *)kk__bc_sink;
}

/* kk__bc_bad (kernel_common.h) */
KK__BC_BAD(KK__INL)

/* The checked KK_AT: the element's address, or on a failed access the dummy
 * element. */
template <class T, class... I>
KK__INL void *kk__bc_at(const kk_view_desc_t *d, int layout, const __constant char *file, int line, I... i) {
  static_assert(sizeof(T) <= KK__BC_SINK_BYTES, "bounds-checked accesses on SPIR-V take elements of up to 512 bytes");
  constexpr int n = (int)sizeof...(I);
  const int64_t ix[n] = {(int64_t)i...};
  if (kk__bc_bad(d, (unsigned)sizeof(T), n, ix))
    return kk__bc_fail(d, (unsigned)sizeof(T), n, ix, file, line);
  int64_t off;
  KK__BC_OFFSET(off, d, layout, n, ix, );
  return (char *)d->data + off * (int64_t)sizeof(T);
}
/* A ScatterView contribution's check: false (after recording) when it fails. */
template <class T, class... I> KK__INL bool kk__bc_scatter_ok(const kk_view_desc_t *d, const __constant char *file, int line, I... i) {
  constexpr int n = (int)sizeof...(I);
  const int64_t ix[n] = {(int64_t)i...};
  if (kk__bc_bad(d, (unsigned)sizeof(T), n, ix)) {
    (void)kk__bc_fail(d, (unsigned)sizeof(T), n, ix, file, line);
    return false;
  }
  return true;
}
#define KK__BOUNDS_AT(v, T, N, ...) kk__bc_at<T>(KK__DESC_PTR(v), KK__LAYOUT_OF(v), __FILE__, __LINE__, __VA_ARGS__)
/* ScatterView contributions check their indices first (a failed one adds nothing). */
#undef KK_SCATTER_ADD
#undef KK_SCATTER_MIN
#undef KK_SCATTER_MAX
#define KK__BC_SCATTER(sv, T, ...) kk__bc_scatter_ok<T>(&(sv).d, __FILE__, __LINE__, __VA_ARGS__)
#define KK_SCATTER_ADD(sv, T, v, ...) \
  (KK__BC_SCATTER(sv, T, __VA_ARGS__) ? kk_atomic_add((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (v)) : (void)0)
#define KK_SCATTER_MIN(sv, T, v, ...) \
  (KK__BC_SCATTER(sv, T, __VA_ARGS__) ? kk_atomic_min((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (T)(v)) : (void)0)
#define KK_SCATTER_MAX(sv, T, v, ...) \
  (KK__BC_SCATTER(sv, T, __VA_ARGS__) ? kk_atomic_max((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (T)(v)) : (void)0)
#endif /* KK_BOUNDS_CHECK */

#endif /* KK_TARGET_SPIRV_H */
