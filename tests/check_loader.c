/* tests/check_loader.c -- the plugin loader against fake plugins that are real shared objects: every failure records its reason. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "state.h"
#include "testutil.h"

#define KK_TARGET_HOST
#include <kk/kernel.h>

/* A kernel compiled into the test itself, not registered by kkcc. */
struct hit_args { int *counter; };
KK_FOR(hit, struct hit_args, i) { *args->counter += 1 + (int)(i - i); }

/* Initializes kk with `path` as the only plugin path, plus optional extra flags. */
static kk_status_t init_with_path(const char *path, const char *flag1, const char *flag2) {
  kk_settings_t s = KK_SETTINGS_INIT;
  s.plugin_path = path;
  s.disable_warnings = 1;
  char *argv[4] = {"prog", (char *)flag1, (char *)flag2, NULL};
  int argc = 1 + (flag1 != NULL) + (flag2 != NULL);
  if (!flag1)
    argv[1] = (char *)flag2;
  char **av = argv;
  return kk_initialize_ex(&argc, &av, &s);
}

/* The info of the plugin entry named `name` (fails the test when absent). */
static kk_plugin_info_t info_of(const char *name) {
  kk_plugin_info_t info = {.struct_size = sizeof info};
  for (int i = 0; i < kk_plugin_count(); i++) {
    ck_assert_int_eq(kk_plugin_get_info(i, &info), KK_OK);
    if (strcmp(info.name, name) == 0)
      return info;
  }
  ck_abort_msg("plugin %s not listed", name);
  return info;
}

typedef struct scenario {
  const char *fake;          /* fake plugin to link, or NULL */
  const char *entry;         /* plugin name as listed */
  kk_plugin_state_t state;
  const char *reason[3];     /* substrings of the recorded reason */
} scenario_t;

static const scenario_t scenarios[] = {
    {"fake_abimajor", "fake_abimajor", KK_PLUGIN_SKIPPED,
     {"plugin ABI 2.0 is incompatible with this kk's plugin ABI 1.", "majors differ"}},
    {"fake_noreq", "fake_noreq", KK_PLUGIN_SKIPPED, {"required member 'mem_alloc' is missing", "since ABI 1.0"}},
    {"fake_initfail", "fake_initfail", KK_PLUGIN_SKIPPED,
     {"initialization failed", "kk[fake_initfail]: fakeDriverInit: the driver refused to start",
      "(FAKE_ERROR_DRIVER = 999)"}},
    {"fake_nodev", "fake_nodev", KK_PLUGIN_NO_DEVICES, {"0 devices: no fake accelerator is present"}},
    {"fake_nosym", "fake_nosym", KK_PLUGIN_SKIPPED, {"entry symbol kk_plugin_fake_nosym_entry not found"}},
    {"fake_undef", "fake_undef", KK_PLUGIN_SKIPPED, {"cannot load", "undefined symbol: kk_fake_missing_function"}},
    {"fake_badname", "fake_badname", KK_PLUGIN_SKIPPED,
     {"operations table names backend 'someone_else'", "the file is for 'fake_badname'"}},
    {"fake_oldminor", "fake_oldminor", KK_PLUGIN_LOADED, {""}},
    {"fake_ok", "fake_ok", KK_PLUGIN_LOADED, {""}},
};

START_TEST(fake_plugin_reasons) {
  const scenario_t *sc = &scenarios[_i];
  tu_clear_env();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, sc->fake);
  ck_assert_msg(init_with_path(dir, NULL, NULL) == KK_OK, "%s", kk_last_error());
  kk_plugin_info_t info = info_of(sc->entry);
  ck_assert_msg(info.state == sc->state, "%s: state %d, expected %d (%s)", sc->entry, info.state, sc->state,
                info.reason);
  for (int i = 0; i < 3 && sc->reason[i]; i++)
    ck_assert_contains(info.reason, sc->reason[i]);
  ck_assert_contains(info.path, dir);
  /* whatever happened to the plugin, serial still works */
  ck_assert_str_eq(info_of("serial").path, "(built in)");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(dir);
}
END_TEST

