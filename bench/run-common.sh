# bench/run-common.sh -- what bench's GPU run scripts (solvers-gpu.sh, sparse-gpu.sh, dgemm-tc-gpu.sh, host-gemm-gpu.sh,
# kk-bench-kernels-gpu.sh, kk-bench-sparse-ops.sh, kk-bench-kernels-own-gpu.sh, spmv-own-gpu.sh) share: a header line
# per step with the time since the start, and a summary of each step's outcome.  Sourced, not run; sourcing starts
# the clock.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

T0=$(date +%s)
step() { echo "== $(date -u +%H:%M:%S) (+$(($(date +%s) - T0)) s) $*"; }

# note NAME RC: a line "NAME: PASS" (SKIP for 77, TIMEOUT for 124, FAIL (rc=RC) otherwise) added to $summary
summary=""
note() {
  local r
  case $2 in 0) r=PASS ;; 77) r=SKIP ;; 124) r="TIMEOUT" ;; *) r="FAIL (rc=$2)" ;; esac
  summary="$summary$1: $r"$'\n'
}

# For scripts whose steps share one time budget, $BUDGET seconds from the
# start (set it before the first step):
# tmo N: the timeout for a step bounded by N seconds (0: none left)
tmo() {
  local left=$((BUDGET - ($(date +%s) - T0)))
  [ "$left" -lt 5 ] && { echo 0; return; }
  echo $(($1 < left ? $1 : left))
}
# go LABEL BOUND LOG VAR=VALUE... COMMAND...: a step; COMMAND with the
# variables set, its output in LOG (stderr in LOG.err), the result noted;
# fails when it did not run or did not pass
go() {
  local label=$1 t log=$3
  t=$(tmo "$2")
  shift 3
  if [ "$t" = 0 ]; then note "$label" 77; return 1; fi
  step "$label"
  timeout "$t" env "$@" >"$log" 2>"$log.err"
  local s=$?
  note "$label" $s
  return $s
}

# own_summary WIDTH [FILE]: the steps' outcomes, then the "kk own" rows of
# each $OUT/bench-NAME.txt labelled NAME (in a column WIDTH wide), each
# $OUT/ncu-NAME-short.txt, and FILE where it is not empty; also into
# $OUT/summary.txt
own_summary() {
  {
    echo "$summary"
    for f in "$OUT"/bench-*.txt; do
      n=$(basename "$f" .txt)
      grep 'kk own' "$f" | awk -v n="${n#bench-}" -v w="$1" '{ printf "%-*s %s\n", w, n, $0 }'
    done
    for f in "$OUT"/ncu-*-short.txt; do
      [ -s "$f" ] && { echo "$(basename "$f" -short.txt):"; cat "$f"; }
    done
    if [ -n "${2:-}" ] && [ -s "$2" ]; then cat "$2"; fi
  } | tee "$OUT/summary.txt"
}

# For the kk-kernels scripts run in a build tree (kk-bench-kernels-own-gpu.sh, spmv-own-gpu.sh):
# own_setup NAME: with $B the build tree, the plugins and libraries taken
# from it, BENCH its kk-bench-kernels (the binary itself where libtool
# wraps it, for ncu); exits 2, naming NAME, when kernels/tests/check_kernels
# or bench/kk-bench-kernels is not built
own_setup() {
  export KOKKOS_PLUGIN_PATH=$B/plugins/.libs KK_PLUGIN_PATH_NO_DEFAULT=1
  for f in kernels/tests/check_kernels bench/kk-bench-kernels; do
    [ -x "$B/$f" ] || { echo "$1: $B/$f is not built (make it first)"; exit 2; }
  done
  BENCH=$B/bench/kk-bench-kernels
  [ -x "$B/bench/.libs/kk-bench-kernels" ] && BENCH=$B/bench/.libs/kk-bench-kernels
  export LD_LIBRARY_PATH=$B/.libs:$B/kernels/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}
# check NAME BOUND CASE [VAR=VALUE...]: check_kernels on cuda, one case, with
# the variables set; its log $OUT/check-NAME.log; rc=1 when it failed
check() {
  local name=$1 bound=$2 case=$3
  shift 3
  go "check_kernels cuda $case${*:+ $*}: $name" "$bound" "$OUT/check-$name.log" CK_FORK=no CK_RUN_CASE="$case" "$@" \
    "$B/kernels/tests/check_kernels" cuda || rc=1
  tail -n 2 "$OUT/check-$name.log"
}
# own_ptxas BOUND NAME...: the device, then kernels/NAME.kk.c compiled for
# sm_90 by the tree's nvcc with ptxas -v, in the background (at most BOUND
# s each), into $OUT/ptxas-NAME.log; ptxas_pid their process ids
own_ptxas() {
  local bound=$1 nvcc src f
  shift
  step "device"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
  step "registers and spills of the kernels of $* (ptxas -v, sm_90), compiled in the background (at most $bound s)"
  nvcc=$(sed -n 's/.*"NVCC": "\(.*\)".*/\1/p' "$B/targets/cuda.json")
  src=$(cd "$B" && sed -n 's/^srcdir = //p' Makefile)
  src=$(cd "$B" && cd "$src" && pwd)
  ptxas_pid=
  if [ -x "$nvcc" ]; then
    for f in "$@"; do
      timeout "$bound" "$nvcc" -x cu -O3 -std=c++17 --cubin -gencode=arch=compute_90,code=sm_90 -Xptxas -v \
        -DKK_TARGET_CUDA -I"$src/include" -I"$B/include" -I"$src/kernels" "$src/kernels/$f.kk.c" -o "$OUT/$f.cubin" \
        >"$OUT/ptxas-$f.log" 2>&1 &
      ptxas_pid="$ptxas_pid $!"
    done
  else
    echo "  (nvcc not found at '$nvcc': skipped)"
  fi
}
