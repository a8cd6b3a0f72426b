/* kernels/crs.c -- the CRS matrix type: built from host CSR or COO arrays (checked), copied to any memory space. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct kk_crs {
  kk_space_t *space;
  char *label;
  kk_type_t type;
  int64_t rows, cols, nnz;
  int64_t max_row;       /* the most entries of a row (kkk_crs_max_row) */
  kk_view_t *row_ptr, *col_idx, *vals;
  kk_view_t *tiles;      /* the merge-path SpMV's tiles (kkk_crs_tiles): 4 numbers each */
  kk_view_t *ends;       /* and each row's end within its tile, uint16 (kkk_crs_tiles) */
  int64_t ntiles;
  atomic_int shape_ready; /* max_row, tiles and ntiles are set: at creation from host arrays, else (a result of
                             SpGEMM or SpAdd, its offsets made on the device) at the first request (need_shape) */
  kk_view_t *row_ptr32;  /* int32 offsets for vendor libraries (kkk_crs_row_ptr32), made on request */
  int row_ptr32_failed;
  void *tpl_cache;                  /* a vendor library's state for this matrix (kkk_crs_tpl_cache) */
  void (*tpl_cache_free)(void *);   /* frees it when the matrix is destroyed */
};

static pthread_mutex_t g_rp32_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_shape_lock = PTHREAD_MUTEX_INITIALIZER;

static kk_view_t *new_view(kk_crs_t *A, const char *what, kk_type_t type, int64_t n, kk_status_t *st);
static void need_shape(const kk_crs_t *A);

/* ---- queries -------------------------------------------------------------------- */

/* A matrix lives as long as its views: kk_finalize ends them all, and a
 * view from before it has no space (kk_view_space returns NULL). */
static int live(const kk_crs_t *A) { return A && kk_view_space(A->row_ptr) != NULL; }

kk_status_t kkk_crs_check(const char *op, const kk_crs_t *A) {
  if (!A)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: A is NULL", op);
  if (!kk_is_initialized())
    return kkk_err(KK_ERROR_NOT_INITIALIZED, "%s: kk is not initialized (call kk_initialize first)", op);
  if (KKK_UNLIKELY(!live(A)))
    return kkk_err(KK_ERROR_NOT_INITIALIZED,
                   "%s: matrix '%s' was made before kk_finalize, which ended it: a handle does not carry over into a "
                   "new kk_initialize (make it again)",
                   op, A->label);
  return KK_OK;
}

/* A matrix from before kk_finalize answers as NULL does. */
int64_t kk_crs_rows(const kk_crs_t *A) { return live(A) ? A->rows : 0; }
int64_t kk_crs_cols(const kk_crs_t *A) { return live(A) ? A->cols : 0; }
int64_t kk_crs_nnz(const kk_crs_t *A) { return live(A) ? A->nnz : 0; }
kk_type_t kk_crs_type(const kk_crs_t *A) { return live(A) ? A->type : KK_TYPE_NONE; }
kk_space_t *kk_crs_space(const kk_crs_t *A) { return live(A) ? A->space : NULL; }
kk_view_t *kk_crs_row_ptr(const kk_crs_t *A) { return live(A) ? A->row_ptr : NULL; }
kk_view_t *kk_crs_col_idx(const kk_crs_t *A) { return live(A) ? A->col_idx : NULL; }
kk_view_t *kk_crs_values(const kk_crs_t *A) { return live(A) ? A->vals : NULL; }

void kk_crs_destroy(kk_crs_t *A) {
  if (!A)
    return;
  kk_view_release(A->row_ptr);
  kk_view_release(A->col_idx);
  kk_view_release(A->vals);
  kk_view_release(A->tiles);
  kk_view_release(A->ends);
  kk_view_release(A->row_ptr32);
  if (A->tpl_cache && A->tpl_cache_free)
    A->tpl_cache_free(A->tpl_cache);
  free(A->label);
  free(A);
}

