/* kernels/tpl_cusparse.c -- cuSPARSE opened at run time, for kk-kernels SpMV and sparse triangular solves (SpSV) on matrices and vectors of the cuda backend. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * Nothing is linked: libcusparse is opened with dlopen at the first SpMV
 * that could use it.  It serves y = a op(A) x + b y on a cuda instance with
 * a native stream (plugin ABI 1.4), x and y rank-1 with unit stride (or
 * multivectors of one column), through cusparseSpMV with its default
 * algorithm, queued on the instance's stream.  The matrix goes to cuSPARSE
 * with 32-bit row offsets and column indices: kk keeps int64 offsets, so an
 * int32 copy of them is made once per matrix at its first such SpMV
 * (kkk_crs_row_ptr32); a matrix with 2^31 entries or more stays with kk's
 * own kernel, as do multivectors (no SpMM path yet).  cuSPARSE's work
 * buffer is kept and grown (after a context synchronize), allocated with
 * libcuda so that it outlives a kk_finalize.  Each matrix keeps what
 * cuSPARSE needs across calls (kkk_crs_tpl_cache, freed by kk_crs_destroy):
 * its matrix descriptor, and per operation (N, T, C) the two dense-vector
 * descriptors, whose data pointers are set per call
 * (cusparseDnVecSetValues), and the buffer size cusparseSpMV_bufferSize
 * gave; so a call after the first creates nothing and queries nothing (the
 * H100 measured 0.87 of cuSPARSE called directly when every call made
 * them).  Descriptors are host memory only: destroying them needs no
 * context.  One handle per process, in the context it was made in (a later
 * kk on another device gets kk's own kernels), its stream set per call
 * under a lock.
 *
 * Triangular solves (kk_sptrsv_solve, and the two solves of an ILU(k)
 * preconditioner) go to cusparseSpSV the same way, on vectors of unit
 * stride, out of place (x not b: kk_spiluk_apply solves into a work
 * vector first).  Each kk_sptrsv_t handle keeps its own CSR descriptor
 * (with the fill mode and diagonal type set on it), SpSV descriptor, the
 * two dense-vector descriptors and the SpSV buffer, which must live from
 * the analysis to the last solve; the analysis runs at the first solve and
 * again after kk changed the values (a new kk_spiluk_numeric).
 */

enum { R32F = 0, R64F = 1, C32F = 4, C64F = 5, IDX32 = 2, BASE0 = 0, SPMV_DEFAULT = 0, NOT_SUPPORTED = 10 };
/* cusparseSpMatAttribute_t, cusparseFillMode_t, cusparseDiagType_t, cusparseSpSVAlg_t */
enum { ATTR_FILL_MODE = 0, ATTR_DIAG_TYPE = 1, SPSV_DEFAULT = 0 };

typedef int (*create_t)(void **handle);
typedef int (*set_stream_t)(void *handle, void *stream);
typedef int (*csr_t)(void **mat, int64_t rows, int64_t cols, int64_t nnz, void *rp, void *ci, void *vals, int rpt,
                     int cit, int base, int vt);
typedef int (*dnvec_t)(void **vec, int64_t n, void *values, int vt);
typedef int (*destroy_t)(void *d);
typedef int (*dnvec_set_t)(void *vec, void *values);
typedef int (*bufsize_t)(void *h, int op, const void *a, void *A, void *x, const void *b, void *y, int ct, int alg,
                         size_t *bytes);
typedef int (*spmv_t)(void *h, int op, const void *a, void *A, void *x, const void *b, void *y, int ct, int alg,
                      void *buf);
typedef int (*spsv_descr_t)(void **d);
typedef int (*spsv_bufsize_t)(void *h, int op, const void *a, void *A, void *x, void *y, int ct, int alg, void *d,
                              size_t *bytes);
typedef int (*spsv_analysis_t)(void *h, int op, const void *a, void *A, void *x, void *y, int ct, int alg, void *d,
                               void *buf);
typedef int (*spsv_solve_t)(void *h, int op, const void *a, void *A, void *x, void *y, int ct, int alg, void *d);
typedef int (*set_attr_t)(void *A, int attr, void *data, size_t size);
typedef int (*ctx_set_t)(void *ctx);
typedef int (*mem_alloc_t)(uint64_t *dptr, size_t bytes);
typedef int (*mem_free_t)(uint64_t dptr);
typedef int (*ctx_sync_t)(void);

