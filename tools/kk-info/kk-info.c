/* tools/kk-info/kk-info.c -- prints what kk finds on this machine: versions, plugins, backends, devices, spaces (and MPI). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_DLFCN_H
#include <dlfcn.h>
#endif

#include <kk.h>

static void usage(FILE *out) {
  fprintf(out,
          "usage: kk-info [--json] [--mpi] [--kokkos-*...]\n"
          "Initializes kk like any program (so every --kokkos-* flag applies) and prints\n"
          "versions, the plugin search path, every plugin with its state, and each\n"
          "backend's devices and memory spaces; where libkk-mpi is installed, also how\n"
          "views travel over MPI.\n"
          "  --json     print one JSON document instead of text\n"
          "  --mpi      run as an MPI program (under mpirun): every rank's device and MPI\n"
          "             paths, printed by rank 0 (needs libkk-mpi)\n"
          "  --help     this text (--kokkos-help lists kk's own flags)\n");
}

/* libkk never depends on libkk-mpi: kk-info opens it when it is there
 * ($KK_MPI_LIBRARY, else the loader's search, else $(libdir)).  Global
 * symbols: MPI libraries load their own components, which need MPI's. */
static void *open_kk_mpi(char *why, size_t size) {
  snprintf(why, size, "this kk-info was built without dlopen");
#ifdef HAVE_DLFCN_H
  const char *env = getenv("KK_MPI_LIBRARY");
  if (env && *env) {
    void *h = dlopen(env, RTLD_NOW | RTLD_GLOBAL);
    if (!h)
      snprintf(why, size, "KK_MPI_LIBRARY=%s: %s", env, dlerror());
    return h;
  }
  void *h = dlopen("libkk-mpi.so.0", RTLD_NOW | RTLD_GLOBAL);
  if (!h)
    h = dlopen(KK_LIBDIR "/libkk-mpi.so.0", RTLD_NOW | RTLD_GLOBAL);
  if (!h)
    snprintf(why, size, "%s", dlerror());
  return h;
#else
  return NULL;
#endif
}

static void *sym(void *h, const char *name) {
#ifdef HAVE_DLFCN_H
  return h ? dlsym(h, name) : NULL;
#else
  (void)h, (void)name;
  return NULL;
#endif
}

typedef kk_status_t (*mpi_print_fn)(const void *comm, FILE *out);
typedef kk_status_t (*mpi_ranks_fn)(FILE *out, int json);

/* kk's JSON document with libkk-mpi's object as its "mpi" member. */
static kk_status_t print_json(mpi_print_fn mpi_json) {
  if (!mpi_json)
    return kk_print_configuration_json(stdout);
  char *doc = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&doc, &len);
  if (!m)
    return kk_print_configuration_json(stdout);
  kk_status_t st = kk_print_configuration_json(m);
  fclose(m);
  if (st == KK_OK) {
    /* the document is one object: reopen it before its closing brace */
    size_t end = len;
    while (end > 0 && doc[end - 1] != '}')
      end--;
    if (end == 0) {
      fputs(doc, stdout);
    } else {
      fwrite(doc, 1, end - 1, stdout);
      fputs(", \"mpi\": ", stdout);
      st = mpi_json(NULL, stdout);
      fputs("}\n", stdout);
    }
  }
  free(doc);
  return st;
}

int main(int argc, char **argv) {
  kk_status_t st = kk_initialize(&argc, &argv);
  if (st == KK_EXIT_REQUESTED)
    return 0;
  if (st != KK_OK) {
    fprintf(stderr, "kk-info: initialization failed: %s\n", kk_last_error());
    return 1;
  }
  int json = 0, mpi = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--mpi") == 0) {
      mpi = 1;
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
  char why[1024];
  void *lib = open_kk_mpi(why, sizeof why);
  if (mpi) {
    mpi_ranks_fn ranks = (mpi_ranks_fn)sym(lib, "kk_mpi_print_ranks");
    if (!ranks) {
      fprintf(stderr, "kk-info: --mpi needs libkk-mpi, which could not be opened: %s\n", why);
      kk_finalize();
      return 1;
    }
    st = ranks(stdout, json);
  } else if (json) {
    st = print_json((mpi_print_fn)sym(lib, "kk_mpi_print_configuration_json"));
  } else {
    st = kk_print_configuration(stdout);
    mpi_print_fn text = (mpi_print_fn)sym(lib, "kk_mpi_print_configuration");
    if (st == KK_OK && text)
      st = text(NULL, stdout);
  }
  if (st != KK_OK)
    fprintf(stderr, "kk-info: %s\n", kk_last_error());
  /* libkk-mpi stays loaded: MPI libraries do not survive being unloaded */
  kk_status_t fst = kk_finalize();
  if (fst != KK_OK) {
    fprintf(stderr, "kk-info: finalize failed: %s\n", kk_last_error());
    return 1;
  }
  return st == KK_OK ? 0 : 1;
}
