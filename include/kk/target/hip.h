/* kk/target/hip.h -- how the HIP target spells the kernel language: one __global__ function per kernel (HIP-Clang). */
#ifndef KK_TARGET_HIP_H
#define KK_TARGET_HIP_H

/*
 * Compiled as HIP (C++) by hipcc, kkcc's hip recipe: one device-only compile
 * per kernel file, a code object per architecture in a clang offload bundle.
 * Every kernel becomes extern "C" __global__ kk_k_<name> taking (argument
 * struct, kk_gpu_launch) by value; plugins/hip fills the launch record and
 * chooses the grid.  The mapping is the CUDA target's (kk/target/cuda.h),
 * with the wavefront in place of the warp:
 *
 *   wavefronts     KK__WAVE lanes, a compile-time constant of each code object
 *                  (__AMDGCN_WAVEFRONT_SIZE: 64 on gfx9 / CDNA, 32 on gfx10+
 *                  in wave32 mode); nothing here assumes 32 or 64.  Lanes of a
 *                  wave run in lockstep, so there are no lane masks: shuffles
 *                  are ds_bpermute over the wave, votes cover the active lanes.
 *   range for      grid-stride loop, one index per thread per step
 *   range reduce   per-thread partials, a block reduction (wave shuffles in
 *                  lane order, then the wave totals), one partial per block,
 *                  the last block to finish combines them and writes the result
 *   scan           one pass: tiles of items rounds of blockDim elements taken in
 *                  order, block scans, decoupled look-back one wave wide
 *   MDRange        a block per tile (grid-stride over tiles)
 *   teams          a block per team (grid-stride over league ranks),
 *                  threadIdx.y = team rank, threadIdx.x = vector lane (a
 *                  vector is a group of lanes of one wave); level-0 scratch in
 *                  LDS, level-1 in a device pool
 */

#include <hip/hip_runtime.h>

#include <kk/target/gpu_launch.h>

#define KK__DEFAULT_LAYOUT KK_LAYOUT_LEFT
#define KK__DEFAULT_ITERATE 2 /* KK_ITERATE_LEFT */
#define KK__FN static __device__ __forceinline__
#define KK__UNUSED __attribute__((unused))
#ifndef restrict
#define restrict __restrict__
#endif

/* Lanes of a wavefront in the code object being compiled. */
#if defined(__AMDGCN_WAVEFRONT_SIZE)
#define KK__WAVE __AMDGCN_WAVEFRONT_SIZE
#else
#define KK__WAVE 64 /* the host pass of a full compile: no device code is generated from it */
#endif
#define KK__WAVE_MAX 64

typedef const kk_host_thread_t *kk__thread_t;

/* The type of an expression. */
template <class T> struct kk__unref { typedef T type; };
template <class T> struct kk__unref<T &> { typedef T type; };
#define KK__TYPEOF(x) typename kk__unref<decltype(x)>::type

/* Dynamic shared memory (LDS) of every kernel: reductions and level-0 scratch. */
extern __shared__ __attribute__((aligned(16))) unsigned char kk__smem[];

/* The device lock table of arbitrary-size atomics; the plugin points it at
 * one table per device when it loads the module. */
extern "C" {
__device__ unsigned int *kk__dev_locks;
/* Lets the plugin check that module and plugin speak the same launch record. */
__device__ int kk__gpu_launch_version = KK_GPU_LAUNCH_VERSION;
}

/* ==== generic helpers ===================================================================== */

/* Orders this wave's LDS accesses around an exchange between its lanes
 * (CUDA's __syncwarp: the lanes already run together; this keeps the
 * compiler from moving loads and stores across). */
static __device__ __forceinline__ void kk__wave_sync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

/* Shuffles of any trivially copyable value, word by word, among groups of
 * `width` lanes (a power of two up to the wave).  A lane whose source lies
 * outside its group, or names a lane that does not exist, gets a value it
 * must not use: the callers check. */
#define KK__SHFL_WORDS(FN, ARG)                                                                                 \
  int w[(sizeof(T) + 3) / 4];                                                                                   \
  memcpy(w, &v, sizeof(T));                                                                                     \
  _Pragma("unroll") for (int k = 0; k < (int)((sizeof(T) + 3) / 4); k++) w[k] = FN(w[k], ARG, width);           \
  memcpy(&v, w, sizeof(T));                                                                                     \
  return v;
template <class T> __device__ __forceinline__ T kk__shfl_down(T v, int d, int width = KK__WAVE) {
  KK__SHFL_WORDS(__shfl_down, (unsigned)d)
}
template <class T> __device__ __forceinline__ T kk__shfl_up(T v, int d, int width = KK__WAVE) {
  KK__SHFL_WORDS(__shfl_up, (unsigned)d)
}
template <class T> __device__ __forceinline__ T kk__shfl_xor(T v, int d, int width = KK__WAVE) {
  KK__SHFL_WORDS(__shfl_xor, d)
}
template <class T> __device__ __forceinline__ T kk__shfl(T v, int src, int width = KK__WAVE) {
  KK__SHFL_WORDS(__shfl, src)
}

