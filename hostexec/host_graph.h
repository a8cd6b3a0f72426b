/* hostexec/host_graph.h -- graphs on the host backends: every node of a graph in one parallel region. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_HOST_GRAPH_H
#define KK_PLUGINS_HOST_GRAPH_H

#include <kk/plugin.h>

#include "host_exec.h"

/* A graph as a host backend runs it.  Its nodes are cut up for the team's
 * threads once (the plan), then each run is one parallel region: every
 * thread does its share of each node of a dependency level, and the threads
 * meet at a barrier only between levels, so independent nodes never wait
 * for each other.  A reduction's value is joined by the thread that
 * finishes the node's last share, before that barrier.  The plan follows the
 * team's thread count: a run on a team of another size plans again (which
 * allocates). */
typedef struct kkh_graph kkh_graph_t;

/* Copies what it needs of `desc` (arguments, patterns, labels) and plans it
 * for `nthreads` threads.  Errors: KK_ERROR_INVALID_ARGUMENT for a malformed
 * description, KK_ERROR_UNSUPPORTED for a fill pattern size it has no form
 * for, KK_ERROR_OUT_OF_MEMORY, and a kernel's own (no host code, a team
 * larger than the backend). */
kk_status_t kkh_graph_create(const kk_host_services_t *hs, const kk_graph_desc_t *desc, int nthreads,
                             kkh_graph_t **out);

/* Runs the whole graph on `ex` (whose claim the caller holds) and returns
 * when it is done.  Allocation-free unless ex has another thread count than
 * the last run's.  An executor whose region ran nothing (openmp's short
 * team) may call it again. */
kk_status_t kkh_graph_run(kkh_exec_t *ex, const kk_host_services_t *hs, kkh_graph_t *g);

/* Node `node`, a kernel node, runs with `launch` from the next run on (its
 * arguments are copied now).  KK_ERROR_UNSUPPORTED for another kernel or
 * argument size: the core then builds the graph anew. */
kk_status_t kkh_graph_update(const kk_host_services_t *hs, kkh_graph_t *g, uint32_t node, const kk_launch_t *launch);

void kkh_graph_destroy(kkh_graph_t *g);

#endif
