/* kk/plugin.h -- the backend plugin ABI: what a kk_<name>.so exports and what libkk offers it. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGIN_H
#define KK_PLUGIN_H

/*
 * A backend plugin is a shared object `kk_<name>.so` found in the plugin path
 * (--kokkos-plugin-path, KOKKOS_PLUGIN_PATH, the JSON "plugin_path", then
 * $(pkglibdir)/plugins).  It exports exactly one symbol:
 *
 *     const kk_plugin_ops_t *kk_plugin_<name>_entry(uint32_t core_abi,
 *                                                     const kk_host_services_t *hs);
 *
 * The core passes the ABI version it implements and its host services; the
 * plugin returns its operations table, or NULL (after hs->error() with the
 * reason) when it cannot work with that core.  A plugin never links libkk and
 * never sees jansson types; everything it needs from the core is in
 * kk_host_services_t.
 *
 * Compatibility rules (docs/plugin-abi.md keeps the history):
 *  - The ABI version is (major << 16) | minor.  A plugin whose major differs
 *    from the core's is refused.
 *  - kk_plugin_ops_t only ever grows at its end.  The core copies
 *    min(ops->struct_size, sizeof(kk_plugin_ops_t)) bytes into a zeroed table,
 *    so members an older plugin does not know read as NULL.
 *  - Members marked "required since 1.N" must be non-NULL in a plugin that
 *    declares minor >= N; the core checks them once, at load.  Every other
 *    member is optional and the core calls it only behind KK_PLUGIN_HAS(),
 *    with a fallback of its own or KK_ERROR_UNSUPPORTED.
 *
 * Threading: the core serializes init/finalize/device_open.  The memory,
 * instance and launch operations may be called from several application
 * threads at once and must be thread-safe.
 *
 * Errors: an operation returns a kk_status_t; before returning an error it
 * should call hs->error() with what it was doing and the native error code,
 * which becomes kk_last_error() prefixed with the backend name.
 */

#include <stddef.h>
#include <stdint.h>

#include <kk.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin ABI this header describes, (major << 16) | minor: a plugin of
 * another major is refused, minors only append (docs/plugin-abi.md).
 * MAKE builds a version, MAJOR_OF and MINOR_OF take one apart. */
#define KK_PLUGIN_ABI_MAJOR 1
#define KK_PLUGIN_ABI_MINOR 9
#define KK_PLUGIN_ABI_MAKE(major, minor) ((uint32_t)(((uint32_t)(major) << 16) | (uint32_t)(minor)))
#define KK_PLUGIN_ABI_VERSION KK_PLUGIN_ABI_MAKE(KK_PLUGIN_ABI_MAJOR, KK_PLUGIN_ABI_MINOR)
#define KK_PLUGIN_ABI_MAJOR_OF(v) ((uint32_t)(v) >> 16)
#define KK_PLUGIN_ABI_MINOR_OF(v) ((uint32_t)(v) & 0xffffu)

/* The entry symbol a plugin named `name` exports. */
#define KK_PLUGIN_ENTRY_NAME(name) kk_plugin_##name##_entry

/* Declares the entry point with the visibility it needs even when the plugin
 * is compiled with -fvisibility=hidden. */
#if defined(__GNUC__)
#define KK_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define KK_PLUGIN_EXPORT
#endif

/* ---------------------------------------------------------------------------
 * Host services: what the core offers a plugin.  The table may grow at its end;
 * check struct_size before using a member a newer core added.
 * ------------------------------------------------------------------------ */

/* The level of a message a plugin logs through the host services. */
typedef enum kk_log_level {
  KK_LOG_DEBUG = 0,   /* printed only with KK_DEBUG=1 */
  KK_LOG_INFO = 1,    /* printed only with KK_DEBUG=1 */
  KK_LOG_WARNING = 2, /* printed unless warnings are disabled */
  KK__LOG_PIN = 0x7fffffff
} kk_log_level_t;

/* How to choose a device among several; resolved by the core, given for
 * information. */
