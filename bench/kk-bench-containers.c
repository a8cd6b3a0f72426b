/* bench/kk-bench-containers.c -- kk-containers beside hand-written C/OpenMP (host backends) and CUDA (cuda) in the same run: UnorderedMap inserts and finds, DualView syncs, UniqueToken acquire/release. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <kk/containers.h>
#include <kk/tools.h>

#include "bench_base.h"
#include "bench_containers.h"
#ifdef KK_BENCH_CUDA
#include "containers_native.h"
#endif

/*
 * Rows (each side: one untimed warm-up run, then the best of --reps timed
 * runs, both sides timed the same way -- the host clock around the launch
 * and the wait for it; on host backends the two sides take turns, run by
 * run, so that both see the same machine).  A row prints as soon as it is
 * measured.  --rows= picks them (umap, uset, dualview, token; default all):
 *   umap-insert   2^L random int64 keys (bc_key) with int64 values into an
 *                 UnorderedMap of capacity 2^L (2^(L+1) slots: load 0.5
 *                 when full); native: the same open-addressing table with
 *                 the same probing (hash, home slot, linear steps into a
 *                 tail past the home slots) and the
 *                 same contract (a claimed slot is published with its
 *                 value), written in plain C/OpenMP or CUDA.  Mops/s.
 *   umap-find     every key found again, its value read.  Mops/s.
 *   uset-insert   the same keys into a set (no values: the key word itself
 *                 is claimed, as the leanest hand-written table does).
 *   dualview-sync a device-modified DualView of 2^L doubles synced to the
 *                 host, per sync; native: the copy a two-array program
 *                 makes (memcpy on host backends, cudaMemcpy on cuda).  us.
 *   dualview-bytes  the bytes that sync moved, counted by a tool's deep-copy
 *                 events (0 where the DualView is one allocation); native:
 *                 the bytes of the array.
 *   token         acquire + release of a global UniqueToken (the backend's
 *                 concurrency) around a row update, 2^T times (--token-log2,
 *                 default min(L, 20): a free list every thread goes through
 *                 serializes them); native: a free list of as many ids (a
 *                 stack with a tagged head and compare-and-swap), the same
 *                 update, the same count.  Mops/s.
 *   token-instance  the same with an instance-scope token (host threads
 *                 take their own number: no atomics).
 * A row stops repeating once it has spent --budget seconds (default 5) and
 * each side has one timed run; both sides then have had as many.  The map
 * rows on host backends run in two rounds of half the budget, kk's map
 * allocated first in one and second in the other.
 * Results are checked (every key found with its value, the same size and
 * sums on both sides); a mismatch is reported and the exit status is 1.
 * Timing never decides the exit status.
 */

const char bench_program[] = "kk-bench-containers";

static int g_log2 = 20, g_token_log2 = -1, g_reps = 5, g_bad, g_on_cuda, g_nrows;
static double g_budget = 5.0;

/* One row of the table, printed (and flushed) as soon as it is measured, so
 * that a run cut short by a time limit still shows what it measured. */
static void add_row(const char *kcase, const char *backend, int log2n, double kk, double native, const char *unit) {
  char size[16];
  snprintf(size, sizeof size, "2^%d", log2n);
  printf("%-15s %-8s %-6s %12.3f %12.3f %-7s %9.3f\n", kcase, backend, size, kk, native, unit,
         native > 0 ? kk / native : 0.0);
  fflush(stdout);
  g_nrows++;
}

static void mismatch(const char *what) {
  fprintf(stderr, "kk-bench-containers: MISMATCH: %s\n", what);
  g_bad = 1;
}

/* ---- the hand-written host table: kk's probing and contract in plain C/OpenMP ------------- */

#define EMPTY (~(uint64_t)0)
#define BUSY (~(uint64_t)0 - 1u)

static inline uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdu;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53u;
  h ^= h >> 33;
  return h;
}
static inline uint64_t home(uint64_t h, uint64_t n) { return ((h >> 32) * n) >> 32; }

static void native_clear(uint64_t *tk, int64_t *tv, uint64_t slots, int nt) {
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t s = 0; s < (int64_t)slots; s++) {
    tk[s] = EMPTY;
    tv[s] = 0;
  }
}

