/* plugins/levelzero/levelzero_parallel.c -- modules from SPIR-V, kernels and every kind of launch: launch slots, group sizes, partials, results. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levelzero_internal.h"

_Static_assert(sizeof(kk_spirv_launch) <= KK_SPIRV_ARGS_OFFSET, "the launch record must fit before the arguments");

#define MAX_GROUPS ((int64_t)1 << 24)

static inline uint64_t r16(uint64_t n) { return (n + 15) & ~(uint64_t)15; }

/* ---- modules and kernels --------------------------------------------------------------------- */

static const kk_image_t *find_image(const kk_module_t *m, const char *format) {
  for (uint32_t i = 0; i < m->image_count; i++)
    if (m->images[i].format && strcmp(m->images[i].format, format) == 0)
      return &m->images[i];
  return NULL;
}

kk_status_t levelzero_module_load(void *ctx, const kk_module_t *m, const kk_image_t *image, void **pmod) {
  levelzero_ctx_t *c = ctx;
  const levelzero_dev_t *d = &c->devs[c->dev];
  const kk_image_t *img = image ? image : find_image(m, "spirv");
  if (!img)
    return c->hs->error(c->hs->core, KK_ERROR_NOT_FOUND, NULL, 0,
                        "module %s has no SPIR-V image for %s (built with kkcc --targets=%s)", m->source_name,
                        d->props.name, m->targets ? m->targets : "?");
  char want[32];
  snprintf(want, sizeof want, "launch%d", KK_SPIRV_LAUNCH_VERSION);
  if (!img->arch || !strstr(img->arch, want))
    return c->hs->error(c->hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0,
                        "module %s was compiled for another SPIR-V launch record (%s), this plugin fills %s: rebuild it",
                        m->source_name, img->arch ? img->arch : "none", want);
  ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                         .format = ZE_MODULE_FORMAT_IL_SPIRV,
                         .inputSize = (size_t)img->size,
                         .pInputModule = img->data,
                         .pBuildFlags = ""};
  ze_module_handle_t mod = NULL;
  ze_module_build_log_handle_t log = NULL;
  ze_result_t r = c->ze.zeModuleCreate(c->context, d->id, &md, &mod, &log);
  if (r != ZE_RESULT_SUCCESS) {
    char text[2048] = "";
    size_t n = 0;
    if (log && c->ze.zeModuleBuildLogGetString(log, &n, NULL) == ZE_RESULT_SUCCESS && n > 0) {
      char *buf = malloc(n + 1);
      if (buf && c->ze.zeModuleBuildLogGetString(log, &n, buf) == ZE_RESULT_SUCCESS) {
        buf[n] = '\0';
        snprintf(text, sizeof text, "%s", buf);
      }
      free(buf);
    }
    if (log)
      c->ze.zeModuleBuildLogDestroy(log);
    return levelzero_fail(c, r, "building module %s (SPIR-V, %llu bytes) for %s: %s", m->source_name,
                          (unsigned long long)img->size, d->props.name, *text ? text : "(empty build log)");
  }
  if (log)
    c->ze.zeModuleBuildLogDestroy(log);
  levelzero_module_t *lm = calloc(1, sizeof *lm);
  if (!lm) {
    c->ze.zeModuleDestroy(mod);
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "module_load: out of memory");
  }
  lm->mod = mod;
  *pmod = lm;
  return KK_OK;
}

kk_status_t levelzero_module_unload(void *ctx, void *pmod) {
  levelzero_ctx_t *c = ctx;
  levelzero_module_t *lm = pmod;
  levelzero_fence_all(c);
  while (lm->kernels) {
    levelzero_kernel_t *k = lm->kernels;
    lm->kernels = k->next;
    c->ze.zeKernelDestroy(k->k);
    if (k->final)
      c->ze.zeKernelDestroy(k->final);
    free(k);
  }
  ze_result_t r = c->ze.zeModuleDestroy(lm->mod);
  free(lm);
  if (r != ZE_RESULT_SUCCESS)
    return levelzero_fail(c, r, "zeModuleDestroy");
  return KK_OK;
}

/* Creates one kernel: views and kk's buffers reach it through the launch
 * slot, not as arguments, so it is allowed indirect access to every kind of
 * allocation (else the driver need not make them resident). */
static kk_status_t create_kernel(levelzero_ctx_t *c, ze_module_handle_t mod, const char *name, ze_kernel_handle_t *k) {
  ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
  ZE_TRY(c, c->ze.zeKernelCreate(mod, &kd, k), "zeKernelCreate(%s)", name);
  ze_result_t r = c->ze.zeKernelSetIndirectAccess(*k, ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
                                                        ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST |
                                                        ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED);
  if (r != ZE_RESULT_SUCCESS) {
    c->ze.zeKernelDestroy(*k);
    *k = NULL;
    return levelzero_fail(c, r, "zeKernelSetIndirectAccess(%s)", name);
  }
  return KK_OK;
}

