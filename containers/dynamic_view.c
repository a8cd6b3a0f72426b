/* containers/dynamic_view.c -- DynamicView on the host: chunks allocated and freed as the extent changes, and the device table of chunk pointers. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct kk_dynamic_view_obj {
  char *label;
  kk_space_t *space;
  kk_type_t type;
  size_t elem;
  int shift;
  int64_t chunk, max_chunks, max_extent;
  int64_t extent, nchunks;
  kk_view_t *table;   /* max_chunks chunk pointers, in the space (labelled as the DynamicView) */
  kk_view_t **chunks; /* nchunks chunk views */
};

kk_status_t kk_dynamic_view_create(const kk_dynamic_view_spec_t *spec, kk_dynamic_view_t **out) {
  static const char op[] = "kk_dynamic_view_create";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!spec || !out || spec->struct_size < sizeof *spec)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument or a spec not from KK_DYNAMIC_VIEW_SPEC_INIT", op);
  const char *label = spec->label ? spec->label : "";
  const size_t elem = kkc_elem_size(spec->type, spec->elem_size);
  if (!elem || elem > UINT32_MAX)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: '%s': element type %s of %zu bytes", op, label,
                   kk_type_name(spec->type), spec->elem_size);
  if (spec->min_chunk_size < 1 || spec->min_chunk_size > ((int64_t)1 << 40) || spec->max_extent < 0)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: '%s': min_chunk_size %lld (give 1 .. 2^40), max_extent %lld", op,
                   label, (long long)spec->min_chunk_size, (long long)spec->max_extent);
  kk_dynamic_view_t *dv = calloc(1, sizeof *dv);
  if (!dv || !(dv->label = kkc_strdup(label))) {
    free(dv);
    return kkc_err(KK_ERROR_OUT_OF_MEMORY, "%s: '%s': out of memory", op, label);
  }
  dv->space = spec->space ? spec->space : kk_space_default();
  dv->type = spec->type;
  dv->elem = elem;
  while (((int64_t)1 << dv->shift) < spec->min_chunk_size)
    dv->shift++;
  dv->chunk = (int64_t)1 << dv->shift;
  dv->max_extent = spec->max_extent;
  dv->max_chunks = (spec->max_extent + dv->chunk - 1) / dv->chunk;
  if ((st = kkc_vector(dv->space, label, "", KK_UINT64, 0, dv->max_chunks, 0, &dv->table)) != KK_OK ||
      !(dv->chunks = calloc((size_t)dv->max_chunks + 1, sizeof *dv->chunks))) {
    if (st == KK_OK)
      st = kkc_err(KK_ERROR_OUT_OF_MEMORY, "%s: '%s': out of memory", op, label);
    kk_view_release(dv->table);
    free(dv->label);
    free(dv);
    return st;
  }
  *out = dv;
  return KK_OK;
}

void kk_dynamic_view_release(kk_dynamic_view_t *dv) {
  if (!dv)
    return;
  for (int64_t c = 0; c < dv->nchunks; c++)
    kk_view_release(dv->chunks[c]);
  free(dv->chunks);
  kk_view_release(dv->table);
  free(dv->label);
  free(dv);
}

kk_status_t kk_dynamic_view_resize_serial(kk_dynamic_view_t *dv, int64_t n) {
  static const char op[] = "kk_dynamic_view_resize_serial";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!dv)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: the DynamicView is NULL", op);
  if (n < 0 || n > dv->max_extent)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: '%s': extent %lld is outside [0, %lld], its maximum extent", op,
                   dv->label, (long long)n, (long long)dv->max_extent);
  const int64_t need = (n + dv->chunk - 1) / dv->chunk;
  if (need > dv->nchunks) {
    const int64_t first = dv->nchunks;
    uint64_t *ptrs = malloc((size_t)(need - first) * sizeof *ptrs);
    if (!ptrs)
      return kkc_err(KK_ERROR_OUT_OF_MEMORY, "%s: '%s': out of memory", op, dv->label);
    for (int64_t c = first; c < need; c++) {
      if ((st = kkc_vector(dv->space, dv->label, "_chunk", dv->type, dv->elem, dv->chunk, 0, &dv->chunks[c])) !=
          KK_OK) {
        for (int64_t k = first; k < c; k++) {
          kk_view_release(dv->chunks[k]);
          dv->chunks[k] = NULL;
        }
        free(ptrs);
        return kkc_err(st, "%s: '%s': %s", op, dv->label, kk_last_error());
      }
      ptrs[c - first] = (uint64_t)(uintptr_t)kk_view_data(dv->chunks[c]);
    }
    st = kk_space_copy(dv->space, (uint64_t *)kk_view_data(dv->table) + first, NULL, ptrs,
                       (size_t)(need - first) * sizeof *ptrs, NULL);
    free(ptrs);
    if (st != KK_OK) {
      for (int64_t k = first; k < need; k++) {
        kk_view_release(dv->chunks[k]);
        dv->chunks[k] = NULL;
      }
      return kkc_err(st, "%s: '%s': %s", op, dv->label, kk_last_error());
    }
    dv->nchunks = need;
  } else {
    /* kernels that still read the chunks to be freed must be done */
    if (need < dv->nchunks && (st = kk_fence()) != KK_OK)
      return st;
    for (int64_t c = need; c < dv->nchunks; c++) {
      kk_view_release(dv->chunks[c]);
      dv->chunks[c] = NULL;
    }
    dv->nchunks = need;
  }
  dv->extent = n;
  return KK_OK;
}