int64_t kkk_crs_max_row(const kk_crs_t *A) {
  if (!A)
    return 0;
  need_shape(A);
  return A->max_row;
}
const char *kkk_crs_label(const kk_crs_t *A) { return A ? A->label : "(NULL)"; }
kk_view_t *kkk_crs_tiles(const kk_crs_t *A, int64_t *ntiles, kk_view_t **ends) {
  if (A)
    need_shape(A);
  *ntiles = A ? A->ntiles : 0;
  *ends = A ? A->ends : NULL;
  return A ? A->tiles : NULL;
}

void **kkk_crs_tpl_cache(const kk_crs_t *cA, void (*free_fn)(void *)) {
  kk_crs_t *A = (kk_crs_t *)(uintptr_t)cA; /* the cache is not part of the matrix's value */
  A->tpl_cache_free = free_fn;
  return &A->tpl_cache;
}

kk_view_t *kkk_crs_row_ptr32(const kk_crs_t *cA) {
  kk_crs_t *A = (kk_crs_t *)(uintptr_t)cA; /* the cache is not part of the matrix's value */
  pthread_mutex_lock(&g_rp32_lock);
  if (!A->row_ptr32 && !A->row_ptr32_failed) {
    A->row_ptr32_failed = 1;
    const size_t n = (size_t)A->rows + 1;
    int64_t *h = A->nnz <= INT32_MAX ? malloc(sizeof(int64_t) * n) : NULL;
    int32_t *h32 = h ? malloc(sizeof(int32_t) * n) : NULL;
    kk_status_t st = h32 ? kk_space_copy(NULL, h, A->space, kk_view_data(A->row_ptr), sizeof(int64_t) * n, NULL)
                         : KK_ERROR_OUT_OF_MEMORY;
    kk_view_t *v = NULL;
    if (st == KK_OK) {
      for (size_t i = 0; i < n; i++)
        h32[i] = (int32_t)h[i];
      v = new_view(A, "row_ptr32", KK_INT32, (int64_t)n, &st);
      if (st == KK_OK)
        st = kk_space_copy(A->space, kk_view_data(v), NULL, h32, sizeof(int32_t) * n, NULL);
    }
    if (st == KK_OK) {
      A->row_ptr32 = v;
      A->row_ptr32_failed = 0;
    } else {
      kk_view_release(v);
      kk_clear_error(); /* not the caller's failure: kk's own SpMV runs instead */
    }
    free(h32);
    free(h);
  }
  kk_view_t *r = A->row_ptr32;
  pthread_mutex_unlock(&g_rp32_lock);
  return r;
}

/* ---- creation ---------------------------------------------------------------------- */

static kk_view_t *new_view(kk_crs_t *A, const char *what, kk_type_t type, int64_t n, kk_status_t *st) {
  char label[256];
  snprintf(label, sizeof label, "%s.%s", A->label, what);
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = label;
  spec.type = type;
  spec.rank = 1;
  spec.extents[0] = n;
  spec.layout = KK_LAYOUT_RIGHT;
  spec.space = A->space;
  spec.flags = KK_VIEW_NO_INIT;
  kk_view_t *v = NULL;
  *st = kk_view_create(&spec, &v);
  return v;
}

/* The label a matrix gets, as its messages name it. */
static const char *label_of(const char *label) { return label && *label ? label : "crs"; }

/* An empty matrix object with its three views allocated in `space`; its
 * row offsets `row_ptr` instead when that is not NULL (a reference is
 * taken). */
