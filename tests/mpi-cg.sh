#!/bin/sh
# tests/mpi-cg.sh -- examples/cg-mpi on 1, 2, 3 and 4 ranks converges like examples/cg on the same grid (same iterations, final residual within 1e-10 relative), on serial, threads, openmp and opencl.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
. "${top_srcdir:-.}/tests/mpi/launch.sh"
cg="$top_builddir/examples/cg/cg"
cgm="$top_builddir/examples/cg-mpi/cg-mpi"
size=${KK_MPI_CG_SIZE:-14}
status=0
ran=0
# "cg: 42 iterations, ..." and "cg: final relative residual 1.23e-11" -> "42 1.23e-11"
summary() { sed -n -e 's/^cg[-a-z]*: \([0-9]*\) iterations.*/\1/p' -e 's/^cg[-a-z]*: final relative residual //p' "$1" | tr '\n' ' '; }
all_plugins=${KOKKOS_PLUGIN_PATH:-}
for b in ${KK_MPI_TEST_BACKENDS:-serial threads openmp opencl}; do
  if ! KOKKOS_PLUGIN_PATH=$all_plugins mpi_backend_ok "$b"; then
    echo "backend $b not available: skipped"
    continue
  fi
  ran=$((ran + 1))
  mpi_only_plugin "$b"
  KOKKOS_NUM_THREADS=$(mpi_threads 1) "$cg" --kokkos-device=$b --size=$size >cg.$b.out 2>&1 || { echo "FAIL: cg on $b"; cat cg.$b.out; status=1; continue; }
  set -- $(summary cg.$b.out)
  it=$1 res=$2
  echo "cg on $b: $it iterations, final relative residual $res"
  for np in ${KK_MPI_TEST_NPS:-1 2 3 4}; do
    if ! mpi_run $np "$cgm" --kokkos-device=$b --kokkos-disable-warnings --size=$size >cgm.$b.$np.out 2>&1; then
      echo "FAIL: cg-mpi on $b, $np ranks"; cat cgm.$b.$np.out; status=1; continue
    fi
    set -- $(summary cgm.$b.$np.out)
    echo "cg-mpi on $b, $np rank(s): $1 iterations, final relative residual $2 ($(sed -n 's/^cg-mpi: halo path \([a-z-]*\).*/\1 path/p' cgm.$b.$np.out))"
    [ "$1" = "$it" ] || { echo "FAIL: $1 iterations on $np ranks, cg took $it"; status=1; }
    awk -v a="$2" -v b="$res" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-10) }' ||
      { echo "FAIL: residual $2 on $np ranks differs from cg's $res by more than 1e-10 relative"; status=1; }
  done
  rm -f cg.$b.out cgm.$b.*.out
done
[ $ran -gt 0 ] || { echo "SKIP: no backend available"; exit 77; }
exit $status
