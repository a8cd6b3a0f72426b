#!/bin/sh
# algorithms/tests/algorithms-opencl.sh -- every kk-algorithms routine on the opencl backend (skipped, with the reason, when it is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/algorithms/tests/algorithms-env.sh"
# Under AddressSanitizer, LeakSanitizer scans each thread's dynamic TLS for
# roots at exit; after the suite has loaded and unloaded PoCL's work-group
# libraries, glibc's table of it holds an entry LeakSanitizer misreads
# ("DTLS 8 at 0x0000000000a8"), and its tracer crashes with signal 11 before
# any leak is looked at.  use_tls=0 leaves thread-local storage out of the
# roots: a block reachable only from TLS is then reported, so nothing kk
# leaks can hide; the one such block is glibc's own (the dependency list of
# a dlopen()ed library, suppressed in tests/lsan-opencl.supp).
LSAN_OPTIONS="$LSAN_OPTIONS:use_tls=0"
export LSAN_OPTIONS
exec "${top_builddir:-.}/algorithms/tests/check_algorithms" opencl
