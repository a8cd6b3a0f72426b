/* bench/bench_base.c -- what every bench program shares: its options read from a table, stopping on a failed kk call, starting kk on each backend, the clock, random inputs, the rest before a timed host run (bench_base.h). */
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

/* Does the number `v` pass the option's check? */
static int bench_number_ok(const bench_option_t *o, double v) {
  switch (o->check) {
  case BENCH_RANGE:
    return v >= o->lo && v <= o->hi;
  case BENCH_ABOVE:
    return v > o->lo;
  default:
    return 1;
  }
}

/* Takes `value` (the text after the option's '=') into the option's variable;
 * 0 when the option refuses it. */
static int bench_take(const bench_option_t *o, const char *arg, const char *value) {
  switch (o->kind) {
  case BENCH_STRING:
    *(const char **)o->to = value;
    return 1;
  case BENCH_FLAG:
    *(int *)o->to = o->flag;
    return 1;
  case BENCH_INT: {
    int v = atoi(value);
    if (o->check == BENCH_AT_LEAST && v < o->lo)
      v = (int)o->lo;
    if (!bench_number_ok(o, v))
      return 0;
    *(int *)o->to = v;
    return 1;
  }
  case BENCH_INT64: {
    long long v = atoll(value);
    if (o->check == BENCH_AT_LEAST && v < o->lo)
      v = (long long)o->lo;
    if (!bench_number_ok(o, (double)v))
      return 0;
    *(int64_t *)o->to = v;
    return 1;
  }
  case BENCH_DOUBLE: {
    double v = atof(value);
    if (o->check == BENCH_AT_LEAST && v < o->lo)
      v = o->lo;
    if (!bench_number_ok(o, v))
      return 0;
    *(double *)o->to = v;
    return 1;
  }
  case BENCH_PARSE:
    return o->parse(arg, value, o->to);
  }
  return 0;
}

int bench_options(int argc, char **argv, const bench_option_t *options, int pass_kokkos) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (pass_kokkos && strncmp(arg, "--kokkos-", 9) == 0)
      continue; /* read by kk_initialize_ex */
    int taken = 0;
    for (const bench_option_t *o = options; o->name && !taken; o++) {
      size_t len = strlen(o->name);
      const int takes_value = len > 0 && o->name[len - 1] == '=';
      if (takes_value ? strncmp(arg, o->name, len) == 0 : strcmp(arg, o->name) == 0)
        taken = bench_take(o, arg, arg + len);
    }
    if (!taken)
      return 0;
  }
  return 1;
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