START_TEST(missing_file_named_in_path) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  char path[600];
  snprintf(path, sizeof path, "%s/kk_gone.so", dir);
  ck_assert_int_eq(init_with_path(path, NULL, NULL), KK_OK);
  kk_plugin_info_t info = info_of("gone");
  ck_assert_int_eq(info.state, KK_PLUGIN_SKIPPED);
  ck_assert_contains(info.reason, "No such file or directory");
  ck_assert_contains(info.reason, "kk_gone.so");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(dir);
}
END_TEST

START_TEST(dangling_symlink) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  char dst[600];
  snprintf(dst, sizeof dst, "%s/kk_dangling.so", dir);
  ck_assert_int_eq(symlink("/nonexistent/kk_dangling.so", dst), 0);
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_OK);
  kk_plugin_info_t info = info_of("dangling");
  ck_assert_int_eq(info.state, KK_PLUGIN_SKIPPED);
  ck_assert_contains(info.reason, "No such file or directory");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(dir);
}
END_TEST

START_TEST(not_a_shared_object) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  free(tu_write(dir, "kk_text.so", "this is not an ELF file, only text long enough to have a header\n"));
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_OK);
  kk_plugin_info_t info = info_of("text");
  ck_assert_int_eq(info.state, KK_PLUGIN_SKIPPED);
  ck_assert_contains(info.reason, "invalid ELF header");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(dir);
}
END_TEST

START_TEST(badly_named_file) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  char *path = tu_write(dir, "backend.so", "x");
  ck_assert_int_eq(init_with_path(path, NULL, NULL), KK_OK);
  kk_plugin_info_t info = info_of("backend.so");
  ck_assert_int_eq(info.state, KK_PLUGIN_SKIPPED);
  ck_assert_contains(info.reason, "must be named kk_<name>.so");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  free(path);
  tu_rmdir(dir);
}
END_TEST

/* An ABI 1.0 plugin whose table ends before the optional members: it loads,
 * and the members it lacks read as absent. */
START_TEST(older_minor_members_absent) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_oldminor");
  tu_link_fake(dir, "fake_ok");
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_OK);
  kk__backend_t *old = kk__backend_find("fake_oldminor"), *full = kk__backend_find("fake_ok");
  ck_assert_ptr_nonnull(old);
  ck_assert_ptr_nonnull(full);
  ck_assert_uint_eq(old->ops.struct_size, offsetof(kk_plugin_ops_t, mem_fill));
  ck_assert(!KK_PLUGIN_HAS(&old->ops, mem_fill));
  ck_assert(old->ops.mem_fill == NULL);
  ck_assert(KK_PLUGIN_HAS(&full->ops, mem_fill));
  ck_assert(KK_PLUGIN_HAS(&old->ops, mem_alloc));
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(dir);
}
END_TEST

START_TEST(shadowed_by_earlier_directory) {
  tu_clear_env();
  char *a = tu_mkdtemp(), *b = tu_mkdtemp();
  tu_link_fake(a, "fake_ok");
  tu_link_fake(b, "fake_ok");
  char path[1200];
  snprintf(path, sizeof path, "%s:%s", a, b);
  ck_assert_int_eq(init_with_path(path, NULL, NULL), KK_OK);
  int loaded = 0, shadowed = 0;
  for (int i = 0; i < kk_plugin_count(); i++) {
    kk_plugin_info_t info = {.struct_size = sizeof info};
    kk_plugin_get_info(i, &info);
    if (strcmp(info.name, "fake_ok") != 0)
      continue;
    if (info.state == KK_PLUGIN_LOADED) {
      loaded++;
      ck_assert_contains(info.path, a);
    } else {
      ck_assert_int_eq(info.state, KK_PLUGIN_SHADOWED);
      ck_assert_contains(info.reason, "shadowed by");
      ck_assert_contains(info.path, b);
      shadowed++;
    }
  }
  ck_assert_int_eq(loaded, 1);
  ck_assert_int_eq(shadowed, 1);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(a);
  tu_rmdir(b);
}
END_TEST

