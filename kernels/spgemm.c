/* kernels/spgemm.c -- SpGEMM (C = A B and the Jacobi-fused C = (I - w D^-1 A) B) and SpAdd (C = a A + b B), each a symbolic and a numeric phase over a handle. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparse_ops_internal.h"

static const kk_kernel_t *const k_fill[4] = KKK_K4(sg_fill), *const k_fill_team[4] = KKK_K4(sg_fill_team);
static const kk_kernel_t *const k_merge[4] = KKK_K4(sa_fill);
static const kk_kernel_t *const k_fill_dense[4] = KKK_K4(sg_fill_dense);
static const kk_kernel_t *const k_compact[4] = KKK_K4(sg_compact);

/* Host backends' dense accumulator: C's columns at most (an int32 a column
 * in each thread's level-1 scratch: 16 MiB a thread at the limit). */
#define DENSE_MAX_COLS ((int64_t)1 << 22)

/* GPUs: the bins' kernels run side by side on the caller's instance and up
 * to SIDE_QUEUES more of its backend (launch_bins). */
#define SIDE_QUEUES 7

enum { KIND_PRODUCT = 0, KIND_JACOBI = 1, KIND_ADD = 2 };
static const char *const kind_name[] = {"kk_sparse_spgemm_symbolic", "kk_sparse_spgemm_symbolic (KK_SPGEMM_JACOBI)",
                                        "kk_sparse_spadd_symbolic"};

struct kk_spgemm_handle {
  int kind, flags;
  kk_type_t type;
  kk_space_t *space;
  int64_t m, n, k;           /* C is m x n; A's columns k */
  int64_t annz, bnnz, nnz;   /* the inputs' entries the symbolic phase saw; C's */
  kk_view_t *crp;            /* C's row offsets (m + 1, in space): every C of the numeric phase shares them */
  kk_view_t *tsz, *gofs;     /* per row: table slots, global offset or -1 */
  kk_view_t *gkeys, *gvals;  /* the numeric phase's global tables (made by its first call) */
  int64_t gtotal;
  int64_t cap, cap_sym, rows_per_team;
  int32_t team_size;
  int32_t vlen;              /* GPUs: lanes per team thread of the team bins (from B's average row) */
  int host;
  kk_view_t *list, *bcnt;    /* GPUs: the rows by bin (the numeric phase's after the symbolic phase), bin counts */
  int64_t boff[KKK_SG_NBIN + 1]; /* GPUs: where the numeric phase's bins start in list */
  int merge;                 /* SpAdd of sorted rows: C's rows merged from A's and B's (no tables) */
  int dense;                 /* host: a dense accumulator per thread (no tables) */
  kk_view_t *work;           /* dense: per row, the work of the rows before it */
  int64_t wtotal, chunks;    /* dense: the work in all; chunks of rows a launch */
  const kk_crs_t *made;      /* the C the numeric phase made */
  struct sg_res *res;        /* the bins' other queues, the one pass's workspace (res_take; NULL until needed) */
};

/* ---- what a call keeps for later calls (KK_SPGEMM_CACHE) ------------------------------ */

/* What a handle borrows for its launches: the bins' side queues (GPUs),
 * on cuda and hip a home queue that orders the workspace between calls
 * (it waits, on the device, for the end of the last call that used it),
 * and the one-pass product's workspace: one view, its bins' counts first
 * (kept zero between calls: bin_rows counts them back down), grown when a
 * call needs more.  With KK_SPGEMM_CACHE=yes a handle takes one from a
 * few process-wide slots and gives it back when it goes, so that later
 * calls on the same backend reuse its queues and workspace; otherwise a
 * handle makes its own and ends it (the earlier behaviour).  A taken
 * entry belongs to one handle, so concurrent callers never share one (a
 * caller that finds the slots empty makes its own).  A finalize hook
 * (kk_push_finalize_hook, pushed when the first entry goes into a slot)
 * ends the slots' entries at kk_finalize, before kk looks for views and
 * instances still held; an entry from an earlier initialization (one the
 * hook could not be pushed for is never put in a slot) is freed by the
 * first call that finds it. */
#define RES_SLOTS 4
typedef struct sg_res {
  uint64_t init;                    /* kk_initialization_id() when made */
  char backend[32];
  int cached;                       /* from the slots (goes back there) */
  kk_instance_t *side[SIDE_QUEUES]; /* GPUs: the bins' other queues (made at the first launch that needs them) */
  int nside;
  kk_instance_t *home;              /* cuda, hip, cached: orders the workspace between calls */
  int home_used;                    /* home waits for the last call that used the workspace */
  kk_view_t *ws;                    /* the workspace (int64 elements, in space wsp), ws_bytes long */
  kk_space_t *wsp;
  int64_t ws_bytes, want;           /* want: the bytes the last call would have used */
} sg_res_t;

static _Atomic(sg_res_t *) res_slots[RES_SLOTS];

/* A setting of two values, read at each call: 1 for `on`, 0 for `off`,
 * `dflt` when unset or empty; *st an error for another value. */
static int two_way(const char *op, const char *var, const char *on, const char *off, int dflt, kk_status_t *st) {
  const char *env = getenv(var);
  *st = KK_OK;
  if (!env || !*env)
    return dflt;
  if (strcmp(env, on) == 0 || strcmp(env, off) == 0)
    return strcmp(env, on) == 0;
  *st = kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: %s is '%s'; it takes %s or %s", op, var, env, on, off);
  return dflt;
}

/* KK_SPGEMM_CACHE=yes|no (yes, the default; no: each handle and each
 * kk_sparse_spgemm makes its own queues and temporaries).  1 yes, 0 no;
 * *st an error for another setting. */
static int cache_setting(const char *op, kk_status_t *st) {
  return two_way(op, "KK_SPGEMM_CACHE", "yes", "no", 1, st);
}

static int is_gpu(const char *be) { return be && (strcmp(be, "cuda") == 0 || strcmp(be, "hip") == 0); }

/* Ends r: the queues (each fenced first: home's fence waits for the last
 * call that used the workspace), then the workspace.  Of an entry from
 * before kk_finalize only the records are left to free. */
static void res_free(sg_res_t *r) {
  if (!r)
    return;
  if (r->home)
    kk_instance_destroy(r->home);
  for (int i = 0; i < r->nside; i++)
    kk_instance_destroy(r->side[i]);
  kk_view_release(r->ws);
  free(r);
}

/* Drops r's workspace once no call uses it. */
static void ws_drop(sg_res_t *r) {
  if (r->home_used)
    kk_instance_fence(r->home);
  r->home_used = 0;
  kk_view_release(r->ws);
  r->ws = NULL;
  r->ws_bytes = 0;
}

/* The initialization whose kk_finalize ends the slots' entries (a hook
 * pushed at the first entry put in a slot), 0 when none. */
static _Atomic uint64_t res_hook_init;

/* The finalize hook: ends every entry in the slots while kk still runs. */
static void res_drain(void *arg) {
  (void)arg;
  for (int i = 0; i < RES_SLOTS; i++)
    res_free(atomic_exchange(&res_slots[i], NULL));
}

/* 1 when this initialization's kk_finalize will end the slots' entries
 * (the hook pushed now if it was not), else 0. */
