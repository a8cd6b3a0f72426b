/* hostexec/host_sync.c -- futex wait/wake (or a condition-variable fallback), the clock, and the slow path of a team's claim. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "host_sync.h"

#if defined(__linux__) && !defined(KKH_NO_FUTEX)
#define KKH_USE_FUTEX 1
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#else
#include <pthread.h>
#endif

/* The futex syscall works on 32-bit words. */
_Static_assert(sizeof(atomic_uint) == 4, "atomic_uint must be a 32-bit word");

uint64_t kkh_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void kkh_yield(void) { sched_yield(); }

#ifdef KKH_USE_FUTEX

void kkh_wait(atomic_uint *word, unsigned expected) {
  /* EAGAIN (value changed), EINTR and spurious returns all mean "re-check". */
  syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void kkh_wake_one(atomic_uint *word) { syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }

void kkh_wake_all(atomic_uint *word) {
  syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

void kkh_wait_mask(atomic_uint *word, unsigned expected, unsigned mask) {
  syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_BITSET_PRIVATE, expected, NULL, NULL, mask);
}

void kkh_wake_mask(atomic_uint *word, unsigned mask) {
  syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_BITSET_PRIVATE, INT32_MAX, NULL, NULL, mask);
}

#else

/* A parking lot: waiters on any word sleep on the condition variable of its
 * bucket.  The waiter checks the word under the bucket's mutex and the waker
 * takes that mutex after changing the word, so no wake-up is lost; waking a
 * bucket wakes every waiter in it (they re-check). */
#define KKH_BUCKETS 64
static struct kkh_bucket {
  pthread_mutex_t lock;
  pthread_cond_t cond;
} g_buckets[KKH_BUCKETS] = {
#define B4 {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER}, {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER}, \
           {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER}, {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER}
    B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4, B4,
#undef B4
};

static struct kkh_bucket *bucket_of(const void *word) {
  uintptr_t a = (uintptr_t)word;
  return &g_buckets[((a >> 6) ^ (a >> 12)) % KKH_BUCKETS];
}

void kkh_wait(atomic_uint *word, unsigned expected) {
  struct kkh_bucket *b = bucket_of(word);
  pthread_mutex_lock(&b->lock);
  if (atomic_load(word) == expected)
    pthread_cond_wait(&b->cond, &b->lock);
  pthread_mutex_unlock(&b->lock);
}

void kkh_wake_one(atomic_uint *word) { kkh_wake_all(word); }

void kkh_wait_mask(atomic_uint *word, unsigned expected, unsigned mask) {
  (void)mask;
  kkh_wait(word, expected);
}

void kkh_wake_mask(atomic_uint *word, unsigned mask) {
  (void)mask;
  kkh_wake_all(word);
}

void kkh_wake_all(atomic_uint *word) {
  struct kkh_bucket *b = bucket_of(word);
  pthread_mutex_lock(&b->lock);
  pthread_cond_broadcast(&b->cond);
  pthread_mutex_unlock(&b->lock);
}

#endif

void kkh_claim_take_slow(kkh_claim_t *c, uint64_t spin_ns) {
  kkh_spin_t s = KKH_SPIN_INIT(spin_ns);
  do {
    unsigned free_ = 0;
    if (atomic_load_explicit(&c->state, memory_order_relaxed) == 0 &&
        atomic_compare_exchange_weak_explicit(&c->state, &free_, 1, memory_order_acquire, memory_order_relaxed))
      return;
  } while (kkh_spin_step(&s));
  /* Mark the claim contended (2) so that its holder wakes us when it drops
   * it; having set 2 ourselves we keep 2 when we get it, which may cost the
   * next holder one needless wake-up, never a lost one. */
  while (atomic_exchange_explicit(&c->state, 2, memory_order_acquire) != 0)
    kkh_wait(&c->state, 2);
}
