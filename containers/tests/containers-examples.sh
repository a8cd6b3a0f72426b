#!/bin/sh
# containers/tests/containers-examples.sh -- the containers' examples and kk-bench-containers run and check themselves on every backend here (host backends and opencl; no timing is judged).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="suppressions=${top_srcdir:-.}/tests/lsan-opencl.supp:use_tls=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
status=0
ran=0
. "${top_srcdir:-.}/tests/backend-usable.sh"
. "${top_srcdir:-.}/tests/watchdog.sh"
# Each program ends within seconds (15 s under ASan+UBSan two tests at a
# time).  One run under CI's sanitizers did not end at all; so each runs
# under a watchdog that prints its threads' stacks (tests/watchdog.sh) and
# ends it after 300 s, and then runs once more: a second hang fails the test.
# CI prints the log whenever a watchdog line is in it.
run() {
  kk_watchdog 300 "$@"
  rc=$?
  if [ $rc -eq 137 ]; then
    echo "kk-watchdog: running '$*' once more" >&2
    kk_watchdog 300 "$@"
    rc=$?
  fi
  return $rc
}
for b in serial threads openmp opencl; do
  if ! kk_backend_usable $b; then
    echo "backend $b not available: skipped ($kk_backend_why)"
    continue
  fi
  ran=$((ran + 1))
  run "$top_builddir/examples/unordered-map/umap" --kokkos-device=$b --kokkos-num-threads=4 ||
    { echo "FAIL: examples/unordered-map on $b"; status=1; }
  run "$top_builddir/examples/unique-token/scratch" --kokkos-device=$b --kokkos-num-threads=4 ||
    { echo "FAIL: examples/unique-token on $b"; status=1; }
  out=$(run "$top_builddir/bench/kk-bench-containers" --backends=$b --log2=14 --reps=2) ||
    { echo "FAIL: kk-bench-containers on $b"; status=1; }
  echo "$out"
  for row in umap-insert umap-find dualview-sync token; do
    echo "$out" | grep -q "^$row  *$b" || { echo "FAIL: kk-bench-containers printed no $row row for $b"; status=1; }
  done
done
[ $ran -gt 0 ] || { echo "FAIL: no backend ran"; status=1; }
exit $status
