/* core/package.c -- which package provides a backend, so that a missing backend's message can say what to install. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "package.h"

const char *kk__backend_package_pattern = KK_BACKEND_PACKAGE;
const char *kk__packaged_backends = KK_PACKAGED_BACKENDS;

bool kk__packaged_backend(int i, char *buf, size_t size) {
  const char *p = kk__packaged_backends;
  if (!p || i < 0)
    return false;
  for (; *p; i--) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (i == 0) {
      if (len == 0 || len >= size)
        return false;
      memcpy(buf, p, len);
      buf[len] = '\0';
      return true;
    }
    if (!end)
      break;
    p = end + 1;
  }
  return false;
}

bool kk__backend_package(const char *backend, char *buf, size_t size) {
  const char *pat = kk__backend_package_pattern;
  const char *hole = pat ? strstr(pat, "%s") : NULL;
  if (!hole || !backend || !*backend)
    return false;
  char name[64];
  for (int i = 0; kk__packaged_backend(i, name, sizeof name); i++) {
    if (strcmp(name, backend) != 0)
      continue;
    /* the pattern is the packager's text, not a format: only its %s is replaced */
    size_t head = (size_t)(hole - pat);
    if (head + strlen(backend) + strlen(hole + 2) >= size)
      return false;
    snprintf(buf, size, "%.*s%s%s", (int)head, pat, backend, hole + 2);
    return true;
  }
  return false;
}
