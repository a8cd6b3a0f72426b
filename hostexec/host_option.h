/* hostexec/host_option.h -- reading a host backend's JSON options ("backends": {"<name>": {...}}) with errors that name the key. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_HOST_OPTION_H
#define KK_PLUGINS_HOST_OPTION_H

#include <stdbool.h>

#include <kk/plugin.h>

/* Each reader stores the default when the option is not given and returns
 * KK_OK; a malformed value is KK_ERROR_CONFIG through hs->error(), the message
 * naming backends.<backend>.<key> and the value. */

/* A decimal integer in [min, max]. */
kk_status_t kkh_option_long(const kk_host_services_t *hs, const char *backend, const char *key, long def, long min,
                            long max, long *out);

/* A number (integer or decimal fraction) in [min, max]. */
kk_status_t kkh_option_double(const kk_host_services_t *hs, const char *backend, const char *key, double def,
                              double min, double max, double *out);

/* "true" or "false" (what the core makes of JSON booleans). */
kk_status_t kkh_option_bool(const kk_host_services_t *hs, const char *backend, const char *key, bool def, bool *out);

/* The global num_threads (--kokkos-num-threads and friends), or 0 when the
 * backend should choose. */
int kkh_config_num_threads(const kk_host_services_t *hs);

#endif
