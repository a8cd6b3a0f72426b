/* bench/bench.h -- argument structs shared by kk-bench.c and bench.kk.c. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk.h>

struct triad_args { double s; kk_view a, b, c; };   /* a = b + s c */
struct pair_args { kk_view x, y; };
struct none_args { int unused; };

KK_DECLARE_KERNEL(bench_triad);
KK_DECLARE_KERNEL(bench_dot);
KK_DECLARE_KERNEL(bench_scan);
KK_DECLARE_KERNEL(bench_empty_for);
KK_DECLARE_KERNEL(bench_empty_reduce);
KK_DECLARE_KERNEL(bench_init);
KK_DECLARE_KERNEL(bench_iota5);
KK_DECLARE_KERNEL(bench_scan_i64);
