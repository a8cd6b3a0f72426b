# plugins/hip/local.mk -- the HIP backend (included by the top Makefile.am): the hip target's header and recipe, kk_hip.so.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += targets/hip.json.in
kktarget_HEADERS += include/kk/target/hip.h
if KK_BUILD_HIP
plugin_LTLIBRARIES += plugins/kk_hip.la
plugins_kk_hip_la_SOURCES = plugins/hip/hip_plugin.c plugins/hip/hip_memory.c plugins/hip/hip_instance.c \
	plugins/hip/hip_module.c plugins/hip/hip_internal.h plugins/hip/hip_driver.h plugins/hip/hip_error.h
# the GPU layer's copy-between-layouts kernels, compiled by hipcc into a clang offload bundle with a code object
# per configured architecture, which the plugin embeds as a byte array (od and sed: no tool beyond POSIX)
nodist_plugins_kk_hip_la_SOURCES = plugins/hip/hip_remap_image.c
plugins/hip/hip_remap_image.c: $(srcdir)/plugins/gpu/gpu_remap.cu $(srcdir)/plugins/gpu/gpu_remap.h
	@$(MKDIR_P) plugins/hip
	$(AM_V_GEN)$(HIPCC) -x hip -O3 -std=c++17 -fno-gpu-rdc --cuda-device-only -c \
	  `echo "$(KK_HIP_ARCHS)" | sed 's/^/--offload-arch=/; s/,/ --offload-arch=/g'` $(HIP_CFLAGS) \
	  -I$(srcdir)/plugins/gpu $(srcdir)/plugins/gpu/gpu_remap.cu -o plugins/hip/hip_remap.co && \
	{ echo '/* plugins/gpu/gpu_remap.cu for $(KK_HIP_ARCHS), built by $(HIPCC); generated, not edited */'; \
	  echo '#include <stdalign.h>'; \
	  echo 'alignas(64) const unsigned char hip_remap_image[] = {'; \
	  od -An -v -tx1 plugins/hip/hip_remap.co | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const unsigned long hip_remap_image_size = sizeof hip_remap_image;'; } > $@.tmp && \
	mv $@.tmp $@
CLEANFILES += plugins/hip/hip_remap_image.c plugins/hip/hip_remap.co
plugins_kk_hip_la_CPPFLAGS = $(AM_CPPFLAGS) $(HIP_CFLAGS)
plugins_kk_hip_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS) -fvisibility=hidden
plugins_kk_hip_la_LIBADD = plugins/gpu/libkkgpu.la $(LIBS)
plugins_kk_hip_la_LDFLAGS = $(KK_MODULE_FLAGS) $(PTHREAD_CFLAGS) -export-symbols-regex '^kk_plugin_hip_entry$$'
nodist_target_DATA += targets/hip.json
KKCC_DEPS += $(top_srcdir)/include/kk/target/hip.h $(top_srcdir)/include/kk/target/gpu_launch.h \
	$(top_srcdir)/include/kk/target/simt.h $(top_srcdir)/include/kk/target/gpu_common.h \
	$(top_srcdir)/include/kk/target/gpu_atomics.h
endif
