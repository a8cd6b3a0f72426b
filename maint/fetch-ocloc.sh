#!/bin/sh
# maint/fetch-ocloc.sh -- unpacks Intel's offline compiler (ocloc) from Debian's intel-opencl-icd into /opt/kk-ocloc without installing the package, for tests/ocloc.sh.
#
# Debian 12 ships ocloc inside intel-opencl-icd, whose installation would also
# register Intel's OpenCL ICD and Level Zero GPU driver system-wide (both would
# then answer the opencl and levelzero backends on every machine, GPU or not).
# So the .debs of ocloc and the compiler libraries it loads are downloaded
# with apt-get and unpacked with dpkg -x into $PREFIX (default /opt/kk-ocloc),
# with a wrapper $PREFIX/ocloc that points the dynamic linker at them.
# IGC's own dependencies (libllvm14, libllvmspirvlib14) come with clang-14
# and llvm-spirv-14, which maint/install-deps.sh installs anyway.
#
# Usage: maint/fetch-ocloc.sh [--prefix DIR]
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu

prefix=/opt/kk-ocloc
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    *) echo "fetch-ocloc: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -x "$prefix/ocloc" ]; then
  echo "fetch-ocloc: $prefix/ocloc is already there"
  exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/kk-ocloc.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "fetch-ocloc: downloading intel-opencl-icd and the IGC libraries"
(cd "$work" && apt-get download -qq -o APT::Sandbox::User=root intel-opencl-icd libigc1 libigdfcl1 libigdgmm12)
mkdir -p "$prefix/root"
for deb in "$work"/*.deb; do
  dpkg -x "$deb" "$prefix/root"
done
lib="$prefix/root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)"
[ -x "$prefix/root/usr/bin/ocloc" ] || { echo "fetch-ocloc: intel-opencl-icd has no usr/bin/ocloc" >&2; exit 1; }
cat >"$prefix/ocloc" <<WRAP
#!/bin/sh
# ocloc from Debian's intel-opencl-icd, unpacked by kk's maint/fetch-ocloc.sh (not installed as a package)
LD_LIBRARY_PATH="$lib:$lib/intel-opencl\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$prefix/root/usr/bin/ocloc" "\$@"
WRAP
chmod +x "$prefix/ocloc"
echo "fetch-ocloc: $prefix/ocloc ($(dpkg-deb -f "$work"/intel-opencl-icd_*.deb Version))"
