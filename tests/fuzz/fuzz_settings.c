/* tests/fuzz/fuzz_settings.c -- libFuzzer harness: command-line flags, environment variables and kk_settings_t, resolved as kk_initialize does. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

/* The variables kk reads (docs/config.md), KOKKOS_CONFIG excepted: the JSON
 * file has a harness of its own, and here it would read arbitrary files. */
static const char *const g_vars[] = {"KOKKOS_DEVICE",           "KOKKOS_PLUGIN_PATH",      "KOKKOS_NUM_THREADS",
                                     "KOKKOS_DEVICE_ID",        "KOKKOS_MAP_DEVICE_ID_BY", "KOKKOS_VISIBLE_DEVICES",
                                     "KOKKOS_TOOLS_LIBS",       "KOKKOS_TOOLS_ARGS",       "KOKKOS_PRINT_CONFIGURATION",
                                     "KOKKOS_DISABLE_WARNINGS", "KOKKOS_TUNE_INTERNALS",   "KOKKOS_PROFILE_LIBRARY",
                                     "KOKKOS_PLUGIN_PROBE",     "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"};
#define NVARS (sizeof g_vars / sizeof *g_vars)
#define MAXARGS 32

/* The input is lines: "=<k><value>" sets variable k (a byte, modulo the
 * list), "@<k><value>" sets a kk_settings_t string or number field, any
 * other line is one argv entry.  A --kokkos-config flag is dropped. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  for (size_t i = 0; i < NVARS; i++)
    unsetenv(g_vars[i]);
  unsetenv("KOKKOS_CONFIG");
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char *argv[MAXARGS + 2] = {"fuzz"};
  int argc = 1;
  kk_settings_t s = KK_SETTINGS_INIT;
  for (char *line = text, *next; line; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    if (line[0] == '=' && line[1]) {
      setenv(g_vars[(unsigned char)line[1] % NVARS], line + 2, 1);
    } else if (line[0] == '@' && line[1]) {
      switch ((unsigned char)line[1] % 8) {
      case 0: s.device = line + 2; break;
      case 1: s.num_threads = atoi(line + 2); break;
      case 2: s.device_id = atoi(line + 2); break;
      case 3: s.tools_libs = line + 2; break;
      case 4: s.map_device_id_by = line + 2; break;
      case 5: s.visible_devices = line + 2; break;
      case 6: s.plugin_path = line + 2; break;
      default: s.tools_args = line + 2; break;
      }
    } else if (argc < MAXARGS && strncmp(line, "--kokkos-config", 15) != 0) {
      argv[argc++] = line;
    }
  }
  argv[argc] = NULL;
  kk__config_t cfg;
  if (kk__config_resolve(argc, argv, &s, &cfg) == KK_OK) {
    char **av = argv;
    kk__config_apply_argv(&cfg, &argc, &av);
    kk__config_free(&cfg);
  }
  free(text);
  return 0;
}
