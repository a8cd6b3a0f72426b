/* kk/target/spirv.h -- how the SPIR-V target spells the kernel language: one OpenCL kernel per kernel (C++ for OpenCL, clang -target spir64). */
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
#define KK__KERNEL(NAME) extern "C" kernel void kk_k_##NAME(__global const unsigned char *kk__slot, local unsigned char *kk__sm)

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

/* The two kernels of a scan, one group per tile; body(i, &value, final).
 * First every tile's aggregate (and every work-item's part of it), then each
 * tile folds the aggregates before it, scans its parts and runs the final
 * pass.  Two kernels rather than a phase flag: barriers stay unconditional. */
template <class T, class RED, class F> KK__INL void kk__scan_tiles(kk__thread_t L, unsigned char *sm, F body) {
  const unsigned tid = KK__LID(), n = KK__LSIZE();
  const int64_t tile = KK__GID();
  const int64_t b = L->begin + tile * n * L->items + (int64_t)tid * L->items;
  const int64_t e = b + L->items < L->end ? b + L->items : L->end;
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
  const int64_t b = L->begin + tile * n * L->items + (int64_t)tid * L->items;
  const int64_t e = b + L->items < L->end ? b + L->items : L->end;
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

/* ==== reducer plumbing ===================================================================== */

#define KK__RED_STRUCT(NAME, VT, INIT_STMT, JOIN_STMT)                                                          \
  struct kk__red_##NAME {                                                                                       \
    KK__INL void init(VT *kk__p) { INIT_STMT; }                                                           \
    KK__INL void join(VT *kk__d, const VT *kk__s) { JOIN_STMT; }                                          \
  };
#define KK__RED1(NAME, T, R, VT) KK__RED_STRUCT(NAME, VT, KK__INIT_##R(T, kk__p), KK__JOIN_##R(T, kk__d, kk__s))
#define KK__RED_CUSTOM(NAME, T, R) KK__RED_STRUCT(NAME, T, kk__rinit_##R(kk__p), kk__rjoin_##R(kk__d, kk__s))
#define KK__RED_N(NAME, VT, ...)                                                                                \
  struct kk__red_##NAME {                                                                                       \
    KK__INL void init(VT *kk__v) { KK__FOREACH(KK__RN_INIT, kk__v, __VA_ARGS__) }                         \
    KK__INL void join(VT *kk__d, const VT *kk__s) { KK__FOREACH(KK__RN_JOIN, (kk__d, kk__s), __VA_ARGS__) } \
  };

#define KK_REDUCER_INIT(R, T, V) KK__INL void kk__rinit_##R(T *const V)
/* The join, and an adapter struct that nested team reductions call it
 * through (a function pointer as a template argument would carry the
 * private address space of its parameters, not the generic one). */
#define KK_REDUCER_JOIN(R, T, DST, SRC)                                                \
  KK__INL void kk__rjoin_##R(T *const DST, const T *const SRC);                       \
  struct kk__rj_##R {                                                                  \
    KK__INL void join(T *d, const T *s) { kk__rjoin_##R(d, s); }                      \
  };                                                                                   \
  KK__INL void kk__rjoin_##R(T *const DST, const T *const SRC)

/* ==== range kernels ========================================================================= */

#define KK__GRID_LOOP(L, I)                                                                                     \
  for (int64_t I = (L)->begin + (int64_t)KK__GID() * KK__LSIZE() + KK__LID(),                                   \
               kk__stride = (int64_t)KK__NGROUPS() * KK__LSIZE();                                               \
       I < (L)->end; I += kk__stride)

#define KK_FOR(NAME, ARGS_T, I)                                                                                 \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,           \
                                     kk__thread_t kk__th KK__UNUSED);                                           \
  KK__KERNEL(NAME) {                                                                                            \
    (void)kk__sm;                                                                                               \
    kk__thread_t kk__L = KK__LAUNCH(kk__slot);                                                                  \
    KK__GRID_LOOP(kk__L, kk__i) kk__body_##NAME(KK__ARGS(ARGS_T, kk__slot), kk__i, kk__L);                      \
  }                                                                                                             \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,           \
                                     kk__thread_t kk__th KK__UNUSED)

#define KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC)                                                             \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,           \
                                     VT *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED);                 \
  KK__KERNEL(NAME) {                                                                                            \
    kk__thread_t kk__L = KK__LAUNCH(kk__slot);                                                                  \
    VT kk__acc;                                                                                                 \
    kk__red_##NAME::init(&kk__acc);                                                                             \
    KK__GRID_LOOP(kk__L, kk__i) kk__body_##NAME(KK__ARGS(ARGS_T, kk__slot), kk__i, &kk__acc, kk__L);            \
    kk__reduce_finish<VT, kk__red_##NAME>(kk__acc, kk__L, KK__LID(), KK__LSIZE(), KK__NGROUPS(), KK__GID(),    \
                                          (unsigned char *)kk__sm);                                             \
  }                                                                                                             \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,           \
                                     VT *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED)

