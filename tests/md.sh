#!/bin/sh
# tests/md.sh -- examples/md's Lennard-Jones run (864 atoms, 100 steps) prints miniMD's reference thermodynamic output (step, T, U, P every 10 steps) to its printed precision with every force mode on 1 rank and on 2 and 4 ranks; Philox velocities give the same output on 1 and 2 ranks; on serial, threads, openmp and opencl.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/tests/mpi/launch.sh"
md="$top_builddir/examples/md/md"
ref="$top_srcdir/examples/md/minimd-s6.ref"
status=0
ran=0
# the thermo lines' first four columns, as miniMD prints them
thermo() { sed -n 's/^\([0-9][0-9]*\) \([^ ]*\) \([^ ]*\) \([^ ]*\) .*/\1 \2 \3 \4/p' "$1"; }
grep -v '^#' "$ref" >md.ref
all_plugins=${KOKKOS_PLUGIN_PATH:-}
for b in ${KK_MD_TEST_BACKENDS:-serial threads openmp opencl}; do
  if ! KOKKOS_PLUGIN_PATH=$all_plugins mpi_backend_ok "$b"; then
    echo "backend $b not available: skipped"
    continue
  fi
  ran=$((ran + 1))
  mpi_only_plugin "$b"
  for run in "1 full" "1 half-atomic" "1 half-scatter" "2 full" "4 half-atomic"; do
    set -- $run
    out=md.$b.$1.$2.out
    if ! KOKKOS_NUM_THREADS=$(mpi_threads $1) mpi_run $1 "$md" --kokkos-device=$b --kokkos-disable-warnings -s 6 -n 100 \
      --thermo 10 --force $2 >$out 2>&1; then
      echo "FAIL: md on $b, $1 rank(s), forces $2"; cat $out; status=1; continue
    fi
    thermo $out >md.thermo
    if cmp -s md.thermo md.ref; then
      echo "md on $b, $1 rank(s), forces $2: miniMD's output ($(sed -n 's/^md: energy drift/energy drift/p' $out))"
    else
      echo "FAIL: md on $b, $1 rank(s), forces $2 differs from miniMD's output:"; diff md.ref md.thermo; status=1
    fi
    rm -f $out
  done
  # kk's Philox velocities: the same trajectory whatever the number of ranks
  for np in 1 2; do
    KOKKOS_NUM_THREADS=$(mpi_threads $np) mpi_run $np "$md" --kokkos-device=$b --kokkos-disable-warnings -s 6 -n 40 \
      --thermo 10 --velocities philox >md.philox.$np.out 2>&1 || { echo "FAIL: md --velocities philox on $b, $np rank(s)"; cat md.philox.$np.out; status=1; }
    thermo md.philox.$np.out >md.philox.$np
  done
  if [ -s md.philox.1 ] && cmp -s md.philox.1 md.philox.2 && grep -q '^0 1.440000e+00 ' md.philox.1; then
    echo "md on $b, Philox velocities: 1 and 2 ranks agree"
  else
    echo "FAIL: md with Philox velocities on $b: 1 and 2 ranks differ (or T0 is not 1.44):"; diff md.philox.1 md.philox.2; status=1
  fi
  rm -f md.philox.*
done
rm -f md.ref md.thermo
[ $ran -gt 0 ] || { echo "SKIP: no backend available"; exit 77; }
exit $status
