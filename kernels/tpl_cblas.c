/* kernels/tpl_cblas.c -- a CBLAS (OpenBLAS, reference BLAS) opened at run time, for kk-kernels calls on host backends. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _GNU_SOURCE /* the CPU masks of kernels/affinity.h */
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "affinity.h"
#include "internal.h"

/*
 * Nothing is linked: the library is opened with dlopen at the first call
 * that could use it, and its functions are looked up by their CBLAS names.
 * It serves calls whose instance runs on a host backend, on vectors and
 * matrices it can describe: a constant increment, a matrix with one unit
 * stride, sizes that fit its `int`.  Everything else stays with kk's own
 * kernels.  OpenBLAS gets as many threads as kk's host backend has.
 *
 * Which calls it is offered (docs/kernels.md, "the vendor-choice rule"):
 * gemm always (compute-bound: on 16 bound cores of the H100 machine
 * OpenBLAS's dgemm ran at 2.6-2.8x kk's portable tiles); BLAS 1 and gemv
 * only when kk's host backend runs one thread.  With more, kk's own
 * kernels spread them over kk's threads: OpenBLAS 0.3.21 runs ddot and
 * daxpby on one thread whatever its thread count (15-18 GB/s there against
 * kk's 96-118), and its threaded gemv ran at 112 and 73 GB/s in two runs
 * where kk's ran at 107 and 97.  On one thread both are bound by one core
 * and the BLAS's hand-written loops are at least as fast.
 */

enum { ROW_MAJOR = 101, COL_MAJOR = 102 };
enum { NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113 };

typedef float (*sdot_t)(int, const float *, int, const float *, int);
typedef double (*ddot_t)(int, const double *, int, const double *, int);
typedef void (*xdotc_t)(int, const void *, int, const void *, int, void *);
typedef float (*snrm_t)(int, const void *, int);    /* snrm2, sasum, scnrm2, scasum */
typedef double (*dnrm_t)(int, const void *, int);   /* dnrm2, dasum, dznrm2, dzasum */
typedef size_t (*iamax_t)(int, const void *, int);
typedef void (*sscal_t)(int, float, float *, int);
typedef void (*dscal_t)(int, double, double *, int);
typedef void (*xscal_t)(int, const void *, void *, int);
typedef void (*saxpy_t)(int, float, const float *, int, float *, int);
typedef void (*daxpy_t)(int, double, const double *, int, double *, int);
typedef void (*xaxpy_t)(int, const void *, const void *, int, void *, int);
typedef void (*saxpby_t)(int, float, const float *, int, float, float *, int);
typedef void (*daxpby_t)(int, double, const double *, int, double, double *, int);
typedef void (*xaxpby_t)(int, const void *, const void *, int, const void *, void *, int);
typedef void (*sgemv_t)(int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*dgemv_t)(int, int, int, int, double, const double *, int, const double *, int, double, double *, int);
typedef void (*xgemv_t)(int, int, int, int, const void *, const void *, int, const void *, int, const void *, void *,
                        int);
typedef void (*sgemm_t)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,
                        int);
typedef void (*dgemm_t)(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                        double *, int);
typedef void (*xgemm_t)(int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *,
                        void *, int);
typedef void (*set_threads_t)(int);

static struct {
  sdot_t sdot;
  ddot_t ddot;
  xdotc_t cdotc, zdotc;
  snrm_t snrm2, sasum, scnrm2, scasum;
  dnrm_t dnrm2, dasum, dznrm2, dzasum;
  iamax_t iamax[4];
  sscal_t sscal;
  dscal_t dscal;
  xscal_t cscal, zscal;
  saxpy_t saxpy;
  daxpy_t daxpy;
  xaxpy_t caxpy, zaxpy;
  int asum_ok[4];  /* ?asum of each type agreed with a plain sum when opened (asum_check) */
  saxpby_t saxpby; /* OpenBLAS extensions: may be NULL */
  daxpby_t daxpby;
  xaxpby_t caxpby, zaxpby;
  sgemv_t sgemv;
  dgemv_t dgemv;
  xgemv_t cgemv, zgemv;
  sgemm_t sgemm;
  dgemm_t dgemm;
  xgemm_t cgemm, zgemm;
  set_threads_t set_threads; /* openblas_set_num_threads, may be NULL */
} B;

