/* plugins/threads/threads_error.h -- the one place where the threads backend turns errno, pthread and hwloc failures into kk statuses and messages. */
#ifndef KK_PLUGINS_THREADS_ERROR_H
#define KK_PLUGINS_THREADS_ERROR_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <kk/plugin.h>

/* pthread functions return an error number, hwloc functions return -1 and set
 * errno, the rest set errno: all are errno values, reported with their
 * symbolic name as the native code ("(EAGAIN = 11)"). */
static inline const char *threads_errno_name(int e) {
  switch (e) {
#define THREADS_ERRNO(x) case x: return #x;
    THREADS_ERRNO(EAGAIN)
    THREADS_ERRNO(ENOMEM)
    THREADS_ERRNO(EINVAL)
    THREADS_ERRNO(EPERM)
    THREADS_ERRNO(EACCES)
    THREADS_ERRNO(ESRCH)
    THREADS_ERRNO(EDEADLK)
    THREADS_ERRNO(EBUSY)
    THREADS_ERRNO(EFAULT)
    THREADS_ERRNO(ENOSYS)
    THREADS_ERRNO(EXDEV)
    THREADS_ERRNO(ENOENT)
#undef THREADS_ERRNO
  default:
    return "errno";
  }
}

static inline kk_status_t threads_status_of_errno(int e) {
  switch (e) {
  case ENOMEM:
    return KK_ERROR_OUT_OF_MEMORY;
  case EAGAIN: /* pthread_create: a limit on threads or processes was reached */
    return KK_ERROR_LIMIT;
  case EINVAL:
    return KK_ERROR_INVALID_ARGUMENT;
  case ENOSYS:
  case EXDEV: /* hwloc: this binding is not possible on this system */
    return KK_ERROR_UNSUPPORTED;
  default:
    return KK_ERROR_BACKEND;
  }
}

static inline const char *threads_strerror(int e, char *buf, size_t size) {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(e, buf, size);
#else
  if (strerror_r(e, buf, size) != 0)
    snprintf(buf, size, "error %d", e);
  return buf;
#endif
}

#if defined(__GNUC__)
#define THREADS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define THREADS_PRINTF(a, b)
#endif

/* Records "<what>: <strerror> (<ENAME> = <e>)" as the error and returns the
 * matching status. */
static inline THREADS_PRINTF(3, 4) kk_status_t threads_fail(const kk_host_services_t *hs, int e, const char *fmt,
                                                             ...) {
  char what[512], sbuf[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return hs->error(hs->core, threads_status_of_errno(e), threads_errno_name(e), e, "%s: %s", what,
                   threads_strerror(e, sbuf, sizeof sbuf));
}

/* Logs the same as a warning, for failures the backend works around. */
static inline THREADS_PRINTF(3, 4) void threads_warn(const kk_host_services_t *hs, int e, const char *fmt, ...) {
  char what[512], sbuf[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  hs->log(hs->core, KK_LOG_WARNING, "%s: %s (%s = %d)", what, threads_strerror(e, sbuf, sizeof sbuf),
          threads_errno_name(e), e);
}

#endif
