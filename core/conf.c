/* core/conf.c -- resolves kk's configuration: flags > settings > environment > JSON file > site file > defaults. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "conf.h"
#include "paths.h"
#include "state.h"
#include "status.h"

/* Every setting, once.  The flag, variable and JSON key of a setting share one
 * parser, so a value means the same wherever it comes from. */
typedef enum key_id {
  K_DEVICE,
  K_CONFIG,
  K_PLUGIN_PATH,
  K_NUM_THREADS,
  K_DEVICE_ID,
  K_MAP_BY,
  K_VISIBLE,
  K_TOOLS_LIBS,
  K_TOOLS_ARGS,
  K_PRINT,
  K_DISABLE_WARNINGS,
  K_TUNE,
  K_PLUGIN_PROBE,
  K_HELP,
  K_TOOLS_HELP,
  K_COUNT
} key_id_t;

typedef enum vtype { T_BOOL, T_POSINT, T_NONNEG, T_STRING, T_DEVICE, T_PATH, T_MAPBY, T_VISIBLE } vtype_t;

typedef struct key {
  key_id_t id;
  const char *flag;  /* NULL: no flag */
  const char *env;   /* NULL: no variable */
  const char *json;  /* NULL: not in the file; "a.b" for nested keys */
  vtype_t type;
  const char *meta;  /* value placeholder for --kokkos-help */
  const char *help;
} key_t_;

static const key_t_ keys[K_COUNT] = {
    {K_DEVICE, "--kokkos-device", "KOKKOS_DEVICE", "device", T_DEVICE, "NAME[:ID]",
     "backend to run on (serial, threads, openmp, cuda, hip, levelzero, opencl or a third-party name), "
     "optional device index; a bare integer is a device id"},
    {K_CONFIG, "--kokkos-config", "KOKKOS_CONFIG", NULL, T_STRING, "FILE", "JSON configuration file"},
    {K_PLUGIN_PATH, "--kokkos-plugin-path", "KOKKOS_PLUGIN_PATH", "plugin_path", T_PATH, "DIR[:DIR]",
     "where backend plugins are looked for before the installed directory"},
    {K_NUM_THREADS, "--kokkos-num-threads", "KOKKOS_NUM_THREADS", "num_threads", T_POSINT, "N",
     "host threads, N >= 1"},
    {K_DEVICE_ID, "--kokkos-device-id", "KOKKOS_DEVICE_ID", "device_id", T_NONNEG, "N",
     "index into the visible devices"},
    {K_MAP_BY, "--kokkos-map-device-id-by", "KOKKOS_MAP_DEVICE_ID_BY", "map_device_id_by", T_MAPBY,
     "random|mpi_rank", "device choice per process"},
    {K_VISIBLE, NULL, "KOKKOS_VISIBLE_DEVICES", "visible_devices", T_VISIBLE, "I,J,...",
     "comma list of device indices that may be used"},
    {K_TOOLS_LIBS, "--kokkos-tools-libs", "KOKKOS_TOOLS_LIBS", "tools.libs", T_STRING, "PATH",
     "profiling tool library (';'-separated list)"},
    {K_TOOLS_ARGS, "--kokkos-tools-args", "KOKKOS_TOOLS_ARGS", "tools.args", T_STRING, "STR",
     "arguments for the tool"},
    {K_PRINT, "--kokkos-print-configuration", "KOKKOS_PRINT_CONFIGURATION", "print_configuration", T_BOOL,
     NULL, "print backends, devices, plugins (with why any was skipped), threads, versions"},
    {K_DISABLE_WARNINGS, "--kokkos-disable-warnings", "KOKKOS_DISABLE_WARNINGS", "disable_warnings", T_BOOL,
     NULL, "no warnings on stderr"},
    {K_TUNE, "--kokkos-tune-internals", "KOKKOS_TUNE_INTERNALS", "tune_internals", T_BOOL, NULL,
     "let a tuning tool choose team sizes and tiles"},
    {K_PLUGIN_PROBE, "--kokkos-plugin-probe", "KOKKOS_PLUGIN_PROBE", "plugin_probe", T_BOOL, NULL,
     "probe each new or changed plugin in a helper process first, skip one that crashes (default yes)"},
    {K_HELP, "--kokkos-help", NULL, NULL, T_BOOL, NULL, "print this table and exit"},
    {K_TOOLS_HELP, "--kokkos-tools-help", NULL, NULL, T_BOOL, NULL, "print the tool's help and exit"},
};

/* One value of one setting from one source. */
typedef struct val {
  bool set;
  bool b;
  int64_t i;        /* integers; device index for T_DEVICE (-1 none) */
  char *s;          /* strings; backend name for T_DEVICE */
  int n;            /* list length */
  char **list;      /* T_PATH */
  int32_t *ints;    /* T_VISIBLE */
} val_t;

typedef struct layer {
  kk__origin_t origin;
  val_t v[K_COUNT];
} layer_t;

static void val_clear(val_t *v) {
  free(v->s);
  for (int i = 0; i < v->n && v->list; i++)
    free(v->list[i]);
  free(v->list);
  free(v->ints);
  memset(v, 0, sizeof *v);
}

