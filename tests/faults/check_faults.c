/* tests/faults/check_faults.c -- bad input found by trying it: each case once crashed, blocked or lost its message; now each is a clear error. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "testutil.h"

static kk_status_t init_quiet(void) {
  tu_clear_env();
  kk_settings_t s = KK_SETTINGS_INIT;
  s.disable_warnings = 1;
  return kk_initialize_with_settings(&s);
}

/* ---- view shapes whose products overflow ------------------------------------------------- */

/* Creates (and wraps) a view of this shape and expects the overflow error,
 * naming the label, with nothing created. */
static void expect_overflow(const char *what, kk_type_t type, int rank, const int64_t *ext, kk_layout_t layout,
                            const int64_t *strides) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = what;
  s.type = type;
  s.rank = rank;
  s.layout = layout;
  for (int d = 0; d < rank; d++) {
    s.extents[d] = ext[d];
    if (strides)
      s.strides[d] = strides[d];
  }
  kk_view_t *v = (kk_view_t *)1;
  kk_status_t st = kk_view_create(&s, &v);
  ck_assert_msg(st == KK_ERROR_OUT_OF_MEMORY, "%s: kk_view_create returned %s (%s)", what, kk_status_name(st),
                kk_last_error());
  ck_assert_ptr_null(v);
  ck_assert_contains(kk_last_error(), what);
  ck_assert_contains(kk_last_error(), "overflows");
  static double backing[4];
  v = (kk_view_t *)1;
  st = kk_view_wrap(&s, backing, &v);
  ck_assert_msg(st == KK_ERROR_OUT_OF_MEMORY, "%s: kk_view_wrap returned %s (%s)", what, kk_status_name(st),
                kk_last_error());
  ck_assert_ptr_null(v);
}

/* A rank-2 view of 2^40 x 2^40 doubles was once created with 0 bytes
 * and the first write crashed.  Every rank and layout, every product. */
