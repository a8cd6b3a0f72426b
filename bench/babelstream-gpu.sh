#!/bin/bash
# bench/babelstream-gpu.sh -- bench/babelstream.sh on a GPU machine in one call: the builds, then openmp on every core and on half of them, and cuda, each bounded, with a summary.
#
# usage: bench/babelstream-gpu.sh UPSTREAM [KK_BUILDDIR]
#   UPSTREAM     a BabelStream checkout, or a .tar.gz of one (`git archive --format=tar.gz HEAD`), unpacked into OUT
#   KK_BUILDDIR  a built kk tree with the openmp and cuda plugins (default: the tree this script is in)
# Logs go to $OUT (default /tmp/kk-babelstream-gpu): one folder per step, and summary.txt.  Knobs: ROUNDS (default 3),
# SIZE (default 2^25), CUDA_ARCH (default sm_90), HALF (the second thread count, default nproc / 2).  Steps: the
# builds; openmp on every core, on HALF cores; cuda; then on every core the kk kernels without -march (the host
# recipe of kk alone) and the kk arrays in 2 MiB-aligned memory (KK_BABELSTREAM_ALIGN), and kk's threads backend,
# against the same upstream.  Each step is bounded (timeout): builds 200 + 60 s, openmp 60 s each, cuda 45 s, the
# two variants 45 s each, threads 50 s: 565 s at most.  No timing is judged: the exit status says whether every build and every run (BabelStream's own
# check) passed.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
UP=${1:?usage: bench/babelstream-gpu.sh UPSTREAM [KK_BUILDDIR]}
B=$(cd "${2:-$here/..}" && pwd -P)
OUT=${OUT:-/tmp/kk-babelstream-gpu}
export ROUNDS=${ROUNDS:-3} SIZE=${SIZE:-33554432} CUDA_ARCH=${CUDA_ARCH:-sm_90}
NP=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
HALF=${HALF:-$((NP / 2))}
mkdir -p "$OUT"
# shellcheck source=bench/run-common.sh
. "$here/run-common.sh" # step, note, summary
[ -d /usr/local/cuda/bin ] && PATH="$PATH:/usr/local/cuda/bin"
rc=0

if [ -f "$UP" ]; then
  mkdir -p "$OUT/upstream"
  tar -xzf "$UP" -C "$OUT/upstream" || { echo "cannot unpack $UP"; exit 2; }
  UP="$OUT/upstream"
  # an archive made by `git archive --prefix=DIR/` holds one folder
  [ -f "$UP/CMakeLists.txt" ] || UP=$(dirname "$(find "$OUT/upstream" -maxdepth 2 -name CMakeLists.txt | head -1)")
fi

# one scratch folder (the builds) for every step; each step's table and logs are copied to a folder of its own
work="$OUT/work"
bs() { # name seconds VAR=value...
  local name=$1 secs=$2 s
  shift 2
  step "$name"
  rm -f "$work"/*-native.* "$work"/*-kk.*
  env OUT="$work" "$@" timeout "$secs" "$here/babelstream.sh" "$UP" "$B" 2>&1 | tee "$OUT/$name.txt"
  s=${PIPESTATUS[0]}
  mkdir -p "$OUT/$name"
  cp "$work"/*.log "$OUT/$name/" 2>/dev/null
  note "$name" "$s"
  [ "$s" = 0 ] || rc=1
}

step "host and GPU"
{
  lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|L2|L3|NUMA node0)'
  echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)," \
    "defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "nvcc: $(command -v nvcc || echo none)"
  echo "load: $(cat /proc/loadavg)"
} | tee "$OUT/host.txt"

bs build 200 BUILD_ONLY=yes PLATFORMS="openmp cuda"
bs build-recipe 60 BUILD_ONLY=yes PLATFORMS=openmp KK_HOST_FLAGS=
bs "openmp-$NP" 60 PLATFORMS=openmp OMP_NUM_THREADS="$NP"
bs "openmp-$HALF" 60 PLATFORMS=openmp OMP_NUM_THREADS="$HALF"
bs cuda 45 PLATFORMS=cuda
# what the flags and the allocation are worth on every core: the kk kernels with the host recipe of kk alone
# (no -march), and the kk arrays in 2 MiB-aligned memory as upstream's
bs "openmp-$NP-recipe" 45 PLATFORMS=openmp OMP_NUM_THREADS="$NP" KK_HOST_FLAGS=
bs "openmp-$NP-align2m" 45 PLATFORMS=openmp OMP_NUM_THREADS="$NP" KK_BABELSTREAM_ALIGN=2097152
# kk's threads backend on every core (its workers unbound), against the same upstream
bs "threads-$NP" 50 PLATFORMS=threads OMP_NUM_THREADS="$NP"

step "summary"
{
  printf '%s' "$summary"
  for f in "openmp-$NP" "openmp-$HALF" cuda "openmp-$NP-recipe" "openmp-$NP-align2m" "threads-$NP"; do
    grep -E '^(openmp|cuda|threads) ' "$OUT/$f.txt" 2>/dev/null | sed "s/^/$f: /"
  done
} | tee "$OUT/summary.txt"
exit $rc