static int res_hooked(uint64_t id) {
  uint64_t seen = atomic_load(&res_hook_init);
  if (seen == id)
    return 1;
  if (!atomic_compare_exchange_strong(&res_hook_init, &seen, id))
    return seen == id;
  if (kk_push_finalize_hook(res_drain, NULL) == KK_OK)
    return 1;
  atomic_store(&res_hook_init, 0);
  return 0;
}

/* Puts r in a free slot (cached and of this initialization), else ends it. */
static void res_give(sg_res_t *r) {
  if (!r)
    return;
  if (r->cached && r->init == kk_initialization_id() && res_hooked(r->init))
    for (int i = 0; i < RES_SLOTS; i++) {
      sg_res_t *none = NULL;
      if (atomic_compare_exchange_strong(&res_slots[i], &none, r))
        return;
    }
  res_free(r);
}

/* The handle's resources, taken once (from the slots with KK_SPGEMM_CACHE
 * =yes, else new); NULL with *st KK_OK when there is no memory for the
 * record (the caller then goes without: one queue, temporaries of its
 * own). */
static sg_res_t *res_take(const kkk_call_t *c, kk_spgemm_handle_t *h, kk_status_t *st) {
  if (h->res)
    return *st = KK_OK, h->res;
  const int cache = cache_setting(c->op, st);
  if (*st != KK_OK)
    return NULL;
  const char *be = kk_instance_backend(c->inst);
  const uint64_t id = kk_initialization_id();
  if (!be || strlen(be) >= sizeof h->res->backend)
    return NULL;
  for (int i = 0; cache && i < RES_SLOTS && !h->res; i++) {
    sg_res_t *r = atomic_exchange(&res_slots[i], NULL);
    if (!r)
      continue;
    if (r->init == id && strcmp(r->backend, be) == 0) {
      h->res = r;
    } else if (r->init != id) {
      res_free(r);
    } else { /* another backend's: back to its slot, or ended when the slot was taken meanwhile */
      sg_res_t *none = NULL;
      if (!atomic_compare_exchange_strong(&res_slots[i], &none, r))
        res_free(r);
    }
  }
  if (!h->res) {
    sg_res_t *r = calloc(1, sizeof *r);
    if (!r)
      return NULL;
    r->init = id;
    r->cached = cache;
    snprintf(r->backend, sizeof r->backend, "%s", be);
    if (cache && is_gpu(be) && kk_instance_create(be, &r->home) != KK_OK)
      r->home = NULL;
    h->res = r;
  }
  return h->res;
}

/* ---- shared with color.c and gs.c ---------------------------------------------------- */

/* A new rank-1 work view (kkk_work_view; `flags` the view's, e.g.
 * KK_VIEW_NO_INIT). */
static kk_status_t work_view(const char *op, const char *what, kk_space_t *space, kk_type_t type, int64_t n,
                             uint32_t flags, kk_view_t **out) {
  char label[128];
  snprintf(label, sizeof label, "%s.%s", op, what);
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = label;
  spec.type = type;
  spec.rank = 1;
  spec.extents[0] = n;
  spec.layout = KK_LAYOUT_RIGHT;
  spec.space = space;
  spec.flags = flags;
  *out = NULL;
  kk_status_t st = kk_view_create(&spec, out);
  if (st != KK_OK)
    return kkk_err(st, "%s: work array %s of %lld elements: %s", op, what, (long long)n, kk_last_error());
  return KK_OK;
}

kk_status_t kkk_work_view(const char *op, const char *what, kk_space_t *space, kk_type_t type, int64_t n,
                          kk_view_t **out) {
  return work_view(op, what, space, type, n, KK_VIEW_NO_INIT, out);
}

kk_status_t kkk_begin_crs(kkk_call_t *c, const char *op, kk_instance_t *inst, const kk_crs_t *A, const kk_crs_t *B,
                          int nextra, kk_view_t *const *extra, const char *const *extra_names) {
  kk_status_t st = kkk_crs_check(op, A);
  if (st == KK_OK && B)
    st = kkk_crs_check(op, B);
  if (st != KK_OK)
    return st;
  kk_view_t *v[10];
  const char *names[10];
  int n = 0, nt;
  v[n] = kk_crs_values(A);
  names[n++] = "A's values";
  if (B) {
    v[n] = kk_crs_values(B);
    names[n++] = "B's values";
  }
  for (int i = 0; i < nextra && i < 4; i++) {
    v[n] = extra[i];
    names[n++] = extra_names[i];
  }
  nt = n;
  v[n] = kk_crs_row_ptr(A);
  names[n++] = "A's row offsets";
  v[n] = kk_crs_col_idx(A);
  names[n++] = "A's column indices";
  if (B) {
    v[n] = kk_crs_row_ptr(B);
    names[n++] = "B's row offsets";
    v[n] = kk_crs_col_idx(B);
    names[n++] = "B's column indices";
  }
  return kkk_begin(c, op, inst, n, v, names, nt);
}

/* ---- the launch ------------------------------------------------------------------------ */

/* The launch shape and the scratch tables' slots.  Host backends: a
 * thread per team taking 64 rows, a row at a time, tables of up to 4096
 * slots in the thread's scratch.  GPUs: the rows binned by table size
 * (launch_bins), tables in scratch up to 48 KiB (2048 slots of keys and
 * double values; the symbolic phase, keys only, 8192), so that a row of
 * the 27-point matrix squared (729 terms, 125 columns) stays in scratch in
 * both phases.  cap_sym: the symbolic phase's. */
static void shape(const kkk_call_t *c, kk_spgemm_handle_t *h, const kk_crs_t *B) {
  h->host = c->host;
  if (c->host) {
    h->team_size = 1;
    h->rows_per_team = 64;
    h->cap = h->cap_sym = 4096;
    return;
  }
  h->team_size = 32;
  h->rows_per_team = 1;
  /* lanes over B's rows: doubled while a lane would take more than 4
   * entries of B's average row, up to 32 */
  const int64_t bm = kk_crs_rows(B), bavg = bm > 0 ? (kk_crs_nnz(B) + bm - 1) / bm : 1;
  h->vlen = 1;
  while (h->vlen < 32 && 4 * (int64_t)h->vlen < bavg)
    h->vlen *= 2;
  const size_t max = kkk_scratch_max(c), es = kkk_elem_size(h->type);
  const size_t have = max < 48 * 1024 ? max : 48 * 1024;
  h->cap = h->cap_sym = 0;
  for (int64_t s = 8; s <= 8192 && kk_scratch_size(4, s) + kk_scratch_size(es, s) <= have; s *= 2)
    h->cap = s;
  for (int64_t s = 8; s <= 16384 && kk_scratch_size(4, s) <= have; s *= 2)
    h->cap_sym = s;
}

/* Host backends: runs the count kernel (with_values 0) or the fill kernel
 * k, a team thread per row, with the scratch tables of a->cap slots. */
