/* core/space.c -- memory spaces, raw allocations and copies, execution instances and fences. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "handles.h"
#include "space.h"
#include "state.h"
#include "status.h"
#include "tools.h"

kk_space_t *kk_space_default(void) {
  if (!kk__g.initialized)
    return NULL;
  kk__backend_t *b = kk__g.def;
  for (int s = 0; s < b->space_count; s++)
    if (b->spaces[s].flags & KK_SPACE_DEFAULT)
      return &b->spaces[s];
  return &b->spaces[0];
}

kk_space_t *kk_space_host(void) {
  if (!kk__g.initialized)
    return NULL;
  kk__backend_t *b = kk__g.host;
  for (int s = 0; s < b->space_count; s++)
    if (b->spaces[s].flags & KK_SPACE_HOST_ACCESSIBLE)
      return &b->spaces[s];
  return &b->spaces[0];
}

kk_space_t *kk_space_find(const char *name) {
  if (!kk__g.initialized || !name)
    return NULL;
  for (int i = 0; i < kk__g.space_count; i++)
    if (strcmp(kk__g.spaces[i]->name, name) == 0)
      return kk__g.spaces[i];
  return NULL;
}

int kk_space_count(void) { return kk__g.initialized ? kk__g.space_count : 0; }

kk_space_t *kk_space_at(int i) {
  return kk__g.initialized && i >= 0 && i < kk__g.space_count ? kk__g.spaces[i] : NULL;
}

/* A space from before kk_finalize answers NULL / 0 / KK_LAYOUT_DEFAULT. */
const char *kk_space_name(const kk_space_t *space) {
  return !space ? "(host memory)" : kk__stale(space->gen) ? NULL : space->name;
}

const char *kk_space_backend(const kk_space_t *space) {
  return space && !kk__stale(space->gen) ? space->backend->name : NULL;
}

int kk_space_host_accessible(const kk_space_t *space) {
  return !space || (!kk__stale(space->gen) && (space->flags & KK_SPACE_HOST_ACCESSIBLE) != 0);
}

kk_layout_t kk_space_default_layout(const kk_space_t *space) {
  if (!space)
    return KK_LAYOUT_RIGHT;
  if (kk__stale(space->gen))
    return KK_LAYOUT_DEFAULT;
  const kk__backend_t *b = space->backend;
  return b->device >= 0 ? b->devices[b->device].preferred_layout : KK_LAYOUT_RIGHT;
}

kk_status_t kk__space_alloc(kk_space_t *space, const char *label, size_t bytes, void **ptr) {
  KK__REQUIRE_INIT("kk_space_alloc");
  if (!space || !ptr)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_space_alloc: space and ptr must not be NULL");
  *ptr = NULL;
  if (kk__stale(space->gen))
    return kk__stale_error("kk_space_alloc", "memory space", space->name);
  if (bytes == 0)
    return KK_OK;
  kk__backend_t *b = space->backend;
  kk_clear_error();
  kk_status_t st = b->ops.mem_alloc(b->ctx, space->index, bytes, ptr);
  if (st != KK_OK) {
    const char *detail = kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st);
    return kk__error(st, "kk_space_alloc: allocating '%s' (%zu bytes) in memory space %s of backend %s failed: %s",
                     label ? label : "", bytes, space->name, b->name, detail);
  }
  return KK_OK;
}

kk_status_t kk__space_free(kk_space_t *space, void *ptr) {
  KK__REQUIRE_INIT("kk_space_free");
  if (!ptr)
    return KK_OK;
  if (!space)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_space_free: space must not be NULL");
  if (kk__stale(space->gen))
    return kk__stale_error("kk_space_free", "memory space", space->name);
  return space->backend->ops.mem_free(space->backend->ctx, space->index, ptr);
}

kk_status_t kk_space_alloc(kk_space_t *space, const char *label, size_t bytes, void **ptr) {
  kk_status_t st = kk__space_alloc(space, label, bytes, ptr);
  if (KK__UNLIKELY(kk__tools.active) && st == KK_OK && *ptr)
    kk__tools_space_alloc(space, label, *ptr, bytes);
  return st;
}

kk_status_t kk_space_free(kk_space_t *space, void *ptr) {
  if (KK__UNLIKELY(kk__tools.active) && ptr && space && kk__g.initialized && !kk__stale(space->gen))
    kk__tools_space_free(space, ptr); /* before the memory can be reused by another thread's allocation */
  return kk__space_free(space, ptr);
}

