# plugins/levelzero/local.mk -- the Level Zero backend (included by the top Makefile.am); it runs the SPIR-V target's images.
EXTRA_DIST += tools/build-ze-null.sh
if KK_BUILD_LEVELZERO
plugin_LTLIBRARIES += plugins/kk_levelzero.la
plugins_kk_levelzero_la_SOURCES = plugins/levelzero/levelzero_plugin.c plugins/levelzero/levelzero_memory.c \
	plugins/levelzero/levelzero_instance.c plugins/levelzero/levelzero_parallel.c \
	plugins/levelzero/levelzero_internal.h plugins/levelzero/levelzero_driver.h plugins/levelzero/levelzero_error.h
plugins_kk_levelzero_la_CPPFLAGS = $(AM_CPPFLAGS) $(LEVELZERO_CFLAGS)
plugins_kk_levelzero_la_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS) -fvisibility=hidden
plugins_kk_levelzero_la_LIBADD = $(LIBS)
plugins_kk_levelzero_la_LDFLAGS = $(KK_MODULE_FLAGS) $(PTHREAD_CFLAGS) -export-symbols-regex '^kk_plugin_levelzero_entry$$'
endif
