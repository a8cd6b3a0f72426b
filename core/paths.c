/* core/paths.c -- where libkk looks for plugins, tools and the probe helper (the installed directories, and the build tree's for the uninstalled libkk only), and the check that refuses what others can write (docs/security.md). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_DLFCN_H
#include <dlfcn.h>
#endif

#include "paths.h"
#include "safe_path.h"
#include "status.h"

#ifndef KK_TOOLDIR
#define KK_TOOLDIR "/usr/local/lib/kk/tools"
#endif

const char *kk__installed_tool_dir(void) { return KK_TOOLDIR; }

/* ---- what may be loaded ------------------------------------------------------------ */

bool kk__path_refused(const char *what, const char *path, char *why, size_t why_size) {
  char reason[PATH_MAX + 128];
  kks_verdict_t v = kks_check(path, kks_code_owner(), reason, sizeof reason);
  if (why && why_size)
    kk__snprintf(why, why_size, "%s", v == KKS_REFUSED ? reason : "");
  if (v == KKS_REFUSED && what)
    kk__warn("%s %s refused: %s; kk loads nothing from where others can write (docs/security.md)", what, path,
             reason);
  return v == KKS_REFUSED;
}

/* ---- uninstalled use ---------------------------------------------------------------
 *
 * libtool leaves the uninstalled libkk in <builddir>/.libs, and the programs
 * of the tree load it from there (through their libtool wrappers or their
 * run path).  `make` writes a marker file beside it, .libs/kk-build-tree,
 * naming the tree's plugin, tool and helper directories relative to .libs;
 * `make install` copies the library to $(libdir) and never the marker.  So
 * the decision is made when the tree is built: libkk compiles in no build
 * path, reads the marker only from the directory the dynamic loader loaded
 * it from, and only when that directory and the marker pass the same check
 * as any directory code is loaded from (kk__path_refused).  An installed libkk has no marker
 * beside it, and nobody but its owner or root can put one there. */

#define MARKER "kk-build-tree"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_library[PATH_MAX]; /* the loaded libkk as the loader names it, "" if unknown */
static bool g_build_tree;
static char g_tree_plugins[PATH_MAX], g_tree_tools[PATH_MAX], g_tree_probe[PATH_MAX];

/* base (a resolved directory) joined with rel, "." and ".." applied;
 * false when rel is absolute or the result does not fit. */
static bool join_relative(const char *base, const char *rel, char *out, size_t size) {
  if (!*rel || rel[0] == '/' || strlen(base) >= size)
    return false;
  memcpy(out, base, strlen(base) + 1);
  for (const char *p = rel; *p;) {
    size_t n = strcspn(p, "/");
    if (n == 2 && p[0] == '.' && p[1] == '.') {
      char *slash = strrchr(out, '/');
      if (slash && slash != out)
        *slash = '\0';
      else
        strcpy(out, "/");
    } else if (n && !(n == 1 && p[0] == '.')) {
      size_t len = strlen(out), sep = len > 1 || out[0] != '/';
      if (len + sep + n + 1 > size)
        return false;
      if (sep)
        out[len++] = '/';
      memcpy(out + len, p, n);
      out[len + n] = '\0';
    }
    p += n;
    while (*p == '/')
      p++;
  }
  return true;
}

/* Reads the marker in `dir` (the directory libkk was loaded from). */
static void read_marker(const char *dir) {
  char marker[PATH_MAX + sizeof MARKER + 1];
  snprintf(marker, sizeof marker, "%s/" MARKER, dir);
  struct stat sb;
  if (lstat(marker, &sb) != 0)
    return; /* an installed libkk */
  if (kk__path_refused("the build-tree marker", marker, NULL, 0))
    return;
  char base[PATH_MAX];
  if (!realpath(dir, base))
    return;
  FILE *f = fopen(marker, "re");
  if (!f)
    return;
  char line[PATH_MAX + 32];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    char *key = line + strspn(line, " \t");
    if (!*key || *key == '#')
      continue;
    char *value = key + strcspn(key, " \t");
    if (*value)
      *value++ = '\0';
    value += strspn(value, " \t");
    char *out = strcmp(key, "plugins") == 0 ? g_tree_plugins
                : strcmp(key, "tools") == 0 ? g_tree_tools
                : strcmp(key, "probe") == 0 ? g_tree_probe
                                            : NULL;
    if (!out)
      continue; /* a key of a later kk */
    if (!join_relative(base, value, out, PATH_MAX)) {
      kk__debug("%s: '%s %s' ignored: not a relative path", marker, key, value);
      out[0] = '\0';
    }
  }
  fclose(f);
  g_build_tree = g_tree_plugins[0] || g_tree_tools[0] || g_tree_probe[0];
  kk__debug("%s: this libkk is its build tree's (plugins %s, tools %s, probe helper %s)", marker, g_tree_plugins,
            g_tree_tools, g_tree_probe);
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
  read_marker(dir);
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

const char *kk__build_tree_plugin_dir(void) { return use_build_tree() && g_tree_plugins[0] ? g_tree_plugins : NULL; }

const char *kk__build_tree_tool_dir(void) { return use_build_tree() && g_tree_tools[0] ? g_tree_tools : NULL; }

const char *kk__build_tree_probe_helper(void) {
  return use_build_tree() && g_tree_probe[0] ? g_tree_probe : NULL;
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
  for (int i = 0; i < n; i++) {
    struct stat sb;
    if (stat(dirs[i], &sb) != 0 || kk__path_refused("tool directory", dirs[i], NULL, 0))
      continue;
    for (int suffix = 0; suffix < (has_so ? 1 : 2); suffix++) {
      int w = snprintf(path, size, "%s/%s%s", dirs[i], name, suffix ? ".so" : "");
      if (w > 0 && (size_t)w < size && access(path, R_OK) == 0)
        return true;
    }
  }
  return false;
}
