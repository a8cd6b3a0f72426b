/* tests/check_core.c -- the public API through libkk.so: status table, init/finalize balance, errors, spaces, instances. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "testutil.h"

#include <errno.h>
#include <stdatomic.h>

/* libkk alone: the build tree's plugins, which this libkk would find, stay out. */
static void clear_env(void) {
  tu_clear_env();
  setenv("KK_PLUGIN_PATH_NO_BUILD_TREE", "1", 1);
}

static kk_status_t init_quiet(void) {
  clear_env();
  kk_settings_t s = KK_SETTINGS_INIT;
  s.disable_warnings = 1;
  return kk_initialize_with_settings(&s);
}

START_TEST(status_table_complete) {
  static const kk_status_t all[] = {
#define X(name, value, msg) KK_##name,
      KK_STATUS_MAP(X)
#undef X
  };
  ck_assert_int_eq(sizeof(kk_status_t), 4);
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
    ck_assert_str_ne(kk_status_str(all[i]), "unknown status");
    ck_assert_str_ne(kk_status_name(all[i]), "UNKNOWN");
    for (size_t j = 0; j < i; j++)
      ck_assert_int_ne(all[i], all[j]);
  }
  ck_assert_str_eq(kk_status_name(KK_ERROR_OUT_OF_MEMORY), "ERROR_OUT_OF_MEMORY");
  ck_assert_str_eq(kk_status_str(KK_OK), "success");
  ck_assert_str_eq(kk_status_str((kk_status_t)-12345), "unknown status");
  ck_assert_int_eq(KK_OK, 0);
  ck_assert_int_gt(KK_EXIT_REQUESTED, 0);
}
END_TEST

