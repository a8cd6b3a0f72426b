/* tests/check_config.c -- flags, variables, settings, the JSON file and the site's: each alone, every precedence combination, every malformed input. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <sys/stat.h>

#include "conf.h"
#include "testutil.h"

/* ---- helpers ----------------------------------------------------------------- */

typedef struct run {
  char *dir;
  char *json_path;
  char *site_path;
  int argc;
  char *argv[16];
} run_t;

static void run_init(run_t *r) {
  memset(r, 0, sizeof *r);
  tu_clear_env();
  r->dir = tu_mkdtemp();
  r->argv[r->argc++] = "prog";
}

static void run_arg(run_t *r, const char *arg) {
  r->argv[r->argc++] = (char *)arg;
  r->argv[r->argc] = NULL;
}

static void run_json(run_t *r, const char *text) {
  free(r->json_path);
  r->json_path = tu_write(r->dir, "kk.json", text);
}

/* The site configuration file (docs/config.md), named by KK_SITE_CONFIG. */
static void run_site(run_t *r, const char *text) {
  free(r->site_path);
  r->site_path = tu_write(r->dir, "site.json", text);
  setenv("KK_SITE_CONFIG", r->site_path, 1);
}

static void run_done(run_t *r) {
  free(r->json_path);
  free(r->site_path);
  tu_rmdir(r->dir);
  tu_clear_env();
}

/* Resolves with the JSON file (if any) named through KOKKOS_CONFIG unless the
 * test named it otherwise. */
static kk_status_t resolve(run_t *r, const kk_settings_t *s, kk__config_t *cfg) {
  if (r->json_path && !getenv("KOKKOS_CONFIG"))
    setenv("KOKKOS_CONFIG", r->json_path, 1);
  return kk__config_resolve(r->argc, r->argv, s, cfg);
}

static bool has_warning(const kk__config_t *cfg, const char *needle) {
  for (int i = 0; i < cfg->warning_count; i++)
    if (strstr(cfg->warnings[i], needle))
      return true;
  return false;
}

/* ---- precedence: every key, every combination of sources ------------------ */

enum { SRC_FLAG, SRC_SETTINGS, SRC_ENV, SRC_JSON, SRC_SITE, SRC_N };

typedef struct pkey {
  const char *name;
  const char *flag;     /* NULL when the key has no flag */
  const char *env;
  const char *json;     /* JSON key; "tools.libs" style for nested */
  bool json_string;     /* quote the value in JSON */
  const char *values[SRC_N];
  void (*set)(kk_settings_t *s, const char *value);
  /* returns the resolved value as text and its origin */
  void (*get)(const kk__config_t *c, char *buf, size_t n, kk__origin_t *origin);
} pkey_t;

static void set_device(kk_settings_t *s, const char *v) { s->device = v; }
static void get_device(const kk__config_t *c, char *b, size_t n, kk__origin_t *o) {
  snprintf(b, n, "%s", c->device_backend ? c->device_backend : "");
  *o = c->device_origin;
}
static void set_threads(kk_settings_t *s, const char *v) { s->num_threads = atoi(v); }
static void get_threads(const kk__config_t *c, char *b, size_t n, kk__origin_t *o) {
  snprintf(b, n, "%d", c->num_threads);
  *o = c->num_threads_origin;
}
static void set_devid(kk_settings_t *s, const char *v) { s->device_id = atoi(v); }
static void get_devid(const kk__config_t *c, char *b, size_t n, kk__origin_t *o) {
  snprintf(b, n, "%d", c->device_id);
  *o = c->device_id_origin;
}
static void set_mapby(kk_settings_t *s, const char *v) { s->map_device_id_by = v; }
static void get_mapby(const kk__config_t *c, char *b, size_t n, kk__origin_t *o) {
  snprintf(b, n, "%s", c->map_device_id_by == KK_MAP_DEVICE_RANDOM ? "random" : "mpi_rank");
  *o = c->map_device_id_by_origin;
}
static void set_visible(kk_settings_t *s, const char *v) { s->visible_devices = v; }
static void get_visible(const kk__config_t *c, char *b, size_t n, kk__origin_t *o) {
  b[0] = '\0';
  for (int i = 0; i < c->visible_count; i++)
    snprintf(b + strlen(b), n - strlen(b), "%s%d", i ? "," : "", c->visible[i]);
  *o = c->visible_origin;
}
static void set_tlibs(kk_settings_t *s, const char *v) { s->tools_libs = v; }
static void get_tlibs(const kk__config_t *c, char *b, size_t n, kk__origin_t *o) {
  snprintf(b, n, "%s", c->tools_libs ? c->tools_libs : "");
  *o = c->tools_libs_origin;
}
static void set_targs(kk_settings_t *s, const char *v) { s->tools_args = v; }
static void get_targs(const kk__config_t *c, char *b, size_t n, kk__origin_t *o) {
  snprintf(b, n, "%s", c->tools_args ? c->tools_args : "");
  *o = c->tools_args_origin;
}
static int tri(const char *v) { return strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "1") == 0; }
static void set_print(kk_settings_t *s, const char *v) { s->print_configuration = tri(v); }
static void get_print(const kk__config_t *c, char *b, size_t n, kk__origin_t *o) {
  snprintf(b, n, "%s", c->print_configuration ? "true" : "false");
  *o = c->print_configuration_origin;
}
static void set_nowarn(kk_settings_t *s, const char *v) { s->disable_warnings = tri(v); }
static void get_nowarn(const kk__config_t *c, char *b, size_t n, kk__origin_t *o) {
  snprintf(b, n, "%s", c->disable_warnings ? "true" : "false");
  *o = c->disable_warnings_origin;
}
static void set_tune(kk_settings_t *s, const char *v) { s->tune_internals = tri(v); }
static void get_tune(const kk__config_t *c, char *b, size_t n, kk__origin_t *o) {
  snprintf(b, n, "%s", c->tune_internals ? "true" : "false");
  *o = c->tune_internals_origin;
}

