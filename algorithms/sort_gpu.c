/* algorithms/sort_gpu.c -- the GPU radix sort's launches: the histogram of every digit, its scan, one one-sweep pass per digit. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdlib.h>
#include <string.h>

#include "sort_gpu.h"

#define DECL_W(w)                          \
  KK_DECLARE_KERNEL(kka_ghist_##w);        \
  KK_DECLARE_KERNEL(kka_gpass_##w##_0);    \
  KK_DECLARE_KERNEL(kka_gpass_##w##_4);    \
  KK_DECLARE_KERNEL(kka_gpass_##w##_8);    \
  KK_DECLARE_KERNEL(kka_ghist2_##w);       \
  KK_DECLARE_KERNEL(kka_gpass2_##w##_0);   \
  KK_DECLARE_KERNEL(kka_gpass2_##w##_4);   \
  KK_DECLARE_KERNEL(kka_gpass2_##w##_8)
DECL_W(1);
DECL_W(2);
DECL_W(4);
DECL_W(8);
KK_DECLARE_KERNEL(kka_gpass5_4_0);
KK_DECLARE_KERNEL(kka_gpass5_4_8);
KK_DECLARE_KERNEL(kka_gpass5_8_0);
KK_DECLARE_KERNEL(kka_gpass5_8_4);
KK_DECLARE_KERNEL(kka_gpass5_8_8);
KK_DECLARE_KERNEL(kka_gpass5a_4_4);
KK_DECLARE_KERNEL(kka_gscan);

/* keys per thread of a tile, by key size */
static int items(int ksize) {
  return ksize == 1 ? KKA_GPU_IT_1 : ksize == 2 ? KKA_GPU_IT_2 : ksize == 4 ? KKA_GPU_IT_4 : KKA_GPU_IT_8;
}

/* Whether the backend is the one named. */
static int backend_is(const kka_call_t *c, const char *name) {
  const char *b = kk_instance_backend(c->inst);
  return b && strcmp(b, name) == 0;
}

/* Whether form 5's pass of pairs of these sizes takes CUDA's shape on this
 * backend (sort.kk.c: larger tiles, the values sorted after the keys):
 * 4-byte and 8-byte keys with values of their size, on cuda. */
static int cuda_pairs(const kka_call_t *c, int form, int ksize, int vsize) {
  return form == 5 && ksize == vsize && (ksize == 4 || ksize == 8) && backend_is(c, "cuda");
}

/* Whether the pass for these keys and values sorts the values after the
 * keys, through the keys' buffer, and so takes the smaller team scratch
 * (sort_pass_tmpl.h, KKA_V5_VAFTER): form 5's of 4-byte keys and values
 * on the SIMT targets (cuda, hip), and its of 8-byte ones on cuda, whose
 * kernels take that path; the same kernels compiled for other targets
 * keep a buffer for the values. */
static int values_after(const kka_call_t *c, int form, int ksize, int vsize) {
  if (cuda_pairs(c, form, ksize, vsize))
    return 1;
  return form == 5 && ksize == 4 && vsize == 4 && backend_is(c, "hip");
}

/* Keys per thread of a pass's tile (form 5's passes of pairs take larger
 * tiles on cuda). */
static int pass_items(const kka_call_t *c, int form, int ksize, int vsize) {
  if (cuda_pairs(c, form, ksize, vsize))
    return ksize == 4 ? KKA_CUDA_IT_PAIRS_4 : KKA_CUDA_IT_PAIRS_8;
  return items(ksize);
}

/* Level-0 scratch of a pass team, as sort_pass_tmpl.h takes it, for tiles
 * of `tile` keys. */
static uint64_t pass_scratch(int ksize, int vsize, int after, int64_t tile) {
  if (after)
    return kk_scratch_size(1, KKA_GS_BYTES(tile, (int64_t)(ksize > vsize ? ksize : vsize), (int64_t)0));
  return kk_scratch_size(1, KKA_GS_BYTES(tile, (int64_t)ksize, (int64_t)vsize));
}

