/* bench/containers_native.h -- the hand-written CUDA side of kk-bench-containers (bench/containers_native_cuda.cu): an open-addressing table with kk's probing, a free list of ids, a copy. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_CONTAINERS_NATIVE_H
#define KK_BENCH_CONTAINERS_NATIVE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Each puts the best of up to `reps` timed runs in seconds (after a warm-up,
 * timed as the kk side is: the host clock around the launch and the wait
 * for it; no more runs once `budget` seconds are spent and one is timed)
 * and returns 0, or returns -1 when CUDA fails (the reason on stderr). */

/* 2^log2n keys bc_key(i) into a table of 2^(log2n+1) slots (load 0.5): set
 * 0 inserts key i with value i (claim, write the value, publish the key),
 * set 1 keys alone; then finds every key.  *checksum gets the sum of the
 * values found (set 0) or of the keys found (set 1), *size the entries. */
int kkbc_cuda_map(int log2n, int set, int reps, double budget, double *insert_s, double *find_s, uint64_t *checksum,
                  uint64_t *size);

/* n acquire/release pairs through a free list of `ids` ids (a stack with a
 * tagged head, every thread popping and pushing with compare-and-swap). */
int kkbc_cuda_token(int64_t n, int32_t ids, int reps, double budget, double *seconds);

/* a device-to-host copy of `bytes` (pageable host memory, as a DualView's host side) */
int kkbc_cuda_copy(uint64_t bytes, int reps, double budget, double *seconds);

#ifdef __cplusplus
}
#endif

#endif
