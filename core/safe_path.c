/* core/safe_path.c -- the ownership and permission walk of docs/security.md: from / down to a path, through its symbolic links. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "safe_path.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_DLFCN_H
#include <dlfcn.h>
#endif

#define MAX_LINKS 40 /* as the kernel's ELOOP limit */

static kks_verdict_t say(kks_verdict_t v, char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static kks_verdict_t say(kks_verdict_t v, char *why, size_t size, const char *fmt, ...) {
  if (why && size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
  }
  return v;
}

static bool trusted_uid(uid_t uid, uid_t euid, uid_t owner) {
  return uid == 0 || uid == euid || (owner != (uid_t)-1 && uid == owner);
}

/* Moves the first component of `rest` (after any '/') into comp; false when
 * rest holds no more. */
static bool next_component(const char **rest, char *comp, size_t size) {
  const char *p = *rest;
  while (*p == '/')
    p++;
  if (!*p)
    return false;
  size_t n = strcspn(p, "/");
  if (n >= size)
    n = size - 1; /* NAME_MAX is far below; the lstat that follows fails */
  memcpy(comp, p, n);
  comp[n] = '\0';
  *rest = p + strcspn(p, "/");
  return true;
}

static bool only_slashes(const char *s) {
  while (*s == '/')
    s++;
  return !*s;
}

kks_verdict_t kks_check_as(const char *path, uid_t euid, uid_t owner, char *why, size_t why_size) {
  if (!path || !*path)
    return say(KKS_MISSING, why, why_size, "an empty path");
  /* todo: what is left to walk; done: the directories walked so far, without
   * symbolic links ("" is the root) */
  char todo[2 * PATH_MAX], done[PATH_MAX] = "", comp[NAME_MAX + 2], cur[PATH_MAX + NAME_MAX + 2];
  if (path[0] == '/') {
    if (snprintf(todo, sizeof todo, "%s", path) >= (int)sizeof todo)
      return say(KKS_MISSING, why, why_size, "%.64s...: path too long", path);
  } else {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
      return say(KKS_MISSING, why, why_size, "%s: the working directory is unknown: %s", path, strerror(errno));
    if (snprintf(todo, sizeof todo, "%s/%s", cwd, path) >= (int)sizeof todo)
      return say(KKS_MISSING, why, why_size, "%.64s...: path too long", path);
  }
  struct stat sb;
  if (lstat("/", &sb) != 0)
    return say(KKS_MISSING, why, why_size, "/: %s", strerror(errno));
  if (!trusted_uid(sb.st_uid, euid, owner))
    return say(KKS_REFUSED, why, why_size, "/ is owned by user %lu", (unsigned long)sb.st_uid);
  if ((sb.st_mode & S_IWOTH) && (!(sb.st_mode & S_ISVTX) || only_slashes(todo)))
    return say(KKS_REFUSED, why, why_size, "/ is writable by others (mode %04o)", (unsigned)(sb.st_mode & 07777));
  int links = 0;
  const char *rest = todo;
  while (next_component(&rest, comp, sizeof comp)) {
    if (strcmp(comp, ".") == 0)
      continue;
    if (strcmp(comp, "..") == 0) { /* the parent of a walked directory was walked before it */
      char *slash = strrchr(done, '/');
      if (slash)
        *slash = '\0';
      continue;
    }
    snprintf(cur, sizeof cur, "%s/%s", done, comp);
    if (strlen(cur) >= sizeof done)
      return say(KKS_MISSING, why, why_size, "%.64s...: path too long", cur);
    if (lstat(cur, &sb) != 0)
      return say(KKS_MISSING, why, why_size, "%s: %s", cur, strerror(errno));
    if (S_ISLNK(sb.st_mode)) {
      /* the link itself: whoever owns it can point it elsewhere */
      if (!trusted_uid(sb.st_uid, euid, owner))
        return say(KKS_REFUSED, why, why_size, "the symbolic link %s is owned by user %lu", cur,
                   (unsigned long)sb.st_uid);
      if (++links > MAX_LINKS)
        return say(KKS_MISSING, why, why_size, "%s: %s", cur, strerror(ELOOP));
      char target[PATH_MAX];
      ssize_t n = readlink(cur, target, sizeof target - 1);
      if (n < 0)
        return say(KKS_MISSING, why, why_size, "%s: %s", cur, strerror(errno));
      target[n] = '\0';
      /* the target, then what was left; an absolute target restarts at the root */
      char next[2 * PATH_MAX];
      if (snprintf(next, sizeof next, "%s/%s", target, rest) >= (int)sizeof next)
        return say(KKS_MISSING, why, why_size, "%s: path too long", cur);
      memcpy(todo, next, strlen(next) + 1);
      rest = todo;
      if (target[0] == '/')
        done[0] = '\0';
      continue;
    }
    bool last = only_slashes(rest);
    if (!trusted_uid(sb.st_uid, euid, owner))
      return say(KKS_REFUSED, why, why_size, "%s is owned by user %lu, not by you, root or the owner of kk's files",
                 cur, (unsigned long)sb.st_uid);
    if ((sb.st_mode & S_IWOTH) && (last || !S_ISDIR(sb.st_mode) || !(sb.st_mode & S_ISVTX)))
      return say(KKS_REFUSED, why, why_size, "%s is writable by others (mode %04o)", cur,
                 (unsigned)(sb.st_mode & 07777));
    if (!last && !S_ISDIR(sb.st_mode))
      return say(KKS_MISSING, why, why_size, "%s: %s", cur, strerror(ENOTDIR));
    memcpy(done, cur, strlen(cur) + 1);
  }
  return KKS_TRUSTED;
}

kks_verdict_t kks_check(const char *path, uid_t owner, char *why, size_t why_size) {
  return kks_check_as(path, geteuid(), owner, why, why_size);
}

/* an object of this copy of the code, for dladdr */
static const char g_anchor;

uid_t kks_code_owner(void) {
#ifdef HAVE_DLFCN_H
  Dl_info info;
  struct stat sb;
  if (dladdr(&g_anchor, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
      stat(info.dli_fname, &sb) == 0)
    return sb.st_uid;
#endif
  return (uid_t)-1;
}
