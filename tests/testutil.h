/* tests/testutil.h -- helpers shared by the Check suites: temporary directories, files, fake plugins, environment. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_TESTUTIL_H
#define KK_TESTUTIL_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kk.h>

/* Check's assertions record where each one passed (_mark_point: a message
 * written to the parent's pipe, one write(2) each), so that a test that
 * crashes is reported at its last passed assertion.  Loops that check
 * every element of a result pass millions of assertions, and those writes
 * were half of some suites' time (the sparse-ops suite on threads: 53 of
 * its 105 s in the kernel).  A passed assertion records nothing here; a
 * failed one reports its file, line and message as before, and a crash is
 * reported at the test's start, or at an explicit mark_point(), which
 * still records. */
#undef mark_point
#define mark_point() (_mark_point)(__FILE__, __LINE__)
#define _mark_point(file, line) ((void)0)

/* Asserts that string `hay` contains `needle`, printing both when not. */
#define ck_assert_contains(hay, needle)                                                            \
  do {                                                                                             \
    const char *h_ = (hay), *n_ = (needle);                                                        \
    ck_assert_msg(h_ && strstr(h_, n_), "expected \"%s\" to contain \"%s\"", h_ ? h_ : "(null)", n_); \
  } while (0)

/* A fresh temporary directory, removed by tu_rmdir. */
static inline char *tu_mkdtemp(void) {
  const char *base = getenv("TMPDIR");
  char tmpl[512];
  snprintf(tmpl, sizeof tmpl, "%s/kk-test-XXXXXX", base && *base ? base : "/tmp");
  char *d = mkdtemp(tmpl);
  ck_assert_msg(d != NULL, "mkdtemp failed");
  return strdup(d);
}

static inline void tu_rmdir(char *dir) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", dir);
  free(dir);
}

/* Writes `text` to dir/name and returns the full path (caller frees). */
static inline char *tu_write(const char *dir, const char *name, const char *text) {
  char *path = malloc(strlen(dir) + strlen(name) + 2);
  sprintf(path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
  return path;
}

/* Links the fake plugin kk_<name>.so (built in tests/fake) into dir. */
static inline void tu_link_fake(const char *dir, const char *name) {
  char src[1024], dst[1024];
  snprintf(src, sizeof src, "%s/kk_%s.so", KK_TEST_FAKE_DIR, name);
  snprintf(dst, sizeof dst, "%s/kk_%s.so", dir, name);
  ck_assert_msg(access(src, R_OK) == 0, "fake plugin %s not built", src);
  ck_assert_msg(symlink(src, dst) == 0, "symlink %s failed", dst);
}

/* Whether a suite leaves out its largest sizes: under valgrind
 * (KK_TEST_UNDER_VALGRIND=1, which CI's valgrind step sets) and under the
 * sanitizers (KK_TEST_SMALL=1, which CI's ASan+UBSan step sets), where they
 * cost minutes and reach no code the smaller sizes do not, bar the size
 * thresholds each suite's comments name.  README's make check runs them all. */
static inline int tu_small_sizes(void) {
  const char *v = getenv("KK_TEST_UNDER_VALGRIND"), *s = getenv("KK_TEST_SMALL");
  return (v && *v) || (s && *s && strcmp(s, "0") != 0);
}

/* Unsets every variable kk reads, so that each test starts clean. */
static inline void tu_clear_env(void) {
  static const char *vars[] = {"KOKKOS_DEVICE", "KOKKOS_CONFIG", "KOKKOS_PLUGIN_PATH", "KOKKOS_NUM_THREADS",
                               "KOKKOS_DEVICE_ID", "KOKKOS_MAP_DEVICE_ID_BY", "KOKKOS_VISIBLE_DEVICES",
                               "KOKKOS_TOOLS_LIBS", "KOKKOS_TOOLS_ARGS", "KOKKOS_PRINT_CONFIGURATION",
                               "KOKKOS_DISABLE_WARNINGS", "KOKKOS_TUNE_INTERNALS", "KOKKOS_PROFILE_LIBRARY", "KOKKOS_PLUGIN_PROBE",
                               "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                               "SLURM_LOCALID", "PMI_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
                               "MV2_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE",
                               "PMI_LOCAL_SIZE"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    unsetenv(vars[i]);
  setenv("KK_PLUGIN_PATH_NO_DEFAULT", "1", 1);
  setenv("KK_SITE_CONFIG", "none", 1); /* no site configuration (docs/config.md) */
}

/* Runs a suite; the exit status is the number of failures (0 = pass). */
/* Is `backend` usable?  0 when it is; else prints SKIP (77) or FAIL (1) with
 * the reason and returns the exit status for the test.  For a device backend
 * the probe runs in a child process: a GPU driver initialised in this one
 * would not work in the children Check forks for the tests.  A host backend
 * is probed here, as before: the other plugins it loads (PoCL behind opencl
 * starts worker threads) are then set up once in the parent, and the forked
 * tests do not each start threads that LeakSanitizer cannot stop at exit. */
static inline int tu_probe_in_process(const char *backend, const char *plugin_path) {
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = backend;
  s.plugin_path = plugin_path;
  s.disable_warnings = 1;
  kk_status_t st = kk_initialize_with_settings(&s);
  if (st == KK_ERROR_NOT_FOUND || st == KK_ERROR_NO_DEVICE || st == KK_ERROR_PLUGIN) {
    printf("SKIP: backend %s is not available: %s\n", backend, kk_last_error());
    return 77;
  }
  if (st != KK_OK) {
    printf("FAIL: initializing backend %s: %s\n", backend, kk_last_error());
    return 1;
  }
  kk_finalize();
  return 0;
}

static inline int tu_probe_backend(const char *backend, const char *plugin_path) {
  if (strcmp(backend, "serial") == 0 || strcmp(backend, "threads") == 0 || strcmp(backend, "openmp") == 0)
    return tu_probe_in_process(backend, plugin_path);
  int fds[2];
  if (pipe(fds) != 0) {
    perror("probe: pipe");
    return 99;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    perror("probe: fork");
    return 99;
  }
  if (pid == 0) { /* its report goes through the pipe */
    close(fds[0]);
    if (dup2(fds[1], STDOUT_FILENO) < 0)
      _exit(99);
    int code = tu_probe_in_process(backend, plugin_path);
    fflush(stdout);
    _exit(code);
  }
  close(fds[1]);
  char buf[4096];
  ssize_t got;
  while ((got = read(fds[0], buf, sizeof buf)) > 0)
    fwrite(buf, 1, (size_t)got, stdout);
  close(fds[0]);
  int wst = 0;
  if (waitpid(pid, &wst, 0) != pid || !WIFEXITED(wst)) {
    printf("FAIL: the probe of backend %s did not exit normally\n", backend);
    return 1;
  }
  return WEXITSTATUS(wst);
}

static inline int tu_run(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

#endif
