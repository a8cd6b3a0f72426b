/* kernels/tpl_cublas.c -- cuBLAS opened at run time, for kk-kernels calls on views of the cuda backend. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/*
 * Nothing is linked: libcublas is opened with dlopen at the first call that
 * could use it (as the cuda plugin opens libcuda), and its functions are
 * looked up by name.  It serves calls whose instance is a cuda instance
 * with a native stream (kk_instance_native_queue, plugin ABI 1.4): the call
 * is queued on that stream, ordered after the instance's earlier work and
 * before its later work, as kk's own kernel would be.  Results that come
 * back to the host (dot, norms, iamax) wait for the stream, as kk's own
 * reductions do.  One cuBLAS handle per process (the device's primary
 * context, the one kk's cuda plugin uses), its stream set per call under a
 * lock.  Cases cuBLAS cannot describe (a matrix without a unit stride,
 * sizes past int, conj(A) without a transpose) stay with kk's own kernels.
 */

enum { OP_N = 0, OP_T = 1, OP_C = 2 };

typedef int (*create_t)(void **handle);
typedef int (*set_stream_t)(void *handle, void *stream);
typedef int (*set_pmode_t)(void *handle, int mode);
typedef int (*dot_t)(void *, int, const void *, int, const void *, int, void *);
typedef int (*nrm_t)(void *, int, const void *, int, void *);
typedef int (*iamax_t)(void *, int, const void *, int, int *);
typedef int (*scal_t)(void *, int, const void *, void *, int);
typedef int (*gemv_t)(void *, int, int, int, const void *, const void *, int, const void *, int, const void *, void *,
                      int);
typedef int (*gemm_t)(void *, int, int, int, int, int, const void *, const void *, int, const void *, int,
                      const void *, void *, int);
typedef int (*ctx_set_t)(void *ctx);

static struct {
  create_t create;
  set_stream_t set_stream;
  set_pmode_t set_pmode;
  dot_t dot[4];
  nrm_t nrm2[4], asum[4];
  iamax_t iamax[4];
  scal_t scal[4];
  gemv_t gemv[4];
  gemm_t gemm[4];
  ctx_set_t ctx_set; /* libcuda's cuCtxSetCurrent */
  void *handle;      /* created at the first call */
  void *handle_ctx;  /* in this context */
  int create_failed;
} U;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* the loader's path first, then the toolkit configure found (KKK_CUDA_LIBDIR) */
static const char *const k_names[] = {"libcublas.so.13", "libcublas.so.12", KKK_CUDA_LIBDIR "/libcublas.so.13",
                                      KKK_CUDA_LIBDIR "/libcublas.so.12", "libcublas.so"};

#define REQUIRED(X)                                                                                                \
  X(create, "cublasCreate_v2") X(set_stream, "cublasSetStream_v2") X(set_pmode, "cublasSetPointerMode_v2")         \
  X(dot[0], "cublasSdot_v2") X(dot[1], "cublasDdot_v2") X(dot[2], "cublasCdotc_v2") X(dot[3], "cublasZdotc_v2")    \
  X(nrm2[0], "cublasSnrm2_v2") X(nrm2[1], "cublasDnrm2_v2") X(nrm2[2], "cublasScnrm2_v2")                          \
  X(nrm2[3], "cublasDznrm2_v2") X(asum[0], "cublasSasum_v2") X(asum[1], "cublasDasum_v2")                          \
  X(asum[2], "cublasScasum_v2") X(asum[3], "cublasDzasum_v2") X(iamax[0], "cublasIsamax_v2")                       \
  X(iamax[1], "cublasIdamax_v2") X(iamax[2], "cublasIcamax_v2") X(iamax[3], "cublasIzamax_v2")                     \
  X(scal[0], "cublasSscal_v2") X(scal[1], "cublasDscal_v2") X(scal[2], "cublasCscal_v2")                           \
  X(scal[3], "cublasZscal_v2") X(gemv[0], "cublasSgemv_v2") X(gemv[1], "cublasDgemv_v2") X(gemv[2], "cublasCgemv_v2") \
  X(gemv[3], "cublasZgemv_v2") X(gemm[0], "cublasSgemm_v2") X(gemm[1], "cublasDgemm_v2")                           \
  X(gemm[2], "cublasCgemm_v2") X(gemm[3], "cublasZgemm_v2")

