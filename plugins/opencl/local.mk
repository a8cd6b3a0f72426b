# plugins/opencl/local.mk -- the OpenCL backend (included by the top Makefile.am).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += targets/spirv.json.in include/kk/target/spirv_generic_atomics.ll.h tests/conformance-opencl.sh tests/remap-opencl.sh tests/lsan-opencl.supp \
	tests/spirv-modules.sh tests/ocloc.sh maint/fetch-ocloc.sh
kktarget_HEADERS += include/kk/target/spirv.h include/kk/target/spirv_launch.h
kktargetdata_DATA = include/kk/target/spirv_generic_atomics.ll.h
kktargetdatadir = $(includedir)/kk/target
if KK_SPIRV_TARGET
nodist_target_DATA += targets/spirv.json
# Every SPIR-V image linked into the conformance suite, the benchmarks and the
# examples, as the plugins receive it: spirv-val on each, and ocloc for Intel
# GPUs where it is installed (tests/ocloc.sh skips with the reason elsewhere).
check_PROGRAMS += tests/spirv_modules
tests_spirv_modules_SOURCES = tests/spirv_modules.c tests/module_collect.h
SPIRV_TEST_KERNELS = $(CONFORMANCE_KERNELS) $(BENCH_KERNELS) examples/cg/cg.kk.o tests/headers/headers.kk.o
tests_spirv_modules_LDADD = $(SPIRV_TEST_KERNELS) -lm
tests_spirv_modules_LDFLAGS = $(OPENMP_CFLAGS)
EXTRA_tests_spirv_modules_DEPENDENCIES = $(SPIRV_TEST_KERNELS)
TESTS += tests/spirv-modules.sh tests/ocloc.sh
KKCC_DEPS += $(top_srcdir)/include/kk/target/spirv.h $(top_srcdir)/include/kk/target/spirv_launch.h \
	$(top_srcdir)/include/kk/target/gpu_common.h $(top_srcdir)/include/kk/target/gpu_atomics.h \
	$(top_srcdir)/include/kk/target/spirv_generic_atomics.ll.h
endif
if KK_BUILD_OPENCL
plugin_LTLIBRARIES += plugins/kk_opencl.la
plugins_kk_opencl_la_SOURCES = plugins/opencl/opencl_plugin.c plugins/opencl/opencl_memory.c \
	plugins/opencl/opencl_instance.c plugins/opencl/opencl_module.c plugins/opencl/opencl_launch.c plugins/opencl/opencl_internal.h \
	plugins/opencl/opencl_remap.c plugins/opencl/opencl_driver.h plugins/opencl/opencl_error.h
# the GPU layer's copy-between-layouts kernels in OpenCL C (plugins/gpu/gpu_remap.cl after gpu_remap.h, one
# source), embedded as a NUL-terminated byte array (od and sed: no tool beyond POSIX) that the plugin builds
# with clCreateProgramWithSource at the first such copy
nodist_plugins_kk_opencl_la_SOURCES = plugins/opencl/opencl_remap_source.c
plugins/opencl/opencl_remap_source.c: $(srcdir)/plugins/gpu/gpu_remap.h $(srcdir)/plugins/gpu/gpu_remap.cl
	@$(MKDIR_P) plugins/opencl
	$(AM_V_GEN){ echo '/* plugins/gpu/gpu_remap.h and gpu_remap.cl as one OpenCL C source; generated, not edited */'; \
	  echo 'const char opencl_remap_source[] = {'; \
	  cat $(srcdir)/plugins/gpu/gpu_remap.h $(srcdir)/plugins/gpu/gpu_remap.cl | od -An -v -tx1 | \
	    sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0};'; } > $@.tmp && mv $@.tmp $@
CLEANFILES += plugins/opencl/opencl_remap_source.c
plugins_kk_opencl_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS) -fvisibility=hidden
plugins_kk_opencl_la_LIBADD = plugins/gpu/libkkgpu.la $(LIBS)
plugins_kk_opencl_la_LDFLAGS = $(KK_MODULE_FLAGS) $(PTHREAD_CFLAGS) -export-symbols-regex '^kk_plugin_opencl_entry$$'
if KK_HAVE_CHECK
TESTS += tests/remap-opencl.sh
endif
endif