/* `hashed` home slots, and a tail past them that probes run into (no wrapping around) */
static void native_insert(uint64_t *tk, int64_t *tv, uint64_t hashed, const uint64_t *keys, int64_t n, int set, int nt) {
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const uint64_t k = keys[i];
    uint64_t s = home(mix(k), hashed);
    for (;;) {
      const uint64_t cur = __atomic_load_n(&tk[s], __ATOMIC_RELAXED);
      if (cur == k)
        break;
      if (cur == EMPTY) {
        uint64_t e = EMPTY;
        if (__atomic_compare_exchange_n(&tk[s], &e, set ? k : BUSY, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
          if (!set) {
            tv[s] = i;
            __atomic_store_n(&tk[s], k, __ATOMIC_RELEASE);
          }
          break;
        }
        if (e == k)
          break;
        continue;
      }
      if (cur != BUSY)
        s++;
    }
  }
}

static void native_find(const uint64_t *tk, const int64_t *tv, uint64_t hashed, const uint64_t *keys, int64_t n,
                        int64_t *out, int nt) {
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const uint64_t k = keys[i];
    uint64_t s = home(mix(k), hashed);
    int64_t v = -1;
    for (;;) {
      const uint64_t cur = __atomic_load_n(&tk[s], __ATOMIC_RELAXED);
      if (cur == k) {
        v = tv[s];
        break;
      }
      if (cur == EMPTY)
        break;
      s++;
    }
    out[i] = v;
  }
}

/* ---- the hand-written free list of ids: a stack with a tagged head ------------------------------ */

typedef struct freelist {
  _Alignas(64) _Atomic uint64_t head; /* tag << 32 | (top id + 1); 0: empty */
  int32_t *next;                      /* next[id]: the id below it + 1 */
  int64_t *rows;
} freelist_t;

static void list_init(freelist_t *l, int32_t ids) {
  for (int32_t i = 0; i < ids; i++)
    l->next[i] = i;
  atomic_store(&l->head, (uint64_t)ids);
}

static void list_use(freelist_t *l, int64_t n, int nt) {
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; i++) {
    uint64_t h = atomic_load_explicit(&l->head, memory_order_acquire);
    int32_t id;
    for (;;) { /* pop */
      const uint32_t top = (uint32_t)h;
      if (!top) {
        h = atomic_load_explicit(&l->head, memory_order_acquire);
        continue;
      }
      const uint64_t nh = ((h >> 32) + 1) << 32 | (uint32_t)__atomic_load_n(&l->next[top - 1], __ATOMIC_RELAXED);
      if (atomic_compare_exchange_weak_explicit(&l->head, &h, nh, memory_order_acquire, memory_order_acquire)) {
        id = (int32_t)top - 1;
        break;
      }
    }
    l->rows[8 * (int64_t)id] += 1;
    h = atomic_load_explicit(&l->head, memory_order_relaxed);
    for (;;) { /* push */
      __atomic_store_n(&l->next[id], (int32_t)(uint32_t)h, __ATOMIC_RELAXED);
      const uint64_t nh = ((h >> 32) + 1) << 32 | (uint32_t)(id + 1);
      if (atomic_compare_exchange_weak_explicit(&l->head, &h, nh, memory_order_release, memory_order_relaxed))
        break;
    }
  }
}

/* ---- the cases ------------------------------------------------------------------------------- */

/* Before every timed run on a host backend: at least 20 ms, then until the
 * other side's idle threads (libgomp's spin for some milliseconds after a
 * region) sleep, at most 500 ms -- so that neither side shares the cores
 * with the other's.  Nothing on a device backend, whose host threads (the
 * vendor runtime's) do not share cores with the kernels. */
static void settle(int host) {
  if (host)
    bench_rest(20, 500);
}

static kk_unordered_map_t *bench_map(int set) {
  kk_unordered_map_spec_t s = KK_UNORDERED_MAP_SPEC_INIT;
  s.label = set ? "bench_set" : "bench_map";
  s.key_type = KK_INT64;
  s.value_type = set ? KK_TYPE_CUSTOM : KK_INT64;
  s.capacity = (uint64_t)1 << g_log2;
  kk_unordered_map_t *m = NULL;
  CHECK(kk_unordered_map_create(&s, &m));
  return m;
}

static double best(double a, double b) { return a < b ? a : b; }

/* The runs of one row: r = -1 is the warm-up, then up to g_reps timed runs,
 * the two sides taking turns (the one that goes first alternates); the row
 * stops early once it has spent `budget` seconds and has a timed run. */
