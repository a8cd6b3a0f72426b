# debian/local.mk -- the Debian packaging travels in the release tarball (docs/packaging.md); CI builds the packages from it (.ci/debian).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += debian/changelog debian/control debian/copyright debian/rules debian/source/format debian/source/lintian-overrides \
	debian/not-installed debian/libkk0.install debian/libkk-dev.install debian/libkk-dev.examples debian/kk-tools.install \
	debian/kk-backend-openmp.install debian/kk-backend-threads.install debian/kk-backend-cuda.install \
	debian/kk-backend-hip.install debian/kk-backend-levelzero.install debian/kk-backend-opencl.install \
	debian/libkk-mpi0.install debian/libkk-mpi-dev.install \
	debian/libkk-kernels0.install debian/libkk-kernels-dev.install \
	debian/libkk-containers0.install debian/libkk-containers-dev.install \
	debian/libkk-algorithms0.install debian/libkk-algorithms-dev.install debian/libkk-algorithms-dev.examples \
	debian/libkk0.symbols debian/libkk-mpi0.symbols debian/libkk-kernels0.symbols debian/libkk-containers0.symbols \
	debian/libkk-algorithms0.symbols \
	debian/libkk0.lintian-overrides \
	.ci/debian
