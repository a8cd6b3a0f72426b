#!/bin/sh
# tests/examples.sh -- the examples (poisson where libkk-kernels was built) and kk-bench run and check themselves on every available host backend (no timing is judged).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
status=0
. "${top_srcdir:-.}/tests/backend-usable.sh"
for b in serial threads openmp; do
  if ! kk_backend_usable $b; then
    echo "backend $b not available: skipped ($kk_backend_why)"
    continue
  fi
  "$top_builddir/examples/axpy/axpy" --kokkos-device=$b 10007 || { echo "FAIL: axpy on $b"; status=1; }
  "$top_builddir/examples/dot/dot" --kokkos-device=$b 100003 || { echo "FAIL: dot on $b"; status=1; }
  "$top_builddir/examples/cg/cg" --kokkos-device=$b --size=12 || { echo "FAIL: cg on $b"; status=1; }
  # libkk-kernels' example, where configure built the library
  if [ -x "$top_builddir/examples/poisson/poisson" ]; then
    "$top_builddir/examples/poisson/poisson" --kokkos-device=$b 500 || { echo "FAIL: poisson on $b"; status=1; }
  fi
  out=$("$top_builddir/bench/kk-bench" --backends=$b --sizes=12 --reps=2) || { echo "FAIL: kk-bench on $b"; status=1; }
  echo "$out"
  echo "$out" | grep -q "^triad  *$b" || { echo "FAIL: kk-bench printed no triad row for $b"; status=1; }
  # the JSON form of the same rows (the stream cases: the form is the
  # same for every case, and the whole bench again took a third of the
  # test's time, half a minute a backend under the sanitizers)
  "$top_builddir/bench/kk-bench" --backends=$b --sizes=12 --reps=2 --cases=stream --json | grep -q '"case": "dot"' ||
    { echo "FAIL: kk-bench --json"; status=1; }
done
"$top_builddir/examples/cg/cg" --bogus >/dev/null 2>&1 && { echo "FAIL: cg accepted a bad flag"; status=1; }
exit $status
