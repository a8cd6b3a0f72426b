/* plugins/common/host_error.h -- errno values in host backends' messages: symbolic names, strerror text, and the report helpers each <name>_error.h builds on. */
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

/* Records "<what>: <strerror> (<ENAME> = <e>)" through hs->error() and
 * returns `status`. */
static inline KKH_PRINTF(4, 0) kk_status_t kkh_vfail(const kk_host_services_t *hs, kk_status_t status, int e,
                                                      const char *fmt, va_list ap) {
  char what[512], sbuf[128];
  vsnprintf(what, sizeof what, fmt, ap);
  return hs->error(hs->core, status, kkh_errno_name(e), e, "%s: %s", what, kkh_strerror(e, sbuf, sizeof sbuf));
}

/* Logs the same as a warning, for failures a backend works around. */
static inline KKH_PRINTF(3, 0) void kkh_vwarn(const kk_host_services_t *hs, int e, const char *fmt, va_list ap) {
  char what[512], sbuf[128];
  vsnprintf(what, sizeof what, fmt, ap);
  hs->log(hs->core, KK_LOG_WARNING, "%s: %s (%s = %d)", what, kkh_strerror(e, sbuf, sizeof sbuf), kkh_errno_name(e),
          e);
}

#endif
