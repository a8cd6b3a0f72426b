/* kk/kernels.h -- the old name of <kk/linalg.h> (libkk-kernels), too close to <kk/kernel.h>, the kernel language: deprecated, removed in the release after this one. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_KERNELS_H
#define KK_KERNELS_H

/* Include <kk/linalg.h> instead.  Define KK_NO_DEPRECATED_HEADER_NOTE to
 * silence the note below (it is a note, not a warning: -Werror builds go on). */
#ifndef KK_NO_DEPRECATED_HEADER_NOTE
#pragma message("<kk/kernels.h> is deprecated: include <kk/linalg.h> (the same declarations)")
#endif

#include <kk/linalg.h>

#endif /* KK_KERNELS_H */
