/* tests/faults/check_probe.c -- plugins that segfault, abort or hang in their entry or init: probed in a helper process, skipped with the reason, the verdict cached. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <utime.h>

#include "testutil.h"

#ifndef KK_TEST_PROBE_HELPER
#error "KK_TEST_PROBE_HELPER: the build tree's kk-plugin-probe"
#endif

/* The fake plugin kk_<name>.so copied (not linked: its mtime is the
 * copy's own, and a test may change it) into dir. */
static char *copy_fake(const char *dir, const char *name) {
  char src[1024], *dst = malloc(1024), cmd[2200];
  snprintf(src, sizeof src, "%s/kk_%s.so", KK_TEST_FAKE_DIR, name);
  snprintf(dst, 1024, "%s/kk_%s.so", dir, name);
  ck_assert_msg(access(src, R_OK) == 0, "fake plugin %s not built", src);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, dst);
  ck_assert_int_eq(system(cmd), 0);
  return dst;
}

typedef struct env {
  char *plugins, *cache;
} env_t;

/* A plugin directory with fake_ok and `broken`, a fresh cache, the build's helper. */
static env_t env_with(const char *broken) {
  env_t e = {tu_mkdtemp(), tu_mkdtemp()};
  tu_clear_env();
  free(copy_fake(e.plugins, "fake_ok"));
  if (broken)
    free(copy_fake(e.plugins, broken));
  setenv("KOKKOS_PLUGIN_PATH", e.plugins, 1);
  setenv("KK_PLUGIN_CACHE_DIR", e.cache, 1);
  setenv("KK_PLUGIN_PROBE_HELPER", KK_TEST_PROBE_HELPER, 1);
  setenv("KK_PLUGIN_PROBE_TIMEOUT", "2", 1);
  /* only these plugins: an uninstalled libkk would add (and probe) its tree's */
  setenv("KK_PLUGIN_PATH_NO_BUILD_TREE", "1", 1);
  return e;
}

static void env_free(env_t e) {
  unsetenv("KK_PLUGIN_CACHE_DIR");
  unsetenv("KK_PLUGIN_PROBE_HELPER");
  unsetenv("KK_PLUGIN_PROBE_TIMEOUT");
  unsetenv("KK_PLUGIN_PATH_NO_BUILD_TREE");
  tu_rmdir(e.plugins);
  tu_rmdir(e.cache);
}

static kk_status_t init_quiet(void) {
  kk_settings_t s = KK_SETTINGS_INIT;
  s.disable_warnings = 1;
  return kk_initialize_with_settings(&s);
}

/* The state and reason kk recorded for plugin `name`. */
static kk_plugin_state_t state_of(const char *name, char *reason, size_t size) {
  for (int i = 0; i < kk_plugin_count(); i++) {
    kk_plugin_info_t pi = {.struct_size = sizeof pi};
    ck_assert_int_eq(kk_plugin_get_info(i, &pi), KK_OK);
    if (strcmp(pi.name, name) == 0) {
      snprintf(reason, size, "%s", pi.reason ? pi.reason : "");
      return pi.state;
    }
  }
  ck_abort_msg("plugin %s not listed", name);
  return KK_PLUGIN_SKIPPED;
}

static const struct {
  const char *name, *why;
} g_broken[] = {
    {"fake_segv_entry", "crashed: signal 11 (Segmentation fault) in entry when probed in a helper process"},
    {"fake_abort_entry", "crashed: signal 6 (Aborted) in entry when probed in a helper process (it said: fake plugin: "
                         "giving up)"},
    {"fake_hang_entry", "hung: no answer after 2 s in entry when probed in a helper process"},
    {"fake_segv_init", "crashed: signal 11 (Segmentation fault) in init when probed"},
    {"fake_abort_init", "crashed: signal 6 (Aborted) in init when probed"},
    {"fake_hang_init", "hung: no answer after 2 s in init when probed"},
};

/* Each broken plugin is skipped with what it did and where; the program
 * goes on with the others.  The second start reads the verdict from the
 * cache: the helper is not even there then. */
