/* tools/kk-info/kk-info.c -- prints what kk finds on this machine: versions, plugins, backends, devices, spaces, MPI, libraries on kk. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk.h>

/* Libraries built on kk that kk-info reports where they are installed.
 * libkk never depends on them, so kk-info opens each at run time and calls
 * its report function, kk_status_t fn(FILE *out, int json): text, or one
 * JSON object.  Looked for in $KK_INFO_LIBDIR (a build tree's .libs), then
 * in the libdir kk was configured with, then where the dynamic loader looks.
 * A library on kk adds one line here. */
typedef kk_status_t (*report_fn)(FILE *out, int json);
static const struct addon {
  const char *name, *file, *symbol;
} k_addons[] = {
    {"kk-kernels", "libkk-kernels.so.0", "kk_kernels_print_report"},
    {"kk-containers", "libkk-containers.so.0", "kk_containers_print_report"},
};
#define NADDONS (sizeof k_addons / sizeof *k_addons)

typedef struct found {
  void *handle;
  report_fn report;
  char path[1024];
  char why[1024];
} found_t;

static void find_addon(const struct addon *a, found_t *f) {
  memset(f, 0, sizeof *f);
  const char *dirs[] = {getenv("KK_INFO_LIBDIR"), KK_LIBDIR, NULL};
  for (int i = 0; i < 3 && !f->handle; i++) {
    if (i < 2 && (!dirs[i] || !*dirs[i]))
      continue;
    if (i < 2)
      snprintf(f->path, sizeof f->path, "%s/%s", dirs[i], a->file);
    else
      snprintf(f->path, sizeof f->path, "%s", a->file);
    f->handle = dlopen(f->path, RTLD_NOW | RTLD_LOCAL);
    if (!f->handle) {
      const char *e = dlerror();
      snprintf(f->why, sizeof f->why, "%s", e ? e : "cannot be opened");
    }
  }
  if (!f->handle)
    return;
  *(void **)&f->report = dlsym(f->handle, a->symbol);
  if (!f->report) {
    snprintf(f->why, sizeof f->why, "%.900s has no %s", f->path, a->symbol);
    dlclose(f->handle);
    f->handle = NULL;
  }
}

static void json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(out, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(out, "\\u%04x", (unsigned char)*s);
    else
      fputc(*s, out);
  }
  fputc('"', out);
}

/* The libraries' part of the report: text after kk's, or the members of a
 * "libraries" object. */
static void print_addons(FILE *out, int json) {
  if (json)
    fprintf(out, "\"libraries\": {");
  else
    fprintf(out, "libraries built on kk:\n");
  for (size_t i = 0; i < NADDONS; i++) {
    found_t f;
    find_addon(&k_addons[i], &f);
    if (json) {
      fprintf(out, "%s\"%s\": {\"found\": %s, ", i ? ", " : "", k_addons[i].name, f.handle ? "true" : "false");
      if (f.handle) {
        fprintf(out, "\"path\": ");
        json_string(out, f.path);
        fprintf(out, ", \"report\": ");
        if (f.report(out, 1) != KK_OK)
          fprintf(out, "null");
      } else {
        fprintf(out, "\"reason\": ");
        json_string(out, f.why);
      }
      fprintf(out, "}");
    } else if (f.handle) {
      fprintf(out, "  %-12s %s\n", k_addons[i].name, f.path);
      if (f.report(out, 0) != KK_OK)
        fprintf(out, "  (report failed: %s)\n", kk_last_error());
    } else {
      fprintf(out, "  %-12s not installed\n               why: %s\n", k_addons[i].name, f.why);
    }
    /* the library stays loaded: its threads (OpenBLAS's) may outlive the report */
  }
  if (json)
    fprintf(out, "}");
}

typedef kk_status_t (*mpi_print_fn)(const void *comm, FILE *out);
typedef kk_status_t (*mpi_ranks_fn)(FILE *out, int json);

/* kk's JSON document with the libraries added as one more member, and
 * libkk-mpi's object (where it is installed) as its "mpi" member. */
static kk_status_t print_json(FILE *out, mpi_print_fn mpi_json) {
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  if (!mem)
    return kk_print_configuration_json(out);
  kk_status_t st = kk_print_configuration_json(mem);
  fclose(mem);
  if (st == KK_OK) {
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
      len--;
    if (len > 0 && buf[len - 1] == '}') {
      fwrite(buf, 1, len - 1, out);
      fprintf(out, ",\n  ");
      print_addons(out, 1);
      if (mpi_json) {
        fprintf(out, ",\n  \"mpi\": ");
        st = mpi_json(NULL, out);
      }
      fprintf(out, "\n}\n");
    } else {
      fwrite(buf, 1, len, out);
    }
  }
  free(buf);
  return st;
}

static void usage(FILE *out) {
  fprintf(out,
          "usage: kk-info [--json] [--mpi] [--kokkos-*...]\n"
          "Initializes kk like any program (so every --kokkos-* flag applies) and prints\n"
          "versions, the plugin search path, every plugin with its state, each\n"
          "backend's devices and memory spaces, and the libraries built on kk\n"
          "(kk-kernels, kk-containers) that are installed, with what they found; where\n"
          "libkk-mpi is installed, also how views travel over MPI.\n"
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
    st = print_json(stdout, (mpi_print_fn)sym(lib, "kk_mpi_print_configuration_json"));
  } else {
    st = kk_print_configuration(stdout);
    mpi_print_fn text = (mpi_print_fn)sym(lib, "kk_mpi_print_configuration");
    if (st == KK_OK && text)
      st = text(NULL, stdout);
    if (st == KK_OK)
      print_addons(stdout, 0);
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
