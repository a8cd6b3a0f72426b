/* plugins/common/spirv_host.h -- host code the SPIR-V device plugins (opencl, levelzero) share: launch planning for every kind, the instance state it uses, the team-size query and the messages both report. */
#ifndef KK_PLUGINS_SPIRV_HOST_H
#define KK_PLUGINS_SPIRV_HOST_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kk/plugin.h>
#include <kk/target/spirv_launch.h>

/*
 * Both plugins run the kernels of kk/target/spirv.h, so what a launch asks
 * of the device -- the launch record, the number of groups, work-items per
 * group, local memory, the sizes of the partials and scratch buffers, where a
 * result goes -- is computed here once.  What is API-specific (writing a
 * launch slot and enqueueing a kernel, copying a result, growing a device
 * buffer, draining a queue) stays in the plugin, behind kkspv_ops_t.
 *
 * A plugin embeds kkspv_inst_t as the first member of its instance and
 * kkspv_kernel_t as the first member of its kernel (the planner reaches the
 * plugin's own structs from them, and from kk_launch_t.device_kernel), and
 * kkspv_dev_t in its context.
 */

/* Bytes of an instance's small device block: counter (64), failed (64), a
 * synchronous result (256). */
#define KKSPV_SMALL_BYTES 384

/* A device buffer grown on demand (only the growth takes the instance's lock). */
typedef struct kkspv_buf {
  void *ptr;
  size_t size;
} kkspv_buf_t;

/* What the planner uses of an instance; the first member of the plugin's. */
typedef struct kkspv_inst {
  pthread_mutex_t lock;             /* the plugin's queue or list, its launch slots, growth */
  kkspv_buf_t partials, partials2, scratch1;
  uint32_t *counter;                /* reduce: groups done, reset by the last group */
  uint64_t *failed;                 /* a team kernel overran its scratch: {code, asked, given} */
  void *result;                     /* a synchronous reduction's value (256 bytes) */
  atomic_bool team_launched;        /* check `failed` at the next fence */
  struct kkspv_inst *prev, *next;   /* every instance of the context, for fence_all */
} kkspv_inst_t;

/* What the planner uses of a kernel; the first member of the plugin's. */
typedef struct kkspv_kernel {
  size_t max_wg;                    /* work-items per group the kernel allows */
  size_t pref_wg;                   /* work-items per group for a long range (capped at max_wg) */
} kkspv_kernel_t;

/* The plugin's side of a launch.  Every operation but fence is called with
 * the instance's lock held; each reports its errors through hs->error and
 * returns the status. */
typedef struct kkspv_ops {
  /* Grows b to at least `bytes` (drains the instance's work first). */
  kk_status_t (*grow)(void *ctx, kkspv_inst_t *in, kkspv_buf_t *b, size_t bytes);
  /* Writes L and l->args into a launch slot and enqueues the kernel (final:
   * a scan's second kernel) over `groups` groups of `local` work-items with
   * `smem` bytes of local memory. */
  kk_status_t (*enqueue)(void *ctx, kkspv_inst_t *in, const kk_launch_t *l, bool final, const kk_spirv_launch *L,
                         int64_t groups, size_t local, uint64_t smem);
  /* Enqueues the copy of a synchronous result from `dev` to l->result. */
  kk_status_t (*result_copy)(void *ctx, kkspv_inst_t *in, const kk_launch_t *l, const void *dev);
  /* The plugin's instance_fence (inst NULL: the default instance). */
  kk_status_t (*fence)(void *ctx, void *inst);
} kkspv_ops_t;

/* The opened device as the planner sees it; a member of the plugin's context. */
typedef struct kkspv_dev {
  const kk_host_services_t *hs;
  const kkspv_ops_t *ops;
  void *ctx;                        /* the plugin's context, passed to ops */
  uint32_t *locks;                  /* the device lock table (KK_SPIRV_LOCK_COUNT words) */
  uint64_t units;                   /* compute units: a reduction spreads over 4 groups per unit */
  size_t max_wg;                    /* work-items per group of the device */
  uint64_t local_mem;               /* local memory per group */
} kkspv_dev_t;

/* ---- instances ------------------------------------------------------------------------------ */

/* Initializes the shared part (lock, no buffers). */
void kkspv_inst_init(kkspv_inst_t *in);
/* Points counter, failed and result into a KKSPV_SMALL_BYTES device block. */
void kkspv_inst_small(kkspv_inst_t *in, void *small);
/* Adds `in` to (or takes it from) the list that starts at `def`, under list_lock. */
void kkspv_inst_link(kkspv_inst_t *def, kkspv_inst_t *in, pthread_mutex_t *list_lock);
void kkspv_inst_unlink(kkspv_inst_t *in, pthread_mutex_t *list_lock);
/* The error of a team kernel's scratch overrun, from the failure record
 * {1 + level + 2 * per_thread, bytes asked, bytes given}. */
kk_status_t kkspv_overrun(const kk_host_services_t *hs, const uint64_t f[3]);

/* ---- modules and devices ------------------------------------------------------------------ */

/* The module's image of `format`, or NULL. */
const kk_image_t *kkspv_find_image(const kk_module_t *m, const char *format);
/* KK_ERROR_ABI_MISMATCH unless the image was compiled for this launch record. */
kk_status_t kkspv_check_image(const kk_host_services_t *hs, const kk_module_t *m, const kk_image_t *img);
/* The team, vector and scratch limits of a device with `max_wg` work-items
 * and `local_mem` bytes of local memory per group. */
void kkspv_device_limits(kk_plugin_device_t *p, size_t max_wg, uint64_t local_mem);

/* ---- launches ------------------------------------------------------------------------------- */

/* The whole of a plugin's launch: every kind, on the plugin instance `inst`
 * (NULL: the default one) whose shared part is `in`. */
kk_status_t kkspv_launch(const kkspv_dev_t *dev, kkspv_inst_t *in, void *inst, const kk_launch_t *l);
/* The plugin's team_size_query (k NULL: the device's limits alone). */
kk_status_t kkspv_team_size_query(const kkspv_dev_t *dev, const kkspv_kernel_t *k, const kk_launch_t *l, int32_t *max,
                                  int32_t *recommended);

#endif
