/* tests/check_tools.c -- the Kokkos Tools interface, run per backend: the exact sequence and arguments of every event a recording tool gets. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>

#include "testutil.h"

#include <kk/tools.h>

#include "tools/tools_test.h"

KK_DECLARE_KERNEL(tt_axpy);
KK_DECLARE_KERNEL(tt_sum);
KK_DECLARE_KERNEL(tt_scan);
KK_DECLARE_KERNEL(tt_md_order);
KK_DECLARE_KERNEL(tt_md_sum);
KK_DECLARE_KERNEL(tt_team_shape);
KK_DECLARE_KERNEL(tt_team_threads);

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
  if (strcmp(backend, "cuda") == 0)
    return 2;
  if (strcmp(backend, "fake_ok") == 0)
    return 40; /* what the fake plugin declares */
  return 0;
}

static uint32_t devid(const char *backend, int device, uint32_t instance) {
  return device_type(backend) << 24 | (uint32_t)device << 17 | instance;
}

/* The kernel ids and fence handles the recorder hands out, in order. */
static uint64_t g_kid, g_fid;

static void expect_kernel(lines_t *e, const char *kind, const char *name, uint32_t device_id) {
  uint64_t k = ++g_kid;
  add(e, "begin_parallel_%s|%s|0x%08x|%" PRIu64, kind, name, device_id, k);
  add(e, "end_parallel_%s|%" PRIu64, kind, k);
}

static void expect_fence(lines_t *e, const char *name, uint32_t device_id) {
  uint64_t f = ++g_fid;
  add(e, "begin_fence|%s|0x%08x|%" PRIu64, name, device_id, f);
  add(e, "end_fence|%" PRIu64, f);
}

/* A global fence: one per active backend, the default one first. */
static void expect_global_fence(lines_t *e, const char *name) {
  expect_fence(e, name, devid(kk_backend_default(), kk_device_id(), 0));
  if (strcmp(kk_backend_host(), kk_backend_default()) != 0)
    expect_fence(e, name, devid(kk_backend_host(), 0, 0));
}

/* ---- setup ------------------------------------------------------------------------------ */