/* Values differ between neighbouring sources, so the winner is visible in the
 * value as well as in the recorded origin. */
static const pkey_t pkeys[] = {
    {"device", "--kokkos-device", "KOKKOS_DEVICE", "device", true, {"cuda", "openmp", "threads", "serial", "hip"},
     set_device, get_device},
    {"num_threads", "--kokkos-num-threads", "KOKKOS_NUM_THREADS", "num_threads", false, {"4", "3", "2", "1", "5"},
     set_threads, get_threads},
    {"device_id", "--kokkos-device-id", "KOKKOS_DEVICE_ID", "device_id", false, {"3", "2", "1", "0", "4"}, set_devid,
     get_devid},
    {"map_device_id_by", "--kokkos-map-device-id-by", "KOKKOS_MAP_DEVICE_ID_BY", "map_device_id_by", true,
     {"random", "mpi_rank", "random", "mpi_rank", "random"}, set_mapby, get_mapby},
    {"visible_devices", NULL, "KOKKOS_VISIBLE_DEVICES", "visible_devices", true, {"", "0,1", "2", "1,3", "2,3"},
     set_visible, get_visible},
    {"tools_libs", "--kokkos-tools-libs", "KOKKOS_TOOLS_LIBS", "tools.libs", true,
     {"flag.so", "settings.so", "env.so", "json.so", "site.so"}, set_tlibs, get_tlibs},
    {"tools_args", "--kokkos-tools-args", "KOKKOS_TOOLS_ARGS", "tools.args", true, {"-f", "-s", "-e", "-j", "-t"},
     set_targs, get_targs},
    {"print_configuration", "--kokkos-print-configuration", "KOKKOS_PRINT_CONFIGURATION", "print_configuration",
     false, {"true", "false", "true", "false", "true"}, set_print, get_print},
    {"disable_warnings", "--kokkos-disable-warnings", "KOKKOS_DISABLE_WARNINGS", "disable_warnings", false,
     {"false", "true", "false", "true", "false"}, set_nowarn, get_nowarn},
    {"tune_internals", "--kokkos-tune-internals", "KOKKOS_TUNE_INTERNALS", "tune_internals", false,
     {"true", "false", "true", "false", "true"}, set_tune, get_tune},
};
static const kk__origin_t src_origin[SRC_N] = {KK__ORIGIN_FLAG, KK__ORIGIN_SETTINGS, KK__ORIGIN_ENV,
                                               KK__ORIGIN_JSON, KK__ORIGIN_SITE};

/* The JSON text that sets key k to v. */
static void json_of(const pkey_t *k, const char *v, char *json, size_t size) {
  const char *dot = strchr(k->json, '.');
  if (dot)
    snprintf(json, size, "{\"%.*s\": {\"%s\": \"%s\"}}", (int)(dot - k->json), k->json, dot + 1, v);
  else
    snprintf(json, size, k->json_string ? "{\"%s\": \"%s\"}" : "{\"%s\": %s}", k->json, v);
}

