/* core/probe.h -- probing plugins in a helper process (core/probe.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_PROBE_H
#define KK_CORE_PROBE_H

#include "internal.h"

/* Whether the plugin file may be loaded into this process: true unless a
 * probe in a helper process (now, or cached for this file's path, size and
 * mtime) saw it crash, abort or hang in its entry, init, device or space
 * queries; `why` then says how.  True without a probe when probing is off
 * (KOKKOS_PLUGIN_PROBE=0) or the helper is missing. */
bool kk__probe_plugin(const char *path, const char *name, char *why, size_t why_size);
/* The helper program: $KK_PLUGIN_PROBE_HELPER, else the build tree's for the
 * uninstalled libkk, else the installed one. */
const char *kk__probe_helper(void);

#endif /* KK_CORE_PROBE_H */
