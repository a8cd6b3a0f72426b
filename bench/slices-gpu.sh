#!/bin/bash
# bench/slices-gpu.sh -- the in-kernel slices on a CUDA machine, from a built tree: their registers and the order of their vector loops' loads against the parent-indexing kernels (tests/cuda-slice-regs.sh, tests/cuda-slice-loads.sh, the latter's SASS reader checked against cuobjdump), the conformance suite's view and team cases on cuda plain and bounds-checked, and kk-bench's batched case (rows "matvec sub/parent" and "matvec sub/parent capped") on cuda three times.
#
# usage: bench/slices-gpu.sh BUILDDIR
#   BUILDDIR  a tree built with ./configure --enable-cuda=yes --with-cuda-archs=sm_90 and its check
#             programs (maint/gpu-run.sh build makes one); this script builds nothing
#   OUT       where the logs go (default /tmp/kk-slices-gpu); summary.txt is the summary,
#             matvec.sass the batched kernels' SASS (cuobjdump -sass)
# At most 145 s in all: every step is bounded by timeout (25 s the register check, 20 s
# the loads check and the SASS, 15 s a conformance run, 30 s a bench run) and by what
# is left of the 145 s.  The exit status says whether every check passed; the
# benchmark figures are printed, not judged (docs/benchmarks.md).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
B=$(realpath "${1:?usage: slices-gpu.sh BUILDDIR}")
OUT=${OUT:-/tmp/kk-slices-gpu}
mkdir -p "$OUT"
cd "$B" || exit 1
status=0
T0=$(date +%s)
note() { # name rc
  case $2 in 0) echo "   $1: PASS" ;; 77) echo "   $1: SKIP" ;; 124 | 137) echo "   $1: TIMEOUT"; status=1 ;; *) echo "   $1: FAIL (rc=$2)"; status=1 ;; esac
}
# usage: limit SECONDS: the timeout of a step, at most what is left of the 145 s (0: none left)
limit() {
  local left=$((145 - ($(date +%s) - T0)))
  [ "$left" -lt "$1" ] && echo $((left > 0 ? left : 0)) || echo "$1"
}
# usage: run SECONDS COMMAND...: COMMAND under timeout, 124 without starting it when no time is left
run() {
  local s
  s=$(limit "$1") && shift
  [ "$s" -gt 0 ] || return 124
  timeout "$s" "$@"
}
{
  echo "== $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 | head -1), $(nproc) cores"
  for p in tests/conformance/conformance tests/faults/conformance-bounds bench/kk-bench; do
    [ -x "$p" ] || { echo "   $p is not built: run make -j check TESTS= in $B first"; echo 1 > "$OUT/status"; exit 1; }
  done
  src=$(sed -n 's/^abs_top_srcdir = //p' Makefile)
  nvcc=$(sed -n 's/^NVCC = //p' Makefile)
  # registers, stack and spills of each slice kernel against its parent-indexing twin (ptxas, sm_90)
  NVCC=$nvcc top_srcdir=$src top_builddir=$B run 25 bash "$src/tests/cuda-slice-regs.sh" > "$OUT/slice-regs.log" 2>&1
  note "tests/cuda-slice-regs.sh" $?
  cat "$OUT/slice-regs.log"
  # the batched kernels' vector loops: a step's loads issued together, the slice's loop no longer
  NVCC=$nvcc top_srcdir=$src top_builddir=$B run 20 bash "$src/tests/cuda-slice-loads.sh" > "$OUT/slice-loads.log" 2>&1
  note "tests/cuda-slice-loads.sh" $?
  cat "$OUT/slice-loads.log"
  # the same kernels' SASS, and the loads test's reader (tests/cubin-loops.py) against cuobjdump:
  # per kernel its instructions and its LDG, STG, DFMA and BRA, counted both ways
  ks="kk_k_batched_matvec_sub kk_k_batched_matvec kk_k_batched_matvec_sub_b kk_k_batched_matvec_b"
  cuobjdump=$(dirname "$nvcc")/cuobjdump
  if [ -x "$cuobjdump" ] && run 20 "$nvcc" -x cu -O3 -std=c++17 -arch=sm_90 --cubin -DKK_TARGET_CUDA -I"$src/include" \
    -I"$B/include" -I"$src/bench" "$src/bench/bench_hier.kk.c" -o "$OUT/matvec.cubin" > "$OUT/sass.log" 2>&1 &&
    "$cuobjdump" -sass "$OUT/matvec.cubin" > "$OUT/matvec.sass" 2>> "$OUT/sass.log"; then
    # shellcheck disable=SC2086
    python3 "$src/tests/cubin-loops.py" --counts "$OUT/matvec.cubin" $ks > "$OUT/counts-reader.txt" 2>> "$OUT/sass.log"
    for k in $ks; do
      awk -v k="$k" '
        /Function : / { on = ($NF == k) }
        on && match($0, /\/\*[0-9a-f]+\*\/ +(@!?U?P[0-7T] +)?[A-Z][A-Z0-9]*/) {
          op = substr($0, RSTART, RLENGTH); sub(/.* /, "", op); n++; c[op]++ }
        END { printf "%s %d LDG=%d STG=%d DFMA=%d BRA=%d\n", k, n, c["LDG"], c["STG"], c["DFMA"], c["BRA"] }' \
        "$OUT/matvec.sass"
    done > "$OUT/counts-cuobjdump.txt"
    cmp -s "$OUT/counts-reader.txt" "$OUT/counts-cuobjdump.txt"
    note "tests/cubin-loops.py against cuobjdump -sass" $?
    paste -d '|' "$OUT/counts-reader.txt" "$OUT/counts-cuobjdump.txt" | sed 's/^/   reader|cuobjdump: /'
    # shellcheck disable=SC2086
    python3 "$src/tests/cubin-loops.py" "$OUT/matvec.cubin" $ks | awk '$5 == 1 && / DFMA/' | sed 's/^/   loop: /'
  else
    note "SASS of the batched kernels (cuobjdump: $cuobjdump)" 1
    tail -5 "$OUT/sass.log" 2>/dev/null
  fi
  export KOKKOS_PLUGIN_PATH="$B/plugins/.libs"
  # the view cases (subviews_in_kernels: every slice macro, typed and untyped, on every layout) and
  # the team cases (team_vector_unroll: vector loops of KK_VECTOR_UNROLL 3, every trip count),
  # plain and with the kernels built by kkcc --bounds-check (no correct slice refused)
  for c in views teams; do
    CK_RUN_CASE=$c run 15 tests/conformance/conformance cuda > "$OUT/conformance-cuda-$c.log" 2>&1
    note "conformance cuda ($c)" $?
    grep -E "^[0-9]+%" "$OUT/conformance-cuda-$c.log" | head -5
    CK_RUN_CASE=$c run 15 tests/faults/conformance-bounds cuda > "$OUT/conformance-bounds-cuda-$c.log" 2>&1
    note "conformance-bounds cuda ($c)" $?
    grep -E "^[0-9]+%" "$OUT/conformance-bounds-cuda-$c.log" | head -5
  done
  # the batched case: matvec sub/parent (typed slices against indexing the parent, goal >= 0.98),
  # and both kernels under KK_LAUNCH_BOUNDS(256, 8) (capped)
  for k in 1 2 3; do
    run 30 bench/kk-bench --backends=cuda --cases=batched > "$OUT/bench-cuda-$k.log" 2>&1
    note "kk-bench batched (cuda), run $k" $?
    grep -E "matvec" "$OUT/bench-cuda-$k.log"
  done
  echo "== $(date -u +%H:%M:%S) (+$(($(date +%s) - T0)) s) done; logs in $OUT"
  echo "$status" > "$OUT/status" # the block runs in a subshell (the pipe into tee)
} 2>&1 | tee "$OUT/summary.txt"
exit "$(cat "$OUT/status" 2>/dev/null || echo 1)"
