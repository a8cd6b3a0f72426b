#!/bin/sh
# tests/tutorial.sh -- the tutorial's programs (docs/tutorial/) run and check their answers on every available host backend; the MPI one on 1 and 2 ranks.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
t="$top_builddir/examples/tutorial"
status=0
. "${top_srcdir:-.}/tests/backend-usable.sh"
for b in serial threads openmp; do
  if ! kk_backend_usable $b; then
    echo "backend $b not available: skipped ($kk_backend_why)"
    continue
  fi
  for p in hello_views reduction team_scratch graph; do
    out=$("$t/$p" --kokkos-device=$b 2>&1) || { echo "FAIL: $p on $b"; echo "$out"; status=1; continue; }
    echo "$p on $b: $out" | tail -n 1
    echo "$out" | grep -q correct || { echo "FAIL: $p on $b did not say correct"; status=1; }
  done
done
if [ -x "$t/gpu_mpi" ] && [ -n "${MPIEXEC:-}" ]; then
  . "${top_srcdir:-.}/tests/mpi/launch.sh"
  for np in 1 2; do
    out=$(mpi_run $np "$t/gpu_mpi" --kokkos-device=serial 2>&1) || { echo "FAIL: gpu_mpi on $np ranks"; echo "$out"; status=1; continue; }
    echo "$out"
    echo "$out" | grep -q "^$np rank.*correct" || { echo "FAIL: gpu_mpi on $np ranks did not say correct"; status=1; }
  done
else
  echo "gpu_mpi not built or no MPI launcher: skipped"
fi
exit $status
