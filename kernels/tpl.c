/* kernels/tpl.c -- vendor libraries chosen at run time: settings, lazy opening, the offer of each call, the report. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Every vendor library this build knows; adding one is one file and one
 * line here (rocBLAS or oneMKL next, when there is hardware to run them). */
static const kkk_tpl_t *const g_tpls[] = {&kkk_tpl_cblas, &kkk_tpl_cublas, &kkk_tpl_cusparse};
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
    char setting[sizeof s->setting]; /* a copy: the message goes into the same record */
    memcpy(setting, s->setting, sizeof setting);
    snprintf(s->reason, sizeof s->reason, "switched off (%s=%.500s)", g_tpls[i]->env, setting);
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
  if (i < 0 || i >= NTPL)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT,
                        "kk_kernels_tpl_get_info: index %d is out of range: kk_kernels_tpl_count() is %d", i, NTPL);
  if (!info)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_kernels_tpl_get_info: info is NULL");
  if (info->struct_size < sizeof *info)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT,
                        "kk_kernels_tpl_get_info: info->struct_size is %zu, not sizeof(kk_tpl_info_t) (%zu)",
                        info->struct_size, sizeof *info);
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

/* ---- helpers for the library files ------------------------------------------------------ */

int kkk_tpl_open_first(const char *setting, const char *const *names, size_t n,
                       int (*try_one)(const char *file, char *why, size_t why_size), const char *none_found,
                       char *path, size_t path_size, char *why, size_t why_size) {
  if (strcmp(setting, "auto") != 0) {
    if (try_one(setting, why, why_size) != 0)
      return -1;
    snprintf(path, path_size, "%s", setting);
    return 0;
  }
  char all[1024] = "";
  for (size_t i = 0; i < n; i++) {
    char one[400];
    if (try_one(names[i], one, sizeof one) == 0) {
      snprintf(path, path_size, "%s", names[i]);
      return 0;
    }
    size_t used = strlen(all);
    snprintf(all + used, sizeof all - used, "%s%s", used ? "; " : "", one);
  }
  snprintf(why, why_size, "%s: %s", none_found, all);
  return -1;
}

static int fits(int64_t v) { return v >= 0 && v <= INT_MAX; }

int kkk_tpl_stored(const kkk_tmat_t *M, int row_major, int *ld) {
  if (!fits(M->rows) || !fits(M->cols) || !fits(M->rs) || !fits(M->cs))
    return -1;
  const int64_t r = M->rows, c = M->cols;
  /* row major: unit stride along columns, rows rs apart */
  const int row_ok = (M->cs == 1 || c <= 1) && (r <= 1 || M->rs >= (c > 1 ? c : 1));
  const int col_ok = (M->rs == 1 || r <= 1) && (c <= 1 || M->cs >= (r > 1 ? r : 1));
  const int64_t row_ld = r <= 1 ? (c > 1 ? c : 1) : M->rs, col_ld = c <= 1 ? (r > 1 ? r : 1) : M->cs;
  const int first_ok = row_major ? row_ok : col_ok, second_ok = row_major ? col_ok : row_ok;
  const int64_t first_ld = row_major ? row_ld : col_ld, second_ld = row_major ? col_ld : row_ld;
  if (first_ok && fits(first_ld)) {
    *ld = (int)first_ld;
    return 0;
  }
  if (second_ok && fits(second_ld)) {
    *ld = (int)second_ld;
    return 1;
  }
  return -1;
}

int kkk_tpl_trans(kk_op_t op, int t) {
  if (!t)
    return op == KK_OP_N ? 0 : op == KK_OP_T ? 1 : 2;
  return op == KK_OP_N ? 1 : op == KK_OP_T ? 0 : -1;
}

kk_native_kind_t kkk_native_queue(const kkk_call_t *c, kk_native_queue_t *q) {
  /* only backends known to have one are asked: a refusal would reach the error handler */
  const char *b = kk_instance_backend(c->inst);
  if (c->host || !b || strcmp(b, "cuda") != 0 || kk_instance_native_queue(c->inst, q) != KK_OK)
    return KK_NATIVE_NONE;
  return q->kind;
}

void *kkk_tpl_dlopen(const char *file, const kkk_tpl_sym_t *syms, size_t n, const char *what, char *why,
                     size_t why_size) {
  dlerror();
  void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(why, why_size, "%s", e ? e : "dlopen failed");
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    if (!(*syms[i].slot = dlsym(h, syms[i].name))) {
      snprintf(why, why_size, "%s: has no %s (%s)", file, syms[i].name, what);
      for (size_t j = 0; j < n; j++)
        *syms[j].slot = NULL;
      dlclose(h);
      return NULL;
    }
  return h;
}

void *kkk_tpl_dlopen_cuda(const char *file, const kkk_tpl_sym_t *syms, size_t n, const kkk_tpl_sym_t *cu, size_t ncu,
                          const char *what, char *why, size_t why_size) {
  /* The driver first: without one the library (C++, tens of megabytes) is
   * never loaded, so never unloaded either, which would drop what its
   * static constructors allocated (LeakSanitizer reports it). */
  char cu_why[300];
  if (!kkk_tpl_dlopen("libcuda.so.1", cu, ncu, "not a CUDA driver", cu_why, sizeof cu_why)) {
    snprintf(why, why_size, "%s not opened: %s", file, cu_why);
    return NULL;
  }
  void *h = kkk_tpl_dlopen(file, syms, n, what, why, why_size);
  if (!h)
    for (size_t i = 0; i < ncu; i++)
      *cu[i].slot = NULL;
  return h; /* both stay open for the life of the process */
}

int kkk_tpl_vec_ok(const kkk_tvec_t *v) { return fits(v->n) && fits(v->inc) && (v->inc >= 1 || v->n <= 1); }
int kkk_tpl_inc(const kkk_tvec_t *v) { return v->inc >= 1 ? (int)v->inc : 1; }

int kkk_tpl_vectors_ok(const kkk_tpl_call_t *t) {
  switch (t->op) {
  case KKK_TPL_AXPBY:
    return kkk_tpl_vec_ok(&t->x) && kkk_tpl_vec_ok(&t->y) && t->x.n == t->y.n;
  case KKK_TPL_SCAL: /* in place only: r = a x with r != x would need a copy first */
    return kkk_tpl_vec_ok(&t->x) && t->x.data == t->y.data && t->x.inc == t->y.inc;
  case KKK_TPL_DOT:
  case KKK_TPL_GEMV:
    return kkk_tpl_vec_ok(&t->x) && kkk_tpl_vec_ok(&t->y);
  case KKK_TPL_NRM2:
  case KKK_TPL_NRM1:
  case KKK_TPL_IAMAX:
    return kkk_tpl_vec_ok(&t->x);
  case KKK_TPL_GEMM:
    return 1;
  case KKK_TPL_SPMV:
  case KKK_TPL_SPSV:
    break;
  }
  return 0;
}
