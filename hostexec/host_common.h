/* hostexec/host_common.h -- what every host backend (serial, threads, openmp) shares: host memory and host device properties. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_HOST_COMMON_H
#define KK_PLUGINS_HOST_COMMON_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <kk/plugin.h>

/* Scratch a host team may request per level (bytes): level 0 models a
 * cache-sized arena, level 1 a larger heap arena. */
#define KKH_SCRATCH_L0_MAX ((uint64_t)1 << 20)
#define KKH_SCRATCH_L1_MAX ((uint64_t)1 << 30)

/* Number of logical cores the process may run on (its affinity mask). */
int kkh_num_cores(void);

/* Fills the properties of "the host" as one device running `concurrency`
 * threads: CPU model, vendor, architecture, right layout, memory size. */
void kkh_host_device_props(kk_plugin_device_t *p, int concurrency, int max_team_size);

/* The same for a backend of `nthreads` threads (concurrency and largest
 * team), its name the CPU model and the thread count: "<model> (8 threads)". */
void kkh_host_device_props_threads(kk_plugin_device_t *p, int nthreads);

/* The instances a host backend creates besides its default one: a list for
 * fence_all, guarded by a lock the launch path never takes, and its length,
 * which lets fence_all skip the lock when there are none.  An instance
 * struct starts with its kkh_inst_link_t. */
typedef struct kkh_inst_link {
  struct kkh_inst_link *prev, *next;
} kkh_inst_link_t;
typedef struct kkh_inst_list {
  pthread_mutex_t lock;
  kkh_inst_link_t *head;
  atomic_int count;
} kkh_inst_list_t;

/* 0, or the errno of pthread_mutex_init. */
int kkh_inst_list_init(kkh_inst_list_t *l);
void kkh_inst_list_destroy(kkh_inst_list_t *l);
void kkh_inst_list_add(kkh_inst_list_t *l, kkh_inst_link_t *n);
void kkh_inst_list_remove(kkh_inst_list_t *l, kkh_inst_link_t *n);
/* Calls f(n, arg) for every instance, with the lock held; takes no lock
 * when the list is empty. */
void kkh_inst_list_each(kkh_inst_list_t *l, void (*f)(kkh_inst_link_t *n, void *arg), void *arg);

/* 64-byte aligned host allocation, reported through hs on failure. */
kk_status_t kkh_mem_alloc(const kk_host_services_t *hs, size_t bytes, void **ptr);
void kkh_mem_free(void *ptr);

/* kk_plugin_ops_t members of a backend whose one device has the one host
 * space (serial, threads, openmp; the context is not used): device_count and
 * space_count return 1, space_props describes "Host" (the core asks only
 * for the spaces space_count gave), mem_free is kkh_mem_free. */
int32_t kkh_device_count(void *ctx, const char **why_none);
int32_t kkh_space_count(void *ctx);
kk_status_t kkh_space_props(void *ctx, int32_t space, kk_plugin_space_t *p);
kk_status_t kkh_mem_free_op(void *ctx, int32_t space, void *ptr);

/* Fills `count` elements of `pattern_size` bytes at dst with `pattern`. */
void kkh_mem_fill(void *dst, const void *pattern, size_t pattern_size, size_t count);
#endif
