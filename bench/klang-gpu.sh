#!/bin/bash
# bench/klang-gpu.sh -- the memory-trait, SIMD, in-kernel subview and layout-copy checks and benchmarks on a CUDA machine, from a built tree: the conformance suite on cuda (and the host backends), kk-bench's gather, nbody, batched and transpose cases on cuda and on the host.
#
# usage: bench/klang-gpu.sh BUILDDIR
#   BUILDDIR  a tree built with ./configure --enable-cuda=yes (e.g. maint/gpu-run.sh build's
#             /tmp/kk-gpu, which configures --with-host-arch=native); make check's programs built
#             there (make -j check TESTS=) or this script builds them
#   OUT       where the logs go (default /tmp/kk-klang-gpu); summary.txt is the summary
# Every part is bounded by timeout; the exit status says whether every check passed.  The
# benchmark figures are printed, not judged (docs/benchmarks.md).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(realpath "${1:?usage: klang-gpu.sh BUILDDIR}")
OUT=${OUT:-/tmp/kk-klang-gpu}
mkdir -p "$OUT"
cd "$B" || exit 1
status=0
note() { # name rc
  case $2 in 0) echo "   $1: PASS" ;; 77) echo "   $1: SKIP" ;; *) echo "   $1: FAIL (rc=$2)"; status=1 ;; esac
}
{
  echo "== $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 | head -1), $(nproc) cores"
  timeout 1200 make -j"$(nproc)" tests/conformance/conformance bench/kk-bench > "$OUT/build.log" 2>&1
  note build $?
  export KOKKOS_PLUGIN_PATH="$B/plugins/.libs"
  for be in cuda threads openmp serial; do
    timeout 900 tests/conformance/conformance "$be" > "$OUT/conformance-$be.log" 2>&1
    note "conformance $be" $?
    grep -E "^[0-9]+%|memory_traits|simd_types|subviews_in_kernels" "$OUT/conformance-$be.log" | head -5
  done
  timeout 900 bench/kk-bench --backends=cuda,threads --cases=gather,nbody,batched,transpose > "$OUT/bench.log" 2>&1
  note "kk-bench gather,nbody,batched,transpose (cuda, threads)" $?
  grep -E "gather|nbody|matvec|deep_copy" "$OUT/bench.log"
  # the subview row again, three times: its spread says what a difference means
  for k in 1 2 3; do
    timeout 300 bench/kk-bench --backends=cuda --cases=batched > "$OUT/bench-matvec-$k.log" 2>&1
    note "kk-bench batched (cuda), run $k" $?
    grep -E "matvec sub/parent" "$OUT/bench-matvec-$k.log"
  done
  # the host SIMD rows on every core, three times (OpenMP threads spread over the cores)
  for k in 1 2 3; do
    OMP_PROC_BIND=spread timeout 600 bench/kk-bench --backends=openmp --cases=nbody > "$OUT/bench-nbody-$k.log" 2>&1
    note "kk-bench nbody (openmp), run $k" $?
    grep -E "nbody" "$OUT/bench-nbody-$k.log"
  done
  OMP_NUM_THREADS=1 timeout 900 bench/kk-bench --backends=serial --cases=nbody > "$OUT/bench-serial.log" 2>&1
  note "kk-bench nbody (serial: one core)" $?
  grep -E "nbody" "$OUT/bench-serial.log"
  echo "== $(date -u +%H:%M:%S) done; logs in $OUT"
} 2>&1 | tee "$OUT/summary.txt"
exit $status
