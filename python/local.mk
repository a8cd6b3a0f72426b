# python/local.mk -- the Python package kk (ctypes over libkk; docs/python.md).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += python/setup.py python/tests/test_kk.py python/tests/test_linalg.py python/tests/test_mpi.py \
	python/tests/saxpy.kk.c tests/python.sh tests/python-mpi.sh examples/python/cg.py
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
# the tests' kernel module, built by the tree's kkcc
check_DATA += python/tests/kk_test_module.so
python/tests/kk_test_module.so: python/tests/saxpy.kk.c tools/kkcc/kkcc$(EXEEXT)
	$(MKDIR_P) python/tests
	KKCC_CONF=none KKCC_TARGETS_DIR='$(abs_top_builddir)/targets' KKCC_INCLUDEDIR='$(abs_top_srcdir)/include' \
	  tools/kkcc/kkcc$(EXEEXT) --targets=host -shared $(srcdir)/python/tests/saxpy.kk.c -o $@
CLEANFILES += python/tests/kk_test_module.so
TESTS += tests/python.sh
if KK_BUILD_MPI
TESTS += tests/python-mpi.sh
endif
endif