static kk_status_t alloc_crs(const char *op, kk_space_t *space, const char *label, kk_type_t type, int64_t rows,
                             int64_t cols, int64_t nnz, kk_view_t *row_ptr, kk_crs_t **out) {
  kk_crs_t *A = calloc(1, sizeof *A);
  if (!A || !(A->label = strdup(label_of(label)))) {
    free(A);
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: matrix '%s': out of memory", op, label_of(label));
  }
  A->space = space;
  A->type = type;
  A->rows = rows;
  A->cols = cols;
  A->nnz = nnz;
  kk_status_t st = KK_OK;
  A->row_ptr = row_ptr ? kk_view_retain(row_ptr) : new_view(A, "row_ptr", KK_INT64, rows + 1, &st);
  if (st == KK_OK)
    A->col_idx = new_view(A, "col_idx", KK_INT32, nnz, &st);
  if (st == KK_OK)
    A->vals = new_view(A, "values", type, nnz, &st);
  if (st != KK_OK) {
    kk_crs_destroy(A);
    return kkk_err(st, "%s: matrix '%s': %s", op, label_of(label), kk_last_error());
  }
  *out = A;
  return KK_OK;
}

static kk_status_t check_common(const char *op, const char *label, kk_space_t **space, kk_type_t type, int64_t rows,
                                int64_t cols, kk_type_t index_type, kk_crs_t **out) {
  if (!out)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': out is NULL", op, label_of(label));
  *out = NULL;
  if (!kk_is_initialized())
    return kkk_err(KK_ERROR_NOT_INITIALIZED, "%s: kk is not initialized (call kk_initialize first)", op);
  if (!*space)
    *space = kk_space_default();
  if (kkk_tidx(type) < 0)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: matrix '%s': element type %s; a CRS matrix holds float, double, complex_float or "
                   "complex_double",
                   op, label_of(label), kk_type_name(type));
  if (index_type != KK_INT32 && index_type != KK_INT64)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': index type %s; the index arrays are int32 or int64",
                   op, label_of(label), kk_type_name(index_type));
  if (rows < 0 || cols < 0 || cols > INT32_MAX)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': %lld x %lld: rows must be >= 0, columns in [0, 2^31)",
                   op, label_of(label), (long long)rows, (long long)cols);
  return KK_OK;
}

static int64_t idx_at(kk_type_t t, const void *a, int64_t i) {
  return t == KK_INT32 ? (int64_t)((const int32_t *)a)[i] : ((const int64_t *)a)[i];
}

/* Long tiles first, the longest first; then row order. */
static int tile_cmp(const void *pa, const void *pb) {
  const int64_t *a = pa, *b = pb, la = a[3] - a[2], lb = b[3] - b[2];
  return la != lb ? (la < lb ? 1 : -1) : (a[0] > b[0]) - (a[0] < b[0]);
}

/* Cuts rows [0, rows) into the merge-path SpMV's tiles: runs of whole rows
 * of at most KKK_MERGE_TILE items (a row's entries, plus one for its end),
 * a longer row alone.  When t is not NULL, stores four numbers per tile in
 * it (its first row, the row after its last, its first entry, the entry
 * after its last): first the tiles of one long row, longest first (each
 * takes a team the longest, so they start first and no team is left
 * with one at the end), then the others in row order.  Returns the tile
 * count. */
static int64_t cut_tiles(const int64_t *rp, int64_t rows, int64_t *t) {
  int64_t n = 0, nlong = 0, il = 0;
  for (int64_t r = 0; t && r < rows; r++)
    nlong += rp[r + 1] - rp[r] + 1 > KKK_MERGE_TILE;
  for (int64_t r = 0, is = nlong; r < rows; n++) {
    const int64_t r0 = r;
    int64_t items = rp[r + 1] - rp[r] + 1;
    for (r++; items <= KKK_MERGE_TILE && r < rows && items + rp[r + 1] - rp[r] + 1 <= KKK_MERGE_TILE; r++)
      items += rp[r + 1] - rp[r] + 1;
    if (t) {
      int64_t *q = t + 4 * (items > KKK_MERGE_TILE ? il++ : is++);
      q[0] = r0;
      q[1] = r;
      q[2] = rp[r0];
      q[3] = rp[r];
    }
  }
  if (t && nlong > 1)
    qsort(t, (size_t)nlong, 4 * sizeof(int64_t), tile_cmp);
  return n;
}

