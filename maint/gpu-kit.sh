#!/bin/sh
# maint/gpu-kit.sh -- carries what a bare CUDA machine lacks to build and run kk's MPI, kernels and test parts (Open MPI, check, jansson, ltdl, hwloc, pkg-config, OpenBLAS), as Debian packages unpacked without installing them.
#
# usage: maint/gpu-kit.sh fetch DIR     (here, with apt-get: downloads the .deb files into DIR)
#        maint/gpu-kit.sh unpack DIR ROOT   (there: dpkg -x each DIR/*.deb into ROOT, writes ROOT/env.sh)
# then:  . ROOT/env.sh   (PATH, library, header and pkg-config paths, and Open MPI's and PMIx's relocation)
# The device machine reaches no package archive, so the packages travel with
# the working tree (a folder named in the device tool's carry list).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu
verb=${1:?usage: gpu-kit.sh fetch DIR | unpack DIR ROOT}
dir=${2:?usage: gpu-kit.sh fetch DIR | unpack DIR ROOT}
case $verb in
fetch)
  mkdir -p "$dir"
  # Open MPI 4.1 and what libopenmpi3, libpmix2, libfabric1 and libucx0 load;
  # the build's own dependencies (maint/install-deps.sh) that a CUDA image lacks
  pkgs="libopenmpi-dev openmpi-bin openmpi-common libopenmpi3 libpmix2 libpmix-dev libevent-core-2.1-7
    libevent-pthreads-2.1-7 libevent-2.1-7 libevent-dev libfabric1 libucx0 libhwloc15 libhwloc-dev libibverbs1
    libibverbs-dev ibverbs-providers libpsm-infinipath1 libpsm2-2 librdmacm1 libnl-3-200 libnl-route-3-200
    libnuma1 libnuma-dev libmunge2 libpciaccess0
    libjansson-dev libjansson4 check libsubunit0 libsubunit-dev libltdl-dev libltdl7 pkgconf pkgconf-bin libpkgconf3
    libopenblas0 libopenblas0-pthread libgfortran5"
  # shellcheck disable=SC2086
  (cd "$dir" && apt-get download -qq -o APT::Sandbox::User=root $pkgs)
  echo "gpu-kit: $(ls "$dir"/*.deb | wc -l) packages in $dir ($(du -sh "$dir" | cut -f1))"
  ;;
unpack)
  root=${3:?usage: gpu-kit.sh unpack DIR ROOT}
  mkdir -p "$root"
  root=$(cd "$root" && pwd)
  for d in "$dir"/*.deb; do dpkg -x "$d" "$root"; done
  ma=x86_64-linux-gnu
  # Debian's alternatives are not made by dpkg -x: the plain names
  for p in mpicc mpirun mpiexec; do
    [ -e "$root/usr/bin/$p.openmpi" ] && ln -sf "$p.openmpi" "$root/usr/bin/$p"
  done
  # libopenblas.so.0 lives in a variant directory, chosen by alternatives too
  [ -e "$root/usr/lib/$ma/openblas-pthread/libopenblas.so.0" ] &&
    ln -sf openblas-pthread/libopenblas.so.0 "$root/usr/lib/$ma/libopenblas.so.0"
  [ -e "$root/usr/lib/$ma/libltdl.so" ] || ln -sf libltdl.so.7 "$root/usr/lib/$ma/libltdl.so"
  cat >"$root/env.sh" <<ENV
# written by maint/gpu-kit.sh unpack: use the unpacked packages in $root
export PATH="$root/usr/bin:\$PATH"
export LD_LIBRARY_PATH="$root/usr/lib/$ma:$root/usr/lib/$ma/openmpi/lib:$root/usr/lib/$ma/openblas-pthread\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export LIBRARY_PATH="$root/usr/lib/$ma:$root/usr/lib/$ma/openmpi/lib\${LIBRARY_PATH:+:\$LIBRARY_PATH}"
export CPATH="$root/usr/include:$root/usr/include/$ma\${CPATH:+:\$CPATH}"
export PKG_CONFIG_PATH="$root/usr/lib/$ma/pkgconfig:$root/usr/share/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$root"
# Open MPI was built with prefix /usr and external PMIx with prefix /usr/lib/$ma/pmix2
export OPAL_PREFIX="$root/usr" OPAL_SYSCONFDIR="$root/etc/openmpi"
export PMIX_INSTALL_PREFIX="$root/usr/lib/$ma/pmix2"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENV
  echo "gpu-kit: unpacked $(ls "$dir"/*.deb | wc -l) packages into $root; . $root/env.sh"
  ;;
*) echo "gpu-kit: unknown verb $verb" >&2; exit 2 ;;
esac
