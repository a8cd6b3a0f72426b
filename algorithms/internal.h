/* algorithms/internal.h -- what libkk-algorithms' host files share: call contexts, checks, temporary views, launches. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKA_INTERNAL_H
#define KKA_INTERNAL_H

#include <stdint.h>

#include <kk/algorithms.h>

#include "args.h"

#if defined(__GNUC__)
#define KKA_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define KKA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define KKA_PRINTF(a, b)
#define KKA_UNLIKELY(x) (x)
#endif

/* A caller's workspace: temporaries are carved from it while they fit. */
typedef struct kka_ws {
  char *base;
  size_t size, used;
} kka_ws_t;

/* One call: the routine's name and where it runs. */
typedef struct kka_call {
  const char *op;
  kk_instance_t *inst;
  int host;          /* the instance's backend runs on the host (host kernels) */
  kk_space_t *space; /* the default space of the instance's backend: temporaries go there */
  kka_ws_t *ws;      /* NULL, or the caller's workspace */
} kka_call_t;

/* Records an error (kk_set_error) and returns its status. */
kk_status_t kka_err(kk_status_t st, const char *fmt, ...) KKA_PRINTF(2, 3);

/* Starts a call: kk must be initialized; views[0..n) must be non-NULL
 * (names[i] names them in messages); the instance is `inst` or, when NULL,
 * the default instance of the backend owning views[0]'s space (n > 0) or the
 * default instance (n == 0); every view must be reachable by the instance's
 * backend. */
kk_status_t kka_begin(kka_call_t *c, const char *op, kk_instance_t *inst, int n, kk_view_t *const *views,
                      const char *const *names);

/* A handle of the library (a random pool, a binsort) records the
 * initialization it was made in (kk_initialization_id); kka_live refuses it
 * with KK_ERROR_NOT_INITIALIZED when kk is not initialized or the handle
 * comes from an earlier initialization ("<op>: <what><label> was made before
 * kk_finalize ..."), as kk refuses its own handles.  One compare when live. */
kk_status_t kka_live(const char *op, uint64_t init_id, const char *what, const char *label);
static inline int kka_is_live(uint64_t init_id) { return init_id != 0 && init_id == kk_initialization_id(); }

/* "'label'" of a view for messages (a per-thread buffer, four slots). */
const char *kka_label(const kk_view_t *v);

/* The index of an arithmetic type in the per-type kernel tables
 * (KK_INT8 .. KK_DOUBLE: 0 .. 9), -1 for any other type. */
static inline int kka_tidx(kk_type_t t) { return t >= KK_INT8 && t <= KK_DOUBLE ? (int)t - (int)KK_INT8 : -1; }
static inline int kka_is_float(kk_type_t t) { return t == KK_FLOAT || t == KK_DOUBLE; }
static inline int kka_is_signed(kk_type_t t) {
  return t == KK_INT8 || t == KK_INT16 || t == KK_INT32 || t == KK_INT64 || kka_is_float(t);
}
static inline size_t kka_tsize(kk_type_t t) {
  static const size_t sz[10] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  return kka_tidx(t) >= 0 ? sz[kka_tidx(t)] : 0;
}

/* Checks: rank exactly `rank`; an arithmetic element type; the same element
 * type as another view; extent 0 at least / exactly `n`. */
kk_status_t kka_check_rank(const kka_call_t *c, const kk_view_t *v, const char *name, int rank);
kk_status_t kka_check_arith(const kka_call_t *c, const kk_view_t *v, const char *name);
kk_status_t kka_check_same_type(const kka_call_t *c, const kk_view_t *a, const char *an, const kk_view_t *b,
                                const char *bn);
kk_status_t kka_check_len(const kka_call_t *c, const kk_view_t *v, const char *name, int64_t n, int at_least,
                          const char *what);
/* A pointer argument that must not be NULL. */
kk_status_t kka_check_ptr(const kka_call_t *c, const void *p, const char *name);

/* ---- descriptors ---------------------------------------------------------------- */

