#!/bin/bash
# bench/slices-gpu.sh -- the in-kernel slices on a CUDA machine, from a built tree: their registers against the parent-indexing kernels (tests/cuda-slice-regs.sh), the conformance suite's view cases on cuda plain and bounds-checked, and kk-bench's batched case (rows "matvec sub/parent" and "matvec sub/parent capped") on cuda three times.
#
# usage: bench/slices-gpu.sh BUILDDIR
#   BUILDDIR  a tree built with ./configure --enable-cuda=yes --with-cuda-archs=sm_90 and its check
#             programs (make -j check TESTS=); this script builds nothing
#   OUT       where the logs go (default /tmp/kk-slices-gpu); summary.txt is the summary
# At most 225 s in all: every step is bounded by timeout (45 s the register check, 30 s a
# conformance run, 40 s a bench run).  The exit status says whether every check passed; the
# benchmark figures are printed, not judged (docs/benchmarks.md).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(realpath "${1:?usage: slices-gpu.sh BUILDDIR}")
OUT=${OUT:-/tmp/kk-slices-gpu}
mkdir -p "$OUT"
cd "$B" || exit 1
status=0
note() { # name rc
  case $2 in 0) echo "   $1: PASS" ;; 77) echo "   $1: SKIP" ;; 124 | 137) echo "   $1: TIMEOUT"; status=1 ;; *) echo "   $1: FAIL (rc=$2)"; status=1 ;; esac
}
{
  echo "== $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 | head -1), $(nproc) cores"
  for p in tests/conformance/conformance tests/faults/conformance-bounds bench/kk-bench; do
    [ -x "$p" ] || { echo "   $p is not built: run make -j check TESTS= in $B first"; echo 1 > "$OUT/status"; exit 1; }
  done
  src=$(sed -n 's/^abs_top_srcdir = //p' Makefile)
  nvcc=$(sed -n 's/^NVCC = //p' Makefile)
  # registers, stack and spills of each slice kernel against its parent-indexing twin (ptxas, sm_90)
  NVCC=$nvcc top_srcdir=$src top_builddir=$B timeout 45 bash "$src/tests/cuda-slice-regs.sh" > "$OUT/slice-regs.log" 2>&1
  note "tests/cuda-slice-regs.sh" $?
  cat "$OUT/slice-regs.log"
  export KOKKOS_PLUGIN_PATH="$B/plugins/.libs"
  # the view cases (subviews_in_kernels: every slice macro, typed and untyped, on every layout)
  CK_RUN_CASE=views timeout 30 tests/conformance/conformance cuda > "$OUT/conformance-cuda-views.log" 2>&1
  note "conformance cuda (views)" $?
  grep -E "^[0-9]+%|subviews" "$OUT/conformance-cuda-views.log" | head -5
  # the same with the kernels built by kkcc --bounds-check: no correct slice refused
  CK_RUN_CASE=views timeout 30 tests/faults/conformance-bounds cuda > "$OUT/conformance-bounds-cuda-views.log" 2>&1
  note "conformance-bounds cuda (views)" $?
  grep -E "^[0-9]+%|subviews" "$OUT/conformance-bounds-cuda-views.log" | head -5
  # the batched case: matvec sub/parent (typed slices against indexing the parent, goal >= 0.98),
  # and both kernels under KK_LAUNCH_BOUNDS(256, 8) (capped)
  for k in 1 2 3; do
    timeout 40 bench/kk-bench --backends=cuda --cases=batched > "$OUT/bench-cuda-$k.log" 2>&1
    note "kk-bench batched (cuda), run $k" $?
    grep -E "matvec" "$OUT/bench-cuda-$k.log"
  done
  echo "== $(date -u +%H:%M:%S) done; logs in $OUT"
  echo "$status" > "$OUT/status" # the block runs in a subshell (the pipe into tee)
} 2>&1 | tee "$OUT/summary.txt"
exit "$(cat "$OUT/status" 2>/dev/null || echo 1)"
