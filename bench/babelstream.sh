#!/bin/bash
# bench/babelstream.sh -- BabelStream's own harness (UoB-HPC/BabelStream) with a kk model (bench/babelstream/) against upstream's OpenMP model (and its CUDA model where nvcc and kk's cuda backend are), built in a scratch folder; prints each kernel's median MB/s of both sides and kk/native (BabelStream's own check decides the exit status, never a timing).
#
# usage: bench/babelstream.sh UPSTREAM_DIR [KK_BUILDDIR]
#   UPSTREAM_DIR  a checkout (or an unpacked archive) of https://github.com/UoB-HPC/BabelStream: its CMakeLists.txt,
#                 cmake/ and src/ are copied into OUT and the kk model added to the copy (never to kk's tree)
#   KK_BUILDDIR   a built kk tree (default: the tree this script is in); it is installed into OUT/kk-root with
#                 `make install DESTDIR=`, and the kk model is built on that installation's CMake package as a
#                 user's program would be (find_package(kk), kk_add_kernels)
# Environment:
#   OUT        scratch folder for the copies, the builds and the logs (default /tmp/kk-babelstream-bench)
#   SIZE       elements per array (default 33554432 = 2^25, BabelStream's default)
#   NUMTIMES   BabelStream's --numtimes (default 100, its default); each run reports the best of these
#   ROUNDS     runs of each side per platform, the side going first alternating (default 3); the table has
#              the median of each side's runs
#   PLATFORMS  which of openmp, threads, cuda to run (default "openmp cuda"; cuda where nvcc is on PATH and kk's
#              cuda backend has a device); openmp and threads both run against upstream's OpenMP model
#   ONLY       BabelStream's --only (default All: copy, mul, add, triad, dot and nstream; Classic leaves out nstream)
#   BS_ARGS    more arguments for every run of both sides (e.g. --float)
#   OMP_NUM_THREADS, OMP_PROC_BIND, OMP_PLACES
#              the threads and their binding, the same for both sides (defaults: every core, spread, cores);
#              kk's threads backend gets KOKKOS_NUM_THREADS=OMP_NUM_THREADS
#   HOST_FLAGS the host code generation flags of both sides (default -march=native, upstream's own default):
#              upstream's RELEASE_FLAGS are -O3 HOST_FLAGS, and kkcc gets HOST_FLAGS for the kernels (kk's host
#              recipe has -O3 already)
#   KK_HOST_FLAGS
#              the kk kernels' flags instead of HOST_FLAGS (empty: kk's host recipe alone), to see what the flags
#              are worth; built in a folder of their own
#   KK_BABELSTREAM_ALIGN
#              (read by the kk model) on a host backend, the arrays in memory of this alignment (bytes; upstream's
#              OpenMP model uses 2097152) instead of kk's views' own, to see what the allocation is worth
#   CUDA_ARCH  the CUDA architecture of both sides (default sm_90)
#   TIMEOUT    seconds allowed to each build and each run (default 300)
#   BUILD_ONLY yes: build and stop (a later call reuses the builds)
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u -o pipefail
up=$(realpath "${1:?usage: bench/babelstream.sh UPSTREAM_DIR [KK_BUILDDIR]}")
here=$(cd "$(dirname "$0")" && pwd -P)
kk=$(realpath "${2:-$here/..}")
OUT=${OUT:-/tmp/kk-babelstream-bench}
SIZE=${SIZE:-33554432}
NUMTIMES=${NUMTIMES:-100}
ROUNDS=${ROUNDS:-3}
PLATFORMS=${PLATFORMS:-openmp cuda}
ONLY=${ONLY:-All}
BS_ARGS=${BS_ARGS:-}
HOST_FLAGS=${HOST_FLAGS:--march=native}
KK_HOST_FLAGS=${KK_HOST_FLAGS-$HOST_FLAGS}
CUDA_ARCH=${CUDA_ARCH:-sm_90}
TIMEOUT=${TIMEOUT:-300}
# (GNU nproc answers OMP_NUM_THREADS when it is set: the CPUs come from a call without it)
ncpu=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$ncpu}
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-cores}
model="$here/babelstream"

