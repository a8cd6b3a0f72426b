#!/bin/sh
# bench/site-bench.sh -- runs kk-bench --json from a built tree and writes bench/results/<stem>.json, the input of bench/plot-bench.py (docs/benchmarks.md's current figures).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Usage: bench/site-bench.sh STEM "MACHINE TITLE" ORDER [kk-bench flags...]
#   bench/site-bench.sh h200 "NVIDIA H200" 1 --backends=cuda --sizes=26
#   bench/site-bench.sh h200-host "H200 machine, 32 host cores" 2 --backends=openmp
#   bench/site-bench.sh vm-2core "2-core Debian VM" 3 --backends=threads,openmp --quick
# Then bench/plot-bench.py redraws the tables and charts.  Bounded by
# KK_SITE_BENCH_TIMEOUT seconds (default 1200).
set -eu
[ $# -ge 3 ] || { sed -n '4,8p' "$0"; exit 2; }
stem=$1 title=$2 order=$3
shift 3
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/bench/results/$stem.json"
raw=$(mktemp); trap 'rm -f "$raw"' EXIT
timeout "${KK_SITE_BENCH_TIMEOUT:-1200}" "$top/bench/kk-bench" "$@" --json >"$raw"
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)
cpu=$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
python3 - "$raw" "$out" "$title" "$order" "$commit" "kk-bench $*" "${device:+GPU $device; }$cpu, $(nproc) cores" <<'PY'
import json, sys, time
raw, out, title, order, commit, command, device = sys.argv[1:]
doc = {"machine": title, "order": int(order), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
       "device": device, "commit": commit, "command": command, "results": json.load(open(raw))}
open(out, "w").write(json.dumps(doc, indent=1) + "\n")
print("wrote", out, "with", len(doc["results"]), "results")
PY