_Static_assert(KKK_MERGE_TILE <= UINT16_MAX, "a row's end within its tile is a uint16");

/* The uint16 words of the row ends of n rows: int32 elements of a view. */
static int64_t ends_elems(int64_t rows) { return rows / 2 + 1; }

/* Sets A's longest row and makes its tiles view from the row offsets rp
 * (host, rows + 1), and the view of each row's end within its tile
 * (rp[r + 1] - the tile's first entry, at most KKK_MERGE_TILE: a uint16,
 * a quarter of the int64 offsets the merge-path SpMV would read instead;
 * 0 for the row of a tile of one long row, whose end is the tile's). */
static kk_status_t set_shape(kk_crs_t *A, const int64_t *rp) {
  A->max_row = 0;
  for (int64_t i = 0; i < A->rows; i++)
    if (rp[i + 1] - rp[i] > A->max_row)
      A->max_row = rp[i + 1] - rp[i];
  A->ntiles = cut_tiles(rp, A->rows, NULL);
  int64_t *tiles = malloc(sizeof(int64_t) * 4 * (size_t)(A->ntiles + 1));
  uint16_t *ends = calloc((size_t)ends_elems(A->rows), 2 * sizeof(uint16_t));
  kk_status_t st = tiles && ends ? KK_OK : KK_ERROR_OUT_OF_MEMORY;
  if (st == KK_OK) {
    cut_tiles(rp, A->rows, tiles);
    for (int64_t j = 0; j < A->ntiles; j++) {
      const int64_t *t = tiles + 4 * j;
      if (t[3] - t[2] + t[1] - t[0] <= KKK_MERGE_TILE)
        for (int64_t r = t[0]; r < t[1]; r++)
          ends[r] = (uint16_t)(rp[r + 1] - t[2]);
    }
    A->tiles = new_view(A, "tiles", KK_INT64, 4 * A->ntiles, &st);
  }
  if (st == KK_OK)
    A->ends = new_view(A, "tile_ends", KK_INT32, ends_elems(A->rows), &st);
  if (st == KK_OK && A->ntiles > 0)
    st = kk_space_copy(A->space, kk_view_data(A->tiles), NULL, tiles, sizeof(int64_t) * 4 * (size_t)A->ntiles, NULL);
  if (st == KK_OK)
    st = kk_space_copy(A->space, kk_view_data(A->ends), NULL, ends, sizeof(int32_t) * (size_t)ends_elems(A->rows),
                       NULL);
  free(tiles);
  free(ends);
  if (st == KK_OK)
    atomic_store_explicit(&A->shape_ready, 1, memory_order_release);
  return st;
}

/* A result of SpGEMM or SpAdd has its row offsets only on the device: its
 * longest row and tiles (wanted by the GPU SpMV alone) are made here at the
 * first request, from a host copy of the offsets, so that making the
 * matrix takes no round trip through the host.  Thread-safe.  A failure
 * (out of memory) leaves the longest row 0 and no tiles: not the caller's
 * failure, as the SpMV then takes its row-per-team kernel, which needs
 * neither. */
static void need_shape(const kk_crs_t *cA) {
  kk_crs_t *A = (kk_crs_t *)(uintptr_t)cA; /* made once, not part of the matrix's value */
  if (atomic_load_explicit(&A->shape_ready, memory_order_acquire))
    return;
  pthread_mutex_lock(&g_shape_lock);
  if (!atomic_load_explicit(&A->shape_ready, memory_order_relaxed)) {
    const size_t n = (size_t)A->rows + 1;
    int64_t *rp = malloc(sizeof(int64_t) * n);
    kk_status_t st = rp ? kk_space_copy(NULL, rp, A->space, kk_view_data(A->row_ptr), sizeof(int64_t) * n, NULL)
                        : KK_ERROR_OUT_OF_MEMORY;
    if (st == KK_OK)
      st = set_shape(A, rp);
    if (st != KK_OK) {
      kk_view_release(A->tiles);
      kk_view_release(A->ends);
      A->tiles = NULL;
      A->ends = NULL;
      A->ntiles = 0;
      A->max_row = 0;
      kk_clear_error();
      atomic_store_explicit(&A->shape_ready, 1, memory_order_release);
    }
    free(rp);
  }
  pthread_mutex_unlock(&g_shape_lock);
}

