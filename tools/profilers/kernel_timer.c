/* tools/profilers/kernel_timer.c -- kk-kernel-timer: calls, total, mean and share of time per kernel and region, printed and written at finalize. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <unistd.h>

#include "profiler.h"

/*
 * Times every kernel (by name and kind) and every region (by name) from its
 * begin to its end event.  At finalize it prints a table on stdout and writes
 * the same numbers to a file, by default kk-kernel-timer-<host>-<pid>.txt in
 * the working directory.  Arguments (--kokkos-tools-args):
 *   --output=FILE   write the file there instead
 *   --no-file       print only
 * docs/tools.md describes the table and the file.
 */

typedef enum kind { K_FOR, K_REDUCE, K_SCAN, K_REGION } kind_t;
static const char *const kind_names[] = {"for", "reduce", "scan", "region"};

typedef struct entry {
  char *name;
  kind_t kind;
  uint64_t calls;
  double total, min, max;
} entry_t;

typedef struct open_kernel {
  uint64_t kid;
  size_t entry;
  double start;
} open_t;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static entry_t *g_entries;
static size_t g_count, g_cap;
static size_t *g_index;          /* open addressing over g_entries, entry + 1 (0: empty) */
static size_t g_index_size;      /* a power of two, at least twice g_count */
static open_t *g_open, *g_regions; /* running kernels; the region stack */
static size_t g_nopen, g_capopen, g_nregions, g_capregions;
static uint64_t g_next_kid = 1;
static double g_start;
static char *g_output;
static bool g_no_file;

static size_t hash(const char *s, kind_t k) {
  size_t h = 1469598103934665603ull ^ (size_t)k;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap)
    return true;
  size_t n = *cap ? *cap * 2 : 64;
  while (n < need)
    n *= 2;
  void *q = realloc(*p, n * elem);
  if (!q)
    return false;
  *p = q;
  *cap = n;
  return true;
}

static bool reindex(size_t size) {
  size_t *idx = calloc(size, sizeof *idx);
  if (!idx)
    return false;
  for (size_t e = 0; e < g_count; e++) {
    size_t i = hash(g_entries[e].name, g_entries[e].kind) & (size - 1);
    while (idx[i])
      i = (i + 1) & (size - 1);
    idx[i] = e + 1;
  }
  free(g_index);
  g_index = idx;
  g_index_size = size;
  return true;
}

/* The entry of (name, kind), created on first use; (size_t)-1 when out of memory. */
static size_t entry_of(const char *name, kind_t kind) {
  if (!name)
    name = "";
  if (g_index_size) {
    for (size_t i = hash(name, kind) & (g_index_size - 1); g_index[i]; i = (i + 1) & (g_index_size - 1)) {
      entry_t *e = &g_entries[g_index[i] - 1];
      if (e->kind == kind && strcmp(e->name, name) == 0)
        return g_index[i] - 1;
    }
  }
  if (!grow((void **)&g_entries, &g_cap, g_count + 1, sizeof *g_entries))
    return (size_t)-1;
  if (2 * (g_count + 1) > g_index_size && !reindex(g_index_size ? 2 * g_index_size : 128))
    return (size_t)-1;
  entry_t *e = &g_entries[g_count];
  memset(e, 0, sizeof *e);
  if (!(e->name = prof_strdup(name)))
    return (size_t)-1;
  e->kind = kind;
  size_t i = hash(name, kind) & (g_index_size - 1);
  while (g_index[i])
    i = (i + 1) & (g_index_size - 1);
  g_index[i] = ++g_count;
  return g_count - 1;
}

static void account(size_t entry, double seconds) {
  entry_t *e = &g_entries[entry];
  if (e->calls == 0 || seconds < e->min)
    e->min = seconds;
  if (seconds > e->max)
    e->max = seconds;
  e->calls++;
  e->total += seconds;
}

/* ---- events ---------------------------------------------------------------------- */

