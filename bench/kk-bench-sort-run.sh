#!/bin/bash
# bench/kk-bench-sort-run.sh -- the GPU radix sort, copy_if and the random fills on a CUDA machine, in one bounded call: kk-algorithms' suite on the cuda backend, then kk-bench-algorithms' sort, copy_if and fill rows against CUB and cuRAND three times, then a summary of the kk/native ratios.
#
# usage: bench/kk-bench-sort-run.sh [BUILDDIR]
# BUILDDIR (default .) is a build tree with the cuda plugin, kk-algorithms
# and bench/kk-bench-algorithms built.  KK_SORT_RUN_TIMEOUT bounds each run
# (seconds, default 300); OUT (default /tmp/kk-sort-run) gets the logs;
# KK_SORT_RUN_ROWS picks other rows (default: the four sorts, copy_if and
# fill, whose Philox row is against cuRAND's Philox).  With
# ncu on the PATH and KK_SORT_RUN_NCU=1 it also profiles one sort_u32 run
# (the sections of docs/algorithms.md's profile) into OUT/ncu.txt.  The exit
# status says whether the suite passed and every run completed; no timing
# is judged here.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(cd "${1:-.}" && pwd) || exit 2
OUT=${OUT:-/tmp/kk-sort-run}
T=${KK_SORT_RUN_TIMEOUT:-300}
ROWS=${KK_SORT_RUN_ROWS:-sort_u32,sort_i64,pairs_u32,pairs_i64,copy_if,fill}
mkdir -p "$OUT"
cd "$B" || exit 2
status=0
step() { echo "== $(date -u +%H:%M:%S) $*"; }

step "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
step "kk-algorithms suite on cuda (log: $OUT/check.txt)"
CK_FORK=no timeout "$T" algorithms/tests/check_algorithms cuda >"$OUT/check.txt" 2>&1
r=$?
tail -3 "$OUT/check.txt"
case $r in 0) echo "   suite: PASS" ;; 77) echo "   suite: SKIP (no cuda backend?)"; status=1 ;; *) echo "   suite: FAIL (rc=$r)"; status=1 ;; esac

for i in 1 2 3; do
  step "kk-bench-algorithms --backends=cuda --rows=$ROWS --full, run $i (log: $OUT/bench$i.txt)"
  timeout "$T" bench/kk-bench-algorithms --backends=cuda --rows="$ROWS" --full >"$OUT/bench$i.txt" 2>&1
  r=$?
  [ $r -eq 0 ] || { echo "   run $i: FAIL (rc=$r)"; status=1; }
done

if [ "${KK_SORT_RUN_NCU:-0}" = 1 ] && command -v ncu >/dev/null 2>&1; then
  step "ncu of one sort_u32 run (log: $OUT/ncu.txt)"
  timeout "$T" ncu --section SpeedOfLight,Occupancy,LaunchStats,WarpStateStats,MemoryWorkloadAnalysis \
    bench/kk-bench-algorithms --backends=cuda --rows=sort_u32 --full --reps=1 >"$OUT/ncu.txt" 2>&1 ||
    echo "   ncu: FAIL"
  grep -E '^  kk_k_kka_gpass|^  void cub::DeviceRadixSortOnesweep|Duration|Registers Per|Theoretical Occ' "$OUT/ncu.txt" |
    head -24
fi

step "summary: each run's rows (kk / native: CUB, cuRAND)"
for i in 1 2 3; do
  echo "-- run $i"
  grep -E "sort_u32|sort_i64|pairs_u32|pairs_i64|copy_if|fill" "$OUT/bench$i.txt"
done
exit $status
