/* containers/tests/check_containers.c -- every kk-containers container on one backend: contention (every thread inserting, setting or acquiring at once), host API, failure modes. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/containers.h>
#include <kk/tools.h>

#include "../../tests/testutil.h"
#include "tests.h"

/*
 * Usage: check_containers BACKEND [THREADS].  THREADS (host backends) is
 * the thread count kk starts: more threads than cores still run at once
 * from the point of view of the containers, which is what the contention
 * tests need.  Results are read back through host copies and compared with
 * what a plain C computation gives.
 */

static const char *g_backend = "serial";
static int g_threads;
static char *g_plugin_path;

#define OK(call) ck_assert_msg((call) == KK_OK, "%s failed: %s", #call, kk_last_error())

static void init_with(const char *tools_libs) {
  tu_clear_env();
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = g_backend;
  s.plugin_path = g_plugin_path;
  s.num_threads = g_threads;
  s.disable_warnings = 1;
  s.tools_libs = tools_libs;
  ck_assert_msg(kk_initialize_with_settings(&s) == KK_OK, "initializing %s: %s", g_backend, kk_last_error());
}

static void setup(void) { init_with(NULL); }
static void teardown(void) { kk_finalize(); }

/* ---- helpers ----------------------------------------------------------------------------------- */

static kk_view_t *vec(const char *label, kk_type_t type, size_t elem, int64_t n, kk_space_t *space) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = type;
  s.elem_size = type == KK_TYPE_CUSTOM ? elem : 0;
  s.rank = 1;
  s.extents[0] = n;
  s.space = space;
  kk_view_t *v = NULL;
  OK(kk_view_create(&s, &v));
  return v;
}

/* bytes of a view's (contiguous) memory to and from the host */
static void to_host(void *dst, kk_view_t *v, size_t bytes) {
  OK(kk_fence());
  OK(kk_space_copy(NULL, dst, kk_view_space(v), kk_view_data(v), bytes, NULL));
}
static void from_host(kk_view_t *v, const void *src, size_t bytes) {
  OK(kk_space_copy(kk_view_space(v), kk_view_data(v), NULL, src, bytes, NULL));
}

static int device_is_host(void) { return kk_space_host_accessible(kk_space_default()); }

/* Programmatic callbacks that count DualView events and deep-copied bytes. */
static int g_syncs, g_modifies, g_copies;
static uint64_t g_copied;
static void cb_sync(const char *l, const void *const p, bool d) { (void)l, (void)p, (void)d, g_syncs++; }
static void cb_modify(const char *l, const void *const p, bool d) { (void)l, (void)p, (void)d, g_modifies++; }
static void cb_copy(struct Kokkos_Profiling_SpaceHandle ds, const char *dl, const void *dp,
                    struct Kokkos_Profiling_SpaceHandle ss, const char *sl, const void *sp, uint64_t n) {
  (void)ds, (void)dl, (void)dp, (void)ss, (void)sl, (void)sp;
  g_copies++;
  g_copied += n;
}
static void watch(void) {
  Kokkos_Profiling_EventSet set;
  memset(&set, 0, sizeof set);
  set.sync_dual_view = cb_sync;
  set.modify_dual_view = cb_modify;
  set.begin_deep_copy = cb_copy;
  kk_tools_set_callbacks(&set);
  g_syncs = g_modifies = g_copies = 0;
  g_copied = 0;
}

/* ==== DualView ====================================================================================== */

static kk_dualview_t *dv_int64(const char *label, int64_t n) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = KK_INT64;
  s.rank = 1;
  s.extents[0] = n;
  kk_dualview_t *dv = NULL;
  OK(kk_dualview_create(&s, &dv));
  return dv;
}

/* One allocation where the device space is host-accessible (every host
 * backend): no copy ever; two otherwise (opencl). */
START_TEST(dualview_one_allocation_on_host_spaces) {
  kk_dualview_t *dv = dv_int64("dv", 100);
  kk_view_t *d = kk_dualview_view_device(dv), *h = kk_dualview_view_host(dv);
  ck_assert_ptr_nonnull(d);
  ck_assert(kk_space_host_accessible(kk_view_space(h)));
  ck_assert_str_eq(kk_dualview_label(dv), "dv");
  if (device_is_host()) {
    ck_assert_int_eq(kk_dualview_is_single(dv), 1);
    ck_assert_ptr_eq(kk_view_data(d), kk_view_data(h));
  } else {
    ck_assert_int_eq(kk_dualview_is_single(dv), 0);
    ck_assert_ptr_ne(kk_view_data(d), kk_view_data(h));
  }
  /* a sync of a single DualView copies nothing, yet reports the sync as Kokkos does */
  watch();
  OK(kk_dualview_modify_host(dv));
  OK(kk_dualview_sync_device(dv));
  ck_assert_int_eq(g_modifies, 1);
  ck_assert_int_eq(g_syncs, 1);
  if (device_is_host())
    ck_assert_int_eq(g_copies, 0);
  else
    ck_assert(g_copied == 100 * sizeof(int64_t));
  kk_tools_set_callbacks(NULL);
  kk_dualview_release(dv);
}
END_TEST

/* modify / need_sync / sync as Kokkos' DualView: a copy only when the
 * other side was modified; the data follows through a device kernel. */
START_TEST(dualview_flags_and_sync) {
  const int64_t n = 1000;
  kk_dualview_t *dv = dv_int64("flags", n);
  ck_assert(!kk_dualview_need_sync_host(dv) && !kk_dualview_need_sync_device(dv));
  watch();
  OK(kk_dualview_sync_device(dv)); /* nothing modified: nothing to do, no event */
  ck_assert_int_eq(g_syncs + g_copies, 0);
  int64_t *h = kk_view_data(kk_dualview_view_host(dv));
  for (int64_t i = 0; i < n; i++)
    h[i] = i;
  OK(kk_dualview_modify_host(dv));
  ck_assert(kk_dualview_need_sync_device(dv) && !kk_dualview_need_sync_host(dv));
  OK(kk_dualview_sync_device(dv));
  ck_assert(!kk_dualview_need_sync_host(dv) && !kk_dualview_need_sync_device(dv));
  OK(kk_dualview_sync_device(dv)); /* in sync: no second copy */
  ck_assert_int_eq(g_syncs, 1);
  struct t_dv_args a = {kk_view_bind(kk_dualview_view_device(dv))};
  OK(kk_parallel_for("scale", KK_RANGE(0, n), KK_KERNEL(t_dv_scale), KK_ARGS(a)));
  OK(kk_dualview_modify_device(dv));
  ck_assert(kk_dualview_need_sync_host(dv) && !kk_dualview_need_sync_device(dv));
  OK(kk_fence());
  OK(kk_dualview_sync_host(dv));
  for (int64_t i = 0; i < n; i++)
    ck_assert_msg(h[i] == 2 * i + 1, "host[%lld] = %lld after the sync", (long long)i, (long long)h[i]);
  /* modify both: the later one wins */
  OK(kk_dualview_modify_device(dv));
  OK(kk_dualview_modify_host(dv));
  ck_assert(kk_dualview_need_sync_device(dv) && !kk_dualview_need_sync_host(dv));
  OK(kk_dualview_clear_sync_state(dv));
  ck_assert(!kk_dualview_need_sync_host(dv) && !kk_dualview_need_sync_device(dv));
  ck_assert_int_eq(g_syncs, 2);
  ck_assert_int_eq(g_modifies, 4);
  ck_assert(g_copied == (device_is_host() ? 0 : 2 * n * sizeof(int64_t)));
  kk_tools_set_callbacks(NULL);
  kk_dualview_release(dv);
}
END_TEST