static void setup(void) {
  tu_clear_env();
  unsetenv("KK_RECORDER_FENCING");
  unsetenv("KK_RECORDER_TUNE");
  g_kid = 1000;
  g_fid = 2000;
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
  int dev = kk_device_id();
  uint32_t on_default = devid(g_backend, dev, 1), copy_resource = device_type(g_backend) << 24 | 0xFFFFFFu;
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
  expect_fence(&e, "kk_deep_copy_fill: Deep Copy Resource Synchronization", copy_resource);
  add(&e, "end_deep_copy");

  /* kernels, labeled and not: the name is the label, else the kernel's name */
  OK(kk_profiling_push_region("outer"));
  add(&e, "push_profile_region|outer");
  struct tt_axpy ax = {2.0, kk_view_bind(a), kk_view_bind(b)};
  OK(kk_parallel_for("axpy label", KK_RANGE(0, 100), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  expect_kernel(&e, "for", "axpy label", on_default);
  OK(kk_parallel_for(NULL, KK_RANGE(0, 100), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  expect_kernel(&e, "for", "tt_axpy", on_default);
  OK(kk_parallel_for("", KK_RANGE(0, 100), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  expect_kernel(&e, "for", "tt_axpy", on_default);
  OK(kk_profiling_push_region("inner"));
  add(&e, "push_profile_region|inner");
  struct tt_one sa = {kk_view_bind(b)};
  double sum = 0;
  OK(kk_parallel_reduce("sum label", KK_RANGE(0, 100), KK_KERNEL(tt_sum), KK_ARGS(sa), KK_RESULT(sum)));
  ck_assert_double_eq(sum, 100 * 6.0); /* b = 3 x (2 x 1) */
  expect_kernel(&e, "reduce", "sum label", on_default);
  OK(kk_parallel_reduce(NULL, KK_RANGE(0, 100), KK_KERNEL(tt_sum), KK_ARGS(sa), KK_RESULT(sum)));
  expect_kernel(&e, "reduce", "tt_sum", on_default);
  OK(kk_profiling_pop_region());
  add(&e, "pop_profile_region");
  struct tt_two sc = {kk_view_bind(a), kk_view_bind(b)};
  double total = 0;
  OK(kk_parallel_scan("scan label", KK_RANGE(0, 100), KK_KERNEL(tt_scan), KK_ARGS(sc), KK_RESULT(total)));
  ck_assert_double_eq(total, 100.0);
  expect_kernel(&e, "scan", "scan label", on_default);
  OK(kk_parallel_scan(NULL, KK_RANGE(0, 100), KK_KERNEL(tt_scan), KK_ARGS(sc), NULL, 0));
  expect_kernel(&e, "scan", "tt_scan", on_default);
  OK(kk_profiling_pop_region());
  add(&e, "pop_profile_region");

  /* MDRange and team kernels report as for and reduce too */
  int64_t ext_seq[2] = {8, 8}, ext_shape[2] = {4, 2}, n1 = 1;
  kk_view_t *seq = NULL, *counter = NULL, *shape = NULL;
  OK(kk_view_alloc(&seq, "seq", KK_INT64, 2, ext_seq));
  OK(kk_view_alloc(&counter, "counter", KK_INT64, 1, &n1));
  OK(kk_view_alloc(&shape, "shape", KK_INT64, 2, ext_shape));
  add(&e, "allocate_data|%s|seq|%p|512", space, kk_view_data(seq));
  add(&e, "allocate_data|%s|counter|%p|8", space, kk_view_data(counter));
  add(&e, "allocate_data|%s|shape|%p|64", space, kk_view_data(shape));
  struct tt_md md = {kk_view_bind(seq), kk_view_bind(counter)};
  OK(kk_parallel_for_md("md label", KK_MD2(8, 8), KK_KERNEL(tt_md_order), KK_ARGS(md)));
  expect_kernel(&e, "for", "md label", on_default);
  int64_t msum = 0;
  OK(kk_parallel_reduce_md(NULL, KK_MD2(8, 8), KK_KERNEL(tt_md_sum), KK_ARGS(md), KK_RESULT(msum)));
  ck_assert_int_eq(msum, 8 * 100 * 28 + 8 * 28);
  expect_kernel(&e, "reduce", "tt_md_sum", on_default);
  struct tt_team tt = {kk_view_bind(shape)};
  OK(kk_parallel_for_team(NULL, KK_TEAM(4, KK_AUTO, KK_AUTO), KK_KERNEL(tt_team_shape), KK_ARGS(tt)));
  expect_kernel(&e, "for", "tt_team_shape", on_default);
  int64_t threads = 0;
  OK(kk_parallel_reduce_team("team label", KK_TEAM(4, 1, 1), KK_KERNEL(tt_team_threads), KK_ARGS(tt),
                             KK_RESULT(threads)));
  ck_assert_int_eq(threads, 4);
  expect_kernel(&e, "reduce", "team label", on_default);
  void *pseq = kk_view_data(seq), *pcounter = kk_view_data(counter), *pshape = kk_view_data(shape);
  kk_view_release(seq);
  kk_view_release(counter);
  kk_view_release(shape);
  add(&e, "deallocate_data|%s|seq|%p|512", space, pseq);
  add(&e, "deallocate_data|%s|counter|%p|8", space, pcounter);
  add(&e, "deallocate_data|%s|shape|%p|64", space, pshape);

  /* a launch that fails before it starts reports nothing */
  ck_assert_int_eq(kk_parallel_for("bad", KK_RANGE(0, 10), KK_KERNEL(tt_sum), KK_ARGS(sa)), KK_ERROR_KERNEL_MISMATCH);
  ck_assert_int_eq(kk_parallel_for_team("bad", KK_TEAM(4, 1, 1), KK_KERNEL(tt_team_threads), KK_ARGS(tt)),
                   KK_ERROR_KERNEL_MISMATCH);

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
  expect_fence(&e, "kk_deep_copy: Deep Copy Resource Synchronization", copy_resource);
  add(&e, "end_deep_copy");

  /* raw memory and ScatterView duplicates (host backends) are reported too */
  void *raw = NULL;
  OK(kk_space_alloc(kk_space_default(), "raw memory", 40, &raw));
  add(&e, "allocate_data|%s|raw memory|%p|40", space, raw);
  OK(kk_space_free(kk_space_default(), raw));
  add(&e, "deallocate_data|%s|raw memory|%p|40", space, raw);
  kk_scatter_view_t *sv = NULL;
  OK(kk_scatter_view_create(b, KK_SCATTER_SUM, KK_SCATTER_AUTO, &sv));
  kk_scatter dup = kk_scatter_bind(sv);
  if (kk_scatter_view_mode(sv) == KK_SCATTER_DUPLICATED)
    add(&e, "allocate_data|%s|b_scatter_duplicates|%p|%lld", space, dup.dups, (long long)dup.ndup * 100 * 8);
  OK(kk_scatter_view_contribute(sv));
  expect_global_fence(&e, "kk_scatter_view_contribute: fence before folding the contributions");
  kk_scatter_view_release(sv);
  if (dup.dups)
    add(&e, "deallocate_data|%s|b_scatter_duplicates|%p|%lld", space, dup.dups, (long long)dup.ndup * 100 * 8);

  /* fences: named, unnamed, on an instance, and one the tool asks for */
  OK(kk_fence_named("my fence"));
  expect_global_fence(&e, "my fence");
  OK(kk_fence());
  expect_global_fence(&e, "kk_fence: Unnamed Global Fence");
  kk_instance_t *inst = NULL, *inst2 = NULL;
  OK(kk_instance_create(NULL, &inst));
  OK(kk_instance_create(NULL, &inst2));
  OK(kk_parallel_for("on instance 3", KK_RANGE_ON(inst2, 0, 100), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  expect_kernel(&e, "for", "on instance 3", devid(g_backend, dev, 3));
  OK(kk_deep_copy_async(inst, a, b));
  add(&e, "begin_deep_copy|%s|a|%p|%s|b|%p|800", space, kk_view_data(a), space, kk_view_data(b));
  add(&e, "end_deep_copy");
  OK(kk_instance_fence(inst));
  expect_fence(&e, "kk_instance_fence: Unnamed Instance Fence", devid(g_backend, dev, 2));
  /* an order between instances: a fence of the waited-for one where the
   * backend cannot keep it on the device; no event on cuda and hip */
  OK(kk_instance_wait(inst, inst2));
  if (strcmp(g_backend, "cuda") != 0 && strcmp(g_backend, "hip") != 0)
    expect_fence(&e, "kk_instance_wait: Unnamed Instance Fence", devid(g_backend, dev, 3));
  OK(kk_instance_destroy(inst2));
  OK(kk_instance_destroy(inst));
  OK(kk_profiling_mark_event("recorder: fence"));
  add(&e, "profile_event|recorder: fence");
  expect_global_fence(&e, "kk::tools: Tool Requested Fence");

  /* deallocation: the same pointer, label and size */
  void *pa = kk_view_data(a), *pb = kk_view_data(b), *pk = kk_view_data(kept);
  kk_view_release(a);
  add(&e, "deallocate_data|%s|a|%p|800", space, pa);
  kk_view_t *alias = kk_view_retain(b);
  kk_view_release(b); /* still held: no event */
  kk_view_release(alias);
  add(&e, "deallocate_data|%s|b|%p|800", space, pb);

  /* finalize: its fence, what the program left, then the tool */
  expect_global_fence(&e, "kk_finalize: fence before finalizing");
  add(&e, "deallocate_data|%s|kept until finalize|%p|24", space, pk);
  add(&e, "finalize_library");
  OK(kk_finalize());
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
  const char *tool_fence = "kk::tools: Kokkos Profile Tool Fence";
  lines_t e = {0};
  expect_init(&e, g_recorder, true, "no");
  kk_view_t *a = vec("a", 10);
  add(&e, "allocate_data|%s|a|%p|80", kk_space_name(kk_view_space(a)), kk_view_data(a));
  OK(kk_profiling_push_region("r"));
  expect_global_fence(&e, tool_fence);
  add(&e, "push_profile_region|r");
  struct tt_axpy ax = {1.0, kk_view_bind(a), kk_view_bind(a)};
  OK(kk_parallel_for("k", KK_RANGE(0, 10), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  expect_global_fence(&e, tool_fence);
  add(&e, "begin_parallel_for|k|0x%08x|1001", devid(g_backend, kk_device_id(), 1));
  expect_global_fence(&e, tool_fence);
  add(&e, "end_parallel_for|1001");
  OK(kk_profiling_pop_region());
  expect_global_fence(&e, tool_fence);
  add(&e, "pop_profile_region");
  OK(kk_profiling_mark_event("no fence before me"));
  add(&e, "profile_event|no fence before me");
  void *pa = kk_view_data(a);
  kk_view_release(a);
  add(&e, "deallocate_data|%s|a|%p|80", kk_space_name(kk_space_default()), pa);
  expect_global_fence(&e, "kk_finalize: fence before finalizing");
  add(&e, "finalize_library");
  OK(kk_finalize());
  check_log(&e);
}
END_TEST

/* A kernel's events with global fencing: a fence before its begin and its end. */
static void expect_fenced_kernel(lines_t *e, const char *kind, const char *name, uint32_t device_id) {
  const char *tool_fence = "kk::tools: Kokkos Profile Tool Fence";
  uint64_t k = ++g_kid;
  expect_global_fence(e, tool_fence);
  add(e, "begin_parallel_%s|%s|0x%08x|%" PRIu64, kind, name, device_id, k);
  expect_global_fence(e, tool_fence);
  add(e, "end_parallel_%s|%" PRIu64, kind, k);
}

/* A graph's nodes report as the direct calls do, on the instance the graph
 * is submitted on, at every submission; adding nodes and instantiating
 * report nothing; destroying a submitted graph fences its backend. */
START_TEST(graph_nodes_report_as_direct_calls) {
  OK(init_tools(g_backend, g_plugin_path, g_recorder, 0));
  const int dev = kk_device_id();
  lines_t e = {0};
  expect_init(&e, g_recorder, true, "no");
  kk_view_t *a = vec("a", 100), *b = vec("b", 100), *r = NULL;
  OK(kk_view_alloc(&r, "r", KK_DOUBLE, 0, NULL));
  char space[64];
  snprintf(space, sizeof space, "%s", kk_space_name(kk_view_space(a)));
  void *pa = kk_view_data(a), *pb = kk_view_data(b), *pr = kk_view_data(r);
  add(&e, "allocate_data|%s|a|%p|800", space, pa);
  add(&e, "allocate_data|%s|b|%p|800", space, pb);
  add(&e, "allocate_data|%s|r|%p|8", space, pr);
  kk_graph_t *g;
  kk_graph_node_t *c, *k;
  OK(kk_graph_create(NULL, &g));
  OK(kk_graph_add_copy(g, b, a, NULL, 0, &c));
  struct tt_axpy ax = {2.0, kk_view_bind(a), kk_view_bind(b)};
  OK(kk_graph_add_for(g, "graph axpy", KK_RANGE(0, 100), KK_KERNEL(tt_axpy), KK_ARGS(ax), &c, 1, &k));
  struct tt_one sb = {kk_view_bind(b)};
  OK(kk_graph_add_reduce(g, NULL, KK_RANGE(0, 100), KK_KERNEL(tt_sum), KK_ARGS(sb), r, &k, 1, NULL));
  OK(kk_graph_instantiate(g));
  kk_instance_t *inst = NULL;
  OK(kk_instance_create(NULL, &inst));
  for (int sub = 0; sub < 2; sub++) {
    OK(kk_graph_submit(g, inst));
    add(&e, "begin_deep_copy|%s|b|%p|%s|a|%p|800", space, pb, space, pa);
    add(&e, "end_deep_copy");
    expect_fenced_kernel(&e, "for", "graph axpy", devid(g_backend, dev, 2));
    expect_fenced_kernel(&e, "reduce", "tt_sum", devid(g_backend, dev, 2));
  }
  OK(kk_graph_destroy(g));
  expect_fence(&e, "kk_graph_destroy: fence before destroying the graph", devid(g_backend, dev, 0));
  OK(kk_instance_destroy(inst));
  kk_view_release(a), kk_view_release(b), kk_view_release(r);
  add(&e, "deallocate_data|%s|a|%p|800", space, pa);
  add(&e, "deallocate_data|%s|b|%p|800", space, pb);
  add(&e, "deallocate_data|%s|r|%p|8", space, pr);
  expect_global_fence(&e, "kk_finalize: fence before finalizing");
  add(&e, "finalize_library");
  OK(kk_finalize());
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
  expect_fence(&e, "kk_deep_copy: Deep Copy Resource Synchronization", 40u << 24 | 0xFFFFFFu);
  add(&e, "end_deep_copy");
  OK(kk_fence());
  expect_fence(&e, "kk_fence: Unnamed Global Fence", devid("fake_ok", kk_device_id(), 0));
  expect_fence(&e, "kk_fence: Unnamed Global Fence", devid("serial", 0, 0));
  struct tt_axpy ax = {1.0, kk_view_bind(h), kk_view_bind(h)};
  OK(kk_parallel_for("on host", KK_RANGE_ON(kk_instance_host(), 0, 4), KK_KERNEL(tt_axpy), KK_ARGS(ax)));
  expect_global_fence(&e, "kk::tools: Kokkos Profile Tool Fence");
  add(&e, "begin_parallel_for|on host|0x%08x|1001", devid("serial", 0, 1));
  expect_global_fence(&e, "kk::tools: Kokkos Profile Tool Fence");
  add(&e, "end_parallel_for|1001");
  kk_instance_t *inst = NULL;
  OK(kk_instance_create("fake_ok", &inst));
  OK(kk_instance_fence(inst));
  expect_fence(&e, "kk_instance_fence: Unnamed Instance Fence", devid("fake_ok", kk_device_id(), 2));
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

/* The variables alone name the tool and its arguments. */
START_TEST(the_environment_names_the_tool_and_its_arguments) {
  setenv("KOKKOS_TOOLS_LIBS", g_recorder, 1);
  setenv("KOKKOS_TOOLS_ARGS", "'--from env'", 1);
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = g_backend;
  s.plugin_path = g_plugin_path;
  int argc = 1;
  char *args[] = {g_argv0, NULL};
  char **argv = args;
  OK(kk_initialize_ex(&argc, &argv, &s));
  ck_assert(kk_tools_active());
  OK(kk_finalize());
  lines_t got = read_log();
  ck_assert_int_ge(got.n, 5);
  ck_assert_str_eq(got.v[0], "init_library|0|20240906|0|NULL");
  ck_assert_str_eq(got.v[4], "parse_args|3|tools-test|--from|env|NULL-terminated");
  ck_assert_str_eq(got.v[got.n - 1], "finalize_library");
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

/* The DualView events reach the tool as Kokkos' DualView reports them, and
 * cost nothing without one. */
static void m_dv_sync(const char *label, const void *const ptr, bool to_device) {
  add(&g_mem, "dual_view_sync|%s|%p|%d", label, ptr, (int)to_device);
}
static void m_dv_modify(const char *label, const void *const ptr, bool on_device) {
  add(&g_mem, "dual_view_modify|%s|%p|%d", label, ptr, (int)on_device);
}

START_TEST(dual_view_events_reach_the_tool) {
  lines_free(&g_mem);
  int data[2];
  OK(kk_profiling_dual_view_sync("no tool", data, 1)); /* nothing to call yet */
  Kokkos_Profiling_EventSet set;
  memset(&set, 0, sizeof set);
  set.sync_dual_view = m_dv_sync;
  set.modify_dual_view = m_dv_modify;
  kk_tools_set_callbacks(&set);
  OK(kk_profiling_dual_view_modify("dv", &data[0], 0));
  OK(kk_profiling_dual_view_sync("dv", &data[1], 7)); /* any nonzero flag is true */
  OK(kk_profiling_dual_view_modify("dv", NULL, 1));
  ck_assert_int_eq(kk_profiling_dual_view_sync(NULL, data, 0), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_profiling_dual_view_sync");
  ck_assert_int_eq(kk_profiling_dual_view_modify(NULL, data, 0), KK_ERROR_INVALID_ARGUMENT);
  kk_tools_set_callbacks(NULL);
  char want[3][128];
  snprintf(want[0], sizeof want[0], "dual_view_modify|dv|%p|0", (void *)&data[0]);
  snprintf(want[1], sizeof want[1], "dual_view_sync|dv|%p|1", (void *)&data[1]);
  snprintf(want[2], sizeof want[2], "dual_view_modify|dv|%p|1", (void *)NULL);
  ck_assert_int_eq(g_mem.n, 3);
  for (int i = 0; i < 3; i++)
    ck_assert_str_eq(g_mem.v[i], want[i]);
  lines_free(&g_mem);
}
END_TEST

/* ---- tuning ------------------------------------------------------------------------------------ */

/* The lines of the log that start with one of the prefixes, in order. */
static bool has_prefix(const char *line, const char *const *prefixes) {
  for (; *prefixes; prefixes++)
    if (strncmp(line, *prefixes, strlen(*prefixes)) == 0)
      return true;
  return false;
}

static const char *const g_tuning_lines[] = {"declare_input_type", "declare_output_type", "begin_context",
                                             "request_values", "end_context", "begin_parallel", "end_parallel",
                                             NULL};

/* check_log on the tuning and kernel lines only. */
static void check_tuning_log(lines_t *want) {
  lines_t all = read_log();
  FILE *f = fopen(g_log, "w");
  ck_assert(f != NULL);
  for (int i = 0; i < all.n; i++)
    if (has_prefix(all.v[i], g_tuning_lines))
      fprintf(f, "%s\n", all.v[i]);
  fclose(f);
  lines_free(&all);
  check_log(want);
}

/* A host copy of view v's int64 elements (n of them). */
static void to_host(kk_view_t *v, int64_t *out, size_t n) {
  if (kk_space_host_accessible(kk_view_space(v))) {
    OK(kk_fence());
    memcpy(out, kk_view_data(v), n * sizeof *out);
  } else {
    OK(kk_space_copy(NULL, out, kk_view_space(v), kk_view_data(v), n * sizeof *out, NULL));
  }
}

/* "1,2,4,...": the powers of two up to max. */
static void pow2_list(char *buf, size_t size, int64_t max) {
  buf[0] = '\0';
  for (int64_t p = 1; p <= max; p *= 2)
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%lld", p > 1 ? "," : "", (long long)p);
}

/* On a host backend with one thread, the MDRange kernel visits the tiles of
 * an 8 x 8 box (right iteration) one after the other, each row by row. */
static void check_tile_order(kk_view_t *seq, int64_t t0, int64_t t1) {
  if (!kk_space_host_accessible(kk_view_space(seq)))
    return; /* a GPU visits points in no fixed order */
  int64_t got[64];
  to_host(seq, got, 64);
  for (int64_t i = 0; i < 8; i++)
    for (int64_t j = 0; j < 8; j++) {
      int64_t want = ((i / t0) * (8 / t1) + j / t1) * (t0 * t1) + (i % t0) * t1 + j % t1;
      ck_assert_msg(got[i * 8 + j] == want, "tiles %lldx%lld: point (%lld, %lld) visited %lldth, expected %lldth",
                    (long long)t0, (long long)t1, (long long)i, (long long)j, (long long)got[i * 8 + j],
                    (long long)want);
    }
}

/* What a tool proposes is what is launched: team size and vector length
 * (seen by the kernel), MDRange tiles (seen in the order the points are
 * visited), each asked once per launch in one context around the kernel. */
START_TEST(tuning_changes_what_is_launched) {
  setenv("KK_RECORDER_FENCING", "0", 1);
  setenv("KOKKOS_NUM_THREADS", "1", 1); /* one visiting order on host backends */
  OK(init_tools(g_backend, g_plugin_path, g_recorder, 1));
  uint32_t on_default = devid(g_backend, kk_device_id(), 1);
  kk_device_info_t info = {.struct_size = sizeof info};
  OK(kk_device_get_info(kk_backend_default(), kk_device_id(), &info));
  int tmax = 0, rmax = 0, rrec = 0;
  OK(kk_team_size_max(KK_KERNEL(tt_team_shape), KK_TEAM(4, KK_AUTO, 1), &tmax));
  OK(kk_team_size_max(KK_KERNEL(tt_team_threads), KK_TEAM(4, KK_AUTO, 1), &rmax));
  OK(kk_team_size_recommended(KK_KERNEL(tt_team_threads), KK_TEAM(4, KK_AUTO, 1), &rrec));
  /* with the vector length KK_AUTO too: the device's warp (32 on CUDA), and
   * the team sizes that go with it */
  const int vdef = info.warp_size > 1 ? (info.warp_size < info.max_vector_length ? info.warp_size : info.max_vector_length) : 1;
  int tamax = 0, tarec = 0;
  OK(kk_team_size_max(KK_KERNEL(tt_team_shape), KK_TEAM(4, KK_AUTO, KK_AUTO), &tamax));
  OK(kk_team_size_recommended(KK_KERNEL(tt_team_shape), KK_TEAM(4, KK_AUTO, KK_AUTO), &tarec));
  /* what the tool answers: a team of 2 where the backend allows it (serial
   * runs teams of 1), 4 vector lanes, tiles of 4 x 2 */
  const int team = tmax >= 2 && rmax >= 2 ? 2 : 1, vector = info.max_vector_length >= 4 ? 4 : 1;
  char spec[256], lanes[512];
  snprintf(spec, sizeof spec, "team_size=%d,vector_length=%d,tile_0=4,tile_1=2", team, vector);
  setenv("KK_RECORDER_TUNE", spec, 1);
  pow2_list(lanes, sizeof lanes, info.max_vector_length);
  lines_t e = {0};

  int64_t ext_seq[2] = {8, 8}, ext_shape[2] = {4, 2}, n1 = 1;
  kk_view_t *seq = NULL, *counter = NULL, *shape = NULL;
  OK(kk_view_alloc(&seq, "seq", KK_INT64, 2, ext_seq));
  OK(kk_view_alloc(&counter, "counter", KK_INT64, 1, &n1));
  OK(kk_view_alloc(&shape, "shape", KK_INT64, 2, ext_shape));
  struct tt_team tt = {kk_view_bind(shape)};
  int64_t got[8];

  /* team size and vector length both AUTO: one context, two outputs */
  OK(kk_parallel_for_team("tuned team", KK_TEAM(4, KK_AUTO, KK_AUTO), KK_KERNEL(tt_team_shape), KK_ARGS(tt)));
  to_host(shape, got, 8);
  const int64_t s0 = kk_view_stride(shape, 0), s1 = kk_view_stride(shape, 1); /* LayoutLeft on a GPU */
  for (int r = 0; r < 4; r++) {
    ck_assert_int_eq(got[r * s0], team);
    ck_assert_int_eq(got[r * s0 + s1], vector);
  }
  add(&e, "declare_input_type|kokkos.kernel_name|1|string|categorical|unbounded");
  add(&e, "declare_output_type|kk.vector_length:tuned team|2|int64|ordinal|set|%s", lanes);
  add(&e, "declare_output_type|kk.team_size:tuned team|3|int64|interval|range|1|%d|1|00", tamax);
  add(&e, "begin_context|1");
  add(&e, "request_values|1|1|2|1=tuned team|2:%d->%d|3:%d->%d", vdef, vector, tarec, team);
  expect_kernel(&e, "for", "tuned team", on_default);
  add(&e, "end_context|1|0");
  /* again: the variables are declared once */
  OK(kk_parallel_for_team("tuned team", KK_TEAM(4, KK_AUTO, KK_AUTO), KK_KERNEL(tt_team_shape), KK_ARGS(tt)));
  add(&e, "begin_context|2");
  add(&e, "request_values|2|1|2|1=tuned team|2:%d->%d|3:%d->%d", vdef, vector, tarec, team);
  expect_kernel(&e, "for", "tuned team", on_default);
  add(&e, "end_context|2|0");

  /* a team reduce with the vector length given: only the team size is asked */
  int64_t threads = 0;
  OK(kk_parallel_reduce_team("tuned reduce", KK_TEAM(4, KK_AUTO, 1), KK_KERNEL(tt_team_threads), KK_ARGS(tt),
                             KK_RESULT(threads)));
  ck_assert_int_eq(threads, 4 * team);
  add(&e, "declare_output_type|kk.team_size:tuned reduce|4|int64|interval|range|1|%d|1|00", rmax);
  add(&e, "begin_context|3");
  add(&e, "request_values|3|1|1|1=tuned reduce|4:%d->%d", rrec, team);
  expect_kernel(&e, "reduce", "tuned reduce", on_default);
  add(&e, "end_context|3|0");

  /* MDRange: tiles the policy leaves to the backend (0) are asked, in [1, extent] */
  struct tt_md md = {kk_view_bind(seq), kk_view_bind(counter)};
  OK(kk_parallel_for_md("tuned tiles", KK_MD2(8, 8), KK_KERNEL(tt_md_order), KK_ARGS(md)));
  check_tile_order(seq, 4, 2);
  add(&e, "declare_output_type|kk.tile_0:tuned tiles|5|int64|interval|range|1|8|1|00");
  add(&e, "declare_output_type|kk.tile_1:tuned tiles|6|int64|interval|range|1|8|1|00");
  add(&e, "begin_context|4");
  add(&e, "request_values|4|1|2|1=tuned tiles|5:0->4|6:0->2");
  expect_kernel(&e, "for", "tuned tiles", on_default);
  add(&e, "end_context|4|0");
  int64_t zero = 0;
  OK(kk_deep_copy_fill(counter, &zero));
  kk_md_policy_t half = *KK_MD2(8, 8);
  half.tile[0] = 8; /* given: only tile_1 is asked */
  OK(kk_parallel_for_md("half tuned", &half, KK_KERNEL(tt_md_order), KK_ARGS(md)));
  check_tile_order(seq, 8, 2);
  add(&e, "declare_output_type|kk.tile_1:half tuned|7|int64|interval|range|1|8|1|00");
  add(&e, "begin_context|5");
  add(&e, "request_values|5|1|1|1=half tuned|7:0->2");
  expect_kernel(&e, "for", "half tuned", on_default);
  add(&e, "end_context|5|0");
  int64_t msum = 0;
  OK(kk_parallel_reduce_md("tuned sum", KK_MD2(8, 8), KK_KERNEL(tt_md_sum), KK_ARGS(md), KK_RESULT(msum)));
  ck_assert_int_eq(msum, 8 * 100 * 28 + 8 * 28);
  add(&e, "declare_output_type|kk.tile_0:tuned sum|8|int64|interval|range|1|8|1|00");
  add(&e, "declare_output_type|kk.tile_1:tuned sum|9|int64|interval|range|1|8|1|00");
  add(&e, "begin_context|6");
  add(&e, "request_values|6|1|2|1=tuned sum|8:0->4|9:0->2");
  expect_kernel(&e, "reduce", "tuned sum", on_default);
  add(&e, "end_context|6|0");

  /* nothing AUTO: nothing asked */
  OK(kk_parallel_for_team("given", KK_TEAM(4, 1, 1), KK_KERNEL(tt_team_shape), KK_ARGS(tt)));
  expect_kernel(&e, "for", "given", on_default);
  OK(kk_parallel_for_md("given tiles", &(kk_md_policy_t){sizeof(kk_md_policy_t), 2, KK_ITERATE_DEFAULT,
                                                          KK_ITERATE_DEFAULT, {0}, {8, 8}, {2, 2}, NULL},
                        KK_KERNEL(tt_md_order), KK_ARGS(md)));
  expect_kernel(&e, "for", "given tiles", on_default);

  /* answers that are not candidates (too large, not a power of two) keep the defaults */
  setenv("KK_RECORDER_TUNE", "team_size=100000,vector_length=3", 1);
  OK(kk_parallel_for_team("tuned team", KK_TEAM(4, KK_AUTO, KK_AUTO), KK_KERNEL(tt_team_shape), KK_ARGS(tt)));
  to_host(shape, got, 8);
  ck_assert_int_eq(got[0], tarec);
  ck_assert_int_eq(got[s1], vdef);
  add(&e, "begin_context|7");
  add(&e, "request_values|7|1|2|1=tuned team|2:%d->3|3:%d->100000", vdef, tarec);
  expect_kernel(&e, "for", "tuned team", on_default);
  add(&e, "end_context|7|0");

  kk_view_release(seq);
  kk_view_release(counter);
  kk_view_release(shape);
  OK(kk_finalize());
  check_tuning_log(&e);

  /* without --kokkos-tune-internals the tool is not asked, and AUTO is the backend's */
  OK(init_tools(g_backend, g_plugin_path, g_recorder, 0));
  OK(kk_view_alloc(&shape, "shape", KK_INT64, 2, ext_shape));
  tt.shape = kk_view_bind(shape);
  OK(kk_parallel_for_team("tuned team", KK_TEAM(4, KK_AUTO, KK_AUTO), KK_KERNEL(tt_team_shape), KK_ARGS(tt)));
  to_host(shape, got, 8);
  ck_assert_int_eq(got[0], tarec);
  ck_assert_int_eq(got[kk_view_stride(shape, 1)], vdef);
  kk_view_release(shape);
  OK(kk_finalize());
  lines_t log = read_log();
  for (int i = 0; i < log.n; i++)
    ck_assert_msg(strstr(log.v[i], "context") == NULL && strstr(log.v[i], "_type") == NULL &&
                      strstr(log.v[i], "request_values") == NULL,
                  "%s", log.v[i]);
  lines_free(&log);
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
  tcase_add_test(tc, the_environment_names_the_tool_and_its_arguments);
  tcase_add_test(tc, tools_help_prints_the_tools_help_and_requests_exit);
  tcase_add_test(tc, programmatic_callbacks);
  tcase_add_test(tc, dual_view_events_reach_the_tool);
  tcase_add_test(tc, tuning_changes_what_is_launched);
  tcase_add_test(tc, graph_nodes_report_as_direct_calls);
  if (strcmp(g_backend, "serial") == 0) /* backend independent: once is enough */
    tcase_add_test(tc, device_backend_beside_host);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  if (argc > 1)
    g_backend = argv[1];
  snprintf(g_recorder, sizeof g_recorder, "%s/recorder.so", KK_TEST_TOOLS_DIR);
  /* The core is linked in statically, so it is not the tree's libkk and does
   * not search the tree's plugins by itself: name them, unless the caller did. */
  g_plugin_path = strdup(getenv("KOKKOS_PLUGIN_PATH") ? getenv("KOKKOS_PLUGIN_PATH") : KK_TEST_PLUGIN_DIR);
  /* Is the backend here at all?  If not, the test is skipped with the reason. */
  tu_clear_env();
  int probe = tu_probe_backend(g_backend, g_plugin_path);
  if (probe != 0) {
    free(g_plugin_path);
    return probe;
  }
  int rc = tu_run(tools_suite());
  free(g_plugin_path);
  return rc;
}
