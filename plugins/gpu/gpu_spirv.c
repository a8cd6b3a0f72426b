/* plugins/gpu/gpu_spirv.c -- the SPIR-V backends' side of the GPU layer (levelzero, opencl): images, kernels, launch slots, and launch planning for every kind -- the record, groups, work-group sizes, local memory, buffers. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "gpu.h"

_Static_assert(sizeof(kk_spirv_launch) <= KK_SPIRV_BC_POINTER_OFFSET,
               "the launch record must fit before the bounds-check pointer and the arguments");

#define MAX_GROUPS ((int64_t)1 << 24)

/* kk/target/spirv_launch.h repeats the bounds-check record's layout */
_Static_assert(KK_SPIRV_BC_STATE == KK_GPU_BC_STATE && KK_SPIRV_BC_DATA == KK_GPU_BC_DATA &&
                   KK_SPIRV_BC_RANK_N == KK_GPU_BC_RANK_N && KK_SPIRV_BC_SIZES == KK_GPU_BC_SIZES &&
                   KK_SPIRV_BC_IDX == KK_GPU_BC_IDX && KK_SPIRV_BC_EXT == KK_GPU_BC_EXT &&
                   KK_SPIRV_BC_LINE == KK_GPU_BC_LINE && KK_SPIRV_BC_FILE == KK_GPU_BC_FILE &&
                   KK_SPIRV_BC_WORDS == KK_GPU_BC_WORDS && KK_SPIRV_BC_FILE_BYTES == KK_GPU_BC_FILE_BYTES,
               "the SPIR-V bounds-check record is the GPU one");


/* ---- modules and kernels ------------------------------------------------------------------ */

kk_status_t kkg_spv_image(kkg_ctx_t *c, const kk_module_t *m, const char *format, const kk_image_t **img) {
  char want[32];
  snprintf(want, sizeof want, "launch%d", KK_SPIRV_LAUNCH_VERSION);
  if (!(*img = kkg_find_image(m, format)))
    return kkg_error(c, KK_ERROR_NOT_FOUND, "module %s has no %s image for %s (built with kkcc --targets=%s)",
                     m->source_name, format, kkg_device(c, c->dev)->name, m->targets ? m->targets : "?");
  if (!(*img)->arch || !strstr((*img)->arch, want))
    return kkg_error(c, KK_ERROR_ABI_MISMATCH,
                     "module %s was compiled for another SPIR-V launch record (%s), this plugin fills %s: rebuild it",
                     m->source_name, (*img)->arch ? (*img)->arch : "none", want);
  return KK_OK;
}

/* kk_k_<name>, and a scan's second kernel kk_k_<name>__final; the work-items
 * per group they allow, and a long range's (at most 256). */
kk_status_t kkg_spv_kernel_get(kkg_ctx_t *c, void *handle, const kk_kernel_t *kernel, kkg_kernel_t *k) {
  char name[300];
  int unused = 0;
  snprintf(name, sizeof name, "kk_k_%s", kernel->name);
  kk_status_t st = c->v->function(c, handle, name, false, &k->fn, &k->max_threads, &k->pref_threads);
  if (st == KK_OK && kernel->kind == KK_KIND_SCAN) {
    snprintf(name, sizeof name, "kk_k_%s__final", kernel->name);
    if ((st = c->v->function(c, handle, name, false, &k->fn2, &unused, &unused)) != KK_OK)
      c->v->function_free(c, k->fn);
  }
  const int dev_max = kkg_device(c, c->dev)->max_threads;
  if (k->max_threads <= 0 || k->max_threads > dev_max)
    k->max_threads = dev_max;
  if (k->pref_threads <= 0 || k->pref_threads > 256)
    k->pref_threads = 256;
  if (k->pref_threads > k->max_threads)
    k->pref_threads = k->max_threads;
  return st;
}

/* ---- launches ------------------------------------------------------------------------------- */

/* Writes L and the arguments into the instance's next launch slot (after
 * the launch that used it last), queues the slot's copy to the device and
 * the kernel (final: a scan's second) over `groups` groups of `local`
 * work-items with `smem` bytes of local memory.  With in->lock held. */
