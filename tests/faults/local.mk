# tests/faults/local.mk -- issue 21's pieces of the build: bounds checking in libkk, and the tests of bad
# input that once crashed, concurrent use, broken plugins and bounds checking.
EXTRA_DIST += tests/faults/local.mk tools/compare-kernel-images.sh

# libkk: the failure records of bounds-checked host launches (kkcc --bounds-check)
core_libkkcore_la_SOURCES += core/bounds.c
if KK_HAVE_CHECK
check_PROGRAMS += tests/faults/check_faults
TESTS += tests/faults/check_faults
tests_faults_check_faults_SOURCES = tests/faults/check_faults.c tests/testutil.h
tests_faults_check_faults_CPPFLAGS = $(TEST_CPPFLAGS)
tests_faults_check_faults_CFLAGS = $(TEST_CFLAGS)
tests_faults_check_faults_LDADD = libkk.la $(CHECK_LIBS) $(PTHREAD_CFLAGS)

# One program per backend (as the conformance suite): refused launches, 8
# threads launching at once, and bounds checking on the host backends.
check_PROGRAMS += tests/faults/faults
tests_faults_faults_SOURCES = tests/faults/faults.c tests/faults/faults.h tests/testutil.h
tests_faults_faults_CPPFLAGS = $(TEST_CPPFLAGS)
tests_faults_faults_CFLAGS = $(TEST_CFLAGS)
FAULTS_KERNELS = tests/faults/kernels.kk.o tests/faults/bounds.kk.o
tests_faults_faults_LDADD = $(FAULTS_KERNELS) libkk.la $(CHECK_LIBS) $(PTHREAD_CFLAGS)
EXTRA_tests_faults_faults_DEPENDENCIES = $(FAULTS_KERNELS)
FAULTS_TESTS = tests/faults/serial.sh tests/faults/threads.sh tests/faults/openmp.sh tests/faults/opencl.sh \
	tests/faults/conformance-bounds.sh
TESTS += $(FAULTS_TESTS)

# The whole conformance suite once more, its kernels built with kkcc
# --bounds-check: no access of any kernel kind, layout or rank is refused
# wrongly.  Run on threads (teams of several threads, barriers) in make check.
check_PROGRAMS += tests/faults/conformance-bounds
tests_faults_conformance_bounds_SOURCES = $(tests_conformance_conformance_SOURCES)
tests_faults_conformance_bounds_CPPFLAGS = $(TEST_CPPFLAGS)
tests_faults_conformance_bounds_CFLAGS = $(TEST_CFLAGS)
FAULTS_CONF_KERNELS = tests/faults/conformance-bc.kk.o tests/faults/conformance_hier-bc.kk.o
tests_faults_conformance_bounds_LDADD = $(FAULTS_CONF_KERNELS) libkk.la $(CHECK_LIBS) $(PTHREAD_CFLAGS) -lm
EXTRA_tests_faults_conformance_bounds_DEPENDENCIES = $(FAULTS_CONF_KERNELS)
endif
dist_check_SCRIPTS += $(FAULTS_TESTS)
EXTRA_DIST += tests/faults/kernels.kk.c tests/faults/bounds.kk.c
CLEANFILES += $(FAULTS_KERNELS) $(FAULTS_CONF_KERNELS)

# The test kernels for the host and, where it is built, the SPIR-V target
# (the opencl run); no other device target, to keep the build short.  The
# bounds-checked ones for the host alone: only host targets check bounds yet.
if KK_SPIRV_TARGET
FAULTS_KKCC_TARGETS = host,spirv
else
FAULTS_KKCC_TARGETS = host
endif
tests/faults/kernels.kk.o: tests/faults/kernels.kk.c tests/faults/faults.h $(KKCC_DEPS)
	@$(MKDIR_P) $(@D)
	$(KKCC_V)$(KKCC) --targets=$(FAULTS_KKCC_TARGETS) $(AM_CFLAGS) $(CFLAGS) -c $< -o $@
tests/faults/bounds.kk.o: tests/faults/bounds.kk.c tests/faults/faults.h $(KKCC_DEPS)
	@$(MKDIR_P) $(@D)
	$(KKCC_V)$(KKCC) --targets=host --bounds-check $(AM_CFLAGS) $(CFLAGS) -c $< -o $@
tests/faults/conformance-bc.kk.o: tests/conformance/kernels.kk.c tests/conformance/conformance.h $(KKCC_DEPS)
	@$(MKDIR_P) $(@D)
	$(KKCC_V)$(KKCC) --targets=host --bounds-check $(AM_CFLAGS) $(CFLAGS) -c $< -o $@
tests/faults/conformance_hier-bc.kk.o: tests/conformance/kernels_hier.kk.c tests/conformance/conformance.h $(KKCC_DEPS)
	@$(MKDIR_P) $(@D)
	$(KKCC_V)$(KKCC) --targets=host --bounds-check $(AM_CFLAGS) $(CFLAGS) -c $< -o $@
