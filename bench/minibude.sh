#!/bin/bash
# bench/minibude.sh -- miniBUDE's bm1 deck on kk and on the upstream OpenMP (and CUDA, where nvcc and a GPU are) versions, built here in a scratch folder and run in one call; prints one table of the best run of each side's own sweep and the kk/upstream ratios (no timing is judged anywhere).
#
# usage: bench/minibude.sh UPSTREAM_DIR [KK_BUILDDIR]
#   UPSTREAM_DIR  a checkout (or an unpacked archive) of https://github.com/UoB-HPC/miniBUDE: its CMakeLists.txt,
#                 cmake/, src/ and data/bm1/ are used; bm1 is the deck both sides run
#   KK_BUILDDIR   a built kk tree (default: the tree this script is in); examples/minibude/minibude is run
# Environment:
#   OUT        scratch folder for the upstream builds and the logs (default /tmp/kk-minibude-bench)
#   ITERS      timed iterations per setting, after two untimed ones (default 8)
#   CUDA_ARCH  the upstream CUDA build's architecture (default sm_90)
#   UP_FLAGS   extra compiler flags for the upstream OpenMP build (default: the -march of kk's host recipe, if any,
#              so that both sides target the same CPU)
#   TIMEOUT    seconds allowed to each build and each run (default 600)
#   PPWI       the poses-per-work-item sweep of both sides (default all: 1,2,4,...,128)
#   ROUNDS     rounds of both sides' sweeps, the side going first alternating; each side's best is kept (default 2)
#   NPOSES     run only the deck's first NPOSES poses (default 0: all 65536), for a quick look on a small machine
# Each side runs its own sweep (miniBUDE's own timing: ITERS launches after two warm-up ones, the average): every poses-per-work-item (1..128), and on CUDA the work-group sizes 32..1024;
# the best valid run of each is reported.  Threads: OMP_NUM_THREADS (default: every core) for both OpenMP
# runs, with OMP_PROC_BIND=close OMP_PLACES=cores unless set.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
up=$(realpath "${1:?usage: bench/minibude.sh UPSTREAM_DIR [KK_BUILDDIR]}")
kk=$(realpath "${2:-$(dirname "$0")/..}")
OUT=${OUT:-/tmp/kk-minibude-bench}
ITERS=${ITERS:-8}
CUDA_ARCH=${CUDA_ARCH:-sm_90}
TIMEOUT=${TIMEOUT:-600}
PPWI=${PPWI:-all}
NPOSES=${NPOSES:-0}
ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT"
deck="$up/data/bm1"
bude="$kk/examples/minibude/minibude"
[ -x "$bude" ] || { echo "no $bude: build kk first (make)"; exit 2; }
[ -f "$deck/poses.in" ] || { echo "no bm1 deck in $up/data/bm1"; exit 2; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}
if [ -z "${UP_FLAGS+x}" ]; then
  UP_FLAGS=$("$kk/tools/kkcc/kkcc" --list-targets 2>/dev/null | grep -o -- '-march=[^ "]*' | head -1)
fi
commit=$(git -C "$up" rev-parse --short HEAD 2>/dev/null || echo "unknown (not a git checkout)")
echo "miniBUDE bm1: kk $(git -C "$kk" rev-parse --short HEAD 2>/dev/null) against upstream $commit, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, OMP_NUM_THREADS=$OMP_NUM_THREADS"
command -v nvidia-smi >/dev/null && echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"

build_up() { # model dir extra-cmake-args...
  local model=$1 dir=$2
  shift 2
  [ -x "$dir/$model-bude" ] && return 0
  timeout "$TIMEOUT" cmake -S "$up" -B "$dir" -DMODEL="$model" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir.log" 2>&1 &&
    timeout "$TIMEOUT" cmake --build "$dir" -j "$(nproc)" >>"$dir.log" 2>&1 ||
    { echo "upstream $model build failed: see $dir.log"; return 1; }
}

# the best line of each side's sweep, as "ppwi wgsize avg_ms"
best_up() { sed -n 's/.*best: { min_ms: [^,]*, max_ms: [^,]*, sum_ms: [^,]*, avg_ms: \([^,]*\), ppwi: \([0-9]*\), wgsize: \([0-9]*\) }.*/\2 \3 \1/p' "$1" | tail -1; }
best_kk() { sed -n 's/.*best: ppwi \([0-9]*\), wgsize \([0-9]*\), avg_ms \([0-9.]*\).*/\1 \2 \3/p' "$1" | tail -1; }

# the faster of two "ppwi wgsize avg_ms" lines (the first when the second is empty)
faster() { if [ -z "$2" ] || { [ -n "$1" ] && awk -v a="${1##* }" -v b="${2##* }" 'BEGIN { exit !(a <= b) }'; }; then echo "$1"; else echo "$2"; fi; }

