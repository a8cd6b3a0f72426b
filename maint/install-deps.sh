#!/bin/sh
# maint/install-deps.sh -- installs kk's build dependencies on Debian/Ubuntu with apt-get, only those missing, then builds the test-only Level Zero pieces.
# Usage: maint/install-deps.sh [extra packages...]
# KK_NO_LEVELZERO_TEST_DEPS=1 skips the Level Zero null driver and ocloc (both only serve make check).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu
here=$(cd "$(dirname "$0")" && pwd)

pkgs="build-essential autoconf automake libtool libltdl-dev pkg-config libjansson-dev check libhwloc-dev"
# the SPIR-V kernel target (clang, llvm-spirv, spirv-val, llvm-link) and the
# OpenCL backend with PoCL, which runs it on the CPU in make check
pkgs="$pkgs clang-14 llvm-14 llvm-spirv-14 spirv-tools opencl-headers ocl-icd-libopencl1 pocl-opencl-icd"
# the Level Zero backend (headers; the loader is opened at run time) and what
# builds the loader's null driver for its API-flow test (maint/build-ze-null.sh)
pkgs="$pkgs libze-dev libze1 cmake dpkg-dev"
# the HIP backend and kernel target: hipcc (HIP-Clang 15 of ROCm 5.2, with the
# device libraries) and the HIP headers; the runtime itself is only opened,
# never linked, and needs no GPU to build or to load
pkgs="$pkgs hipcc libamdhip64-dev"
# the Debian packages (debian/, dpkg-buildpackage, lintian in .ci/debian) and
# the CMake package's test (tests/installed.sh); cmake and dpkg-dev are listed
# above; groff formats the manual pages in make check (tests/man-pages.sh)
pkgs="$pkgs debhelper lintian groff-base"
# MPI for libkk-mpi and its tests (mpicc, mpiexec; docs/mpi.md)
pkgs="$pkgs libopenmpi-dev openmpi-bin"
# kk-kernels: a CBLAS it opens at run time on host backends (OpenBLAS), and
# the native side of bench/kk-bench-kernels (both open it with dlopen)
pkgs="$pkgs libopenblas0"
# kk-algorithms: dieharder runs its generators through a statistical battery in make check
pkgs="$pkgs dieharder"
# the bindings and their tests: Python's (pytest, NumPy, SciPy, mpi4py on the same Open MPI) and Fortran's
pkgs="$pkgs python3 python3-pytest python3-numpy python3-scipy python3-mpi4py gfortran"
pkgs="$pkgs $*"

missing=
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    SUDO=no
  fi
else
  SUDO=
fi

if [ -z "$missing" ]; then
  echo "install-deps: all build dependencies are installed"
else
  if [ "$SUDO" = no ]; then
    echo "install-deps: need root (or sudo) to install:$missing" >&2
    exit 1
  fi
  echo "install-deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

# Test-only pieces Debian does not package: the Level Zero null driver (built
# from the loader's source package into /usr/local/lib) and Intel's ocloc
# (unpacked from intel-opencl-icd into /opt/kk-ocloc, not installed).
if [ "${KK_NO_LEVELZERO_TEST_DEPS:-}" != 1 ]; then
  if [ "$SUDO" = no ]; then
    echo "install-deps: not root: the Level Zero null driver and ocloc are left out (tests/levelzero-null.sh and tests/ocloc.sh will skip)" >&2
  else
    # shellcheck disable=SC2086
    $SUDO "$here/build-ze-null.sh"
    # shellcheck disable=SC2086
    $SUDO "$here/fetch-ocloc.sh"
  fi
fi
