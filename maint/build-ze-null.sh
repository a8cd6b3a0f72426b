#!/bin/sh
# maint/build-ze-null.sh -- builds the Level Zero null driver (libze_null.so.1) from Debian's source package of the loader, for tests/levelzero-null.sh.
#
# Debian ships the loader (libze1, libze-dev) but not the null driver the
# loader's sources contain.  This fetches the source package of the installed
# loader version with apt-get (a private deb-src list: the system's apt
# configuration is left untouched; apt checks the files against the signed
# Sources index), unpacks it with dpkg-source, builds only the ze_null target
# with cmake and installs the library into $PREFIX/lib (default /usr/local:
# the loader dlopens "libze_null.so.1" by name, and only when
# ZE_ENABLE_NULL_DRIVER=1).
#
# Usage: maint/build-ze-null.sh [--prefix DIR]   (needs apt-get, dpkg-source, cmake, g++)
# Environment: KK_ZE_NULL_VERSION (default: the installed libze-dev's version),
#              KK_DEBIAN_MIRROR (default: http://deb.debian.org/debian), KK_DEBIAN_SUITE (default: bookworm)
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu

prefix=/usr/local
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    *) echo "build-ze-null: unknown argument $1" >&2; exit 2 ;;
  esac
done

if [ -e "$prefix/lib/libze_null.so.1" ]; then
  echo "build-ze-null: $prefix/lib/libze_null.so.1 is already there"
  exit 0
fi

version=${KK_ZE_NULL_VERSION:-$(dpkg-query -W -f='${Version}' libze-dev 2>/dev/null || true)}
if [ -z "$version" ]; then
  echo "build-ze-null: libze-dev is not installed (apt-get install libze-dev) and KK_ZE_NULL_VERSION is not set" >&2
  exit 1
fi
for tool in apt-get dpkg-source cmake c++; do
  command -v $tool >/dev/null 2>&1 || { echo "build-ze-null: $tool not found" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/kk-ze-null.XXXXXX")
trap 'rm -rf "$work"' EXIT
mirror=${KK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=${KK_DEBIAN_SUITE:-bookworm}
printf 'deb-src %s %s main\n' "$mirror" "$suite" > "$work/sources.list"
mkdir -p "$work/lists/partial"
apt_opts="-o Dir::Etc::SourceList=$work/sources.list -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists=$work/lists -o APT::Sandbox::User=root"
echo "build-ze-null: fetching the source of level-zero $version ($mirror $suite)"
# shellcheck disable=SC2086
apt-get -qq $apt_opts update
# shellcheck disable=SC2086
(cd "$work" && apt-get -qq $apt_opts source --download-only "level-zero=$version")
(cd "$work" && dpkg-source -x level-zero_*.dsc src >/dev/null)

echo "build-ze-null: building the ze_null target with cmake"
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release >"$work/cmake.log" 2>&1 ||
  { tail -n 30 "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" --target ze_null -j "${KK_BUILD_JOBS:-2}" >"$work/build.log" 2>&1 ||
  { tail -n 30 "$work/build.log" >&2; exit 1; }
lib=$(find "$work/build" -name 'libze_null.so.*.*' -type f | head -n 1)
[ -n "$lib" ] || { echo "build-ze-null: the build made no libze_null.so" >&2; exit 1; }

mkdir -p "$prefix/lib"
install -m 0644 "$lib" "$prefix/lib/"
ln -sf "$(basename "$lib")" "$prefix/lib/libze_null.so.1"
command -v ldconfig >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && ldconfig || true
echo "build-ze-null: installed $prefix/lib/libze_null.so.1 (level-zero $version)"