static kk_status_t launch(const kkk_call_t *c, const kk_spgemm_handle_t *h, const kk_kernel_t *k,
                          const struct kkk_sg_args *a, int with_values) {
  kk_team_policy_t p = {sizeof p, 0, h->team_size, 1, {0, 0}, {0, 0}, 1, KK_SCHEDULE_DYNAMIC, c->inst};
  p.scratch_thread[0] = a->cap > 0 ? kk_scratch_size(sizeof(int32_t), a->cap) +
                                         (with_values ? kk_scratch_size(kkk_elem_size(h->type), a->cap) : 0)
                                   : 0;
  p.league_size = (h->m + h->rows_per_team - 1) / h->rows_per_team;
  return kk_parallel_for_team(c->op, &p, k, a, sizeof *a);
}

/* Host backends, dense accumulator: h->chunks teams of one thread, each a
 * chunk of rows of equal work with C's columns of int32 in its level-1
 * scratch. */
static kk_status_t launch_dense(const kkk_call_t *c, const kk_spgemm_handle_t *h, const kk_kernel_t *k,
                                const struct kkk_sg_args *a) {
  kk_team_policy_t p = {sizeof p, 0, 1, 1, {0, 0}, {0, 0}, 1, KK_SCHEDULE_DYNAMIC, c->inst};
  p.scratch_thread[1] = kk_scratch_size(sizeof(int32_t), h->n);
  p.league_size = h->chunks;
  return kk_parallel_for_team(c->op, &p, k, a, sizeof *a);
}

/* GPUs: sorts the rows into bins by their tables' sizes (tsz, as sg_size
 * left it for tables of up to a->cap slots in scratch): list holds bin 0's
 * rows, then bin 1's, ...; off[b] is where bin b starts (off[KKK_SG_NBIN]
 * the rows).  Two kernels: bin_count counts each bin's rows into bcnt
 * and brings the counts to the host (one fence); bin_place places the
 * rows (counting bcnt back down to zero).  Teams of 128 threads take
 * 2048 rows each, counting in team scratch. */
static kk_team_policy_t bin_policy(const kkk_call_t *c, const kk_spgemm_handle_t *h, struct kkk_sg_args *a) {
  kk_team_policy_t p = {sizeof p, 0, 128, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c->inst};
  a->rows = h->m;
  a->rows_per_team = 2048;
  p.league_size = (h->m + a->rows_per_team - 1) / a->rows_per_team;
  p.scratch_team[0] = kk_scratch_size(sizeof(int32_t), KKK_SG_NBIN) + kk_scratch_size(sizeof(int64_t), KKK_SG_NBIN);
  return p;
}

static kk_status_t bin_count(const kkk_call_t *c, const kk_spgemm_handle_t *h, const struct kkk_sg_args *a0,
                             int64_t *cnt) {
  struct kkk_sg_args a = *a0;
  const kk_team_policy_t p = bin_policy(c, h, &a);
  kk_status_t st = kk_parallel_for_team(c->op, &p, KK_KERNEL(kkk_sg_hist), &a, sizeof a);
  if (st == KK_OK)
    st = kk_instance_fence(c->inst);
  if (st == KK_OK)
    st = kk_space_copy(NULL, cnt, h->space, a.bcnt.d.data, sizeof(int64_t) * KKK_SG_NBIN, NULL);
  return st;
}

static kk_status_t bin_place(const kkk_call_t *c, const kk_spgemm_handle_t *h, const struct kkk_sg_args *a0,
                             const int64_t *cnt, int64_t *off) {
  struct kkk_sg_args a = *a0;
  const kk_team_policy_t p = bin_policy(c, h, &a);
  off[0] = 0;
  for (int b = 0; b < KKK_SG_NBIN; b++)
    off[b + 1] = off[b] + cnt[b];
  memcpy(a.boff, off, sizeof a.boff);
  return kk_parallel_for_team(c->op, &p, KK_KERNEL(kkk_sg_place), &a, sizeof a);
}

static kk_status_t bin_rows(const kkk_call_t *c, kk_spgemm_handle_t *h, const struct kkk_sg_args *a0,
                            int64_t *off) {
  int64_t cnt[KKK_SG_NBIN];
  kk_status_t st = bin_count(c, h, a0, cnt);
  return st == KK_OK ? bin_place(c, h, a0, cnt, off) : st;
}

/* The bins' order: KK_SPGEMM_BINS=concurrent|sequential (concurrent, the
 * default: on cuda and hip the bins' kernels side by side, largest bins
 * first; sequential: one after the other on the caller's instance, bin 0
 * first, as on every other backend).  1 concurrent, 0 sequential; *st an
 * error for another setting. */
static int bins_setting(const char *op, kk_status_t *st) {
  return two_way(op, "KK_SPGEMM_BINS", "concurrent", "sequential", 1, st);
}

/* The queues for nq bins side by side: q[0] the caller's instance, q[1..]
 * the handle's side instances (made once, kept until the handle goes),
 * each ordered after the caller's earlier work (kept on the device: an
 * event).  Returns how many queues there are (1 when side instances
 * cannot be had, or the caller's instance cannot be ordered, as while it
 * captures a graph: then the bins go one after the other). */
static int bin_queues(const kkk_call_t *c, sg_res_t *r, int nq, kk_instance_t **q) {
  q[0] = c->inst;
  if (!r)
    return 1;
  if (nq > SIDE_QUEUES + 1)
    nq = SIDE_QUEUES + 1;
  while (r->nside < nq - 1 && kk_instance_create(kk_instance_backend(c->inst), &r->side[r->nside]) == KK_OK)
    r->nside++;
  if (nq > r->nside + 1)
    nq = r->nside + 1;
  for (int i = 1; i < nq; i++) {
    q[i] = r->side[i - 1];
    if (kk_instance_wait(q[i], c->inst) != KK_OK)
      return 1;
  }
  return nq;
}

/* GPUs: a launch per non-empty bin (Kokkos Kernels' work units by row
 * size).  Bin 0 (tables of at most KKK_SG_THREAD_SLOTS slots): a row per
 * team thread, 64 threads a team, one lane each, the table in thread
 * scratch (384 bytes with double values): a short row keeps one lane
 * busy rather than idling a warp.  Bins 1-14 (tables of 32 << b slots, in
 * scratch): a team per row, 32 to 256 lanes (a quarter of the table's
 * slots), vlen lanes per thread, the team scratch just the bin's table.
 * Bin 15 (over cap): a team of 256 lanes per row, the table in the global
 * tables.  On cuda and hip (bins_setting) the bins run side by side, a
 * bin a queue (bin_queues), largest first so that the small ones fill in
 * around them: a bin of few rows fills only part of the GPU, and the
 * bins write distinct rows of distinct results.  The caller's instance is
 * ordered after every side queue before this returns (on the device: no
 * host wait), so what follows on it sees all the bins' rows. */