typedef enum kk_map_device_by {
  KK_MAP_DEVICE_NONE = 0,
  KK_MAP_DEVICE_RANDOM = 1,
  KK_MAP_DEVICE_MPI_RANK = 2,
  KK__MAP_DEVICE_PIN = 0x7fffffff
} kk_map_device_by_t;

/* The resolved global configuration, as far as backends care. */
typedef struct kk_plugin_config {
  uint32_t struct_size;
  int32_t num_threads;        /* host threads requested; 0 = backend's choice */
  int32_t device_id;          /* requested device index; -1 = not requested */
  int32_t disable_warnings;   /* 1 when warnings must not be printed */
  int32_t tune_internals;     /* 1 when a tuning tool may choose team sizes and tiles */
  kk_map_device_by_t map_device_id_by;
  int32_t visible_device_count; /* entries in visible_devices; 0 = all visible */
  const int32_t *visible_devices;
} kk_plugin_config_t;

/* A failed access of a bounds-checked kernel, as a device recorded it
 * (kk_host_services_t.bounds_report). */
typedef struct kk_bounds_fault {
  const void *data;                 /* the view's data pointer */
  int32_t rank, n;                  /* the view's rank; indices given */
  uint32_t elem_size, view_elem_size; /* of the access; of the view */
  int64_t idx[KK_MAX_RANK], ext[KK_MAX_RANK];
  const char *file;                 /* source file, or NULL */
  int32_t line;
} kk_bounds_fault_t;

/* The host services: logging, configuration values, error reporting and
 * the other calls the core offers a plugin (append-only; check struct_size). */
typedef struct kk_host_services {
  uint32_t struct_size;
  uint32_t abi_version;       /* the core's plugin ABI */
  void *core;                 /* opaque; first argument of every service below */

  /* Logs a message, prefixed "kk[<backend>]: ".  Quiet by default (see levels). */
  void (*log)(void *core, kk_log_level_t level, const char *fmt, ...)
#if defined(__GNUC__)
      __attribute__((format(printf, 3, 4)))
#endif
      ;

  /* Records an error as kk_last_error() on the calling thread:
   * "kk[<backend>]: <message> (<native name> = <native code>)".  `native_name`
   * may be NULL when there is no native code.  Returns `status` for
   * `return hs->error(...)`. */
  kk_status_t (*error)(void *core, kk_status_t status, const char *native_name, int64_t native_code,
                       const char *fmt, ...)
#if defined(__GNUC__)
      __attribute__((format(printf, 5, 6)))
#endif
      ;

  /* Backend-specific option from the JSON file's "backends": {"<name>": {...}}
   * as a string ("true"/"false" for booleans, decimal for numbers), or NULL
   * when not given.  Valid until finalize. */
  const char *(*option)(void *core, const char *key);

  /* The global configuration. */
  const kk_plugin_config_t *config;

  /* ---- ABI 1.5 (valid when struct_size covers it) ---- */

  /* A device kernel built with kkcc --bounds-check made the failed access
   * `f` in the launch of `kernel` (kind: kk_kernel_t.kind) labelled
   * `label`: records kk_last_error() as the host backends do, the same
   * sentence (operation, label, kernel, backend, the view's label found
   * from f->data among the live views, indices, extents, source line), and
   * returns KK_ERROR_KERNEL_FAILED.  For a GPU plugin's fence; formats,
   * so not for the dispatch path. */
  kk_status_t (*bounds_report)(void *core, uint32_t kind, const char *label, const char *kernel,
                               const kk_bounds_fault_t *f);
} kk_host_services_t;


/* ---------------------------------------------------------------------------
 * Properties a plugin reports.
 * ------------------------------------------------------------------------ */

/* One device as the plugin reports it: name, architecture, preferred
 * layout, concurrency, warp width, team and scratch limits. */
typedef struct kk_plugin_device {
  uint32_t struct_size;       /* set by the core before the call */
  char name[128];
  char vendor[64];
  char arch[64];
  kk_layout_t preferred_layout; /* KK_LAYOUT_RIGHT or KK_LAYOUT_LEFT */
  int32_t concurrency;
  int32_t warp_size;
  int32_t max_team_size;
  int32_t max_vector_length;
  uint64_t scratch_max[2];
  uint64_t memory_bytes;
} kk_plugin_device_t;

