/* core/dispatch.c -- every kk_parallel_*: build the checked launch (core/launch.c), then record it into the graph its instance captures or run it. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include "capture.h"
#include "launch.h"
#include "status.h"

/* A launch on an instance that is capturing a graph is recorded, not run. */
static inline kk_status_t run(const char *op, const kk__launch_t *L) {
  if (KK__UNLIKELY(kk__capturing(L->instance)))
    return kk__graph_record_launch(op, L->instance, &L->l, L->tune);
  return kk__launch_run(op, L);
}

kk_status_t kk_parallel_for(const char *label, const kk_range_policy_t *policy, const kk_kernel_t *kernel,
                            const void *args, size_t args_size) {
  kk__launch_t L;
  kk_status_t st = kk__launch_build(&L, "kk_parallel_for", KK__CALL_FOR, label, policy, kernel, args, args_size, NULL, 0);
  return KK__LIKELY(st == KK_OK) ? run("kk_parallel_for", &L) : st;
}

kk_status_t kk_parallel_reduce(const char *label, const kk_range_policy_t *policy, const kk_kernel_t *kernel,
                               const void *args, size_t args_size, void *result, size_t result_size) {
  kk__launch_t L;
  kk_status_t st = kk__launch_build(&L, "kk_parallel_reduce", KK__CALL_REDUCE, label, policy, kernel, args, args_size,
                                    result, result_size);
  return KK__LIKELY(st == KK_OK) ? run("kk_parallel_reduce", &L) : st;
}

kk_status_t kk_parallel_reduce_view(const char *label, const kk_range_policy_t *policy, const kk_kernel_t *kernel,
                                    const void *args, size_t args_size, kk_view_t *result) {
  kk__launch_t L;
  kk_status_t st = kk__launch_build(&L, "kk_parallel_reduce_view", KK__CALL_REDUCE_VIEW, label, policy, kernel, args,
                                    args_size, result, 0);
  return KK__LIKELY(st == KK_OK) ? run("kk_parallel_reduce_view", &L) : st;
}

kk_status_t kk_parallel_scan(const char *label, const kk_range_policy_t *policy, const kk_kernel_t *kernel,
                             const void *args, size_t args_size, void *total, size_t total_size) {
  kk__launch_t L;
  kk_status_t st = kk__launch_build(&L, "kk_parallel_scan", KK__CALL_SCAN, label, policy, kernel, args, args_size,
                                    total, total_size);
  return KK__LIKELY(st == KK_OK) ? run("kk_parallel_scan", &L) : st;
}

kk_status_t kk_parallel_for_md(const char *label, const kk_md_policy_t *policy, const kk_kernel_t *kernel,
                               const void *args, size_t args_size) {
  kk__launch_t L;
  kk_status_t st =
      kk__launch_build(&L, "kk_parallel_for_md", KK__CALL_FOR_MD, label, policy, kernel, args, args_size, NULL, 0);
  return KK__LIKELY(st == KK_OK) ? run("kk_parallel_for_md", &L) : st;
}

kk_status_t kk_parallel_reduce_md(const char *label, const kk_md_policy_t *policy, const kk_kernel_t *kernel,
                                  const void *args, size_t args_size, void *result, size_t result_size) {
  kk__launch_t L;
  kk_status_t st = kk__launch_build(&L, "kk_parallel_reduce_md", KK__CALL_REDUCE_MD, label, policy, kernel, args,
                                    args_size, result, result_size);
  return KK__LIKELY(st == KK_OK) ? run("kk_parallel_reduce_md", &L) : st;
}

kk_status_t kk_parallel_for_team(const char *label, const kk_team_policy_t *policy, const kk_kernel_t *kernel,
                                 const void *args, size_t args_size) {
  kk__launch_t L;
  kk_status_t st =
      kk__launch_build(&L, "kk_parallel_for_team", KK__CALL_FOR_TEAM, label, policy, kernel, args, args_size, NULL, 0);
  return KK__LIKELY(st == KK_OK) ? run("kk_parallel_for_team", &L) : st;
}

kk_status_t kk_parallel_reduce_team(const char *label, const kk_team_policy_t *policy, const kk_kernel_t *kernel,
                                    const void *args, size_t args_size, void *result, size_t result_size) {
  kk__launch_t L;
  kk_status_t st = kk__launch_build(&L, "kk_parallel_reduce_team", KK__CALL_REDUCE_TEAM, label, policy, kernel, args,
                                    args_size, result, result_size);
  return KK__LIKELY(st == KK_OK) ? run("kk_parallel_reduce_team", &L) : st;
}

/* kk_call_kind_t to the core's call (kk_call_t has no reduce_view: its
 * result is a view, not host memory). */
static const kk__call_t call_of[] = {
    [KK_CALL_FOR] = KK__CALL_FOR,
    [KK_CALL_REDUCE] = KK__CALL_REDUCE,
    [KK_CALL_SCAN] = KK__CALL_SCAN,
    [KK_CALL_FOR_MD] = KK__CALL_FOR_MD,
    [KK_CALL_REDUCE_MD] = KK__CALL_REDUCE_MD,
    [KK_CALL_FOR_TEAM] = KK__CALL_FOR_TEAM,
    [KK_CALL_REDUCE_TEAM] = KK__CALL_REDUCE_TEAM,
};

static KK__NOINLINE kk_status_t call_refused(const kk_call_t *c) {
  if (!c)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_parallel_call: call is NULL");
  if (c->struct_size < sizeof *c)
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_parallel_call: struct_size is %zu, a kk_call_t has at least %zu bytes (set it to "
                     "sizeof(kk_call_t))",
                     c->struct_size, sizeof *c);
  return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_parallel_call '%s': unknown call kind %d (KK_CALL_FOR .. %d)",
                   c->label ? c->label : "", (int)c->kind, (int)KK_CALL_REDUCE_TEAM);
}

kk_status_t kk_parallel_call(const kk_call_t *c) {
  if (KK__UNLIKELY(!c || c->struct_size < sizeof *c || (uint32_t)c->kind - 1u >= (uint32_t)KK_CALL_REDUCE_TEAM))
    return call_refused(c);
  const kk__call_t call = call_of[c->kind];
  const char *op = kk__call_name(call);
  kk__launch_t L;
  kk_status_t st = kk__launch_build(&L, op, call, c->label, c->policy, c->kernel, c->args, c->args_size, c->result,
                                    c->result_size);
  return KK__LIKELY(st == KK_OK) ? run(op, &L) : st;
}

kk_status_t kk_team_size_max(const kk_kernel_t *kernel, const kk_team_policy_t *policy, int *out) {
  return kk__launch_team_size("kk_team_size_max", kernel, policy, out, true);
}

kk_status_t kk_team_size_recommended(const kk_kernel_t *kernel, const kk_team_policy_t *policy, int *out) {
  return kk__launch_team_size("kk_team_size_recommended", kernel, policy, out, false);
}

size_t kk_scratch_size(size_t elem_size, int64_t count) {
  size_t bytes;
  if (count <= 0)
    return 0;
  /* a request that overflows saturates, so that the launch refuses it */
  if (__builtin_mul_overflow((size_t)count, elem_size, &bytes) || bytes > SIZE_MAX - (KK_SCRATCH_ALIGN - 1))
    return SIZE_MAX;
  return (bytes + (KK_SCRATCH_ALIGN - 1)) & ~(size_t)(KK_SCRATCH_ALIGN - 1);
}
