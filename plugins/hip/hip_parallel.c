/* plugins/hip/hip_parallel.c -- modules, kernels and every kind of launch: grids, LDS, partials, results. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip_internal.h"

static inline uint64_t r16(uint64_t n) { return (n + 15) & ~(uint64_t)15; }

/* ---- modules and kernels ------------------------------------------------------------------ */

kk_status_t hip_module_load(void *ctx, const kk_module_t *m, const kk_image_t *image, void **pmod) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  if (!image)
    return c->hs->error(c->hs->core, KK_ERROR_NOT_FOUND, NULL, 0,
                        "module %s has no HIP code objects (built with kkcc --targets=%s)", m->source_name,
                        m->targets ? m->targets : "?");
  hip_module_t *hm = calloc(1, sizeof *hm);
  if (!hm)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "module_load: out of memory");
  /* the runtime picks the code object of this device's architecture from the bundle */
  hipError_t r = c->rt.hipModuleLoadData(&hm->mod, image->data);
  if (r != hipSuccess) {
    free(hm);
    return hip_fail(c, r, "hipModuleLoadData(%s: code objects for %s; this device is %s%s)", m->source_name,
                    image->arch && *image->arch ? image->arch : "no architecture", c->devs[c->dev].arch,
                    r == hipErrorNoBinaryForGpu || r == hipErrorInvalidImage || r == hipErrorInvalidKernelFile
                        ? ": rebuild it with kkcc --hip-arch=<this architecture>"
                        : "");
  }
  /* the module and this plugin must agree on the launch record */
  hipDeviceptr_t p;
  size_t bytes;
  int version = 0;
  if (c->rt.hipModuleGetGlobal(&p, &bytes, hm->mod, "kk__gpu_launch_version") != hipSuccess ||
      c->rt.hipMemcpyDtoH(&version, p, sizeof version) != hipSuccess || version != KK_GPU_LAUNCH_VERSION) {
    c->rt.hipModuleUnload(hm->mod);
    free(hm);
    return c->hs->error(c->hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0,
                        "module %s was compiled for GPU launch record %d, this plugin fills version %d: rebuild it",
                        m->source_name, version, KK_GPU_LAUNCH_VERSION);
  }
  if (c->rt.hipModuleGetGlobal(&p, &bytes, hm->mod, "kk__dev_locks") == hipSuccess) {
    r = c->rt.hipMemcpyHtoD(p, &c->locks, sizeof c->locks);
    if (r != hipSuccess) {
      c->rt.hipModuleUnload(hm->mod);
      free(hm);
      return hip_fail(c, r, "pointing module %s at the lock table", m->source_name);
    }
  }
  *pmod = hm;
  return KK_OK;
}

kk_status_t hip_module_unload(void *ctx, void *pmod) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  hip_module_t *hm = pmod;
  while (hm->kernels) {
    hip_kernel_t *k = hm->kernels;
    hm->kernels = k->next;
    free(k);
  }
  hipError_t r = c->rt.hipModuleUnload(hm->mod);
  free(hm);
  if (r != hipSuccess)
    return hip_fail(c, r, "hipModuleUnload");
  return KK_OK;
}

kk_status_t hip_kernel_get(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  hip_module_t *hm = pmod;
  char name[300];
  snprintf(name, sizeof name, "kk_k_%s", kernel->name);
  if (kernel->args_size + sizeof(kk_gpu_launch) + 8 > HIP_ARGS_MAX)
    return c->hs->error(c->hs->core, KK_ERROR_LIMIT, NULL, 0,
                        "kernel %s: its argument struct (%u bytes) and the launch record exceed the %d bytes of "
                        "kernel arguments AMD GPUs take",
                        kernel->name, kernel->args_size, HIP_ARGS_MAX);
  hipFunction_t fn;
  HIP_TRY(c, c->rt.hipModuleGetFunction(&fn, hm->mod, name), "hipModuleGetFunction(%s)", name);
  hip_kernel_t *k = calloc(1, sizeof *k);
  if (!k)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "kernel_get: out of memory");
  k->fn = fn;
  /* MDRange kernels are bounded to 256 threads (kk/target/hip.h), the others
   * have HIP-Clang's default bound of 1024 */
  const bool md = kernel->kind == KK_KIND_MD_FOR || kernel->kind == KK_KIND_MD_REDUCE;
  if (c->rt.hipFuncGetAttribute(&k->max_threads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn) != hipSuccess ||
      k->max_threads <= 0)
    k->max_threads = md ? 256 : 1024;
  if (k->max_threads > c->devs[c->dev].max_threads_per_block)
    k->max_threads = c->devs[c->dev].max_threads_per_block;
  k->next = hm->kernels;
  hm->kernels = k;
  *pkernel = k;
  return KK_OK;
}