START_TEST(precedence_every_combination) {
  const pkey_t *k = &pkeys[_i];
  for (int mask = 0; mask < (1 << SRC_N); mask++) {
    if ((mask & (1 << SRC_FLAG)) && !k->flag)
      continue;
    run_t r;
    run_init(&r);
    kk_settings_t s = KK_SETTINGS_INIT;
    char flagbuf[128], json[256];
    if (mask & (1 << SRC_FLAG)) {
      snprintf(flagbuf, sizeof flagbuf, "%s=%s", k->flag, k->values[SRC_FLAG]);
      run_arg(&r, flagbuf);
    }
    if (mask & (1 << SRC_SETTINGS))
      k->set(&s, k->values[SRC_SETTINGS]);
    if (mask & (1 << SRC_ENV))
      setenv(k->env, k->values[SRC_ENV], 1);
    if (mask & (1 << SRC_JSON)) {
      json_of(k, k->values[SRC_JSON], json, sizeof json);
      run_json(&r, json);
    }
    if (mask & (1 << SRC_SITE)) {
      json_of(k, k->values[SRC_SITE], json, sizeof json);
      run_site(&r, json);
    }
    kk__config_t cfg;
    kk_status_t st = resolve(&r, &s, &cfg);
    ck_assert_msg(st == KK_OK, "%s mask %d: %s", k->name, mask, kk_last_error());
    char got[128];
    kk__origin_t origin;
    k->get(&cfg, got, sizeof got, &origin);
    int winner = -1;
    for (int src = 0; src < SRC_N && winner < 0; src++)
      if (mask & (1 << src))
        winner = src;
    if (winner < 0) {
      ck_assert_msg(origin == KK__ORIGIN_DEFAULT, "%s: no source set, origin %s", k->name, kk__origin_name(origin));
    } else {
      ck_assert_msg(origin == src_origin[winner], "%s mask %d: origin %s, expected %s", k->name, mask,
                    kk__origin_name(origin), kk__origin_name(src_origin[winner]));
      ck_assert_msg(strcmp(got, k->values[winner]) == 0, "%s mask %d: value '%s', expected '%s'", k->name, mask,
                    got, k->values[winner]);
    }
    kk__config_free(&cfg);
    run_done(&r);
  }
}
END_TEST

/* The plugin path concatenates the sources in precedence order. */
START_TEST(plugin_path_concatenates_in_order) {
  run_t r;
  run_init(&r);
  run_arg(&r, "--kokkos-plugin-path=/flag/a:/flag/b");
  setenv("KOKKOS_PLUGIN_PATH", "/env", 1);
  run_json(&r, "{\"plugin_path\": [\"/json/1\", \"/json/2\"]}");
  run_site(&r, "{\"plugin_path\": \"/site/1:/site/2\"}");
  kk_settings_t s = KK_SETTINGS_INIT;
  s.plugin_path = "/settings";
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, &s, &cfg), KK_OK);
  const char *want[] = {"/flag/a", "/flag/b", "/settings", "/env", "/json/1", "/json/2", "/site/1", "/site/2"};
  ck_assert_int_eq(cfg.plugin_path_count, 8);
  for (int i = 0; i < 8; i++)
    ck_assert_str_eq(cfg.plugin_path[i], want[i]);
  kk__config_free(&cfg);
  run_done(&r);
}
END_TEST

/* The JSON file itself is named by flag > settings > environment. */
START_TEST(config_file_precedence) {
  run_t r;
  run_init(&r);
  char *a = tu_write(r.dir, "a.json", "{\"num_threads\": 1}");
  char *b = tu_write(r.dir, "b.json", "{\"num_threads\": 2}");
  char *c = tu_write(r.dir, "c.json", "{\"num_threads\": 3}");
  char flag[600];
  snprintf(flag, sizeof flag, "--kokkos-config=%s", a);
  kk_settings_t s = KK_SETTINGS_INIT;
  setenv("KOKKOS_CONFIG", c, 1);
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, &s, &cfg), KK_OK); /* environment alone */
  ck_assert_int_eq(cfg.num_threads, 3);
  ck_assert_int_eq(cfg.config_file_origin, KK__ORIGIN_ENV);
  kk__config_free(&cfg);
  s.config_file = b; /* settings beat the environment */
  ck_assert_int_eq(resolve(&r, &s, &cfg), KK_OK);
  ck_assert_int_eq(cfg.num_threads, 2);
  ck_assert_int_eq(cfg.config_file_origin, KK__ORIGIN_SETTINGS);
  kk__config_free(&cfg);
  run_arg(&r, flag); /* the flag beats both */
  ck_assert_int_eq(resolve(&r, &s, &cfg), KK_OK);
  ck_assert_int_eq(cfg.num_threads, 1);
  ck_assert_int_eq(cfg.config_file_origin, KK__ORIGIN_FLAG);
  kk__config_free(&cfg);
  free(a), free(b), free(c);
  run_done(&r);
}
END_TEST

