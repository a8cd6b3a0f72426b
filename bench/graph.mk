# bench/graph.mk -- kk-bench's graph cases, included by Makefile.am.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
bench_kk_bench_SOURCES += bench/kk-bench-graph.c bench/bench_graph.h bench/kk-bench-graph.h
BENCH_KERNELS += bench/bench_graph.kk.o
bench/bench_graph.kk.o: bench/bench_graph.h
EXTRA_DIST += bench/bench_graph.kk.c
