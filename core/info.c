/* core/info.c -- queries about plugins, backends and devices, and the configuration report (text and JSON). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <unistd.h>

#include "conf.h"
#include "loader.h"
#include "package.h"
#include "paths.h"
#include "probe.h"
#include "state.h"
#include "status.h"

static const char *state_name(kk_plugin_state_t s) {
  switch (s) {
  case KK_PLUGIN_BUILTIN:
    return "built in";
  case KK_PLUGIN_LOADED:
    return "loaded";
  case KK_PLUGIN_SKIPPED:
    return "skipped";
  case KK_PLUGIN_NO_DEVICES:
    return "no devices";
  case KK_PLUGIN_SHADOWED:
    return "shadowed";
  default:
    return "?";
  }
}

static const char *layout_name(kk_layout_t l) {
  switch (l) {
  case KK_LAYOUT_RIGHT:
    return "right";
  case KK_LAYOUT_LEFT:
    return "left";
  case KK_LAYOUT_STRIDE:
    return "stride";
  default:
    return "default";
  }
}

int kk_plugin_count(void) { return kk__g.initialized ? kk__g.backend_count : 0; }

kk_status_t kk_plugin_get_info(int i, kk_plugin_info_t *info) {
  KK__REQUIRE_INIT("kk_plugin_get_info");
  if (i < 0 || i >= kk__g.backend_count)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_plugin_get_info: index %d is out of range: kk_plugin_count() is %d",
                     i, kk__g.backend_count);
  if (!info)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_plugin_get_info: info is NULL");
  if (info->struct_size < offsetof(kk_plugin_info_t, is_host_backend))
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_plugin_get_info: info->struct_size is %zu, smaller than any kk_plugin_info_t (%zu): set it to "
                     "sizeof(kk_plugin_info_t)",
                     info->struct_size, offsetof(kk_plugin_info_t, is_host_backend));
  const kk__backend_t *b = kk__g.backends[i];
  kk_plugin_info_t o = {
      .struct_size = info->struct_size,
      .name = b->name,
      .path = b->path,
      .state = b->state,
      .reason = b->reason,
      .priority = b->ops.struct_size ? b->ops.priority : 0,
      .abi_version = b->ops.struct_size ? b->ops.abi_version : 0,
      .device_count = b->device_count,
      .is_default = b->is_default,
      .is_host = b->is_host,
      .is_host_backend = b->ops.struct_size && (b->ops.flags & KK_PLUGIN_FLAG_HOST) != 0,
  };
  size_t n = info->struct_size < sizeof o ? info->struct_size : sizeof o;
  memcpy(info, &o, n);
  return KK_OK;
}

const char *kk_backend_default(void) { return kk__g.initialized ? kk__g.def->name : NULL; }

const char *kk_backend_host(void) { return kk__g.initialized ? kk__g.host->name : NULL; }

int kk_device_count(const char *backend) {
  if (!kk__g.initialized || !backend)
    return 0;
  const kk__backend_t *b = kk__backend_find(backend);
  return b ? b->device_count : 0;
}

kk_status_t kk_device_get_info(const char *backend, int index, kk_device_info_t *info) {
  KK__REQUIRE_INIT("kk_device_get_info");
  if (!backend)
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_device_get_info: the backend name is NULL (kk_backend_default() names the default backend)");
  const kk__backend_t *b = kk__backend_find(backend);
  if (!b)
    return kk__error(KK_ERROR_NOT_FOUND, "kk_device_get_info: there is no backend '%s' (kk-info lists them)", backend);
  if (index < 0 || index >= b->device_count)
    return kk__error(KK_ERROR_NOT_FOUND, "kk_device_get_info: backend '%s' has no device %d (it has %d)", backend,
                     index, b->device_count);
  if (!info)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_device_get_info: info is NULL");
  if (info->struct_size < offsetof(kk_device_info_t, space_host_accessible))
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_device_get_info: info->struct_size is %zu, smaller than any kk_device_info_t (%zu): set it "
                     "to sizeof(kk_device_info_t)",
                     info->struct_size, offsetof(kk_device_info_t, space_host_accessible));
  const kk_plugin_device_t *d = &b->devices[index];
  kk_device_info_t o = {
      .struct_size = info->struct_size,
      .backend = b->name,
      .index = index,
      .name = d->name,
      .vendor = d->vendor,
      .arch = d->arch,
      .preferred_layout = d->preferred_layout,
      .concurrency = d->concurrency,
      .warp_size = d->warp_size,
      .max_team_size = d->max_team_size,
      .max_vector_length = d->max_vector_length,
      .scratch_max = {(size_t)d->scratch_max[0], (size_t)d->scratch_max[1]},
      .memory_bytes = d->memory_bytes,
      .selected = b->device == index && (b->is_default || b->is_host),
  };
  for (int s = 0; s < b->space_count && s < 8; s++) {
    o.space_names[s] = b->spaces[s].name;
    o.space_host_accessible[s] = (b->spaces[s].flags & KK_SPACE_HOST_ACCESSIBLE) != 0;
    o.space_count = s + 1;
  }
  size_t n = info->struct_size < sizeof o ? info->struct_size : sizeof o;
  memcpy(info, &o, n);
  return KK_OK;
}

int kk_device_id(void) { return kk__g.initialized ? kk__g.def->device : -1; }

/* ---- the report ----------------------------------------------------------- */

