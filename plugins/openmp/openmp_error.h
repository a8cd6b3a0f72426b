/* plugins/openmp/openmp_error.h -- the one place where the openmp backend turns failures into kk statuses and messages. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_OPENMP_ERROR_H
#define KK_PLUGINS_OPENMP_ERROR_H

#include "host_error.h"

/* The OpenMP API reports no errors of its own (a region that gets fewer
 * threads than asked is handled in openmp_launch.c); what can fail are
 * allocations and pthread calls, as errno values, which host_error.h maps
 * to statuses and messages like every host backend's. */
#define openmp_fail kkh_fail

#endif
