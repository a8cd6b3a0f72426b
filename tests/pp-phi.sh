#!/bin/sh
# tests/pp-phi.sh -- bench/pp-phi.py computes application efficiency and Pennycook's PHI (the harmonic mean, 0 where a version is missing) on a hand-computed example, keeps the best of several rounds, ignores a run that failed its check, and refuses malformed input.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu
top=${srcdir:-.}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
phi() { python3 "$top/bench/pp-phi.py" "$@"; }

# Three platforms.  p1 and p3 are timed (lower is better), p2 is a rate (higher is better).
#   p1: A 1.0 s (its better round), B 2.0 s, C 0.5 s but FAILED: does not count  -> A 1, B 1/2, C -
#   p2: A 50, B 100, C did not run                                              -> A 1/2, B 1, C -
#   p3: A 4 s, B 1 s, C 2 s                                                     -> A 1/4, B 1, C 1/2
# PHI(A) = 3 / (1 + 2 + 4) = 3/7 = 0.4286 (the arithmetic mean would be 0.5833, the geometric 0.5)
# PHI(B) = 3 / (2 + 1 + 1) = 0.75;  PHI(C) = 0 (missing on p1 and p2), 0.5 on the one it runs on.
cat >"$tmp/in.csv" <<'CSV'
app,platform,version,metric,value,check
demo,p1,A,time_s,1.5,PASSED
demo,p1,A,time_s,1.0,PASSED
demo,p1,B,time_s,2.0,PASSED
demo,p1,C,time_s,0.5,FAILED
demo,p2,A,GFLOP/s,50,
demo,p2,B,GFLOP/s,100,none
demo,p2,C,GFLOP/s,-,
demo,p3,A,time_s,4,PASSED
demo,p3,B,time_s,1,PASSED
demo,p3,C,time_s,2,PASSED
CSV
cat >"$tmp/want.csv" <<'CSV'
app,version,platform,efficiency,phi,phi_own
demo,A,p1,1.0000,0.4286,0.4286
demo,A,p2,0.5000,0.4286,0.4286
demo,A,p3,0.2500,0.4286,0.4286
demo,B,p1,0.5000,0.7500,0.7500
demo,B,p2,1.0000,0.7500,0.7500
demo,B,p3,1.0000,0.7500,0.7500
demo,C,p1,,0.0000,0.5000
demo,C,p2,,0.0000,0.5000
demo,C,p3,0.5000,0.0000,0.5000
CSV
phi --csv "$tmp/in.csv" >"$tmp/got.csv"
diff -u "$tmp/want.csv" "$tmp/got.csv" || { echo "FAIL: wrong efficiencies or PHI"; exit 1; }

# Over p2 and p3 only: PHI(A) = 2 / (2 + 4) = 0.3333, PHI(B) = 1.
phi --csv --platforms=p2,p3 "$tmp/in.csv" | grep -qx 'demo,A,p3,0.2500,0.3333,0.3333' ||
  { echo "FAIL: --platforms"; exit 1; }
# A platform no version ran on counts as missing for every version.
phi --csv --platforms=p1,p2,p3,p4 "$tmp/in.csv" | grep -qx 'demo,B,p4,,0.0000,0.7500' ||
  { echo "FAIL: a platform without results"; exit 1; }
# The table names the best version on each platform and prints PHI in percent.
phi "$tmp/in.csv" >"$tmp/table.txt"
grep -q '^B .* 75.0% ' "$tmp/table.txt" && grep -q '^A .* 42.9% ' "$tmp/table.txt" &&
  grep -q 'best per platform: p1=A p2=B p3=B' "$tmp/table.txt" || { cat "$tmp/table.txt"; echo "FAIL: the table"; exit 1; }

# Malformed input: a message naming the line, exit status 2, nothing on stdout.
for bad in 'demo,p1,A,time_s,abc,PASSED' 'demo,p1,A,time_s,-1,PASSED' 'demo,p1,A,GFLOP/s,3,PASSED' 'demo,p1,A,time_s'; do
  { head -2 "$tmp/in.csv"; echo "$bad"; } >"$tmp/bad.csv"
  rc=0; phi "$tmp/bad.csv" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q 'bad.csv:3:' "$tmp/err" ||
    { echo "FAIL: '$bad' gave rc $rc"; cat "$tmp/err"; exit 1; }
done
echo "PASS: efficiencies, PHI and input checks as computed by hand"
