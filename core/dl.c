/* core/dl.c -- a small wrapper over libltdl that reports why a shared object could not be opened. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ltdl.h>
#ifdef HAVE_DLFCN_H
#include <dlfcn.h>
#endif

#include "dl.h"
#include "status.h"

struct kk__dl {
  lt_dlhandle handle;
};

int kk__dl_init(void) { return lt_dlinit(); }

void kk__dl_exit(void) { lt_dlexit(); }

/* libltdl reports most failures as "file not found".  Ask the file system and
 * the system loader what really went wrong, so that a user reads "invalid ELF
 * header" or "undefined symbol: cuInit" instead. */
static void diagnose(const char *path, const char *lt_reason, char *why, size_t why_size) {
  struct stat sb;
  if (stat(path, &sb) != 0) {
    kk__snprintf(why, why_size, "%s: %s", path, strerror(errno));
    return;
  }
  if (S_ISDIR(sb.st_mode)) {
    kk__snprintf(why, why_size, "%s: is a directory", path);
    return;
  }
#ifdef HAVE_DLFCN_H
  dlerror();
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    kk__snprintf(why, why_size, "%s", e ? e : lt_reason);
    return;
  }
  dlclose(h);
#endif
  kk__snprintf(why, why_size, "%s: %s", path, lt_reason ? lt_reason : "cannot be opened");
}

kk__dl_t *kk__dl_open(const char *path, char *why, size_t why_size) {
  kk__dl_t *dl = calloc(1, sizeof *dl);
  if (!dl) {
    kk__snprintf(why, why_size, "%s: out of memory", path);
    return NULL;
  }
#ifdef HAVE_DLFCN_H
  /* libltdl binds lazily; binding everything first makes an unresolved symbol
   * a load failure with its name instead of a crash at the first call.  The
   * object stays loaded (and bound) while libltdl opens it again. */
  dlerror();
  void *now = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!now) {
    diagnose(path, NULL, why, why_size);
    free(dl);
    return NULL;
  }
#endif
  lt_dladvise advise;
  if (lt_dladvise_init(&advise) || lt_dladvise_local(&advise)) {
    kk__snprintf(why, why_size, "%s: libltdl: %s", path, lt_dlerror());
#ifdef HAVE_DLFCN_H
    dlclose(now);
#endif
    free(dl);
    return NULL;
  }
  dl->handle = lt_dlopenadvise(path, advise);
  lt_dladvise_destroy(&advise);
#ifdef HAVE_DLFCN_H
  dlclose(now);
#endif
  if (!dl->handle) {
    diagnose(path, lt_dlerror(), why, why_size);
    free(dl);
    return NULL;
  }
  return dl;
}

void *kk__dl_sym(kk__dl_t *dl, const char *symbol) { return dl ? lt_dlsym(dl->handle, symbol) : NULL; }

void kk__dl_close(kk__dl_t *dl) {
  if (!dl)
    return;
  lt_dlclose(dl->handle);
  free(dl);
}
