/* hostexec/host_exec.c -- every kernel kind on a team of host threads, shared by serial, threads and openmp. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_common.h"
#include "host_exec.h"
#include "host_task.h"

/* ---- team state ------------------------------------------------------------------- */

/* One concurrent team: its barrier and the buffer its threads exchange values in. */
typedef struct team_slot {
  _Alignas(64) atomic_int arrived;
  atomic_int generation;
  int size;
  atomic_long next_chunk;        /* dynamic schedule: filled by team rank 0 */
  _Alignas(64) unsigned char *values;   /* size * KKH_TEAM_VALUE_MAX bytes */
  struct kkh_team_cache *cache;  /* where a failure is recorded */
} team_slot_t;

struct kkh_team_cache {
  size_t bytes;                  /* of mem */
  unsigned char *mem;            /* scratch of every team and thread, then value buffers */
  int nslots;
  team_slot_t *slots;
  kk_host_thread_t *threads;     /* nthreads */
  int nthreads;
  /* the first failure of the running launch */
  atomic_int failed;
  char why[512];
};

static void slot_barrier(team_slot_t *s) {
  int gen = atomic_load_explicit(&s->generation, memory_order_acquire);
  if (atomic_fetch_add_explicit(&s->arrived, 1, memory_order_acq_rel) == s->size - 1) {
    atomic_store_explicit(&s->arrived, 0, memory_order_relaxed);
    atomic_store_explicit(&s->generation, gen + 1, memory_order_release);
    return;
  }
  for (unsigned spins = 0; atomic_load_explicit(&s->generation, memory_order_acquire) == gen; spins++) {
    if (atomic_load_explicit(&s->cache->failed, memory_order_relaxed))
      return; /* a team-mate abandoned the team: do not wait for it */
    if (spins > 4096)
      sched_yield(); /* more threads than cores: let the others reach the barrier */
  }
}

static void op_barrier(const kk_host_thread_t *th) { slot_barrier(th->backend); }

static void op_allreduce(const kk_host_thread_t *th, void *v, uint32_t size, void (*join)(void *, const void *)) {
  team_slot_t *s = th->backend;
  memcpy(s->values + (size_t)th->team_rank * KKH_TEAM_VALUE_MAX, v, size);
  slot_barrier(s);
  unsigned char acc[KKH_TEAM_VALUE_MAX] __attribute__((aligned(64)));
  memcpy(acc, s->values, size);
  for (int r = 1; r < th->team_size; r++)
    join(acc, s->values + (size_t)r * KKH_TEAM_VALUE_MAX);
  slot_barrier(s); /* everyone has read before the buffer is reused */
  memcpy(v, acc, size);
}

static void op_broadcast(const kk_host_thread_t *th, void *v, uint32_t size, int32_t root) {
  team_slot_t *s = th->backend;
  if (th->team_rank == root)
    memcpy(s->values, v, size);
  slot_barrier(s);
  if (th->team_rank != root)
    memcpy(v, s->values, size);
  slot_barrier(s);
}

static void op_exclusive_scan(const kk_host_thread_t *th, void *v, void *total, uint32_t size,
                              void (*join)(void *, const void *), void (*init)(void *)) {
  team_slot_t *s = th->backend;
  memcpy(s->values + (size_t)th->team_rank * KKH_TEAM_VALUE_MAX, v, size);
  slot_barrier(s);
  unsigned char acc[KKH_TEAM_VALUE_MAX] __attribute__((aligned(64)));
  init(acc);
  for (int r = 0; r < th->team_rank; r++)
    join(acc, s->values + (size_t)r * KKH_TEAM_VALUE_MAX);
  if (total) {
    unsigned char all[KKH_TEAM_VALUE_MAX] __attribute__((aligned(64)));
    memcpy(all, acc, size);
    for (int r = th->team_rank; r < th->team_size; r++)
      join(all, s->values + (size_t)r * KKH_TEAM_VALUE_MAX);
    memcpy(total, all, size);
  }
  slot_barrier(s);
  memcpy(v, acc, size);
}

