/* tests/conformance/conformance.c -- the conformance suite, written once and run against every backend (--kokkos-device=NAME). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../testutil.h"
#include "conformance.h"

static const char *g_backend = "serial";
static char *g_plugin_path; /* KOKKOS_PLUGIN_PATH as the test harness set it */
static int g_num_threads;   /* second argument: as --kokkos-num-threads (0: the backend's default) */
static const char *g_config_file; /* third argument: a JSON configuration file (backend options) */

/* every kernel of kernels.kk.c */
#define DECL_ALL(T)                                                                                   \
  KK_DECLARE_KERNEL(sum_##T); KK_DECLARE_KERNEL(prod_##T); KK_DECLARE_KERNEL(min_##T);                 \
  KK_DECLARE_KERNEL(max_##T); KK_DECLARE_KERNEL(minmax_##T); KK_DECLARE_KERNEL(minloc_##T);            \
  KK_DECLARE_KERNEL(maxloc_##T); KK_DECLARE_KERNEL(minmaxloc_##T); KK_DECLARE_KERNEL(land_##T);        \
  KK_DECLARE_KERNEL(lor_##T);
#define DECL_BITS(T) KK_DECLARE_KERNEL(band_##T); KK_DECLARE_KERNEL(bor_##T);
CONF_TYPES(DECL_ALL)
CONF_INT_TYPES(DECL_BITS)
KK_DECLARE_KERNEL(axpy);
KK_DECLARE_KERNEL(count_hits);
KK_DECLARE_KERNEL(empty_for);
KK_DECLARE_KERNEL(min_sum_minloc);
KK_DECLARE_KERNEL(dot);
KK_DECLARE_KERNEL(count);
KK_DECLARE_KERNEL(index_sum);
KK_DECLARE_KERNEL(scan_count);
KK_DECLARE_KERNEL(complex_stats);
KK_DECLARE_KERNEL(count_and_stats);
KK_DECLARE_KERNEL(scan_incl_i64);
KK_DECLARE_KERNEL(scan_excl_i64);
KK_DECLARE_KERNEL(scan_excl_double);
KK_DECLARE_KERNEL(prefix_max);
KK_DECLARE_KERNEL(mix_layouts);
KK_DECLARE_KERNEL(fill_rank);
KK_DECLARE_KERNEL(set_scalar);
KK_DECLARE_KERNEL(sub_check);
KK_DECLARE_KERNEL(sub_write);
KK_DECLARE_KERNEL(trait_atomic);
KK_DECLARE_KERNEL(trait_gather);
KK_DECLARE_KERNEL(simd_segments);

#define SG_int8_t 1
#define SG_uint8_t 0
#define SG_int16_t 1
#define SG_uint16_t 0
#define SG_int32_t 1
#define SG_uint32_t 0
#define SG_int64_t 1
#define SG_uint64_t 0
#define SG_float 1
#define SG_double 1
#define KT_int8_t KK_INT8
#define KT_uint8_t KK_UINT8
#define KT_int16_t KK_INT16
#define KT_uint16_t KK_UINT16
#define KT_int32_t KK_INT32
#define KT_uint32_t KK_UINT32
#define KT_int64_t KK_INT64
#define KT_uint64_t KK_UINT64
#define KT_float KK_FLOAT
#define KT_double KK_DOUBLE

#define OK(call) ck_assert_msg((call) == KK_OK, "%s failed: %s", #call, kk_last_error())

/* ---- fixtures and helpers ------------------------------------------------------------ */

void conf_setup(void);
void conf_teardown(void);
void conf_add_hier_tests(Suite *s);
void conf_add_graph_tests(Suite *s);
const char *conf_backend(void);

const char *conf_backend(void) { return g_backend; }

void conf_setup(void) {
  tu_clear_env();
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = g_backend;
  s.plugin_path = g_plugin_path;
  s.num_threads = g_num_threads;
  s.config_file = g_config_file;
  s.disable_warnings = 1;
  ck_assert_msg(kk_initialize_with_settings(&s) == KK_OK, "initializing %s: %s", g_backend, kk_last_error());
  ck_assert_str_eq(kk_backend_default(), g_backend);
  if (g_num_threads && strcmp(g_backend, "serial") != 0 && strcmp(kk_backend_host(), g_backend) == 0)
    ck_assert_int_eq(kk_num_threads(), g_num_threads);
}

void conf_teardown(void) { kk_finalize(); }

static kk_view_t *view1(const char *label, kk_type_t t, int64_t n) {
  kk_view_t *v = NULL;
  OK(kk_view_alloc(&v, label, t, 1, &n));
  return v;
}

/* The host side of a view: itself when the host can reach it, else a mirror. */
static kk_view_t *host_of(kk_view_t *v) {
  kk_view_t *m = NULL;
  OK(kk_view_create_mirror_view(v, &m));
  return m;
}

static void upload(kk_view_t *dev, kk_view_t *host) {
  if (dev != host)
    OK(kk_deep_copy(dev, host));
}

static void download(kk_view_t *host, kk_view_t *dev) {
  OK(kk_fence());
  if (dev != host)
    OK(kk_deep_copy(host, dev));
}

/* Overwrites a view with a pattern no kernel produces. */
static void poison(kk_view_t *v) {
  unsigned char pattern[16];
  memset(pattern, 0xA5, sizeof pattern);
  OK(kk_deep_copy_fill(v, pattern));
}

/* ---- range for -------------------------------------------------------------------------- */

START_TEST(for_axpy) {
  const int64_t n = 100003;
  kk_view_t *x = view1("x", KK_DOUBLE, n), *y = view1("y", KK_DOUBLE, n);
  kk_view_t *hx = host_of(x), *hy = host_of(y);
  double *px = kk_view_data(hx), *py = kk_view_data(hy);
  for (int64_t i = 0; i < n; i++) {
    px[i] = (double)(i % 17);
    py[i] = 1.0;
  }
  upload(x, hx);
  upload(y, hy);
  struct axpy_args a = {2.5, kk_view_bind(x), kk_view_bind(y)};
  OK(kk_parallel_for("axpy", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(a)));
  download(hy, y);
  for (int64_t i = 0; i < n; i++)
    ck_assert_msg(py[i] == 1.0 + 2.5 * (double)(i % 17), "y[%lld] = %g", (long long)i, py[i]);
  kk_view_release(hx), kk_view_release(hy), kk_view_release(x), kk_view_release(y);
}
END_TEST

/* Every index runs exactly once for every schedule and chunk size, on sub-ranges too. */
START_TEST(for_schedules_and_chunks) {
  static const int64_t chunks[] = {0, 1, 3, 7, 64, 1000, 1 << 20};
  static const int64_t ranges[][2] = {{0, 10007}, {5, 10012}, {-300, 700}, {0, 1}, {0, 2}, {3, 4}};
  for (int sched = 0; sched < 2; sched++)
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
      for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++) {
        int64_t b = ranges[r][0], e = ranges[r][1], n = e - b;
        kk_view_t *hits = view1("hits", KK_INT32, n), *h = host_of(hits);
        int32_t zero = 0;
        OK(kk_deep_copy_fill(hits, &zero));
        struct count_args a = {kk_view_bind(hits), b};
        kk_range_policy_t p = {sizeof p, b, e, chunks[c], sched ? KK_SCHEDULE_DYNAMIC : KK_SCHEDULE_STATIC, NULL};
        OK(kk_parallel_for("hits", &p, KK_KERNEL(count_hits), KK_ARGS(a)));
        download(h, hits);
        const int32_t *ph = kk_view_data(h);
        for (int64_t i = 0; i < n; i++)
          ck_assert_msg(ph[i] == 1, "schedule %d chunk %lld range [%lld,%lld): index %lld ran %d times", sched,
                        (long long)chunks[c], (long long)b, (long long)e, (long long)(b + i), ph[i]);
        kk_view_release(h), kk_view_release(hits);
      }
}
END_TEST

START_TEST(empty_and_single_ranges) {
  struct nothing z = {0};
  OK(kk_parallel_for("empty", KK_RANGE(0, 0), KK_KERNEL(empty_for), KK_ARGS(z)));
  OK(kk_parallel_for("empty", KK_RANGE(7, 7), KK_KERNEL(empty_for), KK_ARGS(z)));
  int64_t c = -1;
  OK(kk_parallel_reduce("count", KK_RANGE(5, 5), KK_KERNEL(count), KK_ARGS(z), KK_RESULT(c)));
  ck_assert_int_eq(c, 0);
  OK(kk_parallel_reduce("count", KK_RANGE(5, 6), KK_KERNEL(count), KK_ARGS(z), KK_RESULT(c)));
  ck_assert_int_eq(c, 1);
  int64_t s = -1;
  OK(kk_parallel_reduce("isum", KK_RANGE(41, 42), KK_KERNEL(index_sum), KK_ARGS(z), KK_RESULT(s)));
  ck_assert_int_eq(s, 41);
  /* identities of an empty reduction */
  kk_view_t *v = view1("v", KK_DOUBLE, 1);
  struct one_view ov = {kk_view_bind(v)};
  double mn = 0, mx = 0;
  OK(kk_parallel_reduce("min", KK_RANGE(0, 0), KK_KERNEL(min_double), KK_ARGS(ov), KK_RESULT(mn)));
  OK(kk_parallel_reduce("max", KK_RANGE(0, 0), KK_KERNEL(max_double), KK_ARGS(ov), KK_RESULT(mx)));
  ck_assert(mn == 1.79769313486231570815e+308 && mx == -1.79769313486231570815e+308);
  kk_valloc_double loc = {0, 0};
  OK(kk_parallel_reduce("minloc", KK_RANGE(0, 0), KK_KERNEL(minloc_double), KK_ARGS(ov), KK_RESULT(loc)));
  ck_assert(loc.loc == INT64_MAX);
  /* an empty scan: total is the identity, nothing written */
  kk_view_t *x = view1("x", KK_INT64, 1), *y = view1("y", KK_INT64, 1), *hy = host_of(y);
  poison(y);
  struct two_views tv = {kk_view_bind(x), kk_view_bind(y)};
  int64_t tot = -1;
  OK(kk_parallel_scan("scan", KK_RANGE(0, 0), KK_KERNEL(scan_incl_i64), KK_ARGS(tv), KK_RESULT(tot)));
  ck_assert_int_eq(tot, 0);
  download(hy, y);
  ck_assert_int_eq(*(int64_t *)kk_view_data(hy), (int64_t)0xA5A5A5A5A5A5A5A5ull);
  kk_view_release(v), kk_view_release(x), kk_view_release(y), kk_view_release(hy);
}
END_TEST

/* Index arithmetic is 64-bit: ranges that start past 2^31 and a range longer than 2^31. */
START_TEST(ranges_beyond_2_31) {
  struct nothing z = {0};
  const int64_t b = ((int64_t)1 << 33) + 11;
  int64_t s = 0;
  OK(kk_parallel_reduce("isum", KK_RANGE(b, b + 1000), KK_KERNEL(index_sum), KK_ARGS(z), KK_RESULT(s)));
  ck_assert_int_eq(s, 1000 * b + 999 * 1000 / 2);
  kk_view_t *hits = view1("hits", KK_INT32, 5000), *h = host_of(hits);
  int32_t zero = 0;
  OK(kk_deep_copy_fill(hits, &zero));
  struct count_args a = {kk_view_bind(hits), b};
  OK(kk_parallel_for("hits", KK_RANGE(b, b + 5000), KK_KERNEL(count_hits), KK_ARGS(a)));
  download(h, hits);
  for (int i = 0; i < 5000; i++)
    ck_assert_int_eq(((int32_t *)kk_view_data(h))[i], 1);
  kk_view_release(h), kk_view_release(hits);
  if (getenv("KK_TEST_UNDER_VALGRIND"))
    return; /* 2^31 iterations take minutes under valgrind */
  const int64_t n = ((int64_t)1 << 31) + 7;
  int64_t c = 0;
  OK(kk_parallel_reduce("count", KK_RANGE(-3, n - 3), KK_KERNEL(count), KK_ARGS(z), KK_RESULT(c)));
  ck_assert_int_eq(c, n);
}
END_TEST

/* Lengths are int64_t.  A range whose length does not fit is refused before
 * launch, with its bounds, on every kind; ranges at either end of int64_t run
 * every index once, whatever the chunk size and schedule. */
START_TEST(ranges_at_the_ends_of_int64) {
  struct nothing z = {0};
  int64_t c = -1;
  ck_assert_int_eq(kk_parallel_for("huge", KK_RANGE(INT64_MIN, INT64_MAX), KK_KERNEL(empty_for), KK_ARGS(z)),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_for 'huge': range [-9223372036854775808, 9223372036854775807) "
                                      "has 18446744073709551615 indices, more than int64_t counts");
  ck_assert_int_eq(kk_parallel_reduce("huge", KK_RANGE(-1, INT64_MAX), KK_KERNEL(count), KK_ARGS(z), KK_RESULT(c)),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_reduce 'huge': range [-1, 9223372036854775807) has "
                                      "9223372036854775808 indices");
  ck_assert_int_eq(c, -1);
  kk_view_t *hits = view1("hits", KK_INT32, 1000), *h = host_of(hits);
  struct count_args a = {kk_view_bind(hits), INT64_MIN};
  ck_assert_int_eq(kk_parallel_scan("huge", KK_RANGE(INT64_MIN, 0), KK_KERNEL(scan_count), KK_ARGS(a), KK_RESULT(c)),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_scan 'huge': range [-9223372036854775808, 0) has "
                                      "9223372036854775808 indices");
  ck_assert_int_eq(c, -1);
  static const int64_t chunks[] = {0, 1, 7, 300, INT64_MAX};
  static const int64_t firsts[] = {INT64_MAX - 1000, INT64_MIN};
  const int32_t zero = 0;
  for (int f = 0; f < 2; f++)
    for (int s = 0; s < 2; s++)
      for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
        const int64_t b = firsts[f];
        const kk_range_policy_t p = {sizeof p, b, b + 1000, chunks[k], s ? KK_SCHEDULE_DYNAMIC : KK_SCHEDULE_STATIC,
                                     NULL};
        a.base = b;
        for (int kind = 0; kind < 2; kind++) {
          OK(kk_deep_copy_fill(hits, &zero));
          if (kind == 0)
            OK(kk_parallel_for("ends", &p, KK_KERNEL(count_hits), KK_ARGS(a)));
          else {
            c = -1;
            OK(kk_parallel_scan("ends", &p, KK_KERNEL(scan_count), KK_ARGS(a), KK_RESULT(c)));
            ck_assert_int_eq(c, 1000);
          }
          download(h, hits);
          for (int i = 0; i < 1000; i++)
            ck_assert_msg(((int32_t *)kk_view_data(h))[i] == 1,
                          "%s over [%lld, +1000), chunk %lld, %s: index %d counted %d times",
                          kind ? "scan" : "for", (long long)b, (long long)chunks[k], s ? "dynamic" : "static", i,
                          ((int32_t *)kk_view_data(h))[i]);
        }
        c = -1;
        OK(kk_parallel_reduce("ends", &p, KK_KERNEL(count), KK_ARGS(z), KK_RESULT(c)));
        ck_assert_msg(c == 1000, "reduce over [%lld, +1000), chunk %lld, %s: %lld indices", (long long)b,
                      (long long)chunks[k], s ? "dynamic" : "static", (long long)c);
      }
  kk_view_release(h), kk_view_release(hits);
}
END_TEST

/* ---- every reducer on every type ------------------------------------------------------ */

/* Values are small integers, so every reference is exact in every type and
 * every order of combination. */
#define REDUCER_TEST(T)                                                                                    \
  START_TEST(reducers_##T) {                                                                               \
    const bool sgn = SG_##T;                                                                       \
    const int64_t n = sizeof(T) == 1 ? 40 : sizeof(T) == 2 ? 1000 : 100003;                               \
    kk_view_t *v = view1("v", KT_##T, n), *h = host_of(v);                                                 \
    T *p = kk_view_data(h);                                                                                \
    for (int64_t i = 0; i < n; i++)                                                                        \
      p[i] = (T)(sgn ? (int)((i * 7919 + 13) % 7) - 3 : (int)((i * 7919 + 13) % 7));                       \
    upload(v, h);                                                                                          \
    struct one_view a = {kk_view_bind(v)};                                                                 \
    T rs = 0, rmin = p[0], rmax = p[0];                                                                    \
    int64_t lmin = 0, lmax = 0;                                                                            \
    for (int64_t i = 0; i < n; i++) {                                                                      \
      rs = (T)(rs + p[i]);                                                                                 \
      if (p[i] < rmin)                                                                                     \
        rmin = p[i], lmin = i;                                                                             \
      if (p[i] > rmax)                                                                                     \
        rmax = p[i], lmax = i;                                                                             \
    }                                                                                                      \
    T s = 1, mn = 0, mx = 0;                                                                               \
    OK(kk_parallel_reduce("sum", KK_RANGE(0, n), KK_KERNEL(sum_##T), KK_ARGS(a), KK_RESULT(s)));           \
    ck_assert_msg(s == rs, #T " sum %g, expected %g", (double)s, (double)rs);                             \
    OK(kk_parallel_reduce("min", KK_RANGE(0, n), KK_KERNEL(min_##T), KK_ARGS(a), KK_RESULT(mn)));          \
    ck_assert_msg(mn == rmin, #T " min %g, expected %g", (double)mn, (double)rmin);                        \
    OK(kk_parallel_reduce("max", KK_RANGE(0, n), KK_KERNEL(max_##T), KK_ARGS(a), KK_RESULT(mx)));          \
    ck_assert_msg(mx == rmax, #T " max %g, expected %g", (double)mx, (double)rmax);                        \
    kk_minmax_##T mm;                                                                                      \
    memset(&mm, 0x5A, sizeof mm);                                                                          \
    OK(kk_parallel_reduce("minmax", KK_RANGE(0, n), KK_KERNEL(minmax_##T), KK_ARGS(a), KK_RESULT(mm)));    \
    ck_assert(mm.min_val == rmin && mm.max_val == rmax);                                                   \
    kk_valloc_##T ml, xl;                                                                                  \
    OK(kk_parallel_reduce("minloc", KK_RANGE(0, n), KK_KERNEL(minloc_##T), KK_ARGS(a), KK_RESULT(ml)));    \
    ck_assert_msg(ml.val == rmin && ml.loc == lmin, #T " minloc (%g, %lld), expected (%g, %lld)",           \
                  (double)ml.val, (long long)ml.loc, (double)rmin, (long long)lmin);                       \
    OK(kk_parallel_reduce("maxloc", KK_RANGE(0, n), KK_KERNEL(maxloc_##T), KK_ARGS(a), KK_RESULT(xl)));    \
    ck_assert_msg(xl.val == rmax && xl.loc == lmax, #T " maxloc (%g, %lld), expected (%g, %lld)",           \
                  (double)xl.val, (long long)xl.loc, (double)rmax, (long long)lmax);                       \
    kk_minmaxloc_##T mml;                                                                                  \
    OK(kk_parallel_reduce("mml", KK_RANGE(0, n), KK_KERNEL(minmaxloc_##T), KK_ARGS(a), KK_RESULT(mml)));   \
    ck_assert(mml.min_val == rmin && mml.min_loc == lmin && mml.max_val == rmax && mml.max_loc == lmax);   \
    /* on a sub-range the locations are absolute indices */                                                 \
    OK(kk_parallel_reduce("minloc", KK_RANGE(n / 2, n), KK_KERNEL(minloc_##T), KK_ARGS(a), KK_RESULT(ml)));\
    ck_assert(ml.loc >= n / 2 && p[ml.loc] == ml.val);                                                     \
    /* product: a few factors of 2 and -1, the rest 1 */                                                   \
    const int64_t np = 40;                                                                                 \
    T rp = 1;                                                                                              \
    for (int64_t i = 0; i < np; i++) {                                                                     \
      p[i] = (T)(i % 11 == 3 ? 2 : (sgn && i % 13 == 5) ? -1 : 1);                                         \
      rp = (T)(rp * p[i]);                                                                                 \
    }                                                                                                      \
    upload(v, h);                                                                                          \
    T pr = 0;                                                                                              \
    OK(kk_parallel_reduce("prod", KK_RANGE(0, np), KK_KERNEL(prod_##T), KK_ARGS(a), KK_RESULT(pr)));       \
    ck_assert_msg(pr == rp, #T " prod %g, expected %g", (double)pr, (double)rp);                           \
    /* logical and / or: all non-zero, then one zero; all zero, then one non-zero */                       \
    for (int64_t i = 0; i < n; i++)                                                                        \
      p[i] = (T)(1 + i % 3);                                                                               \
    upload(v, h);                                                                                          \
    T la = 0, lo = 0;                                                                                      \
    OK(kk_parallel_reduce("land", KK_RANGE(0, n), KK_KERNEL(land_##T), KK_ARGS(a), KK_RESULT(la)));        \
    ck_assert(la == 1);                                                                                    \
    OK(kk_parallel_reduce("lor", KK_RANGE(0, n), KK_KERNEL(lor_##T), KK_ARGS(a), KK_RESULT(lo)));          \
    ck_assert(lo == 1);                                                                                    \
    p[n / 2] = 0;                                                                                          \
    upload(v, h);                                                                                          \
    OK(kk_parallel_reduce("land", KK_RANGE(0, n), KK_KERNEL(land_##T), KK_ARGS(a), KK_RESULT(la)));        \
    ck_assert(la == 0);                                                                                    \
    memset(p, 0, (size_t)n * sizeof(T));                                                                   \
    upload(v, h);                                                                                          \
    OK(kk_parallel_reduce("lor", KK_RANGE(0, n), KK_KERNEL(lor_##T), KK_ARGS(a), KK_RESULT(lo)));          \
    ck_assert(lo == 0);                                                                                    \
    p[n - 1] = (T)5;                                                                                       \
    upload(v, h);                                                                                          \
    OK(kk_parallel_reduce("lor", KK_RANGE(0, n), KK_KERNEL(lor_##T), KK_ARGS(a), KK_RESULT(lo)));          \
    ck_assert(lo == 1);                                                                                    \
    kk_view_release(h), kk_view_release(v);                                                                \
  }                                                                                                        \
  END_TEST
CONF_TYPES(REDUCER_TEST)

#define BITS_TEST(T)                                                                                       \
  START_TEST(bit_reducers_##T) {                                                                           \
    const int64_t n = 1000;                                                                                \
    kk_view_t *v = view1("v", KT_##T, n), *h = host_of(v);                                                 \
    T *p = kk_view_data(h);                                                                                \
    for (int64_t i = 0; i < n; i++)                                                                        \
      p[i] = (T)(0x70 | (1 << (i % 4)));                                                                   \
    upload(v, h);                                                                                          \
    struct one_view a = {kk_view_bind(v)};                                                                 \
    T ba = 0, bo = 0;                                                                                      \
    OK(kk_parallel_reduce("band", KK_RANGE(0, n), KK_KERNEL(band_##T), KK_ARGS(a), KK_RESULT(ba)));        \
    OK(kk_parallel_reduce("bor", KK_RANGE(0, n), KK_KERNEL(bor_##T), KK_ARGS(a), KK_RESULT(bo)));          \
    ck_assert_msg(ba == (T)0x70 && bo == (T)0x7F, #T " band %llx bor %llx", (unsigned long long)ba,        \
                  (unsigned long long)bo);                                                                 \
    OK(kk_parallel_reduce("band", KK_RANGE(0, 0), KK_KERNEL(band_##T), KK_ARGS(a), KK_RESULT(ba)));        \
    ck_assert(ba == (T) ~(T)0);                                                                            \
    kk_view_release(h), kk_view_release(v);                                                                \
  }                                                                                                        \
  END_TEST
CONF_INT_TYPES(BITS_TEST)

/* ---- several reducers, custom reducers, results in views ------------------------------ */

static kk_view_t *doubles(int64_t n, double (*f)(int64_t)) {
  kk_view_t *v = view1("d", KK_DOUBLE, n), *h = host_of(v);
  double *p = kk_view_data(h);
  for (int64_t i = 0; i < n; i++)
    p[i] = f(i);
  upload(v, h);
  kk_view_release(h);
  return v;
}

static double wave(int64_t i) { return (double)((i * 37 + 11) % 101) - 50.0; }

START_TEST(several_reducers_in_one_launch) {
  const int64_t n = 200001;
  kk_view_t *v = doubles(n, wave);
  struct one_view a = {kk_view_bind(v)};
  double mn = 1e300, sum = 0, lv = 1e300;
  int64_t li = -1;
  for (int64_t i = 0; i < n; i++) {
    double x = wave(i);
    sum += x;
    if (x < mn)
      mn = x;
    if (x < lv)
      lv = x, li = i;
  }
  struct min_sum_loc r;
  memset(&r, 0xA5, sizeof r);
  OK(kk_parallel_reduce("msl", KK_RANGE(0, n), KK_KERNEL(min_sum_minloc), KK_ARGS(a), KK_RESULT(r)));
  ck_assert(r.mn == mn);
  ck_assert(r.sum == sum);
  ck_assert(r.loc.val == lv && r.loc.loc == li);
  const kk_reducer_info_t *info = KK_KERNEL(min_sum_minloc)->reducer;
  ck_assert_uint_eq(info->count, 3);
  ck_assert_uint_eq(info->part[0].op, KK_MIN);
  ck_assert_uint_eq(info->part[1].op, KK_SUM);
  ck_assert_uint_eq(info->part[2].op, KK_MINLOC);
  ck_assert_uint_eq(info->part[2].offset, offsetof(struct min_sum_loc, loc));
  ck_assert_uint_eq(info->part[1].type, KK_DOUBLE);
  kk_view_release(v);
}
END_TEST

START_TEST(custom_reducers) {
  const int64_t n = 50001;
  int64_t ext[2] = {n, 2};
  kk_view_t *v = NULL;
  OK(kk_view_alloc(&v, "cplx", KK_DOUBLE, 2, ext));
  kk_view_t *h = host_of(v);
  double re = 0, im = 0, best = -1;
  int64_t arg = -1;
  for (int64_t i = 0; i < n; i++) {
    double a = (double)((i * 13) % 29) - 14, b = (double)((i * 7) % 31) - 15;
    /* h is right-layout on host backends, left on GPUs: index it through strides */
    ((double *)kk_view_data(h))[i * kk_view_stride(h, 0) + 0 * kk_view_stride(h, 1)] = a;
    ((double *)kk_view_data(h))[i * kk_view_stride(h, 0) + 1 * kk_view_stride(h, 1)] = b;
    re += a, im += b;
    if (a * a + b * b > best)
      best = a * a + b * b, arg = i;
  }
  upload(v, h);
  struct one_view a = {kk_view_bind(v)};
  struct cplx_stats st;
  OK(kk_parallel_reduce("cstats", KK_RANGE(0, n), KK_KERNEL(complex_stats), KK_ARGS(a), KK_RESULT(st)));
  ck_assert(st.sum.re == re && st.sum.im == im);
  ck_assert(st.max_abs2 == best && st.argmax == arg);
  struct sum_and_stats ss;
  OK(kk_parallel_reduce("count+stats", KK_RANGE(0, n), KK_KERNEL(count_and_stats), KK_ARGS(a), KK_RESULT(ss)));
  ck_assert_int_eq(ss.n, n);
  ck_assert(ss.st.sum.re == re && ss.st.argmax == arg);
  ck_assert_uint_eq(KK_KERNEL(count_and_stats)->reducer->part[1].op, KK_CUSTOM);
  kk_view_release(h), kk_view_release(v);
}
END_TEST

START_TEST(reduce_into_a_view) {
  const int64_t n = 100000;
  kk_view_t *x = doubles(n, wave), *y = doubles(n, wave);
  struct two_views a = {kk_view_bind(x), kk_view_bind(y)};
  double ref = 0;
  for (int64_t i = 0; i < n; i++)
    ref += wave(i) * wave(i);
  kk_view_t *r = NULL;
  OK(kk_view_alloc(&r, "dot", KK_DOUBLE, 0, NULL));
  poison(r);
  OK(kk_parallel_reduce_view("dot", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(a), r));
  kk_view_t *hr = host_of(r);
  download(hr, r);
  ck_assert(*(double *)kk_view_data(hr) == ref);
  /* a result view of the wrong size is refused */
  kk_view_t *r2 = view1("two", KK_DOUBLE, 2);
  ck_assert_int_eq(kk_parallel_reduce_view("dot", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(a), r2),
                   KK_ERROR_KERNEL_MISMATCH);
  ck_assert_contains(kk_last_error(), "the result view 'two' has 16 bytes");
  kk_view_release(r2), kk_view_release(hr), kk_view_release(r), kk_view_release(x), kk_view_release(y);
}
END_TEST

/* ---- scans ---------------------------------------------------------------------------- */

START_TEST(scans) {
  static const int64_t sizes[] = {1, 2, 3, 17, 1000, 100003};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int64_t n = sizes[s];
    kk_view_t *x = view1("x", KK_INT64, n), *y = view1("y", KK_INT64, n);
    kk_view_t *hx = host_of(x), *hy = host_of(y);
    int64_t *px = kk_view_data(hx), *py = kk_view_data(hy);
    for (int64_t i = 0; i < n; i++)
      px[i] = (i * 31) % 9 - 4;
    upload(x, hx);
    struct two_views a = {kk_view_bind(x), kk_view_bind(y)};
    for (int incl = 0; incl < 2; incl++) {
      poison(y);
      int64_t total = -12345;
      OK(kk_parallel_scan("scan", KK_RANGE(0, n), incl ? KK_KERNEL(scan_incl_i64) : KK_KERNEL(scan_excl_i64),
                          KK_ARGS(a), KK_RESULT(total)));
      download(hy, y);
      int64_t run = 0;
      for (int64_t i = 0; i < n; i++) {
        int64_t want = incl ? run + px[i] : run;
        ck_assert_msg(py[i] == want, "%s scan n=%lld: y[%lld] = %lld, expected %lld", incl ? "inclusive" : "exclusive",
                      (long long)n, (long long)i, (long long)py[i], (long long)want);
        run += px[i];
      }
      ck_assert_int_eq(total, run);
    }
    /* without a total, and on a sub-range */
    poison(y);
    OK(kk_parallel_scan("scan", KK_RANGE(n / 2, n), KK_KERNEL(scan_incl_i64), KK_ARGS(a), NULL, 0));
    download(hy, y);
    int64_t run = 0;
    for (int64_t i = n / 2; i < n; i++) {
      run += px[i];
      ck_assert_int_eq(py[i], run);
    }
    kk_view_release(hx), kk_view_release(hy), kk_view_release(x), kk_view_release(y);
  }
}
END_TEST

START_TEST(scan_double_and_custom) {
  const int64_t n = 77777;
  kk_view_t *x = doubles(n, wave), *y = view1("y", KK_DOUBLE, n), *hy = host_of(y);
  struct two_views a = {kk_view_bind(x), kk_view_bind(y)};
  double total = 0;
  OK(kk_parallel_scan("sd", KK_RANGE(0, n), KK_KERNEL(scan_excl_double), KK_ARGS(a), KK_RESULT(total)));
  download(hy, y);
  double run = 0;
  const double *py = kk_view_data(hy);
  for (int64_t i = 0; i < n; i++) {
    ck_assert(py[i] == run);
    run += wave(i);
  }
  ck_assert(total == run);
  double mx = 0;
  OK(kk_parallel_scan("pmax", KK_RANGE(0, n), KK_KERNEL(prefix_max), KK_ARGS(a), KK_RESULT(mx)));
  download(hy, y);
  double m = -1e300;
  for (int64_t i = 0; i < n; i++) {
    if (wave(i) > m)
      m = wave(i);
    ck_assert(py[i] == m);
  }
  ck_assert(mx == m);
  kk_view_release(hy), kk_view_release(x), kk_view_release(y);
}
END_TEST

/* ---- layouts and ranks ---------------------------------------------------------------------- */

static kk_view_t *view2(const char *label, int64_t n0, int64_t n1, kk_layout_t layout) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = KK_DOUBLE;
  s.rank = 2;
  s.extents[0] = n0;
  s.extents[1] = n1;
  s.layout = layout;
  kk_view_t *v = NULL;
  OK(kk_view_create(&s, &v));
  return v;
}

/* Fills a rank-2 view of any layout from the host: value f(i, j). */
static void fill2(kk_view_t *v, double base) {
  kk_view_t *h = host_of(v);
  double *p = kk_view_data(h);
  for (int64_t i = 0; i < kk_view_extent(h, 0); i++)
    for (int64_t j = 0; j < kk_view_extent(h, 1); j++)
      p[i * kk_view_stride(h, 0) + j * kk_view_stride(h, 1)] = base + (double)(i * 10 + j);
  upload(v, h);
  kk_view_release(h);
}

START_TEST(layouts_right_left_strided) {
  const int64_t n0 = 37, n1 = 5;
  kk_view_t *r = view2("r", n0, n1, KK_LAYOUT_RIGHT), *l = view2("l", n0, n1, KK_LAYOUT_LEFT);
  /* strided: every other column of a wider right view */
  kk_view_t *wide = view2("wide", n0, 2 * n1, KK_LAYOUT_RIGHT), *s = NULL;
  ck_assert_int_eq(kk_view_stride(r, 1), 1);
  ck_assert_int_eq(kk_view_stride(r, 0), n1);
  ck_assert_int_eq(kk_view_stride(l, 0), 1);
  ck_assert_int_eq(kk_view_stride(l, 1), n0);
  fill2(r, 0.0);
  fill2(l, 0.0);
  fill2(wide, 0.0);
  kk_view_spec_t ss = KK_VIEW_SPEC_INIT;
  ss.label = "s";
  ss.type = KK_DOUBLE;
  ss.rank = 2;
  ss.extents[0] = n0;
  ss.extents[1] = n1;
  ss.layout = KK_LAYOUT_STRIDE;
  ss.strides[0] = kk_view_stride(wide, 0);
  ss.strides[1] = kk_view_stride(wide, 1) * 2;
  ss.space = kk_view_space(wide);
  OK(kk_view_wrap(&ss, kk_view_data(wide), &s));
  ck_assert(!kk_view_is_managed(s));
  kk_view_t *out = view2("out", n0, n1, KK_LAYOUT_DEFAULT);
  poison(out);
  struct layout_args a = {kk_view_bind_right(r), kk_view_bind_left(l), kk_view_bind_strided(s), kk_view_bind(out),
                          n0, n1};
  OK(kk_parallel_for("mix", KK_RANGE(0, n0), KK_KERNEL(mix_layouts), KK_ARGS(a)));
  kk_view_t *h = host_of(out);
  download(h, out);
  const double *p = kk_view_data(h);
  for (int64_t i = 0; i < n0; i++)
    for (int64_t j = 0; j < n1; j++) {
      double want = 1000.0 * (i * 10 + j) + 100.0 * (i * 10 + j) + (double)(i * 10 + 2 * j);
      double got = p[i * kk_view_stride(h, 0) + j * kk_view_stride(h, 1)];
      ck_assert_msg(got == want, "out(%lld,%lld) = %g, expected %g", (long long)i, (long long)j, got, want);
    }
  kk_view_release(h), kk_view_release(out), kk_view_release(s), kk_view_release(wide);
  kk_view_release(l), kk_view_release(r);
}
END_TEST

/* A view of the wrong layout bound to a default-layout parameter is refused at bind
 * and at the next launch, never run with the wrong strides. */
START_TEST(layout_mismatch_refused) {
  kk_layout_t other = kk_space_default_layout(kk_space_default()) == KK_LAYOUT_RIGHT ? KK_LAYOUT_LEFT : KK_LAYOUT_RIGHT;
  kk_view_t *bad = view2("bad", 4, 3, other);
  kk_view_t *ok = view2("ok", 4, 3, KK_LAYOUT_DEFAULT);
  struct layout_args a = {kk_view_bind_right(ok), kk_view_bind_left(ok), kk_view_bind_strided(ok), kk_view_bind(ok),
                          4, 3};
  /* `ok` has the default layout, so one of its right/left binds above failed */
  kk_clear_error();
  ck_assert_int_eq(kk_parallel_for("mix", KK_RANGE(0, 4), KK_KERNEL(mix_layouts), KK_ARGS(a)),
                   KK_ERROR_LAYOUT_MISMATCH);
  ck_assert_contains(kk_last_error(), "an earlier view binding failed");
  kk_view out = kk_view_bind(bad);
  ck_assert_ptr_null(out.d.data);
  ck_assert_int_eq(kk_last_status(), KK_ERROR_LAYOUT_MISMATCH);
  ck_assert_contains(kk_last_error(), "view 'bad' has layout");
  ck_assert_contains(kk_last_error(), "kernel parameter expects layout");
  struct one_view ov = {out};
  double s = 0;
  ck_assert_int_eq(kk_parallel_reduce("sum", KK_RANGE(0, 4), KK_KERNEL(sum_double), KK_ARGS(ov), KK_RESULT(s)),
                   KK_ERROR_LAYOUT_MISMATCH);
  ck_assert_contains(kk_last_error(), "kk_parallel_reduce 'sum' refused");
  /* the error is consumed: the next correct launch runs */
  kk_view_t *v1 = view1("v1", KK_DOUBLE, 4);
  ov.v = kk_view_bind(v1);
  OK(kk_parallel_reduce("sum", KK_RANGE(0, 4), KK_KERNEL(sum_double), KK_ARGS(ov), KK_RESULT(s)));
  ck_assert(s == 0.0);
  kk_view_release(v1), kk_view_release(bad), kk_view_release(ok);
}
END_TEST

START_TEST(ranks_one_to_eight) {
  for (int rank = 1; rank <= 8; rank++) {
    kk_view_spec_t s = KK_VIEW_SPEC_INIT;
    s.label = "r";
    s.type = KK_DOUBLE;
    s.rank = rank;
    s.extents[0] = 5;
    for (int d = 1; d < rank; d++)
      s.extents[d] = d % 2 ? 3 : 2;
    kk_view_t *v = NULL, *h;
    OK(kk_view_create(&s, &v));
    ck_assert_int_eq(kk_view_rank(v), rank);
    poison(v);
    struct rank_args a = {kk_view_bind(v), rank};
    OK(kk_parallel_for("fill_rank", KK_RANGE(0, 5), KK_KERNEL(fill_rank), KK_ARGS(a)));
    h = host_of(v);
    download(h, v);
    const double *p = kk_view_data(h);
    static const double w[8] = {1, 20, 300, 4000, 50000, 600000, 7000000, 80000000};
    size_t total = kk_view_size(h);
    ck_assert_uint_eq(total, kk_view_span(h));
    for (size_t flat = 0; flat < total; flat++) {
      /* decompose flat in right order into indices, then address through strides */
      int64_t idx[8], rem = (int64_t)flat, off = 0;
      double want = 0;
      for (int d = rank - 1; d >= 0; d--) {
        idx[d] = rem % kk_view_extent(h, d);
        rem /= kk_view_extent(h, d);
      }
      for (int d = 0; d < rank; d++) {
        off += idx[d] * kk_view_stride(h, d);
        want += w[d] * (double)idx[d];
      }
      ck_assert_msg(p[off] == want, "rank %d element %zu = %g, expected %g", rank, flat, p[off], want);
    }
    kk_view_release(h), kk_view_release(v);
  }
  kk_view_t *z = NULL, *hz;
  OK(kk_view_alloc(&z, "scalar", KK_DOUBLE, 0, NULL));
  ck_assert_int_eq(kk_view_size(z), 1);
  struct one_view a0 = {kk_view_bind(z)};
  OK(kk_parallel_for("scalar", KK_RANGE(3, 4), KK_KERNEL(set_scalar), KK_ARGS(a0)));
  hz = host_of(z);
  download(hz, z);
  ck_assert(*(double *)kk_view_data(hz) == 45.0);
  kk_view_release(hz), kk_view_release(z);
}
END_TEST

/* ---- views ------------------------------------------------------------------------------- */

START_TEST(view_create_and_query) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = "grid";
  s.type = KK_FLOAT;
  s.rank = 3;
  s.extents[0] = 4, s.extents[1] = 5, s.extents[2] = 6;
  s.layout = KK_LAYOUT_RIGHT;
  kk_view_t *v = NULL;
  OK(kk_view_create(&s, &v));
  ck_assert_str_eq(kk_view_label(v), "grid");
  ck_assert_int_eq(kk_view_type(v), KK_FLOAT);
  ck_assert_uint_eq(kk_view_elem_size(v), 4);
  ck_assert_int_eq(kk_view_extent(v, 2), 6);
  ck_assert_int_eq(kk_view_extent(v, 5), 1);
  ck_assert_int_eq(kk_view_stride(v, 0), 30);
  ck_assert_int_eq(kk_view_stride(v, 1), 6);
  ck_assert_int_eq(kk_view_stride(v, 2), 1);
  ck_assert_uint_eq(kk_view_size(v), 120);
  ck_assert_uint_eq(kk_view_span(v), 120);
  ck_assert(kk_view_span_is_contiguous(v));
  ck_assert_int_eq(kk_view_layout(v), KK_LAYOUT_RIGHT);
  ck_assert_ptr_eq(kk_view_space(v), kk_space_default());
  ck_assert(kk_view_is_managed(v));
  /* zero-initialized by default */
  kk_view_t *h = host_of(v);
  download(h, v);
  for (int i = 0; i < 120; i++)
    ck_assert(((float *)kk_view_data(h))[i] == 0.0f);
  kk_view_release(h);
  /* reference counting */
  ck_assert_int_eq(kk_view_use_count(v), 1);
  ck_assert_ptr_eq(kk_view_retain(v), v);
  ck_assert_int_eq(kk_view_use_count(v), 2);
  kk_view_release(v);
  ck_assert_int_eq(kk_view_use_count(v), 1);
  /* a custom element type */
  s.type = KK_TYPE_CUSTOM;
  s.elem_size = 24;
  s.rank = 1;
  s.layout = KK_LAYOUT_DEFAULT;
  kk_view_t *c = NULL;
  OK(kk_view_create(&s, &c));
  ck_assert_uint_eq(kk_view_elem_size(c), 24);
  kk_view_release(c);
  c = NULL;
  s.elem_size = 0;
  ck_assert_int_eq(kk_view_create(&s, &c), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "KK_TYPE_CUSTOM view needs elem_size");
  s.type = KK_DOUBLE;
  s.rank = 9;
  ck_assert_int_eq(kk_view_create(&s, &c), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "rank 9 is outside 0..8");
  s.rank = 1;
  s.extents[0] = -1;
  ck_assert_int_eq(kk_view_create(&s, &c), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "extent 0 is negative");
  kk_view_release(v);
}
END_TEST

START_TEST(view_allocation_failure_names_label_size_space) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = "enormous";
  s.type = KK_DOUBLE;
  s.rank = 2;
  s.extents[0] = (int64_t)1 << 30;
  s.extents[1] = (int64_t)1 << 29;
  kk_view_t *v = (kk_view_t *)&s;
  ck_assert_int_eq(kk_view_create(&s, &v), KK_ERROR_OUT_OF_MEMORY);
  ck_assert_ptr_null(v);
  ck_assert_contains(kk_last_error(), "'enormous'");
  ck_assert_contains(kk_last_error(), "4611686018427387904 bytes");
  ck_assert_contains(kk_last_error(), kk_space_name(kk_space_default()));
}
END_TEST

START_TEST(subviews) {
  kk_view_t *v = view2("m", 6, 8, KK_LAYOUT_RIGHT);
  fill2(v, 0.0);
  kk_view_t *h = host_of(v);
  download(h, v);
  kk_view_t *row = NULL, *col = NULL, *blk = NULL, *elt = NULL;
  OK(kk_view_subview(h, (kk_slice_t[]){KK_IDX(2), KK_ALL}, &row));
  OK(kk_view_subview(h, (kk_slice_t[]){KK_ALL, KK_IDX(3)}, &col));
  OK(kk_view_subview(h, (kk_slice_t[]){KK_SPAN(1, 4), KK_SPAN(2, 7)}, &blk));
  OK(kk_view_subview(h, (kk_slice_t[]){KK_IDX(5), KK_IDX(7)}, &elt));
  ck_assert_int_eq(kk_view_rank(row), 1);
  ck_assert_int_eq(kk_view_extent(row, 0), 8);
  ck_assert_int_eq(kk_view_layout(row), KK_LAYOUT_RIGHT);
  ck_assert(((double *)kk_view_data(row))[5] == 25.0);
  ck_assert_int_eq(kk_view_layout(col), KK_LAYOUT_STRIDE);
  ck_assert_int_eq(kk_view_stride(col, 0), 8);
  ck_assert(((double *)kk_view_data(col))[4 * 8] == 43.0);
  ck_assert_int_eq(kk_view_layout(blk), KK_LAYOUT_RIGHT);
  ck_assert_int_eq(kk_view_extent(blk, 0), 3);
  ck_assert_int_eq(kk_view_extent(blk, 1), 5);
  ck_assert_int_eq(kk_view_stride(blk, 0), 8);
  ck_assert(!kk_view_span_is_contiguous(blk));
  ck_assert(((double *)kk_view_data(blk))[0] == 12.0);
  ck_assert_int_eq(kk_view_rank(elt), 0);
  ck_assert(*(double *)kk_view_data(elt) == 57.0);
  /* subviews keep the memory alive */
  kk_view_t *keep = kk_view_retain(col);
  char hlabel[64];
  snprintf(hlabel, sizeof hlabel, "%s", kk_view_label(h));
  kk_view_release(h);
  ck_assert(((double *)kk_view_data(keep))[8] == 13.0);
  ck_assert_str_eq(kk_view_label(keep), hlabel);
  /* out of range */
  kk_view_t *bad = NULL;
  ck_assert_int_eq(kk_view_subview(v, (kk_slice_t[]){KK_SPAN(2, 7), KK_ALL}, &bad), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "slice 0 [2, 7) is outside extent 6");
  ck_assert_int_eq(kk_view_subview(v, (kk_slice_t[]){KK_ALL, KK_IDX(8)}, &bad), KK_ERROR_INVALID_ARGUMENT);
  kk_view_release(keep), kk_view_release(col), kk_view_release(row), kk_view_release(blk), kk_view_release(elt);
  /* a strided column bound to a kernel: the sum of column 3 of v */
  kk_view_t *dcol = NULL;
  OK(kk_view_subview(v, (kk_slice_t[]){KK_ALL, KK_IDX(3)}, &dcol));
  struct one_view bad_bind = {kk_view_bind(dcol)}; /* strided into default: refused */
  double s = 0;
  ck_assert_int_eq(kk_parallel_reduce("sum", KK_RANGE(0, 6), KK_KERNEL(sum_double), KK_ARGS(bad_bind), KK_RESULT(s)),
                   KK_ERROR_LAYOUT_MISMATCH);
  kk_view_release(dcol), kk_view_release(v);
}
END_TEST

START_TEST(deep_copies_fills_mirrors) {
  kk_view_t *a = view2("a", 9, 7, KK_LAYOUT_DEFAULT), *b = view2("b", 9, 7, KK_LAYOUT_DEFAULT);
  fill2(a, 5.0);
  poison(b);
  OK(kk_deep_copy(b, a));
  kk_view_t *hb = NULL;
  OK(kk_view_create_mirror(b, &hb)); /* always a new host view */
  ck_assert_ptr_ne(hb, b);
  ck_assert_str_eq(kk_view_label(hb), "b_mirror");
  ck_assert_ptr_eq(kk_view_space(hb), kk_space_host());
  OK(kk_deep_copy(hb, b));
  for (int64_t i = 0; i < 9; i++)
    for (int64_t j = 0; j < 7; j++)
      ck_assert(((double *)kk_view_data(hb))[i * kk_view_stride(hb, 0) + j * kk_view_stride(hb, 1)] ==
                5.0 + (double)(i * 10 + j));
  /* mirror_view aliases a host-accessible view */
  kk_view_t *mv = NULL;
  OK(kk_view_create_mirror_view(hb, &mv));
  ck_assert_ptr_eq(mv, hb);
  kk_view_release(mv);
  /* copies between sub-blocks (non-contiguous on both sides) */
  kk_view_t *sa = NULL, *sb = NULL;
  OK(kk_view_subview(a, (kk_slice_t[]){KK_SPAN(2, 5), KK_SPAN(1, 4)}, &sa));
  OK(kk_view_subview(b, (kk_slice_t[]){KK_SPAN(6, 9), KK_SPAN(3, 6)}, &sb));
  OK(kk_deep_copy(sb, sa));
  OK(kk_deep_copy(hb, b));
  const double *p = kk_view_data(hb);
  ck_assert(p[7 * kk_view_stride(hb, 0) + 4 * kk_view_stride(hb, 1)] == 5.0 + 32.0);
  ck_assert(p[6 * kk_view_stride(hb, 0) + 2 * kk_view_stride(hb, 1)] == 5.0 + 62.0); /* untouched */
  /* fills: whole and sub-block */
  double seven = 7.0;
  OK(kk_deep_copy_fill(sb, &seven));
  OK(kk_deep_copy(hb, b));
  ck_assert(p[8 * kk_view_stride(hb, 0) + 5 * kk_view_stride(hb, 1)] == 7.0);
  ck_assert(p[8 * kk_view_stride(hb, 0) + 6 * kk_view_stride(hb, 1)] == 5.0 + 86.0);
  int16_t pat = 0x1234;
  kk_view_t *s16 = view1("s16", KK_INT16, 1001), *h16 = host_of(s16);
  OK(kk_deep_copy_fill(s16, &pat));
  download(h16, s16);
  for (int i = 0; i < 1001; i++)
    ck_assert_int_eq(((int16_t *)kk_view_data(h16))[i], 0x1234);
  /* shape and layout mismatches are errors */
  kk_view_t *c = view2("c", 9, 6, KK_LAYOUT_DEFAULT);
  ck_assert_int_eq(kk_deep_copy(c, a), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "views 'c' and 'a' differ in shape: (9,6) x 8 bytes vs (9,7) x 8 bytes");
  kk_layout_t other = kk_view_layout(a) == KK_LAYOUT_RIGHT ? KK_LAYOUT_LEFT : KK_LAYOUT_RIGHT;
  kk_view_t *d = view2("d", 9, 7, other); /* another layout: copied (deep_copy_between_layouts) */
  OK(kk_deep_copy(d, a));
  /* asynchronous forms on an instance */
  kk_instance_t *inst = NULL;
  OK(kk_instance_create(NULL, &inst));
  OK(kk_deep_copy_fill_async(inst, b, &seven));
  OK(kk_deep_copy_async(inst, hb, b));
  OK(kk_instance_fence(inst));
  ck_assert(p[0] == 7.0 && p[8 * kk_view_stride(hb, 0) + 6 * kk_view_stride(hb, 1)] == 7.0);
  OK(kk_instance_destroy(inst));
  kk_view_release(d), kk_view_release(c), kk_view_release(h16), kk_view_release(s16);
  kk_view_release(sa), kk_view_release(sb), kk_view_release(hb), kk_view_release(a), kk_view_release(b);
}
END_TEST

/* ---- deep copies between layouts ---------------------------------------------------------- */

/* A view of `rank` dimensions of `type` in `space` (NULL: the default space);
 * KK_LAYOUT_STRIDE gets strides with gaps and no unit-stride dimension (odd
 * dimensions first, each stride one more than compact). */
static kk_view_t *view_n(const char *label, kk_type_t type, int rank, const int64_t *ext, kk_layout_t layout,
                         kk_space_t *space) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = type;
  s.rank = rank;
  s.layout = layout;
  s.space = space;
  memcpy(s.extents, ext, (size_t)rank * sizeof *ext);
  if (layout == KK_LAYOUT_STRIDE) {
    int64_t cur = 2;
    for (int pass = 1; pass >= 0; pass--)
      for (int k = pass; k < rank; k += 2)
        s.strides[k] = cur, cur = cur * ext[k] + 1;
  }
  kk_view_t *v = NULL;
  OK(kk_view_create(&s, &v));
  return v;
}

/* Element `code` in the view's type, at p. */
static void put_code(void *p, kk_type_t t, int64_t code) {
  switch (t) {
  case KK_INT16: *(int16_t *)p = (int16_t)code; break;
  case KK_INT32: *(int32_t *)p = (int32_t)code; break;
  case KK_COMPLEX_DOUBLE: ((double *)p)[0] = (double)code, ((double *)p)[1] = -(double)code; break;
  default: *(double *)p = (double)code;
  }
}

static bool is_code(const void *p, kk_type_t t, int64_t code) {
  switch (t) {
  case KK_INT16: return *(const int16_t *)p == (int16_t)code;
  case KK_INT32: return *(const int32_t *)p == (int32_t)code;
  case KK_COMPLEX_DOUBLE: return ((const double *)p)[0] == (double)code && ((const double *)p)[1] == -(double)code;
  default: return *(const double *)p == (double)code;
  }
}

/* Fills every element of a host view with its code (1 + the index's position
 * in row-major order), or counts the elements that differ from it. */
static int check_or_fill(kk_view_t *h, bool fill) {
  int rank = kk_view_rank(h);
  size_t e = kk_view_elem_size(h);
  int64_t idx[KK_MAX_RANK] = {0}, n = (int64_t)kk_view_size(h), bad = 0;
  for (int64_t code = 1; code <= n; code++) {
    int64_t off = 0;
    for (int k = 0; k < rank; k++)
      off += idx[k] * kk_view_stride(h, k);
    char *p = (char *)kk_view_data(h) + off * (int64_t)e;
    if (fill)
      put_code(p, kk_view_type(h), code);
    else if (!is_code(p, kk_view_type(h), code))
      bad++;
    for (int k = rank - 1; k >= 0 && ++idx[k] == kk_view_extent(h, k); k--)
      idx[k] = 0;
  }
  return (int)bad;
}

START_TEST(deep_copy_between_layouts) {
  const kk_type_t types[] = {KK_DOUBLE, KK_INT32, KK_COMPLEX_DOUBLE, KK_INT16};
  kk_instance_t *inst = NULL;
  OK(kk_instance_create(NULL, &inst));
  for (int rank = 1; rank <= 8; rank++) {
    int64_t ext[KK_MAX_RANK];
    for (int k = 0; k < rank; k++)
      ext[k] = rank == 1 ? 1000 : 2 + (k % 2);
    kk_type_t t = types[rank % 4];
    /* host right -> device left -> device strided -> device right -> host left and host strided */
    kk_view_t *hr = view_n("hr", t, rank, ext, KK_LAYOUT_RIGHT, kk_space_host());
    kk_view_t *dl = view_n("dl", t, rank, ext, KK_LAYOUT_LEFT, NULL);
    kk_view_t *ds = view_n("ds", t, rank, ext, KK_LAYOUT_STRIDE, NULL);
    kk_view_t *dr = view_n("dr", t, rank, ext, KK_LAYOUT_RIGHT, NULL);
    kk_view_t *hl = view_n("hl", t, rank, ext, KK_LAYOUT_LEFT, kk_space_host());
    kk_view_t *hs = view_n("hs", t, rank, ext, KK_LAYOUT_STRIDE, kk_space_host());
    check_or_fill(hr, true);
    poison(dl), poison(ds), poison(dr), poison(hl);
    OK(kk_deep_copy(dl, hr));
    OK(kk_deep_copy(ds, dl));
    if (rank % 2)
      OK(kk_deep_copy(dr, ds));
    else
      OK(kk_deep_copy_async(inst, dr, ds)), OK(kk_instance_fence(inst));
    OK(kk_deep_copy(hl, dr));
    OK(kk_deep_copy(hs, dr));
    ck_assert_msg(check_or_fill(hl, false) == 0, "rank %d (%s): host left copy differs", rank, kk_type_name(t));
    ck_assert_msg(check_or_fill(hs, false) == 0, "rank %d (%s): host strided copy differs", rank, kk_type_name(t));
    /* the strided view's gaps (created zero) are untouched */
    size_t e = kk_view_elem_size(hs), span = kk_view_span(hs), nonzero = 0;
    const unsigned char *bytes = kk_view_data(hs);
    for (size_t i = 0; i < span; i++) {
      bool z = true;
      for (size_t j = 0; j < e; j++)
        z = z && bytes[i * e + j] == 0;
      nonzero += !z;
    }
    ck_assert_msg(span > kk_view_size(hs) && nonzero == kk_view_size(hs),
                  "rank %d: %zu nonzero elements in a span of %zu holding %zu", rank, nonzero, span, kk_view_size(hs));
    kk_view_release(hr), kk_view_release(dl), kk_view_release(ds), kk_view_release(dr), kk_view_release(hl),
        kk_view_release(hs);
  }
  /* a column of a right matrix into a vector and back into the other column */
  kk_view_t *m = view2("m", 300, 2, KK_LAYOUT_RIGHT), *col = NULL, *col1 = NULL;
  fill2(m, 1.0);
  kk_view_t *vec = view_n("vec", KK_DOUBLE, 1, (int64_t[]){300}, KK_LAYOUT_RIGHT, NULL);
  OK(kk_view_subview(m, (kk_slice_t[]){KK_ALL, KK_IDX(0)}, &col));
  OK(kk_view_subview(m, (kk_slice_t[]){KK_ALL, KK_IDX(1)}, &col1));
  OK(kk_deep_copy(vec, col));
  OK(kk_deep_copy(col1, vec));
  kk_view_t *hm = NULL;
  OK(kk_view_create_mirror(m, &hm));
  OK(kk_deep_copy(hm, m));
  for (int64_t i = 0; i < 300; i++)
    ck_assert(((double *)kk_view_data(hm))[i * 2 + 1] == 1.0 + (double)(i * 10));
  kk_view_release(hm), kk_view_release(col), kk_view_release(col1), kk_view_release(vec), kk_view_release(m);
  /* element types still have to agree */
  kk_view_t *a = view2("a", 3, 4, KK_LAYOUT_LEFT), *b = view_n("b", KK_INT32, 2, (int64_t[]){3, 4}, KK_LAYOUT_RIGHT, NULL);
  ck_assert_int_eq(kk_deep_copy(b, a), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "differ in element type");
  kk_view_release(a), kk_view_release(b);
  OK(kk_instance_destroy(inst));
}
END_TEST

/* A view of element size `e` (KK_INT8, KK_INT32, KK_DOUBLE, KK_COMPLEX_DOUBLE
 * for 1, 4, 8, 16; KK_TYPE_CUSTOM for any other size) in `layout`; for
 * KK_LAYOUT_STRIDE a view of the compact left view of extents ext + 1 with
 * every stride one more than compact there (gaps, no unit stride). */
static kk_view_t *view_e(const char *label, size_t e, int rank, const int64_t *ext, kk_layout_t layout,
                         kk_space_t *space) {
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = label;
  s.type = e == 1 ? KK_INT8 : e == 4 ? KK_INT32 : e == 8 ? KK_DOUBLE : e == 16 ? KK_COMPLEX_DOUBLE : KK_TYPE_CUSTOM;
  s.elem_size = s.type == KK_TYPE_CUSTOM ? e : 0;
  s.rank = rank;
  s.layout = layout;
  s.space = space;
  memcpy(s.extents, ext, (size_t)rank * sizeof *ext);
  if (layout == KK_LAYOUT_STRIDE)
    for (int k = 0, cur = 2; k < rank; k++)
      s.strides[k] = cur, cur = cur * (int)(ext[k] + 1);
  kk_view_t *v = NULL;
  OK(kk_view_create(&s, &v));
  return v;
}

/* Byte j of the element at row-major position i, never 0 nor 0xA5. */
static unsigned char remap_byte(int64_t i, size_t j) {
  unsigned char b = (unsigned char)((uint64_t)(i * 131 + (int64_t)j * 17 + (i >> 8) * 7) % 251 + 1);
  return b == 0xA5 ? 0x5A : b;
}

/* Writes every element of a host view (fill) or counts those that differ. */
static int64_t remap_fill_or_check(kk_view_t *h, bool fill) {
  int rank = kk_view_rank(h);
  size_t e = kk_view_elem_size(h);
  int64_t idx[KK_MAX_RANK] = {0}, n = (int64_t)kk_view_size(h), bad = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t off = 0;
    for (int k = 0; k < rank; k++)
      off += idx[k] * kk_view_stride(h, k);
    unsigned char *p = (unsigned char *)kk_view_data(h) + off * (int64_t)e;
    for (size_t j = 0; j < e; j++) {
      if (fill)
        p[j] = remap_byte(i, j);
      else if (p[j] != remap_byte(i, j)) {
        bad++;
        break;
      }
    }
    for (int k = rank - 1; k >= 0 && ++idx[k] == kk_view_extent(h, k); k--)
      idx[k] = 0;
  }
  return bad;
}

/* Copies between layouts of every element size the tiled remap specializes
 * (1, 2, 4, 8, 16) and one it does not (12), extents that are no multiple of a
 * tile, ranks 2, 3 and 5, zero extents; host -> default space -> default
 * space -> host, so that on a device backend both the transfers and the
 * remaps in device memory run.  The views are large enough for the host
 * backends' threads (main sets KK_REMAP_PARALLEL_MIN low) and small enough
 * for one thread, depending on the shape. */
START_TEST(deep_copy_remap_tiles) {
  static const size_t sizes[] = {1, 2, 4, 8, 16, 12};
  static const struct {
    int rank;
    int64_t ext[5];
  } shapes[] = {{2, {67, 45}}, {2, {1, 300}}, {2, {129, 3}}, {3, {9, 70, 33}}, {5, {3, 5, 2, 7, 4}},
                {2, {0, 45}}, {3, {4, 0, 5}}, {2, {5, 7}}};
  static const kk_layout_t from[] = {KK_LAYOUT_RIGHT, KK_LAYOUT_LEFT, KK_LAYOUT_STRIDE};
  kk_instance_t *inst = NULL;
  OK(kk_instance_create(NULL, &inst));
  for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
      for (size_t f = 0; f < sizeof from / sizeof *from; f++) {
        const size_t e = sizes[z];
        const int rank = shapes[sh].rank;
        const int64_t *ext = shapes[sh].ext;
        const kk_layout_t a = from[f], b = from[(f + 1) % 3], c = from[(f + 2) % 3];
        kk_view_t *h = view_e("h", e, rank, ext, a, kk_space_host());
        kk_view_t *d1 = view_e("d1", e, rank, ext, b, NULL), *d2 = view_e("d2", e, rank, ext, c, NULL);
        kk_view_t *back = view_e("back", e, rank, ext, a == KK_LAYOUT_LEFT ? KK_LAYOUT_RIGHT : KK_LAYOUT_LEFT,
                                 kk_space_host());
        remap_fill_or_check(h, true);
        poison(d1), poison(d2), poison(back);
        OK(kk_deep_copy(d1, h));
        if (sh % 2)
          OK(kk_deep_copy_async(inst, d2, d1)), OK(kk_instance_fence(inst));
        else
          OK(kk_deep_copy(d2, d1));
        OK(kk_deep_copy(back, d2));
        int64_t bad = remap_fill_or_check(back, false);
        ck_assert_msg(bad == 0, "element size %zu, rank %d (%lld x %lld ...), %d -> %d -> %d -> host: %lld of %zu differ",
                      e, rank, (long long)ext[0], (long long)ext[1], (int)a, (int)b, (int)c, (long long)bad,
                      kk_view_size(back));
        kk_view_release(h), kk_view_release(d1), kk_view_release(d2), kk_view_release(back);
      }
  /* a strided destination keeps its gaps: the 0xA5 poison between elements */
  const int64_t ext[2] = {33, 65};
  kk_view_t *h = view_e("h", 8, 2, ext, KK_LAYOUT_LEFT, kk_space_host());
  kk_view_t *hs = view_e("hs", 8, 2, ext, KK_LAYOUT_STRIDE, kk_space_host());
  remap_fill_or_check(h, true);
  memset(kk_view_data(hs), 0xA5, kk_view_span(hs) * 8);
  OK(kk_deep_copy(hs, h));
  ck_assert(remap_fill_or_check(hs, false) == 0);
  size_t untouched = 0;
  for (size_t i = 0; i < kk_view_span(hs) * 8; i++)
    untouched += ((unsigned char *)kk_view_data(hs))[i] == 0xA5;
  ck_assert_uint_eq(untouched, (kk_view_span(hs) - kk_view_size(hs)) * 8);
  kk_view_release(h), kk_view_release(hs);
  OK(kk_instance_destroy(inst));
}
END_TEST

/* Elements of host view h (compact) that differ from element
 * base + sum(i[k] * pstr[k]) of remap_byte's row-major numbering. */
static int64_t remap_check_at(kk_view_t *h, int64_t base, const int64_t *pstr) {
  int rank = kk_view_rank(h);
  size_t e = kk_view_elem_size(h);
  int64_t idx[KK_MAX_RANK] = {0}, n = (int64_t)kk_view_size(h), bad = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t off = 0, pos = base;
    for (int k = 0; k < rank; k++)
      off += idx[k] * kk_view_stride(h, k), pos += idx[k] * pstr[k];
    const unsigned char *p = (const unsigned char *)kk_view_data(h) + off * (int64_t)e;
    for (size_t j = 0; j < e; j++)
      if (p[j] != remap_byte(pos, j)) {
        bad++;
        break;
      }
    for (int k = rank - 1; k >= 0 && ++idx[k] == kk_view_extent(h, k); k--)
      idx[k] = 0;
  }
  return bad;
}

/* Copies between layouts whose sides are subviews of a device view: a 2-D
 * window of a 3-D LayoutRight view (an offset that is no multiple of the
 * widest word, for the odd element sizes) into a LayoutLeft view; the same
 * window into a window of a larger LayoutLeft view, whose gaps must keep
 * their poison; a column (rank 1, stride 41) into a contiguous view; a
 * strided window of a host view into a device LayoutLeft view.  On a device
 * backend that remaps in its own memory these are its kernels (the tiled
 * transpose, the per-word copy) at unaligned and strided addresses. */
START_TEST(deep_copy_remap_subviews) {
  static const size_t sizes[] = {1, 2, 4, 8, 16, 12};
  const int64_t pext[3] = {5, 37, 41}, pstr[3] = {37 * 41, 41, 1};
  for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
    const size_t e = sizes[z];
    kk_view_t *hp = view_e("hp", e, 3, pext, KK_LAYOUT_RIGHT, kk_space_host());
    kk_view_t *p = view_e("p", e, 3, pext, KK_LAYOUT_RIGHT, NULL);
    remap_fill_or_check(hp, true);
    OK(kk_deep_copy(p, hp));
    /* p(2, 3:36, 1:40), strides (41, 1), into a 33 x 39 LayoutLeft view */
    const kk_slice_t win[3] = {KK_IDX(2), KK_SPAN(3, 36), KK_SPAN(1, 40)};
    const int64_t wbase = 2 * pstr[0] + 3 * pstr[1] + 1, wstr[2] = {pstr[1], pstr[2]}, wext[2] = {33, 39};
    kk_view_t *w = NULL, *d = view_e("d", e, 2, wext, KK_LAYOUT_LEFT, NULL);
    OK(kk_view_subview(p, win, &w));
    poison(d);
    OK(kk_deep_copy(d, w));
    kk_view_t *hd = view_e("hd", e, 2, wext, KK_LAYOUT_LEFT, kk_space_host());
    OK(kk_deep_copy(hd, d));
    ck_assert_msg(remap_check_at(hd, wbase, wstr) == 0, "element size %zu: window into LayoutLeft", e);
    /* the window into t(1:34, 1:40) of a 35 x 41 LayoutLeft view: its other elements keep the poison */
    const int64_t text[2] = {35, 41};
    kk_view_t *t = view_e("t", e, 2, text, KK_LAYOUT_LEFT, NULL), *tw = NULL;
    const kk_slice_t tsl[2] = {KK_SPAN(1, 34), KK_SPAN(1, 40)};
    OK(kk_view_subview(t, tsl, &tw));
    poison(t);
    OK(kk_deep_copy(tw, w));
    kk_view_t *ht = view_e("ht", e, 2, text, KK_LAYOUT_LEFT, kk_space_host());
    OK(kk_deep_copy(ht, t));
    int64_t bad = 0, untouched = 0;
    for (int64_t j = 0; j < text[1]; j++)
      for (int64_t i = 0; i < text[0]; i++) {
        const unsigned char *q = (const unsigned char *)kk_view_data(ht) + (i + j * text[0]) * (int64_t)e;
        const bool inside = i >= 1 && i < 34 && j >= 1 && j < 40;
        for (size_t b = 0; b < e; b++)
          if (inside ? q[b] != remap_byte(wbase + (i - 1) * wstr[0] + (j - 1) * wstr[1], b) : q[b] != 0xA5) {
            bad++;
            break;
          }
        untouched += !inside;
      }
    ck_assert_msg(bad == 0, "element size %zu: window into a window: %lld of %lld differ", e, (long long)bad,
                  (long long)(text[0] * text[1]));
    ck_assert_int_eq(untouched, text[0] * text[1] - 33 * 39);
    /* the column p(4, :, 5), stride 41, into a contiguous view */
    const kk_slice_t col[3] = {KK_IDX(4), KK_ALL, KK_IDX(5)};
    kk_view_t *c = NULL, *dc = view_e("dc", e, 1, &pext[1], KK_LAYOUT_RIGHT, NULL);
    kk_view_t *hc = view_e("hc", e, 1, &pext[1], KK_LAYOUT_RIGHT, kk_space_host());
    OK(kk_view_subview(p, col, &c));
    poison(dc);
    OK(kk_deep_copy(dc, c));
    OK(kk_deep_copy(hc, dc));
    ck_assert_msg(remap_check_at(hc, 4 * pstr[0] + 5, &pstr[1]) == 0, "element size %zu: a column", e);
    /* hp(1, :, 2:39), a host window with gaps, into a 37 x 37 LayoutLeft device view */
    const kk_slice_t hsl[3] = {KK_IDX(1), KK_ALL, KK_SPAN(2, 39)};
    const int64_t sext[2] = {37, 37};
    kk_view_t *hw = NULL, *ds = view_e("ds", e, 2, sext, KK_LAYOUT_LEFT, NULL);
    kk_view_t *hs = view_e("hs", e, 2, sext, KK_LAYOUT_LEFT, kk_space_host());
    OK(kk_view_subview(hp, hsl, &hw));
    poison(ds);
    OK(kk_deep_copy(ds, hw));
    OK(kk_deep_copy(hs, ds));
    ck_assert_msg(remap_check_at(hs, pstr[0] + 2, wstr) == 0, "element size %zu: host window into the device", e);
    kk_view_release(hw), kk_view_release(ds), kk_view_release(hs);
    kk_view_release(c), kk_view_release(dc), kk_view_release(hc);
    kk_view_release(tw), kk_view_release(t), kk_view_release(ht);
    kk_view_release(w), kk_view_release(d), kk_view_release(hd);
    kk_view_release(p), kk_view_release(hp);
  }
}
END_TEST

/* ---- subviews inside kernels ---------------------------------------------------------------- */

START_TEST(subviews_in_kernels) {
  const int64_t n0 = 7, n1 = 5, n2 = 3, ext[3] = {n0, n1, n2};
  kk_view_t *h = view_n("h", KK_DOUBLE, 3, ext, KK_LAYOUT_RIGHT, kk_space_host());
  check_or_fill(h, true);
  kk_view_t *v[4] = {view_n("a3", KK_DOUBLE, 3, ext, KK_LAYOUT_DEFAULT, NULL),
                     view_n("r3", KK_DOUBLE, 3, ext, KK_LAYOUT_RIGHT, NULL),
                     view_n("l3", KK_DOUBLE, 3, ext, KK_LAYOUT_LEFT, NULL),
                     view_n("s3", KK_DOUBLE, 3, ext, KK_LAYOUT_STRIDE, NULL)};
  for (int k = 0; k < 4; k++)
    OK(kk_deep_copy(v[k], h));
  kk_view_t *bad = view1("bad", KK_INT64, n0), *hbad = host_of(bad);
  kk_view_t *w = view2("w", n0, n1, KK_LAYOUT_DEFAULT), *wl = view2("wl", n0, n1, KK_LAYOUT_LEFT);
  kk_view_t *w32 = view_n("w32", KK_INT32, 2, (int64_t[]){n0, n1}, KK_LAYOUT_DEFAULT, NULL);
  kk_view_t *w32l = view_n("w32l", KK_FLOAT, 2, (int64_t[]){n0, n1}, KK_LAYOUT_LEFT, NULL);
  poison(bad);
  struct sub_args a = {kk_view_bind(v[0]),   kk_view_bind_right(v[1]), kk_view_bind_left(v[2]),
                       kk_view_bind_strided(v[3]), kk_view_bind(bad), kk_view_bind(w),
                       kk_view_bind_left(wl), n0, n1, n2, kk_view_bind(w32), kk_view_bind_left(w32l)};
  OK(kk_parallel_for("sub_check", KK_RANGE(0, n0), KK_KERNEL(sub_check), KK_ARGS(a)));
  download(hbad, bad);
  for (int64_t i = 0; i < n0; i++)
    ck_assert_msg(((int64_t *)kk_view_data(hbad))[i] == 0,
                  "i = %lld: checks failed (bit 10 * view + check, typed 40 + 5 * view + check, kernels.kk.c sub_check): %#llx", (long long)i,
                  (unsigned long long)((int64_t *)kk_view_data(hbad))[i]);
  OK(kk_parallel_for("sub_write", KK_RANGE(0, n0), KK_KERNEL(sub_write), KK_ARGS(a)));
  OK(kk_fence());
  kk_view_t *hw = view_n("hw", KK_DOUBLE, 2, (int64_t[]){n0, n1}, KK_LAYOUT_RIGHT, kk_space_host());
  kk_view_t *hwl = view_n("hwl", KK_DOUBLE, 2, (int64_t[]){n0, n1}, KK_LAYOUT_RIGHT, kk_space_host());
  OK(kk_deep_copy(hw, w));
  OK(kk_deep_copy(hwl, wl));
  for (int64_t i = 0; i < n0; i++)
    for (int64_t j = 0; j < n1; j++) {
      ck_assert(((double *)kk_view_data(hw))[i * n1 + j] == (double)(i * 1000 + j));
      ck_assert(((double *)kk_view_data(hwl))[i * n1 + j] == (double)(i * 1000 + j));
    }
  /* the typed slices of 4-byte views */
  kk_view_t *h32 = view_n("h32", KK_INT32, 2, (int64_t[]){n0, n1}, KK_LAYOUT_RIGHT, kk_space_host());
  kk_view_t *h32l = view_n("h32l", KK_FLOAT, 2, (int64_t[]){n0, n1}, KK_LAYOUT_RIGHT, kk_space_host());
  OK(kk_deep_copy(h32, w32));
  OK(kk_deep_copy(h32l, w32l));
  for (int64_t i = 0; i < n0; i++)
    for (int64_t j = 0; j < n1; j++) {
      ck_assert_int_eq(((int32_t *)kk_view_data(h32))[i * n1 + j], (int32_t)(i * 1000 + j));
      ck_assert(((float *)kk_view_data(h32l))[i * n1 + j] == (float)(i * 1000 + j));
    }
  kk_view_release(h32), kk_view_release(h32l), kk_view_release(w32), kk_view_release(w32l);
  kk_view_release(hw), kk_view_release(hwl), kk_view_release(w), kk_view_release(wl);
  kk_view_release(hbad), kk_view_release(bad), kk_view_release(h);
  for (int k = 0; k < 4; k++)
    kk_view_release(v[k]);
}
END_TEST

/* ---- memory traits ----------------------------------------------------------------------- */

START_TEST(memory_traits) {
  const int64_t n = 1 << 20; /* many threads on every backend, all on the same few elements */
  kk_view_t *ci = view1("ci64", KK_INT64, 3);
  kk_view_t *cf = view_n("cf64", KK_DOUBLE, 2, (int64_t[]){1, 2}, KK_LAYOUT_RIGHT, NULL);
  kk_view_t *cul = view_n("cu32l", KK_UINT32, 1, (int64_t[]){2}, KK_LAYOUT_LEFT, NULL);
  kk_view_t *src = view1("src", KK_DOUBLE, n), *idx = view1("idx", KK_INT64, n), *dst = view1("dst", KK_DOUBLE, n);
  const int64_t zero = 0;
  OK(kk_deep_copy_fill(ci, &zero));
  OK(kk_deep_copy_fill(cf, &zero));
  OK(kk_deep_copy_fill(cul, &zero));
  kk_view_t *hs = host_of(src), *hi = host_of(idx), *hd = host_of(dst);
  for (int64_t i = 0; i < n; i++) {
    ((double *)kk_view_data(hs))[i] = (double)i + 0.5;
    ((int64_t *)kk_view_data(hi))[i] = (i * 7919) % n; /* 7919 is prime: a permutation */
  }
  upload(src, hs), upload(idx, hi);
  poison(dst);
  struct trait_args a = {KK_TRAIT_ATOMIC(kk_view_bind(ci)), KK_TRAIT_ATOMIC(kk_view_bind_right(cf)),
                         KK_TRAIT_ATOMIC(kk_view_bind_left(cul)), KK_TRAIT_RANDOM_ACCESS(kk_view_bind(src)),
                         KK_TRAIT_RANDOM_ACCESS(kk_view_bind_strided(idx)), KK_TRAIT_RESTRICT(kk_view_bind(dst)), n};
  OK(kk_parallel_for("trait_atomic", KK_RANGE(0, n), KK_KERNEL(trait_atomic), KK_ARGS(a)));
  OK(kk_parallel_for("trait_gather", KK_RANGE(0, n), KK_KERNEL(trait_gather), KK_ARGS(a)));
  kk_view_t *hci = host_of(ci), *hcf = host_of(cf), *hcu = host_of(cul);
  download(hci, ci), download(hcf, cf), download(hcu, cul), download(hd, dst);
  for (int k = 0; k < 3; k++)
    ck_assert_int_eq(((int64_t *)kk_view_data(hci))[k], n / 3 + (k < n % 3));
  ck_assert(((double *)kk_view_data(hcf))[0] == (double)(n / 8 * 28));
  ck_assert(((double *)kk_view_data(hcf))[1] == -(double)n);
  ck_assert_uint_eq(((uint32_t *)kk_view_data(hcu))[0], (uint32_t)n);
  ck_assert_uint_eq(((uint32_t *)kk_view_data(hcu))[1], 0xffffffffu);
  for (int64_t i = 0; i < n; i++)
    ck_assert(((double *)kk_view_data(hd))[i] == (double)((i * 7919) % n) + 0.5);
  kk_view_release(hci), kk_view_release(hcf), kk_view_release(hcu);
  kk_view_release(hs), kk_view_release(hi), kk_view_release(hd);
  kk_view_release(ci), kk_view_release(cf), kk_view_release(cul);
  kk_view_release(src), kk_view_release(idx), kk_view_release(dst);
}
END_TEST

/* ---- SIMD types -------------------------------------------------------------------------------- */

/* what kernels.kk.c's simd_segments computes per element, in scalars */
static double simd_d(double x, double g) {
  double y = x > 0 ? sqrt(x) : -x;
  y = y * 2.0 + (x * 0.5 + 1.0);
  y = (y > fabs(x) ? y : fabs(x)) + (g < 3.0 ? g : 3.0);
  y = y / 4.0 - g * 0.25;
  return y + exp(x * 0.125) + log(fabs(x) + 1.0) + sin(x) * cos(x) + pow(fabs(x) + 1.0, x * 0.25);
}
static float simd_f(float x, float g) {
  float y = x <= 0 ? -x : sqrtf(x);
  return y * x + g + expf(x * 0.125f) + logf(fabsf(x) + 1.0f) + sinf(x) - cosf(x) + powf(fabsf(x) + 1.0f, 0.5f);
}
static int32_t simd_i(int32_t x, int32_t g) {
  int32_t y = (x < 5 && x != -3 ? x * 3 + 7 : x - 2) + (x < 0 ? -x : x) * 100;
  y = y + (g > x ? g : x) * 10000 - (g < x ? g : x) + (x == g ? 1000000 : 0);
  return y + (x >= 0 ? 7 : 0);
}
static int64_t simd_l(int64_t x, int64_t g) { return x * 1000003 + g - (x > g ? x : g) / 3; }

static bool close_to(double got, double want, double rel) {
  return fabs(got - want) <= rel * (fabs(want) > 1 ? fabs(want) : 1);
}

/* segments of every length 0 .. 19 (0, 1, width - 1, width + 1 for every
 * width up to 16), each after a gap of 16 untouched elements */
START_TEST(simd_types) {
  enum { NSEG = 20, GAP = 16 };
  int64_t off[NSEG + 1], n = 0;
  for (int s = 0; s <= NSEG; s++)
    off[s] = n + GAP, n = off[s] + s;
  kk_view_t *v[8], *h[8];
  const kk_type_t ty[8] = {KK_DOUBLE, KK_DOUBLE, KK_FLOAT, KK_FLOAT, KK_INT32, KK_INT32, KK_INT64, KK_INT64};
  for (int k = 0; k < 8; k++)
    v[k] = view1("simd", ty[k], n), h[k] = host_of(v[k]);
  kk_view_t *gi = view1("gidx", KK_INT64, n), *gi32 = view1("gidx32", KK_INT32, n), *vo = view1("off", KK_INT64, NSEG + 1);
  kk_view_t *red = view2("red", NSEG, 6, KK_LAYOUT_DEFAULT), *w = view1("width", KK_INT32, 4);
  kk_view_t *hgi = host_of(gi), *hgi32 = host_of(gi32), *hvo = host_of(vo);
  double *xd = kk_view_data(h[0]);
  float *xf = kk_view_data(h[2]);
  int32_t *xi = kk_view_data(h[4]);
  int64_t *xl = kk_view_data(h[6]);
  for (int64_t i = 0; i < n; i++) {
    xd[i] = (double)((i * 37) % 23) - 11.5 + (double)i / 64;
    xf[i] = (float)((i * 13) % 17) - 8.25f;
    xi[i] = (int32_t)((i * 29) % 21) - 10;
    xl[i] = (i * 7919) % 1000 - 500;
    ((int64_t *)kk_view_data(hgi))[i] = (i * 31) % n;
    ((int32_t *)kk_view_data(hgi32))[i] = (int32_t)((i * 17 + 3) % n);
  }
  memcpy(kk_view_data(hvo), off, sizeof off);
  for (int k = 0; k < 8; k += 2)
    upload(v[k], h[k]);
  for (int k = 1; k < 8; k += 2)
    poison(v[k]);
  upload(gi, hgi), upload(gi32, hgi32), upload(vo, hvo);
  struct simd_args a = {kk_view_bind(v[0]), kk_view_bind(v[1]), kk_view_bind(v[2]), kk_view_bind(v[3]),
                        kk_view_bind(v[4]), kk_view_bind(v[5]), kk_view_bind(v[6]), kk_view_bind(v[7]),
                        kk_view_bind(gi),   kk_view_bind(gi32), kk_view_bind(vo),   kk_view_bind(red),
                        kk_view_bind(w),    NSEG};
  OK(kk_parallel_for("simd_segments", KK_RANGE(0, NSEG), KK_KERNEL(simd_segments), KK_ARGS(a)));
  kk_view_t *hred = view_n("hred", KK_DOUBLE, 2, (int64_t[]){NSEG, 6}, KK_LAYOUT_RIGHT, kk_space_host());
  kk_view_t *hw = host_of(w);
  for (int k = 1; k < 8; k += 2)
    download(h[k], v[k]);
  download(hw, w);
  OK(kk_deep_copy(hred, red));
  const int32_t *wd = kk_view_data(hw);
  const bool gpu = strcmp(kk_backend_host(), g_backend) != 0;
  for (int k = 0; k < 4; k++) /* widths: 1 on the devices, the vector's lanes on the host */
    ck_assert_msg(gpu ? wd[k] == 1 : (wd[k] >= (k == 0 || k == 3 ? 2 : 4) && wd[k] <= 16), "width %d: %d", k, wd[k]);
  ck_assert_int_eq(wd[0], wd[3]);
  ck_assert_int_eq(wd[1], wd[2]);
  const double *yd = kk_view_data(h[1]), *rd = kk_view_data(hred);
  const float *yf = kk_view_data(h[3]);
  const int32_t *yi = kk_view_data(h[5]), *g32 = kk_view_data(hgi32);
  const int64_t *yl = kk_view_data(h[7]), *g64 = kk_view_data(hgi);
  uint64_t poisoned;
  memset(&poisoned, 0xA5, sizeof poisoned);
  for (int s = 0; s < NSEG; s++) {
    double sum = 0, mn = 1e300, mx = -1e300, fsum = 0;
    int64_t lsum = 0;
    for (int64_t i = off[s] - GAP; i < off[s]; i++) /* the gap before the segment: untouched */
      ck_assert_msg(memcmp(&yd[i], &poisoned, 8) == 0 && memcmp(&yf[i], &poisoned, 4) == 0 &&
                        memcmp(&yi[i], &poisoned, 4) == 0 && memcmp(&yl[i], &poisoned, 8) == 0,
                    "segment %d: index %lld outside it was written", s, (long long)i);
    for (int64_t i = off[s]; i < off[s] + s; i++) {
      double wantd = simd_d(xd[i], xd[g64[i]]);
      ck_assert_msg(close_to(yd[i], wantd, 1e-12), "double, segment %d, i %lld: %.17g, want %.17g", s, (long long)i,
                    yd[i], wantd);
      float wantf = simd_f(xf[i], xf[g32[i]]);
      ck_assert_msg(close_to(yf[i], wantf, 1e-5), "float, segment %d, i %lld: %.9g, want %.9g", s, (long long)i,
                    (double)yf[i], (double)wantf);
      ck_assert_int_eq(yi[i], simd_i(xi[i], xi[g32[i]]));
      ck_assert_int_eq(yl[i], simd_l(xl[i], xl[g64[i]]));
      sum += yd[i], fsum += yf[i], lsum += yl[i];
      mn = yd[i] < mn ? yd[i] : mn, mx = yd[i] > mx ? yd[i] : mx;
    }
    ck_assert_msg(close_to(rd[s * 6 + 0], sum, 1e-12), "segment %d: hsum %.17g, want %.17g", s, rd[s * 6], sum);
    ck_assert_msg(rd[s * 6 + 1] == mn && rd[s * 6 + 2] == mx, "segment %d: hmin %.17g hmax %.17g, want %.17g %.17g", s,
                  rd[s * 6 + 1], rd[s * 6 + 2], mn, mx);
    ck_assert_msg(rd[s * 6 + 3] == s + (s % wd[0] ? 0.5 : 0), "segment %d: lanes %g (width %d)", s, rd[s * 6 + 3], wd[0]);
    ck_assert(close_to(rd[s * 6 + 4], fsum, 1e-5));
    ck_assert(rd[s * 6 + 5] == (double)lsum);
  }
  for (int k = 0; k < 8; k++)
    kk_view_release(h[k]), kk_view_release(v[k]);
  kk_view_release(gi), kk_view_release(gi32), kk_view_release(vo), kk_view_release(red), kk_view_release(w);
  kk_view_release(hgi), kk_view_release(hgi32), kk_view_release(hvo), kk_view_release(hred), kk_view_release(hw);
}
END_TEST

START_TEST(resize_and_realloc) {
  kk_view_t *v = view2("rs", 4, 5, KK_LAYOUT_DEFAULT), *keep;
  fill2(v, 1.0);
  keep = kk_view_retain(v);
  OK(kk_view_resize(&v, (int64_t[]){6, 3}));
  ck_assert_ptr_ne(v, keep);
  ck_assert_int_eq(kk_view_extent(v, 0), 6);
  ck_assert_int_eq(kk_view_extent(v, 1), 3);
  ck_assert_str_eq(kk_view_label(v), "rs");
  kk_view_t *h = host_of(v);
  download(h, v);
  const double *p = kk_view_data(h);
  for (int64_t i = 0; i < 6; i++)
    for (int64_t j = 0; j < 3; j++) {
      double got = p[i * kk_view_stride(h, 0) + j * kk_view_stride(h, 1)];
      ck_assert(got == (i < 4 ? 1.0 + (double)(i * 10 + j) : 0.0));
    }
  ck_assert_int_eq(kk_view_extent(keep, 1), 5); /* the old handle keeps the old view */
  kk_view_release(h);
  OK(kk_view_realloc(&v, (int64_t[]){2, 2}));
  h = host_of(v);
  download(h, v);
  for (int i = 0; i < 4; i++)
    ck_assert(((double *)kk_view_data(h))[i] == 0.0);
  kk_view_release(h), kk_view_release(v), kk_view_release(keep);
}
END_TEST

/* ---- launch errors ------------------------------------------------------------------------ */

START_TEST(launch_mismatches_refused) {
  kk_view_t *x = view1("x", KK_DOUBLE, 10), *y = view1("y", KK_DOUBLE, 10);
  struct axpy_args a = {1.0, kk_view_bind(x), kk_view_bind(y)};
  struct one_view small = {kk_view_bind(x)};
  double r = 0;
  int64_t bad = 0;
  ck_assert_int_eq(kk_parallel_for("axpy", KK_RANGE(0, 10), KK_KERNEL(axpy), KK_ARGS(small)), KK_ERROR_KERNEL_MISMATCH);
  ck_assert_contains(kk_last_error(), "kernel 'axpy' takes a");
  ck_assert_contains(kk_last_error(), "-byte argument struct, the launch passes");
  ck_assert_int_eq(kk_parallel_for("sum", KK_RANGE(0, 10), KK_KERNEL(sum_double), KK_ARGS(small)),
                   KK_ERROR_KERNEL_MISMATCH);
  ck_assert_contains(kk_last_error(), "kernel 'sum_double' is a reduce (KK_REDUCE) kernel, not for (KK_FOR)");
  ck_assert_int_eq(kk_parallel_reduce("axpy", KK_RANGE(0, 10), KK_KERNEL(axpy), KK_ARGS(a), KK_RESULT(r)),
                   KK_ERROR_KERNEL_MISMATCH);
  ck_assert_int_eq(kk_parallel_reduce("sum", KK_RANGE(0, 10), KK_KERNEL(sum_double), KK_ARGS(small), (void *)&bad, 4),
                   KK_ERROR_KERNEL_MISMATCH);
  ck_assert_contains(kk_last_error(), "reduces a 8-byte value, the result has 4 bytes");
  ck_assert_int_eq(kk_parallel_scan("scan", KK_RANGE(0, 10), KK_KERNEL(scan_incl_i64), KK_ARGS(a), NULL, 0),
                   KK_ERROR_KERNEL_MISMATCH);
  ck_assert_int_eq(kk_parallel_for("axpy", KK_RANGE(10, 0), KK_KERNEL(axpy), KK_ARGS(a)), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "range [10, 0) ends before it begins");
  ck_assert_int_eq(kk_parallel_for("axpy", KK_RANGE(0, 10), NULL, KK_ARGS(a)), KK_ERROR_INVALID_ARGUMENT);
  kk_range_policy_t p = {sizeof p, 0, 10, -5, KK_SCHEDULE_STATIC, NULL};
  ck_assert_int_eq(kk_parallel_for("axpy", &p, KK_KERNEL(axpy), KK_ARGS(a)), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_for 'axpy': chunk size -5 is negative");
  /* the refused launches ran nothing */
  kk_view_release(x), kk_view_release(y);
}
END_TEST

START_TEST(kernel_lookup) {
  ck_assert_ptr_eq(kk_kernel_find("axpy"), KK_KERNEL(axpy));
  ck_assert_ptr_null(kk_kernel_find("no_such_kernel"));
  ck_assert_ptr_nonnull(KK_KERNEL(axpy)->module);
  ck_assert_contains(KK_KERNEL(axpy)->module->targets, "host");
}
END_TEST

/* ---- instances ------------------------------------------------------------------------------ */

typedef struct worker {
  kk_instance_t *inst;
  kk_view_t *v;
  double result;
  kk_status_t st;
} worker_t;

static void *work(void *p) {
  worker_t *w = p;
  struct one_view a = {kk_view_bind(w->v)};
  for (int k = 0; k < 50 && w->st == KK_OK; k++)
    w->st = kk_parallel_reduce("sum", KK_RANGE_ON(w->inst, 0, 100000), KK_KERNEL(sum_double), KK_ARGS(a),
                               KK_RESULT(w->result));
  return NULL;
}

/* A failed bind is the failing thread's own: another thread's launches run
 * while it is pending, and the failing thread's next launch is refused. */
typedef struct {
  kk_view_t *bad, *ok;
  pthread_barrier_t *bar;
  kk_status_t refused, after;
} bind_worker_t;

static void *bind_fail_then_launch(void *p) {
  bind_worker_t *w = p;
  struct one_view ov = {kk_view_bind(w->bad)}; /* bad has the other layout: refused */
  pthread_barrier_wait(w->bar); /* the bind failed: the main thread launches now */
  pthread_barrier_wait(w->bar);
  double s = 0;
  w->refused = kk_parallel_reduce("sum", KK_RANGE(0, 4), KK_KERNEL(sum_double), KK_ARGS(ov), KK_RESULT(s));
  ov.v = kk_view_bind(w->ok);
  w->after = kk_parallel_reduce("sum", KK_RANGE(0, 4), KK_KERNEL(sum_double), KK_ARGS(ov), KK_RESULT(s));
  return NULL;
}

START_TEST(bind_failure_stays_on_its_thread) {
  pthread_barrier_t bar;
  ck_assert_int_eq(pthread_barrier_init(&bar, NULL, 2), 0);
  kk_layout_t other = kk_space_default_layout(kk_space_default()) == KK_LAYOUT_RIGHT ? KK_LAYOUT_LEFT : KK_LAYOUT_RIGHT;
  bind_worker_t w = {view2("bad", 4, 3, other), view1("ok", KK_DOUBLE, 4),
                     &bar, KK_OK, KK_ERROR_INTERNAL};
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, bind_fail_then_launch, &w), 0);
  pthread_barrier_wait(&bar);
  struct one_view ov = {kk_view_bind(w.ok)};
  double s = -1;
  OK(kk_parallel_reduce("sum", KK_RANGE(0, 4), KK_KERNEL(sum_double), KK_ARGS(ov), KK_RESULT(s)));
  ck_assert(s == 0.0);
  pthread_barrier_wait(&bar);
  pthread_join(t, NULL);
  pthread_barrier_destroy(&bar);
  ck_assert_int_eq(w.refused, KK_ERROR_LAYOUT_MISMATCH);
  ck_assert_int_eq(w.after, KK_OK);
  OK(kk_parallel_reduce("sum", KK_RANGE(0, 4), KK_KERNEL(sum_double), KK_ARGS(ov), KK_RESULT(s)));
  kk_view_release(w.bad), kk_view_release(w.ok);
}
END_TEST

/* Two application threads launch on two instances at once; each gets its own result. */
START_TEST(instances_from_two_threads) {
  worker_t w[2];
  pthread_t t[2];
  for (int i = 0; i < 2; i++) {
    w[i].st = KK_OK;
    OK(kk_instance_create(NULL, &w[i].inst));
    ck_assert_str_eq(kk_instance_backend(w[i].inst), g_backend);
    w[i].v = view1("v", KK_DOUBLE, 100000);
    double val = 1.0 + i;
    OK(kk_deep_copy_fill(w[i].v, &val));
  }
  for (int i = 0; i < 2; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < 2; i++) {
    ck_assert_msg(w[i].st == KK_OK, "%s", kk_status_str(w[i].st));
    ck_assert(w[i].result == 100000.0 * (1 + i));
    OK(kk_instance_fence(w[i].inst));
    OK(kk_instance_destroy(w[i].inst));
    kk_view_release(w[i].v);
  }
  OK(kk_fence());
}
END_TEST

/* kk_instance_wait: work on one instance reads what another wrote, ordered
 * by the call alone (only the reader is fenced before the host looks);
 * NULL is the default instance; an instance waiting for itself is a no-op;
 * two backends are refused. */
START_TEST(instances_ordered_by_wait) {
  const int64_t n = 1 << 18;
  const int rounds = 20;
  kk_instance_t *wr = NULL, *rd = NULL;
  OK(kk_instance_create(NULL, &wr));
  OK(kk_instance_create(NULL, &rd));
  kk_view_t *one = view1("one", KK_DOUBLE, n), *x = view1("x", KK_DOUBLE, n), *z = view1("z", KK_DOUBLE, n);
  kk_view_t *v = view1("v", KK_DOUBLE, n), *hz = NULL, *hv = NULL;
  OK(kk_view_create_mirror(z, &hz));
  OK(kk_view_create_mirror(v, &hv));
  const double d1 = 1.0, d0 = 0.0;
  OK(kk_deep_copy_fill(one, &d1));
  for (int pass = 0; pass < 3; pass++) {
    /* the writer: x = rounds + 1 after many launches */
    OK(kk_deep_copy_fill_async(wr, x, &d1));
    struct axpy_args up = {1.0, kk_view_bind(one), kk_view_bind(x)};
    for (int r = 0; r < rounds; r++)
      OK(kk_parallel_for("wait_writer", KK_RANGE_ON(wr, 0, n), KK_KERNEL(axpy), KK_ARGS(up)));
    /* the reader: z = 0 may run before the wait; z += 2 x after it */
    OK(kk_deep_copy_fill_async(rd, z, &d0));
    OK(kk_instance_wait(rd, wr));
    struct axpy_args rdx = {2.0, kk_view_bind(x), kk_view_bind(z)};
    OK(kk_parallel_for("wait_reader", KK_RANGE_ON(rd, 0, n), KK_KERNEL(axpy), KK_ARGS(rdx)));
    /* the default instance after the reader (NULL), v = z + 1 */
    OK(kk_deep_copy_fill_async(kk_instance_default(), v, &d1));
    OK(kk_instance_wait(NULL, rd));
    struct axpy_args dv = {1.0, kk_view_bind(z), kk_view_bind(v)};
    OK(kk_parallel_for("wait_default", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(dv)));
    OK(kk_deep_copy_async(kk_instance_default(), hv, v));
    /* and the reader's own copy after the default instance's work (NULL as waited) */
    OK(kk_instance_wait(rd, NULL));
    OK(kk_deep_copy_async(rd, hz, z));
    OK(kk_instance_fence(rd)); /* the host looks only after fencing rd: z, hz and v's copy are done */
    const double *pz = kk_view_data(hz), *pv = kk_view_data(hv);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
      bad += pz[i] != 2.0 * (rounds + 1) || pv[i] != 2.0 * (rounds + 1) + 1.0;
    ck_assert_msg(bad == 0, "pass %d: %lld of %lld elements not ordered (z[0] = %g, v[0] = %g)", pass, (long long)bad,
                  (long long)n, pz[0], pv[0]);
  }
  /* no-ops and refusals */
  OK(kk_instance_wait(wr, wr));
  OK(kk_instance_wait(NULL, NULL));
  OK(kk_instance_wait(kk_instance_default(), NULL));
  kk_instance_t *host = kk_instance_host();
  if (strcmp(kk_instance_backend(host), g_backend) != 0) {
    ck_assert_int_eq(kk_instance_wait(host, wr), KK_ERROR_INVALID_ARGUMENT);
    ck_assert_contains(kk_last_error(), "only instances of one backend can be ordered");
    ck_assert_int_eq(kk_instance_wait(NULL, host), KK_ERROR_INVALID_ARGUMENT);
  } else {
    OK(kk_instance_wait(host, wr));
  }
  OK(kk_instance_destroy(wr));
  OK(kk_instance_destroy(rd));
  kk_view_release(hv), kk_view_release(hz), kk_view_release(v), kk_view_release(z), kk_view_release(x);
  kk_view_release(one);
}
END_TEST

/* ---- suite ------------------------------------------------------------------------------------- */

static Suite *conformance_suite(void) {
  Suite *s = suite_create(g_backend);
  TCase *tc = tcase_create("dispatch");
  tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, for_axpy);
  tcase_add_test(tc, for_schedules_and_chunks);
  tcase_add_test(tc, empty_and_single_ranges);
  tcase_add_test(tc, ranges_beyond_2_31);
  tcase_add_test(tc, ranges_at_the_ends_of_int64);
  tcase_add_test(tc, launch_mismatches_refused);
  tcase_add_test(tc, kernel_lookup);
  tcase_add_test(tc, instances_from_two_threads);
  tcase_add_test(tc, instances_ordered_by_wait);
  suite_add_tcase(s, tc);
  tc = tcase_create("reducers");
  tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
  tcase_set_timeout(tc, 600);
#define ADD_RED(T) tcase_add_test(tc, reducers_##T);
#define ADD_BITS(T) tcase_add_test(tc, bit_reducers_##T);
  CONF_TYPES(ADD_RED)
  CONF_INT_TYPES(ADD_BITS)
  tcase_add_test(tc, several_reducers_in_one_launch);
  tcase_add_test(tc, custom_reducers);
  tcase_add_test(tc, reduce_into_a_view);
  suite_add_tcase(s, tc);
  tc = tcase_create("scans");
  tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, scans);
  tcase_add_test(tc, scan_double_and_custom);
  suite_add_tcase(s, tc);
  tc = tcase_create("views");
  tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, layouts_right_left_strided);
  tcase_add_test(tc, layout_mismatch_refused);
  tcase_add_test(tc, bind_failure_stays_on_its_thread);
  tcase_add_test(tc, ranks_one_to_eight);
  tcase_add_test(tc, view_create_and_query);
  tcase_add_test(tc, view_allocation_failure_names_label_size_space);
  tcase_add_test(tc, subviews);
  tcase_add_test(tc, deep_copies_fills_mirrors);
  tcase_add_test(tc, deep_copy_between_layouts);
  tcase_add_test(tc, subviews_in_kernels);
  tcase_add_test(tc, memory_traits);
  tcase_add_test(tc, simd_types);
  tcase_add_test(tc, resize_and_realloc);
  suite_add_tcase(s, tc);
  /* copies between layouts alone, so that tests/faults/remap-fake.sh can run them on the fake libcuda */
  tc = tcase_create("remap");
  tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, deep_copy_remap_tiles);
  tcase_add_test(tc, deep_copy_remap_subviews);
  suite_add_tcase(s, tc);
  conf_add_hier_tests(s);
  conf_add_graph_tests(s);
  return s;
}

int main(int argc, char **argv) {
  if (argc > 1)
    g_backend = argv[1];
  if (argc > 2) {
    char *end;
    long n = strtol(argv[2], &end, 10);
    if (*end || n < 1 || n > 4096) {
      printf("FAIL: usage: %s BACKEND [NUM_THREADS [CONFIG_FILE]]; '%s' is not a thread count\n", argv[0], argv[2]);
      return 1;
    }
    g_num_threads = (int)n;
  }
  if (argc > 3)
    g_config_file = argv[3];
  /* Is the backend here at all?  If not, the test is skipped with the reason. */
  if (getenv("KOKKOS_PLUGIN_PATH"))
    g_plugin_path = strdup(getenv("KOKKOS_PLUGIN_PATH"));
  tu_clear_env();
  /* the host backends' threaded copy between layouts from 4 KiB on, so that
   * deep_copy_remap_tiles reaches it with small views (docs/views.md) */
  setenv("KK_REMAP_PARALLEL_MIN", "4096", 0);
  int probe = tu_probe_backend(g_backend, g_plugin_path);
  if (probe != 0)
    return probe;
  int rc = tu_run(conformance_suite());
  free(g_plugin_path);
  return rc;
}
