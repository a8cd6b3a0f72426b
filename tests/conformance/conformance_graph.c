/* tests/conformance/conformance_graph.c -- graphs: explicit and captured, fan-out and fan-in, updates, errors, tools, on every backend. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <kk/tools.h>

#include "../testutil.h"
#include "conformance.h"

extern void conf_setup(void);
extern void conf_teardown(void);
extern const char *conf_backend(void);
#define OK(call) ck_assert_msg((call) == KK_OK, "%s failed: %s", #call, kk_last_error())

KK_DECLARE_KERNEL(axpy);
KK_DECLARE_KERNEL(dot);
KK_DECLARE_KERNEL(count_hits);
KK_DECLARE_KERNEL(scan_incl_i64);
KK_DECLARE_KERNEL(md_count2);
KK_DECLARE_KERNEL(md_sum3);
KK_DECLARE_KERNEL(team_total);
KK_DECLARE_KERNEL(team_vector_unrolled);

/* ---- helpers ----------------------------------------------------------------------------- */

static kk_view_t *gview(const char *label, kk_type_t t, int rank, const int64_t *ext) {
  kk_view_t *v = NULL;
  OK(kk_view_alloc(&v, label, t, rank, ext));
  return v;
}

static kk_view_t *gvec(const char *label, kk_type_t t, int64_t n) { return gview(label, t, 1, &n); }

/* A copy of v on the host, after waiting for `inst` (NULL: every instance). */
static kk_view_t *fetch(kk_view_t *v, kk_instance_t *inst) {
  if (inst)
    OK(kk_instance_fence(inst));
  else
    OK(kk_fence());
  kk_view_t *h = NULL;
  OK(kk_view_create_mirror(v, &h));
  OK(kk_deep_copy(h, v));
  return h;
}

static double get_d(kk_view_t *v, int64_t i) {
  kk_view_t *h = fetch(v, NULL);
  double d = ((double *)kk_view_data(h))[i];
  kk_view_release(h);
  return d;
}

static int64_t get_i64(kk_view_t *v, int64_t i) {
  kk_view_t *h = fetch(v, NULL);
  int64_t d = ((int64_t *)kk_view_data(h))[i];
  kk_view_release(h);
  return d;
}

/* Asserts every element of a double vector equals `want`. */
static void all_equal(kk_view_t *v, double want, const char *what) {
  kk_view_t *h = fetch(v, NULL);
  const double *p = kk_view_data(h);
  for (size_t i = 0; i < kk_view_size(h); i++)
    ck_assert_msg(p[i] == want, "%s[%zu] = %g, expected %g", what, i, p[i], want);
  kk_view_release(h);
}

static void all_equal_i32(kk_view_t *v, int32_t want, const char *what) {
  kk_view_t *h = fetch(v, NULL);
  const int32_t *p = kk_view_data(h);
  for (size_t i = 0; i < kk_view_size(h); i++)
    ck_assert_msg(p[i] == want, "%s[%zu] = %d, expected %d", what, i, p[i], want);
  kk_view_release(h);
}

static void set_d(kk_view_t *v, double value) { OK(kk_deep_copy_fill(v, &value)); }

/* The backends that run graphs themselves (their plugins have the graph
 * members: host plans, native CUDA and HIP graphs); "threads12" is the
 * threads plugin built against ABI 1.2, and the SPIR-V backends refuse
 * graphs from their graph_create: both must get the core's replay.
 * Others: not asserted. */
static int expected_native(void) {
  const char *b = conf_backend();
  if (!strcmp(b, "serial") || !strcmp(b, "threads") || !strcmp(b, "openmp") || !strcmp(b, "cuda") ||
      !strcmp(b, "hip"))
    return 1;
  if (!strcmp(b, "threads12") || !strcmp(b, "opencl") || !strcmp(b, "levelzero"))
    return 0;
  return -1;
}

/* ---- explicit graphs ------------------------------------------------------------------------ */

START_TEST(graph_explicit_chain) {
  const int64_t n = 1000;
  kk_view_t *x = gvec("x", KK_DOUBLE, n), *y = gvec("y", KK_DOUBLE, n), *r = gview("r", KK_DOUBLE, 0, NULL);
  kk_graph_t *g = NULL;
  kk_graph_node_t *a, *b, *c;
  OK(kk_graph_create(NULL, &g));
  double two = 2.0;
  OK(kk_graph_add_fill(g, x, &two, NULL, 0, &a));
  struct axpy_args ax = {0.5, kk_view_bind(x), kk_view_bind(y)};
  OK(kk_graph_add_for(g, "axpy", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(ax), &a, 1, &b));
  ax.a = 1000.0; /* copied at add time: must not matter */
  struct two_views xy = {kk_view_bind(x), kk_view_bind(y)};
  OK(kk_graph_add_reduce(g, "dot", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(xy), r, &b, 1, &c));
  ck_assert_int_eq(kk_graph_node_count(g), 3);
  ck_assert_str_eq(kk_graph_node_label(kk_graph_node_at(g, 0)), "fill");
  ck_assert_str_eq(kk_graph_node_label(b), "axpy");
  ck_assert_str_eq(kk_graph_node_label(c), "dot");
  ck_assert_ptr_null(kk_graph_node_at(g, 3));
  /* adding runs nothing */
  all_equal(x, 0.0, "x");
  all_equal(y, 0.0, "y");
  ck_assert_int_eq(kk_graph_native(g), 0);
  OK(kk_graph_instantiate(g));
  OK(kk_graph_instantiate(g)); /* again: nothing */
  if (expected_native() >= 0)
    ck_assert_int_eq(kk_graph_native(g), expected_native());
  for (int k = 1; k <= 3; k++) {
    set_d(r, -1.0);
    OK(kk_graph_submit(g, NULL));
    all_equal(x, 2.0, "x");
    all_equal(y, 0.5 * 2.0 * k, "y");
    ck_assert_msg(get_d(r, 0) == 2.0 * k * (double)n, "submission %d: dot %g", k, get_d(r, 0));
  }
  OK(kk_graph_destroy(g));
  OK(kk_graph_destroy(NULL));
  kk_view_release(x), kk_view_release(y), kk_view_release(r);
}
END_TEST

/* A fans out to B, C and six reductions, which fan in (through an empty
 * node) to D; H stands alone.  Every node must run exactly once per
 * submission, after its dependencies. */
