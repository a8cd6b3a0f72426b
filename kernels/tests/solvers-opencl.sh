#!/bin/sh
# kernels/tests/solvers-opencl.sh -- SpTRSV, ILU(k) and the Krylov solvers on the opencl backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/kernels/tests/kernels-env.sh"
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="$LSAN_OPTIONS:use_tls=0"
export LSAN_OPTIONS
exec "${top_builddir:-.}/kernels/tests/check_solvers" opencl
