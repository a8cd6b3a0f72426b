#!/bin/bash
# maint/kokkos-kit.sh -- builds the upstream Kokkos versions of CloverLeaf and miniBUDE against Kokkos 4.6.01 (OpenMP host, and CUDA sm_90 with a Serial host space), static Kokkos and static CUDA runtime, on a machine without a GPU, and packs them for the GPU machine (bench/cloverleaf.sh and bench/minibude.sh run them with KOKKOS_BIN; docs/benchmarks.md).
#
# usage: maint/kokkos-kit.sh KOKKOS CLOVERLEAF_DIR MINIBUDE_DIR [KIT]
#   KOKKOS          a Kokkos git directory (a clone or a mirror; tag 4.6.01 is taken) or a source tree of 4.6.01
#   CLOVERLEAF_DIR  a copy of https://github.com/UoB-HPC/CloverLeaf (its kokkos model)
#   MINIBUDE_DIR    a copy of https://github.com/UoB-HPC/miniBUDE (its kokkos model)
#   KIT             where everything goes (default /work/kokkos-kit): src/, build/, kokkos-openmp/, kokkos-cuda/
#                   (the two Kokkos installs), bin/ (the four programs) and kokkos-apps.txz (bin/ plus a README)
# Environment: CUDA (default /usr/local/cuda), JOBS (default 2), NICE (default 10); CLOVERLEAF_COMMIT and
# MINIBUDE_COMMIT name the upstream commits in the kit's README where the copies are not git checkouts.
# Every step that has its result already is skipped, so the script can be run again after a failure.
#
# Kokkos 4.6.01 is the newest release; it does not compile with CUDA 13 as it is (CUDA 13 changed the
# signatures of cudaGraphAddDependencies, cudaMemAdvise and cudaMemPrefetchAsync), so the patches in
# maint/kokkos-patches/ are applied to the copy under KIT/src (never to the KOKKOS source given):
#   kokkos-4.6.01-cuda13.patch          the three calls in CUDA 13's spelling (CUDART_VERSION >= 13000 only)
#   kokkos-4.6.01-cudart-static.patch   link the static CUDA runtime (CUDA::cudart_static), so the programs
#                                       need only libcuda.so.1 of the driver on the GPU machine
#   kokkos-4.6.01-nvcc-wrapper-sm90.patch  nvcc_wrapper's default architecture sm_70 -> sm_90 (CUDA 13's nvcc
#                                       has no sm_70, and CMake's compiler test runs before Kokkos' options)
# The applications' own CMake models take a Kokkos *source* tree (KOKKOS_IN_TREE); here they get a small
# directory whose CMakeLists.txt finds the installed Kokkos instead (find_package with global targets), so
# Kokkos is compiled once per back end, not once per application.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
KOKKOS=$(realpath "${1:?usage: maint/kokkos-kit.sh KOKKOS CLOVERLEAF_DIR MINIBUDE_DIR [KIT]}")
CL=$(realpath "${2:?usage: maint/kokkos-kit.sh KOKKOS CLOVERLEAF_DIR MINIBUDE_DIR [KIT]}")
BUDE=$(realpath "${3:?usage: maint/kokkos-kit.sh KOKKOS CLOVERLEAF_DIR MINIBUDE_DIR [KIT]}")
KIT=${4:-/work/kokkos-kit}
CUDA=${CUDA:-/usr/local/cuda}
JOBS=${JOBS:-2}
NICE=${NICE:-10}
VERSION=4.6.01
export PATH="$CUDA/bin:$PATH"
mkdir -p "$KIT/src" "$KIT/build" "$KIT/bin"
KIT=$(realpath "$KIT")
S="$KIT/src/kokkos-$VERSION"
say() { echo "kokkos-kit: $*"; }
run() { # log command...: the command's output goes to the log; its tail is shown on failure
  local log=$1
  shift
  if ! nice -n "$NICE" "$@" >>"$log" 2>&1; then
    tail -n 30 "$log"
    say "failed: $* (log: $log)"
    exit 1
  fi
}

# 1. the source, patched
if [ ! -f "$S/.kk-patched" ]; then
  rm -rf "$S"
  if [ -f "$KOKKOS/CMakeLists.txt" ]; then
    cp -R "$KOKKOS" "$S"
  else
    mkdir -p "$S"
    git --git-dir="$(git -C "$KOKKOS" rev-parse --absolute-git-dir 2>/dev/null || echo "$KOKKOS")" archive "$VERSION" | tar -x -C "$S"
  fi
  grep -q "Kokkos_VERSION_MINOR 6)" "$S/CMakeLists.txt" && grep -q "Kokkos_VERSION_PATCH 1)" "$S/CMakeLists.txt" ||
    { say "$KOKKOS is not Kokkos $VERSION"; exit 1; }
  for p in "$here"/kokkos-patches/kokkos-$VERSION-*.patch; do
    patch -d "$S" -p1 --forward <"$p" >/dev/null || { say "patch $p does not apply"; exit 1; }
  done
  touch "$S/.kk-patched"
fi