static void layer_free(layer_t *l) {
  for (int k = 0; k < K_COUNT; k++)
    val_clear(&l->v[k]);
}

const char *kk__origin_name(kk__origin_t origin) {
  switch (origin) {
  case KK__ORIGIN_DEFAULT:
    return "default";
  case KK__ORIGIN_SITE:
    return "site config file";
  case KK__ORIGIN_JSON:
    return "config file";
  case KK__ORIGIN_ENV:
    return "environment";
  case KK__ORIGIN_SETTINGS:
    return "settings";
  case KK__ORIGIN_FLAG:
    return "command line";
  }
  return "?";
}

static void add_warning(kk__config_t *cfg, const char *fmt, ...) KK__PRINTF(2, 3);
static void add_warning(kk__config_t *cfg, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  kk__vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char **w = realloc(cfg->warnings, sizeof *w * (size_t)(cfg->warning_count + 1));
  if (!w)
    return;
  cfg->warnings = w;
  cfg->warnings[cfg->warning_count] = kk__strdup(buf);
  if (cfg->warnings[cfg->warning_count])
    cfg->warning_count++;
}

static bool parse_int(const char *s, int64_t min, int64_t *out) {
  if (!*s)
    return false;
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < min || v > INT_MAX || isspace((unsigned char)*s))
    return false;
  *out = v;
  return true;
}

static bool valid_backend_name(const char *s, size_t n) {
  if (n == 0 || n > 48)
    return false;
  for (size_t i = 0; i < n; i++)
    if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '_'))
      return false;
  return true;
}

/* Splits "a<sep>b" into a list; empty entries are dropped. */
static int split(const char *s, char sep, char ***out) {
  int n = 0;
  char **list = NULL;
  const char *p = s;
  while (*p) {
    const char *e = strchr(p, sep);
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len) {
      char **nl = realloc(list, sizeof *nl * (size_t)(n + 1));
      if (!nl)
        break;
      list = nl;
      list[n] = malloc(len + 1);
      if (!list[n])
        break;
      memcpy(list[n], p, len);
      list[n][len] = '\0';
      n++;
    }
    if (!e)
      break;
    p = e + 1;
  }
  *out = list;
  return n;
}

/* Parses `text` (from a flag, a variable, the settings or a JSON string) into
 * `v` (or, for a bare-integer device, into `devid`).  On a malformed value
 * writes what was expected into `expect` and returns false. */
static bool parse_value(const key_t_ *k, const char *text, val_t *v, val_t *devid, const char **expect) {
  int64_t i;
  switch (k->type) {
  case T_BOOL:
    *expect = "yes, true, 1, no, false or 0";
    if (!kk__parse_bool(text, &v->b))
      return false;
    break;
  case T_POSINT:
    *expect = "an integer >= 1";
    if (!parse_int(text, 1, &i))
      return false;
    v->i = i;
    break;
  case T_NONNEG:
    *expect = "an integer >= 0";
    if (!parse_int(text, 0, &i))
      return false;
    v->i = i;
    break;
  case T_STRING:
    *expect = "a non-empty string";
    if (!*text)
      return false;
    free(v->s);
    v->s = kk__strdup(text);
    break;
  case T_DEVICE: {
    *expect = "a backend name with an optional device index (cuda, cuda:1, openmp) or a device id";
    if (parse_int(text, 0, &i)) { /* the old Kokkos meaning: a device id */
      val_clear(devid);
      devid->set = true;
      devid->i = i;
      return true;
    }
    const char *colon = strchr(text, ':');
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    int64_t idx = -1;
    if (!valid_backend_name(text, n) || (colon && !parse_int(colon + 1, 0, &idx)))
      return false;
    free(v->s);
    v->s = malloc(n + 1);
    if (!v->s)
      return false;
    memcpy(v->s, text, n);
    v->s[n] = '\0';
    v->i = idx;
    break;
  }
  case T_PATH: {
    *expect = "a ':'-separated list of directories or plugin files";
    char **list;
    int n = split(text, ':', &list);
    if (n == 0) {
      free(list);
      return false;
    }
    val_clear(v);
    v->list = list;
    v->n = n;
    break;
  }
  case T_MAPBY:
    *expect = "random or mpi_rank";
    if (strcmp(text, "random") == 0)
      v->i = KK_MAP_DEVICE_RANDOM;
    else if (strcmp(text, "mpi_rank") == 0)
      v->i = KK_MAP_DEVICE_MPI_RANK;
    else
      return false;
    break;
  case T_VISIBLE: {
    *expect = "a comma-separated list of distinct device indices >= 0";
    char **parts;
    int n = split(text, ',', &parts);
    int32_t *ints = n ? malloc(sizeof *ints * (size_t)n) : NULL;
    bool ok = n > 0 && ints;
    for (int j = 0; ok && j < n; j++) {
      ok = parse_int(parts[j], 0, &i);
      for (int q = 0; ok && q < j; q++)
        ok = ints[q] != (int32_t)i;
      if (ok)
        ints[j] = (int32_t)i;
    }
    for (int j = 0; j < n; j++)
      free(parts[j]);
    free(parts);
    if (!ok) {
      free(ints);
      return false;
    }
    val_clear(v);
    v->ints = ints;
    v->n = n;
    break;
  }
  }
  v->set = true;
  return true;
}

