/* kk/target/hip.h -- how the HIP target spells the kernel language (HIP-Clang): kk/target/simt.h, with AMD's wavefronts, shuffles and atomics. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TARGET_HIP_H
#define KK_TARGET_HIP_H

/*
 * Compiled as HIP (C++) by hipcc, kkcc's hip recipe: one device-only compile
 * per kernel file, a code object per architecture in a clang offload bundle.
 * The kernels are kk/target/simt.h's; this file says what AMD GPUs spell
 * their own way (the list is at the top of simt.h).  A warp is a wavefront
 * of __AMDGCN_WAVEFRONT_SIZE lanes, a constant of each code object (64 on
 * gfx9 / CDNA, 32 on gfx10+ in wave32 mode): nothing assumes 32 or 64.
 * The lanes of a wave run in lockstep, so there are no lane masks: shuffles
 * are ds_bpermute over the wave, votes cover the active lanes.
 */

#include <hip/hip_runtime.h>

#if defined(__AMDGCN_WAVEFRONT_SIZE)
#define KK__WARP __AMDGCN_WAVEFRONT_SIZE
#else
#define KK__WARP 64 /* the host pass of a full compile: no device code is generated from it */
#endif
typedef unsigned long long kk__lanes_t;
#define KK__WARP_FULL (~0ull)
#define KK__SHFL_up(m, w, a, n) __shfl_up(w, (unsigned)(a), n)
#define KK__SHFL_down(m, w, a, n) __shfl_down(w, (unsigned)(a), n)
#define KK__SHFL_xor(m, w, a, n) __shfl_xor(w, a, n)
static __device__ __forceinline__ kk__lanes_t kk__shfl_mask(int) { return KK__WARP_FULL; }

/* Orders this wave's LDS accesses around an exchange between its lanes
 * (CUDA's __syncwarp: the lanes already run together; this keeps the
 * compiler from moving loads and stores across). */
static __device__ __forceinline__ void kk__warp_sync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
static __device__ __forceinline__ kk__lanes_t kk__ballot(bool p) { return __ballot(p); } /* bit i: lane i */
static __device__ __forceinline__ int kk__top_lane(kk__lanes_t m) { return 63 - __builtin_clzll(m); }
static __device__ __forceinline__ unsigned kk__ldcg(const unsigned *p) {
  return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
static __device__ __forceinline__ unsigned long long kk__status_wait(const unsigned long long *p, unsigned long long e) {
  unsigned long long s;
  while (((s = __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) >> 2) != e)
    __builtin_amdgcn_s_sleep(1);
  return s;
}
static __device__ __forceinline__ void kk__status_store(unsigned long long *p, unsigned long long w) {
  __hip_atomic_store(p, w, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
/* result slots are fine-grained host memory: a system-scope release */
static __device__ __forceinline__ void kk__flag_store(unsigned long long *p, unsigned long long v) {
  __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}
#define KK__ACQUIRE() __threadfence() /* the other blocks' partials */
/* ends the wavefront: its other lanes make the same request; waves that
 * ended no longer count at the team's barriers (s_endpgm) */
#define KK__THREAD_EXIT() __builtin_amdgcn_endpgm()
/* No 16-byte access is promised to be single-copy atomic: every look-back
 * reads a status word, then the value behind a fence. */
#define KK__SCAN_PACKED 0

/* Launch bounds of 256 threads let the compiler give each thread more
 * registers than the default bound of 1024 allows (the plugin reads the
 * bound back). */
#define KK__SCAN_BOUNDS __launch_bounds__(256)
#define KK__MD_BOUNDS __launch_bounds__(256)
#define KK__TEAM_BOUNDS(n) __launch_bounds__(n) /* KK_TEAM_FOR_BOUNDS */
/* HIP-Clang does not unroll a team-thread loop (its stride, the team size,
 * is not a constant): asking would only warn */
#define KK__THREAD_UNROLL 1
/* and unrolls a loop fully only with one exit: a vector loop's unrolled
 * steps run a constant count, each guarded */
#define KK__VECTOR_WHILE(c)
#define KK__VECTOR_IF(c) if (c)

/* Integers: the compiler's atomics at device (agent) scope, the scope of
 * HIP's atomicAdd; every 32- and 64-bit integer type has add, sub, min, max,
 * and, or and xor in hardware. */
#define KK__ATOMIC_INT(OP, T, p, v) __hip_atomic_fetch_##OP(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)

/* The lock table under wavefront divergence.  The lanes of a wave run in
 * lockstep: a lane spinning in a loop of its own for a lock that another
 * lane of its wave holds would keep that lane from ever reaching its
 * release.  So each round of the loop, every lane not yet done tries its
 * lock once, the lanes that got one run the block (KK__LOCK_HELD) and
 * release, and the wave leaves together when a vote says all lanes are done
 * (as Kokkos' HIP backend does). */
struct kk__devlock {
  unsigned int *lock;
  bool done, held;
  __device__ explicit kk__devlock(unsigned int *l) : lock(l), done(false), held(false) {}
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
#define KK__LOCK_HELD if (kk__lk.held)

#include <kk/target/simt.h>

#endif /* KK_TARGET_HIP_H */
