/* tests/fake/fake_plugin.c -- one source, built as several fake backend plugins, each failing the loader in one way. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kk/plugin.h>

#define STR2(x) #x
#define STR(x) STR2(x)
#define CAT3(a, b, c) a##b##c
#define ENTRY(name) CAT3(kk_plugin_, name, _entry)

static const kk_host_services_t *g_hs;

/* Plugins that take the process down (tests/faults/check_probe.c): a
 * segfault, an abort or a hang, in the entry or in init. */
#if defined(FAKE_MODE_SEGV_ENTRY) || defined(FAKE_MODE_SEGV_INIT)
static void misbehave(void) {
  /* a wild address, not NULL: UBSan's null check would turn a NULL store
   * into a report and an exit, and the test wants the signal */
  volatile uintptr_t wild = 16;
  *(volatile int *)wild = 1;
}
#elif defined(FAKE_MODE_ABORT_ENTRY) || defined(FAKE_MODE_ABORT_INIT)
static void misbehave(void) {
  static const char msg[] = "fake plugin: giving up\n";
  (void)!write(2, msg, sizeof msg - 1);
  abort();
}
#elif defined(FAKE_MODE_HANG_ENTRY) || defined(FAKE_MODE_HANG_INIT)
static void misbehave(void) {
  for (;;)
    pause();
}
#endif

#ifdef FAKE_MODE_UNDEF
/* Defined nowhere: binding this plugin fails with "undefined symbol". */
extern int kk_fake_missing_function(void);
#endif

static kk_status_t fake_init(const kk_host_services_t *hs, void **ctx) {
  g_hs = hs;
  *ctx = &g_hs;
#if defined(FAKE_MODE_SEGV_INIT) || defined(FAKE_MODE_ABORT_INIT) || defined(FAKE_MODE_HANG_INIT)
  misbehave();
#endif
#ifdef FAKE_MODE_INITFAIL
  return hs->error(hs->core, KK_ERROR_BACKEND, "FAKE_ERROR_DRIVER", 999, "fakeDriverInit: the driver refused to start");
#endif
#ifdef FAKE_MODE_UNDEF
  return kk_fake_missing_function() ? KK_OK : KK_ERROR_BACKEND;
#endif
  return KK_OK;
}

static void fake_finalize(void *ctx) { (void)ctx; }

static int32_t fake_device_count(void *ctx, const char **why_none) {
  (void)ctx;
#ifdef FAKE_MODE_NODEV
  *why_none = "no fake accelerator is present";
  return 0;
#else
  (void)why_none;
  return 2;
#endif
}

static kk_status_t fake_device_props(void *ctx, int32_t dev, kk_plugin_device_t *p) {
  (void)ctx;
  strcpy(p->name, dev == 0 ? "fake device zero" : "fake device one");
  strcpy(p->vendor, "kk tests");
  strcpy(p->arch, "fake");
  p->preferred_layout = KK_LAYOUT_LEFT;
  p->concurrency = 1;
  p->warp_size = 1;
  p->max_team_size = 1;
  p->max_vector_length = 1;
  return KK_OK;
}

static kk_status_t fake_device_open(void *ctx, int32_t dev) {
  (void)ctx, (void)dev;
  return KK_OK;
}

static int32_t fake_space_count(void *ctx) {
  (void)ctx;
  return 1;
}

static kk_status_t fake_space_props(void *ctx, int32_t s, kk_plugin_space_t *p) {
  (void)ctx, (void)s;
  strcpy(p->name, "FakeSpace");
  p->flags = KK_SPACE_HOST_ACCESSIBLE | KK_SPACE_DEVICE_ACCESSIBLE | KK_SPACE_DEFAULT;
  return KK_OK;
}

#ifndef FAKE_MODE_NOREQ
static kk_status_t fake_mem_alloc(void *ctx, int32_t s, size_t bytes, void **ptr) {
  (void)ctx, (void)s;
  if (bytes > ((size_t)1 << 40))
    return g_hs->error(g_hs->core, KK_ERROR_OUT_OF_MEMORY, "FAKE_ERROR_OOM", 2, "fakeMalloc(%zu) failed", bytes);
  *ptr = malloc(bytes);
  return *ptr ? KK_OK : KK_ERROR_OUT_OF_MEMORY;
}
#endif

static kk_status_t fake_mem_free(void *ctx, int32_t s, void *ptr) {
  (void)ctx, (void)s;
  free(ptr);
  return KK_OK;
}

static kk_status_t fake_mem_copy(void *ctx, void *inst, void *dst, int32_t ds, const void *src, int32_t ss,
                                 size_t bytes) {
  (void)ctx, (void)inst, (void)ds, (void)ss;
  memmove(dst, src, bytes);
  return KK_OK;
}

static kk_status_t fake_mem_set(void *ctx, void *inst, void *dst, int32_t s, int v, size_t bytes) {
  (void)ctx, (void)inst, (void)s;
  memset(dst, v, bytes);
  return KK_OK;
}

static int g_instance_token;

static kk_status_t fake_instance_create(void *ctx, void **inst) {
  (void)ctx;
  *inst = &g_instance_token;
  return KK_OK;
}

static kk_status_t fake_instance_destroy(void *ctx, void *inst) {
  (void)ctx, (void)inst;
  return KK_OK;
}

static kk_status_t fake_fence(void *ctx, void *inst) {
  (void)ctx, (void)inst;
  return KK_OK;
}

static kk_status_t fake_fence_all(void *ctx) {
  (void)ctx;
  return KK_OK;
}