for f in CMakeLists.txt src/main.cpp src/StreamModels.h src/omp/OMPStream.cpp; do
  [ -f "$up/$f" ] || { echo "no $up/$f: UPSTREAM_DIR must be a BabelStream checkout"; exit 2; }
done
[ -f "$model/KKStream.cpp" ] || { echo "no $model/KKStream.cpp: run the script from kk's source tree"; exit 2; }
[ -x "$kk/tools/kkcc/kkcc" ] || { echo "no $kk/tools/kkcc/kkcc: build kk first (make)"; exit 2; }
command -v cmake >/dev/null || { echo "no cmake on PATH"; exit 2; }
mkdir -p "$OUT"
status=0

# NEW replaces OLD unless both hold the same files: a later call on the same sources keeps the earlier copies and
# their times, so that the builds below (incremental) have nothing to redo
settle() { # new old
  if [ -d "$2" ] && diff -r -q "$1" "$2" >/dev/null 2>&1; then rm -rf "$1"; else rm -rf "$2" && mv "$1" "$2"; fi
}

# kk installed as a user has it: headers, libkk, kkcc and its recipes, the CMake package, the plugins
root="$OUT/kk-root"
rm -rf "$root.new"
timeout "$TIMEOUT" make -s -C "$kk" install DESTDIR="$root.new" >"$OUT/kk-install.log" 2>&1 ||
  { echo "make install of $kk failed: see $OUT/kk-install.log"; exit 1; }
settle "$root.new" "$root"
kkcfg=$(find "$root" -name kkConfig.cmake | head -1)
[ -n "$kkcfg" ] || { echo "no kkConfig.cmake in $root"; exit 1; }
kklib=$(dirname "$(dirname "$(dirname "$kkcfg")")")
# the installed libkk looks for plugins in its configured directory, which a DESTDIR installation is not in
export KOKKOS_PLUGIN_PATH="$kklib/kk/plugins"
export LD_LIBRARY_PATH="$kklib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
kkinfo=$(find "$root" -name kk-info -type f | head -1)
probe=$(find "$root" -name kk-plugin-probe -type f | head -1)
[ -n "$probe" ] && export KK_PLUGIN_PROBE_HELPER="$probe"

# upstream's sources with the kk model registered: src/kk/, one register_model line, and a StreamModels.h that
# makes a KKStream when KK_BABELSTREAM is defined and is upstream's own otherwise
src="$OUT/src.new"
rm -rf "$src"
mkdir -p "$src"
cp -R -p "$up/CMakeLists.txt" "$up/cmake" "$up/src" "$src/" || { echo "copying $up failed"; exit 1; }
mkdir -p "$src/src/kk"
cp -p "$model/KKStream.h" "$model/KKStream.cpp" "$model/kk_stream.h" "$model/kk_stream.kk.c" "$model/model.cmake" "$src/src/kk/"
grep -q '^register_model(omp ' "$src/CMakeLists.txt" ||
  { echo "$up/CMakeLists.txt has no register_model(omp ...) line to add the kk model after"; exit 1; }
sed -i '/^register_model(omp /a register_model(kk KK_BABELSTREAM KKStream.cpp)' "$src/CMakeLists.txt"
mv "$src/src/StreamModels.h" "$src/src/StreamModels.upstream.h"
cat >"$src/src/StreamModels.h" <<'EOF'
// the kk model beside upstream's (added by kk's bench/babelstream.sh)
#pragma once
#include <memory>
#if defined(KK_BABELSTREAM)
#include "KKStream.h"
template <typename T, typename... Args>
std::unique_ptr<Stream<T>> make_stream(Args... args) { return std::make_unique<KKStream<T>>(args...); }
#else
#include "StreamModels.upstream.h"
#endif
EOF
settle "$src" "$OUT/src"
src="$OUT/src"

