/* bench/kk-bench-graph.h -- the entry point of kk-bench's graph cases (kk-bench-graph.c), kept out of the kernel files' headers. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_GRAPH_CASES_H
#define KK_BENCH_GRAPH_CASES_H

/* Graphs: a chain of small kernels as a graph and one by one, CG with its
 * iteration as a graph (kk-bench-graph.c). */
void bench_graph(const char *backend, int nt, int reps, const char *cases, int quick, int smoke);

#endif
