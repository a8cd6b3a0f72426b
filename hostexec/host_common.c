/* hostexec/host_common.c -- host memory and host device properties shared by the host backends. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host_common.h"

int kkh_num_cores(void) {
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0)
      return n;
  }
#endif
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static void cpu_model(char *name, size_t name_size, char *vendor, size_t vendor_size) {
  snprintf(name, name_size, "host CPU");
  snprintf(vendor, vendor_size, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  bool have_name = false, have_vendor = false;
  while ((!have_name || !have_vendor) && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!colon)
      continue;
    char *val = colon + 1;
    while (*val == ' ' || *val == '\t')
      val++;
    val[strcspn(val, "\n")] = '\0';
    if (!have_name && strncmp(line, "model name", 10) == 0) {
      snprintf(name, name_size, "%s", val);
      have_name = true;
    } else if (!have_vendor && strncmp(line, "vendor_id", 9) == 0) {
      snprintf(vendor, vendor_size, "%s", val);
      have_vendor = true;
    }
  }
  fclose(f);
}

void kkh_host_device_props(kk_plugin_device_t *p, int concurrency, int max_team_size) {
  cpu_model(p->name, sizeof p->name, p->vendor, sizeof p->vendor);
  struct utsname u;
  snprintf(p->arch, sizeof p->arch, "%.63s", uname(&u) == 0 ? u.machine : "unknown");
  p->preferred_layout = KK_LAYOUT_RIGHT;
  p->concurrency = concurrency;
  p->warp_size = 1;
  p->max_team_size = max_team_size;
  p->max_vector_length = 1 << 16;
  p->scratch_max[0] = KKH_SCRATCH_L0_MAX;
  p->scratch_max[1] = KKH_SCRATCH_L1_MAX;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  p->memory_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

void kkh_host_device_props_threads(kk_plugin_device_t *p, int nthreads) {
  kkh_host_device_props(p, nthreads, nthreads);
  char model[sizeof p->name];
  memcpy(model, p->name, sizeof model);
  snprintf(p->name, sizeof p->name, "%.100s (%d threads)", model, nthreads);
}

int kkh_inst_list_init(kkh_inst_list_t *l) {
  l->head = NULL;
  atomic_init(&l->count, 0);
  return pthread_mutex_init(&l->lock, NULL);
}

void kkh_inst_list_destroy(kkh_inst_list_t *l) { pthread_mutex_destroy(&l->lock); }

void kkh_inst_list_add(kkh_inst_list_t *l, kkh_inst_link_t *n) {
  pthread_mutex_lock(&l->lock);
  n->prev = NULL;
  n->next = l->head;
  if (l->head)
    l->head->prev = n;
  l->head = n;
  atomic_fetch_add(&l->count, 1);
  pthread_mutex_unlock(&l->lock);
}

void kkh_inst_list_remove(kkh_inst_list_t *l, kkh_inst_link_t *n) {
  pthread_mutex_lock(&l->lock);
  if (n->prev)
    n->prev->next = n->next;
  else
    l->head = n->next;
  if (n->next)
    n->next->prev = n->prev;
  atomic_fetch_sub(&l->count, 1);
  pthread_mutex_unlock(&l->lock);
}

void kkh_inst_list_each(kkh_inst_list_t *l, void (*f)(kkh_inst_link_t *n, void *arg), void *arg) {
  /* Work submitted on an instance before a fence was submitted after the
   * instance was created, so the count already includes it. */
  if (atomic_load(&l->count) == 0)
    return;
  pthread_mutex_lock(&l->lock);
  for (kkh_inst_link_t *n = l->head; n; n = n->next)
    f(n, arg);
  pthread_mutex_unlock(&l->lock);
}

kk_status_t kkh_space_props(void *ctx, int32_t space, kk_plugin_space_t *p) {
  (void)ctx, (void)space;
  snprintf(p->name, sizeof p->name, "Host");
  p->flags = KK_SPACE_HOST_ACCESSIBLE | KK_SPACE_DEVICE_ACCESSIBLE | KK_SPACE_DEFAULT;
  return KK_OK;
}

/* Host allocations of a huge page or more start on a huge-page boundary (2 MiB on x86-64 and the usual arm64
 * kernels): the kernels' static chunks of a large view then begin at the same offsets of their pages whatever the
 * view, as in the hand-written OpenMP codes kk is measured against (BabelStream's OpenMP model allocates so), and a
 * kernel that uses transparent huge pages can back the whole view with them. What is skipped at the front is
 * address space, not memory: it is never touched. Smaller allocations are 64-byte aligned (a cache line). */
#define KKH_HUGE_ALIGN ((size_t)2 << 20)

kk_status_t kkh_mem_alloc(const kk_host_services_t *hs, size_t bytes, void **ptr) {
  void *p = NULL;
  int rc = posix_memalign(&p, bytes >= KKH_HUGE_ALIGN ? KKH_HUGE_ALIGN : 64, bytes ? bytes : 1);
  if (rc != 0) {
    *ptr = NULL;
    return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, "errno", rc, "posix_memalign of %zu bytes failed", bytes);
  }
  *ptr = p;
  return KK_OK;
}

void kkh_mem_free(void *ptr) { free(ptr); }

int32_t kkh_device_count(void *ctx, const char **why_none) {
  (void)ctx, (void)why_none;
  return 1;
}

int32_t kkh_space_count(void *ctx) {
  (void)ctx;
  return 1;
}

kk_status_t kkh_mem_free_op(void *ctx, int32_t space, void *ptr) {
  (void)ctx, (void)space;
  free(ptr);
  return KK_OK;
}

void kkh_mem_fill(void *dst, const void *pattern, size_t pattern_size, size_t count) {
  unsigned char *d = dst;
  if (count == 0)
    return;
  /* Double the filled prefix each step: log2(count) memcpy calls. */
  memcpy(d, pattern, pattern_size);
  size_t done = 1;
  while (done < count) {
    size_t n = done < count - done ? done : count - done;
    memcpy(d + done * pattern_size, d, n * pattern_size);
    done += n;
  }
}
