/* tests/check_package.c -- kk installed from packages (configure --with-backend-package): a missing backend names its package, the report lists the ones not installed. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "package.h"
#include "testutil.h"

/* The packaging-time setting as debian/rules makes it, whatever this build
 * was configured with; fake_ok stands for a backend whose package is
 * installed. */
static void as_packaged(void) {
  kk__backend_package_pattern = "kk-backend-%s";
  kk__packaged_backends = "threads,openmp,fake_ok,cuda";
}

static void as_unpackaged(void) {
  kk__backend_package_pattern = "";
  kk__packaged_backends = "";
}

/* kk with `dir` as its only plugin path, and --kokkos-device=`device` unless NULL. */
static kk_status_t init_in(const char *dir, const char *device) {
  kk_settings_t s = KK_SETTINGS_INIT;
  s.plugin_path = dir;
  s.disable_warnings = 1;
  char flag[128];
  snprintf(flag, sizeof flag, "--kokkos-device=%s", device ? device : "");
  char *argv[3] = {"prog", flag, NULL};
  int argc = device ? 2 : 1;
  char **av = argv;
  return kk_initialize_ex(&argc, &av, &s);
}

/* The configuration report (text, or JSON), as one string the caller frees. */
static char *report(int json) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(json ? kk_print_configuration_json(f) : kk_print_configuration(f), KK_OK);
  fclose(f);
  return buf;
}

/* The JSON report's "not_installed" member, as "name=package ..." */
static char *not_installed_json(void) {
  char *text = report(1);
  json_error_t err;
  json_t *root = json_loads(text, 0, &err);
  ck_assert_msg(root != NULL, "the JSON report does not parse: %s", err.text);
  json_t *list = json_object_get(root, "not_installed");
  ck_assert_msg(json_is_array(list), "no \"not_installed\" array in %s", text);
  char *out = calloc(1, 1024);
  size_t i;
  json_t *e;
  json_array_foreach(list, i, e) {
    size_t len = strlen(out);
    snprintf(out + len, 1024 - len, "%s%s=%s", i ? " " : "", json_string_value(json_object_get(e, "name")),
             json_string_value(json_object_get(e, "package")));
  }
  json_decref(root);
  free(text);
  return out;
}

START_TEST(missing_backend_names_its_package) {
  tu_clear_env();
  as_packaged();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_ok");
  ck_assert_int_eq(init_in(dir, "cuda"), KK_ERROR_NOT_FOUND);
  ck_assert_contains(kk_last_error(), "backend 'cuda' was requested");
  ck_assert_contains(kk_last_error(), "no plugin kk_cuda.so is in the plugin path");
  ck_assert_contains(kk_last_error(), "; install the package kk-backend-cuda; ");
  tu_rmdir(dir);
}
END_TEST

/* a name no package of this kk holds gets no advice that could not work */
START_TEST(unknown_backend_names_no_package) {
  tu_clear_env();
  as_packaged();
  char *dir = tu_mkdtemp();
  ck_assert_int_eq(init_in(dir, "nosuch"), KK_ERROR_NOT_FOUND);
  ck_assert_contains(kk_last_error(), "no plugin kk_nosuch.so is in the plugin path");
  ck_assert_msg(!strstr(kk_last_error(), "install"), "unexpected advice: %s", kk_last_error());
  tu_rmdir(dir);
}
END_TEST

/* built from source (no --with-backend-package): no package is named */
START_TEST(unpackaged_names_no_package) {
  tu_clear_env();
  as_unpackaged();
  char *dir = tu_mkdtemp();
  ck_assert_int_eq(init_in(dir, "cuda"), KK_ERROR_NOT_FOUND);
  ck_assert_contains(kk_last_error(), "no plugin kk_cuda.so is in the plugin path");
  ck_assert_msg(!strstr(kk_last_error(), "install"), "unexpected advice: %s", kk_last_error());
  ck_assert_int_eq(init_in(dir, NULL), KK_OK);
  char *text = report(0), *json = not_installed_json();
  ck_assert_msg(!strstr(text, "not installed"), "%s", text);
  ck_assert_str_eq(json, "");
  free(text);
  free(json);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(dir);
}
END_TEST

/* the report (kk-info) lists the packaged backends whose plugin is absent,
 * and only those */
START_TEST(report_lists_backends_not_installed) {
  tu_clear_env();
  as_packaged();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_ok");
  ck_assert_msg(init_in(dir, NULL) == KK_OK, "%s", kk_last_error());
  char *text = report(0);
  const char *list = strstr(text, "backends not installed (packages of this kk):\n");
  ck_assert_msg(list != NULL, "%s", text);
  ck_assert_contains(list, "\n  threads      install kk-backend-threads\n"
                           "  openmp       install kk-backend-openmp\n"
                           "  cuda         install kk-backend-cuda\ndefault backend: ");
  char *json = not_installed_json();
  ck_assert_str_eq(json, "threads=kk-backend-threads openmp=kk-backend-openmp cuda=kk-backend-cuda");
  free(text);
  free(json);
  ck_assert_int_eq(kk_finalize(), KK_OK);

  /* every package installed: the list says so */
  kk__packaged_backends = "fake_ok";
  ck_assert_int_eq(init_in(dir, NULL), KK_OK);
  text = report(0);
  ck_assert_contains(text, "backends not installed (packages of this kk): (none)\ndefault backend: ");
  free(text);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(dir);
}
END_TEST

START_TEST(package_names) {
  char buf[32] = "untouched";
  kk__packaged_backends = "threads,cuda";
  kk__backend_package_pattern = "kk-%s-plugin";
  ck_assert(kk__backend_package("cuda", buf, sizeof buf));
  ck_assert_str_eq(buf, "kk-cuda-plugin");
  /* a prefix or a longer name of a listed backend is not that backend */
  ck_assert(!kk__backend_package("cud", buf, sizeof buf));
  ck_assert(!kk__backend_package("cudax", buf, sizeof buf));
  ck_assert(!kk__backend_package("", buf, sizeof buf));
  /* too long for the buffer: false, the buffer untouched */
  char small[8] = "small";
  ck_assert(!kk__backend_package("threads", small, sizeof small));
  ck_assert_str_eq(small, "small");
  ck_assert(kk__packaged_backend(1, buf, sizeof buf));
  ck_assert_str_eq(buf, "cuda");
  ck_assert(!kk__packaged_backend(2, buf, sizeof buf));
  ck_assert(!kk__packaged_backend(-1, buf, sizeof buf));
}
END_TEST

static Suite *package_suite(void) {
  Suite *s = suite_create("package");
  TCase *tc = tcase_create("package");
  tcase_add_test(tc, missing_backend_names_its_package);
  tcase_add_test(tc, unknown_backend_names_no_package);
  tcase_add_test(tc, unpackaged_names_no_package);
  tcase_add_test(tc, report_lists_backends_not_installed);
  tcase_add_test(tc, package_names);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(package_suite()); }
