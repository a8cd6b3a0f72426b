/* hostexec/host_error.h -- errno values in host backends' messages: symbolic names, strerror text, and the report helpers each <name>_error.h builds on. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_HOST_ERROR_H
#define KK_PLUGINS_HOST_ERROR_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <kk/plugin.h>

#if defined(__GNUC__)
#define KKH_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KKH_PRINTF(a, b)
#endif

/* The symbolic name of an errno value, the native name in messages such as
 * "(EAGAIN = 11)"; "errno" for values without an entry. */
static inline const char *kkh_errno_name(int e) {
  switch (e) {
#define KKH_ERRNO(x) case x: return #x;
    KKH_ERRNO(EAGAIN)
    KKH_ERRNO(ENOMEM)
    KKH_ERRNO(EINVAL)
    KKH_ERRNO(EPERM)
    KKH_ERRNO(EACCES)
    KKH_ERRNO(ESRCH)
    KKH_ERRNO(EDEADLK)
    KKH_ERRNO(EBUSY)
    KKH_ERRNO(EFAULT)
    KKH_ERRNO(ENOSYS)
    KKH_ERRNO(EXDEV)
    KKH_ERRNO(ENOENT)
#undef KKH_ERRNO
  default:
    return "errno";
  }
}

/* strerror, thread-safe, whichever strerror_r the C library has. */
static inline const char *kkh_strerror(int e, char *buf, size_t size) {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(e, buf, size);
#else
  if (strerror_r(e, buf, size) != 0)
    snprintf(buf, size, "error %d", e);
  return buf;
#endif
}

/* An errno value as a kk status.  pthread functions return an errno value,
 * hwloc functions return -1 and set errno, the C library sets errno: all
 * arrive here as errno values. */
static inline kk_status_t kkh_status_of_errno(int e) {
  switch (e) {
  case ENOMEM:
    return KK_ERROR_OUT_OF_MEMORY;
  case EAGAIN: /* pthread_create: a limit on threads or processes was reached */
    return KK_ERROR_LIMIT;
  case EINVAL:
    return KK_ERROR_INVALID_ARGUMENT;
  case ENOSYS: /* hwloc: binding is not supported on this system */
  case EXDEV:  /* hwloc: this binding is not possible here */
    return KK_ERROR_UNSUPPORTED;
  default:
    return KK_ERROR_BACKEND;
  }
}

/* Records "<what>: <strerror> (<ENAME> = <e>)" through hs->error() and
 * returns the matching status. */
static inline KKH_PRINTF(3, 4) kk_status_t kkh_fail(const kk_host_services_t *hs, int e, const char *fmt, ...) {
  char what[512], sbuf[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return hs->error(hs->core, kkh_status_of_errno(e), kkh_errno_name(e), e, "%s: %s", what,
                   kkh_strerror(e, sbuf, sizeof sbuf));
}

/* Logs the same as a warning, for failures a backend works around. */
static inline KKH_PRINTF(3, 4) void kkh_warn(const kk_host_services_t *hs, int e, const char *fmt, ...) {
  char what[512], sbuf[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  hs->log(hs->core, KK_LOG_WARNING, "%s: %s (%s = %d)", what, kkh_strerror(e, sbuf, sizeof sbuf), kkh_errno_name(e),
          e);
}

#endif