/* ---- command line --------------------------------------------------------- */

static kk_status_t parse_flags(int argc, char **argv, layer_t *L, kk__config_t *cfg) {
  L->origin = KK__ORIGIN_FLAG;
  for (int a = 1; a < argc; a++) {
    const char *arg = argv[a];
    if (!arg || strncmp(arg, "--kokkos-", 9) != 0)
      continue;
    const char *eq = strchr(arg, '=');
    size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
    const char *value = eq ? eq + 1 : NULL;
    const key_t_ *k = NULL;
    bool deprecated_threads = false, deprecated_numa = false;
    for (int j = 0; j < K_COUNT; j++)
      if (keys[j].flag && strlen(keys[j].flag) == name_len && strncmp(keys[j].flag, arg, name_len) == 0)
        k = &keys[j];
    if (!k && name_len == strlen("--kokkos-threads") && strncmp(arg, "--kokkos-threads", name_len) == 0) {
      k = &keys[K_NUM_THREADS];
      deprecated_threads = true;
    }
    if (!k && name_len == strlen("--kokkos-numa") && strncmp(arg, "--kokkos-numa", name_len) == 0)
      deprecated_numa = true;

    if (deprecated_numa) {
      int64_t ignored;
      if (!value || !parse_int(value, 1, &ignored))
        return kk__error(KK_ERROR_CONFIG, "kk: invalid value '%s' for --kokkos-numa: expected an integer >= 1",
                         value ? value : "");
      add_warning(cfg, "--kokkos-numa is deprecated and has no effect");
    } else if (!k) {
      add_warning(cfg, "unknown flag '%.*s' left in argv (see --kokkos-help)", (int)name_len, arg);
      continue;
    } else if (k->type == T_BOOL && !value) {
      val_clear(&L->v[k->id]);
      L->v[k->id].set = true;
      L->v[k->id].b = true;
    } else if (!value) {
      return kk__error(KK_ERROR_CONFIG, "kk: %s needs a value: %s=%s", k->flag, k->flag, k->meta);
    } else {
      const char *expect = "";
      if (!parse_value(k, value, &L->v[k->id], &L->v[K_DEVICE_ID], &expect))
        return kk__error(KK_ERROR_CONFIG, "kk: invalid value '%s' for %s: expected %s", value,
                         deprecated_threads ? "--kokkos-threads" : k->flag, expect);
      if (deprecated_threads)
        add_warning(cfg, "--kokkos-threads is deprecated, use --kokkos-num-threads");
    }
    int *c = realloc(cfg->consumed, sizeof *c * (size_t)(cfg->consumed_count + 1));
    if (!c)
      return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk: out of memory parsing the command line");
    cfg->consumed = c;
    cfg->consumed[cfg->consumed_count++] = a;
  }
  return KK_OK;
}

/* ---- settings struct --------------------------------------------------- */

#define HAS_FIELD(s, field) \
  (offsetof(kk_settings_t, field) + sizeof((s)->field) <= (s)->struct_size)

static kk_status_t settings_string(const kk_settings_t *s, const char *text, key_id_t id, const char *field,
                                   layer_t *L) {
  if (!text)
    return KK_OK;
  const char *expect = "";
  if (!parse_value(&keys[id], text, &L->v[id], &L->v[K_DEVICE_ID], &expect))
    return kk__error(KK_ERROR_CONFIG, "kk: invalid value '%s' in kk_settings_t.%s: expected %s", text, field,
                     expect);
  (void)s;
  return KK_OK;
}

static kk_status_t settings_int(int value, int unset, key_id_t id, const char *field, layer_t *L) {
  if (value == unset)
    return KK_OK;
  char buf[32];
  snprintf(buf, sizeof buf, "%d", value);
  const char *expect = "";
  if (!parse_value(&keys[id], buf, &L->v[id], &L->v[K_DEVICE_ID], &expect))
    return kk__error(KK_ERROR_CONFIG, "kk: invalid value %d in kk_settings_t.%s: expected %s", value, field,
                     expect);
  return KK_OK;
}

static kk_status_t settings_bool(int value, key_id_t id, const char *field, layer_t *L) {
  if (value == -1)
    return KK_OK;
  if (value != 0 && value != 1)
    return kk__error(KK_ERROR_CONFIG, "kk: invalid value %d in kk_settings_t.%s: expected -1, 0 or 1", value,
                     field);
  val_clear(&L->v[id]);
  L->v[id].set = true;
  L->v[id].b = value == 1;
  return KK_OK;
}

static kk_status_t parse_settings(const kk_settings_t *s, layer_t *L) {
  L->origin = KK__ORIGIN_SETTINGS;
  if (!s)
    return KK_OK;
  if (s->struct_size < offsetof(kk_settings_t, device) + sizeof(s->device))
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_initialize: kk_settings_t.struct_size is %zu; initialize the struct with KK_SETTINGS_INIT",
                     s->struct_size);
  kk_status_t st = KK_OK;
