/* core/paths.h -- where plugins and tools are found (core/paths.c; docs/config.md). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_PATHS_H
#define KK_CORE_PATHS_H

#include "internal.h"

/* Installed directory of the bundled tools, $(pkglibdir)/tools. */
const char *kk__installed_tool_dir(void);
/* The file the dynamic loader opened for this libkk, NULL when unknown (the
 * core linked statically into a program). */
const char *kk__library_path(void);
/* Is this libkk the uninstalled one of its build tree?  True when the
 * directory it was loaded from holds the marker `make` writes there
 * (.libs/kk-build-tree, never installed) and kk__path_refused passes both. */
bool kk__is_build_tree(void);
/* The build tree's plugin and tool directories and probe helper, as its
 * marker names them, when kk__is_build_tree() (and KK_PLUGIN_PATH_NO_BUILD_TREE
 * is not set), else NULL. */
const char *kk__build_tree_plugin_dir(void);
const char *kk__build_tree_tool_dir(void);
const char *kk__build_tree_probe_helper(void);
/* Whether code (or a cache entry) must not be taken from `path`, a directory
 * or a file (docs/security.md): true when it, a directory above it or a
 * symbolic link on the way belongs to someone other than root, this user or
 * the owner of libkk's own file, or is writable by others (a directory above
 * it may be, with the sticky bit).  A refusal is warned about ("<what> <path>
 * refused: <why>"; not when `what` is NULL) and its reason copied into `why`
 * (may be NULL).  A path that does not exist is not refused: whoever opens it
 * says what is wrong. */
bool kk__path_refused(const char *what, const char *path, char *why, size_t why_size);
/* KK_PLUGIN_PATH_NO_DEFAULT: leave the installed plugin and tool directories out. */
bool kk__installed_dirs_skipped(void);
/* The directories a tool library named without a '/' is looked up in, in
 * order (the build tree's, the installed one); returns how many (<= 2). */
int kk__tool_dirs(const char *dirs[2]);
/* Finds the tool library `name` (no '/': "kk-kernel-timer.so", or without
 * ".so") in those directories; writes its path into `path` and returns true,
 * or false when it is in none (the name then goes to the system loader). */
bool kk__tool_find(const char *name, char *path, size_t size);

#endif /* KK_CORE_PATHS_H */