START_TEST(graph_fan_out_fan_in) {
  const int64_t n = 4099;
  kk_view_t *x = gvec("x", KK_DOUBLE, n), *y1 = gvec("y1", KK_DOUBLE, n), *y2 = gvec("y2", KK_DOUBLE, n);
  kk_view_t *hits = gvec("hits", KK_INT32, n), *r = gview("r", KK_DOUBLE, 0, NULL);
  kk_view_t *rk[6];
  kk_graph_t *g;
  OK(kk_graph_create(kk_instance_default(), &g));
  kk_graph_node_t *A, *B, *C, *H, *J, *D, *R[6], *J2;
  double one = 1.0;
  OK(kk_graph_add_fill(g, x, &one, NULL, 0, &A));
  struct axpy_args b2 = {2.0, kk_view_bind(x), kk_view_bind(y1)}, c3 = {3.0, kk_view_bind(x), kk_view_bind(y2)};
  OK(kk_graph_add_for(g, "y1 += 2x", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(b2), &A, 1, &B));
  OK(kk_graph_add_for(g, "y2 += 3x", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(c3), &A, 1, &C));
  struct count_args h = {kk_view_bind(hits), 5};
  OK(kk_graph_add_for(g, "hits", KK_RANGE(5, 5 + n), KK_KERNEL(count_hits), KK_ARGS(h), NULL, 0, &H));
  struct two_views xx = {kk_view_bind(x), kk_view_bind(x)};
  for (int k = 0; k < 6; k++) {
    char label[24];
    snprintf(label, sizeof label, "x.x #%d", k);
    rk[k] = gview(label, KK_DOUBLE, 0, NULL);
    OK(kk_graph_add_reduce(g, label, KK_RANGE(0, n - k), KK_KERNEL(dot), KK_ARGS(xx), rk[k], &A, 1, &R[k]));
  }
  kk_graph_node_t *join[3] = {B, C, H};
  OK(kk_graph_add_empty(g, join, 3, &J));
  OK(kk_graph_add_empty(g, R, 6, &J2));
  struct two_views yy = {kk_view_bind(y1), kk_view_bind(y2)};
  kk_graph_node_t *both[2] = {J, J2};
  OK(kk_graph_add_reduce(g, "y1.y2", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(yy), r, both, 2, &D));
  ck_assert_str_eq(kk_graph_node_label(J), "empty");
  for (int k = 1; k <= 4; k++) {
    OK(kk_graph_submit(g, NULL)); /* the first instantiates */
    all_equal(y1, 2.0 * k, "y1");
    all_equal(y2, 3.0 * k, "y2");
    all_equal_i32(hits, k, "hits");
    ck_assert_msg(get_d(r, 0) == 6.0 * k * k * (double)n, "submission %d: y1.y2 = %.17g", k, get_d(r, 0));
    for (int j = 0; j < 6; j++)
      ck_assert_msg(get_d(rk[j], 0) == (double)(n - j), "x.x #%d = %g", j, get_d(rk[j], 0));
  }
  if (expected_native() >= 0)
    ck_assert_int_eq(kk_graph_native(g), expected_native());
  OK(kk_graph_destroy(g));
  for (int k = 0; k < 6; k++)
    kk_view_release(rk[k]);
  kk_view_release(x), kk_view_release(y1), kk_view_release(y2), kk_view_release(hits), kk_view_release(r);
}
END_TEST

static double aval2(int64_t i, int64_t j) { return (double)((i * 3 + j * 5) % 11) - 5.0; }

/* Every kind of node: scan with its total, MDRange for and reduce, team for
 * and reduce, a deep copy of a strided subview (several copies in one node)
 * and a fill of one (several fills), each checked after two submissions. */
