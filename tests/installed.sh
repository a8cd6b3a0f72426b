#!/bin/sh
# tests/installed.sh -- kk installed into a staging root (make install DESTDIR=...): it never searches this build tree, examples/axpy builds against it with CMake (find_package, kk::kk, kk_add_kernels) and runs, examples/poisson, examples/cg-mpi and examples/cell-list build on kk::kernels, kk::mpi and kk::algorithms where those libraries were built, and its kkcc builds a kernel file that includes the C headers for every installed target.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
unset MAKEFLAGS MFLAGS  # the sub-makes below are independent builds
unset KOKKOS_PLUGIN_PATH KOKKOS_DEVICE KOKKOS_CONFIG KOKKOS_TOOLS_LIBS KOKKOS_PROFILE_LIBRARY KK_PLUGIN_PATH_NO_DEFAULT \
  KK_PLUGIN_PATH_NO_BUILD_TREE KK_KERNEL_TARGETS
# the suite's probe helper and cache are the build tree's: an installed kk uses its own
unset KK_PLUGIN_PROBE_HELPER KK_PLUGIN_CACHE_DIR
# programs built against this kk take its compiler flags (a sanitizer build's libkk needs sanitized programs)
cflags=${KK_TEST_CFLAGS:--O2} ldflags=${KK_TEST_LDFLAGS:-}
tree=$(cd "$top_builddir" && pwd -P)
srcdir=$(cd "$top_srcdir" && pwd -P)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk-installed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# kk as `make install DESTDIR=...` installs it: the staged install make check makes once, before the
# tests start (tests/stage.stamp in Makefile.am), read here and never written
root=$top_builddir/tests/stage
[ -f "$top_builddir/tests/stage.stamp" ] ||
  { echo "FAIL: no staged install in $root (make check makes it: make tests/stage.stamp)"; exit 1; }
