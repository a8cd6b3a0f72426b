/* core/launch.c -- the checked launch: a policy, a kernel, its arguments and its result made into what a backend's launch op gets, and the one call of that op. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "handles.h"
#include "launch.h"
#include "registry.h"
#include "state.h"
#include "status.h"
#include "tools.h"
#include "view.h"

static const char *kind_name(uint32_t kind) {
  switch (kind) {
  case KK_KIND_FOR:
    return "for (KK_FOR)";
  case KK_KIND_REDUCE:
    return "reduce (KK_REDUCE)";
  case KK_KIND_SCAN:
    return "scan (KK_SCAN)";
  case KK_KIND_MD_FOR:
    return "MDRange for (KK_MD_FORn)";
  case KK_KIND_MD_REDUCE:
    return "MDRange reduce (KK_MD_REDUCEn)";
  case KK_KIND_TEAM_FOR:
    return "team for (KK_TEAM_FOR)";
  case KK_KIND_TEAM_REDUCE:
    return "team reduce (KK_TEAM_REDUCE)";
  default:
    return "unknown";
  }
}

/* The reason a launch is refused by the fast checks of prepare(); only
 * reached on failure, so it may format. */
static kk_status_t refuse(const char *op, const char *label, const kk_kernel_t *k, const void *args, size_t args_size,
                          uint32_t kind, const kk_instance_t *instance) {
  if (!kk__g.initialized)
    return kk__error(KK_ERROR_NOT_INITIALIZED, "%s: kk is not initialized", op);
  if (instance && kk__stale(instance->gen))
    return kk__error(KK_ERROR_NOT_INITIALIZED,
                     "%s '%s': the policy's instance was made before kk_finalize, which ended it: a handle does not "
                     "carry over into a new kk_initialize (make it again)",
                     op, label);
  if (!k)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': kernel is NULL", op, label);
  if ((k->abi_version >> 16) != (KK_KERNEL_ABI_VERSION >> 16) || k->struct_size < offsetof(kk_kernel_t, runtime))
    return kk__error(KK_ERROR_KERNEL_MISMATCH,
                     "%s '%s': the kernel object was built for kernel ABI %u.x, this libkk reads %u.x: rebuild it "
                     "with this kk's kkcc",
                     op, label, k->abi_version >> 16, KK_KERNEL_ABI_VERSION >> 16);
  if (k->kind != kind)
    return kk__error(KK_ERROR_KERNEL_MISMATCH, "%s '%s': kernel '%s' is a %s kernel, not %s", op, label, k->name,
                     kind_name(k->kind), kind_name(kind));
  if (k->args_size != args_size)
    return kk__error(KK_ERROR_KERNEL_MISMATCH,
                     "%s '%s': kernel '%s' takes a %u-byte argument struct, the launch passes %zu bytes", op, label,
                     k->name, k->args_size, args_size);
  if (!args && args_size)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': kernel '%s': args is NULL but args_size is %zu", op, label,
                     k->name, args_size);
  if (kk__bind_failed())
    return kk__take_bind_error(op, label);
  return kk__error(KK_ERROR_INTERNAL, "%s '%s': refused for an unknown reason", op, label);
}

/* Checks what every launch shares and fills the launch; the common path does
 * only comparisons: no allocation, locking or formatting. */
static inline kk_status_t prepare(const char *op, const char *label, const kk_kernel_t *k, const void *args,
                                  size_t args_size, uint32_t kind, kk_instance_t *instance, kk_launch_t *l,
                                  kk__backend_t **bp, kk_instance_t **ip) {
  if (KK__UNLIKELY(!kk__g.initialized || !k || k->kind != kind || k->args_size != args_size ||
                   (k->abi_version >> 16) != (KK_KERNEL_ABI_VERSION >> 16) || (!args && args_size) ||
                   kk__bind_failed() || (instance && instance->gen != kk__generation_now())))
    return refuse(op, label ? label : "", k, args, args_size, kind, instance);
  kk_instance_t *inst = instance ? instance : kk__g.def->default_instance;
  kk__backend_t *b = inst->backend;
  if (KK__UNLIKELY(!b->ops.launch))
    return kk__error(KK_ERROR_UNSUPPORTED, "%s '%s': backend %s (plugin ABI %u.%u) cannot launch kernels", op,
                     label ? label : "", b->name, KK_PLUGIN_ABI_MAJOR_OF(b->ops.abi_version),
                     KK_PLUGIN_ABI_MINOR_OF(b->ops.abi_version));
  void *dk = NULL;
  if (!(b->ops.flags & KK_PLUGIN_FLAG_HOST)) {
    if (KK__UNLIKELY(!(dk = kk__kernel_cached(k)))) {
      kk_status_t st = kk__kernel_resolve(k, b, &dk);
      if (st != KK_OK)
        return kk__error(st, "%s '%s': %s", op, label ? label : "", kk_last_error());
    }
  }
  memset(l, 0, sizeof *l);
  l->struct_size = sizeof *l;
  l->kind = kind;
  l->kernel = k;
  l->device_kernel = dk;
  l->args = args;
  l->args_size = (uint32_t)args_size;
  l->result_space = KK_PLUGIN_HOST_MEMORY;
  l->label = label ? label : k->name;
  l->instance = inst->plugin_inst;
  *bp = b;
  *ip = inst;
  return KK_OK;
}

