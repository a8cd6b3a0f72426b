/* core/launch.h -- the checked launch (core/launch.c): what every launch a backend gets is built by, and the one call of a backend's launch op. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_LAUNCH_H
#define KK_CORE_LAUNCH_H

#include "internal.h"

/* The public calls that launch a kernel, by the policy and result they take. */
typedef enum kk__call {
  KK__CALL_FOR,          /* kk_parallel_for: a range policy */
  KK__CALL_REDUCE,       /* kk_parallel_reduce: a range policy, a host result */
  KK__CALL_REDUCE_VIEW,  /* kk_parallel_reduce_view: a range policy, a result view */
  KK__CALL_SCAN,         /* kk_parallel_scan: a range policy, a host total or none */
  KK__CALL_FOR_MD,       /* kk_parallel_for_md: an MDRange policy */
  KK__CALL_REDUCE_MD,    /* kk_parallel_reduce_md: an MDRange policy, a host result */
  KK__CALL_FOR_TEAM,     /* kk_parallel_for_team: a team policy */
  KK__CALL_REDUCE_TEAM,  /* kk_parallel_reduce_team: a team policy, a host result */
} kk__call_t;

/* The public call's name ("kk_parallel_for", ...), as errors name it. */
const char *kk__call_name(kk__call_t call);

/* A checked launch: what the backend's launch op gets, where it goes, and
 * the tuning context (0: none) that closes once it ran or was recorded. */
typedef struct kk__launch {
  kk_launch_t l;
  kk__backend_t *backend;
  kk_instance_t *instance;
  size_t tune;
} kk__launch_t;

/* Checks the launch `call` of kernel k over `policy` (of the type the call
 * takes) and builds it into *L: the backend and instance the policy names
 * (the default instance when none), the device kernel, the launch with its
 * sizes and result, and, with a tuning tool, the choices the policy leaves
 * to KK_AUTO.  result is the host result (result_size bytes), the scan's
 * total (NULL: none), or for KK__CALL_REDUCE_VIEW the kk_view_t that gets
 * it.  `op` names the call in errors.  On the common path it only compares:
 * no allocation, locking or formatting.  Returns the error of a launch that
 * is refused, with its message. */
kk_status_t kk__launch_build(kk__launch_t *L, const char *op, kk__call_t call, const char *label, const void *policy,
                             const kk_kernel_t *k, const void *args, size_t args_size, void *result,
                             size_t result_size);

/* Runs a built launch on its instance (with a kernel built with kkcc
 * --bounds-check on a host backend, under a bounds record), then closes its
 * tuning context.  A backend's failure becomes "<op> '<label>' (kernel
 * '<k>') on backend <b> failed: <why>".  The caller has made sure that the
 * instance is not capturing a graph (kk__capturing). */
kk_status_t kk__launch_run(const char *op, const kk__launch_t *L);

/* Runs l on inst of b, between a tool's begin and end events when a tool
 * is active, and closes the tuning context tune_context (0: none) after
 * them.  Returns the backend's status as it is (graph replays). */
kk_status_t kk__launch_exec(kk__backend_t *b, kk_instance_t *inst, const kk_launch_t *l, size_t tune_context);

/* The one call of a backend's launch op; everything above ends here. */
static inline kk_status_t kk__launch_call(kk__backend_t *b, kk_instance_t *inst, const kk_launch_t *l) {
  return b->ops.launch(b->ctx, inst->plugin_inst, l);
}

/* kk_team_size_max (want_max) and kk_team_size_recommended: the team sizes
 * a launch of team kernel k over p may use.  Takes the registry's lock only
 * at the first use of a device kernel. */
kk_status_t kk__launch_team_size(const char *op, const kk_kernel_t *k, const kk_team_policy_t *p, int *out,
                                 bool want_max);

#endif /* KK_CORE_LAUNCH_H */
