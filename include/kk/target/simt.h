/* kk/target/simt.h -- the kernel language on SIMT GPUs, CUDA and HIP alike: one __global__ function per kernel; cuda.h and hip.h spell what their vendor does differently. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TARGET_SIMT_H
#define KK_TARGET_SIMT_H

/*
 * Included by kk/target/cuda.h (nvcc, NVRTC) and kk/target/hip.h
 * (HIP-Clang).  Every kernel becomes extern "C" __global__ kk_k_<name>
 * taking (argument struct, kk_gpu_launch) by value; the plugin's GPU layer
 * (plugins/gpu/gpu_simt.c) fills the launch record and chooses the grid.
 * A warp here is KK__WARP lanes: 32 on NVIDIA GPUs, the wavefront on AMD
 * GPUs (64 on gfx9 / CDNA, 32 on gfx10+), a constant of each code object.
 * Mapping:
 *   range for      grid-stride loop, one index per thread per step
 *   range reduce   per-thread partials, a block reduction (warp shuffles in
 *                  lane order, then the warp totals), one partial per block,
 *                  the last block to finish combines them and writes the
 *                  result (device memory, or mapped host memory for a
 *                  synchronous result, with a flag the host waits for)
 *   scan           one pass: tiles of KK__SCAN_ITEMS x blockDim elements
 *                  taken in order; the body runs striped, the contributions
 *                  go through shared memory to a blocked arrangement where
 *                  each thread scans its run in registers and one warp scan
 *                  joins the runs; decoupled look-back over the
 *                  predecessors' aggregates; then the final pass, striped
 *   MDRange        a block per tile (grid-stride over tiles), threads on the
 *                  tile's points: blockDim (x, y, z) = the tile's inner
 *                  dimensions, or a 1-D block over its points ("flat"); an
 *                  MDRange for also has a direct entry kk_kd_<name>, one tile
 *                  per block found from the grid's coordinates
 *   teams          a block per team (grid-stride over league ranks),
 *                  threadIdx.y = team rank, threadIdx.x = vector lane (a
 *                  vector is a group of lanes of one warp); level-0 scratch
 *                  in shared memory, level-1 in a device pool
 *
 * What the vendor header defines before including this one:
 *   KK__WARP, kk__lanes_t, KK__WARP_FULL   lanes of a warp, a lane mask, all lanes
 *   KK__SHFL_up/down/xor(mask, w, a, width)   one 32-bit shuffle
 *   kk__shfl_mask(width)      the lanes a shuffle of `width` lanes may name
 *   kk__warp_sync()           orders a warp's shared-memory accesses around an exchange
 *   kk__ballot(p), kk__top_lane(m)   the lanes of a whole warp where p holds; the highest of them
 *   kk__ldcg(p)               a 32-bit load of what other blocks published (past this SM's cache)
 *   kk__status_wait(p, epoch), kk__status_store(p, w)   a scan tile's status word
 *   kk__flag_store(p, v)      the word the host waits for, after the value it guards
 *   KK__ACQUIRE()             the last block of a reduction, before it reads the partials
 *   KK__THREAD_EXIT()         ends the calling thread (a scratch overrun)
 *   KK__SCAN_PACKED           1: look-back descriptors {status, value} of 16 bytes, which
 *                             kk__desc_load / kk__desc_store read and write whole
 *   KK__SCAN_BOUNDS, KK__MD_BOUNDS   launch bounds of the scan and MDRange entries
 *   KK__THREAD_UNROLL         KK_THREAD_UNROLL's default
 *   KK__VECTOR_WHILE(c), KK__VECTOR_IF(c)   where a vector loop's unrolled steps test that
 *                             they are in the range: in the loop's condition or around each step
 *   KK__ATOMIC_INT(op, T, p, v)      integer atomics (op: add min max and or xor)
 *   kk__devlock, KK__LOCK_HELD       the lock table's warp-safe loop (see KK_ATOMIC_LOCK)
 */

#include <kk/target/gpu_launch.h>
#include <kk/target/kernel_common.h> /* KK__BC_COMMON, before the bounds checks below */

#define KK__DEFAULT_LAYOUT KK_LAYOUT_LEFT
#define KK__DEFAULT_ITERATE 2 /* KK_ITERATE_LEFT */
#define KK__FN static __device__ __forceinline__
#define KK__UNUSED __attribute__((unused))
#ifndef restrict
#define restrict __restrict__
#endif
#define KK__PRAGMA(x) _Pragma(#x)
#define KK__UNROLL(n) KK__PRAGMA(unroll n)

typedef const kk_host_thread_t *kk__thread_t;

/* Dynamic shared memory of every kernel: reductions and level-0 scratch. */
extern __shared__ __attribute__((aligned(16))) unsigned char kk__smem[];

/* The device lock table of arbitrary-size atomics; the plugin points it at
 * one table per device when it loads the module. */
extern "C" {
__device__ unsigned int *kk__dev_locks;
/* Lets the plugin check that module and plugin speak the same launch record. */
__device__ int kk__gpu_launch_version = KK_GPU_LAUNCH_VERSION;
}

/* ==== bounds checking (kkcc --bounds-check) ==================================================
 * Only in checked images (KK_BOUNDS_CHECK): a checked KK_AT (KK__BOUNDS_AT)
 * and ScatterView contribution test the access; the first failure of the
 * context takes the failure word (device memory, compare-and-swap), writes
 * the record (mapped host memory, kk/target/gpu_launch.h) and the access
 * uses a zeroed dummy element instead of the view's.  The grid-stride and
 * MDRange tile loops stop once the word is set, team loops by a block-wide
 * vote (KK__BC_TEAM_STOP), so that no team-mate waits alone at a barrier.
 * The plugin sets kk__bc_word and kk__bc_record when it loads the module and
 * reads the record at the next fence (docs/bounds-check.md).  Without
 * KK_BOUNDS_CHECK none of this exists and the image is what it was. */
