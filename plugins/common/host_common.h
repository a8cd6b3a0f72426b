/* plugins/common/host_common.h -- what every host backend (serial, threads, openmp) shares: host memory and host device properties. */
#ifndef KK_PLUGINS_HOST_COMMON_H
#define KK_PLUGINS_HOST_COMMON_H

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

/* The one host space every host backend offers. */
void kkh_host_space_props(kk_plugin_space_t *p);

/* 64-byte aligned host allocation, reported through hs on failure. */
kk_status_t kkh_mem_alloc(const kk_host_services_t *hs, size_t bytes, void **ptr);
void kkh_mem_free(void *ptr);



/* Fills `count` elements of `pattern_size` bytes at dst with `pattern`. */
void kkh_mem_fill(void *dst, const void *pattern, size_t pattern_size, size_t count);
#endif
