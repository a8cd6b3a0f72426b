/* bench/bench_graph.h -- argument structs of the graph benchmarks (kk-bench-graph.c, bench_graph.kk.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk.h>

/* CG with its scalars in rank-0 views: out = num / den (one thread), then
 * y += sign a x and y = x + a y with a read from its view. */
struct ratio_args { kk_view out, num, den; };
struct svec_args { kk_view a; double sign; kk_view x, y; };
/* the fused forms: y += sign (num / den) x and y = x + (num / den) y */
struct rvec_args { kk_view num, den; double sign; kk_view x, y; };

KK_DECLARE_KERNEL(graph_ratio);
KK_DECLARE_KERNEL(graph_axpy_v);
KK_DECLARE_KERNEL(graph_xpay_v);
KK_DECLARE_KERNEL(graph_axpy_ratio);
KK_DECLARE_KERNEL(graph_xpay_ratio);