kk_status_t levelzero_kernel_get(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel) {
  levelzero_ctx_t *c = ctx;
  levelzero_module_t *lm = pmod;
  const levelzero_dev_t *d = &c->devs[c->dev];
  char name[300];
  snprintf(name, sizeof name, "kk_k_%s", kernel->name);
  levelzero_kernel_t *k = calloc(1, sizeof *k);
  if (!k)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "kernel_get: out of memory");
  kk_status_t st = create_kernel(c, lm->mod, name, &k->k);
  if (st == KK_OK && kernel->kind == KK_KIND_SCAN) {
    snprintf(name, sizeof name, "kk_k_%s__final", kernel->name);
    st = create_kernel(c, lm->mod, name, &k->final);
  }
  if (st != KK_OK) {
    if (k->k)
      c->ze.zeKernelDestroy(k->k);
    free(k);
    return st;
  }
  /* the largest group the kernel allows (subgroups x their width), else the device's */
  ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
  k->max_wg = d->max_group;
  if (c->ze.zeKernelGetProperties(k->k, &kp) == ZE_RESULT_SUCCESS && kp.maxNumSubgroups && kp.maxSubgroupSize &&
      kp.maxNumSubgroups * kp.maxSubgroupSize < k->max_wg)
    k->max_wg = kp.maxNumSubgroups * kp.maxSubgroupSize;
  /* the driver's group size for a long range (kernels stride over any range,
   * so the range only has to be long enough not to constrain it) */
  uint32_t gx = 0, gy = 0, gz = 0;
  if (c->ze.zeKernelSuggestGroupSize(k->k, 1u << 20, 1, 1, &gx, &gy, &gz) != ZE_RESULT_SUCCESS || gx == 0)
    gx = LEVELZERO_DEFAULT_GROUP;
  if (gx > 256)
    gx = 256;
  k->pref_wg = gx < k->max_wg ? gx : k->max_wg;
  if (k->pref_wg == 0)
    k->pref_wg = 1;
  k->next = lm->kernels;
  lm->kernels = k;
  *pkernel = k;
  return KK_OK;
}

/* ---- launching --------------------------------------------------------------------------------- */

/* Writes the launch record and the arguments into the instance's next slot
 * and appends the slot's copy, a barrier and the kernel over `groups`
 * work-groups of `local` work-items with `smem` bytes of shared local
 * memory.  Called with in->lock held. */
static kk_status_t go_kernel(levelzero_ctx_t *c, levelzero_inst_t *in, const kk_launch_t *l, ze_kernel_handle_t zk,
                             const kk_spirv_launch *L, int64_t groups, size_t local, uint64_t smem) {
  const unsigned s = in->next++ % LEVELZERO_SLOTS;
  if (in->used[s]) {
    ZE_TRY(c, c->ze.zeEventHostSynchronize(in->events[s], UINT64_MAX), "waiting for a launch slot");
    ZE_TRY(c, c->ze.zeEventHostReset(in->events[s]), "resetting a launch slot's event");
    in->used[s] = false;
  }
  unsigned char *stage = in->staging + (size_t)s * KK_SPIRV_SLOT_BYTES, *slot = in->slots + (size_t)s * KK_SPIRV_SLOT_BYTES;
  memcpy(stage, L, sizeof *L);
  memcpy(stage + KK_SPIRV_ARGS_OFFSET, l->args, l->args_size);
  kk_status_t st = levelzero_order(c, in);
  if (st != KK_OK)
    return st;
  ZE_TRY(c, c->ze.zeCommandListAppendMemoryCopy(in->list, slot, stage, KK_SPIRV_ARGS_OFFSET + l->args_size, NULL, 0, NULL),
         "copying the arguments of '%s'", l->label);
  in->pending = true;
  if ((st = levelzero_order(c, in)) != KK_OK)
    return st;
  ze_group_count_t gc = {.groupCountX = (uint32_t)groups, .groupCountY = 1, .groupCountZ = 1};
  const size_t local_bytes = smem > 16 ? (size_t)smem : 16;
  pthread_mutex_lock(&c->launch_lock);
  ze_result_t r = c->ze.zeKernelSetArgumentValue(zk, 0, sizeof slot, &slot);
  if (r == ZE_RESULT_SUCCESS)
    r = c->ze.zeKernelSetArgumentValue(zk, 1, local_bytes, NULL); /* shared local memory: a size, no value */
  if (r == ZE_RESULT_SUCCESS)
    r = c->ze.zeKernelSetGroupSize(zk, (uint32_t)local, 1, 1);
  if (r == ZE_RESULT_SUCCESS)
    r = c->ze.zeCommandListAppendLaunchKernel(in->list, zk, &gc, in->events[s], 0, NULL);
  pthread_mutex_unlock(&c->launch_lock);
  if (r != ZE_RESULT_SUCCESS)
    return levelzero_fail(c, r, "launching %s: %lld groups of %zu work-items, %zu bytes of shared local memory",
                          l->label, (long long)groups, local, local_bytes);
  in->used[s] = true;
  in->pending = true;
  return KK_OK;
}

