/* tests/headers/headers.c -- runs the headers kernel on the backend named on the command line and compares what the target's <stdint.h>, <limits.h>, <float.h>... define with the host's; exit 77 when the backend is not here. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <string.h>

#include "headers.h"

static const char *const int_names[] = {
#define HDR_NAME(e) #e,
    HDR_INTS(HDR_NAME)};
static const char *const double_names[] = {HDR_DOUBLES(HDR_NAME)};

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: headers BACKEND\n");
    return 2;
  }
  kk_settings_t s = KK_SETTINGS_INIT;
  s.device = argv[1];
  s.disable_warnings = 1;
  kk_status_t st = kk_initialize_with_settings(&s);
  if (st == KK_ERROR_NOT_FOUND || st == KK_ERROR_NO_DEVICE) {
    printf("SKIP: backend %s is not available: %s\n", argv[1], kk_last_error());
    return 77;
  }
  if (st != KK_OK) {
    printf("FAIL: kk_initialize: %s\n", kk_last_error());
    return 1;
  }
  const int64_t expect_int[] = {
#define HDR_INT(e) (int64_t)(e),
      HDR_INTS(HDR_INT)};
  const double expect_double[] = {
#define HDR_DOUBLE(e) (double)(e),
      HDR_DOUBLES(HDR_DOUBLE)};
  int64_t ni = HDR_NINTS, nd = HDR_NDOUBLES;
  kk_view_t *ints = NULL, *doubles = NULL, *hints = NULL, *hdoubles = NULL;
  int failed = 0;
  if (kk_view_alloc(&ints, "ints", KK_INT64, 1, &ni) != KK_OK ||
      kk_view_alloc(&doubles, "doubles", KK_DOUBLE, 1, &nd) != KK_OK) {
    printf("FAIL: %s\n", kk_last_error());
    return 1;
  }
  struct hdr_args a = {kk_view_bind(ints), kk_view_bind(doubles)};
  if (kk_parallel_for("hdr_values", KK_RANGE(0, 1), KK_KERNEL(hdr_values), KK_ARGS(a)) != KK_OK ||
      kk_view_create_mirror_view(ints, &hints) != KK_OK || kk_deep_copy(hints, ints) != KK_OK ||
      kk_view_create_mirror_view(doubles, &hdoubles) != KK_OK || kk_deep_copy(hdoubles, doubles) != KK_OK ||
      kk_fence() != KK_OK) {
    printf("FAIL: %s\n", kk_last_error());
    return 1;
  }
  const int64_t *gi = kk_view_data(hints);
  const double *gd = kk_view_data(hdoubles);
  for (int i = 0; i < HDR_NINTS; i++)
    if (gi[i] != expect_int[i]) {
      printf("FAIL: %s on %s: %lld, on the host %lld\n", int_names[i], argv[1], (long long)gi[i],
             (long long)expect_int[i]);
      failed++;
    }
  for (int i = 0; i < HDR_NDOUBLES; i++)
    if (memcmp(&gd[i], &expect_double[i], sizeof(double)) != 0) {
      printf("FAIL: %s on %s: %a, on the host %a\n", double_names[i], argv[1], gd[i], expect_double[i]);
      failed++;
    }
  printf("%s: %d of %d values from the kernel's headers differ from the host's\n", argv[1], failed,
         HDR_NINTS + HDR_NDOUBLES);
  kk_view_release(hints), kk_view_release(hdoubles), kk_view_release(ints), kk_view_release(doubles);
  kk_finalize();
  return failed ? 1 : 0;
}
