/* tests/testutil.h -- helpers shared by the Check suites: temporary directories, files, fake plugins, environment. */
#ifndef KK_TESTUTIL_H
#define KK_TESTUTIL_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kk.h>

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

/* Unsets every variable kk reads, so that each test starts clean. */
static inline void tu_clear_env(void) {
  static const char *vars[] = {"KOKKOS_DEVICE", "KOKKOS_CONFIG", "KOKKOS_PLUGIN_PATH", "KOKKOS_NUM_THREADS",
                               "KOKKOS_DEVICE_ID", "KOKKOS_MAP_DEVICE_ID_BY", "KOKKOS_VISIBLE_DEVICES",
                               "KOKKOS_TOOLS_LIBS", "KOKKOS_TOOLS_ARGS", "KOKKOS_PRINT_CONFIGURATION",
                               "KOKKOS_DISABLE_WARNINGS", "KOKKOS_TUNE_INTERNALS", "KOKKOS_PROFILE_LIBRARY",
                               "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                               "SLURM_LOCALID", "PMI_LOCAL_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    unsetenv(vars[i]);
  setenv("KK_PLUGIN_PATH_NO_DEFAULT", "1", 1);
}

/* Runs a suite; the exit status is the number of failures (0 = pass). */
static inline int tu_run(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

#endif
