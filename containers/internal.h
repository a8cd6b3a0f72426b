/* containers/internal.h -- what libkk-containers' host files share: errors, where a container's work runs, the library's kernels. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKC_INTERNAL_H
#define KKC_INTERNAL_H

#include <stdint.h>

#include <kk/containers.h>

#include "kernels.h"

#if defined(__GNUC__)
#define KKC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KKC_PRINTF(a, b)
#endif

/* Records an error (kk_set_error) and returns its status. */
kk_status_t kkc_err(kk_status_t st, const char *fmt, ...) KKC_PRINTF(2, 3);

/* KK_OK when kk is initialized, else KK_ERROR_NOT_INITIALIZED naming op. */
kk_status_t kkc_require_init(const char *op);

/* The instance that runs a container's kernels and copies: the default
 * instance of the backend that owns `space` (the default backend's or the
 * host backend's); NULL, with the error recorded, for a space of neither. */
kk_instance_t *kkc_instance_for(const char *op, const char *label, kk_space_t *space);

/* A heap copy of s ("" for NULL); NULL when out of memory. */
char *kkc_strdup(const char *s);

/* The bytes of one element of type t (custom: the size of a KK_TYPE_CUSTOM element); 0 for a type kk does
 * not know. */
size_t kkc_elem_size(kk_type_t t, size_t custom);

/* A rank-1 view of n elements (type, elem_size as kk_view_spec_t) labelled
 * "<label><suffix>" in `space`; zeroed unless no_init. */
kk_status_t kkc_vector(kk_space_t *space, const char *label, const char *suffix, kk_type_t type, size_t elem_size,
                       int64_t n, int no_init, kk_view_t **out);

#endif /* KKC_INTERNAL_H */
