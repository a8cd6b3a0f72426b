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
 *   scan           one pass: tiles of items rounds of blockDim elements taken in
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

/* The type of an expression (GNU __typeof__ is not in NVRTC's dialect). */
template <class T> struct kk__unref { typedef T type; };
template <class T> struct kk__unref<T &> { typedef T type; };
#define KK__TYPEOF(x) typename kk__unref<decltype(x)>::type

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

/* The lanes a shuffle of `width` may name: this thread's group of `width`
 * lanes (a team thread's vector lanes: other team threads of the warp may be
 * elsewhere in their loops), less the lanes that do not exist (a block whose
 * size is not a multiple of 32, such as 3 team threads x 4 lanes, ends in a
 * partial warp). */
static __device__ __forceinline__ unsigned kk__shfl_mask(int width) {
  const unsigned n = blockDim.x * blockDim.y * blockDim.z;
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned left = n - (tid & ~31u);
  const unsigned present = left >= 32 ? 0xffffffffu : (1u << left) - 1u;
  if (width >= 32)
    return present;
  const unsigned base = (tid & 31u) & ~((unsigned)width - 1u);
  return (((1u << width) - 1u) << base) & present;
}

/* Shuffles of any trivially copyable value, word by word. */
enum { KK__SHFL_IDX, KK__SHFL_UP, KK__SHFL_DOWN, KK__SHFL_XOR };
template <int OP, class T> __device__ __forceinline__ T kk__shfl_op(T v, int a, int width, unsigned mask) {
  unsigned w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < (int)((sizeof(T) + 3) / 4); k++)
    w[k] = OP == KK__SHFL_UP     ? __shfl_up_sync(mask, w[k], a, width)
           : OP == KK__SHFL_DOWN ? __shfl_down_sync(mask, w[k], a, width)
           : OP == KK__SHFL_XOR  ? __shfl_xor_sync(mask, w[k], a, width)
                                 : __shfl_sync(mask, w[k], a, width);
  memcpy(&v, w, sizeof(T));
  return v;
}
/* over the warp's lanes that exist, in groups of `width` */
template <class T> __device__ __forceinline__ T kk__shfl_down(T v, int d, int width = 32) {
  return kk__shfl_op<KK__SHFL_DOWN>(v, d, width, kk__shfl_mask(width));
}
template <class T> __device__ __forceinline__ T kk__shfl_up(T v, int d, int width = 32) {
  return kk__shfl_op<KK__SHFL_UP>(v, d, width, kk__shfl_mask(width));
}
template <class T> __device__ __forceinline__ T kk__shfl_xor(T v, int d, int width = 32) {
  return kk__shfl_op<KK__SHFL_XOR>(v, d, width, kk__shfl_mask(width));
}
template <class T> __device__ __forceinline__ T kk__shfl(T v, int src, int width = 32) {
  return kk__shfl_op<KK__SHFL_IDX>(v, src, width, kk__shfl_mask(width));
}
/* Over a whole warp, for code that knows all 32 lanes exist and take part (a
 * 1-D block of a multiple of 32 threads, a vector of 32 lanes): with a
 * constant mask nvcc emits no convergence check (MATCH, REDUX, VOTE and a
 * branch) around each shuffle, as it must around a computed one. */
#define KK__WARP_FULL 0xffffffffu
template <class T> __device__ __forceinline__ T kk__wshfl_up(T v, int d) {
  return kk__shfl_op<KK__SHFL_UP>(v, d, 32, KK__WARP_FULL);
}
template <class T> __device__ __forceinline__ T kk__wshfl_down(T v, int d) {
  return kk__shfl_op<KK__SHFL_DOWN>(v, d, 32, KK__WARP_FULL);
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
    if (L.result_flag)
      __threadfence_system(); /* the host may go on before the kernel ends: the body's writes first */
    else
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
    if (L.result_flag)
      *(volatile unsigned long long *)L.result_flag = L.result_seq; /* the host waits for this word */
  }
}

