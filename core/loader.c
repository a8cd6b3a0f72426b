/* core/loader.c -- finds backend plugins in the search path, checks their ABI and starts them; records why any is skipped. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bounds.h"
#include "dl.h"
#include "loader.h"
#include "paths.h"
#include "probe.h"
#include "serial.h"
#include "state.h"
#include "status.h"

#ifndef KK_PLUGINDIR
#define KK_PLUGINDIR "/usr/local/lib/kk/plugins"
#endif

const char *kk__installed_plugin_dir(void) { return KK_PLUGINDIR; }

/* ---- host services ---------------------------------------------------------- */

static void hs_log(void *core, kk_log_level_t level, const char *fmt, ...) {
  kk__backend_t *b = core;
  if (level >= KK_LOG_WARNING ? kk__warnings_disabled : !kk__debug_enabled)
    return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  kk__vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "kk[%s]: %s%s\n", b->name, level >= KK_LOG_WARNING ? "warning: " : "", buf);
}

static kk_status_t hs_error(void *core, kk_status_t status, const char *native_name, int64_t native_code,
                            const char *fmt, ...) {
  kk__backend_t *b = core;
  char buf[1536];
  va_list ap;
  va_start(ap, fmt);
  kk__vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (native_name)
    return kk__error(status, "kk[%s]: %s (%s = %lld)", b->name, buf, native_name, (long long)native_code);
  return kk__error(status, "kk[%s]: %s", b->name, buf);
}

static kk_status_t hs_bounds_report(void *core, uint32_t kind, const char *label, const char *kernel,
                                    const kk_bounds_fault_t *f) {
  return kk__bounds_report(core, kind, label, kernel, f);
}

static const char *hs_option(void *core, const char *key) {
  kk__backend_t *b = core;
  if (b->option_backend < 0 || !key)
    return NULL;
  const kk__backend_options_t *bo = &kk__g.config.backend_options[b->option_backend];
  for (int i = 0; i < bo->count; i++)
    if (strcmp(bo->keys[i], key) == 0)
      return bo->values[i];
  return NULL;
}

static kk__backend_t *backend_new(const char *name, const char *path) {
  kk__backend_t *b = calloc(1, sizeof *b);
  if (!b)
    return NULL;
  b->name = kk__strdup(name);
  b->path = kk__strdup(path);
  b->device = -1;
  b->option_backend = -1;
  for (int i = 0; i < kk__g.config.backend_options_count; i++)
    if (strcmp(kk__g.config.backend_options[i].backend, name) == 0)
      b->option_backend = i;
  b->services.struct_size = sizeof b->services;
  b->services.abi_version = KK_PLUGIN_ABI_VERSION;
  b->services.core = b;
  b->services.log = hs_log;
  b->services.error = hs_error;
  b->services.option = hs_option;
  b->services.bounds_report = hs_bounds_report;
  b->services.config = &kk__g.plugin_config;
  b->default_instance = calloc(1, sizeof *b->default_instance);
  pthread_mutex_init(&b->instances_lock, NULL);
  if (!b->name || !b->path || !b->default_instance) {
    pthread_mutex_destroy(&b->instances_lock);
    free(b->default_instance);
    free(b->name);
    free(b->path);
    free(b);
    return NULL;
  }
  b->default_instance->backend = b;
  b->default_instance->is_default = true;
  b->default_instance->gen = kk__generation_now();
  return b;
}

static void skip(kk__backend_t *b, kk_plugin_state_t state, const char *fmt, ...) KK__PRINTF(3, 4);
static void skip(kk__backend_t *b, kk_plugin_state_t state, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kk__vsnprintf(b->reason, sizeof b->reason, fmt, ap);
  va_end(ap);
  b->state = state;
  kk__debug("plugin %s (%s): %s", b->name, b->path, b->reason);
}

static bool append_backend(kk__backend_t *b) {
  kk__backend_t **nb = realloc(kk__g.backends, sizeof *nb * (size_t)(kk__g.backend_count + 1));
  if (!nb)
    return false;
  kk__g.backends = nb;
  kk__g.backends[kk__g.backend_count++] = b;
  return true;
}

/* ---- the ABI check -------------------------------------------------------- */

/* Members that must be present, and the ABI minor since which they must. */
typedef struct required {
  size_t offset;
  const char *name;
  uint32_t since_minor;
} required_t;

#define REQ(member, minor) {offsetof(kk_plugin_ops_t, member), #member, minor}
static const required_t required_members[] = {
    REQ(init, 0),           REQ(finalize, 0),        REQ(device_count, 0), REQ(device_props, 0),
    REQ(device_open, 0),    REQ(space_count, 0),     REQ(space_props, 0),  REQ(mem_alloc, 0),
    REQ(mem_free, 0),       REQ(mem_copy, 0),        REQ(mem_set, 0),      REQ(instance_create, 0),
    REQ(instance_destroy, 0), REQ(instance_fence, 0), REQ(fence_all, 0), REQ(launch, 1),
};
#undef REQ