# 2. Kokkos: CUDA (sm_90, Serial host space) and OpenMP, static, Release, no tests
kokkos() { # name cmake-args...
  local name=$1
  shift
  [ -f "$KIT/kokkos-$name/include/Kokkos_Core.hpp" ] && return 0
  say "building Kokkos $VERSION ($name): minutes"
  rm -rf "$KIT/build/kokkos-$name"
  run "$KIT/build/$name-cmake.log" cmake -S "$S" -B "$KIT/build/kokkos-$name" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=OFF -DKokkos_ENABLE_TESTS=OFF \
    -DCMAKE_INSTALL_PREFIX="$KIT/kokkos-$name" "$@"
  run "$KIT/build/$name-build.log" cmake --build "$KIT/build/kokkos-$name" -j "$JOBS"
  run "$KIT/build/$name-build.log" cmake --install "$KIT/build/kokkos-$name"
}
kokkos cuda -DCMAKE_CXX_COMPILER="$S/bin/nvcc_wrapper" -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON \
  -DKokkos_ARCH_HOPPER90=ON -DKokkos_ENABLE_CUDA_CONSTEXPR=ON
kokkos openmp -DCMAKE_CXX_COMPILER=g++ -DKokkos_ENABLE_OPENMP=ON

# 3. the applications' kokkos models against the installs (a shim stands for the Kokkos source tree)
mkdir -p "$KIT/shim"
cat >"$KIT/shim/CMakeLists.txt" <<'EOF'
# Stands for a Kokkos source tree in the mini-apps' KOKKOS_IN_TREE: finds the installed Kokkos (Kokkos_ROOT)
# with targets visible to the whole project, as add_subdirectory of the source would make them.
cmake_minimum_required(VERSION 3.24)
set(CMAKE_FIND_PACKAGE_TARGETS_GLOBAL ON)
find_package(Kokkos REQUIRED CONFIG)
message(STATUS "Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR}, devices: ${Kokkos_DEVICES}")
EOF
app() { # app-dir binary-name backend out-name [extra-cmake-args]
  local dir=$1 bin=$2 be=$3 out=$4 cxx=g++
  shift 4
  [ -x "$KIT/bin/$out" ] && return 0
  [ "$be" = cuda ] && cxx="$KIT/kokkos-cuda/bin/nvcc_wrapper"
  say "building $out"
  rm -rf "$KIT/build/$out"
  run "$KIT/build/$out.log" cmake -S "$dir" -B "$KIT/build/$out" -DMODEL=kokkos -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$cxx" -DKOKKOS_IN_TREE="$KIT/shim" -DKokkos_ROOT="$KIT/kokkos-$be" "$@"
  run "$KIT/build/$out.log" cmake --build "$KIT/build/$out" -j "$JOBS"
  cp "$KIT/build/$out/$bin" "$KIT/bin/$out"
  strip "$KIT/bin/$out"
}
app "$CL" kokkos-cloverleaf openmp kokkos-cloverleaf-omp
app "$BUDE" kokkos-bude openmp kokkos-bude-omp
# the host versions once more for AVX-512 CPUs (x86-64-v4): the benchmarks take these where kk's host
# kernels are built for the machine's CPU (--with-host-arch) and the CPU has AVX-512
app "$CL" kokkos-cloverleaf openmp kokkos-cloverleaf-omp-avx512 -DCXX_EXTRA_FLAGS=-march=x86-64-v4
app "$BUDE" kokkos-bude openmp kokkos-bude-omp-avx512 -DCXX_EXTRA_FLAGS=-march=x86-64-v4
app "$CL" kokkos-cloverleaf cuda kokkos-cloverleaf-cuda
app "$BUDE" kokkos-bude cuda kokkos-bude-cuda

# 4. only the C/C++ runtime, OpenMP and the CUDA driver may be shared libraries
for f in "$KIT"/bin/kokkos-*; do
  extra=$(ldd "$f" | awk '{ print $1 }' |
    grep -Ev '^(linux-vdso|/lib64/ld-linux|libc\.so|libm\.so|libstdc\+\+\.so|libgcc_s\.so|libgomp\.so|libcuda\.so|libdl\.so|librt\.so|libpthread\.so)' || true)
  [ -z "$extra" ] || { say "$f needs $extra"; exit 1; }
done

# 5. the archive the GPU machine gets
commit() { git -C "$1" rev-parse --short HEAD 2>/dev/null || echo "unknown"; }
cat >"$KIT/README" <<EOF
Upstream Kokkos versions of CloverLeaf (${CLOVERLEAF_COMMIT:-$(commit "$CL")}) and miniBUDE (${MINIBUDE_COMMIT:-$(commit "$BUDE")}), built $(date -u +%FT%TZ)
by kk's maint/kokkos-kit.sh against Kokkos $VERSION (patched for CUDA 13: maint/kokkos-patches/),
$(g++ --version | head -1), $(nvcc --version | tail -1).
  bin/kokkos-cloverleaf-omp   Kokkos OpenMP (baseline x86-64, no -march)
  bin/kokkos-cloverleaf-cuda  Kokkos CUDA sm_90 (HOPPER90), Serial host space, static CUDA runtime
  bin/kokkos-cloverleaf-omp-avx512  Kokkos OpenMP with -march=x86-64-v4 (AVX-512 CPUs)
  bin/kokkos-bude-omp, bin/kokkos-bude-omp-avx512, bin/kokkos-bude-cuda   the same for miniBUDE
Run them through bench/cloverleaf.sh and bench/minibude.sh with KOKKOS_BIN=<this folder>/bin.
EOF
tar -C "$KIT" -cJf "$KIT/kokkos-apps.txz" README bin
say "$KIT/kokkos-apps.txz: $(du -h "$KIT/kokkos-apps.txz" | cut -f1)"