/* Look-back descriptors of values up to 8 bytes: {epoch << 2 | status,
 * value} in one 16-byte word per tile, written and read whole (16-byte
 * accesses are single transactions), so that a look-back step costs one
 * round trip to L2 and no fence. */
static __device__ __forceinline__ ulonglong2 kk__desc_load(const ulonglong2 *p) {
  ulonglong2 r;
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
static __device__ __forceinline__ void kk__desc_store(ulonglong2 *p, unsigned long long w, unsigned long long v) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(w), "l"(v) : "memory");
}
template <class T> static __device__ __forceinline__ unsigned long long kk__desc_bits(const T &v) {
  unsigned long long b = 0;
  memcpy(&b, &v, sizeof(T));
  return b;
}

/* Predecessors a look-back step examines: each lane of warp 0 loads
 * KK__LB_WINDOW / 32 descriptors at once. */
#define KK__LB_WINDOW 128

/* Warp 0 of a tile: publishes its aggregate, walks back KK__LB_WINDOW
 * predecessors at a time until the nearest inclusive prefix, folds them in
 * tile order (the whole warp), and publishes its own inclusive prefix.  prefix gets
 * the exclusive prefix of the tile. */
template <class T, class RED>
__device__ __forceinline__ void kk__lookback_packed(const kk_gpu_launch &L, unsigned long long tile, const T &agg,
                                                    T &prefix, T *win) {
  constexpr int Q = KK__LB_WINDOW / 32;
  const unsigned lane = threadIdx.x;
  const unsigned long long E = L.epoch << 2;
  ulonglong2 *desc = (ulonglong2 *)L.status;
  if (tile == 0) {
    if (lane == 0)
      kk__desc_store(desc, E | KK_GPU_TILE_INCLUSIVE, kk__desc_bits(agg));
    return;
  }
  if (lane == 0)
    kk__desc_store(desc + tile, E | KK_GPU_TILE_AGGREGATE, kk__desc_bits(agg));
  for (long long top = (long long)tile - 1;; top -= KK__LB_WINDOW) {
    /* window slot w holds tile top - (KK__LB_WINDOW - 1 - w): the last is the nearest */
    ulonglong2 d[Q];
#pragma unroll
    for (int q = 0; q < Q; q++) { /* every load issued before any is waited for */
      const long long j = top - (KK__LB_WINDOW - 1 - (long long)(lane + 32 * q));
      d[q] = j >= 0 ? kk__desc_load(desc + j) : make_ulonglong2(E | KK_GPU_TILE_AGGREGATE, 0);
    }
    int first = 0;
    bool stop = false;
#pragma unroll
    for (int q = 0; q < Q; q++) {
      const long long j = top - (KK__LB_WINDOW - 1 - (long long)(lane + 32 * q));
      if (j >= 0)
        while ((d[q].x >> 2) != L.epoch)
          d[q] = kk__desc_load(desc + j);
      if (j >= 0)
        memcpy(&win[lane + 32 * q], &d[q].y, sizeof(T));
      else
        RED::init(&win[lane + 32 * q]);
      const unsigned found = __ballot_sync(0xffffffffu, j >= 0 && (d[q].x & 3ull) == KK_GPU_TILE_INCLUSIVE);
      if (found) { /* the nearest inclusive so far; tile 0 is always inclusive, so the walk ends */
        first = 32 * q + 31 - __clz(found);
        stop = true;
      }
    }
    __syncwarp();
    /* the window's slots first .. end folded in order: each lane folds Q
     * neighbours, then a tree over the lanes keeps their order */
    T part;
    RED::init(&part);
#pragma unroll
    for (int k = 0; k < Q; k++)
      if ((int)lane * Q + k >= first)
        RED::join(&part, &win[lane * Q + k]);
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      T o = kk__wshfl_down(part, d);
      if (lane + d < 32)
        RED::join(&part, &o);
    }
    if (lane == 0) {
      RED::join(&part, &prefix);
      prefix = part;
    }
    __syncwarp();
    if (stop)
      break;
  }
  if (lane == 0) {
    T inclusive = prefix;
    RED::join(&inclusive, &agg);
    kk__desc_store(desc + tile, E | KK_GPU_TILE_INCLUSIVE, kk__desc_bits(inclusive));
  }
}