enum {
  KK_SPACE_HOST_ACCESSIBLE = 1u << 0,   /* host code may dereference it */
  KK_SPACE_DEVICE_ACCESSIBLE = 1u << 1, /* the backend's kernels may dereference it */
  KK_SPACE_DEFAULT = 1u << 2            /* the backend's default space */
};

/* One memory space of a backend: name, Kokkos name, KK_SPACE_* flags. */
typedef struct kk_plugin_space {
  uint32_t struct_size;       /* set by the core before the call */
  char name[64];              /* Kokkos name: "Host", "Cuda", "CudaUVM", ... */
  uint32_t flags;             /* KK_SPACE_* */
} kk_plugin_space_t;

/* Space index meaning "ordinary host memory not allocated by this plugin", for
 * mem_copy. */
#define KK_PLUGIN_HOST_MEMORY (-1)

/* A copy between two views of the same extents and element size whose
 * layouts or strides differ (ABI 1.7, mem_remap): element i (a multi-index
 * over `extent`) moves from src + sum(i[d] * src_stride[d]) * elem_size to
 * dst + sum(i[d] * dst_stride[d]) * elem_size.  Strides are in elements
 * (>= 0); no two elements of dst overlap, and dst does not overlap src. */
typedef struct kk_plugin_remap {
  uint32_t struct_size;   /* set by the core before the call */
  int32_t rank;           /* 0 .. KK_MAX_RANK; extents past rank are 1 */
  size_t elem_size;       /* bytes of one element (any size) */
  int64_t extent[KK_MAX_RANK];
  void *dst;
  int32_t dst_space;      /* a space index of this plugin, or KK_PLUGIN_HOST_MEMORY */
  int64_t dst_stride[KK_MAX_RANK];
  const void *src;
  int32_t src_space;      /* a space index of this plugin, or KK_PLUGIN_HOST_MEMORY */
  int64_t src_stride[KK_MAX_RANK];
} kk_plugin_remap_t;

/* Plugin flags. */
enum {
  KK_PLUGIN_FLAG_HOST = 1u << 0  /* executes on the host CPU; its spaces are host memory */
};

/* Kokkos Tools device types (the top byte of a tools device id). */
enum {
  KK_TOOLS_DEVICE_SERIAL = 0,
  KK_TOOLS_DEVICE_OPENMP = 1,
  KK_TOOLS_DEVICE_CUDA = 2,
  KK_TOOLS_DEVICE_HIP = 3,
  KK_TOOLS_DEVICE_OPENMPTARGET = 4,
  KK_TOOLS_DEVICE_HPX = 5,
  KK_TOOLS_DEVICE_THREADS = 6,
  KK_TOOLS_DEVICE_SYCL = 7,
  KK_TOOLS_DEVICE_OPENACC = 8
};

/* ---------------------------------------------------------------------------
 * A kernel launch (ABI 1.1).  Everything a backend needs to run one kernel;
 * the struct lives on the caller's stack and is valid only during launch().
 * ------------------------------------------------------------------------ */