#define ROW_RUNS_IN(r, t_row, budget) for (int r = -1; r < g_reps && !(r >= 1 && bench_now() - (t_row) > (budget)); r++)
#define ROW_RUNS(r, t_row) ROW_RUNS_IN(r, t_row, g_budget)

/* The map rows.  On host backends in two rounds, kk's map allocated before
 * the hand-written table in one and after it in the other, each side keeping
 * its best over both: on a VM a loop can run faster on memory allocated after
 * another set than before it (docs/benchmarks.md), and neither side should
 * always have the same place. */
static void bench_map_case(const char *backend, int host, int set, kk_view_t *keys, kk_view_t *out,
                           const uint64_t *hkeys) {
  const int64_t n = (int64_t)1 << g_log2;
  const uint64_t hashed = 2 * (uint64_t)n, slots = hashed + 1024; /* kk's layout: a probe tail past the home slots */
  const int nt = kk_num_threads(), rounds = host ? 2 : 1;
  double ki = 1e30, kf = 1e30, ni = 1e30, nf = 1e30;
  for (int round = 0; round < rounds; round++) {
    kk_unordered_map_t *m = round == 0 ? bench_map(set) : NULL;
    uint64_t *tk = NULL;
    int64_t *tv = NULL, *nout = NULL;
    if (host) {
      tk = malloc(slots * sizeof *tk);
      tv = malloc(slots * sizeof *tv);
      nout = malloc((size_t)n * sizeof *nout);
      if (!tk || !tv || !nout) {
        fprintf(stderr, "kk-bench-containers: out of memory for 2^%d keys\n", g_log2);
        exit(1);
      }
    }
    if (!m)
      m = bench_map(set);
    struct bc_map_args a = {kk_unordered_map_bind(m), kk_view_bind(keys), kk_view_bind(out)};
    const double t_row = bench_now();
    ROW_RUNS_IN(r, t_row, g_budget / rounds)
    for (int side = 0; side < 2; side++) {
      const int native = (r & 1) ^ side;
      if (native && !host)
        continue;
      double t0, t1, t2;
      if (native) {
        native_clear(tk, tv, slots, nt);
        settle(host);
        t0 = bench_now();
        native_insert(tk, tv, hashed, hkeys, n, set, nt);
        t1 = bench_now();
        if (!set)
          native_find(tk, tv, hashed, hkeys, n, nout, nt);
        t2 = bench_now();
      } else {
        CHECK(kk_unordered_map_clear(m));
        CHECK(kk_fence());
        settle(host);
        t0 = bench_now();
        CHECK(kk_parallel_for("umap insert", KK_RANGE(0, n),
                              set ? KK_KERNEL(bc_set_insert) : KK_KERNEL(bc_map_insert), KK_ARGS(a)));
        CHECK(kk_fence());
        t1 = bench_now();
        if (!set) {
          CHECK(kk_parallel_for("umap find", KK_RANGE(0, n), KK_KERNEL(bc_map_find), KK_ARGS(a)));
          CHECK(kk_fence());
        }
        t2 = bench_now();
      }
      if (r < 0)
        continue; /* the warm-up */
      if (native) {
        ni = best(ni, t1 - t0);
        nf = best(nf, t2 - t1);
      } else {
        ki = best(ki, t1 - t0);
        kf = best(kf, t2 - t1);
      }
    }
    /* the results: every key in the map, found with its value */
    uint64_t size = 0, failed = 0;
    CHECK(kk_unordered_map_size(m, &size));
    CHECK(kk_unordered_map_failed_inserts(m, &failed));
    if (size != (uint64_t)n || failed)
      mismatch(set ? "the kk set lost keys" : "the kk map lost keys");
    if (!set) {
      int64_t *ko = malloc((size_t)n * sizeof *ko);
      if (!ko) {
        fprintf(stderr, "kk-bench-containers: out of memory for 2^%d results\n", g_log2);
        exit(1);
      }
      CHECK(kk_space_copy(NULL, ko, kk_view_space(out), kk_view_data(out), (size_t)n * sizeof *ko, NULL));
      int64_t wrong = 0;
#pragma omp parallel for num_threads(nt) reduction(+ : wrong)
      for (int64_t i = 0; i < n; i++)
        wrong += ko[i] != i || (host && nout[i] != i);
      if (wrong)
        mismatch("a find returned the wrong value");
      free(ko);
    }
    free(tk);
    free(tv);
    free(nout);
    kk_unordered_map_release(m);
  }
#ifdef KK_BENCH_CUDA
  if (!host && g_on_cuda) {
    uint64_t sum = 0, nsize = 0;
    if (kkbc_cuda_map(g_log2, set, g_reps, g_budget, &ni, &nf, &sum, &nsize) != 0)
      ni = nf = 0;
    else if (nsize != (uint64_t)n || (!set && sum != (uint64_t)n * (uint64_t)(n - 1) / 2))
      mismatch("the native CUDA table lost keys");
  }
#endif
  const double mops = (double)n * 1e-6;
  add_row(set ? "uset-insert" : "umap-insert", backend, g_log2, mops / ki, ni > 0 && ni < 1e30 ? mops / ni : 0,
          "Mops/s");
  if (!set)
    add_row("umap-find", backend, g_log2, mops / kf, nf > 0 && nf < 1e30 ? mops / nf : 0, "Mops/s");
}

