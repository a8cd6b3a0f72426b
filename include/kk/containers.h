/* kk/containers.h -- kk-containers: DualView, UnorderedMap, Bitset, UniqueToken, DynamicView and OffsetView (the Kokkos Containers role). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CONTAINERS_H
#define KK_CONTAINERS_H

/*
 * libkk-containers gives kk programs the data structures of Kokkos
 * Containers, in C, on every backend.  This header has two parts:
 *
 * - the descriptors kernels receive (kk_unordered_map, kk_bitset,
 *   kk_unique_token, kk_dynamic_view, kk_offset_view...), plain structs like
 *   kk_view: put them in a kernel's argument struct, in the header shared by
 *   host code and the kernel file;
 * - the host API that creates, sizes, copies and queries the containers
 *   (below, not seen by the GPU runtime compilers).
 *
 * What kernels do with the descriptors is in the kernel-language headers,
 * included by kernel files after <kk/kernel.h>: <kk/unordered_map.h>,
 * <kk/bitset.h>, <kk/unique_token.h>, <kk/dynamic_view.h>,
 * <kk/offset_view.h>.  DualView has no kernel part: kernels take its views.
 * docs/containers.md is the guide.
 *
 * Link with `pkg-config --libs kk-containers` (-lkk-containers -lkk), or
 * CMake's kk::containers (find_package(kk COMPONENTS containers)).
 *
 * Conventions shared by every function below:
 * - kk must be initialized, except for kk_containers_version().  A container
 *   must not outlive kk_finalize (its memory goes with it): release it first.
 * - Handles (kk_dualview_t *, kk_unordered_map_t *, ...) are opaque and
 *   owned by the caller until released.  Functions return KK_OK or an error
 *   status, with kk_last_error() naming the function, the container's label
 *   and what was wrong; a refused call changes nothing.
 * - Where work runs.  Operations that launch kernels (UnorderedMap rehash,
 *   size, clear; Bitset count...) run on the backend that owns the
 *   container's memory space (its default instance), and are complete when
 *   they return unless they say otherwise.  Before the host reads or resizes
 *   a container that kernels may still be writing, fence.
 * - Thread safety: distinct containers are independent; one container is
 *   changed by one host thread at a time (kernels may use it concurrently as
 *   each container says).
 */

/* kk.h: the kernel-argument types everywhere, KK_DECLARE_KERNEL for shared
 * headers, and on the host the whole of libkk's API */
#include <kk.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===========================================================================
 * Descriptors (kernel arguments)
 * ======================================================================== */

/* The state the reserved slots and the failure count of an UnorderedMap
 * live in (device memory; kernels reach it through the descriptor). */
typedef struct kk_umap_ctl {
  uint64_t failed;          /* inserts that found no room since the last clear or rehash */
  uint32_t reserved[2];     /* the reserved slots: 0 empty, 1 being written, 2 full */
  uint32_t misuse;          /* nonzero: a kernel used the map with a key of this many bytes, not key_size */
  uint32_t pad;
} kk_umap_ctl;

/* An UnorderedMap as a kernel sees it (kk_unordered_map_bind).  Open
 * addressing with linear probing: a key's home slot is in [0, hashed); an
 * insert looks at up to max_probe slots from there, straight on into a tail
 * of max_probe slots past the hashed ones (no wrapping around), the last of
 * which is never written, so that a find ends at an empty slot.  `keys` and
 * `values` are views of `capacity` slots each (KK_UMAP_KEY_AT /
 * KK_UMAP_VALUE_AT read them, bounds checked under kkcc --bounds-check).
 * Keys of 4 or 8 bytes live in their slot alone: all-one bits mark an empty
 * slot, all-ones-but-the-last a slot being written, and the two keys with
 * those bits have two reserved slots after the tail.  Keys of other sizes
 * have a tag per slot. */
