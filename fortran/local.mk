# fortran/local.mk -- Fortran's `use kk`: module kk (interfaces), libkk-fortran (their C side), kk-fortran-args, tests (docs/fortran.md).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += fortran/kk-fortran.pc.in fortran/tests/test_kk.f90 tests/fortran.sh examples/fortran/cg.f90
if KK_BUILD_FORTRAN
lib_LTLIBRARIES += fortran/libkk-fortran.la
pkgconfig_DATA += fortran/kk-fortran.pc
# the module is written into fortran/ and installed where this compiler's modules go
fortran_libkk_fortran_la_SOURCES = fortran/kk.f90 fortran/kk_fortran.c
fortran_libkk_fortran_la_FCFLAGS = $(AM_FCFLAGS) $(FCFLAGS_f90) $(FC_MODOUT)fortran
fortran_libkk_fortran_la_CFLAGS = $(AM_CFLAGS)
fortran_libkk_fortran_la_LIBADD = libkk-kernels.la libkk.la
fortran_libkk_fortran_la_LDFLAGS = -version-info 0:0:0 -no-undefined -export-symbols-regex '^(kk_fortran_|__kk_MOD_)'
kkfortranmoddir = $(KK_FC_MODDIR)
kkfortranmod_DATA = fortran/kk.mod
fortran/kk.mod: fortran/libkk-fortran.la
	@test -f $@ || { rm -f fortran/libkk-fortran.la; $(MAKE) $(AM_MAKEFLAGS) fortran/libkk-fortran.la; }
CLEANFILES += fortran/kk.mod

bin_PROGRAMS += fortran/kk-fortran-args
fortran_kk_fortran_args_SOURCES = fortran/kk-fortran-args.c
fortran_kk_fortran_args_LDADD = libkk.la

# the tests: module kk on every host backend, a kkcc module's kernels through generated bind(C) types
check_PROGRAMS += fortran/tests/test_kk examples/fortran/cg
fortran_tests_test_kk_SOURCES = fortran/tests/test_kk.f90
nodist_fortran_tests_test_kk_SOURCES = fortran/tests/kk_test_module_args.f90
fortran_tests_test_kk_FCFLAGS = $(AM_FCFLAGS) $(FCFLAGS_f90) $(FC_MODINC)fortran $(FC_MODOUT)fortran/tests
fortran_tests_test_kk_LDADD = fortran/libkk-fortran.la libkk.la
fortran/tests/test_kk-test_kk.$(OBJEXT): fortran/tests/test_kk-kk_test_module_args.$(OBJEXT)
fortran/tests/test_kk-kk_test_module_args.$(OBJEXT) fortran/tests/test_kk-test_kk.$(OBJEXT): fortran/kk.mod
fortran/tests/kk_test_module.so: python/tests/saxpy.kk.c $(KKCC_DEPS)
	@$(MKDIR_P) fortran/tests
	$(KKCC_V)$(KKCC) -shared $(srcdir)/python/tests/saxpy.kk.c -o $@
fortran/tests/kk_test_module_args.f90: fortran/tests/kk_test_module.so fortran/kk-fortran-args$(EXEEXT)
	fortran/kk-fortran-args$(EXEEXT) fortran/tests/kk_test_module.so -m kk_test_module_args -o $@
examples_fortran_cg_SOURCES = examples/fortran/cg.f90
examples_fortran_cg_FCFLAGS = $(AM_FCFLAGS) $(FCFLAGS_f90) $(FC_MODINC)fortran
examples_fortran_cg_LDADD = fortran/libkk-fortran.la libkk.la
examples/fortran/examples_fortran_cg-cg.$(OBJEXT): fortran/kk.mod
check_DATA += fortran/tests/kk_test_module.so
CLEANFILES += fortran/tests/kk_test_module.so fortran/tests/kk_test_module_args.f90 fortran/tests/*.mod
TESTS += tests/fortran.sh
endif