/* Copies host arrays (row offsets int64, columns int32, values) into A's
 * views, and sets its longest row and tiles from the row offsets. */
static kk_status_t upload(const char *op, kk_crs_t *A, const int64_t *rp, const int32_t *ci, const void *vals) {
  const size_t es = kkk_elem_size(A->type);
  kk_status_t st = set_shape(A, rp);
  if (st == KK_OK)
    st = kk_space_copy(A->space, kk_view_data(A->row_ptr), NULL, rp, sizeof(int64_t) * (size_t)(A->rows + 1), NULL);
  if (st == KK_OK && A->nnz > 0 && ci)
    st = kk_space_copy(A->space, kk_view_data(A->col_idx), NULL, ci, sizeof(int32_t) * (size_t)A->nnz, NULL);
  if (st == KK_OK && A->nnz > 0 && vals)
    st = kk_space_copy(A->space, kk_view_data(A->vals), NULL, vals, es * (size_t)A->nnz, NULL);
  if (st != KK_OK)
    return kkk_err(st, "%s: '%s': copying the arrays: %s", op, A->label, kk_last_error());
  return KK_OK;
}

kk_status_t kk_crs_create_csr(kk_space_t *space, const char *label, kk_type_t type, int64_t rows, int64_t cols,
                              kk_type_t offset_type, const void *row_ptr, kk_type_t index_type, const void *col_idx,
                              const void *values, kk_crs_t **out) {
  static const char *op = "kk_crs_create_csr";
  const char *lb = label_of(label);
  kk_status_t st = check_common(op, label, &space, type, rows, cols, index_type, out);
  if (st == KK_OK && offset_type != KK_INT32 && offset_type != KK_INT64)
    st = kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': offset type %s; the row offsets are int32 or int64", op,
                 lb, kk_type_name(offset_type));
  if (st != KK_OK)
    return st;
  if (!row_ptr)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': row_ptr is NULL", op, lb);
  if (idx_at(offset_type, row_ptr, 0) != 0)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': row_ptr[0] is %lld, must be 0", op, lb,
                   (long long)idx_at(offset_type, row_ptr, 0));
  for (int64_t i = 0; i < rows; i++)
    if (idx_at(offset_type, row_ptr, i + 1) < idx_at(offset_type, row_ptr, i))
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': row_ptr[%lld] = %lld is below row_ptr[%lld] = %lld",
                     op, lb, (long long)(i + 1), (long long)idx_at(offset_type, row_ptr, i + 1), (long long)i,
                     (long long)idx_at(offset_type, row_ptr, i));
  const int64_t nnz = idx_at(offset_type, row_ptr, rows);
  if (nnz > 0 && (!col_idx || !values))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': %lld entries but %s is NULL", op, lb, (long long)nnz,
                   !col_idx ? "col_idx" : "values");
  for (int64_t p = 0; p < nnz; p++) {
    const int64_t c = idx_at(index_type, col_idx, p);
    if (c < 0 || c >= cols)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': col_idx[%lld] = %lld is outside [0, %lld)", op, lb,
                     (long long)p, (long long)c, (long long)cols);
  }
  int64_t *rp = malloc(sizeof *rp * (size_t)(rows + 1));
  int32_t *ci = malloc(sizeof *ci * (size_t)(nnz > 0 ? nnz : 1));
  if (!rp || !ci) {
    free(rp);
    free(ci);
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: matrix '%s': out of memory", op, lb);
  }
  for (int64_t i = 0; i <= rows; i++)
    rp[i] = idx_at(offset_type, row_ptr, i);
  for (int64_t p = 0; p < nnz; p++)
    ci[p] = (int32_t)idx_at(index_type, col_idx, p);
  kk_crs_t *A = NULL;
  st = alloc_crs(op, space, label, type, rows, cols, nnz, NULL, &A);
  if (st == KK_OK)
    st = upload(op, A, rp, ci, values);
  free(rp);
  free(ci);
  if (st != KK_OK) {
    kk_crs_destroy(A);
    return st;
  }
  *out = A;
  return KK_OK;
}