typedef struct kk_unordered_map {
  kk_view_right keys;       /* capacity slots of key_size bytes */
  kk_view_right values;     /* capacity slots of value_size bytes; empty for a set */
  uint32_t *tags;           /* keys of other sizes than 4 and 8: 0 empty, 1 being written, else full; else NULL */
  kk_umap_ctl *ctl;
  uint64_t hashed;          /* home slots: [0, hashed) */
  uint64_t capacity;        /* slots in all: hashed + max_probe (+ 2 reserved for 4/8-byte keys) */
  uint32_t key_size, value_size;
  uint32_t max_probe;       /* slots an insert looks at from the home slot before it reports the map full */
  uint32_t reserved_;
} kk_unordered_map;

/* What an insert in a kernel reports (KK_UMAP_INSERT and friends). */
enum {
  KK_UMAP_FAILED = 0,    /* no room within the map's probe limit: rehash to a larger capacity and retry */
  KK_UMAP_SUCCESS = 1,   /* the key was not there and is now, at .index */
  KK_UMAP_EXISTING = 2   /* the key was there already, at .index (its value unchanged) */
};
/* What an insert into an UnorderedMap returns in a kernel: the slot and a
 * KK_UMAP_* status. */
typedef struct kk_umap_insert_result {
  int64_t index;         /* the key's slot, or -1 when the insert failed */
  int32_t status;        /* KK_UMAP_SUCCESS, KK_UMAP_EXISTING or KK_UMAP_FAILED */
  int32_t reserved_;
} kk_umap_insert_result;

/* "not found" from KK_UMAP_FIND, and "none" from KK_BITSET_FIND_ANY_*_NEAR. */
#define KK_INVALID_INDEX ((int64_t)-1)

/* A Bitset as a kernel sees it: `size` bits in 32-bit words, bit i in word
 * i / 32 at position i % 32. */
typedef struct kk_bitset {
  uint32_t *words;
  int64_t size;
  int64_t nwords;
} kk_bitset;

/* A UniqueToken as a kernel sees it: `size` ids, taken with an atomic
 * bitset (`nwords` words of 32 bits, `stride` words apart: on host backends
 * each word has a cache line of its own).  Id (w + nwords * b) is bit b of
 * word w. */
typedef struct kk_unique_token {
  uint32_t *bits;
  int32_t size;
  int32_t nwords;
  int32_t stride;
  int32_t direct;  /* instance scope: host threads may take their thread number, without atomics */
} kk_unique_token;

/* A DynamicView as a kernel sees it (KK_DYN_AT): a rank-1 view whose
 * elements live in chunks of 2^shift; d.data is the table of chunk
 * pointers, d.extent[0] the current extent (KK_EXTENT(dv, 0)). */
typedef struct kk_dynamic_view {
  kk_view_desc_t d;
  char kk__tag[2];  /* a right-layout rank-1 descriptor for the bounds check */
  int32_t shift;
} kk_dynamic_view;

/* An OffsetView as a kernel sees it (KK_OFFSET_AT): a view descriptor of
 * the layout the type names (as kk_view, kk_view_right, kk_view_left,
 * kk_view_strided) and the first index of every dimension. */
typedef struct kk_offset_view { kk_view_desc_t d; char kk__tag[1]; int64_t begin[KK_MAX_RANK]; } kk_offset_view;
/* An OffsetView parameter of layout right. */
typedef struct kk_offset_view_right { kk_view_desc_t d; char kk__tag[2]; int64_t begin[KK_MAX_RANK]; } kk_offset_view_right;
/* An OffsetView parameter of layout left. */
typedef struct kk_offset_view_left { kk_view_desc_t d; char kk__tag[3]; int64_t begin[KK_MAX_RANK]; } kk_offset_view_left;
/* An OffsetView parameter of any strides. */
typedef struct kk_offset_view_strided { kk_view_desc_t d; char kk__tag[4]; int64_t begin[KK_MAX_RANK]; } kk_offset_view_strided;

