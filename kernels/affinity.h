/* kernels/affinity.h -- load a threaded CBLAS with every CPU of the process in view, not only the calling thread's. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKK_AFFINITY_H
#define KKK_AFFINITY_H

/*
 * OpenBLAS counts the CPUs it may use and starts its thread pool when it is
 * loaded (and when its thread count grows), from the mask of the thread that
 * loads it; its threads inherit that mask.  Under OMP_PROC_BIND the thread
 * that first runs an OpenMP region is bound to one core (libgomp binds the
 * initial thread as it starts), so an OpenBLAS opened later ran every call
 * on that core: its BLAS 1 and gemv at one core's bandwidth, its dgemm with
 * all its threads on one core (found on the 16 cores of the GPU machine,
 * 2026-11-27, where it looked 7 times slower than it is).
 *
 * kkk_affinity_widen() gives the calling thread, for the length of the load,
 * the CPUs the process may run on, as well as they can be known once threads
 * are bound: the calling thread's mask when this file's user was loaded
 * (before an OpenMP runtime that kk's openmp plugin loads later), every
 * thread's present mask (kk's host threads, once started, cover the CPUs kk
 * runs on), and the OpenMP places where the program's own OpenMP runtime is
 * loaded globally.  kkk_affinity_restore() puts the thread's own mask back.
 * Linux only; elsewhere both do nothing.  Users of this file define
 * _GNU_SOURCE before their first #include.
 */
#if defined(__linux__)
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/types.h>

typedef struct {
  cpu_set_t saved; /* the calling thread's mask before */
  int widened;     /* 1 when kkk_affinity_widen changed it */
} kkk_affinity_t;

static cpu_set_t kkk_affinity_at_load;
static int kkk_affinity_at_load_ok;
__attribute__((constructor)) static void kkk_affinity_capture(void) {
  kkk_affinity_at_load_ok = sched_getaffinity(0, sizeof kkk_affinity_at_load, &kkk_affinity_at_load) == 0;
}

/* The union described above, into *all. */
static inline void kkk_affinity_process(cpu_set_t *all) {
  CPU_ZERO(all);
  if (kkk_affinity_at_load_ok)
    CPU_OR(all, all, &kkk_affinity_at_load);
  DIR *d = opendir("/proc/self/task");
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    char *end;
    const long tid = strtol(e->d_name, &end, 10);
    cpu_set_t m;
    if (*end == '\0' && tid > 0 && sched_getaffinity((pid_t)tid, sizeof m, &m) == 0)
      CPU_OR(all, all, &m);
  }
  if (d)
    closedir(d);
  int (*num_places)(void), (*place_procs)(int);
  void (*place_ids)(int, int *);
  *(void **)&num_places = dlsym(RTLD_DEFAULT, "omp_get_num_places");
  *(void **)&place_procs = dlsym(RTLD_DEFAULT, "omp_get_place_num_procs");
  *(void **)&place_ids = dlsym(RTLD_DEFAULT, "omp_get_place_proc_ids");
  const int np = num_places && place_procs && place_ids ? num_places() : 0;
  for (int p = 0; p < np; p++) {
    const int n = place_procs(p);
    int *ids = n > 0 ? malloc(sizeof(int) * (size_t)n) : NULL;
    if (!ids)
      continue;
    place_ids(p, ids);
    for (int i = 0; i < n; i++)
      if (ids[i] >= 0 && ids[i] < CPU_SETSIZE)
        CPU_SET(ids[i], all);
    free(ids);
  }
}

static inline void kkk_affinity_widen(kkk_affinity_t *a) {
  a->widened = 0;
  if (pthread_getaffinity_np(pthread_self(), sizeof a->saved, &a->saved) != 0)
    return;
  cpu_set_t all;
  kkk_affinity_process(&all);
  if (CPU_COUNT(&all) == 0 || CPU_EQUAL(&all, &a->saved))
    return;
  a->widened = pthread_setaffinity_np(pthread_self(), sizeof all, &all) == 0;
}

static inline void kkk_affinity_restore(const kkk_affinity_t *a) {
  if (a->widened)
    (void)pthread_setaffinity_np(pthread_self(), sizeof a->saved, &a->saved);
}
#else
typedef struct {
  int widened;
} kkk_affinity_t;
static inline void kkk_affinity_widen(kkk_affinity_t *a) { a->widened = 0; }
static inline void kkk_affinity_restore(const kkk_affinity_t *a) { (void)a; }
#endif

#endif /* KKK_AFFINITY_H */
