/* kernels/tpl.c -- vendor libraries chosen at run time: settings, lazy opening, the offer of each call, the report. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Every vendor library this build knows; adding one is one file and one
 * line here (phase 2: cuBLAS and cuSPARSE for views on CUDA). */
static const kkk_tpl_t *const g_tpls[] = {&kkk_tpl_cblas};
#define NTPL ((int)(sizeof g_tpls / sizeof *g_tpls))

typedef struct tpl_state {
  _Atomic int state;         /* kk_tpl_state_t; LOADED is published with release */
  int opened;                /* the library is open (it stays open while switched off) */
  char setting[512];         /* "auto", "off" or a file */
  int setting_from_api;      /* kk_kernels_set_tpl chose it (the variable is not read) */
  char path[512];
  char reason[1600];
  _Atomic uint64_t calls;
} tpl_state_t;

static tpl_state_t g_state[NTPL];
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int g_global = -1;   /* -1 not read yet, 0 none, 1 auto */
static int g_global_from_api;

static int parse_global(const char *s) {
  if (!s || !*s || strcmp(s, "auto") == 0)
    return 1;
  if (strcmp(s, "none") == 0)
    return 0;
  return -1;
}

/* KK_KERNELS_TPL, read once (under the lock). */
static int global_setting(void) {
  int g = atomic_load_explicit(&g_global, memory_order_acquire);
  if (g >= 0)
    return g;
  pthread_mutex_lock(&g_lock);
  g = atomic_load_explicit(&g_global, memory_order_relaxed);
  if (g < 0) {
    g = parse_global(getenv("KK_KERNELS_TPL"));
    if (g < 0)
      g = 1; /* an unknown value is reported by the report, and means auto */
    atomic_store_explicit(&g_global, g, memory_order_release);
  }
  pthread_mutex_unlock(&g_lock);
  return g;
}

/* Opens library i if not tried yet.  Under the lock. */
static void try_open_locked(int i) {
  tpl_state_t *s = &g_state[i];
  if (atomic_load_explicit(&s->state, memory_order_relaxed) != KK_TPL_NOT_LOADED)
    return;
  if (!s->setting_from_api) {
    const char *e = getenv(g_tpls[i]->env);
    snprintf(s->setting, sizeof s->setting, "%s", e && *e ? e : "auto");
  }
  if (strcmp(s->setting, "off") == 0 || strcmp(s->setting, "none") == 0) {
    snprintf(s->reason, sizeof s->reason, "switched off (%s=%.500s)", g_tpls[i]->env, s->setting);
    atomic_store_explicit(&s->state, KK_TPL_DISABLED, memory_order_release);
    return;
  }
  if (!s->opened)
    s->path[0] = '\0';
  s->reason[0] = '\0';
  if (s->opened || g_tpls[i]->open(s->setting, s->path, sizeof s->path, s->reason, sizeof s->reason) == 0) {
    s->opened = 1;
    atomic_store_explicit(&s->state, KK_TPL_LOADED, memory_order_release);
  }
  else
    atomic_store_explicit(&s->state, KK_TPL_NOT_FOUND, memory_order_release);
}

int kkk_tpl_try(const kkk_tpl_call_t *t, kk_status_t *st) {
  if (!global_setting())
    return 0;
  for (int i = 0; i < NTPL; i++) {
    tpl_state_t *s = &g_state[i];
    int state = atomic_load_explicit(&s->state, memory_order_acquire);
    if (KKK_UNLIKELY(state == KK_TPL_NOT_LOADED)) {
      pthread_mutex_lock(&g_lock);
      try_open_locked(i);
      pthread_mutex_unlock(&g_lock);
      state = atomic_load_explicit(&s->state, memory_order_acquire);
    }
    if (state == KK_TPL_LOADED && g_tpls[i]->call(t, st)) {
      atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
      return 1;
    }
  }
  return 0;
}

int kk_kernels_tpl_count(void) { return NTPL; }

kk_status_t kk_kernels_tpl_get_info(int i, int load, kk_tpl_info_t *info) {
  if (!info || info->struct_size < sizeof *info || i < 0 || i >= NTPL)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_kernels_tpl_get_info: bad index %d or info struct", i);
  const int global = global_setting();
  pthread_mutex_lock(&g_lock);
  tpl_state_t *s = &g_state[i];
  if (load && global)
    try_open_locked(i);
  info->name = g_tpls[i]->name;
  info->serves = g_tpls[i]->serves;
  info->state = (kk_tpl_state_t)atomic_load_explicit(&s->state, memory_order_relaxed);
  info->path = info->state == KK_TPL_LOADED ? s->path : "";
  info->reason = s->reason;
  if (!global) {
    info->state = KK_TPL_DISABLED;
    info->reason = g_global_from_api ? "every vendor library is switched off (kk_kernels_set_tpl)"
                                     : "every vendor library is switched off (KK_KERNELS_TPL=none)";
  }
  info->calls = atomic_load_explicit(&s->calls, memory_order_relaxed);
  pthread_mutex_unlock(&g_lock);
  return KK_OK;
}

