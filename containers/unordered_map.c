/* containers/unordered_map.c -- UnorderedMap on the host: storage, size, clear, rehash, deep copy, and host access to host-accessible maps. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The kernel-language operations (kk/unordered_map.h), compiled here for the
 * host functions below. */
#include <kk/kernel.h>
#include <kk/unordered_map.h>

/* Limits: slots are indexed by 32-bit hashes scaled (kk__umap_home), so at
 * most 2^32 hashed slots, 2^31 entries; byte keys up to 256 bytes. */
#define MAX_CAPACITY ((uint64_t)1 << 31)
#define MAX_KEY_BYTES 256u
/* slots an insert looks at from its key's home before it gives up (and the
 * tail of slots past the hashed ones that a probe may run into): at load 0.5
 * a probe run this long has a probability below 1e-80 */
#define MAX_PROBE 1024u

struct kk_unordered_map_obj {
  char *label;
  kk_space_t *space;
  kk_type_t key_type, value_type;
  uint32_t key_size, value_size;
  uint64_t capacity;              /* entries asked for */
  kk_view_t *keys, *values, *tags, *ctl;
  kk_unordered_map d;             /* the descriptor of the current storage */
};

static const char *type_word(uint32_t key_size) { return key_size == 4 || key_size == 8 ? "integer" : "byte"; }

/* New storage for `capacity` entries (views and descriptor in *m, which
 * keeps its old ones when this fails). */
static kk_status_t storage(const char *op, kk_unordered_map_t *m, uint64_t capacity) {
  const int word = m->key_size == 4 || m->key_size == 8;
  const uint64_t hashed = 2 * capacity, probe = hashed < MAX_PROBE ? hashed : MAX_PROBE;
  const uint64_t slots = hashed + probe + (word ? 2 : 0);
  kk_view_t *keys = NULL, *values = NULL, *tags = NULL, *ctl = NULL;
  kk_status_t st;
  if ((st = kkc_vector(m->space, m->label, "_keys", m->key_type, m->key_size, (int64_t)slots, word, &keys)) != KK_OK)
    goto fail;
  if ((st = kkc_vector(m->space, m->label, "_values", m->value_size ? m->value_type : KK_UINT8, m->value_size,
                       m->value_size ? (int64_t)slots : 0, 0, &values)) != KK_OK)
    goto fail;
  if (!word && (st = kkc_vector(m->space, m->label, "_tags", KK_UINT32, 0, (int64_t)slots, 0, &tags)) != KK_OK)
    goto fail;
  if ((st = kkc_vector(m->space, m->label, "_state", KK_TYPE_CUSTOM, sizeof(kk_umap_ctl), 1, 0, &ctl)) != KK_OK)
    goto fail;
  if (word) { /* every slot empty: all-one bits */
    const uint64_t empty = ~(uint64_t)0;
    if ((st = kk_deep_copy_fill(keys, &empty)) != KK_OK)
      goto fail;
  }
  kk_view_release(m->keys);
  kk_view_release(m->values);
  kk_view_release(m->tags);
  kk_view_release(m->ctl);
  m->keys = keys, m->values = values, m->tags = tags, m->ctl = ctl;
  m->capacity = capacity;
  memset(&m->d, 0, sizeof m->d);
  m->d.keys = kk_view_bind_right(keys);
  m->d.values = kk_view_bind_right(values);
  m->d.tags = tags ? (uint32_t *)kk_view_data(tags) : NULL;
  m->d.ctl = (kk_umap_ctl *)kk_view_data(ctl);
  m->d.hashed = hashed;
  m->d.capacity = slots;
  m->d.key_size = m->key_size;
  m->d.value_size = m->value_size;
  m->d.max_probe = (uint32_t)probe;
  return KK_OK;
fail:
  kk_view_release(keys);
  kk_view_release(values);
  kk_view_release(tags);
  kk_view_release(ctl);
  return kkc_err(st, "%s: map '%s': %s", op, m->label, kk_last_error());
}