/* A load of what other blocks published (through L2, past this CU's cache). */
template <class T> __device__ __forceinline__ T kk__load_cg(const T *p) {
  T v;
  if (sizeof(T) % 4 == 0) {
    unsigned w[sizeof(T) / 4 + (sizeof(T) % 4 ? 1 : 0)];
    for (int k = 0; k < (int)(sizeof(T) / 4); k++)
      w[k] = __hip_atomic_load((const unsigned *)p + k, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    memcpy(&v, w, sizeof(T));
  } else {
    unsigned char b[sizeof(T)];
    for (int k = 0; k < (int)sizeof(T); k++)
      b[k] = ((const volatile unsigned char *)p)[k];
    memcpy(&v, b, sizeof(T));
  }
  return v;
}

/* Block-wide reduction of one value per thread (any block shape, linear
 * thread id tid of n).  Lane order is kept (lane i joins lane i + d, which
 * holds the lanes after it), so the result does not depend on timing and
 * the join need not commute.  The last wave of a block may be partial (3
 * team threads x 4 lanes): lanes past the end are never joined.  Thread 0
 * gets the result.  Uses kk__smem from offset `at`. */
template <class VT, class RED>
__device__ __forceinline__ VT kk__block_reduce(VT v, unsigned tid, unsigned n, unsigned at) {
  const unsigned lane = tid % KK__WAVE, wave = tid / KK__WAVE, nwaves = (n + KK__WAVE - 1) / KK__WAVE;
  const unsigned here = n - wave * KK__WAVE < KK__WAVE ? n - wave * KK__WAVE : KK__WAVE; /* lanes of this wave */
#pragma unroll
  for (int d = 1; d < KK__WAVE; d <<= 1) {
    VT o = kk__shfl_down(v, d);
    if ((lane & (2u * d - 1u)) == 0 && lane + d < here)
      RED::join(&v, &o);
  }
  VT *ws = (VT *)(kk__smem + at);
  __syncthreads();
  if (lane == 0)
    ws[wave] = v;
  __syncthreads();
  if (tid == 0)
    for (unsigned w = 1; w < nwaves; w++)
      RED::join(&v, &ws[w]);
  __syncthreads();
  return v;
}

/* The end of every reduce kernel: block partial, then the last block combines. */
template <class VT, class RED>
__device__ void kk__reduce_finish(VT v, const kk_gpu_launch &L, unsigned tid, unsigned n, unsigned nblocks,
                                  unsigned block) {
  v = kk__block_reduce<VT, RED>(v, tid, n, 0);
  __shared__ bool kk__last;
  if (tid == 0) {
    ((VT *)L.partials)[block] = v;
    if (L.result_flag)
      __threadfence_system(); /* the host may go on before the kernel ends: the body's writes first */
    else
      __threadfence();
    kk__last = atomicAdd(L.counter, 1u) == nblocks - 1;
  }
  __syncthreads();
  if (!kk__last)
    return;
  __threadfence(); /* acquire: the other blocks' partials */
  VT acc;
  RED::init(&acc);
  for (unsigned b = tid; b < nblocks; b += n) {
    VT p = kk__load_cg((const VT *)L.partials + b);
    RED::join(&acc, &p);
  }
  acc = kk__block_reduce<VT, RED>(acc, tid, n, 0);
  if (tid == 0) {
    *(VT *)L.result = acc;
    *L.counter = 0; /* ready for the next launch */
    __threadfence_system();
    if (L.result_flag)
      __hip_atomic_store(L.result_flag, L.result_seq, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM); /* the host waits for this word */
  }
}

/* Inclusive scan of one value per lane across the wave, in lane order. */
template <class T, class RED> __device__ __forceinline__ T kk__wave_scan(T v, unsigned lane) {
#pragma unroll
  for (int d = 1; d < KK__WAVE; d <<= 1) {
    T o = kk__shfl_up(v, d);
    if ((int)lane >= d) {
      RED::join(&o, &v);
      v = o;
    }
  }
  return v;
}

/* One tile of a single-pass scan; body(i, &value, final).  The tile is
 * L.items rounds of blockDim consecutive elements, one per thread, so that
 * every load is coalesced; each round is a wave scan whose prefixes stay in
 * registers until the tile's prefix is known.  Joins keep element order, so
 * a reducer need not commute.  blockDim.x is a multiple of the wave. */
#define KK__SCAN_MAX_ITEMS 16
template <class T, class RED, class F> __device__ void kk__scan_tile(const kk_gpu_launch &L, F body) {
  __shared__ unsigned long long kk__tile;
  __shared__ T kk__prefix;
  if (threadIdx.x == 0) {
    kk__tile = atomicAdd(L.tile_counter, 1ull) - L.tile_base;
    if (kk__tile == gridDim.x - 1)
      *L.tile_counter = L.tile_base; /* every tile is handed out: ready for the next launch */
  }
  __syncthreads();
  const unsigned long long tile = kk__tile;
  const int items = L.items < KK__SCAN_MAX_ITEMS ? (int)L.items : KK__SCAN_MAX_ITEMS;
  const int64_t per = (int64_t)blockDim.x * items;
  const int64_t base = L.begin + (int64_t)tile * per + threadIdx.x;
  const unsigned lane = threadIdx.x % KK__WAVE, wave = threadIdx.x / KK__WAVE, nwaves = blockDim.x / KK__WAVE;
  /* round r covers elements base + r * blockDim: a wave scan of each round
   * in registers, the wave totals (round-major) in shared memory */
  T *wt = (T *)kk__smem;
  T pre[KK__SCAN_MAX_ITEMS];
#pragma unroll
  for (int r = 0; r < KK__SCAN_MAX_ITEMS; r++) {
    /* fully unrolled, a guard rather than a break: pre[] stays in registers */
    if (r < items) {
      const int64_t i = base + (int64_t)r * blockDim.x;
      T v;
      RED::init(&v);
      if (i < L.end)
        body(i, &v, 0);
      v = kk__wave_scan<T, RED>(v, lane);
      if (lane == KK__WAVE - 1)
        wt[r * nwaves + wave] = v; /* the wave's total for this round */
      T ex = kk__shfl_up(v, 1);
      if (lane == 0)
        RED::init(&ex);
      pre[r] = ex; /* exclusive within the wave */
    }
  }
  __syncthreads();
  /* wave 0: the exclusive prefixes of the items * nwaves totals, in order;
   * each lane folds a run of them, a wave scan joins the runs */
  __shared__ T kk__agg;
  if (wave == 0) {
    const unsigned n = (unsigned)items * nwaves, each = (n + KK__WAVE - 1) / KK__WAVE, b0 = lane * each;
    T run;
    RED::init(&run);
    for (unsigned q = b0; q < b0 + each && q < n; q++)
      RED::join(&run, &wt[q]);
    T incl = kk__wave_scan<T, RED>(run, lane);
    T acc = kk__shfl_up(incl, 1);
    if (lane == 0)
      RED::init(&acc);
    if (lane == KK__WAVE - 1)
      kk__agg = incl;
    for (unsigned q = b0; q < b0 + each && q < n; q++) {
      const T w = wt[q];
      wt[q] = acc; /* now the prefix before this wave's round */
      RED::join(&acc, &w);
    }
  }
  __syncthreads();
#pragma unroll
  for (int r = 0; r < KK__SCAN_MAX_ITEMS; r++) {
    if (r < items) {
      T p = wt[r * nwaves + wave];
      RED::join(&p, &pre[r]);
      pre[r] = p;
    }
  }
  const T agg = kk__agg;
  /* Wave 0 publishes the tile's aggregate and looks back one wave of
   * predecessors at a time: each lane waits for one status word, the nearest
   * inclusive prefix ends the walk, and lane 0 folds the window in tile order. */
  __shared__ T kk__win[KK__WAVE_MAX];
  if (threadIdx.x < KK__WAVE) {
    const unsigned long long E = L.epoch << 2;
    T *aggs = (T *)L.partials, *incls = (T *)L.partials2;
    unsigned long long *st = L.status;
    T prefix;
    RED::init(&prefix);
    if (tile == 0) {
      if (lane == 0) {
        incls[0] = agg;
        __threadfence();
        __hip_atomic_store(&st[0], E | KK_GPU_TILE_INCLUSIVE, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
      }
    } else {
      if (lane == 0) {
        aggs[tile] = agg;
        __threadfence();
        __hip_atomic_store(&st[tile], E | KK_GPU_TILE_AGGREGATE, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
      }
      for (long long top = (long long)tile - 1;; top -= KK__WAVE) {
        const long long j = top - (KK__WAVE - 1 - (long long)lane); /* the last lane is the nearest */
        unsigned long long sw = 0;
        if (j >= 0)
          while (((sw = __hip_atomic_load(&st[j], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) >> 2) != L.epoch)
            __builtin_amdgcn_s_sleep(1);
        __threadfence();
        const bool incl = j >= 0 && (sw & 3ull) == KK_GPU_TILE_INCLUSIVE;
        const unsigned long long found = __ballot(incl); /* bit i: lane i */
        const int first = found ? 63 - __builtin_clzll(found) : 0;
        if (j >= 0 && (int)lane >= first)
          kk__win[lane] = kk__load_cg(incl ? incls + j : aggs + j);
        kk__wave_sync();
        if (lane == 0) {
          T w;
          RED::init(&w);
          for (int k = first; k < KK__WAVE; k++)
            if (top - (KK__WAVE - 1 - k) >= 0)
              RED::join(&w, &kk__win[k]);
          RED::join(&w, &prefix);
          prefix = w;
        }
        kk__wave_sync();
        if (found) /* tile 0 is always inclusive: the walk ends */
          break;
      }
      if (lane == 0) {
        T inclusive = prefix;
        RED::join(&inclusive, &agg);
        incls[tile] = inclusive;
        __threadfence();
        __hip_atomic_store(&st[tile], E | KK_GPU_TILE_INCLUSIVE, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
      }
    }
    if (lane == 0) {
      kk__prefix = prefix;
      if (L.result && (int64_t)(tile + 1) * per >= L.end - L.begin) {
        T inclusive = prefix;
        RED::join(&inclusive, &agg);
        *(T *)L.result = inclusive; /* the last tile: the scan's total */
      }
    }
  }
  __syncthreads();
  const T tp = kk__prefix;
#pragma unroll
  for (int r = 0; r < KK__SCAN_MAX_ITEMS; r++) {
    const int64_t i = base + (int64_t)r * blockDim.x;
    if (r < items && i < L.end) {
      T run = tp;
      RED::join(&run, &pre[r]);
      body(i, &run, 1);
    }
  }
}

/* ==== reducer plumbing ===================================================================== */

#define KK__RED_STRUCT(NAME, VT, INIT_STMT, JOIN_STMT)                                                          \
  struct kk__red_##NAME {                                                                                       \
    static __device__ __forceinline__ void init(VT *kk__p) { INIT_STMT; }                                       \
    static __device__ __forceinline__ void join(VT *kk__d, const VT *kk__s) { JOIN_STMT; }                      \
  };
#define KK__RED1(NAME, T, R, VT) KK__RED_STRUCT(NAME, VT, KK__INIT_##R(T, kk__p), KK__JOIN_##R(T, kk__d, kk__s))
#define KK__RED_CUSTOM(NAME, T, R) KK__RED_STRUCT(NAME, T, kk__rinit_##R(kk__p), kk__rjoin_##R(kk__d, kk__s))
#define KK__RED_N(NAME, VT, ...)                                                                                \
  struct kk__red_##NAME {                                                                                       \
    static __device__ __forceinline__ void init(VT *kk__v) { KK__FOREACH(KK__RN_INIT, kk__v, __VA_ARGS__) }     \
    static __device__ __forceinline__ void join(VT *kk__d, const VT *kk__s) {                                   \
      KK__FOREACH(KK__RN_JOIN, (kk__d, kk__s), __VA_ARGS__)                                                     \
    }                                                                                                           \
  };

#define KK_REDUCER_INIT(R, T, V) static __device__ __forceinline__ void kk__rinit_##R(T *const V)
#define KK_REDUCER_JOIN(R, T, DST, SRC) static __device__ __forceinline__ void kk__rjoin_##R(T *const DST, const T *const SRC)

/* ==== range kernels ========================================================================= */

/* Not unrolled: most threads run it once, and unrolling a grid-stride loop
 * makes every thread divide to find its trip count first. */
#define KK__GRID_LOOP(I)                                                                                        \
  _Pragma("unroll 1") for (int64_t I = kk__L.begin + (int64_t)blockIdx.x * blockDim.x + threadIdx.x,                                \
               kk__stride = (int64_t)gridDim.x * blockDim.x;                                                    \
       I < kk__L.end; I += kk__stride)

#define KK_FOR(NAME, ARGS_T, I)                                                                                 \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         const int64_t I KK__UNUSED, kk__thread_t kk__th KK__UNUSED); \
  extern "C" __global__ void kk_k_##NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {                      \
    KK__GRID_LOOP(kk__i) kk__body_##NAME(&kk__a, kk__i, nullptr);                                               \
  }                                                                                                             \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         const int64_t I KK__UNUSED, kk__thread_t kk__th KK__UNUSED)

#define KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC)                                                             \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         const int64_t I KK__UNUSED, VT *const ACC KK__UNUSED,   \
                                                         kk__thread_t kk__th KK__UNUSED);                       \
  extern "C" __global__ void kk_k_##NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {                      \
    VT kk__acc;                                                                                                 \
    kk__red_##NAME::init(&kk__acc);                                                                             \
    KK__GRID_LOOP(kk__i) kk__body_##NAME(&kk__a, kk__i, &kk__acc, nullptr);                                     \
    kk__reduce_finish<VT, kk__red_##NAME>(kk__acc, kk__L, threadIdx.x, blockDim.x, gridDim.x, blockIdx.x);     \
  }                                                                                                             \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         const int64_t I KK__UNUSED, VT *const ACC KK__UNUSED,   \
                                                         kk__thread_t kk__th KK__UNUSED)