bool kk__adopt_ops(kk__backend_t *b, const kk_plugin_ops_t *ops) {
  const size_t header = offsetof(kk_plugin_ops_t, init);
  if (ops->struct_size < header) {
    skip(b, KK_PLUGIN_SKIPPED, "operations table is %u bytes, smaller than its %zu-byte header", ops->struct_size,
         header);
    return false;
  }
  uint32_t major = KK_PLUGIN_ABI_MAJOR_OF(ops->abi_version), minor = KK_PLUGIN_ABI_MINOR_OF(ops->abi_version);
  if (major != KK_PLUGIN_ABI_MAJOR) {
    skip(b, KK_PLUGIN_SKIPPED, "plugin ABI %u.%u is incompatible with this kk's plugin ABI %u.%u (majors differ)",
         major, minor, KK_PLUGIN_ABI_MAJOR, KK_PLUGIN_ABI_MINOR);
    return false;
  }
  if (!ops->name || strcmp(ops->name, b->name) != 0) {
    skip(b, KK_PLUGIN_SKIPPED, "operations table names backend '%s', but the file is for '%s'",
         ops->name ? ops->name : "(null)", b->name);
    return false;
  }
  memset(&b->ops, 0, sizeof b->ops);
  size_t n = ops->struct_size < sizeof b->ops ? ops->struct_size : sizeof b->ops;
  memcpy(&b->ops, ops, n);
  b->declared_struct_size = ops->struct_size;
  b->ops.struct_size = (uint32_t)n;
  if (KK_PLUGIN_HAS(&b->ops, module_load) && !KK_PLUGIN_HAS(&b->ops, kernel_get)) {
    skip(b, KK_PLUGIN_SKIPPED, "has module_load but no kernel_get");
    return false;
  }
  for (size_t i = 0; i < sizeof required_members / sizeof *required_members; i++) {
    const required_t *r = &required_members[i];
    if (minor < r->since_minor)
      continue;
    void *fn;
    if (r->offset + sizeof fn > n) {
      skip(b, KK_PLUGIN_SKIPPED, "operations table (%zu bytes) ends before required member '%s' of ABI %u.%u", n,
           r->name, major, minor);
      return false;
    }
    memcpy(&fn, (const char *)&b->ops + r->offset, sizeof fn);
    if (!fn) {
      skip(b, KK_PLUGIN_SKIPPED, "required member '%s' is missing (required since ABI 1.%u)", r->name,
           r->since_minor);
      return false;
    }
  }
  return true;
}

/* ---- starting a backend ---------------------------------------------------- */

