/* tests/nvrtc_modules.c -- every kernel module's embedded source compiles with NVRTC, the CUDA plugin's JIT fallback.
 *
 * Linked with the conformance kernels (and not with libkk): it receives their modules through its own
 * kk_module_register, then compiles each module's source for the architectures on the command line, with the
 * options the plugin uses.  No GPU is needed, so CI runs it wherever NVRTC is installed; where it is not, the test
 * is skipped with the reason. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/kernel_abi.h>

#include "module_collect.h"

typedef int (*create_fn)(void **, const char *, const char *, int, const char *const *, const char *const *);
typedef int (*compile_fn)(void *, int, const char *const *);
typedef int (*logsize_fn)(void *, size_t *);
typedef int (*log_fn)(void *, char *);
typedef int (*destroy_fn)(void **);
typedef const char *(*errstr_fn)(int);

int main(int argc, char **argv) {
  const char *names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  void *lib = NULL;
  for (size_t i = 0; !lib && i < sizeof names / sizeof *names; i++)
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("SKIP: NVRTC is not available: %s\n", dlerror());
    return 77;
  }
  create_fn create = (create_fn)dlsym(lib, "nvrtcCreateProgram");
  compile_fn compile = (compile_fn)dlsym(lib, "nvrtcCompileProgram");
  logsize_fn logsize = (logsize_fn)dlsym(lib, "nvrtcGetProgramLogSize");
  log_fn getlog = (log_fn)dlsym(lib, "nvrtcGetProgramLog");
  destroy_fn destroy = (destroy_fn)dlsym(lib, "nvrtcDestroyProgram");
  errstr_fn errstr = (errstr_fn)dlsym(lib, "nvrtcGetErrorString");
  if (!create || !compile || !logsize || !getlog || !destroy || !errstr) {
    printf("FAIL: libnvrtc lacks a function this test needs\n");
    return 1;
  }
  int failed = 0, compiled = 0;
  for (int m = 0; m < g_nmods; m++) {
    const kk_module_t *mod = g_mods[m];
    if (!mod->source || !strstr(mod->targets, "cuda"))
      continue;
    for (int a = 1; a < argc; a++) {
      char arch[64];
      snprintf(arch, sizeof arch, "--gpu-architecture=%s", argv[a]);
      const char *opts[] = {arch, "-std=c++17", "-DKK_TARGET_CUDA"}; /* as plugins/cuda/cuda_jit.c */
      void *prog = NULL;
      int r = create(&prog, mod->source, mod->source_name, 0, NULL, NULL);
      if (r == 0)
        r = compile(prog, 3, opts);
      if (r != 0) {
        size_t n = 0;
        logsize(prog, &n);
        char *log = calloc(1, n + 1);
        if (log)
          getlog(prog, log);
        printf("FAIL: %s for %s: %s\n%s\n", mod->source_name, argv[a], errstr(r), log ? log : "");
        free(log);
        failed++;
      } else {
        printf("ok: %s for %s\n", mod->source_name, argv[a]);
        compiled++;
      }
      destroy(&prog);
    }
  }
  /* NVRTC stays loaded: its caches are reachable from its globals, not leaked */
  if (!compiled && !failed) {
    printf("FAIL: no module with CUDA source was registered\n");
    return 1;
  }
  return failed ? 1 : 0;
}
