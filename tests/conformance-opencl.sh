#!/bin/sh
# tests/conformance-opencl.sh -- the conformance suite on the opencl backend (PoCL here; skipped, with the reason, when no OpenCL device is usable).
# The suite runs in one process (CK_FORK=no): the test program initializes
# the backend once before forking, and PoCL's worker threads do not survive
# fork(), so a forked test would wait forever for its first kernel.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
CK_FORK=no
export CK_FORK
# Under AddressSanitizer: PoCL and LLVM keep caches until exit (not kk's leaks).
# use_tls=0: tests/lsan-opencl.supp says why.
LSAN_OPTIONS="suppressions=${top_srcdir:-.}/tests/lsan-opencl.supp:use_tls=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
exec "${top_builddir:-.}/tests/conformance/conformance" opencl
