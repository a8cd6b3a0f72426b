/* tests/conformance/conformance_hier.c -- MDRange, teams and scratch, atomics and ScatterView: the suite's second half. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../testutil.h"
#include "conformance.h"

KK_DECLARE_KERNEL(md_count2);
KK_DECLARE_KERNEL(md_count3);
KK_DECLARE_KERNEL(md_count4);
KK_DECLARE_KERNEL(md_count5);
KK_DECLARE_KERNEL(md_count6);
KK_DECLARE_KERNEL(md_sum3);
KK_DECLARE_KERNEL(md_max2);
KK_DECLARE_KERNEL(team_matvec);
KK_DECLARE_KERNEL(team_scratch_views);
KK_DECLARE_KERNEL(team_overrun);
KK_DECLARE_KERNEL(team_total);
KK_DECLARE_KERNEL(team_minloc);
KK_DECLARE_KERNEL(atomics_i32);
KK_DECLARE_KERNEL(atomics_u32);
KK_DECLARE_KERNEL(atomics_i64);
KK_DECLARE_KERNEL(atomics_u64);
KK_DECLARE_KERNEL(atomics_f32);
KK_DECLARE_KERNEL(atomics_f64);
KK_DECLARE_KERNEL(atomics_complex);
KK_DECLARE_KERNEL(team_vector_unrolled);
KK_DECLARE_KERNEL(team_total_bounded);
KK_DECLARE_KERNEL(team_rows_bounded);
KK_DECLARE_KERNEL(team_custom_reduce);
KK_DECLARE_KERNEL(scatter_sum_i32);
KK_DECLARE_KERNEL(scatter_sum_f64);
KK_DECLARE_KERNEL(scatter_sum_cf);
KK_DECLARE_KERNEL(scatter_sum_cd);
KK_DECLARE_KERNEL(scatter_min_f64);
KK_DECLARE_KERNEL(scatter_max_i64);
KK_DECLARE_KERNEL(scatter_sum_2d);
KK_DECLARE_KERNEL(scatter_3d);
KK_DECLARE_KERNEL(wait_for_peer);

/* from conformance.c */
extern void conf_setup(void);
extern void conf_teardown(void);
#define OK(call) ck_assert_msg((call) == KK_OK, "%s failed: %s", #call, kk_last_error())

static kk_view_t *viewn(const char *label, kk_type_t t, int rank, const int64_t *ext) {
  kk_view_t *v = NULL;
  OK(kk_view_alloc(&v, label, t, rank, ext));
  return v;
}

static kk_view_t *host_of(kk_view_t *v) {
  kk_view_t *m = NULL;
  OK(kk_view_create_mirror_view(v, &m));
  return m;
}

static void download(kk_view_t *host, kk_view_t *dev) {
  OK(kk_fence());
  if (dev != host)
    OK(kk_deep_copy(host, dev));
}

static void upload(kk_view_t *dev, kk_view_t *host) {
  if (dev != host)
    OK(kk_deep_copy(dev, host));
}

/* ---- MDRange ---------------------------------------------------------------------------- */

/* Every rank 2..6, odd extents, tiles that do not divide them, every order:
 * each point is visited exactly once. */
START_TEST(md_every_rank_tile_and_order) {
  static const int64_t ext[6] = {7, 5, 3, 4, 3, 2};
  static const int64_t tiles[3][6] = {{0, 0, 0, 0, 0, 0}, {2, 3, 2, 3, 2, 1}, {4, 1, 5, 3, 1, 2}};
  const kk_kernel_t *kernels[7] = {NULL, NULL, KK_KERNEL(md_count2), KK_KERNEL(md_count3), KK_KERNEL(md_count4),
                                   KK_KERNEL(md_count5), KK_KERNEL(md_count6)};
  for (int rank = 2; rank <= 6; rank++)
    for (int t = 0; t < 3; t++)
      for (int order = 0; order < 4; order++) {
        kk_md_policy_t p = {sizeof p, rank, (kk_iterate_t)(order % 2 ? KK_ITERATE_LEFT : KK_ITERATE_RIGHT),
                            (kk_iterate_t)(order / 2 ? KK_ITERATE_LEFT : KK_ITERATE_RIGHT), {0}, {0}, {0}, NULL};
        if (order == 0)
          p.outer = p.inner = KK_ITERATE_DEFAULT;
        int64_t total = 1;
        for (int d = 0; d < rank; d++) {
          p.begin[d] = d == 1 ? 3 : 0; /* a non-zero begin too */
          p.end[d] = p.begin[d] + ext[d];
          p.tile[d] = tiles[t][d];
          total *= ext[d];
        }
        struct md_args a;
        memset(&a, 0, sizeof a);
        a.rank = rank;
        for (int d = 0; d < 6; d++)
          a.b[d] = p.begin[d], a.e[d] = p.end[d];
        kk_view_t *hits;
        if (rank == 6) {
          hits = viewn("hits6", KK_INT32, 6, ext);
          a.hits6 = kk_view_bind_strided(hits);
        } else {
          hits = viewn("hits", KK_INT32, 1, &total);
          a.hits = kk_view_bind(hits);
        }
        int32_t zero = 0;
        OK(kk_deep_copy_fill(hits, &zero));
        OK(kk_parallel_for_md("md", &p, kernels[rank], KK_ARGS(a)));
        kk_view_t *h = host_of(hits);
        download(h, hits);
        const int32_t *ph = kk_view_data(h);
        for (int64_t i = 0; i < total; i++)
          ck_assert_msg(ph[i] == 1, "rank %d tiles %d order %d: point %lld visited %d times", rank, t, order,
                        (long long)i, ph[i]);
        kk_view_release(h), kk_view_release(hits);
      }
}
END_TEST

/* Tiles too big for one block per tile (GPUs: a block holds at most 256 of
 * their points, so its threads loop over the tile, or spread it flat): each
 * point is still visited once, in both orders, ranks 3 and 4. */
START_TEST(md_large_tiles) {
  static const int64_t ext[4] = {40, 19, 3, 2};
  static const int64_t tiles[3][4] = {{32, 8, 2, 2}, {32, 16, 1, 1}, {64, 4, 3, 2}};
  for (int rank = 3; rank <= 4; rank++)
    for (int t = 0; t < 3; t++)
      for (int order = 0; order < 2; order++) {
        kk_iterate_t it = order ? KK_ITERATE_LEFT : KK_ITERATE_RIGHT;
        kk_md_policy_t p = {sizeof p, rank, it, it, {0}, {0}, {0}, NULL};
        int64_t total = 1;
        for (int d = 0; d < rank; d++) {
          p.begin[d] = d == 2 ? 1 : 0;
          p.end[d] = p.begin[d] + ext[d];
          /* the first two tile sizes along the inner dimensions of the order */
          p.tile[d] = tiles[t][order ? d : rank - 1 - d];
          total *= ext[d];
        }
        struct md_args a;
        memset(&a, 0, sizeof a);
        a.rank = rank;
        for (int d = 0; d < 6; d++)
          a.b[d] = p.begin[d], a.e[d] = p.end[d];
        kk_view_t *hits = viewn("hits", KK_INT32, 1, &total);
        a.hits = kk_view_bind(hits);
        int32_t zero = 0;
        OK(kk_deep_copy_fill(hits, &zero));
        OK(kk_parallel_for_md("md_large", &p, rank == 3 ? KK_KERNEL(md_count3) : KK_KERNEL(md_count4), KK_ARGS(a)));
        kk_view_t *h = host_of(hits);
        download(h, hits);
        const int32_t *ph = kk_view_data(h);
        for (int64_t i = 0; i < total; i++)
          ck_assert_msg(ph[i] == 1, "rank %d tiles %d order %d: point %lld visited %d times", rank, t, order,
                        (long long)i, ph[i]);
        kk_view_release(h), kk_view_release(hits);
      }
}
END_TEST

/* Extents and tiles are int64_t.  A box with an extent, or a number of
 * points, that does not fit, and a tile of more points than int64_t counts,
 * are refused before launch with their bounds; a box at the ends of int64_t
 * visits every point once, with tiles as large as int64_t allows. */
