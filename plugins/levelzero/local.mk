# plugins/levelzero/local.mk -- the Level Zero backend (included by the top Makefile.am); it runs the SPIR-V target's images.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += maint/build-ze-null.sh tests/levelzero-null.sh tests/conformance-levelzero.sh
if KK_BUILD_LEVELZERO
plugin_LTLIBRARIES += plugins/kk_levelzero.la
plugins_kk_levelzero_la_SOURCES = plugins/levelzero/levelzero_plugin.c plugins/levelzero/levelzero_memory.c \
	plugins/levelzero/levelzero_instance.c plugins/levelzero/levelzero_module.c plugins/levelzero/levelzero_launch.c \
	plugins/levelzero/levelzero_internal.h plugins/levelzero/levelzero_driver.h plugins/levelzero/levelzero_error.h
plugins_kk_levelzero_la_CPPFLAGS = $(AM_CPPFLAGS) $(LEVELZERO_CFLAGS)
plugins_kk_levelzero_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS) -fvisibility=hidden
plugins_kk_levelzero_la_LIBADD = plugins/gpu/libkkgpu.la $(LIBS)
plugins_kk_levelzero_la_LDFLAGS = $(KK_MODULE_FLAGS) $(PTHREAD_CFLAGS) -export-symbols-regex '^kk_plugin_levelzero_entry$$'

# The plugin's API flow against the loader's null driver (maint/build-ze-null.sh),
# watched through the loader's tracing layer; skipped where the null driver is missing.
if KK_HAVE_CHECK
check_PROGRAMS += tests/levelzero/null_flow
tests_levelzero_null_flow_SOURCES = tests/levelzero/null_flow.c
tests_levelzero_null_flow_CPPFLAGS = $(TEST_CPPFLAGS) $(LEVELZERO_CFLAGS)
tests_levelzero_null_flow_CFLAGS = $(AM_CFLAGS)
tests_levelzero_null_flow_LDADD = $(CONFORMANCE_KERNELS) libkk.la $(LIBS) -lm
EXTRA_tests_levelzero_null_flow_DEPENDENCIES = $(CONFORMANCE_KERNELS)
TESTS += tests/levelzero-null.sh
endif
endif
