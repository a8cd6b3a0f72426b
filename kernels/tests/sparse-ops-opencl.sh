#!/bin/sh
# kernels/tests/sparse-ops-opencl.sh -- SpGEMM, SpAdd, coloring, MIS-2 and Gauss-Seidel on the opencl backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/kernels/tests/kernels-env.sh"
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="$LSAN_OPTIONS:use_tls=0"
export LSAN_OPTIONS
exec "${top_builddir:-.}/kernels/tests/check_sparse_ops" opencl