# (each call configures and builds again: CMake and make redo only what changed)
build() { # model dir cmake-args...
  local m=$1 dir=$2
  shift 2
  { timeout "$TIMEOUT" cmake -S "$src" -B "$dir" -DMODEL="$m" -DCMAKE_BUILD_TYPE=Release "$@" &&
    timeout "$TIMEOUT" cmake --build "$dir" -j "$ncpu"; } >"$dir.log" 2>&1 ||
    { echo "the $m model's build failed: see $dir.log"; status=1; return 1; }
}

cuda_ok=0
if command -v nvcc >/dev/null && "$kkinfo" --kokkos-device=cuda >/dev/null 2>&1; then cuda_ok=1; fi
for p in $PLATFORMS; do
  case $p in openmp | threads | cuda) ;; *) echo "unknown platform $p (openmp, threads, cuda)"; exit 2 ;; esac
done
case " $PLATFORMS " in *" openmp "* | *" threads "*) host=1 ;; *) host=0 ;; esac
case " $PLATFORMS " in *" cuda "*) [ $cuda_ok = 1 ] || echo "cuda: no nvcc or no usable CUDA device: skipped" ;; esac
case " $PLATFORMS " in *" cuda "*) want_cuda=$cuda_ok ;; *) want_cuda=0 ;; esac

# kk's kernels get the host flags and the CUDA architecture of upstream's builds (other flags: another folder)
kkflags="$KK_HOST_FLAGS"
kkdir="$OUT/kk"
[ "$KK_HOST_FLAGS" = "$HOST_FLAGS" ] || kkdir="$OUT/kk-flags-$(printf %s "$KK_HOST_FLAGS" | cksum | cut -d' ' -f1)"
# (the cuda image wherever it can run, whatever PLATFORMS says, so that every call builds the same model)
[ $cuda_ok = 1 ] && kkflags="$kkflags;--cuda-arch=$CUDA_ARCH"
targets="host"
[ $cuda_ok = 1 ] && targets="host;cuda"
build kk "$kkdir" -Dkk_DIR="$(dirname "$kkcfg")" -DKK_KKCC_FLAGS="$kkflags" -DKK_KERNEL_TARGETS="$targets" \
  -DRELEASE_FLAGS="-O3;$HOST_FLAGS"
[ $host = 1 ] && build omp "$OUT/omp" -DRELEASE_FLAGS="-O3;$HOST_FLAGS"
if [ $want_cuda = 1 ]; then
  # upstream's CUDA model prints the memory clock through NVML: it needs the toolkit's nvml.h, and links
  # -lnvidia-ml, which the toolkit's stubs folder has where the driver's development files are not installed
  cuda_home=$(dirname "$(dirname "$(realpath "$(command -v nvcc)")")")
  [ -f "$cuda_home/include/nvml.h" ] || [ -f /usr/include/nvml.h ] ||
    echo "cuda: no nvml.h in $cuda_home/include: upstream's CUDA model will not build (it needs the toolkit's NVML headers)"
  stubs=()
  [ -f "$cuda_home/lib64/stubs/libnvidia-ml.so" ] && stubs=(-DCXX_EXTRA_LINK_FLAGS="-L$cuda_home/lib64/stubs")
  build cuda "$OUT/cuda" -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" -DCUDA_ARCH="$CUDA_ARCH" "${stubs[@]}"
fi
if [ -n "${BUILD_ONLY:-}" ]; then echo "BUILD_ONLY: the builds are in $OUT (status $status)"; exit $status; fi

echo "BabelStream: kk $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo "(not a git checkout)") against upstream" \
  "$(git -C "$up" rev-parse --short HEAD 2>/dev/null || echo "(not a git checkout)"), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $ncpu CPUs;" \
  "OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES;" \
  "transparent huge pages: $(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
