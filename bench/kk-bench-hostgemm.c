/* bench/kk-bench-hostgemm.c -- kk-kernels' own host dgemm against OpenBLAS by CPU time as well as wall time, for machines that others share. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kk/linalg.h>

#include "bench_base.h"

/*
 * usage: kk-bench-hostgemm [N [REPS]] [--kokkos-*...]   (default 2048, 3)
 *
 * C = A B, N x N doubles in LayoutRight, on the default (host) backend with
 * its thread count; kk's own gemm (vendor libraries off) and OpenBLAS's
 * cblas_dgemm (dlopen of libopenblas.so.0, its thread count set to kk's)
 * alternate REPS times after one untimed call each, each call after a
 * pause of 100 ms (the other side's idle threads spin for some
 * milliseconds after a call), and the best of each
 * is printed twice: by wall time, and by the process's CPU time (threads
 * together, scaled by the thread count).  On a machine that other jobs
 * share, wall time counts the time their processes held the cores; CPU
 * time counts only this process's, so the CPU-time ratio is the steadier
 * measure of the kernels there (spinning threads count in it, on both
 * sides).  kk-bench-kernels is the benchmark of record; this program is
 * for tuning on a shared machine.  C is compared with OpenBLAS's result.
 */

const char bench_program[] = "kk-bench-hostgemm";

typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                         double *, int);

int main(int argc, char **argv) {
  kk_status_t st = kk_initialize(&argc, &argv);
  if (st != KK_OK) {
    fprintf(stderr, "kk-bench-hostgemm: %s\n", kk_last_error());
    return 1;
  }
  const int n = argc > 1 ? atoi(argv[1]) : 2048, reps = argc > 2 ? atoi(argv[2]) : 3;
  if (n < 1 || reps < 1) {
    fprintf(stderr, "usage: kk-bench-hostgemm [N [REPS]] [--kokkos-*...]\n");
    kk_finalize();
    return 2;
  }
  if (strcmp(kk_backend_default(), kk_backend_host()) != 0) {
    fprintf(stderr, "kk-bench-hostgemm: the default backend is %s; pick a host backend (--kokkos-device=openmp)\n",
            kk_backend_default());
    kk_finalize();
    return 2;
  }
  void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  dgemm_fn dgemm = h ? (dgemm_fn)dlsym(h, "cblas_dgemm") : NULL;
  void (*set_threads)(int) = h ? (void (*)(int))dlsym(h, "openblas_set_num_threads") : NULL;
  if (!dgemm || !set_threads) {
    fprintf(stderr, "kk-bench-hostgemm: no OpenBLAS with cblas_dgemm (%s)\n", h ? "symbols missing" : dlerror());
    return 1;
  }
  const int threads = kk_num_threads();
  set_threads(threads);

  kk_view_t *v[3];
  double *d[3];
  srand(1);
  for (int i = 0; i < 3; i++) {
    kk_view_spec_t s = KK_VIEW_SPEC_INIT;
    s.label = i == 0 ? "A" : i == 1 ? "B" : "C";
    s.rank = 2;
    s.layout = KK_LAYOUT_RIGHT;
    s.extents[0] = s.extents[1] = n;
    CHECK(kk_view_create(&s, &v[i]));
    d[i] = kk_view_data(v[i]);
    for (size_t j = 0; j < (size_t)n * (size_t)n; j++)
      d[i][j] = (double)rand() / RAND_MAX - 0.5;
  }
  double *ref = malloc(sizeof(double) * (size_t)n * (size_t)n);
  if (!ref) {
    fprintf(stderr, "kk-bench-hostgemm: out of memory\n");
    return 1;
  }
  CHECK(kk_kernels_set_tpl(NULL, "none"));
  double wk = INFINITY, wo = INFINITY, ck = INFINITY, co = INFINITY;
  /* a pause before each side: the other side's idle threads (libgomp's,
   * OpenBLAS's) spin for some milliseconds after a call */
  for (int r = -1; r < reps; r++) { /* r = -1: untimed */
    bench_rest(100, 100);
    const double w0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    CHECK(kk_blas_gemm(NULL, KK_OP_N, KK_OP_N, KK_REAL(1), v[0], v[1], KK_REAL(0), v[2]));
    CHECK(kk_fence());
    const double we = bench_now(), ce = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    bench_rest(100, 100);
    const double w1 = bench_now(), c1 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    dgemm(101 /* row major */, 111, 111, n, n, n, 1.0, d[0], n, d[1], n, 0.0, ref, n);
    const double w2 = bench_now(), c2 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    if (r >= 0) {
      wk = fmin(wk, we - w0);
      ck = fmin(ck, ce - c0);
      wo = fmin(wo, w2 - w1);
      co = fmin(co, c2 - c1);
    }
  }
  double err = 0;
  for (size_t j = 0; j < (size_t)n * (size_t)n; j++)
    err = fmax(err, fabs(d[2][j] - ref[j]));
  const double gf = 2.0 * n * (double)n * (double)n * 1e-9;
  printf("dgemm %d^2, %s, %d thread%s, best of %d\n", n, kk_backend_default(), threads, threads == 1 ? "" : "s",
         reps);
  printf("  wall: kk own %7.1f GFLOP/s  OpenBLAS %7.1f  kk/OpenBLAS %.3f\n", gf / wk, gf / wo, wo / wk);
  printf("  cpu:  kk own %7.1f GFLOP/s  OpenBLAS %7.1f  kk/OpenBLAS %.3f  (flops / (CPU seconds / %d))\n",
         threads * gf / ck, threads * gf / co, co / ck, threads);
  printf("  largest difference from OpenBLAS's C: %.1e\n", err);
  free(ref);
  for (int i = 0; i < 3; i++)
    kk_view_release(v[i]);
  kk_finalize();
  return err <= 1e-9 * n ? 0 : 1;
}
