#!/bin/bash
# bench/kk-bench-sort-run.sh -- the GPU radix sort, copy_if and the random fills on a CUDA machine, in one bounded call: kk-algorithms' suite on the cuda backend, then kk-bench-algorithms' sort, copy_if and fill rows against CUB and cuRAND three times, then a summary of the kk/native ratios.
#
# usage: bench/kk-bench-sort-run.sh [BUILDDIR]
# BUILDDIR (default .) is a build tree with the cuda plugin, kk-algorithms
# and bench/kk-bench-algorithms built (KK_SORT_RUN_MAKE=1 makes those two
# programs first, in the budget).  KK_SORT_RUN_TIMEOUT bounds each run
# (seconds, default 300) and KK_SORT_RUN_BUDGET the whole call (default
# none): a step starts only with 10 s of the budget left and runs at most
# what is left.  OUT (default /tmp/kk-sort-run) gets the logs;
# KK_SORT_RUN_ROWS picks other rows (default: the four sorts, copy_if and
# fill, whose Philox row is against cuRAND's Philox); KK_SORT_RUN_CASES the
# suite's cases (default: all of it; e.g. "sort binsort", each a run).
# KK_SORT_RUN_KERNELS="1 2" runs the suite and every benchmark run once
# with each form of the radix sort's kernels (KK_SORT_GPU_KERNEL,
# docs/algorithms.md), in turn; default "5" (the default form);
# KK_SORT_RUN_SUITE_KERNELS picks the forms the suite runs with (default:
# those of KK_SORT_RUN_KERNELS; "" none).  With ncu on the PATH and KK_SORT_RUN_NCU=1 it also
# profiles, for each of those forms, the histogram and pass kernels of one
# sort_u32 and one pairs_u32 sort of 2^24 keys (the sections of
# docs/algorithms.md's profile) into OUT/ncu-K.txt, then CUB's into
# OUT/ncu-cub.txt.  The exit status says
# whether the suite passed and every run completed; no timing is judged
# here.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(cd "${1:-.}" && pwd) || exit 2
OUT=${OUT:-/tmp/kk-sort-run}
T=${KK_SORT_RUN_TIMEOUT:-300}
ROWS=${KK_SORT_RUN_ROWS:-sort_u32,sort_i64,pairs_u32,pairs_i64,copy_if,fill}
KERNELS=${KK_SORT_RUN_KERNELS:-5}
SUITE_KERNELS=${KK_SORT_RUN_SUITE_KERNELS-$KERNELS}
CASES=${KK_SORT_RUN_CASES:-}
BUDGET=${KK_SORT_RUN_BUDGET:-0}
mkdir -p "$OUT"
cd "$B" || exit 2
T0=$(date +%s)
status=0
step() { echo "== $(date -u +%H:%M:%S) (+$(($(date +%s) - T0)) s) $*"; }
# the seconds a step may take: T, or what is left of the budget (0: none left)
limit() {
  local left
  [ "$BUDGET" -gt 0 ] || { echo "$T"; return; }
  left=$((BUDGET - ($(date +%s) - T0)))
  if [ $left -lt 10 ]; then echo 0; elif [ $left -lt "$T" ]; then echo $left; else echo "$T"; fi
}

step "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
if [ "${KK_SORT_RUN_MAKE:-0}" = 1 ]; then
  step "make algorithms/tests/check_algorithms bench/kk-bench-algorithms (log: $OUT/make.txt)"
  timeout "$(limit)" make -j"$(nproc)" algorithms/tests/check_algorithms bench/kk-bench-algorithms >"$OUT/make.txt" 2>&1 ||
    { tail -20 "$OUT/make.txt"; echo "   make: FAIL"; exit 1; }
fi

# the suite: every case, or each of CASES
suite() {
  local name=$1 log=$2 l r
  l=$(limit)
  [ "$l" -gt 0 ] || { echo "   suite $name: not run (budget)"; status=1; return; }
  step "kk-algorithms suite on cuda${CK_RUN_CASE:+, case $CK_RUN_CASE}, kernel ${KK_SORT_GPU_KERNEL:-5} (log: $log)"
  CK_FORK=no timeout "$l" algorithms/tests/check_algorithms cuda >"$log" 2>&1
  r=$?
  tail -3 "$log"
  case $r in 0) echo "   suite $name: PASS" ;; 77) echo "   suite $name: SKIP (no cuda backend?)"; status=1 ;; *) echo "   suite $name: FAIL (rc=$r)"; status=1 ;; esac
}
for k in $SUITE_KERNELS; do
  export KK_SORT_GPU_KERNEL=$k
  if [ -z "$CASES" ]; then
    suite "all, kernel $k" "$OUT/check-k$k.txt"
  else
    for c in $CASES; do
      CK_RUN_CASE=$c suite "$c, kernel $k" "$OUT/check-$c-k$k.txt"
    done
  fi
  unset KK_SORT_GPU_KERNEL
done

for i in 1 2 3; do
  for k in $KERNELS; do
    l=$(limit)
    [ "$l" -gt 0 ] || { echo "   run $i, kernel $k: not run (budget)"; status=1; continue; }
    step "kk-bench-algorithms --backends=cuda --rows=$ROWS --full, run $i, kernel $k (log: $OUT/bench$i-k$k.txt)"
    KK_SORT_GPU_KERNEL=$k timeout "$l" bench/kk-bench-algorithms --backends=cuda --rows="$ROWS" --full >"$OUT/bench$i-k$k.txt" 2>&1
    r=$?
    [ $r -eq 0 ] || { echo "   run $i, kernel $k: FAIL (rc=$r)"; status=1; }
  done
done

# ncu NAME FILTER LABEL: the sections of docs/algorithms.md's profile for the
# kernels FILTER matches, from the sixth on (the first, untimed sort_u32's
# five are skipped: its timed one, then pairs_u32's first), into OUT/ncu-NAME.txt
ncu_run() {
  local l
  l=$(limit)
  [ "$l" -gt 0 ] || { echo "   ncu, $3: not run (budget)"; return; }
  step "ncu of the histogram and passes of one sort_u32 and one pairs_u32 sort of 2^24 keys, $3 (log: $OUT/ncu-$1.txt)"
  timeout "$l" ncu -k regex:"$2" --launch-skip 5 --launch-count 10 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis \
    bench/kk-bench-algorithms --backends=cuda --rows=sort_u32,pairs_u32 --scale=2 --reps=1 >"$OUT/ncu-$1.txt" 2>&1 ||
    echo "   ncu, $3: FAIL"
  grep -E '^  kk_k_kka_g(pass|hist)|^  void cub|^    Duration|Registers Per|Achieved Occ|Theoretical Occ|Memory Throughput' \
    "$OUT/ncu-$1.txt" | cut -c1-110 | head -80
}
if [ "${KK_SORT_RUN_NCU:-0}" = 1 ] && command -v ncu >/dev/null 2>&1; then
  for k in $KERNELS; do
    KK_SORT_GPU_KERNEL=$k ncu_run "$k" 'kka_gpass|kka_ghist' "kk's kernels, form $k"
  done
  ncu_run cub 'DeviceRadixSort(Onesweep|Histogram)' "CUB's"
fi

step "summary: each run's rows (kk / native: CUB, cuRAND)"
for i in 1 2 3; do
  for k in $KERNELS; do
    echo "-- run $i, kernel $k"
    grep -E "sort_u32|sort_i64|pairs_u32|pairs_i64|copy_if|fill" "$OUT/bench$i-k$k.txt" 2>/dev/null
  done
done
exit $status
