/* plugins/threads/threads_topo.c -- the threads backend's binding targets: the hwloc topology and the order of the cores of the process's affinity mask. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef KK_HAVE_HWLOC
#include <hwloc.h>
#endif

#include "threads_error.h"
#include "threads_internal.h"

/* ===========================================================================
 * Binding targets
 *
 * The PUs of the process's affinity mask (restricted to what the cgroup
 * allows), ordered so that the first targets are on distinct cores: the
 * first PU of every core, then the second PU of every core, and so on.
 * Thread i of a pool goes to target (first + i) modulo their number, which is
 * round-robin once there are more threads than PUs.
 * ======================================================================== */

struct threads_topo {
#ifdef KK_HAVE_HWLOC
  hwloc_topology_t topo;
#endif
  int ntargets;
  int *pu; /* OS index of each target PU */
};

void threads_topo_open(threads_ctx_t *ctx) {
  const kk_host_services_t *hs = ctx->hs;
  if (!ctx->bind) {
    hs->log(hs->core, KK_LOG_INFO, "option bind is false: workers are not bound to cores");
    return;
  }
#ifndef KK_HAVE_HWLOC
  hs->log(hs->core, KK_LOG_INFO, "built without hwloc: workers are not bound to cores");
#else
  threads_topo_t *t = calloc(1, sizeof *t);
  if (!t) {
    threads_warn(hs, ENOMEM, "workers are not bound to cores: no memory for the topology");
    return;
  }
  if (hwloc_topology_init(&t->topo) != 0) {
    threads_warn(hs, errno, "workers are not bound to cores: hwloc_topology_init failed");
    free(t);
    return;
  }
  if (hwloc_topology_load(t->topo) != 0) {
    threads_warn(hs, errno, "workers are not bound to cores: hwloc_topology_load failed");
    goto fail_destroy_topology;
  }
  hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(t->topo);
  hwloc_bitmap_t mask = hwloc_bitmap_alloc();
  if (!mask) {
    threads_warn(hs, ENOMEM, "workers are not bound to cores: hwloc_bitmap_alloc failed");
    goto fail_destroy_topology;
  }
  /* The calling thread's mask is what taskset, numactl or a batch system gave
   * the process (kkh_num_cores() counts the same mask). */
  if (hwloc_get_cpubind(t->topo, mask, HWLOC_CPUBIND_THREAD) != 0)
    hwloc_bitmap_copy(mask, allowed);
  hwloc_bitmap_and(mask, mask, allowed);
  if (hwloc_bitmap_iszero(mask))
    hwloc_bitmap_copy(mask, allowed);
  int npu = hwloc_bitmap_weight(mask);
  t->pu = npu > 0 ? malloc((size_t)npu * sizeof *t->pu) : NULL;
  if (!t->pu) {
    threads_warn(hs, ENOMEM, "workers are not bound to cores: no usable PU in the affinity mask or no memory");
    goto fail_free_mask;
  }
  int ncores = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_CORE), n = 0, distinct = 0;
  for (int round = 0; ncores > 0 && n < npu; round++) {
    int added = 0;
    for (int c = 0; c < ncores && n < npu; c++) {
      hwloc_obj_t core = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_CORE, (unsigned)c);
      int k = 0;
      for (int pu = hwloc_bitmap_next(core->cpuset, -1); pu >= 0; pu = hwloc_bitmap_next(core->cpuset, pu)) {
        if (!hwloc_bitmap_isset(mask, (unsigned)pu))
          continue;
        if (k++ == round) {
          t->pu[n++] = pu;
          added++;
          break;
        }
      }
    }
    if (!added)
      break;
    if (round == 0)
      distinct = added;
  }
  if (n < npu) { /* no core objects, or PUs outside every core: take the mask in order */
    for (int pu = hwloc_bitmap_next(mask, -1), i = 0; pu >= 0 && i < npu; pu = hwloc_bitmap_next(mask, pu), i++)
      t->pu[i] = pu, n = i + 1;
    distinct = n;
  }
  /* Target 0 belongs to the launching thread, which is not bound: make it
   * the core that thread runs on now, so that the workers leave that core
   * to it (the scheduler tends to keep a thread where it last ran).  Swapping
   * two entries of the first round keeps one target per core there. */
  int cur = hwloc_get_last_cpu_location(t->topo, mask, HWLOC_CPUBIND_THREAD) == 0 ? hwloc_bitmap_first(mask) : -1;
  if (cur >= 0) {
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(t->topo, (unsigned)cur);
    hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_CORE, pu) : NULL;
    for (int j = 0; j < distinct; j++)
      if (core ? hwloc_bitmap_isset(core->cpuset, (unsigned)t->pu[j]) : t->pu[j] == cur) {
        int keep = t->pu[0];
        t->pu[0] = t->pu[j];
        t->pu[j] = keep;
        break;
      }
  }
  t->ntargets = n;
  hwloc_bitmap_free(mask);
  ctx->topo = t;
  hs->log(hs->core, KK_LOG_DEBUG,
          "%d binding targets (PUs) in the affinity mask, %d cores in the machine; the launching thread runs on PU %d",
          n, ncores, cur);
  return;

fail_free_mask:
  hwloc_bitmap_free(mask);
fail_destroy_topology:
  hwloc_topology_destroy(t->topo);
  free(t);
#endif
}

void threads_topo_close(threads_ctx_t *ctx) {
  threads_topo_t *t = ctx->topo;
  if (!t)
    return;
#ifdef KK_HAVE_HWLOC
  hwloc_topology_destroy(t->topo);
#endif
  free(t->pu);
  free(t);
  ctx->topo = NULL;
}

int threads_topo_targets(const threads_topo_t *t) { return t->ntargets; }

int threads_topo_pu(const threads_topo_t *t, int target) { return t->pu[target]; }

int threads_topo_bind(const threads_topo_t *t, int target) {
#ifdef KK_HAVE_HWLOC
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (!set)
    return ENOMEM;
  hwloc_bitmap_only(set, (unsigned)t->pu[target]);
  errno = 0;
  int err = 0;
  if (hwloc_set_cpubind(t->topo, set, HWLOC_CPUBIND_THREAD) != 0)
    err = errno ? errno : EINVAL;
  hwloc_bitmap_free(set);
  return err;
#else
  (void)t, (void)target;
  return 0;
#endif
}
