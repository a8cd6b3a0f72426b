#!/bin/bash
# bench/kk-bench-kernels-own-gpu.sh -- kk-kernels' own batched dgemm on a CUDA machine, each form the library can select: registers, the batched rows three times with the forms taking turns (the default, KK_KERNELS_BGEMM=bound and vec, with 4 and 8 matrices per team), other forms once, Nsight Compute's view (speed of light, occupancy, launch statistics) of kk's batched kernel against cuBLAS's, the suite's kernels case on cuda with each form forced; a summary at the end.
#
# usage: bench/kk-bench-kernels-own-gpu.sh [BUILDDIR]   (default: the current directory)
# BUILDDIR is a tree configured with cuda and built (`make`, then `make
# kernels/tests/check_kernels bench/kk-bench-kernels`).  Logs go to $OUT
# (default /tmp/kk-bench-kernels-own-gpu).  Every step is bounded by
# timeout, and together by KK_OWN_BUDGET (default 145 s).  Run it with
# nothing else on the GPU.
# No timing is judged: the exit status says whether the cases passed and
# every run ran.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(cd "${1:-.}" && pwd)
OUT=${OUT:-/tmp/kk-bench-kernels-own-gpu}
mkdir -p "$OUT"
rc=0
# shellcheck source=bench/run-common.sh
. "$(dirname "$0")/run-common.sh" # step, note, $summary, go, check, own_setup, own_ptxas, own_summary
own_setup kk-bench-kernels-own-gpu

own_ptxas 125 batched

# Every step's timeout is its own bound or the time left of the run's
# KK_OWN_BUDGET seconds (default 145), whichever is less; a step with less
# than 5 s left is skipped (noted SKIP).  Steps in the order of need.
BUDGET=${KK_OWN_BUDGET:-145}
# bench NAME BOUND CASES [VAR=VALUE...]: one kk-bench-kernels run, best of 20
bench() {
  local name=$1 bound=$2 cases=$3
  shift 3
  go "bench $cases ${*:-(default forms)}: $name" "$bound" "$OUT/bench-$name.txt" "$@" \
    "$BENCH" --backends=cuda --full --cases="$cases" --reps=20 || rc=1
  grep -E '^case|kk own' "$OUT/bench-$name.txt"
  grep -i -E 'mismatch|error|kk-bench-kernels: .* on cuda' "$OUT/bench-$name.txt.err"
}
# prof NAME [VAR=VALUE...]: ncu of kk-bench-kernels' batched case (16^3 and 32^3), kk's batched kernels and
# cuBLAS's (any kernel named *gemm*, any case; 16 launches: both sizes, each side's warm-up): speed of light,
# occupancy and its limits, launch statistics (registers, scratch, waves per multiprocessor)
prof() {
  local name=$1
  shift
  if ! command -v ncu >/dev/null 2>&1; then note "ncu $name (not installed)" 77; return; fi
  go "ncu batched kernels ${*:-(default forms)} against cuBLAS's: $name" 40 "$OUT/ncu-$name.txt" "$@" \
    ncu --kernel-name regex:'[Gg][Ee][Mm][Mm]' --launch-count 16 --section SpeedOfLight --section Occupancy \
    --section LaunchStats "$BENCH" --backends=cuda --cases=batched --full --reps=1
  grep -E '^  [A-Za-z_].*\(|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Registers Per|Grid Size|Block Size|Waves Per SM|Theoretical Occupancy|Achieved Occupancy|Block Limit (Registers|Shared Mem)|Dynamic Shared' \
    "$OUT/ncu-$name.txt" | head -n 330 | sed 's/^/    /' | tee "$OUT/ncu-$name-short.txt"
}

# the forms taking turns, three rounds: the default (bgemm_p, 4 matrices
# a team: 1024 teams, 2.6 rounds of 3 teams of 128 per multiprocessor on
# 132), bgemm_pb and bgemm_pv (128 registers a thread: 4 teams per
# multiprocessor, 1.9 rounds), and both with 8 matrices a team (512
# teams: one round of 528)
for r in 1 2 3; do
  bench "default-$r" 8 batched
  bench "bound-$r" 8 batched KK_KERNELS_BGEMM=bound
  bench "vec-$r" 8 batched KK_KERNELS_BGEMM=vec
  bench "bound-g8-$r" 8 batched KK_KERNELS_BGEMM=bound KK_KERNELS_BGEMM_GROUP=8
  bench "vec-g8-$r" 8 batched KK_KERNELS_BGEMM=vec KK_KERNELS_BGEMM_GROUP=8
done
# kk-bench-kernels compares every result with the vendor's already (a
# mismatch is printed above); the suite's case also covers the edge sizes
# and layouts of the pipelined batched forms (a group of 3 leaves a team
# one matrix of the batch of 7)
check kernels-vec 35 kernels KK_KERNELS_BGEMM=vec KK_KERNELS_BGEMM_GROUP=3
prof batched
prof batched-vec KK_KERNELS_BGEMM=vec
check kernels-bound 35 kernels KK_KERNELS_BGEMM=bound KK_KERNELS_SPMV_MERGE=late
# last, with what is left
bench group11 8 batched KK_KERNELS_BGEMM_GROUP=11
check kernels 35 kernels

if [ -n "$ptxas_pid" ]; then
  # shellcheck disable=SC2086
  wait $ptxas_pid
  grep -A3 -E "entry function 'kk_k_kkk_bgemm_p[4bv]?_d'" "$OUT"/ptxas-batched.log |
    grep -E 'entry function|registers|spill' | sed 's/^ptxas info *: *//' >"$OUT/ptxas-own.txt"
fi

step "summary (this GPU; kk own / native per run; target: batched 32^3 >= 0.95)"
own_summary 14 "$OUT/ptxas-own.txt"
step "done (logs in $OUT)"
exit $rc
