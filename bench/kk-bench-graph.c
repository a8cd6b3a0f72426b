/* bench/kk-bench-graph.c -- graphs: a chain of 100 small kernels as a graph and launched one by one, and CG with its iteration as a graph, each against hand-written OpenMP or CUDA in the same run. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_graph.h"
#include "kk-bench-graph.h"
#include "bench_hier.h"
#ifdef KK_BENCH_CUDA
#include "native_cuda.h"
#endif

#define CHAIN 100       /* kernels in the chain */
#define CHAIN_LOGN 12   /* elements each: 2^12 doubles, 32 KiB */
#define BURST 20        /* chains per timed run */

/* ---- the chain: y = x + 0.5 y, 100 times, each kernel reading the y the one before wrote ---- */

static void kk_chain_launches(int64_t n, const struct vec_args *a) {
  for (int k = 0; k < CHAIN; k++)
    CHECK(kk_parallel_for("chain", KK_RANGE(0, n), KK_KERNEL(cg_xpay), KK_ARGS(*a)));
  CHECK(kk_fence());
}

static void kk_chain_graph(kk_graph_t *g) {
  CHECK(kk_graph_submit(g, NULL));
  CHECK(kk_fence());
}

/* The hand-written host versions: a parallel region per kernel, as a
 * program of `omp parallel for` loops launches them, and one region with a
 * worksharing loop (and its barrier) per kernel, the form of a graph. */
static void native_chain_serial(const double *x, double *y, int64_t n) {
  for (int k = 0; k < CHAIN; k++)
    for (int64_t i = 0; i < n; i++)
      y[i] = x[i] + 0.5 * y[i];
}

static void native_chain_regions(const double *x, double *y, int64_t n, int nt) {
  if (nt == 1) {
    native_chain_serial(x, y, n);
    return;
  }
  for (int k = 0; k < CHAIN; k++) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t i = 0; i < n; i++)
      y[i] = x[i] + 0.5 * y[i];
  }
}

static void native_chain_one_region(const double *x, double *y, int64_t n, int nt) {
  if (nt == 1) {
    native_chain_serial(x, y, n);
    return;
  }
#pragma omp parallel num_threads(nt)
  for (int k = 0; k < CHAIN; k++) {
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; i++)
      y[i] = x[i] + 0.5 * y[i];
  }
}

static double *dvec(int64_t n, double v) {
  double *p = aligned_alloc(64, (size_t)n * sizeof(double) + 64);
  if (!p) {
    fprintf(stderr, "kk-bench: out of memory\n");
    exit(1);
  }
  for (int64_t i = 0; i < n; i++)
    p[i] = v;
  return p;
}

/* Best seconds of one call of side `s` (of BURST calls after an untimed one)
 * over `rounds` rounds, the side going first rotating. */
#define SIDES 4
static void chain_duel(int rounds, double best[SIDES], int host, kk_graph_t *g, const struct vec_args *a, int64_t n,
                       const double *nx, double *ny, int nt) {
  for (int s = 0; s < SIDES; s++)
    best[s] = 1e30;
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < SIDES; k++) {
      const int s = (r + k) % SIDES;
      if (!host && s >= 2)
        continue;
      if (host)
        bench_settle();
      double t0 = 0;
      for (int c = -1; c < BURST; c++) {
        if (c == 0)
          t0 = bench_now();
        switch (s) {
        case 0:
          kk_chain_graph(g);
          break;
        case 1:
          kk_chain_launches(n, a);
          break;
        case 2:
          native_chain_one_region(nx, ny, n, nt);
          break;
        default:
          native_chain_regions(nx, ny, n, nt);
          break;
        }
      }
      double t = (bench_now() - t0) / BURST;
      best[s] = t < best[s] ? t : best[s];
    }
}

