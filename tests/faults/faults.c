/* tests/faults/faults.c -- the faults tests on one backend: launches refused for bad arguments, launches from 8 threads at once, bounds checking (kkcc --bounds-check). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../testutil.h"
#include "faults.h"

static const char *g_backend = "serial";
static char *g_plugin_path; /* KOKKOS_PLUGIN_PATH as the test harness set it */

KK_DECLARE_KERNEL(ft_fill);
KK_DECLARE_KERNEL(ft_sum);
KK_DECLARE_KERNEL(ft_scan);
KK_DECLARE_KERNEL(ft_rows);
KK_DECLARE_KERNEL(ft_scratch);
KK_DECLARE_KERNEL(ft_bad_write);
KK_DECLARE_KERNEL(bc_for1);
KK_DECLARE_KERNEL(bc_reduce2);
KK_DECLARE_KERNEL(bc_rank);
KK_DECLARE_KERNEL(bc_type);
KK_DECLARE_KERNEL(bc_scan);
KK_DECLARE_KERNEL(bc_md3);
KK_DECLARE_KERNEL(bc_team);
KK_DECLARE_KERNEL(bc_scatter);
KK_DECLARE_KERNEL(bc_helper);
KK_DECLARE_KERNEL(bc_row);
KK_DECLARE_KERNEL(bc_row_of);
KK_DECLARE_KERNEL(bc_row_of_wrong);

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

static kk_view_t *view(const char *label, kk_type_t t, int rank, int64_t e0, int64_t e1, int64_t e2) {
  kk_view_t *v = NULL;
  const int64_t ext[3] = {e0, e1, e2};
  OK(kk_view_alloc(&v, label, t, rank, ext));
  return v;
}

/* ---- launches refused before they start ------------------------------------------------- */