pc=$(find "$root" -name kk.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: kk.pc was not installed"; exit 1; }
prefix=$root$(sed -n 's/^prefix=//p' "$pc")
libdir=$(dirname "$(dirname "$pc")")
bindir=$(dirname "$(find "$root" -name kk-info -type f | head -n 1)")
cmakedir=$libdir/cmake/kk
for f in "$cmakedir/kkConfig.cmake" "$cmakedir/kkConfigVersion.cmake" "$bindir/kkcc" "$libdir/libkk.so.0"; do
  [ -f "$f" ] || fail "make install did not install $f"
done

# 1. The installed kk-info, on the installed libkk, with the build tree still there.
LD_LIBRARY_PATH="$libdir" "$bindir/kk-info" >"$tmp/info" 2>&1 || { cat "$tmp/info"; fail "the installed kk-info failed"; }
grep -qxF "  libkk $libdir/libkk.so.0" "$tmp/info" || { cat "$tmp/info"; fail "the installed kk-info did not run on the installed libkk"; }
# (the staged root is inside the tree: a path in it is the installed kk's)
if grep -F -v "$root/" "$tmp/info" | grep -F -e "$tree" -e "(build tree)"; then
  fail "the installed libkk searches the build tree"
fi

# 2. examples/axpy with its Makefile (pkg-config), copied out of the tree as a user would, host target only.
mkdir "$tmp/make"
cp "$srcdir/examples/axpy/axpy.c" "$srcdir/examples/axpy/axpy.h" "$srcdir/examples/axpy/axpy.kk.c" \
  "$srcdir/examples/axpy/Makefile" "$tmp/make/"
PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$root" ${MAKE:-make} -s -C "$tmp/make" \
  KKCC="env KKCC_INCLUDEDIR=$prefix/include $bindir/kkcc --targets-dir=$prefix/share/kk/targets" \
  KKFLAGS=--targets=host CFLAGS="$cflags -Wall -Werror" LDFLAGS="$ldflags" >"$tmp/make.log" 2>&1 ||
  { cat "$tmp/make.log"; fail "examples/axpy/Makefile does not build against the installed kk"; }
# The staged libkk's installed plugin directory is the configured prefix's, not the staging root's: empty, or
# what a `make install` before `make check` put there. So the program runs on whichever backend it finds ...
out=$(LD_LIBRARY_PATH="$libdir" "$tmp/make/axpy" 1000 2>&1) || { echo "$out"; fail "the make-built axpy failed"; }
echo "$out" | grep -q "^axpy on [a-z0-9_]*: n = 1000, correct" || { echo "$out"; fail "the make-built axpy: no correct result"; }
# ... and, with the installed directories skipped on purpose and no plugin path, on serial (built into libkk).
out=$(KK_PLUGIN_PATH_NO_DEFAULT=1 LD_LIBRARY_PATH="$libdir" "$tmp/make/axpy" 1000 2>&1) ||
  { echo "$out"; fail "the make-built axpy failed without plugins"; }
echo "$out" | grep -q "^axpy on serial: n = 1000, correct" || { echo "$out"; fail "the make-built axpy did not run on serial without plugins"; }
# examples/poisson with its Makefile (pkg-config kk-kernels), where libkk-kernels was built
have_kernels=no have_mpi=no have_algorithms=no
[ -f "$libdir/libkk-kernels.so" ] && have_kernels=yes
[ -f "$libdir/libkk-algorithms.so" ] && have_algorithms=yes
[ -f "$libdir/libkk-mpi.so" ] && have_mpi=yes
if [ $have_kernels = yes ]; then
  mkdir "$tmp/poisson-make"
  cp "$srcdir/examples/poisson/poisson.c" "$srcdir/examples/poisson/Makefile" "$tmp/poisson-make/"
  PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$root" ${MAKE:-make} -s -C "$tmp/poisson-make" \
    CFLAGS="$cflags -Wall -Werror" LDFLAGS="$ldflags" >"$tmp/poisson-make.log" 2>&1 ||
    { cat "$tmp/poisson-make.log"; fail "examples/poisson/Makefile does not build against the installed kk-kernels"; }
  out=$(LD_LIBRARY_PATH="$libdir" "$tmp/poisson-make/poisson" 200 2>&1) || { echo "$out"; fail "the make-built poisson failed"; }
  echo "$out" | grep -q "^poisson on [a-z0-9_]*: n = 200, .*, correct" || { echo "$out"; fail "the make-built poisson: no correct result"; }
else
  echo "libkk-kernels was not installed (configured --disable-kernels): examples/poisson not built"
fi
# examples/fortran/cg.f90 against the installed module kk and libkk-fortran (pkg-config kk-fortran), where built
if [ -f "$libdir/libkk-fortran.so" ]; then
  fc=$(sed -n 's/^Description: .*built for //p' "$libdir/pkgconfig/kk-fortran.pc")
  fflags=$(PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$root" pkg-config --cflags --libs kk-fortran) ||
    fail "pkg-config kk-fortran"
  (cd "$tmp" && ${fc:-gfortran} -o "$tmp/cg-fortran" "$srcdir/examples/fortran/cg.f90" $fflags $ldflags) \
    >"$tmp/fortran.log" 2>&1 || { cat "$tmp/fortran.log"; fail "examples/fortran/cg.f90 does not build against the installed module kk"; }
  out=$(KK_PLUGIN_PATH_NO_DEFAULT=1 LD_LIBRARY_PATH="$libdir" "$tmp/cg-fortran" 4 2>&1) ||
    { echo "$out"; fail "the installed-kk Fortran cg failed"; }
  echo "$out" | grep -q "^CG: .* converged" || { echo "$out"; fail "the installed-kk Fortran cg did not converge"; }
fi

# what the objects hold: the module records the targets kkcc built them for
targets_of() { strings -a "$1" | grep -xE 'host(,[a-z0-9_]+)*' | awk '{ if (length($0) > length(t)) t = $0 } END { print t }'; }
installed=$(KKCC_INCLUDEDIR="$prefix/include" "$bindir/kkcc" --targets-dir="$prefix/share/kk/targets" --list-targets |
  awk '/^  [a-z]/ { printf "%s%s", sep, $1; sep = "," }')
echo "installed kkcc targets: $installed"

# 3. A kernel file that includes <stdint.h>, <stddef.h>, <stdbool.h>, <float.h>, <limits.h>, with the
#    installed kkcc, recipes and freestanding headers, for every installed target.
KKCC_INCLUDEDIR="$prefix/include" "$bindir/kkcc" --targets-dir="$prefix/share/kk/targets" -I"$srcdir/tests/headers" \
  -c "$srcdir/tests/headers/headers.kk.c" -o "$tmp/headers.kk.o" >"$tmp/kkcc.log" 2>&1 ||
  { cat "$tmp/kkcc.log"; fail "the installed kkcc cannot build a kernel file that includes the C headers"; }
if [ -f "$tmp/headers.kk.o" ]; then
  th=$(targets_of "$tmp/headers.kk.o")
  for t in $(echo "$installed" | tr ',' ' '); do
    case ",$th," in *",$t,"*) ;; *) fail "headers.kk.o has no $t image: built for $th" ;; esac
  done