START_TEST(broken_plugins_are_skipped_and_remembered) {
  const char *name = g_broken[_i].name;
  env_t e = env_with(name);
  ck_assert_int_eq(init_quiet(), KK_OK);
  char reason[1024];
  ck_assert_int_eq(state_of(name, reason, sizeof reason), KK_PLUGIN_SKIPPED);
  ck_assert_contains(reason, g_broken[_i].why);
  ck_assert_contains(reason, "kk skips it until the file changes");
  ck_assert_int_eq(state_of("fake_ok", reason, sizeof reason), KK_PLUGIN_LOADED);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  /* from the cache */
  setenv("KK_PLUGIN_PROBE_HELPER", "/nonexistent/kk-plugin-probe", 1);
  ck_assert_int_eq(init_quiet(), KK_OK);
  ck_assert_int_eq(state_of(name, reason, sizeof reason), KK_PLUGIN_SKIPPED);
  ck_assert_contains(reason, g_broken[_i].why);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  env_free(e);
}
END_TEST

/* A changed file is probed again: here the broken plugin is replaced by a
 * good one under the same name (a new mtime and size), and loads. */
START_TEST(a_changed_plugin_is_probed_again) {
  env_t e = env_with("fake_segv_init");
  ck_assert_int_eq(init_quiet(), KK_OK);
  char reason[1024];
  ck_assert_int_eq(state_of("fake_segv_init", reason, sizeof reason), KK_PLUGIN_SKIPPED);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  /* the same verdict while the file is unchanged, a new one once it changes:
   * make its mtime differ (utimes) and check that it is probed again */
  char path[1100];
  snprintf(path, sizeof path, "%s/kk_fake_segv_init.so", e.plugins);
  struct timeval tv[2] = {{1000000000, 0}, {1000000000, 0}};
  ck_assert_int_eq(utimes(path, tv), 0);
  setenv("KK_PLUGIN_PROBE_HELPER", "/nonexistent/kk-plugin-probe", 1);
  tu_clear_env();
  setenv("KOKKOS_PLUGIN_PATH", e.plugins, 1);
  setenv("KK_DEBUG", "1", 1);
  /* no helper and no valid entry: the plugin would be loaded unprobed, and
   * crash this process -- so ask a child */
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    signal(SIGSEGV, SIG_DFL); /* the signal, not an ASan build's report */
    _exit(init_quiet() == KK_OK ? 0 : 1);
  }
  int ws = 0;
  ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
  ck_assert_msg(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGSEGV, "the unprobed plugin should have crashed the child");
  unsetenv("KK_DEBUG");
  /* with the helper it is probed again and skipped again */
  setenv("KK_PLUGIN_PROBE_HELPER", KK_TEST_PROBE_HELPER, 1);
  ck_assert_int_eq(init_quiet(), KK_OK);
  ck_assert_int_eq(state_of("fake_segv_init", reason, sizeof reason), KK_PLUGIN_SKIPPED);
  ck_assert_contains(reason, "signal 11");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  /* replaced by a good plugin of the same name: the old verdict does not stick */
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "cp '%s/kk_fake_ok.so' '%s.new' && mv '%s.new' '%s'", e.plugins, path, path, path);
  ck_assert_int_eq(system(cmd), 0);
  ck_assert_int_eq(init_quiet(), KK_OK);
  state_of("fake_segv_init", reason, sizeof reason);
  ck_assert_msg(!strstr(reason, "probed"), "a stale verdict: %s", reason);
  ck_assert_contains(reason, "entry symbol kk_plugin_fake_segv_init_entry not found"); /* the loader's own check */
  ck_assert_int_eq(kk_finalize(), KK_OK);
  env_free(e);
}
END_TEST

/* KOKKOS_PLUGIN_PROBE=0: no probe, so the crashing plugin takes the
 * (child) process down -- what the probe prevents. */
