/* tests/affinity/affinity.c -- kk_initialize leaves the calling thread's CPU affinity as it was when the plugin whose load changed it is not used (libgomp, loaded with the openmp plugin, binds the loading thread under OMP_PROC_BIND), and the threads backend's workers get that whole mask; exit 77 where this cannot be seen. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk.h>

/* the CPU affinity of every thread of this process equals `want` */
static int threads_have(const cpu_set_t *want, int *nthreads) {
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return -1;
  struct dirent *e;
  int ok = 1;
  *nthreads = 0;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    cpu_set_t m;
    if (sched_getaffinity(atoi(e->d_name), sizeof m, &m) != 0)
      continue;
    ++*nthreads;
    if (!CPU_EQUAL(&m, want)) {
      printf("thread %s has %d CPUs in its mask, not the %d the program started with\n", e->d_name, CPU_COUNT(&m),
             CPU_COUNT(want));
      ok = 0;
    }
  }
  closedir(d);
  return ok;
}

int main(void) {
  cpu_set_t before;
  if (sched_getaffinity(0, sizeof before, &before) != 0 || CPU_COUNT(&before) < 2) {
    printf("SKIP: the process may run on one CPU only: a binding would not show\n");
    return 77;
  }
  /* read by libgomp when the openmp plugin loads it (this program does not link it) */
  setenv("OMP_PROC_BIND", "spread", 1);
  setenv("OMP_PLACES", "cores", 1);
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = "threads";
  s.num_threads = 2;
  s.disable_warnings = 1;
  kk_status_t st = kk_initialize_with_settings(&s);
  if (st == KK_ERROR_NOT_FOUND || st == KK_ERROR_NO_DEVICE) {
    printf("SKIP: no threads backend: %s\n", kk_last_error());
    return 77;
  }
  if (st != KK_OK) {
    printf("FAIL: kk_initialize: %s\n", kk_last_error());
    return 1;
  }
  int have_openmp = 0;
  for (int i = 0; i < kk_plugin_count(); i++) {
    kk_plugin_info_t pi;
    pi.struct_size = sizeof pi;
    if (kk_plugin_get_info(i, &pi) == KK_OK && strcmp(pi.name, "openmp") == 0 && pi.state == KK_PLUGIN_LOADED)
      have_openmp = 1;
  }
  int n = 0, ok = threads_have(&before, &n);
  kk_finalize();
  if (!have_openmp) {
    printf("SKIP: no openmp plugin here to bind the loading thread\n");
    return 77;
  }
  if (ok < 0 || n < 2) {
    printf("SKIP: cannot read the threads' masks (%d threads)\n", n);
    return 77;
  }
  if (!ok) {
    printf("FAIL: loading the unused openmp plugin changed where kk's threads may run\n");
    return 1;
  }
  printf("PASS: %d threads, each on the %d CPUs the program started with\n", n, CPU_COUNT(&before));
  return 0;
}
