/* containers/dualview.c -- DualView: a device view and its host copy, kept in step by modified counts as Kokkos' DualView keeps them. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The modified counts, shared by a DualView and its subviews: [0] the host
 * side, [1] the device side.  A side is newer when its count is larger;
 * modify makes it max + 1, a sync that copies sets both to 0 (Kokkos'
 * modified_flags). */
typedef struct flags {
  atomic_int refs;
  pthread_mutex_t lock;
  unsigned count[2];
} flags_t;

struct kk_dualview {
  atomic_int refs;
  char *label;
  kk_view_t *dev, *host; /* one reference each (the same view twice when single) */
  flags_t *flags;
  int single;
  int is_subview;
};

/* ---- the live DualViews ------------------------------------------------------------------
 * Every call checks its handle here first, so that a released one is refused
 * with a message instead of being read.  An open-addressing set of
 * pointers with tombstones, under one lock. */
#define TOMB ((kk_dualview_t *)(uintptr_t)1)
static pthread_mutex_t g_live_lock = PTHREAD_MUTEX_INITIALIZER;
static kk_dualview_t **g_live;
static size_t g_live_cap, g_live_used, g_live_n; /* used: live + tombstones; n: live */

static size_t slot_of(const void *p, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)p;
  h ^= h >> 31;
  h *= 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 17) & (cap - 1);
}

/* Must hold the lock: a new table without the tombstones, twice as large
 * when the live entries need it.  Returns false when out of memory. */
static bool live_grow(void) {
  size_t cap = !g_live_cap ? 64 : (g_live_n + 1) * 4 > g_live_cap ? g_live_cap * 2 : g_live_cap;
  kk_dualview_t **n = calloc(cap, sizeof *n);
  if (!n)
    return false;
  size_t used = 0;
  for (size_t i = 0; i < g_live_cap; i++) {
    kk_dualview_t *p = g_live[i];
    if (!p || p == TOMB)
      continue;
    size_t j = slot_of(p, cap);
    while (n[j])
      j = (j + 1) & (cap - 1);
    n[j] = p;
    used++;
  }
  free(g_live);
  g_live = n;
  g_live_cap = cap;
  g_live_used = used;
  return true;
}

static bool live_add(kk_dualview_t *dv) {
  pthread_mutex_lock(&g_live_lock);
  if ((g_live_used + 1) * 2 > g_live_cap && !live_grow()) {
    pthread_mutex_unlock(&g_live_lock);
    return false;
  }
  size_t j = slot_of(dv, g_live_cap);
  while (g_live[j] && g_live[j] != TOMB)
    j = (j + 1) & (g_live_cap - 1);
  if (!g_live[j])
    g_live_used++;
  g_live[j] = dv;
  g_live_n++;
  pthread_mutex_unlock(&g_live_lock);
  return true;
}

/* Must hold the lock: the slot of dv, or (size_t)-1. */
static size_t live_find(const kk_dualview_t *dv) {
  if (!g_live_cap)
    return (size_t)-1;
  size_t j = slot_of(dv, g_live_cap);
  while (g_live[j]) {
    if (g_live[j] == dv)
      return j;
    j = (j + 1) & (g_live_cap - 1);
  }
  return (size_t)-1;
}

static bool live_has(const kk_dualview_t *dv) {
  pthread_mutex_lock(&g_live_lock);
  bool has = live_find(dv) != (size_t)-1;
  pthread_mutex_unlock(&g_live_lock);
  return has;
}

static void live_remove(const kk_dualview_t *dv) {
  pthread_mutex_lock(&g_live_lock);
  size_t j = live_find(dv);
  if (j != (size_t)-1) {
    g_live[j] = TOMB;
    g_live_n--;
  }
  pthread_mutex_unlock(&g_live_lock);
}

/* The checks every call starts with. */
static kk_status_t check(const char *op, const kk_dualview_t *dv) {
  if (!dv)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: the DualView is NULL", op);
  if (!live_has(dv))
    return kkc_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: the DualView at %p was released (or never created): its views are gone", op,
                   (const void *)dv);
  return kkc_require_init(op);
}

