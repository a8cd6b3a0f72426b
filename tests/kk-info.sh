#!/bin/sh
# tests/kk-info.sh -- kk-info prints text and JSON, takes --kokkos-* flags and fails with the reason on stderr.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
info="$top_builddir/tools/kk-info/kk-info"
tmp=${TMPDIR:-/tmp}/kk-info-test.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

"$info" >"$tmp/out" 2>"$tmp/err" || fail "kk-info exited non-zero: $(cat "$tmp/err")"
grep -q '^kk [0-9]' "$tmp/out" || fail "no version line"
grep -q 'plugin ABI 1\.' "$tmp/out" || fail "no plugin ABI"
grep -q 'tools interface 20240906' "$tmp/out" || fail "no tools interface version"
grep -q '^plugin search path:' "$tmp/out" || fail "no plugin search path"
grep -q 'serial .*built in' "$tmp/out" || fail "serial not listed as built in"
grep -q 'memory spaces: Host' "$tmp/out" || fail "no memory space listed"

"$info" --json >"$tmp/json" 2>"$tmp/err" || fail "kk-info --json exited non-zero"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["abi"]["tools"]==20240906; assert any(p["name"]=="serial" for p in d["plugins"]); assert d["backends"][0]["devices"][0]["spaces"]' "$tmp/json" \
    || fail "kk-info --json is not the expected JSON"
else
  grep -q '"plugins"' "$tmp/json" || fail "JSON has no plugins"
fi

"$info" --kokkos-device=serial >"$tmp/out" 2>&1 || fail "kk-info --kokkos-device=serial failed"
grep -q 'default backend: serial' "$tmp/out" || fail "--kokkos-device=serial not honoured"

if "$info" --kokkos-device=nosuchbackend >"$tmp/out" 2>"$tmp/err"; then
  fail "kk-info succeeded with an unknown backend"
fi
grep -q "backend 'nosuchbackend' was requested" "$tmp/err" || fail "no reason on stderr: $(cat "$tmp/err")"
grep -q 'usable backends: .*serial' "$tmp/err" || fail "usable backends not listed: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "kk-info printed a report although initialization failed"

"$info" --kokkos-help >"$tmp/out" 2>&1 || fail "--kokkos-help did not exit 0"
grep -q -- '--kokkos-num-threads=N' "$tmp/out" || fail "--kokkos-help does not list the flags"

exit $status
