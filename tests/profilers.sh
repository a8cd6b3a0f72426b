#!/bin/sh
# tests/profilers.sh -- each bundled profiler watches tests/tools/tools_app on every available host backend, and its report is checked.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
app="$top_builddir/tests/tools/tools_app"
lib="$top_builddir/tools/profilers/.libs"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-profilers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL ($b, $1): $2"; status=1; }
# has TOOL TEXT PATTERN: the report matches the extended regular expression
has() { printf '%s\n' "$2" | grep -Eq -- "$3" || fail "$1" "no line matches: $3"; }
# count TOOL TEXT FIXED N: the fixed string occurs on exactly N lines
count() {
  n=$(printf '%s\n' "$2" | grep -cF -- "$3")
  [ "$n" = "$4" ] || fail "$1" "$4 lines with '$3' expected, $n found"
}
# run TOOL [ARGS]: runs the program under the profiler in a fresh directory
run() {
  rm -rf "$tmp/run" && mkdir "$tmp/run"
  (cd "$tmp/run" && "$app" --kokkos-device="$b" --kokkos-tools-libs="$lib/$1.so" ${2:+"--kokkos-tools-args=$2"}) \
    2>"$tmp/stderr" || { cat "$tmp/stderr"; fail "$1" "the program failed"; }
}

. "${top_srcdir:-.}/tests/backend-usable.sh"
for b in serial threads openmp; do
  if ! kk_backend_usable $b; then
    echo "backend $b not available: skipped ($kk_backend_why)"
    continue
  fi
  echo "== backend $b"

  # kernel logger: every event, in order, without the fences global fencing causes
  out=$(run kk-kernel-logger) && echo "$out" | head -n 40
  count logger "$out" 'parallel_for "axpy step" on ' 5
  count logger "$out" 'end parallel_for' 5
  count logger "$out" 'parallel_reduce "norm" on ' 3
  count logger "$out" 'parallel_scan "tt_scan" on ' 2
  count logger "$out" 'region "solve" {' 1
  count logger "$out" '} region' 2
  count logger "$out" 'Kokkos Profile Tool Fence' 0
  has logger "$out" '^kk-logger: init \(load sequence 0, interface 20240906\)$'
  has logger "$out" "^kk-logger: metadata default_backend = $b\$"
  has logger "$out" '^kk-logger:   allocate "c": 4000 bytes in Host at '
  has logger "$out" '^kk-logger: deep copy Host "b" <- Host "a", 8000 bytes$'
  has logger "$out" '^kk-logger: section "a section" created \(section 1\)$'
  has logger "$out" '^kk-logger: event "done"$'
  has logger "$out" '^kk-logger: finalize$'
  # with --times: every line after init starts with the microseconds since the line before
  out=$(run kk-kernel-logger --times)
  count logger "$out" 'parallel_for "axpy step" on ' 5
  has logger "$out" '^kk-logger: \+ *[0-9]+\.[0-9] us +parallel_for "axpy step" on '
  has logger "$out" '^kk-logger: \+ *[0-9]+\.[0-9] us finalize$'
  n=$(printf '%s\n' "$out" | grep '^kk-logger: ' | grep -v ' init (' | grep -cEv '^kk-logger: \+ *[0-9]+\.[0-9] us ')
  [ "$n" = 0 ] || fail logger "$n lines without a time after --times"

  # simple kernel timer: the table on stdout and the file
  out=$(run kk-kernel-timer) && echo "$out"
  has timer "$out" '^kk-kernel-timer: 10 kernel launches \(3 kernels\) took [0-9.]+ s of [0-9.]+ s'
  has timer "$out" '^ +5 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+  for +axpy step$'
  has timer "$out" '^ +3 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+  reduce +norm$'
  has timer "$out" '^ +2 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+  scan +tt_scan$'
  has timer "$out" '^ +1 +[0-9.]+ +[0-9.]+ +- +[0-9.]+  region +solve$'
  set -- "$tmp"/run/kk-kernel-timer-*-*.txt
  if [ "$#" != 1 ] || [ ! -f "$1" ]; then
    fail timer "no kk-kernel-timer-<host>-<pid>.txt written"
  else
    has timer "$out" "^kk-kernel-timer: report written to kk-kernel-timer-.*\\.txt\$"
    file=$(cat "$1")
    has timer "$file" '^# kk-kernel-timer 1$'
    has timer "$file" '^type	name	calls	total_s	mean_s	min_s	max_s	kernel_share	runtime_share$'
    has timer "$file" '^for	axpy step	5	'
    has timer "$file" '^reduce	norm	3	'
    has timer "$file" '^scan	tt_scan	2	'
    has timer "$file" '^region	setup	1	.*	-	'
    share=$(awk -F'\t' '$1 != "region" && $1 !~ /^#/ && $1 != "type" { s += $8 } END { printf "%.2f", s }' "$1")
    [ "$share" = "1.00" ] || fail timer "the kernel shares add up to $share, not 1"
  fi
  out=$(run kk-kernel-timer "--output=$tmp/timer.txt")
  [ -f "$tmp/timer.txt" ] || fail timer "--output=FILE wrote nothing there"
  rm -f "$tmp/timer.txt"
  out=$(run kk-kernel-timer --no-file)
  set -- "$tmp"/run/kk-kernel-timer-*
  [ -e "$1" ] && fail timer "--no-file still wrote $1"

  # memory high-water mark: a, b and c live at once
  out=$(run kk-memory-hwm) && echo "$out"
  has hwm "$out" '^  Host +19\.53 KiB \(20000 B\) +3 +7\.81 KiB \(8000 B\) +0 B$'

  # space-time stack: the region tree with times, then memory at the peak by region
  out=$(run kk-space-time-stack) && echo "$out"
  has stack "$out" '^ +[0-9.]+ +[0-9.]+ +1  \|-> solve \[region\]$'
  has stack "$out" '^ +[0-9.]+ +[0-9.]+ +5  \|   \|-> axpy step \[for\]$'
  has stack "$out" '^ +[0-9.]+ +[0-9.]+ +3  \|   \|-> norm \[reduce\]$'
  has stack "$out" '^ +[0-9.]+ +[0-9.]+ +2  \|   \|-> tt_scan \[scan\]$'
  has stack "$out" '^ +[0-9.]+ +[0-9.]+ +1  \|   \|-> deep copy Host "a" <- Host "Scalar" \[copy\]$'
  has stack "$out" '^ +[0-9.]+ +[0-9.]+ +1  \|-> deep copy Host "b" <- Host "a" \[copy\]$'
  has stack "$out" '^  Host: high-water mark 19\.53 KiB \(20000 B\) in 3 allocations$'
  has stack "$out" '^ +15\.62 KiB \(16000 B\)  80\.00%  \(top level\)$'
  has stack "$out" '^ +3\.91 KiB \(4000 B\)  20\.00%  \|-> solve \[region\]$'
  has stack "$out" '^ +3\.91 KiB \(4000 B\)  20\.00%  c  \(in solve\)$'
  has stack "$out" '^ +7\.81 KiB \(8000 B\)  40\.00%  a  \(in \(top level\)\)$'
done
exit $status
