/* bench/sparse_ops_graphblas.c -- SuiteSparse:GraphBLAS (GrB_mxm, GrB_Matrix_eWiseAdd) as kk-bench-sparse-ops' host reference, through dlopen so that the bench builds without it. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "sparse_ops_graphblas.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The few declarations of the GraphBLAS C API (version 2.0, as
 * SuiteSparse:GraphBLAS 7 and later implement it) that the bench calls;
 * the opaque objects are pointers, GrB_Index is uint64_t, GrB_SUCCESS is
 * 0, GrB_NONBLOCKING 0, GrB_MATERIALIZE 1, GxB_NTHREADS 5. */
typedef void *grb_obj;
typedef uint64_t grb_index;
enum { GRB_SUCCESS = 0, GRB_NONBLOCKING = 0, GRB_MATERIALIZE = 1, GXB_NTHREADS = 5 };

static struct {
  int (*init)(int mode);
  int (*matrix_new)(grb_obj *a, grb_obj type, grb_index rows, grb_index cols);
  int (*build)(grb_obj a, const grb_index *i, const grb_index *j, const double *x, grb_index n, grb_obj dup);
  int (*mxm)(grb_obj c, grb_obj mask, grb_obj accum, grb_obj semiring, grb_obj a, grb_obj b, grb_obj desc);
  int (*ewise_add)(grb_obj c, grb_obj mask, grb_obj accum, grb_obj op, grb_obj a, grb_obj b, grb_obj desc);
  int (*wait)(grb_obj a, int mode);
  int (*nvals)(grb_index *n, grb_obj a);
  int (*matrix_free)(grb_obj *a);
  int (*set_int32)(int field, int32_t value);
  grb_obj fp64, plus_times, plus;
  int state; /* 0 not tried, 1 ready, -1 unusable */
  char why[256];
} G;

static void grb_open(void) {
  if (G.state)
    return;
  G.state = -1;
  static const char *const names[] = {"libgraphblas.so.9", "libgraphblas.so.8", "libgraphblas.so.7",
                                      "libgraphblas.so"};
  const char *env = getenv("KK_BENCH_GRAPHBLAS");
  void *h = NULL;
  if (env && *env)
    h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
  for (size_t k = 0; !h && !(env && *env) && k < sizeof names / sizeof names[0]; k++)
    h = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(G.why, sizeof G.why, "GraphBLAS not found (%s)", dlerror());
    return;
  }
  *(void **)&G.init = dlsym(h, "GrB_init");
  *(void **)&G.matrix_new = dlsym(h, "GrB_Matrix_new");
  *(void **)&G.build = dlsym(h, "GrB_Matrix_build_FP64");
  *(void **)&G.mxm = dlsym(h, "GrB_mxm");
  *(void **)&G.ewise_add = dlsym(h, "GrB_Matrix_eWiseAdd_BinaryOp");
  *(void **)&G.wait = dlsym(h, "GrB_Matrix_wait");
  *(void **)&G.nvals = dlsym(h, "GrB_Matrix_nvals");
  *(void **)&G.matrix_free = dlsym(h, "GrB_Matrix_free");
  *(void **)&G.set_int32 = dlsym(h, "GxB_Global_Option_set_INT32");
  grb_obj *fp64 = dlsym(h, "GrB_FP64"), *pt = dlsym(h, "GrB_PLUS_TIMES_SEMIRING_FP64"), *plus = dlsym(h, "GrB_PLUS_FP64");
  if (!G.init || !G.matrix_new || !G.build || !G.mxm || !G.ewise_add || !G.wait || !G.nvals || !G.matrix_free ||
      !G.set_int32 || !fp64 || !pt || !plus) {
    snprintf(G.why, sizeof G.why, "the GraphBLAS library found lacks a GraphBLAS 2.0 / GxB 7 function");
    return;
  }
  if (G.init(GRB_NONBLOCKING) != GRB_SUCCESS) {
    snprintf(G.why, sizeof G.why, "GrB_init failed");
    return;
  }
  G.fp64 = *fp64;
  G.plus_times = *pt;
  G.plus = *plus;
  G.state = 1;
}

/* A GraphBLAS matrix of a CSR one (built from its tuples). */
static int grb_matrix(grb_obj *m, int64_t rows, int64_t cols, const int64_t *rp, const int32_t *ci,
                      const double *v) {
  const int64_t n = rp[rows];
  grb_index *I = malloc(sizeof(grb_index) * (size_t)(n ? n : 1)), *J = malloc(sizeof(grb_index) * (size_t)(n ? n : 1));
  int rc = -1;
  if (I && J) {
    for (int64_t r = 0; r < rows; r++)
      for (int64_t p = rp[r]; p < rp[r + 1]; p++) {
        I[p] = (grb_index)r;
        J[p] = (grb_index)ci[p];
      }
    if (G.matrix_new(m, G.fp64, (grb_index)rows, (grb_index)cols) == GRB_SUCCESS) {
      rc = G.build(*m, I, J, v, (grb_index)n, G.plus) == GRB_SUCCESS && G.wait(*m, GRB_MATERIALIZE) == GRB_SUCCESS
               ? 0
               : -1;
      if (rc)
        G.matrix_free(m);
    }
  }
  free(I);
  free(J);
  return rc;
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double kkb_graphblas_product(int64_t rows, int64_t inner, int64_t cols, const int64_t *arp, const int32_t *aci,
                             const double *av, const int64_t *brp, const int32_t *bci, const double *bv, int add,
                             int threads, int reps, int64_t *nnz, char *why, int why_size) {
  grb_open();
  if (G.state < 0) {
    snprintf(why, (size_t)why_size, "%s", G.why);
    return -1;
  }
  G.set_int32(GXB_NTHREADS, threads > 0 ? threads : 1);
  grb_obj A = NULL, B = NULL;
  /* A + B: B has A's shape (inner == cols); A * B: B is inner x cols */
  if (grb_matrix(&A, rows, inner, arp, aci, av) || grb_matrix(&B, add ? rows : inner, cols, brp, bci, bv)) {
    if (A)
      G.matrix_free(&A);
    snprintf(why, (size_t)why_size, "GraphBLAS could not build the input matrices");
    return -1;
  }
  double best = -1;
  for (int r = 0; r < reps; r++) {
    grb_obj C = NULL;
    grb_index n = 0;
    if (G.matrix_new(&C, G.fp64, (grb_index)rows, (grb_index)cols) != GRB_SUCCESS) {
      best = -1;
      break;
    }
    const double t0 = seconds();
    const int rc = add ? G.ewise_add(C, NULL, NULL, G.plus, A, B, NULL)
                       : G.mxm(C, NULL, NULL, G.plus_times, A, B, NULL);
    const int rw = rc == GRB_SUCCESS ? G.wait(C, GRB_MATERIALIZE) : rc;
    const double t = seconds() - t0;
    if (rw != GRB_SUCCESS || G.nvals(&n, C) != GRB_SUCCESS) {
      G.matrix_free(&C);
      snprintf(why, (size_t)why_size, "GraphBLAS %s failed (GrB_Info %d)", add ? "eWiseAdd" : "mxm", rw);
      best = -1;
      break;
    }
    *nnz = (int64_t)n;
    best = best < 0 || t < best ? t : best;
    G.matrix_free(&C);
  }
  G.matrix_free(&A);
  G.matrix_free(&B);
  return best;
}
