#!/bin/bash
# bench/remap-gpu.sh -- the checks and benchmark of kk_deep_copy between layouts on a CUDA machine, from a built tree: the conformance suite's copies between layouts (element sizes 1-16, ranks 1-8, odd and zero extents, host <-> device) and view cases on cuda, and kk-bench's transpose row on cuda and openmp, three times each.
#
# usage: bench/remap-gpu.sh BUILDDIR
#   BUILDDIR  a tree built with ./configure --enable-cuda=yes and its check programs
#             (make -j check TESTS=, or maint/gpu-run.sh build); this script builds nothing
#   OUT       where the logs go (default /tmp/kk-remap-gpu); summary.txt is the summary
# At most 112 s in all: every step is bounded by timeout (20 s a conformance case, 12 s a bench
# run).  The exit status says whether every check passed; the benchmark figures are printed, not
# judged (docs/benchmarks.md).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(realpath "${1:?usage: remap-gpu.sh BUILDDIR}")
OUT=${OUT:-/tmp/kk-remap-gpu}
mkdir -p "$OUT"
cd "$B" || exit 1
status=0
note() { # name rc
  case $2 in 0) echo "   $1: PASS" ;; 77) echo "   $1: SKIP" ;; 124 | 137) echo "   $1: TIMEOUT"; status=1 ;; *) echo "   $1: FAIL (rc=$2)"; status=1 ;; esac
}
{
  echo "== $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 | head -1), $(nproc) cores"
  for p in tests/conformance/conformance bench/kk-bench; do
    [ -x "$p" ] || { echo "   $p is not built: run make -j check TESTS= in $B first"; exit 1; }
  done
  export KOKKOS_PLUGIN_PATH="$B/plugins/.libs"
  # the copies between layouts (remap: deep_copy_remap_tiles) and the view cases around them
  # (views: deep_copy_between_layouts, deep_copies_fills_mirrors, ...)
  for case in remap views; do
    CK_RUN_CASE=$case timeout 20 tests/conformance/conformance cuda > "$OUT/conformance-cuda-$case.log" 2>&1
    note "conformance cuda ($case)" $?
    grep -E "^[0-9]+%|deep_copy" "$OUT/conformance-cuda-$case.log" | head -5
  done
  # the transpose row: 2^13 x 2^13 doubles, kk_deep_copy right->left against a tiled transpose
  for k in 1 2 3; do
    for be in cuda openmp; do
      OMP_PROC_BIND=spread timeout 12 bench/kk-bench --backends=$be --cases=transpose > "$OUT/bench-$be-$k.log" 2>&1
      note "kk-bench transpose ($be), run $k" $?
      grep -E "deep_copy" "$OUT/bench-$be-$k.log"
    done
  done
  echo "== $(date -u +%H:%M:%S) done; logs in $OUT"
} 2>&1 | tee "$OUT/summary.txt"
exit $status