static struct {
  create_t create;
  set_stream_t set_stream;
  csr_t create_csr;
  dnvec_t create_dnvec;
  destroy_t destroy_spmat, destroy_dnvec;
  dnvec_set_t dnvec_set;
  bufsize_t bufsize;
  spmv_t spmv;
  spsv_descr_t spsv_create;
  destroy_t spsv_destroy;
  spsv_bufsize_t spsv_bufsize;
  spsv_analysis_t spsv_analysis;
  spsv_solve_t spsv_solve;
  set_attr_t set_attr;
  ctx_set_t ctx_set;
  mem_alloc_t mem_alloc;
  mem_free_t mem_free;
  ctx_sync_t ctx_sync;
  void *handle;
  void *handle_ctx;   /* the context the handle and the buffer belong to */
  int create_failed;
  uint64_t buf;       /* the work buffer (libcuda's, outliving any kk_finalize) */
  size_t buf_size;
} P;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const k_names[] = {"libcusparse.so.12", "libcusparse.so.13", KKK_CUDA_LIBDIR "/libcusparse.so.12",
                                      KKK_CUDA_LIBDIR "/libcusparse.so.13", "libcusparse.so"};

#define REQUIRED(X)                                                                                  \
  X(create, "cusparseCreate") X(set_stream, "cusparseSetStream") X(create_csr, "cusparseCreateCsr") \
  X(create_dnvec, "cusparseCreateDnVec") X(destroy_spmat, "cusparseDestroySpMat")                   \
  X(destroy_dnvec, "cusparseDestroyDnVec") X(dnvec_set, "cusparseDnVecSetValues")                   \
  X(bufsize, "cusparseSpMV_bufferSize") X(spmv, "cusparseSpMV")                                    \
  X(spsv_create, "cusparseSpSV_createDescr") X(spsv_destroy, "cusparseSpSV_destroyDescr")          \
  X(spsv_bufsize, "cusparseSpSV_bufferSize") X(spsv_analysis, "cusparseSpSV_analysis")             \
  X(spsv_solve, "cusparseSpSV_solve") X(set_attr, "cusparseSpMatSetAttribute")

/* libcuda's calls: the context is made current per call (the cuda plugin has libcuda open already) */
#define LIBCUDA(X) \
  X(ctx_set, "cuCtxSetCurrent") X(mem_alloc, "cuMemAlloc_v2") X(mem_free, "cuMemFree_v2") X(ctx_sync, "cuCtxSynchronize")

static int try_one(const char *file, char *why, size_t why_size) {
#define SYM(field, sym) KKK_TPL_SYM(P.field, sym)
  static const kkk_tpl_sym_t syms[] = {REQUIRED(SYM)}, cu[] = {LIBCUDA(SYM)};
#undef SYM
  return kkk_tpl_dlopen_cuda(file, syms, sizeof syms / sizeof *syms, cu, sizeof cu / sizeof *cu, "not cuSPARSE 12 or later", why,
                             why_size)
             ? 0
             : -1;
}

static int cusparse_open(const char *setting, char *path, size_t path_size, char *why, size_t why_size) {
  return kkk_tpl_open_first(setting, k_names, sizeof k_names / sizeof *k_names, try_one,
                            "no cuSPARSE found (CUDA toolkit: its lib64 on the loader's path)", path, path_size, why,
                            why_size);
}

/* What one matrix keeps across calls (under g_lock): the matrix
 * descriptor; per operation N, T, C the x and y descriptors and the buffer
 * size (need_known: queried; declined: this cuSPARSE does not do it). */
typedef struct sp_cache {
  void *mat;
  void *vx[3], *vy[3];
  size_t need[3];
  unsigned char need_known[3], declined[3];
} sp_cache_t;

static void sp_cache_free(void *p) {
  sp_cache_t *m = p;
  pthread_mutex_lock(&g_lock);
  for (int k = 0; k < 3; k++) {
    if (m->vx[k])
      P.destroy_dnvec(m->vx[k]);
    if (m->vy[k])
      P.destroy_dnvec(m->vy[k]);
  }
  if (m->mat)
    P.destroy_spmat(m->mat);
  pthread_mutex_unlock(&g_lock);
  free(m);
}

/* A dense vector cuSPARSE can take: unit stride (or one element), one column. */
static int dense_ok(const kkk_tvec_t *v) { return v->inc == 1 || v->n <= 1; }

