#!/bin/bash
# bench/kk-bench-kernels-own-gpu.sh -- kk-kernels' own batched dgemm and SpMV on a CUDA machine, each form the library can select: registers, the rows three times with the default forms and the other forms taking turns (KK_KERNELS_BGEMM=4x4 with KK_KERNELS_SPMV_MERGE=late, and KK_KERNELS_BGEMM_GROUP=11), other matrices per team once, Nsight Compute's view of the batched kernels against cuBLAS's, the suite's kernels case on cuda in both forms; a summary at the end.
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

own_ptxas 125 sparse batched

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
# cuBLAS's (any kernel named *gemm*, any case; 16 launches: both sizes, each side's warm-up): duration, DRAM,
# occupancy and its limits, scratch (shared memory)
NCU_M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum
NCU_M=$NCU_M,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size,launch__block_size
NCU_M=$NCU_M,sm__warps_active.avg.pct_of_peak_sustained_active,launch__waves_per_multiprocessor
NCU_M=$NCU_M,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__shared_mem_per_block_dynamic
NCU_M=$NCU_M,launch__shared_mem_per_block_static,sm__throughput.avg.pct_of_peak_sustained_elapsed
NCU_M=$NCU_M,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
prof() {
  local name=$1
  shift
  if ! command -v ncu >/dev/null 2>&1; then note "ncu $name (not installed)" 77; return; fi
  go "ncu batched kernels ${*:-(default forms)} against cuBLAS's: $name" 30 "$OUT/ncu-$name.txt" "$@" \
    ncu --kernel-name regex:'[Gg][Ee][Mm][Mm]' --launch-count 16 --metrics "$NCU_M" \
    "$BENCH" --backends=cuda --cases=batched --full --reps=1
  grep -E '^  [A-Za-z_].*\(|gpu__|dram__|launch__|warps_active|sm__throughput|inst_executed|wavefronts' \
    "$OUT/ncu-$name.txt" | head -n 330 | sed 's/^/    /' | tee "$OUT/ncu-$name-short.txt"
}

# the forms taking turns, three rounds: the default (4 x 2 blocks, a
# tile's first row end loaded with its products), the other forms, and
# 11 matrices per team (one round of teams on 132 multiprocessors at 3
# teams each)
ALT="KK_KERNELS_BGEMM=4x4 KK_KERNELS_SPMV_MERGE=late"
for r in 1 2 3; do
  bench "default-$r" 15 batched,spmv
  # shellcheck disable=SC2086
  bench "alt-$r" 15 batched,spmv $ALT
  bench "group11-$r" 8 batched KK_KERNELS_BGEMM_GROUP=11
done
prof batched
bench group1 8 batched KK_KERNELS_BGEMM_GROUP=1
bench group2 8 batched KK_KERNELS_BGEMM_GROUP=2
prof batched-4x4 KK_KERNELS_BGEMM=4x4
# last, with what is left: kk-bench-kernels compares every result with the
# vendor's already (a mismatch is printed above); these also cover the
# edge sizes of the pipelined batched forms (a group of 3 leaves a team
# one matrix of the batch of 7) and the SpMV matrices of the tests
check kernels 40 kernels
check spmv 20 spmv # the matrices of irregular rows, which take the merge path
# shellcheck disable=SC2086
check kernels-alt 40 kernels $ALT KK_KERNELS_BGEMM_GROUP=3
# shellcheck disable=SC2086
check spmv-alt 20 spmv $ALT

if [ -n "$ptxas_pid" ]; then
  # shellcheck disable=SC2086
  wait $ptxas_pid
  cat "$OUT"/ptxas-sparse.log "$OUT"/ptxas-batched.log |
    grep -A3 -E "entry function 'kk_k_kkk_(spmv_merge|bgemm_p4?)_d'" |
    grep -E 'entry function|registers|spill' | sed 's/^ptxas info *: *//' >"$OUT/ptxas-own.txt"
fi

step "summary (this GPU; kk own / native per run; targets: batched 32^3 >= 0.95, SpMV irregular >= 0.95)"
own_summary 14 "$OUT/ptxas-own.txt"
step "done (logs in $OUT)"
exit $rc
