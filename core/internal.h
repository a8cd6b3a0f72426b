/* core/internal.h -- libkk's private types and functions (prefix kk__), shared by the core's files. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_INTERNAL_H
#define KK_CORE_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include <kk.h>
#include <kk/plugin.h>

#if defined(__GNUC__)
#define KK__PRINTF(a, b) __attribute__((format(printf, a, b)))
#define KK__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define KK__LIKELY(x) __builtin_expect(!!(x), 1)
#define KK__NOINLINE __attribute__((noinline))
#else
#define KK__NOINLINE
#define KK__PRINTF(a, b)
#define KK__UNLIKELY(x) (x)
#define KK__LIKELY(x) (x)
#endif

/* ---- errors and messages (status.c) ---------------------------------- */

/* Records an error for kk_last_error() and calls the user's handler.  Returns
 * `status` so callers can `return kk__error(...)`. */
kk_status_t kk__error(kk_status_t status, const char *fmt, ...) KK__PRINTF(2, 3);
kk_status_t kk__verror(kk_status_t status, const char *fmt, va_list ap);

/* Prints "kk: warning: ..." on stderr unless warnings are disabled. */
void kk__warn(const char *fmt, ...) KK__PRINTF(1, 2);
/* Prints "kk: ..." on stderr when KK_DEBUG is set. */
void kk__debug(const char *fmt, ...) KK__PRINTF(1, 2);
extern bool kk__warnings_disabled;
extern bool kk__debug_enabled;

/* printf into a fixed buffer, always terminated.  A message that does not
 * fit keeps its explanation: its string values are cut to their first and
 * last bytes ("head...[N bytes]...tail"), quoted ones ('%s', and those
 * quoted inside a message passed on as a %s argument) first, before
 * anything is cut at the end. */
void kk__snprintf(char *buf, size_t size, const char *fmt, ...) KK__PRINTF(3, 4);
void kk__vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/* A growable string (for messages and reports, never on the dispatch path). */
typedef struct kk__str {
  char *s;
  size_t len, cap;
} kk__str_t;
void kk__str_addf(kk__str_t *str, const char *fmt, ...) KK__PRINTF(2, 3);
void kk__str_free(kk__str_t *str);
char *kk__strdup(const char *s);

/* ---- configuration (config.c) ----------------------------------------- */

/* Where a configuration value came from, lowest precedence first. */
typedef enum kk__origin {
  KK__ORIGIN_DEFAULT = 0,
  KK__ORIGIN_SITE, /* the site's JSON file, $(sysconfdir)/kk/kk.json */
  KK__ORIGIN_JSON,
  KK__ORIGIN_ENV,
  KK__ORIGIN_SETTINGS,
  KK__ORIGIN_FLAG
} kk__origin_t;

const char *kk__origin_name(kk__origin_t origin);

/* One backend's options from the JSON file, flattened to strings. */
typedef struct kk__backend_options {
  char *backend;
  int count;
  char **keys;
  char **values;
} kk__backend_options_t;

typedef struct kk__config {
  /* --kokkos-device: backend name (NULL: none requested) and device index (-1) */
  char *device_backend;
  int device_index;
  kk__origin_t device_origin;

  char *config_file;
  kk__origin_t config_file_origin;

  /* the site configuration file ($KK_SITE_CONFIG, else $(sysconfdir)/kk/kk.json;
   * NULL with KK_SITE_CONFIG=none) and what became of it: "read", "not present",
   * "refused: <why>" */
  char *site_file;
  char *site_file_state;

  /* plugin search path: flag, settings, env, JSON, site file entries in that order (all of them) */
  int plugin_path_count;
  char **plugin_path;

  int num_threads;        /* 0 = backend's choice */
  kk__origin_t num_threads_origin;
  int device_id;          /* -1 = not set */
  kk__origin_t device_id_origin;
  kk_map_device_by_t map_device_id_by;
  kk__origin_t map_device_id_by_origin;
  int visible_count;      /* 0 = all visible */
  int32_t *visible;
  kk__origin_t visible_origin;

  char *tools_libs;
  kk__origin_t tools_libs_origin;
  char *tools_args;
  kk__origin_t tools_args_origin;

  bool print_configuration;
  kk__origin_t print_configuration_origin;
  bool disable_warnings;
  kk__origin_t disable_warnings_origin;
  bool tune_internals;
  kk__origin_t tune_internals_origin;
  bool plugin_probe;      /* probe plugins in a helper process (default true) */
  kk__origin_t plugin_probe_origin;

  bool help;        /* --kokkos-help */
  bool tools_help;  /* --kokkos-tools-help */

  /* JSON "backend_order" (the user's file's, else the site file's) */
  int backend_order_count;
  char **backend_order;

  /* JSON "backends" (the user's file's options over the site file's) */
  int backend_options_count;
  kk__backend_options_t *backend_options;

  /* warnings found while resolving (unknown flags and keys, deprecations),
   * printed by kk_initialize unless warnings are disabled */
  int warning_count;
  char **warnings;

  /* argv indices consumed; argv is only compacted once everything succeeded */
  int consumed_count;
  int *consumed;
} kk__config_t;

