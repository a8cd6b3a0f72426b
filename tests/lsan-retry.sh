#!/bin/sh
# tests/lsan-retry.sh -- a test driver wrapper for the sanitizer build (automake's LOG_COMPILER and SH_LOG_COMPILER in CI's ASan+UBSan step): a test that failed only because LeakSanitizer's own tracer crashed at a process's exit runs again, up to three runs in all, saying so.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Usage: lsan-retry.sh COMMAND... (the test as automake would run it)
#
# At a process's exit LeakSanitizer stops its threads with a tracer; with
# plugins and runtimes that keep threads and dynamic TLS (kk's plugins,
# libgomp, PoCL, Open MPI) the tracer now and then dies with signal 11
# before it looks at any allocation ("Tracer caught signal 11", then
# "LeakSanitizer has encountered a fatal error"): a fault of the
# sanitizer, not a leak and not kk's (tests/lsan-opencl.supp says where it
# comes from, and why the tests that load PoCL pass use_tls=0 for it).
# Seen now and then in MPI ranks and at the conformance suite's exit.  A
# test that fails with both lines in its output runs again;
# a leak report, a memory error or any other failure is reported as it is,
# and so is a third crash.  The output streams to the log as the test runs
# (a hung test's log shows where it is); a skip (77) passes through.
set -u
[ $# -ge 1 ] || { echo "usage: lsan-retry.sh COMMAND..." >&2; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-lsan-retry.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
try=1
while :; do
  { "$@" 2>&1; echo $? >"$tmp/rc"; } | tee "$tmp/out"
  rc=$(cat "$tmp/rc" 2>/dev/null || echo 99)
  [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ $try -lt 3 ] &&
    grep -q 'Tracer caught signal' "$tmp/out" && grep -q 'LeakSanitizer has encountered a fatal error' "$tmp/out" ||
    break
  try=$((try + 1))
  echo "lsan-retry: LeakSanitizer's tracer crashed at a process's exit (a sanitizer fault, not a leak): run $try of 3"
done
exit "$rc"