static kk_status_t go(levelzero_ctx_t *c, levelzero_inst_t *in, const kk_launch_t *l, levelzero_kernel_t *k,
                      const kk_spirv_launch *L, int64_t groups, size_t local, uint64_t smem) {
  return go_kernel(c, in, l, k->k, L, groups, local, smem);
}

/* Work-items per group for n items: what zeKernelSuggestGroupSize chose for
 * the kernel (at most 256 and what the kernel allows), less for short ranges. */
static size_t group_for(const levelzero_kernel_t *k, int64_t n) {
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

static kk_status_t result_prepare(levelzero_ctx_t *c, levelzero_inst_t *in, const kk_launch_t *l, kk_spirv_launch *L,
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
    kk_status_t st = levelzero_inst_grow(c, in, &in->partials2, vs);
    if (st != KK_OK)
      return st;
    rt->dev = in->partials2.ptr;
  }
  L->result = rt->dev;
  return KK_OK;
}

/* Appends the copy of a synchronous result (with in->lock held); the
 * launch then drains the list. */
static kk_status_t result_enqueue(levelzero_ctx_t *c, levelzero_inst_t *in, const kk_launch_t *l, result_target_t *rt) {
  if (!rt->dev)
    return KK_OK;
  kk_status_t st = levelzero_order(c, in);
  if (st != KK_OK)
    return st;
  ZE_TRY(c,
         c->ze.zeCommandListAppendMemoryCopy(in->list, l->result, rt->dev, l->kernel->reducer->value_size, NULL, 0,
                                             NULL),
         "copying the result of '%s'", l->label);
  in->pending = true;
  return KK_OK;
}

static int64_t group_cap(const levelzero_ctx_t *c) {
  int64_t u = c->devs[c->dev].units;  /* subslices (Xe cores) */
  return (u > 0 ? u : 1) * 4;
}

