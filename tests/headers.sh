#!/bin/sh
# tests/headers.sh -- the kernel file whose shared header includes <stdint.h>, <stddef.h>, <stdbool.h>, <float.h> and <limits.h> runs on every backend here and agrees with the host (backends not here are skipped).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
# Under AddressSanitizer: PoCL and LLVM keep caches until exit (not kk's leaks).
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="suppressions=${top_srcdir:-.}/tests/lsan-opencl.supp:use_tls=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
status=0
ran=
for b in serial threads openmp opencl cuda hip levelzero; do
  "$top_builddir/tests/headers/headers" $b
  case $? in
    0) ran="$ran $b" ;;
    77) ;;
    *) status=1 ;;
  esac
done
echo "ran on:$ran"
exit $status
