/* mpi/pack.kk.c -- libkk-mpi's pack and unpack kernels: a strided view's words to a contiguous buffer and back, on every target. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <kk/kernel.h>

#include "pack.h"

/* Word offset in the view of the buffer's word t, for a plan of any rank. */
KK__FN int64_t kk_mpi_plan_offset(const struct kk_mpi_pack_args *a, int64_t t) {
  int64_t off = 0;
  for (int32_t d = a->rank - 1; d >= 0; d--) {
    const int64_t e = a->ext[d];
    const int64_t q = t / e;
    off += (t - q * e) * a->str[d];
    t = q;
  }
  return off;
}

#define KK_MPI_PACK_KERNELS(W, T)                                                                              \
  KK_FOR(kk_mpi_pack1_w##W, struct kk_mpi_pack_args, i) {                                                       \
    KK_DATA(args->buf, T)[i] = KK_DATA(args->view, T)[i * args->str[0]];                                        \
  }                                                                                                             \
  KK_FOR(kk_mpi_unpack1_w##W, struct kk_mpi_pack_args, i) {                                                     \
    KK_DATA(args->view, T)[i * args->str[0]] = KK_DATA(args->buf, T)[i];                                        \
  }                                                                                                             \
  KK_MD_FOR2(kk_mpi_pack2_w##W, struct kk_mpi_pack_args, i, j) {                                                \
    KK_DATA(args->buf, T)[i * args->ext[1] + j] = KK_DATA(args->view, T)[i * args->str[0] + j * args->str[1]];  \
  }                                                                                                             \
  KK_MD_FOR2(kk_mpi_unpack2_w##W, struct kk_mpi_pack_args, i, j) {                                              \
    KK_DATA(args->view, T)[i * args->str[0] + j * args->str[1]] = KK_DATA(args->buf, T)[i * args->ext[1] + j];  \
  }                                                                                                             \
  KK_MD_FOR3(kk_mpi_pack3_w##W, struct kk_mpi_pack_args, i, j, k) {                                             \
    KK_DATA(args->buf, T)[(i * args->ext[1] + j) * args->ext[2] + k] =                                          \
        KK_DATA(args->view, T)[i * args->str[0] + j * args->str[1] + k * args->str[2]];                         \
  }                                                                                                             \
  KK_MD_FOR3(kk_mpi_unpack3_w##W, struct kk_mpi_pack_args, i, j, k) {                                           \
    KK_DATA(args->view, T)[i * args->str[0] + j * args->str[1] + k * args->str[2]] =                            \
        KK_DATA(args->buf, T)[(i * args->ext[1] + j) * args->ext[2] + k];                                       \
  }                                                                                                             \
  KK_FOR(kk_mpi_packn_w##W, struct kk_mpi_pack_args, t) {                                                       \
    KK_DATA(args->buf, T)[t] = KK_DATA(args->view, T)[kk_mpi_plan_offset(args, t)];                             \
  }                                                                                                             \
  KK_FOR(kk_mpi_unpackn_w##W, struct kk_mpi_pack_args, t) {                                                     \
    KK_DATA(args->view, T)[kk_mpi_plan_offset(args, t)] = KK_DATA(args->buf, T)[t];                             \
  }

KK_MPI_PACK_KERNELS(1, uint8_t)
KK_MPI_PACK_KERNELS(2, uint16_t)
KK_MPI_PACK_KERNELS(4, uint32_t)
KK_MPI_PACK_KERNELS(8, uint64_t)

/* The entry of batch index t (a short scan: at most KK_MPI_BATCH_MAX). */
KK__FN int32_t kk_mpi_batch_entry(const struct kk_mpi_batch_args *a, int64_t t) {
  int32_t f = 0;
  while (f + 1 < a->n && t >= a->first[f + 1])
    f++;
  return f;
}

/* Word offset in entry f's view of its buffer's word e. */
KK__FN int64_t kk_mpi_batch_offset(const struct kk_mpi_batch_args *a, int32_t f, int64_t e) {
  const int64_t e2 = a->ext[f][2], e1 = a->ext[f][1];
  const int64_t q = e / e2, k = e - q * e2;
  const int64_t i = q / e1, j = q - i * e1;
  return i * a->str[f][0] + j * a->str[f][1] + k * a->str[f][2];
}

