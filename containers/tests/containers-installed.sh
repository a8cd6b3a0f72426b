#!/bin/sh
# containers/tests/containers-installed.sh -- kk-containers installed into a staging root: examples/unordered-map builds against it with pkg-config (kk-containers.pc) and with CMake (find_package(kk COMPONENTS containers), kk::containers), host target, and runs.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
unset MAKEFLAGS MFLAGS
unset KOKKOS_PLUGIN_PATH KOKKOS_DEVICE KOKKOS_CONFIG KOKKOS_TOOLS_LIBS KK_PLUGIN_PATH_NO_DEFAULT KK_PLUGIN_PATH_NO_BUILD_TREE \
  KK_KERNEL_TARGETS KK_PLUGIN_PROBE_HELPER KK_PLUGIN_CACHE_DIR
cflags=${KK_TEST_CFLAGS:--O2} ldflags=${KK_TEST_LDFLAGS:-}
srcdir=$(cd "$top_srcdir" && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-containers-installed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# kk as `make install DESTDIR=...` installs it: the staged install make check makes once, before the
# tests start (tests/stage.stamp in Makefile.am), read here and never written
root=$top_builddir/tests/stage
[ -f "$top_builddir/tests/stage.stamp" ] ||
  { echo "FAIL: no staged install in $root (make check makes it: make tests/stage.stamp)"; exit 1; }
pc=$(find "$root" -name kk-containers.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: kk-containers.pc was not installed"; exit 1; }
prefix=$root$(sed -n 's/^prefix=//p' "$pc")
libdir=$(dirname "$(dirname "$pc")")
bindir=$(dirname "$(find "$root" -name kkcc -type f | head -n 1)")
for f in "$libdir/cmake/kk/kkConfig.cmake" "$libdir/libkk-containers.so.0" "$prefix/include/kk/containers.h" \
  "$prefix/include/kk/unordered_map.h" \
  "$prefix/include/kk/bitset.h" "$prefix/include/kk/unique_token.h" "$prefix/include/kk/dynamic_view.h" \
  "$prefix/include/kk/offset_view.h"; do
  [ -f "$f" ] || fail "make install did not install $f"
done
kkcc="env KKCC_INCLUDEDIR=$prefix/include $bindir/kkcc --targets-dir=$prefix/share/kk/targets"

# 1. pkg-config, by hand: the kernel file with the installed kkcc, the program with the .pc's flags
mkdir "$tmp/pc"
cp "$srcdir/examples/unordered-map/umap.c" "$srcdir/examples/unordered-map/umap.h" "$srcdir/examples/unordered-map/umap.kk.c" "$tmp/pc/"
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$root"
if (cd "$tmp/pc" && $kkcc --targets=host $cflags -c umap.kk.c -o umap.kk.o &&
  ${CC:-cc} $cflags -Wall -Werror $(pkg-config --cflags kk-containers) umap.c umap.kk.o \
    $(pkg-config --libs kk-containers) $ldflags -o umap) >"$tmp/pc.log" 2>&1; then
  out=$(LD_LIBRARY_PATH="$libdir" "$tmp/pc/umap" 2>&1) || fail "the pkg-config-built example failed: $out"
  echo "$out" | grep -q "distinct values .*: ok" || fail "the pkg-config-built example: $out"
else
  cat "$tmp/pc.log"
  fail "examples/unordered-map does not build with pkg-config against the installed kk-containers"
fi

# 2. CMake: the component containers of kk's package gives kk::containers (as kernels and mpi give
# kk::kernels and kk::mpi; no package of its own), kk_add_kernels compiles the kernel file
if ! command -v cmake >/dev/null 2>&1; then
  echo "SKIP: cmake is not installed; the CMake part is not tested"
  exit $([ $status = 0 ] && echo 77 || echo 1)
fi
mkdir "$tmp/cm"
cp "$tmp/pc/umap.c" "$tmp/pc/umap.h" "$tmp/pc/umap.kk.c" "$tmp/cm/"
cat >"$tmp/cm/CMakeLists.txt" <<'EOT'
cmake_minimum_required(VERSION 3.13)
project(umap LANGUAGES C)
find_package(kk 0.1 REQUIRED COMPONENTS containers)
if(NOT TARGET kk::containers OR NOT TARGET kk::kk OR NOT kk_containers_FOUND)
  message(FATAL_ERROR "no kk::containers or kk::kk")
endif()
find_package(kk-containers QUIET)
if(kk-containers_FOUND)
  message(FATAL_ERROR "a CMake package kk-containers besides kk's component containers")
endif()
add_executable(umap umap.c)
kk_add_kernels(umap umap.kk.c TARGETS host)
target_link_libraries(umap PRIVATE kk::containers)
EOT
(cd "$tmp/cm" && cmake -S . -B build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="$cflags" \
  -DCMAKE_EXE_LINKER_FLAGS="$ldflags" && cmake --build build) >"$tmp/cm.log" 2>&1 ||
  { cat "$tmp/cm.log"; fail "examples/unordered-map does not build with CMake against the installed kk-containers"; }
if [ -x "$tmp/cm/build/umap" ]; then
  out=$(LD_LIBRARY_PATH="$libdir" "$tmp/cm/build/umap" 2>&1) || fail "the CMake-built example failed: $out"
  echo "$out" | grep -q "distinct values .*: ok" || fail "the CMake-built example: $out"
fi
[ $status = 0 ] && echo "kk-containers installed: pkg-config and CMake builds run"
exit $status
