/* tests/check_security.c -- docs/security.md's rule: a path others can write, or that belongs to another user, is refused; plugin directories, plugin files and tool libraries that break it are not loaded, with a warning. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "internal.h"
#include "safe_path.h"
#include "testutil.h"

/* A user id that is neither root nor this process's (for the tests of
 * another user's files: as root, files are given to it; otherwise the check
 * is asked as if this uid ran it). */
#define OTHER_UID ((uid_t)65534)

static char g_why[4096];

static kks_verdict_t check(const char *path) { return kks_check(path, (uid_t)-1, g_why, sizeof g_why); }

static char *join(const char *a, const char *b) {
  char *p = malloc(strlen(a) + strlen(b) + 2);
  sprintf(p, "%s/%s", a, b);
  return p;
}

static char *subdir(const char *dir, const char *name, mode_t mode) {
  char *p = join(dir, name);
  ck_assert_int_eq(mkdir(p, 0700), 0);
  ck_assert_int_eq(chmod(p, mode), 0); /* whatever the umask */
  return p;
}

/* ---- the walk ---------------------------------------------------------------------------- */

START_TEST(private_directory_passes) {
  char *dir = tu_mkdtemp();
  ck_assert_msg(check(dir) == KKS_TRUSTED, "%s: %s", dir, g_why);
  char *sub = subdir(dir, "plugins", 0755);
  char *dots = join(dir, "plugins/../plugins/./");
  ck_assert_msg(check(dots) == KKS_TRUSTED, "%s: %s", dots, g_why);
  char *none = join(dir, "nothing-here");
  ck_assert_int_eq(check(none), KKS_MISSING);
  ck_assert_contains(g_why, "No such file or directory");
  free(sub), free(dots), free(none);
  tu_rmdir(dir);
}
END_TEST

/* The directory itself: writable by others is refused, sticky or not. */
START_TEST(world_writable_directory_refused) {
  char *dir = tu_mkdtemp();
  char *ww = subdir(dir, "ww", 0777);
  ck_assert_int_eq(check(ww), KKS_REFUSED);
  char want[1200];
  snprintf(want, sizeof want, "%s is writable by others (mode 0777)", ww);
  ck_assert_str_eq(g_why, want);
  ck_assert_int_eq(chmod(ww, 01777), 0);
  ck_assert_int_eq(check(ww), KKS_REFUSED);
  ck_assert_contains(g_why, "(mode 1777)");
  ck_assert_int_eq(chmod(ww, 0775), 0); /* the group: the owner's choice */
  ck_assert_msg(check(ww) == KKS_TRUSTED, "%s", g_why);
  free(ww);
  tu_rmdir(dir);
}
END_TEST

/* A directory above: writable by others refuses everything below it, unless
 * it is sticky (as /tmp). */
START_TEST(world_writable_parent_refused_unless_sticky) {
  char *dir = tu_mkdtemp();
  char *parent = subdir(dir, "shared", 0777);
  char *mine = subdir(parent, "mine", 0700);
  ck_assert_int_eq(check(mine), KKS_REFUSED);
  char want[1200];
  snprintf(want, sizeof want, "%s is writable by others (mode 0777)", parent);
  ck_assert_str_eq(g_why, want);
  ck_assert_int_eq(chmod(parent, 01777), 0);
  ck_assert_msg(check(mine) == KKS_TRUSTED, "%s", g_why);
  free(mine), free(parent);
  tu_rmdir(dir);
}
END_TEST

START_TEST(world_writable_file_refused) {
  char *dir = tu_mkdtemp();
  char *f = tu_write(dir, "kk_x.so", "not really");
  ck_assert_int_eq(chmod(f, 0666), 0);
  ck_assert_int_eq(check(f), KKS_REFUSED);
  ck_assert_contains(g_why, "kk_x.so is writable by others (mode 0666)");
  ck_assert_int_eq(chmod(f, 0644), 0);
  ck_assert_msg(check(f) == KKS_TRUSTED, "%s", g_why);
  free(f);
  tu_rmdir(dir);
}
END_TEST