#define KK_REDUCE(NAME, ARGS_T, T, R, I, ACC) \
  KK__RED1(NAME, T, R, KK__VT_##R(T))         \
  KK__REDUCE_COMMON(NAME, ARGS_T, KK__VT_##R(T), I, ACC)
#define KK_REDUCE_CUSTOM(NAME, ARGS_T, T, R, I, ACC) \
  KK__RED_CUSTOM(NAME, T, R)                         \
  KK__REDUCE_COMMON(NAME, ARGS_T, T, I, ACC)
#define KK_REDUCE_N(NAME, ARGS_T, VT, I, ACC, ...) \
  KK__RED_N(NAME, VT, __VA_ARGS__)                 \
  KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC)

#define KK__SCAN_KERNEL(KNAME, NAME, T, ARGS_T, WHICH)                                                          \
  extern "C" kernel void KNAME(__global const unsigned char *kk__slot, local unsigned char *kk__sm) {           \
    kk__thread_t kk__L = KK__LAUNCH(kk__slot);                                                                  \
    const ARGS_T *kk__a = KK__ARGS(ARGS_T, kk__slot);                                                           \
    WHICH<T, kk__red_##NAME>(kk__L, (unsigned char *)kk__sm,                                                    \
                             [&](int64_t kk__i, T *kk__v, int kk__f) __attribute__((always_inline)) {            \
                               if (kk__f)                                                                       \
                                 kk__body_##NAME(kk__a, kk__i, kk__v, 1, kk__L);                                \
                               else                                                                             \
                                 kk__body_##NAME(kk__a, kk__i, kk__v, 0, kk__L);                                \
                             });                                                                                \
  }
/* a scan is two kernels: kk_k_<name> (tile aggregates) and kk_k_<name>__final */
#define KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN)                                                           \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,                 \
                               T *const UPD KK__UNUSED, const int FIN KK__UNUSED, kk__thread_t kk__th KK__UNUSED); \
  KK__SCAN_KERNEL(kk_k_##NAME, NAME, T, ARGS_T, kk__scan_tiles)                                                 \
  KK__SCAN_KERNEL(kk_k_##NAME##__final, NAME, T, ARGS_T, kk__scan_final)                                        \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, const int64_t I KK__UNUSED,                 \
                               T *const UPD KK__UNUSED, const int FIN KK__UNUSED, kk__thread_t kk__th KK__UNUSED)
#define KK_SCAN(NAME, ARGS_T, T, I, UPD, FIN) \
  KK__RED1(NAME, T, KK_SUM, T)                \
  KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN)
#define KK_SCAN_CUSTOM(NAME, ARGS_T, T, R, I, UPD, FIN) \
  KK__RED_CUSTOM(NAME, T, R)                            \
  KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN)

/* ==== MDRange kernels ======================================================================= */

/* Runs f(idx) on the points of every tile this group owns, its work-items
 * spread over the tile's points innermost dimension first. */