fi

# 4. examples/axpy with CMake against the installed kk, as its CMakeLists.txt says.
if ! command -v cmake >/dev/null 2>&1; then
  echo "SKIP: cmake is not installed (maint/install-deps.sh installs it); the CMake part is not tested"
  exit $([ $status = 0 ] && echo 77 || echo 1)
fi
# the version file: 0.1 and 0.1.0 are met, 0.2, 1.0 and 0.1.1 (newer than this kk) are not
mkdir "$tmp/version"
cat >"$tmp/version/CMakeLists.txt" <<'EOT'
cmake_minimum_required(VERSION 3.13)
project(version_check LANGUAGES C)
foreach(v 0.2 1.0 0.1.1)
  find_package(kk ${v} QUIET)
  if(kk_FOUND)
    message(FATAL_ERROR "find_package(kk ${v}) accepted kk ${kk_VERSION}")
  endif()
endforeach()
find_package(kk 0.1.0 EXACT REQUIRED)
find_package(kk 0.1 REQUIRED)
if(NOT TARGET kk::kk OR NOT COMMAND kk_add_kernels)
  message(FATAL_ERROR "no kk::kk or kk_add_kernels")
endif()
# the libraries on kk: a target and kk_<component>_FOUND exactly where the library is installed
foreach(c kernels mpi algorithms)
  set(target FALSE)
  if(TARGET kk::${c})
    set(target TRUE)
  endif()
  if(NOT "${kk_${c}_FOUND}" STREQUAL "${HAVE_${c}}" OR NOT "${target}" STREQUAL "${HAVE_${c}}")
    message(FATAL_ERROR "kk_${c}_FOUND is '${kk_${c}_FOUND}' and kk::${c} defined is ${target}; expected ${HAVE_${c}}")
  endif()
endforeach()
find_package(kk 0.1 QUIET COMPONENTS nosuch)
if(kk_FOUND)
  message(FATAL_ERROR "find_package(kk COMPONENTS nosuch) succeeded")
endif()
EOT
tf() { [ "$1" = yes ] && echo TRUE || echo FALSE; }
cmake -S "$tmp/version" -B "$tmp/version/build" -DCMAKE_PREFIX_PATH="$prefix" -DHAVE_kernels=$(tf $have_kernels) \
  -DHAVE_mpi=$(tf $have_mpi) -DHAVE_algorithms=$(tf $have_algorithms) >"$tmp/version.log" 2>&1 ||
  { cat "$tmp/version.log"; fail "kkConfigVersion.cmake or the components do not take the requests they should"; }
# A required component that is missing fails find_package and says which: a prefix with only libkk (as with
# libkk-dev installed without libkk-kernels-dev and libkk-mpi-dev).
mkdir -p "$tmp/bare/include" "$tmp/bare/lib/cmake/kk" "$tmp/version-bare"
cp "$cmakedir/kkConfig.cmake" "$cmakedir/kkConfigVersion.cmake" "$tmp/bare/lib/cmake/kk/"
: >"$tmp/bare/include/kk.h"
: >"$tmp/bare/lib/libkk.so"
for c in kernels mpi algorithms; do
  cat >"$tmp/version-bare/CMakeLists.txt" <<EOT
cmake_minimum_required(VERSION 3.13)
project(bare_check LANGUAGES NONE)
find_package(kk 0.1 REQUIRED COMPONENTS $c)
EOT
  if cmake -S "$tmp/version-bare" -B "$tmp/version-bare/build-$c" -DCMAKE_PREFIX_PATH="$tmp/bare" >"$tmp/bare-$c.log" 2>&1; then
    cat "$tmp/bare-$c.log"; fail "find_package(kk REQUIRED COMPONENTS $c) succeeded with no libkk-$c installed"
  elif ! grep -q "component '$c' is not installed" "$tmp/bare-$c.log"; then
    cat "$tmp/bare-$c.log"; fail "find_package(kk REQUIRED COMPONENTS $c) failed without naming the missing component"
  fi
