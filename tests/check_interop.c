/* tests/check_interop.c -- native queues (plugin ABI 1.4): an instance's queue, and an instance on the program's own queue.
 *
 * Run with a backend name: serial (no native queue: refused), threads12 (the
 * threads plugin built against plugin ABI 1.2, tests/oldabi: refused, as
 * predating 1.4), opencl (PoCL
 * here; the queue and context are real OpenCL objects, checked through
 * libOpenCL itself) or cuda (on a CUDA machine, through libcuda).  The
 * program's queue is created with the vendor's own API, work is queued on it
 * through kk, and after kk_instance_destroy the queue must still be the
 * program's (OpenCL: its reference count is still 1). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk.h>

#include "testutil.h"

static const char *g_backend = "serial";

/* The backends that have native queues; the others must refuse. */
static int has_queues(void) { return strcmp(g_backend, "cuda") == 0 || strcmp(g_backend, "opencl") == 0; }
static char *g_plugin_path;

#define OK(call) ck_assert_msg((call) == KK_OK, "%s failed: %s", #call, kk_last_error())

static void setup(void) {
  tu_clear_env();
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = g_backend;
  s.plugin_path = g_plugin_path;
  s.disable_warnings = 1;
  ck_assert_msg(kk_initialize_with_settings(&s) == KK_OK, "initializing %s: %s", g_backend, kk_last_error());
}

static void teardown(void) { kk_finalize(); }

/* ---- the vendor's own API, opened as a program would have it ---------------------------- */

static struct {
  void *(*create_queue)(void *ctx, void *dev, const void *props, int *err);
  int (*queue_info)(void *q, unsigned what, size_t size, void *value, size_t *ret);
  int (*release_queue)(void *q);
  int (*finish)(void *q);
  int (*device_info)(void *dev, unsigned what, size_t size, void *value, size_t *ret);
  void *(*create_context)(const intptr_t *props, unsigned ndev, void *const *devs, void *notify, void *user, int *err);
  int (*release_context)(void *ctx);
} CL;
enum {
  CL_QUEUE_CONTEXT = 0x1090,
  CL_QUEUE_DEVICE = 0x1091,
  CL_QUEUE_REFERENCE_COUNT = 0x1092,
  CL_DEVICE_PLATFORM = 0x1031,
  CL_CONTEXT_PLATFORM = 0x1084
};

static struct {
  int (*ctx_set)(void *ctx);
  int (*stream_create)(void **s, unsigned flags);
  int (*stream_destroy)(void *s);
  int (*stream_sync)(void *s);
} CU;

static void *open_sym(void *h, const char *name) {
  void *p = dlsym(h, name);
  ck_assert_msg(p != NULL, "%s not found", name);
  return p;
}

static void open_vendor(kk_native_kind_t kind) {
  if (kind == KK_NATIVE_OPENCL) {
    void *h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h != NULL, "libOpenCL.so.1: %s", dlerror());
    *(void **)&CL.create_queue = open_sym(h, "clCreateCommandQueueWithProperties");
    *(void **)&CL.queue_info = open_sym(h, "clGetCommandQueueInfo");
    *(void **)&CL.release_queue = open_sym(h, "clReleaseCommandQueue");
    *(void **)&CL.finish = open_sym(h, "clFinish");
    *(void **)&CL.device_info = open_sym(h, "clGetDeviceInfo");
    *(void **)&CL.create_context = open_sym(h, "clCreateContext");
    *(void **)&CL.release_context = open_sym(h, "clReleaseContext");
  } else if (kind == KK_NATIVE_CUDA) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h != NULL, "libcuda.so.1: %s", dlerror());
    *(void **)&CU.ctx_set = open_sym(h, "cuCtxSetCurrent");
    *(void **)&CU.stream_create = open_sym(h, "cuStreamCreate");
    *(void **)&CU.stream_destroy = open_sym(h, "cuStreamDestroy_v2");
    *(void **)&CU.stream_sync = open_sym(h, "cuStreamSynchronize");
  }
}

/* ---- tests ------------------------------------------------------------------------------- */