static kk_status_t launch_bins(const kkk_call_t *c, kk_spgemm_handle_t *h, const kk_kernel_t *kthr,
                               const kk_kernel_t *kteam, const struct kkk_sg_args *a0, int with_values,
                               const int64_t *off) {
  const size_t es = with_values ? kkk_elem_size(h->type) : 0;
  /* OpenCL: teams of 32 work-items of one lane in every team bin (an
   * OpenCL implementation may compile a kernel once per work-group size;
   * PoCL does, and a CPU gains nothing from wider teams or lanes) */
  const char *be = kk_instance_backend(c->inst);
  const int gpu = is_gpu(be);
  int bins[KKK_SG_NBIN], nb = 0;
  for (int b = 0; b < KKK_SG_NBIN; b++)
    if (off[b + 1] > off[b])
      bins[nb++] = b;
  kk_instance_t *q[SIDE_QUEUES + 1] = {c->inst};
  int nq = 1;
  if (gpu) {
    kk_status_t st;
    const int conc = bins_setting(c->op, &st);
    if (st != KK_OK)
      return st;
    if (conc && nb > 1) {
      sg_res_t *r = res_take(c, h, &st);
      if (st != KK_OK)
        return st;
      nq = bin_queues(c, r, nb, q);
      for (int i = 0; i < nb / 2; i++) { /* largest first */
        const int t = bins[i];
        bins[i] = bins[nb - 1 - i];
        bins[nb - 1 - i] = t;
      }
    }
  }
  kk_status_t st = KK_OK;
  for (int i = 0; i < nb && st == KK_OK; i++) {
    const int b = bins[i];
    const int64_t n = off[b + 1] - off[b];
    struct kkk_sg_args a = *a0;
    a.flags |= KKK_SG_LIST;
    a.list_off = off[b];
    a.rows = n;
    kk_team_policy_t p = {sizeof p, 0, 1, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, q[i % nq]};
    const kk_kernel_t *k = kteam;
    if (b == 0) {
      k = kthr;
      p.team_size = 64;
      a.rows_per_team = p.team_size;
      a.cap = KKK_SG_THREAD_SLOTS;
      p.scratch_thread[0] = kk_scratch_size(sizeof(int32_t), a.cap) + (es ? kk_scratch_size(es, a.cap) : 0);
      p.league_size = (n + a.rows_per_team - 1) / a.rows_per_team;
    } else {
      int64_t lanes = 256;
      if (b < KKK_SG_NBIN - 1) {
        a.cap = (int64_t)KKK_SG_THREAD_SLOTS << b;
        p.scratch_team[0] = kk_scratch_size(sizeof(int32_t), a.cap) + (es ? kk_scratch_size(es, a.cap) : 0);
        lanes = a.cap / 4 < 32 ? 32 : a.cap / 4 > 256 ? 256 : a.cap / 4;
      } else {
        a.cap = 0;
      }
      p.vector_length = gpu ? h->vlen : 1;
      p.team_size = gpu ? (int32_t)(lanes / h->vlen > 0 ? lanes / h->vlen : 1) : 32;
      a.rows_per_team = 1;
      p.league_size = n;
    }
    st = kk_parallel_for_team(c->op, &p, k, &a, sizeof a);
  }
  /* the caller's instance after every side queue, also after an error
   * (what was launched completes before the caller's next work) */
  for (int i = 1; i < nq && i < nb; i++) {
    const kk_status_t sw = kk_instance_wait(c->inst, q[i]);
    if (st == KK_OK)
      st = sw;
  }
  return st;
}

static void base_args(struct kkk_sg_args *a, const kk_spgemm_handle_t *h, const kk_crs_t *A, const kk_crs_t *B) {
  memset(a, 0, sizeof *a);
  a->arp = kkk_desc(kk_crs_row_ptr(A));
  a->aci = kkk_desc(kk_crs_col_idx(A));
  a->av = kkk_desc(kk_crs_values(A));
  a->brp = kkk_desc(kk_crs_row_ptr(B));
  a->bci = kkk_desc(kk_crs_col_idx(B));
  a->bv = kkk_desc(kk_crs_values(B));
  if (h->tsz)
    a->tsz = kkk_desc(h->tsz);
  if (h->gofs)
    a->gofs = kkk_desc(h->gofs);
  if (h->gkeys)
    a->gkeys = kkk_desc(h->gkeys);
  if (h->gvals)
    a->gvals = kkk_desc(h->gvals);
  if (h->work)
    a->work = kkk_desc(h->work);
  if (h->list)
    a->list = kkk_desc(h->list);
  if (h->bcnt)
    a->bcnt = kkk_desc(h->bcnt);
  a->ncols = h->n;
  a->wtotal = h->wtotal;
  a->rows = h->m;
  a->rows_per_team = h->rows_per_team;
  a->cap = h->cap;
  a->flags = h->kind == KIND_ADD ? KKK_SG_AROW | KKK_SG_BROW
             : h->kind == KIND_JACOBI ? KKK_SG_AB | KKK_SG_BROW | KKK_SG_DINV
                                      : KKK_SG_AB;
  if (h->flags & KK_SPARSE_SORTED)
    a->flags |= KKK_SG_SORT;
}

void kk_sparse_spgemm_destroy(kk_spgemm_handle_t *h) {
  if (!h)
    return;
  kk_view_release(h->tsz);
  kk_view_release(h->gofs);
  kk_view_release(h->gkeys);
  kk_view_release(h->gvals);
  kk_view_release(h->list);
  kk_view_release(h->bcnt);
  kk_view_release(h->crp);
  kk_view_release(h->work);
  res_give(h->res);
  free(h);
}

/* ---- host backends: the dense accumulator ------------------------------------------------- */

/* Whether the host's dense accumulator serves this operation: on a host
 * backend, C of at most DENSE_MAX_COLS columns (and rows numbered in
 * int32, the markers' type), and enough work that setting each chunk's
 * marker array (C's columns, once per chunk) stays under an eighth of it
 * (the work estimated from the counts: nnz(A) times B's average row).
 * KK_SPGEMM_HOST_ACCUMULATOR=hash|dense|auto overrides (dense still only
 * within the limits). */
static kk_status_t choose_dense(const kkk_call_t *c, kk_spgemm_handle_t *h, const kk_crs_t *B) {
  h->dense = 0;
  if (!c->host || h->m <= 0 || h->n <= 0)
    return KK_OK;
  const char *env = getenv("KK_SPGEMM_HOST_ACCUMULATOR");
  int force = -1;
  if (env && *env && strcmp(env, "auto") != 0) {
    if (strcmp(env, "hash") == 0)
      force = 0;
    else if (strcmp(env, "dense") == 0)
      force = 1;
    else
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: KK_SPGEMM_HOST_ACCUMULATOR is '%s'; it takes hash, dense or auto",
                     c->op, env);
  }
  if (force == 0 || h->n > DENSE_MAX_COLS || h->m > INT32_MAX)
    return KK_OK;
  h->chunks = KKK_SG_DENSE_CHUNKS * kkk_concurrency(c);
  if (h->chunks > h->m)
    h->chunks = h->m;
  const int64_t bk = kk_crs_rows(B);
  double est = (double)h->m;
  if (h->kind == KIND_ADD)
    est += (double)h->annz + (double)h->bnnz;
  else
    est += (bk > 0 ? (double)h->annz * ((double)h->bnnz / (double)bk) : 0) +
           (h->kind == KIND_JACOBI ? (double)h->bnnz : 0);
  h->dense = force == 1 || (double)h->chunks * (double)h->n <= est * 8;
  return KK_OK;
}

/* The dense symbolic phase: the rows' work scanned (the chunks' bounds,
 * kept for the numeric phase), then each row's columns counted into cnt. */
