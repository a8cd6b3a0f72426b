/* core/init.c -- kk_initialize / kk_finalize: configuration, plugin loading, backend and device selection. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "dl.h"
#include "graph.h"
#include "handles.h"
#include "loader.h"
#include "package.h"
#include "paths.h"
#include "registry.h"
#include "state.h"
#include "status.h"
#include "tools.h"
#include "view.h"

/* kk_is_initialized() may be called from any thread at any time. */
static atomic_int g_initialized;


int kk_is_initialized(void) { return atomic_load(&g_initialized); }

/* kk_initialization_id(): the generation of the initialization under way, 0 outside one. */
static _Atomic uint64_t g_init_id;
uint64_t kk_initialization_id(void) { return atomic_load_explicit(&g_init_id, memory_order_acquire); }

static bool push_path(const char *p) {
  char **np = realloc(kk__g.path, sizeof *np * (size_t)(kk__g.path_count + 1));
  if (!np)
    return false;
  kk__g.path = np;
  if (!(kk__g.path[kk__g.path_count] = kk__strdup(p)))
    return false;
  kk__g.path_count++;
  return true;
}

/* "usable: openmp, serial; unusable: cuda (0 devices: ...), bad (cannot load: ...)" */
static void describe_backends(kk__str_t *s) {
  const char *sep = "";
  kk__str_addf(s, "usable backends: ");
  for (int i = 0; i < kk__g.backend_count; i++) {
    kk__backend_t *b = kk__g.backends[i];
    if (b->state == KK_PLUGIN_LOADED || b->state == KK_PLUGIN_BUILTIN) {
      kk__str_addf(s, "%s%s", sep, b->name);
      sep = ", ";
    }
  }
  sep = "; not usable: ";
  for (int i = 0; i < kk__g.backend_count; i++) {
    kk__backend_t *b = kk__g.backends[i];
    if (b->state == KK_PLUGIN_SKIPPED || b->state == KK_PLUGIN_NO_DEVICES) {
      kk__str_addf(s, "%s%s (%s: %s)", sep, b->name, b->path, b->reason);
      sep = "; ";
    }
  }
}

static bool usable(const kk__backend_t *b) { return b->state == KK_PLUGIN_LOADED || b->state == KK_PLUGIN_BUILTIN; }

/* Position of a backend in the JSON backend_order, or INT_MAX when absent. */
static int order_rank(const kk__backend_t *b) {
  for (int i = 0; i < kk__g.config.backend_order_count; i++)
    if (strcmp(kk__g.config.backend_order[i], b->name) == 0)
      return i;
  return 1 << 30;
}

/* Is a better than b for selection? backend_order first, then priority. */
static bool better(const kk__backend_t *a, const kk__backend_t *b) {
  if (!b)
    return true;
  int ra = order_rank(a), rb = order_rank(b);
  if (ra != rb)
    return ra < rb;
  return a->ops.priority > b->ops.priority;
}

/* Why the default backend is the one chosen, for kk_backend_default_reason():
 * the origin of a request, or the ranking that made the automatic choice. */
static void describe_choice(const kk__backend_t *def) {
  const kk__config_t *cfg = &kk__g.config;
  kk__str_t s = {0};
  if (cfg->device_backend) {
    static const char *const how[] = {
        [KK__ORIGIN_DEFAULT] = "by default", [KK__ORIGIN_SITE] = "by the site configuration's \"device\"",
        [KK__ORIGIN_JSON] = "by the configuration file's \"device\"",
        [KK__ORIGIN_ENV] = "by KOKKOS_DEVICE", [KK__ORIGIN_SETTINGS] = "by the program (kk_settings_t.device)",
        [KK__ORIGIN_FLAG] = "on the command line (--kokkos-device)"};
    kk__str_addf(&s, "requested %s", how[cfg->device_origin]);
  } else {
    kk__str_addf(&s, "%s",
                 order_rank(def) < (1 << 30) ? "automatic: first usable backend of the configuration's backend_order"
                                             : "automatic: the usable backend of highest priority");
    /* every usable backend, best first, with its priority */
    const char *sep = " (";
    bool listed[256] = {false};
    for (;;) {
      int best = -1;
      for (int i = 0; i < kk__g.backend_count && i < 256; i++)
        if (!listed[i] && usable(kk__g.backends[i]) && (best < 0 || better(kk__g.backends[i], kk__g.backends[best])))
          best = i;
      if (best < 0)
        break;
      listed[best] = true;
      kk__str_addf(&s, "%s%s %d", sep, kk__g.backends[best]->name, kk__g.backends[best]->ops.priority);
      sep = ", ";
    }
    if (*sep == ',')
      kk__str_addf(&s, ")");
    sep = "; no devices: ";
    for (int i = 0; i < kk__g.backend_count; i++)
      if (kk__g.backends[i]->state == KK_PLUGIN_NO_DEVICES) {
        kk__str_addf(&s, "%s%s", sep, kk__g.backends[i]->name);
        sep = ", ";
      }
  }
  kk__snprintf(kk__g.default_reason, sizeof kk__g.default_reason, "%s", s.s ? s.s : "");
  kk__str_free(&s);
}

