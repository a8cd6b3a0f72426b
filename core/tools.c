/* core/tools.c -- Kokkos Tools support: loads a tool, calls it the way Kokkos does, and the profiling API for programs. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_DLFCN_H
#include <dlfcn.h>
#endif

#include "conf.h"
#include "paths.h"
#include "state.h"
#include "status.h"
#include "tools.h"

kk__tools_state_t kk__tools;

static void *g_lib;                  /* the loaded tool, closed at finalize */
static atomic_uint g_next_instance;  /* kk__tools_next_instance_id */

/* The symbol each callback is looked up under, in the EventSet's order.  The
 * names are Kokkos', which differ from the members in places
 * (kokkosp_request_values fills request_output_values). */
static const struct {
  const char *symbol;
  size_t offset;
} g_symbols[] = {
#define SYM(member, symbol) {symbol, offsetof(Kokkos_Profiling_EventSet, member)}
    SYM(init, "kokkosp_init_library"),
    SYM(finalize, "kokkosp_finalize_library"),
    SYM(parse_args, "kokkosp_parse_args"),
    SYM(print_help, "kokkosp_print_help"),
    SYM(begin_parallel_for, "kokkosp_begin_parallel_for"),
    SYM(end_parallel_for, "kokkosp_end_parallel_for"),
    SYM(begin_parallel_reduce, "kokkosp_begin_parallel_reduce"),
    SYM(end_parallel_reduce, "kokkosp_end_parallel_reduce"),
    SYM(begin_parallel_scan, "kokkosp_begin_parallel_scan"),
    SYM(end_parallel_scan, "kokkosp_end_parallel_scan"),
    SYM(push_region, "kokkosp_push_profile_region"),
    SYM(pop_region, "kokkosp_pop_profile_region"),
    SYM(allocate_data, "kokkosp_allocate_data"),
    SYM(deallocate_data, "kokkosp_deallocate_data"),
    SYM(create_profile_section, "kokkosp_create_profile_section"),
    SYM(start_profile_section, "kokkosp_start_profile_section"),
    SYM(stop_profile_section, "kokkosp_stop_profile_section"),
    SYM(destroy_profile_section, "kokkosp_destroy_profile_section"),
    SYM(profile_event, "kokkosp_profile_event"),
    SYM(begin_deep_copy, "kokkosp_begin_deep_copy"),
    SYM(end_deep_copy, "kokkosp_end_deep_copy"),
    SYM(begin_fence, "kokkosp_begin_fence"),
    SYM(end_fence, "kokkosp_end_fence"),
    SYM(sync_dual_view, "kokkosp_dual_view_sync"),
    SYM(modify_dual_view, "kokkosp_dual_view_modify"),
    SYM(declare_metadata, "kokkosp_declare_metadata"),
    SYM(provide_tool_programming_interface, "kokkosp_provide_tool_programming_interface"),
    SYM(request_tool_settings, "kokkosp_request_tool_settings"),
    SYM(declare_output_type, "kokkosp_declare_output_type"),
    SYM(declare_input_type, "kokkosp_declare_input_type"),
    SYM(request_output_values, "kokkosp_request_values"),
    SYM(begin_tuning_context, "kokkosp_begin_context"),
    SYM(end_tuning_context, "kokkosp_end_context"),
    SYM(declare_optimization_goal, "kokkosp_declare_optimization_goal"),
#undef SYM
};

/* Does the set hold any callback?  (A null function pointer is all zero bits
 * on every platform kk runs on; the padding is not looked at.) */
static bool any_callback(const Kokkos_Profiling_EventSet *set) {
  for (size_t i = 0; i < sizeof g_symbols / sizeof *g_symbols; i++) {
    void (*fn)(void);
    memcpy(&fn, (const char *)set + g_symbols[i].offset, sizeof fn);
    if (fn)
      return true;
  }
  return false;
}

/* Do AUTO choices ask the tool?  (The configuration is read at
 * kk_initialize, which sets this again.) */
static bool tuning(const Kokkos_Profiling_EventSet *set) {
  return kk__g.initialized && kk__g.config.tune_internals && set->request_output_values != NULL;
}