static void op_scratch_overrun(const kk_host_thread_t *th, int32_t level, int32_t per_thread, uint64_t need,
                               uint64_t have) {
  struct kkh_team_cache *c = ((team_slot_t *)th->backend)->cache;
  int expected = 0;
  if (atomic_compare_exchange_strong(&c->failed, &expected, 1))
    snprintf(c->why, sizeof c->why,
             "%s scratch at level %d overrun: the kernel asked for %llu bytes %s, the launch requested %llu",
             per_thread ? "thread" : "team", level, (unsigned long long)need, per_thread ? "per thread" : "per team",
             (unsigned long long)have);
}

static const kk_host_team_ops_t team_ops = {
    .barrier = op_barrier,
    .allreduce = op_allreduce,
    .broadcast = op_broadcast,
    .exclusive_scan = op_exclusive_scan,
    .scratch_overrun = op_scratch_overrun,
};

/* Scratch sizes are rounded so that every region stays 64-byte aligned. */
static uint64_t round64(uint64_t n) { return (n + 63) & ~(uint64_t)63; }

/* Makes the cache big enough for `nslots` teams of `tsize` threads with the
 * launch's scratch; allocation happens only when a launch needs more than
 * any before it. */
kk_status_t kkh_team_cache_prepare(struct kkh_team_cache **pc, int nthreads, const kk_host_services_t *hs,
                                   const kk_launch_t *l, int nslots, int tsize) {
  struct kkh_team_cache *c = *pc;
  if (!c) {
    c = calloc(1, sizeof *c);
    if (!c)
      return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "team launch: out of memory");
    *pc = c;
  }
  /* The core refuses requests over the backend's scratch limits; a launch
   * that reaches here another way still must not wrap these sums. */
  uint64_t team_bytes, thread_bytes, per_slot, slots_bytes, threads_bytes, need;
  const uint64_t values = (uint64_t)tsize * KKH_TEAM_VALUE_MAX;
  if (l->scratch_team[0] > KKH_SCRATCH_L1_MAX || l->scratch_team[1] > KKH_SCRATCH_L1_MAX ||
      l->scratch_thread[0] > KKH_SCRATCH_L1_MAX || l->scratch_thread[1] > KKH_SCRATCH_L1_MAX ||
      __builtin_add_overflow(round64(l->scratch_team[0]), round64(l->scratch_team[1]), &team_bytes) ||
      __builtin_add_overflow(round64(l->scratch_thread[0]), round64(l->scratch_thread[1]), &thread_bytes) ||
      __builtin_add_overflow(team_bytes, round64(values), &per_slot) ||
      __builtin_mul_overflow((uint64_t)nslots, per_slot, &slots_bytes) ||
      __builtin_mul_overflow((uint64_t)nthreads, thread_bytes, &threads_bytes) ||
      __builtin_add_overflow(slots_bytes, threads_bytes, &need) || need > SIZE_MAX)
    return hs->error(hs->core, KK_ERROR_LIMIT, NULL, 0,
                     "team launch '%s': scratch of %llu + %llu bytes per team and %llu + %llu per thread exceeds "
                     "what a host backend allows (%llu bytes per level)",
                     l->label, (unsigned long long)l->scratch_team[0], (unsigned long long)l->scratch_team[1],
                     (unsigned long long)l->scratch_thread[0], (unsigned long long)l->scratch_thread[1],
                     (unsigned long long)KKH_SCRATCH_L1_MAX);
  if (need > c->bytes) {
    free(c->mem);
    c->mem = NULL;
    c->bytes = 0;
    if (posix_memalign((void **)&c->mem, 64, need ? need : 64) != 0)
      return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0,
                       "team launch '%s': no memory for %llu bytes of scratch", l->label, (unsigned long long)need);
    c->bytes = need;
  }
  if (c->nslots < nslots) {
    free(c->slots);
    c->slots = NULL;
    if (posix_memalign((void **)&c->slots, 64, sizeof *c->slots * (size_t)nslots) != 0)
      return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "team launch: out of memory");
    c->nslots = nslots;
  }
  if (c->nthreads < nthreads) {
    free(c->threads);
    c->threads = calloc((size_t)nthreads, sizeof *c->threads);
    if (!c->threads) {
      c->nthreads = 0;
      return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "team launch: out of memory");
    }
    c->nthreads = nthreads;
  }
  unsigned char *p = c->mem;
  for (int s = 0; s < nslots; s++) {
    team_slot_t *ts = &c->slots[s];
    atomic_init(&ts->arrived, 0);
    atomic_init(&ts->generation, 0);
    atomic_init(&ts->next_chunk, 0);
    ts->size = tsize;
    ts->cache = c;
    ts->values = p;
    p += round64(values);
  }
  for (int t = 0; t < nslots * tsize; t++) {
    int s = t / tsize;
    kk_host_thread_t *th = &c->threads[t];
    unsigned char *team_base = p + (size_t)s * team_bytes;
    unsigned char *thread_base = p + (size_t)nslots * team_bytes + (size_t)t * thread_bytes;
    th->thread_id = t;
    th->nthreads = nslots * tsize;
    th->team_rank = t % tsize;
    th->team_size = tsize;
    th->vector_length = l->vector_length;
    th->league_size = l->league_size;
    th->team_scratch[0] = team_base;
    th->team_scratch[1] = team_base + round64(l->scratch_team[0]);
    th->team_scratch_size[0] = l->scratch_team[0];
    th->team_scratch_size[1] = l->scratch_team[1];
    th->thread_scratch[0] = thread_base;
    th->thread_scratch[1] = thread_base + round64(l->scratch_thread[0]);
    th->thread_scratch_size[0] = l->scratch_thread[0];
    th->thread_scratch_size[1] = l->scratch_thread[1];
    th->ops = &team_ops;
    th->backend = &c->slots[s];
    th->bounds_slot = (int32_t)l->bounds_slot;
  }
  atomic_store(&c->failed, 0);
  c->why[0] = '\0';
  return KK_OK;
}

