/* core/loader.h -- finding, checking, starting and stopping backends (core/loader.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_LOADER_H
#define KK_CORE_LOADER_H

#include "internal.h"

/* Starts the built-in serial backend, then scans the plugin path and loads,
 * checks and initializes every plugin; appends them all to kk__g.backends.
 * Failures are recorded, never returned. */
void kk__load_all(void);

/* After the backends are selected and before their devices open: gives the
 * initializing thread back the CPU affinity it had before kk__load_all when a
 * plugin that is neither the default nor the host backend changed it while
 * loading (libgomp binds the thread that loads it under OMP_PROC_BIND), so
 * that an unused plugin does not decide where the threads backend's workers
 * run.  A change made by a selected backend stays. */
void kk__loader_restore_affinity(void);

/* Validates an entry's ops table and copies it into b->ops; on failure sets
 * b->state/reason.  Exposed for the loader tests. */
bool kk__adopt_ops(kk__backend_t *b, const kk_plugin_ops_t *ops);

/* Initializes a loaded backend and queries its devices and spaces; on failure
 * records the reason.  */
void kk__backend_start(kk__backend_t *b);
/* Finalizes and unloads. */
void kk__backend_stop(kk__backend_t *b);

/* Installed plugin directory, from configure. */
const char *kk__installed_plugin_dir(void);

#endif /* KK_CORE_LOADER_H */
