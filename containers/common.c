/* containers/common.c -- what every kk-containers function shares: errors, the instance a container's work runs on, labelled vectors. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *kk_containers_version(void) { return KK_VERSION_STRING; }

kk_status_t kk_containers_print_report(FILE *out, int json) {
  if (!out)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "kk_containers_print_report: out is NULL");
  static const char *const names[] = {"DualView", "UnorderedMap", "Bitset", "UniqueToken", "DynamicView", "OffsetView"};
  /* the targets kkcc built the library's kernels for (its module records them) */
  const kk_kernel_t *k = KK_KERNEL(kkc_umap_count);
  const char *targets = k->module && k->module->targets ? k->module->targets : "";
  const size_t n = sizeof names / sizeof *names;
  if (json) {
    fprintf(out, "{\"version\": \"%s\", \"containers\": [", kk_containers_version());
    for (size_t i = 0; i < n; i++)
      fprintf(out, "%s\"%s\"", i ? ", " : "", names[i]);
    fprintf(out, "], \"kernel_targets\": \"%s\"}", targets);
  } else {
    fprintf(out, "kk-containers %s:", kk_containers_version());
    for (size_t i = 0; i < n; i++)
      fprintf(out, "%s %s", i ? "," : "", names[i]);
    fprintf(out, "\n  kernels built for: %s\n", *targets ? targets : "(unknown)");
  }
  return KK_OK;
}

kk_status_t kkc_err(kk_status_t st, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return kk_set_error(st, "%s", buf);
}

kk_status_t kkc_require_init(const char *op) {
  if (!kk_is_initialized())
    return kkc_err(KK_ERROR_NOT_INITIALIZED, "%s: kk is not initialized (call kk_initialize first)", op);
  return KK_OK;
}

kk_instance_t *kkc_instance_for(const char *op, const char *label, kk_space_t *space) {
  const char *owner = kk_space_backend(space);
  if (strcmp(owner, kk_backend_default()) == 0)
    return kk_instance_default();
  if (strcmp(owner, kk_backend_host()) == 0)
    return kk_instance_host();
  kkc_err(KK_ERROR_UNSUPPORTED, "%s: '%s' is in space %s of backend %s, which is neither the default backend (%s) nor the host backend (%s)",
          op, label, kk_space_name(space), owner, kk_backend_default(), kk_backend_host());
  return NULL;
}

char *kkc_strdup(const char *s) {
  if (!s)
    s = "";
  size_t n = strlen(s) + 1;
  char *c = malloc(n);
  if (c)
    memcpy(c, s, n);
  return c;
}

kk_status_t kkc_vector(kk_space_t *space, const char *label, const char *suffix, kk_type_t type, size_t elem_size,
                       int64_t n, int no_init, kk_view_t **out) {
  char name[256];
  snprintf(name, sizeof name, "%s%s", label, suffix);
  kk_view_spec_t s = KK_VIEW_SPEC_INIT;
  s.label = name;
  s.type = type;
  s.elem_size = type == KK_TYPE_CUSTOM ? elem_size : 0;
  s.rank = 1;
  s.extents[0] = n;
  s.space = space;
  s.flags = no_init ? KK_VIEW_NO_INIT : 0;
  return kk_view_create(&s, out);
}

size_t kkc_elem_size(kk_type_t t, size_t custom) {
  switch (t) {
  case KK_INT8:
  case KK_UINT8:
    return 1;
  case KK_INT16:
  case KK_UINT16:
    return 2;
  case KK_INT32:
  case KK_UINT32:
  case KK_FLOAT:
    return 4;
  case KK_INT64:
  case KK_UINT64:
  case KK_DOUBLE:
  case KK_COMPLEX_FLOAT:
    return 8;
  case KK_COMPLEX_DOUBLE:
    return 16;
  case KK_TYPE_CUSTOM:
    return custom;
  default:
    return 0;
  }
}
