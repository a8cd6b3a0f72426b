/* core/handles.c -- handles that outlive kk_finalize: the records kept for them, and the error that refuses them. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdlib.h>

#include "handles.h"
#include "state.h"
#include "status.h"

/*
 * A program may hold kk_space_t and kk_instance_t pointers past kk_finalize
 * (and past a new kk_initialize).  A call on one must be able to read its
 * generation stamp to refuse it, so the records of the backends that were
 * in use are not freed with them: the spaces and the default instances are
 * kept for the rest of the process (listed here, so that a leak checker
 * sees them reachable), a few hundred bytes per initialization; the
 * instances the program created and had not destroyed are kept until it
 * calls kk_instance_destroy on them.  Kept records point to no backend.
 */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static void **g_kept;
static size_t g_kept_count, g_kept_cap;
static kk_instance_t *g_kept_instances; /* linked through next/prev */

static void keep(void *p) {
  if (!p)
    return;
  pthread_mutex_lock(&g_lock);
  if (g_kept_count == g_kept_cap) {
    size_t cap = g_kept_cap ? 2 * g_kept_cap : 16;
    void **n = realloc(g_kept, sizeof *n * cap);
    if (n) {
      g_kept = n;
      g_kept_cap = cap;
    }
  }
  if (g_kept_count < g_kept_cap)
    g_kept[g_kept_count++] = p;
  /* else no room to list it: it stays allocated all the same */
  pthread_mutex_unlock(&g_lock);
}

void kk__backend_retire_handles(kk__backend_t *b) {
  while (b->instances) {
    kk_instance_t *inst = b->instances;
    b->instances = inst->next;
    kk__debug("backend %s: destroying an instance the program did not destroy", b->name);
    b->ops.instance_fence(b->ctx, inst->plugin_inst);
    b->ops.instance_destroy(b->ctx, inst->plugin_inst);
    inst->plugin_inst = NULL;
    inst->backend = NULL;
    pthread_mutex_lock(&g_lock);
    inst->prev = NULL;
    inst->next = g_kept_instances;
    if (g_kept_instances)
      g_kept_instances->prev = inst;
    g_kept_instances = inst;
    pthread_mutex_unlock(&g_lock);
  }
  if (b->default_instance)
    b->default_instance->backend = NULL;
  keep(b->default_instance);
  b->default_instance = NULL;
  for (int s = 0; b->spaces && s < b->space_count; s++)
    b->spaces[s].backend = NULL;
  keep(b->spaces);
  b->spaces = NULL;
  b->space_count = 0;
}

void kk__instance_forget(kk_instance_t *inst) {
  pthread_mutex_lock(&g_lock);
  if (inst->prev)
    inst->prev->next = inst->next;
  else if (g_kept_instances == inst)
    g_kept_instances = inst->next;
  if (inst->next)
    inst->next->prev = inst->prev;
  pthread_mutex_unlock(&g_lock);
  free(inst);
}

void kk__stale_message(char *buf, size_t size, const char *op, const char *kind, const char *label) {
  const char *after = kk__g.initialized
                          ? ": a handle does not carry over into a new kk_initialize (make it again)"
                          : " (kk is not initialized)";
  if (label)
    kk__snprintf(buf, size, "%s: %s '%s' was made before kk_finalize, which ended it%s", op, kind, label, after);
  else
    kk__snprintf(buf, size, "%s: %s was made before kk_finalize, which ended it%s", op, kind, after);
}

kk_status_t kk__stale_error(const char *op, const char *kind, const char *label) {
  char msg[2048];
  kk__stale_message(msg, sizeof msg, op, kind, label);
  return kk__error(KK_ERROR_NOT_INITIALIZED, "%s", msg);
}