typedef struct kk_launch {
  uint32_t struct_size;
  uint32_t kind;               /* kk_kernel_kind_t, equal to kernel->kind */
  const kk_kernel_t *kernel;   /* host entry points, reducer, name */
  void *device_kernel;         /* from kernel_get(); NULL on host backends */
  const void *args;            /* the argument struct: copy it if the launch outlives the call */
  uint32_t args_size;
  uint32_t schedule;           /* kk_schedule_t */
  /* begin <= end.  Every length the core hands a plugin fits in int64_t:
   * end - begin, each MDRange extent, the points of the box (unless a
   * dimension is empty) and of one tile, league_size * team_size *
   * vector_length.  A range may still end at INT64_MAX: derive indices from
   * offsets within the length, never as begin + something past the end. */
  int64_t begin, end;
  int64_t chunk;               /* 0: backend's choice */
  /* reduce: where the reduced value goes (never NULL); scan: the total (may be NULL) */
  void *result;
  /* KK_PLUGIN_HOST_MEMORY: result is host memory and must be written before
   * launch() returns.  Else the index of one of this plugin's spaces: write it
   * in instance order (asynchronously). */
  int32_t result_space;
  /* The core's bounds-check record of this launch, 0 when none (the kernel
   * is not built with kkcc --bounds-check).  A host backend copies it into
   * kk_host_thread_t.bounds_slot of every thread that runs the launch (one
   * that does not, as before this field had a meaning, leaves 0 there: the
   * kernel's failures then go to the shared record 0). */
  uint32_t bounds_slot;
  const char *label;           /* never NULL */

  /* ---- ABI 1.2: MDRange and teams (valid when struct_size covers them) ---- */
  int32_t rank;                /* MDRange rank 2..6 */
  uint32_t iterate_outer;      /* order over tiles: KK_ITERATE_RIGHT or _LEFT (never DEFAULT) */
  uint32_t iterate_inner;      /* order within a tile */
  uint32_t reserved2;
  int64_t md_begin[KK_MD_MAX_RANK], md_end[KK_MD_MAX_RANK];
  int64_t md_tile[KK_MD_MAX_RANK]; /* 0: the backend's choice */
  int64_t league_size;         /* teams */
  int32_t team_size;           /* resolved: never 0 */
  int32_t vector_length;       /* resolved: never 0 */
  uint64_t scratch_team[2];    /* bytes per team, levels 0 and 1 */
  uint64_t scratch_thread[2];  /* bytes per thread, levels 0 and 1 */

  /* ---- ABI 1.6 (valid when KK_LAUNCH_HAS(launch, instance)) ---- */

  /* The plugin instance the launch is for (instance_create's, or NULL for
   * the default instance), so that team_size_query answers for it: an
   * instance may have fewer threads than the backend's default one.  In
   * launch() and in a graph node the instance that runs it is launch()'s
   * own argument; trust that one. */
  void *instance;
} kk_launch_t;

/* True when `launch` (as the core filled it) has `member`: a core older
 * than the plugin passes a shorter struct. */
#define KK_LAUNCH_HAS(launch, member)                                                     \
  (offsetof(kk_launch_t, member) + sizeof(((kk_launch_t *)0)->member) <= (size_t)(launch)->struct_size)

/* ---------------------------------------------------------------------------
 * A graph (ABI 1.3): the nodes a backend runs together, in one submission.
 * The core hands a plugin primitive nodes only (a kernel, a copy, a fill) in
 * an order where every node comes after the nodes it depends on; it expands
 * the program's composite nodes (a deep copy of a strided view is several
 * copies) and empty join nodes itself.  Everything the descriptions point to
 * is valid during graph_create() only, except the memory a copy or fill
 * node names and the kernel objects: copy what you keep.
 * ------------------------------------------------------------------------ */
enum {
  KK_GRAPH_NODE_KERNEL = 1, /* one launch, as launch() would receive it */
  KK_GRAPH_NODE_COPY = 2,   /* bytes from src to dst, as mem_copy() on an instance */
  KK_GRAPH_NODE_FILL = 3    /* count patterns of pattern_size bytes at dst, as mem_fill() */
};

/* One node of a graph handed to the plugin's graph_create: a kernel, a copy
 * or a fill (KK_GRAPH_NODE_*), with its dependencies. */
typedef struct kk_graph_node_desc {
  uint32_t struct_size;
  uint32_t kind;               /* KK_GRAPH_NODE_* */
  uint32_t dep_count;          /* nodes that must complete before this one starts */
  uint32_t reserved;
  const uint32_t *deps;        /* their indices, each smaller than this node's */
  /* KERNEL: the launch, checked and resolved by the core (team size, vector
   * length and tiles as launch() gets them).  Its result, when it has one, is
   * never the program's host variable: result_space is one of this plugin's
   * spaces, or KK_PLUGIN_HOST_MEMORY on a host plugin only. */
  const kk_launch_t *launch;
  /* COPY and FILL: the destination, a space of this plugin or
   * KK_PLUGIN_HOST_MEMORY (ordinary host memory, which a device plugin may be
   * unable to reach from a graph: it then refuses the graph, see
   * graph_create) */
  void *dst;
  int32_t dst_space;
  int32_t src_space;           /* COPY: as dst_space */
  const void *src;             /* COPY */
  size_t bytes;                /* COPY: bytes; FILL: count * pattern_size */
  size_t count;                /* FILL: patterns */
  uint32_t pattern_size;       /* FILL: 1, 2, 4, 8 or 16 */
  uint32_t reserved2;
  unsigned char pattern[16];   /* FILL: the value of one element */
} kk_graph_node_desc_t;

