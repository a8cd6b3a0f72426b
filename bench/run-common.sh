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
