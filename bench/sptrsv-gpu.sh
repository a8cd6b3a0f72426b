#!/bin/bash
# bench/sptrsv-gpu.sh -- kk's sync-free SpTRSV on a CUDA machine, before and after in one run, from a built tree (configure with cuda on, `make`): check_solvers on cuda (cuSPARSE off, so kk's own kernels run, then on); kk-bench-solvers on cuda (SpTRSV on the ILU(0) factors against cusparseSpSV) alternating the sync-free mapping kk picks (a row per team thread, x published in a word per row: sptrsv_sfv; a non-unit row's diagonal loaded beside its strict triangle) and the same with KK_SPTRSV_SYNCFREE_DIAG=sum (the diagonal summed with the row, the form before it): three runs each on the Laplacian alone, one each with the irregular matrix, then one on the Laplacian with KK_SPTRSV_SYNCFREE=flag (a flag per row: sptrsv_sfg) and one with KK_SPTRSV_SYNCFREE=warp (the earliest mapping); the SASS of the double kernels' polls, fences and stores where cuobjdump is installed.  Every step is bounded by a timeout and the whole run by a deadline (DEADLINE seconds, default 145: steps that would start later are skipped and say so); logs go to $OUT; the last lines are a summary.
#   usage: bench/sptrsv-gpu.sh [LAPLACIAN_N [IRREGULAR_ROWS]]   (defaults 64 and 200000; run from the build tree)
#   OUT: where the logs go (default /tmp/kk-sptrsv-gpu); REPS: kk-bench-solvers --reps on the Laplacian (default 20)
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
OUT=${OUT:-/tmp/kk-sptrsv-gpu}
N=${1:-64}
R=${2:-200000}
REPS=${REPS:-20}
DEADLINE=${DEADLINE:-145}
mkdir -p "$OUT"
export KOKKOS_PLUGIN_PATH=${KOKKOS_PLUGIN_PATH:-$PWD/plugins/.libs}
. "$(dirname "$0")/run-common.sh" # step, note, $summary
# left NEED: 0 when NEED seconds are left before the deadline, else a note that the step is skipped
left() {
  if [ $(($(date +%s) - T0 + $1)) -gt "$DEADLINE" ]; then
    summary="$summary$2: SKIPPED (deadline)"$'\n'
    return 1
  fi
  return 0
}
step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
step "build what this needs"
timeout 60 make -j16 kernels/tests/check_solvers bench/kk-bench-solvers >"$OUT/make.log" 2>&1 || { tail -30 "$OUT/make.log"; exit 1; }
step "check_solvers cuda, cuSPARSE off (kk's SpTRSV: sync-free under every KK_SPTRSV_SYNCFREE, and levels)"
CK_FORK=no KK_KERNELS_CUSPARSE=off timeout 45 kernels/tests/check_solvers cuda >"$OUT/solvers-cuda-own.log" 2>&1
note "check_solvers cuda, cuSPARSE off" $?
tail -4 "$OUT/solvers-cuda-own.log"
# bench MODE RUN ROWS REPS LIMIT: one kk-bench-solvers run with KK_SPTRSV_SYNCFREE=MODE (line-buffered, so that
# a run stopped by its timeout keeps its rows)
bench() {
  local f="$OUT/bench-$1-$2.txt"
  left "$5" "kk-bench-solvers KK_SPTRSV_SYNCFREE=$1 run $2" || return 0
  step "kk-bench-solvers cuda --size=$N --rows=$3 --reps=$4, KK_SPTRSV_SYNCFREE=$1 (run $2)"
  KK_SPTRSV_SYNCFREE=$1 timeout "$5" stdbuf -oL bench/kk-bench-solvers --kokkos-device=cuda --size="$N" --rows="$3" \
    --reps="$4" >"$f" 2>&1
  note "kk-bench-solvers KK_SPTRSV_SYNCFREE=$1 run $2" $?
  grep -i -e "sptrsv" -e "ilu(0)" "$f" | sed "s/^/[$1 #$2] /" | tee -a "$OUT/sptrsv-rows.txt"
}
# the Laplacian alone first (--rows=2: the irregular matrix is two rows), alternating the diagonal's forms of the
# mapping kk picks: loaded beside the strict triangle (auto, lapN) and summed with the row
# (KK_SPTRSV_SYNCFREE_DIAG=sum, sumN)
for run in 1 2 3; do
  bench auto "lap$run" 2 "$REPS" 15
  KK_SPTRSV_SYNCFREE_DIAG=sum bench auto "sum$run" 2 "$REPS" 15
done
bench flag lap1 2 "$REPS" 15
# the irregular matrix once each (its ILU(0) numeric phase takes seconds a repetition: 3 of them)
bench auto irr "$R" 3 25
KK_SPTRSV_SYNCFREE_DIAG=sum bench auto irrsum "$R" 3 25
bench warp lap 2 "$REPS" 15
if left 25 "check_solvers cuda, cuSPARSE on"; then
  step "check_solvers cuda, cuSPARSE on"
  CK_FORK=no timeout 25 kernels/tests/check_solvers cuda >"$OUT/solvers-cuda.log" 2>&1
  note "check_solvers cuda" $?
  tail -4 "$OUT/solvers-cuda.log"
fi
CUOBJDUMP=$(command -v cuobjdump || echo "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump")
NVCC=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
if [ -x "$CUOBJDUMP" ] && [ -x "$NVCC" ] && left 10 "SASS of sptrsv_sfv_d, sptrsv_sfg_d"; then
  step "SASS of kkk_sptrsv_sfv_d and kkk_sptrsv_sfg_d (sm_90): polls, fences, stores"
  S=$(dirname "$0")/..
  if timeout 10 "$NVCC" -x cu -O3 -std=c++17 -cubin -arch=sm_90 -DKK_TARGET_CUDA -I"$S/include" -I"$S/kernels" \
    -Iinclude "$S/kernels/sptrsv.kk.c" -o "$OUT/sptrsv.cubin" >"$OUT/sass.log" 2>&1; then
    for k in sfv sfg; do
      "$CUOBJDUMP" -sass -fun kk_k_kkk_sptrsv_${k}_d "$OUT/sptrsv.cubin" >"$OUT/sass-$k-d.txt" 2>&1
      echo "kkk_sptrsv_${k}_d:"
      grep -E "MEMBAR|FENCE|CCTL|ERRBAR|STRONG|\.SYS|\.GPU" "$OUT/sass-$k-d.txt" | tee "$OUT/sass-$k-d-sync.txt"
    done
    note "SASS of sptrsv_sfv_d, sptrsv_sfg_d" 0
  else
    tail -5 "$OUT/sass.log"
    note "SASS of sptrsv_sfv_d, sptrsv_sfg_d" 1
  fi
fi
step "summary (logs in $OUT)"
{
  echo "SpTRSV rows (auto: a row per team thread, x in a word per row; #sumN, #irrsum: the same with KK_SPTRSV_SYNCFREE_DIAG=sum, as before; flag: the same with flags; warp: the earliest mapping):"
  cat "$OUT/sptrsv-rows.txt" 2>/dev/null
  printf "%s" "$summary"
} | tee "$OUT/summary.txt"
grep -q -e FAIL -e TIMEOUT "$OUT/summary.txt" && exit 1
exit 0
