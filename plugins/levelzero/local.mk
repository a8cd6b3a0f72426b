# plugins/levelzero/local.mk -- the Level Zero backend (included by the top Makefile.am); it runs the SPIR-V target's images.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += maint/build-ze-null.sh tests/levelzero-null.sh tests/conformance-levelzero.sh
if KK_BUILD_LEVELZERO
plugin_LTLIBRARIES += plugins/kk_levelzero.la
plugins_kk_levelzero_la_SOURCES = plugins/levelzero/levelzero_plugin.c plugins/levelzero/levelzero_memory.c \
	plugins/levelzero/levelzero_instance.c plugins/levelzero/levelzero_module.c plugins/levelzero/levelzero_launch.c \
	plugins/levelzero/levelzero_remap.c plugins/levelzero/levelzero_internal.h plugins/levelzero/levelzero_driver.h \
	plugins/levelzero/levelzero_error.h
# the GPU layer's copy-between-layouts kernels (plugins/gpu/gpu_remap.cl after gpu_remap.h) as SPIR-V 1.2, made
# by the SPIR-V target's clang and llvm-spirv and checked by spirv-val, embedded as a byte array (od and sed)
nodist_plugins_kk_levelzero_la_SOURCES = plugins/levelzero/levelzero_remap_image.c
plugins/levelzero/levelzero_remap_image.c: $(srcdir)/plugins/gpu/gpu_remap.h $(srcdir)/plugins/gpu/gpu_remap.cl
	@$(MKDIR_P) plugins/levelzero
	$(AM_V_GEN)"$(KK_SPIRV_CLANG)" -x cl -cl-std=CL1.2 -target spir64 -O0 -Xclang -disable-O0-optnone \
	  -Xclang -finclude-default-header -include $(srcdir)/plugins/gpu/gpu_remap.h -emit-llvm \
	  -c $(srcdir)/plugins/gpu/gpu_remap.cl -o plugins/levelzero/levelzero_remap.bc && \
	"$(KK_LLVM_SPIRV)" --spirv-max-version=1.2 plugins/levelzero/levelzero_remap.bc -o plugins/levelzero/levelzero_remap.spv && \
	"$(KK_SPIRV_VAL)" plugins/levelzero/levelzero_remap.spv && \
	{ echo '/* plugins/gpu/gpu_remap.cl as SPIR-V, built by $(KK_SPIRV_CLANG) and $(KK_LLVM_SPIRV); generated, not edited */'; \
	  echo '#include <stdalign.h>'; \
	  echo 'alignas(8) const unsigned char levelzero_remap_image[] = {'; \
	  od -An -v -tx1 plugins/levelzero/levelzero_remap.spv | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const unsigned long levelzero_remap_image_size = sizeof levelzero_remap_image;'; } > $@.tmp && \
	mv $@.tmp $@
CLEANFILES += plugins/levelzero/levelzero_remap_image.c plugins/levelzero/levelzero_remap.bc plugins/levelzero/levelzero_remap.spv
plugins_kk_levelzero_la_CPPFLAGS = $(AM_CPPFLAGS) $(LEVELZERO_CFLAGS)
plugins_kk_levelzero_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS) -fvisibility=hidden
plugins_kk_levelzero_la_LIBADD = plugins/gpu/libkkgpu.la $(LIBS)
plugins_kk_levelzero_la_LDFLAGS = $(KK_MODULE_FLAGS) $(PTHREAD_CFLAGS) -export-symbols-regex '^kk_plugin_levelzero_entry$$'

# The plugin's API flow against the loader's null driver (maint/build-ze-null.sh),
# watched through the loader's tracing layer; skipped where the null driver is missing.
if KK_HAVE_CHECK
check_PROGRAMS += tests/levelzero/null_flow
tests_levelzero_null_flow_SOURCES = tests/levelzero/null_flow.c
tests_levelzero_null_flow_CPPFLAGS = $(TEST_CPPFLAGS) $(LEVELZERO_CFLAGS) -I$(srcdir)/plugins/gpu
tests_levelzero_null_flow_CFLAGS = $(AM_CFLAGS)
tests_levelzero_null_flow_LDADD = $(CONFORMANCE_KERNELS) libkk.la $(LIBS) -lm
EXTRA_tests_levelzero_null_flow_DEPENDENCIES = $(CONFORMANCE_KERNELS)
TESTS += tests/levelzero-null.sh
endif
endif