/* libcuda's calls: the context is made current per call (the cuda plugin has libcuda open already) */
#define LIBCUDA(X) \
  X(ctx_set, "cuCtxSetCurrent")

static int try_one(const char *file, char *why, size_t why_size) {
#define SYM(field, sym) KKK_TPL_SYM(U.field, sym)
  static const kkk_tpl_sym_t syms[] = {REQUIRED(SYM)}, cu[] = {LIBCUDA(SYM)};
#undef SYM
  return kkk_tpl_dlopen_cuda(file, syms, sizeof syms / sizeof *syms, cu, sizeof cu / sizeof *cu, "not cuBLAS 12 or later", why,
                             why_size)
             ? 0
             : -1;
}

static int cublas_open(const char *setting, char *path, size_t path_size, char *why, size_t why_size) {
  return kkk_tpl_open_first(setting, k_names, sizeof k_names / sizeof *k_names, try_one,
                            "no cuBLAS found (CUDA toolkit: its lib64 on the loader's path)", path, path_size, why,
                            why_size);
}

/* ---- calls ---------------------------------------------------------------------------- */


/* cuBLAS's status as kk's, with the message. */
static kk_status_t cublas_status(const kkk_call_t *c, const char *fn, int s) {
  if (s == 0)
    return KK_OK;
  return kkk_err(s == 3 ? KK_ERROR_OUT_OF_MEMORY : KK_ERROR_BACKEND, "%s: cuBLAS %s failed (cublasStatus_t = %d)", c->op,
                 fn, s);
}