static kk_status_t go(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, bool final, const kk_spirv_launch *L,
                      int64_t groups, size_t local, uint64_t smem) {
  const kkg_kernel_t *k = l->device_kernel;
  const unsigned s = in->next++ % KKG_SLOTS;
  unsigned char *stage = in->staging + (size_t)s * KK_SPIRV_SLOT_BYTES, *slot = in->slots + (size_t)s * KK_SPIRV_SLOT_BYTES;
  kk_status_t st = c->v->slot_wait(c, in, s);
  if (st != KK_OK)
    return st;
  memcpy(stage, L, sizeof *L);
  /* a checked image's bounds-check record (kk/target/spirv.h) */
  void *bc = l->kernel && (l->kernel->flags & KK_KERNEL_FLAG_BOUNDS_CHECK) ? c->def->small + KKG_SPV_BC_AT : NULL;
  memcpy(stage + KK_SPIRV_BC_POINTER_OFFSET, &bc, sizeof bc);
  memcpy(stage + KK_SPIRV_ARGS_OFFSET, l->args, l->args_size);
  if ((st = c->v->copy(c, in, slot, stage, KK_SPIRV_ARGS_OFFSET + l->args_size)) != KK_OK)
    return st;
  return c->v->enqueue(c, in, l, final ? k->fn2 : k->fn, slot, s, groups, local, smem);
}

/* Work-items per group for n items: the kernel's preferred group (at most
 * what it allows), less for short ranges: the power of two from 8 up that
 * holds them.  (Powers of two, not multiples of 8: an OpenCL or Level Zero
 * compiler may build a kernel once per work-group size, as PoCL does on
 * the CPU, and a program with ranges of many short lengths would pay a
 * build for each; this way a kernel has at most six short sizes.) */
static size_t group_for(const kkg_kernel_t *k, int64_t n) {
  size_t t = (size_t)k->pref_threads;
  if (n < (int64_t)t) {
    size_t p = 8;
    while ((int64_t)p < n)
      p *= 2;
    t = p < t ? p : t;
  }
  if (t > (size_t)k->max_threads)
    t = (size_t)k->max_threads;
  return t ? t : 1;
}

/* Where a reduction's value goes: the instance's result block, copied to
 * the host after the kernel (synchronous result), or the caller's view. */
static kk_status_t result_prepare(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kk_spirv_launch *L,
                                  void **dev) {
  const uint32_t vs = l->kernel->reducer->value_size;
  *dev = L->result = NULL;
  if (!l->result)
    return KK_OK;
  if (l->result_space != KK_PLUGIN_HOST_MEMORY) {
    L->result = l->result; /* a view in one of our spaces: written in queue order */
    return KK_OK;
  }
  kk_status_t st = vs <= 256 ? KK_OK : kkg_grow(c, in, &in->partials2, vs, false);
  *dev = L->result = vs <= 256 ? (void *)(in->small + 128) : in->partials2.ptr;
  return st;
}

/* A reduction over `groups` groups of `local`: a partial per group, then the
 * copy of a synchronous result (the launch then drains the instance). */
static kk_status_t reduce(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kk_spirv_launch *L, int64_t groups,
                          size_t local, uint64_t smem) {
  const uint32_t vs = l->kernel->reducer->value_size;
  void *dev;
  kk_status_t st;
  if ((st = kkg_grow(c, in, &in->partials, (size_t)groups * vs, false)) != KK_OK ||
      (st = result_prepare(c, in, l, L, &dev)) != KK_OK)
    return st;
  L->partials = in->partials.ptr;
  L->counter = (uint32_t *)(void *)in->small;
  if ((st = go(c, in, l, false, L, groups, local, smem)) != KK_OK)
    return st;
  return dev ? c->v->copy(c, in, l->result, dev, vs) : KK_OK;
}

/* a reduction spreads over 4 groups per compute unit */
static int64_t group_cap(const kkg_ctx_t *c, int64_t groups) {
  const int64_t u = kkg_device(c, c->dev)->units, cap = (u > 0 ? u : 1) * 4;
  return groups < cap ? groups : cap;
}

