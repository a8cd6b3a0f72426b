/* kk/target/gpu_common.h -- what the device targets (cuda, hip: kk/target/simt.h; spirv) spell alike: reducers, nested team collectives, scratch views, ScatterView (atomics: gpu_atomics.h). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TARGET_GPU_COMMON_H
#define KK_TARGET_GPU_COMMON_H

/*
 * Included by simt.h and spirv.h after they define, for their compiler:
 *   KK__FN              a device helper (static, inlined)
 *   KK__TEAM_BARRIER()  a barrier of a team's threads (the whole block or group)
 *   KK__TEAM_VALUE_MAX  bytes a nested team reduction, broadcast or scan carries
 *   KK__ATH, KK__ATHP   the context an atomic takes before its pointer, as an argument
 *                       ("kk__th,") and as a parameter ("kk__thread_t kk__th,"), or nothing
 *   kk__failed_t        the word a team kernel's scratch failure is recorded in
 *   the kernels: KK__KERNEL(BOUNDS, NAME, ARGS_T) opens one, with kk__ap (the
 *   arguments) and kk__L (the launch record); KK__CTX is what its bodies get
 *   as their context; KK__GRID_LOOP(o) walks a range by offsets from its
 *   begin, KK__GRID_INDEX(o) being the index, kk__md_run<RANK>(L, f)
 *   an MDRange (KK__CAPTURE: its lambdas' capture; KK__LAMBDA: what they need
 *   to be inlined), KK__LEAGUE_LOOP(call) a league with kk__t the team;
 *   KK__FINISH(VT, NAME, DIMS) ends a reduction over a block of 1, 2 (teams)
 *   or 3 (MDRange) dimensions; KK__MD_DIRECT(NAME, ARGS_T, RANK) adds an
 *   MDRange for's other entries, KK__MD_BOUNDS bounds its own;
 *   KK_TEAM_THREAD_FOR, KK_THREAD_VECTOR_FOR, KK_TEAM_VECTOR_FOR and
 *   kk__vector_allreduce<J>(t, v) (the join over a thread's vector lanes).
 */

#include <kk/target/kernel_common.h>

/* The type of an expression (GNU __typeof__ is not in NVRTC's dialect). */
template <class T> struct kk__unref { typedef T type; };
template <class T> struct kk__unref<T &> { typedef T type; };
#define KK__TYPEOF(x) typename kk__unref<decltype(x)>::type

/* ==== reducer plumbing ===================================================================== */

#define KK__RED_STRUCT(NAME, VT, INIT_STMT, JOIN_STMT)                                                          \
  struct kk__red_##NAME {                                                                                       \
    KK__FN void init(VT *kk__p) { INIT_STMT; }                                                                  \
    KK__FN void join(VT *kk__d, const VT *kk__s) { JOIN_STMT; }                                                 \
  };
#define KK__RED1(NAME, T, R, VT) KK__RED_STRUCT(NAME, VT, KK__INIT_##R(T, kk__p), KK__JOIN_##R(T, kk__d, kk__s))
#define KK__RED_CUSTOM(NAME, T, R) KK__RED_STRUCT(NAME, T, kk__rinit_##R(kk__p), kk__rjoin_##R(kk__d, kk__s))
#define KK__RED_N(NAME, VT, ...)                                                                                \
  struct kk__red_##NAME {                                                                                       \
    KK__FN void init(VT *kk__v) { KK__FOREACH(KK__RN_INIT, kk__v, __VA_ARGS__) }                                \
    KK__FN void join(VT *kk__d, const VT *kk__s) { KK__FOREACH(KK__RN_JOIN, (kk__d, kk__s), __VA_ARGS__) }      \
  };

#define KK_REDUCER_INIT(R, T, V) KK__FN void kk__rinit_##R(T *const V)
/* The join, and an adapter struct that nested team reductions call it
 * through (on SPIR-V a function pointer as a template argument would carry
 * the private address space of its parameters, not the generic one). */
#define KK_REDUCER_JOIN(R, T, DST, SRC)                                                                         \
  KK__FN void kk__rjoin_##R(T *const DST, const T *const SRC);                                                  \
  struct kk__rj_##R {                                                                                           \
    KK__FN void join(T *d, const T *s) { kk__rjoin_##R(d, s); }                                                 \
  };                                                                                                            \
  KK__FN void kk__rjoin_##R(T *const DST, const T *const SRC)

