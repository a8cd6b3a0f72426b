# plugins/threads/local.mk -- the threads backend, kk_threads.so: a pthreads pool, workers bound to cores with hwloc.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
if KK_BUILD_THREADS
plugin_LTLIBRARIES += plugins/kk_threads.la
plugins_kk_threads_la_SOURCES = \
	plugins/threads/threads_internal.h \
	plugins/threads/threads_error.h \
	plugins/threads/threads_plugin.c \
	plugins/threads/threads_memory.c \
	plugins/threads/threads_instance.c \
	plugins/threads/threads_topo.c \
	plugins/threads/threads_pool.c \
	plugins/threads/threads_launch.c
plugins_kk_threads_la_CPPFLAGS = $(AM_CPPFLAGS)
plugins_kk_threads_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(PTHREAD_CFLAGS) $(HWLOC_CFLAGS)
plugins_kk_threads_la_LIBADD = hostexec/libkkhost.la $(HWLOC_LIBS)
plugins_kk_threads_la_LDFLAGS = $(KK_MODULE_FLAGS) $(PTHREAD_CFLAGS) \
	-export-symbols-regex '^kk_plugin_threads_entry$$'
endif