#define KK_REDUCE(NAME, ARGS_T, T, R, I, ACC) \
  KK__RED1(NAME, T, R, KK__VT_##R(T))         \
  KK__REDUCE_COMMON(NAME, ARGS_T, KK__VT_##R(T), I, ACC)
#define KK_REDUCE_CUSTOM(NAME, ARGS_T, T, R, I, ACC) \
  KK__RED_CUSTOM(NAME, T, R)                         \
  KK__REDUCE_COMMON(NAME, ARGS_T, T, I, ACC)
#define KK_REDUCE_N(NAME, ARGS_T, VT, I, ACC, ...) \
  KK__RED_N(NAME, VT, __VA_ARGS__)                 \
  KK__REDUCE_COMMON(NAME, ARGS_T, VT, I, ACC)

#define KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN)                                                           \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         const int64_t I KK__UNUSED, T *const UPD KK__UNUSED,    \
                                                         const int FIN KK__UNUSED, kk__thread_t kk__th KK__UNUSED); \
  extern "C" __global__ void kk_k_##NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {                      \
    kk__scan_tile<T, kk__red_##NAME>(kk__L, [&](int64_t kk__i, T *kk__v, int kk__f) {                          \
      if (kk__f)                                                                                                \
        kk__body_##NAME(&kk__a, kk__i, kk__v, 1, nullptr);                                                      \
      else                                                                                                      \
        kk__body_##NAME(&kk__a, kk__i, kk__v, 0, nullptr);                                                      \
    });                                                                                                         \
  }                                                                                                             \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         const int64_t I KK__UNUSED, T *const UPD KK__UNUSED,    \
                                                         const int FIN KK__UNUSED, kk__thread_t kk__th KK__UNUSED)
#define KK_SCAN(NAME, ARGS_T, T, I, UPD, FIN) \
  KK__RED1(NAME, T, KK_SUM, T)                \
  KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN)
#define KK_SCAN_CUSTOM(NAME, ARGS_T, T, R, I, UPD, FIN) \
  KK__RED_CUSTOM(NAME, T, R)                            \
  KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN)

/* ==== MDRange kernels ======================================================================= */

/* MDRange blocks have at most 256 threads (plugins/hip reads the bound
 * back): the compiler may then give each thread more registers than the
 * default bound of 1024 threads allows. */
#define KK__MD_BOUNDS __launch_bounds__(256)

/* The tiles of this block, R dimensions, the iteration orders as template
 * arguments: every index array stays in registers, and the tile coordinates
 * use 32-bit division where the counts allow (int64 division is a long
 * instruction sequence on a GPU). */
template <int R, bool IL, bool OL, class F> __device__ __forceinline__ void kk__md_tiles(const kk_gpu_launch &L, F f) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned nt = blockDim.x * blockDim.y * blockDim.z;
  const bool small = L.md_tiles <= 0xffffffffll;