#ifdef KK_BOUNDS_CHECK
extern "C" {
__device__ unsigned int *kk__bc_word;
__device__ unsigned long long *kk__bc_record;
}
/* what a failed access reads and writes: elements of up to this many bytes */
#define KK__BC_SINK_BYTES 512
__device__ __attribute__((aligned(16))) unsigned char kk__bc_sink[KK__BC_SINK_BYTES];

KK__FN bool kk__bc_stop() {
  const unsigned int *w = kk__bc_word;
  return w && *(const volatile unsigned int *)w != 0u;
}
/* Loop conditions and the league loop's first statement, wrapped whole so
 * that without KK_BOUNDS_CHECK the preprocessed text (the NVRTC source kkcc
 * embeds) is the same token for token. */
#define KK__BC_WHILE(c) ((c) && !kk__bc_stop())
#define KK__BC_TEAM_STOP(stmt)             \
  if (__syncthreads_or(kk__bc_stop()))    \
    break;                                \
  stmt

/* Records the first failure of the context (the winner of the word) and
 * gives the dummy element.  Not inlined: the checked fast path stays short. */
static __device__ __noinline__ void *kk__bc_fail(const kk_view_desc_t *d, unsigned esize, int n, const int64_t *ix,
                                                 const char *file, int line) {
  unsigned int *w = kk__bc_word;
  if (w && atomicCAS(w, 0u, 1u) == 0u) {
    volatile unsigned long long *r = kk__bc_record;
    if (r) {
      r[KK_GPU_BC_DATA] = (unsigned long long)(uintptr_t)d->data;
      r[KK_GPU_BC_RANK_N] = (unsigned long long)(unsigned)d->rank | (unsigned long long)(unsigned)n << 32;
      r[KK_GPU_BC_SIZES] = (unsigned long long)esize | (unsigned long long)d->elem_size << 32;
      for (int k = 0; k < KK_MAX_RANK; k++) {
        r[KK_GPU_BC_IDX + k] = (unsigned long long)(k < n ? ix[k] : 0);
        r[KK_GPU_BC_EXT + k] = (unsigned long long)d->extent[k];
      }
      r[KK_GPU_BC_LINE] = (unsigned long long)line;
      int len = 0;
      while (file && file[len])
        len++;
      const int from = len > KK_GPU_BC_FILE_BYTES - 1 ? len - (KK_GPU_BC_FILE_BYTES - 1) : 0;
      for (int wd = 0; wd < KK_GPU_BC_FILE_BYTES / 8; wd++) {
        unsigned long long b = 0;
        for (int k = 0; k < 8; k++) {
          const int at = from + wd * 8 + k;
          b |= (unsigned long long)(unsigned char)(at < len ? file[at] : 0) << (8 * k);
        }
        r[KK_GPU_BC_FILE + wd] = b;
      }
      __threadfence_system();
      r[KK_GPU_BC_STATE] = 2ull;
      __threadfence_system();
    }
  }
  for (unsigned k = 0; k < esize && k < KK__BC_SINK_BYTES; k++)
    kk__bc_sink[k] = 0;
  return kk__bc_sink;
}

/* kk__bc_bad (kernel_common.h) */
KK__BC_BAD(KK__FN)

/* The checked KK_AT: the element's address, or on a failed access the dummy
 * element. */
template <class T, class... I>
KK__FN void *kk__bc_at(const kk_view_desc_t *d, int layout, const char *file, int line, I... i) {
  static_assert(sizeof(T) <= KK__BC_SINK_BYTES, "bounds-checked accesses on GPUs take elements of up to 512 bytes");
  constexpr int n = (int)sizeof...(I);
  const int64_t ix[n] = {(int64_t)i...};
  if (__builtin_expect(kk__bc_bad(d, (unsigned)sizeof(T), n, ix), 0))
    return kk__bc_fail(d, (unsigned)sizeof(T), n, ix, file, line);
  int64_t off;
  KK__BC_OFFSET(off, d, layout, n, ix, _Pragma("unroll"));
  return (char *)d->data + off * (int64_t)sizeof(T);
}
/* A ScatterView contribution's check: false (after recording) when it fails. */
template <class T, class... I> KK__FN bool kk__bc_scatter_ok(const kk_view_desc_t *d, const char *file, int line, I... i) {
  constexpr int n = (int)sizeof...(I);
  const int64_t ix[n] = {(int64_t)i...};
  if (__builtin_expect(kk__bc_bad(d, (unsigned)sizeof(T), n, ix), 0)) {
    (void)kk__bc_fail(d, (unsigned)sizeof(T), n, ix, file, line);
    return false;
  }
  return true;
}
#define KK__BOUNDS_AT(v, T, N, ...) kk__bc_at<T>(KK__DESC_PTR(v), KK__LAYOUT_OF(v), __FILE__, __LINE__, __VA_ARGS__)
#else
#define KK__BC_WHILE(c) c
#define KK__BC_TEAM_STOP(stmt) stmt
#endif /* KK_BOUNDS_CHECK */

/* ==== generic helpers ===================================================================== */

/* Shuffles of any trivially copyable value, word by word, among groups of
 * `width` lanes (a power of two up to the warp).  A lane whose source lies
 * outside its group, or names a lane that does not exist, gets a value it
 * must not use: the callers check. */
#define KK__SHFL_FN(OP)                                                                                         \
  template <class T> KK__FN T kk__shfl_##OP##_m(T v, int a, int width, kk__lanes_t mask) {                      \
    int w[(sizeof(T) + 3) / 4];                                                                                 \
    memcpy(w, &v, sizeof(T));                                                                                   \
    _Pragma("unroll") for (int k = 0; k < (int)((sizeof(T) + 3) / 4); k++) w[k] = KK__SHFL_##OP(mask, w[k], a, width); \
    memcpy(&v, w, sizeof(T));                                                                                   \
    return v;                                                                                                   \
  }
KK__SHFL_FN(up)
KK__SHFL_FN(down)
KK__SHFL_FN(xor)
/* over the warp's lanes that exist, in groups of `width` */
template <class T> KK__FN T kk__shfl_down(T v, int d, int width = KK__WARP) {
  return kk__shfl_down_m(v, d, width, kk__shfl_mask(width));
}
/* Over a whole warp, for code that knows all its lanes exist and take part
 * (a 1-D block of a multiple of the warp, a vector as wide as the warp):
 * with a constant mask nvcc emits no convergence check (MATCH, REDUX, VOTE
 * and a branch) around each shuffle, as it must around a computed one. */
