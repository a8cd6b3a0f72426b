# tests/faults/local.mk -- bounds checking in libkk, and the tests of bad
# input that once crashed, concurrent use, broken plugins and bounds checking.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += tests/faults/local.mk maint/compare-kernel-images.sh tests/faults/tsan.sh tests/faults/tsan.supp \
	tests/faults/fake-cuda-env.sh
# libFuzzer harnesses and their seed corpora (tests/fuzz/run.sh, .ci/run)
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/fuzz_config_json.c tests/fuzz/fuzz_settings.c \
	tests/fuzz/fuzz_module_table.c tests/fuzz/corpus

# Every test probes the plugins it loads with the build's helper, caching
# the verdicts in the build tree.
AM_TESTS_ENVIRONMENT += \
	KK_PLUGIN_PROBE_HELPER='$(abs_top_builddir)/tools/kk-plugin-probe/kk-plugin-probe$(EXEEXT)'; \
	export KK_PLUGIN_PROBE_HELPER; \
	KK_PLUGIN_CACHE_DIR='$(abs_top_builddir)/tests/faults/plugin-cache'; export KK_PLUGIN_CACHE_DIR;
clean-local: clean-local-faults
clean-local-faults:
	-rm -rf tests/faults/plugin-cache
.PHONY: clean-local-faults

# libkk: the failure records of bounds-checked host launches (kkcc --bounds-check),
# and the probe of new or changed plugins in a helper process
core_libkkcore_la_SOURCES += core/bounds.c core/bounds.h core/probe.c core/probe.h
core_libkkcore_la_CPPFLAGS += -DKK_PROBE_HELPER='"$(pkglibexecdir)/kk-plugin-probe"'
pkglibexec_PROGRAMS = tools/kk-plugin-probe/kk-plugin-probe
tools_kk_plugin_probe_kk_plugin_probe_SOURCES = tools/kk-plugin-probe/kk-plugin-probe.c
tools_kk_plugin_probe_kk_plugin_probe_LDADD = $(LIBS)
if KK_HAVE_CHECK
check_PROGRAMS += tests/faults/check_faults
TESTS += tests/faults/check_faults
tests_faults_check_faults_SOURCES = tests/faults/check_faults.c tests/testutil.h
tests_faults_check_faults_CPPFLAGS = $(TEST_CPPFLAGS)
tests_faults_check_faults_CFLAGS = $(TEST_CFLAGS)
tests_faults_check_faults_LDADD = libkk.la $(CHECK_LIBS) $(PTHREAD_CFLAGS)

# Plugins that crash or hang while loaded: probed in the helper, skipped, cached.
check_PROGRAMS += tests/faults/check_probe
TESTS += tests/faults/check_probe
tests_faults_check_probe_SOURCES = tests/faults/check_probe.c tests/testutil.h
tests_faults_check_probe_CPPFLAGS = $(TEST_CPPFLAGS) \
	-DKK_TEST_PROBE_HELPER='"$(abs_top_builddir)/tools/kk-plugin-probe/kk-plugin-probe$(EXEEXT)"'
tests_faults_check_probe_CFLAGS = $(TEST_CFLAGS)
tests_faults_check_probe_LDADD = libkk.la $(CHECK_LIBS)
EXTRA_tests_faults_check_probe_DEPENDENCIES = tools/kk-plugin-probe/kk-plugin-probe$(EXEEXT)

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
	tests/faults/conformance-bounds.sh tests/faults/device-fault-fake.sh tests/faults/bounds-fake.sh \
	tests/faults/remap-fake.sh tests/faults/async-fake.sh
TESTS += $(FAULTS_TESTS)

# A fake libcuda whose 'bad_write' kernel leaves a sticky fault: device-fault-fake.sh runs
# device-fault.sh with it, so that the GPU layer's lost-device message is checked without a GPU.
if KK_BUILD_CUDA
check_LTLIBRARIES += tests/faults/fake_cuda.la
tests_faults_fake_cuda_la_SOURCES = tests/faults/fake_cuda.c
tests_faults_fake_cuda_la_LDFLAGS = $(FAKE_LDFLAGS)
endif

# The whole conformance suite once more, its kernels built with kkcc
# --bounds-check: no access of any kernel kind, layout or rank is refused
# wrongly.  Run on threads (teams of several threads, barriers) in make check;
# conformance-bounds.sh BACKEND runs it elsewhere (cuda, hip: checked images).
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
# A kernel faulting on a GPU (maint/gpu-run.sh runs it on cuda): not in TESTS, since on a host backend
# the bad write is the test's own segfault.
EXTRA_DIST += tests/faults/device-fault.sh tests/faults/fake_cuda.c
CLEANFILES += $(FAULTS_KERNELS) $(FAULTS_CONF_KERNELS)

