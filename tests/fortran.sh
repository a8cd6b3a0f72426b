#!/bin/sh
# tests/fortran.sh -- module kk from Fortran (fortran/tests/test_kk) and examples/fortran/cg on every host backend the tree built.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
KK_TEST_MODULE="$top_builddir/fortran/tests/kk_test_module.so"
OMP_WAIT_POLICY=passive
export KK_TEST_MODULE OMP_WAIT_POLICY
status=0
for dev in serial threads openmp; do
  if [ "$dev" != serial ] && [ ! -f "$top_builddir/plugins/.libs/kk_$dev.so" ]; then
    echo "SKIP $dev: plugin not built"
    continue
  fi
  echo "== $dev"
  KK_TEST_DEVICE=$dev "$top_builddir/fortran/tests/test_kk" || { echo "FAIL: fortran/tests/test_kk on $dev"; status=1; }
  "$top_builddir/examples/fortran/cg" 6 "$dev" || { echo "FAIL: examples/fortran/cg on $dev"; status=1; }
done
exit $status