static kk_status_t fake_mem_fill(void *ctx, void *inst, void *dst, int32_t s, const void *pattern, size_t psize,
                                 size_t count) {
  (void)ctx, (void)inst, (void)s;
  for (size_t i = 0; i < count; i++)
    memcpy((char *)dst + i * psize, pattern, psize);
  return KK_OK;
}

/* Runs host entry points serially: the fake device's memory is host memory. */
static kk_status_t fake_launch(void *ctx, void *inst, const kk_launch_t *l) {
  (void)ctx, (void)inst;
  const kk_kernel_t *k = l->kernel;
#ifdef FAKE_MODE_DEVICE
  if (l->device_kernel != (void *)k)
    return g_hs->error(g_hs->core, KK_ERROR_INTERNAL, NULL, 0, "kernel '%s': the launch has the handle %p, not %p",
                       k->name, l->device_kernel, (const void *)k);
#endif
  if (l->kind == KK_KIND_FOR && k->host_for) {
    kk_host_thread_t th;
    memset(&th, 0, sizeof th);
    th.nthreads = th.team_size = th.vector_length = 1;
    k->host_for(l->args, l->begin, l->end, &th);
    return KK_OK;
  }
  return g_hs->error(g_hs->core, KK_ERROR_UNSUPPORTED, NULL, 0, "the fake backend runs only host for-kernels");
}

#ifdef FAKE_MODE_DEVICE
/* A device backend without a device (tests/faults/race.c): modules load
 * from no image, and a kernel is found lazily, as CUDA's lazy loading does:
 * the first kernel_get of a kernel (the one at module load) finds nothing,
 * the next one (its first launch) finds it, so that the first launch takes
 * the core's slow path.  The core calls both under its registry lock. */
static int g_module_token;
static const kk_kernel_t *g_seen[64];
static int g_nseen;

static kk_status_t fake_module_load(void *ctx, const kk_module_t *m, const kk_image_t *img, void **pmod) {
  (void)ctx, (void)m, (void)img;
  *pmod = &g_module_token;
  return KK_OK;
}

static kk_status_t fake_module_unload(void *ctx, void *pmod) {
  (void)ctx, (void)pmod;
  return KK_OK;
}

static kk_status_t fake_kernel_get(void *ctx, void *pmod, const kk_kernel_t *k, void **pk) {
  (void)ctx, (void)pmod;
  *pk = NULL;
  for (int i = 0; i < g_nseen; i++)
    if (g_seen[i] == k) {
      *pk = (void *)k; /* the handle: the kernel itself, whose host code the launch runs */
      return KK_OK;
    }
  if (g_nseen < (int)(sizeof g_seen / sizeof *g_seen))
    g_seen[g_nseen++] = k;
  return KK_OK;
}
#endif

static kk_plugin_ops_t fake_ops = {
#if defined(FAKE_MODE_OLDMINOR)
    /* An ABI 1.0 plugin compiled before the optional members existed. */
    .struct_size = offsetof(kk_plugin_ops_t, mem_fill),
    .abi_version = KK_PLUGIN_ABI_MAKE(1, 0),
#elif defined(FAKE_MODE_ABIMAJOR)
    .struct_size = sizeof(kk_plugin_ops_t),
    .abi_version = KK_PLUGIN_ABI_MAKE(KK_PLUGIN_ABI_MAJOR + 1, 0),
#else
    .struct_size = sizeof(kk_plugin_ops_t),
    .abi_version = KK_PLUGIN_ABI_VERSION,
#endif
#ifdef FAKE_MODE_BADNAME
    .name = "someone_else",
#else
    .name = STR(FAKE_NAME),
#endif
    .priority = 50,
    .flags = 0,
    .tools_device_type = 40,
    .init = fake_init,
    .finalize = fake_finalize,
    .device_count = fake_device_count,
    .device_props = fake_device_props,
    .device_open = fake_device_open,
    .space_count = fake_space_count,
    .space_props = fake_space_props,
#ifndef FAKE_MODE_NOREQ
    .mem_alloc = fake_mem_alloc,
#endif
    .mem_free = fake_mem_free,
    .mem_copy = fake_mem_copy,
    .mem_set = fake_mem_set,
    .instance_create = fake_instance_create,
    .instance_destroy = fake_instance_destroy,
    .instance_fence = fake_fence,
    .fence_all = fake_fence_all,
    .mem_fill = fake_mem_fill, /* cut off by struct_size in the old-minor plugin */
    .launch = fake_launch,
#ifdef FAKE_MODE_DEVICE
    .module_load = fake_module_load,
    .module_unload = fake_module_unload,
    .kernel_get = fake_kernel_get,
#endif
};

#ifdef FAKE_MODE_NOSYM
/* Exports a symbol, but not the entry the loader looks for. */
KK_PLUGIN_EXPORT const kk_plugin_ops_t *kk_plugin_not_the_entry(uint32_t abi, const kk_host_services_t *hs) {
  (void)abi, (void)hs;
  return &fake_ops;
}
#else
KK_PLUGIN_EXPORT const kk_plugin_ops_t *ENTRY(FAKE_NAME)(uint32_t abi, const kk_host_services_t *hs) {
  (void)abi, (void)hs;
#if defined(FAKE_MODE_SEGV_ENTRY) || defined(FAKE_MODE_ABORT_ENTRY) || defined(FAKE_MODE_HANG_ENTRY)
  misbehave();
#endif
  return &fake_ops;
}
#endif