void kkh_team_cache_reset(struct kkh_team_cache *c) {
  for (int s = 0; s < c->nslots; s++) {
    atomic_store_explicit(&c->slots[s].arrived, 0, memory_order_relaxed);
    atomic_store_explicit(&c->slots[s].generation, 0, memory_order_relaxed);
    atomic_store_explicit(&c->slots[s].next_chunk, 0, memory_order_relaxed);
  }
  atomic_store(&c->failed, 0);
  c->why[0] = '\0';
}

void kkh_team_cache_free(struct kkh_team_cache *c) {
  if (!c)
    return;
  free(c->mem);
  free(c->slots);
  free(c->threads);
  free(c);
}

void kkh_exec_release(kkh_exec_t *ex) {
  if (!ex)
    return;
  kkh_team_cache_free(ex->teams);
  ex->teams = NULL;
  free(ex->big_slots);
  ex->big_slots = NULL;
  ex->big_size = 0;
}

int32_t kkh_team_size_max(const kkh_exec_t *ex) { return ex->nthreads; }

/* ---- the task of one launch ----------------------------------------------------------- */




/* Index arithmetic.  The core refuses every range, box and league whose
 * length does not fit in int64_t, so n = end - begin does; what follows
 * never computes a value beyond n (chunk c starts at c * chunk < n, and a
 * chunk's end is found as n - start > chunk, not start + chunk), so that a
 * range at either end of int64_t, or a chunk as large as INT64_MAX, wraps
 * nothing. */

/* ceil(n / d), for n >= 0 and d > 0 */
static inline int64_t div_up(int64_t n, int64_t d) { return n / d + (n % d != 0); }

