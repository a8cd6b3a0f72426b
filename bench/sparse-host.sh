#!/bin/bash
# bench/sparse-host.sh -- SpGEMM and SpAdd on a machine's host cores, from a built tree (any configuration with openmp,
# `make`): check_sparse_ops on openmp with the run's threads, then kk-bench-sparse-ops --full on openmp three times,
# each time with kk's automatic choice of the host accumulator and with the hash tables forced
# (KK_SPGEMM_HOST_ACCUMULATOR=hash, the host path before the dense accumulator), against the OpenMP Gustavson and
# SuiteSparse:GraphBLAS (opened at run time: KK_BENCH_GRAPHBLAS, else the bench's own search).  Every step is bounded by
# a timeout; logs go to $OUT, and the last lines print a summary (speed = native time / kk time).
#   usage: bench/sparse-host.sh [THREADS]    (from the built tree; THREADS defaults to 16, MAKE_JOBS to 16, RUNS
#          (the bench's repeats) to 3, OUT to /tmp/kk-sparse-host-run; e.g.
#          KK_BENCH_GRAPHBLAS=/tmp/kit/usr/lib/x86_64-linux-gnu/libgraphblas.so.7)
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
THREADS=${1:-16}
RUNS=${RUNS:-3}
OUT=${OUT:-/tmp/kk-sparse-host-run}
mkdir -p "$OUT"
. "$(dirname "$0")/run-common.sh" # step, note
export KOKKOS_PLUGIN_PATH=$PWD/plugins/.libs
export OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=spread OMP_PLACES=cores
step "build what the run needs"
make -j"${MAKE_JOBS:-16}" kernels/tests/check_sparse_ops bench/kk-bench-sparse-ops >"$OUT/make.log" 2>&1 || { tail -30 "$OUT/make.log"; exit 1; }
step "machine"
{
  lscpu | grep -E 'Model name|^CPU\(s\)|NUMA node\(s\)|L3'
  uptime
  echo "OMP_NUM_THREADS=$OMP_NUM_THREADS KK_BENCH_GRAPHBLAS=${KK_BENCH_GRAPHBLAS:-}"
} | tee "$OUT/machine.txt"
step "check_sparse_ops openmp ($THREADS threads)"
CK_FORK=no timeout 600 kernels/tests/check_sparse_ops openmp >"$OUT/sparse-ops-openmp.log" 2>&1
note "check_sparse_ops openmp" $?
tail -3 "$OUT/sparse-ops-openmp.log"
for run in $(seq "$RUNS"); do
  for acc in auto hash; do
    step "run $run: kk-bench-sparse-ops openmp --full --reps=3, KK_SPGEMM_HOST_ACCUMULATOR=$acc"
    KK_SPGEMM_HOST_ACCUMULATOR=$acc timeout 300 bench/kk-bench-sparse-ops --kokkos-device=openmp --full --reps=3 \
      --case=spgemm >"$OUT/bench-$acc-$run.txt" 2>&1
    note "bench spgemm $acc run $run" $?
    KK_SPGEMM_HOST_ACCUMULATOR=$acc timeout 300 bench/kk-bench-sparse-ops --kokkos-device=openmp --full --reps=3 \
      --case=spadd >>"$OUT/bench-$acc-$run.txt" 2>&1
    note "bench spadd $acc run $run" $?
    grep -E '^(spgemm|spadd) ' "$OUT/bench-$acc-$run.txt"
  done
done
step "summary"
printf '%s' "$summary"
echo "kk against GraphBLAS, symbolic+numeric (target >= 0.9), then numeric reused; per run (auto | hash):"
for run in $(seq "$RUNS"); do
  for acc in auto hash; do
    printf 'run %s %-4s ' "$run" "$acc"
    awk '/vs GraphBLAS/ {c = $1 " " $2 " " $3; getline n; k = split(n, f); printf "%s %s / %s; ", c, $(NF-3), f[k]}' \
      "$OUT/bench-$acc-$run.txt" 2>/dev/null
    echo
  done
done
# a bench that found no GraphBLAS says why
grep -h 'GraphBLAS' "$OUT"/bench-auto-1.txt | grep -v '^spg\|^spa' | head -3 || true
case $summary in *FAIL* | *TIMEOUT*) exit 1 ;; esac
exit 0