static kk_status_t select_backends(void) {
  kk__config_t *cfg = &kk__g.config;
  kk__backend_t *def = NULL;
  if (cfg->device_backend) {
    def = kk__backend_find(cfg->device_backend);
    if (!def || !usable(def)) {
      kk__str_t s = {0};
      if (!def) {
        kk__str_addf(&s, "kk_initialize: backend '%s' was requested (%s) but no plugin kk_%s.so is in the plugin path (",
                     cfg->device_backend, kk__origin_name(cfg->device_origin), cfg->device_backend);
        for (int i = 0; i < kk__g.path_count; i++)
          kk__str_addf(&s, "%s%s", i ? ":" : "", kk__g.path[i]);
        kk__str_addf(&s, "); ");
        char pkg[128];
        if (kk__backend_package(cfg->device_backend, pkg, sizeof pkg))
          kk__str_addf(&s, "install the package %s; ", pkg);
      } else {
        kk__str_addf(&s, "kk_initialize: backend '%s' was requested (%s) but cannot be used: %s; ",
                     cfg->device_backend, kk__origin_name(cfg->device_origin), def->reason);
      }
      describe_backends(&s);
      kk_status_t st = def && def->state == KK_PLUGIN_NO_DEVICES ? KK_ERROR_NO_DEVICE
                       : def                                    ? KK_ERROR_PLUGIN
                                                                : KK_ERROR_NOT_FOUND;
      kk__error(st, "%s", s.s ? s.s : "kk_initialize: requested backend unavailable");
      kk__str_free(&s);
      return st;
    }
  } else {
    for (int i = 0; i < kk__g.backend_count; i++)
      if (usable(kk__g.backends[i]) && better(kk__g.backends[i], def))
        def = kk__g.backends[i];
  }
  kk__backend_t *host = NULL;
  if (def->ops.flags & KK_PLUGIN_FLAG_HOST)
    host = def;
  else
    for (int i = 0; i < kk__g.backend_count; i++) {
      kk__backend_t *b = kk__g.backends[i];
      if (usable(b) && (b->ops.flags & KK_PLUGIN_FLAG_HOST) && better(b, host))
        host = b;
    }
  kk__g.def = def;
  kk__g.host = host; /* serial is always usable, so host is never NULL */
  describe_choice(def);
  def->is_default = true;
  host->is_host = true;
  return KK_OK;
}

/* The local rank an MPI launcher gives the process, or -1, with the variable
 * it came from and, where that launcher also sets it, the number of ranks on
 * this node (else -1). */