/* Resolves the configuration from argv, settings, environment and JSON file.
 * Never modifies argv: on success call kk__config_apply_argv().  On error
 * returns KK_ERROR_CONFIG with kk_last_error() set; `cfg` is then freed. */
kk_status_t kk__config_resolve(int argc, char **argv, const kk_settings_t *settings, kk__config_t *cfg);

/* Removes the consumed flags from argv. */
void kk__config_apply_argv(const kk__config_t *cfg, int *argc, char ***argv);

void kk__config_free(kk__config_t *cfg);

/* Prints the flag/variable table (--kokkos-help). */
void kk__config_print_help(FILE *out);

/* Parses a boolean as the flags accept it; returns false when malformed. */
bool kk__parse_bool(const char *s, bool *out);

/* ---- dynamic loading (dl.c) -------------------------------------------- */

typedef struct kk__dl kk__dl_t;

/* Opens a shared object with libltdl.  On failure returns NULL and writes the
 * real reason (the system loader's message) into why. */
kk__dl_t *kk__dl_open(const char *path, char *why, size_t why_size);
void *kk__dl_sym(kk__dl_t *dl, const char *symbol);
void kk__dl_close(kk__dl_t *dl);
/* libltdl is reference counted: kk__dl_init/exit bracket the library's use. */
int kk__dl_init(void);
void kk__dl_exit(void);

/* ---- backends (loader.c, init.c, serial.c) ------------------------------- */

/* Spaces and instances a program holds stay readable after kk_finalize
 * (handles.c keeps their records), so that a call on them can see from
 * `gen` that they are stale; `backend` then points to freed memory. */
struct kk_space {
  struct kk__backend *backend;
  int32_t index;              /* the plugin's space index */
  char name[64];
  uint32_t flags;             /* KK_SPACE_* */
  uintptr_t gen;              /* kk__generation of the initialization it belongs to */
};

struct kk_instance {
  struct kk__backend *backend;
  void *plugin_inst;          /* NULL for the default instance */
  uintptr_t gen;              /* kk__generation of the initialization it belongs to */
  bool is_default;
  uint32_t tools_id;          /* instance bits of its tools device id: 2, 3, ... (the default instance is 1) */
  struct kk_instance *next, *prev; /* the backend's list of created instances */
  _Atomic(struct kk__capture *) capture; /* non-NULL while work on it is recorded into a graph (graph.c) */
};

typedef struct kk__backend {
  char *name;
  char *path;                 /* file, or "(built in)" */
  kk_plugin_state_t state;
  char reason[1024];
  bool builtin;
  kk__dl_t *dl;
  kk_plugin_ops_t ops;        /* zeroed copy, struct_size bytes from the plugin */
  uint32_t declared_struct_size;
  void *ctx;
  bool inited;
  bool opened;                /* device_open done */
  int device_count;
  int device;                 /* selected device, -1 */
  kk_plugin_device_t *devices;/* device_count properties */
  int space_count;
  struct kk_space *spaces;
  struct kk_instance *default_instance; /* its own allocation: kept after kk_finalize (handles.c) */
  pthread_mutex_t instances_lock;   /* guards the list below (create/destroy only) */
  struct kk_instance *instances;    /* created and not yet destroyed; finalize destroys leftovers */
  kk_host_services_t services;
  int32_t option_backend;     /* index into config backend_options, -1 */
  bool is_default, is_host;
} kk__backend_t;

/* The whole library state between kk_initialize and kk_finalize. */
typedef struct kk__state {
  bool initialized;
  kk__config_t config;
  kk_plugin_config_t plugin_config;
  int backend_count;
  kk__backend_t **backends;   /* serial first, then plugin files in search order */
  kk__backend_t *def;         /* default backend */
  kk__backend_t *host;        /* host backend beside it (may equal def) */
  int space_count;            /* spaces of the active backends */
  struct kk_space **spaces;
  int path_count;             /* effective plugin search path */
  char **path;
  char default_reason[512];   /* why def was chosen (kk_backend_default_reason) */
} kk__state_t;

