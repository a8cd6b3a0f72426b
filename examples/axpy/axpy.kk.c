/* examples/axpy/axpy.kk.c -- y = a x + y, written once for every backend. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "axpy.h"

KK_FOR(axpy, struct axpy_args, i) { KK_AT(args->y, double, i) += args->a * KK_AT(args->x, double, i); }
