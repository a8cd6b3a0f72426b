#!/bin/bash
# bench/spgemm-gpu.sh -- SpGEMM on cuda in under 150 s, from a built tree (configure with cuda on, `make`): check_sparse_ops on cuda (every bin of the GPU kernels, the two phases and the one call), kk-bench-sparse-ops --full --case=spgemm four times, the GPU bins' kernels side by side (the default) and one after the other (KK_SPGEMM_BINS=sequential) alternately (the 27-point 100^3 and the irregular 200,000-row products against cusparseSpGEMM: symbolic + numeric, the symbolic phase alone, the numeric phase reused, the one call kk_sparse_spgemm; summary lines start with the order), and a kk-kernel-logger --times trace of the irregular product (each kernel's and allocation's time, the two phases and the one call).  Every step is bounded by timeout and by what is left of the 150 s; logs go to $OUT; the last lines are a summary.
#   usage: bench/spgemm-gpu.sh   (run from the build tree)
#   OUT: where the logs go (default /tmp/kk-spgemm-gpu)
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
OUT=${OUT:-/tmp/kk-spgemm-gpu}
mkdir -p "$OUT"
export KOKKOS_PLUGIN_PATH=${KOKKOS_PLUGIN_PATH:-$PWD/plugins/.libs}
. "$(dirname "$0")/run-common.sh" # step, note, $summary, T0
# at most $1 seconds, and never past 145 s from the start
left() {
  local l=$((145 - ($(date +%s) - T0)))
  [ "$l" -gt "$1" ] && l=$1
  [ "$l" -lt 1 ] && l=1
  echo "$l"
}
step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
step "build what this needs"
timeout "$(left 40)" make -j16 kernels/tests/check_sparse_ops bench/kk-bench-sparse-ops \
  tools/profilers/kk-kernel-logger.la >"$OUT/make.log" 2>&1 || { tail -30 "$OUT/make.log"; exit 1; }
step "check_sparse_ops cuda"
CK_FORK=no timeout "$(left 55)" kernels/tests/check_sparse_ops cuda >"$OUT/sparse-ops-cuda.log" 2>&1
note "check_sparse_ops cuda" $?
tail -4 "$OUT/sparse-ops-cuda.log"
# the bins side by side (the default) and one after the other (KK_SPGEMM_BINS=sequential), alternating
for r in 1 2 3 4; do
  mode=concurrent
  [ $((r % 2)) -eq 0 ] && mode=sequential
  step "kk-bench-sparse-ops cuda --full --case=spgemm, run $r, bins $mode"
  KK_SPGEMM_BINS=$mode timeout "$(left 18)" bench/kk-bench-sparse-ops --kokkos-device=cuda --full --case=spgemm \
    --reps=5 2>&1 | tee "$OUT/bench-spgemm-$r-$mode.txt"
  note "kk-bench-sparse-ops spgemm run $r ($mode)" $?
done
step "kk-kernel-logger --times: the irregular product, once"
timeout "$(left 15)" bench/kk-bench-sparse-ops --kokkos-device=cuda --full --case=spgemm-irregular --reps=1 \
  --kokkos-tools-libs="$PWD/tools/profilers/.libs/kk-kernel-logger.so" --kokkos-tools-args=--times \
  >"$OUT/logger-irregular.txt" 2>&1
note "kernel logger, irregular" $?
grep -c "kk-logger" "$OUT/logger-irregular.txt"
step "summary (logs in $OUT)"
for f in "$OUT"/bench-spgemm-*.txt; do
  m=${f##*-}
  grep "^spgemm" "$f" | sed "s/^/${m%.txt} /"
done | tee "$OUT/summary.txt"
printf "%s" "$summary" | tee -a "$OUT/summary.txt"
grep -q -e FAIL -e TIMEOUT "$OUT/summary.txt" && exit 1
exit 0
