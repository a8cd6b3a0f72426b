#!/bin/sh
# tests/faults/opencl.sh -- issue 21's per-backend tests on opencl (skipped, with the reason, when it is not available).
# Under AddressSanitizer: PoCL and LLVM keep caches until exit (not kk's leaks).
LSAN_OPTIONS="suppressions=${top_srcdir:-.}/tests/lsan-opencl.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
exec "${top_builddir:-.}/tests/faults/faults" opencl
