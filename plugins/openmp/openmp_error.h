/* plugins/openmp/openmp_error.h -- the one place where the openmp backend turns failures into kk statuses and messages. */
#ifndef KK_PLUGINS_OPENMP_ERROR_H
#define KK_PLUGINS_OPENMP_ERROR_H

#include "host_error.h"

/* The OpenMP API reports no errors of its own (a region that gets fewer
 * threads than asked is handled in openmp_parallel.c); what can fail are
 * allocations and pthread calls, as errno values. */
static inline kk_status_t openmp_status_of_errno(int e) {
  switch (e) {
  case ENOMEM:
    return KK_ERROR_OUT_OF_MEMORY;
  case EAGAIN:
    return KK_ERROR_LIMIT;
  case EINVAL:
    return KK_ERROR_INVALID_ARGUMENT;
  default:
    return KK_ERROR_BACKEND;
  }
}

/* Records "<what>: <strerror> (<ENAME> = <e>)" and returns the matching status. */
static inline KKH_PRINTF(3, 4) kk_status_t openmp_fail(const kk_host_services_t *hs, int e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kk_status_t st = kkh_vfail(hs, openmp_status_of_errno(e), e, fmt, ap);
  va_end(ap);
  return st;
}

#endif
