/* plugins/common/gpu_spirv.c -- the SPIR-V backends' side of the GPU layer (levelzero, opencl): images, kernels, launch slots, and launch planning for every kind -- the record, groups, work-group sizes, local memory, buffers. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "gpu.h"

_Static_assert(sizeof(kk_spirv_launch) <= KK_SPIRV_ARGS_OFFSET, "the launch record must fit before the arguments");

#define MAX_GROUPS ((int64_t)1 << 24)

static inline uint64_t r16(uint64_t n) { return (n + 15) & ~(uint64_t)15; }

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
  memcpy(stage + KK_SPIRV_ARGS_OFFSET, l->args, l->args_size);
  if ((st = c->v->copy(c, in, slot, stage, KK_SPIRV_ARGS_OFFSET + l->args_size)) != KK_OK)
    return st;
  return c->v->enqueue(c, in, l, final ? k->fn2 : k->fn, slot, s, groups, local, smem);
}

/* Work-items per group for n items: the kernel's preferred group (at most
 * what it allows), less for short ranges. */
static size_t group_for(const kkg_kernel_t *k, int64_t n) {
  size_t t = (size_t)k->pref_threads;
  if (n < (int64_t)t)
    t = n <= 8 ? 8 : (size_t)((n + 7) / 8) * 8;
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

/* Queues the copy of a synchronous result; the launch then drains the instance. */
static kk_status_t result_enqueue(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, void *dev) {
  return dev ? c->v->copy(c, in, l->result, dev, l->kernel->reducer->value_size) : KK_OK;
}

static int64_t group_cap(const kkg_ctx_t *c) {
  const int64_t u = kkg_device(c, c->dev)->units;
  return (u > 0 ? u : 1) * 4;
}

static kk_status_t launch_range(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l,
                                const kkg_kernel_t *k) {
  kk_spirv_launch L;
  memset(&L, 0, sizeof L);
  L.begin = l->begin;
  L.end = l->end;
  L.locks = c->locks;
  const int64_t n = l->end - l->begin;
  if (l->kind == KK_KIND_FOR) {
    if (n <= 0)
      return KK_OK;
    size_t t = group_for(k, n);
    int64_t groups = (n + (int64_t)t - 1) / (int64_t)t;
    return go(c, in, l, false, &L, groups < MAX_GROUPS ? groups : MAX_GROUPS, t, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  void *rt;
  kk_status_t st;
  if (l->kind == KK_KIND_REDUCE) {
    size_t t = group_for(k, n);
    int64_t groups = n > 0 ? (n + (int64_t)t - 1) / (int64_t)t : 1;
    if (groups > group_cap(c))
      groups = group_cap(c);
    if ((st = kkg_grow(c, in, &in->partials, (size_t)groups * vs, false)) != KK_OK ||
        (st = result_prepare(c, in, l, &L, &rt)) != KK_OK)
      return st;
    L.partials = in->partials.ptr;
    L.counter = (uint32_t *)(void *)in->small;
    if ((st = go(c, in, l, false, &L, groups, t, (uint64_t)t * vs)) != KK_OK)
      return st;
    return result_enqueue(c, in, l, rt);
  }
  /* scan: two kernels over tiles of t work-items x items, a group per tile */
  if (n <= 0) {
    if (l->result)
      l->kernel->reducer->init(l->result);
    return KK_OK;
  }
    const size_t t = group_for(k, n);
  int64_t items = (n + (int64_t)t * 4096 - 1) / ((int64_t)t * 4096);
  if (items < 1)
    items = 1;
  if (items > 0x7fffffff)
    return kkg_error(c, KK_ERROR_LIMIT, "scan '%s': %lld elements are too many", l->label,
                     (long long)n);
  const int64_t per = (int64_t)t * items, tiles = (n + per - 1) / per;
  if ((st = kkg_grow(c, in, &in->partials, (size_t)tiles * vs, false)) != KK_OK ||
      (st = kkg_grow(c, in, &in->partials2, (size_t)tiles * t * vs, false)) != KK_OK)
    return st;
  if (l->result && l->result_space == KK_PLUGIN_HOST_MEMORY && vs > 256)
    return kkg_error(c, KK_ERROR_LIMIT, "scan '%s': a value of %u bytes is too large", l->label, vs);
  if ((st = result_prepare(c, in, l, &L, &rt)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.partials2 = in->partials2.ptr;
  L.items = (int32_t)items;
  L.tiles = tiles;
  if ((st = go(c, in, l, false, &L, tiles, t, (uint64_t)t * vs)) != KK_OK ||
      (st = go(c, in, l, true, &L, tiles, t, (uint64_t)t * vs)) != KK_OK)
    return st;
  return result_enqueue(c, in, l, rt);
}

/* Default tiles: 32 along the innermost dimension, up to 256 points with the
 * next, 1 beyond; a group's work-items walk the tile's points. */
static kk_status_t launch_md(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l, const kkg_kernel_t *k) {
  kk_spirv_launch L;
  memset(&L, 0, sizeof L);
  L.locks = c->locks;
  const int r = l->rank;
  L.rank = r;
  L.inner_left = l->iterate_inner == KK_ITERATE_LEFT;
  L.outer_left = l->iterate_outer == KK_ITERATE_LEFT;
  int order[KK_MD_MAX_RANK];
  for (int i = 0; i < r; i++)
    order[i] = L.inner_left ? i : r - 1 - i;
  int64_t tiles = 1, pts = 1;
  for (int i = 0; i < r; i++) {
    int d = order[i];
    int64_t ext = l->md_end[d] - l->md_begin[d];
    int64_t t = l->md_tile[d];
    if (t <= 0)
      t = i == 0 ? (ext < 32 ? (ext > 0 ? ext : 1) : 32) : i == 1 ? 256 / L.md_tile[order[0]] : 1;
    if (i == 1 && t > ext && ext > 0)
      t = ext;
    if (t < 1)
      t = 1;
    L.md_begin[d] = l->md_begin[d];
    L.md_end[d] = l->md_end[d];
    L.md_tile[d] = t;
    L.md_ntile[d] = ext > 0 ? (ext + t - 1) / t : 0;
    tiles *= L.md_ntile[d];
    pts *= t;
  }
  L.md_tiles = tiles;
  size_t nt = group_for(k, pts);
  if (l->kind == KK_KIND_MD_FOR) {
    if (tiles == 0)
      return KK_OK;
    return go(c, in, l, false, &L, tiles < MAX_GROUPS ? tiles : MAX_GROUPS, nt, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  int64_t groups = tiles > 0 ? tiles : 1;
  if (groups > group_cap(c))
    groups = group_cap(c);
  void *rt;
  kk_status_t st;
  if ((st = kkg_grow(c, in, &in->partials, (size_t)groups * vs, false)) != KK_OK ||
      (st = result_prepare(c, in, l, &L, &rt)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.counter = (uint32_t *)(void *)in->small;
  if ((st = go(c, in, l, false, &L, groups, nt, (uint64_t)nt * vs)) != KK_OK)
    return st;
  return result_enqueue(c, in, l, rt);
}

/* Local memory of a team group: collectives, team and per-thread level-0 scratch. */
static uint64_t team_smem(const kk_launch_t *l, int32_t ts) {
  return r16((uint64_t)ts * KK_SPIRV_TEAM_VALUE_MAX) + r16(l->scratch_team[0]) + (uint64_t)ts * r16(l->scratch_thread[0]);
}

static kk_status_t launch_team(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l,
                               const kkg_kernel_t *k) {
  kk_spirv_launch L;
  memset(&L, 0, sizeof L);
  L.locks = c->locks;
  const int32_t ts = l->team_size;
  if ((size_t)ts > (size_t)k->max_threads)
    return kkg_error(c, KK_ERROR_LIMIT,
                          "team launch '%s': team size %d exceeds the kernel's %zu work-items per group", l->label, ts,
                          (size_t)k->max_threads);
  uint64_t smem = team_smem(l, ts);
  const bool reduce = l->kind == KK_KIND_TEAM_REDUCE;
  const uint32_t vs = reduce ? l->kernel->reducer->value_size : 0;
  if (reduce && (uint64_t)ts * vs > smem)
    smem = (uint64_t)ts * vs;
  int64_t groups = l->league_size < group_cap(c) * 2 ? l->league_size : group_cap(c) * 2;
  if (groups < 1) {
    if (!reduce)
      return KK_OK;
    groups = 1; /* an empty league still yields the identity */
  }
  L.league_size = l->league_size;
  L.vector_length = l->vector_length;
  for (int lv = 0; lv < 2; lv++) {
    L.team_scratch[lv] = l->scratch_team[lv];
    L.thread_scratch[lv] = l->scratch_thread[lv];
  }
  kk_status_t st;
  L.scratch1_stride = r16(l->scratch_team[1]) + (uint64_t)ts * r16(l->scratch_thread[1]);
  if (L.scratch1_stride) {
    if ((st = kkg_grow(c, in, &in->scratch1, (size_t)(L.scratch1_stride * (uint64_t)groups), false)) != KK_OK)
      return st;
    L.scratch1 = in->scratch1.ptr;
  }
  L.failed = (uint64_t *)(void *)(in->small + 64);
  atomic_store(&in->team_launched, true);
  if (!reduce)
    return go(c, in, l, false, &L, groups, (size_t)ts, smem);
  void *rt;
  if ((st = kkg_grow(c, in, &in->partials, (size_t)groups * vs, false)) != KK_OK ||
      (st = result_prepare(c, in, l, &L, &rt)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.counter = (uint32_t *)(void *)in->small;
  if ((st = go(c, in, l, false, &L, groups, (size_t)ts, smem)) != KK_OK)
    return st;
  return result_enqueue(c, in, l, rt);
}

kk_status_t kkg_spv_launch(kkg_ctx_t *c, kkg_inst_t *in, const kk_launch_t *l) {
  const kkg_kernel_t *k = l->device_kernel;
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
    st = launch_range(c, in, l, k);
    break;
  case KK_KIND_MD_FOR:
  case KK_KIND_MD_REDUCE:
    st = launch_md(c, in, l, k);
    break;
  case KK_KIND_TEAM_FOR:
  case KK_KIND_TEAM_REDUCE:
    st = launch_team(c, in, l, k);
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
  const uint64_t fixed = r16(l->scratch_team[0]) + 16, per = KK_SPIRV_TEAM_VALUE_MAX + r16(l->scratch_thread[0]);
  int64_t by_mem = d->smem > fixed ? (int64_t)((d->smem - fixed) / per) : 0;
  if (by_mem < m)
    m = by_mem;
  *max = m > 0 ? (int32_t)m : 0;
  *recommended = *max < 64 ? *max : 64;
  if (*recommended < 1)
    *recommended = 1;
  return KK_OK;
}