static int cublas_call(const kkk_tpl_call_t *t, kk_status_t *st) {
  const kkk_call_t *c = t->c;
  if (c->host || t->op == KKK_TPL_SPMV || t->op == KKK_TPL_SPSV)
    return 0;
  kk_native_queue_t q;
  if (kkk_native_queue(c, &q) != KK_NATIVE_CUDA)
    return 0;
  const int ty = c->t;
  /* axpby: cuBLAS has none; its one-pass form, geam in place, ran at 855 GB/s on an H100 where kk's own kernel
   * ran at 3080 GB/s (docs/benchmarks.md), and scal + axpy takes two passes: kk's kernel serves it.  scal: a zero
   * alpha must give zeros (kk's contract), which a multiply does not for NaN. */
  if (t->op == KKK_TPL_AXPBY || !kkk_tpl_vectors_ok(t) ||
      (t->op == KKK_TPL_SCAL && t->a.re == 0.0 && t->a.im == 0.0))
    return 0;
  int lda = 0, ldb = 0, ldc = 0, ta = 0, tb = 0, swap = 0, gemv_t_stored = 0;
  if (t->op == KKK_TPL_GEMV) {
    gemv_t_stored = kkk_tpl_stored(&t->A, 0, &lda);
    if (gemv_t_stored < 0 || (ta = kkk_tpl_trans(t->op_a, gemv_t_stored)) < 0)
      return 0;
  } else if (t->op == KKK_TPL_GEMM) {
    /* column major; a row-major C is computed as C^T = op(B)^T op(A)^T */
    const int sc = kkk_tpl_stored(&t->C, 0, &ldc);
    if (sc < 0)
      return 0;
    swap = sc;
    const int sa = kkk_tpl_stored(&t->A, swap, &lda), sb = kkk_tpl_stored(&t->B, swap, &ldb);
    if (sa < 0 || sb < 0 || (ta = kkk_tpl_trans(t->op_a, sa)) < 0 || (tb = kkk_tpl_trans(t->op_b, sb)) < 0)
      return 0;
  }

  pthread_mutex_lock(&g_lock);
  int s = U.ctx_set(q.context);
  if (s != 0) {
    pthread_mutex_unlock(&g_lock);
    *st = kkk_err(KK_ERROR_BACKEND, "%s: cuCtxSetCurrent failed (CUresult = %d)", c->op, s);
    return 1;
  }
  if (!U.handle && !U.create_failed) {
    if ((s = U.create(&U.handle)) != 0 || (s = U.set_pmode(U.handle, 0 /* host */)) != 0) {
      U.create_failed = 1;
      U.handle = NULL;
    }
    U.handle_ctx = q.context;
  }
  if (!U.handle || U.handle_ctx != q.context) {
    pthread_mutex_unlock(&g_lock);
    return 0; /* cublasCreate failed once, or kk now runs on another device: kk's own kernels */
  }
  const char *fn = "cublasSetStream";
  s = U.set_stream(U.handle, q.queue);
  const float fa[2] = {(float)t->a.re, (float)t->a.im}, fb[2] = {(float)t->b.re, (float)t->b.im};
  const double da[2] = {t->a.re, t->a.im}, db[2] = {t->b.re, t->b.im};
  const void *pa = ty == 0 || ty == 2 ? (const void *)fa : (const void *)da;
  const void *pb = ty == 0 || ty == 2 ? (const void *)fb : (const void *)db;
  const int n = (int)t->x.n, ix = kkk_tpl_inc(&t->x), iy = kkk_tpl_inc(&t->y);
  void *x = t->x.data, *y = t->y.data;
  if (s == 0) {
    switch (t->op) {
    case KKK_TPL_SCAL:
      fn = "cublasXscal";
      s = U.scal[ty](U.handle, n, pa, x, ix);
      break;
    case KKK_TPL_DOT: {
      fn = "cublasXdot";
      double v[2] = {0, 0};
      float f[2] = {0, 0};
      s = U.dot[ty](U.handle, n, x, ix, y, iy, ty == 0 || ty == 2 ? (void *)f : (void *)v);
      kk_scalar_t *r = t->result;
      *r = ty == 0 || ty == 2 ? KK_COMPLEX(f[0], f[1]) : KK_COMPLEX(v[0], v[1]);
      break;
    }
    case KKK_TPL_NRM2:
    case KKK_TPL_NRM1: {
      fn = t->op == KKK_TPL_NRM2 ? "cublasXnrm2" : "cublasXasum";
      double v = 0;
      float f = 0;
      s = (t->op == KKK_TPL_NRM2 ? U.nrm2 : U.asum)[ty](U.handle, n, x, ix, ty == 0 || ty == 2 ? (void *)&f : (void *)&v);
      *(double *)t->result = ty == 0 || ty == 2 ? (double)f : v;
      break;
    }
    case KKK_TPL_IAMAX: {
      fn = "cublasIxamax";
      int i = 0;
      s = U.iamax[ty](U.handle, n, x, ix, &i);
      *(int64_t *)t->result = (int64_t)i - 1; /* cuBLAS counts from 1 */
      break;
    }
    case KKK_TPL_GEMV: {
      fn = "cublasXgemv";
      /* the matrix as cuBLAS sees it: A (stored column major) or A^T (stored row major) */
      const int64_t rows = gemv_t_stored ? t->A.cols : t->A.rows, cols = gemv_t_stored ? t->A.rows : t->A.cols;
      s = U.gemv[ty](U.handle, ta, (int)rows, (int)cols, pa, t->A.data, lda, x, ix, pb, y, iy);
      break;
    }
    case KKK_TPL_GEMM: {
      fn = "cublasXgemm";
      const int m = (int)t->C.rows, nn = (int)t->C.cols;
      const int k = (int)(t->op_a == KK_OP_N ? t->A.cols : t->A.rows);
      if (!swap)
        s = U.gemm[ty](U.handle, ta, tb, m, nn, k, pa, t->A.data, lda, t->B.data, ldb, pb, t->C.data, ldc);
      else
        s = U.gemm[ty](U.handle, tb, ta, nn, m, k, pa, t->B.data, ldb, t->A.data, lda, pb, t->C.data, ldc);
      break;
    }
    case KKK_TPL_AXPBY: /* declined above */
    case KKK_TPL_SPMV:
    case KKK_TPL_SPSV:
      break;
    }
  }
  pthread_mutex_unlock(&g_lock);
  *st = cublas_status(c, fn, s);
  return 1;
}

const kkk_tpl_t kkk_tpl_cublas = {
    .name = "cublas",
    .env = "KK_KERNELS_CUBLAS",
    .serves = "views on cuda: scal (in place), dot, nrm2, nrm1, iamax, gemv, gemm",
    .open = cublas_open,
    .call = cublas_call,
};
