/* core/registry.h -- registered modules and the kernel-handle cache (core/registry.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_REGISTRY_H
#define KK_CORE_REGISTRY_H

#include "state.h"

/* Moves to the next generation (kk_initialize, kk_finalize), under the
 * registry's lock, which stamps kernels with it. */
void kk__generation_next(void);

/* The kernel-handle cache of a device kernel: runtime[0] the backend's
 * handle, runtime[1] the generation it was found in.  Written under the
 * registry's lock, read on the dispatch path without it: the handle is
 * stored before the generation that publishes it (release), and read after
 * the generation (acquire), so that a reader that sees the current
 * generation sees its handle.  The kernel object's fields are plain
 * pointers (kernel ABI), hence the GCC atomic built-ins. */
static inline void *kk__kernel_cached(const kk_kernel_t *k) {
  if (__atomic_load_n(&k->runtime[1], __ATOMIC_ACQUIRE) != (void *)kk__generation_now())
    return NULL;
  return __atomic_load_n(&k->runtime[0], __ATOMIC_RELAXED);
}

/* Loads every registered module into the default backend (kk_initialize) and
 * unloads them, closing modules from kk_module_load (kk_finalize). */
void kk__modules_attach_all(void);
void kk__modules_detach_all(void);

/* The slow path of a device launch: the backend's handle of kernel k, or an
 * error that says why there is none. */
kk_status_t kk__kernel_resolve(const kk_kernel_t *k, kk__backend_t *b, void **handle);

#endif /* KK_CORE_REGISTRY_H */
