#!/bin/bash
# bench/dgemm-tc-gpu.sh -- kk-kernels' own dgemm on the FP64 tensor cores of a CUDA GPU, from a built tree: the kernel's resources, the gemm tests on cuda, then kk-bench-kernels' dgemm 8192^2 (kk own, kk with cuBLAS, cuBLAS) three times.
#
# usage: bench/dgemm-tc-gpu.sh [BUILDDIR]     (default: the current directory)
# BUILDDIR is a tree configured with `--enable-cuda=yes --with-cuda-archs=sm_90`
# (or a list with sm_80 or newer) and built (`make`, then
# `make kernels/tests/check_kernels` if `make check` has not built it).
# Logs go to $OUT (default /tmp/kk-dgemm-tc-gpu).  Every step is bounded by
# `timeout`, the bounds adding up to 225 s.  Knobs: KK_BENCH_RUNS
# (default 3), KK_BENCH_REPS (kk-bench-kernels --reps, default 10),
# KK_BENCH_DGEMM (the size, default 8192).  No timing is judged: the exit
# status says whether the tests passed, the PTX has the tensor-core
# instruction and every run ran.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(cd "${1:-.}" && pwd)
OUT=${OUT:-/tmp/kk-dgemm-tc-gpu}
RUNS=${KK_BENCH_RUNS:-3}
REPS=${KK_BENCH_REPS:-10}
N=${KK_BENCH_DGEMM:-8192}
mkdir -p "$OUT"
rc=0
. "$(dirname "$0")/run-common.sh" # step
export KOKKOS_PLUGIN_PATH=$B/plugins/.libs
for f in kernels/tests/check_kernels bench/kk-bench-kernels; do
  [ -x "$B/$f" ] || { echo "dgemm-tc-gpu: $B/$f is not built (make it first)"; exit 2; }
done

step "device"
timeout 5 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
timeout 5 nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader | tee "$OUT/other-processes.txt"
(cd "$B" && git log -1 --format='%h %s' 2>/dev/null) | tee "$OUT/commit.txt"

step "gemm_rb's registers and spills (ptxas -v, sm_80 and sm_90), and its mma instructions in the PTX"
NVCC=$(sed -n 's/.*"NVCC": "\(.*\)".*/\1/p' "$B/targets/cuda.json")
SRC=$(cd "$B" && sed -n 's/^srcdir = //p' Makefile)
SRC=$(cd "$B" && cd "$SRC" && pwd)
if [ -x "$NVCC" ]; then
  for a in 80 90; do
    timeout 10 "$NVCC" -x cu -O3 -std=c++17 --cubin -gencode=arch=compute_$a,code=sm_$a -Xptxas -v -DKK_TARGET_CUDA \
      -I"$SRC/include" -I"$B/include" -I"$SRC/kernels" "$SRC/kernels/blas2.kk.c" -o "$OUT/blas2-sm_$a.cubin" 2>&1 |
      grep -A3 "entry function 'kk_k_kkk_gemm_rb_[sd]'" | tee "$OUT/ptxas-gemm-sm_$a.txt"
  done
  for a in 80 90; do
    timeout 10 "$NVCC" -x cu -O3 -std=c++17 --ptx -arch=sm_$a -DKK_TARGET_CUDA -I"$SRC/include" -I"$B/include" \
      -I"$SRC/kernels" "$SRC/kernels/blas2.kk.c" -o "$OUT/blas2-sm_$a.ptx"
  done
  n80=$(awk '/\.entry kk_k_kkk_gemm_rb_d/,/^}/' "$OUT/blas2-sm_80.ptx" | grep -c 'mma.sync.aligned.m8n8k4.row.col.f64')
  n90=$(awk '/\.entry kk_k_kkk_gemm_rb_d/,/^}/' "$OUT/blas2-sm_90.ptx" | grep -c 'mma.sync.aligned.m16n8k16.row.col.f64')
  echo "gemm_rb_d: sm_80 PTX mma m8n8k4 f64 x $n80 (128 expected), sm_90 PTX mma m16n8k16 f64 x $n90 (16 expected)" |
    tee "$OUT/mma-count.txt"
  [ "$n80" -gt 0 ] && [ "$n90" -gt 0 ] || rc=1
else
  echo "(nvcc not found at '$NVCC': skipped)"
fi

step "check_kernels cuda, the gemm case (CK_RUN_CASE=gemm: kk's own gemm at edge sizes, every op and layout)"
CK_FORK=no CK_RUN_CASE=gemm timeout 100 "$B/kernels/tests/check_kernels" cuda >"$OUT/check-kernels-gemm-cuda.log" 2>&1
s=$?
echo "rc=$s"
tail -5 "$OUT/check-kernels-gemm-cuda.log"
[ $s = 0 ] || rc=1

for r in $(seq 1 "$RUNS"); do
  step "kk-bench-kernels cuda --cases=dgemm --dgemm=$N, run $r of $RUNS"
  timeout 25 "$B/bench/kk-bench-kernels" --backends=cuda --cases=dgemm --dgemm="$N" --reps="$REPS" \
    >"$OUT/bench-dgemm-$r.txt" 2>"$OUT/bench-dgemm-$r.err"
  s=$?
  cat "$OUT/bench-dgemm-$r.txt"
  grep -i "mismatch\|error" "$OUT/bench-dgemm-$r.err"
  [ $s = 0 ] || { echo "rc=$s"; rc=1; }
done

step "summary: kk own / native per row, one column per run (target: dgemm >= 0.5 of cuBLAS)"
cat "$OUT"/bench-dgemm-*.txt 2>/dev/null |
  awk 'substr($0, 16, 10) ~ /^kk own/ { key = substr($0, 1, 49); if (!(key in seen)) { seen[key] = 1; order[n++] = key }
                                        v[key] = v[key] sprintf(" %7.3f", $NF) }
       END { for (i = 0; i < n; i++) printf "%s%s\n", order[i], v[order[i]] }' | tee "$OUT/summary.txt"
step "done (logs in $OUT), rc=$rc"
exit $rc