/* An ABI 1.0 plugin has no launch member: a launch on it is refused with the
 * reason, never a call through a missing pointer. */
START_TEST(older_minor_cannot_launch) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_oldminor");
  ck_assert_int_eq(init_with_path(dir, "--kokkos-device=fake_oldminor", NULL), KK_OK);
  int counter = 0;
  struct hit_args a = {&counter};
  ck_assert_int_eq(kk_parallel_for("hit", KK_RANGE(0, 3), KK_KERNEL(hit), KK_ARGS(a)), KK_ERROR_UNSUPPORTED);
  ck_assert_contains(kk_last_error(), "backend fake_oldminor (plugin ABI 1.0) cannot launch kernels");
  ck_assert_int_eq(counter, 0);
  /* the host backend beside it runs the kernel */
  ck_assert_int_eq(kk_parallel_for("hit", KK_RANGE_ON(kk_instance_host(), 0, 3), KK_KERNEL(hit), KK_ARGS(a)), KK_OK);
  ck_assert_int_eq(counter, 3);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(dir);
}
END_TEST

/* A device backend needs the kernel registered by kkcc to find its code. */
START_TEST(device_backend_needs_registered_kernel) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_ok");
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_OK);
  int counter = 0;
  struct hit_args a = {&counter};
  ck_assert_int_eq(kk_parallel_for("hit", KK_RANGE(0, 3), KK_KERNEL(hit), KK_ARGS(a)), KK_ERROR_NOT_FOUND);
  ck_assert_contains(kk_last_error(), "kernel 'hit' is not registered with kk");
  ck_assert_contains(kk_last_error(), "build its kernel file with kkcc");
  ck_assert_int_eq(counter, 0);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(dir);
}
END_TEST

/* ---- selection ----------------------------------------------------------- */

START_TEST(highest_priority_wins_with_host_beside) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_ok"); /* priority 50, not a host backend */
  tu_link_fake(dir, "fake_nodev");
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_OK);
  ck_assert_str_eq(kk_backend_default(), "fake_ok");
  ck_assert_str_eq(kk_backend_host(), "serial");
  ck_assert_ptr_nonnull(kk_space_find("FakeSpace"));
  ck_assert_ptr_nonnull(kk_space_find("Host"));
  ck_assert_str_eq(kk_space_name(kk_space_default()), "FakeSpace");
  ck_assert_int_eq(kk_space_default_layout(kk_space_default()), KK_LAYOUT_LEFT);
  ck_assert_int_eq(kk_space_default_layout(kk_space_host()), KK_LAYOUT_RIGHT);
  kk_plugin_info_t info = info_of("fake_ok");
  ck_assert(info.is_default);
  ck_assert(info_of("serial").is_host);
  ck_assert_int_eq(kk_device_id(), 0);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(dir);
}
END_TEST

START_TEST(backend_order_overrides_priority) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_ok");
  char *json = tu_write(dir, "order.json", "{\"backend_order\": [\"serial\", \"fake_ok\"]}");
  setenv("KOKKOS_CONFIG", json, 1);
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_OK);
  ck_assert_str_eq(kk_backend_default(), "serial");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  free(json);
  tu_rmdir(dir);
}
END_TEST