/* "  (build tree)" or "  (installed)" after a directory of a search path,
 * and why it is refused when it is (docs/security.md). */
static const char *path_note(const char *dir, const char *tree, const char *installed, char *buf, size_t size) {
  const char *kind = tree && strcmp(dir, tree) == 0    ? "  (build tree)"
                     : strcmp(dir, installed) == 0 ? "  (installed)"
                                                   : "";
  char why[1024];
  if (!kk__path_refused(NULL, dir, why, sizeof why))
    return kind;
  kk__snprintf(buf, size, "%s  (refused: %s)", kind, why);
  return buf;
}

static void print_bytes(FILE *out, uint64_t b) {
  if (b >= (1ull << 30))
    fprintf(out, "%.1f GiB", (double)b / (double)(1ull << 30));
  else if (b >= (1ull << 20))
    fprintf(out, "%.1f MiB", (double)b / (double)(1ull << 20));
  else
    fprintf(out, "%llu KiB", (unsigned long long)(b >> 10));
}

/* The i-th backend this build made a package of that has no plugin in the
 * plugin path (installed, it would show up as a plugin in any state), with
 * its package; false past the last. */
static bool not_installed(int i, char *name, size_t nsize, char *pkg, size_t psize) {
  for (int k = 0; kk__packaged_backend(k, name, nsize); k++) {
    if (kk__backend_find(name) || !kk__backend_package(name, pkg, psize) || i-- > 0)
      continue;
    return true;
  }
  return false;
}

