#!/bin/bash
# maint/gpu-copyif.sh -- copy_if and the scans on a CUDA machine, from a built tree: kk-algorithms' std cases and the conformance scan cases on cuda, kk-bench-algorithms' copy_if and fill rows three times, the plain scan rows once, an Nsight Compute count of the compaction kernels, and the SASS instruction counts of the compaction and scan kernels, with a summary.
#
# usage: maint/gpu-copyif.sh [BUILDDIR]
#   BUILDDIR  a tree configured with --enable-cuda=yes and built (default: .), with
#             make algorithms/tests/check_algorithms tests/conformance/conformance
#   OUT       the logs (default /tmp/kk-gpu-copyif); summary.txt has the summary
#   T         seconds each step may take (default 60)
# Every step is bounded by timeout and prints PASS, FAIL or SKIP; no timing is
# judged here: the rows and counts are for docs/algorithms.md.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(cd "${1:-.}" && pwd) || exit 2
S=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/kk-gpu-copyif}
T=${T:-60}
mkdir -p "$OUT"
: >"$OUT/summary.txt"
status=0
say() { echo "$*" | tee -a "$OUT/summary.txt"; }
run() { # name command...: logs to $OUT/name.log and notes the result (77: skipped)
  local name=$1
  shift
  echo "== $(date -u +%H:%M:%S) $name"
  timeout -k 5 "$T" "$@" >"$OUT/$name.log" 2>&1
  local r=$?
  case $r in 0) say "$name: PASS" ;; 77) say "$name: SKIP" ;; *) say "$name: FAIL (rc=$r)"; status=1 ;; esac
  tail -2 "$OUT/$name.log"
}
cd "$B" || exit 2
export KOKKOS_PLUGIN_PATH=$B/plugins/.libs KK_PLUGIN_PATH_NO_DEFAULT=1 top_builddir=$B top_srcdir=$S CK_FORK=no
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"

run suite-std env CK_RUN_CASE=std algorithms/tests/check_algorithms cuda
run conformance-scans env CK_RUN_CASE=scans tests/conformance/conformance cuda
for i in 1 2 3; do
  run "bench$i" bench/kk-bench-algorithms --backends=cuda --rows=copy_if,fill --full
done
run scan-rows bench/kk-bench-algorithms --backends=cuda --rows=inclusive_scan --full
run stream-rows bench/kk-bench --backends=cuda --cases=stream

if command -v ncu >/dev/null 2>&1; then
  run ncu ncu --launch-count 8 --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,launch__registers_per_thread \
    -k "regex:compact|DeviceSelectSweep" bench/kk-bench-algorithms --backends=cuda --rows=copy_if --full
else
  say "ncu: SKIP (not on the PATH)"
fi

# SASS: the double instantiation of the standard algorithms' kernels and kk-bench's scans, compiled as kkcc does
C=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
D=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
cat >"$OUT/std_f64.kk.c" <<'EOF'
#include <kk/kernel.h>
#include "args.h"
#include "kernel_util.h"
#define ISF 1
#define ISI 0
#define T double
#define SFX f64
#include "std_tmpl.h"
EOF
sass() { # name source includes...: the kernels' instruction counts (no NOPs) and registers
  local name=$1 src=$2
  shift 2
  if ! timeout -k 5 "$T" "$C" -x cu -O3 -std=c++17 -cubin -arch=sm_90 -DKK_TARGET_CUDA -I"$S/include" -I"$B/include" \
    "$@" "$src" -o "$OUT/$name.cubin" >"$OUT/$name-nvcc.log" 2>&1 ||
    ! timeout -k 5 "$T" "$D" -sass "$OUT/$name.cubin" >"$OUT/$name.sass" 2>&1; then
    say "sass $name: FAIL"
    status=1
    return
  fi
  awk '/Function :/ { f = $3 } /^ +\/\*[0-9a-f]+\*\// && f != "" && !/ NOP/ { n[f]++ }
       END { for (k in n) if (k ~ /compact|scan/) printf "sass %s: %d instructions\n", k, n[k] }' "$OUT/$name.sass" |
    sort | tee -a "$OUT/summary.txt"
}
sass std_f64 "$OUT/std_f64.kk.c" -I"$S/algorithms"
sass bench "$S/bench/bench.kk.c" -I"$S/bench" -I"$B/bench"

say "-- summary"
for i in 1 2 3; do
  grep -hE "^(copy_if|fill)" "$OUT/bench$i.log" | tee -a "$OUT/summary.txt"
done
grep -hE "^inclusive_scan" "$OUT/scan-rows.log" | tee -a "$OUT/summary.txt"
grep -hE "scan" "$OUT/stream-rows.log" | tee -a "$OUT/summary.txt"
if [ -f "$OUT/ncu.log" ]; then
  grep -E "^  kk_k_kka_compact|^  void select::DeviceSelectSweep|gpu__time_duration|smsp__inst_executed|dram__bytes_read|registers_per" \
    "$OUT/ncu.log" | tee -a "$OUT/summary.txt"
fi
exit $status