template <class F> KK__INL void kk__md_run(kk__thread_t L, F f) {
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
      hi[d] = lo[d] + L->md_tile[d] < L->md_end[d] ? lo[d] + L->md_tile[d] : L->md_end[d];
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

#define KK__MD_PARAMS(...) KK__FOREACH(KK__MD_PARAM, ~, __VA_ARGS__)
#define KK__MD_PARAM(unused, i) const int64_t i KK__UNUSED,
#define KK__IX2 kk__ix[0], kk__ix[1]
#define KK__IX3 KK__IX2, kk__ix[2]
#define KK__IX4 KK__IX3, kk__ix[3]
#define KK__IX5 KK__IX4, kk__ix[4]
#define KK__IX6 KK__IX5, kk__ix[5]

#define KK__MD_FOR(NAME, ARGS_T, RANK, ...)                                                                     \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, KK__MD_PARAMS(__VA_ARGS__)            \
                                         kk__thread_t kk__th KK__UNUSED);                                       \
  KK__KERNEL(NAME) {                                                                                            \
    (void)kk__sm;                                                                                               \
    kk__thread_t kk__L = KK__LAUNCH(kk__slot);                                                                  \
    const ARGS_T *kk__a = KK__ARGS(ARGS_T, kk__slot);                                                           \
    kk__md_run(kk__L, [&](const int64_t *kk__ix) __attribute__((always_inline)) { kk__body_##NAME(kk__a, KK__IX##RANK, kk__L); });             \
  }                                                                                                             \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, KK__MD_PARAMS(__VA_ARGS__)            \
                                         kk__thread_t kk__th KK__UNUSED)
#define KK_MD_FOR2(NAME, ARGS_T, I0, I1) KK__MD_FOR(NAME, ARGS_T, 2, I0, I1)
#define KK_MD_FOR3(NAME, ARGS_T, I0, I1, I2) KK__MD_FOR(NAME, ARGS_T, 3, I0, I1, I2)
#define KK_MD_FOR4(NAME, ARGS_T, I0, I1, I2, I3) KK__MD_FOR(NAME, ARGS_T, 4, I0, I1, I2, I3)
#define KK_MD_FOR5(NAME, ARGS_T, I0, I1, I2, I3, I4) KK__MD_FOR(NAME, ARGS_T, 5, I0, I1, I2, I3, I4)
#define KK_MD_FOR6(NAME, ARGS_T, I0, I1, I2, I3, I4, I5) KK__MD_FOR(NAME, ARGS_T, 6, I0, I1, I2, I3, I4, I5)

#define KK__MD_REDUCE(NAME, ARGS_T, T, R, RANK, ACC, ...)                                                       \
  KK__RED1(NAME, T, R, KK__VT_##R(T))                                                                           \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, KK__MD_PARAMS(__VA_ARGS__)            \
                                         KK__VT_##R(T) *const ACC KK__UNUSED,                                   \
                                     kk__thread_t kk__th KK__UNUSED);                                           \
  KK__KERNEL(NAME) {                                                                                            \
    kk__thread_t kk__L = KK__LAUNCH(kk__slot);                                                                  \
    const ARGS_T *kk__a = KK__ARGS(ARGS_T, kk__slot);                                                           \
    KK__VT_##R(T) kk__acc, *kk__accp = &kk__acc;                                                                \
    kk__red_##NAME::init(&kk__acc);                                                                             \
    kk__md_run(kk__L, [=](const int64_t *kk__ix) __attribute__((always_inline)) { kk__body_##NAME(kk__a, KK__IX##RANK, kk__accp, kk__L); });   \
    kk__reduce_finish<KK__VT_##R(T), kk__red_##NAME>(kk__acc, kk__L, KK__LID(), KK__LSIZE(), KK__NGROUPS(),     \
                                                     KK__GID(), (unsigned char *)kk__sm);                       \
  }                                                                                                             \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, KK__MD_PARAMS(__VA_ARGS__)            \
                                         KK__VT_##R(T) *const ACC KK__UNUSED,                                   \
                                     kk__thread_t kk__th KK__UNUSED)
#define KK_MD_REDUCE2(NAME, ARGS_T, T, R, I0, I1, ACC) KK__MD_REDUCE(NAME, ARGS_T, T, R, 2, ACC, I0, I1)
#define KK_MD_REDUCE3(NAME, ARGS_T, T, R, I0, I1, I2, ACC) KK__MD_REDUCE(NAME, ARGS_T, T, R, 3, ACC, I0, I1, I2)
#define KK_MD_REDUCE4(NAME, ARGS_T, T, R, I0, I1, I2, I3, ACC) KK__MD_REDUCE(NAME, ARGS_T, T, R, 4, ACC, I0, I1, I2, I3)
#define KK_MD_REDUCE5(NAME, ARGS_T, T, R, I0, I1, I2, I3, I4, ACC) \
  KK__MD_REDUCE(NAME, ARGS_T, T, R, 5, ACC, I0, I1, I2, I3, I4)
#define KK_MD_REDUCE6(NAME, ARGS_T, T, R, I0, I1, I2, I3, I4, I5, ACC) \
  KK__MD_REDUCE(NAME, ARGS_T, T, R, 6, ACC, I0, I1, I2, I3, I4, I5)

/* ==== team kernels =========================================================================== */

typedef struct kk_team {
  int64_t league_rank, league_size;
  int team_rank, team_size, lane, vlen;
  unsigned char *team_scr[2], *thread_scr[2];
  uint64_t team_size_b[2], thread_size_b[2];
  uint64_t team_used[2], thread_used[2];
  unsigned char *coll;            /* team_size slots of KK_SPIRV_TEAM_VALUE_MAX bytes for collectives */
  uint64_t *failed;
} kk_team;

#define KK_LEAGUE_RANK(t) ((t)->league_rank)
#define KK_LEAGUE_SIZE(t) ((t)->league_size)
#define KK_TEAM_RANK(t) ((int64_t)(t)->team_rank)
#define KK_TEAM_SIZE(t) ((int64_t)(t)->team_size)
#define KK_VECTOR_LENGTH(t) ((int64_t)(t)->vlen)
#define KK_TEAM_BARRIER(t) KK__BARRIER()

/* Local-memory layout of a team group: collectives, team level-0 scratch,
 * then each work-item's level-0 scratch. */
KK__INL void kk__team_setup(kk_team *t, kk__thread_t L, unsigned char *sm) {
  const uint64_t rank = KK__LID(), size = KK__LSIZE();
  t->league_size = L->league_size;
  t->team_rank = (int)rank;
  t->team_size = (int)size;
  t->lane = 0;
  t->vlen = L->vector_length;
  t->coll = sm;
  unsigned char *s0 = sm + ((size * KK_SPIRV_TEAM_VALUE_MAX + 15) & ~(uint64_t)15);
  t->team_scr[0] = s0;
  t->thread_scr[0] = s0 + ((L->team_scratch[0] + 15) & ~(uint64_t)15) + rank * ((L->thread_scratch[0] + 15) & ~(uint64_t)15);
  unsigned char *s1 = L->scratch1 + (uint64_t)KK__GID() * L->scratch1_stride;
  t->team_scr[1] = s1;
  t->thread_scr[1] = s1 + ((L->team_scratch[1] + 15) & ~(uint64_t)15) + rank * ((L->thread_scratch[1] + 15) & ~(uint64_t)15);
  for (int l = 0; l < 2; l++) {
    t->team_size_b[l] = L->team_scratch[l];
    t->thread_size_b[l] = L->thread_scratch[l];
  }
  t->failed = L->failed;
}

/* A scratch request that does not fit records the failure and returns NULL;
 * the request macros then end the body: every work-item of the team makes
 * the same request, so the whole team leaves and nothing past the scratch is
 * written. */
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
#define KK__SCRATCH_OR_LEAVE(expr)                                                                              \
  ({                                                                                                            \
    void *kk__q = (expr);                                                                                       \
    if (!kk__q)                                                                                                 \
      return;                                                                                                   \
    kk__q;                                                                                                      \
  })
#define KK_TEAM_SCRATCH(t, level, T, n) ((T *)KK__SCRATCH_OR_LEAVE(kk__scratch((t), (level), 0, (uint64_t)(n) * sizeof(T))))
#define KK_THREAD_SCRATCH(t, level, T, n) ((T *)KK__SCRATCH_OR_LEAVE(kk__scratch((t), (level), 1, (uint64_t)(n) * sizeof(T))))

KK__INL kk_view kk__scratch_view(void *data, uint32_t elem, int rank, int64_t n0, int64_t n1, int64_t n2) {
  kk_view v;
  memset(&v, 0, sizeof v);
  const int64_t ext[3] = {n0, n1, n2};
  for (int d = 0; d < KK_MAX_RANK; d++)
    v.d.extent[d] = d < rank ? ext[d] : 1;
  int64_t s = 1;
  for (int d = 0; d < rank; d++) { /* left layout, the target's default */
    v.d.stride[d] = s;
    s *= ext[d];
  }
  v.d.data = data;
  v.d.rank = rank;
  v.d.layout = KK_LAYOUT_LEFT;
  v.d.elem_size = elem;
  return v;
}
KK__INL uint64_t kk__sv_count(int rank, int64_t n0, int64_t n1, int64_t n2) {
  return (uint64_t)n0 * (uint64_t)(rank > 1 ? n1 : 1) * (uint64_t)(rank > 2 ? n2 : 1);
}
#define KK__SV_DIMS(...) KK__NARG(__VA_ARGS__), KK__SV_PAD(__VA_ARGS__, 1, 1)
#define KK__SV_PAD(a, b, c, ...) (a), (b), (c)
#define KK__SCRATCH_VIEW(t, level, per_thread, T, rank, n0, n1, n2)                                             \
  kk__scratch_view(KK__SCRATCH_OR_LEAVE(kk__scratch((t), (level), (per_thread),                                 \
                                                    kk__sv_count(rank, n0, n1, n2) * sizeof(T))),               \
                   (uint32_t)sizeof(T), rank, n0, n1, n2)
#define KK__SCRATCH_VIEW_(args) KK__SCRATCH_VIEW args
#define KK_TEAM_SCRATCH_VIEW(t, level, T, ...) KK__SCRATCH_VIEW_((t, level, 0, T, KK__SV_DIMS(__VA_ARGS__)))
#define KK_THREAD_SCRATCH_VIEW(t, level, T, ...) KK__SCRATCH_VIEW_((t, level, 1, T, KK__SV_DIMS(__VA_ARGS__)))

#define KK_TEAM_FOR(NAME, ARGS_T, TEAM)                                                                         \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, kk_team *const TEAM KK__UNUSED,       \
                                     kk__thread_t kk__th KK__UNUSED);                                           \
  KK__KERNEL(NAME) {                                                                                            \
    kk__thread_t kk__L = KK__LAUNCH(kk__slot);                                                                  \
    const ARGS_T *kk__a = KK__ARGS(ARGS_T, kk__slot);                                                           \
    kk_team kk__t;                                                                                              \
    kk__team_setup(&kk__t, kk__L, (unsigned char *)kk__sm);                                                     \
    for (int64_t kk__l = KK__GID(); kk__l < kk__L->league_size; kk__l += KK__NGROUPS()) {                       \
      kk__t.league_rank = kk__l;                                                                                \
      kk__t.team_used[0] = kk__t.team_used[1] = kk__t.thread_used[0] = kk__t.thread_used[1] = 0;                \
      kk__body_##NAME(kk__a, &kk__t, kk__L);                                                                    \
      KK__BARRIER();                                                                                            \
    }                                                                                                           \
  }                                                                                                             \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, kk_team *const TEAM KK__UNUSED,       \
                                     kk__thread_t kk__th KK__UNUSED)