#pragma unroll 1
  for (int64_t t = blockIdx.x; t < L.md_tiles; t += gridDim.x) {
    int64_t lo[R], hi[R], rem = t;
#pragma unroll
    for (int k = 0; k < R; k++) {
      const int d = OL ? k : R - 1 - k;
      int64_t q, m;
      if (small) {
        const unsigned r32 = (unsigned)rem, n32 = (unsigned)L.md_ntile[d];
        q = r32 / n32, m = r32 - (unsigned)q * n32;
      } else {
        q = rem / L.md_ntile[d], m = rem - q * L.md_ntile[d];
      }
      rem = q;
      lo[d] = L.md_begin[d] + m * L.md_tile[d];
      hi[d] = lo[d] + L.md_tile[d] < L.md_end[d] ? lo[d] + L.md_tile[d] : L.md_end[d];
    }
    int64_t idx[R];
    if (!L.flat) {
      /* x, y on the two innermost dimensions, z on the others */
      const int d0 = IL ? 0 : R - 1, d1 = IL ? 1 : R - 2;
      idx[d0] = lo[d0] + threadIdx.x;
      idx[d1] = lo[d1] + threadIdx.y;
      bool in2 = idx[d0] < hi[d0] && idx[d1] < hi[d1];
      /* the tile's other dimensions: threadIdx.z, then a loop (several
       * independent points per thread keep more loads in flight) */
      unsigned rest = 1;
#pragma unroll
      for (int k = 2; k < R; k++)
        rest *= (unsigned)L.md_tile[IL ? k : R - 1 - k];
      for (unsigned zz = threadIdx.z; zz < rest; zz += blockDim.z) {
        unsigned z = zz;
        bool in = in2;
#pragma unroll
        for (int k = 2; k < R; k++) {
          const int d = IL ? k : R - 1 - k;
          if (k == R - 1) {
            idx[d] = lo[d] + z;
          } else {
            const unsigned tl = (unsigned)L.md_tile[d];
            idx[d] = lo[d] + z % tl;
            z /= tl;
          }
          in = in && idx[d] < hi[d];
        }
        if (in)
          f(idx);
      }
    } else {
      int64_t pts = 1;
#pragma unroll
      for (int d = 0; d < R; d++)
        pts *= hi[d] - lo[d];
      for (int64_t p = tid; p < pts; p += nt) {
        int64_t q = p;
#pragma unroll
        for (int k = 0; k < R; k++) {
          const int d = IL ? k : R - 1 - k;
          const int64_t ext = hi[d] - lo[d];
          const int64_t qq = q / ext;
          idx[d] = lo[d] + (q - qq * ext);
          q = qq;
        }
        f(idx);
      }
    }
  }
}
template <int R, class F> __device__ __forceinline__ void kk__md_run(const kk_gpu_launch &L, F f) {
  if (L.inner_left)
    L.outer_left ? kk__md_tiles<R, true, true>(L, f) : kk__md_tiles<R, true, false>(L, f);
  else
    L.outer_left ? kk__md_tiles<R, false, true>(L, f) : kk__md_tiles<R, false, false>(L, f);
}

#define KK__MD_PARAMS(...) KK__FOREACH(KK__MD_PARAM, ~, __VA_ARGS__)
#define KK__MD_PARAM(unused, i) const int64_t i KK__UNUSED,
#define KK__IX2 kk__ix[0], kk__ix[1]
#define KK__IX3 KK__IX2, kk__ix[2]
#define KK__IX4 KK__IX3, kk__ix[3]
#define KK__IX5 KK__IX4, kk__ix[4]
#define KK__IX6 KK__IX5, kk__ix[5]

#define KK__MD_FOR(NAME, ARGS_T, RANK, ...)                                                                     \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         KK__MD_PARAMS(__VA_ARGS__) kk__thread_t kk__th KK__UNUSED); \
  extern "C" __global__ void KK__MD_BOUNDS kk_k_##NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {                      \
    kk__md_run<RANK>(kk__L, [&](const int64_t *kk__ix) { kk__body_##NAME(&kk__a, KK__IX##RANK, nullptr); });         \
  }                                                                                                             \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         KK__MD_PARAMS(__VA_ARGS__) kk__thread_t kk__th KK__UNUSED)
#define KK_MD_FOR2(NAME, ARGS_T, I0, I1) KK__MD_FOR(NAME, ARGS_T, 2, I0, I1)
#define KK_MD_FOR3(NAME, ARGS_T, I0, I1, I2) KK__MD_FOR(NAME, ARGS_T, 3, I0, I1, I2)
#define KK_MD_FOR4(NAME, ARGS_T, I0, I1, I2, I3) KK__MD_FOR(NAME, ARGS_T, 4, I0, I1, I2, I3)
#define KK_MD_FOR5(NAME, ARGS_T, I0, I1, I2, I3, I4) KK__MD_FOR(NAME, ARGS_T, 5, I0, I1, I2, I3, I4)
#define KK_MD_FOR6(NAME, ARGS_T, I0, I1, I2, I3, I4, I5) KK__MD_FOR(NAME, ARGS_T, 6, I0, I1, I2, I3, I4, I5)

#define KK__MD_REDUCE(NAME, ARGS_T, T, R, RANK, ACC, ...)                                                       \
  KK__RED1(NAME, T, R, KK__VT_##R(T))                                                                           \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         KK__MD_PARAMS(__VA_ARGS__) KK__VT_##R(T) *const ACC KK__UNUSED, \
                                                         kk__thread_t kk__th KK__UNUSED);                       \
  extern "C" __global__ void KK__MD_BOUNDS kk_k_##NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {                      \
    KK__VT_##R(T) kk__acc;                                                                                      \
    kk__red_##NAME::init(&kk__acc);                                                                             \
    kk__md_run<RANK>(kk__L, [&](const int64_t *kk__ix) { kk__body_##NAME(&kk__a, KK__IX##RANK, &kk__acc, nullptr); }); \
    kk__reduce_finish<KK__VT_##R(T), kk__red_##NAME>(kk__acc, kk__L,                                            \
                                                     threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z), \
                                                     blockDim.x * blockDim.y * blockDim.z, gridDim.x, blockIdx.x); \
  }                                                                                                             \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         KK__MD_PARAMS(__VA_ARGS__) KK__VT_##R(T) *const ACC KK__UNUSED, \
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
  unsigned char *coll;            /* team_size slots of KK_GPU_TEAM_VALUE_MAX bytes for collectives */
  unsigned int *failed;
} kk_team;

#define KK_LEAGUE_RANK(t) ((t)->league_rank)
#define KK_LEAGUE_SIZE(t) ((t)->league_size)
#define KK_TEAM_RANK(t) ((int64_t)(t)->team_rank)
#define KK_TEAM_SIZE(t) ((int64_t)(t)->team_size)
#define KK_VECTOR_LENGTH(t) ((int64_t)(t)->vlen)
#define KK_TEAM_BARRIER(t) __syncthreads()

/* Shared-memory layout of a team block: collectives, team level-0 scratch,
 * then each thread's level-0 scratch. */