#define KK_MPI_BATCH_KERNELS(W, T)                                                                  \
  KK_FOR(kk_mpi_packb_w##W, struct kk_mpi_batch_args, t) {                                          \
    const int32_t f = kk_mpi_batch_entry(args, t);                                                  \
    const int64_t e = t - args->first[f];                                                           \
    KK_DATA(args->buf[f], T)[e] = KK_DATA(args->view[f], T)[kk_mpi_batch_offset(args, f, e)];       \
  }                                                                                                 \
  KK_FOR(kk_mpi_unpackb_w##W, struct kk_mpi_batch_args, t) {                                        \
    const int32_t f = kk_mpi_batch_entry(args, t);                                                  \
    const int64_t e = t - args->first[f];                                                           \
    KK_DATA(args->view[f], T)[kk_mpi_batch_offset(args, f, e)] = KK_DATA(args->buf[f], T)[e];       \
  }

KK_MPI_BATCH_KERNELS(1, uint8_t)
KK_MPI_BATCH_KERNELS(2, uint16_t)
KK_MPI_BATCH_KERNELS(4, uint32_t)
KK_MPI_BATCH_KERNELS(8, uint64_t)

/* A contiguous row of n words: on the host through memcpy, since a view
 * never overlaps its buffer but the compiler cannot know it and leaves the
 * loop scalar (memcpy made the halo's kk side about 10% faster on one
 * core); short rows (an element's words) inline. */
#if defined(KK_TARGET_CUDA) || defined(KK_TARGET_HIP) || defined(KK_TARGET_SPIRV)
#define KK_MPI_COPY_ROW(dst, src, n, T) \
  do {                                  \
    for (int64_t x_ = 0; x_ < (n); x_++) \
      (dst)[x_] = (src)[x_];            \
  } while (0)
#else
#define KK_MPI_COPY_ROW(dst, src, n, T)          \
  do {                                           \
    if ((n) >= 8)                                \
      memcpy(dst, src, (size_t)(n) * sizeof(T)); \
    else                                         \
      for (int64_t x_ = 0; x_ < (n); x_++)       \
        (dst)[x_] = (src)[x_];                   \
  } while (0)
#endif

/* Host batches (kk_mpi_packp/unpackp): index t is part p = t / n of entry
 * f = t % n, the entry's words [w p / parts, w (p + 1) / parts) of its w
 * words, walked a row (a run of the fastest dimension) at a time: the
 * divisions once per part, then a tight loop (or memcpy) per row.  With
 * parts = the host threads, a static block schedule hands each thread one
 * part of every entry, as the native `omp for` per face does. */
#define KK_MPI_PART_KERNEL(NAME, T, UNPACK)                                                          \
  KK_FOR(NAME, struct kk_mpi_batch_args, t) {                                                        \
    const int64_t n = args->n, p = t / n;                                                            \
    const int32_t f = (int32_t)(t - p * n);                                                          \
    const int64_t w = args->first[f + 1] - args->first[f];                                           \
    const int64_t lo = w * p / args->parts, hi = w * (p + 1) / args->parts;                          \
    const int64_t e1 = args->ext[f][1], e2 = args->ext[f][2];                                        \
    const int64_t s0 = args->str[f][0], s1 = args->str[f][1], s2 = args->str[f][2];                  \
    const int64_t q = lo / e2, r = q / e1;                                                           \
    int64_t i = r, j = q - r * e1, k = lo - q * e2;                                                  \
    T *const view = KK_DATA(args->view[f], T);                                                       \
    T *buf = KK_DATA(args->buf[f], T) + lo;                                                          \
    for (int64_t left = hi - lo; left > 0;) {                                                        \
      const int64_t run = e2 - k < left ? e2 - k : left;                                             \
      T *const row = view + i * s0 + j * s1 + k * s2;                                                \
      if (s2 == 1) {                                                                                 \
        KK_MPI_COPY_ROW((UNPACK ? row : buf), (UNPACK ? buf : row), run, T);                         \
      } else if (UNPACK) {                                                                           \
        for (int64_t x = 0; x < run; x++)                                                            \
          row[x * s2] = buf[x];                                                                      \
      } else {                                                                                       \
        for (int64_t x = 0; x < run; x++)                                                            \
          buf[x] = row[x * s2];                                                                      \
      }                                                                                              \
      buf += run, left -= run, k = 0;                                                                \
      if (++j == e1)                                                                                 \
        j = 0, i++;                                                                                  \
    }                                                                                                \
  }
#define KK_MPI_PART_KERNELS(W, T)                                \
  KK_MPI_PART_KERNEL(kk_mpi_packp_w##W, T, 0)                    \
  KK_MPI_PART_KERNEL(kk_mpi_unpackp_w##W, T, 1)

KK_MPI_PART_KERNELS(1, uint8_t)
KK_MPI_PART_KERNELS(2, uint16_t)
KK_MPI_PART_KERNELS(4, uint32_t)
KK_MPI_PART_KERNELS(8, uint64_t)