/* ---- single values -------------------------------------------------------- */

START_TEST(device_forms) {
  run_t r;
  run_init(&r);
  kk__config_t cfg;
  run_arg(&r, "--kokkos-device=cuda:2");
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_str_eq(cfg.device_backend, "cuda");
  ck_assert_int_eq(cfg.device_index, 2);
  kk__config_free(&cfg);
  r.argv[1] = "--kokkos-device=3"; /* old Kokkos meaning: a device id */
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_ptr_null(cfg.device_backend);
  ck_assert_int_eq(cfg.device_id, 3);
  ck_assert_int_eq(cfg.device_id_origin, KK__ORIGIN_FLAG);
  kk__config_free(&cfg);
  run_json(&r, "{\"device\": 1}");
  r.argc = 1;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_int_eq(cfg.device_id, 1);
  kk__config_free(&cfg);
  run_done(&r);
}
END_TEST

START_TEST(booleans_in_every_spelling) {
  static const char *yes[] = {"yes", "TRUE", "1", "Yes", "true"}, *no[] = {"no", "FALSE", "0", "No", "false"};
  for (int i = 0; i < 5; i++) {
    run_t r;
    run_init(&r);
    char flag[64];
    snprintf(flag, sizeof flag, "--kokkos-tune-internals=%s", yes[i]);
    run_arg(&r, flag);
    setenv("KOKKOS_DISABLE_WARNINGS", no[i], 1);
    kk__config_t cfg;
    ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
    ck_assert(cfg.tune_internals);
    ck_assert(!cfg.disable_warnings);
    ck_assert_int_eq(cfg.disable_warnings_origin, KK__ORIGIN_ENV);
    kk__config_free(&cfg);
    run_done(&r);
  }
  run_t r;
  run_init(&r);
  run_arg(&r, "--kokkos-print-configuration"); /* alone means true */
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert(cfg.print_configuration);
  kk__config_free(&cfg);
  run_done(&r);
}
END_TEST

START_TEST(json_backend_options_and_order) {
  run_t r;
  run_init(&r);
  run_json(&r, "{\"version\": 1, \"backend_order\": [\"threads\", \"serial\"],\n"
               " \"backends\": {\"threads\": {\"spin_us\": 50, \"bind\": \"cores\", \"pin\": true, \"ratio\": 0.5}}}");
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_int_eq(cfg.backend_order_count, 2);
  ck_assert_str_eq(cfg.backend_order[0], "threads");
  ck_assert_int_eq(cfg.backend_options_count, 1);
  kk__backend_options_t *bo = &cfg.backend_options[0];
  ck_assert_str_eq(bo->backend, "threads");
  ck_assert_int_eq(bo->count, 4);
  ck_assert_str_eq(bo->keys[0], "spin_us");
  ck_assert_str_eq(bo->values[0], "50");
  ck_assert_str_eq(bo->values[1], "cores");
  ck_assert_str_eq(bo->values[2], "true");
  ck_assert_str_eq(bo->values[3], "0.5");
  kk__config_free(&cfg);
  run_done(&r);
}
END_TEST

/* ---- the site file ------------------------------------------------------------ */

/* The user's file replaces the site's backend_order and overrides its backend
 * options key by key; the site's other options stay. */