/* ---- launching --------------------------------------------------------------------------------- */

/* The grid of a launch: HIP counts it in work-items, at most 2^32 - 1 per dimension. */
static inline int64_t grid_cap(unsigned threads) { return (int64_t)(0xffffffffu / (threads ? threads : 1)); }

/* LDS of a launch: no opt-in on AMD GPUs, a hard limit per block. */
static kk_status_t lds_check(hip_ctx_t *c, const kk_launch_t *l, uint64_t smem) {
  const uint64_t lds = (uint64_t)c->devs[c->dev].lds;
  if (lds && smem > lds)
    return c->hs->error(c->hs->core, KK_ERROR_LIMIT, NULL, 0,
                        "launch '%s' needs %llu bytes of LDS (shared memory) per block, the device has %llu", l->label,
                        (unsigned long long)smem, (unsigned long long)lds);
  return KK_OK;
}

/* Launches with the argument struct and the launch record packed as the
 * kernel's two by-value parameters (the record 8-byte aligned after the
 * arguments), in a buffer on the stack: the launch path allocates nothing. */
static kk_status_t go(hip_ctx_t *c, hip_inst_t *in, const kk_launch_t *l, hip_kernel_t *k, kk_gpu_launch *L,
                      int64_t blocks, unsigned bx, unsigned by, unsigned bz, uint64_t smem) {
  kk_status_t st = lds_check(c, l, smem);
  if (st != KK_OK)
    return st;
  _Alignas(16) unsigned char buf[HIP_ARGS_MAX];
  const size_t at = ((size_t)l->kernel->args_size + 7) & ~(size_t)7;
  size_t size = at + sizeof *L;
  memcpy(buf, l->args, l->kernel->args_size);
  memcpy(buf + at, L, sizeof *L);
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, buf, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  HIP_TRY(c,
          c->rt.hipModuleLaunchKernel(k->fn, (unsigned)blocks, 1, 1, bx, by, bz, (unsigned)smem, in->stream, NULL,
                                      extra),
          "hipModuleLaunchKernel(%s: %lld blocks of %ux%ux%u threads, %llu bytes of LDS)", l->label,
          (long long)blocks, bx, by, bz, (unsigned long long)smem);
  return KK_OK;
}

/* Threads per block for n items (a multiple of the wave, at most 256). */
static unsigned block_for(const hip_ctx_t *c, const hip_kernel_t *k, int64_t n) {
  const unsigned w = (unsigned)c->devs[c->dev].warp;
  unsigned t = 256;
  if (n < 256)
    t = n <= w ? w : (unsigned)((n + w - 1) / w) * w;
  if ((int)t > k->max_threads)
    t = (unsigned)k->max_threads / w * w;
  return t ? t : w;
}

/* Where a reduction's value goes: a mapped slot of host memory (synchronous
 * result) or the caller's device memory. */
typedef struct result_target {
  void *host_slot;
  volatile unsigned long long *flag; /* in the host slot: equals seq once the value is there */
  unsigned long long seq;
  size_t size;
  bool sync;
} result_target_t;