START_TEST(device_choice) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_ok"); /* two devices */
  ck_assert_int_eq(init_with_path(dir, "--kokkos-device=fake_ok:1", NULL), KK_OK);
  ck_assert_int_eq(kk_device_id(), 1);
  kk_device_info_t d = {.struct_size = sizeof d};
  ck_assert_int_eq(kk_device_get_info("fake_ok", 1, &d), KK_OK);
  ck_assert_str_eq(d.name, "fake device one");
  ck_assert(d.selected);
  ck_assert_int_eq(kk_finalize(), KK_OK);

  ck_assert_int_eq(init_with_path(dir, "--kokkos-device-id=1", NULL), KK_OK);
  ck_assert_int_eq(kk_device_id(), 1);
  ck_assert_int_eq(kk_finalize(), KK_OK);

  setenv("KOKKOS_VISIBLE_DEVICES", "1", 1);
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_OK);
  ck_assert_int_eq(kk_device_id(), 1); /* the only visible device */
  ck_assert_int_eq(kk_finalize(), KK_OK);
  unsetenv("KOKKOS_VISIBLE_DEVICES");

  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "3", 1);
  ck_assert_int_eq(init_with_path(dir, "--kokkos-map-device-id-by=mpi_rank", NULL), KK_OK);
  ck_assert_int_eq(kk_device_id(), 1); /* rank 3 of 2 devices */
  ck_assert_int_eq(kk_finalize(), KK_OK);
  unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");

  ck_assert_int_eq(init_with_path(dir, "--kokkos-map-device-id-by=random", NULL), KK_OK);
  ck_assert(kk_device_id() == 0 || kk_device_id() == 1);
  ck_assert_int_eq(kk_finalize(), KK_OK);

  ck_assert_int_eq(init_with_path(dir, "--kokkos-device=fake_ok:2", NULL), KK_ERROR_NO_DEVICE);
  ck_assert_contains(kk_last_error(), "device 2");
  ck_assert_contains(kk_last_error(), "backend fake_ok has 2 visible devices");
  ck_assert(!kk_is_initialized());

  setenv("KOKKOS_VISIBLE_DEVICES", "5,6", 1);
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_ERROR_NO_DEVICE);
  ck_assert_contains(kk_last_error(), "visible devices");
  ck_assert_contains(kk_last_error(), "backend fake_ok, which has 2");
  tu_rmdir(dir);
}
END_TEST

/* Initializes with warnings on and `dir` as the plugin path; returns what kk
 * printed on stderr (caller frees) and the device chosen in *device. */
static char *init_capturing_warnings(const char *dir, int *device) {
  kk_settings_t s = KK_SETTINGS_INIT;
  s.plugin_path = dir;
  char path[] = "/tmp/kk-warn-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  kk_status_t st = kk_initialize_with_settings(&s);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  ck_assert_int_eq(st, KK_OK);
  *device = kk_device_id();
  ck_assert_int_eq(kk_finalize(), KK_OK);
  off_t n = lseek(fd, 0, SEEK_END);
  char *text = calloc(1, (size_t)n + 1);
  ck_assert_int_eq(pread(fd, text, (size_t)n, 0), n);
  close(fd);
  unlink(path);
  return text;
}

/* Device per rank under each launcher's variables, set by hand: with no
 * mapping flag the local rank picks the device (Kokkos' default under a
 * launcher); fewer devices than local ranks share them round-robin, with a
 * warning. */
