#!/bin/bash
# bench/solvers-gpu.sh -- kk-kernels' solvers on a CUDA machine from a built tree (configure --enable-cuda=yes, make): the solver suite on cuda with cuSPARSE off and on, examples/solvers on cuda, kk-bench-solvers on cuda (kk's SpTRSV against cusparseSpSV on the ILU(0) factors; GMRES/CG with ILU(0) to 1e-8) and on openmp; every step bounded by a timeout, a summary at the end.
#   usage: bench/solvers-gpu.sh [LAPLACIAN_N [IRREGULAR_ROWS]]   (defaults 100 and 1000000; run from the build tree)
#   OUT: where the logs go (default /tmp/kk-solvers-gpu)
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
OUT=${OUT:-/tmp/kk-solvers-gpu}
N=${1:-100}
R=${2:-1000000}
mkdir -p "$OUT"
export KOKKOS_PLUGIN_PATH=${KOKKOS_PLUGIN_PATH:-$PWD/plugins/.libs}
. "$(dirname "$0")/run-common.sh" # step, note, $summary
step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
step "build what this needs"
make -j16 kernels/tests/check_solvers examples/solvers/solvers bench/kk-bench-solvers tools/kk-info/kk-info \
  >"$OUT/make.log" 2>&1 || { tail -30 "$OUT/make.log"; exit 1; }
step "kk-info (cuSPARSE must be found for the vendor rows)"
timeout 30 tools/kk-info/kk-info 2>&1 | grep -A6 "kk-kernels" | tee "$OUT/kk-info.txt"
step "check_solvers cuda (cuSPARSE on)"
CK_FORK=no timeout 300 kernels/tests/check_solvers cuda >"$OUT/solvers-cuda.log" 2>&1
note "check_solvers cuda" $?
tail -4 "$OUT/solvers-cuda.log"
step "check_solvers cuda (cuSPARSE off: kk's own kernels)"
CK_FORK=no KK_KERNELS_CUSPARSE=off timeout 300 kernels/tests/check_solvers cuda >"$OUT/solvers-cuda-own.log" 2>&1
note "check_solvers cuda, cuSPARSE off" $?
tail -4 "$OUT/solvers-cuda-own.log"
step "examples/solvers on cuda, 32^3"
timeout 300 examples/solvers/solvers --kokkos-device=cuda 32 1e-8 2>&1 | tee "$OUT/example-cuda.txt"
note "examples/solvers cuda" $?
step "kk-bench-solvers cuda --size=$N --rows=$R"
timeout 600 bench/kk-bench-solvers --kokkos-device=cuda --size="$N" --rows="$R" --reps=20 2>&1 | tee "$OUT/bench-cuda.txt"
note "kk-bench-solvers cuda" $?
step "kk-bench-solvers openmp --size=$N --rows=$R"
OMP_PROC_BIND=spread OMP_PLACES=cores timeout 600 bench/kk-bench-solvers --kokkos-device=openmp --size="$N" \
  --rows="$R" --reps=5 2>&1 | tee "$OUT/bench-openmp.txt"
note "kk-bench-solvers openmp" $?
step "summary (logs in $OUT)"
printf "%s" "$summary" | tee "$OUT/summary.txt"
grep -q -e FAIL -e TIMEOUT "$OUT/summary.txt" && exit 1
exit 0
