#!/bin/sh
# containers/tests/containers-kk-info.sh -- kk-info finds libkk-containers (libkk does not link it) and reports its containers and kernel targets, in text and JSON.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
info="$top_builddir/tools/kk-info/kk-info"
KK_INFO_LIBDIR="$top_builddir/.libs"
export KK_INFO_LIBDIR
tmp=${TMPDIR:-/tmp}/kk-info-containers.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

"$info" >"$tmp/out" 2>"$tmp/err" || fail "kk-info exited non-zero: $(cat "$tmp/err")"
grep -q '^  kk-containers .*libkk-containers\.so\.0' "$tmp/out" || fail "libkk-containers not found: $(tail -8 "$tmp/out")"
grep -q '^kk-containers [0-9.]*: DualView, UnorderedMap, Bitset, UniqueToken, DynamicView, OffsetView$' "$tmp/out" ||
  fail "no containers line: $(tail -8 "$tmp/out")"
grep -q '^  kernels built for: host' "$tmp/out" || fail "no kernel targets: $(tail -8 "$tmp/out")"

"$info" --json >"$tmp/json" 2>"$tmp/err" || fail "kk-info --json exited non-zero"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["libraries"]["kk-containers"]; assert c["found"]; r=c["report"]; assert "UnorderedMap" in r["containers"]; assert r["kernel_targets"].startswith("host")' "$tmp/json" \
    || fail "kk-info --json has no valid kk-containers entry"
else
  grep -q '"kk-containers": {"found": true' "$tmp/json" || fail "JSON has no kk-containers entry"
fi
[ $status = 0 ] && echo "kk-info reports libkk-containers"
exit $status