/* Team reductions: the acc of every thread of every team. */
#define KK_TEAM_REDUCE(NAME, ARGS_T, T, R, TEAM, ACC)                                                           \
  KK__RED1(NAME, T, R, KK__VT_##R(T))                                                                           \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, kk_team *const TEAM KK__UNUSED,       \
                                     KK__VT_##R(T) *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED);      \
  KK__KERNEL(NAME) {                                                                                            \
    kk__thread_t kk__L = KK__LAUNCH(kk__slot);                                                                  \
    const ARGS_T *kk__a = KK__ARGS(ARGS_T, kk__slot);                                                           \
    kk_team kk__t;                                                                                              \
    kk__team_setup(&kk__t, kk__L, (unsigned char *)kk__sm);                                                     \
    KK__VT_##R(T) kk__acc;                                                                                      \
    kk__red_##NAME::init(&kk__acc);                                                                             \
    for (int64_t kk__l = KK__GID(); kk__l < kk__L->league_size; kk__l += KK__NGROUPS()) {                       \
      kk__t.league_rank = kk__l;                                                                                \
      kk__t.team_used[0] = kk__t.team_used[1] = kk__t.thread_used[0] = kk__t.thread_used[1] = 0;                \
      kk__body_##NAME(kk__a, &kk__t, &kk__acc, kk__L);                                                          \
      KK__BARRIER();                                                                                            \
    }                                                                                                           \
    kk__reduce_finish<KK__VT_##R(T), kk__red_##NAME>(kk__acc, kk__L, KK__LID(), KK__LSIZE(), KK__NGROUPS(),     \
                                                     KK__GID(), (unsigned char *)kk__sm);                       \
  }                                                                                                             \
  KK__INL void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, kk_team *const TEAM KK__UNUSED,       \
                                     KK__VT_##R(T) *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED)