static kk_status_t make(const char *op, const char *label, kk_space_t *space, kk_type_t key_type, uint32_t key_size,
                        kk_type_t value_type, uint32_t value_size, uint64_t capacity, kk_unordered_map_t **out) {
  kk_unordered_map_t *m = calloc(1, sizeof *m);
  if (!m || !(m->label = kkc_strdup(label))) {
    free(m);
    return kkc_err(KK_ERROR_OUT_OF_MEMORY, "%s: map '%s': out of memory", op, label);
  }
  m->space = space;
  m->key_type = key_type;
  m->key_size = key_size;
  m->value_type = value_type;
  m->value_size = value_size;
  kk_status_t st = storage(op, m, capacity);
  if (st != KK_OK) {
    free(m->label);
    free(m);
    return st;
  }
  *out = m;
  return KK_OK;
}

kk_status_t kk_unordered_map_create(const kk_unordered_map_spec_t *spec, kk_unordered_map_t **out) {
  static const char op[] = "kk_unordered_map_create";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!spec || !out || spec->struct_size < sizeof *spec)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument or a spec not from KK_UNORDERED_MAP_SPEC_INIT", op);
  const char *label = spec->label ? spec->label : "";
  size_t ks;
  switch (spec->key_type) {
  case KK_INT32:
  case KK_UINT32:
  case KK_INT64:
  case KK_UINT64:
    ks = kkc_elem_size(spec->key_type, 0);
    if (spec->key_size && spec->key_size != ks)
      return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s': key_size %zu does not match key type %s", op, label,
                     spec->key_size, kk_type_name(spec->key_type));
    break;
  case KK_TYPE_CUSTOM:
    ks = spec->key_size;
    if (ks < 1 || ks > MAX_KEY_BYTES)
      return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s': byte keys of %zu bytes; give key_size 1 .. %u", op,
                     label, ks, MAX_KEY_BYTES);
    break;
  default:
    return kkc_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: map '%s': key type %s; keys are KK_INT32, KK_UINT32, KK_INT64, KK_UINT64 or KK_TYPE_CUSTOM "
                   "(bytes)",
                   op, label, kk_type_name(spec->key_type));
  }
  size_t vs;
  if (spec->value_type == KK_TYPE_CUSTOM) {
    vs = spec->value_size;
  } else {
    vs = kkc_elem_size(spec->value_type, 0);
    if (!vs)
      return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s': value type %s is not a value type", op, label,
                     kk_type_name(spec->value_type));
    if (spec->value_size && spec->value_size != vs)
      return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s': value_size %zu does not match value type %s", op, label,
                     spec->value_size, kk_type_name(spec->value_type));
  }
  if (vs > UINT32_MAX / 2)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s': values of %zu bytes", op, label, vs);
  if (spec->capacity < 1 || spec->capacity > MAX_CAPACITY)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s': capacity %llu; give 1 .. 2^31 entries", op, label,
                   (unsigned long long)spec->capacity);
  kk_space_t *space = spec->space ? spec->space : kk_space_default();
  return make(op, label, space, spec->key_type, (uint32_t)ks, spec->value_type, (uint32_t)vs, spec->capacity, out);
}

kk_status_t kk_unordered_map_create_mirror(kk_space_t *space, const kk_unordered_map_t *src, kk_unordered_map_t **out) {
  static const char op[] = "kk_unordered_map_create_mirror";
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!src || !out)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: NULL argument", op);
  char label[256];
  snprintf(label, sizeof label, "%s_mirror", src->label);
  return make(op, label, space ? space : kk_space_host(), src->key_type, src->key_size, src->value_type,
              src->value_size, src->capacity, out);
}

void kk_unordered_map_release(kk_unordered_map_t *m) {
  if (!m)
    return;
  kk_view_release(m->keys);
  kk_view_release(m->values);
  kk_view_release(m->tags);
  kk_view_release(m->ctl);
  free(m->label);
  free(m);
}

kk_unordered_map kk_unordered_map_bind(kk_unordered_map_t *m) {
  if (m)
    return m->d;
  kk_unordered_map none;
  memset(&none, 0, sizeof none);
  kkc_err(KK_ERROR_INVALID_ARGUMENT, "kk_unordered_map_bind: the map is NULL");
  return none;
}

