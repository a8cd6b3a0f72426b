#!/bin/sh
# tests/cuda-slice-regs.sh -- on CUDA a team kernel taking a slice per team needs no more registers than the same kernel indexing the parent.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Registers decide how many teams a multiprocessor holds (at 256-thread
# teams, 32 registers a thread is 8 teams, 34 is 6), so a slice that costs
# registers costs speed.  Each pair below is one kernel taking a typed slice
# (KK_PLANE_OF, KK_ROW_OF, KK_COL_OF, KK_ROWS_OF) and its twin indexing the parent; ptxas
# (nvcc -Xptxas -v, as the cuda target compiles, for sm_90) reports their
# registers and stack, and the slice's may not exceed the parent's.  No GPU
# needed; skipped without nvcc.
srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
. "$srcdir/tests/find-nvcc.sh"
kk_find_nvcc compute_90
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# usage: usage FILE: "kernel registers stack-bytes spill-bytes" per kernel of FILE
usage() {
  "$nvcc" -x cu -O3 -std=c++17 -arch=sm_90 --cubin -Xptxas -v -DKK_TARGET_CUDA -I"$srcdir/include" \
    -I"$builddir/include" -I"$srcdir/bench" "$1" -o "$tmp/k.cubin" >"$tmp/log" 2>&1 || {
    cat "$tmp/log"
    echo "FAIL: nvcc failed on $1"
    exit 1
  }
  awk '/Compiling entry function/ { n = $0; sub(/.*function \047/, "", n); sub(/\047.*/, "", n) }
       /bytes stack frame/ { st[n] = $1; sp[n] = $5 + $9 }
       /Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if ($i == "Used") r[n] = $(i + 1) }
       END { for (k in r) print k, r[k], st[k] + 0, sp[k] + 0 }' "$tmp/log"
}
usage "$srcdir/bench/bench_hier.kk.c" >"$tmp/usage"
usage "$srcdir/tests/slices/regs.kk.c" >>"$tmp/usage"

fail=0
# usage: pair SLICE PARENT
pair() {
  set -- "$1" "$2" $(awk -v k="kk_k_$1" '$1 == k { print $2, $3, $4 }' "$tmp/usage") \
    $(awk -v k="kk_k_$2" '$1 == k { print $2, $3, $4 }' "$tmp/usage")
  if [ $# -ne 8 ]; then
    echo "FAIL: ptxas reported no usage for $1 or $2"
    fail=1
    return
  fi
  if [ "$3" -le "$6" ] && [ "$4" -le "$7" ] && [ "$5" -le "$8" ]; then
    echo "PASS: $1 $3 registers, ${4}B stack, ${5}B spills; $2 $6, ${7}B, ${8}B"
  else
    echo "FAIL: $1 $3 registers, ${4}B stack, ${5}B spills; $2 $6, ${7}B, ${8}B"
    fail=1
  fi
}
pair batched_matvec_sub batched_matvec
pair col_sub col_parent
pair plane_sub plane_parent
pair rows_sub rows_parent
exit $fail