/* [b, e) of chunk c of T, c < T->nchunks */
#define CHUNK_OF(T, c, b, e)                                                                     \
  do {                                                                                           \
    const int64_t o_ = (c) * (T)->chunk;                                                         \
    (b) = (T)->begin + o_;                                                                       \
    (e) = (T)->begin + ((T)->n - o_ > (T)->chunk ? o_ + (T)->chunk : (T)->n);                    \
  } while (0)

/* Calls `call(b, e)` for every chunk worker `w` of `nw` owns. */
#define FOR_MY_CHUNKS(T, w, nw, call)                                                            \
  do {                                                                                           \
    if ((T)->dynamic) {                                                                          \
      for (;;) {                                                                                 \
        int64_t c_ = atomic_fetch_add_explicit(&(T)->next, 1, memory_order_relaxed);             \
        if (c_ >= (T)->nchunks)                                                                  \
          break;                                                                                 \
        int64_t b_, e_;                                                                          \
        CHUNK_OF(T, c_, b_, e_);                                                                 \
        call(b_, e_);                                                                            \
      }                                                                                          \
    } else if ((T)->chunk == 0) {                                                                \
      int64_t b_, e_;                                                                            \
      kkh_block_of((T)->n, w, nw, &b_, &e_);                                                     \
      if (e_ > b_)                                                                               \
        call((T)->begin + b_, (T)->begin + e_);                                                  \
    } else {                                                                                     \
      for (int64_t c_ = w; c_ < (T)->nchunks; c_ += nw) {                                        \
        int64_t b_, e_;                                                                          \
        CHUNK_OF(T, c_, b_, e_);                                                                 \
        call(b_, e_);                                                                            \
      }                                                                                          \
    }                                                                                            \
  } while (0)


static void for_task(int tid, int nt, void *arg) {
  kkh_task_t *T = arg;
  const void *args = T->args;
  kk_host_thread_t th;
  kkh_thread_init(&th, tid, nt);
  th.bounds_slot = (int32_t)T->l->bounds_slot;
#define CALL_FOR(b, e) T->k->host_for(args, b, e, &th)
  FOR_MY_CHUNKS(T, tid, nt, CALL_FOR);
#undef CALL_FOR
}

static void reduce_task(int tid, int nt, void *arg) {
  kkh_task_t *T = arg;
  const void *args = T->args;
  kk_host_thread_t th;
  kkh_thread_init(&th, tid, nt);
  th.bounds_slot = (int32_t)T->l->bounds_slot;
  void *acc = T->slots + (size_t)tid * T->slot;
  T->red->init(acc);
#define CALL_RED(b, e) T->k->host_reduce(args, b, e, acc, &th)
  FOR_MY_CHUNKS(T, tid, nt, CALL_RED);
#undef CALL_RED
}

/* Scans always split the range into nt contiguous blocks in index order:
 * pass 1 leaves each block's total in its thread's slot, pass 2 (after a
 * barrier) scans each block again from the join of the totals before it. */
void kkh_scan_pass1(int tid, int nt, void *arg) {
  kkh_task_t *T = arg;
  kk_host_thread_t th;
  kkh_thread_init(&th, tid, nt);
  th.bounds_slot = (int32_t)T->l->bounds_slot;
  unsigned char *mine = T->slots + (size_t)tid * T->slot;
  int64_t b, e;
  kkh_block_of(T->n, tid, nt, &b, &e);
  T->red->init(mine);
  if (e > b)
    T->k->host_scan(T->args, T->begin + b, T->begin + e, mine, 0, &th);
}

