/* fortran/kk_fortran.c -- libkk-fortran: the C side of Fortran's `use kk` (fortran/kk.f90 declares these with bind(C)). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * Fortran reaches these functions through the interfaces of module kk
 * (Fortran 2018 / TS 29113 interoperability): arrays of any rank and type
 * arrive as ISO_Fortran_binding descriptors (CFI_cdesc_t), strings as
 * character descriptors, absent optional arguments as NULL.  Descriptors
 * are the compiler's own layout, so this library is built for the Fortran
 * compiler configure found, like the module file.
 *
 * Errors: every routine takes an optional `status`.  Present, it receives
 * kk's status (KK_OK or a negative kk_status_t) and nothing is printed;
 * absent, a failure prints kk's message to stderr and stops the program
 * with exit status 1 -- the Fortran convention (an MPI program's default
 * error handler does the same) -- unless kk_fortran_set_errors_fatal(0)
 * asked to go on.
 */
#include <ISO_Fortran_binding.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk.h>
#include <kk/linalg.h>

/* The handle types of module kk (bind(C) types holding one pointer). */
typedef struct { kk_view_t *h; } f_view_t;
typedef struct { kk_crs_t *h; } f_crs_t;
typedef struct { kk_module_t *h; } f_module_t;
typedef struct { const kk_kernel_t *h; } f_kernel_t;

static atomic_int g_fatal = 1;
/* This library's own refusals (a Fortran argument kk cannot take), said in
 * kk's words; kk's message wins when kk failed since. */
static _Thread_local char tl_msg[512];