static int mpi_local_rank(const char **var, int *local_size) {
  static const char *const vars[][2] = {
      {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"}, /* Open MPI */
      {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"},   /* MVAPICH */
      {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},                       /* MPICH (Hydra) */
      {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},                   /* srun (the size only with --ntasks-per-node) */
      {"PMI_LOCAL_RANK", "PMI_LOCAL_SIZE"},                         /* PMI-2 / PMIx launchers */
  };
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    const char *v = getenv(vars[i][0]);
    if (v && *v) {
      const char *n = getenv(vars[i][1]);
      if (var)
        *var = vars[i][0];
      if (local_size)
        *local_size = n && *n ? atoi(n) : -1;
      return atoi(v);
    }
  }
  return -1;
}

static kk_status_t select_device(kk__backend_t *b) {
  kk__config_t *cfg = &kk__g.config;
  bool is_host = (b->ops.flags & KK_PLUGIN_FLAG_HOST) != 0;
  int n = b->device_count;
  int visible[256];
  int nvis = 0;
  if (cfg->visible_count && !is_host) {
    for (int i = 0; i < cfg->visible_count && nvis < 256; i++)
      if (cfg->visible[i] < n)
        visible[nvis++] = cfg->visible[i];
    if (nvis == 0)
      return kk__error(KK_ERROR_NO_DEVICE,
                       "kk_initialize: the visible devices (%s) leave no device of backend %s, which has %d",
                       kk__origin_name(cfg->visible_origin), b->name, n);
  } else {
    for (int i = 0; i < n && i < 256; i++)
      visible[nvis++] = i;
  }
  int pos = 0;
  const char *how = "default";
  if (b->is_default && cfg->device_index >= 0) {
    pos = cfg->device_index;
    how = "--kokkos-device index";
  } else if (!is_host && cfg->device_id >= 0) {
    pos = cfg->device_id;
    how = "device id";
  } else if (!is_host && cfg->map_device_id_by == KK_MAP_DEVICE_RANDOM) {
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    pos = rand() % nvis;
    how = "random";
  } else if (!is_host && (cfg->map_device_id_by == KK_MAP_DEVICE_MPI_RANK ||
                          (cfg->map_device_id_by == KK_MAP_DEVICE_NONE && mpi_local_rank(NULL, NULL) >= 0))) {
    const char *var = NULL;
    int local_size = -1;
    int r = mpi_local_rank(&var, &local_size);
    pos = r >= 0 ? r % nvis : 0;
    how = "MPI local rank";
    /* Fewer devices than ranks on the node: they share round-robin, which
     * runs but is rarely what was meant.  Said once per node where the
     * launcher gives the node's rank count (by local rank 0), else by every
     * rank beyond the devices. */
    if (r >= 0 && local_size > nvis && r == 0)
      kk__warn("%d MPI ranks on this node (%s) share the %d visible device%s of backend %s round-robin "
               "(local rank %d uses device %d)",
               local_size, var, nvis, nvis == 1 ? "" : "s", b->name, r, visible[pos]);
    else if (r >= nvis && local_size <= nvis)
      kk__warn("MPI local rank %d (%s) is beyond the %d visible device%s of backend %s: ranks share devices "
               "round-robin (this one uses device %d)",
               r, var, nvis, nvis == 1 ? "" : "s", b->name, visible[pos]);
    else if (r < 0)
      how = "MPI local rank (no launcher variable: device 0)";
  }
  if (pos >= nvis)
    return kk__error(KK_ERROR_NO_DEVICE, "kk_initialize: device %d (%s) does not exist: backend %s has %d visible device%s",
                     pos, how, b->name, nvis, nvis == 1 ? "" : "s");
  b->device = visible[pos];
  kk__debug("backend %s: device %d (%s)", b->name, b->device, how);
  kk_status_t st = b->ops.device_open(b->ctx, b->device);
  if (st != KK_OK)
    return kk__error(st, "kk_initialize: opening device %d of backend %s failed: %s", b->device, b->name,
                     kk_last_error());
  b->opened = true;
  b->def_async = KK_PLUGIN_HAS(&b->ops, instance_default) ? b->ops.instance_default(b->ctx) : NULL;
  return KK_OK;
}

static kk_status_t collect_spaces(void) {
  kk__backend_t *act[2] = {kk__g.def, kk__g.host != kk__g.def ? kk__g.host : NULL};
  for (int a = 0; a < 2; a++) {
    if (!act[a])
      continue;
    for (int s = 0; s < act[a]->space_count; s++) {
      struct kk_space **ns = realloc(kk__g.spaces, sizeof *ns * (size_t)(kk__g.space_count + 1));
      if (!ns)
        return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk_initialize: out of memory");
      kk__g.spaces = ns;
      kk__g.spaces[kk__g.space_count++] = &act[a]->spaces[s];
    }
  }
  return KK_OK;
}

/* Stops every backend and forgets the state.  handles_out: kk_finalize,
 * after which the program may still hold handles of the backends in use. */
static void teardown(bool handles_out) {
  for (int i = kk__g.backend_count - 1; i >= 0; i--) {
    kk__backend_t *b = kk__g.backends[i];
    if (handles_out && (b->is_default || b->is_host))
      kk__backend_retire_handles(b);
    kk__backend_stop(b);
  }
  free(kk__g.backends);
  free(kk__g.spaces);
  for (int i = 0; i < kk__g.path_count; i++)
    free(kk__g.path[i]);
  free(kk__g.path);
  kk__config_free(&kk__g.config);
  memset(&kk__g, 0, sizeof kk__g);
  kk__dl_exit();
}

/* kk_initialize and kk_finalize run one at a time: a second thread calling
 * either waits for the first and then finds kk initialized (or not).  A call
 * from inside one of them (an error handler, a tool's callback) is refused
 * instead of deadlocking. */
static pthread_mutex_t g_init_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local bool tl_in_init;

static kk_status_t initialize_locked(int *argc, char ***argv, const kk_settings_t *settings) {
  if (kk__g.initialized)
    return kk__error(KK_ERROR_ALREADY_INITIALIZED,
                     "kk_initialize: kk is already initialized (call kk_finalize before initializing again)");
  kk_clear_error();
  kk__generation_next(); /* what this initialization makes is told apart from an earlier one's */
  const char *dbg = getenv("KK_DEBUG");
  bool on = false;
  kk__debug_enabled = dbg && kk__parse_bool(dbg, &on) && on;
  memset(&kk__g, 0, sizeof kk__g);
  if ((argc == NULL) != (argv == NULL) || (argc && *argc > 0 && !*argv))
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_initialize: argc and argv must both be given or both be NULL");

  kk_status_t st = kk__config_resolve(argc ? *argc : 0, argv ? *argv : NULL, settings, &kk__g.config);
  if (st != KK_OK)
    return st;
  kk__config_t *cfg = &kk__g.config;
  kk__warnings_disabled = cfg->disable_warnings;
  for (int i = 0; i < cfg->warning_count; i++)
    kk__warn("%s", cfg->warnings[i]);
  if (cfg->help) {
    kk__config_print_help(stdout);
    kk__config_apply_argv(cfg, argc, argv);
    kk__config_free(cfg);
    return KK_EXIT_REQUESTED;
  }
  if (cfg->tools_help) {
    kk__tools_print_help(argc && *argc > 0 ? (*argv)[0] : NULL);
    kk__config_apply_argv(cfg, argc, argv);
    kk__config_free(cfg);
    return KK_EXIT_REQUESTED;
  }

  kk__g.plugin_config = (kk_plugin_config_t){
      .struct_size = sizeof(kk_plugin_config_t),
      .num_threads = cfg->num_threads,
      .device_id = cfg->device_id,
      .disable_warnings = cfg->disable_warnings,
      .tune_internals = cfg->tune_internals,
      .map_device_id_by = cfg->map_device_id_by,
      .visible_device_count = cfg->visible_count,
      .visible_devices = cfg->visible,
  };

  if (kk__dl_init() != 0) {
    kk__config_free(cfg);
    return kk__error(KK_ERROR_PLUGIN, "kk_initialize: libltdl could not be initialized");
  }
  bool ok = true;
  for (int i = 0; ok && i < cfg->plugin_path_count; i++)
    ok = push_path(cfg->plugin_path[i]);
  /* An uninstalled libkk takes its build tree's plugins, after the user's
   * entries and before the installed ones (docs/config.md). */
  const char *tree = kk__build_tree_plugin_dir();
  for (int i = 0; tree && i < kk__g.path_count; i++)
    if (strcmp(kk__g.path[i], tree) == 0)
      tree = NULL;
  if (tree && ok)
    ok = push_path(tree);
  if (!kk__installed_dirs_skipped() && ok)
    ok = push_path(kk__installed_plugin_dir());
  if (!ok) {
    teardown(false);
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk_initialize: out of memory");
  }

  kk__load_all();
  if ((st = select_backends()) == KK_OK)
    kk__loader_restore_affinity(); /* before any device opens and starts threads */
  if (st != KK_OK || (st = select_device(kk__g.def)) != KK_OK ||
      (kk__g.host != kk__g.def && (st = select_device(kk__g.host)) != KK_OK) || (st = collect_spaces()) != KK_OK) {
    teardown(false);
    return st;
  }
  kk__g.initialized = true;
  atomic_store_explicit(&g_init_id, (uint64_t)kk__generation_now(), memory_order_release);
  atomic_store(&g_initialized, 1);
  kk__modules_attach_all();
  kk__tools_initialize(argc && *argc > 0 ? (*argv)[0] : NULL);
  kk__config_apply_argv(cfg, argc, argv);
  if (cfg->print_configuration)
    kk_print_configuration(stdout);
  return KK_OK;
}

kk_status_t kk_initialize_ex(int *argc, char ***argv, const kk_settings_t *settings) {
  if (tl_in_init)
    return kk__error(KK_ERROR_IN_USE, "kk_initialize: called while this thread is inside kk_initialize or "
                                      "kk_finalize (from an error handler or a tool)");
  pthread_mutex_lock(&g_init_lock);
  tl_in_init = true;
  kk_status_t st = initialize_locked(argc, argv, settings);
  tl_in_init = false;
  pthread_mutex_unlock(&g_init_lock);
  return st;
}

kk_status_t kk_initialize(int *argc, char ***argv) { return kk_initialize_ex(argc, argv, NULL); }

kk_status_t kk_initialize_with_settings(const kk_settings_t *settings) {
  return kk_initialize_ex(NULL, NULL, settings);
}

/* kk_push_finalize_hook's stack (its own lock: a hook may push another). */
typedef struct {
  void (*fn)(void *);
  void *arg;
} finalize_hook_t;
static pthread_mutex_t g_hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static finalize_hook_t *g_hooks;
static size_t g_nhooks, g_hooks_cap;

kk_status_t kk_push_finalize_hook(void (*hook)(void *arg), void *arg) {
  if (!hook)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_push_finalize_hook: the hook is NULL");
  pthread_mutex_lock(&g_hooks_lock);
  if (g_nhooks == g_hooks_cap) {
    size_t cap = g_hooks_cap ? 2 * g_hooks_cap : 8;
    finalize_hook_t *h = realloc(g_hooks, cap * sizeof *h);
    if (!h) {
      pthread_mutex_unlock(&g_hooks_lock);
      return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk_push_finalize_hook: no memory for %zu hooks", cap);
    }
    g_hooks = h, g_hooks_cap = cap;
  }
  g_hooks[g_nhooks++] = (finalize_hook_t){hook, arg};
  pthread_mutex_unlock(&g_hooks_lock);
  return KK_OK;
}

/* Runs the pushed hooks, the last first, until none is left. */
static void run_finalize_hooks(void) {
  for (;;) {
    pthread_mutex_lock(&g_hooks_lock);
    if (g_nhooks == 0) {
      free(g_hooks);
      g_hooks = NULL, g_hooks_cap = 0;
      pthread_mutex_unlock(&g_hooks_lock);
      return;
    }
    finalize_hook_t h = g_hooks[--g_nhooks];
    pthread_mutex_unlock(&g_hooks_lock);
    h.fn(h.arg);
  }
}

static kk_status_t finalize_locked(void) {
  if (!kk__g.initialized)
    return kk__error(KK_ERROR_NOT_INITIALIZED, "kk_finalize: kk is not initialized");
  run_finalize_hooks(); /* libraries release what they keep, while kk still runs */
  kk__graphs_release_all(); /* ends captures, so that the fence is not refused */
  kk_status_t st = kk_fence_named("kk_finalize: fence before finalizing");
  kk__modules_detach_all();
  kk__views_release_all();
  kk__tools_finalize(); /* before the backends shut down */
  atomic_store(&g_initialized, 0);
  atomic_store_explicit(&g_init_id, 0, memory_order_release);
  kk__g.initialized = false;
  teardown(true);
  kk__generation_next(); /* every handle the program still holds is stale from now on */
  return st;
}

kk_status_t kk_finalize(void) {
  if (tl_in_init)
    return kk__error(KK_ERROR_IN_USE, "kk_finalize: called while this thread is inside kk_initialize or "
                                      "kk_finalize (from an error handler or a tool)");
  pthread_mutex_lock(&g_init_lock);
  tl_in_init = true;
  kk_status_t st = finalize_locked();
  tl_in_init = false;
  pthread_mutex_unlock(&g_init_lock);
  return st;
}