void kkh_scan_pass2(int tid, int nt, void *arg) {
  kkh_task_t *T = arg;
  kk_host_thread_t th;
  kkh_thread_init(&th, tid, nt);
  th.bounds_slot = (int32_t)T->l->bounds_slot;
  int64_t b, e;
  kkh_block_of(T->n, tid, nt, &b, &e);
  /* My prefix, the join of the totals of every thread before me, lives in
   * slot nt + 1 + tid; after the second pass the last thread's is the total. */
  unsigned char *prefix = T->slots + (size_t)(nt + 1 + tid) * T->slot;
  T->red->init(prefix);
  for (int t = 0; t < tid; t++)
    T->red->join(prefix, T->slots + (size_t)t * T->slot);
  if (e > b)
    T->k->host_scan(T->args, T->begin + b, T->begin + e, prefix, 1, &th);
}

static void scan_task(int tid, int nt, void *arg) {
  kkh_task_t *T = arg;
  kkh_scan_pass1(tid, nt, arg);
  if (nt > 1)
    T->ex->barrier(T->ex, tid, nt);
  kkh_scan_pass2(tid, nt, arg);
}

/* One thread: a single pass with final set, as a sequential scan does; the
 * total is left where kkh_task_values reads it (slot 2 * used). */
void kkh_scan_single(int tid, int nt, void *arg) {
  (void)tid, (void)nt;
  kkh_task_t *T = arg;
  kk_host_thread_t th;
  kkh_thread_init(&th, 0, 1);
  th.bounds_slot = (int32_t)T->l->bounds_slot;
  unsigned char *acc = T->slots + (size_t)2 * T->slot;
  T->red->init(acc);
  T->k->host_scan(T->args, T->begin, T->begin + T->n, acc, 1, &th);
}

/* ext * c / parts for 0 <= c <= parts, without forming ext * c (ext may be
 * near INT64_MAX): with ext = q * parts + r, it is q * c + r * c / parts,
 * and r * c < parts^2 is small. */
static inline int64_t even_part(int64_t ext, int64_t c, int64_t parts) {
  return ext / parts * c + ext % parts * c / parts;
}

/* MDRange: the "range" is the tiles; tile index -> box, in the outer order. */
static void md_tile_box(const kkh_task_t *T, int64_t tile, int64_t *lo, int64_t *hi) {
  const kk_launch_t *l = T->l;
  for (int k = 0; k < T->rank; k++) {
    int d = T->outer_left ? k : T->rank - 1 - k; /* the fastest-varying tile dimension first */
    int64_t c = tile % T->ntile[d];
    tile /= T->ntile[d];
    if (T->even[d]) {
      /* ext * c / ntile spreads the longer parts evenly (kkh_block_of puts
       * them first, and the first threads would get all of them) */
      lo[d] = l->md_begin[d] + even_part(l->md_end[d] - l->md_begin[d], c, T->ntile[d]);
      hi[d] = l->md_begin[d] + even_part(l->md_end[d] - l->md_begin[d], c + 1, T->ntile[d]);
      continue;
    }
    lo[d] = l->md_begin[d] + c * T->tile[d];
    hi[d] = l->md_end[d] - lo[d] > T->tile[d] ? lo[d] + T->tile[d] : l->md_end[d];
  }
}

static void md_task(int tid, int nt, void *arg) {
  kkh_task_t *T = arg;
  const void *args = T->args;
  kk_host_thread_t th;
  kkh_thread_init(&th, tid, nt);
  th.bounds_slot = (int32_t)T->l->bounds_slot;
  void *acc = NULL;
  if (T->red) {
    acc = T->slots + (size_t)tid * T->slot;
    T->red->init(acc);
  }
  int64_t lo[KK_MD_MAX_RANK], hi[KK_MD_MAX_RANK];
#define CALL_MD(b, e)                                          \
  for (int64_t t_ = (b); t_ < (e); t_++) {                     \
    md_tile_box(T, t_, lo, hi);                                \
    T->k->host_md(args, lo, hi, T->inner_left, acc, &th);      \
  }
  FOR_MY_CHUNKS(T, tid, nt, CALL_MD);
#undef CALL_MD
}

/* Teams: thread tid is rank tid % team_size of team slot tid / team_size;
 * chunks of league ranks go to team slots. */
