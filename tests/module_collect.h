/* tests/module_collect.h -- libkk's module registration hooks for the test programs that take the place of libkk
 * (tests/nvrtc_modules.c, tests/hip_modules.c, tests/spirv_modules.c): each kernel object's constructor hands its
 * module to kk_module_register, which keeps it in g_mods for the program to walk.  Include it in one file per
 * program. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TESTS_MODULE_COLLECT_H
#define KK_TESTS_MODULE_COLLECT_H

#include <kk/kernel_abi.h>

uint32_t kk_host_locks[KK_HOST_LOCK_COUNT];

static kk_module_t *g_mods[64];
static int g_nmods;

void kk_module_register(kk_module_t *module) {
  if (g_nmods < 64)
    g_mods[g_nmods++] = module;
}
void kk_module_unregister(kk_module_t *module) { (void)module; }

#endif
