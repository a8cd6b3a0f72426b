/* plugins/cuda/cuda_jit.c -- NVRTC fallback for devices a fatbin does not cover, with a shared on-disk cache. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nvrtc.h>

#include "cuda_internal.h"
#include "safe_path.h"

typedef struct nvrtc_api {
  nvrtcResult (*nvrtcVersion)(int *, int *);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                                    const char *const *);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
  const char *(*nvrtcGetErrorString)(nvrtcResult);
} nvrtc_api_t;

/* NVRTC is opened only when a module needs it; the first name that loads wins. */
static void *open_nvrtc(nvrtc_api_t *a, char *why, size_t why_size) {
  static const char *names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  void *lib = NULL;
  const char *env = getenv("KK_NVRTC_LIBRARY");
  if (env && *env)
    lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
  for (size_t i = 0; !lib && i < sizeof names / sizeof *names; i++)
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, why_size, "NVRTC is not available (%s)", e ? e : "libnvrtc.so not found");
    return NULL;
  }
#define NVRTC_SYM(name)                                                       \
  {                                                                           \
    void *p_ = dlsym(lib, #name);                                             \
    if (!p_) {                                                                \
      snprintf(why, why_size, "NVRTC has no %s", #name);                      \
      dlclose(lib);                                                           \
      return NULL;                                                            \
    }                                                                         \
    memcpy(&a->name, &p_, sizeof p_);                                         \
  }
  NVRTC_SYM(nvrtcVersion)
  NVRTC_SYM(nvrtcCreateProgram)
  NVRTC_SYM(nvrtcCompileProgram)
  NVRTC_SYM(nvrtcGetCUBINSize)
  NVRTC_SYM(nvrtcGetCUBIN)
  NVRTC_SYM(nvrtcGetProgramLogSize)
  NVRTC_SYM(nvrtcGetProgramLog)
  NVRTC_SYM(nvrtcDestroyProgram)
  NVRTC_SYM(nvrtcGetErrorString)
#undef NVRTC_SYM
  return lib;
}

static uint64_t fnv(const void *p, size_t n, uint64_t h) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* mkdir -p */
static int make_dirs(const char *path) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *s = buf + 1; *s; s++)
    if (*s == '/') {
      *s = '\0';
      if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return -1;
      *s = '/';
    }
  return mkdir(buf, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  void *data = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)n)) && fread(data, 1, (size_t)n, f) == (size_t)n)
      *size = (size_t)n;
    else {
      free(data);
      data = NULL;
    }
  }
  fclose(f);
  return data;
}

/* Writes atomically: a private temporary file renamed into place, so that many
 * processes compiling the same module at once never see half a file. */
static void write_file(const char *path, const void *data, size_t size) {
  char tmp[1200];
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0)
    return;
  ssize_t w = write(fd, data, size);
  close(fd);
  if (w == (ssize_t)size && rename(tmp, path) == 0)
    return;
  unlink(tmp);
}

/* May the cache entry `path` be read, or written into its directory
 * (docs/security.md)?  Not when someone other than root, this user or the
 * owner of this plugin could change it: they would choose the code this
 * process runs on the GPU.  A refusal is said once. */
static bool cache_refused(const kk_host_services_t *hs, const char *path) {
  static atomic_bool said;
  char why[1200];
  if (kks_check(path, kks_code_owner(), why, sizeof why) != KKS_REFUSED)
    return false;
  if (!atomic_exchange(&said, true))
    hs->log(hs->core, KK_LOG_WARNING, "JIT cache refused: %s; modules are compiled without it (docs/security.md)",
            why);
  return true;
}