static __device__ __forceinline__ void kk__team_setup(kk_team *t, const kk_gpu_launch &L) {
  t->league_size = L.league_size;
  t->team_rank = threadIdx.y;
  t->team_size = blockDim.y;
  t->lane = threadIdx.x;
  t->vlen = blockDim.x;
  t->coll = kk__smem;
  unsigned char *s0 = kk__smem + (((uint64_t)blockDim.y * KK_GPU_TEAM_VALUE_MAX + 15) & ~(uint64_t)15);
  t->team_scr[0] = s0;
  t->thread_scr[0] = s0 + ((L.team_scratch[0] + 15) & ~(uint64_t)15) +
                     (uint64_t)threadIdx.y * ((L.thread_scratch[0] + 15) & ~(uint64_t)15);
  unsigned char *s1 = L.scratch1 + (uint64_t)blockIdx.x * L.scratch1_stride;
  t->team_scr[1] = s1;
  t->thread_scr[1] = s1 + ((L.team_scratch[1] + 15) & ~(uint64_t)15) +
                     (uint64_t)threadIdx.y * ((L.thread_scratch[1] + 15) & ~(uint64_t)15);
  for (int l = 0; l < 2; l++) {
    t->team_size_b[l] = L.team_scratch[l];
    t->thread_size_b[l] = L.thread_scratch[l];
  }
  t->failed = L.failed;
}

/* A scratch request that does not fit records the failure and ends the
 * thread: every thread of the team makes the same request, so the team ends
 * and nothing past the scratch is written. */
static __device__ __forceinline__ void *kk__scratch(kk_team *t, int level, int per_thread, uint64_t bytes) {
  const uint64_t need = (bytes + (KK_SCRATCH_ALIGN - 1)) & ~(uint64_t)(KK_SCRATCH_ALIGN - 1);
  uint64_t *used = per_thread ? &t->thread_used[level] : &t->team_used[level];
  const uint64_t have = per_thread ? t->thread_size_b[level] : t->team_size_b[level];
  if (*used + need > have) {
    /* the first failure records what was asked and what the launch gave */
    if (atomicCAS(t->failed, 0u, 1u + (unsigned)level + (per_thread ? 2u : 0u)) == 0u) {
      unsigned long long *sizes = (unsigned long long *)(t->failed + 2);
      sizes[0] = *used + need;
      sizes[1] = have;
      __threadfence();
    }
    /* ends the wavefront: its other lanes make the same request; waves that
     * ended no longer count at the team's barriers (s_endpgm) */
    __builtin_amdgcn_endpgm();
  }
  unsigned char *p = (per_thread ? t->thread_scr[level] : t->team_scr[level]) + *used;
  *used += need;
  return p;
}
#define KK_TEAM_SCRATCH(t, level, T, n) ((T *)kk__scratch((t), (level), 0, (uint64_t)(n) * sizeof(T)))
#define KK_THREAD_SCRATCH(t, level, T, n) ((T *)kk__scratch((t), (level), 1, (uint64_t)(n) * sizeof(T)))

static __device__ __forceinline__ kk_view kk__scratch_view(kk_team *t, int level, int per_thread, uint32_t elem,
                                                           int rank, int64_t n0, int64_t n1, int64_t n2) {
  kk_view v;
  memset(&v, 0, sizeof v);
  const int64_t ext[3] = {n0, n1, n2};
  uint64_t count = 1;
  for (int d = 0; d < KK_MAX_RANK; d++)
    v.d.extent[d] = d < rank ? ext[d] : 1;
  int64_t s = 1;
  for (int d = 0; d < rank; d++) { /* left layout on GPU targets */
    v.d.stride[d] = s;
    s *= ext[d];
    count *= (uint64_t)ext[d];
  }
  v.d.data = kk__scratch(t, level, per_thread, count * elem);
  v.d.rank = rank;
  v.d.layout = KK_LAYOUT_LEFT;
  v.d.elem_size = elem;
  return v;
}
#define KK__SV_DIMS(...) KK__NARG(__VA_ARGS__), KK__SV_PAD(__VA_ARGS__, 1, 1)
#define KK__SV_PAD(a, b, c, ...) (a), (b), (c)
#define KK_TEAM_SCRATCH_VIEW(t, level, T, ...) \
  kk__scratch_view((t), (level), 0, (uint32_t)sizeof(T), KK__SV_DIMS(__VA_ARGS__))
#define KK_THREAD_SCRATCH_VIEW(t, level, T, ...) \
  kk__scratch_view((t), (level), 1, (uint32_t)sizeof(T), KK__SV_DIMS(__VA_ARGS__))

#define KK__TEAM_KERNEL(NAME, ARGS_T, BODY_CALL, ACC_DECL, ACC_FINISH)                                          \
  extern "C" __global__ void kk_k_##NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {                      \
    kk_team kk__t;                                                                                              \
    kk__team_setup(&kk__t, kk__L);                                                                              \
    ACC_DECL;                                                                                                   \
    _Pragma("unroll 1") for (int64_t kk__l = blockIdx.x; kk__l < kk__L.league_size; kk__l += gridDim.x) {                           \
      kk__t.league_rank = kk__l;                                                                                \
      kk__t.team_used[0] = kk__t.team_used[1] = kk__t.thread_used[0] = kk__t.thread_used[1] = 0;                \
      BODY_CALL;                                                                                                \
      __syncthreads();                                                                                          \
    }                                                                                                           \
    ACC_FINISH;                                                                                                 \
  }

#define KK_TEAM_FOR(NAME, ARGS_T, TEAM)                                                                         \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         kk_team *const TEAM KK__UNUSED, kk__thread_t kk__th KK__UNUSED); \
  KK__TEAM_KERNEL(NAME, ARGS_T, kk__body_##NAME(&kk__a, &kk__t, nullptr), (void)0, (void)0)                     \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         kk_team *const TEAM KK__UNUSED, kk__thread_t kk__th KK__UNUSED)

/* Team reductions: the acc of vector lane 0 of every thread of every team. */
#define KK_TEAM_REDUCE(NAME, ARGS_T, T, R, TEAM, ACC)                                                           \
  KK__RED1(NAME, T, R, KK__VT_##R(T))                                                                           \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         kk_team *const TEAM KK__UNUSED,                        \
                                                         KK__VT_##R(T) *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED); \
  extern "C" __global__ void kk_k_##NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {                      \
    kk_team kk__t;                                                                                              \
    kk__team_setup(&kk__t, kk__L);                                                                              \
    KK__VT_##R(T) kk__acc;                                                                                      \
    kk__red_##NAME::init(&kk__acc);                                                                             \
    _Pragma("unroll 1") for (int64_t kk__l = blockIdx.x; kk__l < kk__L.league_size; kk__l += gridDim.x) {                           \
      kk__t.league_rank = kk__l;                                                                                \
      kk__t.team_used[0] = kk__t.team_used[1] = kk__t.thread_used[0] = kk__t.thread_used[1] = 0;                \
      kk__body_##NAME(&kk__a, &kk__t, &kk__acc, nullptr);                                                       \
      __syncthreads();                                                                                          \
    }                                                                                                           \
    if (threadIdx.x != 0)                                                                                       \
      kk__red_##NAME::init(&kk__acc);                                                                           \
    kk__reduce_finish<KK__VT_##R(T), kk__red_##NAME>(kk__acc, kk__L, threadIdx.x + blockDim.x * threadIdx.y,   \
                                                     blockDim.x * blockDim.y, gridDim.x, blockIdx.x);           \
  }                                                                                                             \
  static __device__ __forceinline__ void kk__body_##NAME(const ARGS_T *const args KK__UNUSED,                   \
                                                         kk_team *const TEAM KK__UNUSED,                        \
                                                         KK__VT_##R(T) *const ACC KK__UNUSED, kk__thread_t kk__th KK__UNUSED)