kk_status_t kk_print_configuration(FILE *out) {
  KK__REQUIRE_INIT("kk_print_configuration");
  const kk__config_t *c = &kk__g.config;
  fprintf(out, "kk %s\n", kk_version());
  fprintf(out, "  library ABI %s, plugin ABI %u.%u, tools interface %llu\n", KK_LIBRARY_ABI, KK_PLUGIN_ABI_MAJOR,
          KK_PLUGIN_ABI_MINOR, (unsigned long long)kk_tools_abi_version());
  if (kk__library_path())
    fprintf(out, "  libkk %s%s\n", kk__library_path(), kk__is_build_tree() ? "  (build tree)" : "");
  fprintf(out, "plugin search path:\n");
  char note[1200];
  for (int i = 0; i < kk__g.path_count; i++)
    fprintf(out, "  %s%s\n", kk__g.path[i],
            path_note(kk__g.path[i], kk__build_tree_plugin_dir(), kk__installed_plugin_dir(), note, sizeof note));
  const char *tool_dirs[2];
  int ntool = kk__tool_dirs(tool_dirs);
  fprintf(out, "tool directories (--kokkos-tools-libs=NAME):%s\n", ntool ? "" : " (none)");
  for (int i = 0; i < ntool; i++)
    fprintf(out, "  %s%s\n", tool_dirs[i],
            path_note(tool_dirs[i], kk__build_tree_tool_dir(), kk__installed_tool_dir(), note, sizeof note));
  fprintf(out, "plugins:\n");
  for (int i = 0; i < kk__g.backend_count; i++) {
    const kk__backend_t *b = kk__g.backends[i];
    fprintf(out, "  %-12s %-11s %s", b->name, state_name(b->state), b->path);
    if (b->ops.struct_size)
      fprintf(out, "  ABI %u.%u  priority %d", KK_PLUGIN_ABI_MAJOR_OF(b->ops.abi_version),
              KK_PLUGIN_ABI_MINOR_OF(b->ops.abi_version), b->ops.priority);
    if (b->device_count)
      fprintf(out, "  %d device%s", b->device_count, b->device_count == 1 ? "" : "s");
    if (b->reason[0])
      fprintf(out, "\n               why: %s", b->reason);
    fputc('\n', out);
  }
  char name[64], pkg[128];
  if (*kk__backend_package_pattern) {
    fprintf(out, "backends not installed (packages of this kk):%s\n",
            not_installed(0, name, sizeof name, pkg, sizeof pkg) ? "" : " (none)");
    for (int i = 0; not_installed(i, name, sizeof name, pkg, sizeof pkg); i++)
      fprintf(out, "  %-12s install %s\n", name, pkg);
  }
  fprintf(out, "default backend: %s\n  why: %s\nhost backend: %s\nhost threads: %d\n", kk__g.def->name,
          kk__g.default_reason, kk__g.host->name, kk_num_threads());
  for (int i = 0; i < kk__g.backend_count; i++) {
    const kk__backend_t *b = kk__g.backends[i];
    if (b->device_count == 0)
      continue;
    fprintf(out, "backend %s%s%s:\n", b->name, b->is_default ? " (default)" : "", b->is_host ? " (host)" : "");
    for (int d = 0; d < b->device_count; d++) {
      const kk_plugin_device_t *p = &b->devices[d];
      fprintf(out, "  device %d: %s%s\n", d, p->name, b->device == d && (b->is_default || b->is_host) ? "  [selected]" : "");
      fprintf(out, "    vendor %s, arch %s, layout %s, concurrency %d, warp %d, max team %d, max vector %d\n",
              p->vendor, p->arch, layout_name(p->preferred_layout), p->concurrency, p->warp_size, p->max_team_size,
              p->max_vector_length);
      fprintf(out, "    scratch per team: level 0 ");
      print_bytes(out, p->scratch_max[0]);
      fprintf(out, ", level 1 ");
      print_bytes(out, p->scratch_max[1]);
      fprintf(out, "; memory ");
      print_bytes(out, p->memory_bytes);
      fprintf(out, "\n    memory spaces:");
      for (int s = 0; s < b->space_count; s++)
        fprintf(out, " %s%s%s", b->spaces[s].name,
                b->spaces[s].flags & KK_SPACE_HOST_ACCESSIBLE ? " (host-accessible)" : "",
                s + 1 < b->space_count ? "," : "");
      fputc('\n', out);
    }
  }
  fprintf(out, "settings:\n");
  fprintf(out, "  device             %s", c->device_backend ? c->device_backend : "(automatic)");
  if (c->device_index >= 0)
    fprintf(out, ":%d", c->device_index);
  fprintf(out, "  (%s)\n", kk__origin_name(c->device_origin));
  fprintf(out, "  config file        %s  (%s)\n", c->config_file ? c->config_file : "(none)",
          kk__origin_name(c->config_file_origin));
  fprintf(out, "  site config file   %s  (%s)\n", c->site_file ? c->site_file : "(none)",
          c->site_file ? c->site_file_state : "KK_SITE_CONFIG=none");
  fprintf(out, "  num_threads        %d  (%s)\n", c->num_threads, kk__origin_name(c->num_threads_origin));
  fprintf(out, "  device_id          %d  (%s)\n", c->device_id, kk__origin_name(c->device_id_origin));
  fprintf(out, "  map_device_id_by   %s  (%s)\n",
          c->map_device_id_by == KK_MAP_DEVICE_RANDOM     ? "random"
          : c->map_device_id_by == KK_MAP_DEVICE_MPI_RANK ? "mpi_rank"
                                                          : "(none)",
          kk__origin_name(c->map_device_id_by_origin));
  fprintf(out, "  visible devices    ");
  if (!c->visible_count)
    fprintf(out, "(all)");
  for (int i = 0; i < c->visible_count; i++)
    fprintf(out, "%s%d", i ? "," : "", c->visible[i]);
  fprintf(out, "  (%s)\n", kk__origin_name(c->visible_origin));
  fprintf(out, "  tools libs         %s  (%s)\n", c->tools_libs ? c->tools_libs : "(none)",
          kk__origin_name(c->tools_libs_origin));
  fprintf(out, "  tools args         %s  (%s)\n", c->tools_args ? c->tools_args : "(none)",
          kk__origin_name(c->tools_args_origin));
  fprintf(out, "  disable warnings   %s  (%s)\n", c->disable_warnings ? "yes" : "no",
          kk__origin_name(c->disable_warnings_origin));
  fprintf(out, "  tune internals     %s  (%s)\n", c->tune_internals ? "yes" : "no",
          kk__origin_name(c->tune_internals_origin));
  const char *helper = kk__probe_helper();
  char why[1024];
  if (access(helper, X_OK) != 0)
    kk__snprintf(note, sizeof note, ", missing: plugins load unprobed");
  else if (kk__path_refused(NULL, helper, why, sizeof why))
    kk__snprintf(note, sizeof note, ", refused: %s: plugins load unprobed", why);
  else
    note[0] = '\0';
  fprintf(out, "  plugin probe       %s  (%s; helper %s%s)\n", c->plugin_probe ? "yes" : "no",
          kk__origin_name(c->plugin_probe_origin), helper, note);
  return KK_OK;
}