/* With a tool: the launch between the tool's begin and end events. */
static KK__NOINLINE kk_status_t exec_with_tools(kk__backend_t *b, kk_instance_t *inst, const kk_launch_t *l,
                                                size_t tune_context) {
  uint64_t kid = kk__tools_launch_begin(inst, l);
  kk_status_t st = kk__launch_call(b, inst, l);
  kk__tools_launch_end(l, kid, tune_context);
  return st;
}

kk_status_t kk__launch_exec(kk__backend_t *b, kk_instance_t *inst, const kk_launch_t *l, size_t tune_context) {
  return KK__UNLIKELY(kk__tools.active) ? exec_with_tools(b, inst, l, tune_context) : kk__launch_call(b, inst, l);
}

/* s after `prefix`, or NULL when s does not start with it. */
static const char *after(const char *s, const char *prefix) {
  const size_t n = strlen(prefix);
  return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

/* A launch the backend failed: "<op> '<label>' (kernel '<k>') on backend
 * <b> failed: <why>".  A why that already speaks of this launch in that
 * form -- the bounds report of a device fence the launch itself made
 * (opencl's synchronous reductions, core/bounds.c): "kk_parallel_reduce
 * 'r' (kernel 'k') on backend opencl stopped: bounds check: ..." -- is kept
 * as it is, not repeated after a second prefix.  Formats: failure only. */
static KK__NOINLINE kk_status_t launch_failed(const char *op, const kk__backend_t *b, const kk_launch_t *l,
                                              kk_status_t st) {
  const char *why = kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st);
  const char *p = strchr(why, ' '); /* after the operation's name (the report's kind may name it otherwise) */
  if (p && strncmp(why, "kk_parallel_", 12) == 0 && (p = after(p, " '")) && (p = after(p, l->label)) &&
      (p = after(p, "' (kernel '")) && (p = after(p, l->kernel->name)) && (p = after(p, "') on backend ")) &&
      (p = after(p, b->name)) && (p = after(p, " stopped: ")))
    return st;
  return kk__error(st, "%s '%s' (kernel '%s') on backend %s failed: %s", op, l->label, l->kernel->name, b->name, why);
}

/* A kernel built with kkcc --bounds-check, on a host backend: the launch
 * gets a failure record, and a failed access is the launch's error. */
static KK__NOINLINE kk_status_t run_bounds_checked(const char *op, kk__backend_t *b, kk_instance_t *inst,
                                                   const kk_launch_t *l, size_t tune_context) {
  kk_launch_t lb = *l;
  lb.bounds_slot = kk__bounds_claim();
  kk_status_t st = kk__launch_exec(b, inst, &lb, tune_context);
  if (kk__bounds_release(lb.bounds_slot, op, l, b))
    return KK_ERROR_KERNEL_FAILED;
  return st != KK_OK ? launch_failed(op, b, l, st) : KK_OK;
}

kk_status_t kk__launch_run(const char *op, const kk__launch_t *L) {
  kk__backend_t *b = L->backend;
  const kk_launch_t *l = &L->l;
  if (KK__UNLIKELY(l->kernel->flags & KK_KERNEL_FLAG_BOUNDS_CHECK) && (b->ops.flags & KK_PLUGIN_FLAG_HOST))
    return run_bounds_checked(op, b, L->instance, l, L->tune);
  kk_status_t st = kk__launch_exec(b, L->instance, l, L->tune);
  return KK__UNLIKELY(st != KK_OK) ? launch_failed(op, b, l, st) : KK_OK;
}

/* A host result of the kernel's value size. */
static kk_status_t check_result(const char *op, const kk_launch_t *l, const void *result, size_t size) {
  const kk_kernel_t *k = l->kernel;
  if (KK__UNLIKELY(!result || !k->reducer || size != k->reducer->value_size))
    return kk__error(KK_ERROR_KERNEL_MISMATCH, "%s '%s': kernel '%s' reduces a %u-byte value, the result %s %zu bytes",
                     op, l->label, k->name, k->reducer ? k->reducer->value_size : 0, result ? "has" : "is NULL with",
                     size);
  return KK_OK;
}

/* ---- sizes ------------------------------------------------------------------------- */

