# tests/graph.mk -- the graph tests, included by Makefile.am: their part of the conformance suite, and
# the threads backend once more as a plugin built against plugin ABI 1.2 (without the graph members), on which
# the graph tests prove the core's replay.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
if KK_HAVE_CHECK
tests_conformance_conformance_SOURCES += tests/conformance/conformance_graph.c
if KK_BUILD_THREADS
check_LTLIBRARIES += tests/oldabi/kk_threads12.la
tests_oldabi_kk_threads12_la_SOURCES = tests/oldabi/threads12.c $(plugins_kk_threads_la_SOURCES)
tests_oldabi_kk_threads12_la_CPPFLAGS = $(AM_CPPFLAGS)
tests_oldabi_kk_threads12_la_CFLAGS = $(plugins_kk_threads_la_CFLAGS)
tests_oldabi_kk_threads12_la_LIBADD = $(plugins_kk_threads_la_LIBADD)
tests_oldabi_kk_threads12_la_LDFLAGS = $(FAKE_LDFLAGS) $(PTHREAD_CFLAGS) \
	-export-symbols-regex '^kk_plugin_threads12_entry$$'
endif
TESTS += tests/conformance-threads12.sh
endif
dist_check_SCRIPTS += tests/conformance-threads12.sh
