/* core/status.h -- errors, messages and strings (core/status.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_STATUS_H
#define KK_CORE_STATUS_H

#include "internal.h"

/* Records an error for kk_last_error() and calls the user's handler.  Returns
 * `status` so callers can `return kk__error(...)`. */
kk_status_t kk__error(kk_status_t status, const char *fmt, ...) KK__PRINTF(2, 3);
kk_status_t kk__verror(kk_status_t status, const char *fmt, va_list ap);

/* Prints "kk: warning: ..." on stderr unless warnings are disabled. */
void kk__warn(const char *fmt, ...) KK__PRINTF(1, 2);
/* Prints "kk: ..." on stderr when KK_DEBUG is set. */
void kk__debug(const char *fmt, ...) KK__PRINTF(1, 2);
extern bool kk__warnings_disabled;
extern bool kk__debug_enabled;

/* printf into a fixed buffer, always terminated.  A message that does not
 * fit keeps its explanation: its string values are cut to their first and
 * last bytes ("head...[N bytes]...tail"), quoted ones ('%s', and those
 * quoted inside a message passed on as a %s argument) first, before
 * anything is cut at the end. */
void kk__snprintf(char *buf, size_t size, const char *fmt, ...) KK__PRINTF(3, 4);
void kk__vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/* A growable string (for messages and reports, never on the dispatch path). */
typedef struct kk__str {
  char *s;
  size_t len, cap;
} kk__str_t;
void kk__str_addf(kk__str_t *str, const char *fmt, ...) KK__PRINTF(2, 3);
void kk__str_free(kk__str_t *str);
char *kk__strdup(const char *s);

/* Parses a boolean as the flags accept it; returns false when malformed. */
bool kk__parse_bool(const char *s, bool *out);

#endif /* KK_CORE_STATUS_H */