const char *kk_unordered_map_label(const kk_unordered_map_t *m) { return m ? m->label : NULL; }
kk_space_t *kk_unordered_map_space(const kk_unordered_map_t *m) { return m ? m->space : NULL; }
size_t kk_unordered_map_key_size(const kk_unordered_map_t *m) { return m ? m->key_size : 0; }
size_t kk_unordered_map_value_size(const kk_unordered_map_t *m) { return m ? m->value_size : 0; }
uint64_t kk_unordered_map_capacity(const kk_unordered_map_t *m) { return m ? m->capacity : 0; }
uint64_t kk_unordered_map_slots(const kk_unordered_map_t *m) { return m ? m->d.capacity : 0; }

/* The checks of every call that takes a map. */
static kk_status_t check(const char *op, const kk_unordered_map_t *m) {
  kk_status_t st = kkc_require_init(op);
  if (st != KK_OK)
    return st;
  if (!m)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: the map is NULL", op);
  return KK_OK;
}

kk_status_t kk_unordered_map_size(kk_unordered_map_t *m, uint64_t *size) {
  static const char op[] = "kk_unordered_map_size";
  kk_status_t st = check(op, m);
  if (st != KK_OK)
    return st;
  if (!size)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: size is NULL", op);
  kk_instance_t *inst = kkc_instance_for(op, m->label, m->space);
  if (!inst)
    return kk_last_status();
  struct kkc_umap_args a = {m->d};
  int64_t n = 0;
  if ((st = kk_parallel_reduce(op, KK_RANGE_ON(inst, 0, (int64_t)m->d.capacity), KK_KERNEL(kkc_umap_count), KK_ARGS(a),
                               KK_RESULT(n))) != KK_OK)
    return st;
  *size = (uint64_t)n;
  return KK_OK;
}

/* The control block, read to the host after the map's backend is fenced. */
static kk_status_t read_ctl(const char *op, kk_unordered_map_t *m, kk_umap_ctl *c) {
  kk_instance_t *inst = kkc_instance_for(op, m->label, m->space);
  if (!inst)
    return kk_last_status();
  kk_status_t st = kk_instance_fence(inst);
  if (st == KK_OK)
    st = kk_space_copy(NULL, c, m->space, kk_view_data(m->ctl), sizeof *c, NULL);
  return st;
}

kk_status_t kk_unordered_map_failed_inserts(kk_unordered_map_t *m, uint64_t *failed) {
  static const char op[] = "kk_unordered_map_failed_inserts";
  kk_status_t st = check(op, m);
  if (st != KK_OK)
    return st;
  if (!failed)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: failed is NULL", op);
  kk_umap_ctl c;
  if ((st = read_ctl(op, m, &c)) != KK_OK)
    return st;
  *failed = c.failed;
  if (c.misuse) {
    const unsigned kind = c.misuse >> 16, bytes = c.misuse & 0xffffu;
    if (kind == 1 && (m->key_size == 4 || m->key_size == 8))
      return kkc_err(KK_ERROR_INVALID_ARGUMENT,
                     "%s: map '%s': a kernel passed a key of %u bytes by address; the map's keys have %u bytes", op,
                     m->label, bytes, m->key_size);
    if (kind == 1)
      return kkc_err(KK_ERROR_INVALID_ARGUMENT,
                     "%s: map '%s': a kernel passed a key of %u bytes%s; the map's keys are %s keys of %u bytes "
                     "(use the _BYTES forms with their address)",
                     op, m->label, bytes, bytes == 8 ? " (an integer)" : "", type_word(m->key_size), m->key_size);
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s': a kernel passed a value of %u bytes; the map's values %s",
                   op, m->label, bytes, m->value_size ? "have a different size" : "do not exist (a set)");
  }
  return KK_OK;
}

kk_status_t kk_unordered_map_clear(kk_unordered_map_t *m) {
  static const char op[] = "kk_unordered_map_clear";
  kk_status_t st = check(op, m);
  if (st != KK_OK)
    return st;
  const uint64_t empty = ~(uint64_t)0;
  const uint32_t zero32 = 0;
  const kk_umap_ctl zero_ctl = {0, {0, 0}, 0, 0};
  if (m->key_size == 4 || m->key_size == 8)
    st = kk_deep_copy_fill(m->keys, &empty);
  else
    st = kk_deep_copy_fill(m->tags, &zero32);
  if (st == KK_OK && m->value_size) { /* values of any size: zero bytes, in place (bound descriptors stay valid) */
    kk_view_spec_t s = KK_VIEW_SPEC_INIT;
    s.label = kk_view_label(m->values);
    s.type = KK_UINT8;
    s.rank = 1;
    s.extents[0] = (int64_t)(m->d.capacity * m->value_size);
    s.space = m->space;
    kk_view_t *bytes = NULL;
    const uint8_t zero8 = 0;
    if ((st = kk_view_wrap(&s, kk_view_data(m->values), &bytes)) == KK_OK)
      st = kk_deep_copy_fill(bytes, &zero8);
    kk_view_release(bytes);
  }
  if (st == KK_OK)
    st = kk_space_copy(m->space, kk_view_data(m->ctl), NULL, &zero_ctl, sizeof zero_ctl, NULL);
  if (st != KK_OK)
    return kkc_err(st, "%s: map '%s': %s", op, m->label, kk_last_error());
  return KK_OK;
}