/* Every length a launch hands a backend is an int64_t: the indices of
 * [begin, end) (begin <= end), a box's points, a league's threads.  A length
 * that does not fit is refused here, so that no backend computes one that
 * overflows.  Every launch a backend gets is built here first: the
 * kk_parallel_* calls and kk_graph_add_* build theirs with
 * kk__launch_build, graph captures record launches built here, and replays
 * run those.  The
 * end - begin of a range that begins before it ends, as an unsigned
 * difference, is exact. */
static inline bool length_fits(int64_t begin, int64_t end) {
  return (uint64_t)end - (uint64_t)begin <= (uint64_t)INT64_MAX;
}

/* dim: the MDRange dimension, -1 for a range policy */
static KK__NOINLINE kk_status_t length_refused(const char *op, const char *lb, int dim, int64_t begin, int64_t end) {
  char where[32] = "";
  if (dim >= 0)
    snprintf(where, sizeof where, "dimension %d: ", dim);
  return kk__error(KK_ERROR_INVALID_ARGUMENT,
                   "%s '%s': %srange [%lld, %lld) has %llu indices, more than int64_t counts (%lld)", op, lb, where,
                   (long long)begin, (long long)end, (unsigned long long)((uint64_t)end - (uint64_t)begin),
                   (long long)INT64_MAX);
}

/* A policy that is NULL, or whose struct_size is not that of the policy
 * type the call takes (`type`, made by `maker`). */
static KK__NOINLINE kk_status_t policy_refused(const char *op, const char *lb, const void *p, size_t want,
                                               const char *type, const char *maker) {
  if (!p)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': the policy is NULL", op, lb);
  return kk__error(KK_ERROR_INVALID_ARGUMENT,
                   "%s '%s': the policy's struct_size is %zu, smaller than sizeof(%s) (%zu): make it with %s", op, lb,
                   *(const size_t *)p, type, want, maker);
}

/* A chunk size or schedule out of range (the first that is). */
static KK__NOINLINE kk_status_t schedule_refused(const char *op, const char *lb, int64_t chunk, kk_schedule_t sched) {
  if (chunk < 0)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': chunk size %lld is negative (0: the backend's choice)", op,
                     lb, (long long)chunk);
  return kk__error(KK_ERROR_INVALID_ARGUMENT,
                   "%s '%s': schedule %d is neither KK_SCHEDULE_STATIC (0) nor KK_SCHEDULE_DYNAMIC (1)", op, lb,
                   (int)sched);
}

/* ---- range policies ------------------------------------------------------------ */

static inline kk_status_t prepare_range(const char *op, const char *label, const kk_range_policy_t *p,
                                        const kk_kernel_t *k, const void *args, size_t args_size, uint32_t kind,
                                        kk_launch_t *l, kk__backend_t **bp, kk_instance_t **ip) {
  if (KK__UNLIKELY(!p || p->struct_size < sizeof(kk_range_policy_t) || p->end < p->begin ||
                   !length_fits(p->begin, p->end) || p->chunk < 0 || (uint32_t)p->schedule > KK_SCHEDULE_DYNAMIC)) {
    const char *lb = label ? label : "";
    if (!p || p->struct_size < sizeof(kk_range_policy_t))
      return policy_refused(op, lb, p, sizeof(kk_range_policy_t), "kk_range_policy_t", "KK_RANGE()");
    if (p->end < p->begin)
      return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': range [%lld, %lld) ends before it begins", op, lb,
                       (long long)p->begin, (long long)p->end);
    if (!length_fits(p->begin, p->end))
      return length_refused(op, lb, -1, p->begin, p->end);
    return schedule_refused(op, lb, p->chunk, p->schedule);
  }
  kk_status_t st = prepare(op, label, k, args, args_size, kind, p->instance, l, bp, ip);
  if (KK__UNLIKELY(st != KK_OK))
    return st;
  l->schedule = (uint32_t)p->schedule;
  l->begin = p->begin;
  l->end = p->end;
  l->chunk = p->chunk;
  return KK_OK;
}





/* ---- MDRange ------------------------------------------------------------------------- */

/* The points of the box and of one tile (a tile of 0, the backend's
 * choice, counting 1) fit in int64_t.  A box with an empty dimension has no
 * points, however long the others. */
static inline bool md_fits(const kk_launch_t *l) {
  int64_t points = 1, tile = 1;
  bool empty = false, box_over = false, tile_over = false;
  for (int d = 0; d < (int)l->rank; d++) {
    const int64_t ext = l->md_end[d] - l->md_begin[d];
    empty |= ext == 0;
    box_over |= __builtin_mul_overflow(points, ext, &points);
    tile_over |= __builtin_mul_overflow(tile, l->md_tile[d] > 0 ? l->md_tile[d] : 1, &tile);
  }
  return (empty || !box_over) && !tile_over;
}