/* Another user's directory: refused, unless that user owns kk's own files. */
START_TEST(another_users_directory_refused) {
  char *dir = tu_mkdtemp();
  char *theirs = subdir(dir, "theirs", 0755);
  uid_t me = geteuid(), asker = me, owner = me;
  if (me == 0) {
    ck_assert_int_eq(chown(theirs, OTHER_UID, OTHER_UID), 0);
    owner = OTHER_UID;
  } else {
    asker = me == OTHER_UID ? OTHER_UID - 1 : OTHER_UID; /* asked as someone else, the files are this uid's */
  }
  ck_assert_int_eq(kks_check_as(theirs, asker, (uid_t)-1, g_why, sizeof g_why), KKS_REFUSED);
  char want[1200];
  snprintf(want, sizeof want, "is owned by user %lu, not by you, root or the owner of kk's files",
           (unsigned long)owner);
  ck_assert_contains(g_why, want);
  /* the owner of libkk's file is trusted: it could replace libkk itself */
  ck_assert_msg(kks_check_as(theirs, asker, owner, g_why, sizeof g_why) == KKS_TRUSTED, "%s", g_why);
  free(theirs);
  tu_rmdir(dir);
}
END_TEST

/* A symbolic link is followed; the link's owner and the target's directories
 * are checked. */
START_TEST(symbolic_links_are_followed_and_checked) {
  char *dir = tu_mkdtemp();
  char *ww = subdir(dir, "ww", 0777);
  char *link = join(dir, "plugins");
  ck_assert_int_eq(symlink(ww, link), 0);
  ck_assert_int_eq(check(link), KKS_REFUSED);
  ck_assert_contains(g_why, "/ww is writable by others");
  ck_assert_int_eq(chmod(ww, 0755), 0);
  ck_assert_msg(check(link) == KKS_TRUSTED, "%s", g_why);
  /* a link of another user's, in a directory of this one's */
  uid_t asker = geteuid();
  if (asker == 0)
    ck_assert_int_eq(lchown(link, OTHER_UID, OTHER_UID), 0);
  else
    asker = OTHER_UID; /* (the directory is then refused first: still refused) */
  ck_assert_int_eq(kks_check_as(link, asker, (uid_t)-1, g_why, sizeof g_why), KKS_REFUSED);
  if (geteuid() == 0)
    ck_assert_contains(g_why, "the symbolic link");
  /* a dangling link: missing, not refused */
  char *dangling = join(dir, "dangling");
  ck_assert_int_eq(symlink("/nonexistent/kk", dangling), 0);
  ck_assert_int_eq(check(dangling), KKS_MISSING);
  free(dangling), free(link), free(ww);
  tu_rmdir(dir);
}
END_TEST

/* ---- what the loader makes of it ------------------------------------------------------------ */

/* stderr into a file while `init` runs; returns what was written. */
static char *stderr_of(kk_status_t (*init)(void), kk_status_t *st) {
  char *dir = tu_mkdtemp();
  char *file = join(dir, "stderr");
  fflush(stderr);
  int saved = dup(2), fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ck_assert(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  *st = init();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  FILE *f = fopen(file, "r");
  char *text = calloc(1, 65536);
  if (f) {
    size_t n = fread(text, 1, 65535, f);
    text[n] = '\0';
    fclose(f);
  }
  free(file);
  tu_rmdir(dir);
  return text;
}

static kk_status_t init_default(void) { return kk_initialize(NULL, NULL); }

static bool listed(const char *name, kk_plugin_info_t *out) {
  for (int i = 0; i < kk_plugin_count(); i++) {
    kk_plugin_info_t pi = {.struct_size = sizeof pi};
    ck_assert_int_eq(kk_plugin_get_info(i, &pi), KK_OK);
    if (strcmp(pi.name, name) == 0) {
      if (out)
        *out = pi;
      return true;
    }
  }
  return false;
}

static char *report(void) {
  FILE *f = tmpfile();
  ck_assert_int_eq(kk_print_configuration(f), KK_OK);
  rewind(f);
  char *text = calloc(1, 65536);
  size_t n = fread(text, 1, 65535, f);
  text[n] = '\0';
  fclose(f);
  return text;
}

/* A plugin directory anyone can write, named by KOKKOS_PLUGIN_PATH: nothing is
 * loaded from it, a warning names it, and the report says why. */
START_TEST(world_writable_plugin_directory_refused) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  char *plugins = subdir(dir, "plugins", 0777);
  tu_link_fake(plugins, "fake_ok");
  setenv("KOKKOS_PLUGIN_PATH", plugins, 1);
  setenv("KOKKOS_PLUGIN_PROBE", "0", 1);
  kk_status_t st;
  char *err = stderr_of(init_default, &st);
  ck_assert_msg(st == KK_OK, "%s", kk_last_error());
  char want[1200];
  snprintf(want, sizeof want, "kk: warning: plugin directory %s refused: %s is writable by others (mode 0777)",
           plugins, plugins);
  ck_assert_contains(err, want);
  ck_assert_msg(!listed("fake_ok", NULL), "a plugin was loaded from a directory others can write");
  char *rep = report();
  snprintf(want, sizeof want, "  %s  (refused: %s is writable by others (mode 0777))", plugins, plugins);
  ck_assert_contains(rep, want);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  free(err), free(rep);
  /* the same directory, private: the plugin loads */
  ck_assert_int_eq(chmod(plugins, 0755), 0);
  err = stderr_of(init_default, &st);
  ck_assert_msg(st == KK_OK, "%s", kk_last_error());
  ck_assert_msg(!strstr(err, "refused"), "%s", err);
  kk_plugin_info_t pi;
  ck_assert(listed("fake_ok", &pi));
  ck_assert_int_eq(pi.state, KK_PLUGIN_LOADED);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  free(err), free(plugins);
  tu_rmdir(dir);
}
END_TEST