START_TEST(dualview_async_sync_on_an_instance) {
  const int64_t n = 4096;
  kk_instance_t *inst = NULL;
  OK(kk_instance_create(NULL, &inst));
  kk_dualview_t *dv = dv_int64("async", n);
  int64_t *h = kk_view_data(kk_dualview_view_host(dv));
  for (int64_t i = 0; i < n; i++)
    h[i] = 7 * i;
  OK(kk_dualview_modify_host(dv));
  OK(kk_dualview_sync_device_async(dv, inst));
  ck_assert(!kk_dualview_need_sync_device(dv)); /* the flags change at once */
  struct t_dv_args a = {kk_view_bind(kk_dualview_view_device(dv))};
  OK(kk_parallel_for("scale", KK_RANGE_ON(inst, 0, n), KK_KERNEL(t_dv_scale), KK_ARGS(a)));
  OK(kk_dualview_modify_device(dv));
  OK(kk_dualview_sync_host_async(dv, inst));
  OK(kk_instance_fence(inst));
  for (int64_t i = 0; i < n; i++)
    ck_assert_msg(h[i] == 14 * i + 1, "host[%lld] = %lld", (long long)i, (long long)h[i]);
  OK(kk_dualview_modify_host(dv));
  OK(kk_dualview_sync_device_async(dv, NULL)); /* the device backend's default instance */
  OK(kk_fence());
  kk_dualview_release(dv);
  OK(kk_instance_destroy(inst));
}
END_TEST

/* resize keeps the contents of the side modified last (the device when
 * neither was) and marks it modified; realloc clears both. */
START_TEST(dualview_resize_and_realloc) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = "grid";
  s.type = KK_DOUBLE;
  s.rank = 2;
  s.extents[0] = 5;
  s.extents[1] = 3;
  kk_dualview_t *dv = NULL;
  OK(kk_dualview_create(&s, &dv));
  kk_view_t *h = kk_dualview_view_host(dv);
  for (int64_t i = 0; i < 5; i++)
    for (int64_t j = 0; j < 3; j++)
      *(double *)((char *)kk_view_data(h) + 8 * (i * kk_view_stride(h, 0) + j * kk_view_stride(h, 1))) = 10.0 * i + j;
  OK(kk_dualview_modify_host(dv));
  OK(kk_dualview_resize(dv, (const int64_t[]){8, 3}));
  h = kk_dualview_view_host(dv);
  ck_assert_int_eq(kk_view_extent(h, 0), 8);
  ck_assert_int_eq(kk_view_extent(kk_dualview_view_device(dv), 0), 8);
  if (!kk_dualview_is_single(dv))
    ck_assert(kk_dualview_need_sync_device(dv) && !kk_dualview_need_sync_host(dv));
  OK(kk_dualview_sync_device(dv));
  /* the device side, read back through a mirror of its own layout */
  kk_view_t *m = NULL;
  OK(kk_view_create_mirror(kk_dualview_view_device(dv), &m));
  OK(kk_deep_copy(m, kk_dualview_view_device(dv)));
  for (int64_t i = 0; i < 8; i++)
    for (int64_t j = 0; j < 3; j++) {
      const double got = *(double *)((char *)kk_view_data(m) + 8 * (i * kk_view_stride(m, 0) + j * kk_view_stride(m, 1)));
      ck_assert_msg(got == (i < 5 ? 10.0 * i + j : 0.0), "(%lld, %lld) = %g after resize and sync", (long long)i,
                    (long long)j, got);
    }
  kk_view_release(m);
  /* the device modified: it keeps its contents when shrinking */
  OK(kk_dualview_modify_device(dv));
  OK(kk_dualview_resize(dv, (const int64_t[]){2, 3}));
  if (!kk_dualview_is_single(dv))
    ck_assert(kk_dualview_need_sync_host(dv));
  OK(kk_dualview_sync_host(dv));
  h = kk_dualview_view_host(dv);
  ck_assert(*(double *)((char *)kk_view_data(h) + 8 * (1 * kk_view_stride(h, 0) + 2 * kk_view_stride(h, 1))) == 12.0);
  OK(kk_dualview_realloc(dv, (const int64_t[]){4, 4}));
  ck_assert(!kk_dualview_need_sync_host(dv) && !kk_dualview_need_sync_device(dv));
  ck_assert(*(double *)kk_view_data(kk_dualview_view_host(dv)) == 0.0);
  kk_dualview_release(dv);
}
END_TEST

/* A subview shares its parent's flags: modifying or syncing either marks both. */
START_TEST(dualview_subview_keeps_the_parents_flags) {
  kk_dualview_t *dv = dv_int64("parent", 10);
  kk_dualview_t *sub = NULL;
  OK(kk_dualview_subview(dv, (const kk_slice_t[]){KK_SPAN(2, 5)}, &sub));
  ck_assert_int_eq(kk_view_extent(kk_dualview_view_device(sub), 0), 3);
  int64_t *sh = kk_view_data(kk_dualview_view_host(sub));
  for (int i = 0; i < 3; i++)
    sh[i] = 100 + i;
  OK(kk_dualview_modify_host(sub));
  ck_assert(kk_dualview_need_sync_device(dv)); /* the parent sees it */
  OK(kk_dualview_sync_device(sub));
  ck_assert(!kk_dualview_need_sync_device(dv));
  int64_t back[10];
  to_host(back, kk_dualview_view_device(dv), sizeof back);
  for (int i = 0; i < 10; i++)
    ck_assert_int_eq(back[i], i >= 2 && i < 5 ? 100 + i - 2 : 0);
  OK(kk_dualview_modify_device(dv));
  ck_assert(kk_dualview_need_sync_host(sub));
  ck_assert_int_eq(kk_dualview_resize(sub, (const int64_t[]){4}), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "subview");
  kk_dualview_release(dv); /* the subview keeps what it uses */
  OK(kk_dualview_sync_host(sub));
  kk_dualview_release(sub);
}
END_TEST