static void bench_chain(const char *backend, int nt, int reps) {
  const int64_t n = (int64_t)1 << CHAIN_LOGN;
  char size[32];
  snprintf(size, sizeof size, "%dx2^%d", CHAIN, CHAIN_LOGN);
  kk_view_t *x, *y;
  CHECK(kk_view_alloc(&x, "x", KK_DOUBLE, 1, &n));
  CHECK(kk_view_alloc(&y, "y", KK_DOUBLE, 1, &n));
  double one = 1.0;
  CHECK(kk_deep_copy_fill(x, &one));
  struct vec_args a = {0.5, kk_view_bind(x), kk_view_bind(y)};
  /* the graph: the same launches, captured */
  kk_graph_t *g;
  CHECK(kk_graph_begin_capture(NULL));
  for (int k = 0; k < CHAIN; k++)
    CHECK(kk_parallel_for("chain", KK_RANGE(0, n), KK_KERNEL(cg_xpay), KK_ARGS(a)));
  CHECK(kk_graph_end_capture(NULL, &g));
  CHECK(kk_graph_instantiate(g));
  double *nx = dvec(n, 1.0), *ny = dvec(n, 0.0);
  double best[SIDES];
  const int host = !ON_GPU(backend);
  chain_duel(reps, best, host, g, &a, n, nx, ny, nt);
  double tng = -1, tnl = -1;
#ifdef KK_BENCH_CUDA
  if (!host) {
    tng = ncu_chain(n, CHAIN, reps, 1);
    tnl = ncu_chain(n, CHAIN, reps, 0);
  }
#endif
  if (host)
    tng = best[2], tnl = best[3];
  /* y converged to 2 x on every side */
  double yk = 0;
  kk_view_t *h;
  CHECK(kk_view_create_mirror(y, &h));
  CHECK(kk_deep_copy(h, y));
  yk = ((double *)kk_view_data(h))[n - 1];
  kk_view_release(h);
  if (fabs(yk - 2.0) > 1e-9 || (host && fabs(ny[n - 1] - 2.0) > 1e-9))
    fprintf(stderr, "kk-bench: the chain gave y = %.17g (kk), %.17g (native); expected 2\n", yk, ny[n - 1]);
  const double us = 1e6 / CHAIN;
  bench_record("chain: graph", backend, size, best[0] * us, tng * us, "us/k", 1);
  bench_record("chain: launches", backend, size, best[1] * us, tnl * us, "us/k", 1);
  /* the same kk kernels both ways: the second column is kk's launches */
  bench_record("chain: graph/launch", backend, size, best[0] * us, best[1] * us, "us/k", 1);
  if (!kk_graph_native(g))
    fprintf(stderr, "kk-bench: backend %s replays graphs node by node\n", backend);
  CHECK(kk_graph_destroy(g));
  free(nx), free(ny);
  kk_view_release(x), kk_view_release(y);
}

/* ---- CG with its iteration as a graph -------------------------------------------------------------- */

typedef struct cg {
  int64_t N;
  kk_view_t *x, *r, *p, *Ap, *rr, *rrn, *pap, *alpha, *beta;
  struct tspmv_args sa;
  kk_team_policy_t tp;
  int fused; /* the ratios inside the vector updates (GPUs), or a 1-element kernel each (CPUs) */
} cg_t;

/* One iteration with its scalars in views: nothing waits for the host, so
 * that it can be captured (and launched one by one for comparison). */
static void cg_iteration(cg_t *c) {
  const int64_t N = c->N;
  CHECK(kk_parallel_for_team("spmv", &c->tp, KK_KERNEL(team_spmv), KK_ARGS(c->sa)));
  struct vec_args pap = {0, kk_view_bind(c->p), kk_view_bind(c->Ap)};
  CHECK(kk_parallel_reduce_view("dot", KK_RANGE(0, N), KK_KERNEL(cg_dot2), KK_ARGS(pap), c->pap));
  if (c->fused) {
    struct rvec_args ux = {kk_view_bind(c->rr), kk_view_bind(c->pap), 1.0, kk_view_bind(c->p), kk_view_bind(c->x)};
    CHECK(kk_parallel_for("axpy", KK_RANGE(0, N), KK_KERNEL(graph_axpy_ratio), KK_ARGS(ux)));
    struct rvec_args ur = {kk_view_bind(c->rr), kk_view_bind(c->pap), -1.0, kk_view_bind(c->Ap), kk_view_bind(c->r)};
    CHECK(kk_parallel_for("axpy", KK_RANGE(0, N), KK_KERNEL(graph_axpy_ratio), KK_ARGS(ur)));
    struct vec_args rrv = {0, kk_view_bind(c->r), kk_view_bind(c->r)};
    CHECK(kk_parallel_reduce_view("dot", KK_RANGE(0, N), KK_KERNEL(cg_dot2), KK_ARGS(rrv), c->rrn));
    struct rvec_args up = {kk_view_bind(c->rrn), kk_view_bind(c->rr), 1.0, kk_view_bind(c->r), kk_view_bind(c->p)};
    CHECK(kk_parallel_for("xpay", KK_RANGE(0, N), KK_KERNEL(graph_xpay_ratio), KK_ARGS(up)));
  } else {
    struct ratio_args ra = {kk_view_bind(c->alpha), kk_view_bind(c->rr), kk_view_bind(c->pap)};
    CHECK(kk_parallel_for("alpha", KK_RANGE(0, 1), KK_KERNEL(graph_ratio), KK_ARGS(ra)));
    struct svec_args ux = {kk_view_bind(c->alpha), 1.0, kk_view_bind(c->p), kk_view_bind(c->x)};
    CHECK(kk_parallel_for("axpy", KK_RANGE(0, N), KK_KERNEL(graph_axpy_v), KK_ARGS(ux)));
    struct svec_args ur = {kk_view_bind(c->alpha), -1.0, kk_view_bind(c->Ap), kk_view_bind(c->r)};
    CHECK(kk_parallel_for("axpy", KK_RANGE(0, N), KK_KERNEL(graph_axpy_v), KK_ARGS(ur)));
    struct vec_args rrv = {0, kk_view_bind(c->r), kk_view_bind(c->r)};
    CHECK(kk_parallel_reduce_view("dot", KK_RANGE(0, N), KK_KERNEL(cg_dot2), KK_ARGS(rrv), c->rrn));
    struct ratio_args rb = {kk_view_bind(c->beta), kk_view_bind(c->rrn), kk_view_bind(c->rr)};
    CHECK(kk_parallel_for("beta", KK_RANGE(0, 1), KK_KERNEL(graph_ratio), KK_ARGS(rb)));
    struct svec_args up = {kk_view_bind(c->beta), 1.0, kk_view_bind(c->r), kk_view_bind(c->p)};
    CHECK(kk_parallel_for("xpay", KK_RANGE(0, N), KK_KERNEL(graph_xpay_v), KK_ARGS(up)));
  }
  CHECK(kk_deep_copy_async(kk_instance_default(), c->rr, c->rrn));
}