/* ---- nested loops ------------------------------------------------------------------------------- */

/* a team thread's contiguous block of [b, e) (scans need index order) */
KK__INL int64_t kk__tt_lo(const kk_team *t, int64_t b, int64_t e) {
  const int64_t n = e - b, ts = t->team_size, r = t->team_rank;
  return n <= 0 ? b : b + r * (n / ts) + (r < n % ts ? r : n % ts);
}
KK__INL int64_t kk__tt_hi(const kk_team *t, int64_t b, int64_t e) {
  const int64_t n = e - b, ts = t->team_size, r = t->team_rank;
  return n <= 0 ? b : kk__tt_lo(t, b, e) + n / ts + (r < n % ts ? 1 : 0);
}

#define KK_TEAM_THREAD_FOR(t, J, B, E)                                                                          \
  for (int64_t J = (B) + (t)->team_rank, KK__CAT(kk__e_, J) = (E); J < KK__CAT(kk__e_, J); J += (t)->team_size)
/* a thread's vector lanes are a loop of its work-item */
#define KK_THREAD_VECTOR_FOR(t, K, B, E) for (int64_t K = (B), KK__CAT(kk__e_, K) = (E); K < KK__CAT(kk__e_, K); ++K)
#define KK_TEAM_VECTOR_FOR(t, J, B, E) KK_TEAM_THREAD_FOR(t, J, B, E)