static kk_status_t dense_count(const kkk_call_t *c, kk_spgemm_handle_t *h, struct kkk_sg_args *a) {
  a->work = kkk_desc(h->work);
  a->ncols = h->n;
  kk_status_t st = kk_parallel_scan(c->op, KK_RANGE_ON(c->inst, 0, h->m), KK_KERNEL(kkk_sg_work), a, sizeof *a,
                                    &h->wtotal, sizeof h->wtotal);
  a->wtotal = h->wtotal;
  if (st == KK_OK)
    st = launch_dense(c, h, KK_KERNEL(kkk_sg_count_dense), a);
  return st;
}

/* ---- the one-pass product (kk_sparse_spgemm) ------------------------------------------- */

/* Makes the bins' work views of a GPU handle: the rows' list and the
 * bins' counts (zeroed: bin_rows counts up from zero and back down). */
static kk_status_t bin_views(const char *op, kk_spgemm_handle_t *h) {
  kk_status_t st = kkk_work_view(op, "bin_list", h->space, KK_INT32, h->m, &h->list);
  if (st == KK_OK)
    st = work_view(op, "bin_count", h->space, KK_INT64, KKK_SG_NBIN, 0, &h->bcnt);
  return st;
}

/* The one-pass product's choice: KK_SPGEMM_ONE_PASS=yes|no|auto (auto,
 * the default: on GPUs, when the products of A B number at most
 * ONEPASS_MAX_RATIO times the entries of A and B; never on host
 * backends, whose dense accumulator takes the product).  1 yes, 0 no,
 * -1 auto; *st an error for another setting. */
#define ONEPASS_MAX_RATIO 8
static int onepass_setting(const char *op, kk_status_t *st) {
  const char *env = getenv("KK_SPGEMM_ONE_PASS");
  *st = KK_OK;
  if (!env || !*env || strcmp(env, "auto") == 0)
    return -1;
  if (strcmp(env, "yes") == 0)
    return 1;
  if (strcmp(env, "no") == 0)
    return 0;
  *st = kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: KK_SPGEMM_ONE_PASS is '%s'; it takes yes, no or auto", op, env);
  return 0;
}

/* Part of a rank-1 view (any element type) as a descriptor of n elements
 * of `type` from byte `at` on. */
static kk_view_strided sub_desc(kk_view_t *v, int64_t at, int64_t n, kk_type_t type) {
  kk_view_strided d = kkk_desc(v);
  d.d.data = (char *)d.d.data + at;
  d.d.extent[0] = n;
  d.d.stride[0] = 1;
  d.d.elem_size = (uint32_t)kkk_elem_size(type);
  d.d.type = (uint32_t)type;
  return d;
}

/* With KK_SPGEMM_CACHE=yes: r's workspace in `space` with room for
 * `bytes` (a larger one made, zeroed, in place of a smaller one), and the
 * caller's instance ordered after the calls that used it before. */
static kk_status_t ws_reserve(const kkk_call_t *c, sg_res_t *r, kk_space_t *space, int64_t bytes) {
  if (r->ws && (r->wsp != space || r->ws_bytes < bytes))
    ws_drop(r);
  if (!r->ws) {
    const int64_t n = (bytes + 7) / 8;
    kk_status_t st = work_view(c->op, "workspace", space, KK_INT64, n, 0, &r->ws);
    if (st != KK_OK)
      return st;
    r->wsp = space;
    r->ws_bytes = 8 * n;
  }
  if (r->home_used && kk_instance_wait(c->inst, r->home) != KK_OK)
    return kk_instance_fence(r->home);
  return KK_OK;
}

/* C = A B in one pass over B, for kk_sparse_spgemm (the handle not kept):
 * each row's table sized from its terms, C's rows accumulated once, with
 * their values, into scratch rows with room for all their terms, counted,
 * the counts scanned into C's row offsets, and the rows copied into C
 * (sparse_ops_args.h).  The symbolic count's pass over B goes; the cost
 * is the scratch rows, 4 + sizeof(value) bytes per term.  Allocations
 * cost tens of microseconds each on GPUs, so the per-row arrays are one
 * view, the global tables and the scratch rows another (then C's
 * offsets, columns and values); with KK_SPGEMM_CACHE=yes both are parts
 * of the workspace kept between calls (res_take), when it is large
 * enough (else the scratch is a view of its own, and the next call makes
 * the workspace large enough for both), and on cuda and hip the call
 * ends with the copy into C queued, its end recorded on the home queue
 * rather than waited for.  *C is left NULL (and
 * KK_OK returned) where the product is not for this path: auto and more
 * terms than ONEPASS_MAX_RATIO times the inputs' entries (a product of
 * few columns from many terms, as the 27-point matrix squared: 729 terms
 * a row for 125 columns), or scratch that cannot be allocated. */
