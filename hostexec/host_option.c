/* hostexec/host_option.c -- typed, range-checked access to a backend's JSON options. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "host_option.h"

kk_status_t kkh_option_long(const kk_host_services_t *hs, const char *backend, const char *key, long def, long min,
                            long max, long *out) {
  const char *s = hs->option ? hs->option(hs->core, key) : NULL;
  *out = def;
  if (!s)
    return KK_OK;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE || v < min || v > max)
    return hs->error(hs->core, KK_ERROR_CONFIG, NULL, 0,
                     "option 'backends.%s.%s': expected an integer in [%ld, %ld], got '%s'", backend, key, min, max,
                     s);
  *out = v;
  return KK_OK;
}

kk_status_t kkh_option_double(const kk_host_services_t *hs, const char *backend, const char *key, double def,
                              double min, double max, double *out) {
  const char *s = hs->option ? hs->option(hs->core, key) : NULL;
  *out = def;
  if (!s)
    return KK_OK;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v) || v < min || v > max)
    return hs->error(hs->core, KK_ERROR_CONFIG, NULL, 0, "option 'backends.%s.%s': expected a number in [%.15g, %.15g], got '%s'",
                     backend, key, min, max, s);
  *out = v;
  return KK_OK;
}

kk_status_t kkh_option_bool(const kk_host_services_t *hs, const char *backend, const char *key, bool def, bool *out) {
  const char *s = hs->option ? hs->option(hs->core, key) : NULL;
  *out = def;
  if (!s)
    return KK_OK;
  if (strcmp(s, "true") == 0)
    *out = true;
  else if (strcmp(s, "false") == 0)
    *out = false;
  else
    return hs->error(hs->core, KK_ERROR_CONFIG, NULL, 0, "option 'backends.%s.%s': expected true or false, got '%s'",
                     backend, key, s);
  return KK_OK;
}

int kkh_config_num_threads(const kk_host_services_t *hs) {
  const kk_plugin_config_t *c = hs->config;
  if (!c || c->struct_size < offsetof(kk_plugin_config_t, num_threads) + sizeof c->num_threads)
    return 0;
  return c->num_threads > 0 ? c->num_threads : 0;
}
