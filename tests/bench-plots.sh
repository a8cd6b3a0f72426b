#!/bin/sh
# tests/bench-plots.sh -- docs/benchmarks.md's current tables and charts are those of the kk-bench results committed in bench/results/, and the check catches a stale table.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu
top=${srcdir:-.}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
python3 "$top/bench/plot-bench.py" --check --srcdir "$top"
# A copy whose results changed must be reported out of date.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bench/results" "$tmp/docs"
cp "$top/docs/benchmarks.md" "$tmp/docs/"
cp -R "$top/docs/bench" "$tmp/docs/"
for f in "$top"/bench/results/*.json; do
  sed 's/"kk": \([0-9]\)/"kk": 1\1/' "$f" > "$tmp/bench/results/$(basename "$f")"
done
if python3 "$top/bench/plot-bench.py" --check --srcdir "$tmp" >/dev/null; then
  echo "FAIL: changed results were not reported"; exit 1
fi
echo "PASS: the tables are current, and a change is caught"
