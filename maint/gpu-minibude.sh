#!/bin/bash
# maint/gpu-minibude.sh -- on a CUDA machine, in one call of under 240 s: miniBUDE's checks on cuda (tests/minibude.sh), then bm1 on kk against the upstream CUDA version (bench/minibude.sh, both loop forms of kk), and the best of each of kk's loop forms, printing kk/upstream.
#
# usage: maint/gpu-minibude.sh MINIBUDE [BUILDDIR]
#   MINIBUDE  a copy of https://github.com/UoB-HPC/miniBUDE (the machine has no network: bring it), either a folder
#             or a .tgz/.tar.gz of one (unpacked into $OUT; bytes before the archive's first tar header, such as
#             a message a tool wrote into the same stream, are skipped)
#   BUILDDIR  a kk tree built with --enable-cuda=yes --with-cuda-archs=sm_90 (default: the tree this script is in)
# Environment:
#   OUT        logs and the summary (default /tmp/kk-gpu-minibude); summary.txt is the summary
#   CUDA_ARCH  the upstream build's architecture (default sm_90)
#   PPWI       both sides' poses-per-work-item sweep (default 1,2,4,8: the larger ones are slower on bm1 on both
#              sides, and leaving them out keeps the call short); ITERS (default 8), ROUNDS (default 2)
# Parts and their limits: the upstream CUDA build (60 s; about 10 s on 2 cores) and tests/minibude.sh (60 s) at
# once, then bench/minibude.sh on cuda (130 s), then the loop-form table from its logs: 195 s at the very most.
# No timing is judged: the figures go to docs/benchmarks.md.  Exit status 1 when a part failed or timed out.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
usage="usage: maint/gpu-minibude.sh MINIBUDE [BUILDDIR]"
src=$(realpath "${1:?$usage}")
B=$(realpath "${2:-$(dirname "$0")/..}")
OUT=${OUT:-/tmp/kk-gpu-minibude}
export CUDA_ARCH=${CUDA_ARCH:-sm_90}
PPWI=${PPWI:-1,2,4,8}
ITERS=${ITERS:-8}
ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT"
T0=$(date +%s)
status=0
sum() { echo "$*" | tee -a "$OUT/summary.txt"; }
note() { # name rc
  case $2 in
    0) sum "   $1: PASS" ;;
    124 | 137) sum "   $1: TIMEOUT"; status=1 ;;
    *) sum "   $1: FAIL (rc=$2)"; status=1 ;;
  esac
}
: >"$OUT/summary.txt"
sum "== $(date -u +%FT%TZ) device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo "no nvidia-smi"), $(nproc) cores; kk $(git -C "$B" rev-parse --short HEAD 2>/dev/null || echo "(not a git tree)")"

# the upstream sources: a folder, or an archive unpacked from its first tar header on
up=$src
if [ -f "$src" ]; then
  up="$OUT/minibude-src"
  rm -rf "$up" && mkdir -p "$up"
  hdr=$(gzip -dc "$src" | grep -a -b -o -m1 ustar | head -1 | cut -d: -f1)
  if [ -z "$hdr" ] || [ "$hdr" -lt 257 ]; then
    sum "no tar archive in $src"
    exit 2
  fi
  gzip -dc "$src" | tail -c +$((hdr - 257 + 1)) | tar -x -C "$up" 2>"$OUT/unpack.err"
  # an archive made by git archive may hold one top folder
  [ -f "$up/CMakeLists.txt" ] || up=$(dirname "$(find "$up" -maxdepth 2 -name CMakeLists.txt | head -1)")
fi
if [ ! -f "$up/data/bm1/poses.in" ] || [ ! -f "$up/src/cuda/fasten.hpp" ]; then
  sum "no miniBUDE sources with data/bm1 in $src"
  exit 2
fi
cd "$B" || exit 2
[ -x examples/minibude/minibude ] || { sum "no built kk in $B (examples/minibude/minibude)"; exit 2; }
export top_builddir=$B top_srcdir=$B KK_PLUGIN_PATH_NO_DEFAULT=1 KOKKOS_PLUGIN_PATH=$B/plugins/.libs

# 1. the upstream CUDA build in the background, while the checks run
BUILD_ONLY=yes OUT="$OUT/bench" PLATFORMS=cuda TIMEOUT=50 timeout 60 bash bench/minibude.sh "$up" "$B" \
  >"$OUT/upstream-build.txt" 2>&1 &
pb=$!
timeout 60 sh tests/minibude.sh >"$OUT/tests-minibude.txt" 2>&1
note "tests/minibude.sh ($OUT/tests-minibude.txt: $(grep '^ran on:' "$OUT/tests-minibude.txt"))" $?
grep -q '^ran on:.* cuda' "$OUT/tests-minibude.txt" 2>/dev/null ||
  { sum "   tests/minibude.sh did not run on cuda"; status=1; }
wait $pb
note "upstream CUDA build ($OUT/upstream-build.txt)" $?
sum "   (+$(($(date +%s) - T0)) s)"

# 2. the bench on cuda alone: kk's sweep takes both loop forms (LOOPS=all)
OUT="$OUT/bench" PLATFORMS=cuda PPWI="$PPWI" ITERS="$ITERS" ROUNDS="$ROUNDS" LOOPS=all TIMEOUT=$((130 / 2 / ROUNDS)) \
  timeout 130 bash bench/minibude.sh "$up" "$B" >"$OUT/bench-cuda.txt" 2>&1
note "bench/minibude.sh on cuda ($OUT/bench-cuda.txt)" $?
sed -n '/^platform/,$p' "$OUT/bench-cuda.txt" | tee -a "$OUT/summary.txt"
sum "   kk/upstream is the vs-kk column of the upstream row (upstream's time over kk's; above 1: kk faster)"

# 3. kk's best per loop form, from the bench's kk logs (CSV rows: ppwi,wgsize,avg_ms,...,valid,loop)
sum "== kk's best per loop form (all rounds)"
cat "$OUT"/bench/cuda-kk.*.log 2>/dev/null | awk -F, 'NF == 9 && $8 == 1 && $1 ~ /^[0-9]+$/ {
    if (!($9 in best) || $3 + 0 < best[$9] + 0) { best[$9] = $3; at[$9] = "ppwi " $1 ", wgsize " $2 } }
  END { for (l in best) printf "   %-9s %9.4f ms  (%s)\n", l, best[l], at[l] }' | sort | tee -a "$OUT/summary.txt"
sum "== done in $(($(date +%s) - T0)) s, status $status"
exit $status