static uint64_t g_bytes;
static void count_copy(struct Kokkos_Profiling_SpaceHandle ds, const char *dl, const void *dp,
                       struct Kokkos_Profiling_SpaceHandle ss, const char *sl, const void *sp, uint64_t n) {
  (void)ds, (void)dl, (void)dp, (void)ss, (void)sl, (void)sp;
  g_bytes += n;
}

static void bench_dualview(const char *backend, int host) {
  const int64_t n = (int64_t)1 << g_log2;
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = "bench_dualview";
  s.rank = 1;
  s.extents[0] = n;
  kk_dualview_t *dv = NULL;
  CHECK(kk_dualview_create(&s, &dv));
  /* the bytes one sync moves, as a tool sees them */
  Kokkos_Profiling_EventSet set;
  memset(&set, 0, sizeof set);
  set.begin_deep_copy = count_copy;
  kk_tools_set_callbacks(&set);
  g_bytes = 0;
  CHECK(kk_dualview_modify_device(dv));
  CHECK(kk_dualview_sync_host(dv));
  kk_tools_set_callbacks(NULL);
  const uint64_t moved = g_bytes, bytes = (uint64_t)n * sizeof(double);
  double tk = 1e30, tn = 1e30;
  double *a = host ? malloc(bytes) : NULL, *b = host ? malloc(bytes) : NULL;
  if (host && (!a || !b)) {
    fprintf(stderr, "kk-bench-containers: out of memory for 2^%d doubles\n", g_log2);
    exit(1);
  }
  if (host) {
    memset(a, 1, bytes);
    memset(b, 0, bytes);
  }
  /* syncs per timed run: 20 of small arrays (a sync that moves nothing
   * costs well under a microsecond), one of 2^24 doubles and more */
  const int inner = g_log2 >= 24 ? 1 : (1 << (24 - g_log2)) < 20 ? (1 << (24 - g_log2)) : 20;
  const double t_row = bench_now();
  ROW_RUNS(r, t_row)
  for (int side = 0; side < 2; side++) {
    const int native = (r & 1) ^ side;
    if (native && !host)
      continue;
    settle(host);
    double t0 = bench_now();
    for (int k = 0; k < inner; k++) {
      if (native) {
        memcpy(b, a, bytes);
        a[k] = (double)k; /* the "device" side changes between syncs */
      } else {
        CHECK(kk_dualview_modify_device(dv));
        CHECK(kk_dualview_sync_host(dv));
      }
    }
    double t = (bench_now() - t0) / inner;
    if (r < 0)
      continue;
    if (native)
      tn = best(tn, t);
    else
      tk = best(tk, t);
  }
#ifdef KK_BENCH_CUDA
  if (!host && g_on_cuda && kkbc_cuda_copy(bytes, g_reps, g_budget, &tn) != 0)
    tn = 0;
#endif
  if (host && (moved != 0) != !kk_dualview_is_single(dv))
    mismatch("a DualView on a host backend moved bytes");
  add_row("dualview-sync", backend, g_log2, tk * 1e6, tn < 1e30 ? tn * 1e6 : 0, "us");
  add_row("dualview-bytes", backend, g_log2, (double)moved, (double)bytes, "bytes");
  free(a);
  free(b);
  kk_dualview_release(dv);
}