/* The strided descriptor of a view (any layout, any rank). */
static inline kk_view_strided kka_desc(kk_view_t *v) { return kk_view_bind_strided(v); }
/* A rank-1 descriptor of elements [b, b + n) of a rank-1 view. */
kk_view_strided kka_desc_range(kk_view_t *v, int64_t b, int64_t n);
/* A rank-1 descriptor over n contiguous elements of elem_size bytes at p. */
kk_view_strided kka_desc_raw(void *p, int64_t n, uint32_t elem_size, kk_type_t type);
/* Is the descriptor's rank-1 range contiguous (stride 1 or at most one element)? */
static inline int kka_unit(const kk_view_strided *d) { return d->d.stride[0] == 1 || d->d.extent[0] <= 1; }

/* ---- temporaries ---------------------------------------------------------------- */

/* A temporary of `bytes` in the call's space (NULL with the error
 * recorded): from the call's workspace while it has room, else allocated.
 * kka_tmp_free frees an allocated one after the instance's queued work (a
 * fence first, on backends that queue); one from the workspace stays. */
void *kka_tmp(const kka_call_t *c, const char *what, size_t bytes);
void kka_tmp_free(const kka_call_t *c, void *p);

/* Memory that outlives the call (a pool's states, a binsort's buffers): a
 * view of `bytes` in the call's space, held in *hold, its data returned
 * (NULL with the error recorded).  As a view it is freed by kk_finalize when
 * its holder was not destroyed before, and its release after that frees
 * only the record.  kka_keep_free releases it after the instance's queued
 * work (a fence first, on backends that queue) and sets *hold to NULL. */
void *kka_keep(const kka_call_t *c, const char *what, size_t bytes, kk_view_t **hold);
void kka_keep_free(const kka_call_t *c, kk_view_t **hold);
static inline int kka_is_live_view(const kk_view_t *v) { return kk_view_space(v) != NULL; }

/* Copies bytes between the call's space and the host (complete on return). */
kk_status_t kka_to_host(const kka_call_t *c, void *dst, const void *src, size_t bytes);
kk_status_t kka_from_host(const kka_call_t *c, void *dst, const void *src, size_t bytes);
/* Sets `bytes` at p (in the call's space) to zero, ordered on the instance. */
kk_status_t kka_zero(const kka_call_t *c, void *p, size_t bytes);

/* Bytes a temporary takes in a workspace (rounded up to 256). */
static inline size_t kka_ws_round(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

/* ---- launches ------------------------------------------------------------------- */

/* A for-kernel over [0, n) on c->inst (nothing for n <= 0); _chunk1 deals the
 * iterations to the host threads one by one (blocks of a host algorithm). */
kk_status_t kka_for(const kka_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n);
kk_status_t kka_for_blocks(const kka_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n);
kk_status_t kka_reduce(const kka_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n,
                       void *result, size_t result_size);
kk_status_t kka_scan(const kka_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t n, void *total,
                     size_t total_size);
kk_status_t kka_team(const kka_call_t *c, const kk_kernel_t *k, const void *args, size_t size, int64_t league,
                     int32_t team_size, uint64_t scratch0);

/* Threads of the call's host backend (1 for GPU backends), and the
 * concurrency of the instance's device (threads that run at once). */
int kka_host_threads(const kka_call_t *c);
int64_t kka_concurrency(const kka_call_t *c);
/* Level-0 scratch per team the instance's device allows. */
uint64_t kka_scratch_max(const kka_call_t *c);

/* ---- shared pieces ---------------------------------------------------------------- */

/* Copies n elements of elem_size bytes from descriptor src to dst (rank 1,
 * any strides), ordered on c->inst. */
kk_status_t kka_copy(const kka_call_t *c, kk_view_strided dst, kk_view_strided src, int64_t n, uint32_t elem_size);
/* dst[j] = src[perm[j]] for j in [0, n) (perm: int64 indices, contiguous in
 * the call's space); dst and src must not overlap. */
kk_status_t kka_gather(const kka_call_t *c, kk_view_strided dst, kk_view_strided src, const int64_t *perm, int64_t n,
                       uint32_t elem_size);
/* Applies perm to elements [0, n) of `v` (rank 1 descriptor) in place, through
 * a temporary. */
kk_status_t kka_permute(const kka_call_t *c, kk_view_strided v, const int64_t *perm, int64_t n, uint32_t elem_size);

#endif