/* ---- loading ---------------------------------------------------------------- */

/* The first non-empty entry of a ';' list, copied into buf; false if none. */
static bool first_entry(const char *list, char *buf, size_t size) {
  while (*list == ';')
    list++;
  size_t n = strcspn(list, ";");
  if (n == 0 || n >= size)
    return false;
  memcpy(buf, list, n);
  buf[n] = '\0';
  return true;
}

/* Opens the first tool of the list as Kokkos does and fills *set from its
 * symbols; NULL (after a warning with the loader's reason) when it cannot be
 * opened.  The whole list goes into KOKKOS_TOOLS_LIBS first, so that a tool
 * that chains the next ones (the sampler, the kernel filter) finds them there
 * even when the list came from the command line, settings or the JSON file. */
static void *load(const char *list, const char *origin, Kokkos_Profiling_EventSet *set) {
  char path[4096];
  memset(set, 0, sizeof *set);
  if (!first_entry(list, path, sizeof path)) {
    kk__warn("the tool library list '%s' (%s) names no library; running without tools", list, origin);
    return NULL;
  }
  const char *env = getenv("KOKKOS_TOOLS_LIBS");
  if (!env || strcmp(env, list) != 0)
    setenv("KOKKOS_TOOLS_LIBS", list, 1);
  /* A bare name is looked up in kk's tool directories first (docs/tools.md). */
  char found[sizeof path];
  if (kk__tool_find(path, found, sizeof found))
    memcpy(path, found, sizeof path);
  /* a path is checked as a plugin's is; a bare name is the system loader's (docs/security.md) */
  char why[1024];
  if (strchr(path, '/') && kk__path_refused(NULL, path, why, sizeof why)) {
    kk__warn("the tool library %s (%s) refused: %s; running without tools (docs/security.md)", path, origin, why);
    return NULL;
  }
#ifdef HAVE_DLFCN_H
  dlerror();
  void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    const char *why = dlerror();
    kk__warn("the tool library %s (%s) could not be loaded: %s; running without tools", path, origin,
             why ? why : "dlopen failed");
    return NULL;
  }
  for (size_t i = 0; i < sizeof g_symbols / sizeof *g_symbols; i++) {
    void *sym = dlsym(h, g_symbols[i].symbol);
    memcpy((char *)set + g_symbols[i].offset, &sym, sizeof sym); /* object to function pointer, as POSIX allows */
  }
  kk__debug("tool %s loaded", path);
  return h;
#else
  kk__warn("the tool library %s (%s) could not be loaded: this libkk was built without dlopen", path, origin);
  return NULL;
#endif
}

static void unload(void *h) {
#ifdef HAVE_DLFCN_H
  if (h)
    dlclose(h);
#else
  (void)h;
#endif
}

/* ---- fences a tool causes ---------------------------------------------------------- */

/* Before begin/end of kernels and push/pop of regions, when the tool requires
 * global fencing.  Outside kk_initialize..kk_finalize there is nothing to
 * fence (a program may push regions before initializing). */
static void global_fence(void) {
  if (kk__g.initialized)
    kk__tools_fence_all(KK__TOOLS_GLOBAL_FENCE_NAME);
}

/* The programming interface's fence.  Like Kokkos, it fences every device
 * whatever the device id says. */
static void tool_invoked_fence(const uint32_t device_id) {
  (void)device_id;
  if (kk__g.initialized)
    kk__tools_fence_all(KK__TOOLS_TPI_FENCE_NAME);
}

/* ---- initialization ------------------------------------------------------------------ */

/* The tool's argv: the executable's name, then the tools arguments split on
 * blanks, surrounding quotes stripped.  Calls parse_args once, and frees it
 * all afterwards (a tool copies what it keeps, as with Kokkos). */