#define STR(field, id) \
  if (st == KK_OK && HAS_FIELD(s, field)) st = settings_string(s, s->field, id, #field, L)
#define INT(field, unset, id) \
  if (st == KK_OK && HAS_FIELD(s, field)) st = settings_int(s->field, unset, id, #field, L)
#define BOOL(field, id) \
  if (st == KK_OK && HAS_FIELD(s, field)) st = settings_bool(s->field, id, #field, L)
  STR(device, K_DEVICE);
  STR(config_file, K_CONFIG);
  STR(plugin_path, K_PLUGIN_PATH);
  INT(num_threads, 0, K_NUM_THREADS);
  INT(device_id, -1, K_DEVICE_ID);
  STR(map_device_id_by, K_MAP_BY);
  STR(visible_devices, K_VISIBLE);
  STR(tools_libs, K_TOOLS_LIBS);
  STR(tools_args, K_TOOLS_ARGS);
  BOOL(print_configuration, K_PRINT);
  BOOL(disable_warnings, K_DISABLE_WARNINGS);
  BOOL(tune_internals, K_TUNE);
#undef STR
#undef INT
#undef BOOL
  return st;
}

/* ---- environment ------------------------------------------------------- */

static kk_status_t parse_env(layer_t *L) {
  L->origin = KK__ORIGIN_ENV;
  for (int j = 0; j < K_COUNT; j++) {
    const key_t_ *k = &keys[j];
    if (!k->env)
      continue;
    const char *text = getenv(k->env);
    if (!text || !*text) /* an empty variable is unset, as job scripts expect */
      continue;
    const char *expect = "";
    if (!parse_value(k, text, &L->v[j], &L->v[K_DEVICE_ID], &expect))
      return kk__error(KK_ERROR_CONFIG, "kk: invalid value '%s' in %s: expected %s", text, k->env, expect);
  }
  /* The deprecated KOKKOS_PROFILE_LIBRARY names the tool when KOKKOS_TOOLS_LIBS does not. */
  const char *old = getenv("KOKKOS_PROFILE_LIBRARY");
  if (old && *old) {
    if (L->v[K_TOOLS_LIBS].set && strcmp(L->v[K_TOOLS_LIBS].s, old) != 0)
      return kk__error(KK_ERROR_CONFIG,
                       "kk: KOKKOS_TOOLS_LIBS='%s' and the deprecated KOKKOS_PROFILE_LIBRARY='%s' differ; "
                       "set only KOKKOS_TOOLS_LIBS",
                       L->v[K_TOOLS_LIBS].s, old);
    if (!L->v[K_TOOLS_LIBS].set) {
      L->v[K_TOOLS_LIBS].set = true;
      L->v[K_TOOLS_LIBS].s = kk__strdup(old);
    }
  }
  return KK_OK;
}

/* ---- JSON file ---------------------------------------------------------- */

static const char *json_type_name(const json_t *j) {
  switch (json_typeof(j)) {
  case JSON_OBJECT:
    return "an object";
  case JSON_ARRAY:
    return "an array";
  case JSON_STRING:
    return "a string";
  case JSON_INTEGER:
    return "an integer";
  case JSON_REAL:
    return "a number";
  case JSON_TRUE:
  case JSON_FALSE:
    return "a boolean";
  case JSON_NULL:
    return "null";
  }
  return "a value";
}

static kk_status_t json_bad(const char *file, const char *key, const char *expect, const json_t *got) {
  return kk__error(KK_ERROR_CONFIG, "kk: %s: key '%s': expected %s, got %s", file, key, expect,
                   json_type_name(got));
}

/* Reads one JSON value for a key from the table. */
static kk_status_t json_value(const char *file, const key_t_ *k, const json_t *j, layer_t *L) {
  val_t *v = &L->v[k->id];
  const char *expect = "";
  char buf[64];
  const char *text = NULL;
  switch (k->type) {
  case T_BOOL:
    if (!json_is_boolean(j))
      return json_bad(file, k->json, "true or false", j);
    val_clear(v);
    v->set = true;
    v->b = json_is_true(j);
    return KK_OK;
  case T_POSINT:
  case T_NONNEG:
    if (!json_is_integer(j))
      return json_bad(file, k->json, k->type == T_POSINT ? "an integer >= 1" : "an integer >= 0", j);
    snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
    text = buf;
    break;
  case T_DEVICE:
    if (json_is_integer(j)) {
      snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
      text = buf;
    } else if (json_is_string(j)) {
      text = json_string_value(j);
    } else {
      return json_bad(file, k->json, "a string such as \"cuda:0\" or a device id", j);
    }
    break;
  case T_PATH:
    if (json_is_array(j)) {
      size_t n = json_array_size(j);
      val_clear(v);
      v->list = calloc(n ? n : 1, sizeof *v->list);
      if (!v->list)
        return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk: out of memory reading %s", file);
      for (size_t q = 0; q < n; q++) {
        const json_t *e = json_array_get(j, q);
        if (!json_is_string(e) || !*json_string_value(e)) {
          char key[96];
          snprintf(key, sizeof key, "%s[%zu]", k->json, q);
          return json_is_string(e) ? kk__error(KK_ERROR_CONFIG, "kk: %s: key '%s': expected a non-empty string",
                                               file, key)
                                   : json_bad(file, key, "a string", e);
        }
        v->list[v->n++] = kk__strdup(json_string_value(e));
      }
      v->set = true;
      return KK_OK;
    }
    if (!json_is_string(j))
      return json_bad(file, k->json, "a string or an array of strings", j);
    text = json_string_value(j);
    break;
  case T_VISIBLE:
    if (json_is_array(j)) {
      kk__str_t s = {0};
      for (size_t q = 0; q < json_array_size(j); q++) {
        const json_t *e = json_array_get(j, q);
        if (!json_is_integer(e)) {
          kk__str_free(&s);
          char key[96];
          snprintf(key, sizeof key, "%s[%zu]", k->json, q);
          return json_bad(file, key, "a device index", e);
        }
        kk__str_addf(&s, "%s%" JSON_INTEGER_FORMAT, q ? "," : "", json_integer_value(e));
      }
      bool ok = s.s && parse_value(k, s.s, v, NULL, &expect);
      kk__str_free(&s);
      if (!ok)
        return kk__error(KK_ERROR_CONFIG, "kk: %s: key '%s': expected %s", file, k->json, expect);
      return KK_OK;
    }
    if (!json_is_string(j))
      return json_bad(file, k->json, "an array of device indices", j);
    text = json_string_value(j);
    break;
  case T_STRING:
  case T_MAPBY:
    if (!json_is_string(j))
      return json_bad(file, k->json, k->type == T_MAPBY ? "\"random\" or \"mpi_rank\"" : "a string", j);
    text = json_string_value(j);
    break;
  }
  if (!parse_value(k, text, v, &L->v[K_DEVICE_ID], &expect))
    return kk__error(KK_ERROR_CONFIG, "kk: %s: key '%s': invalid value '%s': expected %s", file, k->json, text,
                     expect);
  return KK_OK;
}

static const key_t_ *json_key(const char *name) {
  for (int j = 0; j < K_COUNT; j++)
    if (keys[j].json && strcmp(keys[j].json, name) == 0)
      return &keys[j];
  return NULL;
}

static kk_status_t json_backends(const char *file, const json_t *obj, kk__config_t *cfg) {
  if (!json_is_object(obj))
    return json_bad(file, "backends", "an object mapping backend names to option objects", obj);
  const char *name;
  const json_t *opts;
  json_object_foreach((json_t *)obj, name, opts) {
    char key[160];
    snprintf(key, sizeof key, "backends.%s", name);
    if (!valid_backend_name(name, strlen(name)))
      return kk__error(KK_ERROR_CONFIG, "kk: %s: key '%s': not a backend name (lower-case letters, digits, '_')",
                       file, key);
    if (!json_is_object(opts))
      return json_bad(file, key, "an object of options", opts);
    /* a backend the site file gave options for takes the user's file's over them, key by key */
    kk__backend_options_t *bo = NULL;
    for (int i = 0; i < cfg->backend_options_count && !bo; i++)
      if (strcmp(cfg->backend_options[i].backend, name) == 0)
        bo = &cfg->backend_options[i];
    if (!bo) {
      kk__backend_options_t *nb =
          realloc(cfg->backend_options, sizeof *nb * (size_t)(cfg->backend_options_count + 1));
      if (!nb)
        return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk: out of memory reading %s", file);
      cfg->backend_options = nb;
      bo = &nb[cfg->backend_options_count++];
      memset(bo, 0, sizeof *bo);
      if (!(bo->backend = kk__strdup(name)))
        return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk: out of memory reading %s", file);
    }
    size_t m = (size_t)bo->count + json_object_size(opts);
    char **nk = realloc(bo->keys, sizeof *nk * (m ? m : 1));
    if (nk)
      bo->keys = nk;
    char **nv = realloc(bo->values, sizeof *nv * (m ? m : 1));
    if (nv)
      bo->values = nv;
    if (!nk || !nv)
      return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk: out of memory reading %s", file);
    const char *okey;
    const json_t *oval;
    json_object_foreach((json_t *)opts, okey, oval) {
      char buf[64];
      const char *text;
      if (json_is_string(oval))
        text = json_string_value(oval);
      else if (json_is_integer(oval))
        snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(oval)), text = buf;
      else if (json_is_real(oval))
        snprintf(buf, sizeof buf, "%.17g", json_real_value(oval)), text = buf;
      else if (json_is_boolean(oval))
        text = json_is_true(oval) ? "true" : "false";
      else {
        char okey_full[256];
        snprintf(okey_full, sizeof okey_full, "%s.%s", key, okey);
        return json_bad(file, okey_full, "a string, number or boolean", oval);
      }
      int at = 0;
      while (at < bo->count && strcmp(bo->keys[at], okey) != 0)
        at++;
      char *v = kk__strdup(text);
      if (!v)
        return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk: out of memory reading %s", file);
      if (at < bo->count) {
        free(bo->values[at]);
        bo->values[at] = v;
      } else {
        if (!(bo->keys[at] = kk__strdup(okey))) {
          free(v);
          return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk: out of memory reading %s", file);
        }
        bo->values[at] = v;
        bo->count++;
      }
    }
  }
  return KK_OK;
}

/* What a file that is not a regular file is, for the message. */
static const char *file_kind(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISFIFO(mode) ? "a FIFO (named pipe)"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a file";
}

static kk_status_t parse_json_file(const char *file, kk__origin_t origin, layer_t *L, kk__config_t *cfg) {
  L->origin = origin;
  json_error_t err;
  /* Opened without blocking and checked before a byte is read: a FIFO with
   * no writer would block kk_initialize forever, a directory or a device is
   * no configuration. */
  int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return kk__error(KK_ERROR_CONFIG, "kk: cannot read configuration file '%s': %s", file, strerror(errno));
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    return kk__error(KK_ERROR_CONFIG, "kk: cannot read configuration file '%s': %s", file, strerror(e));
  }
  if (!S_ISREG(sb.st_mode)) {
    close(fd);
    return kk__error(KK_ERROR_CONFIG, "kk: configuration file '%s' is %s, not a regular file", file,
                     file_kind(sb.st_mode));
  }
  json_t *root = json_loadfd(fd, JSON_REJECT_DUPLICATES, &err);
  close(fd);
  if (!root) {
    if (err.line < 0) /* could not be read at all */
      return kk__error(KK_ERROR_CONFIG, "kk: cannot read configuration file '%s': %s", file, err.text);
    return kk__error(KK_ERROR_CONFIG, "kk: %s:%d:%d: %s", file, err.line, err.column, err.text);
  }
  kk_status_t st = KK_OK;
  if (!json_is_object(root)) {
    st = kk__error(KK_ERROR_CONFIG, "kk: %s:1:1: the configuration must be a JSON object, not %s", file,
                   json_type_name(root));
    goto done;
  }
  const char *name;
  json_t *value;
  json_object_foreach(root, name, value) {
    if (strcmp(name, "version") == 0) {
      if (!json_is_integer(value)) {
        st = json_bad(file, "version", "the integer 1", value);
        goto done;
      }
      if (json_integer_value(value) != 1) {
        st = kk__error(KK_ERROR_CONFIG, "kk: %s: key 'version': this kk reads version 1, the file has %" JSON_INTEGER_FORMAT,
                       file, json_integer_value(value));
        goto done;
      }
    } else if (strcmp(name, "backend_order") == 0) {
      if (!json_is_array(value)) {
        st = json_bad(file, "backend_order", "an array of backend names", value);
        goto done;
      }
      size_t n = json_array_size(value);
      /* the user's file's order replaces the site file's */
      for (int q = 0; q < cfg->backend_order_count; q++)
        free(cfg->backend_order[q]);
      free(cfg->backend_order);
      cfg->backend_order_count = 0;
      cfg->backend_order = calloc(n ? n : 1, sizeof *cfg->backend_order);
      if (!cfg->backend_order) {
        st = kk__error(KK_ERROR_OUT_OF_MEMORY, "kk: out of memory reading %s", file);
        goto done;
      }
      for (size_t q = 0; q < n; q++) {
        const json_t *e = json_array_get(value, q);
        const char *s = json_is_string(e) ? json_string_value(e) : NULL;
        if (!s || !valid_backend_name(s, strlen(s))) {
          char key[64];
          snprintf(key, sizeof key, "backend_order[%zu]", q);
          st = s ? kk__error(KK_ERROR_CONFIG, "kk: %s: key '%s': '%s' is not a backend name", file, key, s)
                 : json_bad(file, key, "a backend name", e);
          goto done;
        }
        cfg->backend_order[cfg->backend_order_count++] = kk__strdup(s);
      }
    } else if (strcmp(name, "backends") == 0) {
      if ((st = json_backends(file, value, cfg)) != KK_OK)
        goto done;
    } else if (strcmp(name, "tools") == 0) {
      if (!json_is_object(value)) {
        st = json_bad(file, "tools", "an object with \"libs\" and \"args\"", value);
        goto done;
      }
      const char *sub;
      json_t *sv;
      json_object_foreach(value, sub, sv) {
        char full[96];
        snprintf(full, sizeof full, "tools.%s", sub);
        const key_t_ *k = json_key(full);
        if (!k) {
          add_warning(cfg, "%s: unknown key '%s' ignored", file, full);
          continue;
        }
        if ((st = json_value(file, k, sv, L)) != KK_OK)
          goto done;
      }
    } else {
      const key_t_ *k = json_key(name);
      if (!k) {
        add_warning(cfg, "%s: unknown key '%s' ignored", file, name);
        continue;
      }
      if ((st = json_value(file, k, value, L)) != KK_OK)
        goto done;
    }
  }
done:
  json_decref(root);
  return st;
}