static KK__NOINLINE kk_status_t md_refused(const char *op, const char *lb, const kk_launch_t *l) {
  char box[KK_MD_MAX_RANK * 48], tile[KK_MD_MAX_RANK * 24];
  size_t nb = 0, nt = 0;
  int64_t points = 1;
  bool empty = false, box_over = false;
  for (int d = 0; d < (int)l->rank; d++) {
    empty |= l->md_end[d] == l->md_begin[d];
    box_over |= __builtin_mul_overflow(points, l->md_end[d] - l->md_begin[d], &points);
    nb += (size_t)snprintf(box + nb, sizeof box - nb, "%s[%lld, %lld)", d ? " x " : "", (long long)l->md_begin[d],
                           (long long)l->md_end[d]);
    nt += (size_t)snprintf(tile + nt, sizeof tile - nt, "%s%lld", d ? " x " : "", (long long)l->md_tile[d]);
  }
  if (box_over && !empty)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': the box %s has more points than int64_t counts (%lld)", op,
                     lb, box, (long long)INT64_MAX);
  return kk__error(KK_ERROR_INVALID_ARGUMENT,
                   "%s '%s': a tile of %s has more points than int64_t counts (%lld) (box %s)", op, lb, tile,
                   (long long)INT64_MAX, box);
}

static kk_status_t prepare_md(const char *op, const char *label, const kk_md_policy_t *p, const kk_kernel_t *k,
                              const void *args, size_t args_size, uint32_t kind, kk_launch_t *l, kk__backend_t **bp,
                              kk_instance_t **ip) {
  const char *lb = label ? label : "";
  if (KK__UNLIKELY(!p || p->struct_size < sizeof(kk_md_policy_t)))
    return policy_refused(op, lb, p, sizeof(kk_md_policy_t), "kk_md_policy_t", "KK_MD2() or KK_MD3()");
  kk_status_t st = prepare(op, label, k, args, args_size, kind, p->instance, l, bp, ip);
  if (KK__UNLIKELY(st != KK_OK))
    return st;
  if (KK__UNLIKELY(p->rank < 2 || p->rank > KK_MD_MAX_RANK || p->rank != k->rank))
    return kk__error(KK_ERROR_KERNEL_MISMATCH, "%s '%s': the policy has rank %d, kernel '%s' has rank %d (2..%d)", op,
                     lb, p->rank, k->name, k->rank, KK_MD_MAX_RANK);
  for (int d = 0; d < p->rank; d++) {
    if (KK__UNLIKELY(p->end[d] < p->begin[d]))
      return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': dimension %d: range [%lld, %lld) ends before it begins", op,
                       lb, d, (long long)p->begin[d], (long long)p->end[d]);
    if (KK__UNLIKELY(p->tile[d] < 0))
      return kk__error(KK_ERROR_INVALID_ARGUMENT,
                       "%s '%s': dimension %d: tile %lld is negative (0: the backend's choice)", op, lb, d,
                       (long long)p->tile[d]);
    if (KK__UNLIKELY(!length_fits(p->begin[d], p->end[d])))
      return length_refused(op, lb, d, p->begin[d], p->end[d]);
  }
  if (KK__UNLIKELY((uint32_t)p->outer > KK_ITERATE_LEFT || (uint32_t)p->inner > KK_ITERATE_LEFT))
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': unknown iteration order", op, lb);
  /* the default order follows the default layout of the backend */
  const kk__backend_t *b = *bp;
  uint32_t def = b->devices[b->device].preferred_layout == KK_LAYOUT_LEFT ? KK_ITERATE_LEFT : KK_ITERATE_RIGHT;
  l->rank = p->rank;
  l->iterate_outer = p->outer == KK_ITERATE_DEFAULT ? def : (uint32_t)p->outer;
  l->iterate_inner = p->inner == KK_ITERATE_DEFAULT ? def : (uint32_t)p->inner;
  for (int d = 0; d < p->rank; d++) {
    l->md_begin[d] = p->begin[d];
    l->md_end[d] = p->end[d];
    l->md_tile[d] = p->tile[d];
  }
  return KK__LIKELY(md_fits(l)) ? KK_OK : md_refused(op, lb, l);
}

/* --kokkos-tune-internals: the tool picks the tiles the policy leaves to the
 * backend (0), each in [1, extent]; a dimension it does not answer for stays
 * the backend's choice (the default it is shown is 0). */
static kk_status_t tune_md(const char *op, kk_launch_t *l, size_t *context) {
  static const char *const names[KK_MD_MAX_RANK] = {"tile_0", "tile_1", "tile_2", "tile_3", "tile_4", "tile_5"};
  kk__tune_choice_t c[KK_MD_MAX_RANK];
  int dim[KK_MD_MAX_RANK], n = 0;
  for (int d = 0; d < (int)l->rank; d++) {
    int64_t ext = l->md_end[d] - l->md_begin[d];
    if (l->md_tile[d] == 0 && ext > 0) {
      c[n] = (kk__tune_choice_t){.variable = names[d], .lo = 1, .hi = ext, .value = 0};
      dim[n++] = d;
    }
  }
  if (n == 0)
    return KK_OK;
  kk_status_t st = kk__tools_tune(kk__tools_kernel_name(l), n, c, context);
  for (int i = 0; i < n && st == KK_OK; i++)
    l->md_tile[dim[i]] = c[i].value;
  if (st == KK_OK && !md_fits(l)) { /* the tiles the policy gave times the ones chosen */
    kk__tools_tune_end(*context);
    *context = 0;
    return md_refused(op, l->label, l);
  }
  return st;
}