static void bench_token(const char *backend, int host) {
  const int tlog2 = g_token_log2 >= 0 ? g_token_log2 : g_log2 < 20 ? g_log2 : 20;
  const int64_t n = (int64_t)1 << tlog2;
  const int nt = kk_num_threads();
  for (int scope = 0; scope < 2; scope++) {
    kk_unique_token_t *t = NULL;
    CHECK(kk_unique_token_create(NULL, scope ? KK_UNIQUE_TOKEN_INSTANCE : KK_UNIQUE_TOKEN_GLOBAL, 0, &t));
    const int32_t ids = kk_unique_token_size(t);
    kk_view_spec_t s = KK_VIEW_SPEC_INIT;
    s.label = "token_rows";
    s.type = KK_INT64;
    s.rank = 2;
    s.extents[0] = ids;
    s.extents[1] = 8;
    s.layout = KK_LAYOUT_RIGHT;
    kk_view_t *rows = NULL;
    CHECK(kk_view_create(&s, &rows));
    struct bc_token_args a = {kk_unique_token_bind(t), kk_view_bind_right(rows)};
    freelist_t l;
    l.next = host ? malloc((size_t)ids * sizeof *l.next) : NULL;
    l.rows = host ? calloc((size_t)ids * 8, sizeof *l.rows) : NULL;
    if (host && (!l.next || !l.rows)) {
      fprintf(stderr, "kk-bench-containers: out of memory for %d ids\n", (int)ids);
      exit(1);
    }
    double tk = 1e30, tn = 1e30;
    int64_t runs = 0, nruns = 0;
    const double t_row = bench_now();
    ROW_RUNS(r, t_row)
    for (int side = 0; side < 2; side++) {
      const int native = (r & 1) ^ side;
      if (native && !host)
        continue;
      if (native)
        list_init(&l, ids);
      settle(host);
      double t0 = bench_now();
      if (native) {
        list_use(&l, n, nt);
        nruns++;
      } else {
        CHECK(kk_parallel_for("token", KK_RANGE(0, n), KK_KERNEL(bc_token), KK_ARGS(a)));
        CHECK(kk_fence());
        runs++;
      }
      double dt = bench_now() - t0;
      if (r < 0)
        continue;
      if (native)
        tn = best(tn, dt);
      else
        tk = best(tk, dt);
    }
    /* every op's update is in the rows, and every id is free again */
    kk_view_t *m = NULL;
    CHECK(kk_view_create_mirror(rows, &m));
    CHECK(kk_deep_copy(m, rows));
    int64_t total = 0, ntotal = 0;
    for (int64_t i = 0; i < (int64_t)ids * 8; i++) {
      total += ((int64_t *)kk_view_data(m))[i];
      if (host)
        ntotal += l.rows[i];
    }
    int32_t held = -1;
    CHECK(kk_unique_token_held(t, &held));
    if (total != n * runs || held != 0 || (host && ntotal != n * nruns))
      mismatch("a UniqueToken lost an update or an id");
#ifdef KK_BENCH_CUDA
    /* the free list does not know scopes: measured once for both rows when
     * the two tokens have as many ids (the backend's concurrency) */
    static double cuda_list_s;
    static int32_t cuda_list_ids;
    if (!host && g_on_cuda) {
      if (scope && cuda_list_ids == ids)
        tn = cuda_list_s;
      else if (kkbc_cuda_token(n, ids, g_reps, g_budget, &tn) != 0)
        tn = 0;
      cuda_list_s = tn, cuda_list_ids = ids;
    }
#endif
    add_row(scope ? "token-instance" : "token", backend, tlog2, (double)n * 1e-6 / tk,
            tn > 0 && tn < 1e30 ? (double)n * 1e-6 / tn : 0, "Mops/s");
    kk_view_release(m);
    kk_view_release(rows);
    free(l.next);
    free(l.rows);
    kk_unique_token_destroy(t);
  }
}

enum { ROW_UMAP = 1, ROW_USET = 2, ROW_DUALVIEW = 4, ROW_TOKEN = 8, ROW_ALL = 15 };