/* ---- merge -------------------------------------------------------------- */

/* The value of key k from the highest-precedence layer that sets it. */
static const val_t *pick(layer_t *const *layers, int nlayers, key_id_t k, kk__origin_t *origin) {
  for (int i = 0; i < nlayers; i++) /* layers are ordered highest first */
    if (layers[i]->v[k].set) {
      *origin = layers[i]->origin;
      return &layers[i]->v[k];
    }
  *origin = KK__ORIGIN_DEFAULT;
  return NULL;
}

#ifndef KK_SITE_CONFIG_PATH
#define KK_SITE_CONFIG_PATH "/usr/local/etc/kk/kk.json"
#endif

/* The site's file, below the user's (docs/config.md): read when it is there
 * and nobody but root, the user or libkk's owner can change it. */
static kk_status_t read_site_file(layer_t *L, kk__config_t *cfg) {
  L->origin = KK__ORIGIN_SITE;
  const char *env = getenv("KK_SITE_CONFIG");
  const char *file = env && *env ? env : KK_SITE_CONFIG_PATH;
  if (strcmp(file, "none") == 0)
    return KK_OK;
  if (!(cfg->site_file = kk__strdup(file)))
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk: out of memory");
  struct stat sb;
  char why[1024], state[1200];
  if (stat(file, &sb) != 0 && errno == ENOENT)
    snprintf(state, sizeof state, "not present");
  else if (kk__path_refused(NULL, file, why, sizeof why)) {
    add_warning(cfg, "site configuration %s refused: %s; it is ignored (docs/security.md)", file, why);
    kk__snprintf(state, sizeof state, "refused: %s", why);
  } else {
    kk_status_t st = parse_json_file(file, KK__ORIGIN_SITE, L, cfg);
    if (st != KK_OK)
      return st;
    snprintf(state, sizeof state, "read");
  }
  if (!(cfg->site_file_state = kk__strdup(state)))
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "kk: out of memory");
  return KK_OK;
}