/* COO: sort entry numbers by (row, column) */
typedef struct coo_key {
  int64_t row, col, k;
} coo_key_t;

static int coo_cmp(const void *pa, const void *pb) {
  const coo_key_t *a = pa, *b = pb;
  if (a->row != b->row)
    return a->row < b->row ? -1 : 1;
  if (a->col != b->col)
    return a->col < b->col ? -1 : 1;
  return a->k < b->k ? -1 : a->k > b->k;
}

/* dst += src, one element of `type` */
static void add_elem(kk_type_t type, void *dst, const void *src) {
  switch (type) {
  case KK_FLOAT:
    *(float *)dst += *(const float *)src;
    break;
  case KK_DOUBLE:
    *(double *)dst += *(const double *)src;
    break;
  case KK_COMPLEX_FLOAT:
    ((float *)dst)[0] += ((const float *)src)[0];
    ((float *)dst)[1] += ((const float *)src)[1];
    break;
  default:
    ((double *)dst)[0] += ((const double *)src)[0];
    ((double *)dst)[1] += ((const double *)src)[1];
    break;
  }
}

kk_status_t kk_crs_create_coo(kk_space_t *space, const char *label, kk_type_t type, int64_t rows, int64_t cols,
                              int64_t nnz, kk_type_t index_type, const void *row_idx, const void *col_idx,
                              const void *values, kk_crs_t **out) {
  static const char *op = "kk_crs_create_coo";
  const char *lb = label_of(label);
  kk_status_t st = check_common(op, label, &space, type, rows, cols, index_type, out);
  if (st != KK_OK)
    return st;
  if (nnz < 0)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': nnz = %lld is negative", op, lb, (long long)nnz);
  if (nnz > 0 && (!row_idx || !col_idx || !values))
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': %lld entries but %s is NULL", op, lb, (long long)nnz,
                   !row_idx ? "row_idx" : !col_idx ? "col_idx" : "values");
  coo_key_t *keys = malloc(sizeof *keys * (size_t)(nnz > 0 ? nnz : 1));
  if (!keys)
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: matrix '%s': out of memory", op, lb);
  for (int64_t k = 0; k < nnz; k++) {
    keys[k].row = idx_at(index_type, row_idx, k);
    keys[k].col = idx_at(index_type, col_idx, k);
    keys[k].k = k;
    if (keys[k].row < 0 || keys[k].row >= rows || keys[k].col < 0 || keys[k].col >= cols) {
      st = kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: matrix '%s': entry %lld at (%lld, %lld) is outside the %lld x %lld "
                   "matrix",
                   op, lb, (long long)k, (long long)keys[k].row, (long long)keys[k].col, (long long)rows,
                   (long long)cols);
      free(keys);
      return st;
    }
  }
  qsort(keys, (size_t)nnz, sizeof *keys, coo_cmp);
  const size_t es = kkk_elem_size(type);
  int64_t *rp = calloc((size_t)(rows + 1), sizeof *rp);
  int32_t *ci = malloc(sizeof *ci * (size_t)(nnz > 0 ? nnz : 1));
  unsigned char *vals = malloc(es * (size_t)(nnz > 0 ? nnz : 1));
  if (!rp || !ci || !vals) {
    free(keys);
    free(rp);
    free(ci);
    free(vals);
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: matrix '%s': out of memory", op, lb);
  }
  int64_t m = 0; /* entries kept */
  for (int64_t k = 0; k < nnz; k++) {
    const void *src = (const unsigned char *)values + es * (size_t)keys[k].k;
    if (m > 0 && keys[k].row == keys[k - 1].row && keys[k].col == keys[k - 1].col) {
      add_elem(type, vals + es * (size_t)(m - 1), src); /* a duplicate: summed */
      continue;
    }
    memcpy(vals + es * (size_t)m, src, es);
    ci[m] = (int32_t)keys[k].col;
    rp[keys[k].row + 1]++;
    m++;
  }
  for (int64_t i = 0; i < rows; i++)
    rp[i + 1] += rp[i];
  free(keys);
  kk_crs_t *A = NULL;
  st = alloc_crs(op, space, label, type, rows, cols, m, NULL, &A);
  if (st == KK_OK)
    st = upload(op, A, rp, ci, vals);
  free(rp);
  free(ci);
  free(vals);
  if (st != KK_OK) {
    kk_crs_destroy(A);
    return st;
  }
  *out = A;
  return KK_OK;
}