if [ $want_cuda = 1 ] && command -v nvidia-smi >/dev/null; then
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
fi
echo "arrays of $SIZE elements, --numtimes $NUMTIMES --only $ONLY${BS_ARGS:+ $BS_ARGS}, $ROUNDS rounds; host flags $HOST_FLAGS" \
  "(the kk kernels: ${KK_HOST_FLAGS:-the host recipe of kk alone})${KK_BABELSTREAM_ALIGN:+; the kk arrays aligned to $KK_BABELSTREAM_ALIGN bytes}"

# one run, its output in LOG: its CSV rows "Kernel MB/s" appended to ROWS (nothing when BabelStream's check
# failed or the run did not end)
run() { # label binary rows log [VAR=value...]
  local label=$1 bin=$2 rows=$3 log=$4 rc
  shift 4
  # shellcheck disable=SC2086 # BS_ARGS is an argument list
  env "$@" timeout "$TIMEOUT" "$bin" --arraysize "$SIZE" --numtimes "$NUMTIMES" --only "$ONLY" --csv $BS_ARGS >"$log" 2>&1
  rc=$?
  if [ $rc != 0 ]; then
    echo "$label: exit status $rc$([ $rc = 124 ] && echo " (timed out)"): see $log"
    status=1
    return
  fi
  awk -F, '$1 ~ /^(Copy|Mul|Add|Triad|Dot|Nstream)$/ { print $1, $5 }' "$log" >>"$rows"
}

# the median of each kernel's MB/s over the runs in a file of "Kernel MB/s" rows, as "Kernel median" rows
median() {
  sort -k1,1 -k2,2g "$1" 2>/dev/null | awk '{ v[$1] = v[$1] " " $2; n[$1]++ }
    END { for (k in v) { split(substr(v[k], 2), a, " "); m = n[k];
            print k, (m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2) } }'
}

table() { # platform native-file kk-file native-name
  printf '\n%-8s %-8s %14s %14s %9s\n' platform kernel "$4 MB/s" "kk MB/s" kk/native
  local k nat kkv
  for k in Copy Mul Add Triad Dot Nstream; do
    nat=$(median "$2" | awk -v k=$k '$1 == k { print $2 }')
    kkv=$(median "$3" | awk -v k=$k '$1 == k { print $2 }')
    [ -n "$nat$kkv" ] || continue
    awk -v p="$1" -v k=$k -v a="${nat:--}" -v b="${kkv:--}" 'BEGIN {
      r = (a != "-" && b != "-" && a > 0) ? sprintf("%.3f", b / a) : "-"
      printf "%-8s %-8s %14s %14s %9s\n", p, k, a, b, r }'
  done
}

tables=()
for p in $PLATFORMS; do
  case $p in
    openmp | threads) nat="$OUT/omp/omp-stream" natname=omp dev=$p ;;
    cuda) [ $want_cuda = 1 ] || continue; nat="$OUT/cuda/cuda-stream" natname=cuda dev=cuda ;;
  esac
  rm -f "$OUT/$p-native" "$OUT/$p-kk"
  touch "$OUT/$p-native" "$OUT/$p-kk"
  for r in $(seq 1 "$ROUNDS"); do
    # the side going first alternates, so that a slow stretch of a shared machine does not land on one side only
    for side in $( ((r % 2)) && echo "native kk" || echo "kk native"); do
      if [ "$side" = native ] && [ -x "$nat" ]; then
        run "$p: upstream $natname, round $r" "$nat" "$OUT/$p-native" "$OUT/$p-native.$r.log"
      elif [ "$side" = kk ] && [ -x "$kkdir/kk-stream" ]; then
        run "$p: kk, round $r" "$kkdir/kk-stream" "$OUT/$p-kk" "$OUT/$p-kk.$r.log" \
          KOKKOS_DEVICE="$dev" KOKKOS_NUM_THREADS="$OMP_NUM_THREADS"
      fi
    done
  done
  tables+=("$(table "$p" "$OUT/$p-native" "$OUT/$p-kk" "$natname")")
done
for t in "${tables[@]}"; do echo "$t"; done
echo
echo "logs in $OUT; exit status $status (BabelStream's own check of each run, the builds; timings decide nothing)"
exit $status