template <class T> KK__FN T kk__wshfl_up(T v, int d) { return kk__shfl_up_m(v, d, KK__WARP, KK__WARP_FULL); }
template <class T> KK__FN T kk__wshfl_down(T v, int d) { return kk__shfl_down_m(v, d, KK__WARP, KK__WARP_FULL); }

/* A load of what other blocks published (through L2, past this SM's cache). */
template <class T> KK__FN T kk__load_cg(const T *p) {
  T v;
  if (sizeof(T) % 4 == 0) {
    unsigned w[sizeof(T) / 4 + (sizeof(T) % 4 ? 1 : 0)];
    for (int k = 0; k < (int)(sizeof(T) / 4); k++)
      w[k] = kk__ldcg((const unsigned *)p + k);
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
 * the join need not commute.  The last warp of a block may be partial (3
 * team threads x 4 lanes): lanes past the end are never joined.  Thread 0
 * gets the result.  Uses kk__smem from offset `at`. */
template <class VT, class RED> KK__FN VT kk__block_reduce(VT v, unsigned tid, unsigned n, unsigned at) {
  const unsigned lane = tid % KK__WARP, warp = tid / KK__WARP, nwarps = (n + KK__WARP - 1) / KK__WARP;
  const unsigned here = n - warp * KK__WARP < KK__WARP ? n - warp * KK__WARP : KK__WARP; /* lanes of this warp */
#pragma unroll
  for (int d = 1; d < KK__WARP; d <<= 1) {
    VT o = kk__shfl_down(v, d);
    if ((lane & (2u * d - 1u)) == 0 && lane + d < here)
      RED::join(&v, &o);
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

/* The end of every reduce kernel: block partial, then the last block combines.
 * A grid of one block (a small reduction, where latency is all there is)
 * writes its value at once: no partial, no counter, and one system fence
 * (before the host's flag) instead of two. */
template <class VT, class RED>
__device__ void kk__reduce_finish(VT v, const kk_gpu_launch &L, unsigned tid, unsigned n, unsigned nblocks,
                                  unsigned block) {
  v = kk__block_reduce<VT, RED>(v, tid, n, 0);
  if (nblocks == 1) {
    if (tid == 0) {
      *(VT *)L.result = v;
      if (L.result_flag) {
        __threadfence_system(); /* the body's writes and the value before the word the host waits for */
        kk__flag_store(L.result_flag, L.result_seq);
      }
    }
    return;
  }
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
  KK__ACQUIRE();
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
      kk__flag_store(L.result_flag, L.result_seq); /* the host waits for this word */
  }
}

/* ==== scan ==================================================================================== */

/* Predecessors a look-back step examines with packed descriptors: each lane
 * of warp 0 loads KK__LB_WINDOW / KK__WARP of them at once. */
#define KK__LB_WINDOW 128

#if KK__SCAN_PACKED
/* Look-back descriptors of values up to 8 bytes: {epoch << 2 | status,
 * value} in one 16-byte word per tile, written and read whole, so that a
 * look-back step costs one round trip to L2 and no fence. */
template <class T> KK__FN unsigned long long kk__desc_bits(const T &v) {
  unsigned long long b = 0;
  memcpy(&b, &v, sizeof(T));
  return b;
}
/* Warp 0 of a tile: publishes its aggregate, walks back KK__LB_WINDOW
 * predecessors at a time until the nearest inclusive prefix, folds them in
 * tile order (the whole warp), and publishes its own inclusive prefix.
 * prefix gets the exclusive prefix of the tile. */
template <class T, class RED>
KK__FN void kk__lookback_packed(const kk_gpu_launch &L, unsigned long long tile, const T &agg, T &prefix, T *win) {
  constexpr int Q = KK__LB_WINDOW / KK__WARP;
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
      const long long j = top - (KK__LB_WINDOW - 1 - (long long)(lane + KK__WARP * q));
      d[q] = j >= 0 ? kk__desc_load(desc + j) : make_ulonglong2(E | KK_GPU_TILE_AGGREGATE, 0);
    }
    int first = 0;
    bool stop = false;
#pragma unroll
    for (int q = 0; q < Q; q++) {
      const long long j = top - (KK__LB_WINDOW - 1 - (long long)(lane + KK__WARP * q));
      if (j >= 0)
        while ((d[q].x >> 2) != L.epoch)
          d[q] = kk__desc_load(desc + j);
      if (j >= 0)
        memcpy(&win[lane + KK__WARP * q], &d[q].y, sizeof(T));
      else
        RED::init(&win[lane + KK__WARP * q]);
      const kk__lanes_t found = kk__ballot(j >= 0 && (d[q].x & 3ull) == KK_GPU_TILE_INCLUSIVE);
      if (found) { /* the nearest inclusive so far; tile 0 is always inclusive, so the walk ends */
        first = KK__WARP * q + kk__top_lane(found);
        stop = true;
      }
    }
    kk__warp_sync();
    /* the window's slots first .. end folded in order: each lane folds Q
     * neighbours, then a tree over the lanes keeps their order */
    T part;
    RED::init(&part);
#pragma unroll
    for (int k = 0; k < Q; k++)
      if ((int)lane * Q + k >= first)
        RED::join(&part, &win[lane * Q + k]);
#pragma unroll
    for (int d = 1; d < KK__WARP; d <<= 1) {
      T o = kk__wshfl_down(part, d);
      if (lane + d < KK__WARP)
        RED::join(&part, &o);
    }
    if (lane == 0) {
      RED::join(&part, &prefix);
      prefix = part;
    }
    kk__warp_sync();
    if (stop)
      break;
  }
  if (lane == 0) {
    T inclusive = prefix;
    RED::join(&inclusive, &agg);
    kk__desc_store(desc + tile, E | KK_GPU_TILE_INCLUSIVE, kk__desc_bits(inclusive));
  }
}
#endif

/* Warp 0 of a tile, for any value: a status word, then the value behind a
 * fence; one warp of predecessors per step, the nearest inclusive prefix
 * ends the walk, lane 0 folds the window in tile order. */
template <class T, class RED>
KK__FN void kk__lookback(const kk_gpu_launch &L, unsigned long long tile, const T &agg, T &prefix, T *win) {
  const unsigned lane = threadIdx.x;
  const unsigned long long E = L.epoch << 2;
  T *aggs = (T *)L.partials, *incls = (T *)L.partials2;
  if (tile == 0) {
    if (lane == 0) {
      incls[0] = agg;
      __threadfence();
      kk__status_store(L.status, E | KK_GPU_TILE_INCLUSIVE);
    }
    return;
  }
  if (lane == 0) {
    aggs[tile] = agg;
    __threadfence();
    kk__status_store(L.status + tile, E | KK_GPU_TILE_AGGREGATE);
  }
  for (long long top = (long long)tile - 1;; top -= KK__WARP) {
    const long long j = top - (KK__WARP - 1 - (long long)lane); /* the last lane is the nearest */
    const unsigned long long sw = j >= 0 ? kk__status_wait(L.status + j, L.epoch) : 0;
    __threadfence();
    const bool incl = j >= 0 && (sw & 3ull) == KK_GPU_TILE_INCLUSIVE;
    const kk__lanes_t found = kk__ballot(incl);
    const int first = found ? kk__top_lane(found) : 0;
    if (j >= 0 && (int)lane >= first)
      win[lane] = kk__load_cg(incl ? incls + j : aggs + j);
    kk__warp_sync();
    if (lane == 0) {
      T w;
      RED::init(&w);
      for (int k = first; k < KK__WARP; k++)
        if (top - (KK__WARP - 1 - k) >= 0)
          RED::join(&w, &win[k]);
      RED::join(&w, &prefix);
      prefix = w;
    }
    kk__warp_sync();
    if (found) /* tile 0 is always inclusive: the walk ends */
      break;
  }
  if (lane == 0) {
    T inclusive = prefix;
    RED::join(&inclusive, &agg);
    incls[tile] = inclusive;
    __threadfence();
    kk__status_store(L.status + tile, E | KK_GPU_TILE_INCLUSIVE);
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
 * commute.  Blocks have KK__SCAN_THREADS threads. */
#define KK__SCAN_MAX_ITEMS 16
/* Threads of a scan block: the plugin's GPU layer launches every scan with
 * this many (plugins/gpu/gpu_simt.c), the launch bound says so too.  A
 * constant, so that the body's element addresses in a tile are one base
 * plus immediate offsets, and the block's shape costs no arithmetic. */
#define KK__SCAN_THREADS 256
#define KK__SCAN_ITEMS(T) (sizeof(T) <= 8 ? KK__SCAN_MAX_ITEMS : sizeof(T) <= 16 ? KK__SCAN_MAX_ITEMS / 2 : 1)
/* Measured on an H100 and an H200 (docs/benchmarks.md): five resident
 * blocks of 256 per SM (48 registers) beat four (56 or 64 registers) and six
 * (40 registers, with spills); the last phase unrolled 4 times keeps 48
 * registers without spilling, unrolled fully it needs 96. */
#define KK__SCAN_FINAL_UNROLL 4
/* Tile slot s in shared memory: one pad element after every `items`, so
 * that neither the striped (consecutive s) nor the blocked (s = t * items +
 * k) accesses of a half-warp fall on one bank. */
template <int IT> KK__FN unsigned kk__scan_slot(unsigned s) { return IT > 1 ? s + s / IT : s; }
/* The same slot for striped element r * B + tid and blocked element
 * tid * IT + k, with the division done on the parts (B is a multiple of
 * IT): constants and one per-thread base, not a division per element. */
template <int IT, unsigned B> KK__FN unsigned kk__scan_slot_striped(unsigned r, unsigned tid) {
  static_assert(B % IT == 0, "a scan block is a multiple of the items per thread");
  return IT > 1 ? r * (B + B / IT) + tid + tid / IT : r * B + tid;
}
template <int IT> KK__FN unsigned kk__scan_slot_blocked(unsigned tid, unsigned k) {
  return IT > 1 ? tid * (IT + 1) + k : tid + k;
}
/* The warp whose run holds striped element r * B + tid (tid < B): r / 2
 * with 16 items and warps of 32, no per-thread part, when a warp's run is
 * a multiple of the block. */
template <int IT, unsigned B> KK__FN unsigned kk__scan_warp_of(unsigned r, unsigned tid) {
  if constexpr ((KK__WARP * IT) % B == 0)
    return r / ((KK__WARP * IT) / B);
  else
    return (r * B + tid) / (KK__WARP * IT);
}
/* Inclusive scan in lane order of one value per lane of a whole warp; the
 * exclusive one goes to *excl. */
template <class T, class RED> KK__FN T kk__warp_scan(T v, unsigned lane, T *excl) {
#pragma unroll
  for (int d = 1; d < KK__WARP; d <<= 1) {
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
  __shared__ T kk__wt[1024 / KK__WARP];
  if (threadIdx.x == 0) {
    kk__tile = atomicAdd(L.tile_counter, 1ull) - L.tile_base;
    if (kk__tile == gridDim.x - 1)
      *L.tile_counter = L.tile_base; /* every tile is handed out: ready for the next launch */
  }
  __syncthreads();
  const unsigned long long tile = kk__tile;
  constexpr int IT = KK__SCAN_ITEMS(T); /* the plugin sizes L.items and shared memory alike */
  constexpr unsigned B = KK__SCAN_THREADS;
  const unsigned tid = threadIdx.x;
  __builtin_assume(tid < B); /* so that s / (KK__WARP * IT) of s = r * B + tid is a constant */
  /* the tile's first index, and the count of its indices (less than B * IT
   * in the last tile), in 32 bits: every index formed is in the range,
   * whose end may be INT64_MAX */
  const int64_t first = L.begin + (int64_t)tile * ((int64_t)B * IT);
  const int64_t left = L.end - first;
  const unsigned here = left < (int64_t)B * IT ? (unsigned)left : B * IT;
  const unsigned lane = tid % KK__WARP, warp = tid / KK__WARP, nwarps = B / KK__WARP;
  T *buf = (T *)kk__smem;
  /* 1. every element's contribution (the body applied to the identity),
   * striped, all loads in flight before any is waited for; a full tile
   * (every one but the last) without a test per element, so that its
   * elements' addresses are one base and constant offsets */
  T v[IT];
  if (here == B * IT) {
#pragma unroll
    for (int r = 0; r < IT; r++) {
      RED::init(&v[r]);
      body(first + (r * B + tid), &v[r], 0);
    }
  } else {
#pragma unroll
    for (int r = 0; r < IT; r++) {
      const unsigned o = r * B + tid;
      RED::init(&v[r]);
      if (o < here)
        body(first + o, &v[r], 0);
    }
  }
#pragma unroll
  for (int r = 0; r < IT; r++)
    buf[kk__scan_slot_striped<IT, B>(r, tid)] = v[r];
  __syncthreads();
  /* 2. blocked: this thread's run summed, the runs joined by a warp scan,
   * then every element's prefix within its warp written back in place (two
   * passes over shared memory: holding the run in registers across the
   * warp scan would cost 2 * items registers) */
  T run;
  RED::init(&run);
#pragma unroll
  for (int k = 0; k < IT; k++)
    RED::join(&run, &buf[kk__scan_slot_blocked<IT>(tid, k)]);
  const T incl = kk__warp_scan<T, RED>(run, lane, &run);
  if (lane == KK__WARP - 1)
    kk__wt[warp] = incl;
  kk__warp_sync(); /* shared memory is read again, not kept from the first pass */
#pragma unroll
  for (int k = 0; k < IT; k++) {
    T *slot = &buf[kk__scan_slot_blocked<IT>(tid, k)];
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
    kk__warp_sync();
  }
  /* Warp 0 publishes the tile's aggregate and looks back at its predecessors. */
  __shared__ T kk__win[KK__SCAN_PACKED && sizeof(T) <= 8 ? KK__LB_WINDOW : KK__WARP];
  if (threadIdx.x < KK__WARP) {
    const unsigned lane = threadIdx.x;
    const T agg = kk__agg;
    T prefix;
    RED::init(&prefix);
#if KK__SCAN_PACKED
    if constexpr (sizeof(T) <= 8)
      kk__lookback_packed<T, RED>(L, tile, agg, prefix, kk__win);
    else
#endif
      kk__lookback<T, RED>(L, tile, agg, prefix, kk__win);
    if (lane == 0) {
      kk__prefix = prefix;
      if (L.result && (int64_t)B * IT >= left) {
        T inclusive = prefix;
        RED::join(&inclusive, &agg);
        *(T *)L.result = inclusive; /* the last tile: the scan's total */
      }
    }
    kk__warp_sync();
    if (lane < nwarps) {
      T p = kk__prefix;
      RED::join(&p, &wex);
      kk__wt[lane] = p; /* everything before warp `lane`'s run */
    }
  }
  __syncthreads();
  /* 4. striped again: the body with each element's exclusive prefix; a
   * full tile without a test per element, as in 1. */
  if (here == B * IT) {
    if constexpr (sizeof(T) <= 4) {
      /* KK__SCAN_FINAL_UNROLL elements a step, their indices one base and
       * constant offsets (with 8-byte values this form spills registers
       * of the plain scans at the launch bound's 48) */
      constexpr int U = IT % KK__SCAN_FINAL_UNROLL == 0 ? KK__SCAN_FINAL_UNROLL : 1;
#pragma unroll 1
      for (int r0 = 0; r0 < IT; r0 += U) {
        const int64_t i0 = first + (int64_t)(r0 * B + tid);
#pragma unroll
        for (int u = 0; u < U; u++) {
          const unsigned r = r0 + u;
          T p = kk__wt[kk__scan_warp_of<IT, B>(r, tid)];
          RED::join(&p, &buf[kk__scan_slot_striped<IT, B>(r, tid)]);
          body(i0 + (int64_t)u * B, &p, 1);
        }
      }
    } else {
      KK__UNROLL(KK__SCAN_FINAL_UNROLL)
      for (int r = 0; r < IT; r++) {
        T p = kk__wt[kk__scan_warp_of<IT, B>(r, tid)];
        RED::join(&p, &buf[kk__scan_slot_striped<IT, B>(r, tid)]);
        body(first + (r * B + tid), &p, 1);
      }
    }
  } else {
    KK__UNROLL(KK__SCAN_FINAL_UNROLL)
    for (int r = 0; r < IT; r++) {
      const unsigned s = r * B + tid;
      if (s < here) {
        T p = kk__wt[s / (KK__WARP * IT)];
        RED::join(&p, &buf[kk__scan_slot_striped<IT, B>(r, tid)]);
        body(first + s, &p, 1);
      }
    }
  }
}

/* ==== what kk/target/gpu_common.h asks of a target ============================================ */

#define KK__TEAM_BARRIER() __syncthreads()
#define KK__TEAM_VALUE_MAX KK_GPU_TEAM_VALUE_MAX
#define KK__ATH
#define KK__ATHP
typedef unsigned int kk__failed_t;
#define KK__SCRATCH_OR_LEAVE(expr) (expr) /* kk__scratch ends the thread when it fails */
#define KK__CTX nullptr                   /* bodies see no host thread */
#define KK__CAPTURE &
#define KK__LAMBDA
#define KK__KERNEL(BOUNDS, NAME, ARGS_T)                                                                        \
  extern "C" __global__ void BOUNDS NAME(const ARGS_T kk__a, const kk_gpu_launch kk__L) {                       \
    const ARGS_T *const kk__ap = &kk__a;
/* Not unrolled: most threads run it once, and unrolling a grid-stride loop
 * makes every thread divide to find its trip count first.  Offsets from
 * begin, unsigned: the range's length fits in int64_t (the core refuses
 * others), so offset + stride never wraps, and no index past the range's
 * end, which may be INT64_MAX, is ever formed. */
#define KK__GRID_LOOP(O)                                                                                        \
  _Pragma("unroll 1") for (uint64_t O = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,                       \
                           kk__n = (uint64_t)(kk__L.end - kk__L.begin),                                         \
                           kk__stride = (uint64_t)gridDim.x * blockDim.x;                                       \
                           KK__BC_WHILE(O < kk__n); O += kk__stride)
#define KK__GRID_INDEX(O) (kk__L.begin + (int64_t)(O))
/* the thread's index and the threads of a 1-, 2- (a team: lane 0 of each thread speaks) or 3-D block */
#define KK__FINISH(VT, NAME, DIMS)                                                                              \
  if (DIMS == 2 && threadIdx.x != 0)                                                                            \
    kk__red_##NAME::init(&kk__acc);                                                                             \
  kk__reduce_finish<VT, kk__red_##NAME>(                                                                        \
      kk__acc, kk__L, threadIdx.x + (DIMS > 1 ? blockDim.x * (threadIdx.y + (DIMS > 2 ? blockDim.y * threadIdx.z : 0)) : 0), \
      blockDim.x * (DIMS > 1 ? blockDim.y * (DIMS > 2 ? blockDim.z : 1) : 1), gridDim.x, blockIdx.x)

/* The lock table, safe under warp divergence: the loop is the warp's, not
 * the lane's (kk__devlock, the vendor's), so a lane that holds a lock is
 * never starved by its siblings spinning on it. */
#define KK_ATOMIC_LOCK(p)                                                                                       \
  for (kk__devlock kk__lk(&kk__dev_locks[KK__LOCK_INDEX(p)]); kk__lk.next(); kk__lk.release()) KK__LOCK_HELD

#include <kk/target/gpu_common.h>

/* ==== scan and MDRange kernels ============================================================== */

#define KK__SCAN_COMMON(NAME, ARGS_T, T, I, UPD, FIN)                                                           \
  KK__BODY(NAME, ARGS_T, const int64_t I KK__UNUSED, T *const UPD KK__UNUSED, const int FIN KK__UNUSED, );     \
  KK__KERNEL(KK__SCAN_BOUNDS, kk_k_##NAME, ARGS_T)                                                              \
  kk__scan_tile<T, kk__red_##NAME>(kk__L, [&](int64_t kk__i, T *kk__v, int kk__f) {                            \
    if (kk__f)                                                                                                  \
      kk__body_##NAME(kk__ap, kk__i, kk__v, 1, KK__CTX);                                                        \
    else                                                                                                        \
      kk__body_##NAME(kk__ap, kk__i, kk__v, 0, KK__CTX);                                                        \
  });                                                                                                           \
  }                                                                                                             \
  KK__BODY(NAME, ARGS_T, const int64_t I KK__UNUSED, T *const UPD KK__UNUSED, const int FIN KK__UNUSED, )


/* The tiles of this block, R dimensions, the iteration orders as template
 * arguments: every index array stays in registers, and the tile coordinates
 * use 32-bit division where the counts allow (int64 division is a long
 * instruction sequence on a GPU). */
template <int R, bool IL, bool OL, class F> KK__FN void kk__md_tiles(const kk_gpu_launch &L, F f) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned nt = blockDim.x * blockDim.y * blockDim.z;
  const bool small = L.md_tiles <= 0xffffffffll;
#pragma unroll 1
  for (int64_t t = blockIdx.x; KK__BC_WHILE(t < L.md_tiles); t += gridDim.x) {
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
      hi[d] = L.md_end[d] - lo[d] > L.md_tile[d] ? lo[d] + L.md_tile[d] : L.md_end[d];
    }
    int64_t idx[R];
    if (!L.flat) {
      /* x, y on the two innermost dimensions, z on the others */
      const int d0 = IL ? 0 : R - 1, d1 = IL ? 1 : R - 2;
      /* a point is in the tile when its offsets are; an index outside is
       * formed in unsigned arithmetic, as the tile may end at INT64_MAX,
       * and not used */
      idx[d0] = (int64_t)((uint64_t)lo[d0] + threadIdx.x);
      idx[d1] = (int64_t)((uint64_t)lo[d1] + threadIdx.y);
      bool in2 = threadIdx.x < hi[d0] - lo[d0] && threadIdx.y < hi[d1] - lo[d1];
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
          const unsigned p = k == R - 1 ? z : z % (unsigned)L.md_tile[d];
          if (k < R - 1)
            z /= (unsigned)L.md_tile[d];
          idx[d] = (int64_t)((uint64_t)lo[d] + p);
          in = in && p < hi[d] - lo[d];
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
template <int R, bool IL, class F> KK__FN void kk__md_direct(const kk_gpu_launch &L, F f) {
  int64_t idx[R];
  const int d0 = IL ? 0 : R - 1, d1 = IL ? 1 : R - 2;
  /* offsets from begin (a point past the end is formed in unsigned
   * arithmetic, as the box may end at INT64_MAX, and not used) */
  const int64_t o0 = (int64_t)blockIdx.x * L.md_tile[d0] + threadIdx.x;
  const int64_t o1 = (int64_t)blockIdx.y * L.md_tile[d1] + threadIdx.y;
  idx[d0] = (int64_t)((uint64_t)L.md_begin[d0] + (uint64_t)o0);
  idx[d1] = (int64_t)((uint64_t)L.md_begin[d1] + (uint64_t)o1);
  bool in = o0 < L.md_end[d0] - L.md_begin[d0] && o1 < L.md_end[d1] - L.md_begin[d1];
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
    const int64_t o = (int64_t)b * L.md_tile[d] + p;
    idx[d] = (int64_t)((uint64_t)L.md_begin[d] + (uint64_t)o);
    in = in && o < L.md_end[d] - L.md_begin[d];
  }
  if (in)
    f(idx);
}
template <int R, class F> KK__FN void kk__md_direct_run(const kk_gpu_launch &L, F f) {
  if (L.inner_left)
    kk__md_direct<R, true>(L, f);
  else
    kk__md_direct<R, false>(L, f);
}

/* The order across tiles is the order in which tiles are handed to blocks,
 * which run concurrently in no guaranteed order anyway: the kernels walk the
 * tiles in the order of the points inside them, and carry two instances, not
 * four (fewer registers). */
template <int R, class F> KK__FN void kk__md_run(const kk_gpu_launch &L, F f) {
  if (L.inner_left)
    kk__md_tiles<R, true, true>(L, f);
  else
    kk__md_tiles<R, false, false>(L, f);
}

/* an MDRange for's direct entry, kk_kd_<name> */
#define KK__MD_DIRECT(NAME, ARGS_T, RANK)                                                                       \
  KK__KERNEL(__launch_bounds__(1024), kk_kd_##NAME, ARGS_T)                                                     \
  kk__md_direct_run<RANK>(kk__L, [&](const int64_t *kk__ix) { kk__body_##NAME(kk__ap, KK__IX##RANK, KK__CTX); }); \
  }

/* ==== team kernels =========================================================================== */

/* A team is threadIdx.y, its vector lanes threadIdx.x. */
KK__FN void kk__team_setup(kk_team *t, const kk_gpu_launch &L) {
  kk__team_layout(t, &L, kk__smem, threadIdx.y, blockDim.y, blockIdx.x);
  t->lane = threadIdx.x;
  t->vlen = blockDim.x;
  t->failed_record = L.failed_record;
}

/* A scratch request that does not fit records the failure and ends the
 * thread: every thread of the team makes the same request, so the team ends
 * and nothing past the scratch is written.  The first failure also writes
 * the record into the instance's mapped host memory, which the next fence
 * reads without a device copy. */
KK__FN void *kk__scratch(kk_team *t, int level, int per_thread, uint64_t bytes) {
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
        volatile unsigned long long *rec = (volatile unsigned long long *)t->failed_record;
        rec[1] = *used + need;
        rec[2] = have;
        __threadfence_system();
        rec[0] = code;
        __threadfence_system();
      }
    }
    KK__THREAD_EXIT();
  }
  unsigned char *p = (per_thread ? t->thread_scr[level] : t->team_scr[level]) + *used;
  *used += need;
  return p;
}

/* The league loop of a team kernel. */
#define KK__LEAGUE_LOOP(BODY_CALL)                                                                              \
  kk_team kk__t;                                                                                                \
  kk__team_setup(&kk__t, kk__L);                                                                                \
  _Pragma("unroll 1") for (int64_t kk__l = blockIdx.x; kk__l < kk__L.league_size; kk__l += gridDim.x) {       \
    KK__BC_TEAM_STOP(kk__t.league_rank = kk__l);                                                                \
    kk__t.team_used[0] = kk__t.team_used[1] = kk__t.thread_used[0] = kk__t.thread_used[1] = 0;                  \
    BODY_CALL;                                                                                                  \
    __syncthreads();                                                                                            \
  }

/* ---- nested loops ------------------------------------------------------------------------------- */

/* KK_THREAD_UNROLL (default KK__THREAD_UNROLL, the vendor's): how many of
 * a team thread's iterations the compiler may interleave in
 * KK_TEAM_THREAD_FOR and the team-thread reductions, so that the loads of
 * the next row are in flight while this one reduces; 1 turns it off.  A
 * tuning hint like KK_VECTOR_UNROLL, see docs/kernel-language.md. */
#ifndef KK_THREAD_UNROLL
#define KK_THREAD_UNROLL KK__THREAD_UNROLL
#endif
#define KK_TEAM_THREAD_FOR(t, J, B, E)                                                                          \
  KK__UNROLL(KK_THREAD_UNROLL) for (int64_t J = (B) + (t)->team_rank, KK__CAT(kk__e_, J) = (E); J < KK__CAT(kk__e_, J); J += (t)->team_size)
/* KK_VECTOR_UNROLL, as defined where a vector loop is written (default 1;
 * #undef and #define it around a kernel, or -D on the kkcc command line):
 * vector loops take that many elements per lane per step, so that a
 * reduction's loads are in flight together, and no trip count is divided
 * out first.  It costs registers, hence occupancy: a tuning hint, see
 * docs/kernel-language.md.
 *
 * Two phases (kk__ph_K), one body: first the full steps, whose elements are
 * all in the range and run unguarded, then the one step left, if any, each
 * element but the first guarded.  The phase loop is unrolled, so the first
 * phase's guards fold away (with KK_VECTOR_UNROLL 1 it is the second phase
 * alone: one element a step, as before).  Unguarded, the steps' loads are
 * plain loads that ptxas issues before the first use of any of them; a
 * guarded load it issued after the FMA of the step's first element in the
 * batched matrix-vector kernels (tests/cuda-slice-loads.sh), that FMA
 * waiting for memory, so a warp had one load in flight where it could have
 * had two. */
#ifndef KK_VECTOR_UNROLL
#define KK_VECTOR_UNROLL 1
#endif
#define KK_THREAD_VECTOR_FOR(t, K, B, E)                                                                        \
  _Pragma("unroll") for (int64_t KK__CAT(kk__k0_, K) = (B) + (t)->lane, KK__CAT(kk__e_, K) = (E),                 \
                         KK__CAT(kk__ph_, K) = (KK_VECTOR_UNROLL) > 1 ? 0 : 1;                                    \
                         KK__CAT(kk__ph_, K) < 2; KK__CAT(kk__ph_, K)++)                                            \
  _Pragma("unroll 1") for (; KK__CAT(kk__k0_, K) + (KK__CAT(kk__ph_, K) ? 0 : (int64_t)((KK_VECTOR_UNROLL) - 1) * (t)->vlen) < \
                             KK__CAT(kk__e_, K);                                                                   \
                           KK__CAT(kk__k0_, K) += (int64_t)(KK_VECTOR_UNROLL) * (t)->vlen)                        \
  _Pragma("unroll") for (int64_t K = KK__CAT(kk__k0_, K), KK__CAT(kk__u_, K) = 0;                                    \
                         KK__CAT(kk__u_, K) < (KK_VECTOR_UNROLL)                                                    \
                         KK__VECTOR_WHILE(!KK__CAT(kk__ph_, K) || K < KK__CAT(kk__e_, K));                          \
                         ++KK__CAT(kk__u_, K), K += (t)->vlen) KK__VECTOR_IF(!KK__CAT(kk__ph_, K) || K < KK__CAT(kk__e_, K))
#define KK_TEAM_VECTOR_FOR(t, J, B, E)                                                                          \
  _Pragma("unroll 1") for (int64_t J = (B) + (t)->lane + (int64_t)(t)->vlen * (t)->team_rank, KK__CAT(kk__e_, J) = (E);            \
       J < KK__CAT(kk__e_, J); J += (int64_t)(t)->vlen * (t)->team_size)

/* every lane of a thread's vector gets the reduction over the lanes */
template <class J, class V> KK__FN void kk__vector_allreduce(const kk_team *t, V *v) {
  const int vl = t->vlen;
  if (vl == KK__WARP) { /* the vector is the warp (blockDim.x == KK__WARP): no mask to compute, no convergence check */
#pragma unroll
    for (int d = 1; d < KK__WARP; d <<= 1) {
      V o = kk__shfl_xor_m(*v, d, KK__WARP, KK__WARP_FULL);
      J::join(v, &o);
    }
    return;
  }
  if (vl <= 1)
    return;
  const kk__lanes_t mask = kk__shfl_mask(vl);
#pragma unroll
  for (int d = 1; d < KK__WARP; d <<= 1) /* unrolled: the vector length is at most a warp */
    if (d < vl) {
      V o = kk__shfl_xor_m(*v, d, vl, mask);
      J::join(v, &o);
    }
}

/* ==== atomics ============================================================================== */

/* Integers: the vendor's atomics on every 32- and 64-bit type (add, sub,
 * min, max, and, or, xor in hardware). */
#define KK__AINT_FN(OP, T) \
  KK__FN T kk__afetch_##OP(T *p, T v) { return KK__ATOMIC_INT(OP, T, p, v); }
#define KK__AINT(T) KK__AINT_FN(add, T) KK__AINT_FN(min, T) KK__AINT_FN(max, T) KK__AINT_FN(and, T) \
  KK__AINT_FN(or, T) KK__AINT_FN(xor, T)                                                       \
  KK__FN T kk__afetch_sub(T *p, T v) { return kk__afetch_add(p, (T)(0 - v)); }
KK__AINT(int)
KK__AINT(unsigned)
KK__AINT(long)
KK__AINT(unsigned long)
KK__AINT(long long)
KK__AINT(unsigned long long)

/* float and double add in hardware (or the vendor's compare-and-swap loop) */
KK__FN float kk__afetch_add(float *p, float v) { return atomicAdd(p, v); }
KK__FN double kk__afetch_add(double *p, double v) { return atomicAdd(p, v); }
KK__FN float kk__afetch_sub(float *p, float v) { return atomicAdd(p, -v); }
KK__FN double kk__afetch_sub(double *p, double v) { return atomicAdd(p, -v); }
/* exchange and compare-exchange through the bit patterns */
template <class T> KK__FN T kk__aexchange(T *p, T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "exchange of 4- or 8-byte values");
  if (sizeof(T) == 4)
    return kk__from_bits<T, unsigned>(atomicExch((unsigned *)p, kk__bits<T, unsigned>(v)));
  return kk__from_bits<T, unsigned long long>(atomicExch((unsigned long long *)p, kk__bits<T, unsigned long long>(v)));
}
template <class T> KK__FN T kk__acas(T *p, T e, T d) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "compare-exchange of 4- or 8-byte values");
  if (sizeof(T) == 4)
    return kk__from_bits<T, unsigned>(atomicCAS((unsigned *)p, kk__bits<T, unsigned>(e), kk__bits<T, unsigned>(d)));
  return kk__from_bits<T, unsigned long long>(
      atomicCAS((unsigned long long *)p, kk__bits<T, unsigned long long>(e), kk__bits<T, unsigned long long>(d)));
}
template <class T> KK__FN T kk__aload(T *p) {
  T v = *(volatile T *)p;
  __threadfence();
  return v;
}
template <class T> KK__FN void kk__astore(T *p, T v) {
  __threadfence();
  *(volatile T *)p = v;
}

