/* kernels/internal.h -- what libkk-kernels' host files share: call contexts, checks, descriptors, vendor-library hooks. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKK_INTERNAL_H
#define KKK_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include <kk/linalg.h>

#include "args.h"

#if defined(__GNUC__)
#define KKK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define KKK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define KKK_PRINTF(a, b)
#define KKK_UNLIKELY(x) (x)
#endif

/* A kernel-form setting (KK_KERNELS_BGEMM*, KK_KERNELS_SPMV_MERGE): the
 * environment variable VAR read once into *CACHE (initially -1) and later
 * taken from there.  With VALUES, 1 + the index of the one of its N
 * strings VAR equals; without (NULL), VAR as a whole number in [1, N]; 0
 * where VAR is unset or anything else. */
int kkk_env_once(_Atomic int *cache, const char *var, const char *const *values, int n);

/* Index of an element type in the per-type kernel tables: 0 float, 1
 * double, 2 complex float, 3 complex double; -1 for any other type. */
static inline int kkk_tidx(kk_type_t t) {
  switch (t) {
  case KK_FLOAT:
    return 0;
  case KK_DOUBLE:
    return 1;
  case KK_COMPLEX_FLOAT:
    return 2;
  case KK_COMPLEX_DOUBLE:
    return 3;
  default:
    return -1;
  }
}
static inline int kkk_is_complex(kk_type_t t) { return t == KK_COMPLEX_FLOAT || t == KK_COMPLEX_DOUBLE; }
/* KK_FLOAT or KK_DOUBLE: the real type of the same precision */
static inline kk_type_t kkk_real_type(kk_type_t t) {
  return t == KK_FLOAT || t == KK_COMPLEX_FLOAT ? KK_FLOAT : KK_DOUBLE;
}

