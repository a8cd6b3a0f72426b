/* core/registry.c -- kernel modules: registration from kkcc's constructors, device image loading, kk_module_load. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dl.h"
#include "registry.h"
#include "state.h"
#include "status.h"

/* libkk's record of one registered module (module->runtime[0]). */
typedef struct mod_rt {
  kk_module_t *m;
  struct mod_rt *next;
  kk__backend_t *backend;   /* device backend the image is loaded into, or NULL */
  void *pmod;               /* the plugin's module handle */
  kk__dl_t *dl;             /* set when kk_module_load opened it */
  char abi_error[512];      /* the object cannot be used with this libkk at all */
  bool damaged;             /* its tables are never walked: another ABI's layout, or check_tables failed */
  char error[1024];         /* why it could not be loaded on the backend, "" when fine */
} mod_rt_t;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static mod_rt_t *g_modules;

void kk__generation_next(void) {
  pthread_mutex_lock(&g_lock); /* attach() and kk__kernel_resolve() stamp kernels with it under the lock */
  atomic_fetch_add_explicit(&kk__generation, 1, memory_order_release);
  pthread_mutex_unlock(&g_lock);
}

/* The kernel-handle cache (kk__kernel_cached, registry.h), written under
 * g_lock: the handle first, then the generation that publishes it. */
static void cache_set(kk_kernel_t *k, void *h) {
  __atomic_store_n(&k->runtime[0], h, __ATOMIC_RELAXED);
  __atomic_store_n(&k->runtime[1], (void *)kk__generation_now(), __ATOMIC_RELEASE);
}

/* The generation goes first, so that no reader takes the handle after. */
static void cache_clear(kk_kernel_t *k) {
  __atomic_store_n(&k->runtime[1], NULL, __ATOMIC_RELEASE);
  __atomic_store_n(&k->runtime[0], NULL, __ATOMIC_RELAXED);
}

static mod_rt_t *rt_of(const kk_module_t *m) { return m ? (mod_rt_t *)m->runtime[0] : NULL; }

/* Loads one module into the default backend when that is a device backend.
 * Called with g_lock held. */
