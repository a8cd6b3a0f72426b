/* tests/faults/race.c -- the device branch of the dispatch path under concurrent first launches, on the fake device backend (ThreadSanitizer's case). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * usage: race [FAKE_PLUGIN_DIR]
 * Loads the fake device plugin (tests/fake, FAKE_MODE_DEVICE), which finds
 * a kernel only at its first launch, so that every launch below goes
 * through the kernel-handle cache of a device backend: 8 threads make the
 * first launches of one kernel and the first team-size queries of another,
 * all at once, while another thread registers and unregisters a module
 * (what kk_module_load and kk_module_unload do) over and over.  Every call
 * must succeed and every index be run once per launch.  Built with
 * -fsanitize=thread (tests/faults/tsan.sh), this is the case in which a
 * plain read of that cache beside its locked write is a reported race.
 * Exit 0 when all is well, 1 on a wrong result, 77 when the fake plugin is
 * not built.
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kk.h>

#define NTHREADS 8
#define LAUNCHES 16
#define N 64

struct race_args {
  atomic_long *hits;
};

static void race_for(const void *args, int64_t begin, int64_t end, const kk_host_thread_t *th) {
  (void)th;
  const struct race_args *a = args;
  for (int64_t i = begin; i < end; i++)
    atomic_fetch_add_explicit(a->hits, 1, memory_order_relaxed);
}

static int race_team(const void *args, int64_t begin, int64_t end, void *acc, const kk_host_thread_t *th) {
  (void)args, (void)begin, (void)end, (void)acc, (void)th;
  return 0;
}

/* Kernels and modules as kkcc's generated code lays them out (host code only). */
static kk_kernel_t k_for = {.struct_size = sizeof(kk_kernel_t), .abi_version = KK_KERNEL_ABI_VERSION,
                            .name = "race_for", .kind = KK_KIND_FOR, .args_size = sizeof(struct race_args),
                            .args_align = _Alignof(struct race_args), .host_for = race_for};
static kk_kernel_t k_team = {.struct_size = sizeof(kk_kernel_t), .abi_version = KK_KERNEL_ABI_VERSION,
                             .name = "race_team", .kind = KK_KIND_TEAM_FOR, .args_size = sizeof(struct race_args),
                             .args_align = _Alignof(struct race_args), .host_team = race_team};
static kk_kernel_t k_churn = {.struct_size = sizeof(kk_kernel_t), .abi_version = KK_KERNEL_ABI_VERSION,
                              .name = "race_churn", .kind = KK_KIND_FOR, .args_size = sizeof(struct race_args),
                              .args_align = _Alignof(struct race_args), .host_for = race_for};
static kk_kernel_t *const race_kernels[] = {&k_for, &k_team};
static kk_kernel_t *const churn_kernels[] = {&k_churn};
static kk_module_t m_race = {.struct_size = sizeof(kk_module_t), .abi_version = KK_KERNEL_ABI_VERSION,
                             .id = "race", .source_name = "race.c", .kernel_count = 2, .kernels = race_kernels,
                             .targets = "host"};
static kk_module_t m_churn = {.struct_size = sizeof(kk_module_t), .abi_version = KK_KERNEL_ABI_VERSION,
                              .id = "race-churn", .source_name = "race-churn.c", .kernel_count = 1,
                              .kernels = churn_kernels, .targets = "host"};

static pthread_barrier_t g_start;
static atomic_bool g_done;
static atomic_int g_failures;

static void fail(const char *what, kk_status_t st) {
  fprintf(stderr, "FAIL: %s: %s: %s\n", what, kk_status_str(st), kk_last_error());
  atomic_fetch_add(&g_failures, 1);
}

static void *launcher(void *arg) {
  struct race_args *a = arg;
  pthread_barrier_wait(&g_start);
  kk_status_t st = KK_OK;
  for (int i = 0; i < LAUNCHES; i++)
    if ((st = kk_parallel_for("race", KK_RANGE(0, N), &k_for, KK_ARGS(*a))) != KK_OK) {
      fail("kk_parallel_for", st);
      break;
    }
  /* after the launches, so that no lock a query takes orders them */
  int size = 0;
  if ((st = kk_team_size_max(&k_team, KK_TEAM(1, KK_AUTO, KK_AUTO), &size)) != KK_OK)
    fail("kk_team_size_max", st);
  return NULL;
}

static void *churner(void *arg) {
  (void)arg;
  pthread_barrier_wait(&g_start);
  for (int i = 0; i < 200 || !atomic_load(&g_done); i++) {
    kk_module_register(&m_churn);
    kk_module_unregister(&m_churn);
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *fake = argc > 1 ? argv[1] : KK_TEST_FAKE_DIR;
  char src[1024], dir[] = "/tmp/kk-race-XXXXXX", dst[1100];
  snprintf(src, sizeof src, "%s/kk_fake_device.so", fake);
  if (access(src, R_OK) != 0) {
    printf("SKIP: the fake device plugin %s is not built\n", src);
    return 77;
  }
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 99;
  }
  snprintf(dst, sizeof dst, "%s/kk_fake_device.so", dir);
  if (symlink(src, dst) != 0) {
    perror("symlink");
    return 99;
  }
  kk_module_register(&m_race);
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = "fake_device";
  s.plugin_path = dir;
  s.disable_warnings = 1;
  kk_status_t st = kk_initialize_with_settings(&s);
  unlink(dst);
  rmdir(dir);
  if (st != KK_OK) {
    fprintf(stderr, "FAIL: kk_initialize on fake_device: %s\n", kk_last_error());
    return 1;
  }
  if (k_for.runtime[0] || k_team.runtime[0]) {
    fprintf(stderr, "FAIL: a kernel was resolved at module load: the first launches would not race\n");
    return 1;
  }
  atomic_long hits = 0;
  struct race_args a = {&hits};
  pthread_t th[NTHREADS], churn;
  pthread_barrier_init(&g_start, NULL, NTHREADS + 1);
  pthread_create(&churn, NULL, churner, NULL);
  for (int t = 0; t < NTHREADS; t++)
    pthread_create(&th[t], NULL, launcher, &a);
  for (int t = 0; t < NTHREADS; t++)
    pthread_join(th[t], NULL);
  atomic_store(&g_done, true);
  pthread_join(churn, NULL);
  pthread_barrier_destroy(&g_start);
  const long want = (long)NTHREADS * LAUNCHES * N;
  if (atomic_load(&hits) != want) {
    fprintf(stderr, "FAIL: %ld indices run, %ld expected\n", (long)atomic_load(&hits), want);
    atomic_fetch_add(&g_failures, 1);
  }
  kk_finalize();
  kk_module_unregister(&m_race);
  if (atomic_load(&g_failures))
    return 1;
  printf("PASS: %d threads x %d first launches on fake_device beside a module registered and unregistered\n",
         NTHREADS, LAUNCHES);
  return 0;
}
