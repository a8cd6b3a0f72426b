/* core/space.h -- memory spaces and fences: what the rest of the core needs (core/space.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_SPACE_H
#define KK_CORE_SPACE_H

#include "internal.h"

/* kk_space_alloc / kk_space_free without the tools' allocation events: for
 * views, which report their memory themselves. */
kk_status_t kk__space_alloc(kk_space_t *space, const char *label, size_t bytes, void **ptr);
kk_status_t kk__space_free(kk_space_t *space, void *ptr);

/* The plugin space index of `side` as backend b sees it: its own space,
 * KK_PLUGIN_HOST_MEMORY (NULL side: ordinary host memory), or -2 when b
 * cannot reach it (space.c). */
int32_t kk__side_index(const kk__backend_t *b, const kk_space_t *side);

/* kk_fence_named without the capture check: for the fences kk itself does
 * (a tool's), which no capture may refuse (space.c). */
kk_status_t kk__fence_all(const char *name);

#endif /* KK_CORE_SPACE_H */