/* ---- teams ----------------------------------------------------------------------------- */

/* The team-size limits of a launch (vector length and scratch filled in). */
static kk_status_t team_limits(kk__backend_t *b, const kk_launch_t *l, int32_t *max, int32_t *rec) {
  const kk_plugin_device_t *d = &b->devices[b->device];
  *max = d->max_team_size > 0 ? d->max_team_size : 1;
  *rec = 1;
  if (KK_PLUGIN_HAS(&b->ops, team_size_query)) {
    kk_status_t st = b->ops.team_size_query(b->ctx, l, max, rec);
    if (st != KK_OK)
      return st;
  }
  if (*rec > *max)
    *rec = *max;
  if (*rec < 1)
    *rec = 1;
  return KK_OK;
}

/* The vector length of a team launch.  KK_AUTO: the device's warp (lanes that
 * run in lock-step, so that a nested vector loop is coalesced on a GPU), 1 on
 * a CPU, never beyond the device's maximum. */
static int32_t vector_length_of(const kk_plugin_device_t *d, int32_t asked) {
  if (asked)
    return asked;
  int32_t maxv = d->max_vector_length > 0 ? d->max_vector_length : 1, w = d->warp_size > 1 ? d->warp_size : 1;
  return w < maxv ? w : maxv;
}

/* team_limits, with the bound that scratch per thread also puts on the team
 * size (max may become 0: no team fits; rec is then 0 too). */
static kk_status_t team_bounds(kk__backend_t *b, const kk_launch_t *l, int32_t *max, int32_t *rec) {
  kk_status_t st = team_limits(b, l, max, rec);
  if (st != KK_OK)
    return st;
  const kk_plugin_device_t *d = &b->devices[b->device];
  for (int lv = 0; lv < 2; lv++)
    if (l->scratch_thread[lv] > 0) {
      uint64_t room = d->scratch_max[lv] > l->scratch_team[lv] ? d->scratch_max[lv] - l->scratch_team[lv] : 0;
      if ((uint64_t)*max > room / l->scratch_thread[lv])
        *max = (int32_t)(room / l->scratch_thread[lv]);
    }
  if (*rec > *max)
    *rec = *max;
  return KK_OK;
}

/* scratch_team + team_size * scratch_thread in *need; false when the sum
 * does not fit in 64 bits (no backend has that much). */
static inline bool scratch_need(uint64_t team, int32_t team_size, uint64_t thread, uint64_t *need) {
  uint64_t threads;
  return !__builtin_mul_overflow((uint64_t)(team_size > 0 ? team_size : 0), thread, &threads) &&
         !__builtin_add_overflow(team, threads, need);
}

/* The one sentence every backend gives for a scratch request over its limit. */
static kk_status_t scratch_refused(const char *op, const char *lb, int lv, uint64_t team, int32_t team_size,
                                   uint64_t thread, const kk__backend_t *b, const kk_plugin_device_t *d) {
  uint64_t need;
  char total[64];
  if (scratch_need(team, team_size, thread, &need))
    snprintf(total, sizeof total, "%llu", (unsigned long long)need);
  else
    snprintf(total, sizeof total, "more than %llu", (unsigned long long)UINT64_MAX);
  return kk__error(KK_ERROR_LIMIT,
                   "%s '%s': scratch level %d: %s bytes per team requested (%llu per team + %d threads x %llu), "
                   "backend %s allows %llu",
                   op, lb, lv, total, (unsigned long long)team, team_size, (unsigned long long)thread, b->name,
                   (unsigned long long)d->scratch_max[lv]);
}

/* The threads of a league, league size x team size x vector length, fit in
 * int64_t (team size and vector length are positive int32_t: their product
 * does). */
static inline bool team_fits(const kk_launch_t *l) {
  int64_t threads;
  return !__builtin_mul_overflow(l->league_size, (int64_t)l->team_size * l->vector_length, &threads);
}

static KK__NOINLINE kk_status_t team_refused(const char *op, const char *lb, const kk_launch_t *l) {
  return kk__error(KK_ERROR_INVALID_ARGUMENT,
                   "%s '%s': league size %lld x team size %d x vector length %d is more threads than int64_t counts "
                   "(%lld)",
                   op, lb, (long long)l->league_size, l->team_size, l->vector_length, (long long)INT64_MAX);
}

