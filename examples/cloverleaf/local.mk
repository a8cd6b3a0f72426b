# examples/cloverleaf/local.mk -- the CloverLeaf mini-app (docs/apps.md): built with the tree, checked on every backend here by tests/cloverleaf.sh; cloverleaf-mpi is the same program over kk-mpi.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
noinst_PROGRAMS += examples/cloverleaf/cloverleaf
examples_cloverleaf_cloverleaf_SOURCES = examples/cloverleaf/clover.c examples/cloverleaf/clover.h
examples_cloverleaf_cloverleaf_LDADD = examples/cloverleaf/clover.kk.o libkk.la -lm
EXTRA_examples_cloverleaf_cloverleaf_DEPENDENCIES = examples/cloverleaf/clover.kk.o
# -fno-math-errno (host compiler only): sqrt without errno, so that the host compiler vectorizes the cell loops
examples/cloverleaf/clover.kk.o: examples/cloverleaf/clover.kk.c examples/cloverleaf/clover.h $(KKCC_DEPS)
	@$(MKDIR_P) $(@D)
	$(KKCC_V)$(KKCC) $(AM_CFLAGS) $(CFLAGS) -fno-math-errno -c $(srcdir)/examples/cloverleaf/clover.kk.c -o $@
CLEANFILES += examples/cloverleaf/clover.kk.o
EXTRA_DIST += examples/cloverleaf/clover.kk.c examples/cloverleaf/Makefile examples/cloverleaf/data/mix.in maint/gpu-cloverleaf.sh
if KK_BUILD_MPI
noinst_PROGRAMS += examples/cloverleaf/cloverleaf-mpi
examples_cloverleaf_cloverleaf_mpi_SOURCES = examples/cloverleaf/clover.c examples/cloverleaf/clover.h
examples_cloverleaf_cloverleaf_mpi_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS) -DCLOVER_MPI
examples_cloverleaf_cloverleaf_mpi_LDADD = examples/cloverleaf/clover.kk.o mpi/libkk-mpi.la libkk.la $(MPI_LIBS) -lm
EXTRA_examples_cloverleaf_cloverleaf_mpi_DEPENDENCIES = examples/cloverleaf/clover.kk.o
endif
dist_check_SCRIPTS += tests/cloverleaf.sh
TESTS += tests/cloverleaf.sh
EXTRA_DIST += bench/cloverleaf.sh bench/apps-common.sh
# the upstream Kokkos versions' kit (built without a GPU) and the runs that compare all versions and give PHI
EXTRA_DIST += maint/kokkos-kit.sh maint/kokkos-patches/kokkos-4.6.01-cuda13.patch \
	maint/kokkos-patches/kokkos-4.6.01-cudart-static.patch maint/kokkos-patches/kokkos-4.6.01-nvcc-wrapper-sm90.patch \
	maint/gpu-apps-kokkos.sh maint/apps-kokkos-local.sh