/* A whole graph handed to graph_create: its nodes in dependency order. */
typedef struct kk_graph_desc {
  uint32_t struct_size;
  uint32_t node_count;         /* >= 1 */
  const kk_graph_node_desc_t *nodes;
} kk_graph_desc_t;

/* ---------------------------------------------------------------------------
 * The operations table.  `ctx` is what init() returned; `inst` is a plugin
 * instance from instance_create(), or NULL for the backend's default
 * instance; `space` is an index < space_count().
 * ------------------------------------------------------------------------ */
typedef struct kk_plugin_ops {
  /* ---- header (every version) ---- */
  uint32_t struct_size;       /* sizeof(kk_plugin_ops_t) as the plugin was compiled */
  uint32_t abi_version;       /* KK_PLUGIN_ABI_VERSION as the plugin was compiled */
  const char *name;           /* must equal the <name> of kk_<name>.so */
  int32_t priority;           /* selection priority, higher wins (cuda 100, openmp 30, serial 10) */
  uint32_t flags;             /* KK_PLUGIN_FLAG_* */
  uint32_t tools_device_type; /* KK_TOOLS_DEVICE_*; third parties pick a free value >= 32 */

  /* ---- ABI 1.0: lifetime and devices (required since 1.0) ---- */

  /* Initializes the plugin: opens the vendor runtime lazily, counts devices.
   * Returning an error skips the plugin with the reason given to hs->error().
   * Having no device is not an error: report it through device_count(). */
  kk_status_t (*init)(const kk_host_services_t *hs, void **ctx);

  /* Releases everything.  Called once, after all instances are destroyed. */
  void (*finalize)(void *ctx);

  /* Number of devices (after visibility filtering is the core's job: count them
   * all).  When 0, *why_none (if not NULL) gets a reason that stays valid
   * until finalize, e.g. "libcuda.so.1: cannot open shared object file". */
  int32_t (*device_count)(void *ctx, const char **why_none);

  /* Properties of device `dev`. */
  kk_status_t (*device_props)(void *ctx, int32_t dev, kk_plugin_device_t *props);

  /* Makes `dev` the device this plugin runs on (creates contexts, default
   * stream, thread pool).  Called at most once, before any memory, instance or
   * launch operation. */
  kk_status_t (*device_open)(void *ctx, int32_t dev);

  /* ---- ABI 1.0: memory (required since 1.0) ---- */
  int32_t (*space_count)(void *ctx);
  kk_status_t (*space_props)(void *ctx, int32_t space, kk_plugin_space_t *props);

  /* Allocates `bytes` (> 0) aligned to at least 64 bytes.  On failure returns
   * KK_ERROR_OUT_OF_MEMORY (the core adds label, size and space). */
  kk_status_t (*mem_alloc)(void *ctx, int32_t space, size_t bytes, void **ptr);
  kk_status_t (*mem_free)(void *ctx, int32_t space, void *ptr);

  /* Copies between two of this plugin's spaces, or between one and
   * KK_PLUGIN_HOST_MEMORY.  inst NULL: complete on return.  Else ordered on
   * inst and complete at its next fence. */
  kk_status_t (*mem_copy)(void *ctx, void *inst, void *dst, int32_t dst_space, const void *src,
                          int32_t src_space, size_t bytes);

  /* Sets `bytes` bytes to `value`, synchronously (inst NULL) or on inst. */
  kk_status_t (*mem_set)(void *ctx, void *inst, void *dst, int32_t space, int value, size_t bytes);

  /* ---- ABI 1.0: instances (required since 1.0) ---- */
  kk_status_t (*instance_create)(void *ctx, void **inst);
  kk_status_t (*instance_destroy)(void *ctx, void *inst);
  kk_status_t (*instance_fence)(void *ctx, void *inst);
  kk_status_t (*fence_all)(void *ctx);

  /* ---- ABI 1.0: optional ---- */

  /* Fills `count` elements of `pattern_size` bytes (1, 2, 4, 8 or 16) with
   * `pattern`.  Without it the core fills through a host staging buffer. */
  kk_status_t (*mem_fill)(void *ctx, void *inst, void *dst, int32_t space, const void *pattern,
                          size_t pattern_size, size_t count);

  /* ---- ABI 1.1: kernels ---- */

  /* Runs one kernel (required since 1.1).  Host backends call the kernel's
   * host entry point (launch->kernel->host_for/_reduce/_scan) once per chunk
   * of [begin, end); device backends launch launch->device_kernel.  A range
   * beyond 2^31 iterations must work.  Reductions: start every partial value
   * with kernel->reducer->init and combine them with ->join; an empty range
   * yields the identity.  Scans: a first pass with final_pass 0 gives each
   * chunk's total, the exclusive prefix of those totals starts each chunk's
   * second pass (final_pass 1); the total goes to result when not NULL. */
  kk_status_t (*launch)(void *ctx, void *inst, const kk_launch_t *launch);

  /* Device backends (optional): the image formats module_load accepts, best
   * first, NULL-terminated ("cuda-fatbin", "hip-codeobject", "spirv"). */
  const char *const *image_formats;

  /* Loads a module's device image: `image` is the module's first image in a
   * format of image_formats, or NULL when it has none (the plugin may then
   * compile module->source, or fail).  Called at kk_initialize for every
   * registered module and at registration afterwards. */
  kk_status_t (*module_load)(void *ctx, const kk_module_t *module, const kk_image_t *image, void **pmod);
  kk_status_t (*module_unload)(void *ctx, void *pmod);

  /* Looks up a kernel of a loaded module; the handle becomes
   * kk_launch_t.device_kernel.  Required when module_load is present. */
  kk_status_t (*kernel_get)(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel);

  /* ---- ABI 1.2: teams, MDRange, scratch ---- */

  /* Team sizes a team launch of this kernel could use (optional): the
   * largest that fits (registers, scratch, the threads of the launch's
   * instance, launch->instance since ABI 1.6) and the one the backend
   * prefers, given launch->vector_length and the scratch sizes.  Without it
   * the core uses the device's max_team_size and 1. */
  kk_status_t (*team_size_query)(void *ctx, const kk_launch_t *launch, int32_t *max, int32_t *recommended);

  /* ---- ABI 1.3: graphs (optional; graph_create, graph_launch and
   * graph_destroy come together or not at all) ---- */

  /* Builds what the backend runs for the graph `desc` (a CUDA graph and its
   * executable, a host plan) and returns it in *pgraph.  Called once per
   * graph at kk_graph_instantiate, and again to rebuild it after an update
   * graph_update() refused.  KK_ERROR_UNSUPPORTED (a node the backend cannot
   * put into a graph: a copy from pageable host memory, a fill pattern it
   * has no node for) is not an error for the program: the core then replays
   * this graph node by node on the instance, as it does for a plugin without
   * these members.  Any other error fails the instantiation. */
  kk_status_t (*graph_create)(void *ctx, const kk_graph_desc_t *desc, void **pgraph);

  /* Runs the whole graph on `inst` (NULL: the default instance), ordered
   * after the work queued on it before, and before the work queued after:
   * complete at the instance's next fence (host plugins may complete it
   * before returning).  Independent nodes may run in any order or at the
   * same time.  The core never launches one graph from two threads at once
   * and never destroys or updates it during the call; a launch may still be
   * running on the device when the next call for the graph comes. */
  kk_status_t (*graph_launch)(void *ctx, void *inst, void *pgraph);

  /* Optional: node `node` (a KERNEL node) runs with `launch` from the next
   * graph_launch on; launches already made are unaffected.  The core only
   * changes the argument struct (same kernel, kind, sizes, policy and
   * result), and the graph may be running while this is called.
   * KK_ERROR_UNSUPPORTED (or a NULL member) makes the core rebuild the graph
   * with graph_destroy and graph_create. */
  kk_status_t (*graph_update)(void *ctx, void *pgraph, uint32_t node, const kk_launch_t *launch);

  /* Releases the graph.  A launch of it may still be running on the device:
   * keep what that launch uses until it completes (as cuGraphExecDestroy
   * does). */
  kk_status_t (*graph_destroy)(void *ctx, void *pgraph);

  /* ---- ABI 1.4: interop with vendor libraries (optional, each alone) ---- */

  /* The native queue `inst` (NULL: the default instance) submits its work
   * to, in order (kk_instance_native_queue): kind, device, queue and context
   * as kk_native_queue_t describes.  The queue stays the plugin's.
   * KK_ERROR_UNSUPPORTED when the instance has none. */
  kk_status_t (*instance_native)(void *ctx, void *inst, kk_native_queue_t *out);

  /* An instance on the program's queue `q` (kind already checked to be one
   * this plugin reported through instance_native; device and handle not):
   * everything instance_create does except creating the queue, which
   * instance_destroy then leaves alone. */
  kk_status_t (*instance_create_native)(void *ctx, const kk_native_queue_t *q, void **inst);

  /* ---- ABI 1.7: copies between layouts (optional) ---- */

  /* Copies every element of r->src into r->dst, both in memory this plugin
   * reaches (its spaces; KK_PLUGIN_HOST_MEMORY only for host plugins), as
   * kk_plugin_remap_t describes: kk_deep_copy between LayoutLeft,
   * LayoutRight and strided views that share no unit-stride dimension.
   * inst NULL: complete on return; else ordered on inst and complete at its
   * next fence.  r and what it points to stay valid only during the call.
   * Without it the core copies on the calling thread (both sides host
   * memory) or stages through host buffers. */
  kk_status_t (*mem_remap)(void *ctx, void *inst, const kk_plugin_remap_t *r);

  /* ---- ABI 1.8: the default instance as a handle (optional) ---- */

  /* The handle of the plugin's default instance, valid from device_open to
   * finalize: the core passes it as `inst` to mem_copy, mem_fill and
   * mem_remap for a copy or fill that a program queues on the default
   * instance (kk_deep_copy_async, kk_deep_copy_fill_async, kk_space_copy
   * with kk_instance_default()), which must then be ordered on the default
   * instance after its kernels and complete at its next fence, as on any
   * other instance.  Launches and fences on the default instance still
   * pass NULL.  Without it such copies and fills complete on return. */
  void *(*instance_default)(void *ctx);

  /* ---- ABI 1.9: ordering instances on the device (optional) ---- */

  /* Work queued on `waiter` after the call starts only once everything
   * queued on `waited` before the call has completed (kk_instance_wait);
   * NULL handles are the default instance, and the two differ.  Keep the
   * order on the device (an event recorded on waited's queue that waiter's
   * queue waits for) and return without waiting; no allocation or
   * formatting on the way (make what it needs with the instance).
   * KK_ERROR_UNSUPPORTED (quietly, no hs->error) where this plugin cannot
   * order these two on the device: the core then fences `waited`, as it
   * does for a plugin without the member. */
  kk_status_t (*instance_wait)(void *ctx, void *waiter, void *waited);
} kk_plugin_ops_t;

/* True when the (core's zeroed copy of the) table has `member`: the one gate
 * before every call of an optional member. */
#define KK_PLUGIN_HAS(ops, member)                                                        \
  (offsetof(kk_plugin_ops_t, member) + sizeof(((kk_plugin_ops_t *)0)->member) <=         \
       (size_t)(ops)->struct_size &&                                                      \
   (ops)->member != NULL)

/* The entry point's type. */
typedef const kk_plugin_ops_t *(*kk_plugin_entry_fn)(uint32_t core_abi, const kk_host_services_t *hs);

#ifdef __cplusplus
}
#endif

#endif /* KK_PLUGIN_H */
