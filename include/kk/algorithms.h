/* kk/algorithms.h -- kk-algorithms: random-number pools, sort / sort_by_key / BinSort, and the standard algorithms on views, on every kk backend. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_ALGORITHMS_H
#define KK_ALGORITHMS_H

/*
 * libkk-algorithms is the Kokkos Algorithms role for kk.  Its own kernels are
 * kernel files compiled by kkcc for every target (host, CUDA, HIP, SPIR-V),
 * so every routine runs on every backend.  The parts that run inside a
 * user's kernels are kernel-language headers: <kk/random.h> (generators),
 * <kk/sort.h> (team and thread sorts, comparators) and <kk/std_algorithms.h>
 * (predicates and transforms for the algorithms below).
 * docs/algorithms.md is the reference.
 *
 * Link with `pkg-config --libs kk-algorithms` (-lkk-algorithms -lkk -lm).  kk
 * must be initialized (kk_initialize) before any call below except
 * kk_algorithms_version().
 *
 * Conventions shared by every routine:
 *
 * - Views.  The algorithms work on rank-1 views of any layout (right, left,
 *   strided: a subview with gaps works as is); fill_random, fill and iota
 *   also take views of any rank (in index order, the last index fastest).
 *   Arithmetic element types: KK_INT8 .. KK_UINT64, KK_FLOAT, KK_DOUBLE.
 *   Where two views meet (keys and values, source and destination) their
 *   lengths must match as the routine says.
 * - Where a call runs.  `instance` NULL: on the backend that owns the first
 *   view's memory space (its default instance: kk_instance_default() for the
 *   default backend, kk_instance_host() for the host backend).  Given: on
 *   that instance, which must be able to read every view.
 * - Ordering.  Routines without a result for the host (fills, sorts,
 *   scans, copies) return when the work is queued, like kk_parallel_for;
 *   those that return a value or a count to the host are synchronous.
 *   Calls on one instance run in order.
 * - Errors.  Every routine checks ranks, extents, element types and spaces
 *   before anything runs and refuses a bad call with
 *   KK_ERROR_INVALID_ARGUMENT (a wrong rank, extent or type, mismatched
 *   views, a NULL argument) or KK_ERROR_UNSUPPORTED (a view the instance's
 *   backend cannot reach); kk_last_error() names the routine, the views'
 *   labels and what is wrong.  A refused call changes nothing.
 * - Workspace.  Sorts, BinSort and the algorithms that compact allocate
 *   their temporary memory in the instance's space for the call (freed
 *   before a synchronous call returns, after the queued work otherwise);
 *   KK_ERROR_OUT_OF_MEMORY names it.
 * - Thread safety: any routine may be called from several threads at once;
 *   a random pool is used by one kernel launch at a time per slot (the
 *   slots' locks make concurrent launches safe, not reproducible).
 */

#include <kk.h>
#include <kk/random.h>
#include <kk/sort.h>
#include <kk/std_algorithms.h>

/* A header shared with a kernel file may include this one: a device compile
 * of that file sees the kernel-language parts above, not the host API. */
#if !(defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || defined(KK_TARGET_SPIRV) || defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__) || defined(__OPENCL_VERSION__) || defined(__OPENCL_CPP_VERSION__))