START_TEST(view_sizes_that_overflow_are_refused) {
  ck_assert_int_eq(init_quiet(), KK_OK);
  const int64_t big = (int64_t)1 << 40;
  const kk_layout_t layouts[] = {KK_LAYOUT_DEFAULT, KK_LAYOUT_RIGHT, KK_LAYOUT_LEFT, KK_LAYOUT_STRIDE};
  for (int rank = 1; rank <= KK_MAX_RANK; rank++)
    for (size_t li = 0; li < sizeof layouts / sizeof *layouts; li++) {
      char label[64];
      int64_t ext[KK_MAX_RANK], str[KK_MAX_RANK];
      for (int d = 0; d < rank; d++)
        ext[d] = 1;
      /* the element count: 2^40 x ... x 2^40 (rank 1: 2^62 elements of 8 bytes, the bytes) */
      ext[0] = rank == 1 ? (int64_t)1 << 62 : big;
      ext[rank - 1] = rank == 1 ? ext[0] : big;
      for (int d = 0; d < rank; d++)
        str[d] = 0; /* a strided view of zero strides: span 1, the count still overflows */
      if (rank == 1)
        str[0] = 1; /* (2^62 elements at one address is a valid view; its span in bytes is not) */
      snprintf(label, sizeof label, "count-r%d-l%d", rank, (int)layouts[li]);
      expect_overflow(label, KK_DOUBLE, rank, ext, layouts[li], layouts[li] == KK_LAYOUT_STRIDE ? str : NULL);
      if (rank < 2)
        continue;
      /* a compact stride alone: an empty view (no element, no byte) whose
       * strides do not fit, 0 x 2^40 x 2^40 (right) or 2^40 x 2^40 x 0 (left) */
      if (rank >= 3 && layouts[li] != KK_LAYOUT_STRIDE) {
        for (int d = 0; d < rank; d++)
          ext[d] = big;
        ext[layouts[li] == KK_LAYOUT_LEFT ? rank - 1 : 0] = 0;
        snprintf(label, sizeof label, "stride-r%d-l%d", rank, (int)layouts[li]);
        expect_overflow(label, KK_INT8, rank, ext, layouts[li], NULL);
      }
      /* the span of given strides: (2^40 - 1) * 2^40 in one dimension, small extents elsewhere */
      for (int d = 0; d < rank; d++)
        ext[d] = 2, str[d] = 1;
      ext[rank - 1] = big;
      str[rank - 1] = big;
      snprintf(label, sizeof label, "span-r%d", rank);
      if (layouts[li] == KK_LAYOUT_STRIDE)
        expect_overflow(label, KK_INT8, rank, ext, KK_LAYOUT_STRIDE, str);
    }
  /* the bytes: 2^61 complex doubles (16 bytes each) */
  const int64_t n = (int64_t)1 << 60;
  expect_overflow("bytes", KK_COMPLEX_DOUBLE, 1, &n, KK_LAYOUT_DEFAULT, NULL);
  /* the case first found (2^40 x 2^40 doubles), through kk_view_alloc */
  kk_view_t *v = (kk_view_t *)1;
  const int64_t e2[2] = {big, big};
  ck_assert_int_eq(kk_view_alloc(&v, "huge", KK_DOUBLE, 2, e2), KK_ERROR_OUT_OF_MEMORY);
  ck_assert_ptr_null(v);
  ck_assert_contains(kk_last_error(), "view 'huge': 1099511627776 x 1099511627776 elements of 8 bytes");
  /* resize to such a shape fails and keeps the view as it was */
  const int64_t e1[2] = {3, 4};
  ck_assert_int_eq(kk_view_alloc(&v, "kept", KK_DOUBLE, 2, e1), KK_OK);
  ((double *)kk_view_data(v))[11] = 42;
  kk_view_t *old = v;
  ck_assert_int_eq(kk_view_resize(&v, e2), KK_ERROR_OUT_OF_MEMORY);
  ck_assert_ptr_eq(v, old);
  ck_assert_int_eq(kk_view_extent(v, 1), 4);
  ck_assert(((double *)kk_view_data(v))[11] == 42);
  kk_view_release(v);
  /* shapes that fit still work, an empty one among them */
  const int64_t ok[3] = {1 << 20, 0, (int64_t)1 << 40};
  ck_assert_int_eq(kk_view_alloc(&v, "empty", KK_DOUBLE, 3, ok), KK_OK);
  ck_assert_uint_eq(kk_view_size(v), 0);
  kk_view_release(v);
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

/* ---- configuration files that are not files ------------------------------------------------ */

static kk_status_t init_with_config(const char *path) {
  tu_clear_env();
  setenv("KOKKOS_CONFIG", path, 1);
  kk_settings_t s = KK_SETTINGS_INIT;
  s.disable_warnings = 1;
  kk_status_t st = kk_initialize_with_settings(&s);
  unsetenv("KOKKOS_CONFIG");
  if (st == KK_OK)
    kk_finalize();
  return st;
}

/* A FIFO with no writer blocked kk_initialize forever (this test then fails
 * by Check's timeout); a directory was "'[' or '{' expected near end of
 * file". */
START_TEST(config_file_must_be_a_regular_file) {
  char *dir = tu_mkdtemp();
  char fifo[600];
  snprintf(fifo, sizeof fifo, "%s/kk.json", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  ck_assert_int_eq(init_with_config(fifo), KK_ERROR_CONFIG);
  ck_assert_contains(kk_last_error(), "is a FIFO (named pipe), not a regular file");
  ck_assert_contains(kk_last_error(), fifo);
  ck_assert_int_eq(init_with_config(dir), KK_ERROR_CONFIG);
  ck_assert_contains(kk_last_error(), "is a directory, not a regular file");
  ck_assert_int_eq(init_with_config("/dev/null"), KK_ERROR_CONFIG);
  ck_assert_contains(kk_last_error(), "'/dev/null' is a character device, not a regular file");
  ck_assert_int_eq(init_with_config("/dev/zero"), KK_ERROR_CONFIG);
  ck_assert_contains(kk_last_error(), "character device");
  /* the flag says the same */
  tu_clear_env();
  char flag[700];
  snprintf(flag, sizeof flag, "--kokkos-config=%s", dir);
  char *argv[] = {"prog", flag, NULL};
  int argc = 2;
  char **av = argv;
  ck_assert_int_eq(kk_initialize(&argc, &av), KK_ERROR_CONFIG);
  ck_assert_contains(kk_last_error(), "is a directory, not a regular file");
  ck_assert_int_eq(argc, 2); /* nothing consumed on failure */
  /* a missing file and a good one */
  char missing[600];
  snprintf(missing, sizeof missing, "%s/none.json", dir);
  ck_assert_int_eq(init_with_config(missing), KK_ERROR_CONFIG);
  ck_assert_contains(kk_last_error(), "No such file or directory");
  char *good = tu_write(dir, "good.json", "{\"version\": 1, \"num_threads\": 1}");
  ck_assert_int_eq(init_with_config(good), KK_OK);
  free(good);
  tu_rmdir(dir);
}
END_TEST

/* ---- long values ------------------------------------------------------------------------------ */

/* A 10 MB value in KOKKOS_DEVICE lost the "expected ..." part of its message. */
START_TEST(long_values_are_cut_not_the_explanation) {
  const size_t n = 10u << 20;
  char *big = malloc(n + 1);
  memset(big, 'x', n);
  big[n] = '\0';
  big[0] = 'X'; /* not a backend name: upper case */
  tu_clear_env();
  setenv("KOKKOS_DEVICE", big, 1);
  ck_assert_int_eq(kk_initialize(NULL, NULL), KK_ERROR_CONFIG);
  unsetenv("KOKKOS_DEVICE");
  const char *m = kk_last_error();
  ck_assert_contains(m, "kk: invalid value 'Xxxxxxxx");
  /* its first and last bytes around its length, then the explanation whole */
  ck_assert_contains(m, "xxxxxxxx...[10485760 bytes]...xxxxxxxx");
  ck_assert_contains(m, "xxxxxxxx' in KOKKOS_DEVICE: expected a backend name with an optional device index (cuda, "
                        "cuda:1, openmp) or a device id");
  ck_assert_uint_lt(strlen(m), 2048);
  /* the same value as a flag */
  size_t fl = n + 32;
  char *flag = malloc(fl);
  snprintf(flag, fl, "--kokkos-device=%s", big);
  char *argv[] = {"prog", flag, NULL};
  int argc = 2;
  char **av = argv;
  ck_assert_int_eq(kk_initialize(&argc, &av), KK_ERROR_CONFIG);
  ck_assert_contains(kk_last_error(), "...[10485760 bytes]...xxxxxxxx");
  ck_assert_contains(kk_last_error(), "xxxxxxxx' for --kokkos-device: expected a backend name");
  free(flag);
  /* a long label in a message with several values: the label is cut, the
   * operation, the other values and the explanation stay */
  ck_assert_int_eq(init_quiet(), KK_OK);
  big[100000] = '\0';
  kk_view_t *v = NULL;
  const int64_t ext[2] = {4, -7};
  ck_assert_int_eq(kk_view_alloc(&v, big, KK_DOUBLE, 2, ext), KK_ERROR_INVALID_ARGUMENT);
  m = kk_last_error();
  ck_assert_contains(m, "kk_view_create: view 'Xxxx");
  ck_assert_contains(m, "...[100000 bytes]...xxxxxxxx");
  ck_assert_contains(m, "xxxxxxxx': extent 1 is negative (-7)");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  /* a UTF-8 value is never cut inside a character */
  for (size_t i = 0; i + 1 < 5000; i += 2)
    big[i] = (char)0xC3, big[i + 1] = (char)0xA9; /* e-acute */
  big[5000] = '\0';
  tu_clear_env();
  setenv("KOKKOS_NUM_THREADS", big, 1);
  ck_assert_int_eq(kk_initialize(NULL, NULL), KK_ERROR_CONFIG);
  unsetenv("KOKKOS_NUM_THREADS");
  m = kk_last_error();
  const char *cut = strstr(m, "...[5000 bytes]...");
  ck_assert_ptr_nonnull(cut);
  ck_assert_int_eq((unsigned char)cut[-1], 0xA9); /* the last byte of the head ends a character */
  ck_assert_int_eq((unsigned char)cut[strlen("...[5000 bytes]...")], 0xC3); /* the tail starts one */
  ck_assert_contains(m, "in KOKKOS_NUM_THREADS: expected an integer >= 1");
  free(big);
}
END_TEST

/* ---- initialize and finalize from several threads ----------------------------------------------- */

#define INIT_THREADS 8
static atomic_int g_unexpected;
static char *g_plugin_path; /* the build's plugins: threads and openmp start and stop worker threads */

static void *init_finalize_loop(void *arg) {
  (void)arg;
  for (int i = 0; i < 4; i++) {
    kk_settings_t s = KK_SETTINGS_INIT;
    s.disable_warnings = 1;
    s.plugin_path = g_plugin_path;
    kk_status_t st = kk_initialize_with_settings(&s);
    if (st != KK_OK && st != KK_ERROR_ALREADY_INITIALIZED)
      atomic_fetch_add(&g_unexpected, 1);
    /* every thread may use kk while it is initialized; the state is consistent */
    if (st == KK_OK || st == KK_ERROR_ALREADY_INITIALIZED)
      (void)kk_is_initialized();
    st = kk_finalize();
    if (st != KK_OK && st != KK_ERROR_NOT_INITIALIZED)
      atomic_fetch_add(&g_unexpected, 1);
  }
  return NULL;
}

/* Two threads calling kk_initialize at once crashed: now the calls run one
 * after the other and each returns a status. */
START_TEST(initialize_and_finalize_from_many_threads) {
  tu_clear_env();
  setenv("KK_PLUGIN_PATH_NO_BUILD_TREE", "1", 1); /* the host plugins of g_plugin_path only */
  atomic_store(&g_unexpected, 0);
  pthread_t t[INIT_THREADS];
  for (int i = 0; i < INIT_THREADS; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, init_finalize_loop, NULL), 0);
  for (int i = 0; i < INIT_THREADS; i++)
    pthread_join(t[i], NULL);
  unsetenv("KK_PLUGIN_PATH_NO_BUILD_TREE");
  ck_assert_int_eq(atomic_load(&g_unexpected), 0);
  ck_assert(!kk_is_initialized());
}
END_TEST

static kk_status_t g_nested = KK_OK;
static void reenter(kk_status_t st, const char *msg, void *user) {
  (void)st, (void)msg, (void)user;
  static int depth;
  if (depth++ == 0) /* kk_finalize's own error calls the handler again */
    g_nested = kk_finalize();
  depth--;
}

/* An error handler that calls kk_finalize from inside kk_initialize gets an
 * error, not a deadlock. */
START_TEST(initialize_reentered_from_a_handler) {
  tu_clear_env();
  setenv("KOKKOS_NUM_THREADS", "zero", 1);
  kk_set_error_handler(reenter, NULL);
  ck_assert_int_eq(kk_initialize(NULL, NULL), KK_ERROR_CONFIG);
  kk_set_error_handler(NULL, NULL);
  unsetenv("KOKKOS_NUM_THREADS");
  ck_assert_int_eq(g_nested, KK_ERROR_IN_USE);
  ck_assert(!kk_is_initialized());
}
END_TEST

/* ---- the plugin directory scan ----------------------------------------------------------------------- */

/* A directory without plugins called qsort(NULL, 0, ...), which
 * UndefinedBehaviorSanitizer reports (CI's sanitizer build fails on it). */
START_TEST(empty_plugin_directory) {
  char *dir = tu_mkdtemp();
  tu_clear_env();
  /* only the empty directory: an uninstalled libkk would add its tree's plugins */
  setenv("KK_PLUGIN_PATH_NO_BUILD_TREE", "1", 1);
  kk_settings_t s = KK_SETTINGS_INIT;
  s.disable_warnings = 1;
  s.plugin_path = dir;
  ck_assert_int_eq(kk_initialize_with_settings(&s), KK_OK);
  ck_assert_str_eq(kk_backend_default(), "serial");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  unsetenv("KK_PLUGIN_PATH_NO_BUILD_TREE");
  tu_rmdir(dir);
}
END_TEST

/* A kernel object whose tables cannot be walked (found by
 * tests/fuzz/fuzz_module_table): a NULL kernel entry, a kernel without a
 * name, a count without a table, an image without data, and a NULL entry in
 * a module of another ABI.  Registering, looking up and unregistering them
 * crashed; now they are refused and never read. */
START_TEST(damaged_module_tables_are_refused) {
  kk_kernel_t good = {.struct_size = sizeof good, .abi_version = KK_KERNEL_ABI_VERSION, .name = "dmg_good"};
  kk_kernel_t noname = {.struct_size = sizeof noname, .abi_version = KK_KERNEL_ABI_VERSION};
  kk_kernel_t *with_null[] = {&good, NULL}, *with_noname[] = {&good, &noname};
  kk_image_t nodata = {.target = "cuda", .format = "cuda-fatbin", .size = 64};
  kk_module_t mods[5];
  memset(mods, 0, sizeof mods);
  for (int i = 0; i < 5; i++) {
    mods[i].struct_size = sizeof mods[i];
    mods[i].abi_version = KK_KERNEL_ABI_VERSION;
    mods[i].source_name = "damaged.kk.c";
    mods[i].kernel_count = 2;
    mods[i].kernels = with_null;
  }
  mods[1].kernels = with_noname;
  mods[2].kernels = NULL;
  mods[3].kernels = with_noname, mods[3].kernel_count = 1, mods[3].image_count = 1, mods[3].images = &nodata;
  mods[4].abi_version = ((KK_KERNEL_ABI_VERSION >> 16) + 1u) << 16;
  for (int round = 0; round < 2; round++) { /* before kk_initialize, then while initialized */
    if (round == 1)
      ck_assert_int_eq(kk_initialize_with_settings(NULL), KK_OK);
    for (int i = 0; i < 5; i++) {
      kk_module_register(&mods[i]);
      ck_assert_ptr_null(kk_kernel_find("dmg_good"));
      ck_assert_ptr_null(kk_module_kernel(&mods[i], "dmg_good"));
      kk_module_unregister(&mods[i]);
    }
  }
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

static Suite *faults_suite(void) {
  Suite *s = suite_create("faults");
  TCase *tc = tcase_create("bad input");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, view_sizes_that_overflow_are_refused);
  tcase_add_test(tc, config_file_must_be_a_regular_file);
  tcase_add_test(tc, long_values_are_cut_not_the_explanation);
  tcase_add_test(tc, initialize_and_finalize_from_many_threads);
  tcase_add_test(tc, initialize_reentered_from_a_handler);
  tcase_add_test(tc, empty_plugin_directory);
  tcase_add_test(tc, damaged_module_tables_are_refused);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* the host plugins that start and stop worker threads: not the GPU ones,
   * whose runtimes (HIP's above all) keep state across initializations and
   * run threads of their own that this test is not about */
  const char *top = getenv("top_builddir") ? getenv("top_builddir") : ".";
  char path[4096];
  snprintf(path, sizeof path, "%s/plugins/.libs/kk_threads.so:%s/plugins/.libs/kk_openmp.so", top, top);
  g_plugin_path = strdup(getenv("KOKKOS_PLUGIN_PATH") ? getenv("KOKKOS_PLUGIN_PATH") : path);
  int rc = tu_run(faults_suite());
  free(g_plugin_path);
  return rc;
}
