/* bench/algorithms_native.h -- the native sides of kk-bench-algorithms: std::sort and __gnu_parallel::sort on the host (bench/algorithms_native_host.cc), cuRAND and CUB on cuda (bench/algorithms_native_cuda.cu). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_ALGORITHMS_NATIVE_H
#define KK_BENCH_ALGORITHMS_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- host (C++): each sorts n elements in place and returns its seconds ---- */
/* kind: 0 uint32 keys, 1 int64 keys, 2 uint32 keys with uint32 values, 3 int64 keys with int64 values
 * (pairs: an array of {key, value} structs, ordered by key) */
double kab_std_sort(int kind, void *data, int64_t n);
/* the same with libstdc++'s parallel mode on `threads` OpenMP threads */
double kab_gnu_parallel_sort(int kind, void *data, int64_t n, int threads);

/* ---- cuda: each copies its host input to the device, runs once untimed and then `reps` times (each
 * followed by a device synchronize, inputs restored between runs outside the timing), and returns the
 * best seconds; *check gets a value to compare with kk's.  Negative: CUDA failed (printed). ---- */
/* curandGenerateUniformDouble into n doubles: XORWOW (philox 0) or PHILOX4_32_10 (philox 1); check: the mean */
double kab_cu_curand(int philox, int64_t n, int reps, double *check);
/* cub::DeviceRadixSort::SortKeys / SortPairs (kind as above; pairs as separate key and value arrays);
 * check: the sum of key[i] * (i % 7) after the sort */
double kab_cu_radix_sort(int kind, const void *keys, int64_t n, int reps, double *check);
/* cub::DeviceSelect::If of the doubles below `threshold`; check: their count */
double kab_cu_select(const double *x, int64_t n, double threshold, int reps, double *check);
/* a counting sort of n points (x, y, z in [0, 1)^3, n x 3 row-major) into nc^3 cells by atomics: counts,
 * cub::DeviceScan of them, a scatter into a copy, the copy back; check: the sum of x[i] * (i % 7) */
double kab_cu_counting_sort(const double *pts, int64_t n, int64_t nc, int reps, double *check);

#ifdef __cplusplus
}
#endif

#endif