/* Which kernels sort n keys (args.h): 1 the first, 2 the second (32-bit
 * look-back words, the histogram's counters in copies), 5 the second's
 * histogram with the fifth pass: a tile's digits counted before its keys
 * are ranked, the rank of a key its place in the sorted tile, and on SIMT
 * GPUs pairs of 4-byte keys and values sorted keys first, then values
 * (4- and 8-byte keys; others take form 2's).  The fifth (the fastest on
 * an H200: docs/algorithms.md) unless KK_SORT_GPU_KERNEL (1 or 2) asks for
 * another; the first where the keys are too many for a 32-bit word's
 * count.  (Forms 3 and 4, which the fifth superseded, are no longer
 * built; KK_SORT_GPU_KERNEL=3 or 4 gives the fifth.) */
static int kernel_form(int64_t n) {
  const char *e = getenv("KK_SORT_GPU_KERNEL");
  if (n >= KKA_SW_MAXN || (e && e[0] == '1' && e[1] == 0))
    return 1;
  return e && e[0] == '2' && e[1] == 0 ? 2 : 5;
}

/* (the first kernels' 64-bit words, and the smallest tiles: enough for
 * any form) */
size_t kka_radix_gpu_state_bytes(int64_t n, int ksize) {
  const int64_t tile = (int64_t)KKA_GPU_TS * items(ksize), ntiles = (n + tile - 1) / tile;
  return (size_t)ksize * KKA_RADIX * 8 + 64 + (size_t)ntiles * KKA_RADIX * 8;
}

