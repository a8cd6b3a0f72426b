/* tools/kk-plugin-probe/kk-plugin-probe.c -- libkk's helper: loads one backend plugin and starts it as the loader would, in a process of its own, so that a plugin that crashes or hangs takes only this process down. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kk/plugin.h>

/*
 * usage (by libkk, not by people): kk-plugin-probe PLUGIN.so NAME
 *
 * Writes "stage S" lines to descriptor 3 before each stage -- load, entry,
 * init, devices, spaces, finalize -- and "done" when the plugin came through
 * all of them, crash-free, then exits 0 at once (no destructor of the
 * plugin runs).  A plugin that refuses this kk (NULL from its entry, an
 * error from init) is "done" too: the loader reports such refusals itself.
 * Anything it prints goes to stderr, whose last line libkk quotes when the
 * probe fails.
 */

static void say(const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0 && write(3, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1) < 0)
    _exit(2); /* libkk stopped listening */
}

static void done(void) {
  say("done\n");
  _exit(0);
}

static void hs_log(void *core, kk_log_level_t level, const char *fmt, ...) { (void)core, (void)level, (void)fmt; }

static kk_status_t hs_error(void *core, kk_status_t status, const char *native_name, int64_t native_code,
                            const char *fmt, ...) {
  (void)core, (void)native_name, (void)native_code, (void)fmt;
  return status;
}

static const char *hs_option(void *core, const char *key) {
  (void)core, (void)key;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "kk-plugin-probe: libkk's helper; usage: kk-plugin-probe PLUGIN.so NAME\n");
    return 2;
  }
  const char *path = argv[1], *name = argv[2];
  /* A crash must end this process by its signal, which libkk reports: a
   * sanitizer's handler (an ASan build of kk) would print and exit 1. */
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
    signal(fatal[i], SIG_DFL);
  say("stage load\n");
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    done(); /* the loader says why */
  char symbol[160];
  snprintf(symbol, sizeof symbol, "kk_plugin_%s_entry", name);
  void *sym = dlsym(h, symbol);
  if (!sym)
    done();
  kk_plugin_entry_fn entry;
  memcpy(&entry, &sym, sizeof entry);
  static const kk_plugin_config_t config = {.struct_size = sizeof config, .device_id = -1};
  static int core_token;
  const kk_host_services_t hs = {.struct_size = sizeof hs,
                                 .abi_version = KK_PLUGIN_ABI_VERSION,
                                 .core = &core_token,
                                 .log = hs_log,
                                 .error = hs_error,
                                 .option = hs_option,
                                 .config = &config};
  say("stage entry\n");
  const kk_plugin_ops_t *ops = entry(KK_PLUGIN_ABI_VERSION, &hs);
  /* the header must be there and of this major before any member is read */
  if (!ops || ops->struct_size < offsetof(kk_plugin_ops_t, init) ||
      KK_PLUGIN_ABI_MAJOR_OF(ops->abi_version) != KK_PLUGIN_ABI_MAJOR)
    done();
  kk_plugin_ops_t o;
  memset(&o, 0, sizeof o);
  memcpy(&o, ops, ops->struct_size < sizeof o ? ops->struct_size : sizeof o);
  if (!o.init || !o.device_count || !o.device_props || !o.space_count || !o.space_props)
    done();
  say("stage init\n");
  void *ctx = NULL;
  if (o.init(&hs, &ctx) != KK_OK)
    done();
  say("stage devices\n");
  const char *why = NULL;
  int32_t n = o.device_count(ctx, &why);
  for (int32_t d = 0; d < n && d < 64; d++) {
    kk_plugin_device_t p;
    memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    if (o.device_props(ctx, d, &p) != KK_OK)
      break;
  }
  say("stage spaces\n");
  int32_t ns = n > 0 ? o.space_count(ctx) : 0;
  for (int32_t s = 0; s < ns && s < 64; s++) {
    kk_plugin_space_t p;
    memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    if (o.space_props(ctx, s, &p) != KK_OK)
      break;
  }
  say("stage finalize\n");
  if (o.finalize)
    o.finalize(ctx);
  done();
}
