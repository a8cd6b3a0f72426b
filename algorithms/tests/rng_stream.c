/* algorithms/tests/rng_stream.c -- writes the raw 32-bit output of a kk generator's fill_random to stdout, for dieharder (-g 200) to read. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk/algorithms.h>

/*
 * Usage: rng_stream [--kokkos-*] KIND [SEED [WORDS [SLOTS]]]
 * KIND: xorshift64, xorshift1024 or philox.  Fills a view of 2^22 uint32
 * over their whole range from one pool of SLOTS slots (default: the
 * backend's concurrency) again and again -- the stream programs see, every
 * slot's numbers in the backend's layout -- and writes each to stdout,
 * WORDS words in all (negative, the default: until the reader closes the
 * pipe).
 */
int main(int argc, char **argv) {
  kk_initialize_or_exit(&argc, &argv);
  if (argc < 2) {
    fprintf(stderr, "usage: rng_stream [--kokkos-*] xorshift64|xorshift1024|philox [SEED [WORDS [SLOTS]]]\n");
    kk_finalize();
    return 2;
  }
  const kk_random_kind_t kind = strcmp(argv[1], "xorshift64") == 0     ? KK_RANDOM_XORSHIFT64
                                : strcmp(argv[1], "xorshift1024") == 0 ? KK_RANDOM_XORSHIFT1024
                                : strcmp(argv[1], "philox") == 0       ? KK_RANDOM_PHILOX
                                                                       : (kk_random_kind_t)0;
  const uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 42;
  long long words = argc > 3 ? atoll(argv[3]) : -1;
  const int64_t slots = argc > 4 ? atoll(argv[4]) : 0;
  signal(SIGPIPE, SIG_IGN); /* a reader that has enough closes the pipe: a write error, not a signal */
  kk_random_pool_t *pool;
  kk_view_t *v, *m;
  const int64_t n = (int64_t)1 << 22;
  if (kk_random_pool_create(NULL, kind, seed, slots, &pool) != KK_OK || kk_view_alloc(&v, "stream", KK_UINT32, 1, &n) != KK_OK ||
      kk_view_create_mirror(v, &m) != KK_OK) {
    fprintf(stderr, "rng_stream: %s\n", kk_last_error());
    kk_finalize();
    return 1;
  }
  int status = 0;
  while (words != 0) {
    if (kk_fill_random(NULL, v, pool, 0, 0) != KK_OK || kk_deep_copy(m, v) != KK_OK) {
      fprintf(stderr, "rng_stream: %s\n", kk_last_error());
      status = 1;
      break;
    }
    const size_t count = words < 0 || words > n ? (size_t)n : (size_t)words;
    if (fwrite(kk_view_data(m), 4, count, stdout) != count || fflush(stdout) != 0)
      break; /* the reader is done */
    if (words > 0)
      words -= (long long)count;
  }
  kk_view_release(m);
  kk_view_release(v);
  kk_random_pool_destroy(pool);
  kk_finalize();
  return status;
}