static kk_status_t prepare_team(const char *op, const char *label, const kk_team_policy_t *p, const kk_kernel_t *k,
                                const void *args, size_t args_size, uint32_t kind, kk_launch_t *l, kk__backend_t **bp,
                                kk_instance_t **ip) {
  const char *lb = label ? label : "";
  if (KK__UNLIKELY(!p || p->struct_size < sizeof(kk_team_policy_t)))
    return policy_refused(op, lb, p, sizeof(kk_team_policy_t), "kk_team_policy_t", "KK_TEAM()");
  if (KK__UNLIKELY(p->league_size < 0 || p->team_size < 0 || p->vector_length < 0 || p->chunk < 0 ||
                   (uint32_t)p->schedule > KK_SCHEDULE_DYNAMIC)) {
    if (p->league_size < 0)
      return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': league size %lld is negative", op, lb,
                       (long long)p->league_size);
    if (p->team_size < 0 || p->vector_length < 0)
      return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': %s %d is negative (KK_AUTO, 0: the backend's choice)", op,
                       lb, p->team_size < 0 ? "team size" : "vector length",
                       p->team_size < 0 ? p->team_size : p->vector_length);
    return schedule_refused(op, lb, p->chunk, p->schedule);
  }
  kk_status_t st = prepare(op, label, k, args, args_size, kind, p->instance, l, bp, ip);
  if (KK__UNLIKELY(st != KK_OK))
    return st;
  kk__backend_t *b = *bp;
  const kk_plugin_device_t *d = &b->devices[b->device];
  l->league_size = p->league_size;
  l->schedule = (uint32_t)p->schedule;
  l->chunk = p->chunk;
  for (int lv = 0; lv < 2; lv++) {
    l->scratch_team[lv] = p->scratch_team[lv];
    l->scratch_thread[lv] = p->scratch_thread[lv];
  }
  int32_t maxv = d->max_vector_length > 0 ? d->max_vector_length : 1;
  l->vector_length = vector_length_of(d, p->vector_length);
  if (KK__UNLIKELY(l->vector_length > maxv))
    return kk__error(KK_ERROR_LIMIT, "%s '%s': vector length %d exceeds the maximum %d of backend %s", op, lb,
                     l->vector_length, maxv, b->name);
  int32_t max, rec;
  l->team_size = p->team_size;
  if ((st = team_limits(b, l, &max, &rec)) != KK_OK)
    return kk__error(st, "%s '%s': %s", op, lb, kk_last_error());
  l->team_size = p->team_size ? p->team_size : rec;
  if (KK__UNLIKELY(!team_fits(l)))
    return team_refused(op, lb, l);
  int bad_level = -1;
  for (int lv = 1; lv >= 0; lv--) {
    uint64_t need;
    if (KK__UNLIKELY(!scratch_need(p->scratch_team[lv], l->team_size, p->scratch_thread[lv], &need) ||
                     need > d->scratch_max[lv]))
      bad_level = lv;
  }
  /* A backend whose team-size query counts the scratch answers "no team
   * fits" (max 0) to a scratch request that is too big; when the team size
   * itself is within the device's limit, the scratch is what to change. */
  if (KK__UNLIKELY(l->team_size > max) && (bad_level < 0 || l->team_size > d->max_team_size))
    return kk__error(KK_ERROR_LIMIT, "%s '%s': team size %d exceeds the maximum %d of kernel '%s' on %s of backend %s%s",
                     op, lb, l->team_size, max, k->name,
                     (*ip)->plugin_inst ? "this created instance" : "the default instance", b->name,
                     max == 0 ? " (no team fits: the scratch requested and the kernel's own memory leave no room)"
                              : "");
  if (KK__UNLIKELY(bad_level >= 0))
    return scratch_refused(op, lb, bad_level, p->scratch_team[bad_level], l->team_size,
                           p->scratch_thread[bad_level], b, d);
  return KK_OK;
}

/* --kokkos-tune-internals: the tool picks what the policy leaves to KK_AUTO,
 * in one context: the vector length among the powers of two up to the
 * device's maximum, the team size in [1, the largest this launch allows with
 * the default vector length].  If the chosen vector length lowers that
 * largest team size, a tuned team size is lowered to it; a vector length
 * that leaves no room for the team size is not taken. */
