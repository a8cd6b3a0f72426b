#!/bin/sh
# algorithms/tests/dieharder.sh -- kk's generators (each pool kind's fill_random stream) through a dieharder battery that takes well under a minute; skipped, with the reason, without dieharder.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
if ! command -v dieharder >/dev/null 2>&1; then
  echo "SKIP: dieharder is not installed (Debian: apt-get install dieharder; tools/install-deps.sh installs it)"
  exit 77
fi
# serial, and 16 slots: the same stream on every machine (host backends lay
# the slots' numbers out in blocks; each fill gives each slot 2^18 words)
# birthday spacings, 6x8 binary ranks, runs, the count of ones in a stream,
# STS monobit; 50 p-values each (dieharder's own thresholds: FAILED below
# 1e-6 or above 1 - 1e-6).  Fixed seeds: a run passes or fails always.
status=0
for gen in xorshift64 xorshift1024 philox; do
  for d in 0 3 15 8 100; do
    out=$("$top_builddir/algorithms/tests/rng_stream" --kokkos-device=serial $gen 20241128 -1 16 |
      dieharder -g 200 -d $d -p 50 2>&1)
    line=$(printf '%s\n' "$out" | grep -E 'PASSED|WEAK|FAILED')
    if [ -z "$line" ]; then
      echo "FAIL: $gen, dieharder test $d gave no verdict:"
      printf '%s\n' "$out" | tail -n 5
      status=1
      continue
    fi
    printf '%-13s %s\n' "$gen" "$line"
    printf '%s\n' "$line" | grep -q FAILED && status=1
  done
done
exit $status
