/* tests/oldabi/threads12.c -- the threads backend as a plugin built against plugin ABI 1.2 presents itself (kk_threads12.so, for the tests). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stddef.h>
#include <string.h>

#include <kk/plugin.h>

/* A plugin compiled against ABI 1.2 declares minor 2 and a table that ends
 * with team_size_query: the graph members of ABI 1.3 are not in it, and the
 * core must read them as absent (struct_size) and replay graphs itself.
 * This plugin is the threads backend's code with that table; the conformance
 * suite runs on it (tests/conformance-threads12.sh). */
const kk_plugin_ops_t *kk_plugin_threads_entry(uint32_t core_abi, const kk_host_services_t *hs);

#define OPS_SIZE_1_2 offsetof(kk_plugin_ops_t, graph_create)

static kk_plugin_ops_t g_ops; /* zero beyond OPS_SIZE_1_2 */

KK_PLUGIN_EXPORT const kk_plugin_ops_t *kk_plugin_threads12_entry(uint32_t core_abi, const kk_host_services_t *hs) {
  const kk_plugin_ops_t *t = kk_plugin_threads_entry(core_abi, hs);
  if (!t)
    return NULL;
  memcpy(&g_ops, t, OPS_SIZE_1_2);
  g_ops.struct_size = (uint32_t)OPS_SIZE_1_2;
  g_ops.abi_version = KK_PLUGIN_ABI_MAKE(1, 2);
  g_ops.name = "threads12";
  return &g_ops;
}