START_TEST(probe_off) {
  env_t e = env_with("fake_segv_entry");
  setenv("KOKKOS_PLUGIN_PROBE", "0", 1);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL); /* the signal, not an ASan build's report */
    _exit(init_quiet() == KK_OK ? 0 : 1);
  }
  int ws = 0;
  ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
  ck_assert_msg(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGSEGV, "without the probe the plugin crashes the process");
  /* the flag says the same, and the report shows it */
  unsetenv("KOKKOS_PLUGIN_PROBE");
  char *argv[] = {"prog", "--kokkos-plugin-probe=no", NULL};
  int argc = 2;
  char **av = argv;
  char bad[1100];
  snprintf(bad, sizeof bad, "%s/kk_fake_segv_entry.so", e.plugins);
  ck_assert_int_eq(unlink(bad), 0);
  ck_assert_int_eq(kk_initialize(&argc, &av), KK_OK);
  FILE *f = tmpfile();
  ck_assert_int_eq(kk_print_configuration(f), KK_OK);
  rewind(f);
  char text[16384] = {0};
  ck_assert(fread(text, 1, sizeof text - 1, f) > 0);
  fclose(f);
  ck_assert_contains(text, "plugin probe       no  (command line");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  env_free(e);
}
END_TEST

/* No writable cache anywhere (a read-only home, no XDG cache, no TMPDIR):
 * every start probes, and the broken plugin is still skipped. */
START_TEST(no_writable_cache) {
  env_t e = env_with("fake_abort_init");
  setenv("KK_PLUGIN_CACHE_DIR", "/dev/null/kk", 1);
  setenv("XDG_CACHE_HOME", "/dev/null/xdg", 1);
  char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL, *tmp = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
  setenv("HOME", "/dev/null", 1);
  setenv("TMPDIR", "/dev/null", 1);
  for (int round = 0; round < 2; round++) {
    ck_assert_int_eq(init_quiet(), KK_OK);
    char reason[1024];
    ck_assert_int_eq(state_of("fake_abort_init", reason, sizeof reason), KK_PLUGIN_SKIPPED);
    ck_assert_contains(reason, "crashed: signal 6 (Aborted) in init");
    ck_assert_int_eq(kk_finalize(), KK_OK);
  }
  unsetenv("XDG_CACHE_HOME");
  if (home)
    setenv("HOME", home, 1);
  if (tmp)
    setenv("TMPDIR", tmp, 1);
  else
    unsetenv("TMPDIR");
  free(home);
  free(tmp);
  env_free(e);
}
END_TEST

/* Many processes starting at once with an empty cache (MPI ranks on a
 * node): each comes up, skipping the broken plugin; one of them probes it,
 * the others wait for its verdict; the entry is whole afterwards. */