/* x = 0, r = p = 1, rr = r.r */
static void cg_start(cg_t *c) {
  double one = 1.0, zero = 0.0;
  CHECK(kk_deep_copy_fill(c->r, &one));
  CHECK(kk_deep_copy_fill(c->p, &one));
  CHECK(kk_deep_copy_fill(c->x, &zero));
  struct vec_args d = {0, kk_view_bind(c->r), kk_view_bind(c->r)};
  CHECK(kk_parallel_reduce_view("dot", KK_RANGE(0, c->N), KK_KERNEL(cg_dot2), KK_ARGS(d), c->rr));
  CHECK(kk_fence());
}

static double scalar_of(kk_view_t *v) {
  kk_view_t *h;
  CHECK(kk_view_create_mirror(v, &h));
  CHECK(kk_deep_copy(h, v));
  double d = *(double *)kk_view_data(h);
  kk_view_release(h);
  return d;
}

static kk_view_t *vec(const char *label, int64_t n) {
  kk_view_t *v;
  CHECK(kk_view_alloc(&v, label, KK_DOUBLE, 1, &n));
  return v;
}

static kk_view_t *scalar(const char *label) {
  kk_view_t *v;
  CHECK(kk_view_alloc(&v, label, KK_DOUBLE, 0, NULL));
  return v;
}