/* Joins of the built-in reducers for nested reductions, by reducer and type. */
template <int R, class T> struct kk__bjoin;
#define KK__DEF_BJOIN(R, T)                                                                                     \
  template <> struct kk__bjoin<R, T> {                                                                          \
    KK__FN void init(KK__VT_##R(T) *p) { KK__INIT_##R(T, p); }                                                  \
    KK__FN void join(KK__VT_##R(T) *d, const KK__VT_##R(T) *s) { KK__JOIN_##R(T, d, s); }                       \
  };
KK__BUILTIN_REDUCERS(KK__DEF_BJOIN)

/* ==== MDRange parameters ===================================================================== */

#define KK__IX2 kk__ix[0], kk__ix[1]
#define KK__IX3 KK__IX2, kk__ix[2]
#define KK__IX4 KK__IX3, kk__ix[3]
#define KK__IX5 KK__IX4, kk__ix[4]
#define KK__IX6 KK__IX5, kk__ix[5]

/* ==== the kernels ============================================================================ */

#define KK__BODY(NAME, ARGS_T, ...) \
  KK__FN void kk__body_##NAME(const ARGS_T *const args KK__UNUSED, __VA_ARGS__ kk__thread_t kk__th KK__UNUSED)

#define KK_FOR(NAME, ARGS_T, I)                                                                                 \
  KK__BODY(NAME, ARGS_T, const int64_t I KK__UNUSED, );                                                        \
  KK__KERNEL(, kk_k_##NAME, ARGS_T)                                                                             \
  KK__GRID_LOOP(kk__o) kk__body_##NAME(kk__ap, KK__GRID_INDEX(kk__o), KK__CTX);                                 \
  }                                                                                                             \
  KK__BODY(NAME, ARGS_T, const int64_t I KK__UNUSED, )

#define KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC)                                                             \
  KK__BODY(NAME, ARGS_T, const int64_t I KK__UNUSED, VT *const ACC KK__UNUSED, );                              \
  KK__KERNEL(, kk_k_##NAME, ARGS_T) VT kk__acc;                                                                 \
  kk__red_##NAME::init(&kk__acc);                                                                               \
  KK__GRID_LOOP(kk__o) kk__body_##NAME(kk__ap, KK__GRID_INDEX(kk__o), &kk__acc, KK__CTX);                       \
  KK__FINISH(VT, NAME, 1);                                                                                      \
  }                                                                                                             \
  KK__BODY(NAME, ARGS_T, const int64_t I KK__UNUSED, VT *const ACC KK__UNUSED, )

#define KK__MD_CALL(RANK, CALL) \
  kk__md_run<RANK>(kk__L, [KK__CAPTURE](const int64_t *kk__ix) KK__LAMBDA { CALL; })
#define KK__MD_FOR(NAME, ARGS_T, RANK, ...)                                                                     \
  KK__BODY(NAME, ARGS_T, KK__MD_PARAMS(__VA_ARGS__));                                                           \
  KK__KERNEL(KK__MD_BOUNDS, kk_k_##NAME, ARGS_T)                                                                \
  KK__MD_CALL(RANK, kk__body_##NAME(kk__ap, KK__IX##RANK, KK__CTX));                                            \
  }                                                                                                             \
  KK__MD_DIRECT(NAME, ARGS_T, RANK)                                                                             \
  KK__BODY(NAME, ARGS_T, KK__MD_PARAMS(__VA_ARGS__))

#define KK__MD_REDUCE(NAME, ARGS_T, T, R, RANK, ACC, ...)                                                       \
  KK__RED1(NAME, T, R, KK__VT_##R(T))                                                                           \
  KK__BODY(NAME, ARGS_T, KK__MD_PARAMS(__VA_ARGS__) KK__VT_##R(T) *const ACC KK__UNUSED, );                     \
  KK__KERNEL(KK__MD_BOUNDS, kk_k_##NAME, ARGS_T) KK__VT_##R(T) kk__acc, *kk__accp = &kk__acc;                   \
  kk__red_##NAME::init(&kk__acc);                                                                               \
  KK__MD_CALL(RANK, kk__body_##NAME(kk__ap, KK__IX##RANK, kk__accp, KK__CTX));                                  \
  KK__FINISH(KK__VT_##R(T), NAME, 3);                                                                           \
  }                                                                                                             \
  KK__BODY(NAME, ARGS_T, KK__MD_PARAMS(__VA_ARGS__) KK__VT_##R(T) *const ACC KK__UNUSED, )

#define KK_TEAM_FOR(NAME, ARGS_T, TEAM)                                                                         \
  KK__BODY(NAME, ARGS_T, kk_team *const TEAM KK__UNUSED, );                                                    \
  KK__KERNEL(, kk_k_##NAME, ARGS_T) KK__LEAGUE_LOOP(kk__body_##NAME(kk__ap, &kk__t, KK__CTX)) }                 \
  KK__BODY(NAME, ARGS_T, kk_team *const TEAM KK__UNUSED, )

/* A team kernel that is never launched with more than MAXT threads (team
 * size x vector length) per team: the compiler may give each thread the
 * registers of MAXT threads per block (__launch_bounds__(MAXT) on CUDA and
 * HIP; SPIR-V has no such bound), and a launch with more is refused. */
#define KK_TEAM_FOR_BOUNDS(NAME, ARGS_T, TEAM, MAXT)                                                            \
  KK__BODY(NAME, ARGS_T, kk_team *const TEAM KK__UNUSED, );                                                    \
  KK__KERNEL(KK__TEAM_BOUNDS(MAXT), kk_k_##NAME, ARGS_T) KK__LEAGUE_LOOP(kk__body_##NAME(kk__ap, &kk__t, KK__CTX)) } \
  KK__BODY(NAME, ARGS_T, kk_team *const TEAM KK__UNUSED, )

/* Team reductions: the acc of vector lane 0 of every thread of every team. */
#define KK_TEAM_REDUCE(NAME, ARGS_T, T, R, TEAM, ACC)                                                           \
  KK__RED1(NAME, T, R, KK__VT_##R(T))                                                                           \
  KK__BODY(NAME, ARGS_T, kk_team *const TEAM KK__UNUSED, KK__VT_##R(T) *const ACC KK__UNUSED, );                \
  KK__KERNEL(, kk_k_##NAME, ARGS_T) KK__VT_##R(T) kk__acc;                                                      \
  kk__red_##NAME::init(&kk__acc);                                                                               \
  KK__LEAGUE_LOOP(kk__body_##NAME(kk__ap, &kk__t, &kk__acc, KK__CTX))                                           \
  KK__FINISH(KK__VT_##R(T), NAME, 2);                                                                           \
  }                                                                                                             \
  KK__BODY(NAME, ARGS_T, kk_team *const TEAM KK__UNUSED, KK__VT_##R(T) *const ACC KK__UNUSED, )

/* The range kernels' wrappers: a reducer struct, then the common form. */
#define KK_REDUCE(NAME, ARGS_T, T, R, I, ACC) \
  KK__RED1(NAME, T, R, KK__VT_##R(T))         \
  KK__REDUCE_COMMON(NAME, ARGS_T, KK__VT_##R(T), I, ACC)
#define KK_REDUCE_CUSTOM(NAME, ARGS_T, T, R, I, ACC) \
  KK__RED_CUSTOM(NAME, T, R)                         \
  KK__REDUCE_COMMON(NAME, ARGS_T, T, I, ACC)
#define KK_REDUCE_N(NAME, ARGS_T, VT, I, ACC, ...) \
  KK__RED_N(NAME, VT, __VA_ARGS__)                 \
  KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC)
#define KK_SCAN(NAME, ARGS_T, T, I, UPD, FIN) \
  KK__RED1(NAME, T, KK_SUM, T)                \
  KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN)
#define KK_SCAN_CUSTOM(NAME, ARGS_T, T, R, I, UPD, FIN) \
  KK__RED_CUSTOM(NAME, T, R)                            \
  KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN)

/* ==== teams: macros, scratch views, nested collectives ====================================== */

typedef struct kk_team {
  int64_t league_rank, league_size;
  int team_rank, team_size, lane, vlen;
  unsigned char *team_scr[2], *thread_scr[2];
  uint64_t team_size_b[2], thread_size_b[2];
  uint64_t team_used[2], thread_used[2];
  unsigned char *coll;            /* team_size slots of KK__TEAM_VALUE_MAX bytes for collectives */
  kk__failed_t *failed;
  void *failed_record;            /* the host's mapped copy of the failure record, or NULL */
} kk_team;

/* A team's scratch: collectives, team level-0 scratch, then each thread's,
 * in shared memory sm; level 1 in the group's slice of the launch's pool. */
template <class LP>
KK__FN void kk__team_layout(kk_team *t, LP L, unsigned char *sm, uint64_t rank, uint64_t size, uint64_t group) {
  unsigned char *s[2] = {sm + ((size * KK__TEAM_VALUE_MAX + 15) & ~(uint64_t)15),
                         L->scratch1 + group * L->scratch1_stride};
  t->league_size = L->league_size;
  t->team_rank = (int)rank, t->team_size = (int)size;
  t->coll = sm;
  t->failed = L->failed;
  t->failed_record = 0;
  for (int l = 0; l < 2; l++) {
    t->team_scr[l] = s[l];
    t->thread_scr[l] = s[l] + ((L->team_scratch[l] + 15) & ~(uint64_t)15) + rank * ((L->thread_scratch[l] + 15) & ~(uint64_t)15);
    t->team_size_b[l] = L->team_scratch[l];
    t->thread_size_b[l] = L->thread_scratch[l];
  }
}

#define KK_LEAGUE_RANK(t) ((t)->league_rank)
#define KK_LEAGUE_SIZE(t) ((t)->league_size)
#define KK_TEAM_RANK(t) ((int64_t)(t)->team_rank)
#define KK_TEAM_SIZE(t) ((int64_t)(t)->team_size)
#define KK_VECTOR_LENGTH(t) ((int64_t)(t)->vlen)
#define KK_TEAM_BARRIER(t) KK__TEAM_BARRIER()

/* A scratch view over `data` (left layout, the device targets' default). */
KK__FN kk_view kk__scratch_view(void *data, uint32_t elem, int rank, int64_t n0, int64_t n1, int64_t n2) {
  kk_view v;
  memset(&v, 0, sizeof v);
  const int64_t ext[3] = {n0, n1, n2};
  int64_t s = 1;
  for (int d = 0; d < KK_MAX_RANK; d++) { /* a constant trip count: unrolled, v stays in registers */
    v.d.extent[d] = d < rank ? ext[d] : 1;
    v.d.stride[d] = d < rank ? s : 0;
    s *= v.d.extent[d];
  }
  v.d.data = data;
  v.d.rank = rank;
  v.d.layout = KK_LAYOUT_LEFT;
  v.d.elem_size = elem;
  return v;
}
KK__FN uint64_t kk__sv_count(int rank, int64_t n0, int64_t n1, int64_t n2) {
  return (uint64_t)n0 * (uint64_t)(rank > 1 ? n1 : 1) * (uint64_t)(rank > 2 ? n2 : 1);
}
/* KK__SCRATCH_OR_LEAVE(expr): the scratch pointer, which the target's
 * kk__scratch ends the team's work on failure (simt: the thread exits;
 * spirv: the body returns). */
#define KK__SCRATCH_VIEW(t, level, per_thread, T, rank, n0, n1, n2)                                             \
  kk__scratch_view(KK__SCRATCH_OR_LEAVE(kk__scratch((t), (level), (per_thread),                                 \
                                                    kk__sv_count(rank, n0, n1, n2) * sizeof(T))),               \
                   (uint32_t)sizeof(T), rank, n0, n1, n2)
#define KK__SCRATCH_VIEW_(args) KK__SCRATCH_VIEW args
#define KK_TEAM_SCRATCH(t, level, T, n) ((T *)KK__SCRATCH_OR_LEAVE(kk__scratch((t), (level), 0, (uint64_t)(n) * sizeof(T))))
#define KK_THREAD_SCRATCH(t, level, T, n) ((T *)KK__SCRATCH_OR_LEAVE(kk__scratch((t), (level), 1, (uint64_t)(n) * sizeof(T))))
#define KK_TEAM_SCRATCH_VIEW(t, level, T, ...) KK__SCRATCH_VIEW_((t, level, 0, T, KK__SV_DIMS(__VA_ARGS__)))
#define KK_THREAD_SCRATCH_VIEW(t, level, T, ...) KK__SCRATCH_VIEW_((t, level, 1, T, KK__SV_DIMS(__VA_ARGS__)))

/* a team thread's contiguous block of [b, e) (scans need index order) */
KK__FN int64_t kk__tt_lo(const kk_team *t, int64_t b, int64_t e) {
  const int64_t n = e - b, ts = t->team_size, r = t->team_rank;
  return n <= 0 ? b : b + r * (n / ts) + (r < n % ts ? r : n % ts);
}
KK__FN int64_t kk__tt_hi(const kk_team *t, int64_t b, int64_t e) {
  const int64_t n = e - b, ts = t->team_size, r = t->team_rank;
  return n <= 0 ? b : kk__tt_lo(t, b, e) + n / ts + (r < n % ts ? 1 : 0);
}

/* Every thread and lane of the team gets the join over the team's threads,
 * in team-rank order (vector lane 0 of each speaks for its thread). */
template <class J, class V> KK__FN void kk__team_allreduce(const kk_team *t, V *v) {
  static_assert(sizeof(V) <= KK__TEAM_VALUE_MAX, "nested team reductions carry at most 32 bytes on GPUs");
  KK__TEAM_BARRIER();
  if (t->lane == 0)
    memcpy(t->coll + (size_t)t->team_rank * KK__TEAM_VALUE_MAX, v, sizeof(V));
  KK__TEAM_BARRIER();
  V acc;
  memcpy(&acc, t->coll, sizeof(V));
  for (int r = 1; r < t->team_size; r++) {
    V o;
    memcpy(&o, t->coll + (size_t)r * KK__TEAM_VALUE_MAX, sizeof(V));
    J::join(&acc, &o);
  }
  *v = acc;
  KK__TEAM_BARRIER();
}

#define KK_TEAM_THREAD_REDUCE(t, J, B, E, T, R, VAR)                                                            \
  for (int KK__CAT(kk__once_, J) = (KK__INIT_##R(T, &(VAR)), 1); KK__CAT(kk__once_, J);                          \
       KK__CAT(kk__once_, J) = 0, kk__team_allreduce<kk__bjoin<R, T> >((t), &(VAR)))                             \
  KK_TEAM_THREAD_FOR(t, J, B, E)
#define KK_THREAD_VECTOR_REDUCE(t, K, B, E, T, R, VAR)                                                          \
  for (int KK__CAT(kk__once_, K) = (KK__INIT_##R(T, &(VAR)), 1); KK__CAT(kk__once_, K);                          \
       KK__CAT(kk__once_, K) = 0, kk__vector_allreduce<kk__bjoin<R, T> >((t), &(VAR)))                           \
  KK_THREAD_VECTOR_FOR(t, K, B, E)
#define KK_TEAM_VECTOR_REDUCE(t, J, B, E, T, R, VAR)                                                            \
  for (int KK__CAT(kk__once_, J) = (KK__INIT_##R(T, &(VAR)), 1); KK__CAT(kk__once_, J);                          \
       KK__CAT(kk__once_, J) = 0, kk__vector_allreduce<kk__bjoin<R, T> >((t), &(VAR)),                           \
           kk__team_allreduce<kk__bjoin<R, T> >((t), &(VAR)))                                                    \
  KK_TEAM_VECTOR_FOR(t, J, B, E)
/* custom reducers: KK_REDUCER_JOIN's adapter struct */
#define KK_TEAM_THREAD_REDUCE_CUSTOM(t, J, B, E, RNAME, VAR)                                                    \
  for (int KK__CAT(kk__once_, J) = (kk__rinit_##RNAME(&(VAR)), 1); KK__CAT(kk__once_, J);                        \
       KK__CAT(kk__once_, J) = 0, kk__team_allreduce<kk__rj_##RNAME>((t), &(VAR)))                              \
  KK_TEAM_THREAD_FOR(t, J, B, E)
#define KK_THREAD_VECTOR_REDUCE_CUSTOM(t, K, B, E, RNAME, VAR)                                                  \
  for (int KK__CAT(kk__once_, K) = (kk__rinit_##RNAME(&(VAR)), 1); KK__CAT(kk__once_, K);                        \
       KK__CAT(kk__once_, K) = 0, kk__vector_allreduce<kk__rj_##RNAME>((t), &(VAR)))                            \
  KK_THREAD_VECTOR_FOR(t, K, B, E)

/* Nested scans (sums) over the team's threads: contiguous blocks per thread
 * in index order, two passes, the team's exclusive prefix in between. */
template <class V> KK__FN int kk__team_scan_step(const kk_team *t, int pass, V *v) {
  static_assert(sizeof(V) <= KK__TEAM_VALUE_MAX, "nested team scans carry at most 32 bytes on GPUs");
  KK__TEAM_BARRIER();
  if (pass == 0) {
    if (t->lane == 0)
      memcpy(t->coll + (size_t)t->team_rank * KK__TEAM_VALUE_MAX, v, sizeof(V));
    KK__TEAM_BARRIER();
    V acc = (V)0;
    for (int r = 0; r < t->team_rank; r++) {
      V o;
      memcpy(&o, t->coll + (size_t)r * KK__TEAM_VALUE_MAX, sizeof(V));
      acc += o;
    }
    *v = acc;
    KK__TEAM_BARRIER();
    return 1;
  }
  /* the last thread's running value is the total */
  if (t->lane == 0 && t->team_rank == t->team_size - 1)
    memcpy(t->coll, v, sizeof(V));
  KK__TEAM_BARRIER();
  memcpy(v, t->coll, sizeof(V));
  KK__TEAM_BARRIER();
  return 2;
}
#define KK_TEAM_THREAD_SCAN(t, J, B, E, T, VAR, FIN)                                                            \
  for (int FIN = ((VAR) = (T)0, 0); FIN < 2; FIN = kk__team_scan_step<T>((t), FIN, &(VAR)))                     \
    for (int64_t J = kk__tt_lo((t), (B), (E)), KK__CAT(kk__e_, J) = kk__tt_hi((t), (B), (E)); J < KK__CAT(kk__e_, J); ++J)
/* vector scans run on each thread's lanes redundantly: every lane walks the range */
#define KK_THREAD_VECTOR_SCAN(t, K, B, E, T, VAR, FIN) \
  for (int FIN = ((VAR) = (T)0, 1); FIN < 2; FIN = 2)  \
    for (int64_t K = (B), KK__CAT(kk__e_, K) = (E); K < KK__CAT(kk__e_, K); ++K)
#define KK_TEAM_VECTOR_SCAN(t, J, B, E, T, VAR, FIN) KK_TEAM_THREAD_SCAN(t, J, B, E, T, VAR, FIN)

/* single and broadcast */
#define KK_SINGLE_TEAM(t) if ((t)->team_rank == 0 && (t)->lane == 0)
#define KK_SINGLE_THREAD(t) if ((t)->lane == 0)
template <class V> KK__FN void kk__team_broadcast(const kk_team *t, V *v) {
  static_assert(sizeof(V) <= KK__TEAM_VALUE_MAX, "broadcast values carry at most 32 bytes on GPUs");
  KK__TEAM_BARRIER();
  if (t->team_rank == 0 && t->lane == 0)
    memcpy(t->coll, v, sizeof(V));
  KK__TEAM_BARRIER();
  memcpy(v, t->coll, sizeof(V));
  KK__TEAM_BARRIER();
}
#define KK_SINGLE_TEAM_BROADCAST(t, VAR)                                                                        \
  for (int kk__once_b = 1; kk__once_b; kk__once_b = 0, kk__team_broadcast((t), &(VAR)))                        \
    if ((t)->team_rank == 0 && (t)->lane == 0)

/* ==== atomics: the bits of a value; a lock of the device's table ============================= */

template <class T, class U> KK__FN U kk__bits(T v) {
  U u;
  memcpy(&u, &v, sizeof u);
  return u;
}
template <class T, class U> KK__FN T kk__from_bits(U u) {
  T v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* The word of the device lock table that guards address p. */
#define KK__LOCK_INDEX(p) \
  (((((uint64_t)(p) >> 3) ^ ((uint64_t)(p) >> 20)) * (uint64_t)0x9E3779B97F4A7C15) >> 40 & (KK__LOCK_COUNT - 1))

/* ==== ScatterView access: contributions are atomics on the target view ======================= */
#define KK_SCATTER_ADD(sv, T, v, ...) kk_atomic_add((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (v))
#define KK_SCATTER_MIN(sv, T, v, ...) kk_atomic_min((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (T)(v))
#define KK_SCATTER_MAX(sv, T, v, ...) kk_atomic_max((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (T)(v))

#endif /* KK_TARGET_GPU_COMMON_H */