PROF_API void kokkosp_print_help(char *exe) {
  printf("kk-kernel-timer: times each kernel and region of %s and, at the end, prints calls, total, mean and\n"
         "share of time per kernel and writes them to kk-kernel-timer-<host>-<pid>.txt.\n"
         "Arguments (--kokkos-tools-args=\"...\"):\n"
         "  --output=FILE  write the report to FILE\n"
         "  --no-file      only print the report\n",
         exe ? exe : "the program");
}

PROF_API void kokkosp_init_library(const int seq, const uint64_t version, const uint32_t ndev,
                                   struct Kokkos_Profiling_KokkosPDeviceInfo *info) {
  (void)seq, (void)version, (void)ndev, (void)info;
  g_start = prof_now();
}

PROF_API void kokkosp_parse_args(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--output=", 9) == 0) {
      free(g_output);
      g_output = prof_strdup(argv[i] + 9);
    } else if (strcmp(argv[i], "--no-file") == 0) {
      g_no_file = true;
    } else {
      fprintf(stderr, "kk-kernel-timer: unknown argument '%s' ignored (--output=FILE, --no-file)\n", argv[i]);
    }
  }
}

static void begin(const char *name, kind_t kind, uint64_t *kid) {
  double now = prof_now();
  pthread_mutex_lock(&g_lock);
  *kid = g_next_kid++;
  size_t e = entry_of(name, kind);
  if (e != (size_t)-1 && grow((void **)&g_open, &g_capopen, g_nopen + 1, sizeof *g_open))
    g_open[g_nopen++] = (open_t){*kid, e, now};
  pthread_mutex_unlock(&g_lock);
}