static kk_status_t launch_range(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kk_spirv_launch *L) {
  const kkg_kernel_t *k = l->device_kernel;
  const int64_t n = l->end - l->begin;
  const size_t t = group_for(k, n);
  L->begin = l->begin;
  L->end = l->end;
  if (l->kind == KK_KIND_FOR) {
    const int64_t groups = kkg_div_up(n, (int64_t)t);
    return n <= 0 ? KK_OK : go(c, in, l, false, L, groups < MAX_GROUPS ? groups : MAX_GROUPS, t, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  if (l->kind == KK_KIND_REDUCE)
    return reduce(c, in, l, L, group_cap(c, n > 0 ? kkg_div_up(n, (int64_t)t) : 1), t, (uint64_t)t * vs);
  /* scan: two kernels over tiles of t work-items x items, a group per tile */
  if (n <= 0) {
    if (l->result)
      l->kernel->reducer->init(l->result);
    return KK_OK;
  }
  int64_t items = kkg_div_up(n, (int64_t)t * 4096);
  items = items < 1 ? 1 : items;
  if (items > 0x7fffffff)
    return kkg_error(c, KK_ERROR_LIMIT, "scan '%s': %lld elements are too many", l->label, (long long)n);
  const int64_t per = (int64_t)t * items, tiles = kkg_div_up(n, per);
  void *dev;
  kk_status_t st;
  if ((st = kkg_grow(c, in, &in->partials, (size_t)tiles * vs, false)) != KK_OK ||
      (st = kkg_grow(c, in, &in->partials2, (size_t)tiles * t * vs, false)) != KK_OK)
    return st;
  if (l->result && l->result_space == KK_PLUGIN_HOST_MEMORY && vs > 256)
    return kkg_error(c, KK_ERROR_LIMIT, "scan '%s': a value of %u bytes is too large", l->label, vs);
  if ((st = result_prepare(c, in, l, L, &dev)) != KK_OK)
    return st;
  L->partials = in->partials.ptr;
  L->partials2 = in->partials2.ptr;
  L->items = (int32_t)items;
  L->tiles = tiles;
  if ((st = go(c, in, l, false, L, tiles, t, (uint64_t)t * vs)) != KK_OK ||
      (st = go(c, in, l, true, L, tiles, t, (uint64_t)t * vs)) != KK_OK)
    return st;
  return dev ? c->v->copy(c, in, l->result, dev, vs) : KK_OK;
}

/* Default tiles: 32 along the innermost dimension, up to 256 points with the
 * next, 1 beyond; a group's work-items walk the tile's points. */
static kk_status_t launch_md(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kk_spirv_launch *L) {
  int order[KK_MD_MAX_RANK];
  L->rank = l->rank;
  L->inner_left = l->iterate_inner == KK_ITERATE_LEFT;
  L->outer_left = l->iterate_outer == KK_ITERATE_LEFT;
  const int64_t tiles = L->md_tiles = kkg_md_plan(l, 32, 1, order, L->md_begin, L->md_end, L->md_tile, L->md_ntile);
  int64_t pts = 1;
  for (int i = 0; i < l->rank; i++)
    pts = kkg_mul_sat(pts, L->md_tile[i]);
  const size_t nt = group_for(l->device_kernel, pts);
  if (l->kind == KK_KIND_MD_FOR)
    return tiles == 0 ? KK_OK : go(c, in, l, false, L, tiles < MAX_GROUPS ? tiles : MAX_GROUPS, nt, 0);
  return reduce(c, in, l, L, group_cap(c, tiles > 0 ? tiles : 1), nt, (uint64_t)nt * l->kernel->reducer->value_size);
}

static kk_status_t launch_team(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, kk_spirv_launch *L) {
  const kkg_kernel_t *k = l->device_kernel;
  const int32_t ts = l->team_size;
  if (ts > k->max_threads)
    return kkg_error(c, KK_ERROR_LIMIT, "team launch '%s': team size %d exceeds the kernel's %d work-items per group",
                     l->label, ts, k->max_threads);
  uint64_t smem = kkg_team_smem(l);
  const bool reducing = l->kind == KK_KIND_TEAM_REDUCE;
  const uint32_t vs = reducing ? l->kernel->reducer->value_size : 0;
  if (reducing && (uint64_t)ts * vs > smem)
    smem = (uint64_t)ts * vs;
  int64_t groups = l->league_size < group_cap(c, INT64_MAX) * 2 ? l->league_size : group_cap(c, INT64_MAX) * 2;
  if (groups < 1 && !reducing)
    return KK_OK;
  groups = groups < 1 ? 1 : groups; /* an empty league still yields the identity */
  L->league_size = l->league_size;
  L->vector_length = l->vector_length;
  for (int lv = 0; lv < 2; lv++) {
    L->team_scratch[lv] = l->scratch_team[lv];
    L->thread_scratch[lv] = l->scratch_thread[lv];
  }
  kk_status_t st = kkg_team_pool(c, in, l, groups, &L->scratch1_stride, &L->scratch1);
  if (st != KK_OK)
    return st;
  L->failed = (uint64_t *)(void *)(in->small + 64);
  atomic_store(&in->team_launched, true);
  return reducing ? reduce(c, in, l, L, groups, (size_t)ts, smem) : go(c, in, l, false, L, groups, (size_t)ts, smem);
}

kk_status_t kkg_spv_launch(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l) {
  kk_spirv_launch L;
  memset(&L, 0, sizeof L);
  L.locks = c->locks;
  if (l->args_size > KK_SPIRV_SLOT_BYTES - KK_SPIRV_ARGS_OFFSET)
    return kkg_error(c, KK_ERROR_LIMIT,
                     "launch '%s': an argument struct of %u bytes exceeds the %d bytes a SPIR-V launch carries",
                     l->label, l->args_size, KK_SPIRV_SLOT_BYTES - KK_SPIRV_ARGS_OFFSET);
  kk_status_t st;
  pthread_mutex_lock(&in->lock); /* the launch slots, and the vendor's queue */
  switch (l->kind) {
  case KK_KIND_FOR:
  case KK_KIND_REDUCE:
  case KK_KIND_SCAN:
    st = launch_range(c, in, l, &L);
    break;
  case KK_KIND_MD_FOR:
  case KK_KIND_MD_REDUCE:
    st = launch_md(c, in, l, &L);
    break;
  case KK_KIND_TEAM_FOR:
  case KK_KIND_TEAM_REDUCE:
    st = launch_team(c, in, l, &L);
    break;
  default:
    st = kkg_error(c, KK_ERROR_UNSUPPORTED, "unknown kernel kind %u", l->kind);
    break;
  }
  pthread_mutex_unlock(&in->lock);
  if (st != KK_OK)
    return st;
  /* A synchronous result: wait for its copy.  A team launch on the default
   * instance also waits, so that a scratch overrun fails the launch itself
   * (kk_parallel_for_team's contract); on other instances the overrun is
   * reported at the next fence. */
  const bool team = l->kind == KK_KIND_TEAM_FOR || l->kind == KK_KIND_TEAM_REDUCE;
  if ((l->result && l->result_space == KK_PLUGIN_HOST_MEMORY && l->kind != KK_KIND_FOR && l->kind != KK_KIND_MD_FOR &&
       l->kind != KK_KIND_TEAM_FOR) ||
      (in == c->def && team))
    return kkg_instance_fence(c, in == c->def ? NULL : in);
  return KK_OK;
}

kk_status_t kkg_spv_team_size_query(kkg_ctx_t *c, const kk_launch_t *l, int32_t *max, int32_t *recommended) {
  const kkg_kernel_t *k = l->device_kernel;
  const kkg_device_t *d = kkg_device(c, c->dev);
  int64_t m = k ? k->max_threads : d->max_threads;
  if (m > 1024)
    m = 1024;
  /* local memory: collectives and level-0 scratch grow with the team */
  const uint64_t fixed = kkg_r16(l->scratch_team[0]) + 16, per = KK_SPIRV_TEAM_VALUE_MAX + kkg_r16(l->scratch_thread[0]);
  int64_t by_mem = d->smem > fixed ? (int64_t)((d->smem - fixed) / per) : 0;
  if (by_mem < m)
    m = by_mem;
  *max = m > 0 ? (int32_t)m : 0;
  *recommended = *max < 64 ? *max : 64;
  if (*recommended < 1)
    *recommended = 1;
  return KK_OK;
}
