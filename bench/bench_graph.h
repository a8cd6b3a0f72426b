/* bench/bench_graph.h -- argument structs of the graph benchmarks (kk-bench-graph.c, bench_graph.kk.c). */
#include <kk.h>

/* CG with its scalars on the device: y += sign (num / den) x, y = x + (num / den) y */
struct ratio_args { kk_view num, den; double sign; kk_view x, y; };

KK_DECLARE_KERNEL(graph_axpy_ratio);
KK_DECLARE_KERNEL(graph_xpay_ratio);