START_TEST(site_file_under_the_users) {
  run_t r;
  run_init(&r);
  run_site(&r, "{\"device\": \"openmp\", \"backend_order\": [\"openmp\", \"serial\"],\n"
               " \"backends\": {\"threads\": {\"spin_us\": 10, \"bind\": \"cores\"},\n"
               "              \"cuda\": {\"jit_cache_dir\": \"/s\"}}}");
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_str_eq(cfg.device_backend, "openmp");
  ck_assert_int_eq(cfg.device_origin, KK__ORIGIN_SITE);
  ck_assert_str_eq(kk__origin_name(cfg.device_origin), "site config file");
  ck_assert_str_eq(cfg.site_file, r.site_path);
  ck_assert_str_eq(cfg.site_file_state, "read");
  ck_assert_int_eq(cfg.backend_order_count, 2);
  kk__config_free(&cfg);
  run_json(&r, "{\"backend_order\": [\"threads\"], \"backends\": {\"threads\": {\"spin_us\": 50, \"pin\": true}}}");
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_str_eq(cfg.device_backend, "openmp"); /* the user's file does not set it */
  ck_assert_int_eq(cfg.backend_order_count, 1);
  ck_assert_str_eq(cfg.backend_order[0], "threads");
  ck_assert_int_eq(cfg.backend_options_count, 2);
  kk__backend_options_t *th = &cfg.backend_options[0];
  ck_assert_str_eq(th->backend, "threads");
  ck_assert_int_eq(th->count, 3);
  ck_assert_str_eq(th->keys[0], "spin_us");
  ck_assert_str_eq(th->values[0], "50");
  ck_assert_str_eq(th->keys[1], "bind");
  ck_assert_str_eq(th->values[1], "cores");
  ck_assert_str_eq(th->keys[2], "pin");
  ck_assert_str_eq(cfg.backend_options[1].values[0], "/s");
  kk__config_free(&cfg);
  run_done(&r);
}
END_TEST

/* No site file is the common case: nothing said.  KK_SITE_CONFIG=none reads none. */
START_TEST(site_file_absent_or_off) {
  run_t r;
  run_init(&r);
  char path[600];
  snprintf(path, sizeof path, "%s/no-such.json", r.dir);
  setenv("KK_SITE_CONFIG", path, 1);
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_str_eq(cfg.site_file, path);
  ck_assert_str_eq(cfg.site_file_state, "not present");
  ck_assert_int_eq(cfg.warning_count, 0);
  kk__config_free(&cfg);
  setenv("KK_SITE_CONFIG", "none", 1);
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_ptr_null(cfg.site_file);
  kk__config_free(&cfg);
  run_done(&r);
}
END_TEST

/* A site file anyone could have written is not read, with a warning. */
START_TEST(site_file_writable_by_others_refused) {
  run_t r;
  run_init(&r);
  run_site(&r, "{\"num_threads\": 7}");
  ck_assert_int_eq(chmod(r.site_path, 0666), 0);
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_int_eq(cfg.num_threads, 0);
  ck_assert_int_eq(cfg.num_threads_origin, KK__ORIGIN_DEFAULT);
  ck_assert_msg(has_warning(&cfg, "site configuration"), "no warning");
  ck_assert_msg(has_warning(&cfg, "is writable by others (mode 0666); it is ignored"), "%s",
                cfg.warning_count ? cfg.warnings[0] : "");
  ck_assert_msg(strncmp(cfg.site_file_state, "refused: ", 9) == 0, "state %s", cfg.site_file_state);
  kk__config_free(&cfg);
  ck_assert_int_eq(chmod(r.site_path, 0644), 0);
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_int_eq(cfg.num_threads, 7);
  kk__config_free(&cfg);
  run_done(&r);
}
END_TEST

/* A malformed site file is an error that names it, as the user's is. */
START_TEST(site_file_malformed_is_named) {
  run_t r;
  run_init(&r);
  run_site(&r, "{\"num_threads\": \"many\"}");
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_ERROR_CONFIG);
  ck_assert_contains(kk_last_error(), r.site_path);
  ck_assert_contains(kk_last_error(), "num_threads");
  run_done(&r);
}
END_TEST

/* ---- argv handling ---------------------------------------------------------- */

START_TEST(consumed_flags_leave_argv) {
  tu_clear_env();
  char *argv[] = {"prog", "--kokkos-num-threads=2", "input.dat", "--kokkos-foo=1", "--kokkos-disable-warnings",
                  "-v", NULL};
  int argc = 6;
  char **av = argv;
  ck_assert_int_eq(kk_initialize(&argc, &av), KK_OK);
  ck_assert_int_eq(argc, 4);
  ck_assert_str_eq(av[0], "prog");
  ck_assert_str_eq(av[1], "input.dat");
  ck_assert_str_eq(av[2], "--kokkos-foo=1"); /* unknown: kept, with a warning */
  ck_assert_str_eq(av[3], "-v");
  ck_assert_ptr_null(av[4]);
  ck_assert_int_eq(kk_finalize(), KK_OK);
}
END_TEST

START_TEST(unknown_flag_warns) {
  run_t r;
  run_init(&r);
  run_arg(&r, "--kokkos-frobnicate=3");
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert(has_warning(&cfg, "unknown flag '--kokkos-frobnicate'"));
  ck_assert_int_eq(cfg.consumed_count, 0);
  kk__config_free(&cfg);
  run_done(&r);
}
END_TEST

