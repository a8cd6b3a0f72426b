# plugins/hip/local.mk -- the HIP backend (included by the top Makefile.am): the hip target's header and recipe, kk_hip.so.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += targets/hip.json.in
kktarget_HEADERS += include/kk/target/hip.h
if KK_BUILD_HIP
plugin_LTLIBRARIES += plugins/kk_hip.la
plugins_kk_hip_la_SOURCES = plugins/hip/hip_plugin.c plugins/hip/hip_memory.c plugins/hip/hip_instance.c \
	plugins/hip/hip_module.c plugins/hip/hip_internal.h plugins/hip/hip_driver.h plugins/hip/hip_error.h
plugins_kk_hip_la_CPPFLAGS = $(AM_CPPFLAGS) $(HIP_CFLAGS)
plugins_kk_hip_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS) -fvisibility=hidden
plugins_kk_hip_la_LIBADD = plugins/gpu/libkkgpu.la $(LIBS)
plugins_kk_hip_la_LDFLAGS = $(KK_MODULE_FLAGS) $(PTHREAD_CFLAGS) -export-symbols-regex '^kk_plugin_hip_entry$$'
nodist_target_DATA += targets/hip.json
KKCC_DEPS += $(top_srcdir)/include/kk/target/hip.h $(top_srcdir)/include/kk/target/gpu_launch.h \
	$(top_srcdir)/include/kk/target/simt.h $(top_srcdir)/include/kk/target/gpu_common.h \
	$(top_srcdir)/include/kk/target/gpu_atomics.h
endif