kk_status_t kka_radix_gpu(const kka_call_t *c, void *keys[2], void *vals[2], int64_t n, int ksize, int vsize, int kind,
                          int desc, int *cur) {
  static const kk_kernel_t *const hist_k[2][4] = {
      {KK_KERNEL(kka_ghist_1), KK_KERNEL(kka_ghist_2), KK_KERNEL(kka_ghist_4), KK_KERNEL(kka_ghist_8)},
      {KK_KERNEL(kka_ghist2_1), KK_KERNEL(kka_ghist2_2), KK_KERNEL(kka_ghist2_4), KK_KERNEL(kka_ghist2_8)}};
  static const kk_kernel_t *const pass_k[3][4][3] = {
      {{KK_KERNEL(kka_gpass_1_0), KK_KERNEL(kka_gpass_1_4), KK_KERNEL(kka_gpass_1_8)},
       {KK_KERNEL(kka_gpass_2_0), KK_KERNEL(kka_gpass_2_4), KK_KERNEL(kka_gpass_2_8)},
       {KK_KERNEL(kka_gpass_4_0), KK_KERNEL(kka_gpass_4_4), KK_KERNEL(kka_gpass_4_8)},
       {KK_KERNEL(kka_gpass_8_0), KK_KERNEL(kka_gpass_8_4), KK_KERNEL(kka_gpass_8_8)}},
      {{KK_KERNEL(kka_gpass2_1_0), KK_KERNEL(kka_gpass2_1_4), KK_KERNEL(kka_gpass2_1_8)},
       {KK_KERNEL(kka_gpass2_2_0), KK_KERNEL(kka_gpass2_2_4), KK_KERNEL(kka_gpass2_2_8)},
       {KK_KERNEL(kka_gpass2_4_0), KK_KERNEL(kka_gpass2_4_4), KK_KERNEL(kka_gpass2_4_8)},
       {KK_KERNEL(kka_gpass2_8_0), KK_KERNEL(kka_gpass2_8_4), KK_KERNEL(kka_gpass2_8_8)}},
      {{0, 0, 0},
       {0, 0, 0},
       {KK_KERNEL(kka_gpass5_4_0), KK_KERNEL(kka_gpass5a_4_4), KK_KERNEL(kka_gpass5_4_8)},
       {KK_KERNEL(kka_gpass5_8_0), KK_KERNEL(kka_gpass5_8_4), KK_KERNEL(kka_gpass5_8_8)}}};
  const int w = ksize == 1 ? 0 : ksize == 2 ? 1 : ksize == 4 ? 2 : 3;
  const int v = vsize == 0 ? 0 : vsize == 4 ? 1 : 2;
  const int form = kernel_form(n), v2 = form >= 2;
  const int passes = ksize, parts = v2 ? KKA_HIST2_PARTS(ksize) : 1;
  const int row = form == 5 ? 2 : form - 1; /* pass_k's rows: forms 1, 2 and 5 */
  const kk_kernel_t *const pass = pass_k[row][w][v] ? pass_k[row][w][v] : pass_k[1][w][v];
  const int64_t tile = (int64_t)KKA_GPU_TS * pass_items(c, form, ksize, vsize), ntiles = (n + tile - 1) / tile;
  const uint64_t scratch = pass_scratch(ksize, vsize, values_after(c, form, ksize, vsize), tile);
  if (KKA_UNLIKELY(scratch > kka_scratch_max(c)))
    return kka_err(KK_ERROR_LIMIT, "%s: the radix sort needs %llu bytes of team scratch, backend %s allows %llu", c->op,
                   (unsigned long long)scratch, kk_instance_backend(c->inst),
                   (unsigned long long)kka_scratch_max(c));
  /* one allocation, zeroed: histograms (become digit starts), tile
   * counters, the look-back words (each pass writes its epoch, or its
   * parity, in them, so that no pass clears them for the next) */
  const size_t hist_b = (size_t)passes * KKA_RADIX * 8, cnt_b = 64;
  const size_t st_b = (size_t)ntiles * KKA_RADIX * (v2 ? 4 : 8);
  char *mem = kka_tmp(c, "radix sort state", hist_b + cnt_b + st_b);
  if (!mem)
    return kk_last_status();
  uint64_t *hist = (uint64_t *)mem;
  uint32_t *counters = (uint32_t *)(mem + hist_b);
  void *status = mem + hist_b + cnt_b;
  kk_status_t st = kka_zero(c, mem, hist_b + cnt_b + st_b);

  /* the histogram: each team a contiguous share, about as many teams as run at once */
  if (st == KK_OK) {
    struct kka_ghist_args h;
    memset(&h, 0, sizeof h);
    h.kin = keys[*cur];
    h.hist = hist;
    h.n = n;
    h.kind = kind;
    h.desc = desc;
    int64_t teams = kka_concurrency(c) / KKA_GPU_TS;
    const int64_t most = (n + (int64_t)KKA_GPU_TS * 16 - 1) / ((int64_t)KKA_GPU_TS * 16);
    if (teams > most)
      teams = most;
    if (teams < 1)
      teams = 1;
    h.per = (n + teams - 1) / teams;
    teams = (n + h.per - 1) / h.per;
    st = kka_team(c, hist_k[v2][w], &h, sizeof h, teams, KKA_GPU_TS,
                  kk_scratch_size(4, (int64_t)KKA_RADIX * passes * parts));
  }
  if (st == KK_OK) {
    struct kka_gscan_args s = {hist};
    st = kka_team(c, KK_KERNEL(kka_gscan), &s, sizeof s, passes, KKA_GSCAN_TS, 0);
  }
  for (int p = 0; p < passes && st == KK_OK; p++) {
    struct kka_gsort_args a;
    memset(&a, 0, sizeof a);
    a.kin = keys[*cur];
    a.kout = keys[!*cur];
    a.vin = vals[*cur];
    a.vout = vals[!*cur];
    a.offsets = (const int64_t *)hist + p * KKA_RADIX;
    a.status = status;
    a.epoch = v2 ? (p + 1) & 1 : p + 1;
    a.counter = counters + p;
    a.n = n;
    a.shift = p * KKA_RADIX_BITS;
    a.kind = kind;
    a.desc = desc;
    st = kka_team(c, pass, &a, sizeof a, ntiles, KKA_GPU_TS, scratch);
    if (st == KK_OK)
      *cur = !*cur;
  }
  kka_tmp_free(c, mem);
  return st;
}