#ifdef __cplusplus
}
#endif

#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__) && !defined(__OPENCL_VERSION__) && \
    !defined(__OPENCL_CPP_VERSION__)
/* ===========================================================================
 * The host API (not seen by GPU runtime compilers)
 * ======================================================================== */

#ifdef __cplusplus
extern "C" {
#endif

/* The version of libkk-containers the program runs with ("0.1.0").  Any time. */
const char *kk_containers_version(void);

/* What kk-info prints for libkk-containers: its version, containers and the
 * targets its kernels were built for -- text, or one JSON object
 * ({"version": ..., "containers": [...], "kernel_targets": "host,cuda,..."}).
 * Any time. */
kk_status_t kk_containers_print_report(FILE *out, int json);

/* ===========================================================================
 * DualView (docs/containers.md, "DualView")
 *
 * Two views of one shape: one in a device space, one host-accessible.  When
 * the device space is host-accessible (every host backend, CudaUVM, ...)
 * they are one view -- one allocation, and a sync copies nothing -- as
 * Kokkos' DualView is when its spaces coincide.  Each side has a modified
 * count; a sync copies only when the other side was modified since the
 * last sync, exactly as Kokkos' DualView decides (modify marks a side newer
 * than the other; sync copies the newer side over and clears both).
 * Subviews share their parent's flags.
 *
 * With a profiling tool loaded, modify_* and every sync that copies report
 * kokkosp_dual_view_modify / kokkosp_dual_view_sync with the DualView's
 * label and the data of the side concerned (as Kokkos does; a sync that
 * copies nothing because the sides are one view still reports).
 *
 * A DualView handle is checked on every call: a released one (or one that
 * was never created) is refused with KK_ERROR_INVALID_ARGUMENT instead of
 * being read, until its address is reused by a new DualView.
 * ======================================================================== */
/* A DualView: a device view and its host mirror with modify/sync flags (opaque). */
typedef struct kk_dualview kk_dualview_t;

/* Creates a DualView: the device view as kk_view_create(spec) makes it
 * (spec->space NULL: the default space), the host view as
 * kk_view_create_mirror_view makes it -- the device view itself when its
 * space is host-accessible, else a view in the host space of the same
 * extents and layout (a LayoutLeft device view has a LayoutLeft host view:
 * bind it with kk_view_bind_left or _strided in host kernels).  Both start
 * zeroed (or uninitialized with KK_VIEW_NO_INIT) and in sync.  The label is
 * the DualView's.  Thread-safe. */
kk_status_t kk_dualview_create(const kk_view_spec_t *spec, kk_dualview_t **out);

/* A DualView over two existing views of one shape (same rank, extents,
 * element size and layout; the host one host-accessible; they may be the
 * same view).  Both are retained.  They start in sync. */
kk_status_t kk_dualview_create_from(kk_view_t *device, kk_view_t *host, kk_dualview_t **out);

/* A DualView of the elements of `src` that `slices` select (one slice per
 * dimension, as kk_view_subview): both views are subviews, and the modified
 * counts are src's own, so that modifying or syncing either marks both (as
 * Kokkos' subview of a DualView).  A sync of a subview copies only its
 * elements, and then counts the whole of src as in sync -- sync the parent
 * when other elements were modified too. */
kk_status_t kk_dualview_subview(kk_dualview_t *src, const kk_slice_t *slices, kk_dualview_t **out);

/* Reference counting: release frees the handle when the count drops to zero
 * (its views are released; subviews keep what they use).  NULL is ignored.
 * Thread-safe. */
kk_dualview_t *kk_dualview_retain(kk_dualview_t *dv);
void kk_dualview_release(kk_dualview_t *dv);

/* The two sides, borrowed: valid while the DualView lives and until its next
 * resize or realloc (retain them to keep them longer).  NULL for a released
 * DualView. */
kk_view_t *kk_dualview_view_device(const kk_dualview_t *dv);
kk_view_t *kk_dualview_view_host(const kk_dualview_t *dv);

/* The label; 1 when both sides are one view (a sync never copies). */
const char *kk_dualview_label(const kk_dualview_t *dv);
int kk_dualview_is_single(const kk_dualview_t *dv);

/* Marks a side modified (it becomes newer than the other). */
kk_status_t kk_dualview_modify_host(kk_dualview_t *dv);
kk_status_t kk_dualview_modify_device(kk_dualview_t *dv);

/* Brings a side up to date: copies the other side over when that one was
 * modified since the last sync, then counts both in sync; else does
 * nothing.  Complete on return.  _async: the copy is ordered on `instance`
 * (NULL: the instance kk_deep_copy_async would take for the device side's
 * backend -- its default instance) and complete at its next fence; the
 * flags change at once. */
kk_status_t kk_dualview_sync_host(kk_dualview_t *dv);
kk_status_t kk_dualview_sync_device(kk_dualview_t *dv);
kk_status_t kk_dualview_sync_host_async(kk_dualview_t *dv, kk_instance_t *instance);
kk_status_t kk_dualview_sync_device_async(kk_dualview_t *dv, kk_instance_t *instance);

/* 1 when a sync of that side would copy, else 0 (also for a bad handle). */
int kk_dualview_need_sync_host(const kk_dualview_t *dv);
int kk_dualview_need_sync_device(const kk_dualview_t *dv);

/* Forgets the modifications: both sides count as in sync, nothing copied. */
kk_status_t kk_dualview_clear_sync_state(kk_dualview_t *dv);

/* New extents (same rank), keeping contents as Kokkos' DualView::resize
 * does: the side modified last (the device when neither was) is resized
 * with its elements kept (new ones zero), the other reallocated, and the
 * resized side counts as modified, so that the other needs a sync.  A
 * single DualView is resized once.  Subviews of the old views keep the old
 * memory; the views kk_dualview_view_* returned before are released. */
kk_status_t kk_dualview_resize(kk_dualview_t *dv, const int64_t *extents);

/* New extents without contents: both sides reallocated (zero) and in sync. */
kk_status_t kk_dualview_realloc(kk_dualview_t *dv, const int64_t *extents);

/* ===========================================================================
 * UnorderedMap (docs/containers.md, "UnorderedMap")
 *
 * An open-addressing hash map (linear probing) made on the host with a
 * capacity, filled and read by kernels (<kk/unordered_map.h>).  Keys are
 * 4- or 8-byte integers (KK_INT32, KK_UINT32, KK_INT64, KK_UINT64, compared
 * bitwise) or fixed-size byte strings (KK_TYPE_CUSTOM with key_size bytes,
 * compared with memcmp); values any fixed-size type, or none (a set).
 * ======================================================================== */
/* An UnorderedMap on a backend (opaque; kernels get a kk_unordered_map argument). */
typedef struct kk_unordered_map_obj kk_unordered_map_t;

/* What kk_unordered_map_create() makes: capacity, key and value sizes, space.
 * Start from KK_UNORDERED_MAP_SPEC_INIT. */
typedef struct kk_unordered_map_spec {
  size_t struct_size;     /* set by KK_UNORDERED_MAP_SPEC_INIT */
  const char *label;      /* names the map and its views ("<label>_keys", ...) */
  kk_type_t key_type;     /* KK_INT32, KK_UINT32, KK_INT64, KK_UINT64 or KK_TYPE_CUSTOM */
  size_t key_size;        /* KK_TYPE_CUSTOM: bytes per key (1 .. 256); else 0 */
  kk_type_t value_type;   /* any kk type, KK_TYPE_CUSTOM with value_size; value_size 0 and
                             KK_TYPE_CUSTOM: a set (no values) */
  size_t value_size;      /* KK_TYPE_CUSTOM: bytes per value (0: a set); else 0 */
  uint64_t capacity;      /* entries the map holds for sure, >= 1 */
  kk_space_t *space;      /* NULL: kk_space_default() */
} kk_unordered_map_spec_t;

/* The initializer of a kk_unordered_map_spec_t: struct_size set, defaults elsewhere. */
#define KK_UNORDERED_MAP_SPEC_INIT \
  { sizeof(kk_unordered_map_spec_t), "", KK_INT64, 0, KK_TYPE_CUSTOM, 0, 0, NULL }

/* Creates an empty map.  Its keys hash to 2 * capacity home slots (load 0.5
 * when it holds `capacity` entries), and an insert fails only when it finds
 * no room among the 1024 slots from its key's home (all of them in a map
 * smaller than that), which does not happen below `capacity` entries in
 * practice.  Errors: KK_ERROR_INVALID_ARGUMENT (a bad
 * type, size or capacity; more than 2^31 entries), KK_ERROR_OUT_OF_MEMORY
 * (naming the label, bytes and space).  Thread-safe. */
kk_status_t kk_unordered_map_create(const kk_unordered_map_spec_t *spec, kk_unordered_map_t **out);

/* An empty map of src's key and value types and capacity, in `space` (NULL:
 * the host space): the host copy of a device map, for kk_unordered_map_deep_copy. */
kk_status_t kk_unordered_map_create_mirror(kk_space_t *space, const kk_unordered_map_t *src, kk_unordered_map_t **out);

/* Frees the map.  NULL is ignored. */
void kk_unordered_map_release(kk_unordered_map_t *m);

/* The descriptor for a kernel argument; valid until the next rehash,
 * deep copy into the map or release (bind again after those). */
kk_unordered_map kk_unordered_map_bind(kk_unordered_map_t *m);

/* Queries: the label; the space; key and value sizes (value 0: a set); the
 * capacity asked for (entries it holds for sure) and the slot count (the
 * index range of valid_at, key_at and value_at: 2 * capacity home slots,
 * the probe tail of min(1024, 2 * capacity), and 2 reserved slots for 4- and
 * 8-byte keys). */
const char *kk_unordered_map_label(const kk_unordered_map_t *m);
kk_space_t *kk_unordered_map_space(const kk_unordered_map_t *m);
size_t kk_unordered_map_key_size(const kk_unordered_map_t *m);
size_t kk_unordered_map_value_size(const kk_unordered_map_t *m);
uint64_t kk_unordered_map_capacity(const kk_unordered_map_t *m);
uint64_t kk_unordered_map_slots(const kk_unordered_map_t *m);

/* The number of entries (a reduction over the slots, on the map's backend).
 * Synchronous. */
kk_status_t kk_unordered_map_size(kk_unordered_map_t *m, uint64_t *size);

/* Inserts that failed (found no room) since the map was created, cleared
 * or rehashed; 0 means every insert found its key a slot.  Also reports
 * (KK_ERROR_INVALID_ARGUMENT) a kernel that used the map with a key of the
 * wrong size.  Synchronous (fences the map's backend). */
kk_status_t kk_unordered_map_failed_inserts(kk_unordered_map_t *m, uint64_t *failed);

/* Empties the map (its capacity stays) and resets the failure count. */
kk_status_t kk_unordered_map_clear(kk_unordered_map_t *m);

/* Moves every entry to new storage for `capacity` entries (0: twice the
 * current capacity; never fewer than the entries it holds, as in Kokkos:
 * a map that failed inserts may hold more than its capacity), in the same
 * space, and resets the failure count: the step of the
 * insert-then-rehash-then-retry pattern (examples/unordered-map).  Fails
 * with KK_ERROR_LIMIT, the map unchanged, when entries still find no room
 * (keys whose home slots crowd beyond the probe limit).  Invalidates bound
 * descriptors. */
kk_status_t kk_unordered_map_rehash(kk_unordered_map_t *m, uint64_t capacity);

/* Makes dst a copy of src (same key and value sizes; any two spaces): dst
 * takes src's capacity (its storage is replaced when the slot counts
 * differ), entries and failure count.  Invalidates dst's bound descriptors. */
kk_status_t kk_unordered_map_deep_copy(kk_unordered_map_t *dst, kk_unordered_map_t *src);

/* Host access to a map in a host-accessible space (a mirror, or any map on a
 * host backend), between kernels (fence first).  Keys and values are passed
 * by address, key_size and value_size bytes.  KK_ERROR_INVALID_ARGUMENT for
 * a map the host cannot access or an index outside [0, slots).
 *   host_insert: *index (may be NULL) gets the slot, *status one of
 *     KK_UMAP_SUCCESS / _EXISTING / _FAILED; value may be NULL (the slot's
 *     value stays as it is, zero in a new slot).
 *   host_find: *index gets the slot or KK_INVALID_INDEX.
 *   valid_at: *valid gets 1 when slot i holds an entry; key_at / value_at
 *   copy slot i's key / value out. */
kk_status_t kk_unordered_map_host_insert(kk_unordered_map_t *m, const void *key, const void *value, int64_t *index,
                                         int *status);
kk_status_t kk_unordered_map_host_find(const kk_unordered_map_t *m, const void *key, int64_t *index);
kk_status_t kk_unordered_map_host_valid_at(const kk_unordered_map_t *m, int64_t i, int *valid);
kk_status_t kk_unordered_map_host_key_at(const kk_unordered_map_t *m, int64_t i, void *key);
kk_status_t kk_unordered_map_host_value_at(const kk_unordered_map_t *m, int64_t i, void *value);

/* ===========================================================================
 * Bitset (docs/containers.md, "Bitset")
 * ======================================================================== */
/* A Bitset on a backend (opaque; kernels get a kk_bitset argument). */
typedef struct kk_bitset_obj kk_bitset_t;

/* A bitset of `size` bits (>= 0), all reset, in `space` (NULL: the default
 * space).  `label` names it (NULL: "bitset"). */
kk_status_t kk_bitset_create(kk_space_t *space, const char *label, int64_t size, kk_bitset_t **out);
void kk_bitset_release(kk_bitset_t *b);
kk_bitset kk_bitset_bind(kk_bitset_t *b);
int64_t kk_bitset_size(const kk_bitset_t *b);
/* The 32-bit words, borrowed (a view of (size + 31) / 32 KK_UINT32). */
kk_view_t *kk_bitset_words(const kk_bitset_t *b);
/* The number of set bits (a reduction on the bitset's backend; synchronous). */
kk_status_t kk_bitset_count(kk_bitset_t *b, int64_t *count);
/* Every bit set / reset (complete on return). */
kk_status_t kk_bitset_set_all(kk_bitset_t *b);
kk_status_t kk_bitset_reset_all(kk_bitset_t *b);
/* dst = src: the same size (else KK_ERROR_INVALID_ARGUMENT), any two spaces. */
kk_status_t kk_bitset_deep_copy(kk_bitset_t *dst, kk_bitset_t *src);

/* ===========================================================================
 * UniqueToken (docs/containers.md, "UniqueToken")
 *
 * Ids in [0, size) that kernel threads acquire and release
 * (<kk/unique_token.h>): an id is held by one thread at a time among the
 * threads that run at once, so that each can use a row of a view of `size`
 * rows as its own scratch.
 * ======================================================================== */
/* A UniqueToken pool (opaque; kernels get a kk_unique_token argument). */
typedef struct kk_unique_token_obj kk_unique_token_t;

/* Whether a UniqueToken's ids are unique per instance or over every instance. */
typedef enum kk_unique_token_scope {
  /* unique among the threads of launches on one instance at a time (each
   * instance runs one launch after the other); on host backends a thread
   * takes its own thread number when size covers the launch's threads, no
   * atomics */
  KK_UNIQUE_TOKEN_INSTANCE = 0,
  /* unique among every thread of every launch that uses the token, on any
   * instance at once; the global tokens of a backend that take the default
   * size share one pool of ids */
  KK_UNIQUE_TOKEN_GLOBAL = 1,
  KK__UNIQUE_TOKEN_SCOPE_PIN = 0x7fffffff
} kk_unique_token_scope_t;

/* Creates a token for the backend of `instance` (NULL: the default
 * instance).  size 0: the backend's concurrency (the threads that can run
 * at once: kk_device_info_t.concurrency, the host backend's thread count),
 * so that acquire never waits; a smaller size makes acquire wait for a
 * release when every id is held -- which on GPUs without independent thread
 * scheduling (AMD, NVIDIA before Volta) can wait forever on a holder in the
 * waiter's own warp: use the default size there.  KK_ERROR_INVALID_ARGUMENT
 * for a negative size or one above 2^30, or an unknown scope. */
kk_status_t kk_unique_token_create(kk_instance_t *instance, kk_unique_token_scope_t scope, int32_t size,
                                   kk_unique_token_t **out);
/* Frees the token (a shared global pool when its last token goes).  No
 * launch may still use it.  NULL is ignored. */
void kk_unique_token_destroy(kk_unique_token_t *t);
kk_unique_token kk_unique_token_bind(kk_unique_token_t *t);
int32_t kk_unique_token_size(const kk_unique_token_t *t);
/* Ids held now (fence first): 0 after launches that released every id. */
kk_status_t kk_unique_token_held(kk_unique_token_t *t, int32_t *held);

/* ===========================================================================
 * DynamicView (docs/containers.md, "DynamicView")
 *
 * A rank-1 view that grows and shrinks in chunks, up to a maximum extent
 * fixed at creation, without moving its elements: only the host resizes it
 * (between kernels); kernels index it with KK_DYN_AT (<kk/dynamic_view.h>).
 * ======================================================================== */
/* A DynamicView: a 1-D view that grows in chunks without moving (opaque). */
typedef struct kk_dynamic_view_obj kk_dynamic_view_t;

/* What kk_dynamic_view_create() makes: label, type, chunk size, maximum
 * extent, space.  Start from KK_DYNAMIC_VIEW_SPEC_INIT. */
typedef struct kk_dynamic_view_spec {
  size_t struct_size;       /* set by KK_DYNAMIC_VIEW_SPEC_INIT */
  const char *label;
  kk_type_t type;           /* element type */
  size_t elem_size;         /* KK_TYPE_CUSTOM: bytes per element; else 0 */
  int64_t min_chunk_size;   /* elements per chunk, rounded up to a power of two (>= 1) */
  int64_t max_extent;       /* the largest extent it may grow to (>= 0) */
  kk_space_t *space;        /* NULL: kk_space_default() */
} kk_dynamic_view_spec_t;

/* The initializer of a kk_dynamic_view_spec_t. */
#define KK_DYNAMIC_VIEW_SPEC_INIT { sizeof(kk_dynamic_view_spec_t), "", KK_DOUBLE, 0, 1024, 0, NULL }

/* Creates an empty DynamicView (extent 0). */
kk_status_t kk_dynamic_view_create(const kk_dynamic_view_spec_t *spec, kk_dynamic_view_t **out);
void kk_dynamic_view_release(kk_dynamic_view_t *dv);
/* New extent n (0 <= n <= max_extent, else KK_ERROR_INVALID_ARGUMENT):
 * allocates the chunks n needs (zeroed) and frees those it no longer
 * needs; elements below both extents keep their values.  Not thread-safe,
 * and no kernel may use the view meanwhile (Kokkos' resize_serial). */
kk_status_t kk_dynamic_view_resize_serial(kk_dynamic_view_t *dv, int64_t n);
/* The descriptor for a kernel argument, with the current extent: bind
 * again after a resize. */
kk_dynamic_view kk_dynamic_view_bind(kk_dynamic_view_t *dv);
int64_t kk_dynamic_view_extent(const kk_dynamic_view_t *dv);
/* Elements the allocated chunks hold (>= the extent). */
int64_t kk_dynamic_view_allocation_extent(const kk_dynamic_view_t *dv);
int64_t kk_dynamic_view_chunk_size(const kk_dynamic_view_t *dv);
int64_t kk_dynamic_view_max_extent(const kk_dynamic_view_t *dv);
/* Copies between the DynamicView's first extent() elements and a rank-1
 * view of that extent and the same element size (any space). */
kk_status_t kk_dynamic_view_copy_to(kk_view_t *dst, kk_dynamic_view_t *src);
kk_status_t kk_dynamic_view_copy_from(kk_dynamic_view_t *dst, kk_view_t *src);

/* ===========================================================================
 * OffsetView (docs/containers.md, "OffsetView")
 *
 * A view indexed from per-dimension lower bounds, for code ported from
 * Fortran: element (begin[0], begin[1]) is the first.  Kernels index it
 * with KK_OFFSET_AT (<kk/offset_view.h>).
 * ======================================================================== */
/* An OffsetView: a view whose indices start at chosen values (opaque). */
typedef struct kk_offset_view_obj kk_offset_view_t;

/* A new view made as kk_view_create(spec) makes it, indexed from begin[d]
 * in dimension d (spec->rank entries; dimension d runs [begin[d], begin[d]
 * + extents[d])).  KK_ERROR_INVALID_ARGUMENT when an end does not fit in
 * int64. */
kk_status_t kk_offset_view_create(const kk_view_spec_t *spec, const int64_t *begin, kk_offset_view_t **out);
/* An OffsetView over an existing view (retained). */
kk_status_t kk_offset_view_wrap(kk_view_t *view, const int64_t *begin, kk_offset_view_t **out);
void kk_offset_view_release(kk_offset_view_t *ov);
/* The view underneath, borrowed (indexed from 0). */
kk_view_t *kk_offset_view_view(const kk_offset_view_t *ov);
int kk_offset_view_rank(const kk_offset_view_t *ov);
/* The first index of dimension d and one past its last (0 and 1 past the rank). */
int64_t kk_offset_view_begin(const kk_offset_view_t *ov, int d);
int64_t kk_offset_view_end(const kk_offset_view_t *ov, int d);
/* A new OffsetView of the elements [first[d], last[d]] (inclusive, in the
 * view's own indices, as Fortran's a(first:last)) keeping those indices:
 * the subview's begin is `first`. */
kk_status_t kk_offset_view_subview(kk_offset_view_t *ov, const int64_t *first, const int64_t *last,
                                   kk_offset_view_t **out);
/* Descriptors for kernel arguments: the view's as the kk_view_bind* of the
 * same name (and the same layout rules and errors), with the lower bounds. */
kk_offset_view kk_offset_view_bind(kk_offset_view_t *ov);
kk_offset_view_right kk_offset_view_bind_right(kk_offset_view_t *ov);
kk_offset_view_left kk_offset_view_bind_left(kk_offset_view_t *ov);
kk_offset_view_strided kk_offset_view_bind_strided(kk_offset_view_t *ov);
/* A pointer to element (i0, ..., i_{rank-1}) in the view's own indices, for
 * host code on a host-accessible view; NULL (with kk_last_error set) for an
 * index outside the bounds or a view the host cannot access. */
void *kk_offset_view_host_ptr(const kk_offset_view_t *ov, const int64_t *index);

#ifdef __cplusplus
}
#endif
#endif /* host API */

#endif /* KK_CONTAINERS_H */
