/* core/paths.c -- where libkk looks for plugins and tools: the installed directories, and the build tree's own when this libkk is the uninstalled one. */
#include "config.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_DLFCN_H
#include <dlfcn.h>
#endif

#include "internal.h"

#ifndef KK_TOOLDIR
#define KK_TOOLDIR "/usr/local/lib/kk/tools"
#endif

const char *kk__installed_tool_dir(void) { return KK_TOOLDIR; }

/* ---- uninstalled use -------------------------------------------------------------
 *
 * libtool leaves an uninstalled libkk in <builddir>/.libs, and the programs of
 * the tree (through their libtool wrappers or their run path) load it from
 * there; `make install` copies it to $(libdir).  So the file the dynamic
 * loader opened says which one this is: only a libkk whose directory is the
 * build tree's .libs takes that tree's plugins and tools.  An installed libkk
 * never does, even while its build tree still exists, and a libkk moved or
 * copied elsewhere is an installed one. */

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_library[PATH_MAX]; /* the loaded libkk as the loader names it, "" if unknown */
static bool g_build_tree;

/* Is `dir` (resolved) the build tree's library directory? */
static bool is_build_libdir(const char *dir) {
#ifdef KK_BUILD_LIBDIR
  char *want = realpath(KK_BUILD_LIBDIR, NULL);
  char *have = realpath(dir, NULL);
  bool same = want && have && strcmp(want, have) == 0;
  free(want);
  free(have);
  return same;
#else
  (void)dir;
  return false;
#endif
}

static void locate(void) {
#ifdef HAVE_DLFCN_H
  Dl_info info;
  /* Any object of libkk's own: the loader names the file that holds it (the
   * executable itself when the core is linked in statically, as in tests). */
  if (!dladdr((const void *)&g_once, &info) || !info.dli_fname || info.dli_fname[0] != '/')
    return;
  kk__snprintf(g_library, sizeof g_library, "%s", info.dli_fname);
  char dir[PATH_MAX];
  kk__snprintf(dir, sizeof dir, "%s", info.dli_fname);
  char *slash = strrchr(dir, '/');
  if (slash == dir)
    slash[1] = '\0';
  else
    *slash = '\0';
  g_build_tree = is_build_libdir(dir);
#endif
}

const char *kk__library_path(void) {
  pthread_once(&g_once, locate);
  return g_library[0] ? g_library : NULL;
}

bool kk__is_build_tree(void) {
  pthread_once(&g_once, locate);
  return g_build_tree;
}

/* Is the test switch `name` set to a true value? */
static bool switched_on(const char *name) {
  const char *v = getenv(name);
  bool on = false;
  return v && kk__parse_bool(v, &on) && on;
}

/* KK_PLUGIN_PATH_NO_BUILD_TREE: a test of libkk alone leaves the tree out. */
static bool use_build_tree(void) { return kk__is_build_tree() && !switched_on("KK_PLUGIN_PATH_NO_BUILD_TREE"); }

const char *kk__build_tree_plugin_dir(void) {
#ifdef KK_BUILD_PLUGINDIR
  return use_build_tree() ? KK_BUILD_PLUGINDIR : NULL;
#else
  return NULL;
#endif
}

const char *kk__build_tree_tool_dir(void) {
#ifdef KK_BUILD_TOOLDIR
  return use_build_tree() ? KK_BUILD_TOOLDIR : NULL;
#else
  return NULL;
#endif
}

bool kk__installed_dirs_skipped(void) { return switched_on("KK_PLUGIN_PATH_NO_DEFAULT"); }

int kk__tool_dirs(const char *dirs[2]) {
  int n = 0;
  if (kk__build_tree_tool_dir())
    dirs[n++] = kk__build_tree_tool_dir();
  if (!kk__installed_dirs_skipped())
    dirs[n++] = kk__installed_tool_dir();
  return n;
}

bool kk__tool_find(const char *name, char *path, size_t size) {
  if (!name || !*name || strchr(name, '/'))
    return false;
  const char *dirs[2];
  int n = kk__tool_dirs(dirs);
  size_t len = strlen(name);
  bool has_so = len > 3 && strcmp(name + len - 3, ".so") == 0;
  for (int i = 0; i < n; i++)
    for (int suffix = 0; suffix < (has_so ? 1 : 2); suffix++) {
      int w = snprintf(path, size, "%s/%s%s", dirs[i], name, suffix ? ".so" : "");
      if (w > 0 && (size_t)w < size && access(path, R_OK) == 0)
        return true;
    }
  return false;
}