static kk_status_t launch_range(levelzero_ctx_t *c, levelzero_inst_t *in, const kk_launch_t *l, levelzero_kernel_t *k) {
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
    return go(c, in, l, k, &L, groups < MAX_GROUPS ? groups : MAX_GROUPS, t, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  result_target_t rt;
  kk_status_t st;
  if (l->kind == KK_KIND_REDUCE) {
    size_t t = group_for(k, n);
    int64_t groups = n > 0 ? (n + (int64_t)t - 1) / (int64_t)t : 1;
    if (groups > group_cap(c))
      groups = group_cap(c);
    if ((st = levelzero_inst_grow(c, in, &in->partials, (size_t)groups * vs)) != KK_OK ||
        (st = result_prepare(c, in, l, &L, &rt)) != KK_OK)
      return st;
    L.partials = in->partials.ptr;
    L.counter = in->counter;
    if ((st = go(c, in, l, k, &L, groups, t, (uint64_t)t * vs)) != KK_OK)
      return st;
    return result_enqueue(c, in, l, &rt);
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
    return c->hs->error(c->hs->core, KK_ERROR_LIMIT, NULL, 0, "scan '%s': %lld elements are too many", l->label,
                        (long long)n);
  const int64_t per = (int64_t)t * items, tiles = (n + per - 1) / per;
  if ((st = levelzero_inst_grow(c, in, &in->partials, (size_t)tiles * vs)) != KK_OK ||
      (st = levelzero_inst_grow(c, in, &in->partials2, (size_t)tiles * t * vs)) != KK_OK)
    return st;
  if (l->result && l->result_space == KK_PLUGIN_HOST_MEMORY && vs > 256)
    return c->hs->error(c->hs->core, KK_ERROR_LIMIT, NULL, 0, "scan '%s': a value of %u bytes is too large", l->label,
                        vs);
  if ((st = result_prepare(c, in, l, &L, &rt)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.partials2 = in->partials2.ptr;
  L.items = (int32_t)items;
  L.tiles = tiles;
  if ((st = go_kernel(c, in, l, k->k, &L, tiles, t, (uint64_t)t * vs)) != KK_OK ||
      (st = go_kernel(c, in, l, k->final, &L, tiles, t, (uint64_t)t * vs)) != KK_OK)
    return st;
  return result_enqueue(c, in, l, &rt);
}

/* Default tiles: 32 along the innermost dimension, up to 256 points with the
 * next, 1 beyond; a group's work-items walk the tile's points. */
static kk_status_t launch_md(levelzero_ctx_t *c, levelzero_inst_t *in, const kk_launch_t *l, levelzero_kernel_t *k) {
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
    return go(c, in, l, k, &L, tiles < MAX_GROUPS ? tiles : MAX_GROUPS, nt, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  int64_t groups = tiles > 0 ? tiles : 1;
  if (groups > group_cap(c))
    groups = group_cap(c);
  result_target_t rt;
  kk_status_t st;
  if ((st = levelzero_inst_grow(c, in, &in->partials, (size_t)groups * vs)) != KK_OK ||
      (st = result_prepare(c, in, l, &L, &rt)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.counter = in->counter;
  if ((st = go(c, in, l, k, &L, groups, nt, (uint64_t)nt * vs)) != KK_OK)
    return st;
  return result_enqueue(c, in, l, &rt);
}

/* Local memory of a team group: collectives, team and per-thread level-0 scratch. */
static uint64_t team_smem(const kk_launch_t *l, int32_t ts) {
  return r16((uint64_t)ts * KK_SPIRV_TEAM_VALUE_MAX) + r16(l->scratch_team[0]) + (uint64_t)ts * r16(l->scratch_thread[0]);
}

static kk_status_t launch_team(levelzero_ctx_t *c, levelzero_inst_t *in, const kk_launch_t *l, levelzero_kernel_t *k) {
  kk_spirv_launch L;
  memset(&L, 0, sizeof L);
  L.locks = c->locks;
  const int32_t ts = l->team_size;
  if ((size_t)ts > k->max_wg)
    return c->hs->error(c->hs->core, KK_ERROR_LIMIT, NULL, 0,
                        "team launch '%s': team size %d exceeds the kernel's %u work-items per group", l->label, ts,
                        k->max_wg);
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
    if ((st = levelzero_inst_grow(c, in, &in->scratch1, (size_t)(L.scratch1_stride * (uint64_t)groups))) != KK_OK)
      return st;
    L.scratch1 = in->scratch1.ptr;
  }
  L.failed = in->failed;
  atomic_store(&in->team_launched, true);
  if (!reduce)
    return go(c, in, l, k, &L, groups, (size_t)ts, smem);
  result_target_t rt;
  if ((st = levelzero_inst_grow(c, in, &in->partials, (size_t)groups * vs)) != KK_OK ||
      (st = result_prepare(c, in, l, &L, &rt)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.counter = in->counter;
  if ((st = go(c, in, l, k, &L, groups, (size_t)ts, smem)) != KK_OK)
    return st;
  return result_enqueue(c, in, l, &rt);
}

kk_status_t levelzero_launch(void *ctx, void *inst, const kk_launch_t *l) {
  levelzero_ctx_t *c = ctx;
  levelzero_inst_t *in = levelzero_inst_of(c, inst);
  levelzero_kernel_t *k = l->device_kernel;
  if (l->args_size > KK_SPIRV_SLOT_BYTES - KK_SPIRV_ARGS_OFFSET)
    return c->hs->error(c->hs->core, KK_ERROR_LIMIT, NULL, 0,
                        "launch '%s': an argument struct of %u bytes exceeds the %d bytes a SPIR-V launch carries",
                        l->label, l->args_size, KK_SPIRV_SLOT_BYTES - KK_SPIRV_ARGS_OFFSET);
  kk_status_t st;
  pthread_mutex_lock(&in->lock);
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
    st = c->hs->error(c->hs->core, KK_ERROR_UNSUPPORTED, NULL, 0, "unknown kernel kind %u", l->kind);
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
    return levelzero_instance_fence(c, inst);
  return KK_OK;
}

kk_status_t levelzero_team_size_query(void *ctx, const kk_launch_t *l, int32_t *max, int32_t *recommended) {
  levelzero_ctx_t *c = ctx;
  const levelzero_kernel_t *k = l->device_kernel;
  const levelzero_dev_t *d = &c->devs[c->dev];
  int64_t m = (int64_t)(k ? k->max_wg : d->max_group);
  if (m > 1024)
    m = 1024;
  /* shared local memory: collectives and level-0 scratch grow with the team */
  const uint64_t fixed = r16(l->scratch_team[0]) + 16, per = KK_SPIRV_TEAM_VALUE_MAX + r16(l->scratch_thread[0]);
  int64_t by_mem = d->local_mem > fixed ? (int64_t)((d->local_mem - fixed) / per) : 0;
  if (by_mem < m)
    m = by_mem;
  *max = m > 0 ? (int32_t)m : 0;
  *recommended = *max < 64 ? *max : 64;
  if (*recommended < 1)
    *recommended = 1;
  return KK_OK;
}