static kk_status_t onepass(const kkk_call_t *c, kk_spgemm_handle_t *h, const kk_crs_t *A, const kk_crs_t *B,
                           int setting, kk_crs_t **C) {
  const char *op = c->op;
  const int64_t m = h->m, es = (int64_t)kkk_elem_size(h->type);
  kk_view_t *rows = NULL, *scr = NULL, *crp = NULL;
  struct kkk_sg_args a;
  int64_t ubtotal = 0, nnz = 0;
  /* int64: the bins' counts (zero); per row, the scratch rows' offsets
   * (m + 1), counts, table sizes, table offsets; the bin list (int32);
   * rows_bytes a multiple of 16 (the scratch's values may follow) */
  const int64_t o_bcnt = 0, o_srp = KKK_SG_NBIN, o_cnt = o_srp + m + 1, o_tsz = o_cnt + m, o_gofs = o_tsz + m,
                o_list = o_gofs + m, nrows = o_list + (m + 1) / 2, rows_bytes = (8 * nrows + 15) / 16 * 16;
  kk_status_t st = KK_OK;
  sg_res_t *r = cache_setting(op, &st) ? res_take(c, h, &st) : NULL;
  if (st != KK_OK)
    return st;
  if (r && !r->cached)
    r = NULL;
  if (r) {
    st = ws_reserve(c, r, h->space, rows_bytes + r->want);
    if (st != KK_OK) {
      ws_drop(r);
      return st;
    }
    rows = r->ws;
  } else {
    st = work_view(op, "row_arrays", h->space, KK_INT64, nrows, 0, &rows);
    if (st != KK_OK)
      return st;
  }
  base_args(&a, h, A, B);
  a.crp = sub_desc(rows, 8 * o_srp, m + 1, KK_INT64);
  a.cnt = sub_desc(rows, 8 * o_cnt, m, KK_INT64);
  a.tsz = sub_desc(rows, 8 * o_tsz, m, KK_INT64);
  a.gofs = sub_desc(rows, 8 * o_gofs, m, KK_INT64);
  a.bcnt = sub_desc(rows, 8 * o_bcnt, KKK_SG_NBIN, KK_INT64);
  a.list = sub_desc(rows, 8 * o_list, m, KK_INT32);
  /* the tables from the rows' terms (numeric tables: keys and values),
   * the terms into cnt, scanned into the scratch rows' offsets */
  a.flags |= KKK_SG_UBOUT;
  st = kk_parallel_scan(op, KK_RANGE_ON(c->inst, 0, m), KK_KERNEL(kkk_sg_size), &a, sizeof a, &h->gtotal,
                        sizeof h->gtotal);
  /* with the workspace kept, GPUs: the bins counted before the terms'
   * total has come, which then comes with their counts (one host wait
   * for both; it is the scratch rows' last offset) */
  const int early = r && !c->host;
  int64_t bins[KKK_SG_NBIN];
  if (st == KK_OK)
    st = kk_parallel_scan(op, KK_RANGE_ON(c->inst, 0, m), KK_KERNEL(kkk_sg_offsets), &a, sizeof a,
                          early ? NULL : &ubtotal, sizeof ubtotal);
  a.flags &= ~KKK_SG_UBOUT;
  if (st == KK_OK && early)
    st = bin_count(c, h, &a, bins);
  if (st == KK_OK && early)
    st = kk_space_copy(NULL, &ubtotal, h->space, (char *)kk_view_data(rows) + 8 * (o_srp + m), sizeof ubtotal,
                       NULL);
  /* one view for the global tables and the scratch rows: their values
   * (gtotal, then ubtotal), then their keys and columns (int32, in
   * value-sized elements), from byte `at` of it (the workspace's: after
   * the per-row arrays) */
  const int64_t gt = h->gtotal, nv = gt + ubtotal, scr_n = nv + (4 * nv + es - 1) / es;
  int64_t at = 0;
  int go = st == KK_OK && (setting == 1 || ubtotal <= ONEPASS_MAX_RATIO * (h->annz + h->bnnz));
  if (go && r) {
    r->want = es * scr_n;
    if (rows_bytes + r->want <= r->ws_bytes) {
      scr = r->ws;
      at = rows_bytes;
    }
  }
  if (go && !scr) /* scratch that cannot be had: the two phases instead (they need less) */
    go = kkk_work_view(op, "scratch", h->space, h->type, scr_n, &scr) == KK_OK;
  if (go) {
    a.gvals = sub_desc(scr, at, gt, h->type);
    a.cv = sub_desc(scr, at + es * gt, ubtotal, h->type);
    a.gkeys = sub_desc(scr, at + es * nv, gt, KK_INT32);
    a.cci = sub_desc(scr, at + es * nv + 4 * gt, ubtotal, KK_INT32);
    a.fa = kk_cdouble(1, 0);
    a.flags |= KKK_SG_ONEPASS;
    if (c->host) {
      st = launch(c, h, k_fill[c->t], &a, 1);
    } else {
      st = early ? bin_place(c, h, &a, bins, h->boff) : bin_rows(c, h, &a, h->boff);
      if (st == KK_OK)
        st = launch_bins(c, h, k_fill[c->t], k_fill_team[c->t], &a, 1, h->boff);
    }
    if (st == KK_OK)
      st = kkk_work_view(op, "C.row_ptr", h->space, KK_INT64, m + 1, &crp);
    if (st == KK_OK) {
      a.crp = kkk_desc(crp);
      st = kk_parallel_scan(op, KK_RANGE_ON(c->inst, 0, m), KK_KERNEL(kkk_sg_offsets), &a, sizeof a, &nnz,
                            sizeof nnz);
    }
    kk_crs_t *out = NULL;
    if (st == KK_OK)
      st = kkk_crs_make(op, h->space, "C", h->type, m, h->n, nnz, crp, &out);
    if (st == KK_OK) {
      a.srp = sub_desc(rows, 8 * o_srp, m + 1, KK_INT64);
      a.sv = a.cv;
      a.sci = a.cci;
      a.cci = kkk_desc(kk_crs_col_idx(out));
      a.cv = kkk_desc(kk_crs_values(out));
      kk_team_policy_t p = {sizeof p, 0, 1, 1, {0, 0}, {0, 0}, 0, KK_SCHEDULE_STATIC, c->inst};
      if (is_gpu(kk_instance_backend(c->inst))) { /* a warp per row, 8 rows a team */
        p.team_size = 8;
        p.vector_length = 32;
      } else if (!c->host) {
        p.team_size = 32;
      }
      a.rows = m;
      a.rows_per_team = c->host ? 64 : p.team_size;
      p.league_size = (m + a.rows_per_team - 1) / a.rows_per_team;
      st = kk_parallel_for_team(op, &p, k_compact[c->t], &a, sizeof a);
    }
    /* scratch of its own goes when the copy is done; the workspace
     * stays, its use recorded on the home queue where there is one */
    if (st == KK_OK && r && scr == r->ws && r->home && kk_instance_wait(r->home, c->inst) == KK_OK)
      r->home_used = 1;
    else if (st == KK_OK)
      st = kk_instance_fence(c->inst);
    if (st == KK_OK)
      *C = out;
    else
      kk_crs_destroy(out);
  } else if (st == KK_OK && early) { /* counted, not placed: the bins' counts back to zero */
    static const int64_t zero[KKK_SG_NBIN];
    st = kk_space_copy(h->space, (char *)kk_view_data(rows) + 8 * o_bcnt, NULL, zero, sizeof zero, NULL);
  }
  kk_view_release(crp);
  if (!r || scr != r->ws)
    kk_view_release(scr);
  if (!r)
    kk_view_release(rows);
  if (st != KK_OK && r) { /* the bins' counts may not be zero: the workspace goes */
    kk_instance_fence(c->inst);
    ws_drop(r);
  }
  return st;
}

/* ---- symbolic ------------------------------------------------------------------------- */

/* The symbolic phase; with C1 (kk_sparse_spgemm) the product in one pass
 * where that path takes it (*C1 set, the handle of no further use). */
