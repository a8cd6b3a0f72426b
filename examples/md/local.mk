# examples/md/local.mk -- the Lennard-Jones molecular-dynamics example (kk-algorithms' BinSort, kk-containers' DualView, kk-mpi) and its check against miniMD's reference output.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += examples/md/md.kk.c examples/md/Makefile examples/md/CMakeLists.txt examples/md/minimd-s6.ref tests/md.sh bench/kk-bench-md.sh \
	bench/kk-bench-md-run.sh
CLEANFILES += examples/md/md.kk.o
dist_check_SCRIPTS += tests/md.sh
if KK_BUILD_MPI
if KK_BUILD_ALGORITHMS
if KK_BUILD_CONTAINERS
noinst_PROGRAMS += examples/md/md
examples_md_md_SOURCES = examples/md/md.c examples/md/md.h
examples_md_md_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS)
examples_md_md_LDADD = examples/md/md.kk.o mpi/libkk-mpi.la libkk-algorithms.la libkk-containers.la libkk.la $(MPI_LIBS) -lm
EXTRA_examples_md_md_DEPENDENCIES = examples/md/md.kk.o
TESTS += tests/md.sh
endif
endif
endif
examples/md/md.kk.o: examples/md/md.h