static void bench_cg_graph(const char *backend, int nt, int64_t n, int iters, int rounds) {
  const int64_t N = n * n * n;
  int64_t *rp, nnz;
  int32_t *ci;
  double *va;
  bench_cg_matrix(n, &rp, &ci, &va, &nnz);
  kk_view_t *row_ptr = bench_view_of("row_ptr", KK_INT64, N + 1, rp), *cols = bench_view_of("cols", KK_INT32, nnz, ci),
            *vals = bench_view_of("vals", KK_DOUBLE, nnz, va);
  cg_t c;
  memset(&c, 0, sizeof c);
  c.N = N;
  c.fused = ON_GPU(backend);
  c.x = vec("x", N), c.r = vec("r", N), c.p = vec("p", N), c.Ap = vec("Ap", N);
  c.rr = scalar("rr"), c.rrn = scalar("rr_new"), c.pap = scalar("pAp"), c.alpha = scalar("alpha");
  c.beta = scalar("beta");
  /* 64 rows per team (8 per warp) where that still makes a league of 4096 teams; on a GPU a smaller
   * problem gets a row per warp, as the hand-written kernel (20^3: 1000 teams of 8 rows, where 64 rows a
   * team left 125 teams for an H200's 132 SMs and took 14 us a SpMV) */
  const int64_t rows_per_team = ON_GPU(backend) && N < 64 * 4096 ? 8 : 64;
  c.sa = (struct tspmv_args){kk_view_bind(row_ptr), kk_view_bind(cols), kk_view_bind(vals), kk_view_bind(c.p),
                             kk_view_bind(c.Ap), N, rows_per_team};
  c.tp = (kk_team_policy_t){sizeof c.tp, (N + rows_per_team - 1) / rows_per_team, KK_AUTO, KK_AUTO, {0, 0}, {0, 0}, 0,
                            KK_SCHEDULE_STATIC, NULL};
  kk_graph_t *g;
  CHECK(kk_graph_begin_capture(NULL));
  cg_iteration(&c);
  CHECK(kk_graph_end_capture(NULL, &g));
  CHECK(kk_graph_instantiate(g));
  double *nxv = NULL, *nr = NULL, *np = NULL, *nap = NULL;
  if (!ON_GPU(backend))
    nxv = dvec(N, 0), nr = dvec(N, 0), np = dvec(N, 0), nap = dvec(N, 0);
  /* sides: 0 kk graph, 1 kk launches, 2 native (its launches on a GPU), 3 native CUDA graph */
  double best[4] = {1e30, 1e30, 1e30, 1e30}, rr[4] = {0, 0, 0, 0};
  const int nsides = ON_GPU(backend) ? 4 : 3;
  for (int round = 0; round < rounds; round++)
    for (int k = 0; k < nsides; k++) {
      const int s = (round + k) % nsides;
      double t = 0;
      if (s < 2) {
        if (!ON_GPU(backend))
          bench_settle();
        cg_start(&c);
        double t0 = bench_now();
        for (int it = 0; it < iters; it++)
          if (s == 0)
            CHECK(kk_graph_submit(g, NULL));
          else
            cg_iteration(&c);
        CHECK(kk_fence());
        t = bench_now() - t0;
        rr[s] = scalar_of(c.rr);
      } else if (!ON_GPU(backend)) {
        bench_settle();
        t = bench_native_cg(rp, ci, va, N, iters, nt, nxv, nr, np, nap, &rr[s]);
      } else {
#ifdef KK_BENCH_CUDA
        t = ncu_cg_device(rp, ci, va, N, iters, s == 3, &rr[s]);
#endif
      }
      if (t > 0 && t < best[s])
        best[s] = t;
    }
  /* the sides agree to 1e-6, or have all converged to rounding (r.r below
   * 1e-20 of the start's N; the 20^3 problem gets there in its iterations) */
  for (int s = 1; s < nsides; s++)
    if (fabs(rr[s] - rr[0]) > 1e-6 * fabs(rr[0]) + 1e-20 * (double)N)
      fprintf(stderr, "kk-bench: CG residuals differ: kk graph %.17g, side %d %.17g\n", rr[0], s, rr[s]);
  const double bytes = ((double)nnz * 12.0 + (double)N * 8.0 * 3 + (double)N * 8.0 * (2 + 1 + 3 * 3)) * iters * 1e-9;
  char size[16];
  snprintf(size, sizeof size, "%lld^3", (long long)n);
  const int native_graph = ON_GPU(backend) ? 3 : 2; /* on the host: OpenMP, whose regions a graph's barriers stand for */
  bench_record("CG: graph", backend, size, bytes / best[0], bytes / best[native_graph], "GB/s", 0);
  bench_record("CG: launches", backend, size, bytes / best[1], bytes / best[2], "GB/s", 0);
  bench_record("CG: graph/launch", backend, size, bytes / best[0], bytes / best[1], "GB/s", 0);
  CHECK(kk_graph_destroy(g));
  free(rp), free(ci), free(va), free(nxv), free(nr), free(np), free(nap);
  kk_view_release(row_ptr), kk_view_release(cols), kk_view_release(vals);
  kk_view_release(c.x), kk_view_release(c.r), kk_view_release(c.p), kk_view_release(c.Ap);
  kk_view_release(c.rr), kk_view_release(c.rrn), kk_view_release(c.pap), kk_view_release(c.alpha);
  kk_view_release(c.beta);
}

void bench_graph(const char *backend, int nt, int reps, const char *cases, int quick, int smoke) {
  if (bench_wants(cases, "graph"))
    bench_chain(backend, nt, reps ? reps : quick || smoke ? 3 : 10);
  if (bench_wants(cases, "cggraph") && !quick) {
    const int rounds = reps ? reps : 4;
    bench_cg_graph(backend, nt, 20, smoke ? 10 : 50, 2 * rounds);
    if (!smoke)
      bench_cg_graph(backend, nt, 100, 50, rounds);
  }
}
