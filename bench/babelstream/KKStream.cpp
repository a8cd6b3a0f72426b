// bench/babelstream/KKStream.cpp -- BabelStream's Stream<T> on kk's public C API: views, kk_parallel_for,
// kk_parallel_reduce, kk_fence; the kernels are in kk_stream.kk.c.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>

#include "KKStream.h"

// A failed kk call ends the run with kk's own message (BabelStream's models throw from their constructors too).
static void kk_bs_check(kk_status_t st, const char *what)
{
  if (st != KK_OK)
    throw std::runtime_error(std::string("kk model: ") + what + ": " + kk_status_str(st) + ": " + kk_last_error());
}

// The alignment of KK_BABELSTREAM_ALIGN (bytes, a power of two that is a multiple of sizeof(void *)), or 0: a
// diagnostic that puts the arrays on a host backend in memory of that alignment (upstream's OpenMP model uses
// 2 MiB), wrapped as unmanaged views, to tell the allocation's share of a difference from the rest.
static size_t kk_bs_align()
{
  const char *e = std::getenv("KK_BABELSTREAM_ALIGN");
  if (!e || !*e)
    return 0;
  char *end;
  unsigned long long a = std::strtoull(e, &end, 10);
  if (*end || a < sizeof(void *) || (a & (a - 1)) || a % sizeof(void *))
    throw std::runtime_error(std::string("kk model: KK_BABELSTREAM_ALIGN=") + e +
                             ": not a power of two of at least " + std::to_string(sizeof(void *)) + " bytes");
  return static_cast<size_t>(a);
}

// One element view in the default space, not zeroed: init_arrays touches it first, with the kernels' own split
// of the range among threads (on a host backend each thread's pages then lie where that thread reads them).
// With an alignment (above) and a host default space, a view over memory of that alignment, stored in *mem.
static kk_view_t *kk_bs_view(const char *label, kk_type_t type, size_t elem, intptr_t n, size_t align, void **mem)
{
  kk_view_spec_t spec = KK_VIEW_SPEC_INIT;
  spec.label = label;
  spec.type = type;
  spec.rank = 1;
  spec.extents[0] = n;
  spec.flags = KK_VIEW_NO_INIT;
  kk_view_t *v = nullptr;
  if (align && kk_space_host_accessible(kk_space_default())) {
    if (posix_memalign(mem, align, elem * (size_t)n ? elem * (size_t)n : 1) != 0)
      throw std::runtime_error(std::string("kk model: no memory for ") + label);
    kk_bs_check(kk_view_wrap(&spec, *mem, &v), label);
  } else {
    kk_bs_check(kk_view_create(&spec, &v), label);
  }
  return v;
}

template <class T>
KKStream<T>::KKStream(BenchId, const intptr_t array_size, const int device_index, T initA, T initB, T initC)
  : array_size(array_size)
{
  // --device N of BabelStream picks device N of kk's default backend; 0 (its default) leaves the choice to
  // kk's settings (KOKKOS_DEVICE=cuda:1, KOKKOS_DEVICE_ID)
  kk_settings_t settings = KK_SETTINGS_INIT;
  if (device_index != 0)
    settings.device_id = device_index;
  kk_bs_check(kk_initialize_ex(nullptr, nullptr, &settings), "kk_initialize");
  try {
    using K = KKStreamKernels<T>;
    const size_t align = kk_bs_align();
    d_a = kk_bs_view("a", K::type, sizeof(T), array_size, align, &mem[0]);
    d_b = kk_bs_view("b", K::type, sizeof(T), array_size, align, &mem[1]);
    d_c = kk_bs_view("c", K::type, sizeof(T), array_size, align, &mem[2]);
    if (mem[0])
      std::cout << "kk model: arrays in memory aligned to " << align << " bytes (KK_BABELSTREAM_ALIGN)" << std::endl;
    kk_bs_check(kk_view_create_mirror_view(d_a, &h_a), "mirror of a");
    kk_bs_check(kk_view_create_mirror_view(d_b, &h_b), "mirror of b");
    kk_bs_check(kk_view_create_mirror_view(d_c, &h_c), "mirror of c");
    std::memset(&args, 0, sizeof args);
    args.a = kk_view_bind(d_a);
    args.b = kk_view_bind(d_b);
    args.c = kk_view_bind(d_c);
    args.scalar = startScalar;
    std::memset(&range, 0, sizeof range);
    range.struct_size = sizeof range;
    range.begin = 0;
    range.end = array_size;
    range.chunk = 0;  // the backend's choice, as a user's KK_RANGE has it
    range.schedule = KK_SCHEDULE_STATIC;
    range.instance = nullptr;
    init_arrays(initA, initB, initC);
  } catch (...) {
    release();
    throw;
  }
  std::cout << "kk backend: " << kk_backend_default() << " (" << kk_backend_default_reason() << ")" << std::endl;
}

