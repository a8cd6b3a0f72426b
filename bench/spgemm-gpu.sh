#!/bin/bash
# bench/spgemm-gpu.sh -- SpGEMM on cuda in under 150 s, from a built tree (configure with cuda on, `make`): check_sparse_ops on cuda (every bin of the GPU kernels, the two phases and the one call, the queues and workspace kept between calls), a CUPTI timeline of the one call kk_sparse_spgemm on the irregular 200,000-row product against cusparseSpGEMM's whole product (bench/cupti-trace.c, loaded by the CUDA driver through CUDA_INJECTION64_PATH), once with KK_SPGEMM_CACHE=yes and once without, then kk-bench-sparse-ops --full --case=spgemm six times, KK_SPGEMM_CACHE=no and yes (the default) alternately (the 27-point 100^3 and the irregular products against cusparseSpGEMM: symbolic + numeric, the symbolic phase alone, the numeric phase reused, the one call; summary lines start with the setting).  Every step is bounded by timeout and by what is left of the 150 s; logs go to $OUT; the last lines are a summary.
#   usage: bench/spgemm-gpu.sh   (run from the build tree)
#   OUT: where the logs go (default /tmp/kk-spgemm-gpu)
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
OUT=${OUT:-/tmp/kk-spgemm-gpu}
mkdir -p "$OUT"
export KOKKOS_PLUGIN_PATH=${KOKKOS_PLUGIN_PATH:-$PWD/plugins/.libs}
src=$(cd "$(dirname "$0")/.." && pwd)
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
timeout "$(left 40)" make -j16 kernels/tests/check_sparse_ops bench/kk-bench-sparse-ops >"$OUT/make.log" 2>&1 ||
  { tail -30 "$OUT/make.log"; exit 1; }
cuda=${CUDA_HOME:-/usr/local/cuda}
timeout "$(left 20)" gcc -O2 -shared -fPIC -I"$cuda/include" -I"$cuda/extras/CUPTI/include" "$src/bench/cupti-trace.c" -o "$OUT/cupti-trace.so" \
  -L"$cuda/lib64" -L"$cuda/extras/CUPTI/lib64" -lcupti -Wl,-rpath,"$cuda/lib64" \
  -Wl,-rpath,"$cuda/extras/CUPTI/lib64" >"$OUT/cupti-build.log" 2>&1
note "cupti-trace.so" $?
step "check_sparse_ops cuda"
CK_FORK=no timeout "$(left 45)" kernels/tests/check_sparse_ops cuda >"$OUT/sparse-ops-cuda.log" 2>&1
note "check_sparse_ops cuda" $?
tail -4 "$OUT/sparse-ops-cuda.log"
# the timeline: --reps=2, so that the last one call reuses what the first kept (with the setting); the last
# 400 operations on the GPU hold kk's last one call and cuSPARSE's three products (a warm-up and two)
if [ -f "$OUT/cupti-trace.so" ]; then
  for c in yes no; do
    step "CUPTI timeline: the irregular product, KK_SPGEMM_CACHE=$c"
    KK_SPGEMM_CACHE=$c CUDA_INJECTION64_PATH="$OUT/cupti-trace.so" KK_CUPTI_OUT="$OUT/cupti-cache-$c.txt" \
      KK_CUPTI_TIMELINE=400 timeout "$(left 14)" bench/kk-bench-sparse-ops --kokkos-device=cuda --full \
      --case=spgemm-irregular --reps=2 >"$OUT/cupti-bench-cache-$c.txt" 2>&1
    note "cupti timeline, cache $c" $?
    grep "one call" "$OUT/cupti-bench-cache-$c.txt"
  done
fi
# KK_SPGEMM_CACHE=no and yes (the default), alternating, three runs each
for r in 1 2 3 4 5 6; do
  c=no
  [ $((r % 2)) -eq 0 ] && c=yes
  step "kk-bench-sparse-ops cuda --full --case=spgemm, run $r, KK_SPGEMM_CACHE=$c"
  KK_SPGEMM_CACHE=$c timeout "$(left 14)" bench/kk-bench-sparse-ops --kokkos-device=cuda --full --case=spgemm \
    --reps=5 2>&1 | tee "$OUT/bench-spgemm-$r-cache-$c.txt"
  note "kk-bench-sparse-ops spgemm run $r (cache $c)" $?
done
step "summary (logs in $OUT)"
for f in "$OUT"/bench-spgemm-*.txt; do
  m=${f##*-cache-}
  grep "^spgemm" "$f" | sed "s/^/cache=${m%.txt} /"
done | tee "$OUT/summary.txt"
printf "%s" "$summary" | tee -a "$OUT/summary.txt"
grep -q -e FAIL -e TIMEOUT "$OUT/summary.txt" && exit 1
exit 0
