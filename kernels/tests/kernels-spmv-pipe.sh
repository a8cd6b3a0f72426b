#!/bin/sh
# kernels/tests/kernels-spmv-pipe.sh -- the pipelined merge-path SpMV (spmv_mpipe6, KK_KERNELS_SPMV=pipe6, the default for matrices of 8192 tiles and more, forced here on the suite's smaller ones), run and checked where kk's GPU kernels run without a GPU: opencl (skipped, with the reason, when it is not available); 3 tiles per team, so that a team's turns mix tiles of one long row, of many empty rows and of short rows.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/kernels/tests/kernels-env.sh"
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="$LSAN_OPTIONS:use_tls=0"
KK_KERNELS_SPMV=pipe6
KK_KERNELS_SPMV_GROUP=3
CK_RUN_CASE=spmv
export LSAN_OPTIONS KK_KERNELS_SPMV KK_KERNELS_SPMV_GROUP CK_RUN_CASE
exec "${top_builddir:-.}/kernels/tests/check_kernels" opencl