START_TEST(many_processes_at_once) {
  env_t e = env_with("fake_segv_entry");
  enum { NPROC = 8 };
  char logs[NPROC][1100];
  pid_t pids[NPROC];
  fflush(stdout);
  for (int i = 0; i < NPROC; i++) {
    snprintf(logs[i], sizeof logs[i], "%s/rank%d.log", e.cache, i);
    pids[i] = fork();
    if (pids[i] == 0) {
      int fd = open(logs[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(fd, 2);
      setenv("KK_DEBUG", "1", 1);
      kk_status_t st = init_quiet();
      char reason[1024] = "";
      kk_plugin_state_t s = st == KK_OK ? state_of("fake_segv_entry", reason, sizeof reason) : KK_PLUGIN_LOADED;
      int ok = st == KK_OK && s == KK_PLUGIN_SKIPPED && strstr(reason, "signal 11") != NULL;
      if (st == KK_OK)
        kk_finalize();
      _exit(ok ? 0 : 1);
    }
  }
  for (int i = 0; i < NPROC; i++) {
    int ws = 0;
    ck_assert_int_eq(waitpid(pids[i], &ws, 0), pids[i]);
    ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "process %d: status 0x%x", i, ws);
  }
  /* the probes that ran: one per plugin (fake_ok and the broken one), not one per process */
  int probes = 0;
  for (int i = 0; i < NPROC; i++) {
    FILE *f = fopen(logs[i], "r");
    char line[2048];
    while (f && fgets(line, sizeof line, f))
      probes += strstr(line, ": probing it in ") != NULL;
    if (f)
      fclose(f);
  }
  ck_assert_int_eq(probes, 2);
  env_free(e);
}
END_TEST

/* Runs kk_initialize/kk_finalize `times` times in a child, warnings on, its
 * stderr into a file in e's cache directory; returns that text (caller
 * frees). */
static char *child_stderr(const env_t *e, int times) {
  char log[1100];
  snprintf(log, sizeof log, "%s/stderr.log", e->cache);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    int bad = 0;
    for (int i = 0; i < times; i++)
      bad |= kk_initialize(NULL, NULL) != KK_OK || kk_finalize() != KK_OK;
    free(e->plugins); /* the child's copies: nothing left for valgrind to call lost */
    free(e->cache);
    _exit(bad);
  }
  int ws = 0;
  ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
  ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the child failed: status 0x%x", ws);
  FILE *f = fopen(log, "r");
  ck_assert(f != NULL);
  char *text = calloc(1, 65536);
  size_t n = fread(text, 1, 65535, f);
  text[n] = '\0';
  fclose(f);
  return text;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

/* A missing helper is said, once per process however many plugins and
 * starts: the plugins then load unprobed. */
START_TEST(missing_helper_is_said_once) {
  env_t e = env_with("fake_oldminor");
  setenv("KK_PLUGIN_PROBE_HELPER", "/nonexistent/kk-plugin-probe", 1);
  char *err = child_stderr(&e, 2);
  ck_assert_int_eq(count(err, "kk: warning: the plugin probe's helper /nonexistent/kk-plugin-probe is missing "
                              "(No such file or directory): plugins load unprobed"),
                   1);
  free(err);
  env_free(e);
}
END_TEST

/* A timeout that is not a number of seconds is said, once, with what is used instead. */
START_TEST(bad_timeout_is_said_once) {
  static const char *bad[] = {"abc", "0", "-3", "5s", "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    env_t e = env_with(NULL);
    setenv("KK_PLUGIN_PROBE_TIMEOUT", bad[i], 1);
    char *err = child_stderr(&e, 2);
    char want[256];
    snprintf(want, sizeof want, "kk: warning: KK_PLUGIN_PROBE_TIMEOUT='%s' ignored: not a whole number of seconds "
             "from 1 to 86400; the default, 30 s, is used", bad[i]);
    ck_assert_msg(count(err, want) == 1, "%s: %s", bad[i], err);
    free(err);
    env_free(e);
  }
}
END_TEST

/* A plugin that hangs while probed: after 2 s the user is told which one is
 * waited for, once, and it is then skipped at the timeout as before. */
START_TEST(waiting_is_said) {
  env_t e = env_with("fake_hang_init");
  setenv("KK_PLUGIN_PROBE_TIMEOUT", "3", 1);
  char *err = child_stderr(&e, 1);
  char want[1200];
  snprintf(want, sizeof want, "kk: warning: waiting for the plugin %s/kk_fake_hang_init.so: its probe in a helper "
           "process has not finished after 2 s; it counts as hung after 3 s (KK_PLUGIN_PROBE_TIMEOUT)", e.plugins);
  ck_assert_msg(count(err, want) == 1, "%s", err);
  ck_assert_msg(!strstr(err, "kk_fake_ok.so: its probe"), "%s", err);
  free(err);
  /* its verdict */
  ck_assert_int_eq(init_quiet(), KK_OK);
  char reason[1024];
  ck_assert_int_eq(state_of("fake_hang_init", reason, sizeof reason), KK_PLUGIN_SKIPPED);
  ck_assert_contains(reason, "hung: no answer after 3 s in init");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  env_free(e);
}
END_TEST

static Suite *probe_suite(void) {
  Suite *s = suite_create("probe");
  TCase *tc = tcase_create("broken plugins");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, broken_plugins_are_skipped_and_remembered, 0, (int)(sizeof g_broken / sizeof *g_broken));
  tcase_add_test(tc, a_changed_plugin_is_probed_again);
  tcase_add_test(tc, probe_off);
  tcase_add_test(tc, no_writable_cache);
  tcase_add_test(tc, many_processes_at_once);
  suite_add_tcase(s, tc);
  tc = tcase_create("what is said");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, missing_helper_is_said_once);
  tcase_add_test(tc, bad_timeout_is_said_once);
  tcase_add_test(tc, waiting_is_said);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(probe_suite()); }
