/* plugins/common/spirv_host.c -- launch planning for the SPIR-V device plugins: the launch record, groups, work-group sizes, local memory and buffers of every kind; shared instance and module helpers. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "spirv_host.h"

_Static_assert(sizeof(kk_spirv_launch) <= KK_SPIRV_ARGS_OFFSET, "the launch record must fit before the arguments");

#define MAX_GROUPS ((int64_t)1 << 24)

static inline uint64_t r16(uint64_t n) { return (n + 15) & ~(uint64_t)15; }

/* ---- instances ------------------------------------------------------------------------------ */

void kkspv_inst_init(kkspv_inst_t *in) {
  pthread_mutex_init(&in->lock, NULL);
  atomic_init(&in->team_launched, false);
}

void kkspv_inst_small(kkspv_inst_t *in, void *small) {
  in->counter = small;
  in->failed = (uint64_t *)((unsigned char *)small + 64);
  in->result = (unsigned char *)small + 128;
}

void kkspv_inst_link(kkspv_inst_t *def, kkspv_inst_t *in, pthread_mutex_t *list_lock) {
  pthread_mutex_lock(list_lock);
  if (in != def) {
    in->next = def->next;
    in->prev = def;
    if (def->next)
      def->next->prev = in;
    def->next = in;
  }
  pthread_mutex_unlock(list_lock);
}

void kkspv_inst_unlink(kkspv_inst_t *in, pthread_mutex_t *list_lock) {
  pthread_mutex_lock(list_lock);
  if (in->prev)
    in->prev->next = in->next;
  if (in->next)
    in->next->prev = in->prev;
  pthread_mutex_unlock(list_lock);
}

kk_status_t kkspv_overrun(const kk_host_services_t *hs, const uint64_t f[3]) {
  unsigned level = (unsigned)((f[0] - 1) & 1u), per_thread = (unsigned)((f[0] - 1) >> 1);
  return hs->error(hs->core, KK_ERROR_KERNEL_FAILED, NULL, 0,
                   "%s scratch at level %u overrun: the kernel asked for %llu bytes %s, the launch requested %llu",
                   per_thread ? "thread" : "team", level, (unsigned long long)f[1],
                   per_thread ? "per thread" : "per team", (unsigned long long)f[2]);
}

/* ---- modules and devices ------------------------------------------------------------------ */

const kk_image_t *kkspv_find_image(const kk_module_t *m, const char *format) {
  for (uint32_t i = 0; i < m->image_count; i++)
    if (m->images[i].format && strcmp(m->images[i].format, format) == 0)
      return &m->images[i];
  return NULL;
}

kk_status_t kkspv_check_image(const kk_host_services_t *hs, const kk_module_t *m, const kk_image_t *img) {
  char want[32];
  snprintf(want, sizeof want, "launch%d", KK_SPIRV_LAUNCH_VERSION);
  if (!img->arch || !strstr(img->arch, want))
    return hs->error(hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0,
                     "module %s was compiled for another SPIR-V launch record (%s), this plugin fills %s: rebuild it",
                     m->source_name, img->arch ? img->arch : "none", want);
  return KK_OK;
}

void kkspv_device_limits(kk_plugin_device_t *p, size_t max_wg, uint64_t local_mem) {
  p->max_team_size = (int32_t)(max_wg < 1024 ? max_wg : 1024);
  /* vector lanes are a loop inside a work-item (spirv.h): any length works */
  p->max_vector_length = 64;
  /* level 0 is local memory less what the team collectives take; level 1 a
   * slice of device memory per resident team */
  uint64_t coll = (uint64_t)p->max_team_size * KK_SPIRV_TEAM_VALUE_MAX + 64;
  p->scratch_max[0] = local_mem > coll ? local_mem - coll : 0;
  p->scratch_max[1] = (uint64_t)1 << 26;
}

/* ---- launches ------------------------------------------------------------------------------- */

