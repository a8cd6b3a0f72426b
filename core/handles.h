/* core/handles.h -- spaces and instances that outlive kk_finalize, and the stale-handle errors (core/handles.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_HANDLES_H
#define KK_CORE_HANDLES_H

#include "internal.h"

/* KK_ERROR_NOT_INITIALIZED for a stale handle: "<op>: <kind> '<label>' was
 * made before kk_finalize ..." (label NULL: "<op>: <kind> was made ...";
 * kind e.g. "view", "the instance"). */
kk_status_t kk__stale_error(const char *op, const char *kind, const char *label);
/* The same message, only formatted into buf. */
void kk__stale_message(char *buf, size_t size, const char *op, const char *kind, const char *label);

/* kk_finalize, for a backend in use: its spaces and default instance, and
 * the instances the program did not destroy (their plugin instances
 * destroyed now), are kept for the handles the program may still hold;
 * kk_instance_destroy frees a kept instance.  A backend not in use frees
 * them as usual. */
void kk__backend_retire_handles(struct kk__backend *b);
/* kk_instance_destroy of an instance kept by kk_finalize: frees its record. */
void kk__instance_forget(struct kk_instance *inst);

#endif /* KK_CORE_HANDLES_H */
