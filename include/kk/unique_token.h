/* kk/unique_token.h -- UniqueToken in kernels: acquire an id unique among the threads running at once, and release it (kernel language). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_UNIQUE_TOKEN_H
#define KK_UNIQUE_TOKEN_H

/*
 * Include it in a kernel file after <kk/kernel.h>.  The token arrives as a
 * kk_unique_token member of the argument struct (kk_unique_token_bind):
 *
 *   int32_t id = KK_UNIQUE_TOKEN_ACQUIRE(args->tok);   an id in [0, size), held by no other thread
 *   ... use row id of a scratch view ...
 *   KK_UNIQUE_TOKEN_RELEASE(args->tok, id);            every acquire is released by its thread
 *   int32_t KK_UNIQUE_TOKEN_SIZE(args->tok)
 *
 * Both are written in kernel bodies, not in KK__FN helpers (host targets
 * read the calling thread's number there).  An acquire waits while every
 * id is held (a token smaller than the threads that run at once); it starts
 * at an id derived from the calling thread's number (a host thread's
 * number, a GPU thread's global index), so that threads rarely contend.
 * What a thread wrote while it held an id is visible to the next thread
 * that acquires that id (release and acquire order).  On GPU targets every
 * vector lane of a team kernel is a thread of its own and acquires its own
 * id.  An id outside [0, size) given to release is ignored.
 */

#ifndef KK_KERNEL_H
#error "include <kk/kernel.h> before <kk/unique_token.h>"
#endif

#include <kk/containers.h>

#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP)
#define KK__UTOKEN_HINT()                                                                                       \
  ((uint64_t)((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) *                                 \
       (blockDim.x * blockDim.y * blockDim.z) +                                                                 \
   (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x)
#define KK__UTOKEN_DIRECT(t) 0
#define KK__UTOKEN_FENCE() __threadfence()
#elif defined(KK_TARGET_SPIRV)
#define KK__UTOKEN_HINT() ((uint64_t)get_global_id(0))
#define KK__UTOKEN_DIRECT(t) 0
#define KK__UTOKEN_FENCE() atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_device)
#else
/* host: the thread's number in its launch; an instance-scope token that
 * covers the launch's threads hands it out directly */
#define KK__UTOKEN_HINT() ((uint64_t)kk__th->thread_id)
#define KK__UTOKEN_DIRECT(t) ((t).direct && kk__th->nthreads <= (t).size)
#endif

/* Taking a bit orders what follows (acquire), giving it back what came
 * before (release): the host's atomics carry the order themselves (what a
 * thread sanitizer understands), the devices' are relaxed and fenced. */
#ifdef KK__UTOKEN_FENCE
#define KK__UTOKEN_TAKE(p, m) kk_atomic_fetch_or(p, m)
#define KK__UTOKEN_TAKEN() KK__UTOKEN_FENCE()
#define KK__UTOKEN_GIVE(p, m) (KK__UTOKEN_FENCE(), kk_atomic_and(p, ~(m)))
#else
#define KK__UTOKEN_TAKE(p, m) __atomic_fetch_or((p), (m), __ATOMIC_ACQUIRE)
#define KK__UTOKEN_TAKEN() ((void)0)
#define KK__UTOKEN_GIVE(p, m) ((void)__atomic_fetch_and((p), ~(m), __ATOMIC_RELEASE))
#endif

/* a word other threads may be changing: relaxed atomic on the host, volatile on the devices */
#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || defined(KK_TARGET_SPIRV)
KK__FN uint32_t kk__utoken_load(const uint32_t *p) { return *(const volatile uint32_t *)p; }
#else
KK__FN uint32_t kk__utoken_load(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
#endif

/* the lowest set bit of x != 0 */
#if defined(KK_TARGET_CUDA)
KK__FN int kk__utoken_ctz(uint32_t x) { return __ffs((int)x) - 1; }
#else
KK__FN int kk__utoken_ctz(uint32_t x) { return __builtin_ctz(x); }
#endif

/* Id (w + nwords * b) is bit b of word w: consecutive hints land in
 * different words (on host backends, different cache lines). */
KK__FN int32_t kk__utoken_acquire(const kk_unique_token *t, uint64_t hint) {
  const uint32_t nw = (uint32_t)t->nwords, size = (uint32_t)t->size;
  /* a 32-bit remainder where the hint fits (a 64-bit one is a long
   * subroutine on GPUs, where the hint is the global thread index) */
  const uint32_t id0 = hint >> 32 ? (uint32_t)(hint % size) : (uint32_t)hint % size;
  uint32_t w = id0 % nw, from = id0 / nw;
  int32_t id = -1;
  while (id < 0) { /* every path ends its step here: safe under warp divergence */
    uint32_t *word = &t->bits[(uint64_t)w * (uint32_t)t->stride];
    const uint32_t nb = (size - w + nw - 1) / nw; /* ids of this word, 1..32 */
    const uint32_t valid = nb >= 32 ? ~0u : (1u << nb) - 1u;
    const uint32_t freeb = ~kk__utoken_load(word) & valid;
    if (freeb) {
      const uint32_t above = freeb & (~0u << from);
      const uint32_t bit = (uint32_t)kk__utoken_ctz(above ? above : freeb);
      if ((KK__UTOKEN_TAKE(word, 1u << bit) & (1u << bit)) == 0u)
        id = (int32_t)(w + nw * bit);
    } else {
      w = w + 1 == nw ? 0 : w + 1;
      from = 0;
    }
  }
  KK__UTOKEN_TAKEN();
  return id;
}

KK__FN void kk__utoken_release(const kk_unique_token *t, int32_t id) {
  if (id < 0 || id >= t->size)
    return;
  const uint32_t nw = (uint32_t)t->nwords, w = (uint32_t)id % nw, bit = (uint32_t)id / nw;
  KK__UTOKEN_GIVE(&t->bits[(uint64_t)w * (uint32_t)t->stride], 1u << bit);
}

/* In kernels, on a kk_unique_token argument t: ACQUIRE gives an id in
 * [0, SIZE) that no other running thread holds; RELEASE(t, id) gives it back;
 * SIZE is the number of ids (docs/containers.md, "UniqueToken"). */
#define KK_UNIQUE_TOKEN_ACQUIRE(t) \
  (KK__UTOKEN_DIRECT(t) ? (int32_t)KK__UTOKEN_HINT() : kk__utoken_acquire(&(t), KK__UTOKEN_HINT()))
#define KK_UNIQUE_TOKEN_RELEASE(t, id) (KK__UTOKEN_DIRECT(t) ? (void)0 : kk__utoken_release(&(t), (int32_t)(id)))
#define KK_UNIQUE_TOKEN_SIZE(t) ((t).size)

#endif /* KK_UNIQUE_TOKEN_H */