static int spsv_call(const kkk_tpl_call_t *t, kk_status_t *st);

static int cusparse_call(const kkk_tpl_call_t *t, kk_status_t *st) {
  const kkk_call_t *c = t->c;
  if (!c->host && t->op == KKK_TPL_SPSV)
    return spsv_call(t, st);
  if (c->host || t->op != KKK_TPL_SPMV || !t->crs || !dense_ok(&t->x) || !dense_ok(&t->y))
    return 0;
  kk_native_queue_t q;
  if (kkk_native_queue(c, &q) != KK_NATIVE_CUDA)
    return 0;
  kk_view_t *rp32 = kkk_crs_row_ptr32(t->crs);
  if (!rp32)
    return 0;
  static const int vt[4] = {R32F, R64F, C32F, C64F};
  /* conj(A)^T of a real matrix is A^T: cuSPARSE refuses the conjugate form on real types */
  const int ty = c->t, op = t->op_a == KK_OP_N ? 0 : t->op_a == KK_OP_T || !kkk_is_complex(c->type) ? 1 : 2;
  const float fa[2] = {(float)t->a.re, (float)t->a.im}, fb[2] = {(float)t->b.re, (float)t->b.im};
  const double da[2] = {t->a.re, t->a.im}, db[2] = {t->b.re, t->b.im};
  const void *pa = ty == 0 || ty == 2 ? (const void *)fa : (const void *)da;
  const void *pb = ty == 0 || ty == 2 ? (const void *)fb : (const void *)db;
  const kk_crs_t *A = t->crs;

  pthread_mutex_lock(&g_lock);
  const char *fn = "cuCtxSetCurrent";
  int s = P.ctx_set(q.context);
  if (s == 0 && !P.handle && !P.create_failed) {
    if (P.create(&P.handle) != 0) {
      P.create_failed = 1;
      P.handle = NULL;
    }
    P.handle_ctx = q.context;
  }
  if (s == 0 && (!P.handle || P.handle_ctx != q.context)) {
    pthread_mutex_unlock(&g_lock);
    return 0; /* cusparseCreate failed, or kk now runs on another device: kk's own kernels */
  }
  /* the matrix's descriptors, made at its first call (op's vectors at the
   * first call with that op) */
  void **slot = kkk_crs_tpl_cache(A, sp_cache_free);
  sp_cache_t *m = *slot;
  if (!m && !(m = *slot = calloc(1, sizeof *m))) {
    pthread_mutex_unlock(&g_lock);
    return 0; /* no memory for the cache: kk's own kernel, which needs none */
  }
  size_t need = 0;
  int cu = 0; /* a libcuda failure, not cuSPARSE's */
  if (s == 0 && (s = P.set_stream(P.handle, q.queue)) != 0)
    fn = "cusparseSetStream";
  if (s == 0 && !m->mat &&
      (s = P.create_csr(&m->mat, kk_crs_rows(A), kk_crs_cols(A), kk_crs_nnz(A), kk_view_data(rp32),
                        kk_view_data(kk_crs_col_idx(A)), kk_view_data(kk_crs_values(A)), IDX32, IDX32, BASE0,
                        vt[ty])) != 0) {
    m->mat = NULL;
    fn = "cusparseCreateCsr";
  }
  if (s == 0 && !m->vx[op] && (s = P.create_dnvec(&m->vx[op], t->x.n, t->x.data, vt[ty])) != 0) {
    m->vx[op] = NULL;
    fn = "cusparseCreateDnVec";
  }
  if (s == 0 && !m->vy[op] && (s = P.create_dnvec(&m->vy[op], t->y.n, t->y.data, vt[ty])) != 0) {
    m->vy[op] = NULL;
    fn = "cusparseCreateDnVec";
  }
  if (s == 0 && ((s = P.dnvec_set(m->vx[op], t->x.data)) != 0 || (s = P.dnvec_set(m->vy[op], t->y.data)) != 0))
    fn = "cusparseDnVecSetValues";
  if (s == 0 && !m->need_known[op]) {
    s = P.bufsize(P.handle, op, pa, m->mat, m->vx[op], pb, m->vy[op], vt[ty], SPMV_DEFAULT, &m->need[op]);
    if (s == NOT_SUPPORTED)
      m->declined[op] = 1, s = 0;
    if (s == 0)
      m->need_known[op] = 1;
    else
      fn = "cusparseSpMV_bufferSize";
  }
  /* a case this cuSPARSE does not do: kk's own kernel, nothing was queued */
  int declined = s == 0 && m->declined[op];
  if (s == 0)
    need = m->need[op];
  if (s == 0 && !declined && need > P.buf_size) {
    /* the old buffer may still be in use by a call queued on any stream of the context */
    if (P.buf && ((s = P.ctx_sync()) != 0 || (s = P.mem_free(P.buf)) != 0))
      cu = 1, fn = "cuMemFree";
    if (s == 0) {
      P.buf = 0;
      P.buf_size = 0;
      if ((s = P.mem_alloc(&P.buf, need)) != 0)
        cu = 1, fn = "cuMemAlloc";
      else
        P.buf_size = need;
    }
  }
  if (s == 0 && !declined &&
      (s = P.spmv(P.handle, op, pa, m->mat, m->vx[op], pb, m->vy[op], vt[ty], SPMV_DEFAULT, (void *)(uintptr_t)P.buf)) != 0)
    fn = "cusparseSpMV";
  pthread_mutex_unlock(&g_lock);
  if (declined)
    return 0;
  if (s != 0) {
    cu = cu || strcmp(fn, "cuCtxSetCurrent") == 0;
    /* CUDA_ERROR_OUT_OF_MEMORY and CUSPARSE_STATUS_ALLOC_FAILED are both 2 */
    *st = kkk_err(s == 2 ? KK_ERROR_OUT_OF_MEMORY : KK_ERROR_BACKEND, "%s: %s failed (%s = %d)", c->op, fn, cu ? "CUresult" : "cusparseStatus_t", s);
  } else
    *st = KK_OK;
  return 1;
}