void kk__backend_start(kk__backend_t *b) {
  kk_clear_error();
  kk_status_t st = b->ops.init(&b->services, &b->ctx);
  if (st != KK_OK) {
    skip(b, KK_PLUGIN_SKIPPED, "initialization failed: %s",
         kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
    return;
  }
  b->inited = true;
  const char *why = NULL;
  int n = b->ops.device_count(b->ctx, &why);
  if (n <= 0) {
    skip(b, KK_PLUGIN_NO_DEVICES, "0 devices: %s", why && *why ? why : "the backend found none");
    return;
  }
  b->devices = calloc((size_t)n, sizeof *b->devices);
  if (!b->devices) {
    skip(b, KK_PLUGIN_SKIPPED, "out of memory");
    return;
  }
  for (int d = 0; d < n; d++) {
    b->devices[d].struct_size = sizeof b->devices[d];
    if ((st = b->ops.device_props(b->ctx, d, &b->devices[d])) != KK_OK) {
      skip(b, KK_PLUGIN_SKIPPED, "device %d: properties unavailable: %s", d, kk_last_error());
      return;
    }
    if (b->devices[d].preferred_layout != KK_LAYOUT_RIGHT && b->devices[d].preferred_layout != KK_LAYOUT_LEFT)
      b->devices[d].preferred_layout = KK_LAYOUT_RIGHT;
  }
  b->device_count = n;
  int ns = b->ops.space_count(b->ctx);
  if (ns <= 0) {
    skip(b, KK_PLUGIN_SKIPPED, "reports no memory space");
    return;
  }
  b->spaces = calloc((size_t)ns, sizeof *b->spaces);
  if (!b->spaces) {
    skip(b, KK_PLUGIN_SKIPPED, "out of memory");
    return;
  }
  for (int s = 0; s < ns; s++) {
    kk_plugin_space_t p = {.struct_size = sizeof p};
    if ((st = b->ops.space_props(b->ctx, s, &p)) != KK_OK) {
      skip(b, KK_PLUGIN_SKIPPED, "memory space %d: properties unavailable: %s", s, kk_last_error());
      return;
    }
    b->spaces[s].backend = b;
    b->spaces[s].gen = kk__generation_now();
    b->spaces[s].index = s;
    b->spaces[s].flags = p.flags;
    memcpy(b->spaces[s].name, p.name, sizeof b->spaces[s].name);
    b->spaces[s].name[sizeof b->spaces[s].name - 1] = '\0';
  }
  b->space_count = ns;
  b->state = b->builtin ? KK_PLUGIN_BUILTIN : KK_PLUGIN_LOADED;
  b->reason[0] = '\0';
}

void kk__backend_stop(kk__backend_t *b) {
  /* Instances the program did not destroy die with their backend. */
  while (b->instances) {
    struct kk_instance *inst = b->instances;
    b->instances = inst->next;
    kk__debug("backend %s: destroying an instance the program did not destroy", b->name);
    b->ops.instance_fence(b->ctx, inst->plugin_inst);
    b->ops.instance_destroy(b->ctx, inst->plugin_inst);
    free(inst);
  }
  pthread_mutex_destroy(&b->instances_lock);
  free(b->default_instance); /* NULL when kept for the program's handles */
  if (b->inited && b->ops.finalize)
    b->ops.finalize(b->ctx);
  b->inited = false;
  b->opened = false;
  kk__dl_close(b->dl);
  b->dl = NULL;
  free(b->devices);
  free(b->spaces);
  free(b->name);
  free(b->path);
  free(b);
}

/* ---- loading one file ---------------------------------------------------- */

/* "kk_cuda.so" -> "cuda"; NULL when the name does not follow the pattern. */
static char *plugin_name_of(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n <= 6 || strncmp(base, "kk_", 3) != 0 || strcmp(base + n - 3, ".so") != 0)
    return NULL;
  char *name = malloc(n - 5);
  if (!name)
    return NULL;
  memcpy(name, base + 3, n - 6);
  name[n - 6] = '\0';
  return name;
}

static void load_file_inner(const char *path) {
  char *name = plugin_name_of(path);
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  kk__backend_t *b = backend_new(name ? name : base, path);
  if (!b || !append_backend(b)) {
    if (b)
      kk__backend_stop(b);
    free(name);
    return;
  }
  if (!name) {
    skip(b, KK_PLUGIN_SKIPPED, "a plugin file must be named kk_<name>.so");
    return;
  }
  free(name);
  for (int i = 0; i < kk__g.backend_count - 1; i++) {
    kk__backend_t *o = kk__g.backends[i];
    if (o->state != KK_PLUGIN_SHADOWED && strcmp(o->name, b->name) == 0) {
      if (o->builtin)
        skip(b, KK_PLUGIN_SHADOWED, "the built-in %s backend takes precedence", o->name);
      else
        skip(b, KK_PLUGIN_SHADOWED, "shadowed by %s, earlier in the plugin path", o->path);
      return;
    }
  }
  char why[1024];
  if (kk__path_refused("plugin", path, why, sizeof why)) {
    skip(b, KK_PLUGIN_SKIPPED, "refused: %s (docs/security.md)", why);
    return;
  }
  if (!kk__probe_plugin(path, b->name, why, sizeof why)) {
    skip(b, KK_PLUGIN_SKIPPED, "%s", why);
    return;
  }
  b->dl = kk__dl_open(path, why, sizeof why);
  if (!b->dl) {
    skip(b, KK_PLUGIN_SKIPPED, "cannot load: %s", why);
    return;
  }
  char symbol[128];
  snprintf(symbol, sizeof symbol, "kk_plugin_%s_entry", b->name);
  kk_plugin_entry_fn entry;
  void *sym = kk__dl_sym(b->dl, symbol);
  if (!sym) {
    skip(b, KK_PLUGIN_SKIPPED, "entry symbol %s not found", symbol);
    return;
  }
  memcpy(&entry, &sym, sizeof entry); /* object to function pointer, as POSIX allows */
  kk_clear_error();
  const kk_plugin_ops_t *ops = entry(KK_PLUGIN_ABI_VERSION, &b->services);
  if (!ops) {
    skip(b, KK_PLUGIN_SKIPPED, "entry %s refused this kk (plugin ABI %u.%u)%s%s", symbol, KK_PLUGIN_ABI_MAJOR,
         KK_PLUGIN_ABI_MINOR, kk_last_status() != KK_OK ? ": " : "",
         kk_last_status() != KK_OK ? kk_last_error() : "");
    return;
  }
  if (!kk__adopt_ops(b, ops))
    return;
  kk__backend_start(b);
}