static kk_status_t tune_team(const char *op, kk__backend_t *b, const kk_team_policy_t *p, kk_launch_t *l,
                             size_t *context) {
  if (p->team_size != KK_AUTO && p->vector_length != KK_AUTO)
    return KK_OK;
  const char *name = kk__tools_kernel_name(l);
  const kk_plugin_device_t *d = &b->devices[b->device];
  kk__tune_choice_t c[2];
  int n = 0, vi = -1, ti = -1;
  int32_t max, rec;
  kk_status_t st;
  if (p->vector_length == KK_AUTO)
    c[vi = n++] = (kk__tune_choice_t){.variable = "vector_length", .lo = 1,
                                      .hi = d->max_vector_length > 0 ? d->max_vector_length : 1, .pow2 = true,
                                      .value = l->vector_length};
  if (p->team_size == KK_AUTO) {
    if ((st = team_bounds(b, l, &max, &rec)) != KK_OK)
      return kk__error(st, "tuning team launch '%s': %s", name, kk_last_error());
    c[ti = n++] = (kk__tune_choice_t){.variable = "team_size", .lo = 1, .hi = max >= 1 ? max : 1,
                                      .value = l->team_size};
  }
  const int32_t vdef = l->vector_length;
  if ((st = kk__tools_tune(name, n, c, context)) != KK_OK)
    return st;
  if (ti >= 0)
    l->team_size = (int32_t)c[ti].value;
  if (vi >= 0 && c[vi].value != vdef) {
    l->vector_length = (int32_t)c[vi].value;
    if ((st = team_bounds(b, l, &max, &rec)) != KK_OK) {
      kk__tools_tune_end(*context);
      *context = 0;
      return kk__error(st, "tuning team launch '%s': %s", name, kk_last_error());
    }
    if (max < 1 || (ti < 0 && l->team_size > max)) {
      kk__debug("tuning team launch '%s': vector length %d leaves room for no team of %d; keeping %d", name,
                l->vector_length, l->team_size, vdef);
      l->vector_length = vdef; /* a tuned team size was chosen within the bound of vdef */
    } else if (l->team_size > max) {
      kk__debug("tuning team launch '%s': team size %d lowered to %d, the most vector length %d allows", name,
                l->team_size, max, l->vector_length);
      l->team_size = max;
    }
  }
  if (!team_fits(l)) { /* the league the policy gave times the sizes chosen */
    kk__tools_tune_end(*context);
    *context = 0;
    return team_refused(op, l->label, l);
  }
  return KK_OK;
}



kk_status_t kk__launch_team_size(const char *op, const kk_kernel_t *k, const kk_team_policy_t *p, int *out, bool want_max) {
  KK__REQUIRE_INIT(op);
  if (!k || !out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op, !k ? "the kernel" : "out");
  if (!p || p->struct_size < sizeof(kk_team_policy_t))
    return policy_refused(op, k->name, p, sizeof(kk_team_policy_t), "kk_team_policy_t", "KK_TEAM()");
  if (k->kind != KK_KIND_TEAM_FOR && k->kind != KK_KIND_TEAM_REDUCE)
    return kk__error(KK_ERROR_KERNEL_MISMATCH, "%s: kernel '%s' is a %s kernel, not a team kernel", op, k->name,
                     kind_name(k->kind));
  if (p->instance && kk__stale(p->instance->gen))
    return kk__stale_error(op, "the policy's instance", NULL);
  kk_instance_t *inst = p->instance ? p->instance : kk__g.def->default_instance;
  kk__backend_t *b = inst->backend;
  kk_launch_t l;
  memset(&l, 0, sizeof l);
  l.struct_size = sizeof l;
  l.kind = k->kind;
  l.kernel = k;
  l.label = k->name;
  l.instance = inst->plugin_inst;
  l.league_size = p->league_size;
  l.vector_length = vector_length_of(&b->devices[b->device], p->vector_length);
  for (int lv = 0; lv < 2; lv++) {
    l.scratch_team[lv] = p->scratch_team[lv];
    l.scratch_thread[lv] = p->scratch_thread[lv];
  }
  if (!(b->ops.flags & KK_PLUGIN_FLAG_HOST) && !(l.device_kernel = kk__kernel_cached(k))) {
    kk_status_t st = kk__kernel_resolve(k, b, &l.device_kernel); /* the first use of the kernel: under the lock */
    if (st != KK_OK)
      return kk__error(st, "%s: %s", op, kk_last_error());
  }
  int32_t max, rec;
  kk_status_t st = team_bounds(b, &l, &max, &rec);
  if (st != KK_OK)
    return kk__error(st, "%s: %s", op, kk_last_error());
  *out = want_max ? max : rec;
  return KK_OK;
}

/* ---- the launch -------------------------------------------------------------------------- */

const char *kk__call_name(kk__call_t call) {
  static const char *const names[] = {
      [KK__CALL_FOR] = "kk_parallel_for",
      [KK__CALL_REDUCE] = "kk_parallel_reduce",
      [KK__CALL_REDUCE_VIEW] = "kk_parallel_reduce_view",
      [KK__CALL_SCAN] = "kk_parallel_scan",
      [KK__CALL_FOR_MD] = "kk_parallel_for_md",
      [KK__CALL_REDUCE_MD] = "kk_parallel_reduce_md",
      [KK__CALL_FOR_TEAM] = "kk_parallel_for_team",
      [KK__CALL_REDUCE_TEAM] = "kk_parallel_reduce_team",
  };
  return (unsigned)call < sizeof names / sizeof *names ? names[call] : "kk_parallel_*";
}