static _Atomic int g_threads; /* the thread count last given to OpenBLAS */

static const char *const k_names[] = {"libopenblas.so.0", "libblas.so.3", "libcblas.so.3"};

/* Every symbol the library must have; the optional ones are looked up apart. */
#define REQUIRED(X)                                                                                               \
  X(sdot, "cblas_sdot") X(ddot, "cblas_ddot") X(cdotc, "cblas_cdotc_sub") X(zdotc, "cblas_zdotc_sub")             \
  X(snrm2, "cblas_snrm2") X(sasum, "cblas_sasum") X(scnrm2, "cblas_scnrm2") X(scasum, "cblas_scasum")             \
  X(dnrm2, "cblas_dnrm2") X(dasum, "cblas_dasum") X(dznrm2, "cblas_dznrm2") X(dzasum, "cblas_dzasum")             \
  X(iamax[0], "cblas_isamax") X(iamax[1], "cblas_idamax") X(iamax[2], "cblas_icamax") X(iamax[3], "cblas_izamax") \
  X(sscal, "cblas_sscal") X(dscal, "cblas_dscal") X(cscal, "cblas_cscal") X(zscal, "cblas_zscal")                 \
  X(saxpy, "cblas_saxpy") X(daxpy, "cblas_daxpy") X(caxpy, "cblas_caxpy") X(zaxpy, "cblas_zaxpy")                 \
  X(sgemv, "cblas_sgemv") X(dgemv, "cblas_dgemv") X(cgemv, "cblas_cgemv") X(zgemv, "cblas_zgemv")                 \
  X(sgemm, "cblas_sgemm") X(dgemm, "cblas_dgemm") X(cgemm, "cblas_cgemm") X(zgemm, "cblas_zgemm")

/* Each ?asum checked once against a plain loop, when the library is opened:
 * OpenBLAS 0.3.21 (Debian 12's) returns wrong sums from scasum for 9 or more
 * elements on the CPUs it gives its Cooperlake kernels (those with
 * AVX512-BF16: Intel Cooper Lake and Sapphire Rapids, AMD Zen 4), a fault
 * OpenBLAS fixed in 0.3.25.  A routine that fails is never called: kk's own
 * kernel computes that type's nrm1 (docs/kernels.md). */
static void asum_check(void) {
  enum { N = 37 };
  double x[2 * N * 2];
  float xf[2 * N * 2];
  for (int i = 0; i < 2 * N * 2; i++) { /* quarters: every partial sum is exact in float */
    x[i] = (double)((i * 7) % 11 - 5) * 0.25;
    xf[i] = (float)x[i];
  }
  for (int ty = 0; ty < 4; ty++) {
    const int cplx = ty >= 2;
    int ok = 1;
    for (int n = 1; n <= N && ok; n += 3)
      for (int inc = 1; inc <= 2 && ok; inc++) {
        double want = 0.0;
        for (int i = 0; i < n; i++)
          for (int part = 0; part <= cplx; part++)
            want += fabs(x[(cplx + 1) * i * inc + part]);
        const double got = ty == 0 ? B.sasum(n, xf, inc) : ty == 1 ? B.dasum(n, x, inc)
                         : ty == 2 ? B.scasum(n, xf, inc) : B.dzasum(n, x, inc);
        ok = got == want;
      }
    B.asum_ok[ty] = ok;
  }
}

/* One library: 0 when it has every required symbol. */
static int try_one(const char *file, char *why, size_t why_size) {
#define SYM(field, sym) KKK_TPL_SYM(B.field, sym)
  static const kkk_tpl_sym_t syms[] = {REQUIRED(SYM)};
#undef SYM
  kkk_affinity_t aff; /* its thread pool starts now: on every CPU of the process (affinity.h) */
  kkk_affinity_widen(&aff);
  void *h = kkk_tpl_dlopen(file, syms, sizeof syms / sizeof *syms, "not a CBLAS", why, why_size);
  kkk_affinity_restore(&aff);
  if (!h)
    return -1;
  *(void **)&B.saxpby = dlsym(h, "cblas_saxpby");
  *(void **)&B.daxpby = dlsym(h, "cblas_daxpby");
  *(void **)&B.caxpby = dlsym(h, "cblas_caxpby");
  *(void **)&B.zaxpby = dlsym(h, "cblas_zaxpby");
  *(void **)&B.set_threads = dlsym(h, "openblas_set_num_threads");
  asum_check();
  /* the library stays open for the life of the process: its threads may outlive any call */
  return 0;
}

