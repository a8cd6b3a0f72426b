/* plugins/threads/threads_plugin.c -- the threads backend's entry point and operations table: options, the one host device, lifetime. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_common.h"
#include "host_option.h"
#include "threads_internal.h"
#include "threads_error.h"

static kk_status_t threads_init(const kk_host_services_t *hs, void **out) {
  *out = NULL;
  threads_ctx_t *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    return threads_fail(hs, ENOMEM, "init: allocating the backend's state");
  ctx->hs = hs;
  int n = kkh_config_num_threads(hs);
  if (n == 0)
    n = kkh_num_cores();
  kk_status_t st;
  if (n > THREADS_MAX_THREADS) {
    st = hs->error(hs->core, KK_ERROR_LIMIT, NULL, 0, "num_threads %d exceeds the backend's limit of %d threads", n,
                   THREADS_MAX_THREADS);
    goto fail_free_ctx;
  }
  ctx->nthreads = n;
  double spin_us;
  long inst_threads;
  if ((st = kkh_option_double(hs, "threads", "spin_us", THREADS_DEFAULT_SPIN_US, 0, THREADS_MAX_SPIN_US, &spin_us)) !=
          KK_OK ||
      (st = kkh_option_long(hs, "threads", "instance_threads", n / 2 > 1 ? n / 2 : 1, 1, THREADS_MAX_THREADS,
                            &inst_threads)) != KK_OK ||
      (st = kkh_option_bool(hs, "threads", "bind", false, &ctx->bind)) != KK_OK)
    goto fail_free_ctx;
  ctx->spin_ns = (uint64_t)(spin_us * 1000.0);
  ctx->instance_threads = (int)inst_threads;
  atomic_init(&ctx->next_target, 0);
  int rc = kkh_inst_list_init(&ctx->instances);
  if (rc != 0) {
    st = threads_fail(hs, rc, "init: pthread_mutex_init");
    goto fail_free_ctx;
  }
  hs->log(hs->core, KK_LOG_DEBUG, "%d threads, %d per created instance, spin %g us, binding %s", n,
          ctx->instance_threads, spin_us, ctx->bind ? "on" : "off");
  *out = ctx;
  return KK_OK;

fail_free_ctx:
  free(ctx);
  return st;
}

static void threads_finalize(void *vctx) {
  threads_ctx_t *ctx = vctx;
  if (!ctx)
    return;
  /* The core destroys instances first; whatever is left is destroyed here. */
  while (ctx->instances.head)
    threads_instance_destroy(ctx, ctx->instances.head);
  threads_pool_destroy(ctx->pool);
  threads_topo_close(ctx);
  kkh_inst_list_destroy(&ctx->instances);
  free(ctx);
}

static kk_status_t threads_device_props(void *vctx, int32_t dev, kk_plugin_device_t *p) {
  threads_ctx_t *ctx = vctx;
  if (dev != 0)
    return ctx->hs->error(ctx->hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0, "device_props: no device %d", dev);
  kkh_host_device_props_threads(p, ctx->nthreads);
  return KK_OK;
}

/* Starts the default instance's pool: workers 1..n-1, bound to the first
 * targets; the application thread that launches is thread 0. */
static kk_status_t threads_device_open(void *vctx, int32_t dev) {
  threads_ctx_t *ctx = vctx;
  if (dev != 0)
    return ctx->hs->error(ctx->hs->core, KK_ERROR_INVALID_ARGUMENT, NULL, 0, "device_open: no device %d", dev);
  if (ctx->pool)
    return KK_OK;
  if (ctx->nthreads > 1)
    threads_topo_open(ctx);
  kk_status_t st = threads_pool_create(ctx, ctx->nthreads, 0, "the default instance", &ctx->pool);
  if (st != KK_OK)
    threads_topo_close(ctx);
  return st;
}

static const kk_plugin_ops_t threads_ops = {
    .struct_size = sizeof(kk_plugin_ops_t),
    .abi_version = KK_PLUGIN_ABI_VERSION,
    .name = "threads",
    .priority = 20,
    .flags = KK_PLUGIN_FLAG_HOST,
    .tools_device_type = KK_TOOLS_DEVICE_THREADS,
    .init = threads_init,
    .finalize = threads_finalize,
    .device_count = kkh_device_count,
    .device_props = threads_device_props,
    .device_open = threads_device_open,
    .space_count = kkh_space_count,
    .space_props = kkh_space_props,
    .mem_alloc = threads_mem_alloc,
    .mem_free = kkh_mem_free_op,
    .mem_copy = threads_mem_copy,
    .mem_set = threads_mem_set,
    .instance_create = threads_instance_create,
    .instance_destroy = threads_instance_destroy,
    .instance_fence = threads_instance_fence,
    .fence_all = threads_fence_all,
    .mem_fill = threads_mem_fill,
    .launch = threads_launch,
    .image_formats = NULL,
    .module_load = NULL,
    .module_unload = NULL,
    .kernel_get = NULL,
    .team_size_query = threads_team_size_query,
    .graph_create = threads_graph_create,
    .graph_launch = threads_graph_launch,
    .graph_update = threads_graph_update,
    .graph_destroy = threads_graph_destroy,
    .mem_remap = threads_mem_remap,
};

KK_PLUGIN_EXPORT const kk_plugin_ops_t *kk_plugin_threads_entry(uint32_t core_abi, const kk_host_services_t *hs) {
  if (KK_PLUGIN_ABI_MAJOR_OF(core_abi) != KK_PLUGIN_ABI_MAJOR) {
    hs->error(hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0, "built for plugin ABI %u.%u, the core offers %u.%u",
              KK_PLUGIN_ABI_MAJOR, KK_PLUGIN_ABI_MINOR, KK_PLUGIN_ABI_MAJOR_OF(core_abi),
              KK_PLUGIN_ABI_MINOR_OF(core_abi));
    return NULL;
  }
  return &threads_ops;
}