/* with_flag: the kernel ends in kk__reduce_finish, which sets the slot's flag. */
static kk_status_t result_prepare(hip_ctx_t *c, hip_inst_t *in, const kk_launch_t *l, kk_gpu_launch *L,
                                  result_target_t *rt, bool with_flag) {
  const uint32_t vs = l->kernel->reducer->value_size;
  rt->size = vs;
  rt->sync = l->result_space == KK_PLUGIN_HOST_MEMORY;
  rt->host_slot = NULL;
  rt->flag = NULL;
  L->result_flag = NULL;
  if (!l->result) {
    L->result = NULL;
    return KK_OK;
  }
  if (!rt->sync) {
    L->result = l->result; /* a view in one of our spaces: written in stream order */
    return KK_OK;
  }
  if (vs <= HIP_RESULT_VALUE_BYTES) {
    unsigned slot = atomic_fetch_add(&in->next_slot, 1u) % HIP_RESULT_SLOTS;
    rt->host_slot = in->results + (size_t)slot * HIP_RESULT_SLOT_BYTES;
    L->result = (void *)(in->results_dev + (size_t)slot * HIP_RESULT_SLOT_BYTES);
    if (with_flag) {
      rt->seq = atomic_fetch_add(&in->result_seq, 1ull) + 1;
      rt->flag = (volatile unsigned long long *)(rt->host_slot + HIP_RESULT_VALUE_BYTES);
      L->result_flag = (unsigned long long *)(void *)(in->results_dev + (size_t)slot * HIP_RESULT_SLOT_BYTES +
                                                      HIP_RESULT_VALUE_BYTES);
      L->result_seq = rt->seq;
    }
    return KK_OK;
  }
  /* a large value: through device memory and a copy */
  kk_status_t st = hip_inst_grow(c, in, &in->partials2, vs, false);
  L->result = in->partials2.ptr;
  return st;
}

static kk_status_t result_finish(hip_ctx_t *c, hip_inst_t *in, const kk_launch_t *l, const kk_gpu_launch *L,
                                 const result_target_t *rt) {
  if (!rt->sync || !l->result)
    return KK_OK;
  if (rt->flag) {
    /* Wait for the value's flag, asking the stream now and then so that a
     * failed kernel (which never sets it) is reported, not waited for. */
    for (unsigned spin = 1; *rt->flag != rt->seq; spin++)
      if ((spin & 255u) == 0) {
        hipError_t q = c->rt.hipStreamQuery(in->stream);
        if (q == hipSuccess)
          break;
        if (q != hipErrorNotReady)
          HIP_TRY(c, q, "waiting for the result of '%s'", l->label);
      }
    atomic_thread_fence(memory_order_acquire);
    memcpy(l->result, rt->host_slot, rt->size);
    return KK_OK;
  }
  HIP_TRY(c, c->rt.hipStreamSynchronize(in->stream), "waiting for the result of '%s'", l->label);
  if (rt->host_slot)
    memcpy(l->result, rt->host_slot, rt->size);
  else
    HIP_TRY(c, c->rt.hipMemcpyDtoH(l->result, L->result, rt->size), "copying a result");
  return KK_OK;
}

