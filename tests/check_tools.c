/* tests/check_tools.c -- the Kokkos Tools interface, run per backend: the exact sequence and arguments of every event a recording tool gets. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>

#include "testutil.h"

#include <kk/tools.h>

#include "tools.h"          /* kk__tools_tune_int: the suite links libkk's core */
#include "tools/tools_test.h"

KK_DECLARE_KERNEL(tt_axpy);
KK_DECLARE_KERNEL(tt_sum);
KK_DECLARE_KERNEL(tt_scan);

#define OK(call) ck_assert_msg((call) == KK_OK, "%s failed: %s", #call, kk_last_error())

static const char *g_backend = "serial";
static char *g_plugin_path; /* KOKKOS_PLUGIN_PATH as the test harness set it */
static char g_log[512];     /* the recorder's output */
static char g_recorder[1024];

/* ---- lines: what the recorder wrote, and what a test expects ------------------------ */

typedef struct lines {
  int n;
  char *v[512];
} lines_t;

static void add(lines_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(lines_t *l, const char *fmt, ...) {
  ck_assert_int_lt(l->n, 512);
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  l->v[l->n++] = strdup(buf);
}

static void lines_free(lines_t *l) {
  for (int i = 0; i < l->n; i++)
    free(l->v[i]);
  l->n = 0;
}

static lines_t read_log(void) {
  lines_t l = {0};
  FILE *f = fopen(g_log, "r");
  if (!f)
    return l;
  char buf[4096];
  while (fgets(buf, sizeof buf, f)) {
    buf[strcspn(buf, "\n")] = '\0';
    add(&l, "%s", buf);
  }
  fclose(f);
  return l;
}

/* The log must be exactly `want`, line for line; a mismatch shows both. */
static void check_log(lines_t *want) {
  lines_t got = read_log();
  int bad = -1;
  for (int i = 0; bad < 0 && (i < got.n || i < want->n); i++)
    if (i >= got.n || i >= want->n || strcmp(got.v[i], want->v[i]) != 0)
      bad = i;
  if (bad >= 0) {
    fprintf(stderr, "tool log differs at line %d (backend %s)\n%-70s | %s\n", bad + 1, g_backend, "expected", "got");
    for (int i = 0; i < got.n || i < want->n; i++)
      fprintf(stderr, "%c %-70s | %s\n", i == bad ? '>' : ' ', i < want->n ? want->v[i] : "",
              i < got.n ? got.v[i] : "");
  }
  ck_assert_msg(bad < 0, "line %d: expected \"%s\", got \"%s\"", bad + 1, bad < want->n ? want->v[bad] : "(end)",
                bad < got.n ? got.v[bad] : "(end)");
  lines_free(&got);
  lines_free(want);
  remove(g_log);
}

/* ---- device ids ----------------------------------------------------------------------- */

static uint32_t device_type(const char *backend) {
  if (strcmp(backend, "openmp") == 0)
    return 1;
  if (strcmp(backend, "threads") == 0)
    return 6;
  if (strcmp(backend, "fake_ok") == 0)
    return 40; /* what the fake plugin declares */
  return 0;
}

static uint32_t devid(const char *backend, int device, uint32_t instance) {
  return device_type(backend) << 24 | (uint32_t)device << 17 | instance;
}

/* ---- setup ------------------------------------------------------------------------------ */

static void setup(void) {
  tu_clear_env();
  unsetenv("KK_RECORDER_FENCING");
  unsetenv("KK_RECORDER_TUNE");
  const char *tmp = getenv("TMPDIR");
  snprintf(g_log, sizeof g_log, "%s/kk-tools-log-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(g_log);
  ck_assert_int_ge(fd, 0);
  close(fd);
  remove(g_log);
  setenv("KK_RECORDER_FILE", g_log, 1);
}

static void teardown(void) {
  if (kk_is_initialized())
    kk_finalize();
  kk_tools_set_callbacks(NULL);
  remove(g_log);
  unsetenv("KK_RECORDER_FILE");
}

static char g_argv0[] = "tools-test";

/* kk_initialize on the suite's backend with the recorder (or `libs`) and the
 * tools arguments "-a b  c" in quotes. */
static kk_status_t init_tools(const char *backend, const char *plugin_path, const char *libs, int tune) {
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = backend;
  s.plugin_path = plugin_path;
  s.tools_libs = libs;
  s.tools_args = "\"-a b  c\"";
  s.disable_warnings = 1;
  s.tune_internals = tune;
  int argc = 1;
  char *args[] = {g_argv0, NULL};
  char **argv = args;
  return kk_initialize_ex(&argc, &argv, &s);
}

/* The lines every run with the recorder starts with. */
static void expect_init(lines_t *e, const char *libs, bool fencing_preset, const char *tune) {
  add(e, "init_library|0|20240906|0|NULL");
  add(e, "env|KOKKOS_TOOLS_LIBS=%s", libs);
  add(e, "request_tool_settings|1|preset=%d", fencing_preset);
  add(e, "provide_tool_programming_interface|1|fence=set|padding=zero");
  add(e, "parse_args|4|tools-test|-a|b|c|NULL-terminated");
  add(e, "declare_metadata|kk_version|%s", kk_version());
  add(e, "declare_metadata|kk_plugin_abi|%u.%u", kk_plugin_abi_version() >> 16, kk_plugin_abi_version() & 0xffff);
  add(e, "declare_metadata|default_backend|%s", kk_backend_default());
  add(e, "declare_metadata|host_backend|%s", kk_backend_host());
  add(e, "declare_metadata|num_threads|%d", kk_num_threads());
  add(e, "declare_metadata|device_id|%d", kk_device_id());
  kk_device_info_t info = {.struct_size = sizeof info};
  OK(kk_device_get_info(kk_backend_default(), kk_device_id(), &info));
  add(e, "declare_metadata|device|%s", info.name);
  char spaces[256] = "";
  for (int i = 0; i < kk_space_count(); i++)
    snprintf(spaces + strlen(spaces), sizeof spaces - strlen(spaces), "%s%s", i ? "," : "",
             kk_space_name(kk_space_at(i)));
  add(e, "declare_metadata|memory_spaces|%s", spaces);
  add(e, "declare_metadata|tune_internals|%s", tune);
}

static kk_view_t *vec(const char *label, int64_t n) {
  kk_view_t *v = NULL;
  OK(kk_view_alloc(&v, label, KK_DOUBLE, 1, &n));
  return v;
}

/* ---- the whole sequence -------------------------------------------------------------------- */

START_TEST(every_event_in_order) {
  setenv("KK_RECORDER_FENCING", "0", 1);
  OK(init_tools(g_backend, g_plugin_path, g_recorder, 0));
  const char *be = g_backend; /* outlives kk_finalize, unlike the backend's own name */
  int dev = kk_device_id();
  lines_t e = {0};
  expect_init(&e, g_recorder, true, "no");

  /* allocations: the logical size, the view's label, the space's Kokkos name */
  kk_view_t *a = vec("a", 100), *b = vec("b", 100), *kept = vec("kept until finalize", 3);
  char space[64]; /* kept: the space itself dies with kk_finalize */
  snprintf(space, sizeof space, "%s", kk_space_name(kk_view_space(a)));
  add(&e, "allocate_data|%s|a|%p|800", space, kk_view_data(a));
  add(&e, "allocate_data|%s|b|%p|800", space, kk_view_data(b));
  add(&e, "allocate_data|%s|kept until finalize|%p|24", space, kk_view_data(kept));
  double one = 1.0;
  OK(kk_deep_copy_fill(a, &one));
  add(&e, "begin_deep_copy|%s|a|%p|Host|Scalar|%p|800", space, kk_view_data(a), (void *)&one);
  add(&e, "begin_fence|kk_deep_copy_fill: Deep Copy Resource Synchronization|0x%08x|2001",
      device_type(be) << 24 | 0xFFFFFFu);
  add(&e, "end_fence|2001");
  add(&e, "end_deep_copy");

  /* kernels, labeled and not: the name is the label, else the kernel's name */
  OK(kk_profiling_push_region("outer"));
  add(&e, "push_profile_region|outer");
  struct tt_axpy ax = {2.0, kk_view_bind(a), kk_view_bind(b)};
  OK(kk_parallel_for("axpy label", KK_RANGE(0, 100), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  add(&e, "begin_parallel_for|axpy label|0x%08x|1001", devid(be, dev, 1));
  add(&e, "end_parallel_for|1001");
  OK(kk_parallel_for(NULL, KK_RANGE(0, 100), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  add(&e, "begin_parallel_for|tt_axpy|0x%08x|1002", devid(be, dev, 1));
  add(&e, "end_parallel_for|1002");
  OK(kk_parallel_for("", KK_RANGE(0, 100), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  add(&e, "begin_parallel_for|tt_axpy|0x%08x|1003", devid(be, dev, 1));
  add(&e, "end_parallel_for|1003");
  OK(kk_profiling_push_region("inner"));
  add(&e, "push_profile_region|inner");
  struct tt_one sa = {kk_view_bind(b)};
  double sum = 0;
  OK(kk_parallel_reduce("sum label", KK_RANGE(0, 100), KK_KERNEL(tt_sum), KK_ARGS(sa), KK_RESULT(sum)));
  ck_assert_double_eq(sum, 100 * 6.0); /* b = 3 x (2 x 1) */
  add(&e, "begin_parallel_reduce|sum label|0x%08x|1004", devid(be, dev, 1));
  add(&e, "end_parallel_reduce|1004");
  OK(kk_parallel_reduce(NULL, KK_RANGE(0, 100), KK_KERNEL(tt_sum), KK_ARGS(sa), KK_RESULT(sum)));
  add(&e, "begin_parallel_reduce|tt_sum|0x%08x|1005", devid(be, dev, 1));
  add(&e, "end_parallel_reduce|1005");
  OK(kk_profiling_pop_region());
  add(&e, "pop_profile_region");
  struct tt_two sc = {kk_view_bind(a), kk_view_bind(b)};
  double total = 0;
  OK(kk_parallel_scan("scan label", KK_RANGE(0, 100), KK_KERNEL(tt_scan), KK_ARGS(sc), KK_RESULT(total)));
  ck_assert_double_eq(total, 100.0);
  add(&e, "begin_parallel_scan|scan label|0x%08x|1006", devid(be, dev, 1));
  add(&e, "end_parallel_scan|1006");
  OK(kk_parallel_scan(NULL, KK_RANGE(0, 100), KK_KERNEL(tt_scan), KK_ARGS(sc), NULL, 0));
  add(&e, "begin_parallel_scan|tt_scan|0x%08x|1007", devid(be, dev, 1));
  add(&e, "end_parallel_scan|1007");
  OK(kk_profiling_pop_region());
  add(&e, "pop_profile_region");

  /* a launch that fails before it starts reports nothing */
  ck_assert_int_eq(kk_parallel_for("bad", KK_RANGE(0, 10), KK_KERNEL(tt_sum), KK_ARGS(sa)), KK_ERROR_KERNEL_MISMATCH);

  /* sections, events, metadata */
  uint32_t sec = 0;
  OK(kk_profiling_create_section("section one", &sec));
  ck_assert_uint_eq(sec, 7);
  OK(kk_profiling_start_section(sec));
  OK(kk_profiling_stop_section(sec));
  OK(kk_profiling_destroy_section(sec));
  add(&e, "create_profile_section|section one|7");
  add(&e, "start_profile_section|7");
  add(&e, "stop_profile_section|7");
  add(&e, "destroy_profile_section|7");
  OK(kk_profiling_mark_event("an event"));
  add(&e, "profile_event|an event");
  OK(kk_profiling_declare_metadata("user key", "user value"));
  add(&e, "declare_metadata|user key|user value");

  /* deep copy: a synchronous one waits for its copy resource */
  OK(kk_deep_copy(b, a));
  add(&e, "begin_deep_copy|%s|b|%p|%s|a|%p|800", space, kk_view_data(b), space, kk_view_data(a));
  add(&e, "begin_fence|kk_deep_copy: Deep Copy Resource Synchronization|0x%08x|2002", device_type(be) << 24 | 0xFFFFFFu);
  add(&e, "end_fence|2002");
  add(&e, "end_deep_copy");

  /* fences: named, unnamed, on an instance, and one the tool asks for */
  OK(kk_fence_named("my fence"));
  add(&e, "begin_fence|my fence|0x%08x|2003", devid(be, dev, 0));
  add(&e, "end_fence|2003");
  OK(kk_fence());
  add(&e, "begin_fence|kk_fence: Unnamed Global Fence|0x%08x|2004", devid(be, dev, 0));
  add(&e, "end_fence|2004");
  kk_instance_t *inst = NULL, *inst2 = NULL;
  OK(kk_instance_create(NULL, &inst));
  OK(kk_instance_create(NULL, &inst2));
  OK(kk_parallel_for("on instance 3", KK_RANGE_ON(inst2, 0, 100), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  add(&e, "begin_parallel_for|on instance 3|0x%08x|1008", devid(be, dev, 3));
  add(&e, "end_parallel_for|1008");
  OK(kk_deep_copy_async(inst, a, b));
  add(&e, "begin_deep_copy|%s|a|%p|%s|b|%p|800", space, kk_view_data(a), space, kk_view_data(b));
  add(&e, "end_deep_copy");
  OK(kk_instance_fence(inst));
  add(&e, "begin_fence|kk_instance_fence: Unnamed Instance Fence|0x%08x|2005", devid(be, dev, 2));
  add(&e, "end_fence|2005");
  OK(kk_instance_destroy(inst2));
  OK(kk_instance_destroy(inst));
  OK(kk_profiling_mark_event("recorder: fence"));
  add(&e, "profile_event|recorder: fence");
  add(&e, "begin_fence|kk::tools: Tool Requested Fence|0x%08x|2006", devid(be, dev, 0));
  add(&e, "end_fence|2006");

  /* deallocation: the same pointer, label and size */
  void *pa = kk_view_data(a), *pb = kk_view_data(b), *pk = kk_view_data(kept);
  kk_view_release(a);
  add(&e, "deallocate_data|%s|a|%p|800", space, pa);
  kk_view_t *alias = kk_view_retain(b);
  kk_view_release(b); /* still held: no event */
  kk_view_release(alias);
  add(&e, "deallocate_data|%s|b|%p|800", space, pb);

  /* finalize: its fence, what the program left, then the tool */
  OK(kk_finalize());
  add(&e, "begin_fence|kk_finalize: fence before finalizing|0x%08x|2007", devid(be, dev, 0));
  add(&e, "end_fence|2007");
  add(&e, "deallocate_data|%s|kept until finalize|%p|24", space, pk);
  add(&e, "finalize_library");
  kk_view_release(kept); /* after finalize: no event, no tool */
  ck_assert(!kk_tools_active());
  check_log(&e);
}
END_TEST

/* With global fencing (the preset), every begin/end of a kernel and every
 * push/pop is preceded by a fence of every device, under the name tools filter
 * on; other events are not. */
START_TEST(global_fencing_when_requested) {
  OK(init_tools(g_backend, g_plugin_path, g_recorder, 0));
  const char *be = g_backend; /* outlives kk_finalize, unlike the backend's own name */
  int dev = kk_device_id();
  uint32_t global = devid(be, dev, 0);
  lines_t e = {0};
  expect_init(&e, g_recorder, true, "no");
  kk_view_t *a = vec("a", 10);
  add(&e, "allocate_data|%s|a|%p|80", kk_space_name(kk_view_space(a)), kk_view_data(a));
  OK(kk_profiling_push_region("r"));
  add(&e, "begin_fence|kk::tools: Kokkos Profile Tool Fence|0x%08x|2001", global);
  add(&e, "end_fence|2001");
  add(&e, "push_profile_region|r");
  struct tt_axpy ax = {1.0, kk_view_bind(a), kk_view_bind(a)};
  OK(kk_parallel_for("k", KK_RANGE(0, 10), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  add(&e, "begin_fence|kk::tools: Kokkos Profile Tool Fence|0x%08x|2002", global);
  add(&e, "end_fence|2002");
  add(&e, "begin_parallel_for|k|0x%08x|1001", devid(be, dev, 1));
  add(&e, "begin_fence|kk::tools: Kokkos Profile Tool Fence|0x%08x|2003", global);
  add(&e, "end_fence|2003");
  add(&e, "end_parallel_for|1001");
  OK(kk_profiling_pop_region());
  add(&e, "begin_fence|kk::tools: Kokkos Profile Tool Fence|0x%08x|2004", global);
  add(&e, "end_fence|2004");
  add(&e, "pop_profile_region");
  OK(kk_profiling_mark_event("no fence before me"));
  add(&e, "profile_event|no fence before me");
  void *pa = kk_view_data(a);
  kk_view_release(a);
  add(&e, "deallocate_data|%s|a|%p|80", kk_space_name(kk_space_default()), pa);
  OK(kk_finalize());
  add(&e, "begin_fence|kk_finalize: fence before finalizing|0x%08x|2005", global);
  add(&e, "end_fence|2005");
  add(&e, "finalize_library");
  check_log(&e);
}
END_TEST

/* A device backend beside the host one: a global fence is one begin/end per
 * active backend, and ids carry the plugin's declared device type. */
START_TEST(device_backend_beside_host) {
  kk_status_t st = init_tools("fake_ok", KK_TEST_FAKE_DIR, g_recorder, 0);
  ck_assert_msg(st == KK_OK, "%s", kk_last_error());
  ck_assert_str_eq(kk_backend_default(), "fake_ok");
  lines_t e = {0};
  setenv("KK_RECORDER_FILE", g_log, 1);
  remove(g_log); /* the metadata is checked on the host backends */
  kk_view_t *d = vec("on device", 4), *h = NULL;
  OK(kk_view_create_mirror(d, &h));
  add(&e, "allocate_data|FakeSpace|on device|%p|32", kk_view_data(d));
  add(&e, "allocate_data|Host|on device_mirror|%p|32", kk_view_data(h));
  OK(kk_deep_copy(h, d));
  add(&e, "begin_deep_copy|Host|on device_mirror|%p|FakeSpace|on device|%p|32", kk_view_data(h), kk_view_data(d));
  add(&e, "begin_fence|kk_deep_copy: Deep Copy Resource Synchronization|0x%08x|2001", 40u << 24 | 0xFFFFFFu);
  add(&e, "end_fence|2001");
  add(&e, "end_deep_copy");
  OK(kk_fence());
  add(&e, "begin_fence|kk_fence: Unnamed Global Fence|0x%08x|2002", devid("fake_ok", kk_device_id(), 0));
  add(&e, "end_fence|2002");
  add(&e, "begin_fence|kk_fence: Unnamed Global Fence|0x%08x|2003", devid("serial", 0, 0));
  add(&e, "end_fence|2003");
  struct tt_axpy ax = {1.0, kk_view_bind(h), kk_view_bind(h)};
  OK(kk_parallel_for("on host", KK_RANGE_ON(kk_instance_host(), 0, 4), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  add(&e, "begin_fence|kk::tools: Kokkos Profile Tool Fence|0x%08x|2004", devid("fake_ok", kk_device_id(), 0));
  add(&e, "end_fence|2004");
  add(&e, "begin_fence|kk::tools: Kokkos Profile Tool Fence|0x%08x|2005", devid("serial", 0, 0));
  add(&e, "end_fence|2005");
  add(&e, "begin_parallel_for|on host|0x%08x|1001", devid("serial", 0, 1));
  add(&e, "begin_fence|kk::tools: Kokkos Profile Tool Fence|0x%08x|2006", devid("fake_ok", kk_device_id(), 0));
  add(&e, "end_fence|2006");
  add(&e, "begin_fence|kk::tools: Kokkos Profile Tool Fence|0x%08x|2007", devid("serial", 0, 0));
  add(&e, "end_fence|2007");
  add(&e, "end_parallel_for|1001");
  kk_instance_t *inst = NULL;
  OK(kk_instance_create("fake_ok", &inst));
  OK(kk_instance_fence(inst));
  add(&e, "begin_fence|kk_instance_fence: Unnamed Instance Fence|0x%08x|2008", devid("fake_ok", kk_device_id(), 2));
  add(&e, "end_fence|2008");
  OK(kk_instance_destroy(inst));
  void *pd = kk_view_data(d), *ph = kk_view_data(h);
  kk_view_release(d);
  kk_view_release(h);
  add(&e, "deallocate_data|FakeSpace|on device|%p|32", pd);
  add(&e, "deallocate_data|Host|on device_mirror|%p|32", ph);
  check_log(&e);
}
END_TEST

/* ---- loading ---------------------------------------------------------------------------- */

/* Runs fn with stderr going to a file; returns what it printed (caller frees). */
static char *capture_stderr(kk_status_t (*fn)(void), kk_status_t *st) {
  char path[512];
  const char *tmp = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/kk-tools-err-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  *st = fn();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  lseek(fd, 0, SEEK_SET);
  char *text = calloc(1, 8192);
  ssize_t n = read(fd, text, 8191);
  (void)n;
  close(fd);
  remove(path);
  return text;
}

static kk_status_t init_missing_tool(void) {
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = g_backend;
  s.plugin_path = g_plugin_path;
  s.tools_libs = "/nonexistent/libkp_missing.so;/another/one.so";
  return kk_initialize_with_settings(&s);
}

START_TEST(load_failure_is_a_warning_with_the_reason) {
  kk_status_t st;
  char *err = capture_stderr(init_missing_tool, &st);
  ck_assert_msg(st == KK_OK, "kk_initialize failed: %s", kk_last_error());
  ck_assert_contains(err, "kk: warning: the tool library /nonexistent/libkp_missing.so (settings) could not be loaded: ");
  ck_assert_contains(err, "/nonexistent/libkp_missing.so: cannot open shared object file");
  ck_assert_contains(err, "running without tools");
  free(err);
  ck_assert(!kk_tools_active());
  OK(kk_finalize());
  /* quiet when warnings are disabled */
  setenv("KOKKOS_DISABLE_WARNINGS", "1", 1);
  err = capture_stderr(init_missing_tool, &st);
  ck_assert_int_eq(st, KK_OK);
  ck_assert_str_eq(err, "");
  free(err);
  OK(kk_finalize());
}
END_TEST

START_TEST(only_the_first_library_is_loaded_and_the_list_is_exported) {
  /* from the command line: the whole list goes into KOKKOS_TOOLS_LIBS, where
   * a chaining tool finds the rest */
  char list[1100], flag[1200];
  snprintf(list, sizeof list, "%s;/next/tool.so;/and/another.so", g_recorder);
  snprintf(flag, sizeof flag, "--kokkos-tools-libs=%s", list);
  char dev[128];
  snprintf(dev, sizeof dev, "--kokkos-device=%s", g_backend);
  char *args[] = {g_argv0, flag, dev, (char *)"--kokkos-disable-warnings", NULL};
  char **argv = args;
  int argc = 4;
  kk_settings_t s = KK_SETTINGS_INIT;
  s.plugin_path = g_plugin_path;
  OK(kk_initialize_ex(&argc, &argv, &s));
  ck_assert_int_eq(argc, 1);
  ck_assert_str_eq(getenv("KOKKOS_TOOLS_LIBS"), list);
  OK(kk_finalize());
  lines_t got = read_log();
  ck_assert_int_ge(got.n, 4);
  ck_assert_str_eq(got.v[0], "init_library|0|20240906|0|NULL");
  char want[1200];
  snprintf(want, sizeof want, "env|KOKKOS_TOOLS_LIBS=%s", list);
  ck_assert_str_eq(got.v[1], want);
  /* no tools arguments: argv is the executable's name alone */
  ck_assert_str_eq(got.v[4], "parse_args|1|tools-test|NULL-terminated");
  ck_assert_str_eq(got.v[got.n - 1], "finalize_library");
  lines_free(&got);
  remove(g_log);

  /* the deprecated variable still names a tool, and is exported as the new one */
  tu_clear_env();
  setenv("KOKKOS_PROFILE_LIBRARY", g_recorder, 1);
  OK(init_tools(g_backend, g_plugin_path, NULL, -1));
  ck_assert_str_eq(getenv("KOKKOS_TOOLS_LIBS"), g_recorder);
  ck_assert(kk_tools_active());
  OK(kk_finalize());
  got = read_log();
  ck_assert_int_ge(got.n, 1);
  ck_assert_str_eq(got.v[0], "init_library|0|20240906|0|NULL");
  lines_free(&got);
}
END_TEST

START_TEST(tools_help_prints_the_tools_help_and_requests_exit) {
  char flag[2048];
  snprintf(flag, sizeof flag, "--kokkos-tools-libs=%s", g_recorder);
  char *args[] = {g_argv0, (char *)"--kokkos-tools-help", flag, (char *)"keep-me", NULL};
  char **argv = args;
  int argc = 4;
  ck_assert_int_eq(kk_initialize(&argc, &argv), KK_EXIT_REQUESTED);
  ck_assert(!kk_is_initialized());
  ck_assert_int_eq(argc, 2);
  ck_assert_str_eq(argv[1], "keep-me");
  /* help only: the tool is not initialized */
  lines_t e = {0};
  add(&e, "print_help|tools-test");
  check_log(&e);
  /* without a tool it says so, and still requests exit */
  tu_clear_env();
  char *args2[] = {g_argv0, (char *)"--kokkos-tools-help", NULL};
  argv = args2;
  argc = 2;
  ck_assert_int_eq(kk_initialize(&argc, &argv), KK_EXIT_REQUESTED);
  ck_assert(!kk_is_initialized());
}
END_TEST

/* ---- programmatic callbacks ------------------------------------------------------------------ */

static lines_t g_mem;
static uint64_t g_mem_kid;
static void m_init(const int seq, const uint64_t ver, const uint32_t n, struct Kokkos_Profiling_KokkosPDeviceInfo *d) {
  add(&g_mem, "init|%d|%" PRIu64 "|%u|%p", seq, ver, n, (void *)d);
}
static void m_finalize(void) { add(&g_mem, "finalize"); }
static void m_settings(const uint32_t n, struct Kokkos_Tools_ToolSettings *s) {
  add(&g_mem, "settings|%u", n);
  s->requires_global_fencing = false;
}
static void m_begin(const char *name, const uint32_t dev, uint64_t *kid) {
  *kid = ++g_mem_kid;
  add(&g_mem, "begin|%s|%u|%" PRIu64, name, dev, *kid);
}
static void m_end(uint64_t kid) { add(&g_mem, "end|%" PRIu64, kid); }
static void m_push(const char *name) { add(&g_mem, "push|%s", name); }

START_TEST(programmatic_callbacks) {
  lines_free(&g_mem);
  Kokkos_Profiling_EventSet set, back;
  memset(&set, 0, sizeof set);
  set.init = m_init;
  set.finalize = m_finalize;
  set.request_tool_settings = m_settings;
  set.begin_parallel_for = m_begin;
  set.end_parallel_for = m_end;
  /* set before kk_initialize: they get the initialization sequence there */
  kk_tools_set_callbacks(&set);
  ck_assert(kk_tools_active());
  kk_tools_get_callbacks(&back);
  ck_assert(memcmp(&set, &back, sizeof set) == 0);
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = g_backend;
  s.plugin_path = g_plugin_path;
  s.disable_warnings = 1;
  OK(kk_initialize_with_settings(&s));
  kk_view_t *a = vec("a", 10);
  struct tt_axpy ax = {1.0, kk_view_bind(a), kk_view_bind(a)};
  OK(kk_parallel_for("first", KK_RANGE(0, 10), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  OK(kk_profiling_push_region("not watched")); /* no push callback: nothing */
  OK(kk_profiling_pop_region());
  /* replaced while running */
  set.push_region = m_push;
  set.begin_parallel_for = NULL;
  kk_tools_set_callbacks(&set);
  OK(kk_parallel_for("second", KK_RANGE(0, 10), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  OK(kk_profiling_push_region("watched"));
  OK(kk_profiling_pop_region());
  /* removed */
  kk_tools_set_callbacks(NULL);
  ck_assert(!kk_tools_active());
  OK(kk_parallel_for("third", KK_RANGE(0, 10), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  kk_tools_set_callbacks(&set);
  kk_view_release(a);
  OK(kk_finalize());
  ck_assert(!kk_tools_active()); /* finalize removes them */
  char init_line[128], begin_line[128];
  snprintf(init_line, sizeof init_line, "init|0|20240906|0|%p", (void *)NULL);
  snprintf(begin_line, sizeof begin_line, "begin|first|%u|1", devid(g_backend, 0, 1));
  const char *want[] = {init_line, "settings|1", begin_line, "end|1",
                        "end|0", /* the kID "second" began with: no begin callback set it */
                        "push|watched", "finalize"};
  size_t nwant = sizeof want / sizeof *want;
  for (size_t i = 0; i < nwant && i < (size_t)g_mem.n; i++)
    ck_assert_str_eq(g_mem.v[i], want[i]);
  ck_assert_int_eq(g_mem.n, (int)nwant);
  lines_free(&g_mem);
  ck_assert_int_eq(kk_profiling_push_region(NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_profiling_create_section("x", NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_profiling_mark_event(NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_profiling_declare_metadata("k", NULL), KK_ERROR_INVALID_ARGUMENT);
  uint32_t id = 99;
  OK(kk_profiling_create_section("no tool", &id));
  ck_assert_uint_eq(id, 0);
}
END_TEST

/* ---- tuning ------------------------------------------------------------------------------------ */

START_TEST(tuning_through_the_tool) {
  setenv("KK_RECORDER_FENCING", "0", 1);
  OK(init_tools(g_backend, g_plugin_path, g_recorder, 1));
  lines_t e = {0};
  expect_init(&e, g_recorder, true, "yes");
  int64_t v = 0;
  size_t ctx = 99;
  OK(kk__tools_tune_int("kernel one", "team_size", 1, 64, 8, &v, &ctx));
  ck_assert_int_eq(v, 32); /* the recorder answers the middle of the range */
  ck_assert_uint_eq(ctx, 1);
  add(&e, "declare_input_type|kokkos.kernel_name|1|string|categorical|unbounded");
  add(&e, "declare_output_type|kk.team_size:kernel one|2|int64|interval|range|1|64|1|00");
  add(&e, "begin_context|1");
  add(&e, "request_values|1|1|1|1=kernel one|2:8->32");
  kk__tools_tune_end(ctx);
  add(&e, "end_context|1|0");
  /* the same variable again: declared once */
  OK(kk__tools_tune_int("kernel one", "team_size", 1, 64, 8, &v, &ctx));
  ck_assert_uint_eq(ctx, 2);
  add(&e, "begin_context|2");
  add(&e, "request_values|2|1|1|1=kernel one|2:8->32");
  kk__tools_tune_end(ctx);
  add(&e, "end_context|2|0");
  /* an answer out of range keeps the default */
  setenv("KK_RECORDER_TUNE", "1000", 1);
  OK(kk__tools_tune_int("kernel two", "tile", 2, 16, 4, &v, &ctx));
  ck_assert_int_eq(v, 4);
  add(&e, "declare_output_type|kk.tile:kernel two|3|int64|interval|range|2|16|1|00");
  add(&e, "begin_context|3");
  add(&e, "request_values|3|1|1|1=kernel two|3:4->1000");
  kk__tools_tune_end(ctx);
  add(&e, "end_context|3|0");
  ck_assert_int_eq(kk__tools_tune_int("k", "t", 5, 4, 4, &v, &ctx), KK_ERROR_INVALID_ARGUMENT);
  kk__tools_tune_end(0); /* nothing */
  OK(kk_finalize());
  add(&e, "begin_fence|kk_finalize: fence before finalizing|0x%08x|2001", devid(g_backend, 0, 0));
  add(&e, "end_fence|2001");
  add(&e, "finalize_library");
  check_log(&e);

  /* without --kokkos-tune-internals the tool is not asked */
  OK(init_tools(g_backend, g_plugin_path, g_recorder, 0));
  OK(kk__tools_tune_int("kernel one", "team_size", 1, 64, 8, &v, &ctx));
  ck_assert_int_eq(v, 8);
  ck_assert_uint_eq(ctx, 0);
  OK(kk_finalize());
  lines_t got = read_log();
  for (int i = 0; i < got.n; i++)
    ck_assert_msg(strstr(got.v[i], "context") == NULL && strstr(got.v[i], "_type") == NULL, "%s", got.v[i]);
  lines_free(&got);
}
END_TEST

static Suite *tools_suite(void) {
  Suite *s = suite_create(g_backend);
  TCase *tc = tcase_create("tools");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, every_event_in_order);
  tcase_add_test(tc, global_fencing_when_requested);
  tcase_add_test(tc, load_failure_is_a_warning_with_the_reason);
  tcase_add_test(tc, only_the_first_library_is_loaded_and_the_list_is_exported);
  tcase_add_test(tc, tools_help_prints_the_tools_help_and_requests_exit);
  tcase_add_test(tc, programmatic_callbacks);
  tcase_add_test(tc, tuning_through_the_tool);
  if (strcmp(g_backend, "serial") == 0) /* backend independent: once is enough */
    tcase_add_test(tc, device_backend_beside_host);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  if (argc > 1)
    g_backend = argv[1];
  snprintf(g_recorder, sizeof g_recorder, "%s/recorder.so", KK_TEST_TOOLS_DIR);
  if (getenv("KOKKOS_PLUGIN_PATH"))
    g_plugin_path = strdup(getenv("KOKKOS_PLUGIN_PATH"));
  /* Is the backend here at all?  If not, the test is skipped with the reason. */
  tu_clear_env();
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = g_backend;
  s.plugin_path = g_plugin_path;
  s.disable_warnings = 1;
  kk_status_t st = kk_initialize_with_settings(&s);
  if (st == KK_ERROR_NOT_FOUND || st == KK_ERROR_NO_DEVICE || st == KK_ERROR_PLUGIN) {
    printf("SKIP: backend %s is not available: %s\n", g_backend, kk_last_error());
    free(g_plugin_path);
    return 77;
  }
  if (st != KK_OK) {
    printf("FAIL: initializing backend %s: %s\n", g_backend, kk_last_error());
    return 1;
  }
  kk_finalize();
  int rc = tu_run(tools_suite());
  free(g_plugin_path);
  return rc;
}