static kk_status_t own(kk_status_t st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static kk_status_t own(kk_status_t st, const char *fmt, ...) {
  va_list ap;
  kk_clear_error();
  va_start(ap, fmt);
  vsnprintf(tl_msg, sizeof tl_msg, fmt, ap);
  va_end(ap);
  return st;
}

static const char *message(kk_status_t st) {
  /* kk's own message when kk failed since (own() clears it) */
  return kk_last_error()[0] ? kk_last_error() : tl_msg[0] ? tl_msg : kk_status_str(st);
}

/* The last failure's message into a Fortran string (blank-padded). */
void kk_fortran_last_error(CFI_cdesc_t *msg) {
  const char *m = message(kk_last_status());
  size_t n = strlen(m);
  if (n > msg->elem_len)
    n = msg->elem_len;
  memset(msg->base_addr, ' ', msg->elem_len);
  memcpy(msg->base_addr, m, n);
}

void kk_fortran_set_errors_fatal(const int *fatal) { atomic_store(&g_fatal, fatal ? *fatal != 0 : 1); }

/* Hands st to the caller's status, or reports it. */
static void done(kk_status_t st, int *status) {
  if (status) {
    *status = st;
    return;
  }
  if (st == KK_OK)
    return;
  fprintf(stderr, "kk: %s\n", message(st));
  if (atomic_load(&g_fatal)) {
    fflush(NULL);
    exit(EXIT_FAILURE);
  }
}

/* A Fortran string (trailing blanks dropped) as a C string in buf; NULL when absent. */
static const char *cstr(const CFI_cdesc_t *s, char *buf, size_t size) {
  if (!s || !s->base_addr)
    return NULL;
  size_t n = s->elem_len;
  const char *p = s->base_addr;
  while (n > 0 && p[n - 1] == ' ')
    n--;
  if (n >= size)
    n = size - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return buf;
}

/* kk's element type of a Fortran array. */
static kk_type_t type_of(const CFI_cdesc_t *a) {
  switch (a->type) {
  case CFI_type_float: return KK_FLOAT;
  case CFI_type_double: return KK_DOUBLE;
  case CFI_type_float_Complex: return KK_COMPLEX_FLOAT;
  case CFI_type_double_Complex: return KK_COMPLEX_DOUBLE;
  case CFI_type_int8_t: return KK_INT8;
  case CFI_type_int16_t: return KK_INT16;
  case CFI_type_int32_t: return KK_INT32;
  case CFI_type_int64_t: return KK_INT64;
  default: return KK_TYPE_NONE;
  }
}

/* ---- initialization ----------------------------------------------------------- */

void kk_fortran_initialize(const CFI_cdesc_t *device, const int *num_threads, const int *device_id, int *status) {
  char dev[128];
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = cstr(device, dev, sizeof dev);
  if (num_threads)
    s.num_threads = *num_threads;
  if (device_id)
    s.device_id = *device_id;
  done(kk_initialize_with_settings(&s), status);
}

void kk_fortran_finalize(int *status) { done(kk_finalize(), status); }
int kk_fortran_is_initialized(void) { return kk_is_initialized(); }
void kk_fortran_fence(int *status) { done(kk_fence(), status); }

/* The default backend's name into a Fortran string (blank-padded). */
void kk_fortran_backend(CFI_cdesc_t *name) {
  const char *b = kk_backend_default();
  size_t n = b ? strlen(b) : 0;
  if (n > name->elem_len)
    n = name->elem_len;
  memset(name->base_addr, ' ', name->elem_len);
  memcpy(name->base_addr, b ? b : "", n);
}

/* ---- views ---------------------------------------------------------------------- */

/* A view of a Fortran array without a copy: LayoutLeft when the array is
 * contiguous (column-major), else LayoutStride with its strides. */
static kk_status_t wrap(const CFI_cdesc_t *a, const char *label, kk_view_t **out) {
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = label ? label : "";
  spec.type = type_of(a);
  if (spec.type == KK_TYPE_NONE)
    return own(KK_ERROR_INVALID_ARGUMENT, "kk_view_wrap '%s': the array's type (Fortran type code %d) is not one kk "
               "knows (real, complex or integer of kind 4 or 8, integer 1 or 2)", spec.label, (int)a->type);
  if (a->rank < 1 || a->rank > 7)
    return own(KK_ERROR_INVALID_ARGUMENT, "kk_view_wrap '%s': rank %d; arrays of rank 1 to 7 are wrapped",
               spec.label, (int)a->rank);
  spec.rank = a->rank;
  bool contiguous = true;
  ptrdiff_t expect = (ptrdiff_t)a->elem_len;
  for (int i = 0; i < a->rank; i++) {
    spec.extents[i] = a->dim[i].extent;
    if (a->dim[i].sm % (ptrdiff_t)a->elem_len != 0 || a->dim[i].sm < 0)
      return own(KK_ERROR_INVALID_ARGUMENT, "kk_view_wrap '%s': dimension %d has a negative or uneven stride "
                 "(%td bytes); kk views take strides of whole elements >= 0", spec.label, i + 1, a->dim[i].sm);
    spec.strides[i] = a->dim[i].sm / (ptrdiff_t)a->elem_len;
    if (a->dim[i].extent > 1 && a->dim[i].sm != expect)
      contiguous = false;
    expect *= a->dim[i].extent;
  }
  spec.layout = contiguous ? KK_LAYOUT_LEFT : KK_LAYOUT_STRIDE;
  spec.space = kk_space_host();
  return kk_view_wrap(&spec, a->base_addr, out);
}

void kk_fortran_view_wrap(f_view_t *v, const CFI_cdesc_t *a, const CFI_cdesc_t *label, int *status) {
  char lbl[256];
  kk_view_release(v->h);
  v->h = NULL;
  done(wrap(a, cstr(label, lbl, sizeof lbl), &v->h), status);
}

void kk_fortran_view_create(f_view_t *v, const CFI_cdesc_t *label, const int *type, const CFI_cdesc_t *extents,
                            const CFI_cdesc_t *space, int *status) {
  char lbl[256], sp[64];
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  kk_view_release(v->h);
  v->h = NULL;
  spec.label = cstr(label, lbl, sizeof lbl);
  spec.type = (kk_type_t)*type;
  spec.layout = KK_LAYOUT_LEFT;
  kk_type_t et = type_of(extents);
  if (extents->rank != 1 || (et != KK_INT32 && et != KK_INT64) || extents->dim[0].extent < 1 ||
      extents->dim[0].extent > 7) {
    done(own(KK_ERROR_INVALID_ARGUMENT, "kk_view_create '%s': extents must be an integer array of 1 to 7 values",
             spec.label), status);
    return;
  }
  spec.rank = (int)extents->dim[0].extent;
  for (int i = 0; i < spec.rank; i++) {
    const char *e = (const char *)extents->base_addr + i * extents->dim[0].sm;
    spec.extents[i] = et == KK_INT32 ? *(const int32_t *)e : *(const int64_t *)e;
  }
  if (space && space->base_addr) {
    spec.space = kk_space_find(cstr(space, sp, sizeof sp));
    if (!spec.space) {
      done(own(KK_ERROR_NOT_FOUND, "kk_view_create '%s': no memory space '%s' among the active backends", spec.label,
               sp), status);
      return;
    }
  }
  done(kk_view_create(&spec, &v->h), status);
}

void kk_fortran_view_release(f_view_t *v) {
  kk_view_release(v->h);
  v->h = NULL;
}

int64_t kk_fortran_view_extent(const f_view_t *v, const int *dim) { return kk_view_extent(v->h, *dim - 1); }
int kk_fortran_view_rank(const f_view_t *v) { return kk_view_rank(v->h); }
void *kk_fortran_view_data(const f_view_t *v) { return kk_view_data(v->h); }

void kk_fortran_deep_copy(f_view_t *dst, f_view_t *src, int *status) { done(kk_deep_copy(dst->h, src->h), status); }

/* dst view <- Fortran array, and back: the array is wrapped for the copy. */
void kk_fortran_copy_to_view(f_view_t *dst, const CFI_cdesc_t *a, int *status) {
  kk_view_t *w = NULL;
  kk_status_t st = wrap(a, "array", &w);
  if (st == KK_OK)
    st = kk_deep_copy(dst->h, w);
  kk_view_release(w);
  done(st, status);
}

void kk_fortran_copy_from_view(const CFI_cdesc_t *a, f_view_t *src, int *status) {
  kk_view_t *w = NULL;
  kk_status_t st = wrap(a, "array", &w);
  if (st == KK_OK)
    st = kk_deep_copy(w, src->h);
  kk_view_release(w);
  done(st, status);
}

void kk_fortran_view_fill(f_view_t *v, const double *value, int *status) {
  /* value converted to the view's type */
  union { float f; double d; int32_t i; int64_t l; float cf[2]; double cd[2]; } u;
  memset(&u, 0, sizeof u);
  switch (kk_view_type(v->h)) {
  case KK_FLOAT: u.f = (float)*value; break;
  case KK_INT32: u.i = (int32_t)*value; break;
  case KK_INT64: u.l = (int64_t)*value; break;
  case KK_COMPLEX_FLOAT: u.cf[0] = (float)*value; break;
  case KK_COMPLEX_DOUBLE: u.cd[0] = *value; break;
  default: u.d = *value; break;
  }
  done(kk_deep_copy_fill(v->h, &u), status);
}

/* ---- kk-kernels ---------------------------------------------------------------- */

static kk_op_t op_of(const CFI_cdesc_t *s) {
  char c = s && s->base_addr && s->elem_len ? ((const char *)s->base_addr)[0] : 'N';
  return c == 'T' || c == 't' ? KK_OP_T : c == 'C' || c == 'c' || c == 'H' || c == 'h' ? KK_OP_C : KK_OP_N;
}

void kk_fortran_axpby(const double *a, f_view_t *x, const double *b, f_view_t *y, int *status) {
  done(kk_blas_axpby(NULL, KK_REAL(*a), x->h, KK_REAL(*b), y->h), status);
}

void kk_fortran_scal(const double *a, f_view_t *x, int *status) {
  done(kk_blas_scal(NULL, x->h, KK_REAL(*a), x->h), status);
}

double kk_fortran_dot(f_view_t *x, f_view_t *y, int *status) {
  kk_scalar_t r[1] = {{0, 0}};
  kk_status_t st = kk_view_rank(x->h) == 1 ? kk_blas_dot(NULL, x->h, y->h, r)
                                            : own(KK_ERROR_INVALID_ARGUMENT, "kk_dot: x must be a rank-1 view");
  done(st, status);
  return r[0].re;
}

double kk_fortran_nrm2(f_view_t *x, int *status) {
  double r[1] = {0};
  kk_status_t st = kk_view_rank(x->h) == 1 ? kk_blas_nrm2(NULL, x->h, r)
                                            : own(KK_ERROR_INVALID_ARGUMENT, "kk_nrm2: x must be a rank-1 view");
  done(st, status);
  return r[0];
}

void kk_fortran_gemv(const CFI_cdesc_t *trans, const double *alpha, f_view_t *A, f_view_t *x, const double *beta,
                     f_view_t *y, int *status) {
  done(kk_blas_gemv(NULL, op_of(trans), KK_REAL(*alpha), A->h, x->h, KK_REAL(*beta), y->h), status);
}

void kk_fortran_gemm(const CFI_cdesc_t *transa, const CFI_cdesc_t *transb, const double *alpha, f_view_t *A,
                     f_view_t *B, const double *beta, f_view_t *C, int *status) {
  done(kk_blas_gemm(NULL, op_of(transa), op_of(transb), KK_REAL(*alpha), A->h, B->h, KK_REAL(*beta), C->h),
       status);
}

void kk_fortran_batched_gemm(const CFI_cdesc_t *transa, const CFI_cdesc_t *transb, const double *alpha, f_view_t *A,
                             f_view_t *B, const double *beta, f_view_t *C, int *status) {
  done(kk_batched_gemm(NULL, op_of(transa), op_of(transb), KK_REAL(*alpha), A->h, B->h, KK_REAL(*beta), C->h),
       status);
}

/* A CRS matrix from Fortran CSR arrays (row_ptr(nrows+1), col_idx, values;
 * indices from `index_base`, 1 unless given). */
void kk_fortran_crs_create(f_crs_t *A, const int64_t *nrows, const int64_t *ncols, const CFI_cdesc_t *row_ptr,
                           const CFI_cdesc_t *col_idx, const CFI_cdesc_t *values, const int *index_base,
                           const CFI_cdesc_t *space, const CFI_cdesc_t *label, int *status) {
  char lbl[256], sp[64];
  int base = index_base ? *index_base : 1;
  kk_type_t rt = type_of(row_ptr), ct = type_of(col_idx), vt = type_of(values);
  kk_crs_destroy(A->h);
  A->h = NULL;
  if ((rt != KK_INT32 && rt != KK_INT64) || (ct != KK_INT32 && ct != KK_INT64) || row_ptr->rank != 1 ||
      col_idx->rank != 1 || values->rank != 1 || row_ptr->dim[0].extent != *nrows + 1 ||
      row_ptr->dim[0].sm != (ptrdiff_t)row_ptr->elem_len || col_idx->dim[0].sm != (ptrdiff_t)col_idx->elem_len ||
      values->dim[0].sm != (ptrdiff_t)values->elem_len) {
    done(own(KK_ERROR_INVALID_ARGUMENT, "kk_crs_create: row_ptr needs nrows + 1 = %lld integers, col_idx integers "
             "and values, each a contiguous rank-1 array (integer kind 4 or 8)", (long long)(*nrows + 1)), status);
    return;
  }
  kk_space_t *s = NULL;
  if (space && space->base_addr && !(s = kk_space_find(cstr(space, sp, sizeof sp)))) {
    done(own(KK_ERROR_NOT_FOUND, "kk_crs_create: no memory space '%s' among the active backends", sp), status);
    return;
  }
  /* 0-based copies of the index arrays (as int64) */
  int64_t n = *nrows + 1, nnz = col_idx->dim[0].extent;
  int64_t *rp = malloc((size_t)n * sizeof *rp), *ci = malloc((size_t)(nnz ? nnz : 1) * sizeof *ci);
  if (!rp || !ci) {
    free(rp), free(ci);
    done(own(KK_ERROR_OUT_OF_MEMORY, "kk_crs_create: no memory for the 0-based index copies"), status);
    return;
  }
  for (int64_t i = 0; i < n; i++)
    rp[i] = (rt == KK_INT32 ? ((const int32_t *)row_ptr->base_addr)[i] : ((const int64_t *)row_ptr->base_addr)[i]) -
            base;
  for (int64_t i = 0; i < nnz; i++)
    ci[i] = (ct == KK_INT32 ? ((const int32_t *)col_idx->base_addr)[i] : ((const int64_t *)col_idx->base_addr)[i]) -
            base;
  kk_status_t st = kk_crs_create_csr(s, cstr(label, lbl, sizeof lbl) ? lbl : "A", vt, *nrows, *ncols, KK_INT64, rp,
                                     KK_INT64, ci, values->base_addr, &A->h);
  free(rp), free(ci);
  done(st, status);
}

void kk_fortran_crs_destroy(f_crs_t *A) {
  kk_crs_destroy(A->h);
  A->h = NULL;
}

void kk_fortran_spmv(const CFI_cdesc_t *trans, const double *alpha, f_crs_t *A, f_view_t *x, const double *beta,
                     f_view_t *y, int *status) {
  done(kk_sparse_spmv(NULL, op_of(trans), KK_REAL(*alpha), A->h, x->h, KK_REAL(*beta), y->h), status);
}

void kk_fortran_cg(f_crs_t *A, f_view_t *b, f_view_t *x, const double *tol, const int *max_iterations,
                   const int *jacobi, int *iterations, double *residual, int *converged, int *status) {
  kk_cg_options_t o = KK_CG_OPTIONS_INIT;
  kk_cg_result_t r = {sizeof r, 0, 0.0, 0};
  if (tol)
    o.tolerance = *tol;
  if (max_iterations)
    o.max_iterations = *max_iterations;
  if (jacobi)
    o.preconditioner = *jacobi ? KK_CG_JACOBI : KK_CG_NONE;
  kk_status_t st = kk_sparse_cg(NULL, A->h, b->h, x->h, &o, &r);
  if (iterations)
    *iterations = r.iterations;
  if (residual)
    *residual = r.residual;
  if (converged)
    *converged = r.converged;
  done(st, status);
}

/* ---- kernel modules (kkcc -shared) ------------------------------------------------ */

void kk_fortran_module_load(f_module_t *m, const CFI_cdesc_t *path, int *status) {
  char p[4096];
  m->h = NULL;
  done(kk_module_load(cstr(path, p, sizeof p), &m->h), status);
}

void kk_fortran_module_unload(f_module_t *m, int *status) {
  kk_status_t st = kk_module_unload(m->h);
  m->h = NULL;
  done(st, status);
}

void kk_fortran_module_kernel(f_kernel_t *k, const f_module_t *m, const CFI_cdesc_t *name, int *status) {
  char n[256];
  k->h = kk_module_kernel(m->h, cstr(name, n, sizeof n));
  done(k->h ? KK_OK : own(KK_ERROR_NOT_FOUND, "kk_module_kernel: the module has no kernel '%s'", n), status);
}

/* Binds a view into a member of a kernel's argument struct (kk_view,
 * kk_view_right, kk_view_left, kk_view_strided); a failed bind refuses the
 * thread's next launch, as in C. */
void kk_fortran_bind(kk_view *out, const f_view_t *v) { *out = kk_view_bind(v->h); }
void kk_fortran_bind_right(kk_view_right *out, const f_view_t *v) { *out = kk_view_bind_right(v->h); }
void kk_fortran_bind_left(kk_view_left *out, const f_view_t *v) { *out = kk_view_bind_left(v->h); }
void kk_fortran_bind_strided(kk_view_strided *out, const f_view_t *v) { *out = kk_view_bind_strided(v->h); }

void kk_fortran_parallel_for(const CFI_cdesc_t *label, const f_kernel_t *k, const int64_t *begin, const int64_t *end,
                             const void *args, const int64_t *args_size, int *status) {
  char l[256];
  done(kk_parallel_for(cstr(label, l, sizeof l), KK_RANGE(*begin, *end), k->h, args, (size_t)*args_size), status);
}

void kk_fortran_parallel_reduce(const CFI_cdesc_t *label, const f_kernel_t *k, const int64_t *begin,
                                const int64_t *end, const void *args, const int64_t *args_size, void *result,
                                const int64_t *result_size, int *status) {
  char l[256];
  done(kk_parallel_reduce(cstr(label, l, sizeof l), KK_RANGE(*begin, *end), k->h, args, (size_t)*args_size, result,
                          (size_t)*result_size),
       status);
}
