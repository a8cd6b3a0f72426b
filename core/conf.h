/* core/conf.h -- kk's configuration: flags, settings, environment, JSON files (core/conf.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_CONF_H
#define KK_CORE_CONF_H

#include "internal.h"

/* The name of a configuration value's origin ("default", "flag", ...). */
const char *kk__origin_name(kk__origin_t origin);

/* Resolves the configuration from argv, settings, environment and JSON file.
 * Never modifies argv: on success call kk__config_apply_argv().  On error
 * returns KK_ERROR_CONFIG with kk_last_error() set; `cfg` is then freed. */
kk_status_t kk__config_resolve(int argc, char **argv, const kk_settings_t *settings, kk__config_t *cfg);

/* Removes the consumed flags from argv. */
void kk__config_apply_argv(const kk__config_t *cfg, int *argc, char ***argv);

void kk__config_free(kk__config_t *cfg);

/* Prints the flag/variable table (--kokkos-help). */
void kk__config_print_help(FILE *out);

#endif /* KK_CORE_CONF_H */
