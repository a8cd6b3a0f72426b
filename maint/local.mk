# maint/local.mk -- what a site's administrator gets beside the code: the licence, the manual pages, and the checks of both (docs/packaging.md).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += LICENSE maint/spdx-headers.sh maint/deps.sh

# Manual pages: man/<program>.1.in, which configure completes with the version.
nodist_man1_MANS = man/kk-info.1 man/kkcc.1 man/kk-plugin-probe.1
EXTRA_DIST += man/kk-info.1.in man/kkcc.1.in man/kk-plugin-probe.1.in

# The pages format cleanly and document every option of their program; every
# tracked source file has its SPDX line; kk-mpi.pc names the MPI it needs;
# core/ reads top-down (maint/deps.sh).
dist_check_SCRIPTS += tests/man-pages.sh tests/spdx.sh tests/mpi-pc.sh tests/deps.sh
TESTS += tests/man-pages.sh tests/spdx.sh tests/mpi-pc.sh tests/deps.sh
AM_TESTS_ENVIRONMENT += PKG_CONFIG='$(PKG_CONFIG)'; export PKG_CONFIG; \
	MPI_CFLAGS='$(MPI_CFLAGS)'; export MPI_CFLAGS; MPI_LIBS='$(MPI_LIBS)'; export MPI_LIBS;