START_TEST(graph_every_kind) {
  const int64_t n = 3001, rows = 23, cols = 11;
  kk_view_t *xi = gvec("xi", KK_INT64, n), *yi = gvec("yi", KK_INT64, n), *total = gview("total", KK_INT64, 0, NULL);
  kk_graph_t *g;
  OK(kk_graph_create(NULL, &g));
  kk_graph_node_t *fx, *sc, *md, *mr, *tf, *tr, *cp, *fl;
  int64_t one = 1;
  OK(kk_graph_add_fill(g, xi, &one, NULL, 0, &fx));
  struct two_views s = {kk_view_bind(xi), kk_view_bind(yi)};
  OK(kk_graph_add_scan(g, "scan", KK_RANGE(0, n), KK_KERNEL(scan_incl_i64), KK_ARGS(s), total, &fx, 1, &sc));
  /* MDRange: every point of [1,9) x [2,13) hit once per submission; a sum into a view */
  const int64_t mn = 8 * 11;
  kk_view_t *mhits = gvec("mhits", KK_INT32, mn), *msum = gview("msum", KK_INT64, 0, NULL);
  struct md_args ma;
  memset(&ma, 0, sizeof ma);
  ma.hits = kk_view_bind(mhits);
  ma.b[0] = 1, ma.b[1] = 2, ma.e[0] = 9, ma.e[1] = 13;
  ma.rank = 2;
  kk_md_policy_t p2 = {sizeof p2, 2, KK_ITERATE_DEFAULT, KK_ITERATE_DEFAULT, {1, 2}, {9, 13}, {0, 0}, NULL};
  OK(kk_graph_add_for_md(g, "md hits", &p2, KK_KERNEL(md_count2), KK_ARGS(ma), NULL, 0, &md));
  kk_md_policy_t p3 = {sizeof p3, 3, KK_ITERATE_DEFAULT, KK_ITERATE_DEFAULT, {1, 2, 3}, {9, 13, 8}, {3, 5, 2}, NULL};
  OK(kk_graph_add_reduce_md(g, "md sum", &p3, KK_KERNEL(md_sum3), KK_ARGS(ma), msum, NULL, 0, &mr));
  int64_t mref = 0;
  for (int64_t i = 1; i < 9; i++)
    for (int64_t j = 2; j < 13; j++)
      for (int64_t k = 3; k < 8; k++)
        mref += i * 10000 + j * 100 + k;
  /* teams: a row-sum kernel into y, and a reduction into a view */
  int64_t e2[2] = {rows, cols};
  kk_view_t *A = gview("A", KK_DOUBLE, 2, e2), *hA = NULL, *ty = gvec("ty", KK_DOUBLE, rows);
  kk_view_t *tsum = gview("tsum", KK_DOUBLE, 0, NULL);
  OK(kk_view_create_mirror(A, &hA));
  double tref = 0;
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      ((double *)kk_view_data(hA))[i * kk_view_stride(hA, 0) + j * kk_view_stride(hA, 1)] = aval2(i, j);
      tref += aval2(i, j);
    }
  OK(kk_deep_copy(A, hA));
  struct team_args ta;
  memset(&ta, 0, sizeof ta);
  ta.a = kk_view_bind(A);
  ta.y = kk_view_bind(ty);
  ta.rows = rows;
  ta.cols = cols;
  const int64_t league = 5;
  OK(kk_graph_add_for_team(g, "team rows", KK_TEAM(league, KK_AUTO, KK_AUTO), KK_KERNEL(team_vector_unrolled),
                           KK_ARGS(ta), NULL, 0, &tf));
  kk_team_policy_t tp = {sizeof tp, rows, 1, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
  OK(kk_graph_add_reduce_team(g, "team total", &tp, KK_KERNEL(team_total), KK_ARGS(ta), tsum, NULL, 0, &tr));
  /* a copy of columns [2, 5) of A (strided) into a compact view, and a fill of
   * columns [7, 9) of another */
  kk_view_t *sub = NULL, *cdst = NULL, *F = gview("F", KK_DOUBLE, 2, e2), *fsub = NULL;
  kk_slice_t cs[2] = {KK_ALL, KK_SPAN(2, 5)}, fs[2] = {KK_ALL, KK_SPAN(7, 9)};
  OK(kk_view_subview(A, cs, &sub));
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = "cdst";
  spec.rank = 2;
  spec.extents[0] = rows, spec.extents[1] = 3;
  spec.layout = kk_view_layout(sub);
  spec.space = kk_view_space(A);
  OK(kk_view_create(&spec, &cdst));
  OK(kk_graph_add_copy(g, cdst, sub, NULL, 0, &cp));
  OK(kk_view_subview(F, fs, &fsub));
  double seven = 7.0;
  OK(kk_graph_add_fill(g, fsub, &seven, NULL, 0, &fl));
  ck_assert_str_eq(kk_graph_node_label(cp), "copy");
  for (int k = 1; k <= 2; k++) {
    OK(kk_graph_submit(g, NULL));
    ck_assert_int_eq(get_i64(total, 0), n);
    kk_view_t *hy = fetch(yi, NULL);
    for (int64_t i = 0; i < n; i++)
      ck_assert_msg(((int64_t *)kk_view_data(hy))[i] == i + 1, "scan y[%lld] = %lld", (long long)i,
                    (long long)((int64_t *)kk_view_data(hy))[i]);
    kk_view_release(hy);
    all_equal_i32(mhits, k, "mhits");
    ck_assert_int_eq(get_i64(msum, 0), mref);
    ck_assert_msg(get_d(tsum, 0) == tref + (double)rows, "team total %g, expected %g", get_d(tsum, 0),
                  tref + (double)rows);
    kk_view_t *hty = fetch(ty, NULL);
    for (int64_t r = 0; r < rows; r++) {
      double want = 0;
      for (int64_t lr = 0; lr < league; lr++) {
        const int64_t len = (lr + r) % (cols + 1);
        double srow = 0;
        for (int64_t q = 0; q < len; q++)
          srow += aval2(r, q);
        want += (double)len + 1000.0 * srow;
      }
      ck_assert_msg(((double *)kk_view_data(hty))[r] == k * want, "team rows y[%lld] = %g, expected %g", (long long)r,
                    ((double *)kk_view_data(hty))[r], k * want);
    }
    kk_view_release(hty);
    kk_view_t *hc = fetch(cdst, NULL), *hF = fetch(F, NULL);
    for (int64_t i = 0; i < rows; i++) {
      for (int64_t j = 0; j < 3; j++) {
        double v = ((double *)kk_view_data(hc))[i * kk_view_stride(hc, 0) + j * kk_view_stride(hc, 1)];
        ck_assert_msg(v == aval2(i, j + 2), "copy (%lld, %lld) = %g", (long long)i, (long long)j, v);
      }
      for (int64_t j = 0; j < cols; j++) {
        double v = ((double *)kk_view_data(hF))[i * kk_view_stride(hF, 0) + j * kk_view_stride(hF, 1)];
        ck_assert_msg(v == (j >= 7 && j < 9 ? 7.0 : 0.0), "fill (%lld, %lld) = %g", (long long)i, (long long)j, v);
      }
    }
    kk_view_release(hc), kk_view_release(hF);
  }
  if (expected_native() >= 0)
    ck_assert_int_eq(kk_graph_native(g), expected_native());
  OK(kk_graph_destroy(g));
  kk_view_release(sub), kk_view_release(cdst), kk_view_release(fsub), kk_view_release(F), kk_view_release(hA);
  kk_view_release(A), kk_view_release(ty), kk_view_release(tsum), kk_view_release(mhits), kk_view_release(msum);
  kk_view_release(xi), kk_view_release(yi), kk_view_release(total);
}
END_TEST

/* ---- capture -------------------------------------------------------------------------------- */

static void capture_on(kk_instance_t *inst) {
  const int64_t n = 2048;
  kk_view_t *x = gvec("x", KK_DOUBLE, n), *y = gvec("y", KK_DOUBLE, n), *z = gvec("z", KK_DOUBLE, n);
  kk_view_t *r = gview("r", KK_DOUBLE, 0, NULL), *w = gvec("w", KK_DOUBLE, n);
  set_d(x, 2.0);
  set_d(r, -1.0);
  OK(kk_graph_begin_capture(inst));
  struct axpy_args ax = {0.5, kk_view_bind(x), kk_view_bind(y)};
  OK(kk_parallel_for("axpy", KK_RANGE_ON(inst, 0, n), KK_KERNEL(axpy), KK_ARGS(ax)));
  struct two_views xy = {kk_view_bind(x), kk_view_bind(y)};
  OK(kk_parallel_reduce_view("dot", KK_RANGE_ON(inst, 0, n), KK_KERNEL(dot), KK_ARGS(xy), r));
  OK(kk_deep_copy_async(inst, z, y));
  double three = 3.0;
  OK(kk_deep_copy_fill_async(inst, x, &three));
  /* work on another instance runs as usual */
  kk_instance_t *other = inst == kk_instance_default() ? kk_instance_host() : kk_instance_default();
  bool ran_other = other != inst && strcmp(kk_instance_backend(other), kk_instance_backend(inst)) == 0;
  if (ran_other) {
    struct axpy_args aw = {1.0, kk_view_bind(x), kk_view_bind(w)};
    OK(kk_parallel_for("not captured", KK_RANGE_ON(other, 0, n), KK_KERNEL(axpy), KK_ARGS(aw)));
    OK(kk_instance_fence(other));
  }
  kk_graph_t *g = NULL;
  OK(kk_graph_end_capture(inst, &g));
  ck_assert_ptr_nonnull(g);
  ck_assert_int_eq(kk_graph_node_count(g), 4);
  ck_assert_str_eq(kk_graph_node_label(kk_graph_node_at(g, 0)), "axpy");
  ck_assert_str_eq(kk_graph_node_label(kk_graph_node_at(g, 1)), "dot");
  ck_assert_str_eq(kk_graph_node_label(kk_graph_node_at(g, 2)), "copy");
  ck_assert_str_eq(kk_graph_node_label(kk_graph_node_at(g, 3)), "fill");
  /* nothing ran, but the launch on the other instance */
  all_equal(w, ran_other ? 2.0 : 0.0, "w");
  all_equal(x, 2.0, "x");
  all_equal(y, 0.0, "y");
  ck_assert(get_d(r, 0) == -1.0);
  OK(kk_graph_submit(g, inst));
  OK(kk_instance_fence(inst));
  all_equal(y, 1.0, "y");
  all_equal(z, 1.0, "z");
  all_equal(x, 3.0, "x");
  ck_assert_msg(get_d(r, 0) == 2.0 * (double)n, "dot %g", get_d(r, 0));
  /* the fill recorded last changed x for the next replay */
  OK(kk_graph_submit(g, inst));
  all_equal(y, 2.5, "y");
  all_equal(z, 2.5, "z");
  ck_assert_msg(get_d(r, 0) == 7.5 * (double)n, "dot %g", get_d(r, 0));
  /* on another instance of the same backend too */
  kk_instance_t *third;
  OK(kk_instance_create(kk_instance_backend(inst), &third));
  OK(kk_graph_submit(g, third));
  OK(kk_instance_fence(third));
  all_equal(y, 4.0, "y");
  OK(kk_instance_destroy(third));
  OK(kk_graph_destroy(g));
  kk_view_release(x), kk_view_release(y), kk_view_release(z), kk_view_release(r), kk_view_release(w);
}

