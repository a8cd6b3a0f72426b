/* kk/target/cuda.h -- how the CUDA target spells the kernel language: one __global__ function per kernel (nvcc or NVRTC). */
#ifndef KK_TARGET_CUDA_H
#define KK_TARGET_CUDA_H

/*
 * Compiled as CUDA C++ by nvcc (kkcc's cuda recipe) or NVRTC (the plugin's
 * JIT fallback).  Every kernel becomes extern "C" __global__ kk_k_<name>
 * taking (argument struct, kk_gpu_launch) by value; plugins/cuda fills the
 * launch record and chooses the grid.  Mapping:
 *   range for      grid-stride loop, one index per thread per step
 *   range reduce   per-thread partials, a block reduction (warp shuffles),
 *                  one partial per block, the last block to finish combines
 *                  them and writes the result (device memory, or mapped host
 *                  memory for a synchronous result)
 *   scan           one pass: tiles of blockDim * items elements taken in
 *                  order, a block scan, decoupled look-back over the
 *                  predecessors' aggregates, then the final pass over the
 *                  tile (re-read from cache)
 *   MDRange        a block per tile (grid-stride over tiles), threads on the
 *                  tile's points: blockDim (x, y, z) = the tile's inner
 *                  dimensions, or a 1-D block over its points ("flat")
 *   teams          a block per team (grid-stride over league ranks),
 *                  threadIdx.y = team rank, threadIdx.x = vector lane;
 *                  level-0 scratch in shared memory, level-1 in a device pool
 */

#include <kk/target/gpu_launch.h>

#define KK__DEFAULT_LAYOUT KK_LAYOUT_LEFT
#define KK__DEFAULT_ITERATE 2 /* KK_ITERATE_LEFT */
#define KK__FN static __device__ __forceinline__
#define KK__UNUSED __attribute__((unused))
#ifndef restrict
#define restrict __restrict__
#endif

typedef const kk_host_thread_t *kk__thread_t;

/* Dynamic shared memory of every kernel: reductions and level-0 scratch. */
extern __shared__ __align__(16) unsigned char kk__smem[];

/* The device lock table of arbitrary-size atomics; the plugin points it at
 * one table per device when it loads the module. */
extern "C" {
__device__ unsigned int *kk__dev_locks;
/* Lets the plugin check that module and plugin speak the same launch record. */
__device__ int kk__gpu_launch_version = KK_GPU_LAUNCH_VERSION;
}

/* ==== generic helpers ===================================================================== */

/* Shuffles of any trivially copyable value, word by word. */
template <class T> __device__ __forceinline__ T kk__shfl_down(T v, int d, int width = 32) {
  unsigned w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < (int)((sizeof(T) + 3) / 4); k++)
    w[k] = __shfl_down_sync(0xffffffffu, w[k], d, width);
  memcpy(&v, w, sizeof(T));
  return v;
}
template <class T> __device__ __forceinline__ T kk__shfl_up(T v, int d, int width = 32) {
  unsigned w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < (int)((sizeof(T) + 3) / 4); k++)
    w[k] = __shfl_up_sync(0xffffffffu, w[k], d, width);
  memcpy(&v, w, sizeof(T));
  return v;
}
template <class T> __device__ __forceinline__ T kk__shfl_xor(T v, int d, int width = 32) {
  unsigned w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < (int)((sizeof(T) + 3) / 4); k++)
    w[k] = __shfl_xor_sync(0xffffffffu, w[k], d, width);
  memcpy(&v, w, sizeof(T));
  return v;
}
template <class T> __device__ __forceinline__ T kk__shfl(T v, int src, int width = 32) {
  unsigned w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < (int)((sizeof(T) + 3) / 4); k++)
    w[k] = __shfl_sync(0xffffffffu, w[k], src, width);
  memcpy(&v, w, sizeof(T));
  return v;
}

