#!/bin/bash
# maint/gpu-apps-kokkos.sh -- on the H200 machine, in one call of at most nine minutes: CloverLeaf (clover_bm16_short) and miniBUDE (bm1) on cuda and on the host cores, kk against the upstream OpenMP, CUDA and Kokkos versions (the Kokkos ones prebuilt by maint/kokkos-kit.sh), writing bench/pp-phi.py's input for the h200 and h200-host16 platforms and printing one summary.
#
# usage: maint/gpu-apps-kokkos.sh CLOVERLEAF_DIR MINIBUDE_DIR KOKKOS_KIT [BUILDDIR]
#   CLOVERLEAF_DIR  a copy of https://github.com/UoB-HPC/CloverLeaf (the machine has no network: bring it)
#   MINIBUDE_DIR    a copy of https://github.com/UoB-HPC/miniBUDE
#   KOKKOS_KIT      kokkos-apps.txz of maint/kokkos-kit.sh, or the folder it was unpacked in (holding bin/)
#   BUILDDIR        a kk tree built with cuda (default: the tree this script is in; maint/gpu-run.sh build makes one)
# Environment:
#   OUT              logs, tables and phi-h200.csv (default /tmp/kk-gpu-apps-kokkos); summary.txt is the summary
#   OMP_NUM_THREADS  host threads of every OpenMP run (default 16: the platform "h200-host16")
#   PHI_HOST, PHI_GPU  the platform names written to the CSV (default h200-host<threads>, h200)
#   DECK             CloverLeaf's deck (default bm16_short); ROUNDS (default 1); BUDE_ITERS (default 5 on cuda, 3 on the host)
# The upstream OpenMP and CUDA versions of both applications are built first, at once (at most 110 s);
# then each benchmark runs alone on the machine, one platform at a time, bounded by timeout (CloverLeaf
# 45 s on cuda and 130 s on the host, miniBUDE 120 s and 140 s; each run a third of its part): 545 s in all at
# the very most.  On the H200's 16 cores one CloverLeaf run takes about 28 s and miniBUDE's kk sweep on cuda
# about 20 s, so one round is what fits; miniBUDE's host sweep takes poses per work-item 8..64 (HOST_PPWI).  No timing is judged: the tables and PHI go to docs/benchmarks.md.  The 2-core and
# PoCL platforms come from maint/apps-kokkos-local.sh on the development machine; then
#   bench/pp-phi.py --platforms=h200,h200-host16,vm-2core,pocl phi-h200.csv phi-local.csv
# Exit status 1 when a run failed its check or a part failed (the summary says which).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
usage="usage: maint/gpu-apps-kokkos.sh CLOVERLEAF_DIR MINIBUDE_DIR KOKKOS_KIT [BUILDDIR]"
cl=$(realpath "${1:?$usage}")
bude=$(realpath "${2:?$usage}")
kit=$(realpath "${3:?$usage}")
B=$(realpath "${4:-$(dirname "$0")/..}")
OUT=${OUT:-/tmp/kk-gpu-apps-kokkos}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
export PHI_HOST=${PHI_HOST:-h200-host$OMP_NUM_THREADS} PHI_GPU=${PHI_GPU:-h200}
ROUNDS=${ROUNDS:-1}
mkdir -p "$OUT"
T0=$(date +%s)
status=0
sum() { echo "$*" | tee -a "$OUT/summary.txt"; }
note() { # name rc
  case $2 in 0) sum "   $1: PASS" ;; 124 | 137) sum "   $1: TIMEOUT"; status=1 ;; *) sum "   $1: FAIL (rc=$2)"; status=1 ;; esac
}
: >"$OUT/summary.txt"
sum "== $(date -u +%FT%TZ) device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1), $(nproc) cores, OMP_NUM_THREADS=$OMP_NUM_THREADS"

# the prebuilt Kokkos versions
if [ -f "$kit" ]; then
  mkdir -p "$OUT/kit" && tar -xJf "$kit" -C "$OUT/kit" || { sum "cannot unpack $kit"; exit 2; }
  kit="$OUT/kit"
