#!/bin/bash
# maint/gpu-lat.sh -- launch latency on a CUDA machine, from a built tree: the Python launch bench (kk.Launch against C), the gemv rows of kk-bench-kernels, kk-bench's latency and CG 20^3 rows (plain and graph), what a launch's parameter bytes cost a plain CUDA launch, and the gemv kernel's registers, with a summary.
#
# usage: maint/gpu-lat.sh [BUILDDIR]
#   BUILDDIR  a tree configured with --enable-cuda=yes and built (make; default: .)
#   RUNS      runs of each bench (default 3), PYTHON (default python3), OUT (logs; default /tmp/kk-gpu-lat)
# Run it with nothing else on the GPU or loading the host.  Every step is bounded by timeout and prints
# PASS, FAIL or SKIP; no timing is judged: $OUT/summary.txt has the rows for docs/python.md and
# docs/benchmarks.md.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(cd "${1:-.}" && pwd)
S=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3}
RUNS=${RUNS:-3}
OUT=${OUT:-/tmp/kk-gpu-lat}
mkdir -p "$OUT"
: >"$OUT/summary.txt"
status=0
say() { echo "$*" | tee -a "$OUT/summary.txt"; }
run() { # name timeout command...: logs to $OUT/name.log and notes the result (77: skipped)
  local name=$1 t=$2
  shift 2
  echo "== $(date -u +%H:%M:%S) $name"
  timeout -k 10 "$t" "$@" >"$OUT/$name.log" 2>&1
  local r=$?
  tail -n 20 "$OUT/$name.log"
  case $r in
  0) say "$name: PASS" ;;
  77) say "$name: SKIP ($(tail -n 1 "$OUT/$name.log"))" ;;
  *) say "$name: FAIL (rc=$r, log $OUT/$name.log)"; status=1 ;;
  esac
  return $r
}
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1); $(date -u '+%Y-%m-%d %H:%M UTC'); $(cd "$S" && git rev-parse --short HEAD 2>/dev/null)"
say "other processes on the GPU: $(nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader 2>&1 | tr '\n' ' ')"
export KOKKOS_PLUGIN_PATH=$B/plugins/.libs OMP_WAIT_POLICY=passive
# the profilers run the programs themselves, not libtool's wrapper scripts
export LD_LIBRARY_PATH=$B/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
make -s -C "$B" python/tests/kk_test_module.so bench/kk-bench-launch bench/kk-bench bench/kk-bench-kernels \
  >"$OUT/make.log" 2>&1 || { say "make: FAIL (log $OUT/make.log)"; exit 1; }
"$B/tools/kk-info/kk-info" --kokkos-device=cuda >"$OUT/kk-info.log" 2>&1 ||
  { say "the cuda backend is not usable here: $(tail -n 1 "$OUT/kk-info.log")"; exit 1; }

# 1. Python against C: a 1-element launch through kk.Launch (one kk_call_t) and the plain call
for r in $(seq "$RUNS"); do
  if run "python-launch-$r" 900 "$PY" "$S/bench/python-launch.py" --builddir "$B" --backends serial,openmp,cuda; then
    grep -E '^(serial|openmp|cuda) ' "$OUT/python-launch-$r.log" | sed "s/^/  python-launch run $r: /" | tee -a "$OUT/summary.txt"
  fi
done

# 2. gemv 8192^2, kk's own kernel against cuBLAS
for r in $(seq "$RUNS"); do
  if run "gemv-$r" 300 "$B/bench/kk-bench-kernels" --backends=cuda --cases=gemv --full --reps=10; then
    grep -i 'gemv' "$OUT/gemv-$r.log" | sed "s/^/  gemv run $r: /" | tee -a "$OUT/summary.txt"
  fi
done

# 3. kk-bench: launch latency, CG 20^3 with plain launches and with a graph, against hand-written CUDA
for r in $(seq "$RUNS"); do
  if run "latency-cg-$r" 600 "$B/bench/kk-bench" --backends=cuda --cases=latency,cg,cggraph; then
    grep -E '^(case|empty for|reduce of|CG)' "$OUT/latency-cg-$r.log" | sed "s/^/  kk-bench run $r: /" |
      tee -a "$OUT/summary.txt"
  fi
