/* core/bounds.h -- the failure records of bounds-checked launches (core/bounds.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_BOUNDS_H
#define KK_CORE_BOUNDS_H

#include "internal.h"

/* A failure record for one host launch of a kernel built with kkcc
 * --bounds-check (0, the shared record, when all are taken). */
uint32_t kk__bounds_claim(void);
/* After the launch: gives the record back; true when an access failed,
 * with kk_last_error() (KK_ERROR_KERNEL_FAILED) naming the operation, label,
 * kernel, backend, the view's label, the indices, the extents and the
 * source line. */
bool kk__bounds_release(uint32_t slot, const char *op, const kk_launch_t *l, const kk__backend_t *b);
/* kk_host_services_t.bounds_report (ABI 1.5): a GPU plugin's record of a
 * failed access, as the same sentence; returns KK_ERROR_KERNEL_FAILED. */
kk_status_t kk__bounds_report(const kk__backend_t *b, uint32_t kind, const char *label, const char *kernel,
                              const kk_bounds_fault_t *f);

#endif /* KK_CORE_BOUNDS_H */