START_TEST(deprecated_flags) {
  run_t r;
  run_init(&r);
  run_arg(&r, "--kokkos-threads=3");
  run_arg(&r, "--kokkos-numa=2");
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_int_eq(cfg.num_threads, 3);
  ck_assert(has_warning(&cfg, "--kokkos-threads is deprecated, use --kokkos-num-threads"));
  ck_assert(has_warning(&cfg, "--kokkos-numa is deprecated"));
  ck_assert_int_eq(cfg.consumed_count, 2);
  kk__config_free(&cfg);
  run_done(&r);
}
END_TEST

START_TEST(argv_untouched_on_error) {
  tu_clear_env();
  char *argv[] = {"prog", "--kokkos-num-threads=2", "--kokkos-device-id=x", NULL};
  int argc = 3;
  char **av = argv;
  ck_assert_int_eq(kk_initialize(&argc, &av), KK_ERROR_CONFIG);
  ck_assert_int_eq(argc, 3);
  ck_assert_str_eq(av[1], "--kokkos-num-threads=2");
  ck_assert_str_eq(av[2], "--kokkos-device-id=x");
  ck_assert(!kk_is_initialized());
}
END_TEST

START_TEST(help_requests_exit) {
  tu_clear_env();
  char *argv[] = {"prog", "--kokkos-help", NULL};
  int argc = 2;
  char **av = argv;
  FILE *saved = stdout;
  stdout = tmpfile();
  kk_status_t st = kk_initialize(&argc, &av);
  rewind(stdout);
  char text[8192] = {0};
  size_t n = fread(text, 1, sizeof text - 1, stdout);
  fclose(stdout);
  stdout = saved;
  ck_assert_int_eq(st, KK_EXIT_REQUESTED);
  ck_assert(n > 0);
  ck_assert(!kk_is_initialized());
  ck_assert_contains(text, "--kokkos-num-threads=N");
  ck_assert_contains(text, "KOKKOS_VISIBLE_DEVICES");
  ck_assert_contains(text, "--kokkos-map-device-id-by=random|mpi_rank");
}
END_TEST

/* ---- malformed input: every message names what is wrong ---------------------- */

typedef struct bad {
  const char *flag;      /* a flag to pass, or NULL */
  const char *env;       /* "NAME=value", or NULL */
  const char *json;      /* file text, or NULL */
  const char *expect[3]; /* substrings of the message */
} bad_t;