/* complex double: add and subtract one hardware atomic per component (each
 * component's old value is returned; the pair is not one snapshot), exchange
 * and compare-exchange 16 bytes through the lock table (gpu_atomics.h).  The
 * two kinds must not race on one element: a locked update does not see a
 * concurrent add. */
KK__FN kk_complex_double kk__afetch_add(kk_complex_double *p, kk_complex_double v) {
  kk_complex_double o;
  o.re = atomicAdd(&p->re, v.re);
  o.im = atomicAdd(&p->im, v.im);
  return o;
}
KK__FN kk_complex_double kk__afetch_sub(kk_complex_double *p, kk_complex_double v) {
  return kk__afetch_add(p, kk_complex_double{-v.re, -v.im});
}

#define KK__LOCK_COUNT KK_GPU_LOCK_COUNT
#include <kk/target/gpu_atomics.h>

/* add and subtract without the old value: complex float then needs no
 * compare-and-swap loop, one hardware add per component (a concurrent
 * compare-and-swap on the element sees either half change and retries) */
template <class T, class V> KK__FN void kk__aadd(T *p, V v) { (void)kk__afetch_add(p, (T)v); }
template <class T, class V> KK__FN void kk__asub(T *p, V v) { (void)kk__afetch_sub(p, (T)v); }
KK__FN void kk__aadd(kk_complex_float *p, kk_complex_float v) {
  atomicAdd(&p->re, v.re);
  atomicAdd(&p->im, v.im);
}
KK__FN void kk__asub(kk_complex_float *p, kk_complex_float v) { kk__aadd(p, kk_complex_float{-v.re, -v.im}); }

#ifdef KK_BOUNDS_CHECK
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
#endif

#endif /* KK_TARGET_SIMT_H */