static void team_task(int tid, int nt, void *arg) {
  (void)nt;
  kkh_task_t *T = arg;
  const void *args = T->args;
  struct kkh_team_cache *c = T->cache;
  const kk_host_thread_t *th = &c->threads[tid];
  team_slot_t *slot = th->backend;
  const int w = tid / T->team_size, nw = T->nteams;
  void *acc = NULL;
  if (T->red) {
    acc = T->slots + (size_t)tid * T->slot;
    T->red->init(acc);
  }
  int stop = 0;
  if (T->dynamic && T->team_size > 1) {
    /* rank 0 takes the next chunk for the whole team */
    for (;;) {
      if (th->team_rank == 0)
        atomic_store_explicit(&slot->next_chunk, atomic_fetch_add_explicit(&T->next, 1, memory_order_relaxed),
                              memory_order_relaxed);
      slot_barrier(slot);
      int64_t c_ = atomic_load_explicit(&slot->next_chunk, memory_order_relaxed);
      slot_barrier(slot);
      if (c_ >= T->nchunks || stop)
        break;
      int64_t b, e;
      CHUNK_OF(T, c_, b, e);
      stop = T->k->host_team(args, b, e, acc, th);
    }
  } else {
#define CALL_TEAM(b, e)                                    \
  if (!stop && !atomic_load_explicit(&c->failed, memory_order_relaxed)) \
    stop = T->k->host_team(args, b, e, acc, th);
    FOR_MY_CHUNKS(T, w, nw, CALL_TEAM);
#undef CALL_TEAM
  }
}

unsigned char *kkh_slots_alloc(int nthreads) {
  void *p = NULL;
  if (posix_memalign(&p, 64, KKH_NSLOTS(nthreads) * KKH_SLOT_SIZE) != 0)
    return NULL;
  memset(p, 0, KKH_NSLOTS(nthreads) * KKH_SLOT_SIZE);
  return p;
}

/* Default MDRange tiles on the host: whole extents, split along the outer
 * dimensions only until there are a few tiles per thread, so that the
 * innermost loop runs long and vectorizes.  A split dimension is cut into
 * near-equal parts (their sizes differ by at most one), and the number of
 * parts is rounded up, where the extent allows, so that every thread gets the
 * same number of tiles: 200 rows on 16 threads become 64 parts of 3 or 4 rows,
 * 12 or 13 rows per thread as a static OpenMP loop gives, not 67 tiles of 3
 * of which some threads get five and others four. */
static void md_default_tiles(kkh_task_t *T, int nthreads) {
  const kk_launch_t *l = T->l;
  int64_t ntiles = 1;
  const int64_t want = 4 * (int64_t)nthreads;
  for (int k = 0; k < T->rank; k++) {
    int d = T->outer_left ? T->rank - 1 - k : k; /* outermost first */
    int64_t ext = l->md_end[d] - l->md_begin[d];
    T->even[d] = 0;
    if (l->md_tile[d] > 0) {
      T->tile[d] = l->md_tile[d];
    } else if (ntiles > 0 && ntiles < want && ext > 0) { /* (an empty dimension before: no tiles at all) */
      int64_t parts = (want + ntiles - 1) / ntiles;
      for (int64_t p = parts; p <= ext && p <= 2 * parts; p++)
        if (ntiles * p % nthreads == 0) {
          parts = p;
          break;
        }
      T->ntile[d] = parts < ext ? parts : ext;
      T->even[d] = 1; /* md_tile_box cuts it; tile[d] is not used */
    } else {
      T->tile[d] = ext > 0 ? ext : 1;
    }
    if (!T->even[d])
      T->ntile[d] = ext > 0 ? div_up(ext, T->tile[d]) : 0;
    /* (only compared with want, so it may saturate; an empty dimension
     * makes it 0 for good) */
    if (__builtin_mul_overflow(ntiles, T->ntile[d], &ntiles))
      ntiles = INT64_MAX;
  }
}