/* A load that bypasses L1: values other blocks published through L2. */
template <class T> __device__ __forceinline__ T kk__load_cg(const T *p) {
  T v;
  if (sizeof(T) % 4 == 0) {
    unsigned w[sizeof(T) / 4 + (sizeof(T) % 4 ? 1 : 0)];
    for (int k = 0; k < (int)(sizeof(T) / 4); k++)
      w[k] = __ldcg((const unsigned *)p + k);
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
 * thread id tid of n).  Lane order is kept: results do not depend on timing.
 * Thread 0 gets the result.  Uses kk__smem from offset `at`. */
template <class VT, class RED>
__device__ __forceinline__ VT kk__block_reduce(VT v, unsigned tid, unsigned n, unsigned at) {
  const unsigned lane = tid & 31, warp = tid >> 5, nwarps = (n + 31) >> 5;
  /* a full warp tree where the warp is full; partial warps fold through shared memory */
  if (n >= 32 * (warp + 1)) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
      VT o = kk__shfl_down(v, d);
      if (lane + d < 32)
        RED::join(&v, &o);
    }
  } else {
    VT *sm = (VT *)(kk__smem + at);
    sm[tid] = v;
    __syncwarp(__activemask());
    if (lane == 0)
      for (unsigned k = tid + 1; k < n; k++)
        RED::join(&v, &sm[k]);
    __syncwarp(__activemask());
  }
  VT *ws = (VT *)(kk__smem + at);
  __syncthreads();
  if (lane == 0)
    ws[warp] = v;
  __syncthreads();
  if (tid == 0)
    for (unsigned w = 1; w < nwarps; w++)
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
    __threadfence();
    kk__last = atomicAdd(L.counter, 1u) == nblocks - 1;
  }
  __syncthreads();
  if (!kk__last)
    return;
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
  }
}

/* Block-wide exclusive scan (in thread order) of one value per thread of a 1-D
 * block; also gives the block's aggregate. */
template <class VT, class RED> __device__ __forceinline__ void kk__block_exscan(VT v, VT &excl, VT &aggregate) {
  const unsigned tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = (blockDim.x + 31) >> 5;
  VT incl = v;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    VT o = kk__shfl_up(incl, d);
    if ((int)lane >= d) {
      RED::join(&o, &incl);
      incl = o;
    }
  }
  VT *ws = (VT *)kk__smem;
  if (lane == 31 || tid == blockDim.x - 1)
    ws[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    VT w;
    if (lane < nwarps)
      w = ws[lane];
    else
      RED::init(&w);
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      VT o = kk__shfl_up(w, d);
      if ((int)lane >= d) {
        RED::join(&o, &w);
        w = o;
      }
    }
    if (lane < nwarps)
      ws[lane] = w; /* inclusive prefix of warp totals */
  }
  __syncthreads();
  VT prefix;
  RED::init(&prefix);
  if (warp > 0)
    prefix = ws[warp - 1];
  VT ex = kk__shfl_up(incl, 1);
  if (lane == 0)
    RED::init(&ex);
  RED::join(&prefix, &ex);
  excl = prefix;
  aggregate = ws[nwarps - 1];
  __syncthreads();
}

/* One tile of a single-pass scan; body(i, &value, final). */
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
  const int64_t per = (int64_t)blockDim.x * L.items;
  const int64_t b = L.begin + (int64_t)tile * per + (int64_t)threadIdx.x * L.items;
  const int64_t e = b + L.items < L.end ? b + L.items : L.end;
  T part;
  RED::init(&part);
  for (int64_t i = b; i < e; i++)
    body(i, &part, 0);
  T excl, agg;
  kk__block_exscan<T, RED>(part, excl, agg);
  if (threadIdx.x == 0) {
    const unsigned long long E = L.epoch << 2;
    T *aggs = (T *)L.partials, *incls = (T *)L.partials2;
    volatile unsigned long long *st = L.status;
    T prefix;
    RED::init(&prefix);
    T inclusive = agg;
    if (tile == 0) {
      incls[0] = agg;
      __threadfence();
      st[0] = E | KK_GPU_TILE_INCLUSIVE;
    } else {
      aggs[tile] = agg;
      __threadfence();
      st[tile] = E | KK_GPU_TILE_AGGREGATE;
      /* look back: fold predecessors until one has its inclusive prefix */
      for (long long j = (long long)tile - 1; j >= 0; j--) {
        unsigned long long s;
        while (((s = st[j]) >> 2) != L.epoch)
          ;
        __threadfence();
        T v = kk__load_cg((s & 3ull) == KK_GPU_TILE_INCLUSIVE ? incls + j : aggs + j);
        RED::join(&v, &prefix);
        prefix = v;
        if ((s & 3ull) == KK_GPU_TILE_INCLUSIVE)
          break;
      }
      inclusive = prefix;
      RED::join(&inclusive, &agg);
      incls[tile] = inclusive;
      __threadfence();
      st[tile] = E | KK_GPU_TILE_INCLUSIVE;
    }
    kk__prefix = prefix;
    if (L.result && (int64_t)(tile + 1) * per >= L.end - L.begin)
      *(T *)L.result = inclusive; /* the last tile: the scan's total */
  }
  __syncthreads();
  T run = kk__prefix;
  RED::join(&run, &excl);
  for (int64_t i = b; i < e; i++)
    body(i, &run, 1);
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