static kk_status_t symbolic(int kind, kk_instance_t *inst, const kk_crs_t *A, const kk_crs_t *B, int flags,
                            kk_spgemm_handle_t **out, int64_t *nnz, kk_crs_t **C1) {
  const char *op = C1 ? "kk_sparse_spgemm" : kind_name[kind];
  if (out)
    *out = NULL;
  kkk_call_t c;
  kk_status_t st = kkk_begin_crs(&c, op, inst, A, B, 0, NULL, NULL);
  if (st != KK_OK)
    return st;
  if (!out)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: handle is NULL", op);
  const int allowed = KK_SPARSE_SORTED | (kind != KIND_ADD ? KK_SPGEMM_JACOBI : 0);
  if (flags & ~allowed)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: flags 0x%x has unknown bits (this routine takes 0x%x)", op,
                   (unsigned)flags, (unsigned)allowed);
  cache_setting(op, &st); /* a setting none of yes, no is refused before anything runs */
  if (st != KK_OK)
    return st;
  const int64_t am = kk_crs_rows(A), ak = kk_crs_cols(A), bk = kk_crs_rows(B), bn = kk_crs_cols(B);
  if (kind == KIND_ADD) {
    if (am != bk || ak != bn)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: A '%s' is %lld x %lld but B '%s' is %lld x %lld; a sum needs "
                     "equal shapes", op, kkk_crs_label(A), (long long)am, (long long)ak, kkk_crs_label(B),
                     (long long)bk, (long long)bn);
  } else {
    if (ak != bk)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: A '%s' is %lld x %lld but B '%s' is %lld x %lld; A B needs A's "
                     "columns equal to B's rows", op, kkk_crs_label(A), (long long)am, (long long)ak,
                     kkk_crs_label(B), (long long)bk, (long long)bn);
    if (kind == KIND_JACOBI && am != ak)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: A '%s' is %lld x %lld; (I - w D^-1 A) B needs A square", op,
                     kkk_crs_label(A), (long long)am, (long long)ak);
  }
  kk_spgemm_handle_t *h = calloc(1, sizeof *h);
  if (!h)
    return kkk_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", op);
  h->kind = kind;
  h->flags = flags & KK_SPARSE_SORTED;
  h->type = c.type;
  h->space = kk_crs_space(A);
  h->m = am;
  h->n = bn;
  h->k = ak;
  h->annz = kk_crs_nnz(A);
  h->bnnz = kk_crs_nnz(B);
  shape(&c, h, B);
  if (C1 && am > 0) {
    const int setting = onepass_setting(op, &st);
    if (st == KK_OK && (setting == 1 || (setting == -1 && !c.host)))
      st = onepass(&c, h, A, B, setting, C1);
    if (st != KK_OK) {
      kk_sparse_spgemm_destroy(h);
      return st;
    }
    if (*C1) {
      *out = h;
      return KK_OK;
    }
  }
  kk_view_t *cnt = NULL;
  struct kkk_sg_args a;
  /* C's row offsets: made here, on the device, and kept for the numeric
   * phase's C (no copy through the host); zeroed only when there are no
   * rows (the offsets scan writes them all otherwise) */
  kk_view_spec_t rps = KK_VIEW_SPEC_INIT;
  rps.label = "C.row_ptr";
  rps.type = KK_INT64;
  rps.rank = 1;
  rps.extents[0] = am + 1;
  rps.layout = KK_LAYOUT_RIGHT;
  rps.space = h->space;
  rps.flags = am > 0 ? KK_VIEW_NO_INIT : 0;
  st = kk_view_create(&rps, &h->crp);
  if (st != KK_OK)
    st = kkk_err(st, "%s: C's row offsets (%lld elements): %s", op, (long long)(am + 1), kk_last_error());
  if (st == KK_OK && kind == KIND_ADD && am > 0) {
    /* rows sorted in both inputs (repeats side by side allowed): C's rows
     * are merges, counted here into crp[1..am] and scanned there in place
     * into C's offsets (each index reads and writes only its own element);
     * when a row of either is out of order, the hash accumulator below
     * counts them instead */
    int64_t unsorted = 0;
    base_args(&a, h, A, B);
    a.crp = kkk_desc(h->crp);
    a.cnt = a.crp;
    a.cnt.d.data = (int64_t *)a.cnt.d.data + 1;
    a.cnt.d.extent[0] = am;
    st = kkk_reduce(&c, KK_KERNEL(kkk_sa_count), &a, sizeof a, am, &unsorted, sizeof unsorted);
    h->merge = st == KK_OK && unsorted == 0;
    /* the fence (the instance is idle by then: the scan's total has come)
     * makes the offsets complete for a numeric phase on another instance */
    if (h->merge)
      st = kk_parallel_scan(op, KK_RANGE_ON(c.inst, 0, am), KK_KERNEL(kkk_sg_offsets), &a, sizeof a, &h->nnz,
                            sizeof h->nnz);
    if (st == KK_OK && h->merge)
      st = kk_instance_fence(c.inst);
  } else if (st == KK_OK && kind == KIND_ADD) {
    h->merge = 1; /* no rows: C is empty */
  }
  if (st == KK_OK && !h->merge)
    st = choose_dense(&c, h, B);
  if (st == KK_OK && !h->merge)
    st = kkk_work_view(op, "row_count", h->space, KK_INT64, am, &cnt);
  if (st == KK_OK && h->dense)
    st = kkk_work_view(op, "row_work", h->space, KK_INT64, am, &h->work);
  if (st == KK_OK && !h->merge && !h->dense)
    st = kkk_work_view(op, "table_size", h->space, KK_INT64, am, &h->tsz);
  if (st == KK_OK && !h->merge && !h->dense)
    st = kkk_work_view(op, "table_offset", h->space, KK_INT64, am, &h->gofs);
  if (st == KK_OK && !h->merge && !c.host && am > 0)
    st = bin_views(op, h);
  if (st == KK_OK && am > 0 && h->dense) {
    /* host, dense accumulator: the rows' work and chunks, each row's
     * columns counted, the counts scanned into C's offsets; the fence as
     * in the sorted sum's */
    base_args(&a, h, A, B);
    a.cnt = kkk_desc(cnt);
    a.crp = kkk_desc(h->crp);
    st = dense_count(&c, h, &a);
    if (st == KK_OK)
      st = kk_parallel_scan(op, KK_RANGE_ON(c.inst, 0, am), KK_KERNEL(kkk_sg_offsets), &a, sizeof a, &h->nnz,
                            sizeof h->nnz);
    if (st == KK_OK)
      st = kk_instance_fence(c.inst);
  } else if (st == KK_OK && am > 0 && !h->merge) {
    base_args(&a, h, A, B);
    a.cap = h->cap_sym;
    st = kk_parallel_scan(op, KK_RANGE_ON(c.inst, 0, am), KK_KERNEL(kkk_sg_size), &a, sizeof a, &h->gtotal,
                          sizeof h->gtotal);
    if (st == KK_OK)
      st = kkk_work_view(op, "keys", h->space, KK_INT32, h->gtotal, &h->gkeys);
    if (st == KK_OK) {
      base_args(&a, h, A, B);
      a.cap = h->cap_sym;
      a.cnt = kkk_desc(cnt);
      a.crp = kkk_desc(h->crp);
      if (c.host) {
        st = launch(&c, h, KK_KERNEL(kkk_sg_count), &a, 0);
      } else {
        int64_t off[KKK_SG_NBIN + 1];
        st = bin_rows(&c, h, &a, off);
        if (st == KK_OK)
          st = launch_bins(&c, h, KK_KERNEL(kkk_sg_count), KK_KERNEL(kkk_sg_count_team), &a, 0, off);
      }
    }
    if (st == KK_OK)
      st = kk_parallel_scan(op, KK_RANGE_ON(c.inst, 0, am), KK_KERNEL(kkk_sg_offsets), &a, sizeof a, &h->nnz,
                            sizeof h->nnz);
    /* the numeric phase's tables: from the counts, in the same views (and
     * on GPUs its bins); the symbolic phase's global keys go (the numeric
     * phase makes its own) */
    if (st == KK_OK) {
      a.flags |= KKK_SG_FROMCNT;
      a.cap = h->cap;
      st = kk_parallel_scan(op, KK_RANGE_ON(c.inst, 0, am), KK_KERNEL(kkk_sg_size), &a, sizeof a, &h->gtotal,
                            sizeof h->gtotal);
    }
    if (st == KK_OK && !c.host)
      st = bin_rows(&c, h, &a, h->boff);
    if (st == KK_OK)
      st = kk_instance_fence(c.inst);
    kk_view_release(h->gkeys);
    h->gkeys = NULL;
  }
  kk_view_release(cnt);
  if (st != KK_OK) {
    kk_sparse_spgemm_destroy(h);
    return st;
  }
  *out = h;
  if (nnz)
    *nnz = h->nnz;
  return KK_OK;
}

kk_status_t kk_sparse_spgemm_symbolic(kk_instance_t *instance, const kk_crs_t *A, const kk_crs_t *B, int flags,
                                      kk_spgemm_handle_t **handle, int64_t *nnz) {
  return symbolic(flags & KK_SPGEMM_JACOBI ? KIND_JACOBI : KIND_PRODUCT, instance, A, B, flags, handle, nnz, NULL);
}

