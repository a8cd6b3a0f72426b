/* algorithms/sort_gpu.h -- the GPU radix sort's host side (sort_gpu.c), for sort.c and binsort.c. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKA_SORT_GPU_H
#define KKA_SORT_GPU_H

#include "internal.h"

/* Sorts the n keys (ksize bytes, KKA_KEY_* kind, descending or not) in
 * keys[cur] (values of vsize 0, 4 or 8 bytes in vals[cur]) with the
 * one-sweep kernels on c->inst, ping-ponging with keys[!cur] / vals[!cur];
 * *cur says where they end.  Asynchronous except for its temporaries. */
kk_status_t kka_radix_gpu(const kka_call_t *c, void *keys[2], void *vals[2], int64_t n, int ksize, int vsize, int kind,
                          int desc, int *cur);

/* The bytes kka_radix_gpu allocates for n keys of ksize bytes (one temporary). */
size_t kka_radix_gpu_state_bytes(int64_t n, int ksize);

#endif