/* ---- creation and lifetime ------------------------------------------------------------------- */

static flags_t *flags_new(void) {
  flags_t *f = calloc(1, sizeof *f);
  if (!f)
    return NULL;
  atomic_init(&f->refs, 1);
  pthread_mutex_init(&f->lock, NULL);
  return f;
}

static void flags_release(flags_t *f) {
  if (f && atomic_fetch_sub(&f->refs, 1) == 1) {
    pthread_mutex_destroy(&f->lock);
    free(f);
  }
}

/* A DualView over dev and host (their references become the DualView's). */
static kk_status_t make(const char *op, const char *label, kk_view_t *dev, kk_view_t *host, flags_t *flags,
                        int is_subview, kk_dualview_t **out) {
  kk_dualview_t *dv = calloc(1, sizeof *dv);
  char *l = kkc_strdup(label);
  if (!dv || !l || !live_add(dv)) {
    free(dv);
    free(l);
    kk_view_release(dev);
    kk_view_release(host);
    flags_release(flags);
    return kkc_err(KK_ERROR_OUT_OF_MEMORY, "%s: '%s': out of memory", op, label);
  }
  atomic_init(&dv->refs, 1);
  dv->label = l;
  dv->dev = dev;
  dv->host = host;
  dv->flags = flags;
  dv->single = dev == host;
  dv->is_subview = is_subview;
  *out = dv;
  return KK_OK;
}

kk_status_t kk_dualview_create(const kk_view_spec_t *spec, kk_dualview_t **out) {
  static const char op[] = "kk_dualview_create";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!spec || !out)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  const char *label = spec->label ? spec->label : "";
  kk_view_t *dev = NULL, *host = NULL;
  if ((st = kk_view_create(spec, &dev)) != KK_OK)
    return st;
  if ((st = kk_view_create_mirror_view(dev, &host)) != KK_OK) {
    kk_view_release(dev);
    return st;
  }
  flags_t *f = flags_new();
  if (!f) {
    kk_view_release(dev);
    kk_view_release(host);
    return kkc_err(KK_ERROR_OUT_OF_MEMORY, "%s: '%s': out of memory", op, label);
  }
  return make(op, label, dev, host, f, 0, out);
}

static bool same_shape(const kk_view_t *a, const kk_view_t *b) {
  if (kk_view_rank(a) != kk_view_rank(b) || kk_view_elem_size(a) != kk_view_elem_size(b))
    return false;
  for (int d = 0; d < kk_view_rank(a); d++)
    if (kk_view_extent(a, d) != kk_view_extent(b, d))
      return false;
  return kk_view_rank(a) <= 1 || kk_view_layout(a) == kk_view_layout(b);
}

kk_status_t kk_dualview_create_from(kk_view_t *device, kk_view_t *host, kk_dualview_t **out) {
  static const char op[] = "kk_dualview_create_from";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!device || !host || !out)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  if (!kk_space_host_accessible(kk_view_space(host)))
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: the host view '%s' is in space %s, which the host cannot access",
                   op, kk_view_label(host), kk_space_name(kk_view_space(host)));
  if (!same_shape(device, host))
    return kkc_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: views '%s' and '%s' differ in rank, extents, element size or layout", op,
                   kk_view_label(device), kk_view_label(host));
  if (device != host && kk_view_data(device) == kk_view_data(host) && kk_view_size(device) > 0)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: views '%s' and '%s' share their memory: pass the same view twice for a single DualView", op,
                   kk_view_label(device), kk_view_label(host));
  flags_t *f = flags_new();
  if (!f)
    return kkc_err(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", op);
  return make(op, kk_view_label(device), kk_view_retain(device), kk_view_retain(host), f, 0, out);
}

kk_status_t kk_dualview_subview(kk_dualview_t *src, const kk_slice_t *slices, kk_dualview_t **out) {
  static const char op[] = "kk_dualview_subview";
  kk_status_t st = check(op, src);
  if (st != KK_OK)
    return st;
  if (!slices || !out)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  kk_view_t *dev = NULL, *host = NULL;
  if ((st = kk_view_subview(src->dev, slices, &dev)) != KK_OK)
    return st;
  if (src->single)
    host = kk_view_retain(dev);
  else if ((st = kk_view_subview(src->host, slices, &host)) != KK_OK) {
    kk_view_release(dev);
    return st;
  }
  atomic_fetch_add(&src->flags->refs, 1);
  return make(op, src->label, dev, host, src->flags, 1, out);
}

