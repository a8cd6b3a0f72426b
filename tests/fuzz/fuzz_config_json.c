/* tests/fuzz/fuzz_config_json.c -- libFuzzer harness: the JSON configuration file (--kokkos-config) as kk_initialize reads it. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _GNU_SOURCE
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conf.h"

/* The input is the file's contents, kept in a memfd (a regular file, as the
 * loader requires, with no disk traffic) that each run rewrites. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int fd = -1;
  static char arg[64];
  if (fd < 0) {
    fd = memfd_create("kk-fuzz-config", MFD_CLOEXEC);
    if (fd < 0)
      abort();
    snprintf(arg, sizeof arg, "--kokkos-config=/proc/self/fd/%d", fd);
    unsetenv("KOKKOS_CONFIG");
  }
  if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
    abort();
  char *argv[] = {"fuzz", arg, "--kokkos-disable-warnings", NULL};
  int argc = 3;
  kk__config_t cfg;
  if (kk__config_resolve(argc, argv, NULL, &cfg) == KK_OK) {
    char **av = argv;
    kk__config_apply_argv(&cfg, &argc, &av);
    kk__config_free(&cfg);
  }
  return 0;
}
