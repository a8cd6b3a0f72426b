#!/bin/bash
# bench/sparse-gpu.sh -- one command for the GPU checks and benches of kk-kernels' SpGEMM (rows binned by size) and SpTRSV (sync-free) against cuSPARSE, from a built tree (configure with cuda on, `make`): check_sparse_ops and check_solvers on cuda (the latter with cuSPARSE off, so kk's own kernels run, and on), then kk-bench-sparse-ops --full on cuda (SpGEMM against cusparseSpGEMM) and kk-bench-solvers on cuda (SpTRSV on the ILU(0) factors against cusparseSpSV; it stops with an error when kk's x differs from a serial solve's).  Every step is bounded by a timeout; logs go to $OUT; the last lines are a summary.
#   usage: bench/sparse-gpu.sh [LAPLACIAN_N [IRREGULAR_ROWS]]   (defaults 64 and 200000, the sizes of the last figures in
#   docs/benchmarks.md; 100 1000000 for the full problem; run from the build tree)
#   OUT: where the logs go (default /tmp/kk-sparse-gpu)
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
OUT=${OUT:-/tmp/kk-sparse-gpu}
N=${1:-64}
R=${2:-200000}
mkdir -p "$OUT"
export KOKKOS_PLUGIN_PATH=${KOKKOS_PLUGIN_PATH:-$PWD/plugins/.libs}
. "$(dirname "$0")/run-common.sh" # step, note, $summary
step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
step "build what this needs"
make -j16 kernels/tests/check_sparse_ops kernels/tests/check_solvers bench/kk-bench-sparse-ops bench/kk-bench-solvers \
  >"$OUT/make.log" 2>&1 || { tail -30 "$OUT/make.log"; exit 1; }
step "check_sparse_ops cuda (SpGEMM, SpAdd: every bin of the GPU kernels)"
CK_FORK=no timeout 300 kernels/tests/check_sparse_ops cuda >"$OUT/sparse-ops-cuda.log" 2>&1
note "check_sparse_ops cuda" $?
tail -4 "$OUT/sparse-ops-cuda.log"
step "check_solvers cuda, cuSPARSE off (kk's SpTRSV: sync-free and levels)"
CK_FORK=no KK_KERNELS_CUSPARSE=off timeout 300 kernels/tests/check_solvers cuda >"$OUT/solvers-cuda-own.log" 2>&1
note "check_solvers cuda, cuSPARSE off" $?
tail -4 "$OUT/solvers-cuda-own.log"
step "check_solvers cuda, cuSPARSE on"
CK_FORK=no timeout 300 kernels/tests/check_solvers cuda >"$OUT/solvers-cuda.log" 2>&1
note "check_solvers cuda" $?
tail -4 "$OUT/solvers-cuda.log"
step "kk-bench-sparse-ops cuda --full (SpGEMM against cusparseSpGEMM)"
timeout 300 bench/kk-bench-sparse-ops --kokkos-device=cuda --full --reps=5 2>&1 | tee "$OUT/bench-sparse-ops-cuda.txt"
note "kk-bench-sparse-ops cuda" $?
step "kk-bench-solvers cuda --size=$N --rows=$R (SpTRSV against cusparseSpSV)"
timeout 600 bench/kk-bench-solvers --kokkos-device=cuda --size="$N" --rows="$R" --reps=20 2>&1 |
  tee "$OUT/bench-solvers-cuda.txt"
note "kk-bench-solvers cuda" $?
step "summary (logs in $OUT)"
grep -i "spgemm" "$OUT/bench-sparse-ops-cuda.txt" | tee "$OUT/summary.txt"
grep -i "sptrsv" "$OUT/bench-solvers-cuda.txt" | tee -a "$OUT/summary.txt"
printf "%s" "$summary" | tee -a "$OUT/summary.txt"
grep -q -e FAIL -e TIMEOUT "$OUT/summary.txt" && exit 1
exit 0
