/* containers/tests/tool_recorder.c -- a Kokkos Tools tool that writes the DualView events and deep copies it gets to $KKC_RECORDER_FILE. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <kk/tools.h>

/* One line per event:  dual_view_sync|label|ptr|to_device,
 * dual_view_modify|label|ptr|on_device, deep_copy|dst label|src label|bytes. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record(const char *fmt, ...) {
  const char *path = getenv("KKC_RECORDER_FILE");
  if (!path)
    return;
  pthread_mutex_lock(&g_lock);
  FILE *f = fopen(path, "a");
  if (f) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
  }
  pthread_mutex_unlock(&g_lock);
}

void kokkosp_init_library(const int seq, const uint64_t version, const uint32_t n,
                          struct Kokkos_Profiling_KokkosPDeviceInfo *info) {
  (void)seq, (void)n, (void)info;
  record("init|%" PRIu64, version);
}

void kokkosp_finalize_library(void) { record("finalize"); }

void kokkosp_dual_view_sync(const char *label, const void *const ptr, bool to_device) {
  record("dual_view_sync|%s|%p|%d", label, ptr, (int)to_device);
}

void kokkosp_dual_view_modify(const char *label, const void *const ptr, bool on_device) {
  record("dual_view_modify|%s|%p|%d", label, ptr, (int)on_device);
}

void kokkosp_begin_deep_copy(struct Kokkos_Profiling_SpaceHandle dst_space, const char *dst_label, const void *dst,
                             struct Kokkos_Profiling_SpaceHandle src_space, const char *src_label, const void *src,
                             uint64_t size) {
  (void)dst_space, (void)src_space, (void)dst, (void)src;
  record("deep_copy|%s|%s|%" PRIu64, dst_label, src_label, size);
}

void kokkosp_end_deep_copy(void) {}