kk_status_t kk_crs_copy(kk_space_t *space, const kk_crs_t *src, kk_crs_t **out) {
  static const char *op = "kk_crs_copy";
  if (out)
    *out = NULL;
  if (!src)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: src is NULL", op);
  kk_status_t st = kkk_crs_check(op, src);
  if (st == KK_OK)
    st = check_common(op, src->label, &space, src->type, src->rows, src->cols, KK_INT64, out);
  if (st != KK_OK)
    return st;
  kk_crs_t *A = NULL;
  st = alloc_crs(op, space, src->label, src->type, src->rows, src->cols, src->nnz, NULL, &A);
  /* the source's longest row and tiles when it has them; else the copy
   * makes its own at the first request, as the source would */
  const int shaped = atomic_load_explicit(&((kk_crs_t *)(uintptr_t)src)->shape_ready, memory_order_acquire);
  if (st == KK_OK && shaped) {
    A->max_row = src->max_row;
    A->ntiles = src->ntiles;
    A->tiles = new_view(A, "tiles", KK_INT64, 4 * A->ntiles, &st);
    if (st == KK_OK && src->tiles)
      st = kk_deep_copy(A->tiles, src->tiles);
    if (st == KK_OK && src->ends) {
      A->ends = new_view(A, "tile_ends", KK_INT32, ends_elems(A->rows), &st);
      if (st == KK_OK)
        st = kk_deep_copy(A->ends, src->ends);
    }
    if (st == KK_OK)
      atomic_store_explicit(&A->shape_ready, 1, memory_order_relaxed);
  }
  if (st == KK_OK)
    st = kk_deep_copy(A->row_ptr, src->row_ptr);
  if (st == KK_OK)
    st = kk_deep_copy(A->col_idx, src->col_idx);
  if (st == KK_OK)
    st = kk_deep_copy(A->vals, src->vals);
  if (st != KK_OK) {
    kk_crs_destroy(A);
    return kkk_err(st, "%s: '%s' into space %s: %s", op, src->label, kk_space_name(space), kk_last_error());
  }
  *out = A;
  return KK_OK;
}

kk_status_t kkk_crs_make(const char *op, kk_space_t *space, const char *label, kk_type_t type, int64_t rows,
                         int64_t cols, int64_t nnz, kk_view_t *row_ptr, kk_crs_t **out) {
  kk_crs_t *A = NULL;
  *out = NULL;
  kk_status_t st = alloc_crs(op, space, label, type, rows, cols, nnz, row_ptr, &A);
  if (st != KK_OK)
    return st;
  *out = A; /* its longest row and tiles: at the first request (need_shape) */
  return KK_OK;
}
