# plugins/openmp/local.mk -- the openmp backend, kk_openmp.so: one `omp parallel` region per launch.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
if KK_BUILD_OPENMP
plugin_LTLIBRARIES += plugins/kk_openmp.la
plugins_kk_openmp_la_SOURCES = \
	plugins/openmp/openmp_internal.h \
	plugins/openmp/openmp_error.h \
	plugins/openmp/openmp_plugin.c \
	plugins/openmp/openmp_memory.c \
	plugins/openmp/openmp_instance.c \
	plugins/openmp/openmp_launch.c
plugins_kk_openmp_la_CPPFLAGS = $(AM_CPPFLAGS)
plugins_kk_openmp_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(PTHREAD_CFLAGS) $(OPENMP_CFLAGS)
plugins_kk_openmp_la_LIBADD = hostexec/libkkhost.la
plugins_kk_openmp_la_LDFLAGS = $(KK_MODULE_FLAGS) $(PTHREAD_CFLAGS) $(OPENMP_CFLAGS) $(KK_OPENMP_LDFLAGS) \
	-export-symbols-regex '^kk_plugin_openmp_entry$$'
endif