rows=()
run_pair() { # platform upstream-binary upstream-args kk-device kk-args
  local plat=$1 ubin=$2 uargs=$3 dev=$4 kargs=$5 u="" k="" r side v
  # ROUNDS rounds, the side going first alternating, each side's best kept: a slow stretch of a
  # shared machine then does not land on one side only
  for r in $(seq 1 "$ROUNDS"); do
    for side in $( ((r % 2)) && echo "up kk" || echo "kk up"); do
      if [ $side = up ] && [ -n "$ubin" ]; then
        # shellcheck disable=SC2086 # argument lists
        timeout "$TIMEOUT" "$ubin" --deck "$deck" -i "$ITERS" -n "$NPOSES" --csv $uargs >"$OUT/$plat-upstream.$r.log" 2>&1
        v=$(best_up "$OUT/$plat-upstream.$r.log")
        [ -n "$v" ] || echo "$plat: the upstream run gave no valid result: see $OUT/$plat-upstream.$r.log"
        u=$(faster "$u" "$v")
      elif [ $side = kk ]; then
        # shellcheck disable=SC2086
        timeout "$TIMEOUT" "$bude" --kokkos-device="$dev" --deck "$deck" -i "$ITERS" -n "$NPOSES" --csv $kargs \
          >"$OUT/$plat-kk.$r.log" 2>&1
        v=$(best_kk "$OUT/$plat-kk.$r.log")
        [ -n "$v" ] || echo "$plat: the kk run gave no valid result: see $OUT/$plat-kk.$r.log"
        k=$(faster "$k" "$v")
      fi
    done
  done
  rows+=("$plat|$u|$k")
}

status=0
if build_up omp "$OUT/up-omp" ${UP_FLAGS:+-DCXX_EXTRA_FLAGS="$UP_FLAGS"}; then
  run_pair "openmp" "$OUT/up-omp/omp-bude" "--ppwi $PPWI" openmp "-p $PPWI -w 1"
else
  status=1
  run_pair "openmp" "" "" openmp "-p $PPWI -w 1"
fi
wgs=32,64,128,256,512,1024
if command -v nvcc >/dev/null && "$kk/tools/kk-info/kk-info" --kokkos-device=cuda >/dev/null 2>&1; then
  if build_up cuda "$OUT/up-cuda" -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" -DCUDA_ARCH="$CUDA_ARCH"; then
    run_pair "cuda" "$OUT/up-cuda/cuda-bude" "--ppwi $PPWI --wgsize $wgs" cuda "-p $PPWI -w $wgs"
  else
    status=1
    run_pair "cuda" "" "" cuda "-p $PPWI -w $wgs"
  fi
else
  echo "cuda: no nvcc or no usable CUDA device: skipped"
fi

# GFLOP/s as miniBUDE counts them (per work-item of ppwi poses), and interactions per second
natpro=$(($(wc -c <"$deck/protein.in") / 16))
natlig=$(($(wc -c <"$deck/ligand.in") / 16))
nposes=$(($(wc -c <"$deck/poses.in") / 24))
[ "$NPOSES" -gt 0 ] && nposes=$NPOSES
printf '\n%-8s %-9s %5s %6s %10s %9s %13s %9s\n' platform version ppwi wgsize avg_ms GFLOP/s Ginteract/s kk/up
for r in "${rows[@]}"; do
  IFS='|' read -r plat u k <<<"$r"
  for side in upstream kk; do
    [ $side = upstream ] && v=$u || v=$k
    [ -n "$v" ] || { printf '%-8s %-9s %5s\n' "$plat" $side "-"; continue; }
    read -r p w ms <<<"$v"
    ratio=""
    if [ $side = kk ] && [ -n "$u" ]; then ratio=$(awk -v a="${u##* }" -v b="$ms" 'BEGIN { printf "%.3f", a / b }'); fi
    awk -v plat="$plat" -v side=$side -v p="$p" -v w="$w" -v ms="$ms" -v np=$natpro -v nl=$natlig -v n=$nposes \
      -v ratio="$ratio" 'BEGIN {
        ops = (p * 27 + nl * (2 + p * 18 + np * (10 + p * 30)) + p) * (n / p)
        printf "%-8s %-9s %5d %6d %10.3f %9.1f %13.3f %9s\n", plat, side, p, w, ms, ops / (ms * 1e-3) / 1e9,
               n * nl * np / (ms * 1e-3) / 1e9, ratio }'
  done
done
echo "(kk/up: upstream time / kk time for the best of each; deck bm1: $nposes poses, $natlig ligand and $natpro protein atoms; logs in $OUT)"
exit $status
