/* hostexec/host_sync.h -- waiting primitives the host backends share: CPU pause, clock, futex-style wait/wake and the claim of a team. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_HOST_SYNC_H
#define KK_PLUGINS_HOST_SYNC_H

#include <stdatomic.h>
#include <stdint.h>

/* One step of a spin-wait: tells the core that this hardware thread waits
 * (frees pipeline resources for a sibling hyperthread, saves power). */
static inline void kkh_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield" ::: "memory");
#elif defined(__powerpc64__)
  __asm__ __volatile__("or 27,27,27" ::: "memory");
#else
  atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* Monotonic clock in nanoseconds. */
uint64_t kkh_now_ns(void);

/* Blocks the calling thread while *word == expected.  May return early
 * (spuriously, or because another thread called kkh_wake_*): callers re-check
 * their condition in a loop.  Linux futex; elsewhere (or with KKH_NO_FUTEX
 * defined) a table of mutex/condition-variable pairs hashed by address. */
void kkh_wait(atomic_uint *word, unsigned expected);

/* Wakes one / every thread blocked in kkh_wait() on `word`.  Call after
 * changing *word. */
void kkh_wake_one(atomic_uint *word);
void kkh_wake_all(atomic_uint *word);

/* kkh_wait() for one of several sleepers sharing `word`, identified by the
 * bits of `mask` (nonzero); kkh_wake_mask() wakes, in one call, every such
 * sleeper whose mask meets `mask`.  Without a futex both behave like
 * kkh_wait() and kkh_wake_all(): every sleeper wakes and re-checks. */
void kkh_wait_mask(atomic_uint *word, unsigned expected, unsigned mask);
void kkh_wake_mask(atomic_uint *word, unsigned mask);

/* Gives the CPU to another runnable thread, if any (sched_yield). */
void kkh_yield(void);

/* ---------------------------------------------------------------------------
 * A bounded spin.  Each step pauses; every KKH_SPIN_CLOCK_EVERY steps it
 * looks at the clock, and once it has spun KKH_SPIN_YIELD_NS it yields the
 * CPU every KKH_SPIN_YIELD_NS: a spinning thread that shares its core with
 * the thread it waits for (an application thread the scheduler put on a
 * bound worker's core, more threads than cores) would otherwise hold that
 * thread off for its whole budget.
 *
 *   kkh_spin_t s = KKH_SPIN_INIT(budget_ns);
 *   while (!condition())
 *     if (!kkh_spin_step(&s))
 *       { sleep instead; break; }
 * ------------------------------------------------------------------------ */
#define KKH_SPIN_CLOCK_EVERY 32u
#define KKH_SPIN_YIELD_NS ((uint64_t)10000)

typedef struct kkh_spin {
  uint64_t budget, deadline, yield_at;
  unsigned steps;
} kkh_spin_t;

#define KKH_SPIN_INIT(budget_ns) {(budget_ns), 0, 0, 0}

/* One step; 0 once the budget is spent (at once for a budget of 0). */
static inline int kkh_spin_step(kkh_spin_t *s) {
  if (s->steps++ % KKH_SPIN_CLOCK_EVERY == 0) {
    if (s->budget == 0)
      return 0;
    uint64_t now = kkh_now_ns();
    if (s->steps == 1) {
      s->deadline = now + s->budget;
      s->yield_at = now + KKH_SPIN_YIELD_NS;
    } else if (now >= s->deadline) {
      return 0;
    } else if (now >= s->yield_at) {
      kkh_yield();
      s->yield_at = kkh_now_ns() + KKH_SPIN_YIELD_NS;
    }
  }
  kkh_pause();
  return 1;
}

/* Spins while *word == expected, for at most spin_ns.  Returns the last
 * value read (acquire). */
static inline unsigned kkh_spin_while(atomic_uint *word, unsigned expected, uint64_t spin_ns) {
  kkh_spin_t s = KKH_SPIN_INIT(spin_ns);
  unsigned v;
  while ((v = atomic_load_explicit(word, memory_order_acquire)) == expected && kkh_spin_step(&s))
    ;
  return v;
}

/* ---------------------------------------------------------------------------
 * The claim of a team: makes the launches (and parallel memory operations)
 * of several application threads on one team take turns.  One atomic
 * compare-and-swap when uncontended; a contended claimer spins for spin_ns,
 * then sleeps until the holder lets go (a futex word: 0 free, 1 held, 2 held
 * with sleepers).  Not recursive.
 * ------------------------------------------------------------------------ */
typedef struct kkh_claim {
  atomic_uint state;
} kkh_claim_t;

#define KKH_CLAIM_INIT {0}

void kkh_claim_take_slow(kkh_claim_t *c, uint64_t spin_ns);

static inline void kkh_claim_take(kkh_claim_t *c, uint64_t spin_ns) {
  unsigned free_ = 0;
  if (!atomic_compare_exchange_strong_explicit(&c->state, &free_, 1, memory_order_acquire, memory_order_relaxed))
    kkh_claim_take_slow(c, spin_ns);
}

static inline void kkh_claim_drop(kkh_claim_t *c) {
  if (atomic_exchange_explicit(&c->state, 0, memory_order_release) == 2)
    kkh_wake_one(&c->state);
}

/* Returns once no claim that was taken before the call is still held: what
 * a fence of a team whose launches are synchronous must wait for. */
static inline void kkh_claim_wait_idle(kkh_claim_t *c, uint64_t spin_ns) {
  if (atomic_load_explicit(&c->state, memory_order_acquire) == 0)
    return;
  kkh_claim_take(c, spin_ns);
  kkh_claim_drop(c);
}

#endif