fi
[ -x "$kit/bin/kokkos-cloverleaf-cuda" ] || { sum "no $kit/bin/kokkos-cloverleaf-cuda: unpack kokkos-apps.txz"; exit 2; }
[ -f "$kit/README" ] && sed -n 1,3p "$kit/README" | sed 's/^/   kit: /' | tee -a "$OUT/summary.txt"
for f in "$kit"/bin/kokkos-*; do
  if ldd "$f" | grep -q 'not found'; then sum "   $f: $(ldd "$f" | grep 'not found' | tr -s ' \n' ' ')"; status=1; fi
done
cd "$B" || exit 2
[ -x examples/cloverleaf/cloverleaf ] && [ -x examples/minibude/minibude ] || { sum "no built kk in $B"; exit 2; }
export KOKKOS_BIN="$kit/bin" PHI_CSV="$OUT/phi-h200.csv"
rm -f "$PHI_CSV"

# 1. the upstream builds, both applications at once
BUILD_ONLY=yes OUT="$OUT/cloverleaf" TIMEOUT=100 timeout 110 bash bench/cloverleaf.sh "$cl" "$B" >"$OUT/cloverleaf-build.txt" 2>&1 &
p1=$!
BUILD_ONLY=yes OUT="$OUT/minibude" TIMEOUT=100 timeout 110 bash bench/minibude.sh "$bude" "$B" >"$OUT/minibude-build.txt" 2>&1 &
p2=$!
wait $p1; note "upstream CloverLeaf builds ($OUT/cloverleaf-build.txt)" $?
wait $p2; note "upstream miniBUDE builds ($OUT/minibude-build.txt)" $?
sum "   (+$(($(date +%s) - T0)) s)"

# 2. one benchmark and platform at a time, each bounded, so that a slow part loses only its own table:
#    kk against the upstream CUDA (or OpenMP) version and the Kokkos one, ROUNDS rounds each
bench() { # app platform seconds [environment...]
  local app=$1 plat=$2 secs=$3 env
  shift 3
  # each run's own limit: every run of the part together stays under the part's
  case $app in
    cloverleaf) env="DECK=${DECK:-bm16_short} TIMEOUT=$((secs / 3 / ROUNDS))" ;;
    minibude) env="ITERS=${BUDE_ITERS:-$([ "$plat" = cuda ] && echo 5 || echo 3)} TIMEOUT=$((secs / 3 / ROUNDS))" ;;
  esac
  # shellcheck disable=SC2086 # the environment list
  env OUT="$OUT/$app" ROUNDS="$ROUNDS" PLATFORMS="$plat" $env "$@" timeout "$secs" bash "bench/$app.sh" \
    "$([ "$app" = cloverleaf ] && echo "$cl" || echo "$bude")" "$B" >"$OUT/$app-$plat.txt" 2>&1
  note "bench/$app.sh on $plat ($OUT/$app-$plat.txt)" $?
  sed -n '/^platform/,$p' "$OUT/$app-$plat.txt" | tee -a "$OUT/summary.txt"
  sum "   (+$(($(date +%s) - T0)) s)"
}
bench cloverleaf cuda 45
bench minibude cuda 120
bench cloverleaf openmp 130
# on the host, poses per work-item 8..64 for every version alike, to fit the call (HOST_PPWI=all: the whole sweep)
bench minibude openmp 140 PPWI="${HOST_PPWI:-8,16,32,64}"

# 3. PHI over the two platforms of this machine (the four-platform PHI needs phi-local.csv too)
sum "== PHI rows: $PHI_CSV"
python3 bench/pp-phi.py --platforms="$PHI_GPU,$PHI_HOST" "$PHI_CSV" 2>&1 | tee -a "$OUT/summary.txt"
sum "== done in $(($(date +%s) - T0)) s, status $status"
exit $status
