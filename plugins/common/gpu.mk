# plugins/common/gpu.mk -- the GPU plugin layer (included by the top Makefile.am): linked statically into cuda, hip, levelzero and opencl.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
noinst_LTLIBRARIES += plugins/common/libkkgpu.la
plugins_common_libkkgpu_la_SOURCES = plugins/common/gpu.c plugins/common/gpu.h plugins/common/gpu_simt.c plugins/common/gpu_spirv.c plugins/common/gpu_graph.c \
	plugins/common/safe_path.c plugins/common/safe_path.h
plugins_common_libkkgpu_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS) -fvisibility=hidden
