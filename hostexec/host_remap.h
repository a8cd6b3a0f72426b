/* hostexec/host_remap.h -- copies between views of different layouts on the host: cache tiles over the two unit-stride dimensions, on a team of threads when large. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_HOST_REMAP_H
#define KK_PLUGINS_HOST_REMAP_H

#include <stddef.h>

#include <kk/plugin.h>

#include "host_exec.h"

/* A remap of at least this many bytes runs on the team (a few hundred KB:
 * less is done by one thread before a team would have woken up). */
#define KKH_REMAP_PARALLEL_MIN ((size_t)256 << 10)

/* The threshold in force: KKH_REMAP_PARALLEL_MIN, or the number of bytes in
 * the environment variable KK_REMAP_PARALLEL_MIN (read once; docs/views.md),
 * which lets tests reach the threaded path with small views. */
size_t kkh_remap_parallel_min(void);

/* Copies every element of r->src into r->dst (both host memory), tile by
 * tile: a tile spans the dimension along which dst's stride is smallest and
 * the one along which src's is, so that both the reads and the writes use
 * whole cache lines.  Runs on `ex` (NULL: the calling thread) when the copy
 * has kkh_remap_parallel_min() bytes or more; the caller must own `ex` (hold
 * its claim).  Idempotent (dst and src do not overlap), so a team that ran
 * short of threads may call it again. */
void kkh_remap(kkh_exec_t *ex, const kk_plugin_remap_t *r);

#endif