kk_status_t kk_unordered_map_rehash(kk_unordered_map_t *m, uint64_t capacity) {
  static const char op[] = "kk_unordered_map_rehash";
  kk_status_t st = check(op, m);
  if (st != KK_OK)
    return st;
  if (!capacity)
    capacity = m->capacity <= MAX_CAPACITY / 2 ? 2 * m->capacity : MAX_CAPACITY;
  /* never below the entries (as Kokkos): a map that failed inserts may hold
   * more than its capacity, its probe tail taking the overflow */
  uint64_t size = 0;
  if ((st = kk_unordered_map_size(m, &size)) != KK_OK)
    return st;
  if (capacity < size)
    capacity = size;
  if (capacity > MAX_CAPACITY)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s': capacity %llu; give at most 2^31 entries", op, m->label,
                   (unsigned long long)capacity);
  kk_instance_t *inst = kkc_instance_for(op, m->label, m->space);
  if (!inst)
    return kk_last_status();
  /* the new storage in a map of its own, so that the old stays until the move succeeded */
  kk_unordered_map_t *n = NULL;
  if ((st = make(op, m->label, m->space, m->key_type, m->key_size, m->value_type, m->value_size, capacity, &n)) !=
      KK_OK)
    return st;
  struct kkc_umap_move_args a = {m->d, n->d};
  uint64_t failed = 0;
  if ((st = kk_parallel_for(op, KK_RANGE_ON(inst, 0, (int64_t)m->d.capacity), KK_KERNEL(kkc_umap_move), KK_ARGS(a))) !=
          KK_OK ||
      (st = kk_unordered_map_failed_inserts(n, &failed)) != KK_OK) {
    kk_unordered_map_release(n);
    return kkc_err(st, "%s: map '%s': %s", op, m->label, kk_last_error());
  }
  if (failed) {
    kk_unordered_map_release(n);
    return kkc_err(KK_ERROR_LIMIT, "%s: map '%s': %llu entries found no room in a capacity of %llu; the map is unchanged",
                   op, m->label, (unsigned long long)failed, (unsigned long long)capacity);
  }
  /* the new storage becomes m's */
  kk_view_t *ok = m->keys, *ov = m->values, *ot = m->tags, *oc = m->ctl;
  m->keys = n->keys, m->values = n->values, m->tags = n->tags, m->ctl = n->ctl;
  m->capacity = n->capacity;
  m->d = n->d;
  n->keys = ok, n->values = ov, n->tags = ot, n->ctl = oc;
  kk_unordered_map_release(n);
  return KK_OK;
}

kk_status_t kk_unordered_map_deep_copy(kk_unordered_map_t *dst, kk_unordered_map_t *src) {
  static const char op[] = "kk_unordered_map_deep_copy";
  kk_status_t st = check(op, dst);
  if (st != KK_OK)
    return st;
  if (!src)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: the source map is NULL", op);
  if (dst == src)
    return KK_OK;
  if (dst->key_size != src->key_size || dst->value_size != src->value_size)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: maps '%s' (keys of %u bytes, values of %u) and '%s' (keys of %u bytes, values of %u) differ", op,
                   dst->label, dst->key_size, dst->value_size, src->label, src->key_size, src->value_size);
  /* the source's writers must be done */
  kk_instance_t *sinst = kkc_instance_for(op, src->label, src->space);
  if (!sinst)
    return kk_last_status();
  if ((st = kk_instance_fence(sinst)) != KK_OK)
    return st;
  if (dst->d.capacity != src->d.capacity && (st = storage(op, dst, src->capacity)) != KK_OK)
    return st;
  dst->capacity = src->capacity;
  if ((st = kk_deep_copy(dst->keys, src->keys)) != KK_OK || (st = kk_deep_copy(dst->values, src->values)) != KK_OK ||
      (dst->tags && (st = kk_deep_copy(dst->tags, src->tags)) != KK_OK) ||
      (st = kk_deep_copy(dst->ctl, src->ctl)) != KK_OK)
    return kkc_err(st, "%s: map '%s' from '%s': %s", op, dst->label, src->label, kk_last_error());
  return KK_OK;
}