kk_status_t kk__config_resolve(int argc, char **argv, const kk_settings_t *settings, kk__config_t *cfg) {
  memset(cfg, 0, sizeof *cfg);
  layer_t flags = {0}, sets = {0}, env = {0}, json = {0}, site = {0};
  kk_status_t st;
  if ((st = parse_flags(argv ? argc : 0, argv, &flags, cfg)) != KK_OK)
    goto fail;
  if ((st = parse_settings(settings, &sets)) != KK_OK)
    goto fail;
  if ((st = parse_env(&env)) != KK_OK)
    goto fail;

  layer_t *const order[] = {&flags, &sets, &env, &json, &site};
  const int nl = 5;
  /* the site file first: the user's file then replaces its backend_order and options */
  if ((st = read_site_file(&site, cfg)) != KK_OK)
    goto fail;
  kk__origin_t o;
  const val_t *v = pick(order, 3, K_CONFIG, &o);
  if (v) {
    cfg->config_file = kk__strdup(v->s);
    cfg->config_file_origin = o;
    if ((st = parse_json_file(v->s, KK__ORIGIN_JSON, &json, cfg)) != KK_OK)
      goto fail;
  }

  if ((v = pick(order, nl, K_DEVICE, &o))) {
    cfg->device_backend = kk__strdup(v->s);
    cfg->device_index = (int)v->i;
    cfg->device_origin = o;
  } else {
    cfg->device_index = -1;
  }
  cfg->device_id = -1;
  if ((v = pick(order, nl, K_DEVICE_ID, &o))) {
    cfg->device_id = (int)v->i;
    cfg->device_id_origin = o;
  }
  if (cfg->device_index >= 0 && cfg->device_id >= 0 && cfg->device_index != cfg->device_id)
    add_warning(cfg, "device index %d from --kokkos-device=%s:%d overrides device id %d (%s)", cfg->device_index,
                cfg->device_backend, cfg->device_index, cfg->device_id, kk__origin_name(cfg->device_id_origin));

  /* The plugin path concatenates every source, in precedence order. */
  for (int i = 0; i < nl; i++) {
    const val_t *p = &order[i]->v[K_PLUGIN_PATH];
    for (int q = 0; q < p->n; q++) {
      char **np = realloc(cfg->plugin_path, sizeof *np * (size_t)(cfg->plugin_path_count + 1));
      if (!np) {
        st = kk__error(KK_ERROR_OUT_OF_MEMORY, "kk: out of memory");
        goto fail;
      }
      cfg->plugin_path = np;
      cfg->plugin_path[cfg->plugin_path_count++] = kk__strdup(p->list[q]);
    }
  }

  if ((v = pick(order, nl, K_NUM_THREADS, &o)))
    cfg->num_threads = (int)v->i, cfg->num_threads_origin = o;
  if ((v = pick(order, nl, K_MAP_BY, &o)))
    cfg->map_device_id_by = (kk_map_device_by_t)v->i, cfg->map_device_id_by_origin = o;
  if (cfg->map_device_id_by != KK_MAP_DEVICE_NONE && cfg->device_id >= 0)
    add_warning(cfg, "device id %d (%s) takes precedence over map_device_id_by", cfg->device_id,
                kk__origin_name(cfg->device_id_origin));
  if ((v = pick(order, nl, K_VISIBLE, &o))) {
    cfg->visible = malloc(sizeof *cfg->visible * (size_t)v->n);
    if (cfg->visible) {
      memcpy(cfg->visible, v->ints, sizeof *cfg->visible * (size_t)v->n);
      cfg->visible_count = v->n;
    }
    cfg->visible_origin = o;
  }
  if ((v = pick(order, nl, K_TOOLS_LIBS, &o)))
    cfg->tools_libs = kk__strdup(v->s), cfg->tools_libs_origin = o;
  if ((v = pick(order, nl, K_TOOLS_ARGS, &o)))
    cfg->tools_args = kk__strdup(v->s), cfg->tools_args_origin = o;
  if ((v = pick(order, nl, K_PRINT, &o)))
    cfg->print_configuration = v->b, cfg->print_configuration_origin = o;
  if ((v = pick(order, nl, K_DISABLE_WARNINGS, &o)))
    cfg->disable_warnings = v->b, cfg->disable_warnings_origin = o;
  if ((v = pick(order, nl, K_TUNE, &o)))
    cfg->tune_internals = v->b, cfg->tune_internals_origin = o;
  cfg->plugin_probe = true;
  if ((v = pick(order, nl, K_PLUGIN_PROBE, &o)))
    cfg->plugin_probe = v->b, cfg->plugin_probe_origin = o;
  if ((v = pick(order, nl, K_HELP, &o)))
    cfg->help = v->b;
  if ((v = pick(order, nl, K_TOOLS_HELP, &o)))
    cfg->tools_help = v->b;

  layer_free(&flags);
  layer_free(&sets);
  layer_free(&env);
  layer_free(&json);
  layer_free(&site);
  return KK_OK;

fail:
  layer_free(&flags);
  layer_free(&sets);
  layer_free(&env);
  layer_free(&json);
  layer_free(&site);
  kk__config_free(cfg);
  return st;
}