int32_t kk__side_index(const kk__backend_t *b, const kk_space_t *side) {
  if (!side)
    return KK_PLUGIN_HOST_MEMORY;
  if (side->backend == b)
    return side->index;
  if (side->flags & KK_SPACE_HOST_ACCESSIBLE)
    return KK_PLUGIN_HOST_MEMORY;
  return -2;
}

kk_status_t kk_space_copy(kk_space_t *dst_space, void *dst, kk_space_t *src_space, const void *src, size_t bytes,
                          kk_instance_t *instance) {
  KK__REQUIRE_INIT("kk_space_copy");
  if (KK__UNLIKELY((dst_space && kk__stale(dst_space->gen)) || (src_space && kk__stale(src_space->gen)) ||
                   (instance && kk__stale(instance->gen))))
    return instance && kk__stale(instance->gen)
               ? kk__stale_error("kk_space_copy", "the instance", NULL)
               : kk__stale_error("kk_space_copy", "memory space",
                                 dst_space && kk__stale(dst_space->gen) ? dst_space->name : src_space->name);
  if (bytes == 0)
    return KK_OK;
  if (!dst || !src)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_space_copy: NULL %s pointer", dst ? "source" : "destination");
  /* The backend that performs the copy: the instance's, else a device backend
   * among the two sides, else the host backend. */
  kk__backend_t *b = instance ? instance->backend : NULL;
  if (!b && dst_space && !(dst_space->backend->ops.flags & KK_PLUGIN_FLAG_HOST))
    b = dst_space->backend;
  if (!b && src_space && !(src_space->backend->ops.flags & KK_PLUGIN_FLAG_HOST))
    b = src_space->backend;
  if (!b)
    b = kk__g.host;
  int32_t di = kk__side_index(b, dst_space), si = kk__side_index(b, src_space);
  if (di == -2 || si == -2)
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_space_copy: backend %s cannot reach memory space %s of backend %s", b->name,
                     di == -2 ? dst_space->name : src_space->name,
                     di == -2 ? dst_space->backend->name : src_space->backend->name);
  if (KK__UNLIKELY(instance && kk__capturing(instance)))
    return kk__graph_record_copy(instance, dst, di, src, si, bytes);
  kk_clear_error();
  kk_status_t st = b->ops.mem_copy(b->ctx, kk__mem_inst(instance), dst, di, src, si, bytes);
  if (st != KK_OK)
    return kk__error(st, "kk_space_copy: %zu bytes from %s to %s on backend %s failed: %s", bytes,
                     kk_space_name(src_space), kk_space_name(dst_space), b->name,
                     kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
  return KK_OK;
}

/* ---- instances ---------------------------------------------------------- */

kk_instance_t *kk_instance_default(void) { return kk__g.initialized ? kk__g.def->default_instance : NULL; }

kk_instance_t *kk_instance_host(void) { return kk__g.initialized ? kk__g.host->default_instance : NULL; }

/* NULL for an instance from before kk_finalize. */
const char *kk_instance_backend(const kk_instance_t *instance) {
  return instance && !kk__stale(instance->gen) ? instance->backend->name : NULL;
}

/* An instance of `backend` (NULL: the default one), on the program's queue
 * q when q is non-NULL (kk_instance_create_native). */
