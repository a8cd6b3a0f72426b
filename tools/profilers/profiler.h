/* tools/profilers/profiler.h -- small helpers the bundled profilers share; each profiler is its own .so, so all of it is static. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PROFILER_H
#define KK_PROFILER_H

/*
 * The profilers use nothing but the Kokkos Tools ABI (<kk/tools.h>, types
 * only) and the C library: they import no libkk symbol, so the same .so loads
 * into a kk program and into a Kokkos one.  They export only kokkosp_*
 * (compiled with -fvisibility=hidden, PROF_API on the entry points).
 */

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kk/tools.h>

#define PROF_API __attribute__((visibility("default")))

/* Seconds on a monotonic clock. */
static inline double prof_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* strdup that never returns NULL for a NULL argument, and says so when out of
 * memory (a profiler must not crash the program it watches). */
static inline char *prof_strdup(const char *s) {
  const char *src = s ? s : "";
  size_t n = strlen(src) + 1;
  char *d = malloc(n);
  if (!d) {
    fprintf(stderr, "kk profiler: out of memory\n");
    return NULL;
  }
  memcpy(d, src, n);
  return d;
}

/* "1.5 MiB (1572864 B)" */
static inline void prof_bytes(char *buf, size_t size, uint64_t b) {
  if (b >= (1ull << 30))
    snprintf(buf, size, "%.2f GiB (%" PRIu64 " B)", (double)b / (double)(1ull << 30), b);
  else if (b >= (1ull << 20))
    snprintf(buf, size, "%.2f MiB (%" PRIu64 " B)", (double)b / (double)(1ull << 20), b);
  else if (b >= (1ull << 10))
    snprintf(buf, size, "%.2f KiB (%" PRIu64 " B)", (double)b / (double)(1ull << 10), b);
  else
    snprintf(buf, size, "%" PRIu64 " B", b);
}

/* The fences a tool's global fencing causes carry this in their name; the
 * profilers leave them out of what they show. */
static inline bool prof_is_tool_fence(const char *name) {
  return name && strstr(name, "Kokkos Profile Tool Fence") != NULL;
}

/* The device type of a device id, by Kokkos' numbering. */
static inline const char *prof_device_type(uint32_t devid) {
  static const char *names[] = {"Serial", "OpenMP", "Cuda", "HIP", "OpenMPTarget", "HPX", "Threads", "SYCL", "OpenACC"};
  uint32_t t = devid >> 24;
  return t < sizeof names / sizeof *names ? names[t] : "other";
}

#endif
