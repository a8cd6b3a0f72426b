// bench/algorithms_native_host.cc -- kk-bench-algorithms' native host sorts: std::sort on one core and libstdc++'s parallel mode (__gnu_parallel::sort).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <parallel/algorithm>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "algorithms_native.h"

namespace {

template <class K, class V> struct pair_kv {
  K key;
  V value;
  bool operator<(const pair_kv &o) const { return key < o.key; }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class T> double run(T *a, int64_t n, int threads) {
  const auto t0 = std::chrono::steady_clock::now();
  if (threads > 0) {
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    __gnu_parallel::sort(a, a + n);
  } else {
    std::sort(a, a + n);
  }
  return seconds_since(t0);
}

double dispatch(int kind, void *data, int64_t n, int threads) {
  switch (kind) {
  case 0:
    return run(static_cast<uint32_t *>(data), n, threads);
  case 1:
    return run(static_cast<int64_t *>(data), n, threads);
  case 2:
    return run(static_cast<pair_kv<uint32_t, uint32_t> *>(data), n, threads);
  default:
    return run(static_cast<pair_kv<int64_t, int64_t> *>(data), n, threads);
  }
}

} // namespace

extern "C" double kab_std_sort(int kind, void *data, int64_t n) { return dispatch(kind, data, n, 0); }
extern "C" double kab_gnu_parallel_sort(int kind, void *data, int64_t n, int threads) {
  return dispatch(kind, data, n, threads > 0 ? threads : 1);
}
