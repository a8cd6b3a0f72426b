#!/bin/bash
# bench/spmv-own-gpu.sh -- kk-kernels' own SpMV (and gemv) on a CUDA machine, each merge-path form side by side: registers, kk-bench-kernels' spmv and gemv rows three times with the default form and KK_KERNELS_SPMV=pipe and pipe6 taking turns (16 tiles per team once), the suite's spmv and kernels cases on cuda with the pipelines, Nsight Compute's speed of light, memory workload and launch statistics of kk's irregular-row SpMV kernels against cuSPARSE's; a summary at the end.
#
# usage: bench/spmv-own-gpu.sh [BUILDDIR]   (default: the current directory)
# BUILDDIR is a tree configured with cuda and built (`make`, then `make
# kernels/tests/check_kernels bench/kk-bench-kernels`).  Logs go to $OUT
# (default /tmp/spmv-own-gpu).  Every step is bounded by timeout, and
# together by KK_SPMV_BUDGET (default 145 s).  Run it with nothing else on
# the GPU.  No timing is judged: the exit status says whether the cases
# passed and every run ran.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(cd "${1:-.}" && pwd)
OUT=${OUT:-/tmp/spmv-own-gpu}
mkdir -p "$OUT"
rc=0
# shellcheck source=bench/run-common.sh
. "$(dirname "$0")/run-common.sh" # step, note, $summary, go, check, own_setup, own_ptxas, own_summary
own_setup spmv-own-gpu
BUDGET=${KK_SPMV_BUDGET:-145}

own_ptxas 120 sparse

# bench NAME VAR=VALUE...: one kk-bench-kernels run of spmv and gemv, best of 20
bench() {
  local name=$1
  shift
  go "bench spmv,gemv ${*:-(default form)}: $name" 18 "$OUT/bench-$name.txt" "$@" \
    "$BENCH" --backends=cuda --full --cases=spmv,gemv --reps=20 || rc=1
  grep -E '^case|kk own' "$OUT/bench-$name.txt"
  grep -i -E 'mismatch|error|kk-bench-kernels: .* on cuda' "$OUT/bench-$name.txt.err"
}
# prof NAME REGEX VAR=VALUE...: Nsight Compute on kk-bench-kernels' spmv
# case, one call a side (--reps=1: each side's warm-up and its call, both
# matrices), the kernels whose names match REGEX
prof() {
  local name=$1 re=$2
  shift 2
  if ! command -v ncu >/dev/null 2>&1; then note "ncu $name (not installed)" 77; return; fi
  go "ncu spmv kernels ${*:-(default form)}: $name" 45 "$OUT/ncu-$name.txt" "$@" \
    ncu --kernel-name-base demangled --kernel-name "regex:$re" --launch-count 14 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section LaunchStats --section Occupancy "$BENCH" --backends=cuda --cases=spmv --full --reps=1
  grep -E '^  [A-Za-z_].*\(|Duration|DRAM Through|Memory Through|L1/TEX Hit|L2 Hit|L2 Cache Through|Compute \(SM\)|Registers Per|Achieved Occ|Theoretical Occ|Grid Size|Block Size|Shared Memory Config|Dynamic Shared|Mem Busy|Max Bandwidth|Waves Per' \
    "$OUT/ncu-$name.txt" | head -n 400 | sed 's/^/    /' >"$OUT/ncu-$name-short.txt"
}

PIPE="KK_KERNELS_SPMV=pipe KK_KERNELS_SPMV_GROUP=3"

# in the order of need, as far as the budget goes: the forms taking turns,
# three rounds: spmv_merge (the default), the pipeline with 4 tiles per
# team (KK_KERNELS_SPMV=pipe) and the same bound to 6 teams per
# multiprocessor (pipe6)
for r in 1 2 3; do
  bench "default-$r"
  bench "pipe-$r" KK_KERNELS_SPMV=pipe
  bench "pipe6-$r" KK_KERNELS_SPMV=pipe6
done
# check_kernels' spmv case on cuda with each pipeline, 3 tiles per team
# (the matrices of irregular rows: tiles of one long row, of many empty
# rows, of short rows; cuSPARSE off, then on)
# shellcheck disable=SC2086
check spmv-pipe 30 spmv $PIPE
check spmv-pipe6 30 spmv KK_KERNELS_SPMV=pipe6 KK_KERNELS_SPMV_GROUP=3
# kk's merge kernel and cuSPARSE's (any kernel in namespace cusparse; the
# 27-point matrix's two native calls come first, kk's own runs spmv_vec
# there; kk's vendor side runs kk's own kernels here, so that fewer
# kernels are profiled)
prof default 'spmv_merge|cusparse|csrmv' KK_KERNELS_CUSPARSE=off
# the kernels case with the pipeline (BLAS, the other SpMV matrices, CG)
# shellcheck disable=SC2086
check kernels-pipe 30 kernels $PIPE
# the pipelines' kernels alone; 16 tiles per team; the default's spmv case
prof pipe 'spmv_mpipe' KK_KERNELS_SPMV=pipe KK_KERNELS_CUSPARSE=off
prof pipe6 'spmv_mpipe6' KK_KERNELS_SPMV=pipe6 KK_KERNELS_CUSPARSE=off
bench "pipe16" KK_KERNELS_SPMV=pipe KK_KERNELS_SPMV_GROUP=16
check spmv-default 30 spmv

if [ -n "$ptxas_pid" ]; then
  # shellcheck disable=SC2086
  wait $ptxas_pid
  grep -A3 -E "entry function 'kk_k_kkk_spmv_(merge|mpipe|mpipe6|vec)_d'" "$OUT/ptxas-sparse.log" |
    grep -E 'entry function|registers|spill' | sed 's/^ptxas info *: *//' >"$OUT/ptxas-spmv.txt"
fi

step "summary (this GPU; kk own / native per run; targets: SpMV irregular and 27-point >= 0.95, gemv >= 0.97)"
own_summary 11 "$OUT/ptxas-spmv.txt"
step "done (logs in $OUT)"
exit $rc