done
# build 1: the targets kkcc has installed; build 2: KK_KERNEL_TARGETS=host
cmakeflags="-DCMAKE_PREFIX_PATH=$prefix"
cmake -S "$srcdir/examples/axpy" -B "$tmp/axpy" "$cmakeflags" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$ldflags" \
  >"$tmp/cmake1.log" 2>&1 ||
  { cat "$tmp/cmake1.log"; fail "cmake (configure) of examples/axpy failed"; }
cmake --build "$tmp/axpy" --verbose >"$tmp/build1.log" 2>&1 || { cat "$tmp/build1.log"; fail "cmake --build of examples/axpy failed"; }
cmake -S "$srcdir/examples/axpy" -B "$tmp/axpy-host" "$cmakeflags" -DCMAKE_C_FLAGS="$cflags" \
  -DCMAKE_EXE_LINKER_FLAGS="$ldflags" -DKK_KERNEL_TARGETS=host >"$tmp/cmake2.log" 2>&1 || { cat "$tmp/cmake2.log"; fail "cmake -DKK_KERNEL_TARGETS=host failed"; }
cmake --build "$tmp/axpy-host" --verbose >"$tmp/build2.log" 2>&1 ||
  { cat "$tmp/build2.log"; fail "cmake --build with KK_KERNEL_TARGETS=host failed"; }
grep -q "$bindir/kkcc --targets-dir=[^ ]* -I" "$tmp/build1.log" ||
  { grep kkcc "$tmp/build1.log"; fail "kk_add_kernels did not run the installed kkcc with every installed target"; }
grep -q "$bindir/kkcc --targets-dir=[^ ]* --targets=host " "$tmp/build2.log" ||
  { grep kkcc "$tmp/build2.log"; fail "kk_add_kernels did not pass KK_KERNEL_TARGETS to kkcc"; }
obj1=$(find "$tmp/axpy" -name 'axpy.kk.o' | head -n 1)
obj2=$(find "$tmp/axpy-host" -name 'axpy.kk.o' | head -n 1)
if [ -z "$obj1" ] || [ -z "$obj2" ]; then
  fail "kk_add_kernels left no axpy.kk.o"
else
  t1=$(targets_of "$obj1") t2=$(targets_of "$obj2")
  for t in $(echo "$installed" | tr ',' ' '); do
    case ",$t1," in *",$t,"*) ;; *) fail "axpy.kk.o (default targets) has no $t image: built for $t1" ;; esac
  done
  [ "$t2" = host ] || fail "axpy.kk.o with KK_KERNEL_TARGETS=host was built for $t2"
fi
for b in axpy axpy-host; do
  out=$("$tmp/$b/axpy" --kokkos-print-configuration 1000 2>&1) || { echo "$out"; fail "$b/axpy failed"; }
  # (any backend: the configured prefix's plugins are found if kk was installed there; see part 2)
  echo "$out" | grep -q "^axpy on [a-z0-9_]*: n = 1000, correct" || { echo "$out"; fail "$b/axpy: no correct result"; }
  echo "$out" | grep -qxF "  libkk $libdir/libkk.so.0" || { echo "$out"; fail "$b/axpy does not run on the installed libkk"; }
  if echo "$out" | grep -F -v "$root/" | grep -F -e "$tree" -e "(build tree)"; then
    fail "$b/axpy, built against the installed kk, searches the build tree"
  fi
done
# the installed plugins serve the CMake-built program without a rebuild
for p in openmp threads; do
  [ -f "$libdir/kk/plugins/kk_$p.so" ] || continue
  out=$("$tmp/axpy/axpy" --kokkos-plugin-path="$libdir/kk/plugins" --kokkos-device=$p 1000 2>&1) ||
    { echo "$out"; fail "axpy on the installed $p plugin failed"; }
  echo "$out" | grep -q "^axpy on $p: n = 1000, correct" || { echo "$out"; fail "axpy did not run on the installed $p plugin"; }
done