/* A released DualView is refused with a message, not read. */
START_TEST(dualview_released_is_refused) {
  kk_dualview_t *dv = dv_int64("gone", 8);
  kk_dualview_t *again = kk_dualview_retain(dv);
  kk_dualview_release(dv);
  OK(kk_dualview_modify_host(again)); /* still one reference */
  kk_dualview_release(again);
  ck_assert_int_eq(kk_dualview_sync_device(again), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_dualview_sync_device");
  ck_assert_contains(kk_last_error(), "was released");
  ck_assert_int_eq(kk_dualview_modify_host(again), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(kk_dualview_view_host(again));
  ck_assert_int_eq(kk_dualview_need_sync_host(again), 0);
  kk_dualview_release(again); /* a second release does nothing */
  ck_assert_int_eq(kk_dualview_sync_host(NULL), KK_ERROR_INVALID_ARGUMENT);
  /* create_from: shapes must match, the host side must be host-accessible */
  kk_view_t *a = vec("a", KK_DOUBLE, 0, 10, NULL), *b = vec("b", KK_DOUBLE, 0, 11, kk_space_host());
  kk_dualview_t *bad = NULL;
  ck_assert_int_eq(kk_dualview_create_from(a, b, &bad), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "differ");
  kk_view_t *c = vec("c", KK_DOUBLE, 0, 10, kk_space_host());
  kk_dualview_t *ok = NULL;
  OK(kk_dualview_create_from(a, c, &ok));
  ck_assert_str_eq(kk_dualview_label(ok), "a");
  kk_dualview_release(ok);
  kk_view_release(a);
  kk_view_release(b);
  kk_view_release(c);
}
END_TEST

/* The events reach a real tool library (--kokkos-tools-libs) as a Kokkos
 * Tools connector sees them. */
static char g_log[512];
static void tool_setup(void) {
  snprintf(g_log, sizeof g_log, "%s/kkc-tool-%d.log", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  remove(g_log);
  setenv("KKC_RECORDER_FILE", g_log, 1);
  init_with(KKC_TEST_TOOL);
}

START_TEST(dualview_events_reach_a_tool_library) {
  kk_dualview_t *dv = dv_int64("watched", 16);
  const void *hp = kk_view_data(kk_dualview_view_host(dv)), *dp = kk_view_data(kk_dualview_view_device(dv));
  OK(kk_dualview_modify_host(dv));
  OK(kk_dualview_sync_device(dv));
  OK(kk_dualview_modify_device(dv));
  OK(kk_dualview_sync_host(dv));
  kk_dualview_release(dv);
  OK(kk_finalize());
  char want[6][160];
  int nw = 0;
  snprintf(want[nw++], sizeof want[0], "dual_view_modify|watched|%p|0", hp);
  if (dp != hp)
    snprintf(want[nw++], sizeof want[0], "deep_copy|watched|watched_mirror|128");
  snprintf(want[nw++], sizeof want[0], "dual_view_sync|watched|%p|1", dp);
  snprintf(want[nw++], sizeof want[0], "dual_view_modify|watched|%p|1", dp);
  if (dp != hp)
    snprintf(want[nw++], sizeof want[0], "deep_copy|watched_mirror|watched|128");
  snprintf(want[nw++], sizeof want[0], "dual_view_sync|watched|%p|0", hp);
  FILE *f = fopen(g_log, "r");
  ck_assert_msg(f != NULL, "the tool wrote no %s", g_log);
  char line[256];
  int k = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (strncmp(line, "dual_view", 9) != 0 && strncmp(line, "deep_copy", 9) != 0)
      continue;
    ck_assert_msg(k < nw, "unexpected event %s", line);
    ck_assert_str_eq(line, want[k]);
    k++;
  }
  fclose(f);
  remove(g_log);
  ck_assert_int_eq(k, nw);
  init_with(NULL); /* for the teardown */
}
END_TEST

/* ==== UnorderedMap ================================================================================== */

enum { KT_I32, KT_U32, KT_I64, KT_U64, KT_KEY12, KT_N };
static const char *const kt_name[KT_N] = {"int32", "uint32", "int64", "uint64", "key12"};

static kk_unordered_map_t *umap(const char *label, int kt, int with_value, uint64_t capacity, kk_space_t *space) {
  kk_unordered_map_spec_t s = KK_UNORDERED_MAP_SPEC_INIT;
  s.label = label;
  static const kk_type_t types[KT_N] = {KK_INT32, KK_UINT32, KK_INT64, KK_UINT64, KK_TYPE_CUSTOM};
  s.key_type = types[kt];
  s.key_size = kt == KT_KEY12 ? sizeof(struct key12) : 0;
  s.value_type = with_value ? KK_INT64 : KK_TYPE_CUSTOM;
  s.capacity = capacity;
  s.space = space;
  kk_unordered_map_t *m = NULL;
  OK(kk_unordered_map_create(&s, &m));
  return m;
}

static size_t kt_size(int kt) { return kt == KT_I32 || kt == KT_U32 ? 4 : kt == KT_KEY12 ? 12 : 8; }

/* Key i of a set of n, as an int64 (key12: its `a`): spread out, both signs,
 * and the two bit patterns the 4- and 8-byte maps reserve (all ones, all
 * ones but the last) among them. */
static int64_t key_of(int kt, int64_t i) {
  if (kt != KT_KEY12 && i == 0)
    return -1; /* all ones */
  if (kt != KT_KEY12 && i == 1)
    return kt == KT_U32 ? (int64_t)0xfffffffe : -2; /* all ones but the last */
  const int64_t k = (i * 7919 + 13) * (i % 2 ? -1 : 1);
  return kt == KT_U32 ? (int64_t)(uint32_t)k : k;
}

/* The keys in the map's key type, in a view of the default space. */
static kk_view_t *key_view(int kt, int64_t n) {
  const size_t ks = kt_size(kt);
  unsigned char *buf = malloc((size_t)n * ks);
  for (int64_t i = 0; i < n; i++) {
    const int64_t k = key_of(kt, i);
    if (kt == KT_KEY12) {
      struct key12 key = {(int32_t)k, (int32_t)-k, 7};
      memcpy(buf + i * ks, &key, ks);
    } else if (ks == 4) {
      const int32_t k32 = (int32_t)k;
      memcpy(buf + i * ks, &k32, 4);
    } else {
      memcpy(buf + i * ks, &k, 8);
    }
  }
  kk_view_t *v = vec("keys", KK_TYPE_CUSTOM, ks, n, NULL);
  from_host(v, buf, (size_t)n * ks);
  free(buf);
  return v;
}

static kk_kernel_t *insert_kernel(int kt) {
  switch (kt) {
  case KT_I32:
    return KK_KERNEL(t_insert_i32);
  case KT_U32:
    return KK_KERNEL(t_insert_u32);
  case KT_I64:
    return KK_KERNEL(t_insert_i64);
  case KT_U64:
    return KK_KERNEL(t_insert_u64);
  default:
    return KK_KERNEL(t_insert_key12);
  }
}

/* Every thread inserts at once, each key by 64 ops (the ops of one key are
 * spread so that the threads' chunks insert the same keys at the same
 * time): each key ends in exactly one slot, with its value, one success per
 * key, and "insert, then atomic add" counts every op. */
START_TEST(umap_concurrent_inserts_of_the_same_keys) {
  const int kt = _i / 2, with_value = _i % 2;
  const int64_t nkeys = 1000, reps = 64, n = nkeys * reps;
  kk_unordered_map_t *m = umap("m", kt, with_value, (uint64_t)nkeys, NULL);
  kk_unordered_map_t *counts = umap("counts", KT_I64, 1, (uint64_t)nkeys, NULL);
  kk_view_t *keys = key_view(kt, nkeys), *tally = vec("tally", KK_INT64, 0, 4, NULL);
  struct t_insert_args a = {kk_unordered_map_bind(m), kk_unordered_map_bind(counts), kk_view_bind(keys),
                            kk_view_bind(tally), nkeys, with_value, 0};
  OK(kk_parallel_for("insert", KK_RANGE(0, n), insert_kernel(kt), KK_ARGS(a)));
  int64_t t[4];
  to_host(t, tally, sizeof t);
  ck_assert_msg(t[3] == 0, "%lld inserts told 'existing' found the key without its value", (long long)t[3]);
  ck_assert_msg(t[KK_UMAP_FAILED] == 0 && t[KK_UMAP_SUCCESS] == nkeys && t[KK_UMAP_EXISTING] == n - nkeys,
                "%s keys%s: %lld failed, %lld success, %lld existing; expected 0, %lld, %lld", kt_name[kt],
                with_value ? " with values" : "", (long long)t[0], (long long)t[1], (long long)t[2], (long long)nkeys,
                (long long)(n - nkeys));
  uint64_t size = 0, failed = 99;
  OK(kk_unordered_map_size(m, &size));
  ck_assert_uint_eq(size, (uint64_t)nkeys);
  OK(kk_unordered_map_failed_inserts(m, &failed));
  ck_assert_uint_eq(failed, 0);
  /* the slots a kernel iterates (valid_at) hold nkeys entries */
  struct t_find_args fa;
  memset(&fa, 0, sizeof fa);
  fa.m = kk_unordered_map_bind(m);
  int64_t valid = 0;
  OK(kk_parallel_reduce("count", KK_RANGE(0, (int64_t)kk_unordered_map_slots(m)), KK_KERNEL(t_count_valid), KK_ARGS(fa),
                        KK_RESULT(valid)));
  ck_assert_int_eq(valid, nkeys);
  /* on the host, through a mirror: every key once, its value 3 * key */
  kk_unordered_map_t *hm = NULL, *hc = NULL;
  OK(kk_unordered_map_create_mirror(NULL, m, &hm));
  OK(kk_unordered_map_deep_copy(hm, m));
  OK(kk_unordered_map_create_mirror(NULL, counts, &hc));
  OK(kk_unordered_map_deep_copy(hc, counts));
  int64_t seen = 0;
  for (int64_t i = 0; i < (int64_t)kk_unordered_map_slots(hm); i++) {
    int v = 0;
    OK(kk_unordered_map_host_valid_at(hm, i, &v));
    seen += v;
  }
  ck_assert_int_eq(seen, nkeys);
  for (int64_t i = 0; i < nkeys; i++) {
    const int64_t k = key_of(kt, i);
    unsigned char kb[16];
    if (kt == KT_KEY12) {
      struct key12 key = {(int32_t)k, (int32_t)-k, 7};
      memcpy(kb, &key, 12);
    } else if (kt_size(kt) == 4) {
      const int32_t k32 = (int32_t)k;
      memcpy(kb, &k32, 4);
    } else {
      memcpy(kb, &k, 8);
    }
    int64_t at = -1;
    OK(kk_unordered_map_host_find(hm, kb, &at));
    ck_assert_msg(at >= 0, "%s key %lld (#%lld) is not in the map", kt_name[kt], (long long)k, (long long)i);
    unsigned char back[16];
    OK(kk_unordered_map_host_key_at(hm, at, back));
    ck_assert(memcmp(back, kb, kt_size(kt)) == 0);
    if (with_value) {
      int64_t v = 0;
      OK(kk_unordered_map_host_value_at(hm, at, &v));
      const int64_t want = 3 * (kt == KT_U32 ? (int64_t)(uint32_t)k : kt_size(kt) == 4 ? (int64_t)(int32_t)k : k);
      ck_assert_msg(v == want, "%s key %lld: value %lld, expected %lld", kt_name[kt], (long long)k, (long long)v,
                    (long long)want);
    }
    const int64_t ck = kt == KT_KEY12 ? k : kt == KT_U32 ? (int64_t)(uint32_t)k : kt_size(kt) == 4 ? (int32_t)k : k;
    OK(kk_unordered_map_host_find(hc, &ck, &at));
    ck_assert(at >= 0);
    int64_t c = 0;
    OK(kk_unordered_map_host_value_at(hc, at, &c));
    ck_assert_msg(c == reps, "key %lld counted %lld times, expected %lld: an increment was lost", (long long)ck,
                  (long long)c, (long long)reps);
  }
  kk_unordered_map_release(hm);
  kk_unordered_map_release(hc);
  kk_unordered_map_release(m);
  kk_unordered_map_release(counts);
  kk_view_release(keys);
  kk_view_release(tally);
}
END_TEST

/* find and exists in kernels, for keys in the map and not. */
START_TEST(umap_find_and_exists) {
  const int kt = _i ? KT_KEY12 : KT_I64;
  const int64_t nkeys = 500;
  kk_unordered_map_t *m = umap("m", kt, 1, 600, NULL), *counts = umap("counts", KT_I64, 1, 600, NULL);
  kk_view_t *keys = key_view(kt, 2 * nkeys), *tally = vec("tally", KK_INT64, 0, 4, NULL);
  struct t_insert_args a = {kk_unordered_map_bind(m), kk_unordered_map_bind(counts), kk_view_bind(keys),
                            kk_view_bind(tally), nkeys, 1, 0};
  OK(kk_parallel_for("insert", KK_RANGE(0, nkeys), insert_kernel(kt), KK_ARGS(a))); /* the first half */
  kk_view_t *out = vec("out", KK_INT64, 0, 2 * nkeys, NULL), *found = vec("found", KK_INT32, 0, 2 * nkeys, NULL);
  struct t_find_args f = {kk_unordered_map_bind(m), kk_view_bind(keys), kk_view_bind(out), kk_view_bind(found)};
  OK(kk_parallel_for("find", KK_RANGE(0, 2 * nkeys), kt == KT_KEY12 ? KK_KERNEL(t_find_key12) : KK_KERNEL(t_find_i64),
                     KK_ARGS(f)));
  int64_t *o = malloc(2 * nkeys * sizeof *o);
  int32_t *fd = malloc(2 * nkeys * sizeof *fd);
  to_host(o, out, 2 * nkeys * sizeof *o);
  to_host(fd, found, 2 * nkeys * sizeof *fd);
  for (int64_t i = 0; i < 2 * nkeys; i++) {
    const int in = i < nkeys;
    ck_assert_msg(fd[i] == in, "key #%lld: exists %d, expected %d", (long long)i, fd[i], in);
    ck_assert_msg(o[i] == (in ? 3 * key_of(kt, i) : -1), "key #%lld: found value %lld", (long long)i, (long long)o[i]);
  }
  free(o);
  free(fd);
  kk_view_release(out);
  kk_view_release(found);
  kk_view_release(keys);
  kk_view_release(tally);
  kk_unordered_map_release(m);
  kk_unordered_map_release(counts);
}
END_TEST

/* A full map fails inserts (counted), and the documented pattern --
 * insert, rehash to a larger capacity, retry -- ends with every key in. */
START_TEST(umap_full_then_rehash_and_retry) {
  const int64_t nkeys = 3000;
  kk_unordered_map_t *m = umap("small", KT_I64, 1, 100, NULL), *counts = umap("counts", KT_I64, 1, 4096, NULL);
  kk_view_t *keys = key_view(KT_I64, nkeys), *tally = vec("tally", KK_INT64, 0, 4, NULL);
  int rounds = 0;
  uint64_t failed = 0, first_failed = 0;
  for (;;) {
    struct t_insert_args a = {kk_unordered_map_bind(m), kk_unordered_map_bind(counts), kk_view_bind(keys),
                              kk_view_bind(tally), nkeys, 1, 0};
    OK(kk_parallel_for("insert", KK_RANGE(0, nkeys), KK_KERNEL(t_insert_i64), KK_ARGS(a)));
    OK(kk_unordered_map_failed_inserts(m, &failed));
    if (rounds++ == 0)
      first_failed = failed;
    if (!failed)
      break;
    ck_assert_msg(rounds < 10, "still %llu failures after %d rehashes", (unsigned long long)failed, rounds);
    OK(kk_unordered_map_rehash(m, 0)); /* twice the capacity */
  }
  /* 200 home slots, a tail of 200 (its last never used) and the 2 reserved
   * slots (keys -1 and -2 are among these) for 3000 keys: at least 2599
   * failed the first time */
  ck_assert_msg(first_failed >= (uint64_t)(nkeys - 401) && first_failed < (uint64_t)nkeys,
                "%llu inserts failed in a map of %llu slots", (unsigned long long)first_failed, 402ull);
  ck_assert(rounds > 1);
  uint64_t size = 0;
  OK(kk_unordered_map_size(m, &size));
  ck_assert_uint_eq(size, (uint64_t)nkeys);
  ck_assert_uint_ge(kk_unordered_map_capacity(m), (uint64_t)nkeys / 2);
  /* a rehash never goes below the entries (as Kokkos) */
  OK(kk_unordered_map_rehash(m, 10));
  ck_assert_uint_eq(kk_unordered_map_capacity(m), (uint64_t)nkeys);
  OK(kk_unordered_map_size(m, &size));
  ck_assert_uint_eq(size, (uint64_t)nkeys);
  const uint64_t cap = kk_unordered_map_capacity(m);
  /* clear: empty, the capacity kept, inserts work again */
  OK(kk_unordered_map_clear(m));
  OK(kk_unordered_map_size(m, &size));
  ck_assert_uint_eq(size, 0);
  ck_assert_uint_eq(kk_unordered_map_capacity(m), cap);
  struct t_insert_args a = {kk_unordered_map_bind(m), kk_unordered_map_bind(counts), kk_view_bind(keys),
                            kk_view_bind(tally), nkeys, 1, 0};
  OK(kk_parallel_for("insert", KK_RANGE(0, 10), KK_KERNEL(t_insert_i64), KK_ARGS(a)));
  OK(kk_unordered_map_size(m, &size));
  ck_assert_uint_eq(size, 10);
  kk_unordered_map_release(m);
  kk_unordered_map_release(counts);
  kk_view_release(keys);
  kk_view_release(tally);
}
END_TEST

/* kk/unordered_map.h's home slot of an int64 key among n home slots */
static uint64_t home_of(int64_t key, uint64_t n) {
  uint64_t h = (uint64_t)key;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdu;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53u;
  h ^= h >> 33;
  return ((h >> 32) * n) >> 32;
}

/* Keys that all share one home slot in the storage a rehash would make: the
 * rehash finds no room for those past the probe limit and is refused, the
 * map unchanged. */
START_TEST(umap_rehash_that_cannot_fit_is_refused) {
  const int64_t nkeys = 1030; /* rehash(1030): 2060 home slots, probes of 1024 */
  int64_t *k = malloc(nkeys * sizeof *k);
  int64_t found = 0;
  for (int64_t c = 1; found < nkeys; c++)
    if (home_of(c, 2060) == 17)
      k[found++] = c;
  kk_view_t *keys = vec("crowd", KK_INT64, 0, nkeys, NULL), *tally = vec("tally", KK_INT64, 0, 4, NULL);
  from_host(keys, k, nkeys * sizeof *k);
  /* a home slot of 2060 is a band of 2036 of the 2^22 here (the home is
   * monotonic in the hash): the keys spread over it and fit */
  kk_unordered_map_t *m = umap("crowd", KT_I64, 1, 1 << 21, NULL), *counts = umap("counts", KT_I64, 1, 2048, NULL);
  struct t_insert_args a = {kk_unordered_map_bind(m), kk_unordered_map_bind(counts), kk_view_bind(keys),
                            kk_view_bind(tally), nkeys, 1, 0};
  OK(kk_parallel_for("insert", KK_RANGE(0, nkeys), KK_KERNEL(t_insert_i64), KK_ARGS(a)));
  uint64_t failed = 1, size = 0;
  OK(kk_unordered_map_failed_inserts(m, &failed));
  ck_assert_uint_eq(failed, 0);
  ck_assert_int_eq(kk_unordered_map_rehash(m, (uint64_t)nkeys), KK_ERROR_LIMIT);
  ck_assert_contains(kk_last_error(), "map 'crowd'");
  ck_assert_contains(kk_last_error(), "unchanged");
  ck_assert_uint_eq(kk_unordered_map_capacity(m), 1 << 21);
  OK(kk_unordered_map_size(m, &size));
  ck_assert_uint_eq(size, (uint64_t)nkeys);
  kk_view_t *out = vec("out", KK_INT64, 0, nkeys, NULL), *fd = vec("found", KK_INT32, 0, nkeys, NULL);
  struct t_find_args f = {kk_unordered_map_bind(m), kk_view_bind(keys), kk_view_bind(out), kk_view_bind(fd)};
  OK(kk_parallel_for("find", KK_RANGE(0, nkeys), KK_KERNEL(t_find_i64), KK_ARGS(f)));
  int64_t *o = malloc(nkeys * sizeof *o);
  to_host(o, out, nkeys * sizeof *o);
  for (int64_t i = 0; i < nkeys; i++)
    ck_assert_msg(o[i] == 3 * k[i], "after the refused rehash key %lld reads %lld", (long long)k[i], (long long)o[i]);
  OK(kk_unordered_map_rehash(m, 1 << 21)); /* home slots wide enough again: they fit */
  OK(kk_unordered_map_size(m, &size));
  ck_assert_uint_eq(size, (uint64_t)nkeys);
  free(o);
  free(k);
  kk_view_release(out);
  kk_view_release(fd);
  kk_view_release(keys);
  kk_view_release(tally);
  kk_unordered_map_release(m);
  kk_unordered_map_release(counts);
}
END_TEST

/* A kernel that uses the map with a key of the wrong size: its inserts
 * fail, and the host hears why. */
START_TEST(umap_wrong_key_size_is_reported) {
  kk_unordered_map_t *m = umap("ints", KT_I64, 1, 100, NULL), *counts = umap("counts", KT_I64, 1, 100, NULL);
  kk_view_t *keys = key_view(KT_KEY12, 10), *tally = vec("tally", KK_INT64, 0, 4, NULL);
  struct t_insert_args a = {kk_unordered_map_bind(m), kk_unordered_map_bind(counts), kk_view_bind(keys),
                            kk_view_bind(tally), 10, 1, 0};
  OK(kk_parallel_for("insert", KK_RANGE(0, 10), KK_KERNEL(t_insert_key12), KK_ARGS(a)));
  uint64_t failed = 0;
  ck_assert_int_eq(kk_unordered_map_failed_inserts(m, &failed), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "map 'ints'");
  ck_assert_contains(kk_last_error(), "12 bytes");
  int64_t t[3];
  to_host(t, tally, sizeof t);
  ck_assert_int_eq(t[KK_UMAP_FAILED], 10);
  kk_unordered_map_release(m);
  kk_unordered_map_release(counts);
  kk_view_release(keys);
  kk_view_release(tally);
}
END_TEST

START_TEST(umap_bad_specs_are_refused) {
  kk_unordered_map_spec_t s = KK_UNORDERED_MAP_SPEC_INIT;
  kk_unordered_map_t *m = NULL;
  s.label = "bad";
  s.capacity = 0;
  ck_assert_int_eq(kk_unordered_map_create(&s, &m), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "capacity 0");
  s.capacity = 10;
  s.key_type = KK_DOUBLE;
  ck_assert_int_eq(kk_unordered_map_create(&s, &m), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "key type double");
  s.key_type = KK_INT32;
  s.key_size = 8;
  ck_assert_int_eq(kk_unordered_map_create(&s, &m), KK_ERROR_INVALID_ARGUMENT);
  s.key_type = KK_TYPE_CUSTOM;
  s.key_size = 0;
  ck_assert_int_eq(kk_unordered_map_create(&s, &m), KK_ERROR_INVALID_ARGUMENT);
  s.key_type = KK_INT64;
  s.key_size = 0;
  s.value_type = KK_TYPE_NONE;
  ck_assert_int_eq(kk_unordered_map_create(&s, &m), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(kk_unordered_map_size(NULL, NULL), KK_ERROR_INVALID_ARGUMENT);
}
END_TEST

/* Host access: a host-space map is filled and read by the host, copied to
 * the device space and found there by a kernel; a map the host cannot
 * access is refused with the way out. */
START_TEST(umap_host_access_and_deep_copy) {
  kk_unordered_map_t *h = umap("host", KT_I64, 1, 50, kk_space_host());
  for (int64_t k = 0; k < 50; k++) {
    const int64_t v = 3 * k;
    int64_t at = -1;
    int status = -1;
    OK(kk_unordered_map_host_insert(h, &k, &v, &at, &status));
    ck_assert_int_eq(status, KK_UMAP_SUCCESS);
    OK(kk_unordered_map_host_insert(h, &k, &v, &at, &status));
    ck_assert_int_eq(status, KK_UMAP_EXISTING);
  }
  kk_unordered_map_t *d = umap("dev", KT_I64, 1, 7, NULL); /* another capacity: its storage is replaced */
  OK(kk_unordered_map_deep_copy(d, h));
  ck_assert_uint_eq(kk_unordered_map_slots(d), kk_unordered_map_slots(h));
  kk_view_t *q = vec("q", KK_INT64, 0, 60, NULL), *out = vec("out", KK_INT64, 0, 60, NULL),
            *found = vec("found", KK_INT32, 0, 60, NULL);
  int64_t qs[60];
  for (int i = 0; i < 60; i++)
    qs[i] = i;
  from_host(q, qs, sizeof qs);
  struct t_find_args f = {kk_unordered_map_bind(d), kk_view_bind(q), kk_view_bind(out), kk_view_bind(found)};
  OK(kk_parallel_for("find", KK_RANGE(0, 60), KK_KERNEL(t_find_i64), KK_ARGS(f)));
  int64_t o[60];
  to_host(o, out, sizeof o);
  for (int i = 0; i < 60; i++)
    ck_assert_int_eq(o[i], i < 50 ? 3 * i : -1);
  if (!kk_space_host_accessible(kk_space_default())) {
    int64_t at;
    const int64_t k = 1;
    ck_assert_int_eq(kk_unordered_map_host_find(d, &k, &at), KK_ERROR_INVALID_ARGUMENT);
    ck_assert_contains(kk_last_error(), "mirror");
  }
  int valid;
  ck_assert_int_eq(kk_unordered_map_host_valid_at(h, (int64_t)kk_unordered_map_slots(h), &valid),
                   KK_ERROR_INVALID_ARGUMENT);
  kk_unordered_map_t *set = umap("set", KT_I64, 0, 5, kk_space_host());
  const int64_t k = 5, v = 1;
  ck_assert_int_eq(kk_unordered_map_host_insert(set, &k, &v, NULL, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "is a set");
  ck_assert_int_eq(kk_unordered_map_deep_copy(set, h), KK_ERROR_INVALID_ARGUMENT);
  kk_unordered_map_release(set);
  kk_view_release(q);
  kk_view_release(out);
  kk_view_release(found);
  kk_unordered_map_release(h);
  kk_unordered_map_release(d);
}
END_TEST

/* ==== Bitset ======================================================================================== */

static kk_view_t *hints_view(int64_t n, int64_t nbits) {
  int64_t *h = malloc(n * sizeof *h);
  for (int64_t i = 0; i < n; i++)
    h[i] = (i * 37) % (nbits + 40) - 5; /* some past the end and negative: taken modulo the size */
  kk_view_t *v = vec("hints", KK_INT64, 0, n, NULL);
  from_host(v, h, n * sizeof *h);
  free(h);
  return v;
}

/* The reference search of kk/bitset.h: the first bit with the value wanted
 * at or above the hint (modulo the size), else the first from 0. */
static int64_t ref_find(const uint8_t *bits, int64_t size, int64_t hint, int want) {
  if (size <= 0)
    return -1;
  const int64_t s = (int64_t)((uint64_t)hint % (uint64_t)size);
  for (int64_t i = s; i < size; i++)
    if (bits[i] == want)
      return i;
  for (int64_t i = 0; i < s; i++)
    if (bits[i] == want)
      return i;
  return -1;
}

START_TEST(bitset_concurrent_set_reset_count) {
  const int64_t nbits = 1000, reps = 64;
  kk_bitset_t *b = NULL;
  OK(kk_bitset_create(NULL, "bits", nbits, &b));
  ck_assert_int_eq(kk_bitset_size(b), nbits);
  kk_view_t *tally = vec("tally", KK_INT64, 0, 4, NULL);
  struct t_bits_args a;
  memset(&a, 0, sizeof a);
  a.b = kk_bitset_bind(b);
  a.tally = kk_view_bind(tally);
  a.nbits = nbits;
  OK(kk_parallel_for("set", KK_RANGE(0, nbits * reps), KK_KERNEL(t_bits), KK_ARGS(a)));
  int64_t t[3], count = -1;
  to_host(t, tally, sizeof t);
  ck_assert_msg(t[0] == nbits, "%lld sets changed a bit; each of the %lld bits changes once", (long long)t[0],
                (long long)nbits);
  OK(kk_bitset_count(b, &count));
  ck_assert_int_eq(count, nbits);
  OK(kk_deep_copy_fill(tally, &(int64_t){0}));
  a.reset = 1;
  OK(kk_parallel_for("reset", KK_RANGE(0, nbits * reps), KK_KERNEL(t_bits), KK_ARGS(a)));
  to_host(t, tally, sizeof t);
  ck_assert_int_eq(t[0], nbits);
  OK(kk_bitset_count(b, &count));
  ck_assert_int_eq(count, 0);
  /* set_all keeps the bits past the size reset */
  OK(kk_bitset_set_all(b));
  OK(kk_bitset_count(b, &count));
  ck_assert_int_eq(count, nbits);
  OK(kk_bitset_reset_all(b));
  OK(kk_bitset_count(b, &count));
  ck_assert_int_eq(count, 0);
  kk_bitset_release(b);
  kk_view_release(tally);
}
END_TEST

START_TEST(bitset_test_find_and_deep_copy) {
  const int64_t nbits = 200, nh = 120;
  kk_bitset_t *b = NULL, *hb = NULL;
  OK(kk_bitset_create(NULL, "bits", nbits, &b));
  OK(kk_bitset_create(kk_space_host(), "host bits", nbits, &hb));
  /* a pattern written by the host: bits 3, 40..70, 150 and 199 */
  uint8_t ref[200] = {0};
  uint32_t *w = kk_view_data(kk_bitset_words(hb));
  for (int64_t i = 0; i < nbits; i++)
    if (i == 3 || (i >= 40 && i <= 70) || i == 150 || i == 199) {
      ref[i] = 1;
      w[i / 32] |= 1u << (i % 32);
    }
  OK(kk_bitset_deep_copy(b, hb));
  kk_view_t *out = vec("out", KK_INT64, 0, 2 * nh + nbits, NULL), *hints = hints_view(nh, nbits);
  struct t_bits_args a;
  memset(&a, 0, sizeof a);
  a.b = kk_bitset_bind(b);
  a.out = kk_view_bind(out);
  a.hints = kk_view_bind(hints);
  a.nbits = nbits;
  OK(kk_parallel_for("test", KK_RANGE(0, nbits + 5), KK_KERNEL(t_bits_test), KK_ARGS(a))); /* 5 past the end test 0 */
  int64_t *o = malloc((2 * nh + nbits) * sizeof *o);
  to_host(o, out, (nbits + 5) * sizeof *o);
  for (int64_t i = 0; i < nbits + 5; i++)
    ck_assert_msg(o[i] == (i < nbits ? ref[i] : 0), "test(%lld) = %lld", (long long)i, (long long)o[i]);
  OK(kk_parallel_for("find", KK_RANGE(0, nh), KK_KERNEL(t_bits_find), KK_ARGS(a)));
  to_host(o, out, 2 * nh * sizeof *o);
  int64_t hs[120];
  to_host(hs, hints, sizeof hs);
  for (int64_t i = 0; i < nh; i++) {
    ck_assert_msg(o[2 * i] == ref_find(ref, nbits, hs[i], 1), "find_any_set_near(%lld) = %lld, expected %lld",
                  (long long)hs[i], (long long)o[2 * i], (long long)ref_find(ref, nbits, hs[i], 1));
    ck_assert_msg(o[2 * i + 1] == ref_find(ref, nbits, hs[i], 0), "find_any_unset_near(%lld) = %lld, expected %lld",
                  (long long)hs[i], (long long)o[2 * i + 1], (long long)ref_find(ref, nbits, hs[i], 0));
  }
  /* all set: no unset bit to find */
  OK(kk_bitset_set_all(b));
  OK(kk_parallel_for("find", KK_RANGE(0, nh), KK_KERNEL(t_bits_find), KK_ARGS(a)));
  to_host(o, out, 2 * nh * sizeof *o);
  for (int64_t i = 0; i < nh; i++)
    ck_assert_int_eq(o[2 * i + 1], KK_INVALID_INDEX);
  kk_bitset_t *other = NULL;
  OK(kk_bitset_create(NULL, "other", nbits + 1, &other));
  ck_assert_int_eq(kk_bitset_deep_copy(other, b), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "differ in size");
  ck_assert_int_eq(kk_bitset_create(NULL, "neg", -1, &other), KK_ERROR_INVALID_ARGUMENT);
  kk_bitset_release(other);
  free(o);
  kk_view_release(out);
  kk_view_release(hints);
  kk_bitset_release(b);
  kk_bitset_release(hb);
}
END_TEST

/* ==== UniqueToken =================================================================================== */

/* Every op acquires an id, checks that no other thread holds it, works on
 * its row and releases it: no id out of range, never two holders, every
 * op's work in the rows, every id free at the end. */
static void run_tokens(kk_unique_token_t *tok, int team, int64_t n) {
  const int32_t size = kk_unique_token_size(tok);
  ck_assert_int_gt(size, 0);
  kk_view_t *inuse = vec("inuse", KK_INT32, 0, size, NULL), *tally = vec("tally", KK_INT64, 0, 4, NULL);
  kk_view_spec_t rs = KK_VIEW_SPEC_INIT;
  rs.label = "rows";
  rs.type = KK_INT64;
  rs.rank = 2;
  rs.extents[0] = size;
  rs.extents[1] = 8;
  kk_view_t *rows = NULL;
  OK(kk_view_create(&rs, &rows));
  struct t_token_args a = {kk_unique_token_bind(tok), kk_view_bind(inuse), kk_view_bind(rows), kk_view_bind(tally)};
  if (team)
    OK(kk_parallel_for_team("tokens", KK_TEAM(n, KK_AUTO, KK_AUTO), KK_KERNEL(t_token_team), KK_ARGS(a)));
  else
    OK(kk_parallel_for("tokens", KK_RANGE(0, n), KK_KERNEL(t_token), KK_ARGS(a)));
  int64_t t[3];
  to_host(t, tally, sizeof t);
  ck_assert_msg(t[0] == 0, "%lld ids outside [0, %d)", (long long)t[0], size);
  ck_assert_msg(t[1] == 0, "%lld times an id had two holders", (long long)t[1]);
  ck_assert_int_lt(t[2], size);
  int64_t *r = malloc((size_t)size * 8 * sizeof *r), total = 0;
  kk_view_t *mr = NULL;
  OK(kk_view_create_mirror(rows, &mr));
  OK(kk_deep_copy(mr, rows));
  memcpy(r, kk_view_data(mr), (size_t)size * 8 * sizeof *r);
  for (int64_t i = 0; i < (int64_t)size * 8; i++)
    total += r[i];
  free(r);
  kk_view_release(mr);
  /* teams on GPUs: every lane of a thread works */
  ck_assert_msg(team ? total >= 8 * n && total % (8 * n) == 0 : total == 8 * n,
                "the rows hold %lld updates; %lld ops made 8 each", (long long)total, (long long)n);
  int32_t held = -1;
  OK(kk_unique_token_held(tok, &held));
  ck_assert_int_eq(held, 0);
  kk_view_release(inuse);
  kk_view_release(tally);
  kk_view_release(rows);
}

START_TEST(unique_token_default_size) {
  const kk_unique_token_scope_t scope = _i ? KK_UNIQUE_TOKEN_GLOBAL : KK_UNIQUE_TOKEN_INSTANCE;
  kk_unique_token_t *t = NULL;
  OK(kk_unique_token_create(NULL, scope, 0, &t));
  kk_device_info_t info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  OK(kk_device_get_info(kk_backend_default(), kk_device_id(), &info));
  const int32_t want = strcmp(kk_backend_default(), kk_backend_host()) == 0 ? kk_num_threads() : info.concurrency;
  ck_assert_int_eq(kk_unique_token_size(t), want);
  run_tokens(t, 0, 100000);
  run_tokens(t, 1, 2000);
  kk_unique_token_destroy(t);
}
END_TEST

/* Fewer ids than threads: acquires wait for releases, and still no id has
 * two holders. */
START_TEST(unique_token_small_size_waits) {
  const kk_unique_token_scope_t scope = _i ? KK_UNIQUE_TOKEN_GLOBAL : KK_UNIQUE_TOKEN_INSTANCE;
  kk_unique_token_t *t = NULL;
  OK(kk_unique_token_create(NULL, scope, 2, &t));
  ck_assert_int_eq(kk_unique_token_size(t), 2);
  run_tokens(t, 0, 20000);
  kk_unique_token_destroy(t);
  OK(kk_unique_token_create(NULL, scope, 37, &t));
  run_tokens(t, 0, 20000);
  kk_unique_token_destroy(t);
}
END_TEST

/* The global tokens of default size share one pool; errors. */
START_TEST(unique_token_global_pool_and_errors) {
  kk_unique_token_t *a = NULL, *b = NULL, *c = NULL;
  OK(kk_unique_token_create(NULL, KK_UNIQUE_TOKEN_GLOBAL, 0, &a));
  OK(kk_unique_token_create(NULL, KK_UNIQUE_TOKEN_GLOBAL, 0, &b));
  OK(kk_unique_token_create(NULL, KK_UNIQUE_TOKEN_GLOBAL, 5, &c));
  ck_assert_ptr_eq(kk_unique_token_bind(a).bits, kk_unique_token_bind(b).bits);
  ck_assert_ptr_ne(kk_unique_token_bind(a).bits, kk_unique_token_bind(c).bits);
  kk_unique_token_destroy(a);
  run_tokens(b, 0, 1000); /* the pool outlives a */
  kk_unique_token_destroy(b);
  kk_unique_token_destroy(c);
  ck_assert_int_eq(kk_unique_token_create(NULL, KK_UNIQUE_TOKEN_GLOBAL, -1, &a), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_unique_token_create(NULL, (kk_unique_token_scope_t)7, 0, &a), KK_ERROR_INVALID_ARGUMENT);
}
END_TEST

/* ==== DynamicView =================================================================================== */

static double dyn_sum(kk_dynamic_view_t *dv) {
  struct t_dyn_args a = {kk_dynamic_view_bind(dv), 0.0};
  double s = 0;
  OK(kk_parallel_reduce("sum", KK_RANGE(0, kk_dynamic_view_extent(dv)), KK_KERNEL(t_dyn_sum), KK_ARGS(a),
                        KK_RESULT(s)));
  return s;
}

START_TEST(dynamic_view_grows_and_shrinks_in_chunks) {
  kk_dynamic_view_spec_t s = KK_DYNAMIC_VIEW_SPEC_INIT;
  s.label = "dyn";
  s.type = KK_DOUBLE;
  s.min_chunk_size = 100;
  s.max_extent = 10000;
  kk_dynamic_view_t *dv = NULL;
  OK(kk_dynamic_view_create(&s, &dv));
  ck_assert_int_eq(kk_dynamic_view_chunk_size(dv), 128);
  ck_assert_int_eq(kk_dynamic_view_extent(dv), 0);
  OK(kk_dynamic_view_resize_serial(dv, 1000));
  ck_assert_int_eq(kk_dynamic_view_allocation_extent(dv), 1024);
  struct t_dyn_args a = {kk_dynamic_view_bind(dv), 1.0};
  OK(kk_parallel_for("fill", KK_RANGE(0, 1000), KK_KERNEL(t_dyn_fill), KK_ARGS(a)));
  ck_assert(dyn_sum(dv) == 999.0 * 1000 / 2);
  /* grow: the first 1000 keep their values, the new ones start at zero */
  OK(kk_dynamic_view_resize_serial(dv, 5000));
  ck_assert(dyn_sum(dv) == 999.0 * 1000 / 2);
  a = (struct t_dyn_args){kk_dynamic_view_bind(dv), 2.0};
  OK(kk_parallel_for("fill", KK_RANGE(0, 5000), KK_KERNEL(t_dyn_fill), KK_ARGS(a)));
  kk_view_t *flat = vec("flat", KK_DOUBLE, 0, 5000, kk_space_host());
  OK(kk_dynamic_view_copy_to(flat, dv));
  const double *f = kk_view_data(flat);
  for (int64_t i = 0; i < 5000; i++)
    ck_assert_msg(f[i] == (i < 1000 ? 3.0 : 2.0) * (double)i, "element %lld = %g", (long long)i, f[i]);
  /* shrink: chunks freed, the rest kept */
  OK(kk_dynamic_view_resize_serial(dv, 300));
  ck_assert_int_eq(kk_dynamic_view_allocation_extent(dv), 384);
  ck_assert(dyn_sum(dv) == 3.0 * 299 * 300 / 2);
  /* copy_from */
  kk_view_t *src = vec("src", KK_DOUBLE, 0, 300, kk_space_host());
  for (int64_t i = 0; i < 300; i++)
    ((double *)kk_view_data(src))[i] = 1.0;
  OK(kk_dynamic_view_copy_from(dv, src));
  ck_assert(dyn_sum(dv) == 300.0);
  ck_assert_int_eq(kk_dynamic_view_copy_to(flat, dv), KK_ERROR_INVALID_ARGUMENT); /* 5000 != 300 */
  ck_assert_int_eq(kk_dynamic_view_resize_serial(dv, 10001), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "maximum extent");
  ck_assert_int_eq(kk_dynamic_view_extent(dv), 300);
  OK(kk_dynamic_view_resize_serial(dv, 0));
  ck_assert_int_eq(kk_dynamic_view_allocation_extent(dv), 0);
  kk_view_release(flat);
  kk_view_release(src);
  kk_dynamic_view_release(dv);
}
END_TEST

/* ==== OffsetView ==================================================================================== */

START_TEST(offset_view_indices_from_lower_bounds) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = "fortran";
  s.type = KK_DOUBLE;
  s.rank = 2;
  s.extents[0] = 7;
  s.extents[1] = 4;
  const int64_t begin[2] = {-2, 5};
  kk_offset_view_t *ov = NULL;
  OK(kk_offset_view_create(&s, begin, &ov));
  ck_assert_int_eq(kk_offset_view_begin(ov, 0), -2);
  ck_assert_int_eq(kk_offset_view_end(ov, 0), 5);
  ck_assert_int_eq(kk_offset_view_begin(ov, 1), 5);
  ck_assert_int_eq(kk_offset_view_end(ov, 1), 9);
  ck_assert_int_eq(kk_offset_view_rank(ov), 2);
  /* the kernel runs over the view's own index box */
  kk_md_policy_t p = {sizeof p, 2, KK_ITERATE_DEFAULT, KK_ITERATE_DEFAULT, {-2, 5}, {5, 9}, {0}, NULL};
  struct t_off_args a;
  memset(&a, 0, sizeof a);
  a.ov = kk_offset_view_bind(ov);
  OK(kk_parallel_for_md("fill", &p, KK_KERNEL(t_off_fill), KK_ARGS(a)));
  kk_view_t *m = NULL;
  OK(kk_view_create_mirror(kk_offset_view_view(ov), &m));
  OK(kk_fence());
  OK(kk_deep_copy(m, kk_offset_view_view(ov)));
  kk_offset_view_t *hm = NULL;
  OK(kk_offset_view_wrap(m, begin, &hm));
  for (int64_t i = -2; i < 5; i++)
    for (int64_t j = 5; j < 9; j++) {
      const double *e = kk_offset_view_host_ptr(hm, (const int64_t[]){i, j});
      ck_assert_ptr_nonnull(e);
      ck_assert_msg(*e == 1000.0 * i + j, "(%lld, %lld) = %g", (long long)i, (long long)j, *e);
    }
  ck_assert_ptr_null(kk_offset_view_host_ptr(hm, (const int64_t[]){-3, 5}));
  ck_assert_contains(kk_last_error(), "outside [-2, 5)");
  /* a subview keeps the parent's indices; read it through a strided descriptor */
  kk_offset_view_t *sub = NULL;
  OK(kk_offset_view_subview(ov, (const int64_t[]){0, 6}, (const int64_t[]){3, 7}, &sub));
  ck_assert_int_eq(kk_offset_view_begin(sub, 0), 0);
  ck_assert_int_eq(kk_offset_view_end(sub, 1), 8);
  a.os = kk_offset_view_bind_strided(sub);
  kk_md_policy_t q = {sizeof q, 2, KK_ITERATE_DEFAULT, KK_ITERATE_DEFAULT, {0, 6}, {4, 8}, {0}, NULL};
  double sum = 0, want = 0;
  OK(kk_parallel_reduce_md("sum", &q, KK_KERNEL(t_off_sum), KK_ARGS(a), KK_RESULT(sum)));
  for (int64_t i = 0; i <= 3; i++)
    for (int64_t j = 6; j <= 7; j++)
      want += 1000.0 * i + j;
  ck_assert(sum == want);
  ck_assert_int_eq(kk_offset_view_subview(ov, (const int64_t[]){-3, 6}, (const int64_t[]){3, 7}, &sub),
                   KK_ERROR_INVALID_ARGUMENT);
  kk_offset_view_release(sub);
  kk_offset_view_release(hm);
  kk_view_release(m);
  kk_offset_view_release(ov);
}
END_TEST

/* ==== out-of-range accesses under kkcc --bounds-check ============================================= */

/* The launch (or the next fence, on device backends) fails naming the access. */
static void expect_bounds_failure(kk_kernel_t *k, struct b_args *a, const char *label) {
  kk_status_t st = kk_parallel_for("oob", KK_RANGE(0, 4), k, KK_ARGS(*a));
  if (st == KK_OK)
    st = kk_fence();
  ck_assert_msg(st == KK_ERROR_KERNEL_FAILED, "an access out of range returned %s: %s", kk_status_name(st),
                kk_last_error());
  ck_assert_contains(kk_last_error(), "bounds check");
  ck_assert_contains(kk_last_error(), label);
}

START_TEST(out_of_range_accesses_are_reported) {
  kk_unordered_map_t *m = umap("checked", KT_I64, 1, 10, NULL);
  kk_dynamic_view_spec_t ds = KK_DYNAMIC_VIEW_SPEC_INIT;
  ds.label = "dynamic";
  ds.min_chunk_size = 16;
  ds.max_extent = 100;
  kk_dynamic_view_t *dv = NULL;
  OK(kk_dynamic_view_create(&ds, &dv));
  OK(kk_dynamic_view_resize_serial(dv, 20));
  kk_view_spec_t os = KK_VIEW_SPEC_INIT;
  os.label = "offset";
  os.rank = 2;
  os.extents[0] = 3;
  os.extents[1] = 3;
  kk_offset_view_t *ov = NULL;
  OK(kk_offset_view_create(&os, (const int64_t[]){1, 1}, &ov));
  struct b_args a = {kk_unordered_map_bind(m), kk_dynamic_view_bind(dv), kk_offset_view_bind(ov), 0, 0};
  a.i = (int64_t)kk_unordered_map_slots(m); /* one past the last slot */
  expect_bounds_failure(KK_KERNEL(b_umap_value), &a, "checked_values");
  a.i = 20; /* allocated (the chunk holds 32) but past the extent */
  expect_bounds_failure(KK_KERNEL(b_dyn), &a, "dynamic");
  a.i = 0, a.j = 2; /* below the first index 1 */
  expect_bounds_failure(KK_KERNEL(b_off), &a, "offset");
  /* in range: no failure */
  a.i = 19;
  OK(kk_parallel_for("in range", KK_RANGE(0, 4), KK_KERNEL(b_dyn), KK_ARGS(a)));
  a.i = 3, a.j = 1;
  OK(kk_parallel_for("in range", KK_RANGE(0, 4), KK_KERNEL(b_off), KK_ARGS(a)));
  OK(kk_fence());
  kk_offset_view_release(ov);
  kk_dynamic_view_release(dv);
  kk_unordered_map_release(m);
}
END_TEST

START_TEST(calls_before_initialization_are_refused) {
  kk_finalize();
  kk_bitset_t *b = NULL;
  ck_assert_int_eq(kk_bitset_create(NULL, "x", 10, &b), KK_ERROR_NOT_INITIALIZED);
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  kk_dualview_t *dv = NULL;
  ck_assert_int_eq(kk_dualview_create(&s, &dv), KK_ERROR_NOT_INITIALIZED);
  ck_assert_contains(kk_last_error(), "kk_dualview_create");
  ck_assert_str_eq(kk_containers_version(), KK_VERSION_STRING);
  init_with(NULL);
}
END_TEST

static Suite *containers_suite(void) {
  Suite *s = suite_create(g_backend);
  TCase *tc = tcase_create("containers");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, dualview_one_allocation_on_host_spaces);
  tcase_add_test(tc, dualview_flags_and_sync);
  tcase_add_test(tc, dualview_async_sync_on_an_instance);
  tcase_add_test(tc, dualview_resize_and_realloc);
  tcase_add_test(tc, dualview_subview_keeps_the_parents_flags);
  tcase_add_test(tc, dualview_released_is_refused);
  tcase_add_loop_test(tc, umap_concurrent_inserts_of_the_same_keys, 0, 2 * KT_N);
  tcase_add_loop_test(tc, umap_find_and_exists, 0, 2);
  tcase_add_test(tc, umap_full_then_rehash_and_retry);
  tcase_add_test(tc, umap_rehash_that_cannot_fit_is_refused);
  tcase_add_test(tc, umap_wrong_key_size_is_reported);
  tcase_add_test(tc, umap_bad_specs_are_refused);
  tcase_add_test(tc, umap_host_access_and_deep_copy);
  tcase_add_test(tc, bitset_concurrent_set_reset_count);
  tcase_add_test(tc, bitset_test_find_and_deep_copy);
  tcase_add_loop_test(tc, unique_token_default_size, 0, 2);
  tcase_add_loop_test(tc, unique_token_small_size_waits, 0, 2);
  tcase_add_test(tc, unique_token_global_pool_and_errors);
  tcase_add_test(tc, dynamic_view_grows_and_shrinks_in_chunks);
  tcase_add_test(tc, offset_view_indices_from_lower_bounds);
  tcase_add_test(tc, out_of_range_accesses_are_reported);
  tcase_add_test(tc, calls_before_initialization_are_refused);
  suite_add_tcase(s, tc);
  TCase *tt = tcase_create("tools");
  tcase_add_checked_fixture(tt, tool_setup, teardown);
  tcase_set_timeout(tt, 600);
  tcase_add_test(tt, dualview_events_reach_a_tool_library);
  suite_add_tcase(s, tt);
  return s;
}

int main(int argc, char **argv) {
  if (argc > 1)
    g_backend = argv[1];
  if (argc > 2)
    g_threads = atoi(argv[2]);
  if (getenv("KOKKOS_PLUGIN_PATH"))
    g_plugin_path = strdup(getenv("KOKKOS_PLUGIN_PATH"));
  tu_clear_env();
  int probe = tu_probe_backend(g_backend, g_plugin_path);
  if (probe != 0)
    return probe;
  int rc = tu_run(containers_suite());
  free(g_plugin_path);
  return rc;
}