static json_t *jstr(const char *s) { return json_string(s ? s : ""); }

kk_status_t kk_print_configuration_json(FILE *out) {
  KK__REQUIRE_INIT("kk_print_configuration_json");
  const kk__config_t *c = &kk__g.config;
  json_t *root = json_object();
  json_object_set_new(root, "version", json_string(kk_version()));
  char abi[32];
  snprintf(abi, sizeof abi, "%u.%u", KK_PLUGIN_ABI_MAJOR, KK_PLUGIN_ABI_MINOR);
  json_object_set_new(root, "abi",
                      json_pack("{s:s, s:s, s:I}", "library", KK_LIBRARY_ABI, "plugin", abi, "tools",
                                (json_int_t)kk_tools_abi_version()));
  json_t *path = json_array();
  for (int i = 0; i < kk__g.path_count; i++)
    json_array_append_new(path, json_string(kk__g.path[i]));
  json_object_set_new(root, "plugin_path", path);
  const char *lib = kk__library_path();
  json_object_set_new(root, "library", json_pack("{s:o, s:b}", "path", lib ? json_string(lib) : json_null(),
                                                 "build_tree", kk__is_build_tree()));
  const char *tool_dirs[2];
  int ntool = kk__tool_dirs(tool_dirs);
  json_t *tools = json_array();
  for (int i = 0; i < ntool; i++)
    json_array_append_new(tools, json_string(tool_dirs[i]));
  json_object_set_new(root, "tool_dirs", tools);
  json_t *plugins = json_array();
  for (int i = 0; i < kk__g.backend_count; i++) {
    const kk__backend_t *b = kk__g.backends[i];
    json_t *p = json_pack("{s:o, s:o, s:s, s:o, s:i}", "name", jstr(b->name), "path", jstr(b->path), "state",
                          state_name(b->state), "reason", jstr(b->reason), "devices", b->device_count);
    if (b->ops.struct_size) {
      char v[32];
      snprintf(v, sizeof v, "%u.%u", KK_PLUGIN_ABI_MAJOR_OF(b->ops.abi_version),
               KK_PLUGIN_ABI_MINOR_OF(b->ops.abi_version));
      json_object_set_new(p, "abi", json_string(v));
      json_object_set_new(p, "priority", json_integer(b->ops.priority));
      json_object_set_new(p, "host_backend", json_boolean(b->ops.flags & KK_PLUGIN_FLAG_HOST));
    }
    json_array_append_new(plugins, p);
  }
  json_object_set_new(root, "plugins", plugins);
  json_t *missing = json_array();
  char name[64], pkg[128];
  for (int i = 0; not_installed(i, name, sizeof name, pkg, sizeof pkg); i++)
    json_array_append_new(missing, json_pack("{s:s, s:s}", "name", name, "package", pkg));
  json_object_set_new(root, "not_installed", missing);
  json_object_set_new(root, "default_backend", json_string(kk__g.def->name));
  json_object_set_new(root, "default_backend_reason", json_string(kk__g.default_reason));
  json_object_set_new(root, "host_backend", json_string(kk__g.host->name));
  json_object_set_new(root, "host_threads", json_integer(kk_num_threads()));
  json_t *backends = json_array();
  for (int i = 0; i < kk__g.backend_count; i++) {
    const kk__backend_t *b = kk__g.backends[i];
    if (b->device_count == 0)
      continue;
    json_t *devs = json_array();
    for (int d = 0; d < b->device_count; d++) {
      const kk_plugin_device_t *p = &b->devices[d];
      json_t *spaces = json_array();
      for (int s = 0; s < b->space_count; s++)
        json_array_append_new(spaces, json_pack("{s:s, s:b}", "name", b->spaces[s].name, "host_accessible",
                                                (b->spaces[s].flags & KK_SPACE_HOST_ACCESSIBLE) != 0));
      json_t *jd = json_pack("{s:i, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:I, s:I, s:I, s:b, s:o}", "index", d,
                             "name", p->name, "vendor", p->vendor, "arch", p->arch, "preferred_layout",
                             layout_name(p->preferred_layout), "concurrency", p->concurrency, "warp_size",
                             p->warp_size, "max_team_size", p->max_team_size, "max_vector_length",
                             p->max_vector_length, "scratch_level0", (json_int_t)p->scratch_max[0],
                             "scratch_level1", (json_int_t)p->scratch_max[1], "memory_bytes",
                             (json_int_t)p->memory_bytes, "selected",
                             b->device == d && (b->is_default || b->is_host), "spaces", spaces);
      json_array_append_new(devs, jd);
    }
    json_array_append_new(backends, json_pack("{s:s, s:b, s:b, s:o}", "name", b->name, "default", b->is_default,
                                              "host", b->is_host, "devices", devs));
  }
  json_object_set_new(root, "backends", backends);
  json_t *settings = json_object();
  json_object_set_new(settings, "device", c->device_backend ? json_string(c->device_backend) : json_null());
  json_object_set_new(settings, "device_index", json_integer(c->device_index));
  json_object_set_new(settings, "device_id", json_integer(c->device_id));
  json_object_set_new(settings, "num_threads", json_integer(c->num_threads));
  json_object_set_new(settings, "config_file", c->config_file ? json_string(c->config_file) : json_null());
  json_object_set_new(settings, "site_config_file", c->site_file ? json_string(c->site_file) : json_null());
  json_object_set_new(settings, "site_config_state", jstr(c->site_file_state));
  json_object_set_new(settings, "tools_libs", c->tools_libs ? json_string(c->tools_libs) : json_null());
  json_object_set_new(settings, "tools_args", c->tools_args ? json_string(c->tools_args) : json_null());
  json_object_set_new(settings, "disable_warnings", json_boolean(c->disable_warnings));
  json_object_set_new(settings, "tune_internals", json_boolean(c->tune_internals));
  json_object_set_new(settings, "plugin_probe", json_boolean(c->plugin_probe));
  json_object_set_new(root, "settings", settings);
  int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  fputc('\n', out);
  json_decref(root);
  return rc == 0 ? KK_OK : kk__error(KK_ERROR_IO, "kk_print_configuration_json: write failed");
}
