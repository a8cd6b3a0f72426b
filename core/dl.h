/* core/dl.h -- dynamic loading through libltdl (core/dl.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_DL_H
#define KK_CORE_DL_H

#include "internal.h"

/* Opens a shared object with libltdl.  On failure returns NULL and writes the
 * real reason (the system loader's message) into why. */
kk__dl_t *kk__dl_open(const char *path, char *why, size_t why_size);
void *kk__dl_sym(kk__dl_t *dl, const char *symbol);
void kk__dl_close(kk__dl_t *dl);
/* libltdl is reference counted: kk__dl_init/exit bracket the library's use. */
int kk__dl_init(void);
void kk__dl_exit(void);

#endif /* KK_CORE_DL_H */
