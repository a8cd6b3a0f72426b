#!/bin/bash
# maint/apps-kokkos-local.sh -- the two CPU-only platforms of the mini-apps' PHI on this (development) machine: CloverLeaf and miniBUDE with OpenMP on every core (kk against the upstream OpenMP and Kokkos versions) and on PoCL (kk's opencl backend; miniBUDE's upstream OpenCL version too), writing bench/pp-phi.py's input; run it when the machine is otherwise idle.
#
# usage: maint/apps-kokkos-local.sh CLOVERLEAF_DIR MINIBUDE_DIR KOKKOS_BIN [BUILDDIR]
#   KOKKOS_BIN  the bin/ folder of maint/kokkos-kit.sh (e.g. /work/kokkos-kit/bin)
#   BUILDDIR    a built kk tree with the openmp and opencl backends (default: the tree this script is in)
# Environment:
#   OUT          logs and phi-local.csv (default /tmp/kk-apps-kokkos-local)
#   PHI_HOST     the host platform's name in the CSV (default vm-<cores>core); PHI_OPENCL (default pocl)
#   DECK         CloverLeaf's deck (default bm16_short, as on the H200; bm_short for a quick look)
#   NPOSES       miniBUDE's poses (default 0: all of bm1; 4096 for a quick look)
#   ROUNDS (default 2), BUDE_ITERS (default 5), TIMEOUT per build and run (default 1200)
# On 2 idle cores the full decks take about half an hour in all.  With the H200 machine's phi-h200.csv
# (maint/gpu-apps-kokkos.sh):
#   bench/pp-phi.py --platforms=h200,h200-host16,vm-2core,pocl phi-h200.csv phi-local.csv
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
usage="usage: maint/apps-kokkos-local.sh CLOVERLEAF_DIR MINIBUDE_DIR KOKKOS_BIN [BUILDDIR]"
cl=$(realpath "${1:?$usage}")
bude=$(realpath "${2:?$usage}")
KOKKOS_BIN=$(realpath "${3:?$usage}")
export KOKKOS_BIN
B=$(realpath "${4:-$(dirname "$0")/..}")
OUT=${OUT:-/tmp/kk-apps-kokkos-local}
export PHI_HOST=${PHI_HOST:-vm-$(nproc)core} PHI_OPENCL=${PHI_OPENCL:-pocl}
export ROUNDS=${ROUNDS:-2} TIMEOUT=${TIMEOUT:-1200}
mkdir -p "$OUT"
export PHI_CSV="$OUT/phi-local.csv"
rm -f "$PHI_CSV"
# the upstream OpenCL build needs the library's file name where only libOpenCL.so.1 is installed
if [ -z "${OpenCL_LIBRARY:-}" ] && [ ! -e /usr/lib/x86_64-linux-gnu/libOpenCL.so ] &&
  [ -e /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 ]; then
  export OpenCL_LIBRARY=/usr/lib/x86_64-linux-gnu/libOpenCL.so.1
fi
status=0
echo "== $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
OUT="$OUT/cloverleaf" DECK=${DECK:-bm16_short} PLATFORMS="openmp opencl" \
  bash "$B/bench/cloverleaf.sh" "$cl" "$B" >"$OUT/cloverleaf.txt" 2>&1 || status=1
sed -n '/^platform/,$p' "$OUT/cloverleaf.txt"
OUT="$OUT/minibude" NPOSES=${NPOSES:-0} ITERS=${BUDE_ITERS:-5} PLATFORMS="openmp opencl" \
  bash "$B/bench/minibude.sh" "$bude" "$B" >"$OUT/minibude.txt" 2>&1 || status=1
sed -n '/^platform/,$p' "$OUT/minibude.txt"
echo "== PHI rows: $PHI_CSV"
python3 "$B/bench/pp-phi.py" --platforms="$PHI_HOST,$PHI_OPENCL" "$PHI_CSV"
echo "== done $(date -u +%FT%TZ), status $status (logs: $OUT/cloverleaf.txt, $OUT/minibude.txt)"
exit $status