static const bad_t bads[] = {
    {"--kokkos-num-threads", NULL, NULL, {"--kokkos-num-threads needs a value", "--kokkos-num-threads=N"}},
    {"--kokkos-num-threads=0", NULL, NULL, {"invalid value '0' for --kokkos-num-threads", "integer >= 1"}},
    {"--kokkos-num-threads=four", NULL, NULL, {"'four'", "--kokkos-num-threads"}},
    {"--kokkos-device-id=-1", NULL, NULL, {"'-1'", "--kokkos-device-id", ">= 0"}},
    {"--kokkos-device=Cuda", NULL, NULL, {"'Cuda'", "--kokkos-device", "backend name"}},
    {"--kokkos-device=cuda:x", NULL, NULL, {"'cuda:x'", "--kokkos-device"}},
    {"--kokkos-device=", NULL, NULL, {"''", "--kokkos-device"}},
    {"--kokkos-map-device-id-by=rank", NULL, NULL, {"'rank'", "random or mpi_rank"}},
    {"--kokkos-print-configuration=maybe", NULL, NULL, {"'maybe'", "--kokkos-print-configuration", "yes, true"}},
    {"--kokkos-threads=x", NULL, NULL, {"'x'", "--kokkos-threads"}},
    {"--kokkos-numa=x", NULL, NULL, {"'x'", "--kokkos-numa"}},
    {NULL, "KOKKOS_NUM_THREADS=lots", NULL, {"'lots'", "KOKKOS_NUM_THREADS", "integer >= 1"}},
    {NULL, "KOKKOS_VISIBLE_DEVICES=0,0", NULL, {"'0,0'", "KOKKOS_VISIBLE_DEVICES", "distinct"}},
    {NULL, "KOKKOS_VISIBLE_DEVICES=1,a", NULL, {"'1,a'", "KOKKOS_VISIBLE_DEVICES"}},
    {NULL, "KOKKOS_TUNE_INTERNALS=perhaps", NULL, {"'perhaps'", "KOKKOS_TUNE_INTERNALS"}},
    {NULL, "KOKKOS_DEVICE=cu da", NULL, {"'cu da'", "KOKKOS_DEVICE"}},
    {NULL, "KOKKOS_CONFIG=/nonexistent/kk.json", NULL,
     {"cannot read configuration file '/nonexistent/kk.json'", "No such file"}},
    /* JSON syntax: file, line and column */
    {NULL, NULL, "{\n  \"num_threads\": 4,\n  \"device\" \"cuda\"\n}\n", {"kk.json:3:", "':' expected"}},
    {NULL, NULL, "{\"num_threads\": 4,}", {"kk.json:1:", "string or '}' expected"}},
    {NULL, NULL, "", {"kk.json:1:", "'[' or '{' expected"}},
    {NULL, NULL, "{\"a\": 1, \"a\": 2}", {"kk.json:1:", "duplicate object key"}},
    {NULL, NULL, "[1, 2]", {"kk.json:1:1", "must be a JSON object", "an array"}},
    /* wrong types and values name the key */
    {NULL, NULL, "{\"num_threads\": \"four\"}", {"kk.json: key 'num_threads'", "integer >= 1", "got a string"}},
    {NULL, NULL, "{\"num_threads\": 0}", {"key 'num_threads'", "invalid value '0'"}},
    {NULL, NULL, "{\"device\": true}", {"key 'device'", "got a boolean"}},
    {NULL, NULL, "{\"device\": \"CUDA\"}", {"key 'device'", "'CUDA'"}},
    {NULL, NULL, "{\"plugin_path\": [\"/a\", 3]}", {"key 'plugin_path[1]'", "got an integer"}},
    {NULL, NULL, "{\"disable_warnings\": \"yes\"}", {"key 'disable_warnings'", "true or false"}},
    {NULL, NULL, "{\"map_device_id_by\": \"closest\"}", {"key 'map_device_id_by'", "'closest'"}},
    {NULL, NULL, "{\"visible_devices\": [0, \"1\"]}", {"key 'visible_devices[1]'", "device index"}},
    {NULL, NULL, "{\"version\": 2}", {"key 'version'", "reads version 1", "has 2"}},
    {NULL, NULL, "{\"tools\": \"kp.so\"}", {"key 'tools'", "an object"}},
    {NULL, NULL, "{\"tools\": {\"libs\": 5}}", {"key 'tools.libs'", "a string"}},
    {NULL, NULL, "{\"backends\": {\"cuda\": {\"streams\": [1,2]}}}", {"key 'backends.cuda.streams'", "got an array"}},
    {NULL, NULL, "{\"backends\": {\"cuda\": 3}}", {"key 'backends.cuda'", "an object of options"}},
    {NULL, NULL, "{\"backend_order\": \"cuda\"}", {"key 'backend_order'", "an array"}},
    {NULL, NULL, "{\"backend_order\": [\"Cuda\"]}", {"key 'backend_order[0]'", "not a backend name"}},
};

START_TEST(malformed_inputs_are_named) {
  const bad_t *b = &bads[_i];
  run_t r;
  run_init(&r);
  if (b->flag)
    run_arg(&r, b->flag);
  if (b->env) {
    char name[64];
    const char *eq = strchr(b->env, '=');
    snprintf(name, sizeof name, "%.*s", (int)(eq - b->env), b->env);
    setenv(name, eq + 1, 1);
  }
  if (b->json)
    run_json(&r, b->json);
  kk__config_t cfg;
  kk_status_t st = resolve(&r, NULL, &cfg);
  ck_assert_msg(st == KK_ERROR_CONFIG, "case %d: status %d, expected KK_ERROR_CONFIG", _i, st);
  for (int i = 0; i < 3 && b->expect[i]; i++)
    ck_assert_contains(kk_last_error(), b->expect[i]);
  run_done(&r);
}
END_TEST

START_TEST(settings_malformed) {
  tu_clear_env();
  kk_settings_t s = KK_SETTINGS_INIT;
  s.num_threads = -2;
  kk__config_t cfg;
  ck_assert_int_eq(kk__config_resolve(0, NULL, &s, &cfg), KK_ERROR_CONFIG);
  ck_assert_contains(kk_last_error(), "kk_settings_t.num_threads");
  s = (kk_settings_t)KK_SETTINGS_INIT;
  s.disable_warnings = 7;
  ck_assert_int_eq(kk__config_resolve(0, NULL, &s, &cfg), KK_ERROR_CONFIG);
  ck_assert_contains(kk_last_error(), "kk_settings_t.disable_warnings");
  s = (kk_settings_t)KK_SETTINGS_INIT;
  s.struct_size = 4;
  ck_assert_int_eq(kk__config_resolve(0, NULL, &s, &cfg), KK_ERROR_INVALID_ARGUMENT);
  ck_assert_contains(kk_last_error(), "KK_SETTINGS_INIT");
}
END_TEST

