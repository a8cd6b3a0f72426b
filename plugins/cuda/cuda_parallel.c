/* plugins/cuda/cuda_parallel.c -- modules, kernels and every kind of launch: grids, shared memory, partials, results. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

#define MAX_GRID 2147483647ll

static inline uint64_t r16(uint64_t n) { return (n + 15) & ~(uint64_t)15; }

/* ---- modules and kernels ------------------------------------------------------------------ */

/* The driver cannot use the image on this device: compile the source instead. */
static bool needs_jit(CUresult r) {
  return r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
         r == CUDA_ERROR_INVALID_PTX;
}

kk_status_t cuda_module_load(void *ctx, const kk_module_t *m, const kk_image_t *image, void **pmod) {
  cuda_ctx_t *c = ctx;
  CUDA_BIND(c);
  cuda_module_t *cm = calloc(1, sizeof *cm);
  if (!cm)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "module_load: out of memory");
  CUresult r = image ? c->cu.cuModuleLoadData(&cm->mod, image->data) : CUDA_ERROR_NO_BINARY_FOR_GPU;
  if (r != CUDA_SUCCESS && needs_jit(r) && m->source) {
    void *cubin = NULL;
    size_t size = 0;
    kk_status_t st = cuda_jit(c, m, &cubin, &size);
    if (st != KK_OK) {
      free(cm);
      return st;
    }
    r = c->cu.cuModuleLoadData(&cm->mod, cubin);
    free(cubin);
  }
  if (r != CUDA_SUCCESS) {
    free(cm);
    if (!image && !m->source)
      return c->hs->error(c->hs->core, KK_ERROR_NOT_FOUND, NULL, 0,
                          "module %s has no CUDA image and no source (built with kkcc --targets=%s)", m->source_name,
                          m->targets ? m->targets : "?");
    return cuda_fail(c, r, "cuModuleLoadData(%s, image for %s)", m->source_name,
                     image && image->arch ? image->arch : "no architecture");
  }
  /* the module and this plugin must agree on the launch record */
  CUdeviceptr p;
  size_t bytes;
  int version = 0;
  if (c->cu.cuModuleGetGlobal(&p, &bytes, cm->mod, "kk__gpu_launch_version") != CUDA_SUCCESS ||
      c->cu.cuMemcpyDtoH(&version, p, sizeof version) != CUDA_SUCCESS || version != KK_GPU_LAUNCH_VERSION) {
    c->cu.cuModuleUnload(cm->mod);
    free(cm);
    return c->hs->error(c->hs->core, KK_ERROR_ABI_MISMATCH, NULL, 0,
                        "module %s was compiled for GPU launch record %d, this plugin fills version %d: rebuild it",
                        m->source_name, version, KK_GPU_LAUNCH_VERSION);
  }
  if (c->cu.cuModuleGetGlobal(&p, &bytes, cm->mod, "kk__dev_locks") == CUDA_SUCCESS)
    CU_TRY(c, c->cu.cuMemcpyHtoD(p, &c->locks, sizeof c->locks), "pointing module %s at the lock table",
           m->source_name);
  *pmod = cm;
  return KK_OK;
}

kk_status_t cuda_module_unload(void *ctx, void *pmod) {
  cuda_ctx_t *c = ctx;
  CUDA_BIND(c);
  cuda_module_t *cm = pmod;
  while (cm->kernels) {
    cuda_kernel_t *k = cm->kernels;
    cm->kernels = k->next;
    free(k);
  }
  CUresult r = c->cu.cuModuleUnload(cm->mod);
  free(cm);
  if (r != CUDA_SUCCESS)
    return cuda_fail(c, r, "cuModuleUnload");
  return KK_OK;
}