START_TEST(device_per_mpi_rank) {
  static const struct {
    const char *launcher, *rank_var, *rank, *size_var, *size;
    int device;          /* of fake_ok's two */
    const char *warning; /* substring of the warning, or NULL for none */
  } cases[] = {
      {"Open MPI", "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1, NULL},
      {"Open MPI", "OMPI_COMM_WORLD_LOCAL_RANK", "0", "OMPI_COMM_WORLD_LOCAL_SIZE", "4", 0,
       "4 MPI ranks on this node (OMPI_COMM_WORLD_LOCAL_RANK) share the 2 visible devices of backend fake_ok "
       "round-robin (local rank 0 uses device 0)"},
      {"Open MPI", "OMPI_COMM_WORLD_LOCAL_RANK", "3", "OMPI_COMM_WORLD_LOCAL_SIZE", "4", 1, NULL}, /* rank 0 says it */
      {"MPICH", "MPI_LOCALRANKID", "1", "MPI_LOCALNRANKS", "2", 1, NULL},
      {"MPICH", "MPI_LOCALRANKID", "0", "MPI_LOCALNRANKS", "3", 0, "3 MPI ranks on this node (MPI_LOCALRANKID)"},
      {"MVAPICH", "MV2_COMM_WORLD_LOCAL_RANK", "1", NULL, NULL, 1, NULL},
      {"Slurm", "SLURM_LOCALID", "1", NULL, NULL, 1, NULL},
      {"Slurm", "SLURM_LOCALID", "2", NULL, NULL, 0,
       "MPI local rank 2 (SLURM_LOCALID) is beyond the 2 visible devices of backend fake_ok: ranks share devices "
       "round-robin (this one uses device 0)"},
      {"Slurm", "SLURM_LOCALID", "0", "SLURM_NTASKS_PER_NODE", "8", 0, "8 MPI ranks on this node (SLURM_LOCALID)"},
      {"PMI", "PMI_LOCAL_RANK", "5", "PMI_LOCAL_SIZE", "6", 1, NULL},
  };
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_ok"); /* two devices */
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    tu_clear_env();
    setenv(cases[i].rank_var, cases[i].rank, 1);
    if (cases[i].size_var)
      setenv(cases[i].size_var, cases[i].size, 1);
    int device = -1;
    char *err = init_capturing_warnings(dir, &device);
    ck_assert_msg(device == cases[i].device, "%s, %s=%s: device %d, want %d", cases[i].launcher, cases[i].rank_var,
                  cases[i].rank, device, cases[i].device);
    if (cases[i].warning)
      ck_assert_contains(err, cases[i].warning);
    else
      ck_assert_msg(strstr(err, "round-robin") == NULL, "%s, %s=%s: unexpected warning: %s", cases[i].launcher,
                    cases[i].rank_var, cases[i].rank, err);
    free(err);
  }
  /* the visible devices count, not the backend's: one visible device, rank 1 */
  tu_clear_env();
  setenv("KOKKOS_VISIBLE_DEVICES", "1", 1);
  setenv("SLURM_LOCALID", "1", 1);
  int device = -1;
  char *err = init_capturing_warnings(dir, &device);
  ck_assert_int_eq(device, 1);
  ck_assert_contains(err, "beyond the 1 visible device of backend fake_ok");
  free(err);
  /* an explicit device id wins over the launcher's rank */
  tu_clear_env();
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  setenv("KOKKOS_DEVICE_ID", "0", 1);
  err = init_capturing_warnings(dir, &device);
  ck_assert_int_eq(device, 0);
  free(err);
  /* --kokkos-disable-warnings silences the round-robin warning */
  tu_clear_env();
  setenv("SLURM_LOCALID", "2", 1);
  setenv("KOKKOS_DISABLE_WARNINGS", "1", 1);
  err = init_capturing_warnings(dir, &device);
  ck_assert_int_eq(device, 0);
  ck_assert_str_eq(err, "");
  free(err);
  tu_clear_env();
  tu_rmdir(dir);
}
END_TEST

START_TEST(requested_backend_missing) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_nodev");
  ck_assert_int_eq(init_with_path(dir, "--kokkos-device=cuda", NULL), KK_ERROR_NOT_FOUND);
  const char *e = kk_last_error();
  ck_assert_contains(e, "backend 'cuda' was requested (command line)");
  ck_assert_contains(e, "no plugin kk_cuda.so");
  ck_assert_contains(e, dir);
  ck_assert_contains(e, "usable backends: serial");
  ck_assert_contains(e, "fake_nodev");
  ck_assert_contains(e, "0 devices: no fake accelerator is present");
  ck_assert(!kk_is_initialized());
  tu_rmdir(dir);
}
END_TEST

