# cmake/local.mk -- kk's CMake package (kkConfig.cmake, kkConfigVersion.cmake in $(libdir)/cmake/kk), made by make from its .in files, and the test that uses it (docs/build-systems.md).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
cmakedir = $(libdir)/cmake/kk
nodist_cmake_DATA = cmake/kkConfig.cmake cmake/kkConfigVersion.cmake
CLEANFILES += $(nodist_cmake_DATA)
EXTRA_DIST += cmake/kkConfig.cmake.in cmake/kkConfigVersion.cmake.in cmake/gen-config.sh examples/axpy/CMakeLists.txt \
	examples/axpy/Makefile examples/cg-mpi/CMakeLists.txt

# The directories as make knows them (fully expanded); gen-config.sh writes
# those under $(prefix) relative to the package file.
KK_CMAKE_GEN = $(SHELL) $(srcdir)/cmake/gen-config.sh
KK_CMAKE_VARS = prefix='$(prefix)' cmakedir='$(cmakedir)' includedir='$(includedir)' libdir='$(libdir)' \
	bindir='$(bindir)' targetdir='$(targetdir)' PACKAGE_VERSION='$(PACKAGE_VERSION)' \
	KK_VERSION_MAJOR='$(KK_VERSION_MAJOR)' KK_VERSION_MINOR='$(KK_VERSION_MINOR)' \
	KK_SIZEOF_VOID_P='$(KK_SIZEOF_VOID_P)' KK_SONAME="libkk.so.`echo '$(KK_LT_VERSION)' | awk -F: '{ print $$1 - $$3 }'`" \
	KK_KERNELS_SONAME="libkk-kernels.so.`echo '$(KK_KERNELS_LT_VERSION)' | awk -F: '{ print $$1 - $$3 }'`" \
	KK_ALGORITHMS_SONAME="libkk-algorithms.so.`echo '$(KK_ALGORITHMS_LT_VERSION)' | awk -F: '{ print $$1 - $$3 }'`" \
	KK_MPI_SONAME="libkk-mpi.so.`echo '$(KK_MPI_LT_VERSION)' | awk -F: '{ print $$1 - $$3 }'`" \
	KK_CONTAINERS_SONAME="libkk-containers.so.`echo '$(KK_CONTAINERS_LT_VERSION)' | awk -F: '{ print $$1 - $$3 }'`" \
	MPI_CFLAGS='$(MPI_CFLAGS)' MPI_LIBS='$(MPI_LIBS)'
cmake/kkConfig.cmake: $(srcdir)/cmake/kkConfig.cmake.in $(srcdir)/cmake/gen-config.sh Makefile
	@$(MKDIR_P) cmake
	$(AM_V_GEN)$(KK_CMAKE_GEN) $(srcdir)/cmake/kkConfig.cmake.in $@ $(KK_CMAKE_VARS)
cmake/kkConfigVersion.cmake: $(srcdir)/cmake/kkConfigVersion.cmake.in $(srcdir)/cmake/gen-config.sh Makefile
	@$(MKDIR_P) cmake
	$(AM_V_GEN)$(KK_CMAKE_GEN) $(srcdir)/cmake/kkConfigVersion.cmake.in $@ $(KK_CMAKE_VARS)

# An installed kk (make install DESTDIR=...): it never searches this tree,
# examples/axpy builds against it with CMake, and the installed kkcc builds the
# headers test's kernel file for every installed target.
dist_check_SCRIPTS += tests/installed.sh
TESTS += tests/installed.sh