done

# 4. what parameter bytes cost a plain CUDA launch (kk passes the argument struct, 160 bytes a view,
#    and its 392-byte launch record by value; a hand-written kernel a few pointers)
NVCC=$(sed -n 's/.*"NVCC": "\(.*\)".*/\1/p' "$B/targets/cuda.json")
if [ -n "$NVCC" ] && "$NVCC" -O2 -arch=sm_90 "$S/bench/launch-params.cu" -o "$OUT/launch-params" >"$OUT/nvcc.log" 2>&1; then
  run launch-params 300 "$OUT/launch-params" 20000 && sed 's/^/  /' "$OUT/launch-params.log" >>"$OUT/summary.txt"
else
  say "launch-params: SKIP (no nvcc, or it failed: $OUT/nvcc.log)"
fi

# 5. the gemv kernels' registers (the loop's PTX is kept in $OUT/blas2.ptx)
if [ -n "$NVCC" ]; then
  "$NVCC" -x cu -O3 -std=c++17 -arch=sm_90 -cubin -DKK_TARGET_CUDA -I"$S/include" -I"$B/include" -I"$S/kernels" \
    -Xptxas -v "$S/kernels/blas2.kk.c" -o "$OUT/blas2.cubin" >"$OUT/ptxas.log" 2>&1
  "$NVCC" -x cu -O3 -std=c++17 -arch=sm_90 -ptx -DKK_TARGET_CUDA -I"$S/include" -I"$B/include" -I"$S/kernels" \
    "$S/kernels/blas2.kk.c" -o "$OUT/blas2.ptx" >>"$OUT/ptxas.log" 2>&1
  grep -A3 "entry function 'kk_k_kkk_gemv_split_d'" "$OUT/ptxas.log" | grep -E 'registers|spill' | sed 's/^/  gemv_split_d: /' |
    tee -a "$OUT/summary.txt"
fi

# 6. where the time goes, when Nsight is installed: the driver calls of CG 20^3 (kk's cuLaunchKernel with its
#    parameter bytes against the hand-written side's cudaLaunchKernel, kk's cuStreamQuery while it waits for
#    a dot's flag against cudaMemcpy) and the kernels of the gemv row (kk's y = b y before its split columns,
#    DRAM throughput of gemv_split against cuBLAS's kernel)
if command -v nsys >/dev/null 2>&1; then
  run nsys-cg 600 nsys profile -t cuda -o "$OUT/cg" -f true --stats=true \
    "$B/bench/.libs/kk-bench" --backends=cuda --cases=cg --reps=3 &&
    grep -E 'cuLaunchKernel|cudaLaunchKernel|cuStreamQuery|cudaMemcpy|cuStreamSynchronize|cudaStreamSynchronize' \
      "$OUT/nsys-cg.log" | sed 's/^/  nsys cg: /' | tee -a "$OUT/summary.txt"
  run nsys-gemv 600 nsys profile -t cuda -o "$OUT/gemv" -f true --stats=true \
    "$B/bench/.libs/kk-bench-kernels" --backends=cuda --cases=gemv --full --reps=3
  grep -i -E 'gemv|scal|fill|memset' "$OUT/nsys-gemv.log" | sed 's/^/  nsys gemv: /' | tee -a "$OUT/summary.txt"
else
  say "nsys: SKIP (not installed)"
fi
if command -v ncu >/dev/null 2>&1; then
  run ncu-gemv 900 ncu --kernel-name regex:'gemv|scal' --launch-count 12 \
    --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active \
    "$B/bench/.libs/kk-bench-kernels" --backends=cuda --cases=gemv --full --reps=1 &&
    grep -E 'gemv|scal|gpu__time|dram__|registers|grid_size|warps_active' "$OUT/ncu-gemv.log" | head -n 80 |
      sed 's/^/  ncu gemv: /' >>"$OUT/summary.txt"
else
  say "ncu: SKIP (not installed)"
fi

echo
echo "==== summary ($OUT/summary.txt)"
cat "$OUT/summary.txt"
exit $status
