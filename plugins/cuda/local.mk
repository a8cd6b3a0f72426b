# plugins/cuda/local.mk -- the CUDA backend (included by the top Makefile.am): the cuda target's headers and recipe, kk_cuda.so.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
EXTRA_DIST += targets/cuda.json.in plugins/gpu/gpu_remap.cu
kktarget_HEADERS += include/kk/target/cuda.h include/kk/target/gpu_launch.h include/kk/target/simt.h \
	include/kk/target/gpu_common.h include/kk/target/gpu_atomics.h
if KK_BUILD_CUDA
plugin_LTLIBRARIES += plugins/kk_cuda.la
plugins_kk_cuda_la_SOURCES = plugins/cuda/cuda_plugin.c plugins/cuda/cuda_memory.c plugins/cuda/cuda_instance.c \
	plugins/cuda/cuda_module.c plugins/cuda/cuda_jit.c plugins/cuda/cuda_internal.h plugins/cuda/cuda_driver.h \
	plugins/cuda/cuda_error.h
# the GPU layer's copy-between-layouts kernels, compiled by nvcc into a fatbin the plugin embeds (a cubin
# per configured architecture and the newest one's PTX, for later GPUs)
nodist_plugins_kk_cuda_la_SOURCES = plugins/cuda/cuda_remap_image.c
plugins/cuda/cuda_remap_image.c: $(srcdir)/plugins/gpu/gpu_remap.cu $(srcdir)/plugins/gpu/gpu_remap.h
	@$(MKDIR_P) plugins/cuda
	$(AM_V_GEN)ptx=`echo "$(KK_CUDA_ARCHS)" | sed 's/.*,//; s/[^0-9]//g'` && \
	$(NVCC) -O3 $(NVCC_GENCODE) -gencode=arch=compute_$$ptx,code=compute_$$ptx --fatbin -I$(srcdir)/plugins/gpu \
	  $(srcdir)/plugins/gpu/gpu_remap.cu -o plugins/cuda/cuda_remap.fatbin && \
	"$(BIN2C)" --const --type longlong --name cuda_remap_image plugins/cuda/cuda_remap.fatbin > $@.tmp && \
	mv $@.tmp $@
CLEANFILES += plugins/cuda/cuda_remap_image.c plugins/cuda/cuda_remap.fatbin
plugins_kk_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
plugins_kk_cuda_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS) -fvisibility=hidden
plugins_kk_cuda_la_LIBADD = plugins/gpu/libkkgpu.la $(LIBS)
plugins_kk_cuda_la_LDFLAGS = $(KK_MODULE_FLAGS) $(PTHREAD_CFLAGS) -export-symbols-regex '^kk_plugin_cuda_entry$$'
nodist_target_DATA += targets/cuda.json
KKCC_DEPS += $(top_srcdir)/include/kk/target/cuda.h $(top_srcdir)/include/kk/target/gpu_launch.h \
	$(top_srcdir)/include/kk/target/simt.h $(top_srcdir)/include/kk/target/gpu_common.h \
	$(top_srcdir)/include/kk/target/gpu_atomics.h
CONFORMANCE_CUDA = tests/conformance-cuda.sh
endif