/* kk_parallel_reduce_view's result: one value, in a space the backend writes. */
static kk_status_t result_view(const char *op, kk_launch_t *l, const kk__backend_t *b, kk_view_t *result) {
  kk_status_t st;
  if (KK__UNLIKELY(result && (st = kk__view_check(op, result)) != KK_OK))
    return st;
  const kk_kernel_t *k = l->kernel;
  size_t bytes = result ? kk_view_span(result) * kk_view_elem_size(result) : 0;
  if (KK__UNLIKELY(!result || !k->reducer || bytes != k->reducer->value_size))
    return kk__error(KK_ERROR_KERNEL_MISMATCH,
                     "%s '%s': kernel '%s' reduces a %u-byte value, the result view %s%s%s has %zu bytes", op,
                     l->label, k->name, k->reducer ? k->reducer->value_size : 0, result ? "'" : "",
                     result ? kk_view_label(result) : "(NULL)", result ? "'" : "", bytes);
  kk_space_t *space = kk_view_space(result);
  if (space->backend == b)
    l->result_space = space->index;
  else if ((b->ops.flags & KK_PLUGIN_FLAG_HOST) && kk_space_host_accessible(space))
    l->result_space = KK_PLUGIN_HOST_MEMORY;
  else
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s '%s': backend %s cannot write the result view '%s' in space %s",
                     op, l->label, b->name, kk_view_label(result), space->name);
  l->result = kk_view_data(result);
  return KK_OK;
}

kk_status_t kk__launch_build(kk__launch_t *L, const char *op, kk__call_t call, const char *label, const void *policy,
                             const kk_kernel_t *k, const void *args, size_t args_size, void *result,
                             size_t result_size) {
  kk_launch_t *l = &L->l;
  kk__backend_t **bp = &L->backend;
  kk_instance_t **ip = &L->instance;
  kk_status_t st;
  L->tune = 0;
  switch (call) {
  case KK__CALL_FOR:
    return prepare_range(op, label, policy, k, args, args_size, KK_KIND_FOR, l, bp, ip);
  case KK__CALL_REDUCE:
    if (KK__UNLIKELY((st = prepare_range(op, label, policy, k, args, args_size, KK_KIND_REDUCE, l, bp, ip)) != KK_OK) ||
        KK__UNLIKELY((st = check_result(op, l, result, result_size)) != KK_OK))
      return st;
    l->result = result;
    return KK_OK;
  case KK__CALL_REDUCE_VIEW:
    if (KK__UNLIKELY((st = prepare_range(op, label, policy, k, args, args_size, KK_KIND_REDUCE, l, bp, ip)) != KK_OK))
      return st;
    return result_view(op, l, *bp, result);
  case KK__CALL_SCAN:
    if (KK__UNLIKELY((st = prepare_range(op, label, policy, k, args, args_size, KK_KIND_SCAN, l, bp, ip)) != KK_OK))
      return st;
    if (KK__UNLIKELY(result && (!k->reducer || result_size != k->reducer->value_size)))
      return kk__error(KK_ERROR_KERNEL_MISMATCH, "%s '%s': kernel '%s' scans a %u-byte value, the total has %zu bytes",
                       op, l->label, k->name, k->reducer ? k->reducer->value_size : 0, result_size);
    l->result = result;
    return KK_OK;
  case KK__CALL_FOR_MD:
  case KK__CALL_REDUCE_MD: {
    const uint32_t kind = call == KK__CALL_FOR_MD ? KK_KIND_MD_FOR : KK_KIND_MD_REDUCE;
    if (KK__UNLIKELY((st = prepare_md(op, label, policy, k, args, args_size, kind, l, bp, ip)) != KK_OK) ||
        (kind == KK_KIND_MD_REDUCE && KK__UNLIKELY((st = check_result(op, l, result, result_size)) != KK_OK)) ||
        (KK__UNLIKELY(kk__tools.tune) && (st = tune_md(op, l, &L->tune)) != KK_OK))
      return st;
    l->result = result;
    return KK_OK;
  }
  default: {
    const uint32_t kind = call == KK__CALL_FOR_TEAM ? KK_KIND_TEAM_FOR : KK_KIND_TEAM_REDUCE;
    if (KK__UNLIKELY((st = prepare_team(op, label, policy, k, args, args_size, kind, l, bp, ip)) != KK_OK) ||
        (kind == KK_KIND_TEAM_REDUCE && KK__UNLIKELY((st = check_result(op, l, result, result_size)) != KK_OK)) ||
        (KK__UNLIKELY(kk__tools.tune) && (st = tune_team(op, *bp, policy, l, &L->tune)) != KK_OK))
      return st;
    l->result = result;
    return KK_OK;
  }
  }
}
