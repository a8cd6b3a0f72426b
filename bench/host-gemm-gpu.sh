#!/bin/bash
# bench/host-gemm-gpu.sh -- kk-kernels' own host dgemm against OpenBLAS on a GPU machine's host cores, from a built tree: the suite on openmp, then kk-bench-kernels' dgemm rows (every core, bound; one core) three times each, and a summary.
#
# usage: bench/host-gemm-gpu.sh [BUILDDIR]     (default: the current directory)
# BUILDDIR is a built tree (`make`) with the openmp plugin, libkk-kernels,
# kernels/tests/check_kernels and bench/kk-bench-kernels; configure it with
# --with-host-arch=native, or the host micro-kernel gets the compiler's
# baseline vectors (the script prints which).  A tree configured for CUDA
# (--enable-cuda=yes --with-cuda-archs=sm_90) does as well: only the host
# backends run here.  Logs go to $OUT (default /tmp/kk-host-gemm).
# Knobs: KK_BENCH_N (dgemm size on every core, default 4096), KK_BENCH_N1
# (size on one core, default 2048), KK_BENCH_RUNS (default 3),
# KK_BENCH_SUITE=0 (leaves the suite out).  Bounded (timeout): the suite
# 70 s, each run on every core 25 s, on one core 20 s, kk-bench-hostgemm
# 25 s: 230 s in all at most.  Run it with nothing else
# loading the host.  No timing is judged: the exit status says whether the
# suite passed and every run ran.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(cd "${1:-.}" && pwd)
OUT=${OUT:-/tmp/kk-host-gemm}
N=${KK_BENCH_N:-4096}
N1=${KK_BENCH_N1:-2048}
RUNS=${KK_BENCH_RUNS:-3}
mkdir -p "$OUT"
rc=0
. "$(dirname "$0")/run-common.sh" # step
export KOKKOS_PLUGIN_PATH=$B/plugins/.libs
for f in kernels/tests/check_kernels bench/kk-bench-kernels; do
  [ -x "$B/$f" ] || { echo "host-gemm-gpu: $B/$f is not built (make it first)"; exit 2; }
done
NP=$(nproc)

step "host CPU and build"
{
  lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|L1d|L2|L3|NUMA node0)'
  echo "avx512f: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"
  echo "configure: $(sed -n 's/^  \$ \(.*configure.*\)/\1/p' "$B/config.log" | head -1)"
  echo "commit: $(cd "$B" && SRC=$(sed -n 's/^srcdir = //p' Makefile) && git -C "$SRC" rev-parse --short HEAD 2>/dev/null)"
  echo "load: $(cat /proc/loadavg)"
} | tee "$OUT/host.txt"

if [ "${KK_BENCH_SUITE:-1}" != 0 ]; then
  step "check_kernels openmp (kk's own gemm at edge sizes, every op and layout; the rest of the suite)"
  OMP_NUM_THREADS=$NP CK_FORK=no timeout 70 "$B/kernels/tests/check_kernels" openmp >"$OUT/check-kernels-openmp.log" 2>&1
  s=$?
  echo "rc=$s"
  tail -4 "$OUT/check-kernels-openmp.log"
  [ $s = 0 ] || rc=1
fi

run() { # run LABEL THREADS SIZE REPS SECONDS
  local log="$OUT/dgemm-$1.log" s
  OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=$2 timeout "$5" "$B/bench/kk-bench-kernels" \
    --backends=openmp --cases=dgemm --dgemm="$3" --reps="$4" --kokkos-num-threads="$2" >"$log" 2>&1
  s=$?
  grep -E 'threads?$|dgemm ' "$log"
  [ $s = 0 ] || { echo "rc=$s (see $log)"; rc=1; }
}
for r in $(seq 1 "$RUNS"); do
  step "kk-bench-kernels openmp dgemm ${N}^2, $NP threads bound, run $r of $RUNS"
  run "all-$r" "$NP" "$N" 3 25
done
for r in $(seq 1 "$RUNS"); do
  step "kk-bench-kernels openmp dgemm ${N1}^2, 1 thread, run $r of $RUNS"
  run "one-$r" 1 "$N1" 3 20
done

if [ -x "$B/bench/kk-bench-hostgemm" ]; then
  step "kk-bench-hostgemm ${N}^2, $NP threads bound (wall and CPU time)"
  OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=$NP timeout 25 "$B/bench/kk-bench-hostgemm" "$N" 3 \
    --kokkos-device=openmp --kokkos-num-threads="$NP" 2>&1 | tee "$OUT/hostgemm.log"
  [ $? = 0 ] || rc=1
fi

step "summary: kk own / OpenBLAS (kk vendor: the CBLAS through kk)"
for f in "$OUT"/dgemm-*.log; do
  awk -v f="$(basename "$f" .log)" '$1 == "dgemm" && $2 == "kk" { printf "%-10s %-10s %s %s GFLOP/s, OpenBLAS %s: %s\n", f, $2 " " $3, $5, $6, $7, $9 }' "$f"
done | tee "$OUT/summary.txt"
step "done, rc=$rc"
exit $rc
