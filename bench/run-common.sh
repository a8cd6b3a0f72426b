# bench/run-common.sh -- what bench's GPU run scripts (solvers-gpu.sh, sparse-gpu.sh, dgemm-tc-gpu.sh, host-gemm-gpu.sh,
# kk-bench-kernels-gpu.sh, kk-bench-sparse-ops.sh) share: a header line per step with the time since the start, and a
# summary of each step's outcome.  Sourced, not run; sourcing starts the clock.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

T0=$(date +%s)
step() { echo "== $(date -u +%H:%M:%S) (+$(($(date +%s) - T0)) s) $*"; }

# note NAME RC: a line "NAME: PASS" (SKIP for 77, TIMEOUT for 124, FAIL (rc=RC) otherwise) added to $summary
summary=""
note() {
  case $2 in 0) r=PASS ;; 77) r=SKIP ;; 124) r="TIMEOUT" ;; *) r="FAIL (rc=$2)" ;; esac
  summary="$summary$1: $r"$'\n'
}
