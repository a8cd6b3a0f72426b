/* core/internal.h -- the types and macros every file of the core shares (prefix kk__); each file's functions are declared in its own header (core/<file>.h). */
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

/* ---- configuration (its functions: conf.h) ------------------------------ */

/* Where a configuration value came from, lowest precedence first. */
typedef enum kk__origin {
  KK__ORIGIN_DEFAULT = 0,
  KK__ORIGIN_SITE, /* the site's JSON file, $(sysconfdir)/kk/kk.json */
  KK__ORIGIN_JSON,
  KK__ORIGIN_ENV,
  KK__ORIGIN_SETTINGS,
  KK__ORIGIN_FLAG
} kk__origin_t;

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

/* ---- backends (shared types) ----------------------------------------------- */

/* An open shared object (dl.c). */
typedef struct kk__dl kk__dl_t;

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
  _Atomic(struct kk__capture *) capture; /* non-NULL while work on it is recorded into a graph (capture.c) */
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
  void *def_async;            /* the plugin's handle of its default instance (ABI 1.8), else NULL */
  struct kk_instance *default_instance; /* its own allocation: kept after kk_finalize (handles.c) */
  pthread_mutex_t instances_lock;   /* guards the list below (create/destroy only) */
  struct kk_instance *instances;    /* created and not yet destroyed; finalize destroys leftovers */
  kk_host_services_t services;
  int32_t option_backend;     /* index into config backend_options, -1 */
  bool is_default, is_host;
  bool moved_thread;          /* loading it changed the loading thread's CPU affinity (loader.c) */
} kk__backend_t;

/* What a memory operation queued on `inst` passes to its plugin: the
 * instance's handle; for the default instance the plugin's handle of it
 * (ABI 1.8), so that the copy is ordered on it and not completed on return;
 * NULL (complete on return) for no instance or a plugin without one. */
static inline void *kk__mem_inst(const struct kk_instance *inst) {
  return !inst ? NULL : inst->plugin_inst ? inst->plugin_inst : inst->backend->def_async;
}

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

#endif /* KK_CORE_INTERNAL_H */