static void end(uint64_t kid) {
  double now = prof_now();
  pthread_mutex_lock(&g_lock);
  /* launches from several threads may end in any order: search from the newest */
  for (size_t i = g_nopen; i-- > 0;) {
    if (g_open[i].kid == kid) {
      account(g_open[i].entry, now - g_open[i].start);
      g_open[i] = g_open[--g_nopen];
      break;
    }
  }
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_begin_parallel_for(const char *name, const uint32_t devid, uint64_t *kid) {
  (void)devid;
  begin(name, K_FOR, kid);
}
PROF_API void kokkosp_begin_parallel_reduce(const char *name, const uint32_t devid, uint64_t *kid) {
  (void)devid;
  begin(name, K_REDUCE, kid);
}
PROF_API void kokkosp_begin_parallel_scan(const char *name, const uint32_t devid, uint64_t *kid) {
  (void)devid;
  begin(name, K_SCAN, kid);
}
PROF_API void kokkosp_end_parallel_for(const uint64_t kid) { end(kid); }
PROF_API void kokkosp_end_parallel_reduce(const uint64_t kid) { end(kid); }
PROF_API void kokkosp_end_parallel_scan(const uint64_t kid) { end(kid); }

PROF_API void kokkosp_push_profile_region(const char *name) {
  double now = prof_now();
  pthread_mutex_lock(&g_lock);
  size_t e = entry_of(name, K_REGION);
  if (grow((void **)&g_regions, &g_capregions, g_nregions + 1, sizeof *g_regions))
    g_regions[g_nregions++] = (open_t){0, e, now}; /* kept even when e failed, so pops stay paired */
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_pop_profile_region(void) {
  double now = prof_now();
  pthread_mutex_lock(&g_lock);
  if (g_nregions > 0) {
    open_t r = g_regions[--g_nregions];
    if (r.entry != (size_t)-1)
      account(r.entry, now - r.start);
  }
  pthread_mutex_unlock(&g_lock);
}

/* ---- the report -------------------------------------------------------------------- */

/* Kernels before regions, each by total time, longest first. */
static int by_kind_then_total(const void *pa, const void *pb) {
  const entry_t *a = &g_entries[*(const size_t *)pa], *b = &g_entries[*(const size_t *)pb];
  bool ra = a->kind == K_REGION, rb = b->kind == K_REGION;
  if (ra != rb)
    return ra ? 1 : -1;
  if (a->total != b->total)
    return a->total < b->total ? 1 : -1;
  return strcmp(a->name, b->name);
}

/* A name as one field of the file: tabs and newlines become spaces. */
static void put_name(FILE *f, const char *s) {
  for (; *s; s++)
    fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void report(void) {
  double runtime = prof_now() - g_start;
  double in_kernels = 0;
  uint64_t launches = 0;
  size_t nkernels = 0;
  for (size_t e = 0; e < g_count; e++)
    if (g_entries[e].kind != K_REGION) {
      in_kernels += g_entries[e].total;
      launches += g_entries[e].calls;
      nkernels++;
    }
  size_t *order = malloc((g_count ? g_count : 1) * sizeof *order);
  if (!order) {
    fprintf(stderr, "kk-kernel-timer: out of memory: no report\n");
    return;
  }
  for (size_t e = 0; e < g_count; e++)
    order[e] = e;
  qsort(order, g_count, sizeof *order, by_kind_then_total);

  printf("kk-kernel-timer: %" PRIu64 " kernel launches (%zu kernels) took %.6f s of %.6f s (%.2f%%)\n", launches,
         nkernels, in_kernels, runtime, runtime > 0 ? 100.0 * in_kernels / runtime : 0.0);
  printf("%10s %12s %12s %8s %9s  %-7s %s\n", "calls", "total s", "mean s", "kernel%", "runtime%", "type", "name");
  for (size_t i = 0; i < g_count; i++) {
    const entry_t *e = &g_entries[order[i]];
    char share[16] = "-";
    if (e->kind != K_REGION)
      snprintf(share, sizeof share, "%.2f", in_kernels > 0 ? 100.0 * e->total / in_kernels : 0.0);
    printf("%10" PRIu64 " %12.6f %12.6f %8s %9.2f  %-7s %s\n", e->calls, e->total,
           e->calls ? e->total / (double)e->calls : 0.0, share, runtime > 0 ? 100.0 * e->total / runtime : 0.0,
           kind_names[e->kind], e->name);
  }

  if (!g_no_file) {
    char path[1024];
    if (g_output)
      snprintf(path, sizeof path, "%s", g_output);
    else {
      char host[256] = "host";
      gethostname(host, sizeof host - 1);
      host[sizeof host - 1] = '\0';
      snprintf(path, sizeof path, "kk-kernel-timer-%s-%ld.txt", host, (long)getpid());
    }
    FILE *f = fopen(path, "w");
    if (!f) {
      fprintf(stderr, "kk-kernel-timer: cannot write %s\n", path);
    } else {
      fprintf(f, "# kk-kernel-timer 1\n# runtime_s\t%.9f\n# kernel_time_s\t%.9f\n", runtime, in_kernels);
      fprintf(f, "type\tname\tcalls\ttotal_s\tmean_s\tmin_s\tmax_s\tkernel_share\truntime_share\n");
      for (size_t i = 0; i < g_count; i++) {
        const entry_t *e = &g_entries[order[i]];
        fprintf(f, "%s\t", kind_names[e->kind]);
        put_name(f, e->name);
        fprintf(f, "\t%" PRIu64 "\t%.9f\t%.9f\t%.9f\t%.9f\t", e->calls, e->total,
                e->calls ? e->total / (double)e->calls : 0.0, e->min, e->max);
        if (e->kind == K_REGION)
          fprintf(f, "-");
        else
          fprintf(f, "%.4f", in_kernels > 0 ? e->total / in_kernels : 0.0);
        fprintf(f, "\t%.4f\n", runtime > 0 ? e->total / runtime : 0.0);
      }
      fclose(f);
      printf("kk-kernel-timer: report written to %s\n", path);
    }
  }
  fflush(stdout);
  free(order);
}

PROF_API void kokkosp_finalize_library(void) {
  pthread_mutex_lock(&g_lock);
  report();
  for (size_t e = 0; e < g_count; e++)
    free(g_entries[e].name);
  free(g_entries);
  free(g_index);
  free(g_open);
  free(g_regions);
  free(g_output);
  g_entries = NULL;
  g_index = NULL;
  g_open = g_regions = NULL;
  g_output = NULL;
  g_count = g_cap = g_index_size = g_nopen = g_capopen = g_nregions = g_capregions = 0;
  pthread_mutex_unlock(&g_lock);
}
