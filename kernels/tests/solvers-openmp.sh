#!/bin/sh
# kernels/tests/solvers-openmp.sh -- SpTRSV, ILU(k) and the Krylov solvers on the openmp backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/kernels/tests/kernels-env.sh"
exec "${top_builddir:-.}/kernels/tests/check_solvers" openmp