/* args == NULL with the kernel's args_size crashed in a worker thread. */
START_TEST(null_args_with_a_size) {
  struct fill_args a;
  kk_status_t st = kk_parallel_for("nullargs", KK_RANGE(0, 100), KK_KERNEL(ft_fill), NULL, sizeof a);
  ck_assert_int_eq(st, KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_for 'nullargs': kernel 'ft_fill': args is NULL but args_size is");
  int64_t s = 0;
  ck_assert_int_eq(kk_parallel_reduce("nullargs", KK_RANGE(0, 100), KK_KERNEL(ft_sum), NULL, sizeof a, KK_RESULT(s)),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_parallel_reduce_team("nullargs", KK_TEAM(4, KK_AUTO, KK_AUTO), KK_KERNEL(ft_rows), NULL,
                                           sizeof(struct team_args), KK_RESULT(s)),
                   KK_ERROR_INVALID_ARGUMENT);
}
END_TEST

static kk_team_policy_t team_policy(int64_t league, int32_t team, uint64_t st0, uint64_t th0, uint64_t st1,
                                    uint64_t th1) {
  kk_team_policy_t p = *KK_TEAM(league, team, KK_AUTO);
  p.scratch_team[0] = st0;
  p.scratch_thread[0] = th0;
  p.scratch_team[1] = st1;
  p.scratch_thread[1] = th1;
  return p;
}

/* Team size 2 and 2^63 bytes of scratch per thread passed the limit check
 * (the sum wrapped to 0) and crashed. */
START_TEST(scratch_sums_that_overflow) {
  kk_view_t *v = view("rows", KK_INT64, 2, 8, 4, 0);
  struct team_args a = {kk_view_bind(v), 4};
  int max = 0;
  const kk_team_policy_t one = team_policy(8, KK_AUTO, 0, 0, 0, 0);
  OK(kk_team_size_max(KK_KERNEL(ft_scratch), &one, &max));
  const int32_t ts = max >= 2 ? 2 : 1;
  const uint64_t big = (uint64_t)1 << 63;
  const kk_team_policy_t cases[] = {
      team_policy(8, ts, ts == 2 ? 0 : 1, ts == 2 ? big : UINT64_MAX, 0, 0), /* (per team +) team size x per thread */
      team_policy(8, ts, UINT64_MAX, 8, 0, 0),                 /* per team + per thread wraps */
      team_policy(8, ts, 0, 0, 64, UINT64_MAX),                 /* level 1 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    kk_status_t st = kk_parallel_for_team("wrap", &cases[i], KK_KERNEL(ft_scratch), KK_ARGS(a));
    ck_assert_msg(st == KK_ERROR_LIMIT, "case %zu: %s (%s)", i, kk_status_name(st), kk_last_error());
    ck_assert_contains(kk_last_error(), "kk_parallel_for_team 'wrap': scratch level");
    ck_assert_contains(kk_last_error(), "bytes per team requested");
    ck_assert_contains(kk_last_error(), "more than 18446744073709551615");
  }
  /* too much scratch for one team of one thread: the scratch sentence on
   * every backend, not "team size 1 exceeds the maximum 0" */
  const kk_team_policy_t big1 = team_policy(8, 1, (uint64_t)1 << 40, 0, 0, 0);
  ck_assert_int_eq(kk_parallel_for_team("bigscratch", &big1, KK_KERNEL(ft_scratch), KK_ARGS(a)), KK_ERROR_LIMIT);
  ck_assert_contains(kk_last_error(), "scratch level 0: 1099511627776 bytes per team requested (1099511627776 per team "
                                      "+ 1 threads x 0), backend");
  /* the request a thread's scratch needs still runs */
  const kk_team_policy_t fine = team_policy(8, ts, 0, kk_scratch_size(sizeof(int64_t), 1), 0, 0);
  OK(kk_parallel_for_team("scratch", &fine, KK_KERNEL(ft_scratch), KK_ARGS(a)));
  ck_assert_uint_eq(kk_scratch_size(8, (int64_t)1 << 62), SIZE_MAX);
  ck_assert_uint_eq(kk_scratch_size(8, 3), 32);
  kk_view_release(v);
}
END_TEST

/* ---- launches from 8 threads at once ------------------------------------------------------- */

#define NTHREADS 8
#define ROUNDS 12
#define N 4099
#define ROWS 37
#define COLS 23

typedef struct work {
  int id;
  kk_instance_t *inst; /* NULL: the default instance */
  char err[512];
} work_t;

#define WORK_FAIL(w, ...)                                      \
  do {                                                         \
    snprintf((w)->err, sizeof (w)->err, __VA_ARGS__);          \
    goto done;                                                 \
  } while (0)
#define WORK_OK(w, call)                                                                     \
  do {                                                                                       \
    if ((call) != KK_OK)                                                                     \
      WORK_FAIL(w, "thread %d: %s: %s", (w)->id, #call, kk_last_error());                   \
  } while (0)

/* Range for, reduce and scan, and a team reduce, on the thread's own views,
 * each checked; every launch on w->inst. */
static void *work_loop(void *p) {
  work_t *w = p;
  kk_view_t *v = NULL, *m = NULL, *h = NULL, *hm = NULL;
  char label[32];
  snprintf(label, sizeof label, "v%d", w->id);
  const int64_t nn = N;
  const int64_t ext[2] = {ROWS, COLS};
  WORK_OK(w, kk_view_alloc(&v, label, KK_INT64, 1, &nn));
  WORK_OK(w, kk_view_alloc(&m, label, KK_INT64, 2, ext));
  WORK_OK(w, kk_view_create_mirror_view(v, &h));
  WORK_OK(w, kk_view_create_mirror_view(m, &hm));
  for (int r = 0; r < ROUNDS; r++) {
    const int64_t base = w->id * 1000 + r;
    struct fill_args a = {kk_view_bind(v), base};
    WORK_OK(w, kk_parallel_for(label, KK_RANGE_ON(w->inst, 0, N), KK_KERNEL(ft_fill), KK_ARGS(a)));
    int64_t sum = 0;
    WORK_OK(w, kk_parallel_reduce(label, KK_RANGE_ON(w->inst, 0, N), KK_KERNEL(ft_sum), KK_ARGS(a), KK_RESULT(sum)));
    if (sum != N * base + (int64_t)N * (N - 1) / 2)
      WORK_FAIL(w, "thread %d round %d: sum %lld, expected %lld", w->id, r, (long long)sum,
                (long long)(N * base + (int64_t)N * (N - 1) / 2));
    int64_t total = 0;
    WORK_OK(w, kk_parallel_scan(label, KK_RANGE_ON(w->inst, 0, N), KK_KERNEL(ft_scan), KK_ARGS(a), KK_RESULT(total)));
    if (total != sum)
      WORK_FAIL(w, "thread %d round %d: scan total %lld, expected %lld", w->id, r, (long long)total, (long long)sum);
    WORK_OK(w, kk_instance_fence(w->inst ? w->inst : kk_instance_default()));
    if (h != v)
      WORK_OK(w, kk_deep_copy(h, v));
    const int64_t *hv = kk_view_data(h);
    if (hv[N - 1] != sum || hv[0] != base)
      WORK_FAIL(w, "thread %d round %d: scan[0] %lld, scan[N-1] %lld", w->id, r, (long long)hv[0],
                (long long)hv[N - 1]);
    /* the team reduce over a matrix filled on the host */
    int64_t *hmv = kk_view_data(hm), expect = 0;
    for (int64_t i = 0; i < ROWS; i++)
      for (int64_t j = 0; j < COLS; j++) {
        hmv[i * kk_view_stride(hm, 0) + j * kk_view_stride(hm, 1)] = base + i * COLS + j;
        expect += base + i * COLS + j;
      }
    if (hm != m)
      WORK_OK(w, kk_deep_copy(m, hm));
    struct team_args ta = {kk_view_bind(m), COLS};
    kk_team_policy_t tp = *KK_TEAM(ROWS, KK_AUTO, KK_AUTO);
    tp.instance = w->inst;
    int64_t rows = 0;
    WORK_OK(w, kk_parallel_reduce_team(label, &tp, KK_KERNEL(ft_rows), KK_ARGS(ta), KK_RESULT(rows)));
    if (rows != expect)
      WORK_FAIL(w, "thread %d round %d: team sum %lld, expected %lld", w->id, r, (long long)rows, (long long)expect);
  }
done:
  kk_view_release(hm);
  kk_view_release(h);
  kk_view_release(m);
  kk_view_release(v);
  return NULL;
}

static void run_workers(kk_instance_t *const *inst) {
  work_t w[NTHREADS];
  pthread_t t[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    w[i] = (work_t){.id = i, .inst = inst[i]};
    ck_assert_int_eq(pthread_create(&t[i], NULL, work_loop, &w[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < NTHREADS; i++)
    ck_assert_msg(w[i].err[0] == '\0', "%s", w[i].err);
}

/* Each thread on an instance of its own (docs/parallel.md: supported). */
START_TEST(eight_threads_on_distinct_instances) {
  kk_instance_t *inst[NTHREADS];
  for (int i = 0; i < NTHREADS; i++)
    OK(kk_instance_create(NULL, &inst[i]));
  run_workers(inst);
  for (int i = 0; i < NTHREADS; i++)
    OK(kk_instance_destroy(inst[i]));
}
END_TEST

/* All threads on the default instance, then all on one created instance
 * (supported too: launches on one instance are ordered). */
START_TEST(eight_threads_on_one_instance) {
  kk_instance_t *inst[NTHREADS] = {NULL};
  run_workers(inst);
  kk_instance_t *one = NULL;
  OK(kk_instance_create(NULL, &one));
  for (int i = 0; i < NTHREADS; i++)
    inst[i] = one;
  run_workers(inst);
  OK(kk_instance_destroy(one));
}
END_TEST

/* ---- bounds checking (host backends; cuda and hip, whose images kkcc checks) ---------------------- */

static bool is_host_backend(const char *b) {
  return strcmp(b, "serial") == 0 || strcmp(b, "threads") == 0 || strcmp(b, "openmp") == 0;
}

static kk_view_t *g_v1, *g_v2, *g_v3, *g_vi, *g_count, *g_guard;
static kk_scatter_view_t *g_sv;

static void bc_setup(void) {
  setup();
  g_guard = view("guarded", KK_DOUBLE, 1, 20, 0, 0);
  double minus1 = -1;
  OK(kk_deep_copy_fill(g_guard, &minus1));
  kk_slice_t first10[1] = {KK_SPAN(0, 10)};
  OK(kk_view_subview(g_guard, first10, &g_v1));
  g_v2 = view("m", KK_DOUBLE, 2, 3, 5, 0);
  g_v3 = view("cube", KK_DOUBLE, 3, 2, 3, 4);
  g_vi = view("ints", KK_INT32, 1, 10, 0, 0);
  int32_t seven = 7;
  OK(kk_deep_copy_fill(g_vi, &seven));
  g_count = view("count", KK_INT64, 1, 1, 0, 0);
  OK(kk_scatter_view_create(g_v1, KK_SCATTER_SUM, KK_SCATTER_AUTO, &g_sv));
}

static void bc_teardown(void) {
  kk_scatter_view_release(g_sv);
  kk_view_release(g_count);
  kk_view_release(g_vi);
  kk_view_release(g_v3);
  kk_view_release(g_v2);
  kk_view_release(g_v1);
  kk_view_release(g_guard);
  teardown();
}

static struct bc_args bc(int64_t shift, int64_t extra) {
  struct bc_args a = {kk_view_bind(g_v1), kk_view_bind(g_v2), kk_view_bind(g_v3), kk_view_bind(g_vi),
                      kk_view_bind(g_count), kk_scatter_bind(g_sv), shift, extra};
  int64_t zero = 0;
  OK(kk_deep_copy_fill(g_count, &zero));
  return a;
}

/* A view's elements as the host sees them (GPU views through a mirror). */
static void fetch(kk_view_t *v, void *dst, size_t bytes) {
  kk_view_t *h = NULL;
  OK(kk_view_create_mirror_view(v, &h));
  OK(kk_deep_copy(h, v));
  memcpy(dst, kk_view_data(h), bytes);
  kk_view_release(h);
}

static int64_t count_of(void) {
  int64_t n = 0;
  fetch(g_count, &n, sizeof n);
  return n;
}

/* the guard's 20 elements (the first 10 are g_v1) */
static const double *guard(void) {
  static double g[20];
  fetch(g_guard, g, sizeof g);
  return g;
}

#define EXPECT_BOUNDS(call, ...)                                                                      \
  do {                                                                                                \
    kk_status_t st_ = (call);                                                                         \
    if (st_ == KK_OK && !is_host_backend(g_backend)) /* a device reports at the next fence */         \
      st_ = kk_fence();                                                                               \
    ck_assert_msg(st_ == KK_ERROR_KERNEL_FAILED, "%s: %s (%s)", #call, kk_status_name(st_), kk_last_error()); \
    const char *want_[] = {__VA_ARGS__};                                                              \
    for (size_t i_ = 0; i_ < sizeof want_ / sizeof *want_; i_++)                                      \
      ck_assert_contains(kk_last_error(), want_[i_]);                                                 \
    ck_assert_contains(kk_last_error(), "bounds.kk.c:");                                              \
    /* one sentence: the launch is named once, even when its own fence reported it (opencl) */       \
    const char *first_ = strstr(kk_last_error(), " (kernel '");                                       \
    ck_assert_msg(first_ && !strstr(first_ + 1, " (kernel '"), "the launch is named twice: %s",       \
                  kk_last_error());                                                                   \
  } while (0)

START_TEST(bounds_kernels_are_flagged) {
  ck_assert_uint_eq(KK_KERNEL(bc_for1)->flags & KK_KERNEL_FLAG_BOUNDS_CHECK, KK_KERNEL_FLAG_BOUNDS_CHECK);
  ck_assert_uint_eq(KK_KERNEL(ft_fill)->flags, 0);
  struct bc_args a = bc(0, 0);
  OK(kk_parallel_for("inbounds", KK_RANGE(0, 10), KK_KERNEL(bc_for1), KK_ARGS(a)));
  ck_assert_int_eq(count_of(), 10);
  const double *g = guard();
  for (int i = 0; i < 10; i++)
    ck_assert(g[i] == i);
}
END_TEST

/* The message names the operation, label, kernel, backend, view, indices,
 * extents and source line; nothing outside the view is written; the next
 * launch runs. */
START_TEST(bounds_range_for) {
  struct bc_args a = bc(1, 0);
  char want[256];
  snprintf(want, sizeof want, "kk_parallel_for 'oob-for' (kernel 'bc_for1') on backend %s stopped: bounds check: "
                              "view 'guarded': index (10) is outside its extents (10), at ", g_backend);
  EXPECT_BOUNDS(kk_parallel_for("oob-for", KK_RANGE(0, 10), KK_KERNEL(bc_for1), KK_ARGS(a)), want);
  const double *g = guard();
  for (int i = 10; i < 20; i++)
    ck_assert_msg(g[i] == -1, "element %d past the view was written: %g", i, g[i]);
  /* the launch stops: every access of a long range fails, few iterations run
   * (on a GPU each thread of the grid may have made its first access before
   * the failure is seen: that the launch ends with the error is the test) */
  a = bc(1000000, 0);
  EXPECT_BOUNDS(kk_parallel_for("oob-all", KK_RANGE(0, 1000000), KK_KERNEL(bc_for1), KK_ARGS(a)),
                "view 'guarded': index (", ") is outside its extents (10)"); /* (the first index of some thread) */
  if (is_host_backend(g_backend))
    ck_assert_msg(count_of() <= 4 * kk_num_threads(), "%lld iterations ran after the first failure",
                  (long long)count_of());
  a = bc(0, 0);
  OK(kk_parallel_for("inbounds", KK_RANGE(0, 10), KK_KERNEL(bc_for1), KK_ARGS(a)));
  ck_assert_int_eq(count_of(), 10);
}
END_TEST

START_TEST(bounds_reduce_rank_type_scan_md) {
  struct bc_args a = bc(0, 5);
  double s = 0;
  EXPECT_BOUNDS(kk_parallel_reduce("oob-red", KK_RANGE(2, 3), KK_KERNEL(bc_reduce2), KK_ARGS(a), KK_RESULT(s)),
                "kk_parallel_reduce 'oob-red' (kernel 'bc_reduce2')", "view 'm': index (2, 5) is outside its extents (3, 5)");
  EXPECT_BOUNDS(kk_parallel_reduce("rank", KK_RANGE(0, 1), KK_KERNEL(bc_rank), KK_ARGS(a), KK_RESULT(s)),
                "view 'm' of rank 2 accessed with 1 index (0)");
  EXPECT_BOUNDS(kk_parallel_for("type", KK_RANGE(0, 10), KK_KERNEL(bc_type), KK_ARGS(a)),
                "view 'ints' has elements of 4 bytes but is accessed as a 8-byte type");
  int32_t ints[10];
  fetch(g_vi, ints, sizeof ints);
  for (int i = 0; i < 10; i++)
    ck_assert_int_eq(ints[i], 7);
  a = bc(1, 0);
  EXPECT_BOUNDS(kk_parallel_scan("oob-scan", KK_RANGE(0, 10), KK_KERNEL(bc_scan), KK_ARGS(a), KK_RESULT(s)),
                "kk_parallel_scan 'oob-scan' (kernel 'bc_scan')", "view 'guarded': index (10) is outside its extents (10)");
  kk_md_policy_t md = *KK_MD3(2, 3, 4);
  md.begin[0] = 1, md.begin[1] = 2, md.begin[2] = 3;
  EXPECT_BOUNDS(kk_parallel_for_md("oob-md", &md, KK_KERNEL(bc_md3), KK_ARGS(a)),
                "kk_parallel_for_md 'oob-md' (kernel 'bc_md3')", "view 'cube': index (1, 2, 4) is outside its extents (2, 3, 4)");
  a = bc(0, 0);
  OK(kk_parallel_for_md("md", KK_MD3(2, 3, 4), KK_KERNEL(bc_md3), KK_ARGS(a)));
  ck_assert_int_eq(count_of(), 24);
  a = bc(10, 0);
  EXPECT_BOUNDS(kk_parallel_reduce("helper", KK_RANGE(0, 1), KK_KERNEL(bc_helper), KK_ARGS(a), KK_RESULT(s)),
                "(kernel 'bc_helper')", "index (10) is outside its extents (10)");
  /* through a row made in the kernel: the row's index, then the column's */
  a = bc(3, 0);
  EXPECT_BOUNDS(kk_parallel_reduce("row", KK_RANGE(0, 1), KK_KERNEL(bc_row), KK_ARGS(a), KK_RESULT(s)),
                "(kernel 'bc_row')", "view 'm': index (0) is outside its extents (0)");
  a = bc(0, 5);
  EXPECT_BOUNDS(kk_parallel_reduce("col", KK_RANGE(0, 1), KK_KERNEL(bc_row), KK_ARGS(a), KK_RESULT(s)),
                "(kernel 'bc_row')", "view 'm': index (5) is outside its extents (5)");
  a = bc(0, 4);
  OK(kk_parallel_reduce("row-ok", KK_RANGE(0, 3), KK_KERNEL(bc_row), KK_ARGS(a), KK_RESULT(s)));
  /* typed rows: the same checks, and a row typed with another element size is empty */
  a = bc(3, 0);
  EXPECT_BOUNDS(kk_parallel_reduce("row-of", KK_RANGE(0, 1), KK_KERNEL(bc_row_of), KK_ARGS(a), KK_RESULT(s)),
                "(kernel 'bc_row_of')", "view 'm': index (0) is outside its extents (0)");
  a = bc(0, 4);
  OK(kk_parallel_reduce("row-of-ok", KK_RANGE(0, 3), KK_KERNEL(bc_row_of), KK_ARGS(a), KK_RESULT(s)));
  a = bc(0, 1);
  EXPECT_BOUNDS(kk_parallel_reduce("row-of-float", KK_RANGE(0, 1), KK_KERNEL(bc_row_of_wrong), KK_ARGS(a), KK_RESULT(s)),
                "(kernel 'bc_row_of_wrong')", "view 'm': index (1) is outside its extents (0)");
}
END_TEST

/* A failed access in a team whose threads meet at barriers: the launch ends
 * (no thread waits forever) with the error. */
START_TEST(bounds_team_with_barriers) {
  int max = 0;
  OK(kk_team_size_max(KK_KERNEL(bc_team), KK_TEAM(3, KK_AUTO, KK_AUTO), &max));
  for (int32_t ts = 1; ts <= (max < 4 ? max : 4); ts++) {
    struct bc_args a = bc(1, 0);
    double s = 0;
    EXPECT_BOUNDS(kk_parallel_reduce_team("oob-team", KK_TEAM(3, ts, KK_AUTO), KK_KERNEL(bc_team), KK_ARGS(a),
                                          KK_RESULT(s)),
                  "kk_parallel_reduce_team 'oob-team' (kernel 'bc_team')", ", 5) is outside its extents (3, 5)");
    a = bc(0, 0);
    OK(kk_parallel_reduce_team("team", KK_TEAM(3, ts, KK_AUTO), KK_KERNEL(bc_team), KK_ARGS(a), KK_RESULT(s)));
  }
}
END_TEST

START_TEST(bounds_scatter_and_unmanaged) {
  struct bc_args a = bc(1, 0);
  EXPECT_BOUNDS(kk_parallel_for("oob-scatter", KK_RANGE(0, 10), KK_KERNEL(bc_scatter), KK_ARGS(a)),
                "view 'guarded': index (10) is outside its extents (10)");
  OK(kk_scatter_view_contribute(g_sv));
  const double *g = guard();
  for (int i = 10; i < 20; i++)
    ck_assert(g[i] == -1);
  if (!is_host_backend(g_backend))
    return; /* a device kernel cannot reach the program's static memory below */
  /* a view over the program's own memory is named too */
  static double mine[8];
  kk_view_spec_t sp = KK_VIEW_SPEC_INIT;
  sp.label = "wrapped";
  sp.type = KK_DOUBLE;
  sp.rank = 1;
  sp.extents[0] = 8;
  kk_view_t *w = NULL;
  OK(kk_view_wrap(&sp, mine, &w));
  a.v1 = kk_view_bind(w);
  a.shift = 0;
  EXPECT_BOUNDS(kk_parallel_for("oob-wrapped", KK_RANGE(0, 9), KK_KERNEL(bc_for1), KK_ARGS(a)),
                "view 'wrapped': index (8) is outside its extents (8)");
  kk_view_release(w);
}
END_TEST

/* Bounds-checked launches from 8 threads, one of them out of bounds: only
 * that thread's launches fail. */
typedef struct bc_work {
  int id;
  int bad;
  char err[512];
} bc_work_t;

static void *bc_loop(void *p) {
  bc_work_t *w = p;
  kk_view_t *v = NULL, *c = NULL;
  const int64_t n = 64, one = 1;
  char label[16];
  snprintf(label, sizeof label, "w%d", w->id);
  if (kk_view_alloc(&v, label, KK_DOUBLE, 1, &n) != KK_OK || kk_view_alloc(&c, "c", KK_INT64, 1, &one) != KK_OK) {
    snprintf(w->err, sizeof w->err, "thread %d: %s", w->id, kk_last_error());
    goto done;
  }
  for (int r = 0; r < 40 && !w->err[0]; r++) {
    struct bc_args a;
    memset(&a, 0, sizeof a);
    a.v1 = kk_view_bind(v);
    a.count = kk_view_bind(c);
    a.shift = w->bad ? 1 : 0;
    kk_status_t st = kk_parallel_for(label, KK_RANGE(0, n), KK_KERNEL(bc_for1), KK_ARGS(a));
    char want[64];
    snprintf(want, sizeof want, "view '%s': index (64)", label);
    if (w->bad && (st != KK_ERROR_KERNEL_FAILED || !strstr(kk_last_error(), want)))
      snprintf(w->err, sizeof w->err, "thread %d round %d: expected the failure, got %s: %s", w->id, r,
               kk_status_name(st), kk_last_error());
    else if (!w->bad && st != KK_OK)
      snprintf(w->err, sizeof w->err, "thread %d round %d: %s", w->id, r, kk_last_error());
  }
done:
  kk_view_release(c);
  kk_view_release(v);
  return NULL;
}

START_TEST(bounds_from_eight_threads) {
  bc_work_t w[NTHREADS];
  pthread_t t[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    w[i] = (bc_work_t){.id = i, .bad = i == 3};
    ck_assert_int_eq(pthread_create(&t[i], NULL, bc_loop, &w[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < NTHREADS; i++)
    ck_assert_msg(w[i].err[0] == '\0', "%s", w[i].err);
}
END_TEST

/* Backends whose images tests/faults/bounds.kk.c has checked (kkcc
 * --bounds-check on the host, cuda and hip targets). */
static bool checks_bounds(const char *b) {
  return is_host_backend(b) || strcmp(b, "cuda") == 0 || strcmp(b, "hip") == 0 || strcmp(b, "opencl") == 0 ||
         strcmp(b, "levelzero") == 0;
}

static Suite *faults_suite(void) {
  Suite *s = suite_create(g_backend);
  TCase *tc = tcase_create("dispatch");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, null_args_with_a_size);
  tcase_add_test(tc, scratch_sums_that_overflow);
  suite_add_tcase(s, tc);
  tc = tcase_create("concurrent");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, eight_threads_on_distinct_instances);
  tcase_add_test(tc, eight_threads_on_one_instance);
  suite_add_tcase(s, tc);
  if (checks_bounds(g_backend)) {
    tc = tcase_create("bounds");
    tcase_add_checked_fixture(tc, bc_setup, bc_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bounds_kernels_are_flagged);
    tcase_add_test(tc, bounds_range_for);
    tcase_add_test(tc, bounds_reduce_rank_type_scan_md);
    tcase_add_test(tc, bounds_team_with_barriers);
    tcase_add_test(tc, bounds_scatter_and_unmanaged);
    /* one failure record per GPU context, reported by the next fence of any
     * thread: the per-launch attribution of this case is the host's */
    if (is_host_backend(g_backend))
      tcase_add_test(tc, bounds_from_eight_threads);
    suite_add_tcase(s, tc);
  } else {
    printf("note: bounds checking is not tested on %s: its target does not check bounds (docs/bounds-check.md)\n",
           g_backend);
  }
  return s;
}

/* ---- a kernel that faults on the device (tests/faults/device-fault.sh) ------------------------ */

#define DF_CHECK(cond, ...)                                                                                    \
  do {                                                                                                          \
    if (!(cond)) {                                                                                              \
      printf("FAIL: " __VA_ARGS__);                                                                             \
      printf("\n");                                                                                             \
      return 1;                                                                                                 \
    }                                                                                                           \
  } while (0)

/* A kernel labelled 'df_bad_write' writes through address 16 on a new
 * instance; a kernel on the default instance before it was fenced (with
 * `several`, 10 more on the default instance are not: the message then lists
 * the last 8 of them, the count of the others, and the bad one).  The
 * fence of the instance, kk_fence, a later launch and kk_finalize must all
 * fail with KK_ERROR_BACKEND naming that label alone, that instance (by its
 * native queue) and the native error (`native`, e.g. "= 700"); the host
 * backend keeps working; the tools' finalize still runs (the script checks
 * the recorder's file).  Not a Check test: the device stays lost. */
static int device_fault(const char *native, const char *tools, bool several) {
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = g_backend;
  s.plugin_path = g_plugin_path;
  s.tools_libs = tools;
  s.disable_warnings = 1;
  DF_CHECK(kk_initialize_with_settings(&s) == KK_OK, "initializing %s: %s", g_backend, kk_last_error());
  const int64_t n = 1024;
  kk_view_t *v = NULL;
  DF_CHECK(kk_view_alloc(&v, "df_v", KK_INT64, 1, &n) == KK_OK, "%s", kk_last_error());
  struct fill_args fa = {kk_view_bind(v), 1};
  DF_CHECK(kk_parallel_for("df_good", KK_RANGE(0, n), KK_KERNEL(ft_fill), KK_ARGS(fa)) == KK_OK, "%s",
           kk_last_error());
  DF_CHECK(kk_fence() == KK_OK, "fence before the fault: %s", kk_last_error());
  kk_instance_t *in = NULL;
  DF_CHECK(kk_instance_create(NULL, &in) == KK_OK, "%s", kk_last_error());
  kk_native_queue_t q = {KK_NATIVE_NONE, 0, NULL, NULL};
  DF_CHECK(kk_instance_native_queue(in, &q) == KK_OK, "%s", kk_last_error());
  char queue[64];
  snprintf(queue, sizeof queue, "(native queue %p)", q.queue);
  for (int i = 0; several && i < 10; i++) {
    char label[16];
    snprintf(label, sizeof label, "df_%d", i);
    DF_CHECK(kk_parallel_for(label, KK_RANGE(0, n), KK_KERNEL(ft_fill), KK_ARGS(fa)) == KK_OK, "%s", kk_last_error());
  }
  struct bad_args ba = {16};
  kk_status_t st = kk_parallel_for("df_bad_write", KK_RANGE_ON(in, 0, n), KK_KERNEL(ft_bad_write), KK_ARGS(ba));
  printf("launch: %s: %s\n", kk_status_name(st), st == KK_OK ? "" : kk_last_error());
  st = kk_instance_fence(in);
  char first[2048];
  snprintf(first, sizeof first, "%s", kk_last_error());
  printf("instance fence: %s: %s\n", kk_status_name(st), first);
  DF_CHECK(st == KK_ERROR_BACKEND, "the fence after the fault returned %s", kk_status_name(st));
  DF_CHECK(strstr(first, queue) && !strstr(first, "df_good") && strstr(first, native) &&
               strstr(first, "the device is lost"),
           "the fence's message does not name the instance %s, '%s' or the device lost (or names df_good)", queue,
           native);
  if (several)
    DF_CHECK(strstr(first, "one of the 11 kernels in flight since the last fence faulted (the device does not say "
                           "which): 'df_2', 'df_3', 'df_4', 'df_5', 'df_6', 'df_7', 'df_8', 'df_9' and 2 launched "
                           "before them on the default instance; 'df_bad_write' on instance "),
             "the fence's message does not list the 11 kernels in flight");
  else
    DF_CHECK(strstr(first, "kernel 'df_bad_write' on instance ") && strstr(first, "(the one kernel in flight"),
             "the fence's message does not name the kernel 'df_bad_write' alone");
  st = kk_fence();
  printf("kk_fence: %s: %s\n", kk_status_name(st), kk_last_error());
  DF_CHECK(st == KK_ERROR_BACKEND && strstr(kk_last_error(), "'df_bad_write' on instance "),
           "kk_fence after the fault did not repeat it");
  st = kk_parallel_for("df_after", KK_RANGE(0, n), KK_KERNEL(ft_fill), KK_ARGS(fa));
  printf("launch after: %s: %s\n", kk_status_name(st), kk_last_error());
  DF_CHECK(st == KK_ERROR_BACKEND && strstr(kk_last_error(), "'df_bad_write' on instance "),
           "a launch after the fault did not fail with it");
  /* the host backend still works */
  int64_t host[64] = {0};
  kk_view_spec_t hs = KK_VIEW_SPEC_INIT;
  hs.label = "df_host";
  hs.type = KK_INT64;
  hs.rank = 1;
  hs.extents[0] = 64;
  kk_view_t *hv = NULL;
  DF_CHECK(kk_view_wrap(&hs, host, &hv) == KK_OK, "wrapping host memory: %s", kk_last_error());
  struct fill_args ha = {kk_view_bind(hv), 5};
  DF_CHECK(kk_parallel_for("df_host", KK_RANGE_ON(kk_instance_host(), 0, 64), KK_KERNEL(ft_fill), KK_ARGS(ha)) ==
               KK_OK,
           "a host launch after the device was lost: %s", kk_last_error());
  DF_CHECK(kk_instance_fence(kk_instance_host()) == KK_OK, "the host fence: %s", kk_last_error());
  for (int i = 0; i < 64; i++)
    DF_CHECK(host[i] == 5 + i, "host[%d] = %lld after the host launch", i, (long long)host[i]);
  printf("host backend after the fault: 64 of 64 values right\n");
  kk_view_release(hv);
  kk_view_release(v);
  (void)kk_instance_destroy(in);
  st = kk_finalize();
  printf("kk_finalize: %s: %s\n", kk_status_name(st), kk_last_error());
  DF_CHECK(st == KK_ERROR_BACKEND && strstr(kk_last_error(), "df_bad_write"),
           "kk_finalize did not return the fault");
  printf("PASS: device fault on %s\n", g_backend);
  return 0;
}

/* cuda with the fake driver (tests/faults/fake_cuda.c, bounds-fake.sh),
 * whose bc_for1 writes the record a checked kernel writes on a GPU: the
 * plugin's module globals, its fence and the core's sentence, without a GPU. */
START_TEST(bounds_fake_driver) {
  struct bc_args a = bc(1, 0);
  ck_assert_int_eq(kk_parallel_for("oob-for", KK_RANGE(0, 10), KK_KERNEL(bc_for1), KK_ARGS(a)), KK_OK);
  ck_assert_int_eq(kk_fence(), KK_ERROR_KERNEL_FAILED);
  /* the host's sentence, after the fence that reported it */
  ck_assert_str_eq(kk_last_error(), "kk_fence: kk_parallel_for 'oob-for' (kernel 'bc_for1') on backend cuda stopped: "
                                    "bounds check: "
                                    "view 'guarded': index (10) is outside its extents (10), at tests/faults/bounds.kk.c:11");
  OK(kk_fence()); /* the record and the word were cleared */
  ck_assert_int_eq(kk_parallel_for("oob-again", KK_RANGE(0, 10), KK_KERNEL(bc_for1), KK_ARGS(a)), KK_OK);
  ck_assert_int_eq(kk_fence(), KK_ERROR_KERNEL_FAILED);
  ck_assert_contains(kk_last_error(), "kk_parallel_for 'oob-again' (kernel 'bc_for1')");
}
END_TEST

/* cuda with the fake driver (async-fake.sh), which counts every wait for a
 * stream or the context: a fill and a copy queued on the default instance
 * go on its queue without waiting for it (the plugin's handle of its
 * default instance, plugin ABI 1.8); the fence after them waits, and the
 * data are there; the synchronous forms still wait. */
START_TEST(async_on_default_instance) {
  const char *lib = getenv("KK_CUDA_DRIVER_LIBRARY");
  void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : NULL;
  ck_assert_msg(h, "the fake driver '%s' is not loaded", lib ? lib : "(KK_CUDA_DRIVER_LIBRARY unset)");
  unsigned long (*waits)(void) = NULL;
  *(void **)&waits = dlsym(h, "kk_fake_cuda_waits");
  ck_assert_msg(waits, "the driver '%s' counts no waits: not the fake one", lib);
  const int64_t n = 1000;
  kk_view_t *a = view("a", KK_DOUBLE, 1, n, 0, 0), *b = view("b", KK_DOUBLE, 1, n, 0, 0);
  const double three = 3.0;
  OK(kk_fence());
  const unsigned long before = waits();
  OK(kk_deep_copy_fill_async(kk_instance_default(), a, &three));
  OK(kk_deep_copy_async(kk_instance_default(), b, a));
  ck_assert_msg(waits() == before, "the copy and fill queued on the default instance waited %lu times",
                waits() - before);
  OK(kk_fence());
  ck_assert(waits() > before);
  kk_view_t *m = NULL;
  OK(kk_view_create_mirror(b, &m));
  const unsigned long sync0 = waits();
  OK(kk_deep_copy(m, b)); /* synchronous: complete on return */
  ck_assert(waits() > sync0);
  for (int64_t i = 0; i < n; i++)
    ck_assert(((double *)kk_view_data(m))[i] == 3.0);
  kk_view_release(m), kk_view_release(a), kk_view_release(b);
  dlclose(h);
}
END_TEST

/* cuda with the fake driver (async-fake.sh): kk_instance_wait keeps the
 * order on the device (plugin ABI 1.9): a stream made to wait for an event,
 * no wait of the host; an instance waiting for itself queues nothing; the
 * data written before the wait are there after the waiter's fence. */
START_TEST(instance_wait_on_device) {
  const char *lib = getenv("KK_CUDA_DRIVER_LIBRARY");
  void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : NULL;
  ck_assert_msg(h, "the fake driver '%s' is not loaded", lib ? lib : "(KK_CUDA_DRIVER_LIBRARY unset)");
  unsigned long (*waits)(void) = NULL, (*orders)(void) = NULL;
  *(void **)&waits = dlsym(h, "kk_fake_cuda_waits");
  *(void **)&orders = dlsym(h, "kk_fake_cuda_orders");
  ck_assert_msg(waits && orders, "the driver '%s' counts no waits or orders: not the fake one", lib);
  const int64_t n = 1000;
  kk_instance_t *x = NULL;
  OK(kk_instance_create(NULL, &x));
  kk_view_t *a = view("a", KK_DOUBLE, 1, n, 0, 0), *b = view("b", KK_DOUBLE, 1, n, 0, 0), *m = NULL;
  OK(kk_view_create_mirror(b, &m));
  const double five = 5.0;
  OK(kk_fence());
  const unsigned long w0 = waits(), o0 = orders();
  OK(kk_deep_copy_fill_async(kk_instance_default(), a, &five));
  OK(kk_instance_wait(x, NULL));
  OK(kk_deep_copy_async(x, b, a));
  OK(kk_instance_wait(NULL, x));
  OK(kk_deep_copy_async(kk_instance_default(), m, b));
  OK(kk_instance_wait(x, x));
  ck_assert_msg(waits() == w0, "kk_instance_wait waited on the host %lu times", waits() - w0);
  ck_assert_msg(orders() == o0 + 2, "%lu streams were made to wait, not 2", orders() - o0);
  OK(kk_instance_fence(kk_instance_default()));
  for (int64_t i = 0; i < n; i++)
    ck_assert(((double *)kk_view_data(m))[i] == 5.0);
  OK(kk_instance_destroy(x));
  kk_view_release(m), kk_view_release(a), kk_view_release(b);
  dlclose(h);
}
END_TEST

/* One or two tests in a case of their own on g_backend (the fake driver's modes). */
static int run_one(const char *name, SFun su, SFun td, const TTest *test, const TTest *test2) {
  g_plugin_path = getenv("KOKKOS_PLUGIN_PATH") ? strdup(getenv("KOKKOS_PLUGIN_PATH")) : NULL;
  tu_clear_env();
  int rc = tu_probe_backend(g_backend, g_plugin_path);
  if (rc == 0) {
    Suite *s = suite_create(g_backend);
    TCase *tc = tcase_create(name);
    tcase_add_checked_fixture(tc, su, td);
    tcase_add_test(tc, test);
    if (test2)
      tcase_add_test(tc, test2);
    suite_add_tcase(s, tc);
    rc = tu_run(s);
  }
  free(g_plugin_path);
  return rc;
}

int main(int argc, char **argv) {
  if (argc > 1)
    g_backend = argv[1];
  if (argc > 2 && strcmp(argv[2], "async-fake") == 0)
    return run_one("async-fake", setup, teardown, async_on_default_instance, instance_wait_on_device);
  if (argc > 2 && strcmp(argv[2], "bounds-fake") == 0)
    return run_one("bounds-fake", bc_setup, bc_teardown, bounds_fake_driver, NULL);
  if (argc > 2 && strncmp(argv[2], "device-fault", 12) == 0) { /* BACKEND device-fault[-several] NATIVE [TOOLS] */
    g_plugin_path = getenv("KOKKOS_PLUGIN_PATH") ? strdup(getenv("KOKKOS_PLUGIN_PATH")) : NULL;
    const char *native = argc > 3 ? argv[3] : "";
    const char *tools = argc > 4 ? argv[4] : NULL;
    tu_clear_env();
    int probe = tu_probe_backend(g_backend, g_plugin_path);
    int rc = probe != 0 ? probe : device_fault(native, tools, strcmp(argv[2], "device-fault-several") == 0);
    free(g_plugin_path);
    return rc;
  }
  if (getenv("KOKKOS_PLUGIN_PATH"))
    g_plugin_path = strdup(getenv("KOKKOS_PLUGIN_PATH"));
  tu_clear_env();
  int probe = tu_probe_backend(g_backend, g_plugin_path);
  if (probe != 0)
    return probe;
  int rc = tu_run(faults_suite());
  free(g_plugin_path);
  return rc;
}