#define KK__GRID_LOOP(I)                                                                                        \
  for (int64_t I = kk__L.begin + (int64_t)blockIdx.x * blockDim.x + threadIdx.x,                                \
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

/* Runs f(idx) on the points of every tile this block owns. */
template <class F> __device__ void kk__md_run(const kk_gpu_launch &L, F f) {
  const int r = L.rank;
  int order[KK_MD_MAX_RANK]; /* dimensions, innermost first */
  for (int k = 0; k < r; k++)
    order[k] = L.inner_left ? k : r - 1 - k;
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned nt = blockDim.x * blockDim.y * blockDim.z;
  for (int64_t t = blockIdx.x; t < L.md_tiles; t += gridDim.x) {
    int64_t lo[KK_MD_MAX_RANK], hi[KK_MD_MAX_RANK], rem = t;
    for (int k = 0; k < r; k++) {
      const int d = L.outer_left ? k : r - 1 - k;
      lo[d] = L.md_begin[d] + (rem % L.md_ntile[d]) * L.md_tile[d];
      rem /= L.md_ntile[d];
      hi[d] = lo[d] + L.md_tile[d] < L.md_end[d] ? lo[d] + L.md_tile[d] : L.md_end[d];
    }
    int64_t idx[KK_MD_MAX_RANK];
    if (!L.flat) {
      /* x, y on the two innermost dimensions, z on the others */
      idx[order[0]] = lo[order[0]] + threadIdx.x;
      if (r > 1)
        idx[order[1]] = lo[order[1]] + threadIdx.y;
      int64_t z = threadIdx.z;
      for (int k = 2; k < r; k++) {
        const int d = order[k];
        idx[d] = lo[d] + z % L.md_tile[d];
        z /= L.md_tile[d];
      }
      bool in = true;
      for (int d = 0; d < r; d++)
        in = in && idx[d] < hi[d];
      if (in)
        f(idx);
    } else {
      int64_t pts = 1;
      for (int d = 0; d < r; d++)
        pts *= hi[d] - lo[d];
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
  extern "C" __global__ void kk_k_##NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {                      \
    kk__md_run(kk__L, [&](const int64_t *kk__ix) { kk__body_##NAME(&kk__a, KK__IX##RANK, nullptr); });         \
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
  extern "C" __global__ void kk_k_##NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {                      \
    KK__VT_##R(T) kk__acc;                                                                                      \
    kk__red_##NAME::init(&kk__acc);                                                                             \
    kk__md_run(kk__L, [&](const int64_t *kk__ix) { kk__body_##NAME(&kk__a, KK__IX##RANK, &kk__acc, nullptr); }); \
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
    atomicMax(t->failed, 1u + (unsigned)level + (per_thread ? 2u : 0u));
    asm volatile("exit;");
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
    for (int64_t kk__l = blockIdx.x; kk__l < kk__L.league_size; kk__l += gridDim.x) {                           \
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
    for (int64_t kk__l = blockIdx.x; kk__l < kk__L.league_size; kk__l += gridDim.x) {                           \
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
  for (int64_t J = (B) + (t)->team_rank, KK__CAT(kk__e_, J) = (E); J < KK__CAT(kk__e_, J); J += (t)->team_size)
#define KK_THREAD_VECTOR_FOR(t, K, B, E)                                                                        \
  for (int64_t K = (B) + (t)->lane, KK__CAT(kk__e_, K) = (E); K < KK__CAT(kk__e_, K); K += (t)->vlen)
#define KK_TEAM_VECTOR_FOR(t, J, B, E)                                                                          \
  for (int64_t J = (B) + (t)->lane + (int64_t)(t)->vlen * (t)->team_rank, KK__CAT(kk__e_, J) = (E);            \
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
           kk__team_allreduce<kk__fjoin<__typeof__(VAR), kk__rjoin_##RNAME>>((t), &(VAR)))                      \
  KK_TEAM_THREAD_FOR(t, J, B, E)
#define KK_THREAD_VECTOR_REDUCE_CUSTOM(t, K, B, E, RNAME, VAR)                                                  \
  for (int KK__CAT(kk__once_, K) = (kk__rinit_##RNAME(&(VAR)), 1); KK__CAT(kk__once_, K);                        \
       KK__CAT(kk__once_, K) = 0,                                                                               \
           kk__vector_allreduce<kk__fjoin<__typeof__(VAR), kk__rjoin_##RNAME>>((t), &(VAR)))                    \
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

/* The lock table, safe under warp divergence (Kokkos 3, section 5): every
 * active lane of the warp keeps trying until all of them have done their
 * update, so a lane that holds a lock is never starved by its siblings. */
struct kk__devlock {
  unsigned int *lock;
  unsigned int mask;
  bool done, held;
  __device__ explicit kk__devlock(const void *p) {
    unsigned long long h = (unsigned long long)p >> 3;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    lock = &kk__dev_locks[(h >> 40) & (KK_GPU_LOCK_COUNT - 1)];
    mask = __activemask();
    done = held = false;
  }
  /* true: this lane holds the lock and runs the block once */
  __device__ bool next() {
    for (;;) {
      if (!done && !held && atomicCAS(lock, 0u, 1u) == 0u) {
        __threadfence();
        held = true;
        return true;
      }
      if (__all_sync(mask, done))
        return false;
    }
  }
  __device__ void release() {
    __threadfence();
    atomicExch(lock, 0u);
    held = false;
    done = true;
  }
};
#define KK_ATOMIC_LOCK(p) for (kk__devlock kk__lk((const void *)(p)); kk__lk.next(); kk__lk.release())

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

/* integer types map onto CUDA's atomics */
__device__ __forceinline__ int kk__afetch_add(int *p, int v) { return atomicAdd(p, v); }
__device__ __forceinline__ unsigned kk__afetch_add(unsigned *p, unsigned v) { return atomicAdd(p, v); }
__device__ __forceinline__ unsigned long long kk__afetch_add(unsigned long long *p, unsigned long long v) { return atomicAdd(p, v); }
__device__ __forceinline__ long long kk__afetch_add(long long *p, long long v) {
  return (long long)atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
__device__ __forceinline__ long kk__afetch_add(long *p, long v) { return (long)kk__afetch_add((long long *)p, (long long)v); }
__device__ __forceinline__ unsigned long kk__afetch_add(unsigned long *p, unsigned long v) {
  return (unsigned long)atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
__device__ __forceinline__ float kk__afetch_add(float *p, float v) { return atomicAdd(p, v); }
__device__ __forceinline__ double kk__afetch_add(double *p, double v) { return atomicAdd(p, v); }
template <class T> __device__ __forceinline__ T kk__afetch_sub(T *p, T v) { return kk__afetch_add(p, (T)(0 - v)); }
__device__ __forceinline__ float kk__afetch_sub(float *p, float v) { return atomicAdd(p, -v); }
__device__ __forceinline__ double kk__afetch_sub(double *p, double v) { return atomicAdd(p, -v); }

__device__ __forceinline__ int kk__afetch_min(int *p, int v) { return atomicMin(p, v); }
__device__ __forceinline__ unsigned kk__afetch_min(unsigned *p, unsigned v) { return atomicMin(p, v); }
__device__ __forceinline__ long long kk__afetch_min(long long *p, long long v) { return atomicMin(p, v); }
__device__ __forceinline__ unsigned long long kk__afetch_min(unsigned long long *p, unsigned long long v) { return atomicMin(p, v); }
__device__ __forceinline__ int kk__afetch_max(int *p, int v) { return atomicMax(p, v); }
__device__ __forceinline__ unsigned kk__afetch_max(unsigned *p, unsigned v) { return atomicMax(p, v); }
__device__ __forceinline__ long long kk__afetch_max(long long *p, long long v) { return atomicMax(p, v); }
__device__ __forceinline__ unsigned long long kk__afetch_max(unsigned long long *p, unsigned long long v) { return atomicMax(p, v); }
__device__ __forceinline__ long kk__afetch_min(long *p, long v) { return (long)atomicMin((long long *)p, (long long)v); }
__device__ __forceinline__ long kk__afetch_max(long *p, long v) { return (long)atomicMax((long long *)p, (long long)v); }
__device__ __forceinline__ unsigned long kk__afetch_min(unsigned long *p, unsigned long v) {
  return (unsigned long)atomicMin((unsigned long long *)p, (unsigned long long)v);
}
__device__ __forceinline__ unsigned long kk__afetch_max(unsigned long *p, unsigned long v) {
  return (unsigned long)atomicMax((unsigned long long *)p, (unsigned long long)v);
}
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

#define KK__DEV_BITOP(OP, FN)                                                                                   \
  __device__ __forceinline__ int kk__afetch_##OP(int *p, int v) { return FN(p, v); }                            \
  __device__ __forceinline__ unsigned kk__afetch_##OP(unsigned *p, unsigned v) { return FN(p, v); }             \
  __device__ __forceinline__ unsigned long long kk__afetch_##OP(unsigned long long *p, unsigned long long v) {  \
    return FN(p, v);                                                                                            \
  }                                                                                                             \
  __device__ __forceinline__ long long kk__afetch_##OP(long long *p, long long v) {                             \
    return (long long)FN((unsigned long long *)p, (unsigned long long)v);                                       \
  }                                                                                                             \
  __device__ __forceinline__ long kk__afetch_##OP(long *p, long v) {                                            \
    return (long)FN((unsigned long long *)p, (unsigned long long)v);                                            \
  }                                                                                                             \
  __device__ __forceinline__ unsigned long kk__afetch_##OP(unsigned long *p, unsigned long v) {                 \
    return (unsigned long)FN((unsigned long long *)p, (unsigned long long)v);                                   \
  }
KK__DEV_BITOP(and, atomicAnd)
KK__DEV_BITOP(or, atomicOr)
KK__DEV_BITOP(xor, atomicXor)

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
/* complex double: 16 bytes through the lock table */
__device__ __forceinline__ kk_complex_double kk__acd(kk_complex_double *p, kk_complex_double v, int op) {
  kk_complex_double old;
  KK_ATOMIC_LOCK(p) {
    old.re = ((volatile double *)p)[0];
    old.im = ((volatile double *)p)[1];
    ((volatile double *)p)[0] = op == 0 ? old.re + v.re : op == 1 ? old.re - v.re : v.re;
    ((volatile double *)p)[1] = op == 0 ? old.im + v.im : op == 1 ? old.im - v.im : v.im;
  }
  return old;
}
__device__ __forceinline__ kk_complex_double kk__afetch_add(kk_complex_double *p, kk_complex_double v) { return kk__acd(p, v, 0); }
__device__ __forceinline__ kk_complex_double kk__afetch_sub(kk_complex_double *p, kk_complex_double v) { return kk__acd(p, v, 1); }
__device__ __forceinline__ kk_complex_double kk__aexchange(kk_complex_double *p, kk_complex_double v) { return kk__acd(p, v, 2); }
__device__ __forceinline__ kk_complex_double kk__acas(kk_complex_double *p, kk_complex_double e, kk_complex_double d) {
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

#define kk_atomic_fetch_add(p, v) kk__afetch_add((p), (v))
#define kk_atomic_fetch_sub(p, v) kk__afetch_sub((p), (v))
#define kk_atomic_fetch_min(p, v) kk__afetch_min((p), (v))
#define kk_atomic_fetch_max(p, v) kk__afetch_max((p), (v))
#define kk_atomic_fetch_and(p, v) kk__afetch_and((p), (v))
#define kk_atomic_fetch_or(p, v) kk__afetch_or((p), (v))
#define kk_atomic_fetch_xor(p, v) kk__afetch_xor((p), (v))
#define kk_atomic_fetch_inc(p) kk__afetch_add((p), (__typeof__(*(p)))1)
#define kk_atomic_fetch_dec(p) kk__afetch_sub((p), (__typeof__(*(p)))1)
#define kk_atomic_exchange(p, v) kk__aexchange((p), (v))
#define kk_atomic_compare_exchange(p, e, d) kk__acas((p), (e), (d))
#define kk_atomic_load(p) kk__aload(p)
#define kk_atomic_store(p, v) kk__astore((p), (__typeof__(*(p)))(v))
#define kk_atomic_add(p, v) ((void)kk_atomic_fetch_add(p, v))
#define kk_atomic_sub(p, v) ((void)kk_atomic_fetch_sub(p, v))
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

#endif /* KK_TARGET_CUDA_H */
