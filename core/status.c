/* core/status.c -- status names and messages, the thread-local last error, warnings and small string helpers. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define KK__ERRBUF 2048

static _Thread_local char tl_message[KK__ERRBUF];
static _Thread_local kk_status_t tl_status = KK_OK;
static kk_error_handler_t g_handler;
static void *g_handler_user;

bool kk__warnings_disabled;
bool kk__debug_enabled;

const char *kk_status_str(kk_status_t status) {
  switch (status) {
#define KK__STATUS_MSG(name, value, msg) \
  case KK_##name:                        \
    return msg;
    KK_STATUS_MAP(KK__STATUS_MSG)
#undef KK__STATUS_MSG
  default:
    return "unknown status";
  }
}

const char *kk_status_name(kk_status_t status) {
  switch (status) {
#define KK__STATUS_NAME(name, value, msg) \
  case KK_##name:                         \
    return #name;
    KK_STATUS_MAP(KK__STATUS_NAME)
#undef KK__STATUS_NAME
  default:
    return "UNKNOWN";
  }
}

const char *kk_last_error(void) { return tl_message; }

kk_status_t kk_last_status(void) { return tl_status; }

void kk_clear_error(void) {
  tl_message[0] = '\0';
  tl_status = KK_OK;
}

kk_status_t kk_set_error(kk_status_t status, const char *fmt, ...) {
  if (status == KK_OK) {
    kk_clear_error();
    return KK_OK;
  }
  if (!fmt)
    return kk__error(status, "%s", kk_status_str(status));
  va_list ap;
  va_start(ap, fmt);
  kk__verror(status, fmt, ap);
  va_end(ap);
  return status;
}

kk_error_handler_t kk_set_error_handler(kk_error_handler_t handler, void *user) {
  kk_error_handler_t old = g_handler;
  g_handler = handler;
  g_handler_user = user;
  return old;
}

static void vformat(char *buf, size_t size, const char *fmt, va_list ap) {
  int n = vsnprintf(buf, size, fmt, ap);
  if (n >= 0 && (size_t)n >= size && size > 4)
    memcpy(buf + size - 4, "...", 4);
}

void kk__snprintf(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vformat(buf, size, fmt, ap);
  va_end(ap);
}

kk_status_t kk__verror(kk_status_t status, const char *fmt, va_list ap) {
  /* Messages may be built from kk_last_error() itself: format into a copy. */
  char tmp[KK__ERRBUF];
  vformat(tmp, sizeof tmp, fmt, ap);
  memcpy(tl_message, tmp, sizeof tmp);
  tl_status = status;
  if (g_handler)
    g_handler(status, tl_message, g_handler_user);
  return status;
}

kk_status_t kk__error(kk_status_t status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kk__verror(status, fmt, ap);
  va_end(ap);
  return status;
}

void kk__warn(const char *fmt, ...) {
  if (kk__warnings_disabled)
    return;
  char buf[KK__ERRBUF];
  va_list ap;
  va_start(ap, fmt);
  vformat(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "kk: warning: %s\n", buf);
}

void kk__debug(const char *fmt, ...) {
  if (!kk__debug_enabled)
    return;
  char buf[KK__ERRBUF];
  va_list ap;
  va_start(ap, fmt);
  vformat(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "kk: %s\n", buf);
}

void kk__str_addf(kk__str_t *str, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if (str->len + (size_t)n + 1 > str->cap) {
    size_t cap = str->cap ? str->cap : 256;
    while (cap < str->len + (size_t)n + 1)
      cap *= 2;
    char *s = realloc(str->s, cap);
    if (!s)
      return; /* a report loses its tail rather than the program its memory */
    str->s = s;
    str->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(str->s + str->len, str->cap - str->len, fmt, ap);
  va_end(ap);
  str->len += (size_t)n;
}

void kk__str_free(kk__str_t *str) {
  free(str->s);
  str->s = NULL;
  str->len = str->cap = 0;
}

char *kk__strdup(const char *s) {
  if (!s)
    return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}