kk_status_t kk_kernels_set_tpl(const char *library, const char *setting) {
  if (!setting)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_kernels_set_tpl: setting is NULL");
  if (!library) {
    int g = parse_global(setting);
    if (g < 0)
      return kk_set_error(KK_ERROR_INVALID_ARGUMENT,
                             "kk_kernels_set_tpl: the global setting must be \"auto\" or \"none\", not \"%s\"", setting);
    pthread_mutex_lock(&g_lock);
    g_global_from_api = 1;
    atomic_store_explicit(&g_global, g, memory_order_release);
    pthread_mutex_unlock(&g_lock);
    return KK_OK;
  }
  for (int i = 0; i < NTPL; i++) {
    if (strcmp(library, g_tpls[i]->name) != 0)
      continue;
    if (!*setting || strlen(setting) >= sizeof g_state[i].setting)
      return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_kernels_set_tpl: bad setting for %s", library);
    pthread_mutex_lock(&g_lock);
    tpl_state_t *s = &g_state[i];
    snprintf(s->setting, sizeof s->setting, "%s", setting);
    s->setting_from_api = 1;
    if (strcmp(setting, "off") == 0 || strcmp(setting, "none") == 0) {
      snprintf(s->reason, sizeof s->reason, "switched off (kk_kernels_set_tpl)%s%.500s%s", s->opened ? "; " : "",
               s->opened ? s->path : "", s->opened ? " stays open" : "");
      atomic_store_explicit(&s->state, KK_TPL_DISABLED, memory_order_release);
    } else {
      /* (re)opened at the next use; an open library is used again as it is */
      atomic_store_explicit(&s->state, KK_TPL_NOT_LOADED, memory_order_release);
    }
    pthread_mutex_unlock(&g_lock);
    return KK_OK;
  }
  return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_kernels_set_tpl: unknown vendor library \"%s\"", library);
}

static const char *state_name(kk_tpl_state_t s) {
  switch (s) {
  case KK_TPL_NOT_LOADED:
    return "not loaded yet";
  case KK_TPL_LOADED:
    return "loaded";
  case KK_TPL_NOT_FOUND:
    return "not found";
  default:
    return "disabled";
  }
}

static void json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(out, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(out, "\\u%04x", (unsigned char)*s);
    else
      fputc(*s, out);
  }
  fputc('"', out);
}

kk_status_t kk_kernels_print_report(FILE *out, int json) {
  if (!out)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_kernels_print_report: out is NULL");
  const char *env = getenv("KK_KERNELS_TPL");
  if (json)
    fprintf(out, "{\"version\": \"%s\", \"tpl\": \"%s\", \"tpls\": [", kk_kernels_version(),
            global_setting() ? "auto" : "none");
  else
    fprintf(out, "kk-kernels %s\n  vendor libraries (KK_KERNELS_TPL=%s):\n", kk_kernels_version(),
            env && *env ? env : "auto");
  for (int i = 0; i < NTPL; i++) {
    kk_tpl_info_t info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    kk_kernels_tpl_get_info(i, 1, &info);
    const kk_tpl_state_t st = info.state;
    if (json) {
      fprintf(out, "%s{\"name\": ", i ? ", " : "");
      json_string(out, info.name);
      fprintf(out, ", \"state\": \"%s\", \"path\": ", state_name(st));
      json_string(out, info.path);
      fprintf(out, ", \"reason\": ");
      json_string(out, info.reason);
      fprintf(out, ", \"serves\": ");
      json_string(out, info.serves);
      fprintf(out, ", \"calls\": %llu}", (unsigned long long)info.calls);
    } else {
      fprintf(out, "    %-10s %-14s %s\n", info.name, state_name(st), info.path);
      if (*info.reason)
        fprintf(out, "               %s: %s\n", st == KK_TPL_LOADED ? "note" : "why", info.reason);
      fprintf(out, "               serves: %s\n", info.serves);
    }
  }
  if (json)
    fprintf(out, "]}");
  if (env && *env && parse_global(env) < 0 && !json)
    fprintf(out, "  note: KK_KERNELS_TPL=%s is neither auto nor none; taken as auto\n", env);
  return KK_OK;
}