static void parse_args(const char *argv0, const char *args) {
  const char *exe = argv0 ? argv0 : "";
  size_t len = args ? strlen(args) : 0;
  if (len >= 2 && (args[0] == '"' || args[0] == '\'') && args[len - 1] == args[0]) {
    args++;
    len -= 2;
  }
  char *buf = malloc(strlen(exe) + 1 + len + 1);
  char **argv = malloc(sizeof *argv * (len / 2 + 3));
  if (!buf || !argv) {
    kk__warn("out of memory: the tool's arguments are not passed to it");
    free(buf);
    free(argv);
    return;
  }
  int argc = 0;
  strcpy(buf, exe);
  argv[argc++] = buf;
  char *p = buf + strlen(exe) + 1;
  memcpy(p, args ? args : "", len);
  p[len] = '\0';
  char *save = NULL;
  for (char *tok = strtok_r(p, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
    argv[argc++] = tok;
  argv[argc] = NULL;
  kk__tools.cb.parse_args(argc, argv);
  free(argv);
  free(buf);
}

/* What kk tells a tool about the run, as Kokkos declares its configuration. */
static void declare_configuration(void) {
  Kokkos_Profiling_declareMetadataFunction md = kk__tools.cb.declare_metadata;
  const kk__backend_t *def = kk__g.def, *host = kk__g.host;
  char buf[512];
  md("kk_version", kk_version());
  snprintf(buf, sizeof buf, "%u.%u", KK_PLUGIN_ABI_MAJOR, KK_PLUGIN_ABI_MINOR);
  md("kk_plugin_abi", buf);
  md("default_backend", def->name);
  md("host_backend", host->name);
  snprintf(buf, sizeof buf, "%d", kk_num_threads());
  md("num_threads", buf);
  snprintf(buf, sizeof buf, "%d", def->device);
  md("device_id", buf);
  md("device", def->devices[def->device].name);
  buf[0] = '\0';
  for (int i = 0; i < kk__g.space_count; i++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? "," : "", kk__g.spaces[i]->name);
  md("memory_spaces", buf);
  md("tune_internals", kk__g.config.tune_internals ? "yes" : "no");
}

void kk__tools_initialize(const char *argv0) {
  atomic_store(&g_next_instance, KK__TOOLS_INSTANCE_DEFAULT + 1);
  /* Kokkos presets global fencing even without a tool, so callbacks a program
   * sets later get it too, unless their request_tool_settings ran here. */
  kk__tools.global_fencing = true;
  const kk__config_t *cfg = &kk__g.config;
  if (cfg->tools_libs) {
    Kokkos_Profiling_EventSet set;
    void *h = load(cfg->tools_libs, kk__origin_name(cfg->tools_libs_origin), &set);
    if (h) {
      /* As in Kokkos, a loaded tool replaces callbacks the program set. */
      g_lib = h;
      kk__tools.cb = set;
    }
  }
  kk__tools.active = any_callback(&kk__tools.cb);
  kk__tools.tune = tuning(&kk__tools.cb);
  if (!kk__tools.active)
    return;
  Kokkos_Profiling_EventSet *cb = &kk__tools.cb;
  if (cb->init)
    cb->init(0, KOKKOSP_INTERFACE_VERSION, 0, NULL);
  Kokkos_Tools_ToolSettings settings;
  memset(&settings, 0, sizeof settings);
  settings.requires_global_fencing = true;
  if (cb->request_tool_settings)
    cb->request_tool_settings(1, &settings);
  kk__tools.global_fencing = settings.requires_global_fencing;
  if (cb->provide_tool_programming_interface) {
    Kokkos_Tools_ToolProgrammingInterface tpi;
    memset(&tpi, 0, sizeof tpi);
    tpi.fence = tool_invoked_fence;
    cb->provide_tool_programming_interface(1, tpi);
  }
#ifdef __GLIBC__
  if (!argv0) /* kk_initialize_with_settings: the name the program was started under */
    argv0 = program_invocation_name;
#endif
  if (cb->parse_args)
    parse_args(argv0, cfg->tools_args);
  if (cb->declare_metadata)
    declare_configuration();
}

static void tuning_reset(void);
static void raw_reset(void);

void kk__tools_finalize(void) {
  if (kk__tools.active && kk__tools.cb.finalize)
    kk__tools.cb.finalize();
  memset(&kk__tools, 0, sizeof kk__tools);
  tuning_reset();
  raw_reset();
  unload(g_lib);
  g_lib = NULL;
}

void kk__tools_print_help(const char *argv0) {
  const kk__config_t *cfg = &kk__g.config;
  if (!cfg->tools_libs) {
    printf("kk: no tool library is set: name one with --kokkos-tools-libs=PATH or KOKKOS_TOOLS_LIBS\n");
    return;
  }
  Kokkos_Profiling_EventSet set;
  void *h = load(cfg->tools_libs, kk__origin_name(cfg->tools_libs_origin), &set);
  if (!h)
    return;
  if (set.print_help) {
    char *exe = kk__strdup(argv0 ? argv0 : "");
    set.print_help(exe ? exe : (char *)"");
    free(exe);
  } else {
    printf("kk: the tool library %s has no help (it exports no kokkosp_print_help)\n", cfg->tools_libs);
  }
  fflush(stdout); /* the tool may have printed through its own buffers */
  unload(h);
}

uint32_t kk__tools_next_instance_id(void) {
  /* Ids wrap within the 17 instance bits, never onto 0 (global) or 1 (default). */
  unsigned n = atomic_fetch_add(&g_next_instance, 1u);
  return 2u + (n - 2u) % (0x1FFFFu - 1u);
}

/* ---- hooks ------------------------------------------------------------------------- */

uint32_t kk__tools_device_id(const kk__backend_t *b, uint32_t instance) {
  uint32_t root = (b->ops.tools_device_type & 0xFFu) << 24;
  if (instance == KK__TOOLS_DEEP_COPY_RESOURCE)
    return root | instance;
  uint32_t device = b->device >= 0 ? (uint32_t)b->device & 0x7Fu : 0u;
  return root | device << 17 | (instance & 0x1FFFFu);
}

uint32_t kk__tools_instance_device_id(const kk_instance_t *inst) {
  return kk__tools_device_id(inst->backend, inst->is_default ? KK__TOOLS_INSTANCE_DEFAULT : inst->tools_id);
}

const char *kk__tools_kernel_name(const kk_launch_t *l) {
  if (l->label && *l->label)
    return l->label;
  if (l->kernel->name && *l->kernel->name)
    return l->kernel->name;
  return "kk: unnamed kernel";
}

/* The begin and end callbacks of a launch's kind. */
static void launch_callbacks(const kk_launch_t *l, Kokkos_Profiling_beginFunction *begin,
                             Kokkos_Profiling_endFunction *end) {
  const Kokkos_Profiling_EventSet *cb = &kk__tools.cb;
  switch (l->kind) {
  case KK_KIND_REDUCE:
  case KK_KIND_MD_REDUCE:
  case KK_KIND_TEAM_REDUCE:
    *begin = cb->begin_parallel_reduce, *end = cb->end_parallel_reduce;
    break;
  case KK_KIND_SCAN:
    *begin = cb->begin_parallel_scan, *end = cb->end_parallel_scan;
    break;
  default:
    *begin = cb->begin_parallel_for, *end = cb->end_parallel_for;
    break;
  }
}

uint64_t kk__tools_launch_begin(const kk_instance_t *inst, const kk_launch_t *l) {
  Kokkos_Profiling_beginFunction begin;
  Kokkos_Profiling_endFunction end;
  launch_callbacks(l, &begin, &end);
  uint64_t kid = 0;
  if (begin) {
    if (kk__tools.global_fencing)
      global_fence();
    begin(kk__tools_kernel_name(l), kk__tools_instance_device_id(inst), &kid);
  }
  return kid;
}

void kk__tools_launch_end(const kk_launch_t *l, uint64_t kid, size_t tune_context) {
  Kokkos_Profiling_beginFunction begin;
  Kokkos_Profiling_endFunction end;
  launch_callbacks(l, &begin, &end);
  if (end) {
    if (kk__tools.global_fencing)
      global_fence();
    end(kid);
  }
  kk__tools_tune_end(tune_context);
}

kk_status_t kk__tools_fence_all(const char *name) {
  kk__backend_t *active[2] = {kk__g.def, kk__g.host != kk__g.def ? kk__g.host : NULL};
  kk_status_t st = KK_OK;
  for (int i = 0; i < 2 && active[i] && st == KK_OK; i++) {
    uint64_t h;
    kk__tools_begin_fence(name, kk__tools_device_id(active[i], KK__TOOLS_INSTANCE_GLOBAL), &h);
    st = active[i]->ops.fence_all(active[i]->ctx);
    kk__tools_end_fence(h);
  }
  if (st != KK_OK)
    return kk__error(st, "kk_fence '%s': %s", name, kk_last_error());
  return KK_OK;
}

void kk__tools_begin_fence(const char *name, uint32_t device_id, uint64_t *handle) {
  *handle = 0;
  if (kk__tools.cb.begin_fence)
    kk__tools.cb.begin_fence(name, device_id, handle);
}

void kk__tools_end_fence(uint64_t handle) {
  if (kk__tools.cb.end_fence)
    kk__tools.cb.end_fence(handle);
}

static Kokkos_Profiling_SpaceHandle space_handle(const kk_space_t *space) {
  Kokkos_Profiling_SpaceHandle h;
  memset(&h, 0, sizeof h); /* zero padded, as tools may compare all 64 bytes */
  snprintf(h.name, sizeof h.name, "%s", space ? space->name : "Host");
  return h;
}

void kk__tools_allocate(const kk_space_t *space, const char *label, const void *ptr, uint64_t size) {
  if (kk__tools.cb.allocate_data)
    kk__tools.cb.allocate_data(space_handle(space), label ? label : "", ptr, size);
}

void kk__tools_deallocate(const kk_space_t *space, const char *label, const void *ptr, uint64_t size) {
  if (kk__tools.cb.deallocate_data)
    kk__tools.cb.deallocate_data(space_handle(space), label ? label : "", ptr, size);
}

/* Allocations of the public kk_space_alloc, remembered while a tool is
 * active so that their free can report the label and size. */
typedef struct raw_alloc {
  struct raw_alloc *next;
  const kk_space_t *space;
  const void *ptr;
  uint64_t size;
  char *label;
} raw_alloc_t;

static pthread_mutex_t g_raw_lock = PTHREAD_MUTEX_INITIALIZER;
static raw_alloc_t *g_raw;

void kk__tools_space_alloc(const kk_space_t *space, const char *label, const void *ptr, uint64_t size) {
  raw_alloc_t *r = calloc(1, sizeof *r);
  if (!r || !(r->label = kk__strdup(label ? label : ""))) {
    free(r);
    kk__debug("tools: out of memory: the allocation '%s' is not reported", label ? label : "");
    return;
  }
  r->space = space;
  r->ptr = ptr;
  r->size = size;
  pthread_mutex_lock(&g_raw_lock);
  r->next = g_raw;
  g_raw = r;
  pthread_mutex_unlock(&g_raw_lock);
  kk__tools_allocate(space, r->label, ptr, size);
}

void kk__tools_space_free(const kk_space_t *space, const void *ptr) {
  pthread_mutex_lock(&g_raw_lock);
  raw_alloc_t **pp = &g_raw;
  while (*pp && ((*pp)->ptr != ptr || (*pp)->space != space))
    pp = &(*pp)->next;
  raw_alloc_t *r = *pp;
  if (r)
    *pp = r->next;
  pthread_mutex_unlock(&g_raw_lock);
  if (!r)
    return;
  kk__tools_deallocate(space, r->label, ptr, r->size);
  free(r->label);
  free(r);
}

/* At finalize: memory the program never freed is forgotten, and no
 * deallocation is reported for it (kk_finalize does not free it). */
static void raw_reset(void) {
  pthread_mutex_lock(&g_raw_lock);
  while (g_raw) {
    raw_alloc_t *r = g_raw;
    g_raw = r->next;
    free(r->label);
    free(r);
  }
  pthread_mutex_unlock(&g_raw_lock);
}

static bool on_host(const kk_space_t *s) { return !s || (s->backend->ops.flags & KK_PLUGIN_FLAG_HOST); }

kk_status_t kk__tools_deep_copy(const char *op, kk_instance_t *inst, const kk_space_t *dst_space,
                                const char *dst_label, const void *dst, const kk_space_t *src_space,
                                const char *src_label, const void *src, uint64_t size, kk_status_t (*body)(void *),
                                void *ctx) {
  const Kokkos_Profiling_EventSet *cb = &kk__tools.cb;
  if (cb->begin_deep_copy)
    cb->begin_deep_copy(space_handle(dst_space), dst_label ? dst_label : "", dst, space_handle(src_space),
                        src_label ? src_label : "", src, size);
  uint64_t h = 0;
  if (!inst) {
    /* the backend kk_space_copy picks: a device side's, else the host's */
    const kk__backend_t *b = !on_host(dst_space) ? dst_space->backend
                             : !on_host(src_space) ? src_space->backend
                                                   : kk__g.host;
    char name[128];
    snprintf(name, sizeof name, "%s: Deep Copy Resource Synchronization", op);
    kk__tools_begin_fence(name, kk__tools_device_id(b, KK__TOOLS_DEEP_COPY_RESOURCE), &h);
  }
  kk_status_t st = body(ctx);
  if (!inst)
    kk__tools_end_fence(h);
  if (cb->end_deep_copy)
    cb->end_deep_copy();
  return st;
}

/* ---- tuning ---------------------------------------------------------------------------- */

/* One declared output variable.  Its info (and the candidate set it points
 * to) lives as long as the tool: a tool may keep the pointer it was given,
 * and values point at it. */
typedef struct tune_var {
  struct tune_var *next;
  char *kernel, *variable;
  int64_t lo, hi;
  bool pow2;
  size_t id;
  int64_t *set; /* pow2: the candidates */
  Kokkos_Tools_VariableInfo info;
} tune_var_t;

static pthread_mutex_t g_tune_lock = PTHREAD_MUTEX_INITIALIZER;
static tune_var_t *g_tune_vars;
static size_t g_tune_last_id;       /* variable ids: 1, 2, ... as in Kokkos */
static size_t g_tune_last_context;  /* context ids: 1, 2, ...; never reused, so threads cannot collide */
static size_t g_kernel_name_id;     /* the "kokkos.kernel_name" input, once declared */
static Kokkos_Tools_VariableInfo g_kernel_name_info;

static void tuning_reset(void) {
  pthread_mutex_lock(&g_tune_lock);
  while (g_tune_vars) {
    tune_var_t *v = g_tune_vars;
    g_tune_vars = v->next;
    free(v->kernel);
    free(v->variable);
    free(v->set);
    free(v);
  }
  g_tune_last_id = g_tune_last_context = g_kernel_name_id = 0;
  pthread_mutex_unlock(&g_tune_lock);
}

/* Is v one of the candidates of c? */
static bool is_candidate(const kk__tune_choice_t *c, int64_t v) {
  return v >= c->lo && v <= c->hi && (!c->pow2 || (v > 0 && (v & (v - 1)) == 0));
}

/* The output variable of choice c for `kernel`, declared on first use; NULL
 * when out of memory.  Called with g_tune_lock held. */
static tune_var_t *tune_var(const char *kernel, const kk__tune_choice_t *c) {
  for (tune_var_t *v = g_tune_vars; v; v = v->next)
    if (v->lo == c->lo && v->hi == c->hi && v->pow2 == c->pow2 && strcmp(v->kernel, kernel) == 0 &&
        strcmp(v->variable, c->variable) == 0)
      return v;
  tune_var_t *v = calloc(1, sizeof *v);
  if (!v || !(v->kernel = kk__strdup(kernel)) || !(v->variable = kk__strdup(c->variable)))
    goto fail_free_var;
  v->lo = c->lo;
  v->hi = c->hi;
  v->pow2 = c->pow2;
  v->info.type = kokkos_value_int64;
  if (c->pow2) {
    size_t n = 0;
    for (int64_t p = 1; p > 0 && p <= c->hi; p *= 2)
      n += p >= c->lo;
    if (!(v->set = malloc(n * sizeof *v->set)))
      goto fail_free_var;
    n = 0;
    for (int64_t p = 1; p > 0 && p <= c->hi; p *= 2)
      if (p >= c->lo)
        v->set[n++] = p;
    v->info.category = kokkos_value_ordinal;
    v->info.valueQuantity = kokkos_value_set;
    v->info.candidates.set.size = n;
    v->info.candidates.set.values.int_value = v->set;
  } else {
    v->info.category = kokkos_value_interval;
    v->info.valueQuantity = kokkos_value_range;
    v->info.candidates.range.lower.int_value = c->lo;
    v->info.candidates.range.upper.int_value = c->hi;
    v->info.candidates.range.step.int_value = 1;
    v->info.candidates.range.openLower = false;
    v->info.candidates.range.openUpper = false;
  }
  v->id = ++g_tune_last_id;
  v->next = g_tune_vars;
  g_tune_vars = v;
  if (kk__tools.cb.declare_output_type) {
    char name[512];
    snprintf(name, sizeof name, "kk.%s:%s", c->variable, kernel);
    kk__tools.cb.declare_output_type(name, v->id, &v->info);
  }
  return v;

fail_free_var:
  if (v) {
    free(v->kernel);
    free(v->variable);
  }
  free(v);
  return NULL;
}

#define KK__TUNE_MAX 8

kk_status_t kk__tools_tune(const char *kernel, int n, kk__tune_choice_t *choices, size_t *context) {
  *context = 0;
  if (n < 1 || n > KK__TUNE_MAX)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "tuning kernel '%s': %d choices (1..%d)", kernel, n, KK__TUNE_MAX);
  for (int i = 0; i < n; i++)
    if (choices[i].lo > choices[i].hi || (choices[i].pow2 && choices[i].hi < 1))
      return kk__error(KK_ERROR_INVALID_ARGUMENT, "tuning '%s' of kernel '%s': no candidate in [%lld, %lld]",
                       choices[i].variable, kernel, (long long)choices[i].lo, (long long)choices[i].hi);
  const Kokkos_Profiling_EventSet *cb = &kk__tools.cb;
  if (!kk__tools.active || !kk__g.config.tune_internals || !cb->request_output_values)
    return KK_OK;
  Kokkos_Tools_VariableValue in, want[KK__TUNE_MAX];
  memset(&in, 0, sizeof in);
  memset(want, 0, sizeof want);
  pthread_mutex_lock(&g_tune_lock);
  if (!g_kernel_name_id) {
    g_kernel_name_id = ++g_tune_last_id;
    memset(&g_kernel_name_info, 0, sizeof g_kernel_name_info);
    g_kernel_name_info.type = kokkos_value_string;
    g_kernel_name_info.category = kokkos_value_categorical;
    g_kernel_name_info.valueQuantity = kokkos_value_unbounded;
    if (cb->declare_input_type)
      cb->declare_input_type("kokkos.kernel_name", g_kernel_name_id, &g_kernel_name_info);
  }
  for (int i = 0; i < n; i++) {
    tune_var_t *v = tune_var(kernel, &choices[i]);
    if (!v) {
      pthread_mutex_unlock(&g_tune_lock);
      return kk__error(KK_ERROR_OUT_OF_MEMORY, "tuning '%s' of kernel '%s': out of memory", choices[i].variable,
                       kernel);
    }
    want[i].type_id = v->id;
    want[i].value.int_value = choices[i].value;
    want[i].metadata = &v->info;
  }
  size_t ctx = ++g_tune_last_context;
  if (cb->begin_tuning_context)
    cb->begin_tuning_context(ctx);
  in.type_id = g_kernel_name_id;
  snprintf(in.value.string_value, sizeof in.value.string_value, "%s", kernel);
  in.metadata = &g_kernel_name_info;
  cb->request_output_values(ctx, 1, &in, (size_t)n, want);
  pthread_mutex_unlock(&g_tune_lock);
  for (int i = 0; i < n; i++) {
    int64_t got = want[i].value.int_value;
    if (is_candidate(&choices[i], got))
      choices[i].value = got;
    else if (got != choices[i].value)
      kk__debug("tuning %s of kernel %s: the tool chose %lld, not a candidate in [%lld, %lld]; keeping %lld",
                choices[i].variable, kernel, (long long)got, (long long)choices[i].lo, (long long)choices[i].hi,
                (long long)choices[i].value);
  }
  *context = ctx;
  return KK_OK;
}

void kk__tools_tune_end(size_t context) {
  if (context == 0 || !kk__tools.active || !kk__tools.cb.end_tuning_context)
    return;
  /* kk declares no optimization goal, so the goal's value is empty. */
  Kokkos_Tools_VariableValue goal;
  memset(&goal, 0, sizeof goal);
  kk__tools.cb.end_tuning_context(context, goal);
}

/* ---- the profiling API for programs ---------------------------------------------------- */

kk_status_t kk_profiling_push_region(const char *name) {
  if (!name)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_profiling_push_region: name is NULL");
  if (KK__UNLIKELY(kk__tools.active) && kk__tools.cb.push_region) {
    if (kk__tools.global_fencing)
      global_fence();
    kk__tools.cb.push_region(name);
  }
  return KK_OK;
}

kk_status_t kk_profiling_pop_region(void) {
  if (KK__UNLIKELY(kk__tools.active) && kk__tools.cb.pop_region) {
    if (kk__tools.global_fencing)
      global_fence();
    kk__tools.cb.pop_region();
  }
  return KK_OK;
}

kk_status_t kk_profiling_create_section(const char *name, uint32_t *id) {
  if (!name || !id)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_profiling_create_section: %s is NULL", name ? "id" : "name");
  *id = 0;
  if (KK__UNLIKELY(kk__tools.active) && kk__tools.cb.create_profile_section)
    kk__tools.cb.create_profile_section(name, id);
  return KK_OK;
}

kk_status_t kk_profiling_start_section(uint32_t id) {
  if (KK__UNLIKELY(kk__tools.active) && kk__tools.cb.start_profile_section)
    kk__tools.cb.start_profile_section(id);
  return KK_OK;
}

kk_status_t kk_profiling_stop_section(uint32_t id) {
  if (KK__UNLIKELY(kk__tools.active) && kk__tools.cb.stop_profile_section)
    kk__tools.cb.stop_profile_section(id);
  return KK_OK;
}

kk_status_t kk_profiling_destroy_section(uint32_t id) {
  if (KK__UNLIKELY(kk__tools.active) && kk__tools.cb.destroy_profile_section)
    kk__tools.cb.destroy_profile_section(id);
  return KK_OK;
}

kk_status_t kk_profiling_mark_event(const char *name) {
  if (!name)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_profiling_mark_event: name is NULL");
  if (KK__UNLIKELY(kk__tools.active) && kk__tools.cb.profile_event)
    kk__tools.cb.profile_event(name);
  return KK_OK;
}

kk_status_t kk_profiling_dual_view_sync(const char *label, const void *ptr, int to_device) {
  if (!label)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_profiling_dual_view_sync: label is NULL");
  if (KK__UNLIKELY(kk__tools.active) && kk__tools.cb.sync_dual_view)
    kk__tools.cb.sync_dual_view(label, ptr, to_device != 0);
  return KK_OK;
}

kk_status_t kk_profiling_dual_view_modify(const char *label, const void *ptr, int on_device) {
  if (!label)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_profiling_dual_view_modify: label is NULL");
  if (KK__UNLIKELY(kk__tools.active) && kk__tools.cb.modify_dual_view)
    kk__tools.cb.modify_dual_view(label, ptr, on_device != 0);
  return KK_OK;
}

kk_status_t kk_profiling_declare_metadata(const char *key, const char *value) {
  if (!key || !value)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_profiling_declare_metadata: %s is NULL", key ? "value" : "key");
  if (KK__UNLIKELY(kk__tools.active) && kk__tools.cb.declare_metadata)
    kk__tools.cb.declare_metadata(key, value);
  return KK_OK;
}

void kk_tools_set_callbacks(const struct Kokkos_Profiling_EventSet *callbacks) {
  if (callbacks)
    kk__tools.cb = *callbacks;
  else
    memset(&kk__tools.cb, 0, sizeof kk__tools.cb);
  kk__tools.active = any_callback(&kk__tools.cb);
  kk__tools.tune = tuning(&kk__tools.cb);
}

void kk_tools_get_callbacks(struct Kokkos_Profiling_EventSet *callbacks) {
  if (callbacks)
    *callbacks = kk__tools.cb;
}

int kk_tools_active(void) { return kk__tools.active; }