/* A plugin file anyone can write, in a private directory: skipped, and why. */
START_TEST(world_writable_plugin_file_refused) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  char cmd[2200], *so = join(dir, "kk_fake_ok.so");
  snprintf(cmd, sizeof cmd, "cp '%s/kk_fake_ok.so' '%s'", KK_TEST_FAKE_DIR, so);
  ck_assert_int_eq(system(cmd), 0);
  ck_assert_int_eq(chmod(so, 0666), 0);
  setenv("KOKKOS_PLUGIN_PATH", dir, 1);
  setenv("KOKKOS_PLUGIN_PROBE", "0", 1);
  kk_status_t st;
  char *err = stderr_of(init_default, &st);
  ck_assert_msg(st == KK_OK, "%s", kk_last_error());
  kk_plugin_info_t pi;
  ck_assert(listed("fake_ok", &pi));
  ck_assert_int_eq(pi.state, KK_PLUGIN_SKIPPED);
  ck_assert_contains(pi.reason, "refused: ");
  ck_assert_contains(pi.reason, "kk_fake_ok.so is writable by others (mode 0666)");
  ck_assert_contains(err, "kk: warning: plugin ");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  free(err), free(so);
  tu_rmdir(dir);
}
END_TEST

/* A tool library named by a path in a directory anyone can write: not
 * loaded, the program runs without tools. */
START_TEST(tool_library_in_world_writable_directory_refused) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  char *tools = subdir(dir, "tools", 0777);
  char *lib = tu_write(tools, "libkp_planted.so", "not a library");
  setenv("KOKKOS_TOOLS_LIBS", lib, 1);
  kk_status_t st;
  char *err = stderr_of(init_default, &st);
  ck_assert_msg(st == KK_OK, "%s", kk_last_error());
  char want[1200];
  snprintf(want, sizeof want, "the tool library %s (environment) refused: %s is writable by others (mode 0777); "
           "running without tools", lib, tools);
  ck_assert_contains(err, want);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  free(err);
  /* private, it is handed to the loader (which finds no library in it) */
  ck_assert_int_eq(chmod(tools, 0755), 0);
  err = stderr_of(init_default, &st);
  ck_assert_msg(st == KK_OK, "%s", kk_last_error());
  ck_assert_msg(!strstr(err, "refused"), "%s", err);
  ck_assert_contains(err, "could not be loaded");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  free(err), free(lib), free(tools);
  tu_rmdir(dir);
}
END_TEST

static Suite *security_suite(void) {
  Suite *s = suite_create("security");
  TCase *tc = tcase_create("walk");
  tcase_add_test(tc, private_directory_passes);
  tcase_add_test(tc, world_writable_directory_refused);
  tcase_add_test(tc, world_writable_parent_refused_unless_sticky);
  tcase_add_test(tc, world_writable_file_refused);
  tcase_add_test(tc, another_users_directory_refused);
  tcase_add_test(tc, symbolic_links_are_followed_and_checked);
  suite_add_tcase(s, tc);
  tc = tcase_create("loader");
  tcase_add_test(tc, world_writable_plugin_directory_refused);
  tcase_add_test(tc, world_writable_plugin_file_refused);
  tcase_add_test(tc, tool_library_in_world_writable_directory_refused);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(security_suite()); }
