#!/bin/sh
# tests/check-halves.sh -- a test driver (automake's LOG_COMPILER) that runs a Check program's test cases in two halves at once, so that a long suite keeps two cores busy.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Usage: check-halves.sh [WRAPPER...] TEST
#
# Runs WRAPPER... TEST (WRAPPER is what the test would otherwise run under,
# e.g. valgrind, or nothing).  When TEST is named in KK_CHECK_HALVES (a
# space-separated list of tests as automake names them, e.g.
# "kernels/tests/check_sparse_ops kernels/tests/sparse-ops-threads.sh"), it
# runs the command twice side by side instead: once with
# CK_INCLUDE_TAGS=half (the test cases the program tags "half"), once with
# CK_EXCLUDE_TAGS=half (every other case).  Together the two runs are the
# program's whole case list, whatever cases it has, so no case is lost when
# one is added.  Both outputs are printed, each under a header, and the
# status is a failure when either half failed: 99 (a hard error) or the
# failing half's status, 77 only when both halves skipped.  A test not
# named, or run with CK_INCLUDE_TAGS or CK_EXCLUDE_TAGS already set, runs
# once, as it would without this driver.
set -u

[ $# -ge 1 ] || { echo "usage: check-halves.sh [WRAPPER...] TEST" >&2; exit 99; }
eval "test_name=\${$#}"
test_name=${test_name#./}   # automake runs a test of the build tree as ./NAME

split=no
case " ${KK_CHECK_HALVES:-} " in
  *" $test_name "*) split=yes ;;
esac
if [ "$split" = no ] || [ -n "${CK_INCLUDE_TAGS:-}" ] || [ -n "${CK_EXCLUDE_TAGS:-}" ]; then
  exec "$@"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-halves.XXXXXX") || exit 99
pid_a= pid_b=
# a test stopped by make (a timeout, ^C) stops both halves
cleanup() { for p in $pid_a $pid_b; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 99' HUP INT TERM

CK_INCLUDE_TAGS=half "$@" >"$tmp/a" 2>&1 &
pid_a=$!
CK_EXCLUDE_TAGS=half "$@" >"$tmp/b" 2>&1 &
pid_b=$!
wait "$pid_a"; rc_a=$?
wait "$pid_b"; rc_b=$?
pid_a= pid_b=

printf '==== %s, the cases tagged "half" (CK_INCLUDE_TAGS=half): exit status %d\n' "$test_name" "$rc_a"
cat "$tmp/a"
printf '==== %s, every other case (CK_EXCLUDE_TAGS=half): exit status %d\n' "$test_name" "$rc_b"
cat "$tmp/b"

if [ "$rc_a" -eq 0 ] && [ "$rc_b" -eq 0 ]; then
  exit 0
elif [ "$rc_a" -eq 77 ] && [ "$rc_b" -eq 77 ]; then
  exit 77
elif [ "$rc_a" -ne 0 ] && [ "$rc_a" -ne 77 ]; then
  exit "$rc_a"
elif [ "$rc_b" -ne 0 ] && [ "$rc_b" -ne 77 ]; then
  exit "$rc_b"
fi
# one half skipped and the other ran: the program cannot have run all its cases
echo "FAIL: $test_name: one half skipped (77) and the other did not; the two halves must agree" >&2
exit 99
