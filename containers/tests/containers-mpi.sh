#!/bin/sh
# containers/tests/containers-mpi.sh -- DualViews over kk-mpi on 2 ranks: serial and opencl (PoCL: staged, so a message lands on the host side; and with KK_MPI_GPU_AWARE=1 on the device side); skipped where MPI or the backend is missing.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
. "${top_srcdir:-.}/tests/mpi/launch.sh"
prog="$top_builddir/containers/tests/mpi_dualview"
status=0
ran=0
for b in serial opencl; do
  if ! mpi_backend_ok "$b"; then
    echo "backend $b is not usable here: skipped"
    continue
  fi
  ran=$((ran + 1))
  mpi_only_plugin "$b"
  case $b in
  serial) mpi_run 2 "$prog" --kokkos-device=$b || { echo "FAIL: DualViews over MPI on $b"; status=1; } ;;
  *)
    mpi_run 2 "$prog" --kokkos-device=$b host || { echo "FAIL: DualViews over MPI on $b, staged"; status=1; }
    KK_MPI_GPU_AWARE=1 mpi_run 2 "$prog" --kokkos-device=$b device ||
      { echo "FAIL: DualViews over MPI on $b, GPU-aware"; status=1; }
    ;;
  esac
done
[ $ran -gt 0 ] || { echo "SKIP: no backend usable"; exit 77; }
exit $status