static void attach(mod_rt_t *r) {
  kk__backend_t *b = kk__g.def;
  kk_module_t *m = r->m;
  r->error[0] = '\0';
  if (!b || (b->ops.flags & KK_PLUGIN_FLAG_HOST) || !KK_PLUGIN_HAS(&b->ops, module_load) ||
      !KK_PLUGIN_HAS(&b->ops, kernel_get))
    return;
  const kk_image_t *img = NULL;
  for (const char *const *f = b->ops.image_formats; f && *f && !img; f++)
    for (uint32_t i = 0; i < m->image_count; i++)
      if (m->images[i].format && strcmp(m->images[i].format, *f) == 0) {
        img = &m->images[i];
        break;
      }
  kk_clear_error();
  kk_status_t st = b->ops.module_load(b->ctx, m, img, &r->pmod);
  if (st != KK_OK) {
    kk__snprintf(r->error, sizeof r->error, "module %s (built for %s) could not be loaded on backend %s: %s",
                 m->source_name, m->targets ? m->targets : "?", b->name,
                 kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
    r->pmod = NULL;
    return;
  }
  r->backend = b;
  for (uint32_t i = 0; i < m->kernel_count; i++) {
    kk_kernel_t *k = m->kernels[i];
    void *h = NULL;
    if (b->ops.kernel_get(b->ctx, r->pmod, k, &h) == KK_OK && h)
      cache_set(k, h);
  }
}

static void detach(mod_rt_t *r) {
  if (r->damaged)
    return; /* never attached, and its tables cannot be walked */
  if (r->backend && r->pmod && KK_PLUGIN_HAS(&r->backend->ops, module_unload))
    r->backend->ops.module_unload(r->backend->ctx, r->pmod);
  r->backend = NULL;
  r->pmod = NULL;
  for (uint32_t i = 0; i < r->m->kernel_count; i++)
    cache_clear(r->m->kernels[i]);
}

/* A module of this ABI whose tables cannot be walked (a damaged or
 * hand-written object: NULL tables or entries, kernels without a name or of
 * another ABI) is refused like one of another ABI: its kernels are never
 * read again.  Found by tests/fuzz/fuzz_module_table. */
static bool check_tables(const kk_module_t *m, char *why, size_t size) {
  const char *src = m->source_name ? m->source_name : "?";
  if (m->kernel_count && !m->kernels) {
    kk__snprintf(why, size, "module %s is damaged: %u kernels but no kernel table: rebuild it with kkcc", src,
                 m->kernel_count);
    return false;
  }
  if (m->image_count && !m->images) {
    kk__snprintf(why, size, "module %s is damaged: %u device images but no image table: rebuild it with kkcc", src,
                 m->image_count);
    return false;
  }
  for (uint32_t i = 0; i < m->image_count; i++)
    if (m->images[i].size && !m->images[i].data) {
      kk__snprintf(why, size, "module %s is damaged: device image %u has %llu bytes but no data: rebuild it with kkcc",
                   src, i, (unsigned long long)m->images[i].size);
      return false;
    }
  for (uint32_t i = 0; i < m->kernel_count; i++) {
    const kk_kernel_t *k = m->kernels[i];
    if (!k || !k->name || k->struct_size < offsetof(kk_kernel_t, runtime) ||
        (k->abi_version >> 16) != (KK_KERNEL_ABI_VERSION >> 16)) {
      kk__snprintf(why, size, "module %s is damaged: kernel %u of %u is %s: rebuild it with kkcc", src, i,
                   m->kernel_count,
                   !k ? "missing" : !k->name ? "without a name" : "of another kernel ABI or size");
      return false;
    }
  }
  return true;
}

void kk_module_register(kk_module_t *m) {
  if (!m)
    return;
  mod_rt_t *r = calloc(1, sizeof *r);
  if (!r)
    return; /* the kernels then report "not registered" at launch */
  r->m = m;
  if (m->struct_size < offsetof(kk_module_t, runtime) || (m->abi_version >> 16) != (KK_KERNEL_ABI_VERSION >> 16))
    kk__snprintf(r->abi_error, sizeof r->abi_error,
                 "module %s was built for kernel ABI %u.%u, this libkk reads %u.x: rebuild it with this kk's kkcc",
                 m->source_name ? m->source_name : "?", m->abi_version >> 16, m->abi_version & 0xffff,
                 KK_KERNEL_ABI_VERSION >> 16);
  else
    check_tables(m, r->abi_error, sizeof r->abi_error);
  r->damaged = r->abi_error[0] != '\0';
  pthread_mutex_lock(&g_lock);
  m->runtime[0] = r;
  for (uint32_t i = 0; i < m->kernel_count && !r->damaged; i++)
    m->kernels[i]->module = m;
  /* keep registration order: kk_kernel_find returns the first */
  mod_rt_t **tail = &g_modules;
  while (*tail)
    tail = &(*tail)->next;
  *tail = r;
  if (kk__g.initialized && !r->abi_error[0])
    attach(r);
  pthread_mutex_unlock(&g_lock);
}

void kk_module_unregister(kk_module_t *m) {
  if (!m)
    return;
  pthread_mutex_lock(&g_lock);
  for (mod_rt_t **p = &g_modules; *p; p = &(*p)->next)
    if ((*p)->m == m) {
      mod_rt_t *r = *p;
      *p = r->next;
      detach(r);
      for (uint32_t i = 0; i < m->kernel_count && !r->damaged; i++)
        if (m->kernels[i]->module == m)
          m->kernels[i]->module = NULL;
      m->runtime[0] = NULL;
      free(r);
      break;
    }
  pthread_mutex_unlock(&g_lock);
}

void kk__modules_attach_all(void) {
  pthread_mutex_lock(&g_lock);
  for (mod_rt_t *r = g_modules; r; r = r->next)
    if (!r->abi_error[0])
      attach(r);
  pthread_mutex_unlock(&g_lock);
}

void kk__modules_detach_all(void) {
  /* Modules from kk_module_load are unloaded with kk; their destructors
   * unregister them, so close them without holding the lock. */
  for (;;) {
    kk__dl_t *dl = NULL;
    pthread_mutex_lock(&g_lock);
    for (mod_rt_t *r = g_modules; r && !dl; r = r->next)
      if (r->dl) {
        dl = r->dl;
        r->dl = NULL;
      }
    pthread_mutex_unlock(&g_lock);
    if (!dl)
      break;
    kk__dl_close(dl);
  }
  pthread_mutex_lock(&g_lock);
  for (mod_rt_t *r = g_modules; r; r = r->next)
    detach(r);
  pthread_mutex_unlock(&g_lock);
}

kk_status_t kk__kernel_resolve(const kk_kernel_t *k, kk__backend_t *b, void **handle) {
  pthread_mutex_lock(&g_lock);
  mod_rt_t *r = rt_of(k->module);
  kk_status_t st = KK_OK;
  if (!r) {
    st = kk__error(KK_ERROR_NOT_FOUND,
                   "kernel '%s' is not registered with kk, so backend %s has no code for it: build its kernel "
                   "file with kkcc",
                   k->name, b->name);
  } else if (r->abi_error[0] || r->error[0]) {
    st = kk__error(KK_ERROR_UNSUPPORTED, "kernel '%s': %s", k->name, r->abi_error[0] ? r->abi_error : r->error);
  } else if (r->backend != b) {
    st = kk__error(KK_ERROR_UNSUPPORTED, "kernel '%s': module %s is not loaded on backend %s", k->name,
                   k->module->source_name, b->name);
  } else if ((*handle = kk__kernel_cached(k)) != NULL) {
    /* another thread found it first */
  } else {
    void *h = NULL;
    kk_clear_error();
    st = b->ops.kernel_get(b->ctx, r->pmod, k, &h);
    if (st == KK_OK && h) {
      cache_set((kk_kernel_t *)k, h);
      *handle = h;
    } else {
      st = kk__error(st != KK_OK ? st : KK_ERROR_NOT_FOUND, "kernel '%s': backend %s found no code for it in %s: %s",
                     k->name, b->name, k->module->source_name,
                     kk_last_status() != KK_OK ? kk_last_error() : "no such kernel in the image");
    }
  }
  pthread_mutex_unlock(&g_lock);
  return st;
}

kk_kernel_t *kk_kernel_find(const char *name) {
  if (!name)
    return NULL;
  kk_kernel_t *found = NULL;
  pthread_mutex_lock(&g_lock);
  for (mod_rt_t *r = g_modules; r && !found; r = r->next)
    for (uint32_t i = 0; i < r->m->kernel_count && !r->damaged; i++)
      if (strcmp(r->m->kernels[i]->name, name) == 0) {
        found = r->m->kernels[i];
        break;
      }
  pthread_mutex_unlock(&g_lock);
  return found;
}

kk_kernel_t *kk_module_kernel(const kk_module_t *m, const char *name) {
  const mod_rt_t *r = rt_of(m);
  if (!m || !name || (r && r->damaged)) /* a damaged table is never walked */
    return NULL;
  for (uint32_t i = 0; i < m->kernel_count; i++)
    if (strcmp(m->kernels[i]->name, name) == 0)
      return m->kernels[i];
  return NULL;
}

kk_status_t kk_module_load(const char *path, kk_module_t **out) {
  KK__REQUIRE_INIT("kk_module_load");
  if (!path || !out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_module_load: path and out must not be NULL");
  *out = NULL;
  char why[1024];
  kk__dl_t *dl = kk__dl_open(path, why, sizeof why);
  if (!dl)
    return kk__error(KK_ERROR_NOT_FOUND, "kk_module_load: cannot load %s: %s", path, why);
  kk_module_t *m = kk__dl_sym(dl, "kk_module_info");
  if (!m) {
    kk__dl_close(dl);
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_module_load: %s has no symbol kk_module_info: build it with kkcc -shared", path);
  }
  pthread_mutex_lock(&g_lock);
  mod_rt_t *r = rt_of(m);
  if (r)
    r->dl = dl;
  pthread_mutex_unlock(&g_lock);
  if (!r) {
    kk__dl_close(dl);
    return kk__error(KK_ERROR_INTERNAL, "kk_module_load: %s did not register its module", path);
  }
  if (r->abi_error[0]) {
    kk_status_t st = kk__error(KK_ERROR_UNSUPPORTED, "kk_module_load: %s", r->abi_error);
    kk__dl_close(dl); /* its destructor unregisters it */
    return st;
  }
  *out = m;
  return KK_OK;
}

kk_status_t kk_module_unload(kk_module_t *m) {
  KK__REQUIRE_INIT("kk_module_unload");
  mod_rt_t *r = rt_of(m);
  if (!r || !r->dl)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_module_unload: not a module from kk_module_load");
  kk_status_t st = kk_fence_named("kk_module_unload: fence before unloading the module");
  pthread_mutex_lock(&g_lock);
  kk__dl_t *dl = r->dl;
  r->dl = NULL;
  pthread_mutex_unlock(&g_lock);
  kk__dl_close(dl); /* runs the module's destructor, which unregisters it */
  return st;
}