kk_dualview_t *kk_dualview_retain(kk_dualview_t *dv) {
  if (dv && live_has(dv))
    atomic_fetch_add(&dv->refs, 1);
  return dv;
}

void kk_dualview_release(kk_dualview_t *dv) {
  if (!dv || !live_has(dv) || atomic_fetch_sub(&dv->refs, 1) != 1)
    return;
  live_remove(dv);
  kk_view_release(dv->dev);
  kk_view_release(dv->host);
  flags_release(dv->flags);
  free(dv->label);
  free(dv);
}

kk_view_t *kk_dualview_view_device(const kk_dualview_t *dv) { return dv && live_has(dv) ? dv->dev : NULL; }
kk_view_t *kk_dualview_view_host(const kk_dualview_t *dv) { return dv && live_has(dv) ? dv->host : NULL; }
const char *kk_dualview_label(const kk_dualview_t *dv) { return dv && live_has(dv) ? dv->label : NULL; }
int kk_dualview_is_single(const kk_dualview_t *dv) { return dv && live_has(dv) ? dv->single : 0; }

/* ---- flags ---------------------------------------------------------------------------------- */

/* side 0: host, 1: device */
static kk_status_t modify(const char *op, kk_dualview_t *dv, int side) {
  kk_status_t st = check(op, dv);
  if (st != KK_OK)
    return st;
  flags_t *f = dv->flags;
  pthread_mutex_lock(&f->lock);
  unsigned m = f->count[0] > f->count[1] ? f->count[0] : f->count[1];
  f->count[side] = m + 1;
  pthread_mutex_unlock(&f->lock);
  if (kk_tools_active())
    kk_profiling_dual_view_modify(dv->label, kk_view_data(side ? dv->dev : dv->host), side);
  return KK_OK;
}

kk_status_t kk_dualview_modify_host(kk_dualview_t *dv) { return modify("kk_dualview_modify_host", dv, 0); }
kk_status_t kk_dualview_modify_device(kk_dualview_t *dv) { return modify("kk_dualview_modify_device", dv, 1); }

/* Brings side `side` up to date: a copy from the other side when that one
 * is newer. */
static kk_status_t sync_side(const char *op, kk_dualview_t *dv, int side, int async, kk_instance_t *inst) {
  kk_status_t st = check(op, dv);
  if (st != KK_OK)
    return st;
  flags_t *f = dv->flags;
  pthread_mutex_lock(&f->lock);
  const bool need = f->count[1 - side] > f->count[side];
  pthread_mutex_unlock(&f->lock);
  if (!need)
    return KK_OK;
  kk_view_t *dst = side ? dv->dev : dv->host, *src = side ? dv->host : dv->dev;
  if (!dv->single) {
    if (async) {
      if (!inst && !(inst = kkc_instance_for(op, dv->label, kk_view_space(dv->dev))))
        return kk_last_status();
      st = kk_deep_copy_async(inst, dst, src);
    } else {
      st = kk_deep_copy(dst, src);
    }
    if (st != KK_OK)
      return kkc_err(st, "%s: DualView '%s': %s", op, dv->label, kk_last_error());
  }
  pthread_mutex_lock(&f->lock);
  f->count[0] = f->count[1] = 0;
  pthread_mutex_unlock(&f->lock);
  if (kk_tools_active())
    kk_profiling_dual_view_sync(dv->label, kk_view_data(dst), side);
  return KK_OK;
}