START_TEST(requested_backend_unusable) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_nodev");
  tu_link_fake(dir, "fake_initfail");
  tu_link_fake(dir, "fake_ok");
  setenv("KOKKOS_DEVICE", "fake_nodev", 1);
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_ERROR_NO_DEVICE);
  ck_assert_contains(kk_last_error(), "backend 'fake_nodev' was requested (environment) but cannot be used");
  ck_assert_contains(kk_last_error(), "no fake accelerator is present");
  ck_assert_contains(kk_last_error(), "usable backends: serial, fake_ok");
  setenv("KOKKOS_DEVICE", "fake_initfail", 1);
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_ERROR_PLUGIN);
  ck_assert_contains(kk_last_error(), "the driver refused to start");
  ck_assert(!kk_is_initialized());
  tu_rmdir(dir);
}
END_TEST

START_TEST(backend_options_reach_the_plugin) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_ok");
  char *json = tu_write(dir, "opt.json", "{\"backends\": {\"fake_ok\": {\"queue_depth\": 8, \"mode\": \"fast\"}}}");
  setenv("KOKKOS_CONFIG", json, 1);
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_OK);
  kk__backend_t *b = kk__backend_find("fake_ok");
  const kk_host_services_t *hs = &b->services;
  ck_assert_str_eq(hs->option(hs->core, "queue_depth"), "8");
  ck_assert_str_eq(hs->option(hs->core, "mode"), "fast");
  ck_assert_ptr_null(hs->option(hs->core, "absent"));
  kk__backend_t *serial = kk__backend_find("serial");
  ck_assert_ptr_null(serial->services.option(serial->services.core, "mode"));
  ck_assert_int_eq(hs->config->num_threads, 0);
  ck_assert_int_eq(kk_finalize(), KK_OK);
  free(json);
  tu_rmdir(dir);
}
END_TEST

/* hs->error keeps the backend name and the native code in kk_last_error(). */
START_TEST(plugin_errors_carry_context) {
  tu_clear_env();
  char *dir = tu_mkdtemp();
  tu_link_fake(dir, "fake_ok");
  ck_assert_int_eq(init_with_path(dir, NULL, NULL), KK_OK);
  void *p = (void *)1;
  ck_assert_int_eq(kk_space_alloc(kk_space_default(), "huge", (size_t)1 << 41, &p), KK_ERROR_OUT_OF_MEMORY);
  ck_assert_ptr_null(p);
  const char *e = kk_last_error();
  ck_assert_contains(e, "'huge'");
  ck_assert_contains(e, "2199023255552 bytes");
  ck_assert_contains(e, "memory space FakeSpace of backend fake_ok");
  ck_assert_contains(e, "kk[fake_ok]: fakeMalloc(2199023255552) failed (FAKE_ERROR_OOM = 2)");
  ck_assert_int_eq(kk_finalize(), KK_OK);
  tu_rmdir(dir);
}
END_TEST

static Suite *loader_suite(void) {
  Suite *s = suite_create("loader");
  TCase *tc = tcase_create("failures");
  tcase_add_loop_test(tc, fake_plugin_reasons, 0, (int)(sizeof scenarios / sizeof *scenarios));
  tcase_add_test(tc, missing_file_named_in_path);
  tcase_add_test(tc, dangling_symlink);
  tcase_add_test(tc, not_a_shared_object);
  tcase_add_test(tc, badly_named_file);
  tcase_add_test(tc, older_minor_members_absent);
  tcase_add_test(tc, shadowed_by_earlier_directory);
  tcase_add_test(tc, older_minor_cannot_launch);
  tcase_add_test(tc, device_backend_needs_registered_kernel);
  suite_add_tcase(s, tc);
  tc = tcase_create("selection");
  tcase_add_test(tc, highest_priority_wins_with_host_beside);
  tcase_add_test(tc, backend_order_overrides_priority);
  tcase_add_test(tc, device_choice);
  tcase_add_test(tc, device_per_mpi_rank);
  tcase_add_test(tc, requested_backend_missing);
  tcase_add_test(tc, requested_backend_unusable);
  tcase_add_test(tc, backend_options_reach_the_plugin);
  tcase_add_test(tc, plugin_errors_carry_context);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run(loader_suite()); }
