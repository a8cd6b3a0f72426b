/* tools/profilers/memory_hwm.c -- kk-memory-hwm: the high-water mark of allocated memory per memory space, printed at finalize. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "profiler.h"

/*
 * Follows allocate_data / deallocate_data and keeps, per memory space (by its
 * Kokkos name), the bytes allocated now, the most ever allocated at once, the
 * number of allocations and the largest one.  At finalize it prints one line
 * per space on stdout, including what was still allocated then.
 */

typedef struct space {
  char name[64];
  uint64_t current, peak, largest, allocations, live;
} space_t;

#define MAX_SPACES 32

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static space_t g_spaces[MAX_SPACES];
static int g_nspaces;

/* Called with g_lock held; NULL past MAX_SPACES distinct names. */
static space_t *space_of(const struct Kokkos_Profiling_SpaceHandle *h) {
  for (int i = 0; i < g_nspaces; i++)
    if (strncmp(g_spaces[i].name, h->name, sizeof h->name) == 0)
      return &g_spaces[i];
  if (g_nspaces == MAX_SPACES)
    return NULL;
  space_t *s = &g_spaces[g_nspaces++];
  memset(s, 0, sizeof *s);
  memcpy(s->name, h->name, sizeof s->name);
  s->name[sizeof s->name - 1] = '\0';
  return s;
}

PROF_API void kokkosp_print_help(char *exe) {
  printf("kk-memory-hwm: prints, when %s finishes, the high-water mark of the memory allocated in each memory\n"
         "space, with the number of allocations and the largest one.  It takes no arguments.\n",
         exe ? exe : "the program");
}

PROF_API void kokkosp_init_library(const int seq, const uint64_t version, const uint32_t ndev,
                                   struct Kokkos_Profiling_KokkosPDeviceInfo *info) {
  (void)seq, (void)version, (void)ndev, (void)info;
  pthread_mutex_lock(&g_lock);
  g_nspaces = 0;
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_allocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label,
                                    const void *ptr, const uint64_t size) {
  (void)label, (void)ptr;
  pthread_mutex_lock(&g_lock);
  space_t *s = space_of(&space);
  if (s) {
    s->current += size;
    if (s->current > s->peak)
      s->peak = s->current;
    if (size > s->largest)
      s->largest = size;
    s->allocations++;
    s->live++;
  }
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_deallocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label,
                                      const void *ptr, const uint64_t size) {
  (void)label, (void)ptr;
  pthread_mutex_lock(&g_lock);
  space_t *s = space_of(&space);
  if (s) {
    /* a tool loaded after some allocations sees frees it never saw allocated */
    s->current = s->current > size ? s->current - size : 0;
    if (s->live)
      s->live--;
  }
  pthread_mutex_unlock(&g_lock);
}

PROF_API void kokkosp_finalize_library(void) {
  pthread_mutex_lock(&g_lock);
  printf("kk-memory-hwm: memory high-water mark per space\n");
  printf("  %-16s %28s %12s %28s %28s\n", "space", "high-water mark", "allocations", "largest allocation",
         "still allocated at finalize");
  if (g_nspaces == 0)
    printf("  (no allocation)\n");
  for (int i = 0; i < g_nspaces; i++) {
    const space_t *s = &g_spaces[i];
    char peak[64], largest[64], left[64];
    prof_bytes(peak, sizeof peak, s->peak);
    prof_bytes(largest, sizeof largest, s->largest);
    prof_bytes(left, sizeof left, s->current);
    printf("  %-16s %28s %12" PRIu64 " %28s %28s\n", s->name, peak, s->allocations, largest, left);
  }
  fflush(stdout);
  g_nspaces = 0;
  pthread_mutex_unlock(&g_lock);
}