kk_status_t cuda_kernel_get(void *ctx, void *pmod, const kk_kernel_t *kernel, void **pkernel) {
  cuda_ctx_t *c = ctx;
  CUDA_BIND(c);
  cuda_module_t *cm = pmod;
  char name[300];
  snprintf(name, sizeof name, "kk_k_%s", kernel->name);
  CUfunction fn;
  CU_TRY(c, c->cu.cuModuleGetFunction(&fn, cm->mod, name), "cuModuleGetFunction(%s)", name);
  cuda_kernel_t *k = calloc(1, sizeof *k);
  if (!k)
    return c->hs->error(c->hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "kernel_get: out of memory");
  k->fn = fn;
  c->cu.cuFuncGetAttribute(&k->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn);
  if (kernel->kind == KK_KIND_MD_FOR) { /* images from before the direct entry have none: the general one serves */
    snprintf(name, sizeof name, "kk_kd_%s", kernel->name);
    if (c->cu.cuModuleGetFunction(&k->fn_direct, cm->mod, name) == CUDA_SUCCESS)
      c->cu.cuFuncGetAttribute(&k->max_threads_direct, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn_direct);
    else
      k->fn_direct = NULL;
  }
  c->cu.cuFuncGetAttribute(&k->static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
  k->dyn_smem_set = 48 * 1024;
  k->next = cm->kernels;
  cm->kernels = k;
  *pkernel = k;
  return KK_OK;
}

/* ---- launching --------------------------------------------------------------------------------- */

/* Opts a kernel into more than 48 KiB of dynamic shared memory when it needs it. */
static kk_status_t smem_optin(cuda_ctx_t *c, cuda_kernel_t *k, uint64_t bytes) {
  if ((int)bytes <= k->dyn_smem_set)
    return KK_OK;
  CU_TRY(c, c->cu.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes),
         "allowing %llu bytes of shared memory", (unsigned long long)bytes);
  k->dyn_smem_set = (int)bytes;
  return KK_OK;
}

static kk_status_t go_grid(cuda_ctx_t *c, cuda_inst_t *in, const kk_launch_t *l, cuda_kernel_t *k, CUfunction fn,
                           kk_gpu_launch *L, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                           uint64_t smem) {
  kk_status_t st = smem_optin(c, k, smem);
  if (st != KK_OK)
    return st;
  void *params[2] = {(void *)l->args, L};
  CU_TRY(c, c->cu.cuLaunchKernel(fn, gx, gy, gz, bx, by, bz, (unsigned)smem, in->stream, params, NULL),
         "cuLaunchKernel(%s: %ux%ux%u blocks of %ux%ux%u threads, %llu bytes of shared memory)", l->label, gx, gy, gz,
         bx, by, bz, (unsigned long long)smem);
  return KK_OK;
}

static kk_status_t go(cuda_ctx_t *c, cuda_inst_t *in, const kk_launch_t *l, cuda_kernel_t *k, kk_gpu_launch *L,
                      int64_t blocks, unsigned bx, unsigned by, unsigned bz, uint64_t smem) {
  return go_grid(c, in, l, k, k->fn, L, (unsigned)blocks, 1, 1, bx, by, bz, smem);
}