#ifdef __cplusplus
extern "C" {
#endif

/* The library version ("0.1.0"). */
const char *kk_algorithms_version(void);

/* ===========================================================================
 * Random-number pools (docs/algorithms.md, "Random numbers")
 *
 * A pool holds one generator state per slot in the memory of one backend;
 * kernels acquire a slot's state, draw from it and release it
 * (<kk/random.h>).  Every state comes from the one 64-bit seed: the same
 * seed and number of slots give every slot the same sequence on every
 * backend.
 * ======================================================================== */
/* A pool of random-number states (opaque). */
typedef struct kk_random_pool_obj kk_random_pool_t;

/* Creates a pool of `kind` with `num_states` slots (0: the concurrency of the
 * instance's device -- its thread count on host backends, the threads it
 * keeps resident on GPUs) in the default space of the instance's backend
 * (`instance` NULL: the default instance), seeded from `seed`.  The states
 * are ready when the call returns.  KK_ERROR_INVALID_ARGUMENT for an unknown
 * kind or a negative num_states.  Thread-safe. */
kk_status_t kk_random_pool_create(kk_instance_t *instance, kk_random_kind_t kind, uint64_t seed, int64_t num_states,
                                  kk_random_pool_t **out);

/* Fences the pool's instance and frees the pool.  NULL is ignored.
 *
 * A pool belongs to the initialization it was made in: after kk_finalize
 * (also after a new kk_initialize) every call with it returns
 * KK_ERROR_NOT_INITIALIZED and touches nothing, the queries below answer as
 * for NULL, the binders give an empty descriptor; destroying it stays safe
 * (kk_finalize already freed its device memory). */
void kk_random_pool_destroy(kk_random_pool_t *pool);

/* Sets every slot's state from `seed` again (as kk_random_pool_create did),
 * ordered on the pool's instance. */
kk_status_t kk_random_pool_reseed(kk_random_pool_t *pool, uint64_t seed);

/* The pool's kind, number of slots and instance. */
kk_random_kind_t kk_random_pool_kind(const kk_random_pool_t *pool);
int64_t kk_random_pool_size(const kk_random_pool_t *pool);
kk_instance_t *kk_random_pool_instance(const kk_random_pool_t *pool);

/* The descriptor for a kernel argument, one binder per kind.  A pool of
 * another kind gives an empty descriptor (its acquires fail: slot -1, a fixed
 * state that is never written back) and kk_last_error() says why; check the
 * kind where the pool comes from elsewhere. */
kk_random_xorshift64_pool kk_random_bind_xorshift64(kk_random_pool_t *pool);
kk_random_xorshift1024_pool kk_random_bind_xorshift1024(kk_random_pool_t *pool);
kk_random_philox_pool kk_random_bind_philox(kk_random_pool_t *pool);

/* Fills `view` (any rank and layout, any arithmetic type) with uniform
 * numbers in [begin, end): doubles and floats as drawn, integers as the
 * integers in that range (begin rounded up; both within the type).  begin ==
 * end == 0 means the whole type: every bit pattern of an integer type, [0, 1)
 * for floating point.  xorshift pools: each slot fills its own part of the
 * view from its state and advances it, one launch for all slots (host
 * backends: slot s the s-th contiguous block, GPUs: every num_states-th
 * element from s), so the result depends on the seed, the pool size, the
 * backend kind (host or GPU) and the earlier draws.  Philox pools: element i
 * comes from counter block (offset + i / k) of the pool's fill stream (k
 * elements per block), and the pool's fill offset advances: the result
 * depends on the seed and the earlier fills only, on every backend.  Runs on
 * the pool's instance (`instance` must be NULL or it).  KK_ERROR_INVALID_ARGUMENT
 * for an empty or inverted range or one outside the type. */
kk_status_t kk_fill_random(kk_instance_t *instance, kk_view_t *view, kk_random_pool_t *pool, double begin,
                           double end);

/* As kk_fill_random with normal numbers of mean `mean` and standard
 * deviation `stddev` (Box-Muller), on float and double views. */
kk_status_t kk_fill_random_normal(kk_instance_t *instance, kk_view_t *view, kk_random_pool_t *pool, double mean,
                                  double stddev);

/* ===========================================================================
 * Sorting (docs/algorithms.md, "Sorting")
 *
 * kk_sort sorts a rank-1 view of any arithmetic type in ascending order with
 * a radix sort (LSD, 8-bit digits: per-thread blocks on host backends, a
 * one-sweep kernel with decoupled look-back on GPUs); it is stable, so equal
 * keys keep their order.  Floating point: -0.0 before +0.0, NaNs last (in
 * their original order).  A comparator written in a kernel file
 * (KK_COMPARATOR, <kk/sort.h>) sorts any element type with a stable merge
 * sort instead.
 * ======================================================================== */

/* Options of the sorts: comparator, descending order, instance, scratch.
 * Start from KK_SORT_OPTIONS_INIT. */
typedef struct kk_sort_options {
  size_t struct_size;                  /* sizeof(kk_sort_options_t), set by KK_SORT_OPTIONS_INIT */
  int64_t begin, end;                  /* sort elements [begin, end) of extent 0; end -1: to the end */
  int descending;                      /* 1: largest first (still stable; NaNs still last) */
  const kk_comparator_t *comparator;   /* NULL: by value; else KK_COMPARATOR_REF(name) (any element type) */
  kk_view_t *workspace;                /* NULL, or a contiguous view in the instance's space whose memory the
                                          sort uses for its temporaries while they fit (see below) */
} kk_sort_options_t;
/* The initializer of a kk_sort_options_t: the whole view, ascending, by value. */
#define KK_SORT_OPTIONS_INIT { sizeof(kk_sort_options_t), 0, -1, 0, NULL, NULL }

/* The bytes of workspace that a sort of n keys of key_size bytes (values
 * of value_size bytes, 0: none) on `instance` (NULL: the default instance)
 * takes at most, by value or with a comparator.  A sort given that much (kk_sort_options_t.workspace: any
 * element type, contiguous, in the instance's space) allocates nothing and
 * returns when its work is queued; without it, each sort allocates its
 * temporaries and frees them after a fence of the instance (on GPUs an
 * allocation, a free and a wait per call).  A workspace serves one sort at
 * a time: two sorts on different instances must not share one. */
size_t kk_sort_workspace_bytes(kk_instance_t *instance, int64_t n, size_t key_size, size_t value_size);

/* Sorts `keys` ascending.  Asynchronous. */
kk_status_t kk_sort(kk_instance_t *instance, kk_view_t *keys);
/* The same: kk_sort is stable; this name says so where it matters. */
kk_status_t kk_sort_stable(kk_instance_t *instance, kk_view_t *keys);
/* Sorts `keys` and applies the same permutation to `values` (rank 1, any
 * element type including KK_TYPE_CUSTOM, extent 0 at least the keys'). */
kk_status_t kk_sort_by_key(kk_instance_t *instance, kk_view_t *keys, kk_view_t *values);
/* Either of the above with options (values may be NULL); NULL options: the
 * defaults.  KK_ERROR_INVALID_ARGUMENT for a range outside the view, a
 * comparator of another element size, a non-arithmetic key type without a
 * comparator. */
kk_status_t kk_sort_ex(kk_instance_t *instance, kk_view_t *keys, kk_view_t *values, const kk_sort_options_t *options);

/* ===========================================================================
 * BinSort (docs/algorithms.md, "BinSort")
 *
 * Kokkos' BinSort: keys are mapped to uniform bins over [min, max) (1-D: a
 * rank-1 key view; 3-D: a rank-2 view of n x 3 coordinates, the bin index
 * x-fastest: b = bx + nx (by + ny bz)), and the binsort gives the bin counts,
 * their offsets (an exclusive scan) and a permutation that lists the keys
 * bin by bin: perm[offset[b] .. offset[b] + count[b]) are the indices of the
 * keys of bin b.  kk_binsort_apply then reorders any view by it.  Keys
 * outside [min, max) go to the first or last bin along that axis.  Host
 * backends list each bin's keys in their original order; GPUs in the order
 * their atomics ran, unless KK_BINSORT_STABLE asks for the original order
 * there too (one more pass: each bin's indices sorted).
 * ======================================================================== */
/* A BinSort: keys binned, with the permutation that sorts by bin (opaque). */
typedef struct kk_binsort kk_binsort_t;

enum {
  KK_BINSORT_STABLE = 1u << 0  /* each bin's keys in their original order on every backend */
};

/* 1-D bins: `nbins` bins over [min, max) of the rank-1 arithmetic view
 * `keys` (min == max: the keys' own minimum and maximum, the maximum in the
 * last bin).  Computes counts, offsets and the permutation before it returns
 * (synchronous), and keeps what kk_binsort_update and kk_binsort_apply
 * reuse (about 12 bytes per key and 8 per bin and thread, plus the largest
 * view applied).  KK_ERROR_INVALID_ARGUMENT for nbins < 1, max < min, a wrong
 * rank or type. */
kk_status_t kk_binsort_create_1d(kk_instance_t *instance, kk_view_t *keys, int64_t nbins, double min, double max,
                                 unsigned flags, kk_binsort_t **out);
/* 3-D bins: nbins[0] x nbins[1] x nbins[2] bins over the box [min, max) of
 * the n x 3 float or double view `keys` (any layout); min == max on an axis:
 * the keys' own range on it. */
kk_status_t kk_binsort_create_3d(kk_instance_t *instance, kk_view_t *keys, const int64_t nbins[3],
                                 const double min[3], const double max[3], unsigned flags, kk_binsort_t **out);

/* Computes the counts, offsets and permutation again from the current
 * contents of the keys view given at creation (retained by the binsort),
 * with the same bins (an automatic range is taken from the keys again):
 * a time step's particles binned again without new allocations.
 * Asynchronous on GPUs (except an automatic range's reductions). */
kk_status_t kk_binsort_update(kk_binsort_t *bs);

/* The binsort's views, in the instance's space, owned by the binsort (retain
 * one to keep it longer): counts (KK_INT64, one per bin), offsets (KK_INT64,
 * one per bin and one more: the total), permutation (KK_INT64, one per key). */
kk_view_t *kk_binsort_counts(const kk_binsort_t *bs);
kk_view_t *kk_binsort_offsets(const kk_binsort_t *bs);
kk_view_t *kk_binsort_permutation(const kk_binsort_t *bs);
int64_t kk_binsort_bins(const kk_binsort_t *bs);

/* Reorders elements [begin, begin + n) along extent 0 of `view` (any rank up
 * to 3, any layout and element type; n the number of keys) so that element
 * begin + j becomes the old element begin + perm[j]: Kokkos'
 * BinSort::sort(view, begin, end) with end = begin + n.  Asynchronous, on
 * the binsort's instance.  KK_ERROR_INVALID_ARGUMENT when extent 0 is shorter
 * than begin + n. */
kk_status_t kk_binsort_apply(kk_binsort_t *bs, kk_view_t *view, int64_t begin);

/* Frees the binsort (after its instance's queued work).  NULL is ignored.
 * A binsort from before kk_finalize is refused as a pool is
 * (KK_ERROR_NOT_INITIALIZED; its views NULL, its bins 0) and destroying it
 * stays safe. */
void kk_binsort_destroy(kk_binsort_t *bs);

/* ===========================================================================
 * Standard algorithms on views (docs/algorithms.md, "Standard algorithms")
 *
 * Kokkos' std algorithms on rank-1 views of any layout.  Predicates and
 * transforms are either kk's built-in ones (comparisons with a value) or
 * written in a kernel file with KK_PREDICATE / KK_TRANSFORM
 * (<kk/std_algorithms.h>) and passed by their descriptors.  Results for the
 * host (indices, counts, flags, values) are synchronous; the others queue
 * their work.
 * ======================================================================== */

/* A predicate for find_if, count_if, all/any/none_of, copy_if, remove_if:
 * built with kk_pred_cmp() or kk_pred_custom(), passed by value.  `value`
 * and `params` are read when the algorithm is called. */
typedef enum kk_cmp {
  KK_CMP_LT = 0,  /* x < value */
  KK_CMP_LE = 1,  /* x <= value */
  KK_CMP_GT = 2,  /* x > value */
  KK_CMP_GE = 3,  /* x >= value */
  KK_CMP_EQ = 4,  /* x == value */
  KK_CMP_NE = 5,  /* x != value */
  KK__CMP_PIN = 0x7fffffff
} kk_cmp_t;

/* A predicate of the standard algorithms: a comparison with a value
 * (kk_pred_cmp) or a custom predicate of a kernel file (kk_pred_custom). */
typedef struct kk_pred {
  const kk_predicate_t *custom;  /* NULL: the comparison cmp with *value */
  kk_cmp_t cmp;
  const void *value;             /* one element of the view's type */
  const void *params;            /* custom: the predicate's parameter struct */
  size_t params_size;            /* custom: sizeof that struct */
} kk_pred_t;

/* x `cmp` *value, value pointing to one element of the view's type. */
static inline kk_pred_t kk_pred_cmp(kk_cmp_t cmp, const void *value) {
  kk_pred_t p = {NULL, cmp, value, NULL, 0};
  return p;
}
/* A KK_PREDICATE of a kernel file with its parameters (params may be NULL
 * for a predicate whose parameter type is kk_no_params). */
static inline kk_pred_t kk_pred_custom(const kk_predicate_t *pred, const void *params, size_t params_size) {
  kk_pred_t p = {pred, KK_CMP_LT, NULL, params, params_size};
  return p;
}

/* The index of the first smallest / first largest element, or -1 for an
 * empty view (NaNs are never a minimum or maximum unless every element is
 * NaN: then index 0).  minmax: the first smallest and the LAST largest, as
 * std::minmax_element. */
kk_status_t kk_min_element(kk_instance_t *instance, kk_view_t *view, int64_t *index);
kk_status_t kk_max_element(kk_instance_t *instance, kk_view_t *view, int64_t *index);
kk_status_t kk_minmax_element(kk_instance_t *instance, kk_view_t *view, int64_t *min_index, int64_t *max_index);

/* The index of the first element for which the predicate holds, or the
 * view's extent when none does (std's end). */
kk_status_t kk_find_if(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int64_t *index);
/* How many elements satisfy the predicate. */
kk_status_t kk_count_if(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int64_t *count);
/* 1 or 0 in *result (all_of and none_of are 1 on an empty view). */
kk_status_t kk_all_of(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int *result);
kk_status_t kk_any_of(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int *result);
kk_status_t kk_none_of(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int *result);

/* Stream compaction: copies the elements of src that satisfy the predicate,
 * in order, to the start of dst (same element type; must not overlap src)
 * and gives their number in *count.  When dst is shorter than that, the
 * first extent(dst) are written and the call fails with
 * KK_ERROR_INVALID_ARGUMENT after the fact, saying how many there were. */
kk_status_t kk_copy_if(kk_instance_t *instance, kk_view_t *src, kk_view_t *dst, kk_pred_t pred, int64_t *count);
/* Removes the elements that satisfy the predicate, keeping the order of the
 * others, which end up in [0, *new_size); the elements past it are left
 * unspecified (std::remove_if). */
kk_status_t kk_remove_if(kk_instance_t *instance, kk_view_t *view, kk_pred_t pred, int64_t *new_size);
/* Removes consecutive equal elements (==, so NaNs are never merged), keeping
 * the first of each run, in [0, *new_size). */
kk_status_t kk_unique(kk_instance_t *instance, kk_view_t *view, int64_t *new_size);

/* Reduces the view with `op` (KK_SUM, KK_PROD, KK_MIN, KK_MAX, KK_LAND,
 * KK_LOR; KK_BAND and KK_BOR on integer views) into *result, one element of
 * the view's type (the identity for an empty view). */
kk_status_t kk_reduce(kk_instance_t *instance, kk_view_t *view, kk_reducer_op_t op, void *result);
/* Reduces f(x[i]) (f a KK_TRANSFORM; view2 NULL) or f(x[i], y[i]) (a
 * KK_TRANSFORM2; view2 of the same length) with op (KK_SUM, KK_PROD, KK_MIN,
 * KK_MAX) into *result, one value of the transform's result type. */
kk_status_t kk_transform_reduce(kk_instance_t *instance, kk_view_t *view, kk_view_t *view2,
                                const kk_transform_t *transform, const void *params, size_t params_size,
                                kk_reducer_op_t op, void *result);
/* dst[i] = f(src[i]) (or f(src[i], src2[i])); dst of the transform's result
 * type and the same length.  dst may be src when the types match. */
kk_status_t kk_transform(kk_instance_t *instance, kk_view_t *src, kk_view_t *src2, kk_view_t *dst,
                         const kk_transform_t *transform, const void *params, size_t params_size);

/* Prefix sums: dst[i] = src[0] + ... + src[i] (inclusive), or init + src[0]
 * + ... + src[i-1] (exclusive; init one element of the type, NULL: 0).  dst
 * of the same type and length; dst may be src (in place). */
kk_status_t kk_inclusive_scan(kk_instance_t *instance, kk_view_t *src, kk_view_t *dst);
kk_status_t kk_exclusive_scan(kk_instance_t *instance, kk_view_t *src, kk_view_t *dst, const void *init);
/* dst[0] = src[0], dst[i] = src[i] - src[i-1]; dst may be src. */
kk_status_t kk_adjacent_difference(kk_instance_t *instance, kk_view_t *src, kk_view_t *dst);
/* 1 when view[i] <= view[i+1] for every i (no element less than the one
 * before it: NaNs compare false, so they never break it), else 0. */
kk_status_t kk_is_sorted(kk_instance_t *instance, kk_view_t *view, int *result);

/* Sets every element (any rank) to *value; to start, start + 1, ... in index
 * order (iota, any rank, arithmetic types: *start one element of the type). */
kk_status_t kk_fill(kk_instance_t *instance, kk_view_t *view, const void *value);
kk_status_t kk_iota(kk_instance_t *instance, kk_view_t *view, const void *start);
/* Reverses the view; rotates it so that element `middle` comes first
 * (0 <= middle <= extent; std::rotate).  Any element type.  In place. */
kk_status_t kk_reverse(kk_instance_t *instance, kk_view_t *view);
kk_status_t kk_rotate(kk_instance_t *instance, kk_view_t *view, int64_t middle);

#ifdef __cplusplus
}
#endif

#endif /* not a device compile */
#endif /* KK_ALGORITHMS_H */