static void bench_backend(const char *backend, int rows) {
  const int host = kk_space_host_accessible(kk_space_default());
  g_on_cuda = strcmp(backend, "cuda") == 0;
#ifdef KK_BENCH_CUDA
  if (!host && strcmp(backend, "cuda") != 0)
    fprintf(stderr, "kk-bench-containers: no hand-written version for %s: native columns 0\n", backend);
#else
  if (!host)
    fprintf(stderr, "kk-bench-containers: no hand-written version for %s in this build: native columns 0\n", backend);
#endif
  const int64_t n = (int64_t)1 << g_log2;
  if (rows & (ROW_UMAP | ROW_USET)) {
    kk_view_t *keys = NULL, *out = NULL;
    CHECK(kk_view_alloc(&keys, "keys", KK_INT64, 1, &n));
    CHECK(kk_view_alloc(&out, "found", KK_INT64, 1, &n));
    struct bc_map_args k;
    memset(&k, 0, sizeof k);
    k.keys = kk_view_bind(keys);
    CHECK(kk_parallel_for("keys", KK_RANGE(0, n), KK_KERNEL(bc_keys), KK_ARGS(k)));
    CHECK(kk_fence());
    /* the hand-written host side makes its own copy of the same keys */
    uint64_t *hkeys = NULL;
    if (host) {
      const int nt = kk_num_threads();
      if (!(hkeys = malloc((size_t)n * sizeof *hkeys))) {
        fprintf(stderr, "kk-bench-containers: out of memory for 2^%d keys\n", g_log2);
        exit(1);
      }
#pragma omp parallel for num_threads(nt) schedule(static)
      for (int64_t i = 0; i < n; i++)
        hkeys[i] = bc_key((uint64_t)i);
    }
    if (rows & ROW_UMAP)
      bench_map_case(backend, host, 0, keys, out, hkeys);
    if (rows & ROW_USET)
      bench_map_case(backend, host, 1, keys, out, hkeys);
    free(hkeys);
    kk_view_release(keys);
    kk_view_release(out);
  }
  if (rows & ROW_DUALVIEW)
    bench_dualview(backend, host);
  if (rows & ROW_TOKEN)
    bench_token(backend, host);
}

static void usage(void) {
  fprintf(stderr,
          "usage: kk-bench-containers [--backends=serial,threads,openmp,cuda,...] [--rows=all|umap,uset,dualview,token]\n"
          "                           [--log2=L (default 20; the published figures: 26)] [--token-log2=T (default min(L, 20))]\n"
          "                           [--reps=N (default 5)] [--budget=S (seconds per row, default 5)] [--kokkos-...]\n");
}

/* The rows named in a comma-separated list, or 0 for a name not known. */
static int parse_rows(const char *list) {
  static const struct {
    const char *name;
    int bit;
  } names[] = {{"all", ROW_ALL}, {"umap", ROW_UMAP}, {"uset", ROW_USET}, {"dualview", ROW_DUALVIEW}, {"token", ROW_TOKEN}};
  int rows = 0;
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    int bit = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (strlen(names[i].name) == len && strncmp(p, names[i].name, len) == 0)
        bit = names[i].bit;
    if (!bit)
      return 0;
    rows |= bit;
    p += len + (p[len] == ',');
  }
  return rows;
}

/* --rows= / --cases=: the rows' bits into *to, or a message and 0 for a name not known. */
static int take_rows(const char *arg, const char *value, void *to) {
  if (!(*(int *)to = parse_rows(value))) {
    fprintf(stderr, "kk-bench-containers: unknown row in %s\n", arg);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  const char *backends = "serial,threads,openmp";
  int rows = ROW_ALL;
  const bench_option_t options[] = {
      BENCH_OPT_STRING("--backends=", &backends),
      BENCH_OPT_PARSE("--rows=", &rows, take_rows),
      BENCH_OPT_PARSE("--cases=", &rows, take_rows),
      BENCH_OPT_INT("--log2=", &g_log2, BENCH_RANGE, 4, 30),
      BENCH_OPT_INT("--token-log2=", &g_token_log2, BENCH_RANGE, 4, 30),
      BENCH_OPT_INT("--reps=", &g_reps, BENCH_ABOVE, 0, 0),
      BENCH_OPT_DOUBLE("--budget=", &g_budget, BENCH_ABOVE, 0, 0),
      {0},
  };
  if (!bench_options(argc, argv, options, 1)) { /* --kokkos-* are read by kk_initialize_ex below */
    usage();
    return 2;
  }
  printf("%-15s %-8s %-6s %12s %12s %-7s %9s\n", "case", "backend", "size", "kk", "native", "unit", "kk/native");
  fflush(stdout);
  char *blist = strdup(backends);
  for (char *save = NULL, *b = strtok_r(blist, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
    if (!bench_init_backend(b, argc, argv))
      continue;
    fprintf(stderr, "kk-bench-containers: backend %s, %d host thread%s\n", b, kk_num_threads(),
            kk_num_threads() == 1 ? "" : "s");
    bench_backend(b, rows);
    kk_finalize();
  }
  free(blist);
  return g_bad ? 1 : g_nrows ? 0 : 1;
}