/* ---- host access ------------------------------------------------------------------------------- */

static kk_status_t check_host(const char *op, const kk_unordered_map_t *m) {
  kk_status_t st = check(op, m);
  if (st != KK_OK)
    return st;
  if (!kk_space_host_accessible(m->space))
    return kkc_err(KK_ERROR_INVALID_ARGUMENT,
                   "%s: map '%s' is in space %s, which the host cannot access: copy it into a mirror "
                   "(kk_unordered_map_create_mirror, kk_unordered_map_deep_copy)",
                   op, m->label, kk_space_name(m->space));
  return KK_OK;
}

static kk_status_t check_slot(const char *op, const kk_unordered_map_t *m, int64_t i) {
  kk_status_t st = check_host(op, m);
  if (st != KK_OK)
    return st;
  if (i < 0 || (uint64_t)i >= m->d.capacity)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s': slot %lld is outside [0, %llu)", op, m->label,
                   (long long)i, (unsigned long long)m->d.capacity);
  return KK_OK;
}

kk_status_t kk_unordered_map_host_insert(kk_unordered_map_t *m, const void *key, const void *value, int64_t *index,
                                         int *status) {
  static const char op[] = "kk_unordered_map_host_insert";
  kk_status_t st = check_host(op, m);
  if (st != KK_OK)
    return st;
  if (!key)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s': the key is NULL", op, m->label);
  if (value && !m->value_size)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s' is a set: it takes no value", op, m->label);
  const kk_umap_insert_result r = kk__umap_insert_bytes(&m->d, key, m->key_size, value, value ? m->value_size : 0);
  if (index)
    *index = r.index;
  if (status)
    *status = r.status;
  return KK_OK;
}

kk_status_t kk_unordered_map_host_find(const kk_unordered_map_t *m, const void *key, int64_t *index) {
  static const char op[] = "kk_unordered_map_host_find";
  kk_status_t st = check_host(op, m);
  if (st != KK_OK)
    return st;
  if (!key || !index)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s': NULL argument", op, m->label);
  *index = kk__umap_find_bytes(&m->d, key, m->key_size);
  return KK_OK;
}

kk_status_t kk_unordered_map_host_valid_at(const kk_unordered_map_t *m, int64_t i, int *valid) {
  static const char op[] = "kk_unordered_map_host_valid_at";
  kk_status_t st = check_slot(op, m, i);
  if (st != KK_OK)
    return st;
  if (!valid)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: valid is NULL", op);
  *valid = kk__umap_valid_at(&m->d, i);
  return KK_OK;
}

kk_status_t kk_unordered_map_host_key_at(const kk_unordered_map_t *m, int64_t i, void *key) {
  static const char op[] = "kk_unordered_map_host_key_at";
  kk_status_t st = check_slot(op, m, i);
  if (st != KK_OK)
    return st;
  if (!key)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: key is NULL", op);
  memcpy(key, (const char *)kk_view_data(m->keys) + (uint64_t)i * m->key_size, m->key_size);
  return KK_OK;
}

kk_status_t kk_unordered_map_host_value_at(const kk_unordered_map_t *m, int64_t i, void *value) {
  static const char op[] = "kk_unordered_map_host_value_at";
  kk_status_t st = check_slot(op, m, i);
  if (st != KK_OK)
    return st;
  if (!value)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: value is NULL", op);
  if (!m->value_size)
    return kkc_err(KK_ERROR_INVALID_ARGUMENT, "%s: map '%s' is a set: it has no values", op, m->label);
  memcpy(value, (const char *)kk_view_data(m->values) + (uint64_t)i * m->value_size, m->value_size);
  return KK_OK;
}