START_TEST(bad_arguments) {
  kk_native_queue_t q;
  ck_assert_int_eq(kk_instance_native_queue(NULL, &q), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_instance_native_queue(kk_instance_default(), NULL), KK_ERROR_INVALID_ARGUMENT);
  kk_instance_t *inst = (kk_instance_t *)0x1;
  ck_assert_int_eq(kk_instance_create_native(NULL, NULL, &inst), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_instance_create_native: queue is NULL");
  /* the host backend has no native queue */
  ck_assert_int_eq(kk_instance_native_queue(kk_instance_host(), &q), KK_ERROR_UNSUPPORTED);
  ck_assert_int_eq(q.kind, KK_NATIVE_NONE);
  ck_assert_contains(kk_last_error(), "has no native queue");
  kk_native_queue_t cuq = {KK_NATIVE_CUDA, 0, (void *)0x10, NULL};
  ck_assert_int_eq(kk_instance_create_native(kk_backend_host(), &cuq, &inst), KK_ERROR_UNSUPPORTED);
  ck_assert_ptr_null(inst);
}
END_TEST

/* The default and a created instance each have their own queue. */
START_TEST(instance_queues) {
  kk_native_queue_t q0, q1;
  if (!has_queues()) {
    ck_assert_int_eq(kk_instance_native_queue(kk_instance_default(), &q0), KK_ERROR_UNSUPPORTED);
    ck_assert_int_eq(q0.kind, KK_NATIVE_NONE);
    if (strcmp(g_backend, "threads12") == 0) /* an older plugin: its table ends before the 1.4 members */
      ck_assert_contains(kk_last_error(), "backend threads12 has no native queue (its plugin predates plugin ABI 1.4)");
    kk_native_queue_t any = {KK_NATIVE_OPENCL, 0, (void *)0x10, (void *)0x20};
    kk_instance_t *inst = NULL;
    ck_assert_int_eq(kk_instance_create_native(NULL, &any, &inst), KK_ERROR_UNSUPPORTED);
    ck_assert_ptr_null(inst);
    return;
  }
  OK(kk_instance_native_queue(kk_instance_default(), &q0));
  ck_assert_int_eq(q0.kind, strcmp(g_backend, "cuda") == 0 ? KK_NATIVE_CUDA : KK_NATIVE_OPENCL);
  ck_assert_ptr_nonnull(q0.queue);
  ck_assert_ptr_nonnull(q0.context);
  kk_instance_t *inst = NULL;
  OK(kk_instance_create(NULL, &inst));
  OK(kk_instance_native_queue(inst, &q1));
  ck_assert_int_eq(q1.kind, q0.kind);
  ck_assert_ptr_ne(q1.queue, q0.queue);
  ck_assert_ptr_eq(q1.context, q0.context);
  if (q0.kind == KK_NATIVE_OPENCL) {
    /* real OpenCL objects: the queue belongs to the context it came with */
    open_vendor(KK_NATIVE_OPENCL);
    void *ctx = NULL;
    ck_assert_int_eq(CL.queue_info(q1.queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL), 0);
    ck_assert_ptr_eq(ctx, q1.context);
  }
  OK(kk_instance_destroy(inst));
  /* a kind of another backend, a NULL queue, another device */
  kk_native_queue_t bad = q0;
  bad.kind = q0.kind == KK_NATIVE_CUDA ? KK_NATIVE_OPENCL : KK_NATIVE_CUDA;
  ck_assert_int_eq(kk_instance_create_native(NULL, &bad, &inst), KK_ERROR_INVALID_ARGUMENT);
  bad = q0;
  bad.queue = NULL;
  ck_assert_int_eq(kk_instance_create_native(NULL, &bad, &inst), KK_ERROR_INVALID_ARGUMENT);
  bad = q0;
  bad.device = q0.device + 1;
  ck_assert_int_eq(kk_instance_create_native(NULL, &bad, &inst), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "device");
  bad = q0;
  bad.context = &bad;
  ck_assert_int_eq(kk_instance_create_native(NULL, &bad, &inst), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "context");
}
END_TEST

/* kk on the program's queue: work queued there lands, and the queue stays the program's. */
START_TEST(instance_on_programs_queue) {
  if (!has_queues())
    return; /* refused: instance_queues */
  kk_native_queue_t q0;
  OK(kk_instance_native_queue(kk_instance_default(), &q0));
  open_vendor(q0.kind);
  kk_native_queue_t mine = q0;
  if (q0.kind == KK_NATIVE_OPENCL) {
    void *dev = NULL;
    ck_assert_int_eq(CL.queue_info(q0.queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL), 0);
    int err = 0;
    mine.queue = CL.create_queue(q0.context, dev, NULL, &err);
    ck_assert_msg(mine.queue != NULL, "clCreateCommandQueueWithProperties: %d", err);
  } else {
    ck_assert_int_eq(CU.ctx_set(q0.context), 0);
    ck_assert_int_eq(CU.stream_create(&mine.queue, 0), 0);
  }
  kk_instance_t *inst = NULL;
  OK(kk_instance_create_native(NULL, &mine, &inst));
  kk_native_queue_t back;
  OK(kk_instance_native_queue(inst, &back));
  ck_assert_ptr_eq(back.queue, mine.queue);
  /* a fill queued through kk on that instance, read back */
  const int64_t n = 1000;
  kk_view_t *v = NULL;
  OK(kk_view_alloc(&v, "v", KK_DOUBLE, 1, &n));
  const double seven = 7.0;
  OK(kk_deep_copy_fill_async(inst, v, &seven));
  OK(kk_instance_fence(inst));
  double *h = malloc(sizeof(double) * (size_t)n);
  OK(kk_space_copy(NULL, h, kk_view_space(v), kk_view_data(v), sizeof(double) * (size_t)n, NULL));
  for (int64_t i = 0; i < n; i++)
    ck_assert(h[i] == 7.0);
  free(h);
  kk_view_release(v);
  OK(kk_instance_destroy(inst));
  /* still the program's queue: usable, and released by the program only */
  if (q0.kind == KK_NATIVE_OPENCL) {
    unsigned refs = 0;
    ck_assert_int_eq(CL.queue_info(mine.queue, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL), 0);
    ck_assert_uint_eq(refs, 1);
    ck_assert_int_eq(CL.finish(mine.queue), 0);
    ck_assert_int_eq(CL.release_queue(mine.queue), 0);
  } else {
    ck_assert_int_eq(CU.stream_sync(mine.queue), 0);
    ck_assert_int_eq(CU.stream_destroy(mine.queue), 0);
  }
}
END_TEST

/* OpenCL: a queue of another context on the backend's own device, given
 * without its context, is refused when the instance is made (it would fail
 * at the first launch with CL_INVALID_CONTEXT), and stays the program's. */
START_TEST(foreign_queue_refused) {
  if (strcmp(g_backend, "opencl") != 0)
    return;
  kk_native_queue_t q0;
  OK(kk_instance_native_queue(kk_instance_default(), &q0));
  open_vendor(KK_NATIVE_OPENCL);
  void *dev = NULL, *platform = NULL;
  ck_assert_int_eq(CL.queue_info(q0.queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL), 0);
  ck_assert_int_eq(CL.device_info(dev, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL), 0);
  const intptr_t props[] = {CL_CONTEXT_PLATFORM, (intptr_t)platform, 0};
  int err = 0;
  void *other = CL.create_context(props, 1, &dev, NULL, NULL, &err);
  ck_assert_msg(other != NULL, "clCreateContext: %d", err);
  ck_assert_ptr_ne(other, q0.context);
  kk_native_queue_t foreign = q0;
  foreign.queue = CL.create_queue(other, dev, NULL, &err);
  ck_assert_msg(foreign.queue != NULL, "clCreateCommandQueueWithProperties: %d", err);
  foreign.context = NULL;
  kk_instance_t *inst = (kk_instance_t *)0x1;
  ck_assert_int_eq(kk_instance_create_native(NULL, &foreign, &inst), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(inst);
  ck_assert_contains(kk_last_error(), "the queue belongs to another OpenCL context than this backend's");
  foreign.context = other; /* named, it is refused too */
  ck_assert_int_eq(kk_instance_create_native(NULL, &foreign, &inst), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "context");
  unsigned refs = 0;
  ck_assert_int_eq(CL.queue_info(foreign.queue, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL), 0);
  ck_assert_uint_eq(refs, 1);
  ck_assert_int_eq(CL.release_queue(foreign.queue), 0);
  ck_assert_int_eq(CL.release_context(other), 0);
  /* the backend's own context still works */
  const int64_t n = 10;
  kk_view_t *v = NULL;
  OK(kk_view_alloc(&v, "v", KK_DOUBLE, 1, &n));
  const double one = 1.0;
  OK(kk_deep_copy_fill(v, &one));
  kk_view_release(v);
}
END_TEST

int main(int argc, char **argv) {
  if (argc > 1)
    g_backend = argv[1];
  if (getenv("KOKKOS_PLUGIN_PATH"))
    g_plugin_path = strdup(getenv("KOKKOS_PLUGIN_PATH"));
  tu_clear_env();
  int probe = tu_probe_backend(g_backend, g_plugin_path);
  if (probe != 0)
    return probe;
  Suite *s = suite_create(g_backend);
  TCase *tc = tcase_create("interop");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, bad_arguments);
  tcase_add_test(tc, instance_queues);
  tcase_add_test(tc, instance_on_programs_queue);
  tcase_add_test(tc, foreign_queue_refused);
  suite_add_tcase(s, tc);
  int rc = tu_run(s);
  free(g_plugin_path);
  return rc;
}
