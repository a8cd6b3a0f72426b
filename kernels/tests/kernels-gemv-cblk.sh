#!/bin/sh
# kernels/tests/kernels-gemv-cblk.sh -- gemv's column-block team kernel (gemv_cblk), which GPUs take by default, run and checked on the host backends (KK_KERNELS_GEMV=cblk).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/kernels/tests/kernels-env.sh"
KK_KERNELS_GEMV=cblk
CK_RUN_CASE=gemv
export KK_KERNELS_GEMV CK_RUN_CASE
rc=77
for b in serial threads openmp; do
  "${top_builddir:-.}/kernels/tests/check_kernels" "$b"
  r=$?
  case $r in
  0) [ $rc = 77 ] && rc=0 ;;
  77) ;;
  *) rc=1 ;;
  esac
done
exit $rc