/* One tile of a single-pass scan; body(i, &value, final).  A tile is
 * KK__SCAN_ITEMS(T) * blockDim consecutive elements.  The body runs on them
 * striped (element s of the tile on thread s % blockDim), so that its loads
 * and stores are coalesced; in between, the contributions go through shared
 * memory to a blocked arrangement (thread t holds elements t * items ..
 * t * items + items - 1), where each thread scans its run in registers and
 * one warp scan joins the runs: one shuffle scan per thread and tile, not
 * one per element.  Joins keep element order, so a reducer need not
 * commute. */
#define KK__SCAN_MAX_ITEMS 16
#define KK__SCAN_ITEMS(T) (sizeof(T) <= 8 ? KK__SCAN_MAX_ITEMS : sizeof(T) <= 16 ? KK__SCAN_MAX_ITEMS / 2 : 1)
#define KK__PRAGMA(x) _Pragma(#x)
#define KK__UNROLL(n) KK__PRAGMA(unroll n)
/* Measured on an H100 and an H200 (docs/benchmarks.md): five resident
 * blocks of 256 per SM (48 registers) beat four (56 or 64 registers) and six
 * (40 registers, with spills); the last phase unrolled 4 times keeps 48
 * registers without spilling, unrolled fully it needs 96.  Turing runs at
 * most 1024 threads per SM: four blocks there. */
#define KK__SCAN_FINAL_UNROLL 4
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define KK__SCAN_BOUNDS __launch_bounds__(256, 4)
#else
#define KK__SCAN_BOUNDS __launch_bounds__(256, 5)
#endif
/* Tile slot s in shared memory: one pad element after every `items`, so
 * that neither the striped (consecutive s) nor the blocked (s = t * items +
 * k) accesses of a half-warp fall on one bank. */
template <int IT> __device__ __forceinline__ unsigned kk__scan_slot(unsigned s) { return IT > 1 ? s + s / IT : s; }
/* Inclusive scan in lane order of one value per lane of a whole warp; the
 * exclusive one goes to *excl. */
template <class T, class RED> __device__ __forceinline__ T kk__warp_scan(T v, unsigned lane, T *excl) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    T o = kk__wshfl_up(v, d);
    if ((int)lane >= d) {
      RED::join(&o, &v);
      v = o;
    }
  }
  *excl = kk__wshfl_up(v, 1);
  if (lane == 0)
    RED::init(excl);
  return v;
}

