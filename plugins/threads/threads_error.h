/* plugins/threads/threads_error.h -- the one place where the threads backend turns errno, pthread and hwloc failures into kk statuses and messages. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_THREADS_ERROR_H
#define KK_PLUGINS_THREADS_ERROR_H

#include "host_error.h"

/* pthread, hwloc and C library failures arrive as errno values, which
 * host_error.h maps to statuses and messages like every host backend's;
 * threads_warn is for failures the backend works around (binding). */
#define threads_fail kkh_fail
#define threads_warn kkh_warn

#endif