/* What one triangular-solve handle keeps (under g_lock): descriptors, the
 * SpSV buffer (libcuda memory of context ctx), the values generation the
 * analysis saw (analysed: it ran at all). */
typedef struct sv_cache {
  void *mat, *vx, *vy, *spsv, *ctx;
  uint64_t buf;
  uint64_t gen;
  int analysed;
} sv_cache_t;

static void sv_cache_free(void *p) {
  sv_cache_t *m = p;
  pthread_mutex_lock(&g_lock);
  if (m->vx)
    P.destroy_dnvec(m->vx);
  if (m->vy)
    P.destroy_dnvec(m->vy);
  if (m->mat)
    P.destroy_spmat(m->mat);
  if (m->spsv)
    P.spsv_destroy(m->spsv);
  /* a solve may still be queued on a stream: the buffer goes after a
   * synchronize (failures ignored: the context may be gone after
   * kk_finalize, and its memory with it) */
  if (m->buf && P.ctx_set(m->ctx) == 0 && P.ctx_sync() == 0)
    P.mem_free(m->buf);
  pthread_mutex_unlock(&g_lock);
  free(m);
}

static int spsv_call(const kkk_tpl_call_t *t, kk_status_t *st) {
  const kkk_call_t *c = t->c;
  /* out of place, unit stride, and a handle to keep the state in */
  if (!t->crs || !t->cache || !t->cache_free || t->x.data == t->y.data || !dense_ok(&t->x) || !dense_ok(&t->y) ||
      kk_crs_rows(t->crs) == 0)
    return 0;
  kk_native_queue_t q;
  if (kkk_native_queue(c, &q) != KK_NATIVE_CUDA)
    return 0;
  kk_view_t *rp32 = kkk_crs_row_ptr32(t->crs);
  if (!rp32)
    return 0;
  static const int vt[4] = {R32F, R64F, C32F, C64F};
  const int ty = c->t;
  const float fone[2] = {1.0f, 0.0f};
  const double done[2] = {1.0, 0.0};
  const void *one = ty == 0 || ty == 2 ? (const void *)fone : (const void *)done;
  const kk_crs_t *A = t->crs;
  pthread_mutex_lock(&g_lock);
  const char *fn = "cuCtxSetCurrent";
  int s = P.ctx_set(q.context), cu = 0;
  if (s == 0 && !P.handle && !P.create_failed) {
    if (P.create(&P.handle) != 0) {
      P.create_failed = 1;
      P.handle = NULL;
    }
    P.handle_ctx = q.context;
  }
  if (s == 0 && (!P.handle || P.handle_ctx != q.context)) {
    pthread_mutex_unlock(&g_lock);
    return 0;
  }
  sv_cache_t *m = *t->cache;
  if (!m) {
    if (!(m = calloc(1, sizeof *m))) {
      pthread_mutex_unlock(&g_lock);
      return 0;
    }
    *t->cache = m;
    *t->cache_free = sv_cache_free;
    m->ctx = q.context;
  }
  if (m->ctx != q.context) { /* made on another device's context */
    pthread_mutex_unlock(&g_lock);
    return 0;
  }
  if (s == 0 && (s = P.set_stream(P.handle, q.queue)) != 0)
    fn = "cusparseSetStream";
  if (s == 0 && !m->mat) {
    int fill = t->uplo, diag = t->unit;
    if ((s = P.create_csr(&m->mat, kk_crs_rows(A), kk_crs_cols(A), kk_crs_nnz(A), kk_view_data(rp32),
                          kk_view_data(kk_crs_col_idx(A)), kk_view_data(kk_crs_values(A)), IDX32, IDX32, BASE0,
                          vt[ty])) != 0) {
      m->mat = NULL;
      fn = "cusparseCreateCsr";
    } else if ((s = P.set_attr(m->mat, ATTR_FILL_MODE, &fill, sizeof fill)) != 0 ||
               (s = P.set_attr(m->mat, ATTR_DIAG_TYPE, &diag, sizeof diag)) != 0) {
      fn = "cusparseSpMatSetAttribute";
    }
  }
  if (s == 0 && !m->vx && (s = P.create_dnvec(&m->vx, t->x.n, t->x.data, vt[ty])) != 0) {
    m->vx = NULL;
    fn = "cusparseCreateDnVec";
  }
  if (s == 0 && !m->vy && (s = P.create_dnvec(&m->vy, t->y.n, t->y.data, vt[ty])) != 0) {
    m->vy = NULL;
    fn = "cusparseCreateDnVec";
  }
  if (s == 0 && ((s = P.dnvec_set(m->vx, t->x.data)) != 0 || (s = P.dnvec_set(m->vy, t->y.data)) != 0))
    fn = "cusparseDnVecSetValues";
  if (s == 0 && !m->spsv && (s = P.spsv_create(&m->spsv)) != 0) {
    m->spsv = NULL;
    fn = "cusparseSpSV_createDescr";
  }
  int declined = 0; /* a case this cuSPARSE does not do */
  if (s == 0 && (!m->analysed || m->gen != t->values_gen)) {
    size_t need = 0;
    s = P.spsv_bufsize(P.handle, 0, one, m->mat, m->vx, m->vy, vt[ty], SPSV_DEFAULT, m->spsv, &need);
    if (s != 0)
      fn = "cusparseSpSV_bufferSize", declined = s == NOT_SUPPORTED;
    if (s == 0 && !m->buf && (s = P.mem_alloc(&m->buf, need > 0 ? need : 1)) != 0)
      cu = 1, fn = "cuMemAlloc";
    if (s == 0 &&
        (s = P.spsv_analysis(P.handle, 0, one, m->mat, m->vx, m->vy, vt[ty], SPSV_DEFAULT, m->spsv,
                             (void *)(uintptr_t)m->buf)) != 0)
      fn = "cusparseSpSV_analysis", declined = s == NOT_SUPPORTED;
    if (s == 0) {
      m->analysed = 1;
      m->gen = t->values_gen;
    }
  }
  if (s == 0 && (s = P.spsv_solve(P.handle, 0, one, m->mat, m->vx, m->vy, vt[ty], SPSV_DEFAULT, m->spsv)) != 0)
    fn = "cusparseSpSV_solve";
  pthread_mutex_unlock(&g_lock);
  if (declined)
    return 0; /* kk's own kernel: nothing was queued */
  if (s != 0) {
    cu = cu || strcmp(fn, "cuCtxSetCurrent") == 0;
    *st = kkk_err(s == 2 ? KK_ERROR_OUT_OF_MEMORY : KK_ERROR_BACKEND, "%s: %s failed (%s = %d)", c->op, fn,
                  cu ? "CUresult" : "cusparseStatus_t", s);
  } else {
    *st = KK_OK;
  }
  return 1;
}

const kkk_tpl_t kkk_tpl_cusparse = {
    .name = "cusparse",
    .env = "KK_KERNELS_CUSPARSE",
    .serves = "views on cuda: SpMV and triangular solves (SpSV) on vectors (unit stride)",
    .open = cusparse_open,
    .call = cusparse_call,
};