template <class T, class RED, class F> __device__ void kk__scan_tile(const kk_gpu_launch &L, F body) {
  __shared__ unsigned long long kk__tile;
  __shared__ T kk__prefix;
  /* per warp: its run's total, then the prefix before its run */
  __shared__ T kk__wt[32];
  if (threadIdx.x == 0) {
    kk__tile = atomicAdd(L.tile_counter, 1ull) - L.tile_base;
    if (kk__tile == gridDim.x - 1)
      *L.tile_counter = L.tile_base; /* every tile is handed out: ready for the next launch */
  }
  __syncthreads();
  const unsigned long long tile = kk__tile;
  constexpr int IT = KK__SCAN_ITEMS(T); /* plugins/cuda sizes L.items and shared memory alike */
  const unsigned B = blockDim.x, tid = threadIdx.x;
  const int64_t first = L.begin + (int64_t)tile * ((int64_t)B * IT);
  const unsigned lane = tid & 31u, warp = tid >> 5, nwarps = B >> 5;
  T *buf = (T *)kk__smem;
  /* 1. every element's contribution (the body applied to the identity),
   * striped, all loads in flight before any is waited for */
  T v[IT];
#pragma unroll
  for (int r = 0; r < IT; r++) {
    const int64_t i = first + (int64_t)r * B + tid;
    RED::init(&v[r]);
    if (i < L.end)
      body(i, &v[r], 0);
  }
#pragma unroll
  for (int r = 0; r < IT; r++)
    buf[kk__scan_slot<IT>(r * B + tid)] = v[r];
  __syncthreads();
  /* 2. blocked: this thread's run summed, the runs joined by a warp scan,
   * then every element's prefix within its warp written back in place (two
   * passes over shared memory: holding the run in registers across the
   * warp scan would cost 2 * items registers) */
  T run;
  RED::init(&run);
#pragma unroll
  for (int k = 0; k < IT; k++)
    RED::join(&run, &buf[kk__scan_slot<IT>(tid * IT + k)]);
  const T incl = kk__warp_scan<T, RED>(run, lane, &run);
  if (lane == 31)
    kk__wt[warp] = incl;
  __syncwarp(); /* shared memory is read again, not kept from the first pass */
#pragma unroll
  for (int k = 0; k < IT; k++) {
    T *slot = &buf[kk__scan_slot<IT>(tid * IT + k)];
    const T x = *slot;
    *slot = run;
    RED::join(&run, &x);
  }
  __syncthreads();
  /* 3. warp 0: the prefixes of the warps' runs and the tile's aggregate */
  __shared__ T kk__agg;
  T wex; /* warp 0, lane w: the prefix before warp w's run within the tile */
  RED::init(&wex);
  if (warp == 0) {
    T w;
    if (lane < nwarps)
      w = kk__wt[lane];
    else
      RED::init(&w);
    w = kk__warp_scan<T, RED>(w, lane, &wex);
    if (lane == nwarps - 1)
      kk__agg = w;
    __syncwarp();
  }
  /* Warp 0 publishes the tile's aggregate and looks back at its
   * predecessors, a window at a time: each lane waits for its status words,
   * the nearest inclusive prefix ends the walk, and lane 0 folds the window
   * in tile order. */
  __shared__ T kk__win[sizeof(T) <= 8 ? KK__LB_WINDOW : 32];
  if (threadIdx.x < 32) {
    const unsigned lane = threadIdx.x;
    const T agg = kk__agg;
    T prefix;
    RED::init(&prefix);
    if constexpr (sizeof(T) <= 8) {
      kk__lookback_packed<T, RED>(L, tile, agg, prefix, kk__win);
    } else { /* larger values: a status word, then the value behind a fence */
    const unsigned long long E = L.epoch << 2;
    T *aggs = (T *)L.partials, *incls = (T *)L.partials2;
    volatile unsigned long long *st = L.status;
    if (tile == 0) {
      if (lane == 0) {
        incls[0] = agg;
        __threadfence();
        st[0] = E | KK_GPU_TILE_INCLUSIVE;
      }
    } else {
      if (lane == 0) {
        aggs[tile] = agg;
        __threadfence();
        st[tile] = E | KK_GPU_TILE_AGGREGATE;
      }
      for (long long top = (long long)tile - 1;; top -= 32) {
        const long long j = top - (31 - (long long)lane); /* lane 31 is the nearest */
        unsigned long long sw = 0;
        if (j >= 0)
          while (((sw = st[j]) >> 2) != L.epoch)
            ;
        __threadfence();
        const bool incl = j >= 0 && (sw & 3ull) == KK_GPU_TILE_INCLUSIVE;
        const unsigned found = __ballot_sync(0xffffffffu, incl);
        const int first = found ? 31 - __clz(found) : 0;
        if (j >= 0 && (int)lane >= first)
          kk__win[lane] = kk__load_cg(incl ? incls + j : aggs + j);
        __syncwarp();
        if (lane == 0) {
          T w;
          RED::init(&w);
          for (int k = first; k < 32; k++)
            if (top - (31 - k) >= 0)
              RED::join(&w, &kk__win[k]);
          RED::join(&w, &prefix);
          prefix = w;
        }
        __syncwarp();
        if (found) /* tile 0 is always inclusive: the walk ends */
          break;
      }
      if (lane == 0) {
        T inclusive = prefix;
        RED::join(&inclusive, &agg);
        incls[tile] = inclusive;
        __threadfence();
        st[tile] = E | KK_GPU_TILE_INCLUSIVE;
      }
    }
    }
    if (lane == 0) {
      kk__prefix = prefix;
      if (L.result && first + (int64_t)B * IT >= L.end) {
        T inclusive = prefix;
        RED::join(&inclusive, &agg);
        *(T *)L.result = inclusive; /* the last tile: the scan's total */
      }
    }
    __syncwarp();
    if (lane < nwarps) {
      T p = kk__prefix;
      RED::join(&p, &wex);
      kk__wt[lane] = p; /* everything before warp `lane`'s run */
    }
  }
  __syncthreads();
  /* 4. striped again: the body with each element's exclusive prefix */
  KK__UNROLL(KK__SCAN_FINAL_UNROLL)
  for (int r = 0; r < IT; r++) {
    const unsigned s = r * B + tid;
    const int64_t i = first + s;
    if (i < L.end) {
      T p = kk__wt[s / (32u * IT)];
      RED::join(&p, &buf[kk__scan_slot<IT>(s)]);
      body(i, &p, 1);
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
  extern "C" __global__ void KK__SCAN_BOUNDS kk_k_##NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {                      \
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

/* The general MDRange entries (kk_k_*) have blocks of at most 256 threads
 * (plugins/cuda reads the bound back), and asking for 6 resident blocks per
 * SM keeps them, which carry both inner iteration orders, at 40 registers
 * (Turing: 1024 threads per SM). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define KK__MD_BOUNDS __launch_bounds__(256, 4)
#else
#define KK__MD_BOUNDS __launch_bounds__(256, 6)
#endif

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
/* The direct form (the kk_kd_* entry of an MDRange for): one tile per block,
 * one point per thread; blockIdx.x / .y are the tiles along the two
 * innermost dimensions, blockIdx.z those of the others.  A kernel of its own,
 * so that its few registers are not those of the general form. */
template <int R, bool IL, class F> __device__ __forceinline__ void kk__md_direct(const kk_gpu_launch &L, F f) {
  int64_t idx[R];
  const int d0 = IL ? 0 : R - 1, d1 = IL ? 1 : R - 2;
  idx[d0] = L.md_begin[d0] + (int64_t)blockIdx.x * L.md_tile[d0] + threadIdx.x;
  idx[d1] = L.md_begin[d1] + (int64_t)blockIdx.y * L.md_tile[d1] + threadIdx.y;
  bool in = idx[d0] < L.md_end[d0] && idx[d1] < L.md_end[d1];
  unsigned bz = blockIdx.z, tz = threadIdx.z;
#pragma unroll
  for (int k = 2; k < R; k++) {
    const int d = IL ? k : R - 1 - k;
    unsigned b = bz, p = tz;
    if (k < R - 1) {
      const unsigned nt = (unsigned)L.md_ntile[d], tl = (unsigned)L.md_tile[d];
      b = bz % nt, bz /= nt;
      p = tz % tl, tz /= tl;
    }
    idx[d] = L.md_begin[d] + (int64_t)b * L.md_tile[d] + p;
    in = in && idx[d] < L.md_end[d];
  }
  if (in)
    f(idx);
}
template <int R, class F> __device__ __forceinline__ void kk__md_direct_run(const kk_gpu_launch &L, F f) {
  if (L.inner_left)
    kk__md_direct<R, true>(L, f);
  else
    kk__md_direct<R, false>(L, f);
}

/* The order across tiles is the order in which tiles are handed to blocks,
 * which run concurrently in no guaranteed order anyway: the kernels walk the
 * tiles in the order of the points inside them, and carry two instances, not
 * four (fewer registers). */
template <int R, class F> __device__ __forceinline__ void kk__md_run(const kk_gpu_launch &L, F f) {
  if (L.inner_left)
    kk__md_tiles<R, true, true>(L, f);
  else
    kk__md_tiles<R, false, false>(L, f);
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
  extern "C" __global__ void __launch_bounds__(1024) kk_kd_##NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {     \
    kk__md_direct_run<RANK>(kk__L, [&](const int64_t *kk__ix) { kk__body_##NAME(&kk__a, KK__IX##RANK, nullptr); });  \
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
  unsigned long long *failed_record;
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
  t->failed_record = L.failed_record;
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
    const unsigned code = 1u + (unsigned)level + (per_thread ? 2u : 0u);
    if (atomicCAS(t->failed, 0u, code) == 0u) {
      unsigned long long *sizes = (unsigned long long *)(t->failed + 2);
      sizes[0] = *used + need;
      sizes[1] = have;
      __threadfence();
      if (t->failed_record) { /* the host's copy: the sizes, then the code */
        volatile unsigned long long *rec = t->failed_record;
        rec[1] = *used + need;
        rec[2] = have;
        __threadfence_system();
        rec[0] = code;
        __threadfence_system();
      }
    }
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

/* KK_THREAD_UNROLL (default 2): how many of a team thread's iterations
 * the compiler may interleave in KK_TEAM_THREAD_FOR and the team-thread
 * reductions, so that the loads of the next row are in flight while this
 * one reduces; 1 turns it off.  A tuning hint like KK_VECTOR_UNROLL, see
 * docs/kernel-language.md. */
#ifndef KK_THREAD_UNROLL
#define KK_THREAD_UNROLL 2
#endif
#define KK_TEAM_THREAD_FOR(t, J, B, E)                                                                          \
  KK__UNROLL(KK_THREAD_UNROLL) for (int64_t J = (B) + (t)->team_rank, KK__CAT(kk__e_, J) = (E); J < KK__CAT(kk__e_, J); J += (t)->team_size)
/* KK_VECTOR_UNROLL, as defined where a vector loop is written (default 1;
 * #undef and #define it around a kernel, or -D on the kkcc command line):
 * vector loops take that many elements per lane per step, all but the first
 * guarded, so that a reduction's loads are in flight together, and no trip
 * count is divided out first.  It costs registers, hence occupancy: a tuning
 * hint, see docs/kernel-language.md. */
#ifndef KK_VECTOR_UNROLL
#define KK_VECTOR_UNROLL 1
#endif
#define KK_THREAD_VECTOR_FOR(t, K, B, E)                                                                        \
  _Pragma("unroll 1") for (int64_t KK__CAT(kk__k0_, K) = (B) + (t)->lane, KK__CAT(kk__e_, K) = (E);                   \
                           KK__CAT(kk__k0_, K) < KK__CAT(kk__e_, K);                                             \
                           KK__CAT(kk__k0_, K) += (int64_t)(KK_VECTOR_UNROLL) * (t)->vlen)                        \
  _Pragma("unroll") for (int64_t K = KK__CAT(kk__k0_, K), KK__CAT(kk__u_, K) = 0;                                    \
                         KK__CAT(kk__u_, K) < (KK_VECTOR_UNROLL) && K < KK__CAT(kk__e_, K); \
                         ++KK__CAT(kk__u_, K), K += (t)->vlen)
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
  const int vl = t->vlen;
  if (vl == 32) { /* the vector is the warp (blockDim.x == 32): no mask to compute, no convergence check */
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      V o = kk__shfl_op<KK__SHFL_XOR>(*v, d, 32, KK__WARP_FULL);
      J::join(v, &o);
    }
    return;
  }
  if (vl <= 1)
    return;
  const unsigned mask = kk__shfl_mask(vl);
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) { /* unrolled: the vector length is at most a warp */
    if (d >= vl)
      break;
    V o = kk__shfl_op<KK__SHFL_XOR>(*v, d, vl, mask);
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
/* complex double: add and subtract one hardware atomic per component (each
 * component's old value is returned; the pair is not one snapshot), exchange
 * and compare-exchange 16 bytes through the lock table.  The two kinds must not
 * race on one element: a locked update does not see a concurrent add. */
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
 * compare-and-swap loop, one hardware add per component (a concurrent
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

#endif /* KK_TARGET_CUDA_H */