/* ---- nested loops ------------------------------------------------------------------------------- */

/* a team thread's contiguous block of [b, e) (scans need index order) */
static __device__ __forceinline__ int64_t kk__tt_lo(const kk_team *t, int64_t b, int64_t e) {
  const int64_t n = e - b, ts = t->team_size, r = t->team_rank;
  return n <= 0 ? b : b + r * (n / ts) + (r < n % ts ? r : n % ts);
}
static __device__ __forceinline__ int64_t kk__tt_hi(const kk_team *t, int64_t b, int64_t e) {
  const int64_t n = e - b, ts = t->team_size, r = t->team_rank;
  return n <= 0 ? b : kk__tt_lo(t, b, e) + n / ts + (r < n % ts ? 1 : 0);
}

#define KK_TEAM_THREAD_FOR(t, J, B, E)                                                                          \
  _Pragma("unroll 1") for (int64_t J = (B) + (t)->team_rank, KK__CAT(kk__e_, J) = (E); J < KK__CAT(kk__e_, J); J += (t)->team_size)
#define KK_THREAD_VECTOR_FOR(t, K, B, E)                                                                        \
  _Pragma("unroll 1") for (int64_t K = (B) + (t)->lane, KK__CAT(kk__e_, K) = (E); K < KK__CAT(kk__e_, K); K += (t)->vlen)
#define KK_TEAM_VECTOR_FOR(t, J, B, E)                                                                          \
  _Pragma("unroll 1") for (int64_t J = (B) + (t)->lane + (int64_t)(t)->vlen * (t)->team_rank, KK__CAT(kk__e_, J) = (E);            \
       J < KK__CAT(kk__e_, J); J += (int64_t)(t)->vlen * (t)->team_size)

