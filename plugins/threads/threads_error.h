/* plugins/threads/threads_error.h -- the one place where the threads backend turns errno, pthread and hwloc failures into kk statuses and messages. */
#ifndef KK_PLUGINS_THREADS_ERROR_H
#define KK_PLUGINS_THREADS_ERROR_H

#include "host_error.h"

/* pthread functions return an errno value, hwloc functions return -1 and set
 * errno, the C library sets errno: all arrive here as errno values. */
static inline kk_status_t threads_status_of_errno(int e) {
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

/* Records "<what>: <strerror> (<ENAME> = <e>)" as the error and returns the
 * matching status. */
static inline KKH_PRINTF(3, 4) kk_status_t threads_fail(const kk_host_services_t *hs, int e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kk_status_t st = kkh_vfail(hs, threads_status_of_errno(e), e, fmt, ap);
  va_end(ap);
  return st;
}

/* The same as a warning, for failures the backend works around (binding). */
static inline KKH_PRINTF(3, 4) void threads_warn(const kk_host_services_t *hs, int e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kkh_vwarn(hs, e, fmt, ap);
  va_end(ap);
}

#endif
