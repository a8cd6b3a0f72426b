/* core/state.h -- the process state (core/state.c): kk__g, the generation, and what reads them and nothing else. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_STATE_H
#define KK_CORE_STATE_H

#include "internal.h"
#include "status.h" /* KK__REQUIRE_INIT */

/* The library state between kk_initialize and kk_finalize (init.c fills it
 * in and empties it). */
extern kk__state_t kk__g;

/* Fails with KK_ERROR_NOT_INITIALIZED naming `op` when kk is not initialized. */
#define KK__REQUIRE_INIT(op)                                                                 \
  do {                                                                                       \
    if (KK__UNLIKELY(!kk__g.initialized))                                                    \
      return kk__error(KK_ERROR_NOT_INITIALIZED, "%s: kk is not initialized (call kk_initialize first)", op); \
  } while (0)

/* The generation of kk's state: a new value at every kk_initialize and
 * again at kk_finalize, so that a value stamped on a handle while kk was
 * initialized differs from the current one once that initialization has
 * ended.  Device kernel handles, view allocations, views, spaces,
 * instances, scatter views and graphs carry the generation they were made
 * in; one compare tells a stale handle (docs/views.md, "Lifetime").  The
 * registry moves it on (kk__generation_next, registry.h). */
extern atomic_uintptr_t kk__generation;

/* The current generation: an acquire load, one plain load on x86, that a
 * thread may make while another initializes or finalizes without a data race. */
static inline uintptr_t kk__generation_now(void) {
  return atomic_load_explicit(&kk__generation, memory_order_acquire);
}

static inline bool kk__stale(uintptr_t gen) { return KK__UNLIKELY(gen != kk__generation_now()); }

/* Finds a loaded backend by name (any state but shadowed). */
kk__backend_t *kk__backend_find(const char *name);

#endif /* KK_CORE_STATE_H */