static void affinity_note_load(kk__backend_t *b);

/* Loads one plugin file, noting whether that changed the thread's affinity. */
static void load_file(const char *path) {
  int n = kk__g.backend_count;
  load_file_inner(path);
  if (kk__g.backend_count > n)
    affinity_note_load(kk__g.backends[kk__g.backend_count - 1]);
}

/* ---- the search path ---------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void scan_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    kk__debug("plugin directory %s: %s", dir, strerror(errno));
    return;
  }
  char **names = NULL;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len <= 6 || strncmp(e->d_name, "kk_", 3) != 0 || strcmp(e->d_name + len - 3, ".so") != 0)
      continue;
    char **nn = realloc(names, sizeof *nn * (size_t)(n + 1));
    if (!nn)
      break;
    names = nn;
    names[n] = kk__strdup(e->d_name);
    if (names[n])
      n++;
  }
  closedir(d);
  if (n > 1) /* qsort(NULL, 0) is undefined: an empty directory gives names == NULL */
    qsort(names, (size_t)n, sizeof *names, cmp_str);
  for (int i = 0; i < n; i++) {
    kk__str_t path = {0};
    kk__str_addf(&path, "%s/%s", dir, names[i]);
    if (path.s)
      load_file(path.s);
    kk__str_free(&path);
    free(names[i]);
  }
  free(names);
}

static void load_builtin_serial(void) {
  kk__backend_t *b = backend_new("serial", "(built in)");
  if (!b || !append_backend(b)) {
    if (b)
      kk__backend_stop(b);
    return;
  }
  b->builtin = true;
  const kk_plugin_ops_t *ops = kk__serial_entry(KK_PLUGIN_ABI_VERSION, &b->services);
  if (ops && kk__adopt_ops(b, ops))
    kk__backend_start(b);
}

/* ---- the loading thread's CPU affinity ------------------------------------------
 * A plugin's libraries may bind the thread that loads them: libgomp, which the
 * openmp plugin links, binds it to the first place as it loads when
 * OMP_PROC_BIND is set.  That is OpenMP's own behaviour when the openmp backend
 * runs kk's kernels, and a side effect of a plugin kk does not use otherwise:
 * the threads backend's workers, which inherit the launching thread's mask,
 * would then all share that thread's core.  The loader notes which plugin
 * changed the mask, and kk__loader_restore_affinity undoes it when none of the
 * backends kk selected did. */
#ifdef CPU_EQUAL
static cpu_set_t g_mask_before, g_mask_last; /* before the first load, after the latest */
static bool g_have_mask;
#endif

static void affinity_note_start(void) {
#ifdef CPU_EQUAL
  g_have_mask = sched_getaffinity(0, sizeof g_mask_before, &g_mask_before) == 0;
  g_mask_last = g_mask_before;
#endif
}

/* b was just loaded: did its load change the mask since the previous load? */
static void affinity_note_load(kk__backend_t *b) {
#ifdef CPU_EQUAL
  cpu_set_t now;
  if (g_have_mask && sched_getaffinity(0, sizeof now, &now) == 0 && !CPU_EQUAL(&now, &g_mask_last)) {
    b->moved_thread = true;
    g_mask_last = now;
  }
#else
  (void)b;
#endif
}

void kk__loader_restore_affinity(void) {
#ifdef CPU_EQUAL
  if (!g_have_mask)
    return;
  bool selected = false, other = false;
  for (int i = 0; i < kk__g.backend_count; i++) {
    const kk__backend_t *b = kk__g.backends[i];
    if (b->moved_thread)
      *(b->is_default || b->is_host ? &selected : &other) = true;
  }
  if (other && !selected) {
    if (sched_setaffinity(0, sizeof g_mask_before, &g_mask_before) == 0)
      kk__debug("restored the CPU affinity the initializing thread had before an unused plugin changed it");
    else
      kk__debug("could not restore the initializing thread's CPU affinity: %s", strerror(errno));
  }
#endif
}

void kk__load_all(void) {
  affinity_note_start();
  load_builtin_serial();
  for (int i = 0; i < kk_plugin_path_count(); i++) {
    const char *entry = kk_plugin_path_entry(i);
    struct stat sb;
    if (stat(entry, &sb) == 0 && S_ISDIR(sb.st_mode)) {
      if (!kk__path_refused("plugin directory", entry, NULL, 0))
        scan_dir(entry);
    } else if (stat(entry, &sb) == 0 || strstr(entry, ".so"))
      load_file(entry); /* a file named explicitly; a missing one is recorded */
    else
      kk__debug("plugin path entry %s: %s", entry, strerror(errno));
  }
}