static kk_status_t instance_new(const char *op, const char *backend, const kk_native_queue_t *q,
                                kk_instance_t **out) {
  if (!out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "%s: out must not be NULL", op);
  *out = NULL;
  kk__backend_t *b = kk__g.def;
  if (backend) {
    b = kk__backend_find(backend);
    if (!b || !(b->is_default || b->is_host))
      return kk__error(KK_ERROR_NOT_FOUND, "%s: backend '%s' is not active (active: %s%s%s)", op, backend,
                       kk__g.def->name, kk__g.host != kk__g.def ? ", " : "",
                       kk__g.host != kk__g.def ? kk__g.host->name : "");
  }
  if (q) {
    kk_native_queue_t mine = {KK_NATIVE_NONE, 0, NULL, NULL};
    if (!KK_PLUGIN_HAS(&b->ops, instance_create_native) || !KK_PLUGIN_HAS(&b->ops, instance_native) ||
        b->ops.instance_native(b->ctx, NULL, &mine) != KK_OK)
      return kk__error(KK_ERROR_UNSUPPORTED, "%s: backend %s has no native queues (plugin ABI 1.4 interop)", op,
                       b->name);
    if (q->kind != mine.kind || !q->queue || q->device != mine.device)
      return kk__error(KK_ERROR_INVALID_ARGUMENT,
                       "%s: backend %s takes a queue of kind %d on device %d (got kind %d, device %d, queue %s)", op,
                       b->name, (int)mine.kind, (int)mine.device, (int)q->kind, (int)q->device,
                       q->queue ? "given" : "NULL");
  }
  kk_instance_t *inst = calloc(1, sizeof *inst);
  if (!inst)
    return kk__error(KK_ERROR_OUT_OF_MEMORY, "%s: out of memory", op);
  inst->backend = b;
  inst->gen = kk__generation_now();
  inst->tools_id = kk__tools_next_instance_id();
  kk_clear_error();
  kk_status_t st = q ? b->ops.instance_create_native(b->ctx, q, &inst->plugin_inst)
                     : b->ops.instance_create(b->ctx, &inst->plugin_inst);
  if (st != KK_OK) {
    free(inst);
    return kk__error(st, "%s: backend %s: %s", op, b->name,
                     kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
  }
  pthread_mutex_lock(&b->instances_lock);
  inst->next = b->instances;
  if (b->instances)
    b->instances->prev = inst;
  b->instances = inst;
  pthread_mutex_unlock(&b->instances_lock);
  *out = inst;
  return KK_OK;
}

kk_status_t kk_instance_create(const char *backend, kk_instance_t **out) {
  KK__REQUIRE_INIT("kk_instance_create");
  return instance_new("kk_instance_create", backend, NULL, out);
}

kk_status_t kk_instance_create_native(const char *backend, const kk_native_queue_t *queue, kk_instance_t **out) {
  KK__REQUIRE_INIT("kk_instance_create_native");
  if (!queue)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_instance_create_native: queue is NULL");
  return instance_new("kk_instance_create_native", backend, queue, out);
}

kk_status_t kk_instance_native_queue(kk_instance_t *instance, kk_native_queue_t *out) {
  KK__REQUIRE_INIT("kk_instance_native_queue");
  if (!instance || !out)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_instance_native_queue: %s is NULL", instance ? "out" : "instance");
  out->kind = KK_NATIVE_NONE;
  out->device = 0;
  out->queue = out->context = NULL;
  if (kk__stale(instance->gen))
    return kk__stale_error("kk_instance_native_queue", "the instance", NULL);
  kk__backend_t *b = instance->backend;
  if (!KK_PLUGIN_HAS(&b->ops, instance_native))
    return kk__error(KK_ERROR_UNSUPPORTED, "kk_instance_native_queue: backend %s has no native queue%s", b->name,
                     KK_PLUGIN_ABI_MINOR_OF(b->ops.abi_version) < 4 ? " (its plugin predates plugin ABI 1.4)" : "");
  kk_status_t st = b->ops.instance_native(b->ctx, instance->plugin_inst, out);
  if (st != KK_OK) {
    out->kind = KK_NATIVE_NONE;
    return kk__error(st, "kk_instance_native_queue: backend %s: %s", b->name,
                     kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
  }
  return KK_OK;
}

kk_status_t kk_instance_destroy(kk_instance_t *instance) {
  if (instance && kk__stale(instance->gen)) {
    if (instance->is_default)
      return kk__stale_error("kk_instance_destroy", "the default instance", NULL);
    /* kk_finalize destroyed its plugin side and kept the record for this call */
    kk__instance_forget(instance);
    return KK_OK;
  }
  KK__REQUIRE_INIT("kk_instance_destroy");
  if (!instance || instance->is_default)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_instance_destroy: %s",
                     instance ? "a default instance cannot be destroyed" : "instance is NULL");
  if (KK__UNLIKELY(kk__capturing(instance)))
    return kk__error(KK_ERROR_CAPTURE, "kk_instance_destroy: the instance is capturing a graph (end the capture first)");
  kk__backend_t *b = instance->backend;
  pthread_mutex_lock(&b->instances_lock);
  if (instance->prev)
    instance->prev->next = instance->next;
  else
    b->instances = instance->next;
  if (instance->next)
    instance->next->prev = instance->prev;
  pthread_mutex_unlock(&b->instances_lock);
  kk_status_t st = b->ops.instance_fence(b->ctx, instance->plugin_inst);
  kk_status_t st2 = b->ops.instance_destroy(b->ctx, instance->plugin_inst);
  free(instance);
  return st != KK_OK ? st : st2;
}

kk_status_t kk_instance_fence(kk_instance_t *instance) {
  KK__REQUIRE_INIT("kk_instance_fence");
  if (!instance)
    return kk__error(KK_ERROR_INVALID_ARGUMENT, "kk_instance_fence: instance is NULL");
  if (kk__stale(instance->gen))
    return kk__stale_error("kk_instance_fence", "the instance", NULL);
  if (KK__UNLIKELY(kk__capturing(instance)))
    return kk__error(KK_ERROR_CAPTURE,
                     "kk_instance_fence: the instance is capturing a graph: its work is recorded, not run, so there is "
                     "nothing to wait for (submit the graph, then fence)");
  kk__backend_t *b = instance->backend;
  uint64_t h = 0;
  bool traced = KK__UNLIKELY(kk__tools.active);
  if (traced)
    kk__tools_begin_fence("kk_instance_fence: Unnamed Instance Fence", kk__tools_instance_device_id(instance), &h);
  kk_status_t st = b->ops.instance_fence(b->ctx, instance->plugin_inst);
  if (traced)
    kk__tools_end_fence(h);
  if (st != KK_OK)
    return kk__error(st, "kk_instance_fence: backend %s: %s", b->name, kk_last_error());
  return KK_OK;
}

kk_status_t kk_instance_wait(kk_instance_t *waiter, kk_instance_t *waited) {
  KK__REQUIRE_INIT("kk_instance_wait");
  kk_instance_t *a = waiter ? waiter : kk_instance_default(), *w = waited ? waited : kk_instance_default();
  if (kk__stale(a->gen) || kk__stale(w->gen))
    return kk__stale_error("kk_instance_wait", kk__stale(a->gen) ? "the waiting instance" : "the waited-for instance",
                           NULL);
  kk__backend_t *b = w->backend;
  if (a->backend != b)
    return kk__error(KK_ERROR_INVALID_ARGUMENT,
                     "kk_instance_wait: the waiting instance is of backend %s, the waited-for one of %s: only "
                     "instances of one backend can be ordered (fence the waited-for one instead)",
                     a->backend->name, b->name);
  if (KK__UNLIKELY(kk__capturing(a) || kk__capturing(w)))
    return kk__error(KK_ERROR_CAPTURE,
                     "kk_instance_wait: the %s instance is capturing a graph: its work is recorded, not run (order "
                     "captured work by the graph's dependencies, or end the capture first)",
                     kk__capturing(a) ? "waiting" : "waited-for");
  if (a == w)
    return KK_OK;
  kk_status_t st = KK_ERROR_UNSUPPORTED;
  if (KK_PLUGIN_HAS(&b->ops, instance_wait)) {
    kk_clear_error();
    st = b->ops.instance_wait(b->ctx, a->plugin_inst, w->plugin_inst);
    if (st != KK_OK && st != KK_ERROR_UNSUPPORTED)
      return kk__error(st, "kk_instance_wait: backend %s: %s", b->name,
                       kk_last_status() != KK_OK ? kk_last_error() : kk_status_str(st));
  }
  if (st == KK_OK)
    return KK_OK;
  /* the backend cannot order its queues on the device (a host backend, one
   * without the member, or KK_ERROR_UNSUPPORTED from it): waiting for
   * `waited` on the host gives the same order, and is a fence for tools */
  uint64_t h = 0;
  bool traced = KK__UNLIKELY(kk__tools.active);
  if (traced)
    kk__tools_begin_fence("kk_instance_wait: Unnamed Instance Fence", kk__tools_instance_device_id(w), &h);
  kk_clear_error();
  st = b->ops.instance_fence(b->ctx, w->plugin_inst);
  if (traced)
    kk__tools_end_fence(h);
  if (st != KK_OK)
    return kk__error(st, "kk_instance_wait: waiting for the instance on backend %s: %s", b->name, kk_last_error());
  return KK_OK;
}

kk_status_t kk_fence(void) { return kk_fence_named(NULL); }

kk_status_t kk_fence_named(const char *name) {
  KK__REQUIRE_INIT("kk_fence");
  if (KK__UNLIKELY(atomic_load_explicit(&kk__captures_active, memory_order_relaxed) != 0)) {
    kk_status_t st = kk__graph_fence_check("kk_fence");
    if (st != KK_OK)
      return st;
  }
  return kk__fence_all(name);
}

kk_status_t kk__fence_all(const char *name) {
  if (KK__UNLIKELY(kk__tools.active))
    return kk__tools_fence_all(name ? name : "kk_fence: Unnamed Global Fence");
  kk_status_t st = kk__g.def->ops.fence_all(kk__g.def->ctx);
  if (st == KK_OK && kk__g.host != kk__g.def)
    st = kk__g.host->ops.fence_all(kk__g.host->ctx);
  if (st != KK_OK)
    return kk__error(st, "kk_fence: %s", kk_last_error());
  return KK_OK;
}