static kk_status_t go(const kkspv_dev_t *dev, kkspv_inst_t *in, const kk_launch_t *l, const kk_spirv_launch *L,
                      int64_t groups, size_t local, uint64_t smem) {
  return dev->ops->enqueue(dev->ctx, in, l, false, L, groups, local, smem);
}

static kk_status_t grow(const kkspv_dev_t *dev, kkspv_inst_t *in, kkspv_buf_t *b, size_t bytes) {
  return dev->ops->grow(dev->ctx, in, b, bytes);
}

/* Work-items per group for n items: the kernel's preferred group (at most
 * what it allows), less for short ranges. */
static size_t group_for(const kkspv_kernel_t *k, int64_t n) {
  size_t t = k->pref_wg;
  if (n < (int64_t)t)
    t = n <= 8 ? 8 : (size_t)((n + 7) / 8) * 8;
  if (t > k->max_wg)
    t = k->max_wg;
  return t ? t : 1;
}

/* Where a reduction's value goes: the instance's result buffer, copied to
 * the host after the kernel (synchronous result), or the caller's view. */
typedef struct result_target {
  void *dev;
} result_target_t;

static kk_status_t result_prepare(const kkspv_dev_t *dev, kkspv_inst_t *in, const kk_launch_t *l, kk_spirv_launch *L,
                                  result_target_t *rt) {
  rt->dev = NULL;
  L->result = NULL;
  if (!l->result)
    return KK_OK;
  if (l->result_space != KK_PLUGIN_HOST_MEMORY) {
    L->result = l->result; /* a view in one of our spaces: written in queue order */
    return KK_OK;
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  if (vs <= 256) {
    rt->dev = in->result;
  } else {
    kk_status_t st = grow(dev, in, &in->partials2, vs);
    if (st != KK_OK)
      return st;
    rt->dev = in->partials2.ptr;
  }
  L->result = rt->dev;
  return KK_OK;
}

/* Enqueues the copy of a synchronous result; the launch then drains the
 * instance. */
static kk_status_t result_enqueue(const kkspv_dev_t *dev, kkspv_inst_t *in, const kk_launch_t *l,
                                  const result_target_t *rt) {
  if (!rt->dev)
    return KK_OK;
  return dev->ops->result_copy(dev->ctx, in, l, rt->dev);
}

static int64_t group_cap(const kkspv_dev_t *dev) {
  int64_t u = (int64_t)dev->units;
  return (u > 0 ? u : 1) * 4;
}

static kk_status_t launch_range(const kkspv_dev_t *dev, kkspv_inst_t *in, const kk_launch_t *l,
                                const kkspv_kernel_t *k) {
  kk_spirv_launch L;
  memset(&L, 0, sizeof L);
  L.begin = l->begin;
  L.end = l->end;
  L.locks = dev->locks;
  const int64_t n = l->end - l->begin;
  if (l->kind == KK_KIND_FOR) {
    if (n <= 0)
      return KK_OK;
    size_t t = group_for(k, n);
    int64_t groups = (n + (int64_t)t - 1) / (int64_t)t;
    return go(dev, in, l, &L, groups < MAX_GROUPS ? groups : MAX_GROUPS, t, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  result_target_t rt;
  kk_status_t st;
  if (l->kind == KK_KIND_REDUCE) {
    size_t t = group_for(k, n);
    int64_t groups = n > 0 ? (n + (int64_t)t - 1) / (int64_t)t : 1;
    if (groups > group_cap(dev))
      groups = group_cap(dev);
    if ((st = grow(dev, in, &in->partials, (size_t)groups * vs)) != KK_OK ||
        (st = result_prepare(dev, in, l, &L, &rt)) != KK_OK)
      return st;
    L.partials = in->partials.ptr;
    L.counter = in->counter;
    if ((st = go(dev, in, l, &L, groups, t, (uint64_t)t * vs)) != KK_OK)
      return st;
    return result_enqueue(dev, in, l, &rt);
  }
  /* scan: two kernels over tiles of t work-items x items, a group per tile */
  if (n <= 0) {
    if (l->result)
      l->kernel->reducer->init(l->result);
    return KK_OK;
  }
  const kk_host_services_t *hs = dev->hs;
  const size_t t = group_for(k, n);
  int64_t items = (n + (int64_t)t * 4096 - 1) / ((int64_t)t * 4096);
  if (items < 1)
    items = 1;
  if (items > 0x7fffffff)
    return hs->error(hs->core, KK_ERROR_LIMIT, NULL, 0, "scan '%s': %lld elements are too many", l->label,
                     (long long)n);
  const int64_t per = (int64_t)t * items, tiles = (n + per - 1) / per;
  if ((st = grow(dev, in, &in->partials, (size_t)tiles * vs)) != KK_OK ||
      (st = grow(dev, in, &in->partials2, (size_t)tiles * t * vs)) != KK_OK)
    return st;
  if (l->result && l->result_space == KK_PLUGIN_HOST_MEMORY && vs > 256)
    return hs->error(hs->core, KK_ERROR_LIMIT, NULL, 0, "scan '%s': a value of %u bytes is too large", l->label, vs);
  if ((st = result_prepare(dev, in, l, &L, &rt)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.partials2 = in->partials2.ptr;
  L.items = (int32_t)items;
  L.tiles = tiles;
  if ((st = dev->ops->enqueue(dev->ctx, in, l, false, &L, tiles, t, (uint64_t)t * vs)) != KK_OK ||
      (st = dev->ops->enqueue(dev->ctx, in, l, true, &L, tiles, t, (uint64_t)t * vs)) != KK_OK)
    return st;
  return result_enqueue(dev, in, l, &rt);
}

/* Default tiles: 32 along the innermost dimension, up to 256 points with the
 * next, 1 beyond; a group's work-items walk the tile's points. */
static kk_status_t launch_md(const kkspv_dev_t *dev, kkspv_inst_t *in, const kk_launch_t *l, const kkspv_kernel_t *k) {
  kk_spirv_launch L;
  memset(&L, 0, sizeof L);
  L.locks = dev->locks;
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
    return go(dev, in, l, &L, tiles < MAX_GROUPS ? tiles : MAX_GROUPS, nt, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  int64_t groups = tiles > 0 ? tiles : 1;
  if (groups > group_cap(dev))
    groups = group_cap(dev);
  result_target_t rt;
  kk_status_t st;
  if ((st = grow(dev, in, &in->partials, (size_t)groups * vs)) != KK_OK ||
      (st = result_prepare(dev, in, l, &L, &rt)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.counter = in->counter;
  if ((st = go(dev, in, l, &L, groups, nt, (uint64_t)nt * vs)) != KK_OK)
    return st;
  return result_enqueue(dev, in, l, &rt);
}

/* Local memory of a team group: collectives, team and per-thread level-0 scratch. */
static uint64_t team_smem(const kk_launch_t *l, int32_t ts) {
  return r16((uint64_t)ts * KK_SPIRV_TEAM_VALUE_MAX) + r16(l->scratch_team[0]) + (uint64_t)ts * r16(l->scratch_thread[0]);
}

static kk_status_t launch_team(const kkspv_dev_t *dev, kkspv_inst_t *in, const kk_launch_t *l,
                               const kkspv_kernel_t *k) {
  kk_spirv_launch L;
  memset(&L, 0, sizeof L);
  L.locks = dev->locks;
  const int32_t ts = l->team_size;
  if ((size_t)ts > k->max_wg)
    return dev->hs->error(dev->hs->core, KK_ERROR_LIMIT, NULL, 0,
                          "team launch '%s': team size %d exceeds the kernel's %zu work-items per group", l->label, ts,
                          k->max_wg);
  uint64_t smem = team_smem(l, ts);
  const bool reduce = l->kind == KK_KIND_TEAM_REDUCE;
  const uint32_t vs = reduce ? l->kernel->reducer->value_size : 0;
  if (reduce && (uint64_t)ts * vs > smem)
    smem = (uint64_t)ts * vs;
  int64_t groups = l->league_size < group_cap(dev) * 2 ? l->league_size : group_cap(dev) * 2;
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
    if ((st = grow(dev, in, &in->scratch1, (size_t)(L.scratch1_stride * (uint64_t)groups))) != KK_OK)
      return st;
    L.scratch1 = in->scratch1.ptr;
  }
  L.failed = in->failed;
  atomic_store(&in->team_launched, true);
  if (!reduce)
    return go(dev, in, l, &L, groups, (size_t)ts, smem);
  result_target_t rt;
  if ((st = grow(dev, in, &in->partials, (size_t)groups * vs)) != KK_OK ||
      (st = result_prepare(dev, in, l, &L, &rt)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.counter = in->counter;
  if ((st = go(dev, in, l, &L, groups, (size_t)ts, smem)) != KK_OK)
    return st;
  return result_enqueue(dev, in, l, &rt);
}

kk_status_t kkspv_launch(const kkspv_dev_t *dev, kkspv_inst_t *in, void *inst, const kk_launch_t *l) {
  const kk_host_services_t *hs = dev->hs;
  const kkspv_kernel_t *k = l->device_kernel; /* the first member of the plugin's kernel */
  if (l->args_size > KK_SPIRV_SLOT_BYTES - KK_SPIRV_ARGS_OFFSET)
    return hs->error(hs->core, KK_ERROR_LIMIT, NULL, 0,
                     "launch '%s': an argument struct of %u bytes exceeds the %d bytes a SPIR-V launch carries",
                     l->label, l->args_size, KK_SPIRV_SLOT_BYTES - KK_SPIRV_ARGS_OFFSET);
  kk_status_t st;
  pthread_mutex_lock(&in->lock);
  switch (l->kind) {
  case KK_KIND_FOR:
  case KK_KIND_REDUCE:
  case KK_KIND_SCAN:
    st = launch_range(dev, in, l, k);
    break;
  case KK_KIND_MD_FOR:
  case KK_KIND_MD_REDUCE:
    st = launch_md(dev, in, l, k);
    break;
  case KK_KIND_TEAM_FOR:
  case KK_KIND_TEAM_REDUCE:
    st = launch_team(dev, in, l, k);
    break;
  default:
    st = hs->error(hs->core, KK_ERROR_UNSUPPORTED, NULL, 0, "unknown kernel kind %u", l->kind);
    break;
  }
  pthread_mutex_unlock(&in->lock);
  if (st != KK_OK)
    return st;
  /* A synchronous result: wait for its copy.  A team launch on the default
   * instance also waits, so that a scratch overrun fails the launch itself
   * (kk_parallel_for_team's contract); on other instances the overrun is
   * reported at the next fence. */
  if ((l->result && l->result_space == KK_PLUGIN_HOST_MEMORY && l->kind != KK_KIND_FOR && l->kind != KK_KIND_MD_FOR &&
       l->kind != KK_KIND_TEAM_FOR) ||
      (!inst && (l->kind == KK_KIND_TEAM_FOR || l->kind == KK_KIND_TEAM_REDUCE)))
    return dev->ops->fence(dev->ctx, inst);
  return KK_OK;
}

kk_status_t kkspv_team_size_query(const kkspv_dev_t *dev, const kkspv_kernel_t *k, const kk_launch_t *l, int32_t *max,
                                  int32_t *recommended) {
  int64_t m = (int64_t)(k ? k->max_wg : dev->max_wg);
  if (m > 1024)
    m = 1024;
  /* local memory: collectives and level-0 scratch grow with the team */
  const uint64_t fixed = r16(l->scratch_team[0]) + 16, per = KK_SPIRV_TEAM_VALUE_MAX + r16(l->scratch_thread[0]);
  int64_t by_mem = dev->local_mem > fixed ? (int64_t)((dev->local_mem - fixed) / per) : 0;
  if (by_mem < m)
    m = by_mem;
  *max = m > 0 ? (int32_t)m : 0;
  *recommended = *max < 64 ? *max : 64;
  if (*recommended < 1)
    *recommended = 1;
  return KK_OK;
}
