#!/bin/sh
# kernels/tests/kernels-kk-info.sh -- kk-info finds libkk-kernels (libkk does not link it) and lists its vendor libraries, in text and JSON.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
info="$top_builddir/tools/kk-info/kk-info"
KK_INFO_LIBDIR="$top_builddir/.libs"
export KK_INFO_LIBDIR
tmp=${TMPDIR:-/tmp}/kk-info-kernels.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

"$info" >"$tmp/out" 2>"$tmp/err" || fail "kk-info exited non-zero: $(cat "$tmp/err")"
grep -q '^libraries built on kk:' "$tmp/out" || fail "no libraries section"
grep -q '^  kk-kernels .*libkk-kernels\.so\.0' "$tmp/out" || fail "libkk-kernels not found: $(tail -5 "$tmp/out")"
grep -q '^    cblas ' "$tmp/out" || fail "the cblas vendor library is not listed"
KK_KERNELS_TPL=none "$info" >"$tmp/out" 2>&1 || fail "kk-info with KK_KERNELS_TPL=none failed"
grep -q 'cblas *disabled' "$tmp/out" || fail "KK_KERNELS_TPL=none does not show cblas disabled"
KK_KERNELS_CBLAS=/nonexistent/libcblas.so "$info" >"$tmp/out" 2>&1 || fail "kk-info with a missing CBLAS failed"
grep -q 'cblas *not found' "$tmp/out" || fail "a missing CBLAS file is not reported as not found"
grep -q 'why: .*nonexistent' "$tmp/out" || fail "no reason for the missing CBLAS"

"$info" --json >"$tmp/json" 2>"$tmp/err" || fail "kk-info --json exited non-zero"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); k=d["libraries"]["kk-kernels"]; assert k["found"]; assert k["report"]["tpls"][0]["name"]=="cblas"; assert d["plugins"]' "$tmp/json" \
    || fail "kk-info --json has no valid kk-kernels entry"
else
  grep -q '"kk-kernels": {"found": true' "$tmp/json" || fail "JSON has no kk-kernels entry"
fi
exit $status
