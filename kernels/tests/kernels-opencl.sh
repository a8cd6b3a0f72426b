#!/bin/sh
# kernels/tests/kernels-opencl.sh -- every kk-kernels routine on the opencl backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/kernels/tests/kernels-env.sh"
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="$LSAN_OPTIONS:use_tls=0"
export LSAN_OPTIONS
exec "${top_builddir:-.}/kernels/tests/check_kernels" opencl
