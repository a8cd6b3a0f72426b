/* plugins/openmp/openmp_plugin.c -- the openmp backend's entry point and operations table: options, the one host device, lifetime. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_common.h"
#include "host_option.h"
#include "openmp_internal.h"
#include "openmp_error.h"

static kk_status_t openmp_init(const kk_host_services_t *hs, void **out) {
  *out = NULL;
  openmp_ctx_t *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    return openmp_fail(hs, ENOMEM, "init: allocating the backend's state");
  ctx->hs = hs;
  kk_status_t st;
  /* --kokkos-num-threads, else what a region without num_threads() would
   * get: OMP_NUM_THREADS, else the runtime's default (the cores it may use). */
  int n = kkh_config_num_threads(hs);
  if (n == 0)
    n = omp_get_max_threads();
  int limit = omp_get_thread_limit();
  if (limit > 0 && n > limit) {
    hs->log(hs->core, KK_LOG_INFO, "%d threads requested, OMP_THREAD_LIMIT allows %d", n, limit);
    n = limit;
  }
  if (n < 1)
    n = 1;
  if (n > OPENMP_MAX_THREADS) {
    st = hs->error(hs->core, KK_ERROR_LIMIT, NULL, 0, "num_threads %d exceeds the backend's limit of %d threads", n,
                   OPENMP_MAX_THREADS);
    goto fail_free_ctx;
  }
  ctx->nthreads = n;
  long inst_threads;
  st = kkh_option_long(hs, "openmp", "instance_threads", n / 2 > 1 ? n / 2 : 1, 1, OPENMP_MAX_THREADS, &inst_threads);
  if (st != KK_OK)
    goto fail_free_ctx;
  ctx->instance_threads = (int)inst_threads;
  atomic_init(&ctx->warned_short, 0);
  int rc = kkh_inst_list_init(&ctx->instances);
  if (rc != 0) {
    st = openmp_fail(hs, rc, "init: pthread_mutex_init");
    goto fail_free_ctx;
  }
  hs->log(hs->core, KK_LOG_DEBUG, "%d threads, %d per created instance (OpenMP %d, dynamic %s, max active levels %d)",
          n, ctx->instance_threads, _OPENMP, omp_get_dynamic() ? "on" : "off", omp_get_max_active_levels());
  *out = ctx;
  return KK_OK;

fail_free_ctx:
  free(ctx);
  return st;
}

static void openmp_finalize(void *vctx) {
  openmp_ctx_t *ctx = vctx;
  if (!ctx)
    return;
  /* The core destroys instances first; whatever is left is destroyed here. */
  while (ctx->instances.head)
    openmp_instance_destroy(ctx, ctx->instances.head);
  openmp_team_destroy(ctx->team);
  kkh_inst_list_destroy(&ctx->instances);
  free(ctx);
#ifdef KK_HAVE_OMP_PAUSE
  /* The runtime keeps the threads of the calling thread's regions alive and
   * idle.  Let them go: a process that forks after kk_finalize would
   * otherwise inherit a runtime that counts threads the child does not have,
   * and its first region would wait for them forever (libgomp).  Soft: the
   * application's own threadprivate data survives. */
  if (omp_get_level() == 0)
    omp_pause_resource_all(omp_pause_soft);
#endif
}

static kk_status_t openmp_device_props(void *vctx, int32_t dev, kk_plugin_device_t *p) {
  openmp_ctx_t *ctx = vctx;
  if (dev != 0)
    return ctx->hs->error(ctx->hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0, "device_props: no device %d", dev);
  kkh_host_device_props_threads(p, ctx->nthreads);
  return KK_OK;
}

static kk_status_t openmp_device_open(void *vctx, int32_t dev) {
  openmp_ctx_t *ctx = vctx;
  if (dev != 0)
    return ctx->hs->error(ctx->hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0, "device_open: no device %d", dev);
  if (ctx->team)
    return KK_OK;
  kk_status_t st = openmp_team_create(ctx, ctx->nthreads, "the default instance", &ctx->team);
  if (st == KK_OK)
    openmp_warm_up(ctx->nthreads);
  return st;
}

static const kk_plugin_ops_t openmp_ops = {
    .struct_size = sizeof(kk_plugin_ops_t),
    .abi_version = KK_PLUGIN_ABI_VERSION,
    .name = "openmp",
    .priority = 30,
    .flags = KK_PLUGIN_FLAG_HOST,
    .tools_device_type = KK_TOOLS_DEVICE_OPENMP,
    .init = openmp_init,
    .finalize = openmp_finalize,
    .device_count = kkh_device_count,
    .device_props = openmp_device_props,
    .device_open = openmp_device_open,
    .space_count = kkh_space_count,
    .space_props = kkh_space_props,
    .mem_alloc = openmp_mem_alloc,
    .mem_free = kkh_mem_free_op,
    .mem_copy = openmp_mem_copy,
    .mem_set = openmp_mem_set,
    .instance_create = openmp_instance_create,
    .instance_destroy = openmp_instance_destroy,
    .instance_fence = openmp_instance_fence,
    .fence_all = openmp_fence_all,
    .mem_fill = openmp_mem_fill,
    .launch = openmp_launch,
    .image_formats = NULL,
    .module_load = NULL,
    .module_unload = NULL,
    .kernel_get = NULL,
    .team_size_query = openmp_team_size_query,
    .graph_create = openmp_graph_create,
    .graph_launch = openmp_graph_launch,
    .graph_update = openmp_graph_update,
    .graph_destroy = openmp_graph_destroy,
    .mem_remap = openmp_mem_remap,
};

KK_PLUGIN_EXPORT const kk_plugin_ops_t *kk_plugin_openmp_entry(uint32_t core_abi, const kk_host_services_t *hs) {
  if (KK_PLUGIN_ABI_MAJOR_OF(core_abi) != KK_PLUGIN_ABI_MAJOR) {
    hs->error(hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0, "built for plugin ABI %u.%u, the core offers %u.%u",
              KK_PLUGIN_ABI_MAJOR, KK_PLUGIN_ABI_MINOR, KK_PLUGIN_ABI_MAJOR_OF(core_abi),
              KK_PLUGIN_ABI_MINOR_OF(core_abi));
    return NULL;
  }
  return &openmp_ops;
}