START_TEST(unbalanced_calls_are_errors) {
  ck_assert(!kk_is_initialized());
  ck_assert_int_eq(kk_finalize(), KK_ERROR_NOT_INITIALIZED);
  ck_assert_contains(kk_last_error(), "kk_finalize: kk is not initialized");
  ck_assert_int_eq(init_quiet(), KK_OK);
  ck_assert(kk_is_initialized());
  ck_assert_int_eq(init_quiet(), KK_ERROR_ALREADY_INITIALIZED);
  ck_assert(kk_is_initialized()); /* the first initialization is kept */
  ck_assert_str_eq(kk_backend_default(), "serial");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  ck_assert(!kk_is_initialized());
  ck_assert_int_eq(kk_finalize(), KK_ERROR_NOT_INITIALIZED);
  /* initialize again after finalize */
  ck_assert_int_eq(init_quiet(), KK_OK);
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

/* kk_push_finalize_hook: the hooks run at kk_finalize, last pushed first,
 * while kk is initialized, each once; a hook may push another */
static char g_hook_order[8];
static int g_hook_n;
static kk_view_t *g_hook_view;
static void hook_pushed(void *arg) { g_hook_order[g_hook_n++] = *(const char *)arg; }
static void hook_releases(void *arg) {
  g_hook_order[g_hook_n++] = *(const char *)arg;
  ck_assert(kk_is_initialized());
  kk_view_release(g_hook_view); /* what a library's cache keeps: released before kk warns of it */
  g_hook_view = NULL;
  static const char c = 'c';
  ck_assert_int_eq(kk_push_finalize_hook(hook_pushed, (void *)&c), KK_OK);
}
START_TEST(finalize_hooks) {
  static const char a = 'a', b = 'b';
  ck_assert_int_eq(kk_push_finalize_hook(NULL, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_push_finalize_hook");
  ck_assert_int_eq(init_quiet(), KK_OK);
  const int64_t ten = 10;
  ck_assert_int_eq(kk_view_alloc(&g_hook_view, "cached", KK_DOUBLE, 1, &ten), KK_OK);
  ck_assert_int_eq(kk_push_finalize_hook(hook_pushed, (void *)&a), KK_OK);
  ck_assert_int_eq(kk_push_finalize_hook(hook_releases, (void *)&b), KK_OK);
  g_hook_n = 0;
  ck_assert_int_eq(kk_finalize(), KK_OK);
  ck_assert_int_eq(g_hook_n, 3);
  ck_assert_int_eq(memcmp(g_hook_order, "bca", 3), 0);
  ck_assert_ptr_null(g_hook_view);
  /* each once: the next initialization's finalize runs none */
  ck_assert_int_eq(init_quiet(), KK_OK);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  ck_assert_int_eq(g_hook_n, 3);
}
END_TEST

START_TEST(calls_before_initialize) {
  void *p;
  ck_assert_int_eq(kk_fence(), KK_ERROR_NOT_INITIALIZED);
  ck_assert_contains(kk_last_error(), "kk_fence");
  ck_assert_int_eq(kk_space_alloc(NULL, "x", 8, &p), KK_ERROR_NOT_INITIALIZED);
  ck_assert_ptr_null(kk_space_default());
  ck_assert_ptr_null(kk_instance_default());
  ck_assert_int_eq(kk_plugin_count(), 0);
  ck_assert_int_eq(kk_print_configuration(stderr), KK_ERROR_NOT_INITIALIZED);
}
END_TEST

static int handler_calls;
static kk_status_t handler_status;
static void handler(kk_status_t st, const char *msg, void *user) {
  handler_calls++;
  handler_status = st;
  ck_assert_ptr_eq(user, &handler_calls);
  ck_assert_str_eq(msg, kk_last_error());
}

START_TEST(error_handler_and_clear) {
  handler_calls = 0;
  ck_assert_ptr_null(kk_set_error_handler(handler, &handler_calls));
  ck_assert_int_eq(kk_finalize(), KK_ERROR_NOT_INITIALIZED);
  ck_assert_int_eq(handler_calls, 1);
  ck_assert_int_eq(handler_status, KK_ERROR_NOT_INITIALIZED);
  ck_assert_int_eq(kk_last_status(), KK_ERROR_NOT_INITIALIZED);
  ck_assert_ptr_eq(kk_set_error_handler(NULL, NULL), handler);
  kk_clear_error();
  ck_assert_str_eq(kk_last_error(), "");
  ck_assert_int_eq(kk_last_status(), KK_OK);
}
END_TEST

/* kk_set_error: what a library above libkk reports goes through the same
 * last-error slot and handler as kk's own failures. */
START_TEST(set_error_from_a_library) {
  handler_calls = 0;
  kk_set_error_handler(handler, &handler_calls);
  ck_assert_int_eq(kk_set_error(KK_ERROR_COMM, "kk_mpi_send: 'x' to rank %d: %s", 5, "MPI_ERR_RANK: invalid rank"),
                   KK_ERROR_COMM);
  ck_assert_str_eq(kk_last_error(), "kk_mpi_send: 'x' to rank 5: MPI_ERR_RANK: invalid rank");
  ck_assert_int_eq(kk_last_status(), KK_ERROR_COMM);
  ck_assert_int_eq(handler_calls, 1);
  ck_assert_int_eq(handler_status, KK_ERROR_COMM);
  /* a message built from the previous one */
  ck_assert_int_eq(kk_set_error(KK_ERROR_INVALID_ARGUMENT, "outer: %s", kk_last_error()), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "outer: kk_mpi_send: 'x' to rank 5: MPI_ERR_RANK: invalid rank");
  ck_assert_int_eq(handler_calls, 2);
  /* a long message is cut, not overrun */
  char big[5000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  kk_set_error(KK_ERROR_INTERNAL, "%s", big);
  ck_assert_uint_lt(strlen(kk_last_error()), 2048);
  ck_assert_contains(kk_last_error(), "aaa...");
  /* KK_OK clears, without a handler call */
  ck_assert_int_eq(kk_set_error(KK_OK, "ignored"), KK_OK);
  ck_assert_str_eq(kk_last_error(), "");
  ck_assert_int_eq(kk_last_status(), KK_OK);
  ck_assert_int_eq(handler_calls, 3); /* three errors recorded above, none for KK_OK */
  kk_set_error_handler(NULL, NULL);
  ck_assert_str_eq(kk_status_name(KK_ERROR_COMM), "ERROR_COMM");
}
END_TEST

START_TEST(versions) {
  ck_assert_str_eq(kk_version(), KK_VERSION_STRING);
  ck_assert_uint_eq(kk_plugin_abi_version() >> 16, 1);
  ck_assert_uint_eq(kk_tools_abi_version(), 20240906u);
}
END_TEST

START_TEST(space_memory) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  kk_space_t *host = kk_space_host();
  ck_assert_ptr_nonnull(host);
  ck_assert_ptr_eq(kk_space_find("Host"), host);
  ck_assert_ptr_null(kk_space_find("Cuda"));
  ck_assert_str_eq(kk_space_backend(host), "serial");
  ck_assert(kk_space_host_accessible(host));
  ck_assert_int_eq(kk_space_default_layout(host), KK_LAYOUT_RIGHT);
  ck_assert_int_ge(kk_space_count(), 1);
  double *a, *b;
  ck_assert_int_eq(kk_space_alloc(host, "a", 1000 * sizeof(double), (void **)&a), KK_OK);
  ck_assert_int_eq(kk_space_alloc(host, "b", 1000 * sizeof(double), (void **)&b), KK_OK);
  ck_assert_uint_eq((uintptr_t)a % 64, 0);
  /* 2 MiB and more start on a huge-page boundary (docs/backends.md) */
  unsigned char *big;
  size_t big_bytes = ((size_t)3 << 20) + 5;
  ck_assert_int_eq(kk_space_alloc(host, "big", big_bytes, (void **)&big), KK_OK);
  ck_assert_uint_eq((uintptr_t)big % ((size_t)2 << 20), 0);
  big[0] = 1, big[big_bytes - 1] = 2;
  ck_assert_int_eq(big[0] + big[big_bytes - 1], 3);
  ck_assert_int_eq(kk_space_free(host, big), KK_OK);
  for (int i = 0; i < 1000; i++)
    a[i] = i * 0.5;
  ck_assert_int_eq(kk_space_copy(host, b, host, a, 1000 * sizeof(double), NULL), KK_OK);
  for (int i = 0; i < 1000; i++)
    ck_assert(b[i] == i * 0.5);
  double plain[4] = {1, 2, 3, 4};
  ck_assert_int_eq(kk_space_copy(host, b, NULL, plain, sizeof plain, kk_instance_host()), KK_OK);
  ck_assert(b[3] == 4.0);
  ck_assert_int_eq(kk_space_free(host, a), KK_OK);
  ck_assert_int_eq(kk_space_free(host, b), KK_OK);
  void *z = (void *)1;
  ck_assert_int_eq(kk_space_alloc(host, "empty", 0, &z), KK_OK);
  ck_assert_ptr_null(z);
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

START_TEST(out_of_memory_names_label_size_space) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  void *p = (void *)1;
  size_t huge = (size_t)1 << 62;
  ck_assert_int_eq(kk_space_alloc(kk_space_host(), "pressure", huge, &p), KK_ERROR_OUT_OF_MEMORY);
  ck_assert_ptr_null(p);
  ck_assert_contains(kk_last_error(), "'pressure'");
  ck_assert_contains(kk_last_error(), "4611686018427387904 bytes");
  ck_assert_contains(kk_last_error(), "memory space Host");
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

START_TEST(instances) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  kk_instance_t *a, *b;
  ck_assert_int_eq(kk_instance_create(NULL, &a), KK_OK);
  ck_assert_int_eq(kk_instance_create("serial", &b), KK_OK);
  ck_assert_str_eq(kk_instance_backend(a), "serial");
  ck_assert_int_eq(kk_instance_fence(a), KK_OK);
  ck_assert_int_eq(kk_instance_fence(kk_instance_default()), KK_OK);
  ck_assert_int_eq(kk_fence(), KK_OK);
  ck_assert_int_eq(kk_instance_destroy(kk_instance_default()), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "default instance cannot be destroyed");
  ck_assert_int_eq(kk_instance_destroy(NULL), KK_ERROR_INVALID_ARGUMENT);
  kk_instance_t *c = a;
  ck_assert_int_eq(kk_instance_create("cuda", &c), KK_ERROR_NOT_FOUND);
  ck_assert_contains(kk_last_error(), "backend 'cuda' is not active");
  ck_assert_ptr_null(c);
  ck_assert_int_eq(kk_instance_destroy(a), KK_OK);
  (void)b; /* left for kk_finalize to destroy */
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

/* A refused call says which argument is wrong, not "X or Y". */
START_TEST(messages_name_the_wrong_argument) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  kk_plugin_info_t pi = {.struct_size = sizeof pi};
  ck_assert_int_eq(kk_plugin_get_info(0, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_plugin_get_info: info is NULL");
  ck_assert_int_eq(kk_plugin_get_info(kk_plugin_count(), &pi), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "index 1 is out of range: kk_plugin_count() is 1");
  pi.struct_size = 4;
  ck_assert_int_eq(kk_plugin_get_info(0, &pi), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_plugin_get_info: info->struct_size is 4, smaller than any kk_plugin_info_t");
  kk_device_info_t di = {.struct_size = sizeof di};
  ck_assert_int_eq(kk_device_get_info(NULL, 0, &di), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_device_get_info: the backend name is NULL");
  ck_assert_int_eq(kk_device_get_info("nosuch", 0, &di), KK_ERROR_NOT_FOUND);
  ck_assert_contains(kk_last_error(), "kk_device_get_info: there is no backend 'nosuch'");
  ck_assert_int_eq(kk_device_get_info("serial", 3, &di), KK_ERROR_NOT_FOUND);
  ck_assert_contains(kk_last_error(), "kk_device_get_info: backend 'serial' has no device 3 (it has 1)");
  ck_assert_int_eq(kk_device_get_info("serial", 0, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_device_get_info: info is NULL");
  /* policies: checked before the kernel */
  ck_assert_int_eq(kk_parallel_for("p", NULL, NULL, NULL, 0), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_parallel_for 'p': the policy is NULL");
  kk_range_policy_t r = {8, 0, 10, 0, KK_SCHEDULE_STATIC, NULL};
  ck_assert_int_eq(kk_parallel_for("p", &r, NULL, NULL, 0), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "the policy's struct_size is 8, smaller than sizeof(kk_range_policy_t)");
  r.struct_size = sizeof r;
  r.schedule = (kk_schedule_t)7;
  ck_assert_int_eq(kk_parallel_for("p", &r, NULL, NULL, 0), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_for 'p': schedule 7 is neither KK_SCHEDULE_STATIC");
  kk_team_policy_t t = {sizeof t, 4, -2, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
  ck_assert_int_eq(kk_parallel_for_team("t", &t, NULL, NULL, 0), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_for_team 't': team size -2 is negative");
  t.team_size = 1, t.chunk = -1;
  ck_assert_int_eq(kk_parallel_for_team("t", &t, NULL, NULL, 0), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_for_team 't': chunk size -1 is negative");
  int n = 0;
  ck_assert_int_eq(kk_team_size_max(NULL, &t, &n), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_team_size_max: the kernel is NULL");
  /* views */
  int64_t ext = 4;
  kk_view_t *v = NULL, *o = NULL;
  ck_assert_int_eq(kk_view_alloc(&v, "vec", KK_DOUBLE, 1, &ext), KK_OK);
  ck_assert_int_eq(kk_deep_copy_fill(v, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_deep_copy_fill: view 'vec': the value is NULL");
  ck_assert_int_eq(kk_view_subview(v, NULL, &o), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_view_subview: view 'vec': slices is NULL (rank 1)");
  ck_assert_int_eq(kk_view_create_mirror(v, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_view_create_mirror: out is NULL");
  ck_assert_int_eq(kk_view_resize(&v, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_view_resize: view 'vec': extents is NULL (rank 1)");
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.struct_size = 0;
  ck_assert_int_eq(kk_view_create(&spec, &o), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_view_create: spec->struct_size is 0, smaller than any kk_view_spec_t");
  ck_assert_int_eq(kk_view_create(NULL, &o), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_view_create: spec is NULL");
  kk_scatter_view_t *sv;
  ck_assert_int_eq(kk_scatter_view_create(NULL, KK_SCATTER_SUM, KK_SCATTER_AUTO, &sv), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_scatter_view_create: target is NULL");
  kk_view_release(v);
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

START_TEST(configuration_report) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  FILE *f = tmpfile();
  ck_assert_int_eq(kk_print_configuration(f), KK_OK);
  ck_assert_int_eq(kk_print_configuration_json(f), KK_OK);
  rewind(f);
  char text[16384] = {0};
  ck_assert(fread(text, 1, sizeof text - 1, f) > 0);
  fclose(f);
  ck_assert_contains(text, "default backend: serial");
  ck_assert_contains(text, "\"default_backend\": \"serial\"");
  ck_assert_contains(text, "memory spaces: Host");
  kk_device_info_t d = {.struct_size = sizeof d};
  ck_assert_int_eq(kk_device_get_info("serial", 0, &d), KK_OK);
  ck_assert_int_eq(d.space_count, 1);
  ck_assert_str_eq(d.space_names[0], "Host");
  ck_assert(d.selected);
  ck_assert_int_eq(kk_device_get_info("serial", 1, &d), KK_ERROR_NOT_FOUND);
  ck_assert_int_eq(kk_num_threads(), 1);
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

START_TEST(print_configuration_flag) {
  clear_env();
  setenv("KOKKOS_PRINT_CONFIGURATION", "yes", 1);
  FILE *saved = stdout;
  stdout = tmpfile();
  kk_status_t st = kk_initialize(NULL, NULL);
  rewind(stdout);
  char text[8192] = {0};
  size_t n = fread(text, 1, sizeof text - 1, stdout);
  fclose(stdout);
  stdout = saved;
  ck_assert_int_eq(st, KK_OK);
  ck_assert(n > 0);
  ck_assert_contains(text, "plugin search path:");
  ck_assert_contains(text, "serial");
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST


/* ---- views, copies, scatter views, messages ---------------------------------------------------- */

/* A label of 1852 bytes or more cut the out-of-memory explanation and its
 * byte count: the label is shortened inside the message instead. */
START_TEST(long_label_keeps_the_out_of_memory_explanation) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  for (size_t len = 1800; len <= 9000; len += 1100) {
    char *label = malloc(len + 1);
    for (size_t k = 0; k < len; k++)
      label[k] = (char)('a' + k % 26);
    memcpy(label, "HEAD", 4);
    memcpy(label + len - 4, "TAIL", 4);
    label[len] = '\0';
    kk_view_t *v = NULL;
    const int64_t fits[2] = {(int64_t)1 << 23, (int64_t)1 << 23}; /* 2^49 bytes: more than any host has */
    ck_assert_int_eq(kk_view_alloc(&v, label, KK_DOUBLE, 2, fits), KK_ERROR_OUT_OF_MEMORY);
    const char *m = kk_last_error();
    ck_assert_uint_lt(strlen(m), 2048);
    ck_assert_contains(m, "kk_view_create: kk_space_alloc: allocating 'HEAD");
    ck_assert_contains(m, "TAIL' (562949953421312 bytes) in memory space Host of backend serial failed: ");
    char mark[64]; /* cut twice (the inner message, then the outer): the label's own length */
    snprintf(mark, sizeof mark, "...[%zu bytes]...", len);
    if (len > 1900)
      ck_assert_contains(m, mark);
    free(label);
  }
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

/* kk_view_wrap freed the view, then read its label for the message. */
START_TEST(wrap_null_data_names_the_view) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = "a label long enough to be overwritten once freed";
  spec.rank = 1;
  spec.extents[0] = 4;
  kk_view_t *v = (kk_view_t *)1;
  ck_assert_int_eq(kk_view_wrap(&spec, NULL, &v), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(v);
  ck_assert_str_eq(kk_last_error(), "kk_view_wrap: view 'a label long enough to be overwritten once freed': data is NULL");
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

static kk_view_t *vec(const char *label, kk_type_t t, int64_t n) {
  kk_view_t *v = NULL;
  ck_assert_int_eq(kk_view_alloc(&v, label, t, 1, &n), KK_OK);
  return v;
}

/* kk_deep_copy from int64 into double copied the bits and returned OK. */
START_TEST(deep_copy_refuses_another_element_type) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  kk_view_t *i = vec("counts", KK_INT64, 4), *d = vec("weights", KK_DOUBLE, 4), *u = vec("ids", KK_UINT64, 4);
  int64_t three = 3;
  ck_assert_int_eq(kk_deep_copy_fill(i, &three), KK_OK);
  ck_assert_int_eq(kk_deep_copy(d, i), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_deep_copy: views 'weights' (double) and 'counts' (int64_t) differ in element "
                                    "type: a deep copy does not convert");
  ck_assert(((double *)kk_view_data(d))[0] == 0.0);
  ck_assert_int_eq(kk_deep_copy(u, i), KK_ERROR_INVALID_ARGUMENT); /* the same size, another type */
  ck_assert_int_eq(kk_deep_copy_async(kk_instance_default(), d, i), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_deep_copy_async: views 'weights' (double) and 'counts' (int64_t)");
  kk_graph_t *g = NULL;
  ck_assert_int_eq(kk_graph_create(NULL, &g), KK_OK);
  ck_assert_int_eq(kk_graph_add_copy(g, d, i, NULL, 0, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "views 'weights' (double) and 'counts' (int64_t) differ in element type");
  ck_assert_int_eq(kk_graph_node_count(g), 0);
  ck_assert_int_eq(kk_graph_destroy(g), KK_OK);
  kk_instance_t *inst = NULL;
  ck_assert_int_eq(kk_instance_create(NULL, &inst), KK_OK);
  ck_assert_int_eq(kk_graph_begin_capture(inst), KK_OK);
  ck_assert_int_eq(kk_deep_copy_async(inst, d, i), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_graph_end_capture(inst, &g), KK_OK);
  ck_assert_int_eq(kk_graph_node_count(g), 0);
  ck_assert_int_eq(kk_graph_destroy(g), KK_OK);
  ck_assert_int_eq(kk_instance_destroy(inst), KK_OK);
  ck_assert_int_eq(kk_fence(), KK_OK);
  ck_assert(((double *)kk_view_data(d))[0] == 0.0);
  kk_view_release(i);
  kk_view_release(d);
  kk_view_release(u);
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

/* kk_scatter_view_create(v, 99, ...) said "this operation is not supported on elements of type double". */
START_TEST(scatter_view_names_an_unknown_operation) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  kk_view_t *v = vec("density", KK_DOUBLE, 4);
  kk_scatter_view_t *sv = (kk_scatter_view_t *)1;
  ck_assert_int_eq(kk_scatter_view_create(v, 99, KK_SCATTER_AUTO, &sv), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(sv);
  ck_assert_str_eq(kk_last_error(), "kk_scatter_view_create: view 'density': 99 is not a scatter operation (KK_SCATTER_SUM "
                                    "0, KK_SCATTER_MIN 1 or KK_SCATTER_MAX 2)");
  kk_view_release(v);
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

/* ---- handles that outlive kk_finalize ---------------------------------------------------------- */

/* A host kernel made by hand (no kkcc): adds its iteration count to *n. */
struct count_args {
  int64_t *n;
};
static void count_host(const void *args, int64_t b, int64_t e, const kk_host_thread_t *th) {
  (void)th;
  *((const struct count_args *)args)->n += e - b;
}
static kk_kernel_t count_kernel = {
    .struct_size = sizeof(kk_kernel_t),
    .abi_version = KK_KERNEL_ABI_VERSION,
    .name = "count",
    .kind = KK_KIND_FOR,
    .args_size = sizeof(struct count_args),
    .args_align = _Alignof(struct count_args),
    .host_for = count_host,
};

/* ---- a reducer larger than a partial-value slot ------------------------------------------------ */

/* The posix_memalign calls made in this process (the host executor's
 * buffers among them): libkk's references bind to this definition. */
static atomic_int g_memaligns;
int posix_memalign(void **p, size_t align, size_t n) {
  atomic_fetch_add(&g_memaligns, 1);
  void *q = aligned_alloc(align, (n + align - 1) / align * align);
  if (!q)
    return ENOMEM;
  *p = q;
  return 0;
}

/* A 512-byte value (a histogram of 64 counters): more than the 256 bytes a
 * host executor keeps per thread for partial values. */
struct hist {
  int64_t bin[64];
};
static void hist_init(void *v) { memset(v, 0, sizeof(struct hist)); }
static void hist_join(void *d, const void *s) {
  for (int i = 0; i < 64; i++)
    ((struct hist *)d)->bin[i] += ((const struct hist *)s)->bin[i];
}
static void hist_host(const void *args, int64_t b, int64_t e, void *acc, const kk_host_thread_t *th) {
  (void)args, (void)th;
  for (int64_t i = b; i < e; i++)
    ((struct hist *)acc)->bin[i % 64] += 1;
}
static const kk_reducer_info_t hist_reducer = {
    .count = 1,
    .value_size = sizeof(struct hist),
    .value_align = _Alignof(struct hist),
    .part = {{.op = KK_CUSTOM, .type = KK_TYPE_CUSTOM, .offset = 0, .size = sizeof(struct hist)}},
    .init = hist_init,
    .join = hist_join,
};
static kk_kernel_t hist_kernel = {
    .struct_size = sizeof(kk_kernel_t),
    .abi_version = KK_KERNEL_ABI_VERSION,
    .name = "hist",
    .kind = KK_KIND_REDUCE,
    .args_size = sizeof(struct count_args),
    .args_align = _Alignof(struct count_args),
    .reducer = &hist_reducer,
    .host_reduce = hist_host,
};

/* The host executor keeps the partial values of a large reducer between
 * launches: after the first launch, the next ones allocate nothing. */
START_TEST(large_reducer_allocates_once) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  struct count_args ca = {NULL};
  struct hist h;
  ck_assert_int_eq(kk_parallel_reduce("hist", KK_RANGE(0, 640), &hist_kernel, KK_ARGS(ca), KK_RESULT(h)), KK_OK);
  const int after_first = atomic_load(&g_memaligns);
  for (int r = 0; r < 3; r++) {
    memset(&h, 0xff, sizeof h);
    ck_assert_int_eq(kk_parallel_reduce("hist", KK_RANGE(0, 640 + r), &hist_kernel, KK_ARGS(ca), KK_RESULT(h)), KK_OK);
    for (int i = 0; i < 64; i++)
      ck_assert_int_eq(h.bin[i], 10 + (i < r));
  }
  const int allocations = atomic_load(&g_memaligns);
  ck_assert_int_eq(allocations, after_first);
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

/* kk_parallel_call is the kk_parallel_* call its kind names: the same
 * launch, the same checks and messages; a call it cannot read is refused. */
START_TEST(call_struct_is_the_named_call) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  int64_t n = 0;
  struct count_args ca = {&n};
  kk_call_t c = {sizeof c, KK_CALL_FOR, "count", KK_RANGE(3, 10), &count_kernel, &ca, sizeof ca, NULL, 0};
  ck_assert_int_eq(kk_parallel_call(&c), KK_OK);
  ck_assert_int_eq(kk_fence(), KK_OK);
  ck_assert_int_eq(n, 7);
  struct hist h;
  memset(&h, 0xff, sizeof h);
  kk_call_t r = {sizeof r, KK_CALL_REDUCE, NULL, KK_RANGE(0, 130), &hist_kernel, &ca, sizeof ca, &h, sizeof h};
  ck_assert_int_eq(kk_parallel_call(&r), KK_OK);
  ck_assert_int_eq(h.bin[0], 3);
  ck_assert_int_eq(h.bin[2], 2);
  /* the reduce call's checks, named as kk_parallel_reduce names them */
  r.result_size = 8;
  ck_assert_int_eq(kk_parallel_call(&r), KK_ERROR_KERNEL_MISMATCH);
  ck_assert_str_eq(kk_last_error(), "kk_parallel_reduce 'hist': kernel 'hist' reduces a 512-byte value, the result has "
                                    "8 bytes");
  c.kind = KK_CALL_SCAN; /* a for kernel is not a scan kernel */
  ck_assert_int_eq(kk_parallel_call(&c), KK_ERROR_KERNEL_MISMATCH);
  ck_assert_ptr_nonnull(strstr(kk_last_error(), "kk_parallel_scan 'count': kernel 'count' is a for (KK_FOR) kernel"));
  c.kind = (kk_call_kind_t)0;
  ck_assert_int_eq(kk_parallel_call(&c), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_parallel_call 'count': unknown call kind 0 (KK_CALL_FOR .. 7)");
  c.kind = (kk_call_kind_t)8;
  ck_assert_int_eq(kk_parallel_call(&c), KK_ERROR_INVALID_ARGUMENT);
  c.kind = KK_CALL_FOR;
  c.struct_size = sizeof c - 1;
  ck_assert_int_eq(kk_parallel_call(&c), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(kk_last_error(), "struct_size"));
  ck_assert_int_eq(kk_parallel_call(NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(n, 7); /* nothing refused ran */
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

/* What a program may still hold when it calls kk_finalize. */
typedef struct held {
  kk_view_t *v, *sub, *mirror, *wrapped;
  double wrapped_data[8];
  kk_space_t *space;
  kk_instance_t *inst, *def;
  kk_scatter_view_t *sv;
  kk_graph_t *graph;
} held_t;

static void make_held(held_t *h) {
  memset(h, 0, sizeof *h);
  h->v = vec("v", KK_DOUBLE, 8);
  const kk_slice_t sl[1] = {KK_SPAN(2, 6)};
  ck_assert_int_eq(kk_view_subview(h->v, sl, &h->sub), KK_OK);
  ck_assert_int_eq(kk_view_create_mirror(h->v, &h->mirror), KK_OK);
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = "wrapped";
  spec.rank = 1;
  spec.extents[0] = 8;
  ck_assert_int_eq(kk_view_wrap(&spec, h->wrapped_data, &h->wrapped), KK_OK);
  h->space = kk_space_default();
  h->def = kk_instance_default();
  ck_assert_int_eq(kk_instance_create(NULL, &h->inst), KK_OK);
  ck_assert_int_eq(kk_scatter_view_create(h->v, KK_SCATTER_SUM, KK_SCATTER_DUPLICATED, &h->sv), KK_OK);
  ck_assert_int_eq(kk_graph_create(NULL, &h->graph), KK_OK);
  double one = 1.0;
  ck_assert_int_eq(kk_graph_add_fill(h->graph, h->v, &one, NULL, 0, NULL), KK_OK);
}

/* The program's cleanup after kk_finalize: frees the handles' own records
 * and touches nothing of kk's (valgrind and ASan see no leak, no bad read). */
static void release_held(held_t *h) {
  kk_view_release(h->sub);
  kk_view_release(h->mirror);
  kk_view_release(h->wrapped);
  kk_scatter_view_release(h->sv);
  kk_view_release(h->v);
  ck_assert_int_eq(kk_instance_destroy(h->inst), KK_OK);
  ck_assert_int_eq(kk_graph_destroy(h->graph), KK_OK);
}

/* Every call on a handle from before kk_finalize: KK_ERROR_NOT_INITIALIZED,
 * with `why` in the message. */
static void assert_refused(held_t *h, const char *why) {
#define REFUSED(call)                                                                                  \
  do {                                                                                                 \
    kk_clear_error();                                                                                  \
    ck_assert_msg((call) == KK_ERROR_NOT_INITIALIZED, "%s: %s", #call, kk_last_error());               \
    ck_assert_contains(kk_last_error(), why);                                                          \
  } while (0)
  kk_view_t *all[] = {h->v, h->sub, h->mirror, h->wrapped};
  for (int i = 0; i < 4; i++) {
    kk_view_t *v = all[i];
    /* accessors answer as for NULL */
    ck_assert_ptr_null(kk_view_data(v));
    ck_assert_ptr_null(kk_view_space(v));
    ck_assert_ptr_null(kk_view_label(v));
    ck_assert_int_eq(kk_view_type(v), KK_TYPE_NONE);
    ck_assert_uint_eq(kk_view_elem_size(v), 0);
    ck_assert_int_eq(kk_view_rank(v), 0);
    ck_assert_int_eq(kk_view_extent(v, 0), 1);
    ck_assert_int_eq(kk_view_stride(v, 0), 0);
    ck_assert_uint_eq(kk_view_size(v), 0);
    ck_assert_uint_eq(kk_view_span(v), 0);
    ck_assert_int_eq(kk_view_span_is_contiguous(v), 0);
    ck_assert_int_eq(kk_view_layout(v), KK_LAYOUT_DEFAULT);
    ck_assert_int_eq(kk_view_is_managed(v), 0);
    /* the reference count still counts */
    ck_assert_ptr_eq(kk_view_retain(v), v);
    ck_assert_int_ge(kk_view_use_count(v), 2);
    kk_view_release(v);
    /* a descriptor is empty and the next launch is refused */
    kk_clear_error();
    kk_view d = kk_view_bind(v);
    ck_assert_ptr_null(d.d.data);
    ck_assert_int_eq(kk_last_status(), KK_ERROR_NOT_INITIALIZED);
    kk_view_strided ds = kk_view_bind_strided(v);
    ck_assert_ptr_null(ds.d.data);
    kk_view_t *out = (kk_view_t *)1;
    const kk_slice_t sl[1] = {KK_ALL};
    REFUSED(kk_view_subview(v, sl, &out));
    ck_assert_ptr_null(out);
    REFUSED(kk_view_create_mirror(v, &out));
    REFUSED(kk_view_create_mirror_view(v, &out));
    REFUSED(kk_deep_copy(v, h->mirror));
    REFUSED(kk_deep_copy(h->mirror, v));
    double one = 1.0;
    REFUSED(kk_deep_copy_fill(v, &one));
    const int64_t ext = 4;
    kk_view_t *same = v;
    REFUSED(kk_view_resize(&same, &ext));
    ck_assert_ptr_eq(same, v);
    REFUSED(kk_view_realloc(&same, &ext));
    kk_scatter_view_t *sv = NULL;
    REFUSED(kk_scatter_view_create(v, KK_SCATTER_SUM, KK_SCATTER_AUTO, &sv));
    ck_assert_ptr_null(sv);
  }
  /* spaces */
  ck_assert_ptr_null(kk_space_name(h->space));
  ck_assert_ptr_null(kk_space_backend(h->space));
  ck_assert_int_eq(kk_space_host_accessible(h->space), 0);
  ck_assert_int_eq(kk_space_default_layout(h->space), KK_LAYOUT_DEFAULT);
  void *p = (void *)1;
  REFUSED(kk_space_alloc(h->space, "p", 64, &p));
  REFUSED(kk_space_free(h->space, h->wrapped_data));
  double a[2] = {1, 2}, b[2];
  REFUSED(kk_space_copy(h->space, b, NULL, a, sizeof a, NULL));
  REFUSED(kk_space_copy(NULL, b, NULL, a, sizeof a, h->inst));
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.space = h->space;
  kk_view_t *nv = NULL;
  REFUSED(kk_view_create(&spec, &nv));
  ck_assert_ptr_null(nv);
  REFUSED(kk_view_create_mirror_in(h->space, h->mirror, &nv));
  /* instances */
  kk_instance_t *insts[] = {h->inst, h->def};
  for (int i = 0; i < 2; i++) {
    ck_assert_ptr_null(kk_instance_backend(insts[i]));
    REFUSED(kk_instance_fence(insts[i]));
    kk_native_queue_t q;
    REFUSED(kk_instance_native_queue(insts[i], &q));
    REFUSED(kk_deep_copy_async(insts[i], h->mirror, h->mirror));
    int64_t n = 0;
    struct count_args ca = {&n};
    REFUSED(kk_parallel_for("count", KK_RANGE_ON(insts[i], 0, 10), &count_kernel, KK_ARGS(ca)));
    ck_assert_int_eq(n, 0);
    kk_graph_t *g = NULL;
    REFUSED(kk_graph_create(insts[i], &g));
    REFUSED(kk_graph_begin_capture(insts[i]));
    REFUSED(kk_graph_end_capture(insts[i], &g));
  }
  REFUSED(kk_instance_destroy(h->def));
  /* scatter views */
  REFUSED(kk_scatter_view_contribute(h->sv));
  REFUSED(kk_scatter_view_reset(h->sv));
  ck_assert_int_eq(kk_scatter_view_mode(h->sv), 0);
  kk_clear_error();
  kk_scatter s = kk_scatter_bind(h->sv);
  ck_assert_ptr_null(s.dups);
  ck_assert_ptr_null(s.d.data);
  ck_assert_int_eq(kk_last_status(), KK_ERROR_NOT_INITIALIZED);
  /* graphs (kk_finalize destroyed this one) */
  REFUSED(kk_graph_submit(h->graph, NULL));
  REFUSED(kk_graph_instantiate(h->graph));
  REFUSED(kk_graph_add_fill(h->graph, h->mirror, &a[0], NULL, 0, NULL));
  ck_assert_int_eq(kk_graph_node_count(h->graph), 0);
  ck_assert_ptr_null(kk_graph_node_at(h->graph, 0));
  ck_assert_int_eq(kk_graph_native(h->graph), 0);
#undef REFUSED
}

/* Handles used after kk_finalize read freed memory (kk_view_bind, the
 * accessors) and crashed: now every call on them is refused. */
START_TEST(handles_outlive_finalize) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  held_t h;
  make_held(&h);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  assert_refused(&h, "not initialized");
  release_held(&h);
}
END_TEST

/* A handle of an earlier initialization used after a new kk_initialize is
 * refused the same way and touches nothing of the new one. */
START_TEST(handles_from_an_earlier_initialization) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  held_t h;
  make_held(&h);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  ck_assert_int_eq(init_quiet(), KK_OK);
  assert_refused(&h, "before kk_finalize");
  /* a stale view bound into a launch on a fresh instance: refused, nothing runs */
  int64_t n = 0;
  struct count_args ca = {&n};
  kk_clear_error();
  kk_view stale = kk_view_bind(h.v);
  (void)stale;
  ck_assert_int_eq(kk_parallel_for("count", KK_RANGE(0, 10), &count_kernel, KK_ARGS(ca)), KK_ERROR_NOT_INITIALIZED);
  ck_assert_contains(kk_last_error(), "view 'v' was made before kk_finalize");
  ck_assert_int_eq(n, 0);
  /* the next launch runs */
  ck_assert_int_eq(kk_parallel_for("count", KK_RANGE(0, 10), &count_kernel, KK_ARGS(ca)), KK_OK);
  ck_assert_int_eq(n, 10);
  /* a fresh view is not written by a refused copy from a stale one */
  kk_view_t *fresh = vec("fresh", KK_DOUBLE, 8);
  double seven = 7.0;
  ck_assert_int_eq(kk_deep_copy_fill(fresh, &seven), KK_OK);
  ck_assert_int_eq(kk_deep_copy(fresh, h.v), KK_ERROR_NOT_INITIALIZED);
  ck_assert_contains(kk_last_error(), "view 'v' was made before kk_finalize");
  ck_assert(((double *)kk_view_data(fresh))[0] == 7.0);
  kk_view_release(fresh);
  release_held(&h);
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

static Suite *core_suite(void) {
  Suite *s = suite_create("core");
  TCase *tc = tcase_create("lifecycle");
  tcase_add_test(tc, status_table_complete);
  tcase_add_test(tc, unbalanced_calls_are_errors);
  tcase_add_test(tc, finalize_hooks);
  tcase_add_test(tc, calls_before_initialize);
  tcase_add_test(tc, error_handler_and_clear);
  tcase_add_test(tc, set_error_from_a_library);
  tcase_add_test(tc, versions);
  suite_add_tcase(s, tc);
  tc = tcase_create("resources");
  tcase_add_test(tc, space_memory);
  tcase_add_test(tc, out_of_memory_names_label_size_space);
  tcase_add_test(tc, instances);
  tcase_add_test(tc, messages_name_the_wrong_argument);
  tcase_add_test(tc, configuration_report);
  tcase_add_test(tc, print_configuration_flag);
  suite_add_tcase(s, tc);
  tc = tcase_create("views");
  tcase_add_test(tc, long_label_keeps_the_out_of_memory_explanation);
  tcase_add_test(tc, wrap_null_data_names_the_view);
  tcase_add_test(tc, deep_copy_refuses_another_element_type);
  tcase_add_test(tc, scatter_view_names_an_unknown_operation);
  suite_add_tcase(s, tc);
  tc = tcase_create("lifetime");
  tcase_add_test(tc, handles_outlive_finalize);
  tcase_add_test(tc, handles_from_an_earlier_initialization);
  suite_add_tcase(s, tc);
  tc = tcase_create("launches");
  tcase_add_test(tc, large_reducer_allocates_once);
  tcase_add_test(tc, call_struct_is_the_named_call);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(core_suite()); }