/* A scan of many tiles replayed: each replay must find its look-back
 * state fresh (a GPU launch's epoch is frozen into a native graph's node),
 * here next to a reduction that shares the graph's buffers and between
 * two kernels of a chain. */
START_TEST(graph_scan_replays) {
  const int64_t n = 200003;
  kk_view_t *xi = gvec("xi", KK_INT64, n), *yi = gvec("yi", KK_INT64, n), *total = gview("total", KK_INT64, 0, NULL);
  kk_view_t *x = gvec("x", KK_DOUBLE, n), *r = gview("r", KK_DOUBLE, 0, NULL);
  kk_graph_t *g;
  kk_graph_node_t *f, *sc, *d;
  OK(kk_graph_create(NULL, &g));
  int64_t one = 1;
  double half = 0.5;
  OK(kk_graph_add_fill(g, xi, &one, NULL, 0, &f));
  struct two_views s = {kk_view_bind(xi), kk_view_bind(yi)};
  OK(kk_graph_add_scan(g, "scan", KK_RANGE(0, n), KK_KERNEL(scan_incl_i64), KK_ARGS(s), total, &f, 1, &sc));
  OK(kk_graph_add_fill(g, x, &half, NULL, 0, &d));
  struct two_views xx = {kk_view_bind(x), kk_view_bind(x)};
  OK(kk_graph_add_reduce(g, "x.x", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(xx), r, &d, 1, NULL));
  /* an empty scan's total is the identity */
  kk_view_t *t0 = gview("t0", KK_INT64, 0, NULL);
  OK(kk_graph_add_scan(g, "empty scan", KK_RANGE(0, 0), KK_KERNEL(scan_incl_i64), KK_ARGS(s), t0, NULL, 0, NULL));
  for (int k = 1; k <= 3; k++) {
    set_d(r, -1.0);
    int64_t minus = -5;
    OK(kk_deep_copy_fill(t0, &minus));
    OK(kk_fence());
    OK(kk_graph_submit(g, NULL));
    ck_assert_int_eq(get_i64(total, 0), n);
    kk_view_t *hy = fetch(yi, NULL);
    for (int64_t i = 0; i < n; i++)
      ck_assert_msg(((int64_t *)kk_view_data(hy))[i] == i + 1, "submission %d: scan y[%lld] = %lld", k, (long long)i,
                    (long long)((int64_t *)kk_view_data(hy))[i]);
    kk_view_release(hy);
    ck_assert_msg(get_d(r, 0) == 0.25 * (double)n, "submission %d: x.x = %g", k, get_d(r, 0));
    ck_assert_int_eq(get_i64(t0, 0), 0);
  }
  if (expected_native() >= 0)
    ck_assert_int_eq(kk_graph_native(g), expected_native());
  OK(kk_graph_destroy(g));
  kk_view_release(xi), kk_view_release(yi), kk_view_release(total), kk_view_release(x), kk_view_release(r);
  kk_view_release(t0);
}
END_TEST

START_TEST(graph_capture) {
  capture_on(kk_instance_default());
  kk_instance_t *inst;
  OK(kk_instance_create(NULL, &inst));
  capture_on(inst);
  OK(kk_instance_destroy(inst));
}
END_TEST

/* A view of `space` (NULL: the default space) with `layout`. */
static kk_view_t *lview(const char *label, kk_space_t *space, kk_layout_t layout, int rank, const int64_t *ext) {
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = label;
  spec.rank = rank;
  for (int d = 0; d < rank; d++)
    spec.extents[d] = ext[d];
  spec.layout = layout;
  spec.space = space ? space : kk_space_default();
  kk_view_t *v = NULL;
  OK(kk_view_create(&spec, &v));
  return v;
}

/* Sets every element (i, j, k) of rank-3 v to base + i * 10000 + j * 100 + k
 * (through a host mirror), or checks that it holds that. */
static void fill_or_check3(kk_view_t *v, double base, bool check, const char *what) {
  kk_view_t *h = NULL;
  if (check)
    h = fetch(v, NULL);
  else
    OK(kk_view_create_mirror(v, &h));
  double *p = kk_view_data(h);
  for (int64_t i = 0; i < kk_view_extent(h, 0); i++)
    for (int64_t j = 0; j < kk_view_extent(h, 1); j++)
      for (int64_t k = 0; k < kk_view_extent(h, 2); k++) {
        double *e = p + i * kk_view_stride(h, 0) + j * kk_view_stride(h, 1) + k * kk_view_stride(h, 2);
        const double want = base + (double)(i * 10000 + j * 100 + k);
        if (check)
          ck_assert_msg(*e == want, "%s(%lld, %lld, %lld) = %g, expected %g", what, (long long)i, (long long)j,
                        (long long)k, *e, want);
        else
          *e = want;
      }
  if (!check)
    OK(kk_deep_copy(v, h));
  kk_view_release(h);
}

/* Copies between layouts in a graph (an explicit add and a capture): each
 * is one node that copies again at every submission, also with a host view
 * on one side; such a graph is replayed by kk, node by node. */
