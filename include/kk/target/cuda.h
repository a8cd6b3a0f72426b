/* kk/target/cuda.h -- how the CUDA target spells the kernel language (nvcc or NVRTC): kk/target/simt.h, with NVIDIA's warps, shuffles and atomics. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TARGET_CUDA_H
#define KK_TARGET_CUDA_H

/*
 * Compiled as CUDA C++ by nvcc (kkcc's cuda recipe) or NVRTC (the plugin's
 * JIT fallback).  The kernels are kk/target/simt.h's; this file says what
 * NVIDIA GPUs spell their own way (the list is at the top of simt.h).
 */

#define KK__WARP 32
typedef unsigned kk__lanes_t;
#define KK__WARP_FULL 0xffffffffu
#define KK__SHFL_up(m, w, a, n) __shfl_up_sync(m, w, a, n)
#define KK__SHFL_down(m, w, a, n) __shfl_down_sync(m, w, a, n)
#define KK__SHFL_xor(m, w, a, n) __shfl_xor_sync(m, w, a, n)

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
static __device__ __forceinline__ void kk__warp_sync() { __syncwarp(); }
static __device__ __forceinline__ unsigned kk__ballot(bool p) { return __ballot_sync(0xffffffffu, p); }
static __device__ __forceinline__ int kk__top_lane(unsigned m) { return 31 - __clz(m); }
static __device__ __forceinline__ unsigned kk__ldcg(const unsigned *p) { return __ldcg(p); }
static __device__ __forceinline__ unsigned long long kk__status_wait(const unsigned long long *p, unsigned long long e) {
  unsigned long long s;
  while (((s = *(const volatile unsigned long long *)p) >> 2) != e)
    ;
  return s;
}
static __device__ __forceinline__ void kk__status_store(unsigned long long *p, unsigned long long w) {
  *(volatile unsigned long long *)p = w;
}
static __device__ __forceinline__ void kk__flag_store(unsigned long long *p, unsigned long long v) {
  *(volatile unsigned long long *)p = v;
}
#define KK__ACQUIRE() ((void)0) /* the partials are read past L1 (kk__load_cg) */
#define KK__THREAD_EXIT() asm volatile("exit;")

/* 16-byte accesses are single transactions: a look-back step loads each
 * descriptor {status, value} whole, one round trip to L2 and no fence. */
#define KK__SCAN_PACKED 1
static __device__ __forceinline__ ulonglong2 kk__desc_load(const ulonglong2 *p) {
  ulonglong2 r;
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(r.x), "=l"(r.y) : "l"(p) : "memory");
  return r;
}
static __device__ __forceinline__ void kk__desc_store(ulonglong2 *p, unsigned long long w, unsigned long long v) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(w), "l"(v) : "memory");
}

/* Measured on an H100 and an H200 (docs/benchmarks.md): the scan at five
 * resident blocks of 256 per SM (48 registers), the general MDRange entries
 * at 6 (40 registers, both inner orders).  Turing runs at most 1024 threads
 * per SM: four blocks there. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define KK__SCAN_BOUNDS __launch_bounds__(256, 4)
#else
#define KK__SCAN_BOUNDS __launch_bounds__(256, 5)
#endif
/* team-thread loops unrolled twice: batched matvec 0.95 -> 1.01, CG team
 * SpMV 1.14 -> 1.20 of the native code on an H200 */
#define KK__THREAD_UNROLL 2
/* a vector loop's unrolled steps end at the range's end (nvcc unrolls such a loop) */
#define KK__VECTOR_WHILE(c) && (c)
#define KK__VECTOR_IF(c)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define KK__MD_BOUNDS __launch_bounds__(256, 4)
#else
#define KK__MD_BOUNDS __launch_bounds__(256, 6)
#endif
/* KK_TEAM_FOR_BOUNDS: at most n threads per block */
#define KK__TEAM_BOUNDS(n) __launch_bounds__(n)

/* Integer atomics: CUDA's take int, unsigned and the long long types; long
 * and unsigned long go through the 64-bit ones (add and the bit operations
 * unsigned, min and max with the type's signedness). */
template <class T> struct kk__cu { typedef T bits; typedef T ord; };
template <> struct kk__cu<long> { typedef unsigned long long bits; typedef long long ord; };
template <> struct kk__cu<long long> { typedef unsigned long long bits; typedef long long ord; };
template <> struct kk__cu<unsigned long> { typedef unsigned long long bits; typedef unsigned long long ord; };
#define KK__CU_ATOMIC(F, K, T, p, v) (T) F((typename kk__cu<T>::K *)(p), (typename kk__cu<T>::K)(v))
#define KK__ATOMIC_INT(OP, T, p, v) KK__CU_##OP(T, p, v)
#define KK__CU_add(T, p, v) KK__CU_ATOMIC(atomicAdd, bits, T, p, v)
#define KK__CU_min(T, p, v) KK__CU_ATOMIC(atomicMin, ord, T, p, v)
#define KK__CU_max(T, p, v) KK__CU_ATOMIC(atomicMax, ord, T, p, v)
#define KK__CU_and(T, p, v) KK__CU_ATOMIC(atomicAnd, bits, T, p, v)
#define KK__CU_or(T, p, v) KK__CU_ATOMIC(atomicOr, bits, T, p, v)
#define KK__CU_xor(T, p, v) KK__CU_ATOMIC(atomicXor, bits, T, p, v)

/* The lock table under warp divergence (Kokkos 3, section 5): every active
 * lane of the warp keeps trying until all of them have done their update,
 * so a lane that holds a lock is never starved by its siblings. */
struct kk__devlock {
  unsigned int *lock;
  unsigned int mask;
  bool done, held;
  __device__ explicit kk__devlock(unsigned int *l) : lock(l), mask(__activemask()), done(false), held(false) {}
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
#define KK__LOCK_HELD

#include <kk/target/simt.h>

#endif /* KK_TARGET_CUDA_H */