/* The four kernels of one operation, in kkk_tidx order. */
#define KKK_K4(op) \
  { KK_KERNEL(kkk_##op##_s), KK_KERNEL(kkk_##op##_d), KK_KERNEL(kkk_##op##_c), KK_KERNEL(kkk_##op##_z) }

/* One call: the routine's name, where it runs, the element type. */
typedef struct kkk_call {
  const char *op;
  kk_instance_t *inst;
  int host;         /* the instance's backend runs on the host (host kernels, a CBLAS) */
  kk_type_t type;   /* of the first typed view checked */
  int t;            /* kkk_tidx(type) */
} kkk_call_t;

/* Records an error (kk_set_error) and returns its status. */
kk_status_t kkk_err(kk_status_t st, const char *fmt, ...) KKK_PRINTF(2, 3);

/* Starts a call: kk must be initialized; views[0..n) must be non-NULL
 * (names[i] names them in messages); the instance is `inst` or, when NULL,
 * the default instance of the backend owning views[0]'s space; every view
 * must be readable by the instance's backend.  Sets c->type from views[0]
 * and checks that it is one of the four element types and that views
 * [0, ntyped) all have it. */
kk_status_t kkk_begin(kkk_call_t *c, const char *op, kk_instance_t *inst, int n, kk_view_t *const *views,
                      const char *const *names, int ntyped);

/* "'label'" of a view for messages (a static per-thread buffer, four slots;
 * "(NULL)" for NULL, "(from before kk_finalize)" for a stale view). */
const char *kkk_label(const kk_view_t *v);

/* Checks a view's rank against `rank` (or either of rank and rank2 when
 * rank2 >= 0). */
kk_status_t kkk_check_rank(const kkk_call_t *c, const kk_view_t *v, const char *name, int rank);
/* The view's type must be `type`. */
kk_status_t kkk_check_type(const kkk_call_t *c, const kk_view_t *v, const char *name, kk_type_t type);
/* Extent `dim` of v must be `want` (`what` explains where the number comes from). */
kk_status_t kkk_check_extent(const kkk_call_t *c, const kk_view_t *v, const char *name, int dim, int64_t want,
                             const char *what);
/* A scalar on real views must have no imaginary part. */
kk_status_t kkk_check_scalar(const kkk_call_t *c, kk_scalar_t s, const char *name);
/* A kk_op_t value. */
kk_status_t kkk_check_op(const kkk_call_t *c, kk_op_t op, const char *name);

/* ---- descriptors ---------------------------------------------------------------- */

/* The strided descriptor of a view (any layout). */
static inline kk_view_strided kkk_desc(kk_view_t *v) { return kk_view_bind_strided(v); }
/* Column j of a rank-2 descriptor, as rank 1. */
kk_view_strided kkk_desc_col(kk_view_strided d, int64_t j);
/* A rank-1 descriptor as an n x 1 rank-2 one (a rank-0 one as 1 x 1 -- rank 1). */
kk_view_strided kkk_desc_as2(kk_view_strided d);
/* Dimensions a and b of a descriptor swapped (a transpose). */
kk_view_strided kkk_desc_swap(kk_view_strided d, int a, int b);

/* ---- launches ------------------------------------------------------------------- */

/* For-kernels over a rank-1 range of n and over a rank-2 box, on c->inst;
 * `inner_left` makes the first index the fastest in the box. */
kk_status_t kkk_for(const kkk_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n);
kk_status_t kkk_for2(const kkk_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n0, int64_t n1,
                     int inner_left);
kk_status_t kkk_reduce(const kkk_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n,
                       void *result, size_t result_size);
kk_status_t kkk_reduce_view(const kkk_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n,
                            kk_view_t *result);

/* Team shape for a kernel whose inner loops have about `inner` iterations:
 * host backends one thread of one lane; GPUs a power-of-two vector length
 * up to 32 and a team of about 256 lanes. */
void kkk_team_shape(const kkk_call_t *c, int64_t inner, int32_t *team_size, int32_t *vector_length);

/* The launch shape of the GPU SpMV on one vector (spmv_vec) for a matrix of
 * `rows` rows and `nnz` entries: team size and vector length, rows per
 * team, the row length above which the whole team takes a row. */
void kkk_spmv_shape(int64_t rows, int64_t nnz, int32_t *team_size, int32_t *vector_length, int64_t *rows_per_team,
                    int64_t *long_row);

/* Level-0 scratch per team available on the instance's device. */
size_t kkk_scratch_max(const kkk_call_t *c);
/* The threads the call's device runs at once (1 when it does not say). */
int64_t kkk_concurrency(const kkk_call_t *c);

/* Size in bytes of one element of the call's type. */
static inline size_t kkk_elem_size(kk_type_t t) {
  return t == KK_FLOAT ? 4 : t == KK_DOUBLE || t == KK_COMPLEX_FLOAT ? 8 : 16;
}

/* ---- internal entry points (checked arguments) ---------------------------------- */

/* BLAS 1 on checked, equal-shape views (rank 1 or 2) */
kk_status_t kkk_axpby(const kkk_call_t *c, kk_scalar_t a, kk_view_t *x, kk_scalar_t b, kk_view_t *y);
kk_status_t kkk_scal(const kkk_call_t *c, kk_view_t *r, kk_scalar_t a, kk_view_t *x);
kk_status_t kkk_dot(const kkk_call_t *c, kk_view_t *x, kk_view_t *y, kk_scalar_t *result);
kk_status_t kkk_nrm2(const kkk_call_t *c, kk_view_t *x, double *result);
kk_status_t kkk_emul(const kkk_call_t *c, kk_view_t *x, kk_view_t *y, kk_view_t *z);
/* SpMV on checked arguments */
kk_status_t kkk_spmv(const kkk_call_t *c, kk_op_t op, kk_scalar_t a, const kk_crs_t *A, kk_view_t *x, kk_scalar_t b,
                     kk_view_t *y);

/* ---- vendor libraries (tpl.c; one file per library) ---------------------------------- */

typedef enum kkk_tpl_op {
  KKK_TPL_AXPBY,   /* y = a x + b y */
  KKK_TPL_SCAL,    /* y = a x (x may be y) */
  KKK_TPL_DOT,     /* result = conj(x) . y (kk_scalar_t) */
  KKK_TPL_NRM2,    /* result = ||x||_2 (double) */
  KKK_TPL_NRM1,    /* result = sum |re| + |im| (double) */
  KKK_TPL_IAMAX,   /* result = first index of max |re| + |im| (int64_t) */
  KKK_TPL_GEMV,    /* y = a op(A) x + b y */
  KKK_TPL_GEMM,    /* C = a op(A) op(B) + b C */
  KKK_TPL_SPMV,    /* y = a op(crs) x + b y (x, y vectors) */
  KKK_TPL_SPSV     /* y = T^-1 x, T a triangle of crs (uplo, unit), state in *cache (sptrsv.c) */
} kkk_tpl_op_t;

/* A vector: n elements `inc` apart (inc >= 0, in elements). */
typedef struct kkk_tvec {
  void *data;
  int64_t n, inc;
} kkk_tvec_t;

/* A matrix: rows x cols, element (i, j) at data + i rs + j cs (elements). */
typedef struct kkk_tmat {
  void *data;
  int64_t rows, cols, rs, cs;
} kkk_tmat_t;

/* One call as a vendor library sees it: checked, with every extent and
 * stride spelled out, every dimension non-empty. */
typedef struct kkk_tpl_call {
  kkk_tpl_op_t op;
  const kkk_call_t *c;
  kk_scalar_t a, b;
  kkk_tvec_t x, y;
  kk_op_t op_a, op_b;
  kkk_tmat_t A, B, C;
  const kk_crs_t *crs;  /* SpMV's and SpSV's matrix */
  void *result;
  /* SpSV: the triangle (uplo 0 lower, 1 upper; unit diagonal), and the
   * slot of the triangular-solve handle where the library keeps its state
   * (*cache_free set by the library frees it when the handle goes);
   * values_gen changes when the matrix's values were changed by kk (a new
   * ILU(k) factorization): the library's analysis must then be redone */
  int uplo, unit;
  void **cache;
  void (**cache_free)(void *);
  uint64_t values_gen;
} kkk_tpl_call_t;

/* A vendor library: one file defines one of these. */
typedef struct kkk_tpl {
  const char *name;     /* "cblas" */
  const char *env;      /* its variable, "KK_KERNELS_CBLAS" */
  const char *serves;   /* for reports */
  /* Opens the library: setting is "auto" or a file name.  Returns 0 and the
   * file in path, or -1 and why in `why`.  Called once, under a lock. */
  int (*open)(const char *setting, char *path, size_t path_size, char *why, size_t why_size);
  /* Runs the call if the library serves it: returns 1 with *st set, or 0
   * (not this case: kk's own kernel runs). */
  int (*call)(const kkk_tpl_call_t *t, kk_status_t *st);
} kkk_tpl_t;

extern const kkk_tpl_t kkk_tpl_cblas, kkk_tpl_cublas, kkk_tpl_cusparse;

/* Where the CUDA libraries are looked for after the loader's path: the
 * toolkit configure found (kernels/local.mk), else the usual place. */
#ifndef KKK_CUDA_LIBDIR
#define KKK_CUDA_LIBDIR "/usr/local/cuda/lib64"
#endif

/* For a library's open(): setting "auto" tries names[0..n) in order with
 * try_one (0: usable), else the file the setting names; on failure `why`
 * gets `none_found` and each file's reason. */
int kkk_tpl_open_first(const char *setting, const char *const *names, size_t n,
                       int (*try_one)(const char *file, char *why, size_t why_size), const char *none_found,
                       char *path, size_t path_size, char *why, size_t why_size);

/* A symbol a library file needs: where its address goes, its name. */
typedef struct kkk_tpl_sym {
  void **slot;
  const char *name;
} kkk_tpl_sym_t;
#define KKK_TPL_SYM(field, sym) {(void **)&(field), sym},

/* Opens `file` and looks up syms[0..n): the handle, or NULL with `why`
 * (the file's error, or the first missing symbol and `what` it then is
 * not), every slot NULL and the library closed. */
void *kkk_tpl_dlopen(const char *file, const kkk_tpl_sym_t *syms, size_t n, const char *what, char *why,
                     size_t why_size);

/* The same for a library that also needs libcuda's calls `cu` (cuBLAS,
 * cuSPARSE), opened first: the library's handle, or NULL with why and no
 * symbol set (libcuda, once opened, stays open as the CUDA plugin keeps it). */
void *kkk_tpl_dlopen_cuda(const char *file, const kkk_tpl_sym_t *syms, size_t n, const kkk_tpl_sym_t *cu, size_t ncu,
                          const char *what, char *why, size_t why_size);

/* A vector a BLAS with int sizes takes: n and a positive increment (or a
 * single element) that fit an int; its increment for the call. */
int kkk_tpl_vec_ok(const kkk_tvec_t *v);
int kkk_tpl_inc(const kkk_tvec_t *v);
/* Every vector of call t can go to such a BLAS (scal: in place only; SpMV:
 * never, it is no BLAS call). */
int kkk_tpl_vectors_ok(const kkk_tpl_call_t *t);

/* How matrix M is stored in row-major (row_major nonzero) or column-major
 * order: 0 as is, 1 as its transpose, -1 neither (no unit stride, sizes
 * past int); *ld its leading dimension there. */
int kkk_tpl_stored(const kkk_tmat_t *M, int row_major, int *ld);

/* The BLAS operation (0 N, 1 T, 2 C) that applies `op` to a matrix stored
 * as is (t = 0) or transposed (t = 1); -1 for conj without a transpose. */
int kkk_tpl_trans(kk_op_t op, int t);

/* The kind of native queue under the call's instance (kk_instance_native_queue),
 * *q filled; KK_NATIVE_NONE, with no error recorded, for host backends and
 * backends without one. */
kk_native_kind_t kkk_native_queue(const kkk_call_t *c, kk_native_queue_t *q);

/* KK_OK when A is a matrix of the current initialization of kk; else the
 * error (A NULL: KK_ERROR_INVALID_ARGUMENT; kk not initialized, or A made
 * before kk_finalize: KK_ERROR_NOT_INITIALIZED) naming op. */
kk_status_t kkk_crs_check(const char *op, const kk_crs_t *A);

/* An int32 copy of A's row offsets in A's space, made at the first request
 * (for vendor libraries taking one index type); NULL when A has 2^31
 * entries or more, or the copy could not be made.  Thread-safe. */
kk_view_t *kkk_crs_row_ptr32(const kk_crs_t *A);
/* The most entries of one of A's rows (for a result of SpGEMM or SpAdd,
 * found at the first request: one copy of the row offsets to the host,
 * synchronous; thread-safe). */
int64_t kkk_crs_max_row(const kk_crs_t *A);
/* The label A was made with, as messages name it. */
const char *kkk_crs_label(const kk_crs_t *A);
/* A's rows cut into the merge-path SpMV's tiles (args.h, KKK_MERGE_TILE):
 * a KK_INT64 view of 4 numbers per tile (rows [r0, r1), entries [p0, p1)),
 * *ntiles tiles, those of one row too long for a tile first.  Made with
 * the matrix (its structure does not change); for a result of SpGEMM or
 * SpAdd at the first request, as kkk_crs_max_row. */
/* *ends: with the tiles, each row's end within its tile (its row offset
 * after it less the tile's first entry; 0 in a tile of one long row), one
 * uint16 per row, in a KK_INT32 view of rows / 2 + 1 elements. */
kk_view_t *kkk_crs_tiles(const kk_crs_t *A, int64_t *ntiles, kk_view_t **ends);

/* The slot where a vendor library keeps its state for matrix A (cuSPARSE:
 * descriptors and buffer sizes), NULL until it stores something there;
 * kk_crs_destroy calls free_fn on what the slot holds.  One library uses
 * it (cusparse); the caller serializes access to the slot. */
void **kkk_crs_tpl_cache(const kk_crs_t *A, void (*free_fn)(void *));

/* A new matrix in `space` whose row offsets are the KK_INT64 view row_ptr
 * (rows + 1 elements in `space`, set; the matrix takes a reference and
 * never writes it), with its column and value views of nnz elements
 * allocated but not set (a kernel fills them): the results of SpGEMM and
 * SpAdd.  Nothing goes through the host: the longest row and the tiles are
 * made at their first request (kkk_crs_max_row, kkk_crs_tiles). */
kk_status_t kkk_crs_make(const char *op, kk_space_t *space, const char *label, kk_type_t type, int64_t rows,
                         int64_t cols, int64_t nnz, kk_view_t *row_ptr, kk_crs_t **out);

/* Offers a call to the vendor libraries: 1 when one ran it (*st its
 * status), 0 when kk's own kernel must run. */
int kkk_tpl_try(const kkk_tpl_call_t *t, kk_status_t *st);

/* The vector and matrix forms of a descriptor for kkk_tpl_call_t. */
kkk_tvec_t kkk_tvec(const kk_view_strided *d);
kkk_tmat_t kkk_tmat(const kk_view_strided *d);

#endif
