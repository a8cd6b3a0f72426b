/* tools/profilers/kernel_logger.c -- kk-kernel-logger: prints every kernel, region, allocation, copy, fence and event as it happens. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "profiler.h"

/*
 * One line per event on stdout, each starting "kk-logger: ", indented by the
 * depth of the enclosing regions and kernels.  Fences that the tools
 * interface itself causes (global fencing) are left out.  With --times each
 * line carries the microseconds since the line before it (the first: since
 * the library was loaded), so that what runs between two events (host work,
 * an allocation, a copy without a hook) shows as a gap.
 */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_next_kernel = 1, g_next_fence = 1;
static uint32_t g_next_section = 1;
static int g_depth;
static bool g_times;
static double g_last;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (g_times) {
    const double now = prof_now();
    printf("kk-logger: +%11.1f us ", 1e6 * (now - g_last));
    g_last = now;
  } else {
    printf("kk-logger: ");
  }
  printf("%*s", 2 * (g_depth > 0 ? g_depth : 0), "");
  vprintf(fmt, ap);
  putchar('\n');
  va_end(ap);
}

PROF_API void kokkosp_print_help(char *exe) {
  printf("kk-kernel-logger: prints each kernel, region, allocation, deep copy, fence, section and event of %s as it\n"
         "happens, on stdout, one line each, indented by region.\n"
         "  --times   each line starts with the microseconds since the line before it\n",
         exe ? exe : "the program");
}

PROF_API void kokkosp_parse_args(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--times") == 0)
      g_times = true;
    else
      fprintf(stderr, "kk-kernel-logger: unknown argument '%s' ignored (--times)\n", argv[i]);
  }
}

PROF_API void kokkosp_init_library(const int seq, const uint64_t version, const uint32_t ndev,
                                   struct Kokkos_Profiling_KokkosPDeviceInfo *info) {
  (void)ndev, (void)info;
  pthread_mutex_lock(&g_lock);
  g_last = prof_now();
  say("init (load sequence %d, interface %" PRIu64 ")", seq, version);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_finalize_library(void) {
  pthread_mutex_lock(&g_lock);
  g_depth = 0;
  say("finalize");
  fflush(stdout);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_declare_metadata(const char *key, const char *value) {
  pthread_mutex_lock(&g_lock);
  say("metadata %s = %s", key, value);
  pthread_mutex_unlock(&g_lock);
}

/* "Serial device 0 instance 1", "Cuda device 1, all instances" (a global
 * fence), "Cuda deep-copy resource". */
static const char *where(uint32_t devid, char *buf, size_t size) {
  if ((devid & 0xFFFFFFu) == 0xFFFFFFu)
    snprintf(buf, size, "%s deep-copy resource", prof_device_type(devid));
  else if (KOKKOS_TOOLS_INSTANCE_OF(devid) == 0)
    snprintf(buf, size, "%s device %u, all instances", prof_device_type(devid), KOKKOS_TOOLS_DEVICE_NUMBER_OF(devid));
  else
    snprintf(buf, size, "%s device %u instance %u", prof_device_type(devid), KOKKOS_TOOLS_DEVICE_NUMBER_OF(devid),
             KOKKOS_TOOLS_INSTANCE_OF(devid));
  return buf;
}

static void begin(const char *kind, const char *name, uint32_t devid, uint64_t *kid) {
  pthread_mutex_lock(&g_lock);
  *kid = g_next_kernel++;
  char on[96];
  say("%s \"%s\" on %s (kernel %" PRIu64 ")", kind, name, where(devid, on, sizeof on), *kid);
  g_depth++;
  pthread_mutex_unlock(&g_lock);
}

static void end(const char *kind, uint64_t kid) {
  pthread_mutex_lock(&g_lock);
  g_depth--;
  say("end %s (kernel %" PRIu64 ")", kind, kid);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_begin_parallel_for(const char *name, const uint32_t devid, uint64_t *kid) {
  begin("parallel_for", name, devid, kid);
}
PROF_API void kokkosp_end_parallel_for(const uint64_t kid) { end("parallel_for", kid); }
PROF_API void kokkosp_begin_parallel_reduce(const char *name, const uint32_t devid, uint64_t *kid) {
  begin("parallel_reduce", name, devid, kid);
}
PROF_API void kokkosp_end_parallel_reduce(const uint64_t kid) { end("parallel_reduce", kid); }
PROF_API void kokkosp_begin_parallel_scan(const char *name, const uint32_t devid, uint64_t *kid) {
  begin("parallel_scan", name, devid, kid);
}
PROF_API void kokkosp_end_parallel_scan(const uint64_t kid) { end("parallel_scan", kid); }

PROF_API void kokkosp_push_profile_region(const char *name) {
  pthread_mutex_lock(&g_lock);
  say("region \"%s\" {", name);
  g_depth++;
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_pop_profile_region(void) {
  pthread_mutex_lock(&g_lock);
  g_depth--;
  say("} region");
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_allocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label,
                                    const void *ptr, const uint64_t size) {
  pthread_mutex_lock(&g_lock);
  say("allocate \"%s\": %" PRIu64 " bytes in %.64s at %p", label, size, space.name, ptr);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_deallocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label,
                                      const void *ptr, const uint64_t size) {
  pthread_mutex_lock(&g_lock);
  say("deallocate \"%s\": %" PRIu64 " bytes in %.64s at %p", label, size, space.name, ptr);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_begin_deep_copy(struct Kokkos_Profiling_SpaceHandle dst_space, const char *dst_label,
                                      const void *dst, struct Kokkos_Profiling_SpaceHandle src_space,
                                      const char *src_label, const void *src, uint64_t size) {
  (void)dst, (void)src;
  pthread_mutex_lock(&g_lock);
  say("deep copy %.64s \"%s\" <- %.64s \"%s\", %" PRIu64 " bytes", dst_space.name, dst_label, src_space.name,
      src_label, size);
  g_depth++;
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_end_deep_copy(void) {
  pthread_mutex_lock(&g_lock);
  g_depth--;
  say("end deep copy");
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_begin_fence(const char *name, const uint32_t devid, uint64_t *handle) {
  pthread_mutex_lock(&g_lock);
  if (prof_is_tool_fence(name)) {
    *handle = 0; /* not shown, and its end is recognized by the 0 */
  } else {
    *handle = g_next_fence++;
    char on[96];
    say("fence \"%s\" on %s (fence %" PRIu64 ")", name, where(devid, on, sizeof on), *handle);
  }
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_end_fence(uint64_t handle) {
  if (handle == 0)
    return;
  pthread_mutex_lock(&g_lock);
  say("end fence (fence %" PRIu64 ")", handle);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_create_profile_section(const char *name, uint32_t *id) {
  pthread_mutex_lock(&g_lock);
  *id = g_next_section++;
  say("section \"%s\" created (section %u)", name, *id);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_start_profile_section(const uint32_t id) {
  pthread_mutex_lock(&g_lock);
  say("section %u started", id);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_stop_profile_section(const uint32_t id) {
  pthread_mutex_lock(&g_lock);
  say("section %u stopped", id);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_destroy_profile_section(const uint32_t id) {
  pthread_mutex_lock(&g_lock);
  say("section %u destroyed", id);
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_profile_event(const char *name) {
  pthread_mutex_lock(&g_lock);
  say("event \"%s\"", name);
  pthread_mutex_unlock(&g_lock);
}