START_TEST(graph_copy_between_layouts) {
  const int64_t e3[3] = {37, 29, 5};
  kk_view_t *R = lview("R", NULL, KK_LAYOUT_RIGHT, 3, e3), *L = lview("L", NULL, KK_LAYOUT_LEFT, 3, e3);
  kk_view_t *R2 = lview("R2", NULL, KK_LAYOUT_RIGHT, 3, e3);
  kk_view_t *H = lview("H", kk_space_host(), KK_LAYOUT_LEFT, 3, e3);
  kk_graph_t *g;
  OK(kk_graph_create(NULL, &g));
  kk_graph_node_t *a, *b, *c;
  OK(kk_graph_add_copy(g, L, R, NULL, 0, &a));
  OK(kk_graph_add_copy(g, R2, L, &a, 1, &b));
  OK(kk_graph_add_copy(g, H, R2, &b, 1, &c));
  ck_assert_int_eq(kk_graph_node_count(g), 3);
  ck_assert_str_eq(kk_graph_node_label(b), "copy");
  OK(kk_graph_instantiate(g));
  ck_assert_int_eq(kk_graph_native(g), 0);
  for (int k = 1; k <= 2; k++) {
    fill_or_check3(R, 1e6 * k, false, "R");
    OK(kk_graph_submit(g, NULL));
    fill_or_check3(L, 1e6 * k, true, "L");
    fill_or_check3(R2, 1e6 * k, true, "R2");
    fill_or_check3(H, 1e6 * k, true, "H");
  }
  OK(kk_graph_destroy(g));
  /* captured on an instance of its own: host view into a device one */
  kk_instance_t *inst;
  OK(kk_instance_create(NULL, &inst));
  fill_or_check3(H, -5e6, false, "H");
  OK(kk_graph_begin_capture(inst));
  OK(kk_deep_copy_async(inst, R, H));
  OK(kk_graph_end_capture(inst, &g));
  ck_assert_int_eq(kk_graph_node_count(g), 1);
  fill_or_check3(R, 0, false, "R");
  fill_or_check3(R, 0, true, "R before the submission");
  OK(kk_graph_submit(g, inst));
  OK(kk_instance_fence(inst));
  fill_or_check3(R, -5e6, true, "R");
  OK(kk_graph_destroy(g));
  OK(kk_instance_destroy(inst));
  kk_view_release(R), kk_view_release(L), kk_view_release(R2), kk_view_release(H);
}
END_TEST

typedef struct fence_try {
  kk_status_t st;
} fence_try_t;

static void *fence_elsewhere(void *p) {
  ((fence_try_t *)p)->st = kk_fence();
  return NULL;
}

/* What a capture cannot record fails with KK_ERROR_CAPTURE, records nothing,
 * and the capture goes on. */
START_TEST(graph_capture_refusals) {
  const int64_t n = 100;
  kk_view_t *x = gvec("x", KK_DOUBLE, n), *y = gvec("y", KK_DOUBLE, n), *yi = gvec("yi", KK_INT64, n);
  kk_instance_t *inst;
  OK(kk_instance_create(NULL, &inst));
  kk_graph_t *other;
  OK(kk_graph_create(inst, &other));
  OK(kk_graph_begin_capture(inst));
  struct axpy_args ax = {1.0, kk_view_bind(x), kk_view_bind(y)};
  OK(kk_parallel_for("first", KK_RANGE_ON(inst, 0, n), KK_KERNEL(axpy), KK_ARGS(ax)));
  struct two_views xy = {kk_view_bind(x), kk_view_bind(y)};
  double d = 0;
  ck_assert_int_eq(kk_parallel_reduce("blocking dot", KK_RANGE_ON(inst, 0, n), KK_KERNEL(dot), KK_ARGS(xy), KK_RESULT(d)),
                   KK_ERROR_CAPTURE);
  ck_assert_contains(kk_last_error(), "blocking dot");
  ck_assert_contains(kk_last_error(), "host variable");
  struct two_views s = {kk_view_bind(yi), kk_view_bind(yi)};
  int64_t t = 0;
  ck_assert_int_eq(kk_parallel_scan("scan", KK_RANGE_ON(inst, 0, n), KK_KERNEL(scan_incl_i64), KK_ARGS(s), KK_RESULT(t)),
                   KK_ERROR_CAPTURE);
  /* a range of more indices than int64_t counts: refused as without a capture */
  ck_assert_int_eq(kk_parallel_for("huge", KK_RANGE_ON(inst, INT64_MIN, INT64_MAX), KK_KERNEL(axpy), KK_ARGS(ax)),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_parallel_for 'huge': range [-9223372036854775808, 9223372036854775807) has");
  ck_assert_int_eq(kk_instance_fence(inst), KK_ERROR_CAPTURE);
  ck_assert_contains(kk_last_error(), "kk_instance_fence");
  ck_assert_int_eq(kk_fence(), KK_ERROR_CAPTURE);
  ck_assert_contains(kk_last_error(), "capturing a graph");
  ck_assert_int_eq(kk_instance_destroy(inst), KK_ERROR_CAPTURE);
  ck_assert_int_eq(kk_graph_begin_capture(inst), KK_ERROR_CAPTURE);
  ck_assert_int_eq(kk_graph_submit(other, inst), KK_ERROR_CAPTURE);
  /* another thread may fence */
  fence_try_t ft = {KK_ERROR_INTERNAL};
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, fence_elsewhere, &ft), 0);
  pthread_join(th, NULL);
  ck_assert_msg(ft.st == KK_OK, "kk_fence from another thread: %s", kk_status_name(ft.st));
  /* the capture went on */
  OK(kk_parallel_for("second", KK_RANGE_ON(inst, 0, n), KK_KERNEL(axpy), KK_ARGS(ax)));
  kk_graph_t *g, *none;
  OK(kk_graph_end_capture(inst, &g));
  ck_assert_int_eq(kk_graph_end_capture(inst, &none), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(none);
  ck_assert_int_eq(kk_graph_node_count(g), 2);
  ck_assert_str_eq(kk_graph_node_label(kk_graph_node_at(g, 1)), "second");
  /* and by an explicit add, which adds nothing */
  kk_graph_node_t *huge = NULL;
  ck_assert_int_eq(kk_graph_add_for(other, "huge", KK_RANGE(-1, INT64_MAX), KK_KERNEL(axpy), KK_ARGS(ax), NULL, 0,
                                    &huge),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "range [-1, 9223372036854775807) has 9223372036854775808 indices");
  ck_assert_ptr_null(huge);
  ck_assert_int_eq(kk_graph_node_count(other), 0);
  OK(kk_fence());
  set_d(x, 1.0);
  OK(kk_graph_submit(g, inst));
  all_equal(y, 2.0, "y");
  OK(kk_graph_destroy(g));
  OK(kk_graph_destroy(other));
  OK(kk_instance_destroy(inst));
  kk_view_release(x), kk_view_release(y), kk_view_release(yi);
}
END_TEST

