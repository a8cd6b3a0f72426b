/* tools/kk-info/kk-info.c -- prints what kk finds on this machine: versions, plugins, backends, devices, spaces. */
#include <stdio.h>
#include <string.h>

#include <kk.h>

static void usage(FILE *out) {
  fprintf(out,
          "usage: kk-info [--json] [--kokkos-*...]\n"
          "Initializes kk like any program (so every --kokkos-* flag applies) and prints\n"
          "versions, the plugin search path, every plugin with its state, and each\n"
          "backend's devices and memory spaces.\n"
          "  --json     print one JSON document instead of text\n"
          "  --help     this text (--kokkos-help lists kk's own flags)\n");
}

int main(int argc, char **argv) {
  kk_status_t st = kk_initialize(&argc, &argv);
  if (st == KK_EXIT_REQUESTED)
    return 0;
  if (st != KK_OK) {
    fprintf(stderr, "kk-info: initialization failed: %s\n", kk_last_error());
    return 1;
  }
  int json = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      kk_finalize();
      return 0;
    } else {
      fprintf(stderr, "kk-info: unknown argument '%s'\n", argv[i]);
      usage(stderr);
      kk_finalize();
      return 2;
    }
  }
  st = json ? kk_print_configuration_json(stdout) : kk_print_configuration(stdout);
  if (st != KK_OK)
    fprintf(stderr, "kk-info: %s\n", kk_last_error());
  kk_status_t fst = kk_finalize();
  if (fst != KK_OK) {
    fprintf(stderr, "kk-info: finalize failed: %s\n", kk_last_error());
    return 1;
  }
  return st == KK_OK ? 0 : 1;
}