/* An application compiled against an older, shorter kk_settings_t: the fields
 * past its struct_size are never read. */
START_TEST(settings_older_struct) {
  tu_clear_env();
  kk_settings_t s = KK_SETTINGS_INIT;
  s.num_threads = 3;
  s.tools_libs = "not-read.so";
  s.struct_size = offsetof(kk_settings_t, device_id);
  kk__config_t cfg;
  ck_assert_int_eq(kk__config_resolve(0, NULL, &s, &cfg), KK_OK);
  ck_assert_int_eq(cfg.num_threads, 3);
  ck_assert_ptr_null(cfg.tools_libs);
  kk__config_free(&cfg);
}
END_TEST

START_TEST(json_unknown_key_warns) {
  run_t r;
  run_init(&r);
  run_json(&r, "{\"num_thread\": 4, \"tools\": {\"lib\": \"x\"}}");
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert(has_warning(&cfg, "unknown key 'num_thread' ignored"));
  ck_assert(has_warning(&cfg, "unknown key 'tools.lib' ignored"));
  ck_assert(has_warning(&cfg, "kk.json"));
  kk__config_free(&cfg);
  run_done(&r);
}
END_TEST

START_TEST(profile_library_variable) {
  run_t r;
  run_init(&r);
  setenv("KOKKOS_PROFILE_LIBRARY", "old.so", 1);
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_str_eq(cfg.tools_libs, "old.so");
  kk__config_free(&cfg);
  setenv("KOKKOS_TOOLS_LIBS", "new.so", 1);
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_ERROR_CONFIG);
  ck_assert_contains(kk_last_error(), "KOKKOS_TOOLS_LIBS='new.so'");
  ck_assert_contains(kk_last_error(), "KOKKOS_PROFILE_LIBRARY='old.so'");
  run_done(&r);
}
END_TEST

START_TEST(empty_variable_is_unset) {
  run_t r;
  run_init(&r);
  setenv("KOKKOS_NUM_THREADS", "", 1);
  kk__config_t cfg;
  ck_assert_int_eq(resolve(&r, NULL, &cfg), KK_OK);
  ck_assert_int_eq(cfg.num_threads, 0);
  ck_assert_int_eq(cfg.num_threads_origin, KK__ORIGIN_DEFAULT);
  kk__config_free(&cfg);
  run_done(&r);
}
END_TEST

static Suite *config_suite(void) {
  Suite *s = suite_create("config");
  TCase *tc = tcase_create("precedence");
  tcase_add_loop_test(tc, precedence_every_combination, 0, (int)(sizeof pkeys / sizeof *pkeys));
  tcase_add_test(tc, plugin_path_concatenates_in_order);
  tcase_add_test(tc, config_file_precedence);
  tcase_add_test(tc, site_file_under_the_users);
  tcase_add_test(tc, site_file_absent_or_off);
  tcase_add_test(tc, site_file_writable_by_others_refused);
  tcase_add_test(tc, site_file_malformed_is_named);
  suite_add_tcase(s, tc);
  tc = tcase_create("values");
  tcase_add_test(tc, device_forms);
  tcase_add_test(tc, booleans_in_every_spelling);
  tcase_add_test(tc, json_backend_options_and_order);
  tcase_add_test(tc, profile_library_variable);
  tcase_add_test(tc, empty_variable_is_unset);
  suite_add_tcase(s, tc);
  tc = tcase_create("argv");
  tcase_add_test(tc, consumed_flags_leave_argv);
  tcase_add_test(tc, unknown_flag_warns);
  tcase_add_test(tc, deprecated_flags);
  tcase_add_test(tc, argv_untouched_on_error);
  tcase_add_test(tc, help_requests_exit);
  suite_add_tcase(s, tc);
  tc = tcase_create("malformed");
  tcase_add_loop_test(tc, malformed_inputs_are_named, 0, (int)(sizeof bads / sizeof *bads));
  tcase_add_test(tc, settings_malformed);
  tcase_add_test(tc, settings_older_struct);
  tcase_add_test(tc, json_unknown_key_warns);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(config_suite()); }