kk_status_t kkh_task_plan(kkh_task_t *T, const kk_host_services_t *hs, const kk_launch_t *l, int nt) {
  const kk_kernel_t *k = l->kernel;
  memset(T, 0, sizeof *T);
  T->l = l;
  T->k = k;
  T->args = l->args;
  T->red = k->reducer;
  T->slot = KKH_SLOT_SIZE;
  T->dynamic = l->schedule == KK_SCHEDULE_DYNAMIC;

  const void *fn = NULL;
  switch (l->kind) {
  case KK_KIND_FOR:
    fn = (const void *)k->host_for, T->task = for_task, T->red = NULL;
    break;
  case KK_KIND_REDUCE:
    fn = (const void *)k->host_reduce, T->task = reduce_task;
    break;
  case KK_KIND_SCAN:
    fn = (const void *)k->host_scan, T->task = scan_task;
    break;
  case KK_KIND_MD_FOR:
  case KK_KIND_MD_REDUCE:
    fn = (const void *)k->host_md, T->task = md_task;
    if (l->kind == KK_KIND_MD_FOR)
      T->red = NULL;
    break;
  case KK_KIND_TEAM_FOR:
  case KK_KIND_TEAM_REDUCE:
    fn = (const void *)k->host_team, T->task = team_task;
    if (l->kind == KK_KIND_TEAM_FOR)
      T->red = NULL;
    break;
  default:
    return hs->error(hs->core, KK_ERROR_UNSUPPORTED, NULL, 0, "kernel '%s': unknown kernel kind %u", k->name, l->kind);
  }
  if (!fn)
    return hs->error(hs->core, KK_ERROR_KERNEL_MISMATCH, NULL, 0,
                     "kernel '%s' has no host code (its kernel file was compiled without the host target)",
                     k->name);
  T->reduces = l->kind == KK_KIND_REDUCE || l->kind == KK_KIND_SCAN || l->kind == KK_KIND_MD_REDUCE ||
               l->kind == KK_KIND_TEAM_REDUCE;
  if (T->reduces && !T->red)
    return hs->error(hs->core, KK_ERROR_KERNEL_MISMATCH, NULL, 0, "kernel '%s' has no reducer", k->name);
  /* Values larger than a slot (big custom reducers) need larger slots. */
  if (T->reduces && T->red->value_size > KKH_SLOT_SIZE)
    T->slot = ((size_t)T->red->value_size + 63) & ~(size_t)63;

  /* the iteration space as a range of items: indices, tiles or league ranks */
  int used;
  if (l->kind == KK_KIND_MD_FOR || l->kind == KK_KIND_MD_REDUCE) {
    T->rank = l->rank;
    T->inner_left = l->iterate_inner == KK_ITERATE_LEFT;
    T->outer_left = l->iterate_outer == KK_ITERATE_LEFT;
    md_default_tiles(T, nt);
    /* no more tiles than points, whose number fits unless one dimension is
     * empty: then there are none */
    T->n = 1;
    for (int d = 0; d < T->rank; d++)
      if (T->ntile[d] == 0)
        T->n = 0;
    for (int d = 0; d < T->rank && T->n > 0; d++)
      T->n *= T->ntile[d];
    T->begin = 0;
    T->chunk = 0;
    T->dynamic = 0;
    T->nchunks = T->n;
    used = T->n < nt ? (int)T->n : nt;
  } else if (l->kind == KK_KIND_TEAM_FOR || l->kind == KK_KIND_TEAM_REDUCE) {
    T->team_size = l->team_size > 0 ? l->team_size : 1;
    if (T->team_size > nt)
      return hs->error(hs->core, KK_ERROR_LIMIT, NULL, 0, "team size %d exceeds the %d threads of this instance",
                       T->team_size, nt);
    T->begin = 0;
    T->n = l->league_size;
    T->chunk = l->chunk > 0 ? l->chunk : 0;
    if (T->dynamic && T->chunk == 0)
      T->chunk = 1;
    T->nchunks = T->chunk ? div_up(T->n, T->chunk) : T->n;
    int slots = nt / T->team_size;
    T->nteams = T->nchunks < slots ? (int)T->nchunks : slots;
    if (T->nteams < 1)
      T->nteams = 1;
    used = T->nteams * T->team_size;
  } else {
    T->begin = l->begin;
    T->n = l->end - l->begin;
    if (l->kind == KK_KIND_SCAN) {
      T->chunk = 0;
      T->nchunks = T->n;
    } else if (T->dynamic) {
      T->chunk = l->chunk > 0 ? l->chunk : div_up(T->n, (int64_t)nt * 16);
      if (T->chunk < 1)
        T->chunk = 1;
      T->nchunks = div_up(T->n, T->chunk);
    } else {
      T->chunk = l->chunk > 0 ? l->chunk : 0;
      T->nchunks = T->chunk ? div_up(T->n, T->chunk) : T->n;
    }
    used = T->nchunks < (int64_t)nt ? (int)T->nchunks : nt;
  }
  T->used = used < 1 ? 1 : used;
  if (l->kind == KK_KIND_SCAN && T->used == 1)
    T->task = kkh_scan_single;
  atomic_init(&T->next, 0);
  return KK_OK;
}