START_TEST(md_at_the_ends_of_int64) {
  int64_t n = 6 * 7;
  kk_view_t *hits = viewn("hits", KK_INT32, 1, &n), *h = host_of(hits);
  struct md_args a;
  memset(&a, 0, sizeof a);
  a.rank = 2;
  a.hits = kk_view_bind(hits);
  int64_t mx = 0;
  kk_md_policy_t p = {sizeof p, 2, KK_ITERATE_DEFAULT, KK_ITERATE_DEFAULT, {INT64_MIN, 0}, {INT64_MAX, 1}, {0}, NULL};
  ck_assert_int_eq(kk_parallel_for_md("huge", &p, KK_KERNEL(md_count2), KK_ARGS(a)), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_for_md 'huge': dimension 0: range [-9223372036854775808, "
                                      "9223372036854775807) has 18446744073709551615 indices, more than int64_t counts");
  /* each extent fits, the box's points do not */
  p.begin[0] = 0, p.end[0] = (int64_t)1 << 32, p.end[1] = (int64_t)1 << 31;
  ck_assert_int_eq(kk_parallel_for_md("huge", &p, KK_KERNEL(md_count2), KK_ARGS(a)), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_for_md 'huge': the box [0, 4294967296) x [0, 2147483648) has more "
                                      "points than int64_t counts");
  ck_assert_int_eq(kk_parallel_reduce_md("huge", &p, KK_KERNEL(md_max2), KK_ARGS(a), KK_RESULT(mx)),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_reduce_md 'huge': the box [0, 4294967296) x [0, 2147483648)");
  /* tiles of more points than int64_t counts */
  p.end[0] = 6, p.end[1] = 7, p.tile[0] = p.tile[1] = (int64_t)1 << 32;
  ck_assert_int_eq(kk_parallel_for_md("huge", &p, KK_KERNEL(md_count2), KK_ARGS(a)), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_for_md 'huge': a tile of 4294967296 x 4294967296 has more points "
                                      "than int64_t counts");
  /* an empty dimension: no points, however long the other */
  const int32_t zero = 0;
  OK(kk_deep_copy_fill(hits, &zero));
  p.end[0] = INT64_MAX, p.end[1] = 0, p.tile[0] = p.tile[1] = 0;
  a.b[0] = 0, a.e[0] = INT64_MAX, a.b[1] = a.e[1] = 0;
  OK(kk_parallel_for_md("empty", &p, KK_KERNEL(md_count2), KK_ARGS(a)));
  /* 6 x 7 points at the top of int64_t along one dimension, the bottom along the other */
  static const int64_t tiles[][2] = {{0, 0}, {INT64_MAX, 1}, {1, INT64_MAX}, {4, 3}, {5, 0}};
  for (size_t t = 0; t < sizeof tiles / sizeof *tiles; t++)
    for (int order = 0; order < 3; order++) {
      const kk_iterate_t it = order == 0 ? KK_ITERATE_DEFAULT : order == 1 ? KK_ITERATE_RIGHT : KK_ITERATE_LEFT;
      p = (kk_md_policy_t){sizeof p, 2, it, it, {INT64_MAX - 6, INT64_MIN}, {INT64_MAX, INT64_MIN + 7},
                           {tiles[t][0], tiles[t][1]}, NULL};
      a.b[0] = p.begin[0], a.e[0] = p.end[0], a.b[1] = p.begin[1], a.e[1] = p.end[1];
      OK(kk_deep_copy_fill(hits, &zero));
      OK(kk_parallel_for_md("ends", &p, KK_KERNEL(md_count2), KK_ARGS(a)));
      download(h, hits);
      for (int64_t i = 0; i < n; i++)
        ck_assert_msg(((int32_t *)kk_view_data(h))[i] == 1, "tiles %lld x %lld, order %d: point %lld visited %d times",
                      (long long)tiles[t][0], (long long)tiles[t][1], order, (long long)i,
                      ((int32_t *)kk_view_data(h))[i]);
    }
  kk_view_release(h), kk_view_release(hits);
}
END_TEST

START_TEST(md_reduce) {
  kk_md_policy_t p = {sizeof p, 3, KK_ITERATE_DEFAULT, KK_ITERATE_DEFAULT, {1, 2, 3}, {9, 13, 8}, {3, 5, 2}, NULL};
  struct md_args a;
  memset(&a, 0, sizeof a);
  int64_t ref = 0;
  for (int64_t i = 1; i < 9; i++)
    for (int64_t j = 2; j < 13; j++)
      for (int64_t k = 3; k < 8; k++)
        ref += i * 10000 + j * 100 + k;
  int64_t s = 0;
  OK(kk_parallel_reduce_md("md_sum", &p, KK_KERNEL(md_sum3), KK_ARGS(a), KK_RESULT(s)));
  ck_assert_int_eq(s, ref);
  kk_md_policy_t q = {sizeof q, 2, KK_ITERATE_LEFT, KK_ITERATE_RIGHT, {0, 0}, {31, 29}, {4, 0}, NULL};
  int64_t mx = 0, rmx = INT64_MIN;
  for (int64_t i = 0; i < 31; i++)
    for (int64_t j = 0; j < 29; j++)
      rmx = (i * 7 + j * 13) % 101 > rmx ? (i * 7 + j * 13) % 101 : rmx;
  OK(kk_parallel_reduce_md("md_max", &q, KK_KERNEL(md_max2), KK_ARGS(a), KK_RESULT(mx)));
  ck_assert_int_eq(mx, rmx);
  /* an empty box: the identity */
  q.end[1] = 0;
  OK(kk_parallel_reduce_md("md_max", &q, KK_KERNEL(md_max2), KK_ARGS(a), KK_RESULT(mx)));
  ck_assert_int_eq(mx, INT64_MIN);
  /* an empty outermost dimension with default tiles after it (host backends
   * once divided by zero choosing those tiles): nothing runs, the identity */
  for (int o = 0; o < 2; o++) {
    kk_iterate_t it = o ? KK_ITERATE_LEFT : KK_ITERATE_RIGHT;
    kk_md_policy_t e = {sizeof e, 2, it, it, {0, 0}, {0, 0}, {0, 0}, NULL};
    e.end[o ? 0 : 1] = 17; /* the outermost dimension of the order stays empty */
    mx = 5;
    OK(kk_parallel_reduce_md("md_max", &e, KK_KERNEL(md_max2), KK_ARGS(a), KK_RESULT(mx)));
    ck_assert_int_eq(mx, INT64_MIN);
    OK(kk_parallel_for_md("md_empty", &e, KK_KERNEL(md_count2), KK_ARGS(a))); /* a.hits is unbound: must not run */
    OK(kk_fence());
  }
  /* rank mismatch is refused */
  q.rank = 3;
  ck_assert_int_eq(kk_parallel_reduce_md("md_max", &q, KK_KERNEL(md_max2), KK_ARGS(a), KK_RESULT(mx)),
                   KK_ERROR_KERNEL_MISMATCH);
  ck_assert_contains(kk_last_error(), "the policy has rank 3, kernel 'md_max2' has rank 2");
}
END_TEST

/* ---- teams -------------------------------------------------------------------------------- */

static double aval(int64_t i, int64_t j) { return (double)((i * 3 + j * 5) % 11) - 5.0; }

static void team_case(int64_t rows, int64_t cols, int team_size, int vector, int level, kk_schedule_t sched,
                      int64_t chunk, kk_instance_t *inst) {
  int64_t e2[2] = {rows, cols}, e9[2] = {rows, 9};
  kk_view_t *A = viewn("A", KK_DOUBLE, 2, e2), *x = viewn("x", KK_DOUBLE, 1, &cols), *y = viewn("y", KK_DOUBLE, 1, &rows);
  kk_view_t *out = viewn("out", KK_INT64, 2, e9), *sc = viewn("scan", KK_INT64, 2, e2);
  kk_view_t *hA = host_of(A), *hx = host_of(x);
  double *pa = kk_view_data(hA), *px = kk_view_data(hx);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++)
      pa[i * kk_view_stride(hA, 0) + j * kk_view_stride(hA, 1)] = aval(i, j);
  for (int64_t j = 0; j < cols; j++)
    px[j] = (double)(j % 4) - 1.5;
  upload(A, hA);
  upload(x, hx);
  unsigned char poison[8];
  memset(poison, 0xA5, sizeof poison);
  OK(kk_deep_copy_fill(out, poison));
  OK(kk_deep_copy_fill(y, poison));
  struct team_args a = {kk_view_bind(A), kk_view_bind(x), kk_view_bind(y), kk_view_bind(out), kk_view_bind(sc),
                        rows, cols, level};
  kk_team_policy_t p = {sizeof p, rows, team_size, vector, {0, 0}, {0, 0}, chunk, sched, inst};
  int ts = team_size;
  if (!ts)
    OK(kk_team_size_recommended(KK_KERNEL(team_matvec), &p, &ts));
  /* KK_AUTO vector length: the device's warp, within its maximum */
  kk_device_info_t dev = {.struct_size = sizeof dev};
  OK(kk_device_get_info(kk_backend_default(), kk_device_id(), &dev));
  const int auto_vector = dev.warp_size > 1 ? (dev.warp_size < dev.max_vector_length ? dev.warp_size : dev.max_vector_length) : 1;
  p.scratch_team[level] = kk_scratch_size(sizeof(double), cols) + kk_scratch_size(sizeof(int64_t), ts);
  p.scratch_thread[level] = kk_scratch_size(sizeof(int64_t), 4);
  OK(kk_parallel_for_team("matvec", &p, KK_KERNEL(team_matvec), KK_ARGS(a)));
  kk_view_t *hy = host_of(y), *ho = host_of(out), *hs = host_of(sc);
  download(hy, y);
  download(ho, out);
  download(hs, sc);
  const double *py = kk_view_data(hy);
  const int64_t *po = kk_view_data(ho), *ps = kk_view_data(hs);
  int64_t mx = 0;
  for (int64_t j = 0; j < cols; j++)
    mx = (j * 37) % 61 > mx ? (j * 37) % 61 : mx;
  for (int64_t i = 0; i < rows; i++) {
    double ref = 0;
    for (int64_t j = 0; j < cols; j++)
      ref += aval(i, j) * px[j];
    ck_assert_msg(py[i] == ref, "team size %d: y[%lld] = %g, expected %g", ts, (long long)i, py[i], ref);
#define OUT(c) po[i * kk_view_stride(ho, 0) + (c) * kk_view_stride(ho, 1)]
    ck_assert_int_eq(OUT(0), i);
    ck_assert_int_eq(OUT(1), ts);
    ck_assert_int_eq(OUT(2), vector ? vector : auto_vector);
    ck_assert_int_eq(OUT(3), cols);
    ck_assert_int_eq(OUT(4), 16 * 17 / 2);
    ck_assert_int_eq(OUT(5), mx);
    ck_assert_int_eq(OUT(6), 7 * i + 3);
    ck_assert_int_eq(OUT(7), cols * (cols - 1) / 2 + cols * i);
    ck_assert_msg(OUT(8) == 1, "team size %d, league rank %lld: the team's threads disagreed or a barrier failed", ts,
                  (long long)i);
#undef OUT
    int64_t run = 0;
    for (int64_t j = 0; j < cols; j++) {
      ck_assert_int_eq(ps[i * kk_view_stride(hs, 0) + j * kk_view_stride(hs, 1)], run);
      run += j + i;
    }
  }
  kk_view_release(hy), kk_view_release(ho), kk_view_release(hs), kk_view_release(hA), kk_view_release(hx);
  kk_view_release(A), kk_view_release(x), kk_view_release(y), kk_view_release(out), kk_view_release(sc);
}

START_TEST(teams_every_size) {
  int maxts = 0;
  kk_team_policy_t p = {sizeof p, 10, KK_AUTO, KK_AUTO, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
  OK(kk_team_size_max(KK_KERNEL(team_matvec), &p, &maxts));
  ck_assert_int_ge(maxts, 1);
  int rec = 0;
  OK(kk_team_size_recommended(KK_KERNEL(team_matvec), &p, &rec));
  ck_assert_int_ge(rec, 1);
  ck_assert_int_le(rec, maxts);
  static const int64_t shapes[][2] = {{1, 1}, {13, 29}, {64, 7}, {5, 200}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int ts = 1; ts <= maxts && ts <= 8; ts = ts < 4 ? ts + 1 : ts * 2) {
      team_case(shapes[s][0], shapes[s][1], ts, 1, 0, KK_SCHEDULE_STATIC, 0, NULL);
      team_case(shapes[s][0], shapes[s][1], ts, 4, 1, KK_SCHEDULE_DYNAMIC, 3, NULL);
    }
  team_case(17, 9, KK_AUTO, KK_AUTO, 0, KK_SCHEDULE_STATIC, 2, NULL);
  /* a league of zero teams runs nothing */
  team_case(0, 5, 1, 1, 0, KK_SCHEDULE_STATIC, 0, NULL);
}
END_TEST

/* kk_team_size_max and _recommended answer for the policy's instance: a
 * created instance may have fewer threads than the default one (on host
 * backends, option instance_threads), and the size it answers is one a
 * launch on it takes; one more is refused before launch, with that limit. */
START_TEST(team_size_per_instance) {
  const int64_t rows = 9, cols = 5;
  int64_t e2[2] = {rows, cols};
  kk_view_t *A = viewn("A", KK_DOUBLE, 2, e2), *hA = host_of(A);
  double ref = 0;
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++)
      ref += ((double *)kk_view_data(hA))[i * kk_view_stride(hA, 0) + j * kk_view_stride(hA, 1)] = aval(i, j);
  upload(A, hA);
  struct team_args a;
  memset(&a, 0, sizeof a);
  a.a = kk_view_bind(A);
  a.cols = cols;
  kk_instance_t *inst;
  OK(kk_instance_create(NULL, &inst));
  kk_team_policy_t p = {sizeof p, rows, KK_AUTO, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, inst};
  int maxts = 0, rec = 0;
  OK(kk_team_size_max(KK_KERNEL(team_total), &p, &maxts));
  OK(kk_team_size_recommended(KK_KERNEL(team_total), &p, &rec));
  ck_assert_int_ge(rec, 1);
  ck_assert_int_le(rec, maxts);
  /* the largest size it answers runs, every thread of every team taking part */
  double s = 0;
  p.team_size = maxts;
  OK(kk_parallel_reduce_team("total", &p, KK_KERNEL(team_total), KK_ARGS(a), KK_RESULT(s)));
  ck_assert_msg(s == ref + (double)(rows * maxts), "team size %d: %g, expected %g", maxts, s,
                ref + (double)(rows * maxts));
  /* one more is refused before launch, naming the instance's limit */
  p.team_size = maxts + 1;
  ck_assert_int_eq(kk_parallel_reduce_team("too big", &p, KK_KERNEL(team_total), KK_ARGS(a), KK_RESULT(s)),
                   KK_ERROR_LIMIT);
  char want[128];
  snprintf(want, sizeof want, "team size %d exceeds the maximum %d of kernel 'team_total' on this created instance",
           maxts + 1, maxts);
  ck_assert_contains(kk_last_error(), want);
  /* team kernels with scratch and nested loops, at sizes it allows */
  OK(kk_team_size_max(KK_KERNEL(team_matvec), &p, &maxts));
  team_case(7, 5, maxts < 8 ? maxts : 8, 1, 0, KK_SCHEDULE_STATIC, 0, inst);
  team_case(7, 5, rec, 1, 0, KK_SCHEDULE_DYNAMIC, 1, inst);
  team_case(7, 5, KK_AUTO, 1, 0, KK_SCHEDULE_STATIC, 0, inst);
  OK(kk_instance_destroy(inst));
  kk_view_release(hA), kk_view_release(A);
}
END_TEST

/* A league of more threads (league size x team size x vector length) than
 * int64_t counts is refused before launch with its sizes; a chunk of league
 * ranks as large as int64_t allows runs every team once. */
START_TEST(team_counts_beyond_int64) {
  struct team_args a;
  memset(&a, 0, sizeof a);
  double r = 0;
  kk_team_policy_t p = {sizeof p, INT64_MAX, 1, 2, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
  ck_assert_int_eq(kk_parallel_for_team("huge", &p, KK_KERNEL(team_matvec), KK_ARGS(a)), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_for_team 'huge': league size 9223372036854775807 x team size 1 x "
                                      "vector length 2 is more threads than int64_t counts");
  p.league_size = (int64_t)1 << 62;
  ck_assert_int_eq(kk_parallel_reduce_team("huge", &p, KK_KERNEL(team_total), KK_ARGS(a), KK_RESULT(r)),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_reduce_team 'huge': league size 4611686018427387904 x team size 1 "
                                      "x vector length 2 is more threads than int64_t counts");
  ck_assert(r == 0);
  team_case(13, 5, 1, 1, 0, KK_SCHEDULE_STATIC, INT64_MAX, NULL);
  team_case(13, 5, 1, 1, 0, KK_SCHEDULE_DYNAMIC, INT64_MAX, NULL);
  team_case(13, 5, 1, 1, 0, KK_SCHEDULE_DYNAMIC, INT64_MAX - 5, NULL);
}
END_TEST

/* Vector loops unrolled three ways (KK_VECTOR_UNROLL 3 around the kernel):
 * every trip count from 0 to cols, with auto and small vector lengths. */
START_TEST(team_vector_unroll) {
  const int64_t rows = 6, cols = 70, league = 11;
  const int64_t e[2] = {rows, cols};
  kk_view_t *A = viewn("A", KK_DOUBLE, 2, e), *y = viewn("y", KK_DOUBLE, 1, &rows);
  kk_view_t *hA = host_of(A);
  double *pa = kk_view_data(hA);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++)
      pa[i * kk_view_stride(hA, 0) + j * kk_view_stride(hA, 1)] = (double)(i * 100 + j + 1);
  upload(A, hA);
  const int vectors[3] = {KK_AUTO, 1, 4};
  for (int v = 0; v < 3; v++) {
    double zero = 0;
    OK(kk_deep_copy_fill(y, &zero));
    struct team_args a;
    memset(&a, 0, sizeof a);
    a.a = kk_view_bind(A), a.y = kk_view_bind(y), a.rows = rows, a.cols = cols;
    kk_team_policy_t p = {sizeof p, league, KK_AUTO, vectors[v], {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
    OK(kk_parallel_for_team("unrolled", &p, KK_KERNEL(team_vector_unrolled), KK_ARGS(a)));
    kk_view_t *hy = host_of(y);
    download(hy, y);
    const double *py = kk_view_data(hy);
    for (int64_t r = 0; r < rows; r++) {
      double ref = 0;
      for (int64_t l = 0; l < league; l++) {
        const int64_t len = (l + r) % (cols + 1);
        double sum = 0;
        for (int64_t k = 0; k < len; k++)
          sum += (double)(r * 100 + k + 1);
        ref += (double)len + 1000.0 * sum;
      }
      ck_assert_msg(py[r] == ref, "vector length %d: y[%lld] = %.17g, expected %.17g", vectors[v], (long long)r, py[r],
                    ref);
    }
    kk_view_release(hy);
  }
  kk_view_release(hA), kk_view_release(A), kk_view_release(y);
}
END_TEST

/* Team kernels compiled with launch bounds of 64 threads (KK_TEAM_BOUNDS):
 * on CUDA and HIP the kernel's limit is 64 threads a team, which
 * kk_team_size_max answers and a launch of more is refused for; elsewhere
 * the hint changes nothing; at every size allowed the sums are right. */
START_TEST(team_launch_bounds) {
  const int64_t rows = 9, cols = 70;
  int64_t e2[2] = {rows, cols};
  kk_view_t *A = viewn("A", KK_DOUBLE, 2, e2), *hA = host_of(A), *y = viewn("y", KK_DOUBLE, 1, &rows);
  double ref = 0, rowref[9];
  for (int64_t i = 0; i < rows; i++) {
    rowref[i] = 0;
    for (int64_t j = 0; j < cols; j++) {
      const double v = aval(i, j);
      ((double *)kk_view_data(hA))[i * kk_view_stride(hA, 0) + j * kk_view_stride(hA, 1)] = v;
      rowref[i] += v;
      ref += v;
    }
  }
  upload(A, hA);
  struct team_args a;
  memset(&a, 0, sizeof a);
  a.a = kk_view_bind(A), a.y = kk_view_bind(y), a.cols = cols;
  kk_team_policy_t p = {sizeof p, rows, KK_AUTO, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
  int maxts = 0;
  OK(kk_team_size_max(KK_KERNEL(team_total_bounded), &p, &maxts));
  ck_assert_int_ge(maxts, 1);
  const char *b = kk_backend_default();
  const int simt = strcmp(b, "cuda") == 0 || strcmp(b, "hip") == 0;
  if (simt)
    ck_assert_msg(maxts <= 64, "%s: team size max %d of a kernel bounded to 64 threads", b, maxts);
  const int sizes[3] = {1, maxts < 64 ? maxts : 64, KK_AUTO};
  for (int k = 0; k < 3; k++) {
    double s = 0;
    int ts = sizes[k];
    p.team_size = ts;
    OK(kk_parallel_reduce_team("bounded", &p, KK_KERNEL(team_total_bounded), KK_ARGS(a), KK_RESULT(s)));
    if (ts == KK_AUTO)
      continue; /* the size chosen is the backend's: the row sums below check that launch */
    ck_assert_msg(s == ref + (double)(rows * ts), "team size %d: %g, expected %g", ts, s, ref + (double)(rows * ts));
    double zero = 0;
    OK(kk_deep_copy_fill(y, &zero));
    OK(kk_parallel_for_team("bounded rows", &p, KK_KERNEL(team_rows_bounded), KK_ARGS(a)));
    kk_view_t *hy = host_of(y);
    download(hy, y);
    for (int64_t i = 0; i < rows; i++)
      ck_assert_msg(((double *)kk_view_data(hy))[i] == rowref[i], "team size %d: row %lld", ts, (long long)i);
    kk_view_release(hy);
  }
  if (simt) { /* one past the bound is refused before launch */
    p.team_size = 65;
    double s = 0;
    ck_assert_int_eq(kk_parallel_reduce_team("too big", &p, KK_KERNEL(team_total_bounded), KK_ARGS(a), KK_RESULT(s)),
                     KK_ERROR_LIMIT);
  }
  kk_view_release(hA), kk_view_release(A), kk_view_release(y);
}
END_TEST

/* A nested team reduction with a custom reducer (largest value, first
 * index), every team size the backend offers up to 8. */
START_TEST(team_custom_nested_reduce) {
  const int64_t league = 9, cols = 50;
  const int64_t e[2] = {league, 1};
  kk_view_t *out = viewn("out", KK_INT64, 2, e);
  int maxts = 0;
  kk_team_policy_t p = {sizeof p, league, KK_AUTO, KK_AUTO, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
  OK(kk_team_size_max(KK_KERNEL(team_custom_reduce), &p, &maxts));
  for (int ts = 1; ts <= maxts && ts <= 8; ts *= 2) {
    int64_t poison = -7;
    OK(kk_deep_copy_fill(out, &poison));
    struct team_args a;
    memset(&a, 0, sizeof a);
    a.out = kk_view_bind(out), a.cols = cols;
    p.team_size = ts;
    OK(kk_parallel_for_team("custom", &p, KK_KERNEL(team_custom_reduce), KK_ARGS(a)));
    kk_view_t *h = host_of(out);
    download(h, out);
    const int64_t *po = kk_view_data(h);
    for (int64_t l = 0; l < league; l++) {
      int64_t v = -1, at = -1;
      for (int64_t j = 0; j < cols; j++)
        if ((j * 37 + l * 11) % 61 > v)
          v = (j * 37 + l * 11) % 61, at = j;
      ck_assert_msg(po[l * kk_view_stride(h, 0)] == v * 1000 + at, "team size %d, league rank %lld: %lld, expected %lld",
                    ts, (long long)l, (long long)po[l * kk_view_stride(h, 0)], (long long)(v * 1000 + at));
    }
    kk_view_release(h);
  }
  kk_view_release(out);
}
END_TEST

START_TEST(team_scratch_views_both_levels) {
  const int64_t rows = 9;
  int64_t e1[2] = {rows, 1};
  kk_view_t *y = viewn("y", KK_DOUBLE, 1, &rows), *out = viewn("out", KK_INT64, 2, e1);
  struct team_args a;
  memset(&a, 0, sizeof a);
  a.y = kk_view_bind(y);
  a.out = kk_view_bind(out);
  int maxts = 1;
  kk_team_policy_t p = {sizeof p, rows, 1, 1, {0, kk_scratch_size(sizeof(double), 12)},
                        {kk_scratch_size(sizeof(int64_t), 5), 0}, 0, KK_SCHEDULE_STATIC, NULL};
  OK(kk_team_size_max(KK_KERNEL(team_scratch_views), &p, &maxts));
  for (int ts = 1; ts <= maxts && ts <= 4; ts++) {
    p.team_size = ts;
    OK(kk_parallel_for_team("views", &p, KK_KERNEL(team_scratch_views), KK_ARGS(a)));
    kk_view_t *hy = host_of(y), *ho = host_of(out);
    download(hy, y);
    download(ho, out);
    for (int64_t r = 0; r < rows; r++) {
      ck_assert(((double *)kk_view_data(hy))[r] == 12.0 * 100.0 * (double)r + 66.0);
      ck_assert_int_eq(((int64_t *)kk_view_data(ho))[r * kk_view_stride(ho, 0)], 0); /* team rank 0's sum */
    }
    kk_view_release(hy), kk_view_release(ho);
  }
  kk_view_release(y), kk_view_release(out);
}
END_TEST

START_TEST(team_scratch_limits) {
  const int64_t rows = 4;
  kk_view_t *y = viewn("y", KK_DOUBLE, 1, &rows);
  struct team_args a;
  memset(&a, 0, sizeof a);
  a.y = kk_view_bind(y);
  a.cols = 64;
  kk_device_info_t d = {.struct_size = sizeof d};
  OK(kk_device_get_info(kk_backend_default(), kk_device_id(), &d));
  for (int level = 0; level < 2; level++) {
    a.level = level;
    /* more than the backend offers: refused before launch, limit in the message */
    kk_team_policy_t p = {sizeof p, rows, 1, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
    p.scratch_team[level] = d.scratch_max[level] + 1;
    ck_assert_int_eq(kk_parallel_for_team("big", &p, KK_KERNEL(team_overrun), KK_ARGS(a)), KK_ERROR_LIMIT);
    char limit[64];
    snprintf(limit, sizeof limit, "allows %zu", d.scratch_max[level]);
    ck_assert_contains(kk_last_error(), limit);
    ck_assert_contains(kk_last_error(), level ? "scratch level 1" : "scratch level 0");
    /* less than the kernel uses: the kernel fails, nothing is overwritten */
    p.scratch_team[level] = 8 * 16;
    /* a host backend reports it from the launch; a GPU, whose launch is
     * asynchronous, from the fence that follows */
    kk_status_t st = kk_parallel_for_team("small", &p, KK_KERNEL(team_overrun), KK_ARGS(a));
    if (st == KK_OK)
      st = kk_fence();
    ck_assert_int_eq(st, KK_ERROR_KERNEL_FAILED);
    ck_assert_contains(kk_last_error(), "overrun");
    ck_assert_contains(kk_last_error(), "asked for 512 bytes per team, the launch requested 128");
    /* exactly enough: fine */
    p.scratch_team[level] = kk_scratch_size(sizeof(double), 64);
    OK(kk_parallel_for_team("exact", &p, KK_KERNEL(team_overrun), KK_ARGS(a)));
  }
  /* Level-0 scratch far beyond any device's shared memory: a GPU's team-size
   * query then finds that no team fits (maximum 0), and the launch once said
   * "team size 1 exceeds the maximum 0".  Every backend gives the
   * scratch sentence, for an explicit team size and for KK_AUTO. */
  for (int32_t ts = KK_AUTO; ts <= 1; ts++) {
    kk_team_policy_t p = {sizeof p, rows, ts, 1, {(uint64_t)1 << 40, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
    ck_assert_int_eq(kk_parallel_for_team("vast", &p, KK_KERNEL(team_overrun), KK_ARGS(a)), KK_ERROR_LIMIT);
    char allows[128];
    snprintf(allows, sizeof allows, "threads x 0), backend %s allows %zu", kk_backend_default(), d.scratch_max[0]);
    ck_assert_contains(kk_last_error(), "kk_parallel_for_team 'vast': scratch level 0: 1099511627776 bytes per team "
                                        "requested (1099511627776 per team + ");
    ck_assert_contains(kk_last_error(), allows);
    ck_assert_msg(!strstr(kk_last_error(), "team size"), "team size %d: %s", ts, kk_last_error());
  }
  /* team size beyond the maximum */
  kk_team_policy_t q = {sizeof q, rows, 100000, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
  ck_assert_int_eq(kk_parallel_for_team("huge", &q, KK_KERNEL(team_overrun), KK_ARGS(a)), KK_ERROR_LIMIT);
  ck_assert_contains(kk_last_error(), "team size 100000 exceeds the maximum");
  kk_view_release(y);
}
END_TEST

START_TEST(team_reduce) {
  const int64_t rows = 23, cols = 11;
  int64_t e2[2] = {rows, cols};
  kk_view_t *A = viewn("A", KK_DOUBLE, 2, e2), *hA = host_of(A);
  double ref = 0, mn = 1e300;
  int64_t loc = -1;
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      double v = aval(i, j);
      ((double *)kk_view_data(hA))[i * kk_view_stride(hA, 0) + j * kk_view_stride(hA, 1)] = v;
      ref += v;
      if (v < mn)
        mn = v, loc = i * cols + j;
    }
  upload(A, hA);
  struct team_args a;
  memset(&a, 0, sizeof a);
  a.a = kk_view_bind(A);
  a.cols = cols;
  int maxts = 1;
  kk_team_policy_t p = {sizeof p, rows, 1, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
  OK(kk_team_size_max(KK_KERNEL(team_total), &p, &maxts));
  for (int ts = 1; ts <= maxts && ts <= 4; ts++) {
    p.team_size = ts;
    double s = 0;
    OK(kk_parallel_reduce_team("total", &p, KK_KERNEL(team_total), KK_ARGS(a), KK_RESULT(s)));
    ck_assert_msg(s == ref + (double)(rows * ts), "team size %d: %g, expected %g", ts, s, ref + (double)(rows * ts));
    kk_valloc_double ml;
    OK(kk_parallel_reduce_team("minloc", &p, KK_KERNEL(team_minloc), KK_ARGS(a), KK_RESULT(ml)));
    ck_assert(ml.val == mn && ml.loc == loc);
  }
  kk_view_release(hA), kk_view_release(A);
}
END_TEST

/* ---- atomics ------------------------------------------------------------------------------- */

static kk_view_t *counters(const char *label, kk_type_t t, int64_t n, const void *init, size_t elem) {
  kk_view_t *v = viewn(label, t, 1, &n), *h = host_of(v);
  for (int64_t i = 0; i < n; i++)
    memcpy((char *)kk_view_data(h) + i * (int64_t)elem, init, elem);
  upload(v, h);
  kk_view_release(h);
  return v;
}

/* Every integer operation on 32 and 64-bit, signed and unsigned, under contention. */
#define INT_ATOMIC_TEST(NAME, T, KT, V)                                                                     \
  START_TEST(atomics_##NAME) {                                                                              \
    const int64_t n = 20000;                                                                                \
    int64_t n2 = 2 * n;                                                                                     \
    struct atomic_args a;                                                                                   \
    memset(&a, 0, sizeof a);                                                                                \
    a.n = n;                                                                                                \
    T init[16];                                                                                             \
    for (int k = 0; k < 16; k++)                                                                            \
      init[k] = 0;                                                                                          \
    init[1] = (T)(2 * n);                                                                                   \
    init[2] = (T)100000;                                                                                    \
    init[4] = (T)0x7fffffff;                                                                                \
    init[8] = (T)n;                                                                                         \
    init[12] = (T)n;                                                                                        \
    init[13] = (T)1000;                                                                                     \
    kk_view_t *c = viewn("c", KT, 1, (int64_t[]){16}), *hc = host_of(c);                                    \
    memcpy(kk_view_data(hc), init, sizeof init);                                                            \
    upload(c, hc);                                                                                          \
    kk_view_t *tk = viewn("tickets", KK_INT64, 1, &n2);                                                     \
    a.V = kk_view_bind(c);                                                                                  \
    a.tickets = kk_view_bind(tk);                                                                           \
    OK(kk_parallel_for("atomics", KK_RANGE(0, n), KK_KERNEL(atomics_##NAME), KK_ARGS(a)));                  \
    download(hc, c);                                                                                        \
    const T *p = kk_view_data(hc);                                                                          \
    ck_assert_msg(p[0] == (T)(3 * n), "add: %lld", (long long)p[0]);                                        \
    ck_assert(p[1] == (T)0);                                                                                \
    ck_assert(p[2] == (T)5);                                                                                \
    ck_assert(p[3] == (T)1004);                                                                             \
    ck_assert(p[4] == (T)0x7fff0000);                                                                       \
    ck_assert(p[5] == (T)0xffff);                                                                           \
    ck_assert(p[6] == (T)0); /* every bit of 8 flipped n / 8 times, an even count */                        \
    ck_assert(p[7] == (T)n);                                                                                \
    ck_assert(p[8] == (T)0);                                                                                \
    ck_assert(p[9] == (T)n);                                                                                \
    ck_assert((double)p[10] >= 0.0 && p[10] < (T)7);                                                        \
    ck_assert(p[11] == (T)(2 * n));                                                                         \
    ck_assert(p[12] == (T)0);                                                                               \
    ck_assert(p[13] == (T)1);                                                                               \
    ck_assert(p[14] == (T)50);                                                                              \
    ck_assert(p[15] == (T)1);                                                                               \
    /* fetch_add handed out every ticket 0 .. n-1 exactly once */                                          \
    kk_view_t *ht = host_of(tk);                                                                            \
    download(ht, tk);                                                                                       \
    for (int64_t i = 0; i < n; i++)                                                                         \
      ck_assert_msg(((int64_t *)kk_view_data(ht))[i] == 1, "ticket %lld handed out %lld times",             \
                    (long long)i, (long long)((int64_t *)kk_view_data(ht))[i]);                             \
    kk_view_release(ht), kk_view_release(tk), kk_view_release(hc), kk_view_release(c);                     \
  }                                                                                                         \
  END_TEST
INT_ATOMIC_TEST(i32, int32_t, KK_INT32, i32)
INT_ATOMIC_TEST(u32, uint32_t, KK_UINT32, u32)
INT_ATOMIC_TEST(i64, int64_t, KK_INT64, i64)
INT_ATOMIC_TEST(u64, uint64_t, KK_UINT64, u64)

#define FP_ATOMIC_TEST(NAME, T, KT, V)                                                                      \
  START_TEST(atomics_##NAME) {                                                                              \
    const int64_t n = 20000;                                                                                \
    int64_t n2 = 2 * n;                                                                                     \
    struct atomic_args a;                                                                                   \
    memset(&a, 0, sizeof a);                                                                                \
    T init[16] = {0};                                                                                       \
    init[1] = (T)(2 * n);                                                                                   \
    init[2] = (T)100000;                                                                                    \
    init[8] = (T)n;                                                                                         \
    kk_view_t *c = counters("c", KT, 16, init, sizeof(T)), *hc = host_of(c);                               \
    memcpy(kk_view_data(hc), init, sizeof init);                                                            \
    upload(c, hc);                                                                                          \
    kk_view_t *tk = viewn("tickets", KK_INT64, 1, &n2);                                                     \
    a.V = kk_view_bind(c);                                                                                  \
    a.tickets = kk_view_bind(tk);                                                                           \
    OK(kk_parallel_for("atomics", KK_RANGE(0, n), KK_KERNEL(atomics_##NAME), KK_ARGS(a)));                  \
    download(hc, c);                                                                                        \
    const T *p = kk_view_data(hc);                                                                          \
    ck_assert(p[0] == (T)(3 * n) && p[1] == (T)0 && p[2] == (T)5 && p[3] == (T)1004);                        \
    ck_assert(p[7] == (T)n && p[8] == (T)0 && p[9] == (T)n && p[11] == (T)(2 * n));                         \
    ck_assert((double)p[10] >= 0.0 && p[10] < (T)7);                                                        \
    kk_view_t *ht = host_of(tk);                                                                            \
    download(ht, tk);                                                                                       \
    for (int64_t i = 0; i < n; i++)                                                                         \
      ck_assert(((int64_t *)kk_view_data(ht))[i] == 1);                                                     \
    kk_view_release(ht), kk_view_release(tk), kk_view_release(hc), kk_view_release(c);                     \
  }                                                                                                         \
  END_TEST
FP_ATOMIC_TEST(f32, float, KK_FLOAT, f32)
FP_ATOMIC_TEST(f64, double, KK_DOUBLE, f64)

/* complex float by CAS, complex double and a 24-byte struct by the lock table */
START_TEST(atomics_complex_and_structs) {
  const int64_t n = 20000;
  int64_t n2 = 2 * n;
  struct atomic_args a;
  memset(&a, 0, sizeof a);
  a.n = n;
  kk_complex_float zf[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
  kk_complex_double zd[6] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}};
  struct rec16 zr[3];
  memset(zr, 0, sizeof zr);
  kk_view_t *cf = counters("cf", KK_COMPLEX_FLOAT, 4, zf, sizeof *zf);
  kk_view_t *cd = counters("cd", KK_COMPLEX_DOUBLE, 6, zd, sizeof *zd);
  kk_view_spec_t rs = KK_VIEW_SPEC_INIT;
  rs.label = "rec";
  rs.type = KK_TYPE_CUSTOM;
  rs.elem_size = sizeof(struct rec16);
  rs.rank = 1;
  rs.extents[0] = 3;
  kk_view_t *rec = NULL, *tk = viewn("tickets", KK_INT64, 1, &n2);
  OK(kk_view_create(&rs, &rec));
  a.cf = kk_view_bind(cf);
  a.cd = kk_view_bind(cd);
  a.rec = kk_view_bind(rec);
  a.tickets = kk_view_bind(tk);
  OK(kk_parallel_for("complex", KK_RANGE(0, n), KK_KERNEL(atomics_complex), KK_ARGS(a)));
  kk_view_t *hf = host_of(cf), *hd = host_of(cd), *hr = host_of(rec), *ht = host_of(tk);
  download(hf, cf), download(hd, cd), download(hr, rec), download(ht, tk);
  const kk_complex_float *pf = kk_view_data(hf);
  const kk_complex_double *pd = kk_view_data(hd);
  ck_assert(pf[0].re == (float)n && pf[0].im == -2.0f * (float)n);
  ck_assert(pf[1].re == -(float)n && pf[1].im == 2.0f * (float)n);
  ck_assert(pd[0].re == (double)n && pd[0].im == -2.0 * (double)n);
  ck_assert(pd[1].re == -(double)n && pd[1].im == 2.0 * (double)n);
  ck_assert(pd[2].re == (double)n);
  ck_assert(pd[3].re >= 0 && pd[3].re < 5 && pd[3].im == 1.0);
  ck_assert(pd[4].re == (double)n && pd[4].im == 2.0 * (double)n);
  ck_assert(pd[5].re == (double)n && pd[5].im == -0.5 * (double)n);
  for (int64_t i = 0; i < 2 * n; i++)
    ck_assert_msg(((int64_t *)kk_view_data(ht))[i] == 1, "complex ticket %lld", (long long)i);
  const struct rec16 *pr = kk_view_data(hr);
  int64_t count = 0;
  for (int k = 0; k < 3; k++) {
    count += pr[k].count;
    ck_assert(pr[k].sum == 0.5 * (double)pr[k].count);
  }
  ck_assert_int_eq(count, n);
  kk_view_release(hf), kk_view_release(hd), kk_view_release(hr), kk_view_release(ht);
  kk_view_release(cf), kk_view_release(cd), kk_view_release(rec), kk_view_release(tk);
}
END_TEST

/* ---- ScatterView ------------------------------------------------------------------------------ */

static kk_view_t *indices(int64_t n, int32_t cells) {
  kk_view_t *v = viewn("idx", KK_INT32, 1, &n), *h = host_of(v);
  int32_t *p = kk_view_data(h);
  uint64_t x = 88172645463325252ull;
  for (int64_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    p[i] = (int32_t)(x % (uint64_t)cells);
  }
  upload(v, h);
  kk_view_release(h);
  return v;
}

START_TEST(scatter_views) {
  const int64_t n = 50000;
  const int32_t cells = 97;
  kk_view_t *idx = indices(n, cells), *hidx = host_of(idx);
  download(hidx, idx); /* a mirror of device memory starts empty */
  const int32_t *pi = kk_view_data(hidx);
  for (int mode = KK_SCATTER_AUTO; mode <= KK_SCATTER_ATOMIC; mode++) {
    /* sum of int32 on top of existing values */
    int64_t nc = cells;
    kk_view_t *t = viewn("t", KK_INT32, 1, &nc);
    int32_t five = 5;
    OK(kk_deep_copy_fill(t, &five));
    kk_scatter_view_t *sv = NULL;
    kk_status_t st = kk_scatter_view_create(t, KK_SCATTER_SUM, mode, &sv);
    if (st == KK_ERROR_UNSUPPORTED) { /* duplicated mode on memory the host cannot reach */
      ck_assert_contains(kk_last_error(), "duplicated mode needs host-accessible memory");
      kk_view_release(t);
      continue;
    }
    ck_assert_msg(st == KK_OK, "%s", kk_last_error());
    if (mode != KK_SCATTER_AUTO)
      ck_assert_int_eq(kk_scatter_view_mode(sv), mode);
    struct scatter_args a = {kk_scatter_bind(sv), kk_view_bind(idx), n, 0};
    OK(kk_parallel_for("scatter", KK_RANGE(0, n), KK_KERNEL(scatter_sum_i32), KK_ARGS(a)));
    OK(kk_scatter_view_contribute(sv));
    OK(kk_parallel_for("scatter", KK_RANGE(0, n), KK_KERNEL(scatter_sum_i32), KK_ARGS(a)));
    OK(kk_scatter_view_contribute(sv));
    kk_view_t *h = host_of(t);
    download(h, t);
    int32_t ref[97];
    for (int c = 0; c < cells; c++)
      ref[c] = 5;
    for (int64_t i = 0; i < n; i++)
      ref[pi[i]] += 2 * (int32_t)(1 + i % 3);
    for (int c = 0; c < cells; c++)
      ck_assert_msg(((int32_t *)kk_view_data(h))[c] == ref[c], "mode %d cell %d: %d, expected %d", mode, c,
                    ((int32_t *)kk_view_data(h))[c], ref[c]);
    kk_view_release(h);
    /* reset discards what was not contributed */
    OK(kk_parallel_for("scatter", KK_RANGE(0, n), KK_KERNEL(scatter_sum_i32), KK_ARGS(a)));
    if (kk_scatter_view_mode(sv) == KK_SCATTER_DUPLICATED) {
      OK(kk_scatter_view_reset(sv));
      OK(kk_scatter_view_contribute(sv));
      h = host_of(t);
      download(h, t);
      for (int c = 0; c < cells; c++)
        ck_assert_int_eq(((int32_t *)kk_view_data(h))[c], ref[c]);
      kk_view_release(h);
    }
    kk_scatter_view_release(sv);
    kk_view_release(t);

    /* double sum, complex float and double sums, double min, int64 max, a rank-2 target */
    struct { kk_type_t type; int op; const kk_kernel_t *k; } cases[] = {
        {KK_DOUBLE, KK_SCATTER_SUM, KK_KERNEL(scatter_sum_f64)},
        {KK_COMPLEX_FLOAT, KK_SCATTER_SUM, KK_KERNEL(scatter_sum_cf)},
        {KK_COMPLEX_DOUBLE, KK_SCATTER_SUM, KK_KERNEL(scatter_sum_cd)},
        {KK_DOUBLE, KK_SCATTER_MIN, KK_KERNEL(scatter_min_f64)},
        {KK_INT64, KK_SCATTER_MAX, KK_KERNEL(scatter_max_i64)},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
      kk_view_t *tv = viewn("tv", cases[k].type, 1, &nc);
      kk_scatter_view_t *s2 = NULL;
      OK(kk_scatter_view_create(tv, cases[k].op, mode, &s2));
      struct scatter_args a2 = {kk_scatter_bind(s2), kk_view_bind(idx), n, 0};
      OK(kk_parallel_for("scatter", KK_RANGE(0, n), cases[k].k, KK_ARGS(a2)));
      OK(kk_scatter_view_contribute(s2));
      kk_view_t *h2 = host_of(tv);
      download(h2, tv);
      for (int c = 0; c < cells; c++) {
        double rre = 0, rim = 0, rmin = 0, rmax = 0; /* the target started at zero */
        for (int64_t i = 0; i < n; i++)
          if (pi[i] == c) {
            rre += cases[k].type == KK_DOUBLE ? 0.25 * (double)(1 + i % 3) : 1.0;
            rim += (double)(i % 2);
            double v = (double)((i * 31) % 1009);
            rmin = v < rmin ? v : rmin;
            rmax = v > rmax ? v : rmax;
          }
        const void *p = kk_view_data(h2);
        if (cases[k].type == KK_COMPLEX_FLOAT)
          ck_assert(((const float *)p)[2 * c] == (float)rre && ((const float *)p)[2 * c + 1] == (float)rim);
        else if (cases[k].type == KK_COMPLEX_DOUBLE)
          ck_assert(((const double *)p)[2 * c] == rre && ((const double *)p)[2 * c + 1] == rim);
        else if (cases[k].op == KK_SCATTER_MIN)
          ck_assert(((const double *)p)[c] == rmin);
        else if (cases[k].op == KK_SCATTER_MAX)
          ck_assert(((const int64_t *)p)[c] == (int64_t)rmax);
        else
          ck_assert_msg(((const double *)p)[c] == rre, "double sum cell %d", c);
      }
      kk_view_release(h2);
      kk_scatter_view_release(s2);
      kk_view_release(tv);
    }
    /* rank-2 targets in each layout: the fold walks the target through its
     * strides, the duplicates densely */
    const kk_layout_t layouts[3] = {KK_LAYOUT_DEFAULT, KK_LAYOUT_LEFT, KK_LAYOUT_STRIDE};
    for (int l = 0; l < 3; l++) {
      kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
      spec.label = "t2";
      spec.rank = 2;
      spec.extents[0] = 5, spec.extents[1] = 20;
      spec.layout = layouts[l];
      spec.strides[0] = 3, spec.strides[1] = 17; /* strided: padded, neither right nor left */
      kk_view_t *t2 = NULL;
      OK(kk_view_create(&spec, &t2));
      kk_scatter_view_t *s3 = NULL;
      OK(kk_scatter_view_create(t2, KK_SCATTER_SUM, mode, &s3));
      struct scatter_args a3 = {kk_scatter_bind(s3), kk_view_bind(idx), n, 0};
      OK(kk_parallel_for("scatter2d", KK_RANGE(0, n), KK_KERNEL(scatter_sum_2d), KK_ARGS(a3)));
      OK(kk_scatter_view_contribute(s3));
      kk_view_t *h3 = host_of(t2);
      download(h3, t2);
      for (int c = 0; c < cells && c < 100; c++) {
        double r = 0;
        for (int64_t i = 0; i < n; i++)
          r += pi[i] == c;
        ck_assert_msg(((double *)kk_view_data(h3))[(c % 5) * kk_view_stride(h3, 0) + (c / 5) * kk_view_stride(h3, 1)] == r,
                      "layout %d mode %d cell %d", (int)layouts[l], mode, c);
      }
      kk_view_release(h3);
      kk_scatter_view_release(s3);
      kk_view_release(t2);
    }
  }
  /* unsupported combinations are refused */
  int64_t nc = 4;
  kk_view_t *c8 = viewn("c8", KK_INT8, 1, &nc), *cx = viewn("cx", KK_COMPLEX_DOUBLE, 1, &nc);
  kk_scatter_view_t *bad = NULL;
  ck_assert_int_eq(kk_scatter_view_create(c8, KK_SCATTER_SUM, KK_SCATTER_AUTO, &bad), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_scatter_view_create(cx, KK_SCATTER_MIN, KK_SCATTER_AUTO, &bad), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "min is not supported on elements of type complex double");
  kk_view_release(c8), kk_view_release(cx), kk_view_release(hidx), kk_view_release(idx);
}
END_TEST

/* A target large enough that contribute and reset run on the backend's
 * threads (the small ones above fold on the calling thread): each thread's
 * block of elements crosses rows, in every layout, for sum, min and max,
 * twice on top of the target's values, and a reset in between. */
START_TEST(scatter_views_parallel_fold) {
  const int64_t n = 200000, ext[3] = {7, 33, 41};
  const int32_t cells = 7 * 33 * 41;
  kk_view_t *idx = indices(n, cells), *hidx = host_of(idx);
  download(hidx, idx);
  const int32_t *pi = kk_view_data(hidx);
  double *ref = malloc(sizeof(double) * (size_t)cells);
  ck_assert_ptr_nonnull(ref);
  const kk_layout_t layouts[3] = {KK_LAYOUT_DEFAULT, KK_LAYOUT_LEFT, KK_LAYOUT_STRIDE};
  for (int mode = KK_SCATTER_DUPLICATED; mode <= KK_SCATTER_ATOMIC; mode++)
    for (int l = 0; l < 3; l++)
      for (int op = 0; op < 3; op++) {
        kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
        spec.label = "t3";
        spec.rank = 3;
        for (int d = 0; d < 3; d++)
          spec.extents[d] = ext[d];
        spec.layout = layouts[l];
        spec.strides[0] = 43 * 34, spec.strides[1] = 43, spec.strides[2] = 1; /* padded rows and planes */
        kk_view_t *t = NULL;
        OK(kk_view_create(&spec, &t));
        const double start = op == 1 ? 600.0 : 3.0; /* min: below some updates, above others */
        OK(kk_deep_copy_fill(t, &start));
        kk_scatter_view_t *sv = NULL;
        const int kops[3] = {KK_SCATTER_SUM, KK_SCATTER_MIN, KK_SCATTER_MAX};
        kk_status_t st = kk_scatter_view_create(t, kops[op], mode, &sv);
        if (st == KK_ERROR_UNSUPPORTED) { /* duplicated mode on memory the host cannot reach */
          kk_view_release(t);
          continue;
        }
        ck_assert_msg(st == KK_OK, "%s", kk_last_error());
        struct scatter_args a = {kk_scatter_bind(sv), kk_view_bind(idx), n, op};
        for (int c = 0; c < cells; c++)
          ref[c] = start;
        for (int round = 0; round < 2; round++) {
          OK(kk_parallel_for("scatter3d", KK_RANGE(0, n), KK_KERNEL(scatter_3d), KK_ARGS(a)));
          OK(kk_scatter_view_contribute(sv));
          for (int64_t i = 0; i < n; i++) {
            const double v = op == 0 ? 0.5 * (double)(1 + i % 3) : (double)((i * 31) % 1009);
            double *r = &ref[pi[i]];
            *r = op == 0 ? *r + v : op == 1 ? (v < *r ? v : *r) : (v > *r ? v : *r);
          }
        }
        if (kk_scatter_view_mode(sv) == KK_SCATTER_DUPLICATED) { /* discarded, then nothing to add */
          OK(kk_parallel_for("scatter3d", KK_RANGE(0, n), KK_KERNEL(scatter_3d), KK_ARGS(a)));
          OK(kk_scatter_view_reset(sv));
          OK(kk_scatter_view_contribute(sv));
        }
        kk_view_t *h = host_of(t);
        download(h, t);
        const double *p = kk_view_data(h);
        for (int c = 0; c < cells; c++) {
          const int64_t off =
              c % 7 * kk_view_stride(h, 0) + c / 7 % 33 * kk_view_stride(h, 1) + c / 231 * kk_view_stride(h, 2);
          ck_assert_msg(p[off] == ref[c], "mode %d layout %d op %d cell %d: %g, expected %g", mode, (int)layouts[l],
                        op, c, p[off], ref[c]);
        }
        kk_view_release(h);
        kk_scatter_view_release(sv);
        kk_view_release(t);
      }
  free(ref);
  kk_view_release(hidx), kk_view_release(idx);
}
END_TEST

/* ---- two instances run at the same time ----------------------------------------------------- */

typedef struct peer {
  kk_instance_t *inst;
  struct flag_args a;
  kk_status_t st;
} peer_t;

static void *peer_run(void *p) {
  peer_t *w = p;
  w->st = kk_parallel_for("wait_for_peer", KK_RANGE_ON(w->inst, 0, 1), KK_KERNEL(wait_for_peer), KK_ARGS(w->a));
  if (w->st == KK_OK)
    w->st = kk_instance_fence(w->inst);
  return NULL;
}

/* Each kernel raises its flag and waits for the other's: they can only both
 * succeed if the two instances run them at once. */
START_TEST(instances_run_concurrently) {
  int64_t two = 2;
  kk_view_t *flags = viewn("flags", KK_INT32, 1, &two), *ok = viewn("ok", KK_INT32, 1, &two);
  peer_t w[2];
  pthread_t t[2];
  for (int i = 0; i < 2; i++) {
    OK(kk_instance_create(NULL, &w[i].inst));
    w[i].a = (struct flag_args){kk_view_bind(flags), i, (int64_t)1 << 33, kk_view_bind(ok)};
    w[i].st = KK_OK;
  }
  for (int i = 0; i < 2; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, peer_run, &w[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  kk_view_t *h = host_of(ok);
  download(h, ok);
  for (int i = 0; i < 2; i++) {
    ck_assert_msg(w[i].st == KK_OK, "%s", kk_status_str(w[i].st));
    ck_assert_msg(((int32_t *)kk_view_data(h))[i] == 1, "instance %d never saw the other kernel running", i);
    OK(kk_instance_destroy(w[i].inst));
  }
  kk_view_release(h), kk_view_release(flags), kk_view_release(ok);
}
END_TEST

void conf_add_hier_tests(Suite *s);
void conf_add_hier_tests(Suite *s) {
  TCase *tc = tcase_create("mdrange");
  tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, md_every_rank_tile_and_order);
  tcase_add_test(tc, md_large_tiles);
  tcase_add_test(tc, md_reduce);
  tcase_add_test(tc, md_at_the_ends_of_int64);
  suite_add_tcase(s, tc);
  tc = tcase_create("teams");
  tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, teams_every_size);
  tcase_add_test(tc, team_counts_beyond_int64);
  tcase_add_test(tc, team_size_per_instance);
  tcase_add_test(tc, team_scratch_views_both_levels);
  tcase_add_test(tc, team_vector_unroll);
  tcase_add_test(tc, team_launch_bounds);
  tcase_add_test(tc, team_custom_nested_reduce);
  tcase_add_test(tc, team_scratch_limits);
  tcase_add_test(tc, team_reduce);
  suite_add_tcase(s, tc);
  tc = tcase_create("atomics");
  tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, atomics_i32);
  tcase_add_test(tc, atomics_u32);
  tcase_add_test(tc, atomics_i64);
  tcase_add_test(tc, atomics_u64);
  tcase_add_test(tc, atomics_f32);
  tcase_add_test(tc, atomics_f64);
  tcase_add_test(tc, atomics_complex_and_structs);
  tcase_add_test(tc, scatter_views);
  tcase_add_test(tc, scatter_views_parallel_fold);
  tcase_add_test(tc, instances_run_concurrently);
  suite_add_tcase(s, tc);
}
