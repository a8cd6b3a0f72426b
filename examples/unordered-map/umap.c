/* examples/unordered-map/umap.c -- counting the distinct values of an array with an UnorderedMap whose size is not known in advance: insert, rehash when inserts failed, retry. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <kk/containers.h>

#include "umap.h"

/*
 * The map starts far too small (capacity 64 for 20000 distinct values).
 * Phase 1 inserts every value; when some inserts found no room
 * (kk_unordered_map_failed_inserts), the map is rehashed to twice its
 * capacity -- the entries it holds move along -- and phase 1 runs again,
 * which is harmless for the values already in.  Phase 2 then counts each
 * value's occurrences with find and an atomic add.  The program checks its
 * result against a plain C count and exits 1 on a mismatch.
 */

#define CHECK(call)                                                                 \
  do {                                                                              \
    if ((call) != KK_OK) {                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, kk_last_error()); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  const int64_t n = 200000, distinct = 20000;
  /* the data: every value k in [0, distinct) appears k % 7 + 1 times, shuffled */
  int64_t *h = malloc(n * sizeof *h), fill = 0;
  for (int64_t k = 0; k < distinct && fill < n; k++)
    for (int64_t r = 0; r <= k % 7 && fill < n; r++)
      h[fill++] = k * 1000003;
  for (int64_t i = fill - 1; i > 0; i--) {
    const int64_t j = (int64_t)(((uint64_t)i * 2654435761u) % (uint64_t)(i + 1)), t = h[i];
    h[i] = h[j], h[j] = t;
  }
  kk_view_t *data = NULL;
  CHECK(kk_view_alloc(&data, "data", KK_INT64, 1, (const int64_t[]){fill}));
  CHECK(kk_space_copy(kk_view_space(data), kk_view_data(data), NULL, h, fill * sizeof *h, NULL));

  kk_unordered_map_spec_t s = KK_UNORDERED_MAP_SPEC_INIT;
  s.label = "counts";
  s.key_type = KK_INT64;
  s.value_type = KK_INT64;
  s.capacity = 64;
  kk_unordered_map_t *map = NULL;
  CHECK(kk_unordered_map_create(&s, &map));

  /* phase 1: insert, then rehash and retry while inserts fail */
  int rounds = 0;
  for (;;) {
    struct distinct_args a = {kk_unordered_map_bind(map), kk_view_bind(data)}; /* bind again after a rehash */
    CHECK(kk_parallel_for("insert values", KK_RANGE(0, fill), KK_KERNEL(insert_values), KK_ARGS(a)));
    uint64_t failed = 0;
    CHECK(kk_unordered_map_failed_inserts(map, &failed));
    rounds++;
    if (!failed)
      break;
    printf("round %d: %llu inserts found no room in a capacity of %llu: rehash\n", rounds, (unsigned long long)failed,
           (unsigned long long)kk_unordered_map_capacity(map));
    CHECK(kk_unordered_map_rehash(map, 2 * kk_unordered_map_capacity(map)));
  }

  /* phase 2: count */
  struct distinct_args a = {kk_unordered_map_bind(map), kk_view_bind(data)};
  CHECK(kk_parallel_for("count values", KK_RANGE(0, fill), KK_KERNEL(count_values), KK_ARGS(a)));
  uint64_t size = 0;
  CHECK(kk_unordered_map_size(map, &size));

  /* the result on the host, through a mirror */
  kk_unordered_map_t *mirror = NULL;
  CHECK(kk_unordered_map_create_mirror(NULL, map, &mirror));
  CHECK(kk_unordered_map_deep_copy(mirror, map));
  int bad = size != (uint64_t)distinct;
  for (int64_t k = 0; k < distinct; k++) {
    const int64_t key = k * 1000003;
    int64_t at = -1, count = 0;
    CHECK(kk_unordered_map_host_find(mirror, &key, &at));
    if (at >= 0)
      CHECK(kk_unordered_map_host_value_at(mirror, at, &count));
    if (count != k % 7 + 1) {
      if (!bad)
        fprintf(stderr, "value %lld counted %lld times, expected %lld\n", (long long)key, (long long)count,
                (long long)(k % 7 + 1));
      bad = 1;
    }
  }
  printf("%llu distinct values among %lld after %d round(s), capacity %llu: %s\n", (unsigned long long)size,
         (long long)fill, rounds, (unsigned long long)kk_unordered_map_capacity(map), bad ? "WRONG" : "ok");
  kk_unordered_map_release(mirror);
  kk_unordered_map_release(map);
  kk_view_release(data);
  free(h);
  kk_finalize();
  return bad;
}
