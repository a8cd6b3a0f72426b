# python/local.mk -- the Python package kk (ctypes over libkk; docs/python.md).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += python/setup.py python/tests/kkhelp.py python/tests/test_kk.py python/tests/test_linalg.py python/tests/test_mpi.py \
	python/tests/saxpy.kk.c tests/python.sh tests/python-mpi.sh examples/python/cg.py \
	bench/python-launch.py maint/gpu-python-fortran.sh maint/gpu-lat.sh bench/launch-params.cu
if KK_BUILD_PYTHON
kkpythondir = $(pythondir)/kk
kkpython_PYTHON = python/kk/__init__.py python/kk/_lib.py python/kk/_kernels.py python/kk/_dlpack.py \
	python/kk/_linalg.py python/kk/blas.py python/kk/batched.py python/kk/sparse.py python/kk/mpi.py
# where the installed package finds libkk
install-data-hook: install-kk-python-paths
install-kk-python-paths:
	$(MKDIR_P) '$(DESTDIR)$(kkpythondir)'
	printf '# written by make install: where libkk is\nLIBDIR = %s\n' "'$(libdir)'" > '$(DESTDIR)$(kkpythondir)/_paths.py'
uninstall-hook: uninstall-kk-python-paths
uninstall-kk-python-paths:
	rm -f '$(DESTDIR)$(kkpythondir)/_paths.py'
# the tests' kernel module, built by the tree's kkcc for every target configure found (cuda's too)
check_DATA += python/tests/kk_test_module.so
python/tests/kk_test_module.so: python/tests/saxpy.kk.c $(KKCC_DEPS)
	@$(MKDIR_P) python/tests
	$(KKCC_V)$(KKCC) -shared $(srcdir)/python/tests/saxpy.kk.c -o $@
# the launch-cost benchmark's C side (bench/python-launch.py runs both sides)
noinst_PROGRAMS += bench/kk-bench-launch
bench_kk_bench_launch_SOURCES = bench/kk-bench-launch.c $(BENCH_BASE)
bench_kk_bench_launch_LDADD = libkk.la
CLEANFILES += python/tests/kk_test_module.so
TESTS += tests/python.sh
if KK_BUILD_MPI
TESTS += tests/python-mpi.sh
endif
endif