void kkh_task_values(kkh_task_t *T) {
  const kk_launch_t *l = T->l;
  if (!T->reduces || !l->result)
    return;
  if (T->n <= 0) {
    T->red->init(T->slots);
  } else if (l->kind == KK_KIND_SCAN) {
    memcpy(l->result, T->slots + (size_t)(2 * T->used) * T->slot, T->red->value_size);
    return;
  } else {
    /* join in thread order: deterministic for static schedules */
    for (int t = 1; t < T->used; t++)
      T->red->join(T->slots, T->slots + (size_t)t * T->slot);
  }
  memcpy(l->result, T->slots, T->red->value_size);
}

kk_status_t kkh_task_status(const kkh_task_t *T, const kk_host_services_t *hs) {
  if (T->cache && atomic_load(&T->cache->failed))
    return hs->error(hs->core, KK_ERROR_KERNEL_FAILED, NULL, 0, "kernel '%s': %s", T->k->name, T->cache->why);
  return KK_OK;
}

kk_status_t kkh_launch(kkh_exec_t *ex, const kk_host_services_t *hs, const kk_launch_t *l) {
  kkh_task_t T;
  kk_status_t st = kkh_task_plan(&T, hs, l, ex->nthreads);
  if (st != KK_OK)
    return st;
  T.ex = ex;
  T.slots = ex->slots;
  if (T.slot > KKH_SLOT_SIZE) {
    const size_t need = T.slot * KKH_NSLOTS(ex->nthreads);
    if (ex->big_size < need) {
      unsigned char *p = NULL;
      if (posix_memalign((void **)&p, 64, need) != 0)
        return hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0,
                         "kernel '%s': no memory for %zu partial values of %u bytes", l->kernel->name,
                         KKH_NSLOTS(ex->nthreads), T.red->value_size);
      free(ex->big_slots);
      ex->big_slots = p;
      ex->big_size = need;
    }
    T.slots = ex->big_slots;
  }
  if (T.nteams) {
    if ((st = kkh_team_cache_prepare(&ex->teams, ex->nthreads, hs, l, T.nteams, T.team_size)) != KK_OK)
      return st;
    T.cache = ex->teams;
  }
  if (T.n > 0) {
    if (T.used == 1)
      T.task(0, 1, &T); /* one chunk: no thread needs waking */
    else
      ex->parallel(ex, T.used, T.task, &T);
    st = kkh_task_status(&T, hs);
  }
  if (st == KK_OK)
    kkh_task_values(&T);
  return st;
}
