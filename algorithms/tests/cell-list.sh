#!/bin/sh
# algorithms/tests/cell-list.sh -- the cell-list example (BinSort) counts the same close pairs as a look at every pair, on every backend here (each skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
. "${top_srcdir:-.}/algorithms/tests/algorithms-env.sh"
status=0 ran=0
for b in serial threads openmp opencl cuda hip; do
  if ! why=$("$top_builddir/tools/kk-info/kk-info" --kokkos-device=$b 2>&1 >/dev/null); then
    echo "backend $b not available: skipped ($(echo "$why" | head -n 1 | cut -c1-160))"
    continue
  fi
  ran=$((ran + 1))
  "$top_builddir/examples/cell-list/cell_list" --kokkos-device=$b 3000 8 --check || { echo "FAIL: cell_list on $b"; status=1; }
  "$top_builddir/examples/cell-list/cell_list" --kokkos-device=$b 0 4 --check || { echo "FAIL: cell_list of no particles on $b"; status=1; }
done
"$top_builddir/examples/cell-list/cell_list" --bogus >/dev/null 2>&1 && { echo "FAIL: cell_list took a bad flag"; status=1; }
[ "$ran" -gt 0 ] || { echo "no backend available"; exit 77; }
exit $status
