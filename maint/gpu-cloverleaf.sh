#!/bin/bash
# maint/gpu-cloverleaf.sh -- CloverLeaf's checks and benchmark on a CUDA machine, from a built kk tree: tests/cloverleaf.sh (cuda among the backends, MPI on cuda too), the upstream test problems bm_short and bm16_short on cuda and openmp, and bench/cloverleaf.sh against the upstream CUDA and OpenMP versions; every part bounded by timeout, one summary at the end.
#
# usage: maint/gpu-cloverleaf.sh UPSTREAM_DIR [BUILDDIR [PARTS]]
#   PARTS         which of test, problems, bench to run (default "test problems bench"; each part
#                 stays under ten minutes, so a machine that bounds one call can run them one by one)
#   UPSTREAM_DIR  a copy of https://github.com/UoB-HPC/CloverLeaf (the machine may have no network: bring it along)
#   BUILDDIR      a kk tree built with cuda (default: the tree this script is in; maint/gpu-run.sh build makes one)
#   OUT           where the logs go (default /tmp/kk-gpu-cloverleaf); summary.txt is the summary
#   OMP_NUM_THREADS  host threads for the OpenMP runs (default 16, the comparison the benchmarks report)
#   KOKKOS_SRC    a Kokkos source tree: the benchmark also builds and runs the upstream Kokkos version
# No timing is judged: the table is for docs/benchmarks.md.  Exit status 1 when a check fails.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
up=$(realpath "${1:?usage: maint/gpu-cloverleaf.sh UPSTREAM_DIR [BUILDDIR]}")
B=$(realpath "${2:-$(dirname "$0")/..}")
PARTS=${3:-test problems bench}
OUT=${OUT:-/tmp/kk-gpu-cloverleaf}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
mkdir -p "$OUT"
T0=$(date +%s)
status=0
sum() { echo "$*" | tee -a "$OUT/summary.txt"; }
note() { # name rc
  case $2 in 0) sum "   $1: PASS" ;; 77) sum "   $1: SKIP" ;; *) sum "   $1: FAIL (rc=$2)"; status=1 ;; esac
}
: >>"$OUT/summary.txt"
sum "== $(date -u +%FT%TZ) device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1), $(nproc) cores"
cd "$B" || exit 2
clover=examples/cloverleaf/cloverleaf
[ -x $clover ] || { sum "no $B/$clover: build kk first"; exit 2; }

part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
# 1. the test: small decks on every backend (cuda included), MPI on cuda and openmp
part test && env top_builddir="$B" top_srcdir="$B" MPIEXEC="$(sed -n 's/^MPIEXEC = //p' Makefile)" \
  KK_MPI_IMPL="$(sed -n 's/^KK_MPI_IMPL = //p' Makefile)" KK_CLOVER_MPI_BACKENDS="serial openmp cuda" \
  timeout 540 bash tests/cloverleaf.sh >"$OUT/test.txt" 2>&1
part test && note "tests/cloverleaf.sh (cuda + MPI on cuda; $OUT/test.txt)" $?

# 2. the upstream's test problems at full size, checked by the program (0.001% on the kinetic energy)
part problems && for dev in cuda openmp; do
  for deck in bm_short bm16_short; do
    timeout 240 $clover --kokkos-device=$dev -q --std $deck >"$OUT/$dev-$deck.txt" 2>&1
    note "$deck on $dev: $(grep -o 'within .*' "$OUT/$dev-$deck.txt" | head -1), $(grep -o 'wall clock [0-9.]* s' "$OUT/$dev-$deck.txt")" $?
  done
done

# 3. the benchmark: kk against the upstream CUDA and OpenMP (and Kokkos) versions on clover_bm16_short
if part bench; then
  OUT="$OUT/bench" TIMEOUT=240 timeout 570 bash bench/cloverleaf.sh "$up" "$B" >"$OUT/bench.txt" 2>&1
  note "bench/cloverleaf.sh ($OUT/bench.txt)" $?
  sed -n '/^platform/,$p' "$OUT/bench.txt" | tee -a "$OUT/summary.txt"
fi
sum "== done in $(($(date +%s) - T0)) s, status $status"
exit $status
