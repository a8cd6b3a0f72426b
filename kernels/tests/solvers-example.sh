#!/bin/sh
# kernels/tests/solvers-example.sh -- examples/solvers (3-D Poisson and convection-diffusion with CG and GMRES, Jacobi, Gauss-Seidel and ILU(k)) converges on a small grid on every available host backend (no timing is judged).
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
  "$top_builddir/examples/solvers/solvers" --kokkos-device=$b 8 1e-8 || { echo "FAIL: examples/solvers on $b"; status=1; }
done
"$top_builddir/examples/solvers/solvers" 1 >/dev/null 2>&1 && { echo "FAIL: examples/solvers accepted N = 1"; status=1; }
exit $status