# 5. The libraries on kk with CMake: examples/poisson on kk::kernels, examples/cg-mpi on kk::mpi (with kk_add_kernels,
#    its kernel files and examples/cg's), each where its library was built.
if [ $have_kernels = yes ]; then
  cmake -S "$srcdir/examples/poisson" -B "$tmp/poisson" "$cmakeflags" -DCMAKE_C_FLAGS="$cflags" \
    -DCMAKE_EXE_LINKER_FLAGS="$ldflags" >"$tmp/cmake-poisson.log" 2>&1 &&
    cmake --build "$tmp/poisson" >>"$tmp/cmake-poisson.log" 2>&1 ||
    { cat "$tmp/cmake-poisson.log"; fail "examples/poisson does not build with CMake on kk::kernels"; }
  out=$("$tmp/poisson/poisson" 200 2>&1) || { echo "$out"; fail "the CMake-built poisson failed"; }
  echo "$out" | grep "^poisson on [a-z0-9_]*: n = 200, .*, correct" || { echo "$out"; fail "the CMake-built poisson: no correct result"; }
  ldd "$tmp/poisson/poisson" | grep -qF "$libdir/libkk-kernels.so.0" ||
    { ldd "$tmp/poisson/poisson"; fail "the CMake-built poisson does not run on the installed libkk-kernels"; }
fi
if [ $have_algorithms = yes ]; then
  # examples/cell-list on kk::algorithms, its kernel file through kk_add_kernels (host only: quick)
  cmake -S "$srcdir/examples/cell-list" -B "$tmp/cell-list" "$cmakeflags" -DCMAKE_C_FLAGS="$cflags" \
    -DCMAKE_EXE_LINKER_FLAGS="$ldflags" -DKK_KERNEL_TARGETS=host >"$tmp/cmake-cell-list.log" 2>&1 &&
    cmake --build "$tmp/cell-list" >>"$tmp/cmake-cell-list.log" 2>&1 ||
    { cat "$tmp/cmake-cell-list.log"; fail "examples/cell-list does not build with CMake on kk::algorithms"; }
  out=$("$tmp/cell-list/cell_list" --kokkos-device=serial 500 4 --check 2>&1) ||
    { echo "$out"; fail "the CMake-built cell_list failed"; }
  echo "$out" | grep -q "the same" || { echo "$out"; fail "the CMake-built cell_list: no correct result"; }
  ldd "$tmp/cell-list/cell_list" | grep -qF "$libdir/libkk-algorithms.so.0" ||
    { ldd "$tmp/cell-list/cell_list"; fail "the CMake-built cell_list does not run on the installed libkk-algorithms"; }
fi
if [ $have_mpi = yes ]; then
  cmake -S "$srcdir/examples/cg-mpi" -B "$tmp/cg-mpi" "$cmakeflags" -DCMAKE_C_FLAGS="$cflags" \
    -DCMAKE_EXE_LINKER_FLAGS="$ldflags" -DKK_KERNEL_TARGETS=host >"$tmp/cmake-cg-mpi.log" 2>&1 &&
    cmake --build "$tmp/cg-mpi" >>"$tmp/cmake-cg-mpi.log" 2>&1 ||
    { cat "$tmp/cmake-cg-mpi.log"; fail "examples/cg-mpi does not build with CMake on kk::mpi"; }
  ldd "$tmp/cg-mpi/cg-mpi" | grep -qF "$libdir/libkk-mpi.so.0" ||
    { ldd "$tmp/cg-mpi/cg-mpi"; fail "the CMake-built cg-mpi does not run on the installed libkk-mpi"; }
  if [ "${KK_TEST_UNDER_VALGRIND:-}" = 1 ]; then
    # the MPI tests' rule (tests/mpi/launch.sh): MPI runs are the AddressSanitizer build's, not valgrind's
    echo "under valgrind: the CMake-built cg-mpi is built and linked, not run"
  elif [ -n "${MPIEXEC:-}" ]; then
    # one rank, through the launcher and settings of the MPI tests (a subshell: launch.sh sets its own traps);
    # LD_LIBRARY_PATH as for the make-built programs: the program's RUNPATH covers only the libraries it links,
    # and libkk-mpi itself needs libkk-containers (its DualViews), which the staging root hides from the loader
    out=$( . "$srcdir/tests/mpi/launch.sh" && export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" &&
      mpi_run 1 "$tmp/cg-mpi/cg-mpi" --kokkos-device=serial --size=8 2>&1) ||
      { echo "$out"; fail "the CMake-built cg-mpi failed on 1 rank"; }
    echo "$out" | grep "^cg-mpi: [0-9]* iterations" || { echo "$out"; fail "the CMake-built cg-mpi did not solve"; }
  else
    echo "no MPI launcher (MPIEXEC): the CMake-built cg-mpi is built, not run"
  fi
fi

exit $status
