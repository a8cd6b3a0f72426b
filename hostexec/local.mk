# hostexec/local.mk -- the host executor (included by the top Makefile.am): linked statically into libkk, for its serial backend, and into the threads and openmp plugins.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
noinst_LTLIBRARIES += hostexec/libkkhost.la
hostexec_libkkhost_la_SOURCES = hostexec/host_common.c hostexec/host_common.h hostexec/host_sync.c hostexec/host_sync.h \
	hostexec/host_memops.c hostexec/host_memops.h hostexec/host_option.c hostexec/host_option.h hostexec/host_error.h \
	hostexec/host_exec.c hostexec/host_exec.h hostexec/host_task.h hostexec/host_remap.c hostexec/host_remap.h hostexec/host_graph.c hostexec/host_graph.h
hostexec_libkkhost_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
