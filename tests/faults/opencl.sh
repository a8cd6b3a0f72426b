#!/bin/sh
# tests/faults/opencl.sh -- the faults tests (tests/faults/faults.c) on opencl (skipped, with the reason, when it is not available).
# In one process (CK_FORK=no), as tests/conformance-opencl.sh: PoCL's worker
# threads do not survive fork(), and under AddressSanitizer LeakSanitizer's
# exit-time tracer failed in the forked children of the bounds cases
# ("LeakSanitizer has encountered a fatal error").
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
CK_FORK=no
export CK_FORK
# Under AddressSanitizer: PoCL and LLVM keep caches until exit (not kk's leaks).
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="suppressions=${top_srcdir:-.}/tests/lsan-opencl.supp:use_tls=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
exec "${top_builddir:-.}/tests/faults/faults" opencl