/* Starts the built-in serial backend, then scans the plugin path and loads,
 * checks and initializes every plugin; appends them all to kk__g.backends.
 * Failures are recorded, never returned. */
void kk__load_all(void);

/* Validates an entry's ops table and copies it into b->ops; on failure sets
 * b->state/reason.  Exposed for the loader tests. */
bool kk__adopt_ops(kk__backend_t *b, const kk_plugin_ops_t *ops);

/* Initializes a loaded backend and queries its devices and spaces; on failure
 * records the reason.  */
void kk__backend_start(kk__backend_t *b);
/* Finalizes and unloads. */
void kk__backend_stop(kk__backend_t *b);

/* The serial backend's operations table (serial.c). */
const kk_plugin_ops_t *kk__serial_entry(uint32_t core_abi, const kk_host_services_t *hs);

/* Finds a loaded backend by name (any state). */
kk__backend_t *kk__backend_find(const char *name);

/* ---- kernels, views, dispatch (registry.c, view.c, dispatch.c) ------------ */

/* ---- handles that outlive kk_finalize (handles.c) ------------------ */

/* KK_ERROR_NOT_INITIALIZED for a stale handle: "<op>: <kind> '<label>' was
 * made before kk_finalize ..." (label NULL: "<op>: <kind> was made ...";
 * kind e.g. "view", "the instance"). */
kk_status_t kk__stale_error(const char *op, const char *kind, const char *label);
/* The same message, only formatted into buf. */
void kk__stale_message(char *buf, size_t size, const char *op, const char *kind, const char *label);

/* kk_finalize, for a backend in use: its spaces and default instance, and
 * the instances the program did not destroy (their plugin instances
 * destroyed now), are kept for the handles the program may still hold;
 * kk_instance_destroy frees a kept instance.  A backend not in use frees
 * them as usual. */
void kk__backend_retire_handles(struct kk__backend *b);
/* kk_instance_destroy of an instance kept by kk_finalize: frees its record. */
void kk__instance_forget(struct kk_instance *inst);

/* Set by a failed kk_view_bind*(); the next launch on the thread is refused. */
extern __attribute__((tls_model("initial-exec"))) _Thread_local bool kk__tl_bind_failed;
kk_status_t kk__take_bind_error(const char *op, const char *label);
/* A bind of a stale handle (kk_scatter_bind's too): its error, and the next
 * launch on the thread is refused with KK_ERROR_NOT_INITIALIZED. */
void kk__bind_fail_stale(const char *op, const char *kind, const char *label);

/* KK_OK for NULL or a view of the current initialization, else the stale
 * view's error naming op (view.c). */
kk_status_t kk__view_check(const char *op, const kk_view_t *v);

/* kk_finalize: frees view memory the program still holds (with a warning). */
void kk__views_release_all(void);

/* kk_space_alloc / kk_space_free without the tools' allocation events: for
 * views, which report their memory themselves. */
kk_status_t kk__space_alloc(kk_space_t *space, const char *label, size_t bytes, void **ptr);
kk_status_t kk__space_free(kk_space_t *space, void *ptr);

/* The plugin space index of `side` as backend b sees it: its own space,
 * KK_PLUGIN_HOST_MEMORY (NULL side: ordinary host memory), or -2 when b
 * cannot reach it (space.c). */
int32_t kk__side_index(const kk__backend_t *b, const kk_space_t *side);

/* kk_fence_named without the capture check: for the fences kk itself does
 * (a tool's), which no capture may refuse (space.c). */
kk_status_t kk__fence_all(const char *name);

/* ---- graphs (graph.c) ------------------------------------------------------ */

/* Is work queued on inst recorded into a graph?  One load on the dispatch
 * path; the kk__graph_record_* functions are called only behind it. */
static inline bool kk__capturing(kk_instance_t *inst) {
  return atomic_load_explicit(&inst->capture, memory_order_acquire) != NULL;
}

/* Records a checked launch (dispatch.c, instead of running it) and closes
 * the tuning context; refuses the synchronous forms (a result in host
 * memory) that a capture cannot replay. */
kk_status_t kk__graph_record_launch(const char *op, kk_instance_t *inst, const kk_launch_t *l, size_t tune_context);

/* Records the deep copy (src) or fill (src NULL) of views as one node: body(ctx)
 * does the copies or fills, which kk_space_copy and the fill path hand to
 * the two functions below (view.c). */
kk_status_t kk__graph_record_views(const char *op, kk_instance_t *inst, kk_view_t *dst, kk_view_t *src,
                                   kk_status_t (*body)(void *), void *ctx);
kk_status_t kk__graph_record_copy(kk_instance_t *inst, void *dst, int32_t dst_space, const void *src,
                                  int32_t src_space, size_t bytes);
