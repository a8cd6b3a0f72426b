/* bench/bench_base.c -- what every bench program shares: stopping on a failed kk call, starting kk on each backend, the clock, random inputs, the rest before a timed host run (bench_base.h). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <dirent.h>
#include <sys/syscall.h>
#endif

#include <kk.h>

#include "bench_base.h"

void bench_fail(void) {
  fprintf(stderr, "%s: %s\n", bench_program, kk_last_error());
  exit(1);
}

int bench_init_backend(const char *backend, int argc, char **argv) {
  int kargc = argc;
  char **kargv = malloc(sizeof(char *) * (size_t)(argc + 1));
  if (!kargv) {
    fprintf(stderr, "%s: backend %s skipped: out of memory\n", bench_program, backend);
    return 0;
  }
  memcpy(kargv, argv, sizeof(char *) * (size_t)(argc + 1)); /* kk takes its flags out of the copy */
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = backend;
  s.plugin_path = getenv("KOKKOS_PLUGIN_PATH");
  kk_status_t st = kk_initialize_ex(&kargc, &kargv, &s);
  free(kargv);
  if (st != KK_OK) {
    fprintf(stderr, "%s: backend %s skipped: %s\n", bench_program, backend, kk_last_error());
    return 0;
  }
  return 1;
}

double bench_clock(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double bench_now(void) { return bench_clock(CLOCK_MONOTONIC); }

uint64_t bench_xorshift64(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *state = x;
}

double bench_uniform(uint64_t *state) { return (double)(bench_xorshift64(state) >> 11) / 9007199254740992.0; }

/* True when a thread of this process other than the caller is running or
 * runnable (state R in /proc/self/task/<tid>/stat): an OpenMP or kk worker
 * still spinning after its last region.  0 where /proc cannot tell. */
static int others_running(void) {
#ifdef __linux__
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return 0;
  const long self = (long)syscall(SYS_gettid);
  int running = 0;
  struct dirent *e;
  while (!running && (e = readdir(d))) {
    if (e->d_name[0] == '.' || atol(e->d_name) == self)
      continue;
    char path[300], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = '\0';
    const char *p = strrchr(buf, ')'); /* the state follows the command name */
    running = p && p[1] == ' ' && p[2] == 'R';
  }
  closedir(d);
  return running;
#else
  return 0;
#endif
}

int bench_rest(int min_ms, int max_ms) {
  const struct timespec rest = {min_ms / 1000, (long)(min_ms % 1000) * 1000000L};
  nanosleep(&rest, NULL);
  if (max_ms <= min_ms)
    return 0;
  for (int waited = min_ms; others_running(); waited++) {
    if (waited >= max_ms)
      return 1;
    usleep(1000);
  }
  return 0;
}