static int cblas_open(const char *setting, char *path, size_t path_size, char *why, size_t why_size) {
  return kkk_tpl_open_first(setting, k_names, sizeof k_names / sizeof *k_names, try_one,
                            "no CBLAS found (Debian: apt-get install libopenblas0)", path, path_size, why, why_size);
}

/* ---- calls ---------------------------------------------------------------------------- */


/* A vector CBLAS can take: an increment of at least 1 (or a single element). */

static void threads_for_call(void) {
  if (!B.set_threads)
    return;
  const int n = kk_num_threads();
  if (n > 0 && atomic_load_explicit(&g_threads, memory_order_relaxed) != n) {
    kkk_affinity_t aff; /* threads it adds start now (affinity.h) */
    kkk_affinity_widen(&aff);
    B.set_threads(n);
    kkk_affinity_restore(&aff);
    atomic_store_explicit(&g_threads, n, memory_order_relaxed);
  }
}

static int cblas_call(const kkk_tpl_call_t *t, kk_status_t *st) {
  const kkk_call_t *c = t->c;
  if (!c->host || t->op == KKK_TPL_SPMV || t->op == KKK_TPL_SPSV) /* no sparse BLAS in a CBLAS */
    return 0;
  if (t->op != KKK_TPL_GEMM && kk_num_threads() > 1) /* memory-bound: kk's threads (above) */
    return 0;
  const int ty = c->t;
  const float fa[2] = {(float)t->a.re, (float)t->a.im}, fb[2] = {(float)t->b.re, (float)t->b.im};
  const double da[2] = {t->a.re, t->a.im}, db[2] = {t->b.re, t->b.im};
  const void *pa = ty == 2 ? (const void *)fa : (const void *)da, *pb = ty == 2 ? (const void *)fb : (const void *)db;
  if (!kkk_tpl_vectors_ok(t))
    return 0;
  if (t->op == KKK_TPL_NRM1 && !B.asum_ok[ty]) /* this library's ?asum gave a wrong sum (asum_check) */
    return 0;
  if (t->op == KKK_TPL_AXPBY) {
    /* axpby is an OpenBLAS extension; without it only b = 1 (axpy) */
    const int one_b = t->b.re == 1.0 && t->b.im == 0.0;
    const int have = ty == 0 ? B.saxpby != NULL : ty == 1 ? B.daxpby != NULL : ty == 2 ? B.caxpby != NULL : B.zaxpby != NULL;
    if (!have && !one_b)
      return 0;
  }
  int order = ROW_MAJOR, lda = 0, ldb = 0, ldc = 0, ta = 0, tb = 0;
  if (t->op == KKK_TPL_GEMV) {
    int s = kkk_tpl_stored(&t->A, 1, &lda);
    if (s < 0)
      return 0;
    order = s == 0 ? ROW_MAJOR : COL_MAJOR; /* A as it is stored */
    ta = NO_TRANS + kkk_tpl_trans(t->op_a, 0);
  } else if (t->op == KKK_TPL_GEMM) {
    int s = kkk_tpl_stored(&t->C, 1, &ldc);
    if (s < 0)
      return 0;
    order = s == 0 ? ROW_MAJOR : COL_MAJOR;
    int sa = kkk_tpl_stored(&t->A, order == ROW_MAJOR, &lda), sb = kkk_tpl_stored(&t->B, order == ROW_MAJOR, &ldb);
    if (sa < 0 || sb < 0)
      return 0;
    ta = kkk_tpl_trans(t->op_a, sa);
    tb = kkk_tpl_trans(t->op_b, sb);
    if (ta < 0 || tb < 0)
      return 0;
    ta += NO_TRANS;
    tb += NO_TRANS;
  }

  /* It runs here: after the instance's earlier work, on the calling thread. */
  *st = kk_instance_fence(c->inst);
  if (*st != KK_OK)
    return 1;
  threads_for_call();
  const int n = (int)t->x.n, ix = kkk_tpl_inc(&t->x), iy = kkk_tpl_inc(&t->y);
  void *x = t->x.data, *y = t->y.data;
  switch (t->op) {
  case KKK_TPL_AXPBY:
    if (ty == 0)
      B.saxpby ? B.saxpby(n, fa[0], x, ix, fb[0], y, iy) : B.saxpy(n, fa[0], x, ix, y, iy);
    else if (ty == 1)
      B.daxpby ? B.daxpby(n, da[0], x, ix, db[0], y, iy) : B.daxpy(n, da[0], x, ix, y, iy);
    else if (ty == 2)
      B.caxpby ? B.caxpby(n, pa, x, ix, pb, y, iy) : B.caxpy(n, pa, x, ix, y, iy);
    else
      B.zaxpby ? B.zaxpby(n, pa, x, ix, pb, y, iy) : B.zaxpy(n, pa, x, ix, y, iy);
    break;
  case KKK_TPL_SCAL:
    if (ty == 0)
      B.sscal(n, fa[0], x, ix);
    else if (ty == 1)
      B.dscal(n, da[0], x, ix);
    else if (ty == 2)
      B.cscal(n, pa, x, ix);
    else
      B.zscal(n, pa, x, ix);
    break;
  case KKK_TPL_DOT: {
    kk_scalar_t *r = t->result;
    if (ty == 0) {
      *r = KK_REAL(B.sdot(n, x, ix, y, iy));
    } else if (ty == 1) {
      *r = KK_REAL(B.ddot(n, x, ix, y, iy));
    } else if (ty == 2) {
      float v[2];
      B.cdotc(n, x, ix, y, iy, v);
      *r = KK_COMPLEX(v[0], v[1]);
    } else {
      double v[2];
      B.zdotc(n, x, ix, y, iy, v);
      *r = KK_COMPLEX(v[0], v[1]);
    }
    break;
  }
  case KKK_TPL_NRM2:
    *(double *)t->result = ty == 0 ? B.snrm2(n, x, ix) : ty == 1 ? B.dnrm2(n, x, ix) : ty == 2 ? B.scnrm2(n, x, ix)
                                                                                              : B.dznrm2(n, x, ix);
    break;
  case KKK_TPL_NRM1:
    *(double *)t->result = ty == 0 ? B.sasum(n, x, ix) : ty == 1 ? B.dasum(n, x, ix) : ty == 2 ? B.scasum(n, x, ix)
                                                                                              : B.dzasum(n, x, ix);
    break;
  case KKK_TPL_IAMAX:
    *(int64_t *)t->result = (int64_t)B.iamax[ty](n, x, ix);
    break;
  case KKK_TPL_GEMV: {
    const int m = (int)t->A.rows, nn = (int)t->A.cols;
    if (ty == 0)
      B.sgemv(order, ta, m, nn, fa[0], t->A.data, lda, x, ix, fb[0], y, iy);
    else if (ty == 1)
      B.dgemv(order, ta, m, nn, da[0], t->A.data, lda, x, ix, db[0], y, iy);
    else
      (ty == 2 ? B.cgemv : B.zgemv)(order, ta, m, nn, pa, t->A.data, lda, x, ix, pb, y, iy);
    break;
  }
  case KKK_TPL_GEMM: {
    const int m = (int)t->C.rows, nn = (int)t->C.cols;
    const int k = (int)(t->op_a == KK_OP_N ? t->A.cols : t->A.rows);
    if (ty == 0)
      B.sgemm(order, ta, tb, m, nn, k, fa[0], t->A.data, lda, t->B.data, ldb, fb[0], t->C.data, ldc);
    else if (ty == 1)
      B.dgemm(order, ta, tb, m, nn, k, da[0], t->A.data, lda, t->B.data, ldb, db[0], t->C.data, ldc);
    else
      (ty == 2 ? B.cgemm : B.zgemm)(order, ta, tb, m, nn, k, pa, t->A.data, lda, t->B.data, ldb, pb, t->C.data, ldc);
    break;
  }
  case KKK_TPL_SPMV:
  case KKK_TPL_SPSV:
    break;
  }
  *st = KK_OK;
  return 1;
}

const kkk_tpl_t kkk_tpl_cblas = {
    .name = "cblas",
    .env = "KK_KERNELS_CBLAS",
    .serves = "views on host backends: gemm; with one host thread also axpby, scal (in place), dot, nrm2, nrm1, iamax, gemv",
    .open = cblas_open,
    .call = cblas_call,
};