kk_status_t kk__graph_record_fill(kk_instance_t *inst, kk_space_t *space, void *dst, const void *value,
                                  size_t elem_size, size_t count);

/* Captures under way; kk_fence looks closer only when it is not 0. */
extern atomic_int kk__captures_active;
/* KK_ERROR_CAPTURE (naming op) when the calling thread began a capture. */
kk_status_t kk__graph_fence_check(const char *op);

/* kk_finalize: ends captures and destroys the graphs the program left. */
void kk__graphs_release_all(void);
/* ---- bounds checking (bounds.c) ------------------------------------------------ */

/* A failure record for one host launch of a kernel built with kkcc
 * --bounds-check (0, the shared record, when all are taken). */
uint32_t kk__bounds_claim(void);
/* After the launch: gives the record back; true when an access failed,
 * with kk_last_error() (KK_ERROR_KERNEL_FAILED) naming the operation, label,
 * kernel, backend, the view's label, the indices, the extents and the
 * source line. */
bool kk__bounds_release(uint32_t slot, const char *op, const kk_launch_t *l, const kk__backend_t *b);
/* kk_host_services_t.bounds_report (ABI 1.5): a GPU plugin's record of a
 * failed access, as the same sentence; returns KK_ERROR_KERNEL_FAILED. */
kk_status_t kk__bounds_report(const kk__backend_t *b, uint32_t kind, const char *label, const char *kernel,
                              const kk_bounds_fault_t *f);
/* The label of the view whose memory holds `data`, quoted ("'x'"), or a
 * description of the address when no live view has it (view.c). */
void kk__view_label_at(const void *data, char *buf, size_t size);

/* ---- plugins that crash while loaded (probe.c) ------------------------------------ */

/* Whether the plugin file may be loaded into this process: true unless a
 * probe in a helper process (now, or cached for this file's path, size and
 * mtime) saw it crash, abort or hang in its entry, init, device or space
 * queries; `why` then says how.  True without a probe when probing is off
 * (KOKKOS_PLUGIN_PROBE=0) or the helper is missing. */
bool kk__probe_plugin(const char *path, const char *name, char *why, size_t why_size);
/* The helper program: $KK_PLUGIN_PROBE_HELPER, else the build tree's for the
 * uninstalled libkk, else the installed one. */
const char *kk__probe_helper(void);

/* Installed plugin directory, from configure. */
const char *kk__installed_plugin_dir(void);

/* ---- where plugins and tools are found (paths.c; docs/config.md) ---------- */

/* Installed directory of the bundled tools, $(pkglibdir)/tools. */
const char *kk__installed_tool_dir(void);
/* The file the dynamic loader opened for this libkk, NULL when unknown (the
 * core linked statically into a program). */
const char *kk__library_path(void);
/* Is this libkk the uninstalled one of its build tree?  True when the
 * directory it was loaded from holds the marker `make` writes there
 * (.libs/kk-build-tree, never installed) and kk__path_refused passes both. */
bool kk__is_build_tree(void);
/* The build tree's plugin and tool directories and probe helper, as its
 * marker names them, when kk__is_build_tree() (and KK_PLUGIN_PATH_NO_BUILD_TREE
 * is not set), else NULL. */
const char *kk__build_tree_plugin_dir(void);
const char *kk__build_tree_tool_dir(void);
const char *kk__build_tree_probe_helper(void);
/* Whether code (or a cache entry) must not be taken from `path`, a directory
 * or a file (docs/security.md): true when it, a directory above it or a
 * symbolic link on the way belongs to someone other than root, this user or
 * the owner of libkk's own file, or is writable by others (a directory above
 * it may be, with the sticky bit).  A refusal is warned about ("<what> <path>
 * refused: <why>"; not when `what` is NULL) and its reason copied into `why`
 * (may be NULL).  A path that does not exist is not refused: whoever opens it
 * says what is wrong. */
bool kk__path_refused(const char *what, const char *path, char *why, size_t why_size);
/* KK_PLUGIN_PATH_NO_DEFAULT: leave the installed plugin and tool directories out. */
bool kk__installed_dirs_skipped(void);
/* The directories a tool library named without a '/' is looked up in, in
 * order (the build tree's, the installed one); returns how many (<= 2). */
int kk__tool_dirs(const char *dirs[2]);
/* Finds the tool library `name` (no '/': "kk-kernel-timer.so", or without
 * ".so") in those directories; writes its path into `path` and returns true,
 * or false when it is in none (the name then goes to the system loader). */
bool kk__tool_find(const char *name, char *path, size_t size);

#endif /* KK_CORE_INTERNAL_H */