/* Joins of the built-in reducers for nested reductions, by reducer and type. */
template <int R, class T> struct kk__bjoin;
#define KK__DEF_BJOIN(R, T)                                                                                     \
  template <> struct kk__bjoin<R, T> {                                                                          \
    static __device__ __forceinline__ void init(KK__VT_##R(T) *p) { KK__INIT_##R(T, p); }                       \
    static __device__ __forceinline__ void join(KK__VT_##R(T) *d, const KK__VT_##R(T) *s) { KK__JOIN_##R(T, d, s); } \
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

/* every lane of a thread's vector gets the reduction over the lanes */
template <class J, class V> __device__ __forceinline__ void kk__vector_allreduce(const kk_team *t, V *v) {
  for (int d = 1; d < t->vlen; d <<= 1) {
    V o = kk__shfl_xor(*v, d, t->vlen);
    J::join(v, &o);
  }
}
/* every thread and lane of the team gets the reduction over the team's
 * threads (lane 0 of each speaks for its thread) */
template <class J, class V> __device__ __forceinline__ void kk__team_allreduce(const kk_team *t, V *v) {
  static_assert(sizeof(V) <= KK_GPU_TEAM_VALUE_MAX, "nested team reductions carry at most 32 bytes on GPUs");
  __syncthreads();
  if (t->lane == 0)
    memcpy(t->coll + (size_t)t->team_rank * KK_GPU_TEAM_VALUE_MAX, v, sizeof(V));
  __syncthreads();
  V acc;
  memcpy(&acc, t->coll, sizeof(V));
  for (int r = 1; r < t->team_size; r++) {
    V o;
    memcpy(&o, t->coll + (size_t)r * KK_GPU_TEAM_VALUE_MAX, sizeof(V));
    J::join(&acc, &o);
  }
  *v = acc;
  __syncthreads();
}

#define KK_TEAM_THREAD_REDUCE(t, J, B, E, T, R, VAR)                                                            \
  for (int KK__CAT(kk__once_, J) = (KK__INIT_##R(T, &(VAR)), 1); KK__CAT(kk__once_, J);                          \
       KK__CAT(kk__once_, J) = 0, kk__team_allreduce<kk__bjoin<R, T>>((t), &(VAR)))                              \
  KK_TEAM_THREAD_FOR(t, J, B, E)
#define KK_THREAD_VECTOR_REDUCE(t, K, B, E, T, R, VAR)                                                          \
  for (int KK__CAT(kk__once_, K) = (KK__INIT_##R(T, &(VAR)), 1); KK__CAT(kk__once_, K);                          \
       KK__CAT(kk__once_, K) = 0, kk__vector_allreduce<kk__bjoin<R, T>>((t), &(VAR)))                            \
  KK_THREAD_VECTOR_FOR(t, K, B, E)
#define KK_TEAM_VECTOR_REDUCE(t, J, B, E, T, R, VAR)                                                            \
  for (int KK__CAT(kk__once_, J) = (KK__INIT_##R(T, &(VAR)), 1); KK__CAT(kk__once_, J);                          \
       KK__CAT(kk__once_, J) = 0, kk__vector_allreduce<kk__bjoin<R, T>>((t), &(VAR)),                            \
           kk__team_allreduce<kk__bjoin<R, T>>((t), &(VAR)))                                                     \
  KK_TEAM_VECTOR_FOR(t, J, B, E)
/* custom reducers: KK_REDUCER_INIT/JOIN's functions through a small adapter */
template <class V, void (*JF)(V *, const V *)> struct kk__fjoin {
  static __device__ __forceinline__ void join(V *d, const V *s) { JF(d, s); }
};
#define KK_TEAM_THREAD_REDUCE_CUSTOM(t, J, B, E, RNAME, VAR)                                                    \
  for (int KK__CAT(kk__once_, J) = (kk__rinit_##RNAME(&(VAR)), 1); KK__CAT(kk__once_, J);                        \
       KK__CAT(kk__once_, J) = 0,                                                                               \
           kk__team_allreduce<kk__fjoin<KK__TYPEOF(VAR), kk__rjoin_##RNAME>>((t), &(VAR)))                      \
  KK_TEAM_THREAD_FOR(t, J, B, E)
#define KK_THREAD_VECTOR_REDUCE_CUSTOM(t, K, B, E, RNAME, VAR)                                                  \
  for (int KK__CAT(kk__once_, K) = (kk__rinit_##RNAME(&(VAR)), 1); KK__CAT(kk__once_, K);                        \
       KK__CAT(kk__once_, K) = 0,                                                                               \
           kk__vector_allreduce<kk__fjoin<KK__TYPEOF(VAR), kk__rjoin_##RNAME>>((t), &(VAR)))                    \
  KK_THREAD_VECTOR_FOR(t, K, B, E)

/* Nested scans (sums) over the team's threads: contiguous blocks per thread
 * in index order, two passes, the team's exclusive prefix in between. */
template <class V> __device__ __forceinline__ int kk__team_scan_step(const kk_team *t, int pass, V *v) {
  if (pass == 0) {
    __syncthreads();
    if (t->lane == 0)
      memcpy(t->coll + (size_t)t->team_rank * KK_GPU_TEAM_VALUE_MAX, v, sizeof(V));
    __syncthreads();
    V acc = (V)0;
    for (int r = 0; r < t->team_rank; r++) {
      V o;
      memcpy(&o, t->coll + (size_t)r * KK_GPU_TEAM_VALUE_MAX, sizeof(V));
      acc += o;
    }
    *v = acc;
    __syncthreads();
    return 1;
  }
  /* the last thread's running value is the total */
  __syncthreads();
  if (t->lane == 0 && t->team_rank == t->team_size - 1)
    memcpy(t->coll, v, sizeof(V));
  __syncthreads();
  memcpy(v, t->coll, sizeof(V));
  __syncthreads();
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
template <class V> __device__ __forceinline__ void kk__team_broadcast(const kk_team *t, V *v) {
  static_assert(sizeof(V) <= KK_GPU_TEAM_VALUE_MAX, "broadcast values carry at most 32 bytes on GPUs");
  __syncthreads();
  if (t->team_rank == 0 && t->lane == 0)
    memcpy(t->coll, v, sizeof(V));
  __syncthreads();
  memcpy(v, t->coll, sizeof(V));
  __syncthreads();
}
#define KK_SINGLE_TEAM_BROADCAST(t, VAR)                                                                        \
  for (int kk__once_b = 1; kk__once_b; kk__once_b = 0, kk__team_broadcast((t), &(VAR)))                        \
    if ((t)->team_rank == 0 && (t)->lane == 0)

/* ==== atomics ============================================================================== */

/* The lock table, safe under wavefront divergence.  The lanes of a wave run
 * in lockstep: a lane spinning in a loop of its own for a lock that another
 * lane of its wave holds would keep that lane from ever reaching its release.
 * So the loop is the wave's, not the lane's: each round, every lane not yet
 * done tries its lock once, the lanes that got one run the block and release,
 * and the wave leaves the loop together when a vote says all lanes are done
 * (as Kokkos' HIP backend does). */
struct kk__devlock {
  unsigned int *lock;
  bool done, held;
  __device__ explicit kk__devlock(const void *p) {
    unsigned long long h = (unsigned long long)p >> 3;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    lock = &kk__dev_locks[(h >> 40) & (KK_GPU_LOCK_COUNT - 1)];
    done = held = false;
  }
  /* one round; false once every active lane of the wave is done */
  __device__ bool next() {
    if (__all(done))
      return false;
    if (!done && atomicCAS(lock, 0u, 1u) == 0u) {
      __threadfence();
      held = true;
    }
    return true;
  }
  __device__ void release() {
    if (!held)
      return;
    __threadfence();
    atomicExch(lock, 0u);
    held = false;
    done = true;
  }
};
#define KK_ATOMIC_LOCK(p) \
  for (kk__devlock kk__lk((const void *)(p)); kk__lk.next(); kk__lk.release()) if (kk__lk.held)

template <class T, class U> __device__ __forceinline__ U kk__bits(T v) {
  U u;
  memcpy(&u, &v, sizeof u);
  return u;
}
template <class T, class U> __device__ __forceinline__ T kk__from_bits(U u) {
  T v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* Integers: the compiler's atomics at device (agent) scope, the scope of
 * HIP's atomicAdd; every 32- and 64-bit integer type has add, sub, min, max,
 * and, or and xor in hardware. */
#define KK__HIP_AINT(T)                                                                                          \
  __device__ __forceinline__ T kk__afetch_add(T *p, T v) {                                                      \
    return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                            \
  }                                                                                                             \
  __device__ __forceinline__ T kk__afetch_sub(T *p, T v) {                                                      \
    return __hip_atomic_fetch_add(p, (T)(0 - v), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                   \
  }                                                                                                             \
  __device__ __forceinline__ T kk__afetch_min(T *p, T v) {                                                      \
    return __hip_atomic_fetch_min(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                            \
  }                                                                                                             \
  __device__ __forceinline__ T kk__afetch_max(T *p, T v) {                                                      \
    return __hip_atomic_fetch_max(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                            \
  }                                                                                                             \
  __device__ __forceinline__ T kk__afetch_and(T *p, T v) {                                                      \
    return __hip_atomic_fetch_and(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                            \
  }                                                                                                             \
  __device__ __forceinline__ T kk__afetch_or(T *p, T v) {                                                       \
    return __hip_atomic_fetch_or(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                             \
  }                                                                                                             \
  __device__ __forceinline__ T kk__afetch_xor(T *p, T v) {                                                      \
    return __hip_atomic_fetch_xor(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                            \
  }
KK__HIP_AINT(int)
KK__HIP_AINT(unsigned)
KK__HIP_AINT(long)
KK__HIP_AINT(unsigned long)
KK__HIP_AINT(long long)
KK__HIP_AINT(unsigned long long)

/* float and double add through HIP's atomicAdd (a hardware add where the
 * architecture has one for the memory, else a compare-and-swap loop) */
__device__ __forceinline__ float kk__afetch_add(float *p, float v) { return atomicAdd(p, v); }
__device__ __forceinline__ double kk__afetch_add(double *p, double v) { return atomicAdd(p, v); }
__device__ __forceinline__ float kk__afetch_sub(float *p, float v) { return atomicAdd(p, -v); }
__device__ __forceinline__ double kk__afetch_sub(double *p, double v) { return atomicAdd(p, -v); }

/* floating-point min/max: compare-and-swap on the bits */
template <class T, class U> __device__ __forceinline__ T kk__afp_minmax(T *p, T v, bool want_max) {
  U old = *(volatile U *)p;
  for (;;) {
    T o = kk__from_bits<T, U>(old);
    if (want_max ? !(v > o) : !(v < o))
      return o;
    U seen = atomicCAS((U *)p, old, kk__bits<T, U>(v));
    if (seen == old)
      return o;
    old = seen;
  }
}
__device__ __forceinline__ float kk__afetch_min(float *p, float v) { return kk__afp_minmax<float, unsigned>(p, v, false); }
__device__ __forceinline__ float kk__afetch_max(float *p, float v) { return kk__afp_minmax<float, unsigned>(p, v, true); }
__device__ __forceinline__ double kk__afetch_min(double *p, double v) {
  return kk__afp_minmax<double, unsigned long long>(p, v, false);
}
__device__ __forceinline__ double kk__afetch_max(double *p, double v) {
  return kk__afp_minmax<double, unsigned long long>(p, v, true);
}

/* exchange and compare-exchange through the bit patterns */
template <class T> __device__ __forceinline__ T kk__aexchange(T *p, T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "exchange of 4- or 8-byte values");
  if (sizeof(T) == 4)
    return kk__from_bits<T, unsigned>(atomicExch((unsigned *)p, kk__bits<T, unsigned>(v)));
  return kk__from_bits<T, unsigned long long>(atomicExch((unsigned long long *)p, kk__bits<T, unsigned long long>(v)));
}
template <class T> __device__ __forceinline__ T kk__acas(T *p, T e, T d) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "compare-exchange of 4- or 8-byte values");
  if (sizeof(T) == 4)
    return kk__from_bits<T, unsigned>(atomicCAS((unsigned *)p, kk__bits<T, unsigned>(e), kk__bits<T, unsigned>(d)));
  return kk__from_bits<T, unsigned long long>(
      atomicCAS((unsigned long long *)p, kk__bits<T, unsigned long long>(e), kk__bits<T, unsigned long long>(d)));
}
template <class T> __device__ __forceinline__ T kk__aload(T *p) {
  T v = *(volatile T *)p;
  __threadfence();
  return v;
}
template <class T> __device__ __forceinline__ void kk__astore(T *p, T v) {
  __threadfence();
  *(volatile T *)p = v;
}

/* complex float: one 64-bit compare-and-swap loop */
__device__ __forceinline__ kk_complex_float kk__acf(kk_complex_float *p, kk_complex_float v, int op) {
  unsigned long long old = *(volatile unsigned long long *)p;
  for (;;) {
    kk_complex_float o = kk__from_bits<kk_complex_float, unsigned long long>(old), n;
    n.re = op == 0 ? o.re + v.re : op == 1 ? o.re - v.re : v.re;
    n.im = op == 0 ? o.im + v.im : op == 1 ? o.im - v.im : v.im;
    unsigned long long seen = atomicCAS((unsigned long long *)p, old, kk__bits<kk_complex_float, unsigned long long>(n));
    if (seen == old)
      return o;
    old = seen;
  }
}
__device__ __forceinline__ kk_complex_float kk__afetch_add(kk_complex_float *p, kk_complex_float v) { return kk__acf(p, v, 0); }
__device__ __forceinline__ kk_complex_float kk__afetch_sub(kk_complex_float *p, kk_complex_float v) { return kk__acf(p, v, 1); }
__device__ __forceinline__ kk_complex_float kk__aexchange(kk_complex_float *p, kk_complex_float v) { return kk__acf(p, v, 2); }
__device__ __forceinline__ kk_complex_float kk__acas(kk_complex_float *p, kk_complex_float e, kk_complex_float d) {
  return kk__from_bits<kk_complex_float, unsigned long long>(
      atomicCAS((unsigned long long *)p, kk__bits<kk_complex_float, unsigned long long>(e),
                kk__bits<kk_complex_float, unsigned long long>(d)));
}
/* complex double: add and subtract one atomic per component (each
 * component's old value is returned; the pair is not one snapshot), exchange
 * and compare-exchange 16 bytes through the lock table.  The two kinds must not
 * race on one element: a locked update does not see a concurrent add. */
__device__ __forceinline__ kk_complex_double kk__acd(kk_complex_double *p, kk_complex_double v, int op) {
  kk_complex_double old;
  old.re = old.im = 0;
  KK_ATOMIC_LOCK(p) {
    old.re = ((volatile double *)p)[0];
    old.im = ((volatile double *)p)[1];
    ((volatile double *)p)[0] = op == 0 ? old.re + v.re : op == 1 ? old.re - v.re : v.re;
    ((volatile double *)p)[1] = op == 0 ? old.im + v.im : op == 1 ? old.im - v.im : v.im;
  }
  return old;
}
__device__ __forceinline__ kk_complex_double kk__afetch_add(kk_complex_double *p, kk_complex_double v) {
  kk_complex_double o;
  o.re = atomicAdd(&p->re, v.re);
  o.im = atomicAdd(&p->im, v.im);
  return o;
}
__device__ __forceinline__ kk_complex_double kk__afetch_sub(kk_complex_double *p, kk_complex_double v) {
  kk_complex_double o;
  o.re = atomicAdd(&p->re, -v.re);
  o.im = atomicAdd(&p->im, -v.im);
  return o;
}
__device__ __forceinline__ kk_complex_double kk__aexchange(kk_complex_double *p, kk_complex_double v) { return kk__acd(p, v, 2); }
__device__ __forceinline__ kk_complex_double kk__acas(kk_complex_double *p, kk_complex_double e, kk_complex_double d) {
  kk_complex_double old;
  old.re = old.im = 0;
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

/* add and subtract without the old value: complex float then needs no
 * compare-and-swap loop, one add per component (a concurrent
 * compare-and-swap on the element sees either half change and retries) */
template <class T, class V> __device__ __forceinline__ void kk__aadd(T *p, V v) { (void)kk__afetch_add(p, (T)v); }
template <class T, class V> __device__ __forceinline__ void kk__asub(T *p, V v) { (void)kk__afetch_sub(p, (T)v); }
__device__ __forceinline__ void kk__aadd(kk_complex_float *p, kk_complex_float v) {
  atomicAdd(&p->re, v.re);
  atomicAdd(&p->im, v.im);
}
__device__ __forceinline__ void kk__asub(kk_complex_float *p, kk_complex_float v) {
  atomicAdd(&p->re, -v.re);
  atomicAdd(&p->im, -v.im);
}

#define kk_atomic_fetch_add(p, v) kk__afetch_add((p), (v))
#define kk_atomic_fetch_sub(p, v) kk__afetch_sub((p), (v))
#define kk_atomic_fetch_min(p, v) kk__afetch_min((p), (v))
#define kk_atomic_fetch_max(p, v) kk__afetch_max((p), (v))
#define kk_atomic_fetch_and(p, v) kk__afetch_and((p), (v))
#define kk_atomic_fetch_or(p, v) kk__afetch_or((p), (v))
#define kk_atomic_fetch_xor(p, v) kk__afetch_xor((p), (v))
#define kk_atomic_fetch_inc(p) kk__afetch_add((p), (KK__TYPEOF(*(p)))1)
#define kk_atomic_fetch_dec(p) kk__afetch_sub((p), (KK__TYPEOF(*(p)))1)
#define kk_atomic_exchange(p, v) kk__aexchange((p), (v))
#define kk_atomic_compare_exchange(p, e, d) kk__acas((p), (e), (d))
#define kk_atomic_load(p) kk__aload(p)
#define kk_atomic_store(p, v) kk__astore((p), (KK__TYPEOF(*(p)))(v))
#define kk_atomic_add(p, v) kk__aadd((p), (v))
#define kk_atomic_sub(p, v) kk__asub((p), (v))
#define kk_atomic_min(p, v) ((void)kk_atomic_fetch_min(p, v))
#define kk_atomic_max(p, v) ((void)kk_atomic_fetch_max(p, v))
#define kk_atomic_and(p, v) ((void)kk_atomic_fetch_and(p, v))
#define kk_atomic_or(p, v) ((void)kk_atomic_fetch_or(p, v))
#define kk_atomic_xor(p, v) ((void)kk_atomic_fetch_xor(p, v))
#define kk_atomic_inc(p) ((void)kk_atomic_fetch_inc(p))
#define kk_atomic_dec(p) ((void)kk_atomic_fetch_dec(p))

/* ==== ScatterView access: GPUs contribute with atomics ====================================== */
#define KK__SOFF(sv, ...) KK__CAT(KK__SOFF, KK__NARG(__VA_ARGS__))((sv).d, __VA_ARGS__)
#define KK__SOFF1(d, a) KK__T(d, 0, a)
#define KK__SOFF2(d, a, b) (KK__T(d, 0, a) + KK__T(d, 1, b))
#define KK__SOFF3(d, a, b, c) (KK__T(d, 0, a) + KK__T(d, 1, b) + KK__T(d, 2, c))
#define KK__SOFF4(d, a, b, c, e) (KK__T(d, 0, a) + KK__T(d, 1, b) + KK__T(d, 2, c) + KK__T(d, 3, e))
#define KK_SCATTER_ADD(sv, T, v, ...) kk_atomic_add((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (v))
#define KK_SCATTER_MIN(sv, T, v, ...) kk_atomic_min((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (T)(v))
#define KK_SCATTER_MAX(sv, T, v, ...) kk_atomic_max((T *)(sv).d.data + KK__SOFF(sv, __VA_ARGS__), (T)(v))

#endif /* KK_TARGET_HIP_H */
