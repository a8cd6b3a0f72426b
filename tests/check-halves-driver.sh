#!/bin/sh
# tests/check-halves-driver.sh -- tests/check-halves.sh (CI's driver that runs a Check program's cases in two halves at once) runs both halves, shows both outputs and fails when either half fails.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_srcdir:=.}"
drv="$(cd "$top_srcdir" && pwd)/tests/check-halves.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-halves-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# A stand-in for a Check program: says which half it ran and exits with
# $RC_INCLUDE in the tagged half, $RC_EXCLUDE in the other, $RC_WHOLE unsplit.
prog="$tmp/prog"
cat >"$prog" <<'PROG'
#!/bin/sh
if [ -n "${CK_INCLUDE_TAGS:-}" ]; then echo "ran include=$CK_INCLUDE_TAGS"; exit "${RC_INCLUDE:-0}"; fi
if [ -n "${CK_EXCLUDE_TAGS:-}" ]; then echo "ran exclude=$CK_EXCLUDE_TAGS"; exit "${RC_EXCLUDE:-0}"; fi
echo "ran whole"; exit "${RC_WHOLE:-0}"
PROG
chmod +x "$prog"

# run RC_INCLUDE RC_EXCLUDE: the driver's status; its output in $tmp/out
run() { RC_INCLUDE=$1 RC_EXCLUDE=$2 KK_CHECK_HALVES="other $prog" sh "$drv" env "$prog" >"$tmp/out" 2>&1; }

run 0 0; rc=$?
[ "$rc" -eq 0 ] || fail "both halves passed: status $rc, not 0"
grep -q '^ran include=half$' "$tmp/out" && grep -q '^ran exclude=half$' "$tmp/out" ||
  fail "both halves passed: the output lacks one of them: $(cat "$tmp/out")"

# automake names a test of the build tree ./NAME: the driver splits it too
(cd "$tmp" && RC_INCLUDE=0 RC_EXCLUDE=0 KK_CHECK_HALVES="prog" sh "$drv" env ./prog) >"$tmp/out" 2>&1
grep -q '^ran include=half$' "$tmp/out" && grep -q '^ran exclude=half$' "$tmp/out" ||
  fail "a test named ./prog was not split as prog: $(cat "$tmp/out")"

run 0 1; rc=$?
[ "$rc" -eq 1 ] || fail "the second half failed with 1: status $rc, not 1"
grep -q '^ran include=half$' "$tmp/out" && grep -q 'every other case.*exit status 1' "$tmp/out" ||
  fail "the second half failed: its output or status is not shown: $(cat "$tmp/out")"

run 99 0; rc=$?
[ "$rc" -eq 99 ] || fail "the first half failed with 99 (valgrind's error status): status $rc, not 99"

run 77 77; rc=$?
[ "$rc" -eq 77 ] || fail "both halves skipped: status $rc, not 77"

run 77 0; rc=$?
[ "$rc" -eq 99 ] || fail "one half skipped and the other passed: status $rc, not 99"

# a test not named in KK_CHECK_HALVES runs once, as it would without the driver
RC_WHOLE=3 KK_CHECK_HALVES="other" sh "$drv" env "$prog" >"$tmp/out" 2>&1; rc=$?
[ "$rc" -eq 3 ] && [ "$(cat "$tmp/out")" = "ran whole" ] || fail "an unnamed test: status $rc, output $(cat "$tmp/out")"
# nor is one split that already runs a choice of tags
CK_INCLUDE_TAGS=x KK_CHECK_HALVES="$prog" sh "$drv" env "$prog" >"$tmp/out" 2>&1
[ "$(cat "$tmp/out")" = "ran include=x" ] || fail "a test run with CK_INCLUDE_TAGS set was split: $(cat "$tmp/out")"

[ "$status" -eq 0 ] && echo "PASS: tests/check-halves.sh runs both halves, shows both, fails when either fails"
exit "$status"