void kk__config_apply_argv(const kk__config_t *cfg, int *argc, char ***argv) {
  if (!argc || !argv || !*argv || cfg->consumed_count == 0)
    return;
  char **av = *argv;
  int out = 0, c = 0;
  for (int a = 0; a < *argc; a++) {
    if (c < cfg->consumed_count && cfg->consumed[c] == a) {
      c++;
      continue;
    }
    av[out++] = av[a];
  }
  for (int a = out; a < *argc; a++)
    av[a] = NULL;
  *argc = out;
}

static void free_list(char **list, int n) {
  for (int i = 0; i < n; i++)
    free(list[i]);
  free(list);
}

void kk__config_free(kk__config_t *cfg) {
  free(cfg->device_backend);
  free(cfg->config_file);
  free(cfg->site_file);
  free(cfg->site_file_state);
  free_list(cfg->plugin_path, cfg->plugin_path_count);
  free(cfg->visible);
  free(cfg->tools_libs);
  free(cfg->tools_args);
  free_list(cfg->backend_order, cfg->backend_order_count);
  for (int i = 0; i < cfg->backend_options_count; i++) {
    kk__backend_options_t *bo = &cfg->backend_options[i];
    free(bo->backend);
    free_list(bo->keys, bo->count);
    free_list(bo->values, bo->count);
  }
  free(cfg->backend_options);
  free_list(cfg->warnings, cfg->warning_count);
  free(cfg->consumed);
  memset(cfg, 0, sizeof *cfg);
  cfg->device_index = -1;
  cfg->device_id = -1;
}