// The views and kk itself (the constructor's cleanup after a failure, and the destructor's)
template <class T>
void KKStream<T>::release()
{
  kk_view_release(h_a), kk_view_release(h_b), kk_view_release(h_c);
  kk_view_release(d_a), kk_view_release(d_b), kk_view_release(d_c);
  h_a = h_b = h_c = d_a = d_b = d_c = nullptr;
  for (void *&m : mem) {  // the wrapped memory, after its views
    std::free(m);
    m = nullptr;
  }
  if (kk_is_initialized())
    kk_finalize();
}

template <class T>
KKStream<T>::~KKStream()
{
  release();
}

// Every kernel is a blocking call in BabelStream: a launch, then a fence (a host backend has finished on
// return already, and its fence returns at once).
template <class T>
void KKStream<T>::launch(const char *label, const kk_kernel_t *kernel)
{
  kk_bs_check(kk_parallel_for(label, &range, kernel, &args, sizeof args), label);
  kk_bs_check(kk_fence(), label);
}

template <class T>
void KKStream<T>::init_arrays(T initA, T initB, T initC)
{
  args.init_a = initA;
  args.init_b = initB;
  args.init_c = initC;
  launch("babelstream init", KKStreamKernels<T>::init());
}

template <class T>
void KKStream<T>::get_arrays(T const*& a, T const*& b, T const*& c)
{
  // on a host backend the mirrors are the views themselves: nothing to copy
  if (h_a != d_a) {
    kk_bs_check(kk_deep_copy(h_a, d_a), "copy of a to the host");
    kk_bs_check(kk_deep_copy(h_b, d_b), "copy of b to the host");
    kk_bs_check(kk_deep_copy(h_c, d_c), "copy of c to the host");
  }
  a = static_cast<T const *>(kk_view_data(h_a));
  b = static_cast<T const *>(kk_view_data(h_b));
  c = static_cast<T const *>(kk_view_data(h_c));
}

template <class T> void KKStream<T>::copy() { launch("babelstream copy", KKStreamKernels<T>::copy()); }
template <class T> void KKStream<T>::mul() { launch("babelstream mul", KKStreamKernels<T>::mul()); }
template <class T> void KKStream<T>::add() { launch("babelstream add", KKStreamKernels<T>::add()); }
template <class T> void KKStream<T>::triad() { launch("babelstream triad", KKStreamKernels<T>::triad()); }
template <class T> void KKStream<T>::nstream() { launch("babelstream nstream", KKStreamKernels<T>::nstream()); }

template <class T>
T KKStream<T>::dot()
{
  T sum{};
  // synchronous: the sum is on the host on return
  kk_bs_check(kk_parallel_reduce("babelstream dot", &range, KKStreamKernels<T>::dot(), &args, sizeof args, &sum,
                                 sizeof sum),
              "babelstream dot");
  return sum;
}

// --list: every device of every usable backend, numbered as --device takes them for the default backend
void listDevices(void)
{
  kk_status_t st = kk_initialize(nullptr, nullptr);
  if (st != KK_OK) {
    std::cerr << "kk_initialize: " << kk_status_str(st) << ": " << kk_last_error() << std::endl;
    return;
  }
  const char *def = kk_backend_default();
  for (int p = 0; p < kk_plugin_count(); p++) {
    kk_plugin_info_t pi;
    pi.struct_size = sizeof pi;
    if (kk_plugin_get_info(p, &pi) != KK_OK || (pi.state != KK_PLUGIN_LOADED && pi.state != KK_PLUGIN_BUILTIN))
      continue;
    for (int d = 0; d < kk_device_count(pi.name); d++) {
      kk_device_info_t di;
      di.struct_size = sizeof di;
      if (kk_device_get_info(pi.name, d, &di) != KK_OK)
        continue;
      std::cout << d << ": " << pi.name << ": " << di.name << (std::strcmp(pi.name, def) ? "" : " (default backend)")
                << std::endl;
    }
  }
  kk_finalize();
}

// BabelStream asks for these by index before or after the model exists; kk names its devices once initialized
static std::string kk_bs_device_field(int index, bool vendor)
{
  if (!kk_is_initialized())
    return "Device name unavailable";
  kk_device_info_t di;
  di.struct_size = sizeof di;
  if (kk_device_get_info(kk_backend_default(), index, &di) != KK_OK)
    return "Device name unavailable";
  return std::string(kk_backend_default()) + ": " + (vendor ? di.vendor : di.name);
}
std::string getDeviceName(const int index) { return kk_bs_device_field(index, false); }
std::string getDeviceDriver(const int index) { return kk_bs_device_field(index, true); }

template class KKStream<float>;
template class KKStream<double>;
