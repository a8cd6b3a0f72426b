#!/bin/sh
# tools/install-deps.sh -- installs kk's build dependencies on Debian/Ubuntu with apt-get, only those missing.
# Usage: tools/install-deps.sh [extra packages...]
set -eu

pkgs="build-essential autoconf automake libtool libltdl-dev pkg-config libjansson-dev check libhwloc-dev"
# the SPIR-V kernel target (clang, llvm-spirv, spirv-val, llvm-link) and the
# OpenCL backend with PoCL, which runs it on the CPU in make check
pkgs="$pkgs clang-14 llvm-14 llvm-spirv-14 spirv-tools opencl-headers ocl-icd-libopencl1 pocl-opencl-icd"
# the HIP backend and kernel target: hipcc (HIP-Clang 15 of ROCm 5.2, with the
# device libraries) and the HIP headers; the runtime itself is only opened,
# never linked, and needs no GPU to build or to load
pkgs="$pkgs hipcc libamdhip64-dev"
pkgs="$pkgs $*"

missing=
for p in $pkgs; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then
  echo "install-deps: all build dependencies are installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "install-deps: need root (or sudo) to install:$missing" >&2
    exit 1
  fi
else
  SUDO=
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