void kk__config_print_help(FILE *out) {
  fprintf(out, "kk %s: flags read by kk_initialize (each removed from argv once read)\n\n", kk_version());
  fprintf(out, "Precedence: command line > kk_settings_t > environment > JSON file > site file (%s) > defaults.\n",
          KK_SITE_CONFIG_PATH);
  fprintf(out, "Booleans take yes/true/1 or no/false/0 (any case); a boolean flag alone means true.\n");
  fprintf(out, "Integer and string flags need '='.\n\n");
  fprintf(out, "  %-44s %-28s %s\n", "flag", "variable", "meaning");
  for (int j = 0; j < K_COUNT; j++) {
    const key_t_ *k = &keys[j];
    char flag[96];
    if (k->flag && k->meta)
      snprintf(flag, sizeof flag, "%s=%s", k->flag, k->meta);
    else
      snprintf(flag, sizeof flag, "%s", k->flag ? k->flag : "-");
    fprintf(out, "  %-44s %-28s %s\n", flag, k->env ? k->env : "-", k->help);
  }
  fprintf(out, "\nDeprecated: --kokkos-threads=N (use --kokkos-num-threads), --kokkos-numa=N (ignored),\n"
               "KOKKOS_PROFILE_LIBRARY (use KOKKOS_TOOLS_LIBS).\n");
  fprintf(out, "The JSON file's keys are in docs/config.md.\n");
}