kk_dynamic_view kk_dynamic_view_bind(kk_dynamic_view_t *dv) {
  kk_dynamic_view d;
  memset(&d, 0, sizeof d);
  if (!dv) {
    kkc_err(KK_ERROR_INVALID_ARGUMENT, "kk_dynamic_view_bind: the DynamicView is NULL");
    return d;
  }
  d.d.data = kk_view_data(dv->table);
  for (int k = 0; k < KK_MAX_RANK; k++)
    d.d.extent[k] = 1;
  d.d.extent[0] = dv->extent;
  d.d.stride[0] = 1;
  d.d.rank = 1;
  d.d.layout = KK_LAYOUT_RIGHT;
  d.d.elem_size = (uint32_t)dv->elem;
  d.d.type = (uint32_t)dv->type;
  d.shift = dv->shift;
  return d;
}

int64_t kk_dynamic_view_extent(const kk_dynamic_view_t *dv) { return dv ? dv->extent : 0; }
int64_t kk_dynamic_view_allocation_extent(const kk_dynamic_view_t *dv) { return dv ? dv->nchunks * dv->chunk : 0; }
int64_t kk_dynamic_view_chunk_size(const kk_dynamic_view_t *dv) { return dv ? dv->chunk : 0; }
int64_t kk_dynamic_view_max_extent(const kk_dynamic_view_t *dv) { return dv ? dv->max_extent : 0; }

/* to_view 1: chunks -> v; 0: v -> chunks */
static kk_status_t copy(const char *op, kk_dynamic_view_t *dv, kk_view_t *v, int to_view) {
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!dv || !v)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  if (kk_view_rank(v) != 1 || kk_view_extent(v, 0) != dv->extent || kk_view_elem_size(v) != dv->elem ||
      (dv->extent > 1 && kk_view_stride(v, 0) != 1))
    return kkc_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: view '%s' must be a contiguous rank-1 view of %lld elements of %zu bytes, as DynamicView '%s'",
                   op, kk_view_label(v), (long long)dv->extent, dv->elem, dv->label);
  /* the kernels that write either side must be done */
  if ((st = kk_fence()) != KK_OK)
    return st;
  for (int64_t c = 0; c * dv->chunk < dv->extent; c++) {
    const int64_t n = dv->extent - c * dv->chunk < dv->chunk ? dv->extent - c * dv->chunk : dv->chunk;
    char *vp = (char *)kk_view_data(v) + (size_t)(c * dv->chunk) * dv->elem;
    void *cp = kk_view_data(dv->chunks[c]);
    st = to_view ? kk_space_copy(kk_view_space(v), vp, dv->space, cp, (size_t)n * dv->elem, NULL)
                 : kk_space_copy(dv->space, cp, kk_view_space(v), vp, (size_t)n * dv->elem, NULL);
    if (st != KK_OK)
      return kkc_err(st, "%s: '%s': %s", op, dv->label, kk_last_error());
  }
  return KK_OK;
}

kk_status_t kk_dynamic_view_copy_to(kk_view_t *dst, kk_dynamic_view_t *src) {
  return copy("kk_dynamic_view_copy_to", src, dst, 1);
}

kk_status_t kk_dynamic_view_copy_from(kk_dynamic_view_t *dst, kk_view_t *src) {
  return copy("kk_dynamic_view_copy_from", dst, src, 0);
}