# The test kernels for every target kkcc builds, plain and bounds-checked
# (the GPU backends run the dispatch and concurrency cases, device-fault.sh,
# and on cuda and hip the bounds cases: spirv images are built unchecked,
# with kkcc's note).
tests/faults/kernels.kk.o: tests/faults/kernels.kk.c tests/faults/faults.h $(KKCC_DEPS)
	@$(MKDIR_P) $(@D)
	$(KKCC_V)$(KKCC) $(AM_CFLAGS) $(CFLAGS) -c $< -o $@
tests/faults/bounds.kk.o: tests/faults/bounds.kk.c tests/faults/faults.h $(KKCC_DEPS)
	@$(MKDIR_P) $(@D)
	$(KKCC_V)$(KKCC) --bounds-check $(AM_CFLAGS) $(CFLAGS) -c $< -o $@
tests/faults/conformance-bc.kk.o: tests/conformance/kernels.kk.c tests/conformance/conformance.h $(KKCC_DEPS)
	@$(MKDIR_P) $(@D)
	$(KKCC_V)$(KKCC) --bounds-check $(AM_CFLAGS) $(CFLAGS) -c $< -o $@
tests/faults/conformance_hier-bc.kk.o: tests/conformance/kernels_hier.kk.c tests/conformance/conformance.h $(KKCC_DEPS)
	@$(MKDIR_P) $(@D)
	$(KKCC_V)$(KKCC) --bounds-check $(AM_CFLAGS) $(CFLAGS) -c $< -o $@

# The device branch of the dispatch path without a GPU: a fake device backend
# that finds kernels at their first launch, 8 threads making those launches
# while another registers and unregisters a module (tests/faults/tsan.sh runs
# it under ThreadSanitizer).
check_LTLIBRARIES += tests/fake/kk_fake_device.la
tests_fake_kk_fake_device_la_SOURCES = tests/fake/fake_plugin.c
tests_fake_kk_fake_device_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=fake_device -DFAKE_MODE_DEVICE
tests_fake_kk_fake_device_la_LDFLAGS = $(FAKE_LDFLAGS)
check_PROGRAMS += tests/faults/race
TESTS += tests/faults/race
tests_faults_race_SOURCES = tests/faults/race.c
tests_faults_race_CPPFLAGS = $(TEST_CPPFLAGS)
tests_faults_race_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
tests_faults_race_LDADD = libkk.la $(PTHREAD_CFLAGS)
EXTRA_tests_faults_race_DEPENDENCIES = tests/fake/kk_fake_device.la

# Fake plugins that segfault, abort or hang in their entry or in init (the
# probe's tests), built from tests/fake/fake_plugin.c like the loader's.
check_LTLIBRARIES += tests/fake/kk_fake_segv_entry.la tests/fake/kk_fake_abort_entry.la \
	tests/fake/kk_fake_hang_entry.la tests/fake/kk_fake_segv_init.la tests/fake/kk_fake_abort_init.la \
	tests/fake/kk_fake_hang_init.la
tests_fake_kk_fake_segv_entry_la_SOURCES = tests/fake/fake_plugin.c
tests_fake_kk_fake_segv_entry_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=fake_segv_entry -DFAKE_MODE_SEGV_ENTRY
tests_fake_kk_fake_segv_entry_la_LDFLAGS = $(FAKE_LDFLAGS)
tests_fake_kk_fake_abort_entry_la_SOURCES = tests/fake/fake_plugin.c
tests_fake_kk_fake_abort_entry_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=fake_abort_entry -DFAKE_MODE_ABORT_ENTRY
tests_fake_kk_fake_abort_entry_la_LDFLAGS = $(FAKE_LDFLAGS)
tests_fake_kk_fake_hang_entry_la_SOURCES = tests/fake/fake_plugin.c
tests_fake_kk_fake_hang_entry_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=fake_hang_entry -DFAKE_MODE_HANG_ENTRY
tests_fake_kk_fake_hang_entry_la_LDFLAGS = $(FAKE_LDFLAGS)
tests_fake_kk_fake_segv_init_la_SOURCES = tests/fake/fake_plugin.c
tests_fake_kk_fake_segv_init_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=fake_segv_init -DFAKE_MODE_SEGV_INIT
tests_fake_kk_fake_segv_init_la_LDFLAGS = $(FAKE_LDFLAGS)
tests_fake_kk_fake_abort_init_la_SOURCES = tests/fake/fake_plugin.c
tests_fake_kk_fake_abort_init_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=fake_abort_init -DFAKE_MODE_ABORT_INIT
tests_fake_kk_fake_abort_init_la_LDFLAGS = $(FAKE_LDFLAGS)
tests_fake_kk_fake_hang_init_la_SOURCES = tests/fake/fake_plugin.c
tests_fake_kk_fake_hang_init_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NAME=fake_hang_init -DFAKE_MODE_HANG_INIT
tests_fake_kk_fake_hang_init_la_LDFLAGS = $(FAKE_LDFLAGS)
