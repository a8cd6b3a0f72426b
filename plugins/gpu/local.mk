# plugins/gpu/local.mk -- the GPU plugin layer (included by the top Makefile.am): linked statically into cuda, hip, levelzero and opencl.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
noinst_LTLIBRARIES += plugins/gpu/libkkgpu.la
plugins_gpu_libkkgpu_la_SOURCES = plugins/gpu/gpu.c plugins/gpu/gpu.h plugins/gpu/gpu_simt.c plugins/gpu/gpu_spirv.c plugins/gpu/gpu_graph.c plugins/gpu/gpu_remap.h \
	core/safe_path.c core/safe_path.h
plugins_gpu_libkkgpu_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS) -fvisibility=hidden
# the copy-between-layouts kernels in OpenCL C: built at run time by opencl, into SPIR-V at build time for levelzero
EXTRA_DIST += plugins/gpu/gpu_remap.cl
