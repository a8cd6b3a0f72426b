/* containers/unique_token.c -- UniqueToken on the host: the pool of ids (an atomic bitset) per token or shared by a backend's global tokens. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A pool of ids: the bitset, and how it is laid out. */
typedef struct pool {
  char backend[64];
  kk_view_t *bits;
  int32_t size, nwords, stride;
  int refs;          /* shared pools: tokens using it */
  struct pool *next; /* shared pools: the list */
} pool_t;

struct kk_unique_token_obj {
  pool_t *pool;
  int shared;
  int direct;
  kk_instance_t *inst;
};

/* The global pools of default size, one per backend, shared by its global
 * tokens (Kokkos' global-scope tokens share one too). */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pool_t *g_shared;

static int is_host_backend(const char *backend) {
  for (int i = 0; i < kk_plugin_count(); i++) {
    kk_plugin_info_t info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (kk_plugin_get_info(i, &info) == KK_OK && info.name && strcmp(info.name, backend) == 0 &&
        (info.state == KK_PLUGIN_LOADED || info.state == KK_PLUGIN_BUILTIN))
      return info.is_host_backend;
  }
  return 0;
}

/* The threads `backend` runs at once. */
static int32_t concurrency(const char *backend) {
  if (strcmp(backend, kk_backend_host()) == 0)
    return kk_num_threads();
  kk_device_info_t info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  const int dev = strcmp(backend, kk_backend_default()) == 0 ? kk_device_id() : 0;
  if (kk_device_get_info(backend, dev, &info) == KK_OK && info.concurrency > 0)
    return info.concurrency;
  return 1;
}

static kk_space_t *space_of(const char *backend) {
  for (int i = 0; i < kk_space_count(); i++)
    if (strcmp(kk_space_backend(kk_space_at(i)), backend) == 0)
      return kk_space_at(i);
  return NULL;
}

/* A new pool of `size` ids for `backend`.  On host backends every word has a
 * cache line of its own and the ids are spread over up to 64 of them, so
 * that threads acquiring at once (hints: their thread numbers) touch
 * different lines; on GPUs the words are dense. */
static kk_status_t pool_new(const char *op, const char *backend, int host, int32_t size, pool_t **out) {
  pool_t *p = calloc(1, sizeof *p);
  if (!p)
    return kkc_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", op);
  snprintf(p->backend, sizeof p->backend, "%s", backend);
  p->size = size;
  const int32_t dense = (size + 31) / 32;
  p->nwords = host ? (dense > 64 ? dense : size < 64 ? size : 64) : dense;
  p->stride = host ? 16 : 1;
  kk_space_t *space = space_of(backend);
  if (!space) {
    free(p);
    return kkc_err(KK_ERROR_NOT_FOUND, "%s: backend %s has no memory space", op, backend);
  }
  kk_status_t st = kkc_vector(space, "kk_unique_token", "", KK_UINT32, 0, (int64_t)p->nwords * p->stride, 0, &p->bits);
  if (st != KK_OK) {
    free(p);
    return st;
  }
  *out = p;
  return KK_OK;
}

static void pool_free(pool_t *p) {
  if (p) {
    kk_view_release(p->bits);
    free(p);
  }
}

kk_status_t kk_unique_token_create(kk_instance_t *instance, kk_unique_token_scope_t scope, int32_t size,
                                   kk_unique_token_t **out) {
  static const char op[] = "kk_unique_token_create";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!out)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: out is NULL", op);
  if (scope != KK_UNIQUE_TOKEN_INSTANCE && scope != KK_UNIQUE_TOKEN_GLOBAL)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: unknown scope %d", op, (int)scope);
  if (size < 0 || size > (1 << 30))
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: size %d; give 0 (the backend's concurrency) or 1 .. 2^30", op,
                   (int)size);
  if (!instance)
    instance = kk_instance_default();
  const char *backend = kk_instance_backend(instance);
  const int host = is_host_backend(backend);
  kk_unique_token_t *t = calloc(1, sizeof *t);
  if (!t)
    return kkc_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", op);
  t->inst = instance;
  t->direct = scope == KK_UNIQUE_TOKEN_INSTANCE && host;
  if (scope == KK_UNIQUE_TOKEN_GLOBAL && size == 0) {
    pthread_mutex_lock(&g_lock);
    pool_t *p = g_shared;
    while (p && strcmp(p->backend, backend) != 0)
      p = p->next;
    if (!p && (st = pool_new(op, backend, host, concurrency(backend), &p)) == KK_OK) {
      p->next = g_shared;
      g_shared = p;
    }
    if (p)
      p->refs++;
    pthread_mutex_unlock(&g_lock);
    if (!p) {
      free(t);
      return st;
    }
    t->pool = p;
    t->shared = 1;
  } else if ((st = pool_new(op, backend, host, size ? size : concurrency(backend), &t->pool)) != KK_OK) {
    free(t);
    return st;
  }
  *out = t;
  return KK_OK;
}

void kk_unique_token_destroy(kk_unique_token_t *t) {
  if (!t)
    return;
  if (t->shared) {
    pthread_mutex_lock(&g_lock);
    if (--t->pool->refs == 0) {
      pool_t **pp = &g_shared;
      while (*pp != t->pool)
        pp = &(*pp)->next;
      *pp = t->pool->next;
      pool_free(t->pool);
    }
    pthread_mutex_unlock(&g_lock);
  } else {
    pool_free(t->pool);
  }
  free(t);
}

kk_unique_token kk_unique_token_bind(kk_unique_token_t *t) {
  kk_unique_token d;
  memset(&d, 0, sizeof d);
  if (!t) {
    kkc_err(KK_ERROR_INVALID_ARGUMENT, "kk_unique_token_bind: the token is NULL");
    return d;
  }
  d.bits = (uint32_t *)kk_view_data(t->pool->bits);
  d.size = t->pool->size;
  d.nwords = t->pool->nwords;
  d.stride = t->pool->stride;
  d.direct = t->direct;
  return d;
}

int32_t kk_unique_token_size(const kk_unique_token_t *t) { return t ? t->pool->size : 0; }

kk_status_t kk_unique_token_held(kk_unique_token_t *t, int32_t *held) {
  static const char op[] = "kk_unique_token_held";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!t || !held)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  const pool_t *p = t->pool;
  kk_instance_t *inst = kkc_instance_for(op, "kk_unique_token", kk_view_space(p->bits));
  if (!inst)
    return kk_last_status();
  struct kkc_bits_args a = {(uint32_t *)kk_view_data(p->bits), p->stride, -1, 0, 0};
  int64_t n = 0;
  if ((st = kk_parallel_reduce(op, KK_RANGE_ON(inst, 0, p->nwords), KK_KERNEL(kkc_bits_count), KK_ARGS(a),
                               KK_RESULT(n))) != KK_OK)
    return st;
  *held = (int32_t)n;
  return KK_OK;
}