kk_status_t cuda_jit(cuda_ctx_t *c, const kk_module_t *m, void **image, size_t *size) {
  const cuda_dev_t *d = cuda_dev(&c->s.g);
  const kk_host_services_t *hs = c->s.g.hs;
  char why[512];
  nvrtc_api_t a;
  void *lib = open_nvrtc(&a, why, sizeof why);
  if (!lib)
    return hs->error(hs->core, KK_ERROR_NOT_FOUND, NULL, 0,
                     "module %s has no image for sm_%d%d and cannot be compiled from source: %s", m->source_name,
                     d->cc_major, d->cc_minor, why);
  int vmaj = 0, vmin = 0;
  a.nvrtcVersion(&vmaj, &vmin);
  char arch[64];
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", d->cc_major, d->cc_minor);
  const char *opts[] = {arch, "-std=c++17", "-DKK_TARGET_CUDA"};
  const int nopts = (int)(sizeof opts / sizeof *opts);

  /* the key: source, options, NVRTC version and device */
  uint64_t h1 = fnv(m->source, (size_t)m->source_size, 1469598103934665603ull), h2 = h1 ^ 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < nopts; i++) {
    h1 = fnv(opts[i], strlen(opts[i]) + 1, h1);
    h2 = fnv(opts[i], strlen(opts[i]) + 1, h2 * 31);
  }
  int ver[2] = {vmaj, vmin};
  h1 = fnv(ver, sizeof ver, h1);
  h2 = fnv(ver, sizeof ver, h2);
  h2 = fnv(m->source, (size_t)m->source_size, h2);
  char path[1100];
  snprintf(path, sizeof path, "%s/%016llx%016llx-sm_%d%d-nvrtc%d.%d.cubin", c->jit_cache, (unsigned long long)h1,
           (unsigned long long)h2, d->cc_major, d->cc_minor, vmaj, vmin);
  bool use_cache = !cache_refused(hs, path);
  if (use_cache && (*image = read_file(path, size))) {
    hs->log(hs->core, KK_LOG_INFO, "module %s: compiled code from the cache %s", m->source_name, path);
    dlclose(lib);
    return KK_OK;
  }

  nvrtcProgram prog;
  nvrtcResult r = a.nvrtcCreateProgram(&prog, m->source, m->source_name, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) {
    dlclose(lib);
    return hs->error(hs->core, KK_ERROR_BACKEND, "nvrtcResult", r, "nvrtcCreateProgram(%s): %s", m->source_name,
                     a.nvrtcGetErrorString(r));
  }
  kk_status_t st = KK_OK;
  size_t n = 0;
  if ((r = a.nvrtcCompileProgram(prog, nopts, opts)) != NVRTC_SUCCESS) {
    a.nvrtcGetProgramLogSize(prog, &n);
    char *log = malloc(n + 1);
    if (log) {
      a.nvrtcGetProgramLog(prog, log);
      log[n] = '\0';
    }
    st = hs->error(hs->core, KK_ERROR_BACKEND, "nvrtcResult", r, "NVRTC could not compile module %s for sm_%d%d: %.1500s",
                   m->source_name, d->cc_major, d->cc_minor, log ? log : "");
    free(log);
  } else {
    a.nvrtcGetCUBINSize(prog, &n);
    if ((*image = malloc(n ? n : 1))) {
      a.nvrtcGetCUBIN(prog, *image);
      *size = n;
    } else {
      st = hs->error(hs->core, KK_ERROR_OUT_OF_MEMORY, NULL, 0, "JIT: out of memory");
    }
  }
  a.nvrtcDestroyProgram(&prog);
  dlclose(lib);
  if (st != KK_OK)
    return st;
  if (use_cache) {
    if (make_dirs(c->jit_cache) != 0)
      hs->log(hs->core, KK_LOG_WARNING, "JIT cache %s cannot be created: %s", c->jit_cache, strerror(errno));
    else if (!cache_refused(hs, c->jit_cache)) /* what was just created, checked again */
      write_file(path, *image, n);
  }
  hs->log(hs->core, KK_LOG_INFO, "module %s: compiled with NVRTC %d.%d for sm_%d%d", m->source_name, vmaj, vmin,
          d->cc_major, d->cc_minor);
  return KK_OK;
}