/* ---- updates ---------------------------------------------------------------------------------- */

START_TEST(graph_update_args) {
  const int64_t n = 777;
  kk_view_t *x = gvec("x", KK_DOUBLE, n), *y = gvec("y", KK_DOUBLE, n), *r = gview("r", KK_DOUBLE, 0, NULL);
  set_d(x, 1.0);
  kk_graph_t *g;
  kk_graph_node_t *a, *f, *c;
  OK(kk_graph_create(NULL, &g));
  double zero = 0.0;
  OK(kk_graph_add_fill(g, y, &zero, NULL, 0, &f));
  struct axpy_args ax = {1.0, kk_view_bind(x), kk_view_bind(y)};
  OK(kk_graph_add_for(g, "axpy", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(ax), &f, 1, &a));
  struct two_views xy = {kk_view_bind(x), kk_view_bind(y)};
  OK(kk_graph_add_reduce(g, "dot", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(xy), r, &a, 1, &c));
  ax.a = 2.0;
  OK(kk_graph_set_args(g, a, KK_ARGS(ax))); /* before instantiation */
  OK(kk_graph_submit(g, NULL));
  all_equal(y, 2.0, "y");
  for (int k = 3; k <= 6; k++) {
    ax.a = (double)k;
    OK(kk_graph_set_args(g, a, KK_ARGS(ax)));
    OK(kk_graph_submit(g, NULL));
    all_equal(y, (double)k, "y");
    ck_assert(get_d(r, 0) == (double)k * (double)n);
  }
  if (expected_native() >= 0)
    ck_assert_int_eq(kk_graph_native(g), expected_native());
  /* another view through the arguments */
  kk_view_t *x2 = gvec("x2", KK_DOUBLE, n);
  set_d(x2, 10.0);
  ax.x = kk_view_bind(x2);
  ax.a = 1.0;
  OK(kk_graph_set_args(g, a, KK_ARGS(ax)));
  OK(kk_graph_submit(g, NULL));
  all_equal(y, 10.0, "y");
  /* refusals */
  ck_assert_int_eq(kk_graph_set_args(g, a, &ax, sizeof ax - 1), KK_ERROR_KERNEL_MISMATCH);
  ck_assert_contains(kk_last_error(), "argument struct");
  ck_assert_int_eq(kk_graph_set_args(g, f, KK_ARGS(ax)), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "not a kernel node");
  kk_graph_t *g2;
  OK(kk_graph_create(NULL, &g2));
  ck_assert_int_eq(kk_graph_set_args(g2, a, KK_ARGS(ax)), KK_ERROR_INVALID_ARGUMENT);
  OK(kk_graph_destroy(g2));
  /* a captured node */
  OK(kk_graph_begin_capture(NULL));
  struct axpy_args one = {1.0, kk_view_bind(x), kk_view_bind(y)};
  OK(kk_parallel_for("captured axpy", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(one)));
  kk_graph_t *cg;
  OK(kk_graph_end_capture(NULL, &cg));
  set_d(y, 0.0);
  OK(kk_graph_submit(cg, NULL));
  all_equal(y, 1.0, "y");
  one.a = -1.0;
  OK(kk_graph_set_args(cg, kk_graph_node_at(cg, 0), KK_ARGS(one)));
  OK(kk_graph_submit(cg, NULL));
  all_equal(y, 0.0, "y");
  OK(kk_graph_destroy(cg));
  OK(kk_graph_destroy(g));
  kk_view_release(x), kk_view_release(x2), kk_view_release(y), kk_view_release(r);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------------------- */

struct odd12 { char b[12]; };

START_TEST(graph_errors) {
  const int64_t n = 50;
  kk_view_t *x = gvec("x", KK_DOUBLE, n), *y = gvec("y", KK_DOUBLE, n), *r = gview("r", KK_DOUBLE, 0, NULL);
  kk_view_t *r2 = gvec("r2", KK_DOUBLE, 2);
  kk_graph_t *g, *h;
  kk_graph_node_t *a, *b;
  OK(kk_graph_create(NULL, &g));
  OK(kk_graph_create(NULL, &h));
  struct axpy_args ax = {1.0, kk_view_bind(x), kk_view_bind(y)};
  struct two_views xy = {kk_view_bind(x), kk_view_bind(y)};
  OK(kk_graph_add_for(g, "axpy", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(ax), NULL, 0, &a));
  OK(kk_graph_add_for(h, "axpy", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(ax), NULL, 0, &b));
  /* a reduction needs a view */
  ck_assert_int_eq(kk_graph_add_reduce(g, "dot", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(xy), NULL, NULL, 0, NULL),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "host variable");
  ck_assert_int_eq(kk_graph_add_reduce(g, "dot", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(xy), r2, NULL, 0, NULL),
                   KK_ERROR_KERNEL_MISMATCH);
  ck_assert_contains(kk_last_error(), "8-byte value");
  /* the launch's own checks, under the add's name; nothing added */
  ck_assert_int_eq(kk_graph_add_for(g, "wrong kind", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(xy), NULL, 0, NULL),
                   KK_ERROR_KERNEL_MISMATCH);
  ck_assert_contains(kk_last_error(), "kk_graph_add_for");
  ck_assert_int_eq(kk_graph_add_for(g, "bad range", KK_RANGE(5, 2), KK_KERNEL(axpy), KK_ARGS(ax), NULL, 0, NULL),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_graph_add_for(g, "null policy", NULL, KK_KERNEL(axpy), KK_ARGS(ax), NULL, 0, NULL),
                   KK_ERROR_INVALID_ARGUMENT);
  kk_team_policy_t big = {sizeof big, 4, 1, 1, {(uint64_t)1 << 40, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, NULL};
  struct team_args ta;
  memset(&ta, 0, sizeof ta);
  ck_assert_int_eq(kk_graph_add_reduce_team(g, "scratch", &big, KK_KERNEL(team_total), KK_ARGS(ta), r, NULL, 0, NULL),
                   KK_ERROR_LIMIT);
  ck_assert_contains(kk_last_error(), "kk_graph_add_reduce_team");
  /* dependencies of another graph, negative counts */
  ck_assert_int_eq(kk_graph_add_for(g, "x", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(ax), &b, 1, NULL),
                   KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "another graph");
  ck_assert_int_eq(kk_graph_add_empty(g, &a, -1, NULL), KK_ERROR_INVALID_ARGUMENT);
  /* a fill of 12-byte elements has no graph form */
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = "odd";
  spec.type = KK_TYPE_CUSTOM;
  spec.elem_size = 12;
  spec.rank = 1;
  spec.extents[0] = 4;
  spec.space = kk_view_space(x);
  kk_view_t *odd;
  OK(kk_view_create(&spec, &odd));
  struct odd12 v = {{0}};
  ck_assert_int_eq(kk_graph_add_fill(g, odd, &v, NULL, 0, NULL), KK_ERROR_UNSUPPORTED);
  ck_assert_contains(kk_last_error(), "12-byte elements");
  ck_assert_int_eq(kk_graph_add_copy(g, x, r2, NULL, 0, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_graph_node_count(g), 1);
  /* the policy's instance must be on the graph's backend */
  if (strcmp(kk_backend_host(), kk_backend_default()) != 0) {
    ck_assert_int_eq(kk_graph_add_for(g, "elsewhere", KK_RANGE_ON(kk_instance_host(), 0, n), KK_KERNEL(axpy),
                                      KK_ARGS(ax), NULL, 0, NULL),
                     KK_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(kk_graph_submit(g, kk_instance_host()), KK_ERROR_INVALID_ARGUMENT);
    ck_assert_contains(kk_last_error(), "belongs to backend");
  }
  /* instantiated: no more nodes */
  OK(kk_graph_instantiate(g));
  ck_assert_int_eq(kk_graph_add_empty(g, NULL, 0, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "instantiated");
  ck_assert_int_eq(kk_graph_submit(NULL, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_graph_add_empty(NULL, NULL, 0, NULL), KK_ERROR_INVALID_ARGUMENT);
  /* an empty graph submits fine */
  kk_graph_t *e;
  OK(kk_graph_create(NULL, &e));
  OK(kk_graph_submit(e, NULL));
  OK(kk_graph_destroy(e));
  OK(kk_graph_destroy(g));
  OK(kk_graph_destroy(h));
  kk_view_release(odd), kk_view_release(x), kk_view_release(y), kk_view_release(r), kk_view_release(r2);
}
END_TEST

/* ---- tools ---------------------------------------------------------------------------------------- */

static int g_ev_for, g_ev_reduce, g_ev_copy, g_ev_end;
static char g_ev_names[256];

static void ev_begin_for(const char *name, const uint32_t dev, uint64_t *kid) {
  (void)dev;
  g_ev_for++;
  strncat(g_ev_names, name, sizeof g_ev_names - strlen(g_ev_names) - 2);
  strcat(g_ev_names, ";");
  *kid = 7;
}
static void ev_begin_reduce(const char *name, const uint32_t dev, uint64_t *kid) {
  (void)dev;
  g_ev_reduce++;
  strncat(g_ev_names, name, sizeof g_ev_names - strlen(g_ev_names) - 2);
  strcat(g_ev_names, ";");
  *kid = 7;
}
static void ev_end(const uint64_t kid) { g_ev_end += kid == 7; }
static void ev_begin_copy(Kokkos_Profiling_SpaceHandle ds, const char *dl, const void *dp, Kokkos_Profiling_SpaceHandle ss,
                          const char *sl, const void *sp, uint64_t size) {
  (void)ds, (void)dp, (void)ss, (void)sp, (void)size;
  g_ev_copy++;
  strncat(g_ev_names, dl, sizeof g_ev_names - strlen(g_ev_names) - 2);
  strcat(g_ev_names, "<");
  strncat(g_ev_names, sl, sizeof g_ev_names - strlen(g_ev_names) - 2);
  strcat(g_ev_names, ";");
}

/* With a tool, each replayed node reports its kernel or deep copy, as the
 * call made directly would; without one, nothing is reported. */
START_TEST(graph_tools_events) {
  const int64_t n = 64;
  kk_view_t *x = gvec("x", KK_DOUBLE, n), *y = gvec("y", KK_DOUBLE, n), *r = gview("r", KK_DOUBLE, 0, NULL);
  kk_graph_t *g;
  OK(kk_graph_create(NULL, &g));
  kk_graph_node_t *f, *a;
  double one = 1.0;
  OK(kk_graph_add_fill(g, x, &one, NULL, 0, &f));
  struct axpy_args ax = {1.0, kk_view_bind(x), kk_view_bind(y)};
  OK(kk_graph_add_for(g, "g axpy", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(ax), &f, 1, &a));
  struct two_views xy = {kk_view_bind(x), kk_view_bind(y)};
  OK(kk_graph_add_reduce(g, NULL, KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(xy), r, &a, 1, NULL));
  OK(kk_graph_instantiate(g));
  Kokkos_Profiling_EventSet set;
  memset(&set, 0, sizeof set);
  set.begin_parallel_for = ev_begin_for;
  set.end_parallel_for = ev_end;
  set.begin_parallel_reduce = ev_begin_reduce;
  set.end_parallel_reduce = ev_end;
  set.begin_deep_copy = ev_begin_copy;
  g_ev_for = g_ev_reduce = g_ev_copy = g_ev_end = 0;
  g_ev_names[0] = '\0';
  kk_tools_set_callbacks(&set);
  OK(kk_graph_submit(g, NULL));
  OK(kk_graph_submit(g, NULL));
  kk_tools_set_callbacks(NULL);
  ck_assert_int_eq(g_ev_for, 2);
  ck_assert_int_eq(g_ev_reduce, 2);
  ck_assert_int_eq(g_ev_copy, 2);
  ck_assert_int_eq(g_ev_end, 4);
  ck_assert_str_eq(g_ev_names, "x<Scalar;g axpy;dot;x<Scalar;g axpy;dot;");
  all_equal(y, 2.0, "y");
  ck_assert(get_d(r, 0) == 2.0 * (double)n);
  /* no tool: the events stop, the graph still runs */
  OK(kk_graph_submit(g, NULL));
  ck_assert_int_eq(g_ev_for, 2);
  all_equal(y, 3.0, "y");
  OK(kk_graph_destroy(g));
  kk_view_release(x), kk_view_release(y), kk_view_release(r);
}
END_TEST

/* ---- threads ----------------------------------------------------------------------------------------- */

typedef struct worker {
  kk_instance_t *inst;
  int ok;
  char why[256];
} worker_t;

/* Each thread builds and submits its own graph on its own instance. */
static void *graph_worker(void *p) {
  worker_t *w = p;
  const int64_t n = 5000;
  kk_view_t *x = NULL, *y = NULL, *r = NULL;
  kk_graph_t *g = NULL;
  kk_graph_node_t *a;
  w->ok = kk_view_alloc(&x, "wx", KK_DOUBLE, 1, &n) == KK_OK && kk_view_alloc(&y, "wy", KK_DOUBLE, 1, &n) == KK_OK &&
          kk_view_alloc(&r, "wr", KK_DOUBLE, 0, NULL) == KK_OK && kk_graph_create(w->inst, &g) == KK_OK;
  double one = 1.0;
  struct axpy_args ax;
  memset(&ax, 0, sizeof ax);
  ax.a = 1.0;
  if (w->ok) {
    ax.x = kk_view_bind(x);
    ax.y = kk_view_bind(y);
  }
  struct two_views xy = {ax.x, ax.y};
  w->ok = w->ok && kk_deep_copy_fill_async(w->inst, x, &one) == KK_OK &&
          kk_graph_add_for(g, "w axpy", KK_RANGE(0, n), KK_KERNEL(axpy), KK_ARGS(ax), NULL, 0, &a) == KK_OK &&
          kk_graph_add_reduce(g, "w dot", KK_RANGE(0, n), KK_KERNEL(dot), KK_ARGS(xy), r, &a, 1, NULL) == KK_OK;
  for (int k = 1; w->ok && k <= 50; k++) {
    w->ok = kk_graph_submit(g, w->inst) == KK_OK && kk_instance_fence(w->inst) == KK_OK;
    kk_view_t *h = NULL;
    w->ok = w->ok && kk_view_create_mirror(r, &h) == KK_OK && kk_deep_copy(h, r) == KK_OK;
    if (w->ok && *(double *)kk_view_data(h) != (double)k * (double)n) {
      snprintf(w->why, sizeof w->why, "submission %d: dot %g", k, *(double *)kk_view_data(h));
      w->ok = 0;
    }
    kk_view_release(h);
  }
  if (!w->ok && !w->why[0])
    snprintf(w->why, sizeof w->why, "%s", kk_last_error());
  kk_graph_destroy(g);
  kk_view_release(x), kk_view_release(y), kk_view_release(r);
  return NULL;
}

START_TEST(graph_two_threads) {
  worker_t w[2];
  pthread_t th[2];
  for (int i = 0; i < 2; i++) {
    memset(&w[i], 0, sizeof w[i]);
    OK(kk_instance_create(NULL, &w[i].inst));
    ck_assert_int_eq(pthread_create(&th[i], NULL, graph_worker, &w[i]), 0);
  }
  for (int i = 0; i < 2; i++) {
    pthread_join(th[i], NULL);
    ck_assert_msg(w[i].ok, "thread %d: %s", i, w[i].why);
    OK(kk_instance_destroy(w[i].inst));
  }
}
END_TEST

/* A graph and a capture the program leaves: kk_finalize ends and destroys
 * them (under valgrind, CI sees that nothing leaks). */
START_TEST(graph_left_to_finalize) {
  kk_view_t *x = gvec("x", KK_DOUBLE, 10), *y = gvec("y", KK_DOUBLE, 10);
  kk_graph_t *g;
  OK(kk_graph_create(NULL, &g));
  struct axpy_args ax = {1.0, kk_view_bind(x), kk_view_bind(y)};
  kk_graph_node_t *a;
  OK(kk_graph_add_for(g, "left", KK_RANGE(0, 10), KK_KERNEL(axpy), KK_ARGS(ax), NULL, 0, &a));
  double v = 1.0;
  OK(kk_graph_add_fill(g, x, &v, &a, 1, NULL)); /* after the axpy, which reads x */
  OK(kk_graph_submit(g, NULL));
  OK(kk_graph_begin_capture(NULL));
  OK(kk_parallel_for("left captured", KK_RANGE(0, 10), KK_KERNEL(axpy), KK_ARGS(ax)));
  kk_view_release(x), kk_view_release(y);
}
END_TEST

/* Submitting a destroyed graph crashed (read freed memory): a destroyed
 * handle is an error on every backend, also once a new graph has taken
 * the destroyed one's place. */
START_TEST(graph_destroyed_is_refused) {
  const int64_t n = 100;
  kk_view_t *x = gvec("x", KK_DOUBLE, n);
  kk_graph_t *g = NULL, *again = NULL;
  kk_graph_node_t *node = NULL;
  OK(kk_graph_create(NULL, &g));
  double two = 2.0;
  OK(kk_graph_add_fill(g, x, &two, NULL, 0, &node));
  OK(kk_graph_submit(g, NULL));
  OK(kk_fence());
  OK(kk_graph_destroy(g));
  OK(kk_graph_create(NULL, &again));
  OK(kk_graph_add_fill(again, x, &two, NULL, 0, NULL));
  ck_assert_int_eq(kk_graph_submit(g, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(kk_last_error(), "kk_graph_submit: the graph was destroyed (kk_graph_destroy): its handle is invalid");
  ck_assert_int_eq(kk_graph_submit(g, kk_instance_default()), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_graph_instantiate(g), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_graph_instantiate: the graph was destroyed");
  ck_assert_int_eq(kk_graph_add_fill(g, x, &two, NULL, 0, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_graph_add_fill: the graph was destroyed");
  ck_assert_int_eq(kk_graph_add_empty(g, NULL, 0, NULL), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq(kk_graph_set_args(g, node, &two, sizeof two), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_graph_set_args: the graph was destroyed");
  ck_assert_int_eq(kk_graph_destroy(g), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "kk_graph_destroy: the graph was destroyed");
  ck_assert_int_eq(kk_graph_node_count(g), 0);
  ck_assert_ptr_null(kk_graph_node_at(g, 0));
  ck_assert_int_eq(kk_graph_native(g), 0);
  /* the graph that came after is untouched */
  ck_assert_int_eq(kk_graph_node_count(again), 1);
  set_d(x, 0.0);
  OK(kk_graph_submit(again, NULL));
  all_equal(x, 2.0, "x");
  OK(kk_graph_destroy(again));
  kk_view_release(x);
}
END_TEST

void conf_add_graph_tests(Suite *s);
void conf_add_graph_tests(Suite *s) {
  TCase *tc = tcase_create("graphs");
  tcase_add_checked_fixture(tc, conf_setup, conf_teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, graph_explicit_chain);
  tcase_add_test(tc, graph_fan_out_fan_in);
  tcase_add_test(tc, graph_every_kind);
  tcase_add_test(tc, graph_scan_replays);
  tcase_add_test(tc, graph_capture);
  tcase_add_test(tc, graph_capture_refusals);
  tcase_add_test(tc, graph_copy_between_layouts);
  tcase_add_test(tc, graph_update_args);
  tcase_add_test(tc, graph_errors);
  tcase_add_test(tc, graph_tools_events);
  tcase_add_test(tc, graph_two_threads);
  tcase_add_test(tc, graph_left_to_finalize);
  tcase_add_test(tc, graph_destroyed_is_refused);
  suite_add_tcase(s, tc);
}