kk_status_t kk_sparse_spadd_symbolic(kk_instance_t *instance, const kk_crs_t *A, const kk_crs_t *B, int flags,
                                     kk_spgemm_handle_t **handle, int64_t *nnz) {
  return symbolic(KIND_ADD, instance, A, B, flags, handle, nnz, NULL);
}

/* ---- numeric ---------------------------------------------------------------------------- */

static kk_status_t numeric(int kind, const char *op, kk_instance_t *inst, kk_spgemm_handle_t *h, kk_scalar_t fa,
                           kk_scalar_t fb, kk_view_t *dinv, const kk_crs_t *A, const kk_crs_t *B, kk_crs_t **C) {
  kkk_call_t c;
  static const char *const dn[] = {"dinv"};
  kk_status_t st = kkk_begin_crs(&c, op, inst, A, B, dinv ? 1 : 0, &dinv, dn);
  if (st != KK_OK)
    return st;
  if (!h || !C)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op, !h ? "handle" : "C");
  if (h->kind != kind)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: the handle comes from %s", op, kind_name[h->kind]);
  if (kk_crs_rows(A) != h->m || kk_crs_cols(A) != h->k || kk_crs_cols(B) != h->n || kk_crs_nnz(A) != h->annz ||
      kk_crs_nnz(B) != h->bnnz || c.type != h->type)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: A '%s' (%lld x %lld, %lld entries, %s) and B '%s' (%lld x %lld, %lld entries) are not the "
                   "matrices of the symbolic phase (A %lld x %lld, %lld entries, %s; B %lld entries, %lld columns)",
                   op, kkk_crs_label(A), (long long)kk_crs_rows(A), (long long)kk_crs_cols(A),
                   (long long)kk_crs_nnz(A), kk_type_name(c.type), kkk_crs_label(B), (long long)kk_crs_rows(B),
                   (long long)kk_crs_cols(B), (long long)kk_crs_nnz(B), (long long)h->m, (long long)h->k,
                   (long long)h->annz, kk_type_name(h->type), (long long)h->bnnz, (long long)h->n);
  if (h->host != c.host)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: the symbolic phase ran on a %s backend, this call on a %s one", op,
                   h->host ? "host" : "device", c.host ? "host" : "device");
  if (dinv) {
    st = kkk_check_rank(&c, dinv, "dinv", 1);
    if (st == KK_OK)
      st = kkk_check_extent(&c, dinv, "dinv", 0, h->m, "the rows of A");
    if (st != KK_OK)
      return st;
  }
  st = kkk_check_scalar(&c, fa, kind == KIND_ADD ? "a" : "omega");
  if (st == KK_OK)
    st = kkk_check_scalar(&c, fb, "b");
  if (st != KK_OK)
    return st;
  if (*C) {
    if (*C != h->made || kkk_crs_check(op, *C) != KK_OK)
      return kkk_err(KK_ERROR_INVALID_ARGUMENT, "%s: C '%s' is not the matrix this handle's numeric phase made "
                     "(pass NULL in *C for a new one)", op, kkk_crs_label(*C));
  }
  if (!h->merge && !h->dense && !h->gvals) {
    st = kkk_work_view(op, "keys", h->space, KK_INT32, h->gtotal, &h->gkeys);
    if (st == KK_OK)
      st = kkk_work_view(op, "values", h->space, h->type, h->gtotal, &h->gvals);
    if (st != KK_OK) {
      kk_view_release(h->gkeys);
      h->gkeys = NULL;
      return st;
    }
  }
  kk_crs_t *out = *C;
  if (!out) {
    st = kkk_crs_make(op, h->space, "C", h->type, h->m, h->n, h->nnz, h->crp, &out);
    if (st != KK_OK)
      return st;
  }
  struct kkk_sg_args a;
  base_args(&a, h, A, B);
  a.fa = kk_cdouble(fa.re, fa.im);
  a.fb = kk_cdouble(fb.re, fb.im);
  if (dinv)
    a.dinv = kkk_desc(dinv);
  a.crp = kkk_desc(kk_crs_row_ptr(out));
  a.cci = kkk_desc(kk_crs_col_idx(out));
  a.cv = kkk_desc(kk_crs_values(out));
  if (h->m > 0 && h->merge)
    st = kkk_for(&c, k_merge[c.t], &a, sizeof a, h->m);
  else if (h->m > 0 && h->dense)
    st = launch_dense(&c, h, k_fill_dense[c.t], &a);
  else if (h->m > 0)
    st = c.host ? launch(&c, h, k_fill[c.t], &a, 1)
                : launch_bins(&c, h, k_fill[c.t], k_fill_team[c.t], &a, 1, h->boff);
  if (st != KK_OK) {
    if (!*C)
      kk_crs_destroy(out);
    return st;
  }
  h->made = out;
  *C = out;
  return KK_OK;
}

kk_status_t kk_sparse_spgemm_numeric(kk_instance_t *instance, kk_spgemm_handle_t *handle, const kk_crs_t *A,
                                     const kk_crs_t *B, kk_crs_t **C) {
  return numeric(KIND_PRODUCT, "kk_sparse_spgemm_numeric", instance, handle, KK_REAL(1), KK_REAL(0), NULL, A, B, C);
}

kk_status_t kk_sparse_spgemm_jacobi_numeric(kk_instance_t *instance, kk_spgemm_handle_t *handle, kk_scalar_t omega,
                                            kk_view_t *dinv, const kk_crs_t *A, const kk_crs_t *B, kk_crs_t **C) {
  if (!dinv)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_spgemm_jacobi_numeric: dinv is NULL");
  return numeric(KIND_JACOBI, "kk_sparse_spgemm_jacobi_numeric", instance, handle, KK_COMPLEX(-omega.re, -omega.im),
                 KK_REAL(1), dinv, A, B, C);
}

kk_status_t kk_sparse_spadd_numeric(kk_instance_t *instance, kk_spgemm_handle_t *handle, kk_scalar_t a,
                                    const kk_crs_t *A, kk_scalar_t b, const kk_crs_t *B, kk_crs_t **C) {
  return numeric(KIND_ADD, "kk_sparse_spadd_numeric", instance, handle, a, b, NULL, A, B, C);
}

kk_status_t kk_sparse_spgemm(kk_instance_t *instance, const kk_crs_t *A, const kk_crs_t *B, int flags, kk_crs_t **C) {
  if (!C)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT, "kk_sparse_spgemm: C is NULL");
  *C = NULL;
  if (flags & KK_SPGEMM_JACOBI)
    return kkk_err(KK_ERROR_INVALID_ARGUMENT,
                   "kk_sparse_spgemm: KK_SPGEMM_JACOBI needs the phases apart (kk_sparse_spgemm_jacobi_numeric)");
  kk_spgemm_handle_t *h = NULL;
  kk_status_t st = symbolic(KIND_PRODUCT, instance, A, B, flags, &h, NULL, C);
  if (st == KK_OK && !*C)
    st = kk_sparse_spgemm_numeric(instance, h, A, B, C);
  kk_sparse_spgemm_destroy(h);
  return st;
}
