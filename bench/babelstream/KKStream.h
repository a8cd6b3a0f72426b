// bench/babelstream/KKStream.h -- BabelStream's Stream<T> on kk: three views and kk's kernels on kk's default backend.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once

#include <cstdint>

#include "Stream.h"
#include "kk_stream.h"

#define IMPLEMENTATION_STRING "kk"

// The argument struct, element type and kernels of one element type.
template <class T> struct KKStreamKernels;
#define KK_BS_TRAITS(T, KKTYPE)                                                        \
  template <> struct KKStreamKernels<T> {                                              \
    using args_t = struct kk_bs_args_##T;                                              \
    static constexpr kk_type_t type = KKTYPE;                                          \
    static const kk_kernel_t *init() { return KK_KERNEL(kk_bs_init_##T); }             \
    static const kk_kernel_t *copy() { return KK_KERNEL(kk_bs_copy_##T); }             \
    static const kk_kernel_t *mul() { return KK_KERNEL(kk_bs_mul_##T); }               \
    static const kk_kernel_t *add() { return KK_KERNEL(kk_bs_add_##T); }               \
    static const kk_kernel_t *triad() { return KK_KERNEL(kk_bs_triad_##T); }           \
    static const kk_kernel_t *nstream() { return KK_KERNEL(kk_bs_nstream_##T); }       \
    static const kk_kernel_t *dot() { return KK_KERNEL(kk_bs_dot_##T); }               \
  }
KK_BS_TRAITS(double, KK_DOUBLE);
KK_BS_TRAITS(float, KK_FLOAT);
#undef KK_BS_TRAITS

// kk is initialized by the constructor (kk_initialize_ex without argc/argv: BabelStream's own parser refuses
// arguments it does not know, so kk takes its settings from the environment or a JSON file, KOKKOS_DEVICE=cuda,
// KOKKOS_NUM_THREADS=16, KOKKOS_CONFIG=file.json) and finalized by the destructor.  A failed kk call throws
// std::runtime_error with kk's message.
template <class T>
class KKStream : public Stream<T>
{
  protected:
    intptr_t array_size;
    kk_view_t *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;  // in kk's default space
    kk_view_t *h_a = nullptr, *h_b = nullptr, *h_c = nullptr;  // host mirrors (the views themselves on a host backend)
    void *mem[3] = {nullptr, nullptr, nullptr};                // KK_BABELSTREAM_ALIGN's memory of a, b, c, or none
    kk_range_policy_t range;                                   // [0, array_size), the backend's chunks
    typename KKStreamKernels<T>::args_t args;                  // the views, the scalar, the start values
    void launch(const char *label, const kk_kernel_t *kernel);
    void release();

  public:
    KKStream(BenchId bs, const intptr_t array_size, const int device_id, T initA, T initB, T initC);
    ~KKStream();

    void copy() override;
    void add() override;
    void mul() override;
    void triad() override;
    void nstream() override;
    T dot() override;

    void get_arrays(T const*& a, T const*& b, T const*& c) override;
    void init_arrays(T initA, T initB, T initC) override;
};