/* Joins of the built-in reducers for nested reductions, by reducer and type. */
template <int R, class T> struct kk__bjoin;
#define KK__DEF_BJOIN(R, T)                                                                                     \
  template <> struct kk__bjoin<R, T> {                                                                          \
    KK__INL void init(KK__VT_##R(T) *p) { KK__INIT_##R(T, p); }                                           \
    KK__INL void join(KK__VT_##R(T) *d, const KK__VT_##R(T) *s) { KK__JOIN_##R(T, d, s); }                \
  };
#define KK__DEF_BJOINS_ALL(T) KK__DEF_BJOIN(KK_SUM, T) KK__DEF_BJOIN(KK_PROD, T) KK__DEF_BJOIN(KK_MIN, T) \
  KK__DEF_BJOIN(KK_MAX, T) KK__DEF_BJOIN(KK_LAND, T) KK__DEF_BJOIN(KK_LOR, T)
#define KK__DEF_BJOINS_LOC(T) KK__DEF_BJOIN(KK_MINLOC, T) KK__DEF_BJOIN(KK_MAXLOC, T) KK__DEF_BJOIN(KK_MINMAX, T) \
  KK__DEF_BJOIN(KK_MINMAXLOC, T)
#define KK__DEF_BJOINS_INT(T) KK__DEF_BJOINS_ALL(T) KK__DEF_BJOINS_LOC(T) KK__DEF_BJOIN(KK_BAND, T) KK__DEF_BJOIN(KK_BOR, T)
KK__DEF_BJOINS_INT(int8_t)
KK__DEF_BJOINS_INT(uint8_t)
KK__DEF_BJOINS_INT(int16_t)
KK__DEF_BJOINS_INT(uint16_t)
KK__DEF_BJOINS_INT(int32_t)
KK__DEF_BJOINS_INT(uint32_t)
KK__DEF_BJOINS_INT(int64_t)
KK__DEF_BJOINS_INT(uint64_t)
KK__DEF_BJOINS_ALL(float)
KK__DEF_BJOINS_LOC(float)
KK__DEF_BJOINS_ALL(double)
KK__DEF_BJOINS_LOC(double)

/* every work-item of the team gets the join over the team's threads, in
 * team-rank order */
template <class J, class V> KK__INL void kk__team_allreduce(const kk_team *t, V *v) {
  static_assert(sizeof(V) <= KK_SPIRV_TEAM_VALUE_MAX, "nested team reductions carry at most 32 bytes on SPIR-V");
  KK__BARRIER();
  memcpy(t->coll + (size_t)t->team_rank * KK_SPIRV_TEAM_VALUE_MAX, v, sizeof(V));
  KK__BARRIER();
  V acc;
  memcpy(&acc, t->coll, sizeof(V));
  for (int r = 1; r < t->team_size; r++) {
    V o;
    memcpy(&o, t->coll + (size_t)r * KK_SPIRV_TEAM_VALUE_MAX, sizeof(V));
    J::join(&acc, &o);
  }
  *v = acc;
  KK__BARRIER();
}

#define KK_TEAM_THREAD_REDUCE(t, J, B, E, T, R, VAR)                                                            \
  for (int KK__CAT(kk__once_, J) = (KK__INIT_##R(T, &(VAR)), 1); KK__CAT(kk__once_, J);                          \
       KK__CAT(kk__once_, J) = 0, kk__team_allreduce<kk__bjoin<R, T> >((t), &(VAR)))                             \
  KK_TEAM_THREAD_FOR(t, J, B, E)
#define KK_THREAD_VECTOR_REDUCE(t, K, B, E, T, R, VAR)                                                          \
  for (int KK__CAT(kk__once_, K) = (KK__INIT_##R(T, &(VAR)), 1); KK__CAT(kk__once_, K); KK__CAT(kk__once_, K) = 0) \
  KK_THREAD_VECTOR_FOR(t, K, B, E)
#define KK_TEAM_VECTOR_REDUCE(t, J, B, E, T, R, VAR) KK_TEAM_THREAD_REDUCE(t, J, B, E, T, R, VAR)
/* custom reducers: KK_REDUCER_JOIN's adapter struct */
#define KK_TEAM_THREAD_REDUCE_CUSTOM(t, J, B, E, RNAME, VAR)                                                    \
  for (int KK__CAT(kk__once_, J) = (kk__rinit_##RNAME(&(VAR)), 1); KK__CAT(kk__once_, J);                        \
       KK__CAT(kk__once_, J) = 0, kk__team_allreduce<kk__rj_##RNAME>((t), &(VAR)))                              \
  KK_TEAM_THREAD_FOR(t, J, B, E)
#define KK_THREAD_VECTOR_REDUCE_CUSTOM(t, K, B, E, RNAME, VAR)                                                  \
  for (int KK__CAT(kk__once_, K) = (kk__rinit_##RNAME(&(VAR)), 1); KK__CAT(kk__once_, K); KK__CAT(kk__once_, K) = 0) \
  KK_THREAD_VECTOR_FOR(t, K, B, E)

/* Nested scans (sums) over the team's threads: contiguous blocks per thread
 * in index order, two passes, the team's exclusive prefix in between. */
template <class V> KK__INL int kk__team_scan_step(const kk_team *t, int pass, V *v) {
  static_assert(sizeof(V) <= KK_SPIRV_TEAM_VALUE_MAX, "nested team scans carry at most 32 bytes on SPIR-V");
  if (pass == 0) {
    KK__BARRIER();
    memcpy(t->coll + (size_t)t->team_rank * KK_SPIRV_TEAM_VALUE_MAX, v, sizeof(V));
    KK__BARRIER();
    V acc = (V)0;
    for (int r = 0; r < t->team_rank; r++) {
      V o;
      memcpy(&o, t->coll + (size_t)r * KK_SPIRV_TEAM_VALUE_MAX, sizeof(V));
      acc += o;
    }
    *v = acc;
    KK__BARRIER();
    return 1;
  }
  /* the last thread's running value is the total */
  KK__BARRIER();
  if (t->team_rank == t->team_size - 1)
    memcpy(t->coll, v, sizeof(V));
  KK__BARRIER();
  memcpy(v, t->coll, sizeof(V));
  KK__BARRIER();
  return 2;
}
#define KK_TEAM_THREAD_SCAN(t, J, B, E, T, VAR, FIN)                                                            \
  for (int FIN = ((VAR) = (T)0, 0); FIN < 2; FIN = kk__team_scan_step<T>((t), FIN, &(VAR)))                     \
    for (int64_t J = kk__tt_lo((t), (B), (E)), KK__CAT(kk__e_, J) = kk__tt_hi((t), (B), (E)); J < KK__CAT(kk__e_, J); ++J)
#define KK_THREAD_VECTOR_SCAN(t, K, B, E, T, VAR, FIN) \
  for (int FIN = ((VAR) = (T)0, 1); FIN < 2; FIN = 2)  \
    for (int64_t K = (B), KK__CAT(kk__e_, K) = (E); K < KK__CAT(kk__e_, K); ++K)
#define KK_TEAM_VECTOR_SCAN(t, J, B, E, T, VAR, FIN) KK_TEAM_THREAD_SCAN(t, J, B, E, T, VAR, FIN)

/* single and broadcast */
#define KK_SINGLE_TEAM(t) if ((t)->team_rank == 0)
#define KK_SINGLE_THREAD(t) if ((t)->lane == 0)
template <class V> KK__INL void kk__team_broadcast(const kk_team *t, V *v) {
  static_assert(sizeof(V) <= KK_SPIRV_TEAM_VALUE_MAX, "broadcast values carry at most 32 bytes on SPIR-V");
  KK__BARRIER();
  if (t->team_rank == 0)
    memcpy(t->coll, v, sizeof(V));
  KK__BARRIER();
  memcpy(v, t->coll, sizeof(V));
  KK__BARRIER();
}
#define KK_SINGLE_TEAM_BROADCAST(t, VAR)                                                                        \
  for (int kk__once_b = 1; kk__once_b; kk__once_b = 0, kk__team_broadcast((t), &(VAR)))                        \
    if ((t)->team_rank == 0)

/* ==== atomics ============================================================================== */

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

template <class T, class U> KK__INL U kk__bits(T v) {
  U u;
  memcpy(&u, &v, sizeof u);
  return u;
}
template <class T, class U> KK__INL T kk__from_bits(U u) {
  T v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* floating point and complex float: compare-and-swap loops on the bits */
template <class T, class U, class F> KK__INL T kk__afp(T *p, F op) {
  U old = kk__aload((kk__thread_t)0, (U *)p);
  for (;;) {
    T o = kk__from_bits<T, U>(old), n;
    if (!op(o, &n))
      return o;
    U seen = kk__acas((kk__thread_t)0, (U *)p, old, kk__bits<T, U>(n));
    if (seen == old)
      return o;
    old = seen;
  }
}
#define KK__FP_ATOMICS(T, U)                                                                                    \
  KK__INL T kk__afetch_add(kk__thread_t, T *p, T v) {                                                     \
    return kk__afp<T, U>(p, [&](T o, T *n) __attribute__((always_inline)) { *n = o + v; return true; });                                      \
  }                                                                                                             \
  KK__INL T kk__afetch_sub(kk__thread_t, T *p, T v) {                                                     \
    return kk__afp<T, U>(p, [&](T o, T *n) __attribute__((always_inline)) { *n = o - v; return true; });                                      \
  }                                                                                                             \
  KK__INL T kk__afetch_min(kk__thread_t, T *p, T v) {                                                     \
    return kk__afp<T, U>(p, [&](T o, T *n) __attribute__((always_inline)) { *n = v; return v < o; });                                         \
  }                                                                                                             \
  KK__INL T kk__afetch_max(kk__thread_t, T *p, T v) {                                                     \
    return kk__afp<T, U>(p, [&](T o, T *n) __attribute__((always_inline)) { *n = v; return v > o; });                                         \
  }                                                                                                             \
  KK__INL T kk__aexchange(kk__thread_t, T *p, T v) {                                                      \
    return kk__from_bits<T, U>(kk__aexchange((kk__thread_t)0, (U *)p, kk__bits<T, U>(v)));                     \
  }                                                                                                             \
  KK__INL T kk__acas(kk__thread_t, T *p, T e, T d) {                                                      \
    return kk__from_bits<T, U>(kk__acas((kk__thread_t)0, (U *)p, kk__bits<T, U>(e), kk__bits<T, U>(d)));       \
  }                                                                                                             \
  KK__INL T kk__aload(kk__thread_t, T *p) { return kk__from_bits<T, U>(kk__aload((kk__thread_t)0, (U *)p)); } \
  KK__INL void kk__astore(kk__thread_t, T *p, T v) { kk__astore((kk__thread_t)0, (U *)p, kk__bits<T, U>(v)); }
KK__FP_ATOMICS(float, unsigned int)
KK__FP_ATOMICS(double, unsigned long)

KK__INL kk_complex_float kk__afetch_add(kk__thread_t, kk_complex_float *p, kk_complex_float v) {
  return kk__afp<kk_complex_float, unsigned long>(p, [&](kk_complex_float o, kk_complex_float *n) __attribute__((always_inline)) {
    n->re = o.re + v.re, n->im = o.im + v.im;
    return true;
  });
}
KK__INL kk_complex_float kk__afetch_sub(kk__thread_t, kk_complex_float *p, kk_complex_float v) {
  return kk__afp<kk_complex_float, unsigned long>(p, [&](kk_complex_float o, kk_complex_float *n) __attribute__((always_inline)) {
    n->re = o.re - v.re, n->im = o.im - v.im;
    return true;
  });
}
KK__INL kk_complex_float kk__aexchange(kk__thread_t, kk_complex_float *p, kk_complex_float v) {
  return kk__from_bits<kk_complex_float, unsigned long>(
      kk__aexchange((kk__thread_t)0, (unsigned long *)p, kk__bits<kk_complex_float, unsigned long>(v)));
}
KK__INL kk_complex_float kk__acas(kk__thread_t, kk_complex_float *p, kk_complex_float e, kk_complex_float d) {
  return kk__from_bits<kk_complex_float, unsigned long>(kk__acas((kk__thread_t)0, (unsigned long *)p,
                                                                 kk__bits<kk_complex_float, unsigned long>(e),
                                                                 kk__bits<kk_complex_float, unsigned long>(d)));
}

/* The lock table, safe without independent forward progress of the
 * work-items of a subgroup: a work-item only ever tries the lock once per
 * round and leaves the loop when it has done its update, so a sibling that
 * holds the lock is never starved by one spinning on it. */
struct kk__devlock {
  uint32_t *lock;
  bool done;
  __attribute__((always_inline)) kk__devlock(kk__thread_t L, const void *p) {
    unsigned long h = (unsigned long)p >> 3;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ul;
    lock = &L->locks[(h >> 40) & (KK_SPIRV_LOCK_COUNT - 1)];
    done = false;
  }
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
#define KK_ATOMIC_LOCK(p) for (kk__devlock kk__lk(kk__th, (const void *)(p)); kk__lk.next(); kk__lk.release())

/* complex double: 16 bytes through the lock table */
KK__INL kk_complex_double kk__acd(kk__thread_t kk__th, kk_complex_double *p, kk_complex_double v, int op) {
  kk_complex_double old;
  KK_ATOMIC_LOCK(p) {
    old.re = ((volatile double *)p)[0];
    old.im = ((volatile double *)p)[1];
    ((volatile double *)p)[0] = op == 0 ? old.re + v.re : op == 1 ? old.re - v.re : v.re;
    ((volatile double *)p)[1] = op == 0 ? old.im + v.im : op == 1 ? old.im - v.im : v.im;
  }
  return old;
}
KK__INL kk_complex_double kk__afetch_add(kk__thread_t L, kk_complex_double *p, kk_complex_double v) { return kk__acd(L, p, v, 0); }
KK__INL kk_complex_double kk__afetch_sub(kk__thread_t L, kk_complex_double *p, kk_complex_double v) { return kk__acd(L, p, v, 1); }
KK__INL kk_complex_double kk__aexchange(kk__thread_t L, kk_complex_double *p, kk_complex_double v) { return kk__acd(L, p, v, 2); }
KK__INL kk_complex_double kk__acas(kk__thread_t kk__th, kk_complex_double *p, kk_complex_double e, kk_complex_double d) {
  kk_complex_double old;
  KK_ATOMIC_LOCK(p) {
    old.re = ((volatile double *)p)[0];
    old.im = ((volatile double *)p)[1];
    if (old.re == e.re && old.im == e.im) {
      ((volatile double *)p)[0] = d.re;
      ((volatile double *)p)[1] = d.im;
    }
  }
  return old;
}

#define kk_atomic_fetch_add(p, v) kk__afetch_add(kk__th, (p), (v))
#define kk_atomic_fetch_sub(p, v) kk__afetch_sub(kk__th, (p), (v))
#define kk_atomic_fetch_min(p, v) kk__afetch_min(kk__th, (p), (v))
#define kk_atomic_fetch_max(p, v) kk__afetch_max(kk__th, (p), (v))
#define kk_atomic_fetch_and(p, v) kk__afetch_and(kk__th, (p), (v))
#define kk_atomic_fetch_or(p, v) kk__afetch_or(kk__th, (p), (v))
#define kk_atomic_fetch_xor(p, v) kk__afetch_xor(kk__th, (p), (v))
#define kk_atomic_fetch_inc(p) kk__afetch_add(kk__th, (p), (__typeof__(*(p)))1)
#define kk_atomic_fetch_dec(p) kk__afetch_sub(kk__th, (p), (__typeof__(*(p)))1)
#define kk_atomic_exchange(p, v) kk__aexchange(kk__th, (p), (v))
#define kk_atomic_compare_exchange(p, e, d) kk__acas(kk__th, (p), (e), (d))
#define kk_atomic_load(p) kk__aload(kk__th, (p))
#define kk_atomic_store(p, v) kk__astore(kk__th, (p), (__typeof__(*(p)))(v))
#define kk_atomic_add(p, v) ((void)kk_atomic_fetch_add(p, v))
#define kk_atomic_sub(p, v) ((void)kk_atomic_fetch_sub(p, v))
#define kk_atomic_min(p, v) ((void)kk_atomic_fetch_min(p, v))
#define kk_atomic_max(p, v) ((void)kk_atomic_fetch_max(p, v))
#define kk_atomic_and(p, v) ((void)kk_atomic_fetch_and(p, v))
#define kk_atomic_or(p, v) ((void)kk_atomic_fetch_or(p, v))
#define kk_atomic_xor(p, v) ((void)kk_atomic_fetch_xor(p, v))
#define kk_atomic_inc(p) ((void)kk_atomic_fetch_inc(p))
#define kk_atomic_dec(p) ((void)kk_atomic_fetch_dec(p))

/* ==== ScatterView access: contributions are atomics ========================================= */
#define KK__SOFF(sv, ...) KK__CAT(KK__SOFF, KK__NARG(__VA_ARGS__))((sv).d, __VA_ARGS__)
#define KK__SOFF1(d, a) KK__T(d, 0, a)
#define KK__SOFF2(d, a, b) (KK__T(d, 0, a) + KK__T(d, 1, b))
#define KK__SOFF3(d, a, b, c) (KK__T(d, 0, a) + KK__T(d, 1, b) + KK__T(d, 2, c))
#define KK__SOFF4(d, a, b, c, e) (KK__T(d, 0, a) + KK__T(d, 1, b) + KK__T(d, 2, c) + KK__T(d, 3, e))
#define KK_SCATTER_ADD(sv, T, v, ...) kk_atomic_add((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (v))
#define KK_SCATTER_MIN(sv, T, v, ...) kk_atomic_min((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (T)(v))
#define KK_SCATTER_MAX(sv, T, v, ...) kk_atomic_max((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (T)(v))

#endif /* KK_TARGET_SPIRV_H */
