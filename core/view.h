/* core/view.h -- views: the checks and clean-up the rest of the core needs (core/view.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_VIEW_H
#define KK_CORE_VIEW_H

#include "internal.h"

#include <stdatomic.h>

/* Set by a failed kk_view_bind*(); the next launch on the thread is refused.
 * kk__tl_bind_failed is global-dynamic TLS (see view.c): reading it costs a
 * call into the dynamic loader, so the launch path first reads
 * kk__bind_failures, the number of threads whose flag is set (a relaxed
 * load: a thread always sees its own increment), and reads the flag only
 * when that is not 0. */
extern _Thread_local bool kk__tl_bind_failed;
extern atomic_uint kk__bind_failures;
static inline bool kk__bind_failed(void) {
  return atomic_load_explicit(&kk__bind_failures, memory_order_relaxed) != 0 && kk__tl_bind_failed;
}
kk_status_t kk__take_bind_error(const char *op, const char *label);
/* A bind of a stale handle (kk_scatter_bind's too): its error, and the next
 * launch on the thread is refused with KK_ERROR_NOT_INITIALIZED. */
void kk__bind_fail_stale(const char *op, const char *kind, const char *label);

/* KK_OK for NULL or a view of the current initialization, else the stale
 * view's error naming op (view.c). */
kk_status_t kk__view_check(const char *op, const kk_view_t *v);

/* kk_finalize: frees view memory the program still holds (with a warning). */
void kk__views_release_all(void);

/* The label of the view whose memory holds `data`, quoted ("'x'"), or a
 * description of the address when no live view has it. */
void kk__view_label_at(const void *data, char *buf, size_t size);

#endif /* KK_CORE_VIEW_H */
