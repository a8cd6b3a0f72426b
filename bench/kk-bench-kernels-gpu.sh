#!/bin/bash
# bench/kk-bench-kernels-gpu.sh -- kk-kernels' own kernels on a CUDA machine, from a built tree: the gemm's resource use, the suite on cuda, then kk-bench-kernels' dgemm 8192^2, batched, gemv and SpMV rows three times, and a summary of kk own / native per row.
#
# usage: bench/kk-bench-kernels-gpu.sh [BUILDDIR]     (default: the current directory)
# BUILDDIR is a tree configured with cuda and built (`make`): libkk, the
# cuda plugin, libkk-kernels, kernels/tests/check_kernels and
# bench/kk-bench-kernels.  Logs go to $OUT (default /tmp/kk-bench-kernels-gpu).
# Knobs: KK_BENCH_RUNS (default 3), KK_BENCH_REPS (kk-bench-kernels --reps,
# default 10), KK_BENCH_CASES (default dgemm,batched,gemv,spmv),
# KK_BENCH_TIMEOUT (seconds per run, default 300), KK_BENCH_SUITE=0 (leaves
# the suite out), KK_BENCH_HOST_DGEMM=N (adds the openmp dgemm N^2 row against
# OpenBLAS on every core, bound: OMP_PROC_BIND=spread OMP_PLACES=cores).
# Run it with nothing else on the GPU or loading the host.  No timing is
# judged: the exit status says whether the suite passed and every run ran.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(cd "${1:-.}" && pwd)
OUT=${OUT:-/tmp/kk-bench-kernels-gpu}
RUNS=${KK_BENCH_RUNS:-3}
REPS=${KK_BENCH_REPS:-10}
CASES=${KK_BENCH_CASES:-dgemm,batched,gemv,spmv}
TMO=${KK_BENCH_TIMEOUT:-300}
mkdir -p "$OUT"
rc=0
. "$(dirname "$0")/run-common.sh" # step
export KOKKOS_PLUGIN_PATH=$B/plugins/.libs
for f in kernels/tests/check_kernels bench/kk-bench-kernels; do
  [ -x "$B/$f" ] || { echo "kk-bench-kernels-gpu: $B/$f is not built (make it first)"; exit 2; }
done

step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader | tee "$OUT/other-processes.txt"
nproc

step "the gemm kernel's registers and spills (ptxas -v, sm_90)"
NVCC=$(sed -n 's/.*"NVCC": "\(.*\)".*/\1/p' "$B/targets/cuda.json")
SRC=$(cd "$B" && sed -n 's/^srcdir = //p' Makefile)
SRC=$(cd "$B" && cd "$SRC" && pwd)
if [ -x "$NVCC" ]; then
  timeout 300 "$NVCC" -x cu -O3 -std=c++17 --cubin -gencode=arch=compute_90,code=sm_90 -Xptxas -v -DKK_TARGET_CUDA \
    -I"$SRC/include" -I"$B/include" -I"$SRC/kernels" "$SRC/kernels/blas2.kk.c" -o "$OUT/blas2.cubin" 2>&1 |
    grep -A3 "entry function 'kk_k_kkk_gemm_rb_[sd]'" | tee "$OUT/ptxas-gemm.txt"
else
  echo "(nvcc not found at '$NVCC': skipped)"
fi

if [ "${KK_BENCH_SUITE:-1}" != 0 ]; then
  step "check_kernels cuda (kk's own gemm at edge sizes, every op and layout; the rest of the suite)"
  CK_FORK=no timeout "$TMO" "$B/kernels/tests/check_kernels" cuda >"$OUT/check-kernels-cuda.log" 2>&1
  s=$?
  echo "rc=$s"
  tail -5 "$OUT/check-kernels-cuda.log"
  [ $s = 0 ] || rc=1
fi

for r in $(seq 1 "$RUNS"); do
  step "kk-bench-kernels cuda --full --cases=$CASES, run $r of $RUNS"
  timeout "$TMO" "$B/bench/kk-bench-kernels" --backends=cuda --full --cases="$CASES" --reps="$REPS" \
    >"$OUT/bench-cuda-$r.txt" 2>"$OUT/bench-cuda-$r.err"
  s=$?
  cat "$OUT/bench-cuda-$r.txt"
  grep -i "mismatch\|error" "$OUT/bench-cuda-$r.err"
  [ $s = 0 ] || { echo "rc=$s"; rc=1; }
done

if [ -n "${KK_BENCH_HOST_DGEMM:-}" ]; then
  for r in $(seq 1 "$RUNS"); do
    step "kk-bench-kernels openmp dgemm ${KK_BENCH_HOST_DGEMM}^2 ($(nproc) cores, bound), run $r of $RUNS"
    OMP_PROC_BIND=spread OMP_PLACES=cores timeout "$TMO" "$B/bench/kk-bench-kernels" --backends=openmp \
      --cases=dgemm --dgemm="$KK_BENCH_HOST_DGEMM" --reps=3 >"$OUT/bench-openmp-$r.txt" 2>"$OUT/bench-openmp-$r.err"
    s=$?
    cat "$OUT/bench-openmp-$r.txt"
    [ $s = 0 ] || { echo "rc=$s"; rc=1; }
  done
fi

step "summary: kk own / native per row, one column per run (targets: dgemm >= 0.5, batched >= 0.95, gemv >= 0.97, spmv >= 0.95)"
cat "$OUT"/bench-cuda-*.txt "$OUT"/bench-openmp-*.txt 2>/dev/null |
  awk 'substr($0, 16, 10) ~ /^kk own/ { key = substr($0, 1, 49); if (!(key in seen)) { seen[key] = 1; order[n++] = key }
                                        v[key] = v[key] sprintf(" %7.3f", $NF) }
       END { for (i = 0; i < n; i++) printf "%s%s\n", order[i], v[order[i]] }' | tee "$OUT/summary.txt"
step "done (logs in $OUT)"
exit $rc
