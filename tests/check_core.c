/* tests/check_core.c -- the public API through libkk.so: status table, init/finalize balance, errors, spaces, instances. */
#include "testutil.h"

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

static Suite *core_suite(void) {
  Suite *s = suite_create("core");
  TCase *tc = tcase_create("lifecycle");
  tcase_add_test(tc, status_table_complete);
  tcase_add_test(tc, unbalanced_calls_are_errors);
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
  return s;
}

int main(void) { return tu_run(core_suite()); }