/* Threads per block for n items (a multiple of the warp, at most 256). */
static unsigned block_for(const cuda_kernel_t *k, int64_t n) {
  unsigned t = 256;
  if (n < 256)
    t = n <= 32 ? 32 : (unsigned)((n + 31) / 32) * 32;
  if ((int)t > k->max_threads)
    t = (unsigned)(k->max_threads / 32 * 32);
  return t ? t : 32;
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
static kk_status_t result_prepare(cuda_ctx_t *c, cuda_inst_t *in, const kk_launch_t *l, kk_gpu_launch *L,
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
  if (vs <= CUDA_RESULT_VALUE_BYTES) {
    unsigned slot = atomic_fetch_add(&in->next_slot, 1u) % CUDA_RESULT_SLOTS;
    rt->host_slot = in->results + (size_t)slot * CUDA_RESULT_SLOT_BYTES;
    L->result = (void *)(uintptr_t)(in->results_dev + (CUdeviceptr)slot * CUDA_RESULT_SLOT_BYTES);
    if (with_flag) {
      rt->seq = atomic_fetch_add(&in->result_seq, 1ull) + 1;
      rt->flag = (volatile unsigned long long *)(rt->host_slot + CUDA_RESULT_VALUE_BYTES);
      L->result_flag = (unsigned long long *)(uintptr_t)(in->results_dev + (CUdeviceptr)slot * CUDA_RESULT_SLOT_BYTES +
                                                         CUDA_RESULT_VALUE_BYTES);
      L->result_seq = rt->seq;
    }
    return KK_OK;
  }
  /* a large value: through device memory and a copy */
  kk_status_t st = cuda_inst_grow(c, in, &in->partials2, vs, false);
  L->result = (void *)(uintptr_t)in->partials2.ptr;
  return st;
}

static kk_status_t result_finish(cuda_ctx_t *c, cuda_inst_t *in, const kk_launch_t *l, const kk_gpu_launch *L,
                                 const result_target_t *rt) {
  if (!rt->sync || !l->result)
    return KK_OK;
  if (rt->flag) {
    /* Wait for the value's flag, asking the stream now and then so that a
     * failed kernel (which never sets it) is reported, not waited for. */
    for (unsigned spin = 1; *rt->flag != rt->seq; spin++)
      if ((spin & 255u) == 0) {
        CUresult q = c->cu.cuStreamQuery(in->stream);
        if (q == CUDA_SUCCESS)
          break;
        if (q != CUDA_ERROR_NOT_READY)
          CU_TRY(c, q, "waiting for the result of '%s'", l->label);
      }
    atomic_thread_fence(memory_order_acquire);
    memcpy(l->result, rt->host_slot, rt->size);
    return KK_OK;
  }
  CU_TRY(c, c->cu.cuStreamSynchronize(in->stream), "waiting for the result of '%s'", l->label);
  if (rt->host_slot)
    memcpy(l->result, rt->host_slot, rt->size);
  else
    CU_TRY(c, c->cu.cuMemcpyDtoH(l->result, (CUdeviceptr)(uintptr_t)L->result, rt->size), "copying a result");
  return KK_OK;
}

static kk_status_t launch_range(cuda_ctx_t *c, cuda_inst_t *in, const kk_launch_t *l, cuda_kernel_t *k) {
  kk_gpu_launch L;
  memset(&L, 0, sizeof L);
  L.begin = l->begin;
  L.end = l->end;
  const int64_t n = l->end - l->begin;
  if (l->kind == KK_KIND_FOR) {
    if (n <= 0)
      return KK_OK;
    unsigned t = block_for(k, n);
    int64_t blocks = (n + t - 1) / t;
    return go(c, in, l, k, &L, blocks < MAX_GRID ? blocks : MAX_GRID, t, 1, 1, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  result_target_t rt;
  kk_status_t st;
  if (l->kind == KK_KIND_REDUCE) {
    unsigned t = block_for(k, n);
    int64_t blocks = n > 0 ? (n + t - 1) / t : 1;
    int64_t cap = (int64_t)c->devs[c->dev].sm_count * 8;
    if (blocks > cap)
      blocks = cap;
    if ((st = cuda_inst_grow(c, in, &in->partials, (size_t)blocks * vs, false)) != KK_OK ||
        (st = result_prepare(c, in, l, &L, &rt, true)) != KK_OK)
      return st;
    L.partials = (void *)(uintptr_t)in->partials.ptr;
    L.counter = (unsigned *)(uintptr_t)in->counter;
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
  const unsigned t = 256;
  const int64_t per = (int64_t)t * items, tiles = (n + per - 1) / per;
  if (tiles > MAX_GRID)
    return c->hs->error(c->hs->core, KK_ERROR_LIMIT, NULL, 0, "scan '%s': %lld tiles exceed the grid", l->label,
                        (long long)tiles);
  if ((st = cuda_inst_grow(c, in, &in->partials, (size_t)tiles * vs, false)) != KK_OK ||
      (st = cuda_inst_grow(c, in, &in->partials2, (size_t)tiles * vs, false)) != KK_OK ||
      (st = cuda_inst_grow(c, in, &in->status, (size_t)tiles * 16, true)) != KK_OK || /* 16-byte descriptors */
      (st = result_prepare(c, in, l, &L, &rt, false)) != KK_OK)
    return st;
  L.partials = (void *)(uintptr_t)in->partials.ptr;
  L.partials2 = (void *)(uintptr_t)in->partials2.ptr;
  L.status = (unsigned long long *)(uintptr_t)in->status.ptr;
  L.tile_counter = (unsigned long long *)(uintptr_t)in->tile_counter;
  L.tile_base = 0;
  L.epoch = atomic_fetch_add(&in->epoch, 1ull);
  L.items = items;
  /* shared memory: the tile's values, one pad slot after every `items`
   * (kk__scan_slot in kk/target/simt.h) */
  const uint64_t slots = items > 1 ? (uint64_t)(items + 1) * t : t;
  if ((st = go(c, in, l, k, &L, tiles, t, 1, 1, slots * vs)) != KK_OK)
    return st;
  return result_finish(c, in, l, &L, &rt);
}

/* Default GPU tiles: 32 along the innermost dimension (a warp of unit-stride
 * accesses in the default layout), up to 256 threads with the next, 4 on the
 * third (looped over by each thread), 1 beyond. */
static kk_status_t launch_md(cuda_ctx_t *c, cuda_inst_t *in, const kk_launch_t *l, cuda_kernel_t *k) {
  kk_gpu_launch L;
  memset(&L, 0, sizeof L);
  const int r = l->rank;
  L.rank = r;
  L.inner_left = l->iterate_inner == KK_ITERATE_LEFT;
  L.outer_left = l->iterate_outer == KK_ITERATE_LEFT;
  int order[KK_MD_MAX_RANK] = {0};
  for (int i = 0; i < r; i++)
    order[i] = L.inner_left ? i : r - 1 - i;
  int64_t tiles = 1;
  for (int i = 0; i < r; i++) {
    int d = order[i];
    int64_t ext = l->md_end[d] - l->md_begin[d];
    int64_t t = l->md_tile[d];
    if (t <= 0) { /* 32 along the innermost, up to 256 threads with the next two, one point per thread */
      const int64_t inner = i >= 1 ? L.md_tile[order[0]] * (i >= 2 ? L.md_tile[order[1]] : 1) : 1;
      t = i == 0 ? (ext < 32 ? (ext > 0 ? ext : 1) : 32) : i <= 2 ? 256 / inner : 1;
    }
    if ((i == 1 || i == 2) && t > ext && ext > 0)
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
    /* A block that holds a whole tile, and tile counts the grid's
     * dimensions hold: the direct entry, one tile per block found without
     * division, with the registers of that form alone. */
    int64_t gz = 1;
    for (int i = 2; i < r; i++)
      gz *= L.md_ntile[order[i]];
    if (k->fn_direct && !L.flat && (int64_t)bz == rest && (int)nthreads <= k->max_threads_direct &&
        L.md_ntile[order[0]] < MAX_GRID && L.md_ntile[order[1]] <= 65535 && gz <= 65535)
      return go_grid(c, in, l, k, k->fn_direct, &L, (unsigned)L.md_ntile[order[0]], (unsigned)L.md_ntile[order[1]],
                     (unsigned)gz, bx, by, bz, 0);
    return go(c, in, l, k, &L, tiles < MAX_GRID ? tiles : MAX_GRID, bx, by, bz, 0);
  }
  const uint32_t vs = l->kernel->reducer->value_size;
  int64_t blocks = tiles > 0 ? tiles : 1, cap = (int64_t)c->devs[c->dev].sm_count * 8;
  if (blocks > cap)
    blocks = cap;
  result_target_t rt;
  kk_status_t st;
  if ((st = cuda_inst_grow(c, in, &in->partials, (size_t)blocks * vs, false)) != KK_OK ||
      (st = result_prepare(c, in, l, &L, &rt, true)) != KK_OK)
    return st;
  L.partials = (void *)(uintptr_t)in->partials.ptr;
  L.counter = (unsigned *)(uintptr_t)in->counter;
  if ((st = go(c, in, l, k, &L, blocks, bx, by, bz, (uint64_t)nthreads * vs)) != KK_OK)
    return st;
  return result_finish(c, in, l, &L, &rt);
}

/* Shared memory of a team block: collectives, team and per-thread level-0 scratch. */
static uint64_t team_smem(const kk_launch_t *l, int32_t ts) {
  return r16((uint64_t)ts * KK_GPU_TEAM_VALUE_MAX) + r16(l->scratch_team[0]) + (uint64_t)ts * r16(l->scratch_thread[0]);
}

static kk_status_t launch_team(cuda_ctx_t *c, cuda_inst_t *in, const kk_launch_t *l, cuda_kernel_t *k) {
  kk_gpu_launch L;
  memset(&L, 0, sizeof L);
  const int32_t v = l->vector_length, ts = l->team_size;
  if (v < 1 || v > 32 || (v & (v - 1)))
    return c->hs->error(c->hs->core, KK_ERROR_LIMIT, NULL, 0,
                        "team launch '%s': vector length %d must be a power of two up to 32 on CUDA", l->label, v);
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
  kk_status_t st = smem_optin(c, k, smem);
  if (st != KK_OK)
    return st;
  /* A block per team, as the hardware balances blocks best; only level-1
   * scratch (a pool slice per block) or a reduction (a partial per block)
   * caps the grid at the blocks that can be resident, which then loop over
   * the league. */
  int64_t cap = MAX_GRID;
  if (reduce || l->scratch_team[1] || l->scratch_thread[1]) {
    int per_sm = 1;
    c->cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k->fn, (int)threads, (size_t)smem);
    cap = (int64_t)(per_sm > 0 ? per_sm : 1) * c->devs[c->dev].sm_count;
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
    if ((st = cuda_inst_grow(c, in, &in->scratch1, (size_t)(L.scratch1_stride * (uint64_t)blocks), false)) != KK_OK)
      return st;
    L.scratch1 = (unsigned char *)(uintptr_t)in->scratch1.ptr;
  }
  L.failed = (unsigned *)(uintptr_t)in->failed;
  L.failed_record = (unsigned long long *)(uintptr_t)(in->results_dev + CUDA_RESULT_SLOTS * CUDA_RESULT_SLOT_BYTES);
  if (!reduce)
    return go(c, in, l, k, &L, blocks, (unsigned)v, (unsigned)ts, 1, smem);
  result_target_t rt;
  if ((st = cuda_inst_grow(c, in, &in->partials, (size_t)blocks * vs, false)) != KK_OK ||
      (st = result_prepare(c, in, l, &L, &rt, true)) != KK_OK)
    return st;
  L.partials = (void *)(uintptr_t)in->partials.ptr;
  L.counter = (unsigned *)(uintptr_t)in->counter;
  if ((st = go(c, in, l, k, &L, blocks, (unsigned)v, (unsigned)ts, 1, smem)) != KK_OK)
    return st;
  if ((st = result_finish(c, in, l, &L, &rt)) != KK_OK)
    return st;
  /* a synchronous result: report a scratch overrun now, not at the next fence */
  return rt.sync ? cuda_instance_fence(c, in == &c->def ? NULL : in) : KK_OK;
}

kk_status_t cuda_launch(void *ctx, void *inst, const kk_launch_t *l) {
  cuda_ctx_t *c = ctx;
  CUDA_BIND(c);
  cuda_inst_t *in = cuda_inst_of(c, inst);
  cuda_kernel_t *k = l->device_kernel;
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

kk_status_t cuda_team_size_query(void *ctx, const kk_launch_t *l, int32_t *max, int32_t *recommended) {
  cuda_ctx_t *c = ctx;
  CUDA_BIND(c);
  const cuda_kernel_t *k = l->device_kernel;
  const int32_t v = l->vector_length > 0 ? l->vector_length : 1;
  int32_t m = (k ? k->max_threads : c->devs[c->dev].max_threads_per_block) / v;
  /* shared memory: collectives and level-0 scratch grow with the team */
  const uint64_t optin = (uint64_t)c->devs[c->dev].smem_optin;
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