static kk_status_t launch_range(hip_ctx_t *c, hip_inst_t *in, const kk_launch_t *l, hip_kernel_t *k) {
  kk_gpu_launch L;
  memset(&L, 0, sizeof L);
  L.begin = l->begin;
  L.end = l->end;
  const int64_t n = l->end - l->begin;
  if (l->kind == KK_KIND_FOR) {
    if (n <= 0)
      return KK_OK;
    unsigned t = block_for(c, k, n);
    int64_t blocks = (n + t - 1) / t;
    return go(c, in, l, k, &L, blocks < grid_cap(t) ? blocks : grid_cap(t), t, 1, 1, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  result_target_t rt;
  kk_status_t st;
  if (l->kind == KK_KIND_REDUCE) {
    unsigned t = block_for(c, k, n);
    int64_t blocks = n > 0 ? (n + t - 1) / t : 1;
    int64_t cap = (int64_t)c->devs[c->dev].cu_count * 8;
    if (blocks > cap)
      blocks = cap;
    if ((st = hip_inst_grow(c, in, &in->partials, (size_t)blocks * vs, false)) != KK_OK ||
        (st = result_prepare(c, in, l, &L, &rt, true)) != KK_OK)
      return st;
    L.partials = in->partials.ptr;
    L.counter = (unsigned *)(void *)in->counter;
    if ((st = go(c, in, l, k, &L, blocks, t, 1, 1, (uint64_t)t * vs)) != KK_OK)
      return st;
    return result_finish(c, in, l, &L, &rt);
  }
  /* scan: one pass over tiles of items rounds of 256 threads */
  if (n <= 0) {
    if (l->result)
      l->kernel->reducer->init(l->result);
    return KK_OK;
  }
  const int items = vs <= 8 ? 16 : vs <= 16 ? 8 : 1; /* KK__SCAN_ITEMS (kk/target/simt.h) */
  const unsigned t = 256; /* a multiple of the wave */
  const int64_t per = (int64_t)t * items, tiles = (n + per - 1) / per;
  if (tiles > grid_cap(t))
    return c->hs->error(c->hs->core, KK_ERROR_LIMIT, NULL, 0, "scan '%s': %lld tiles exceed the grid", l->label,
                        (long long)tiles);
  if ((st = hip_inst_grow(c, in, &in->partials, (size_t)tiles * vs, false)) != KK_OK ||
      (st = hip_inst_grow(c, in, &in->partials2, (size_t)tiles * vs, false)) != KK_OK ||
      (st = hip_inst_grow(c, in, &in->status, (size_t)tiles * 8, true)) != KK_OK ||
      (st = result_prepare(c, in, l, &L, &rt, false)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.partials2 = in->partials2.ptr;
  L.status = in->status.ptr;
  L.tile_counter = (unsigned long long *)(void *)in->tile_counter;
  L.tile_base = 0;
  L.epoch = atomic_fetch_add(&in->epoch, 1ull);
  L.items = items;
  /* LDS: the tile's values, one pad slot after every `items`
   * (kk__scan_slot in kk/target/simt.h) */
  const uint64_t slots = items > 1 ? (uint64_t)(items + 1) * t : t;
  if ((st = go(c, in, l, k, &L, tiles, t, 1, 1, slots * vs)) != KK_OK)
    return st;
  return result_finish(c, in, l, &L, &rt);
}

/* Default GPU tiles: a wave along the innermost dimension (unit-stride
 * accesses in the default layout), up to 256 threads with the next, 4 on the
 * third (looped over by each thread), 1 beyond. */
static kk_status_t launch_md(hip_ctx_t *c, hip_inst_t *in, const kk_launch_t *l, hip_kernel_t *k) {
  kk_gpu_launch L;
  memset(&L, 0, sizeof L);
  const int r = l->rank;
  L.rank = r;
  L.inner_left = l->iterate_inner == KK_ITERATE_LEFT;
  L.outer_left = l->iterate_outer == KK_ITERATE_LEFT;
  int order[KK_MD_MAX_RANK];
  for (int i = 0; i < r; i++)
    order[i] = L.inner_left ? i : r - 1 - i;
  int64_t tiles = 1;
  const int64_t w = c->devs[c->dev].warp;
  for (int i = 0; i < r; i++) {
    int d = order[i];
    int64_t ext = l->md_end[d] - l->md_begin[d];
    int64_t t = l->md_tile[d];
    if (t <= 0) /* a wave along the innermost, up to 256 threads with the next, 4 points per thread on the third */
      t = i == 0 ? (ext < w ? (ext > 0 ? ext : 1) : w) : i == 1 ? 256 / L.md_tile[order[0]] : i == 2 ? 4 : 1;
    if (i == 1 && t > ext && ext > 0)
      t = ext;
    if (t < 1)
      t = 1;
    L.md_begin[d] = l->md_begin[d];
    L.md_end[d] = l->md_end[d];
    L.md_tile[d] = t;
    L.md_ntile[d] = ext > 0 ? (ext + t - 1) / t : 0;
    tiles *= L.md_ntile[d];
  }
  L.md_tiles = tiles;
  int64_t t0 = L.md_tile[order[0]], t1 = r > 1 ? L.md_tile[order[1]] : 1, rest = 1;
  for (int i = 2; i < r; i++)
    rest *= L.md_tile[order[i]];
  unsigned bx, by, bz;
  if (t0 * t1 <= k->max_threads && t0 * t1 <= 1024) {
    /* threads on the two innermost dimensions, and on the others as far as
     * 256 threads go (at most 64 in z); the kernel loops over the rest */
    int64_t room = 256 / (t0 * t1), z = rest < room ? rest : room;
    if (z > 64)
      z = 64;
    if (z < 1 || t0 * t1 * z > k->max_threads)
      z = 1;
    bx = (unsigned)t0, by = (unsigned)t1, bz = (unsigned)z;
  } else {
    L.flat = 1;
    bx = 256 <= k->max_threads ? 256 : (unsigned)k->max_threads, by = bz = 1;
  }
  const unsigned nthreads = bx * by * bz;
  if (l->kind == KK_KIND_MD_FOR) {
    if (tiles == 0)
      return KK_OK;
    return go(c, in, l, k, &L, tiles < grid_cap(nthreads) ? tiles : grid_cap(nthreads), bx, by, bz, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  int64_t blocks = tiles > 0 ? tiles : 1, cap = (int64_t)c->devs[c->dev].cu_count * 8;
  if (blocks > cap)
    blocks = cap;
  result_target_t rt;
  kk_status_t st;
  if ((st = hip_inst_grow(c, in, &in->partials, (size_t)blocks * vs, false)) != KK_OK ||
      (st = result_prepare(c, in, l, &L, &rt, true)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.counter = (unsigned *)(void *)in->counter;
  if ((st = go(c, in, l, k, &L, blocks, bx, by, bz, (uint64_t)nthreads * vs)) != KK_OK)
    return st;
  return result_finish(c, in, l, &L, &rt);
}

/* LDS of a team block: collectives, team and per-thread level-0 scratch. */
static uint64_t team_smem(const kk_launch_t *l, int32_t ts) {
  return r16((uint64_t)ts * KK_GPU_TEAM_VALUE_MAX) + r16(l->scratch_team[0]) + (uint64_t)ts * r16(l->scratch_thread[0]);
}

static kk_status_t launch_team(hip_ctx_t *c, hip_inst_t *in, const kk_launch_t *l, hip_kernel_t *k) {
  kk_gpu_launch L;
  memset(&L, 0, sizeof L);
  const int32_t v = l->vector_length, ts = l->team_size, w = c->devs[c->dev].warp;
  /* a thread's vector lanes are lanes of one wave: shuffles reach them */
  if (v < 1 || v > w || (v & (v - 1)))
    return c->hs->error(c->hs->core, KK_ERROR_LIMIT, NULL, 0,
                        "team launch '%s': vector length %d must be a power of two up to the wavefront (%d on %s)",
                        l->label, v, w, c->devs[c->dev].arch);
  if ((int64_t)v * ts > k->max_threads)
    return c->hs->error(c->hs->core, KK_ERROR_LIMIT, NULL, 0,
                        "team launch '%s': team size %d x vector length %d exceeds the kernel's %d threads per block",
                        l->label, ts, v, k->max_threads);
  const unsigned threads = (unsigned)(v * ts);
  uint64_t smem = team_smem(l, ts);
  const bool reduce = l->kind == KK_KIND_TEAM_REDUCE;
  const uint32_t vs = reduce ? l->kernel->reducer->value_size : 0;
  if (reduce && (uint64_t)threads * vs > smem)
    smem = (uint64_t)threads * vs;
  kk_status_t st = lds_check(c, l, smem);
  if (st != KK_OK)
    return st;
  /* A block per team, as the hardware balances blocks best; only level-1
   * scratch (a pool slice per block) or a reduction (a partial per block)
   * caps the grid at the blocks that can be resident, which then loop over
   * the league. */
  int64_t cap = grid_cap(threads);
  if (reduce || l->scratch_team[1] || l->scratch_thread[1]) {
    int per_sm = 1;
    if (c->rt.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k->fn, (int)threads, (size_t)smem) !=
        hipSuccess)
      per_sm = 1;
    cap = (int64_t)(per_sm > 0 ? per_sm : 1) * c->devs[c->dev].cu_count;
  }
  int64_t blocks = l->league_size < cap ? l->league_size : cap;
  if (blocks < 1) {
    if (!reduce)
      return KK_OK;
    blocks = 1; /* an empty league still yields the identity */
  }
  L.league_size = l->league_size;
  for (int lv = 0; lv < 2; lv++) {
    L.team_scratch[lv] = l->scratch_team[lv];
    L.thread_scratch[lv] = l->scratch_thread[lv];
  }
  L.scratch1_stride = r16(l->scratch_team[1]) + (uint64_t)ts * r16(l->scratch_thread[1]);
  if (L.scratch1_stride) {
    if ((st = hip_inst_grow(c, in, &in->scratch1, (size_t)(L.scratch1_stride * (uint64_t)blocks), false)) != KK_OK)
      return st;
    L.scratch1 = in->scratch1.ptr;
  }
  L.failed = (unsigned *)(void *)in->failed;
  atomic_store(&in->team_launched, true);
  if (!reduce)
    return go(c, in, l, k, &L, blocks, (unsigned)v, (unsigned)ts, 1, smem);
  result_target_t rt;
  if ((st = hip_inst_grow(c, in, &in->partials, (size_t)blocks * vs, false)) != KK_OK ||
      (st = result_prepare(c, in, l, &L, &rt, true)) != KK_OK)
    return st;
  L.partials = in->partials.ptr;
  L.counter = (unsigned *)(void *)in->counter;
  if ((st = go(c, in, l, k, &L, blocks, (unsigned)v, (unsigned)ts, 1, smem)) != KK_OK)
    return st;
  if ((st = result_finish(c, in, l, &L, &rt)) != KK_OK)
    return st;
  /* a synchronous result: report a scratch overrun now, not at the next fence */
  return rt.sync ? hip_instance_fence(c, in == &c->def ? NULL : in) : KK_OK;
}

kk_status_t hip_launch(void *ctx, void *inst, const kk_launch_t *l) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  hip_inst_t *in = hip_inst_of(c, inst);
  hip_kernel_t *k = l->device_kernel;
  switch (l->kind) {
  case KK_KIND_FOR:
  case KK_KIND_REDUCE:
  case KK_KIND_SCAN:
    return launch_range(c, in, l, k);
  case KK_KIND_MD_FOR:
  case KK_KIND_MD_REDUCE:
    return launch_md(c, in, l, k);
  case KK_KIND_TEAM_FOR:
  case KK_KIND_TEAM_REDUCE:
    return launch_team(c, in, l, k);
  default:
    return c->hs->error(c->hs->core, KK_ERROR_UNSUPPORTED, NULL, 0, "unknown kernel kind %u", l->kind);
  }
}

kk_status_t hip_team_size_query(void *ctx, const kk_launch_t *l, int32_t *max, int32_t *recommended) {
  hip_ctx_t *c = ctx;
  HIP_BIND(c);
  const hip_kernel_t *k = l->device_kernel;
  const int32_t v = l->vector_length > 0 ? l->vector_length : 1;
  int32_t m = (k ? k->max_threads : c->devs[c->dev].max_threads_per_block) / v;
  /* LDS: collectives and level-0 scratch grow with the team */
  const uint64_t optin = (uint64_t)c->devs[c->dev].lds;
  const uint64_t fixed = r16(l->scratch_team[0]), per = KK_GPU_TEAM_VALUE_MAX + r16(l->scratch_thread[0]);
  int32_t by_smem = optin > fixed ? (int32_t)((optin - fixed) / per) : 0;
  if (by_smem < m)
    m = by_smem;
  *max = m > 0 ? m : 0;
  int32_t rec = 256 / v;
  *recommended = rec < *max ? rec : *max;
  if (*recommended < 1)
    *recommended = 1;
  return KK_OK;
}
