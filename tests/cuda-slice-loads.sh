#!/bin/sh
# tests/cuda-slice-loads.sh -- on CUDA the unrolled vector reduction of a team kernel taking a slice per team issues its loads together, as its twin indexing the parent does, in no more instructions.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# bench_hier.kk.c's batched matrix-vector kernels (KK_VECTOR_UNROLL 2: two
# elements of a row per lane per step) are memory-latency bound: a warp
# that issues a step's two loads before the first FMA waits for memory once
# per step, one that puts the second load after the first FMA (which waits
# for the first load) twice.  nvcc compiles them for sm_90 as the cuda
# target does, and tests/cubin-loops.py reads the loops of the machine code:
# in each kernel, slice and parent, capped and not, every vector-reduction
# loop (an innermost loop with global loads and double FMAs, no store) whose
# loads are unguarded (a full step) must issue all its loads before its
# first FMA, there must be such a loop, and the slice kernel's longest may
# be no longer than the parent's.  No GPU needed; skipped without nvcc or
# python3.
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
. "$srcdir/tests/find-nvcc.sh"
kk_find_nvcc compute_90
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

"$nvcc" -x cu -O3 -std=c++17 -arch=sm_90 --cubin -DKK_TARGET_CUDA -I"$srcdir/include" -I"$builddir/include" \
  -I"$srcdir/bench" "$srcdir/bench/bench_hier.kk.c" -o "$tmp/k.cubin" >"$tmp/log" 2>&1 || {
  cat "$tmp/log"
  echo "FAIL: nvcc failed on bench/bench_hier.kk.c"
  exit 1
}
python3 "$srcdir/tests/cubin-loops.py" "$tmp/k.cubin" kk_k_batched_matvec_sub kk_k_batched_matvec \
  kk_k_batched_matvec_sub_b kk_k_batched_matvec_b >"$tmp/loops" || {
  echo "FAIL: tests/cubin-loops.py could not read the cubin"
  exit 1
}

# usage: full KERNEL: "loops longest together" of KERNEL's unguarded vector-reduction loops
# (loops: how many, longest: the most instructions, together: how many issue every load before the first FMA)
full() {
  awk -v k="kk_k_$1" '
    $1 == k && $5 == 1 {
      ld = 0; guarded = 0; fma = 0; st = 0; late = 0
      for (i = 6; i <= NF; i++) {
        if ($i ~ /^LDG/) { ld++; if ($i ~ /\?$/) guarded = 1; if (fma) late = 1 }
        if ($i ~ /^DFMA/) fma++
        if ($i ~ /^STG/) st++
      }
      if (ld == 0 || fma == 0 || st || guarded) next
      n++; if ($4 > len) len = $4; if (!late) ok++
    }
    END { print n + 0, len + 0, ok + 0 }' "$tmp/loops"
}

fail=0
# usage: pair SLICE PARENT
pair() {
  # shellcheck disable=SC2046 # full prints three words
  set -- "$1" "$2" $(full "$1") $(full "$2")
  msg="$1: $3 unguarded vector loops, longest $4 instructions, $5 with the loads together; $2: $6, $7, $8"
  if [ "$3" -gt 0 ] && [ "$5" -eq "$3" ] && [ "$6" -gt 0 ] && [ "$8" -eq "$6" ] && [ "$4" -le "$7" ]; then
    echo "PASS: $msg"
  else
    echo "FAIL: $msg"
    grep -E "^kk_k_($1|$2) " "$tmp/loops" | awk '$5 == 1 && / (LDG|DFMA)/'
    fail=1
  fi
}
pair batched_matvec_sub batched_matvec
pair batched_matvec_sub_b batched_matvec_b
exit $fail