kk_status_t kk_dualview_sync_host(kk_dualview_t *dv) { return sync_side("kk_dualview_sync_host", dv, 0, 0, NULL); }
kk_status_t kk_dualview_sync_device(kk_dualview_t *dv) {
  return sync_side("kk_dualview_sync_device", dv, 1, 0, NULL);
}
kk_status_t kk_dualview_sync_host_async(kk_dualview_t *dv, kk_instance_t *instance) {
  return sync_side("kk_dualview_sync_host_async", dv, 0, 1, instance);
}
kk_status_t kk_dualview_sync_device_async(kk_dualview_t *dv, kk_instance_t *instance) {
  return sync_side("kk_dualview_sync_device_async", dv, 1, 1, instance);
}

static int need_sync(const kk_dualview_t *dv, int side) {
  if (!dv || !live_has(dv))
    return 0;
  flags_t *f = dv->flags;
  pthread_mutex_lock(&f->lock);
  const int need = f->count[1 - side] > f->count[side];
  pthread_mutex_unlock(&f->lock);
  return need;
}

int kk_dualview_need_sync_host(const kk_dualview_t *dv) { return need_sync(dv, 0); }
int kk_dualview_need_sync_device(const kk_dualview_t *dv) { return need_sync(dv, 1); }

kk_status_t kk_dualview_clear_sync_state(kk_dualview_t *dv) {
  kk_status_t st = check("kk_dualview_clear_sync_state", dv);
  if (st != KK_OK)
    return st;
  pthread_mutex_lock(&dv->flags->lock);
  dv->flags->count[0] = dv->flags->count[1] = 0;
  pthread_mutex_unlock(&dv->flags->lock);
  return KK_OK;
}

/* ---- resize and realloc --------------------------------------------------------------------- */

static kk_status_t reshape(const char *op, kk_dualview_t *dv, const int64_t *extents, int keep) {
  kk_status_t st = check(op, dv);
  if (st != KK_OK)
    return st;
  if (!extents && kk_view_rank(dv->dev) > 0)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: DualView '%s': extents are NULL", op, dv->label);
  if (dv->is_subview)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: DualView '%s' is a subview: resize the DualView it was taken from",
                   op, dv->label);
  flags_t *f = dv->flags;
  pthread_mutex_lock(&f->lock);
  const unsigned m0 = f->count[0], m1 = f->count[1];
  pthread_mutex_unlock(&f->lock);
  if (dv->single) {
    kk_view_t *v = dv->dev;
    if ((st = keep ? kk_view_resize(&v, extents) : kk_view_realloc(&v, extents)) != KK_OK)
      return st;
    kk_view_release(dv->host); /* the second reference to the old view */
    dv->dev = v;
    dv->host = kk_view_retain(v);
  } else {
    /* The newer side (the device when neither is) keeps its contents; the
     * other is reallocated, and the kept side counts as modified. */
    const int kept = m0 > m1 ? 0 : 1;
    kk_view_t *k = kept ? dv->dev : dv->host, *o = kept ? dv->host : dv->dev;
    kk_view_t *nk = kk_view_retain(k), *no = kk_view_retain(o);
    if ((st = keep ? kk_view_resize(&nk, extents) : kk_view_realloc(&nk, extents)) != KK_OK) {
      kk_view_release(nk);
      kk_view_release(no);
      return st;
    }
    if ((st = kk_view_realloc(&no, extents)) != KK_OK) {
      kk_view_release(nk);
      kk_view_release(no);
      return st;
    }
    /* both new sides exist: the DualView's references move to them */
    kk_view_release(dv->dev);
    kk_view_release(dv->host);
    dv->dev = kept ? nk : no;
    dv->host = kept ? no : nk;
  }
  pthread_mutex_lock(&f->lock);
  if (keep && !dv->single) {
    const int kept = m0 > m1 ? 0 : 1;
    f->count[kept] = (m0 > m1 ? m0 : m1) + 1;
    f->count[1 - kept] = 0;
  } else {
    f->count[0] = f->count[1] = 0;
  }
  pthread_mutex_unlock(&f->lock);
  return KK_OK;
}

kk_status_t kk_dualview_resize(kk_dualview_t *dv, const int64_t *extents) {
  return reshape("kk_dualview_resize", dv, extents, 1);
}

kk_status_t kk_dualview_realloc(kk_dualview_t *dv, const int64_t *extents) {
  return reshape("kk_dualview_realloc", dv, extents, 0);
}
