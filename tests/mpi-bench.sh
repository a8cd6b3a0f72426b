#!/bin/sh
# tests/mpi-bench.sh -- kk-bench-mpi runs on 2 ranks of each host backend with tiny sizes and checks itself (its halo, CG and allreduce results against the hand-written ones); no timing is judged.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
. "${top_srcdir:-.}/tests/mpi/launch.sh"
bench="$top_builddir/bench/kk-bench-mpi"
status=0
all_plugins=${KOKKOS_PLUGIN_PATH:-}
for b in serial threads openmp; do
  if ! KOKKOS_PLUGIN_PATH=$all_plugins mpi_backend_ok "$b"; then
    echo "backend $b not available: skipped"
    continue
  fi
  mpi_only_plugin "$b"
  out=$(mpi_run 2 "$bench" --kokkos-device=$b --halo=6 --cg=3x6x5 --iters=4 --reps=1 --exchanges=2 --calls=20 2>&1) ||
    { echo "$out"; echo "FAIL: kk-bench-mpi on $b"; status=1; continue; }
  echo "$out"
  echo "$out" | grep -q "^halo 6 faces  *$b  *2 " || { echo "FAIL: no halo row for $b"; status=1; }
  echo "$out" | grep -q "^cg iteration  *$b  *2 " || { echo "FAIL: no CG row for $b"; status=1; }
  # the collective check's cost: an allreduce with it and one without
  echo "$out" | grep -q "^allreduce  *$b  *2 1 double, check " || { echo "FAIL: no allreduce row with the check for $b"; status=1; }
  echo "$out" | grep -q "^allreduce  *$b  *2 1 double, no check " || { echo "FAIL: no allreduce row without the check for $b"; status=1; }
  # the six strided faces of one exchange go in one pack launch, and on
  # these host backends in one unpack launch (kk_mpi_waitall holds a host
  # backend's unpacks until every message is in)
  echo "$out" | grep -Eq "kk launched 1 pack and 1 unpack kernels in one exchange" ||
    { echo "FAIL: the halo's faces were not packed and unpacked in one launch each on $b"; status=1; }
done
mpi_only_plugin serial
mpi_run 1 "$bench" --bogus >/dev/null 2>&1 && { echo "FAIL: kk-bench-mpi accepted a bad flag"; status=1; }
exit $status
