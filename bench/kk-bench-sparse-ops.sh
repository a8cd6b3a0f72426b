#!/bin/bash
# bench/kk-bench-sparse-ops.sh -- the GPU run of SpGEMM, SpAdd, coloring, MIS-2 and Gauss-Seidel on a CUDA machine, from a built tree
# (configure with cuda on, `make`): the conformance suite on cuda, then kk-bench-sparse-ops on cuda (kk against
# cusparseSpGEMM, and SpAdd against cusparseDcsrgeam2 with C checked), SpAdd's steps on cuda as kk-kernel-logger
# --times lists them (each event with the microseconds since the one before: allocations, kernels, fences, and the
# host time between them), and kk-bench-sparse-ops on openmp (kk against an OpenMP native version and, where a
# libgraphblas is found at run time, SuiteSparse:GraphBLAS, 16 threads).  Every step is bounded by a timeout; logs go
# to $OUT, and the last lines print a summary.
#   usage: bench/kk-bench-sparse-ops.sh        (from the built tree; OUT defaults to /tmp/kk-sparse-ops-run)
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
OUT=${OUT:-/tmp/kk-sparse-ops-run}
mkdir -p "$OUT"
. "$(dirname "$0")/run-common.sh" # step
export KOKKOS_PLUGIN_PATH=$PWD/plugins/.libs
step "build what the run needs"
make -j16 kernels/tests/check_sparse_ops bench/kk-bench-sparse-ops tools/profilers/kk-kernel-logger.la >"$OUT/make.log" 2>&1 || { tail -30 "$OUT/make.log"; exit 1; }
step "check_sparse_ops cuda"
CK_FORK=no timeout 300 kernels/tests/check_sparse_ops cuda >"$OUT/sparse-ops-cuda.log" 2>&1
SUITE_RC=$?
tail -8 "$OUT/sparse-ops-cuda.log"
step "kk-bench-sparse-ops cuda --full"
timeout 300 bench/kk-bench-sparse-ops --kokkos-device=cuda --full --reps=5 2>&1 | tee "$OUT/bench-cuda.txt"
BENCH_CUDA_RC=$?
step "SpAdd's steps on cuda (kk-kernel-logger --times; the last symbolic + numeric of irregular 200000)"
timeout 300 bench/kk-bench-sparse-ops --kokkos-device=cuda --full --reps=2 --case=spadd \
  --kokkos-tools-libs="$PWD/tools/profilers/.libs/kk-kernel-logger.so" --kokkos-tools-args=--times \
  >"$OUT/trace-cuda.txt" 2>&1
TRACE_RC=$?
n=$(grep -n 'parallel_reduce "kk_sparse_spadd_symbolic"' "$OUT/trace-cuda.txt" | tail -1 | cut -d: -f1)
[ -n "$n" ] && sed -n "$((n - 2)),$((n + 14))p" "$OUT/trace-cuda.txt" | tee "$OUT/trace-spadd.txt"
step "kk-bench-sparse-ops openmp --full (16 threads)"
OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=cores timeout 300 bench/kk-bench-sparse-ops --kokkos-device=openmp \
  --full --reps=3 2>&1 | tee "$OUT/bench-openmp.txt"
BENCH_OMP_RC=$?
step "summary"
echo "check_sparse_ops cuda: rc=$SUITE_RC ($(grep -o '[0-9]*%: Checks: [0-9]*, Failures: [0-9]*, Errors: [0-9]*' "$OUT/sparse-ops-cuda.log" | tail -1))"
echo "kk-bench-sparse-ops cuda: rc=$BENCH_CUDA_RC; traced: rc=$TRACE_RC; openmp: rc=$BENCH_OMP_RC (tables above; speed = native time / kk time)"
echo "SpAdd on cuda against cusparseDcsrgeam2 (target: symbolic+numeric speed >= 1.0):"
grep -A1 '^spadd .*cusparseDcsrgeam2' "$OUT/bench-cuda.txt" || echo "  (no SpAdd row against cuSPARSE: see $OUT/bench-cuda.txt)"
grep 'kk-bench-sparse-ops: spadd' "$OUT/bench-cuda.txt" && echo "  SpAdd: kk's C and cuSPARSE's DIFFER (above)"
echo "SpGEMM of the irregular matrix on cuda:"
grep -A1 '^spgemm .*irregular.*cusparseSpGEMM' "$OUT/bench-cuda.txt"
echo "SpAdd's last symbolic + numeric on cuda, event by event (us since the event before; $OUT/trace-spadd.txt):"
cat "$OUT/trace-spadd.txt" 2>/dev/null || echo "  (no trace: see $OUT/trace-cuda.txt)"
echo "SpAdd and coloring on openmp:"
grep -A3 '^spadd ' "$OUT/bench-openmp.txt" | head -4
grep '^color EB' "$OUT/bench-openmp.txt"
