/* core/state.c -- the process state: kk__g, the generation, the version numbers, and the calls that only read them.  It calls nothing of the core. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <string.h>

#include "state.h"

kk__state_t kk__g;
/* Kernel handles, views, spaces, instances and graphs of an older generation are stale. */
atomic_uintptr_t kk__generation = 1;

const char *kk_version(void) { return KK_VERSION_STRING; }
uint32_t kk_plugin_abi_version(void) { return KK_PLUGIN_ABI_VERSION; }
uint64_t kk_tools_abi_version(void) { return 20240906u; }

int kk_plugin_path_count(void) { return kk__g.path_count; }

const char *kk_plugin_path_entry(int i) { return i >= 0 && i < kk__g.path_count ? kk__g.path[i] : NULL; }

const char *kk_backend_default_reason(void) { return kk__g.initialized ? kk__g.default_reason : NULL; }

kk__backend_t *kk__backend_find(const char *name) {
  for (int i = 0; i < kk__g.backend_count; i++)
    if (kk__g.backends[i]->state != KK_PLUGIN_SHADOWED && strcmp(kk__g.backends[i]->name, name) == 0)
      return kk__g.backends[i];
  return NULL;
}

int kk_num_threads(void) {
  if (!kk__g.initialized)
    return 0;
  const kk__backend_t *h = kk__g.host;
  return h->devices[h->device].concurrency;
}
